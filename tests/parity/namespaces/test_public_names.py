"""PyTorch 2.13's public names against mindtorch's, per namespace (tools/missing_names.py, which also holds
the commented exclusion list): the count of missing names may only go down. When a change adds names,
lower its namespace's figure here to the new count."""

import sys
from pathlib import Path

import pytest
from helpers import torch_or_skip

torch_or_skip()
sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tools"))

import missing_names  # noqa: E402

# namespace -> the most names it may lack
RATCHET = {
    "torch": 0,
    "torch.Tensor": 0,
    "torch.nn": 0,
    "torch.nn.functional": 0,
    "torch.nn.modules": 0,
    "torch.nn.utils": 0,
    "torch.nn.init": 0,
    "torch.optim": 0,
    "torch.optim.lr_scheduler": 0,
    "torch.utils.data": 0,
    "torch.utils.checkpoint": 0,
    "torch.autograd": 0,
    "torch.autograd.functional": 0,
    "torch.autograd.graph": 0,
    "torch.random": 0,
    "torch.linalg": 0,
    "torch.special": 0,
    "torch.fft": 0,
    "torch.amp": 0,
    "torch.testing": 0,
    "torch.serialization": 0,
    "torch.distributions": 0,
    "torch.distributed": 0,
    "torch.multiprocessing": 0,
    "torch.func": 0,
    "torch.profiler": 0,
    "torch.hub": 0,
}


@pytest.fixture(scope="module")
def found():
    return missing_names.counts()


def test_every_namespace_has_a_ratchet():
    assert sorted(RATCHET) == sorted(t for t, _ in missing_names.PAIRS)


@pytest.mark.parametrize("namespace", sorted(RATCHET))
def test_missing_names_never_grow(namespace, found):
    names, miss = found[namespace]
    assert len(miss) <= RATCHET[namespace], (
        f"{namespace} lacks {len(miss)} of PyTorch's {len(names)} public names (the ratchet allows "
        f"{RATCHET[namespace]}): {' '.join(miss)}"
    )


def test_the_exclusions_are_not_hiding_real_names():
    offered = ("Tensor", "tensor", "zeros", "matmul", "index_select", "values_copy", "float32", "uint8", "Size")
    assert [n for n in offered if missing_names._excluded("torch", n)] == ["values_copy"]
    assert missing_names._excluded("torch", "quantize_per_tensor") and missing_names._excluded("torch", "ScriptModule")
