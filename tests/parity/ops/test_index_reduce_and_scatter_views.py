"""index_reduce / index_reduce_ (prod, mean, amax, amin, with and without self), as_strided_scatter,
slice_inverse, and the small torch.* names: empty_permuted, init_num_threads, thread_safe_generator,
AcceleratorError, FatalError. Values, dtypes, gradients (gradcheck in float64 too) and errors against
PyTorch 2.13."""

import itertools
import warnings

import numpy as np
import pytest
from helpers import check_grad, torch_or_skip

torch = torch_or_skip()

import mindtorch as mt  # noqa: E402

R = np.random.default_rng(9)
# distinct values away from zero: prod's gradient divides by the elements, amax/amin have no ties
SELF = R.permutation(np.arange(1, 13)).reshape(4, 3) / 4.0
SOURCE = R.permutation(np.arange(13, 28)).reshape(5, 3) / 4.0 * np.where(R.random((5, 3)) < 0.5, -1, 1)
INDEX = [0, 2, 0, 3, 2]


def _index_reduce(L, reduce, include_self, dim, inplace):
    x = L.tensor(SELF if dim == 0 else SELF.T.copy(), requires_grad=True)
    src = L.tensor(SOURCE if dim == 0 else SOURCE.T.copy(), requires_grad=True)
    idx = L.tensor(INDEX)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if inplace:
            out = (x * 1).index_reduce_(dim, idx, src, reduce, include_self=include_self)
        else:
            out = L.index_reduce(x, dim, idx, src, reduce, include_self=include_self)
    (out * L.arange(out.numel(), dtype=out.dtype).reshape(out.shape)).sum().backward()
    return out.detach().numpy(), x.grad.numpy(), src.grad.numpy()


@pytest.mark.parametrize(
    "reduce,include_self,dim,inplace",
    list(itertools.product(["prod", "mean", "amax", "amin"], [True, False], [0, 1], [False, True])),
)
def test_index_reduce(reduce, include_self, dim, inplace):
    got = _index_reduce(mt, reduce, include_self, dim, inplace)
    want = _index_reduce(torch, reduce, include_self, dim, inplace)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_index_reduce_ties_share_the_gradient_as_pytorch():
    res = []
    for L in (mt, torch):
        x = L.ones(3, 2, dtype=L.float64, requires_grad=True)
        src = (L.arange(8.0, dtype=L.float64).reshape(4, 2) + 1).requires_grad_()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = x.index_reduce(0, L.tensor([0, 2, 0, 2]), src, "amin", include_self=False)
        out.sum().backward()
        res.append((out.tolist(), x.grad.tolist(), src.grad.tolist()))
    assert res[0] == res[1]


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax"])
def test_index_reduce_gradcheck(reduce):
    x, src = mt.tensor(SELF, requires_grad=True), mt.tensor(SOURCE, requires_grad=True)
    check_grad(lambda a, b: mt.index_reduce(a, 0, mt.tensor(INDEX), b, reduce), x, src)


BAD_INDEX_REDUCE = {
    "reduce": lambda L: L.ones(3, 2).index_reduce(0, L.tensor([0, 1]), L.ones(2, 2), "sum"),
    "count": lambda L: L.ones(3, 2).index_reduce(0, L.tensor([0, 1, 2]), L.ones(2, 2), "prod"),
    "index dtype": lambda L: L.ones(3, 2).index_reduce(0, L.tensor([0.0, 1.0]), L.ones(2, 2), "prod"),
    "out of range": lambda L: L.ones(3, 2).index_reduce(0, L.tensor([0, 5]), L.ones(2, 2), "prod"),
    "dtype": lambda L: L.ones(3, 2).index_reduce(0, L.tensor([0, 1]), L.ones(2, 2, dtype=L.float64), "prod"),
}


@pytest.mark.parametrize("name", list(BAD_INDEX_REDUCE))
def test_index_reduce_errors(name):
    raised = []
    for L in (mt, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(Exception) as info:
                BAD_INDEX_REDUCE[name](L)
        raised.append((info.type, str(info.value)))
    assert raised[0] == raised[1]


DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]


def _reduced(L, op, dtype, reduce, include_self):
    """scatter_reduce / index_reduce in one dtype: the values, or the error class and message."""
    dt = getattr(L, dtype)
    x = L.tensor(SELF).to(dt)
    src = L.tensor(SOURCE).to(dt)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            if op == "scatter_reduce":
                spread = L.tensor(INDEX).reshape(5, 1).expand(5, 3)
                out = x.scatter_reduce(0, spread, src, reduce, include_self=include_self)
            else:
                out = x.index_reduce(0, L.tensor(INDEX), src, reduce, include_self=include_self)
        except Exception as exc:
            return type(exc).__name__, str(exc)
    return out.dtype is dt, out.to(L.float64).tolist()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "op,reduce,include_self",
    [("scatter_reduce", r, i) for r in ("sum", "prod", "mean", "amax", "amin") for i in (True, False)]
    + [("index_reduce", r, i) for r in ("prod", "mean", "amax", "amin") for i in (True, False)],
)
def test_reductions_into_slices_in_every_dtype(op, reduce, include_self, dtype):
    # which dtypes PyTorch refuses (bool means, bool without self) and what the others give
    assert _reduced(mt, op, dtype, reduce, include_self) == _reduced(torch, op, dtype, reduce, include_self)


SCATTERS = {
    "contiguous": (lambda L: L.arange(12.0, dtype=L.float64).reshape(3, 4), (2, 2), (4, 1), 1),
    "transposed input keeps its layout": (lambda L: L.arange(12.0, dtype=L.float64).reshape(4, 3).t(), (3,), (1,), 2),
    "default offset": (lambda L: L.arange(12.0, dtype=L.float64).reshape(3, 4), (3,), (5,), None),
}


@pytest.mark.parametrize("name", list(SCATTERS))
def test_as_strided_scatter(name):
    # input's gradient is left to gradcheck below: PyTorch 2.13 hands input the gradient of the replaced
    # region (its own gradcheck fails), where the result does not depend on input at all
    make, size, stride, offset = SCATTERS[name]
    res = []
    for L in (mt, torch):
        x = make(L).detach()
        n = 1
        for s in size:
            n *= s
        src = (L.arange(n, dtype=L.float64).reshape(size) + 100).requires_grad_()
        out = L.as_strided_scatter(x, src, size, stride, offset)
        method = x.as_strided_scatter(src, size, stride, offset)
        res.append((out.tolist(), method.tolist(), out.stride()))
        if x.is_contiguous():  # PyTorch's backward reads the gradient as contiguous whatever input's layout
            (out * L.arange(out.numel(), dtype=out.dtype).reshape(out.shape)).sum().backward()
            res[-1] += (src.grad.tolist(),)
    assert res[0] == res[1]


def test_as_strided_scatter_gradcheck():
    x, src = mt.tensor(SELF, requires_grad=True), mt.tensor(SOURCE[:2, :2], requires_grad=True)
    check_grad(lambda a, b: mt.as_strided_scatter(a, b, (2, 2), (3, 1), 1), x, src)
    out = mt.as_strided_scatter(x, src, (2, 2), (3, 1), 1)
    out.sum().backward()
    assert x.grad.tolist() == [[1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]


INVERSES = {
    "step": (lambda b: b[2:8:2], (0, 2, 8, 2)),
    "negative start": (lambda b: b[2:8:2], (0, -8, None, 2)),
    "dim 1": (lambda b: b.view(2, 5)[:, 1:4], (1, 1, 4, 1)),
}


@pytest.mark.parametrize("name", list(INVERSES))
def test_slice_inverse(name):
    cut, args = INVERSES[name]
    res = []
    for L in (mt, torch):
        base = L.arange(10.0, dtype=L.float64)
        src = base.view(2, 5) if name == "dim 1" else base
        leaf = L.zeros(10, dtype=L.float64, requires_grad=True)
        part = cut(leaf + base)
        out = L.slice_inverse(part, src, *args)
        res.append((out.tolist(), out.storage_offset(), out.stride()))
        if name != "negative start":  # PyTorch's backward slices to the end there and fails its shape check
            (out * L.arange(out.numel(), dtype=out.dtype).reshape(out.shape)).sum().backward()
            res[-1] += (leaf.grad.tolist(),)
    assert res[0] == res[1]


@pytest.mark.parametrize("size,layout", [((2, 3, 4), (0, 2, 1)), ((2, 3, 4), (2, 0, 1)), ((5,), (0,)), ((), ())])
def test_empty_permuted(size, layout):
    got = mt.empty_permuted(size, layout, dtype=mt.float64, requires_grad=True)
    want = torch.empty_permuted(size, layout, dtype=torch.float64, requires_grad=True)
    assert (tuple(got.shape), got.stride(), str(got.dtype), got.requires_grad) == (
        tuple(want.shape),
        want.stride(),
        str(want.dtype),
        want.requires_grad,
    )


@pytest.mark.parametrize("layout", [(0, 0), (0,), (0, 2)])
def test_empty_permuted_errors(layout):
    msgs = []
    for L in (mt, torch):
        with pytest.raises(RuntimeError) as info:
            L.empty_permuted((2, 3), layout)
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1]


def test_small_names():
    for L in (mt, torch):
        assert L.init_num_threads() is None
        assert L.thread_safe_generator() is None  # the main process uses the global generator
        assert issubclass(L.AcceleratorError, RuntimeError) and not issubclass(L.FatalError, RuntimeError)
        assert issubclass(L.FatalError, Exception)
