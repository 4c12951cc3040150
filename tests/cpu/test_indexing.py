"""Indexing ops on CPU without PyTorch: NumPy as the reference, gradcheck in float64, views."""

import mindtorch as mt
import numpy as np
import pytest
from mindtorch.autograd import gradcheck

BASE = np.random.default_rng(0).standard_normal((3, 4))


def x64():
    return mt.tensor(BASE.copy(), requires_grad=True)


@pytest.mark.parametrize(
    "key",
    [
        1,
        -1,
        (slice(None), 2),
        (slice(1, None), slice(None, None, 3)),
        (None, Ellipsis, 1),
        [2, 0, 2],
        ([0, 1], [3, 3]),
        (slice(None), [1, 0]),
        (np.array([True, False, True]),),
    ],
)
def test_getitem_matches_numpy(key):
    k = tuple(mt.tensor(i) if isinstance(i, np.ndarray) else i for i in key) if isinstance(key, tuple) else key
    got = mt.tensor(BASE)[k]
    np.testing.assert_allclose(got.numpy(), BASE[key])


def test_basic_getitem_shares_storage_and_setitem_writes_back():
    a = mt.zeros(3, 4)
    v = a[1, 1:3]
    v.fill_(2.0)
    a[0, [0, 3]] = 5.0
    a[a > 4] = 7.0
    want = np.zeros((3, 4), np.float32)
    want[1, 1:3] = 2.0
    want[0, [0, 3]] = 7.0
    np.testing.assert_array_equal(a.numpy(), want)


GRADCHECK = {
    "getitem_adv": lambda x: x[[0, 0, 2], 1:],
    "getitem_mask": lambda x: x[mt.tensor([[True, False, True, True]] * 3)],
    "cat": lambda x: mt.cat([x, x[:, :1] * 2], 1),
    "stack": lambda x: mt.stack([x, x], 0),
    "gather": lambda x: x.gather(0, mt.tensor([[0, 0, 2, 1]])),
    "scatter": lambda x: x.scatter(1, mt.tensor([[2], [0], [1]]), x[:, :1] * 3),
    "scatter_add": lambda x: x.scatter_add(1, mt.tensor([[0, 0]]), x[:1, 2:]),
    "index_select": lambda x: x.index_select(1, mt.tensor([3, 3, 0])),
    "index_add": lambda x: x.index_add(0, mt.tensor([2, 2]), x[:2] * 2, alpha=0.5),
    "index_copy": lambda x: x.index_copy(0, mt.tensor([1]), x[:1] * 2),
    "index_fill": lambda x: x.index_fill(1, mt.tensor([0, 2]), 3.0),
    "masked_fill": lambda x: x.masked_fill(mt.tensor([True, False, False, True]), 0.5),
    "masked_select": lambda x: x.masked_select(mt.tensor([[True], [False], [True]])),
    "triu_tril": lambda x: x.triu(1) * 2 + x.tril(),
    "flip": lambda x: x.flip(0, 1),
    "roll": lambda x: x.roll((1, 2), (0, 1)),
    "repeat": lambda x: x.repeat(2, 1, 2),
    "repeat_interleave": lambda x: x.repeat_interleave(2, dim=1),
    "sort": lambda x: x.sort(0).values,
    "topk": lambda x: x.topk(2, 1, largest=False).values,
    "diag": lambda x: mt.diag(x[0], -1),
    "take": lambda x: mt.take(x, mt.tensor([0, 11, 11])),
    "pad_reflect": lambda x: mt.ops.pad(x, (2, 1), mode="reflect"),
    "pad_constant": lambda x: mt.ops.pad(x, (1, -1, 2, 0), value=1.0),
    "index_put": lambda x: x.index_put((mt.tensor([0, 0]), mt.tensor([1, 1])), x[2, :2], accumulate=True),
}


@pytest.mark.parametrize("name", sorted(GRADCHECK))
def test_gradcheck(name):
    assert gradcheck(GRADCHECK[name], (x64(),))


def test_repeated_indices_accumulate():
    x = mt.zeros(3, dtype=mt.float64, requires_grad=True)
    x[[0, 0, 0, 2]].sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 0.0, 1.0])
    y = mt.zeros(4, dtype=mt.float64, requires_grad=True)
    y.index_select(0, mt.tensor([1, 1, 3])).sum().backward()
    np.testing.assert_array_equal(y.grad.numpy(), [0.0, 2.0, 0.0, 1.0])


def test_sort_named_tuple_and_stability():
    r = mt.tensor([2, 1, 2, 1]).sort(descending=True, stable=True)
    assert r.indices.tolist() == [0, 2, 1, 3]
    v, i = r
    assert v.tolist() == [2, 2, 1, 1] and i is r[1]


def test_unique_and_bincount_match_numpy():
    a = np.array([4, 1, 4, 0, 1, 1])
    u, inv, cnt = mt.unique(mt.tensor(a), return_inverse=True, return_counts=True)
    nu, ninv, ncnt = np.unique(a, return_inverse=True, return_counts=True)
    assert u.tolist() == nu.tolist() and inv.tolist() == ninv.tolist() and cnt.tolist() == ncnt.tolist()
    assert mt.bincount(mt.tensor(a), minlength=7).tolist() == np.bincount(a, minlength=7).tolist()


@pytest.mark.parametrize(
    "fn,exc",
    [
        (lambda: mt.zeros(2, 3)[2], IndexError),
        (lambda: mt.zeros(2, 3)[:, mt.tensor([3])], IndexError),
        (lambda: mt.zeros(2, 3)[mt.tensor([0.0])], IndexError),
        (lambda: mt.zeros(2, 3).gather(1, mt.tensor([[3]])), RuntimeError),
        (lambda: mt.cat([]), ValueError),
        (lambda: mt.zeros(2).masked_fill(mt.tensor([1, 0]), 1.0), RuntimeError),
        (lambda: mt.ops.one_hot(mt.tensor([0, 3]), 3), RuntimeError),
        (lambda: mt.zeros(2, 3).roll(), TypeError),
    ],
)
def test_errors(fn, exc):
    with pytest.raises(exc):
        fn()
