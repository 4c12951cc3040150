"""Hugging Face transformers' modeling code under `python -m mindtorch.run`, against real PyTorch: tiny GPT-2, BERT and LLaMA built from configs with the same random weights — logits, loss,
gradients, one AdamW step, greedy generation (or an eval pass for BERT)."""

import pytest
from hf_runs import KINDS, assert_runs_match, run

pytest.importorskip("transformers")
pytest.importorskip("torch")


@pytest.mark.parametrize("kind", KINDS)
def test_tiny_model_matches_pytorch(kind, tmp_path):
    theirs, ours = run(kind, tmp_path / "torch.npz", False), run(kind, tmp_path / "mindtorch.npz", True)
    assert_runs_match(ours, theirs)
