"""Reductions on CPU without PyTorch: NumPy as the reference, gradcheck in float64."""

import mindtorch as mt
import numpy as np
import pytest

RNG = np.random.default_rng(2)
X = RNG.standard_normal((3, 4, 5))


def t64(arr=X, rg=True):
    return mt.tensor(arr).requires_grad_(rg)


@pytest.mark.parametrize(
    "name,np_fn,kw",
    [
        ("sum", np.sum, {"dim": 1}),
        ("mean", np.mean, {"dim": (0, 2)}),
        ("prod", np.prod, {"dim": 2}),
        ("amax", np.max, {"dim": (0, 1)}),
        ("amin", np.min, {"dim": 2}),
    ],
)
def test_values_vs_numpy(name, np_fn, kw):
    r = getattr(t64(rg=False), name)(**kw)
    np.testing.assert_allclose(r.numpy(), np_fn(X, axis=kw["dim"]), rtol=1e-12)


def test_var_std_corrections():
    a = t64(rg=False)
    np.testing.assert_allclose(a.var(1).numpy(), X.var(1, ddof=1))
    np.testing.assert_allclose(a.std(1, unbiased=False).numpy(), X.std(1))
    np.testing.assert_allclose(a.var(dim=(0, 2), correction=3).numpy(), X.var((0, 2), ddof=3))


def test_int_sum_and_cumsum_promote_to_int64():
    a = mt.tensor(np.arange(6, dtype=np.int8).reshape(2, 3))
    assert a.sum().dtype is mt.int64 and a.sum().item() == 15
    assert a.cumsum(1).dtype is mt.int64
    assert mt.tensor([True, True]).sum().item() == 2


def test_results_are_contiguous_new_tensors():
    a = t64(rg=False).transpose(0, 2)
    r = a.sum(1)
    assert r.is_contiguous()
    np.testing.assert_allclose(r.numpy(), X.transpose(2, 1, 0).sum(1))


def test_max_dim_returns_named_tuple():
    r = t64(rg=False).max(1)
    assert r.values.shape == (3, 5) and r.indices.dtype is mt.int64
    np.testing.assert_array_equal(r.indices.numpy(), X.argmax(1))
    v, i = r
    assert v is r.values


def test_uint8_all_any():
    a = mt.tensor(np.array([[1, 0], [2, 3]], dtype=np.uint8))
    assert a.all(1).dtype is mt.uint8
    np.testing.assert_array_equal(a.all(1).numpy(), [0, 1])
    assert a.any().item() == 1


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: x.sum((0, 2)),
        lambda x: x.mean(1, keepdim=True),
        lambda x: x.prod(1),
        lambda x: x.amax((1, 2)),
        lambda x: x.max(2).values,
        lambda x: x.min(),
        lambda x: x.var(1),
        lambda x: x.std((0, 1), correction=0),
        lambda x: x.logsumexp(2),
        lambda x: x.softmax(1),
        lambda x: x.log_softmax(0),
        lambda x: x.norm(),
        lambda x: x.norm(3, 1),
        lambda x: x.cumsum(2),
        lambda x: x.cumprod(1),
        lambda x: mt.var_mean(x, 1)[0],
    ],
)
def test_gradcheck(fn):
    assert mt.autograd.gradcheck(fn, (t64(),))


def test_cumprod_grad_with_zero():
    a = mt.tensor(np.array([[2.0, 0.0, 3.0, 0.5], [0.0, 1.0, 0.0, 2.0]])).requires_grad_(True)
    assert mt.autograd.gradcheck(lambda x: x.cumprod(1), (a,))
    assert mt.autograd.gradcheck(lambda x: x.prod(1), (a,))


def test_amax_ties_split_evenly():
    a = mt.tensor(np.array([1.0, 3.0, 3.0])).requires_grad_(True)
    a.amax().backward()
    np.testing.assert_allclose(a.grad.numpy(), [0.0, 0.5, 0.5])


def test_std_and_norm_zero_gradient_is_zero():
    a = mt.zeros(3, dtype=mt.float64).requires_grad_(True)
    (a.std() + a.norm()).backward()
    np.testing.assert_array_equal(a.grad.numpy(), np.zeros(3))


def test_errors():
    with pytest.raises(RuntimeError, match="could not infer output dtype"):
        mt.tensor([1, 2]).mean()
    with pytest.raises(IndexError, match="Dimension out of range"):
        mt.ones(2, 3).sum(2)
    with pytest.raises(RuntimeError, match="numel\\(\\) == 0"):
        mt.ones(0).max()
    with pytest.raises(IndexError, match="non-zero size"):
        mt.ones(0, 2).amax(0)
