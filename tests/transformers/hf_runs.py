"""Running hf_tiny_models.py in a subprocess (real torch, or mindtorch under its runner, on a device) and
comparing two runs' saved arrays; shared by tests/transformers and tests/npu."""

import os
import subprocess
import sys

import numpy as np

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hf_tiny_models.py")
KINDS = ("gpt2", "bert", "llama")


def run(kind, out, runner, device="cpu"):
    """The arrays hf_tiny_models.py saves for `kind`, run with real torch or (runner) under mindtorch.run."""
    cmd = [sys.executable] + (["-m", "mindtorch.run"] if runner else []) + [SCRIPT, kind, str(out), device]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-4000:]
    return np.load(out)


def assert_runs_match(ours, theirs):
    """Two runs agree within float32 tolerances: logits, loss, gradients, the AdamW step, the generation."""
    assert sorted(ours.files) == sorted(theirs.files)
    np.testing.assert_allclose(ours["logits"], theirs["logits"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ours["loss"], theirs["loss"], rtol=1e-6)
    for f in theirs.files:
        if f.startswith("grad."):
            np.testing.assert_allclose(ours[f], theirs[f], rtol=1e-4, atol=1e-6, err_msg=f)
        elif f.startswith("param."):
            # one AdamW step: an entry whose gradient is rounding noise (BERT's key bias) moves by up to
            # lr * sign(noise), so parameters agree to 2e-4 rather than to float32 rounding
            np.testing.assert_allclose(ours[f], theirs[f], rtol=1e-4, atol=2e-4, err_msg=f)
    if "generated" in theirs.files:
        np.testing.assert_array_equal(ours["generated"], theirs["generated"])
    else:
        np.testing.assert_allclose(ours["eval_logits"], theirs["eval_logits"], rtol=1e-5, atol=1e-6)
