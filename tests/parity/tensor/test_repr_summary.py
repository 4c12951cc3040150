"""repr of tensors past the print threshold: the summary PyTorch prints, read without materialising
the tensor (a 2**40-element expand prints at once)."""

import pytest
from helpers import torch_or_skip

torch = torch_or_skip()

import mindtorch as mt  # noqa: E402

BIG = {
    "expand_2_40": lambda L: L.zeros(1).expand(2**40),
    "expand_rows": lambda L: L.arange(6.0).reshape(3, 2)[:, :1].expand(3, 2**38),
    "expand_3d": lambda L: L.arange(4.0).reshape(2, 1, 2, 1).expand(2, 2**20, 2, 2**12).squeeze(2)[:, :, 0],
    "transposed_strided": lambda L: L.arange(5000).reshape(50, 100).t()[::2],
    "offset_view": lambda L: L.arange(3000.0).reshape(3, 1000)[1:, 7:],
    "three_dims": lambda L: L.arange(2000.0).reshape(2, 10, 100),
    "bool": lambda L: (L.arange(3000) % 3 == 0).reshape(30, 100),
    "complex": lambda L: L.complex(L.arange(1.0, 2001.0), -L.arange(1.0, 2001.0)).expand(2, 2000),
    "float_expand": lambda L: L.tensor([1.5, -2.25]).reshape(2, 1).expand(2, 10**6),
    "bfloat16": lambda L: L.arange(1200.0).to(L.bfloat16),
    "int32_requires_nothing": lambda L: L.arange(1001, dtype=L.int32),
    "grad": lambda L: L.ones(2000, requires_grad=True),
}


@pytest.mark.parametrize("name", sorted(BIG))
def test_summarised_repr_matches(name):
    assert repr(BIG[name](mt)) == repr(BIG[name](torch))
