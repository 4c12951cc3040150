"""Hugging Face transformers' tiny GPT-2, BERT and LLaMA under `python -m mindtorch.run` on the npu (simulator):
forward, backward, one AdamW step and greedy generation (an eval pass for BERT) match the same program on the
cpu within float32 tolerances. The runs and the comparison are tests/transformers' own."""

import importlib.util
from pathlib import Path

import pytest

pytest.importorskip("transformers")

_RUNS = Path(__file__).resolve().parents[1] / "transformers" / "hf_runs.py"
_spec = importlib.util.spec_from_file_location("hf_runs", _RUNS)
hf_runs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(hf_runs)


@pytest.mark.parametrize("kind", hf_runs.KINDS)
def test_tiny_model_on_npu_matches_cpu(kind, tmp_path):
    cpu = hf_runs.run(kind, tmp_path / "cpu.npz", True)
    npu = hf_runs.run(kind, tmp_path / "npu.npz", True, device="npu")
    hf_runs.assert_runs_match(npu, cpu)
