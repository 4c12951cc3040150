"""Reduction kernels: NumPy reductions run directly on the zero-copy views."""

import numpy as np
from mindtorch.plugins import dtypes as _D

from .. import blas, native
from ..allocator import ALLOCATOR
from ..convert import TO_NP, arr, quiet, wrap
from ..parallel import split_rows, threads_for
from ..sizes import THRESHOLDS
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


_ONES = {}
_BLAS_SUM = (np.dtype(np.float32), np.dtype(np.float64))
# Longest run summed by BLAS (a few float32 partial sums per row); longer runs keep NumPy's pairwise
# summation, whose error grows only with log n.
BLAS_SUM_MAX = 8192
BLAS_SUM_MIN = 4096  # elements: smaller sums are one NumPy call


def _ones(n, dt):
    v = _ONES.get((n, dt))
    if v is None:
        v = np.ones(n, dt)
        if n <= BLAS_SUM_MAX:
            _ONES[(n, dt)] = v
    return v


def blas_sum(x, ax):
    """Sum of a C-contiguous float array over leading or trailing axes as one matrix-vector product
    (BLAS is vectorised and threaded; NumPy's sum along the last axis is neither), or None."""
    if x.dtype not in _BLAS_SUM or not x.flags.c_contiguous or x.size < BLAS_SUM_MIN or not ax:
        return None
    nd = x.ndim
    k = len(ax)
    if ax == tuple(range(nd - k, nd)):
        inner = 1
        for s in x.shape[nd - k :]:
            inner *= s
        if native.usable(x):
            return _sum_rows(x.reshape(-1, inner))
        if inner > BLAS_SUM_MAX or inner < 8:
            return None
        return blas.matmul(x.reshape(-1, inner), _ones(inner, x.dtype))
    if ax == tuple(range(k)):
        outer = 1
        for s in x.shape[:k]:
            outer *= s
        if outer > BLAS_SUM_MAX or outer < 8:
            return None
        return blas.matmul(_ones(outer, x.dtype), x.reshape(outer, -1))
    return _blas_sum_both_ends(x, ax)


def _blas_sum_both_ends(x, ax):
    """Leading and trailing axes at once (a convolution bias's gradient sums (0, 2, 3)): the trailing run
    as row sums, then the leading axes of that (much smaller) result; None for any other set of axes."""
    nd, k = x.ndim, len(ax)
    i = 0
    while i < k and ax[i] == i:
        i += 1
    tail = ax[i:]
    if i == 0 or not tail or tail != tuple(range(nd - len(tail), nd)) or i + len(tail) >= nd:
        return None
    inner = blas_sum(x, tail)
    if inner is None:
        return None
    inner = np.ascontiguousarray(inner).reshape(x.shape[: nd - len(tail)])
    lead = tuple(range(i))
    r = blas_sum(inner, lead)
    return np.add.reduce(inner, axis=lead, dtype=x.dtype) if r is None else r


def blas_full_sum(x):
    """Sum of a whole C-contiguous float array: rows of 1024 summed by one BLAS matrix-vector product
    (vectorised and threaded; each row's float error stays that of a short sum), the row sums and the
    tail added in float64; None when x is small or not such an array."""
    if x.dtype not in _BLAS_SUM or not x.flags.c_contiguous or x.size < 1 << 16:
        return None
    flat = x.reshape(-1)
    k = 1024
    m = flat.size // k
    head = flat[: m * k].reshape(m, k)
    rows = _sum_rows(head) if native.usable(x) else blas.matmul(head, _ones(k, x.dtype))
    total = rows.sum(dtype=np.float64)
    return x.dtype.type(total + flat[m * k :].sum(dtype=np.float64))


def _sum_rows(x2):
    """The row sums of a C-contiguous float32 matrix, by the compiled kernel (on its pool when large)."""
    out = np.empty(x2.shape[0], np.float32)
    native.sum_rows(out, x2, threads_for(x2.size, THRESHOLDS["elementwise"].split))
    return out


@kernel("sum")
def sum_(m, a, dim=None, keepdim=False, dtype=None):
    x = a._np
    if x is None:
        x = arr(a)
    acc = _SUM_ACC[m.dtype]
    if dim is None and not keepdim and x.dtype is acc and x.size < BLAS_SUM_MIN:  # a small full sum
        return wrap(np.add.reduce(x, None, None, np.empty((), acc)), m.dtype)  # into a 0-d array: no scalar
    if a.dtype is _D.bool_ and m.dtype is not _D.bool_:
        x = x.view(np.uint8)  # add.reduce over bools is logical or
    return _out(reduce_sum(x, None if dim is None else axes(dim, x.ndim), acc, keepdim), m)


def reduce_sum(x, ax, acc, keepdim=False):
    """The sum of the ndarray x over the axes `ax` (None: all), accumulated in `acc`: BLAS products
    with ones for large float operands, NumPy's add.reduce otherwise."""
    if x.size >= BLAS_SUM_MIN and acc == x.dtype:
        r = blas_full_sum(x) if ax is None else blas_sum(x, tuple(sorted(set(ax))))
        if r is not None:
            return r
    return np.add.reduce(x, axis=ax, dtype=acc, keepdims=keepdim)


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
        sq = (dev.real**2 + dev.imag**2) if np.iscomplexobj(dev) else dev * dev
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


_WIDE = {d: (np.dtype(np.float32) if d in _HALF else d) for d in TO_NP.values() if d is not None}


def _wide(nd):
    """Compute dtype for 16-bit floats: float32, rounded once at the end (as PyTorch does)."""
    return _WIDE.get(nd, nd)


def _as_rows(x, d):
    """(rows, C) C-contiguous float array with dim d last, and the shape of the moved array (None when
    d already is last)."""
    if d != x.ndim - 1:
        moved = np.moveaxis(x, d, -1)
        return np.ascontiguousarray(moved).reshape(-1, moved.shape[-1]), moved.shape
    if not x.flags.c_contiguous:
        x = np.ascontiguousarray(x)
    return x.reshape(-1, x.shape[-1]), None


def _row_sum(a, ones):
    # a (r, C) @ ones: BLAS's vectorised row sums (NumPy sums a contiguous row several times slower)
    return blas.matmul(a, ones)[:, None] if ones is not None else a.sum(1, keepdims=True)


def _fused_rows(block_fn, m, dim, *ts, scratch=False):
    """A fused kernel over the rows (dim moved last), split across the thread pool when large; float
    math in float32 for 16-bit inputs. block_fn(out_rows, *in_rows, tmp_rows, ones, threads): threads
    0 runs NumPy passes, k > 0 the compiled kernel on k threads."""
    dt = _WIDE[TO_NP[m.dtype]]
    x0 = arr(ts[-1])
    if x0.ndim == 0 or x0.size == 0:
        return None
    d = dim % x0.ndim
    rows = []
    moved = None
    for t in ts:
        r, moved = _as_rows(arr(t).astype(dt, copy=False), d)
        rows.append(r)
    n, c = rows[0].shape
    out = ALLOCATOR.empty((n, c), dt)
    cross = THRESHOLDS["softmax"]
    if n * c >= cross.native and native.usable(out, *rows):  # one compiled call, on the kernels' pool
        block_fn(out, *rows, None, None, threads_for(n * c, cross.split))
    else:
        ones = _ones(c, dt) if c <= BLAS_SUM_MAX else None

        def run(lo, hi):
            tmp = np.empty((hi - lo, c), dt) if scratch else None
            block_fn(out[lo:hi], *[r[lo:hi] for r in rows], tmp, ones, 0)

        with quiet():
            split_rows(run, n, c, cross.split)
    res = out.reshape(x0.shape) if moved is None else np.moveaxis(out.reshape(moved), -1, d)
    return _out(res, m)


def _softmax_rows(o, x, tmp, ones, threads):
    if threads:
        return native.softmax(o, x, threads=threads)
    np.subtract(x, x.max(1, keepdims=True), out=o)
    np.exp(o, out=o)
    o *= np.reciprocal(_row_sum(o, ones))


def _log_softmax_rows(o, x, tmp, ones, threads):
    if threads:
        return native.softmax(o, x, log=True, threads=threads)
    np.subtract(x, x.max(1, keepdims=True), out=o)
    np.exp(o, out=tmp)
    o -= np.log(_row_sum(tmp, ones))


def _softmax_backward_rows(o, g, y, tmp, ones, threads):
    if threads:
        return native.softmax_backward(o, g, y, threads=threads)
    np.multiply(g, y, out=tmp)
    np.subtract(g, _row_sum(tmp, ones), out=o)
    o *= y


def _log_softmax_backward_rows(o, g, y, tmp, ones, threads):
    if threads:
        return native.softmax_backward(o, g, y, log=True, threads=threads)
    np.exp(y, out=o)
    o *= _row_sum(g, ones)
    np.subtract(g, o, out=o)


_F32 = np.dtype(np.float32)


def _small_f32_rows(m, dim, ts):
    """The operands' arrays when a row kernel can be one compiled call on this thread (float32,
    C-contiguous, one shape, dim last, fewer elements than the family's split threshold), else None."""
    if m.dtype is not _D.float32 or native.LIB is None:
        return None
    xs = [arr(t) for t in ts]
    x = xs[0]
    nd, n = x.ndim, x.size
    cross = THRESHOLDS["softmax"]
    if nd == 0 or n == 0 or (dim != -1 and dim != nd - 1) or not cross.native <= n < cross.split:
        return None
    for a in xs:
        if a.dtype is not _F32 or not a.flags.c_contiguous or a.shape != x.shape:
            return None
    return xs


@kernel("softmax")
def softmax(m, a, dim, dtype=None):
    xs = _small_f32_rows(m, dim, (a,))
    if xs is not None:
        out = np.empty(xs[0].shape, _F32)
        native.softmax(out, xs[0])
        return wrap(out, m.dtype)
    r = _fused_rows(_softmax_rows, m, dim, a)
    if r is not None:
        return r
    x = arr(a).astype(_wide(TO_NP[m.dtype]), copy=False)
    return _out(np.exp(x - x) if x.ndim == 0 else x.copy(), m)


@kernel("log_softmax")
def log_softmax(m, a, dim, dtype=None):
    xs = _small_f32_rows(m, dim, (a,))
    if xs is not None:
        out = np.empty(xs[0].shape, _F32)
        native.softmax(out, xs[0], log=True)
        return wrap(out, m.dtype)
    r = _fused_rows(_log_softmax_rows, m, dim, a, scratch=True)
    if r is not None:
        return r
    x = arr(a).astype(_wide(TO_NP[m.dtype]), copy=False)
    return _out(x - x if x.ndim == 0 else x.copy(), m)


def _softmax_bwd(block_fn, scratch, log):
    def k(m, g, y, dim):
        xs = _small_f32_rows(m, dim, (g, y))
        if xs is not None:
            out = np.empty(xs[0].shape, _F32)
            native.softmax_backward(out, xs[0], xs[1], log)
            return wrap(out, m.dtype)
        r = _fused_rows(block_fn, m, dim, g, y, scratch=scratch)
        if r is not None:
            return r
        # 0-dim (one element is the whole "row") or empty: the derivative's formula as it stands, in the
        # result's precision as PyTorch's kernel (half types widened)
        wide = TO_NP[m.dtype] if m.dtype in (_D.float32, _D.float64) else _wide(TO_NP[m.dtype])
        ga, ya = arr(g).astype(wide, copy=False), arr(y).astype(wide, copy=False)
        return _out(ga - np.exp(ya) * ga if log else ya * (ga - ga * ya), m)

    return k


KERNELS["_softmax_backward_data"] = _softmax_bwd(_softmax_backward_rows, True, False)
KERNELS["_log_softmax_backward_data"] = _softmax_bwd(_log_softmax_backward_rows, False, True)


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
        r = (
            np.max(ab, axis=ax_all, keepdims=keepdim, initial=0)
            if x.size == 0
            else np.max(ab, axis=ax_all, keepdims=keepdim)
        )
    elif ord == float("-inf"):
        r = np.min(ab, axis=ax_all, keepdims=keepdim)
    elif ord == 0:
        r = np.sum(ab != 0, axis=ax_all, keepdims=keepdim)
    else:
        with quiet():
            r = np.sum(ab**ord, axis=ax_all, keepdims=keepdim) ** (1.0 / ord)
    return _out(r, m)


@kernel("logcumsumexp")
def logcumsumexp(m, a, dim):
    x = arr(a)
    if x.ndim == 0:
        return wrap(np.array(x, dtype=TO_NP[m.dtype]), m.dtype)
    work = np.float32 if m.dtype.itemsize < 4 else TO_NP[m.dtype]  # half types accumulate in float32
    axis = dim % x.ndim
    with np.errstate(all="ignore"):
        if np.dtype(work).kind == "c":  # NumPy's logaddexp is real-only: shift by the largest real part
            xw = x.astype(work, copy=False)
            shift = np.max(xw.real, axis=axis, keepdims=True)
            shift = np.where(np.isfinite(shift), shift, 0)
            out = np.log(np.cumsum(np.exp(xw - shift), axis=axis)) + shift
        else:
            out = np.logaddexp.accumulate(x.astype(work, copy=False), axis=axis)
    return wrap(np.ascontiguousarray(out, dtype=TO_NP[m.dtype]), m.dtype)
