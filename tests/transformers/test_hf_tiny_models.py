"""Hugging Face transformers' modeling code under `python -m mindtorch.run`, against real PyTorch: tiny GPT-2, BERT and LLaMA built from configs with the same random weights — logits, loss,
gradients, one AdamW step, greedy generation (or an eval pass for BERT)."""

import os
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("transformers")
pytest.importorskip("torch")

HERE = os.path.dirname(os.path.abspath(__file__))


def _run(kind, out, runner):
    cmd = (
        [sys.executable]
        + (["-m", "mindtorch.run"] if runner else [])
        + [os.path.join(HERE, "hf_tiny_models.py"), kind, str(out)]
    )
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-4000:]
    return np.load(out)


@pytest.mark.parametrize("kind", ["gpt2", "bert", "llama"])
def test_tiny_model_matches_pytorch(kind, tmp_path):
    theirs, ours = _run(kind, tmp_path / "torch.npz", False), _run(kind, tmp_path / "mindtorch.npz", True)
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
