"""What a DataLoader worker returns arrives as PyTorch's does: 0-dim tensors keep their shape,
requires_grad and the Parameter type survive, tensors that shared memory in the worker still do, and
every dtype travels (bfloat16 and the wide unsigned ones included)."""

import pytest
from helpers import torch_or_skip

torch = torch_or_skip()

import mindtorch as mt  # noqa: E402
import mindtorch.utils.data as mud  # noqa: E402
import torch.utils.data as tud  # noqa: E402

DTYPES = [
    "float32",
    "float64",
    "float16",
    "bfloat16",
    "int64",
    "int32",
    "uint8",
    "bool",
    "complex64",
    "uint16",
    "uint32",
    "uint64",
]


class Sample:
    """A map-style dataset of one dict per index, built with either library."""

    def __init__(self, lib):
        self.lib = lib

    def __len__(self):
        return 2

    def __getitem__(self, i):
        L = self.lib
        base = L.arange(6.0) + i
        return {
            "zero_dim": L.tensor(3.5 + i),
            "grad": L.ones(2).requires_grad_(),
            "param": L.nn.Parameter(L.full((2,), 2.0)),
            "frozen": L.nn.Parameter(L.zeros(1), requires_grad=False),
            "base": base,
            "view": base[2:5],
            "again": base,
            "dtypes": [L.ones(3, dtype=getattr(L, d)) for d in DTYPES],
        }


def _fetch(lib, data):
    return list(data.DataLoader(Sample(lib), batch_size=None, num_workers=2))


def _describe(b):
    view_offset = b["view"].data_ptr() - b["base"].data_ptr()
    b["view"].add_(100)  # seen through the base when they still share memory
    return {
        "zero_dim": (tuple(b["zero_dim"].shape), b["zero_dim"].item()),
        "grad": (b["grad"].requires_grad, b["grad"].is_leaf, type(b["grad"]).__name__),
        "param": (type(b["param"]).__name__, b["param"].requires_grad),
        "frozen": (type(b["frozen"]).__name__, b["frozen"].requires_grad),
        "alias": (view_offset, b["base"].tolist(), b["again"] is b["base"]),
        "dtypes": [
            (str(t.dtype), tuple(t.shape), t.real.tolist() if t.is_complex() else t.tolist()) for t in b["dtypes"]
        ],
    }


@pytest.mark.parametrize("index", [0, 1])
def test_values_types_and_aliasing_survive_a_worker_like_pytorch(index):
    ours = _describe(_fetch(mt, mud)[index])
    theirs = _describe(_fetch(torch, tud)[index])
    assert ours == theirs
