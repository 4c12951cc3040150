"""Indexing ops on the meta device: shapes and dtypes from the rules, data-dependent ops refuse."""

import mindtorch as mt
import pytest


def m(*shape, dtype=mt.float32):
    return mt.empty(*shape, dtype=dtype, device="meta")


def idx(*shape):
    return mt.empty(*shape, dtype=mt.int64, device="meta")


CASES = [
    (lambda: m(3, 4)[1:, None, ::2], (2, 1, 2), mt.float32),
    (lambda: m(3, 4)[idx(5)], (5, 4), mt.float32),
    (lambda: m(2, 3, 4)[idx(5), :, idx(5)], (5, 3), mt.float32),
    (lambda: m(2, 3, 4)[:, idx(2, 1), idx(3)], (2, 2, 3), mt.float32),
    (lambda: mt.cat([m(2, 3), m(4, 3, dtype=mt.float64)]), (6, 3), mt.float64),
    (lambda: mt.stack([m(2, 3), m(2, 3)], -1), (2, 3, 2), mt.float32),
    (lambda: m(3, 4).gather(1, idx(3, 2)), (3, 2), mt.float32),
    (lambda: m(3, 4).scatter(1, idx(3, 2), 1.0), (3, 4), mt.float32),
    (lambda: m(3, 4).index_select(0, idx(7)), (7, 4), mt.float32),
    (lambda: m(3, 4).masked_fill(mt.empty(2, 1, 4, dtype=mt.bool, device="meta"), 0.0), (2, 3, 4), mt.float32),
    (lambda: m(3, 4).tril(), (3, 4), mt.float32),
    (lambda: m(3, 4).flip(0), (3, 4), mt.float32),
    (lambda: m(3, 4).roll(1, 0), (3, 4), mt.float32),
    (lambda: m(3, 4).repeat(2, 1, 3), (2, 3, 12), mt.float32),
    (lambda: m(3, 4).sort(0).indices, (3, 4), mt.int64),
    (lambda: m(3, 4).topk(2).values, (3, 2), mt.float32),
    (lambda: mt.searchsorted(m(5), m(2, 3), out_int32=True), (2, 3), mt.int32),
    (lambda: mt.ops.pad(m(2, 3), (1, 2), mode="constant"), (2, 6), mt.float32),
    (lambda: mt.ops.pad(m(1, 2, 3), (1, 1), mode="reflect"), (1, 2, 5), mt.float32),
    (lambda: mt.ops.one_hot(idx(4), 6), (4, 6), mt.int64),
    (lambda: mt.diag(m(3), 1), (4, 4), mt.float32),
]


@pytest.mark.parametrize("k", range(len(CASES)))
def test_meta_shapes(k):
    fn, shape, dtype = CASES[k]
    out = fn()
    assert out.device.type == "meta"
    assert tuple(out.shape) == shape and out.dtype is dtype


@pytest.mark.parametrize(
    "fn",
    [
        lambda: m(3, 4)[m(3, 4) > 0] if hasattr(mt.Tensor, "__gt__") else mt.nonzero(m(3)),
        lambda: mt.nonzero(m(3)),
        lambda: m(3).masked_select(mt.empty(3, dtype=mt.bool, device="meta")),
        lambda: mt.unique(idx(3)),
        lambda: mt.bincount(idx(3)),
        lambda: mt.ops.one_hot(idx(3)),
    ],
)
def test_data_dependent_raise_not_implemented(fn):
    with pytest.raises(NotImplementedError):
        fn()


@pytest.mark.parametrize(
    "fn,exc",
    [
        (lambda: mt.cat([m(2, 3), m(2, 4)]), RuntimeError),
        (lambda: m(3, 4)[5], IndexError),
        (lambda: m(3, 4)[0, 0, 0], IndexError),
        (lambda: m(3, 4).gather(1, idx(3)), RuntimeError),
        (lambda: m(3, 4).topk(5), RuntimeError),
        (lambda: m(3, 4).index_select(2, idx(1)), IndexError),
    ],
)
def test_meta_errors(fn, exc):
    with pytest.raises(exc):
        fn()
