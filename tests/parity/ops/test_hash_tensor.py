"""torch.hash_tensor / Tensor.hash_tensor: the xor of each element's 64-bit pattern, against PyTorch."""

import itertools

import numpy as np
import pytest
from helpers import assert_same, raises_alike, torch_or_skip

torch = torch_or_skip()

import mindtorch as mt  # noqa: E402

DTYPES = ["float16", "bfloat16", "float32", "float64", "int8", "uint8", "int16", "int32", "int64", "bool"]
SHAPES = [(), (5,), (3, 4), (2, 3, 5), (0, 3)]


def _pair(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    data = np.array(rng.standard_normal(shape) * 50)
    if dtype == "float32" and data.size > 1:  # NaN and -0.0 hash by their bits
        data.flat[0], data.flat[-1] = np.nan, -0.0
    th = torch.tensor(data).to(getattr(torch, dtype))
    return mt.tensor(th.to(torch.float64).numpy()).to(getattr(mt, dtype)), th


def _dim_choices(nd):
    yield ()
    for r in range(1, nd + 1):
        yield from itertools.combinations(range(nd), r)
    if nd:
        yield -1


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_hash_matches_torch(shape, dtype):
    m, th = _pair(shape, dtype, len(shape))
    for dim, keepdim in itertools.product(_dim_choices(len(shape)), (False, True)):
        try:
            want = torch.hash_tensor(th, dim, keepdim=keepdim)
        except Exception as exc:
            with pytest.raises(type(exc)):
                mt.hash_tensor(m, dim, keepdim=keepdim)
            continue
        assert_same(mt.hash_tensor(m, dim, keepdim=keepdim), want)
        assert_same(m.hash_tensor(dim, keepdim=keepdim), want)


def test_hash_full_reduction_default_and_grad_input():
    m, th = _pair((4, 7), "float64", 3)
    assert_same(mt.hash_tensor(m), torch.hash_tensor(th))
    assert not mt.hash_tensor(m.requires_grad_()).requires_grad


@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.hash_tensor(lib.ones(2, 3), mode=1),
        lambda lib: lib.hash_tensor(lib.ones(2, 3), 5),
        lambda lib: lib.hash_tensor(lib.zeros(0, 3), 0),
        lambda lib: lib.hash_tensor(lib.zeros(0, 3)),
        lambda lib: lib.hash_tensor(lib.ones(2, 3), (0, 0)),
        lambda lib: lib.hash_tensor(lib.ones(2, dtype=lib.complex64)),
        lambda lib: lib.hash_tensor(lib.ones(2, dtype=lib.uint32)),
    ],
)
def test_hash_errors_like_torch(call):
    raises_alike(call)
