"""Reductions and linalg on the meta device: shapes and dtypes from the rules, errors included."""

import mindtorch as mt
import pytest


def m(*shape, dtype=mt.float32):
    return mt.empty(*shape, dtype=dtype, device="meta")


@pytest.mark.parametrize(
    "fn,shape,dtype",
    [
        (lambda x: x.sum(1), (2,), mt.float32),
        (lambda x: m(2, 3, dtype=mt.int32).sum(), (), mt.int64),
        (lambda x: x.mean((0, 1), keepdim=True), (1, 1), mt.float32),
        (lambda x: x.prod(0), (3,), mt.float32),
        (lambda x: x.max(1).indices, (2,), mt.int64),
        (lambda x: x.amax(), (), mt.float32),
        (lambda x: x.argmax(1, keepdim=True), (2, 1), mt.int64),
        (lambda x: x.var(0), (3,), mt.float32),
        (lambda x: mt.std_mean(x, 1)[1], (2,), mt.float32),
        (lambda x: x.logsumexp(1), (2,), mt.float32),
        (lambda x: x.all(1), (2,), mt.bool),
        (lambda x: x.count_nonzero(), (), mt.int64),
        (lambda x: x.cumsum(1), (2, 3), mt.float32),
        (lambda x: x.softmax(1), (2, 3), mt.float32),
        (lambda x: x.norm(), (), mt.float32),
        (lambda x: x @ m(3, 4), (2, 4), mt.float32),
        (lambda x: m(5, 2, 3) @ m(3), (5, 2), mt.float32),
        (lambda x: mt.bmm(m(4, 2, 3), m(4, 3, 1)), (4, 2, 1), mt.float32),
        (lambda x: mt.einsum("ij,jk->ik", [x, m(3, 4)]), (2, 4), mt.float32),
    ],
)
def test_meta_shapes(fn, shape, dtype):
    r = fn(m(2, 3))
    assert r.device.type == "meta"
    assert tuple(r.shape) == shape and r.dtype is dtype


def test_meta_errors():
    with pytest.raises(RuntimeError, match="cannot be multiplied"):
        m(2, 3) @ m(4, 5)
    with pytest.raises(IndexError):
        m(2, 3).sum(3)
    with pytest.raises(RuntimeError):
        m(0).max()
