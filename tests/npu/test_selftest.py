"""python -m mindtorch_npu.selftest on the simulator: every item passes on a 910B-class chip; on chips whose
documentation omits operators the items needing them are SKIP with the reason, never FAIL; an injected failure
is reported with its error while the other items still pass; the environment is reported."""

import json
import os
import subprocess
import sys

import pytest
from mindtorch_npu import selftest


def _selftest(soc, devices="2"):
    env = dict(os.environ, ACLSIM_SOC_NAME=soc, ACLSIM_DEVICE_COUNT=devices)
    proc = subprocess.run(
        [sys.executable, "-m", "mindtorch_npu.selftest", "--json", "-"], env=env, capture_output=True, text=True
    )
    return proc.returncode, json.loads(proc.stdout)


def _by_name(report):
    return {item["name"]: item for item in report["checks"]}


@pytest.mark.parametrize("soc", ["Ascend910B1", "Ascend910_9392"])
def test_every_item_passes_on_a_chip_with_every_operator(soc):
    code, report = _selftest(soc)
    assert code == 0 and report["ok"]
    assert {i["status"] for i in report["checks"]} == {"PASS"}, report["checks"]
    assert [i["name"] for i in report["checks"]] == [name for name, _ in selftest.CHECKS]
    env = report["environment"]
    assert env["soc"] == soc and env["devices"] == 2 and "CANN version" in env
    assert all(os.path.isfile(env[lib].split(" [")[0]) for lib in ("libascendcl.so", "libopapi.so"))
    assert report["summary"].startswith(f"selftest on {soc}: {len(selftest.CHECKS)} passed, 0 failed, 0 skipped")


@pytest.mark.parametrize(
    ("soc", "skipped"),
    [
        # what optable.json's product lists mark unsupported: aclnnGather on Ascend950; on the training series
        # also aclnnConvolution and max pooling (its aclnnExp is taken by aclnnExpm1 + 1); on the inference series
        # also aclnnExp, aclnnAdd, aclnnSub, aclnnInplaceNormal and aclnnLayerNorm
        ("Ascend950PR", {"indexing"}),
        (
            "Ascend910A",
            {"indexing", "nn: convolution", "nn: max pooling"},
        ),
        (
            "Ascend310P3",
            {
                "pointwise",
                "indexing",
                "random",
                "nn: max pooling",
                "nn: normalization",
                "nn: normalization backward",
                "nn: embedding and losses",
                "autograd: MLP backward",
                "training: AdamW step",
            },
        ),
    ],
)
def test_what_the_chip_lacks_is_skipped_with_the_reason(soc, skipped):
    code, report = _selftest(soc)
    items = _by_name(report)
    assert code == 0 and report["ok"]
    assert {n for n, i in items.items() if i["status"] == "SKIP"} == skipped
    assert all(i["status"] == "PASS" for n, i in items.items() if n not in skipped)
    for name in skipped:
        assert f"is not available on {soc}" in items[name]["detail"]


def test_hccl_is_skipped_with_one_device():
    code, report = _selftest("Ascend910B1", devices="1")
    item = _by_name(report)["hccl: all_reduce on two devices"]
    assert code == 0 and item["status"] == "SKIP" and "needs two devices, 1 present" in item["detail"]


def test_a_failing_kernel_is_reported_and_the_rest_still_run(monkeypatch, capsys):
    import mindtorch_npu.kernels.sorting as sorting

    real = sorting.launch

    def broken(op, *args, **kw):
        if op == "Sort":
            raise RuntimeError("injected: aclnnSort failed")
        return real(op, *args, **kw)

    monkeypatch.setattr(sorting, "launch", broken)
    assert selftest.main([]) == 1
    out = capsys.readouterr().out
    assert "FAIL  sorting" in out and "RuntimeError: injected: aclnnSort failed" in out
    report = selftest.run()
    items = _by_name(report)
    assert not report["ok"] and items["sorting"]["status"] == "FAIL"
    assert all(i["status"] == "PASS" for n, i in items.items() if n != "sorting"), report["checks"]
    assert ", 1 failed," in report["summary"]


def test_an_item_leaving_a_device_error_behind_fails_and_the_next_one_runs():
    import mindtorch as torch

    def wrong():
        if not torch.equal(torch.ones(3, device="npu").cpu(), torch.zeros(3)):
            raise AssertionError("values differ")

    report = selftest.run([("wrong values", wrong), ("pointwise", dict(selftest.CHECKS)["pointwise"])])
    assert [i["status"] for i in report["checks"]] == ["FAIL", "PASS"]
    assert report["checks"][0]["detail"] == "AssertionError: values differ"


def test_the_cann_version_is_read_from_the_toolkit(tmp_path, monkeypatch):
    (tmp_path / "aarch64-linux").mkdir()
    (tmp_path / "aarch64-linux" / "ascend_toolkit_install.info").write_text(
        "package_name=Ascend-cann\nversion=8.0.RC3\n"
    )
    monkeypatch.setenv("ASCEND_TOOLKIT_HOME", str(tmp_path))
    assert selftest.cann_version().startswith("8.0.RC3 (")
    monkeypatch.setenv("ASCEND_TOOLKIT_HOME", str(tmp_path / "other" / "lib" / "lib64"))
    monkeypatch.delenv("ASCEND_HOME_PATH", raising=False)
    monkeypatch.delenv("ASCEND_OPP_PATH", raising=False)
    assert selftest.cann_version() is None
