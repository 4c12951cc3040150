"""Plugin faults: one plugin's failure never takes `import mindtorch` or
`python -m mindtorch` down, and the report names the distribution at fault."""

import pytest
from helpers import installed_backends

CLI = ["-m", "mindtorch"]

IMPORT = """
import warnings
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import mindtorch as torch
from mindtorch._backends import loader
emit({"warned": [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)],
      "skipped": loader.skipped, "backends": torch.backends_installed(), "works": (torch.ones(2) + 1).tolist()})
"""


def test_plugin_calling_sys_exit_is_contained(run_python):
    r = run_python(IMPORT, plugins=["exiter"])
    assert r.returncode == 0, r
    assert [d for d, _ in r.result["skipped"]] == ["mindtorch-exiter-plugin"]
    assert "SystemExit" in r.result["skipped"][0][1]
    assert r.result["backends"] == installed_backends() and r.result["works"] == [2.0, 2.0]


def test_slow_plugin_import_is_warned(run_python):
    r = run_python(IMPORT, plugins=["slow"])
    assert r.returncode == 0, r
    assert any("mindtorch-slow-plugin" in w and "to import" in w for w in r.result["warned"]), r
    assert r.result["skipped"] == []


def test_fast_plugins_are_not_warned_about_time(run_python):
    r = run_python(IMPORT, plugins=["toy"])
    assert r.returncode == 0, r
    assert not any("to import" in w for w in r.result["warned"]), r


def test_objects_missing_hookspec_methods_are_refused_at_load(run_python):
    r = run_python(IMPORT, plugins=["badalloc"])
    assert r.returncode == 0, r
    ((dist, reason),) = r.result["skipped"]
    assert dist == "mindtorch-badalloc-plugin"
    assert "allocator" in reason and "free" in reason and "bytes_in_use" in reason, reason
    assert "badalloc" not in r.result["backends"]


def test_objects_missing_hookspec_methods_strict_raises(run_python):
    r = run_python("import mindtorch", plugins=["badalloc"], MINDTORCH_STRICT_PLUGINS="1")
    assert r.returncode != 0 and "PluginLoadError" in r.stderr and "mindtorch-badalloc-plugin" in r.stderr, r


@pytest.mark.parametrize(
    "plugins, env, shown",
    [
        (["exiter"], {}, "mindtorch-exiter-plugin"),
        (["slow"], {}, None),
        (["badalloc"], {}, "mindtorch-badalloc-plugin"),
        (["badalloc"], {"MINDTORCH_STRICT_PLUGINS": "1"}, "mindtorch-badalloc-plugin"),
        (["exiter"], {"MINDTORCH_STRICT_PLUGINS": "1"}, "mindtorch-exiter-plugin"),
        (["dupcpu"], {}, "mindtorch-dupcpu-plugin"),
        (["broken", "exiter", "badalloc", "dupcpu", "toy"], {}, "mindtorch-dupcpu-plugin"),
    ],
)
def test_cli_always_runs_and_shows_the_fault(run_python, plugins, env, shown):
    r = run_python(None, plugins=plugins, args=CLI, **env)
    assert "Traceback" not in r.stderr, r
    assert r.returncode in (0, 1), r
    assert "cpu" in r.stdout, r
    if shown:
        assert r.returncode == 1 and shown in r.stdout, r


def test_cli_shows_the_clash_with_both_distributions(run_python):
    r = run_python(None, plugins=["dupcpu"], args=CLI)
    assert r.returncode == 1 and "Traceback" not in r.stderr, r
    assert "'cpu'" in r.stdout and "mindtorch-cpu" in r.stdout and "mindtorch-dupcpu-plugin" in r.stdout, r
