"""Backend discovery end to end: real installed distributions, fresh interpreters."""

from helpers import installed_backends

IMPORT_RECORDING = """
import warnings
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import mindtorch as torch
from mindtorch._backends import loader
warned = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
"""


def test_toy_backend_end_to_end(run_python):
    r = run_python(
        """
        import mindtorch as torch
        a = torch.tensor([1.0, 2.0, 3.0], device="toy")
        b = torch.tensor([10.0, 20.0, 30.0], device="toy")
        c = a + b
        back = c.to("cpu")
        try:
            torch.mul(a, b)
            err = None
        except NotImplementedError as exc:
            err = str(exc)
        up = torch.tensor([1, 2], dtype=torch.int64).to("toy")
        emit({"backends": torch.backends_installed(), "dev": c.device.type, "dtype": str(c.dtype),
              "values": back.tolist(), "back_dev": str(back.device), "err": err,
              "up": [up.device.type, up.to("cpu").tolist()]})
    """,
        plugins=["toy"],
    )
    assert r.returncode == 0, r
    res = r.result
    assert res["backends"] == installed_backends("toy")
    assert res["dev"] == "toy" and res["dtype"] == "torch.float32"
    assert res["values"] == [11.0, 22.0, 33.0] and res["back_dev"] == "cpu"
    assert res["err"] is not None and "'mul'" in res["err"] and "toy" in res["err"]
    assert res["up"] == ["toy", [1, 2]]


def test_toy_backend_records_distribution(run_python):
    r = run_python(
        """
        import mindtorch
        from mindtorch._backends.registry import BACKENDS
        b = BACKENDS["toy"]
        emit([b.distribution, b.version, b.is_available(), b.device_count()])
    """,
        plugins=["toy"],
    )
    assert r.returncode == 0, r
    assert r.result == ["mindtorch-toy", "0.0.1", True, 2]


def test_broken_plugin_is_skipped_with_warning(run_python):
    r = run_python(
        IMPORT_RECORDING
        + """
emit({"warned": warned, "skipped": loader.skipped, "backends": torch.backends_installed(),
      "works": (torch.ones(2) + 1).tolist()})
""",
        plugins=["broken"],
    )
    assert r.returncode == 0, r
    assert any("mindtorch-broken-plugin" in w for w in r.result["warned"]), r
    assert [d for d, _ in r.result["skipped"]] == ["mindtorch-broken-plugin"]
    assert "libbrokendevice" in r.result["skipped"][0][1]
    assert r.result["backends"] == installed_backends() and r.result["works"] == [2.0, 2.0]


def test_broken_plugin_strict_raises(run_python):
    r = run_python("import mindtorch", plugins=["broken"], MINDTORCH_STRICT_PLUGINS="1")
    assert r.returncode != 0
    assert "PluginLoadError" in r.stderr and "mindtorch-broken-plugin" in r.stderr, r


def test_incompatible_api_version_is_skipped(run_python):
    r = run_python(
        IMPORT_RECORDING
        + """
emit({"warned": warned, "skipped": loader.skipped, "backends": torch.backends_installed()})
""",
        plugins=["oldapi"],
    )
    assert r.returncode == 0, r
    assert any("mindtorch-oldapi-plugin" in w and "999" in w for w in r.result["warned"]), r
    assert [d for d, _ in r.result["skipped"]] == ["mindtorch-oldapi-plugin"]
    assert "oldapi" not in r.result["backends"]


def test_incompatible_api_version_strict_raises(run_python):
    r = run_python("import mindtorch", plugins=["oldapi"], MINDTORCH_STRICT_PLUGINS="1")
    assert r.returncode != 0
    assert "mindtorch-oldapi-plugin" in r.stderr and "version" in r.stderr, r


def test_duplicate_device_names_both_distributions(run_python):
    r = run_python("import mindtorch", plugins=["dupcpu"])
    assert r.returncode != 0
    last = r.stderr.strip().splitlines()[-1]
    assert "mindtorch-cpu" in last and "mindtorch-dupcpu-plugin" in last and "'cpu'" in last, r


def test_backends_none_loads_nothing(run_python):
    r = run_python(
        IMPORT_RECORDING
        + """
try:
    torch.zeros(2, device="cpu")
    err = None
except RuntimeError as exc:
    err = str(exc)
try:
    torch.tensor([1.0])
    err2 = None
except RuntimeError as exc:
    err2 = str(exc)
emit({"backends": torch.backends_installed(), "err": err, "err2": err2, "warned": warned})
""",
        plugins=["toy", "broken", "dupcpu"],
        MINDTORCH_BACKENDS="none",
    )
    assert r.returncode == 0, r
    res = r.result
    assert res["backends"] == []
    assert res["err"] and "mindtorch-cpu" in res["err"]
    assert res["err2"] and "mindtorch-cpu" in res["err2"]
    assert any("no backend" in w for w in res["warned"])


def test_backends_selection_loads_only_named(run_python):
    r = run_python(
        IMPORT_RECORDING
        + """
emit({"backends": torch.backends_installed(), "warned": warned})
""",
        plugins=["toy", "broken", "dupcpu", "oldapi"],
        MINDTORCH_BACKENDS="cpu",
    )
    assert r.returncode == 0, r
    assert r.result == {"backends": ["cpu"], "warned": []}


def test_backends_selection_with_third_party(run_python):
    r = run_python(
        IMPORT_RECORDING
        + """
emit({"backends": torch.backends_installed(), "warned": warned})
""",
        plugins=["toy", "broken", "dupcpu"],
        MINDTORCH_BACKENDS="cpu,toy",
    )
    assert r.returncode == 0, r
    assert r.result == {"backends": ["cpu", "toy"], "warned": []}


def test_meta_unselected_names_its_distribution(run_python):
    r = run_python(
        """
        import mindtorch as torch
        try:
            torch.zeros(2, device="meta")
            err = None
        except RuntimeError as exc:
            err = str(exc)
        emit(err)
    """,
        MINDTORCH_BACKENDS="cpu",
    )
    assert r.returncode == 0, r
    assert r.result and "mindtorch-meta" in r.result


def test_info_command_lists_backends_and_skipped(run_python):
    r = run_python(None, plugins=["toy", "broken"], args=["-m", "mindtorch"])
    assert r.returncode == 1, r  # a plugin failed to load
    assert r.stderr == "", r  # the report says it; no warning besides
    out = r.stdout
    for word in (
        "mindtorch-core",
        "mindtorch-cpu",
        "mindtorch-toy",
        "toy",
        "mindtorch-broken-plugin",
        "libbrokendevice",
    ):
        assert word in out, out
    toy = out[out.index("from mindtorch-toy") :]
    assert "devices: 2" in toy and "op coverage:" in toy, out


def test_info_command_without_backends(run_python):
    r = run_python(None, args=["-m", "mindtorch"], MINDTORCH_BACKENDS="none")
    assert r.returncode == 1, r  # nothing usable
    assert "no backend" in r.stdout.lower(), r.stdout
