"""Reduction kernels: NumPy reductions run directly on the zero-copy views."""
import numpy as np

from mindtorch.plugins import dtypes as _D
from ..convert import arr, wrap, TO_NP, quiet
from . import kernel_table

KERNELS, kernel = kernel_table()

_LOW = (np.dtype(np.float16),)  # accumulate half precision in float32, as PyTorch does



def axes(dim, ndim):
    if dim is None or dim == ():
        return None
    if isinstance(dim, int):
        dim = (dim,)
    return tuple(d % ndim for d in dim) if ndim else None


def _acc(x):
    """Array to reduce and the accumulation dtype (float32 for 16-bit floats)."""
    if x.dtype in _LOW or x.dtype.name == "bfloat16":
        return x, np.float32
    return x, None


def _out(res, m):
    # NumPy keeps the input's memory order; results are new C-contiguous tensors
    want = TO_NP[m.dtype]
    if res.__class__ is not np.ndarray:
        res = np.array(res, dtype=want)  # a NumPy scalar from a full reduction
    elif res.dtype is not want:
        res = res.astype(want)
    if res.shape != m.shape:
        res = res.reshape(m.shape)
    if not res.flags.c_contiguous:
        res = np.ascontiguousarray(res)
    return wrap(res, m.dtype)


_HALF = frozenset((np.dtype(np.float16), TO_NP[_D.bfloat16]))


_SUM_ACC = {d: (np.dtype(np.float32) if d in (_D.float16, _D.bfloat16) else TO_NP[d]) for d in TO_NP}


@kernel("sum")
def sum_(m, a, dim=None, keepdim=False, dtype=None):
    x = arr(a)
    acc = _SUM_ACC[m.dtype]
    if a.dtype is _D.bool_ and m.dtype is not _D.bool_:
        x = x.view(np.uint8)  # add.reduce over bools is logical or
    return _out(np.add.reduce(x, axis=None if dim is None else axes(dim, x.ndim), dtype=acc, keepdims=keepdim), m)


@kernel("mean")
def mean(m, a, dim=None, keepdim=False, dtype=None):
    x = arr(a)
    nd = TO_NP[m.dtype]
    acc = np.float32 if nd in _HALF else nd
    with quiet():
        r = np.mean(x, axis=axes(dim, x.ndim), keepdims=keepdim, dtype=acc)
    return _out(r, m)


@kernel("prod")
def prod(m, a, dim=None, keepdim=False, dtype=None):
    x = arr(a)
    nd = TO_NP[m.dtype]
    acc = np.float32 if nd in _HALF else nd
    if dim is None:
        return _out(np.prod(x, dtype=acc), m)
    return _out(np.prod(x, axis=dim % x.ndim if x.ndim else None, keepdims=keepdim and x.ndim > 0, dtype=acc), m)


def _full(fn):
    def k(m, a):
        return _out(fn(arr(a)), m)
    return k


KERNELS["max"] = _full(np.max)
KERNELS["min"] = _full(np.min)


def _dim_kernel(valfn, argfn):
    def k(m, a, dim, keepdim=False):
        x = arr(a)
        if x.ndim == 0:
            return _out(x, m[0]), wrap(np.zeros((), np.int64))
        d = dim % x.ndim
        idx = argfn(x, axis=d, keepdims=True)
        vals = np.take_along_axis(x, idx, axis=d)
        if not keepdim:
            idx = np.squeeze(idx, d)
            vals = np.squeeze(vals, d)
        return _out(vals, m[0]), _out(idx, m[1])
    return k


KERNELS["_max_dim"] = _dim_kernel(np.max, np.argmax)
KERNELS["_min_dim"] = _dim_kernel(np.min, np.argmin)


def _amax(fn):
    def k(m, a, dim=(), keepdim=False):
        x = arr(a)
        return _out(fn(x, axis=axes(dim, x.ndim), keepdims=keepdim), m)
    return k


KERNELS["amax"] = _amax(np.max)
KERNELS["amin"] = _amax(np.min)


def _arg(fn):
    def k(m, a, dim=None, keepdim=False):
        x = arr(a)
        if dim is None or x.ndim == 0:
            return _out(fn(x), m)
        return _out(fn(x, axis=dim % x.ndim, keepdims=keepdim), m)
    return k


KERNELS["argmax"] = _arg(np.argmax)
KERNELS["argmin"] = _arg(np.argmin)


def _var(m, a, dim=None, correction=None, keepdim=False):
    x = arr(a)
    c = 1 if correction is None else correction
    ax = axes(dim, x.ndim)
    if ax is not None:
        n = int(np.prod([x.shape[i] for i in ax]))
    else:
        n = x.size
    acc = np.float32 if x.dtype.name in ("float16", "bfloat16") else None
    with quiet():
        mu = np.mean(x, axis=ax, keepdims=True, dtype=acc)
        dev = x - mu
        sq = (dev.real ** 2 + dev.imag ** 2) if np.iscomplexobj(dev) else dev * dev
        ss = np.sum(sq, axis=ax, keepdims=keepdim)
        r = ss / max(0, n - c)
    return r


@kernel("var.correction")
def var(m, a, dim=None, correction=None, keepdim=False):
    return _out(_var(m, a, dim, correction, keepdim), m)


@kernel("std.correction")
def std(m, a, dim=None, correction=None, keepdim=False):
    return _out(np.sqrt(_var(m, a, dim, correction, keepdim)), m)


@kernel("logsumexp")
def logsumexp(m, a, dim=(), keepdim=False):
    x = arr(a).astype(_wide(TO_NP[m.dtype]), copy=False)
    ax = axes(dim, x.ndim)
    if x.size == 0:
        return _out(np.log(np.sum(np.exp(x), axis=ax, keepdims=keepdim)), m)
    mx = np.max(x, axis=ax, keepdims=True)
    mx = np.where(np.isinf(mx), 0, mx)  # all -inf (or inf) slices: avoid inf - inf
    with quiet():
        r = np.log(np.sum(np.exp(x - mx), axis=ax, keepdims=True)) + mx
    if not keepdim:
        r = r.reshape(m.shape)
    return _out(r, m)


def _logical(fn):
    def k(m, a, dim=None, keepdim=False):
        x = arr(a)
        return _out(fn(x, axis=axes(dim, x.ndim), keepdims=keepdim), m)
    return k


KERNELS["all"] = _logical(np.all)
KERNELS["any"] = _logical(np.any)


@kernel("count_nonzero")
def count_nonzero(m, a, dim=None):
    x = arr(a)
    return _out(np.count_nonzero(x, axis=axes(dim, x.ndim)), m)


def _cum(fn):
    def k(m, a, dim, dtype=None):
        x = arr(a)
        if x.ndim == 0:
            return _out(x, m)
        nd = TO_NP[m.dtype]
        # PyTorch accumulates 16-bit floats in float32 (a float16 running sum would stop at 2048)
        acc = np.float32 if nd.name in ("float16", "bfloat16") else nd
        return _out(fn(x, axis=dim % x.ndim, dtype=acc).astype(nd, copy=False), m)
    return k


KERNELS["cumsum"] = _cum(np.cumsum)
KERNELS["cumprod"] = _cum(np.cumprod)


def _wide(nd):
    """Compute dtype for 16-bit floats: float32, rounded once at the end (as PyTorch does)."""
    return np.dtype(np.float32) if nd.name in ("float16", "bfloat16") else nd


@kernel("softmax")
def softmax(m, a, dim, dtype=None):
    x = arr(a).astype(_wide(TO_NP[m.dtype]), copy=False)
    if x.ndim == 0:
        return _out(np.exp(x - x), m)
    d = dim % x.ndim
    e = np.exp(x - np.max(x, axis=d, keepdims=True)) if x.size else x.copy()
    e /= np.sum(e, axis=d, keepdims=True)
    return _out(e, m)


@kernel("log_softmax")
def log_softmax(m, a, dim, dtype=None):
    x = arr(a).astype(_wide(TO_NP[m.dtype]), copy=False)
    if x.ndim == 0:
        return _out(x - x, m)
    d = dim % x.ndim
    if x.size == 0:
        return _out(x.copy(), m)
    s = x - np.max(x, axis=d, keepdims=True)
    s = s - np.log(np.sum(np.exp(s), axis=d, keepdims=True))
    return _out(s, m)


@kernel("linalg_vector_norm")
def vector_norm(m, a, ord=2, dim=None, keepdim=False, dtype=None):
    x = arr(a)
    if dtype is not None:
        x = x.astype(TO_NP[dtype], copy=False)
    x = x.astype(_wide(x.dtype), copy=False)  # 16-bit floats accumulate in float32
    ax = axes(dim, x.ndim)
    ax_all = ax if ax is not None else None
    ab = np.abs(x)
    ord = float(ord)
    if ord == 2:
        r = np.sqrt(np.sum(ab * ab, axis=ax_all, keepdims=keepdim))
    elif ord == 1:
        r = np.sum(ab, axis=ax_all, keepdims=keepdim)
    elif ord == float("inf"):
        r = np.max(ab, axis=ax_all, keepdims=keepdim, initial=0) if x.size == 0 else \
            np.max(ab, axis=ax_all, keepdims=keepdim)
    elif ord == float("-inf"):
        r = np.min(ab, axis=ax_all, keepdims=keepdim)
    elif ord == 0:
        r = np.sum(ab != 0, axis=ax_all, keepdims=keepdim)
    else:
        with quiet():
            r = np.sum(ab ** ord, axis=ax_all, keepdims=keepdim) ** (1.0 / ord)
    return _out(r, m)
