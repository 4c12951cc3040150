"""The conformance kit on every claimed chip, in a fresh process per chip (the SoC is read at start-up): what a
chip's documentation omits is the backend's own clear error, listed as unsupported and matching
chip_coverage; nothing fails; without the `--unsupported` pattern the same lacks are failures."""

import json
import os
import subprocess
import sys

import pytest
from mindtorch_npu import chip_coverage
from mindtorch_npu.chip_coverage import CLAIMED_CHIPS, LACKS_PATTERN

# every op a chip may lack, plus a few that every chip runs
OPS = sorted({op.split(" ")[0] for ops in chip_coverage.NEEDS.values() for op in ops} | {"add", "mm", "_to_copy"})


def _conformance(tmp_path, soc, *extra):
    report = tmp_path / f"{soc}.json"
    env = dict(os.environ, ACLSIM_SOC_NAME=soc, MINDTORCH_CONFORMANCE_DIR=str(tmp_path))
    argv = ["--device", "npu", "--ops", ",".join(OPS), "--no-checks", "--no-dtypes", "--json", str(report), *extra]
    proc = subprocess.run(
        [sys.executable, "-m", "mindtorch.testing.conformance", *argv], env=env, capture_output=True, text=True
    )
    return proc, json.loads(report.read_text())


@pytest.mark.parametrize("soc", CLAIMED_CHIPS)
def test_what_a_chip_lacks_is_listed_not_failing(tmp_path, soc):
    proc, data = _conformance(tmp_path, soc, "--unsupported", LACKS_PATTERN)
    assert proc.returncode == 0, proc.stdout[-3000:]
    unsupported = {n for n, r in data["ops"].items() if r["status"] == "unsupported"}
    expected = {op.split(" ")[0] for op in chip_coverage.ops_without_path(soc)}
    if soc in ("Ascend910A", "Ascend310P3"):  # no bfloat16 on these families: a cast to it is the chip's error
        expected.add("_to_copy")
        assert "bfloat16" in data["ops"]["_to_copy"]["detail"]
    assert unsupported == expected
    for name in unsupported:
        assert soc in data["ops"][name]["detail"]
    assert all(r["status"] == "conformant" for n, r in data["ops"].items() if n not in expected)


def test_without_the_pattern_a_lacking_operator_fails(tmp_path):
    proc, data = _conformance(tmp_path, "Ascend910A")
    assert proc.returncode == 1
    assert data["ops"]["_conv2d"]["status"] == "failing"
    assert "aclnnConvolution is not available on Ascend910A" in data["ops"]["_conv2d"]["detail"]
