"""examples/train_llama.py — a LLaMA-style decoder written with torch_npu's fused functions (RMS norm,
rotary, SwiGLU, flash attention with grouped KV heads) — trains under `python -m mindtorch.run` on the npu
as it does on the cpu, in float32 and under bfloat16 autocast."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "train_llama.py"
pytestmark = pytest.mark.skipif(not SCRIPT.is_file(), reason="examples/train_llama.py not in this tree")


def _train(tmp_path, device, amp):
    out = tmp_path / f"{device}-{amp}.npz"
    cmd = [sys.executable, "-m", "mindtorch.run", str(SCRIPT), "--device", device, "--amp", amp]
    res = subprocess.run(
        [*cmd, "--steps", "6", "--out", str(out)], capture_output=True, text=True, timeout=600, env=dict(os.environ)
    )
    assert res.returncode == 0, res.stderr[-3000:]
    return np.load(out)


@pytest.mark.parametrize(
    "amp, rtol, atol",
    [("off", 2e-4, 2e-5), ("bf16", 3e-2, 3e-2)],
    ids=["float32", "bf16-autocast"],
)
def test_npu_training_follows_the_cpu(tmp_path, amp, rtol, atol):
    cpu, npu = _train(tmp_path, "cpu", amp), _train(tmp_path, "npu", amp)
    assert str(npu["device"]).startswith("npu") and str(cpu["device"]) == "cpu"
    assert npu["loss"][-1] < npu["loss"][0]
    np.testing.assert_allclose(npu["loss"], cpu["loss"], rtol=rtol, atol=atol)
    assert sorted(npu.files) == sorted(cpu.files)
    for name in cpu.files:
        if name.startswith("param."):  # AdamW's first steps move each entry by about lr
            np.testing.assert_allclose(npu[name], cpu[name], rtol=rtol * 10, atol=atol * 10, err_msg=name)
