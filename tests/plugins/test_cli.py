"""`python -m mindtorch` as a command, and what backend selection tells the user (fresh interpreters)."""

import json

import pytest
from helpers import installed_backends

CLI = ["-m", "mindtorch"]
INSTALLED = set(installed_backends())


def test_help_prints_usage_not_the_report(run_python):
    r = run_python(None, args=CLI + ["--help"])
    assert r.returncode == 0, r
    assert r.stdout.startswith("usage: python -m mindtorch"), r
    for word in ("--json", "--missing", "Exit status"):
        assert word in r.stdout, r.stdout
    assert "Backends:" not in r.stdout and r.stderr == ""


def test_unknown_option_is_a_usage_error(run_python):
    r = run_python(None, args=CLI + ["--bogus"])
    assert r.returncode == 2, r
    assert "unrecognized arguments: --bogus" in r.stderr and r.stdout == "", r


def test_json_report(run_python):
    r = run_python(None, plugins=["toy"], args=CLI + ["--json"])
    assert r.returncode == 0, r
    rep = json.loads(r.stdout)
    assert r.stderr == ""
    assert rep["mindtorch"]["distribution"] == "mindtorch-core" and rep["ops"] > 100
    assert set(rep["backends"]) == INSTALLED | {"toy"}
    toy = rep["backends"]["toy"]
    assert (toy["distribution"], toy["version"], toy["available"], toy["device_count"]) == (
        "mindtorch-toy",
        "0.0.1",
        True,
        2,
    )
    for b in rep["backends"].values():
        c = b["coverage"]
        assert c["total"] == rep["ops"]
        assert c["covered"] == c["kernels"] + c["composite_or_view"] + c["inplace_via_copy"]
        assert len(c["missing"]) == c["total"] - c["covered"]
    # toy has two kernels, so `mul` is missing there and covered on the cpu
    assert "mul" in rep["backends"]["toy"]["coverage"]["missing"]
    assert "mul" not in rep["backends"]["cpu"]["coverage"]["missing"]
    assert rep["skipped"] == [] and rep["not_selected"] == [] and rep["load_error"] is None


def test_json_reports_skipped_plugin_and_exit_status(run_python):
    r = run_python(None, plugins=["broken"], args=CLI + ["--json"])
    assert r.returncode == 1, r
    rep = json.loads(r.stdout)
    assert [s["distribution"] for s in rep["skipped"]] == ["mindtorch-broken-plugin"]
    assert "libbrokendevice" in rep["skipped"][0]["reason"]


def test_missing_device_lists_only_that_backend(run_python):
    r = run_python(None, plugins=["toy"], args=CLI + ["--missing", "toy"])
    assert r.returncode == 0, r
    missing = [ln for ln in r.stdout.splitlines() if ln.strip().startswith("missing:")]
    assert len(missing) == 1 and "mul" in missing[0], r.stdout
    assert r.stdout.index("missing:") > r.stdout.index("from mindtorch-toy")


@pytest.mark.skipif("npu" in INSTALLED, reason="needs an environment without mindtorch-npu")
def test_missing_unknown_device_is_a_usage_error(run_python):
    r = run_python(None, args=CLI + ["--missing", "npu"])
    assert r.returncode == 2, r
    assert "npu" in r.stderr and "mindtorch-npu" in r.stderr and r.stdout == ""


def test_no_backend_loaded_report_has_no_stray_warning(run_python):
    r = run_python(None, args=CLI + ["--json"], MINDTORCH_BACKENDS="none")
    assert r.returncode == 1, r
    assert r.stderr == "", r  # no runpy-attributed warning before the report
    rep = json.loads(r.stdout)
    assert rep["backends"] == {}
    assert {e["name"] for e in rep["not_selected"]} >= {"cpu", "meta"}


def test_strict_load_failure_is_reported_not_a_traceback(run_python):
    r = run_python(None, plugins=["broken"], args=CLI, MINDTORCH_STRICT_PLUGINS="1")
    assert r.returncode == 1, r
    assert "Traceback" not in r.stderr, r
    assert "Loading backends failed" in r.stdout and "mindtorch-broken-plugin" in r.stdout, r


def test_backend_info_is_reported_under_its_backend(run_python):
    r = run_python("""
        from mindtorch.plugins import Backend
        from mindtorch._backends import loader
        from mindtorch.__main__ import gather, _text
        import mindtorch_cpu

        class Module:
            @staticmethod
            def backend_info():
                return {"libascendcl": "not found (ASCEND_HOME_PATH unset)", "soc": None}

        class Fake(Backend):
            device_type = "fakedev"
            def allocator(self): return mindtorch_cpu.backend.allocator()
            def copy_routines(self): return mindtorch_cpu.backend.copy_routines()
            def device_module(self): return Module

        class Broken(Fake):
            device_type = "brokeninfo"
            def device_module(self):
                class M:
                    def backend_info():
                        raise OSError("probe failed")
                return M

        loader.register_plugin(Fake(), "mindtorch-fake", "1.2.3")
        loader.register_plugin(Broken(), "mindtorch-brokeninfo", "1.2.3")
        rep = gather()
        emit({"fake": rep["backends"]["fakedev"], "broken": rep["backends"]["brokeninfo"],
              "cpu": rep["backends"]["cpu"], "text": _text(rep)})
    """)
    assert r.returncode == 0, r
    res = r.result
    assert res["fake"]["info"] == {"libascendcl": "not found (ASCEND_HOME_PATH unset)", "soc": None}
    assert "info" not in res["cpu"]
    assert "OSError: probe failed" in res["broken"]["errors"]["backend_info"]
    text = res["text"]
    fake = text[text.index("fakedev") :]  # backends are listed sorted: brokeninfo, cpu, fakedev
    assert "libascendcl: not found (ASCEND_HOME_PATH unset)" in fake and "soc: None" in fake
    assert "backend info: ? (OSError: probe failed)" in text


IMPORT = """
import warnings
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import mindtorch as torch
warned = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
try:
    torch.zeros(2, device="meta")
    err = None
except RuntimeError as exc:
    err = str(exc)
emit({"warned": warned, "err": err, "backends": torch.backends_installed()})
"""


def test_unknown_backend_name_is_warned_with_installed_names(run_python):
    r = run_python(IMPORT, plugins=["toy"], MINDTORCH_BACKENDS="cpux,meta")
    assert r.returncode == 0, r
    assert r.result["backends"] == ["meta"]
    typo = [w for w in r.result["warned"] if "cpux" in w]
    assert len(typo) == 1 and f"installed backends: {', '.join(sorted(INSTALLED | {'toy'}))}" in typo[0], r.result


def test_known_backend_names_are_not_warned(run_python):
    r = run_python(IMPORT, plugins=["toy"], MINDTORCH_BACKENDS="cpu,meta,toy")
    assert r.returncode == 0, r
    assert r.result["warned"] == [] and r.result["err"] is None


def test_deselected_installed_backend_says_how_to_enable_it(run_python):
    r = run_python(IMPORT, MINDTORCH_BACKENDS="cpu")
    assert r.returncode == 0, r
    err = r.result["err"]
    assert "installed (mindtorch-meta) but not loaded" in err, err
    assert "MINDTORCH_BACKENDS=cpu,meta" in err and "pip install" not in err


def test_none_selected_warning_names_installed_backends(run_python):
    r = run_python(IMPORT, MINDTORCH_BACKENDS="none")
    assert r.returncode == 0, r
    (w,) = r.result["warned"]
    assert f"selects none of the installed ones ({', '.join(sorted(INSTALLED))})" in w, w
    assert "installed (mindtorch-meta) but not loaded" in r.result["err"]
