"""Functions PyTorch programs use that are compositions: values, dtypes, gradients, errors."""

from helpers import torch_or_skip

torch = torch_or_skip()

import warnings  # noqa: E402

import mindtorch  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from helpers import assert_same  # noqa: E402

RNG = np.random.default_rng(0)
BASE = RNG.standard_normal((3, 4, 5)).astype(np.float32)
WITH_NAN = BASE.copy()
WITH_NAN[0, 1, 2] = WITH_NAN[2, 0, 0] = WITH_NAN[1, 3, 4] = np.nan
TIES = np.array([[1, 3, 3, 2, 5, 5, 0], [4, 4, 1, 9, 9, 2, 9]], dtype=np.float32)


def _run(lib, fn, arrays, grad):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ts = [lib.tensor(a, requires_grad=grad and a.dtype.kind == "f") for a in arrays]
        out = fn(lib, *ts)
        if grad:
            outs = [o for o in (out if isinstance(out, (tuple, list)) else [out]) if o.is_floating_point()]
            total = sum(
                (o * lib.arange(o.numel(), dtype=o.dtype).reshape(o.shape)).nansum()
                if hasattr(lib, "nansum")
                else o.sum()
                for o in outs
            )
            total.backward()
            return out, [t.grad for t in ts if t.requires_grad]
        return out, None


def check(fn, *arrays, grad=False):
    """fn(lib, *tensors) gives the same values (and gradients) or raises the same class under both libraries."""
    try:
        th, thg = _run(torch, fn, arrays, grad)
    except Exception as e:
        with pytest.raises(type(e)):
            _run(mindtorch, fn, arrays, grad)
        return
    mt, mtg = _run(mindtorch, fn, arrays, grad)
    if isinstance(th, tuple) and hasattr(th, "_fields"):
        assert type(mt).__name__ == type(th).__name__ and mt._fields == th._fields
    if isinstance(th, (tuple, list)):
        assert len(mt) == len(th)
        for a, b in zip(mt, th):
            assert_same(a, b, atol=1e-5, rtol=1e-5)
    else:
        assert_same(mt, th, atol=1e-5, rtol=1e-5)
    if grad:
        for a, b in zip(mtg, thg):
            assert_same(a, b, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("kw", [{}, {"n": 2}, {"dim": 0}, {"n": 3, "dim": 1}, {"n": 0}, {"n": 9}, {"n": -1}])
def test_diff(kw):
    check(lambda L, x: L.diff(x, **kw), BASE, grad=True)
    check(lambda L, x: x.diff(**kw), BASE > 0)


def test_diff_prepend_append_and_errors():
    check(lambda L, x: L.diff(x, dim=1, prepend=x[:, :2], append=x[:, -1:]), BASE, grad=True)
    check(lambda L, x: L.diff(x[0, 0, 0]), BASE)
    check(lambda L, x: L.diff(x, out=L.empty(0)), BASE)


@pytest.mark.parametrize("k", [-5, -1, 0, 1, 2, 3, 4])
@pytest.mark.parametrize("dims", [[0, 1], [1, 0], [2, 0], [-1, -2], [0, 0], [0]])
def test_rot90(k, dims):
    check(lambda L, x: L.rot90(x, k, dims), BASE, grad=True)


def test_rot90_defaults_and_errors():
    check(lambda L, x: x.rot90(), BASE)
    check(lambda L, x: L.rot90(x[0, 0]), BASE)


@pytest.mark.parametrize("name", ["cummax", "cummin"])
@pytest.mark.parametrize("arr", [BASE, WITH_NAN, TIES, TIES.astype(np.int64), TIES > 2, np.float32(3.0)])
def test_cummax_cummin(name, arr):
    for dim in range(-max(arr.ndim, 1), max(arr.ndim, 1)):
        check(
            lambda L, x: getattr(L, name)(x, dim),
            np.asarray(arr),
            grad=arr.dtype == np.float32 and not np.isnan(arr).any(),
        )
    check(lambda L, x: getattr(x, name)(arr.ndim + 1), np.asarray(arr))


@pytest.mark.parametrize("name", ["nansum", "nanmean"])
@pytest.mark.parametrize("kw", [{}, {"dim": 1}, {"dim": (0, 2), "keepdim": True}, {"dim": -1, "dtype": "float64"}])
def test_nan_reductions(name, kw):
    def fn(L, x):
        k = dict(kw)
        if "dtype" in k:
            k["dtype"] = getattr(L, k["dtype"])
        return getattr(L, name)(x, **k)

    check(fn, WITH_NAN, grad=True)
    check(fn, BASE)
    check(lambda L, x: getattr(L, name)(x), np.arange(6).reshape(2, 3))


@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
@pytest.mark.parametrize("q", [0.0, 0.25, 0.5, 1.0, [0.1, 0.5, 0.9]])
@pytest.mark.parametrize("dim,keepdim", [(None, False), (None, True), (1, False), (-1, True), (0, False)])
@pytest.mark.parametrize("interp", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantile(name, q, dim, keepdim, interp):
    def fn(L, x):
        qq = L.tensor(q) if isinstance(q, list) else q
        return getattr(L, name)(x, qq, dim=dim, keepdim=keepdim, interpolation=interp)

    check(fn, BASE, grad=interp == "linear")
    check(fn, WITH_NAN)


@pytest.mark.parametrize(
    "bad",
    [
        lambda L, x: L.quantile(x, 1.5),
        lambda L, x: L.quantile(x.long(), 0.5),
        lambda L, x: L.quantile(x, 0.5, interpolation="cubic"),
        lambda L, x: L.quantile(x, L.tensor([[0.5]])),
        lambda L, x: L.quantile(x, L.tensor([0.5], dtype=L.float64)),
        lambda L, x: L.quantile(x[:0], 0.5),
    ],
)
def test_quantile_errors(bad):
    check(bad, BASE)


@pytest.mark.parametrize("kw", [{}, {"dim": 1}, {"dim": -1, "keepdim": True}, {"keepdim": True}])
def test_aminmax(kw):
    check(lambda L, x: L.aminmax(x, **kw), BASE)
    check(lambda L, x: x.aminmax(**kw), TIES.astype(np.int64))
    check(lambda L, x: L.aminmax(x[:0], **kw), BASE)


@pytest.mark.parametrize("right", [False, True])
@pytest.mark.parametrize("out_int32", [False, True])
def test_bucketize(right, out_int32):
    bounds = np.array([-1.0, 0.0, 0.5, 1.0], dtype=np.float32)
    check(lambda L, x, b: L.bucketize(x, b, right=right, out_int32=out_int32), BASE, bounds)
    check(lambda L, x, b: L.bucketize(x, boundaries=b, right=right), BASE, bounds)
    check(lambda L, b: L.bucketize(0.5, b, right=right), bounds)
    check(lambda L, x, b: L.bucketize(x, b.reshape(2, 2)), BASE, bounds)


@pytest.mark.parametrize("invert", [False, True])
def test_isin(invert):
    el, te = TIES.astype(np.int64), np.array([9, 3, 7])
    check(lambda L, a, b: L.isin(a, b, invert=invert), el, te)
    check(lambda L, a: L.isin(a, 9, invert=invert), el)
    check(lambda L, b: L.isin(3, b, invert=invert), te)
    check(lambda L, a, b: L.isin(a, b[:0]), el, te)


@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, 3.0, 0.5, float("inf")])
def test_cdist(p):
    a = RNG.standard_normal((2, 4, 3)).astype(np.float32)
    b = RNG.standard_normal((2, 5, 3)).astype(np.float32)
    check(lambda L, x, y: L.cdist(x, y, p=p), a, b, grad=p in (1.0, 2.0, 3.0))
    check(lambda L, x: L.cdist(x, x, p=p), a[0], grad=p == 2.0)  # zero distances: finite gradients


def test_cdist_errors():
    check(lambda L, x: L.cdist(x, x[..., :2]), BASE)
    check(lambda L, x: L.cdist(x[0, 0], x[0, 0]), BASE)
    check(lambda L, x: L.cdist(x, x, p=-1.0), BASE)


def test_block_diag():
    check(lambda L, a, b, c: L.block_diag(a, b, c), BASE[0], BASE[1, :2, :3], BASE[0, 0, :2], grad=True)
    check(lambda L, a, b: L.block_diag(a, b), TIES.astype(np.int64), BASE[0, :1])
    check(lambda L, a: L.block_diag(a[0, 0, 0], a[0]), BASE)
    check(lambda L, a: L.block_diag(a), BASE)
    check(lambda L: L.block_diag())


@pytest.mark.parametrize("name", ["hsplit", "vsplit", "dsplit", "tensor_split"])
@pytest.mark.parametrize("arg", [1, 2, 4, 5, [1, 3], [0, 2, 9], [3, 1], []])
@pytest.mark.parametrize("shape", [(12,), (4, 6), (3, 4, 5)])
def test_splits(name, arg, shape):
    arr = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    check(lambda L, x: getattr(L, name)(x, arg), arr, grad=True)
    check(lambda L, x: getattr(x, name)(arg), arr)


def test_tensor_split_dim():
    check(lambda L, x: L.tensor_split(x, 3, dim=-1), BASE, grad=True)
    check(lambda L, x: x.tensor_split([1, 2], dim=1), BASE)  # positional dim: the varargs rule (codegen) takes it
    check(lambda L, x: L.tensor_split(x, 0), BASE)


@pytest.mark.parametrize("name", ["tril_indices", "triu_indices"])
@pytest.mark.parametrize("row,col,offset", [(3, 3, 0), (3, 4, 1), (4, 3, -2), (0, 3, 0), (3, 5, 9), (5, 2, -9)])
def test_tri_indices(name, row, col, offset):
    check(lambda L: getattr(L, name)(row, col, offset))
    check(lambda L: getattr(L, name)(row, col, offset, dtype=L.int32))


@pytest.mark.parametrize("args", [(0, 3), (0, 1, 0.3), (1, 4, 0.5), (5, 1, -1), (3, 0), (-2.5, 2.5)])
def test_range(args):
    check(lambda L: L.range(*args))
    if all(isinstance(a, int) for a in args):  # PyTorch itself dies (SIGFPE) on a fractional step cast to 0
        check(lambda L: L.range(*args, dtype=L.int64))
    check(lambda L: L.range(*args, dtype=L.float64))


def test_out_variants():
    def fn(L, x):
        out = L.empty(0)
        got = L.nansum(x, 1, out=out)
        assert got is out
        return out

    check(fn, WITH_NAN)
    check(lambda L, x: L.quantile(x, 0.5, out=L.empty(0)), BASE)
