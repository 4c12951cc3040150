"""A torch_npu user's training script (scripts/torch_npu_train.py) runs unchanged: under
`python -m mindtorch.run` (where `import torch` is mindtorch) and with its first import spelled
`import mindtorch as torch`; its npu run matches its cpu run within bfloat16's tolerance."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

SCRIPT = Path(__file__).parent / "scripts" / "torch_npu_train.py"


def _run(argv, tmp_path):
    res = subprocess.run(
        [sys.executable, *argv], capture_output=True, text=True, timeout=600, env=dict(os.environ), cwd=tmp_path
    )
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(res.stdout)


@pytest.fixture(scope="module", params=["runner", "import"])
def result(request, tmp_path_factory):
    tmp = tmp_path_factory.mktemp(request.param)
    if request.param == "runner":
        return _run(["-m", "mindtorch.run", str(SCRIPT)], tmp)
    edited = tmp / "train_import.py"
    edited.write_text(SCRIPT.read_text().replace("\nimport torch\n", "\nimport mindtorch as torch\n", 1))
    return _run([str(edited)], tmp)


def test_the_script_ran_on_mindtorch(result):
    assert result["torch_is"] == "mindtorch"
    assert result["npu"]["max_memory_allocated"] > 0


def test_npu_losses_follow_the_cpu_run(result):
    cpu, npu = result["cpu"], result["npu"]
    assert len(npu["losses"]) == 5 and npu["losses"][-1] < npu["losses"][0]
    np.testing.assert_allclose(npu["losses"], cpu["losses"], rtol=3e-2, atol=3e-2)
    assert npu["scale"] == cpu["scale"] == 65536.0


def test_npu_parameters_follow_the_cpu_run(result):
    for a, b in zip(result["npu"]["params"], result["cpu"]["params"]):
        np.testing.assert_allclose(a, b, rtol=5e-2, atol=5e-2)
