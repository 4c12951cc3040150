"""Pointwise ops on the meta device: shapes and dtypes from the shape rules, errors like the CPU."""

import mindtorch
import pytest


def meta(shape, dtype=mindtorch.float32):
    return mindtorch.empty(shape, dtype=dtype, device="meta")


@pytest.mark.parametrize(
    "fn,dtype",
    [
        (lambda a, b: a + b, mindtorch.float32),
        (lambda a, b: a * 2.5, mindtorch.float32),
        (lambda a, b: a < b, mindtorch.bool),
        (lambda a, b: mindtorch.where(a > 0, a, b), mindtorch.float32),
        (lambda a, b: mindtorch.exp(a), mindtorch.float32),
        (lambda a, b: 2**a, mindtorch.float32),
        (lambda a, b: mindtorch.clamp(a, b, b + 1), mindtorch.float32),
        (lambda a, b: mindtorch.gelu(a), mindtorch.float32),
        (lambda a, b: mindtorch.lerp(a, b, 0.5), mindtorch.float32),
        (lambda a, b: mindtorch.isnan(a), mindtorch.bool),
    ],
)
def test_meta_shapes_and_dtypes(fn, dtype):
    a = meta((4, 1, 3))
    b = meta((2, 3))
    r = fn(a, b)
    assert r.device.type == "meta"
    assert r.dtype is dtype
    assert tuple(r.shape) in ((4, 2, 3), (4, 1, 3))


def test_meta_integer_rules():
    i = meta((3,), mindtorch.int32)
    assert (i + 5).dtype is mindtorch.int32
    assert (i + 1.5).dtype is mindtorch.float32
    assert i.sqrt().dtype is mindtorch.float32
    with pytest.raises(RuntimeError):
        i**-2
    with pytest.raises(RuntimeError):
        meta((3,)) + meta((4,))
    with pytest.raises(RuntimeError):
        meta((3,)) & meta((3,))


def test_meta_inplace_keeps_tensor():
    a = meta((2, 3))
    assert a.add_(1) is a
    with pytest.raises(RuntimeError):
        a.add_(meta((4, 2, 3)))
