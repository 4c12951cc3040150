"""nn kernels in NumPy: linear, adaptive pooling, upsampling, norms, embeddings, losses, attention
(convolution and max / average pooling are in conv.py)."""

import math

import numpy as np
from mindtorch.plugins import OPS, dtypes as D

from .. import blas, native
from ..allocator import ALLOCATOR, dense
from ..convert import TO_NP, arr, quiet, wrap
from ..parallel import split_rows, threads_for
from ..sizes import THRESHOLDS
from . import kernel_table
from .reduction import _ones, _softmax_backward_rows, _softmax_rows, log_softmax as log_softmax_kernel, reduce_sum

KERNELS, kernel = kernel_table()


def _acc_dtype(a):
    # half types accumulate in float32, as PyTorch does on CPU
    return np.float32 if a.dtype.itemsize < 4 and a.dtype.kind == "f" or a.dtype.kind == "V" else a.dtype


def _f(t):
    a = arr(t)
    if a.dtype.kind != "f" or a.dtype.itemsize < 4:
        a = a.astype(np.float32)
    return a


# --- linear ----------------------------------------------------------------------------
@kernel("linear")
def linear(m, x, w, b=None):
    a, wt = arr(x), arr(w).T
    if a.ndim > 2 and a.flags.c_contiguous:
        out = blas.matmul(a.reshape(-1, a.shape[-1]), wt).reshape(m.shape)  # one GEMM instead of a batch loop
    else:
        out = blas.matmul(a, wt)
    if b is not None:
        out += arr(b)
    return wrap(out, m.dtype)


@kernel("linear_backward")
def linear_backward(m, x, g, w, mask):
    """linear's three gradients in one kernel (the op's decomposition for other dtypes): the same
    products and column sums that decomposition's kernels compute, without its views and dispatches."""
    xa, ga, wa = arr(x), arr(g), arr(w)
    if ga.dtype not in _F32_F64 or xa.dtype != ga.dtype or wa.dtype != ga.dtype:
        return OPS["linear_backward"].composite(x, g, w, mask)
    g2 = ga.reshape(-1, ga.shape[-1])
    gi = gw = gb = None
    if mask[0]:
        gi = wrap(blas.matmul(g2, wa).reshape(m[0].shape), m[0].dtype)
    if mask[1]:
        gw = wrap(blas.matmul(g2.T, xa.reshape(-1, xa.shape[-1])), m[1].dtype)
    if mask[2]:
        gb = wrap(reduce_sum(g2, (0,), g2.dtype), m[2].dtype)
    return gi, gw, gb


_F32_F64 = (np.dtype(np.float32), np.dtype(np.float64))


# --- adaptive pooling --------------------------------------------------------------------
def _adaptive_matrix(n, o, dtype):
    a = np.zeros((o, n), dtype)
    for i in range(o):
        s = (i * n) // o
        e = -((-(i + 1) * n) // o)
        a[i, s:e] = 1.0 / (e - s)
    return a


def _separable(a, mh, mw):
    return blas.matmul(blas.matmul(mh, a), mw.T)


@kernel("_adaptive_avg_pool2d")
def adaptive_avg_pool2d(m, x, output_size):
    a = arr(x)
    acc = _acc_dtype(a)
    mh = _adaptive_matrix(a.shape[2], m.shape[2], acc)
    mw = _adaptive_matrix(a.shape[3], m.shape[3], acc)
    return wrap(_separable(a.astype(acc, copy=False), mh, mw).astype(TO_NP[m.dtype]), m.dtype)


@kernel("_adaptive_avg_pool2d_backward")
def adaptive_avg_pool2d_backward(m, g, x):
    ga = arr(g)
    acc = _acc_dtype(ga)
    mh = _adaptive_matrix(m.shape[2], ga.shape[2], acc)
    mw = _adaptive_matrix(m.shape[3], ga.shape[3], acc)
    return wrap(_separable(ga.astype(acc, copy=False), mh.T, mw.T).astype(TO_NP[m.dtype]), m.dtype)


# --- upsampling ------------------------------------------------------------------------------
def _src_scale(n_in, n_out, align_corners, scale):
    if align_corners:
        return (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    return 1.0 / scale if scale is not None and scale > 0 else n_in / n_out


def _nearest_index(n_in, n_out, scale):
    s = _src_scale(n_in, n_out, False, scale)
    return np.minimum(np.floor(np.arange(n_out, dtype=np.float32) * np.float32(s)).astype(np.int64), n_in - 1)


def _linear_matrix(n_in, n_out, align_corners, scale, dtype):
    s = _src_scale(n_in, n_out, align_corners, scale)
    dst = np.arange(n_out, dtype=np.float64)
    src = dst * s if align_corners else np.maximum((dst + 0.5) * s - 0.5, 0.0)
    i0 = np.minimum(np.floor(src).astype(np.int64), n_in - 1)
    i1 = np.minimum(i0 + 1, n_in - 1)
    l1 = src - i0
    mat = np.zeros((n_out, n_in), np.float64)
    np.add.at(mat, (np.arange(n_out), i0), 1.0 - l1)
    np.add.at(mat, (np.arange(n_out), i1), l1)
    return mat.astype(dtype)


@kernel("_upsample2d")
def upsample2d(m, x, output_size, mode, align_corners, scale_h, scale_w):
    a = arr(x)
    h, w = a.shape[2:]
    ho, wo = output_size
    if mode == "nearest":
        ih = _nearest_index(h, ho, scale_h)
        iw = _nearest_index(w, wo, scale_w)
        return wrap(np.ascontiguousarray(a[:, :, ih[:, None], iw[None, :]]), m.dtype)
    acc = _acc_dtype(a)
    mh = _linear_matrix(h, ho, align_corners, scale_h, acc)
    mw = _linear_matrix(w, wo, align_corners, scale_w, acc)
    return wrap(_separable(a.astype(acc, copy=False), mh, mw).astype(TO_NP[m.dtype]), m.dtype)


@kernel("_upsample2d_backward")
def upsample2d_backward(m, g, input_size, mode, align_corners, scale_h, scale_w):
    ga = arr(g)
    n, c, h, w = input_size
    ho, wo = ga.shape[2:]
    if mode == "nearest":
        ih = _nearest_index(h, ho, scale_h)
        iw = _nearest_index(w, wo, scale_w)
        flat = (ih[:, None] * w + iw[None, :]).ravel()
        g2 = ga.reshape(n * c, ho * wo).astype(np.float64)
        out = np.zeros((n * c, h * w), np.float64)
        np.add.at(out, (slice(None), flat), g2)
        return wrap(out.reshape(input_size).astype(TO_NP[m.dtype]), m.dtype)
    acc = _acc_dtype(ga)
    mh = _linear_matrix(h, ho, align_corners, scale_h, acc)
    mw = _linear_matrix(w, wo, align_corners, scale_w, acc)
    return wrap(_separable(ga.astype(acc, copy=False), mh.T, mw.T).astype(TO_NP[m.dtype]), m.dtype)


# --- normalization ---------------------------------------------------------------------------
# Layer and RMS norm run over blocks of rows on the thread pool: row sums are BLAS matrix-vector
# products, and each block's temporaries stay in cache. Statistics are float32 for 16-bit inputs.
def _norm_rows(x, k):
    a = _f(x)
    c = 1
    for s in a.shape[a.ndim - k :]:
        c *= s
    d = dense(a)  # a copy (a broadcast gradient) comes from the pool: the caller gives it back
    rows = 1
    for s in a.shape[: a.ndim - k]:
        rows *= s
    return d.reshape(rows, c), d if d is not a else None


def _grad_rows(g, k):
    """A norm's gradient as (its distinct rows: C-contiguous, (period, row length); the copy to give back
    or None). A gradient broadcast over leading dimensions (a sum's, an expanded one) keeps only the rows
    it repeats, so the compiled backward reads them in place of a dense copy of every row."""
    a = _f(g)
    lead = a.ndim - k
    j = 0
    while j < lead and (a.strides[j] == 0 or a.shape[j] == 1):
        j += 1
    inner = a[(0,) * j] if j else a
    d = dense(inner)
    c = 1
    for s in a.shape[lead:]:
        c *= s
    return d.reshape(-1, c), d if d is not inner else None


def _row_mean(a, ones):
    return blas.matmul(a, ones)[:, None] * (1.0 / a.shape[1])


def _norm_forward(x, normalized_shape, w, b, eps, center):
    """(y, mean or None, rstd) with y in float (mean/rstd shaped (rows, 1))."""
    k = len(normalized_shape)
    a, x_copy = _norm_rows(x, k)
    n, c = a.shape
    dt = a.dtype
    y = ALLOCATOR.empty((n, c), dt)
    mean = np.zeros((n, 1), dt) if center else None
    rstd = np.empty((n, 1), dt)
    if not n * c:  # nothing to normalise: PyTorch's mean 0 and rstd NaN for rows of no elements
        rstd.fill(np.nan)
        return y.reshape(x.shape), mean, rstd
    wv = _f(w).reshape(c) if w is not None else None
    bv = _f(b).reshape(c) if b is not None else None
    cross = THRESHOLDS["layer_norm"]
    if n * c >= cross.native and native.usable(a, y, *(v for v in (wv, bv) if v is not None)):
        native.norm(y, a, wv, bv, mean, rstd, eps, center, threads=threads_for(n * c, cross.split))
        ALLOCATOR.release(x_copy)
        return y.reshape(x.shape), mean, rstd
    ones = _ones(c, dt)

    def run(lo, hi):
        xb, yb, r = a[lo:hi], y[lo:hi], rstd[lo:hi]
        if center:
            mean[lo:hi] = _row_mean(xb, ones)
            np.subtract(xb, mean[lo:hi], out=yb)
        else:
            yb[...] = xb
        sq = np.multiply(yb, yb)
        np.add(_row_mean(sq, ones), eps, out=r)
        np.sqrt(r, out=r)
        np.reciprocal(r, out=r)
        yb *= r
        if wv is not None:
            yb *= wv
        if bv is not None:
            yb += bv

    split_rows(run, n, c, cross.split)
    ALLOCATOR.release(x_copy)
    return y.reshape(x.shape), mean, rstd


def _norm_backward(g, x, normalized_shape, mean, rstd, w, center):
    """(dx, dweight, dbias) for layer norm (center) or RMS norm."""
    k = len(normalized_shape)
    a, x_copy = _norm_rows(x, k)
    n, c = a.shape
    dt = a.dtype
    if not n * c:
        ALLOCATOR.release(x_copy)
        zeros = np.zeros(normalized_shape, dt)
        return np.zeros(x.shape, dt), zeros, zeros.copy()
    mu = arr(mean).reshape(n, 1) if center else None
    r = arr(rstd).reshape(n, 1).astype(dt, copy=False)
    wv = _f(w).reshape(c) if w is not None else None
    dx = ALLOCATOR.empty((n, c), dt)
    cross = THRESHOLDS["layer_norm_backward"]
    ga, g_copy = _grad_rows(g, k)
    if n * c >= cross.native and native.usable(ga, a, r, *(v for v in (mu, wv) if v is not None)):
        gw, gbias = np.zeros(c, dt), np.zeros(c, dt)
        native.norm_backward(dx, ga, a, mu, r, wv, gw, gbias, center, threads=threads_for(n * c, cross.split))
    else:
        if ga.shape[0] != n:  # the NumPy passes take every row
            ALLOCATOR.release(g_copy)
            ga, g_copy = _norm_rows(g, k)
        gw, gbias = _norm_backward_blocks(ga, a, mu, r, wv, dx, center, cross.split)
    ALLOCATOR.release(g_copy)
    ALLOCATOR.release(x_copy)
    return dx.reshape(x.shape), gw.reshape(normalized_shape), gbias.reshape(normalized_shape)


def _norm_backward_blocks(ga, a, mu, r, wv, dx, center, split):
    """dx into `dx` and (dweight, dbias) over row blocks of NumPy passes, on the pool when large."""
    n, c = a.shape
    dt = a.dtype
    ones = _ones(c, dt)
    partial = {}  # block start -> (dweight, dbias) part, summed in block order (deterministic)

    def run(lo, hi):
        gb, xb, o, rb = ga[lo:hi], a[lo:hi], dx[lo:hi], r[lo:hi]
        xhat = np.subtract(xb, mu[lo:hi]) if center else xb.copy()
        xhat *= rb
        t = np.multiply(gb, xhat)
        ones_rows = _ones(hi - lo, dt)
        partial[lo] = (blas.matmul(ones_rows, t), blas.matmul(ones_rows, gb))
        gx = gb * wv if wv is not None else gb
        if wv is not None:
            np.multiply(gx, xhat, out=t)
        xhat *= _row_mean(t, ones)
        np.subtract(gx, xhat, out=o)
        if center:
            o -= _row_mean(gx, ones)
        o *= rb

    split_rows(run, n, c, split)
    parts = [partial[lo] for lo in sorted(partial)]
    gw = np.sum([p[0] for p in parts], axis=0) if parts else np.zeros(c, dt)
    gbias = np.sum([p[1] for p in parts], axis=0) if parts else np.zeros(c, dt)
    return gw, gbias


def _small_f32(family, normalized_shape, *ts):
    """(row length, arrays) when a layer norm kernel can be one compiled call on this thread: every
    operand (None for a missing one) float32 and C-contiguous, fewer elements than the family's split."""
    if native.LIB is None:
        return None
    xs = [arr(t) if t is not None else None for t in ts]
    for a in xs:
        if a is not None and (a.dtype is not native.F32 or not a.flags.c_contiguous):
            return None
    d = 1
    for s in normalized_shape:
        d *= s
    n = xs[0].size
    cross = THRESHOLDS[family]
    return (d, xs) if d and cross.native <= n < cross.split else None


@kernel("native_layer_norm")
def layer_norm(m, x, normalized_shape, w, b, eps):
    mo, mm, mr = m
    small = _small_f32("layer_norm", normalized_shape, x, w, b) if mo.dtype is D.float32 else None
    if small is not None:  # the common small case: one compiled call, no row views
        d, (a, wv, bv) = small
        y, mean, rstd = np.empty(a.shape, native.F32), np.empty(mm.shape, native.F32), np.empty(mr.shape, native.F32)
        native.norm(y, a, wv, bv, mean, rstd, eps, True, d)
        return wrap(y, mo.dtype), wrap(mean, mm.dtype), wrap(rstd, mr.dtype)
    with quiet():
        y, mean, rstd = _norm_forward(x, normalized_shape, w, b, eps, True)
    return wrap(y, mo.dtype), wrap(mean.reshape(mm.shape), mm.dtype), wrap(rstd.reshape(mr.shape), mr.dtype)


@kernel("native_layer_norm_backward")
def layer_norm_backward(m, g, x, normalized_shape, mean, rstd, w, b):
    small = None
    if m[0].dtype is D.float32 and g.shape == x.shape:
        small = _small_f32("layer_norm_backward", normalized_shape, x, g, mean, rstd, w)
    if small is not None:  # the common small case: one compiled call, no row views
        d, (a, ga, mu, r, wv) = small
        dx, gw, gb = np.empty(a.shape, native.F32), np.zeros(d, native.F32), np.zeros(d, native.F32)
        native.norm_backward(dx, ga, a, mu, r, wv, gw, gb, True, d)
        return tuple(wrap(v.reshape(mm.shape), mm.dtype) for v, mm in zip((dx, gw, gb), m))
    with quiet():
        dx, gw, gb = _norm_backward(g, x, normalized_shape, mean, rstd, w, True)
    return tuple(wrap(np.asarray(v), mm.dtype) for v, mm in zip((dx, gw, gb), m))


@kernel("_rms_norm")
def rms_norm(m, x, normalized_shape, w, eps):
    if x.dtype.is_complex:  # the fused loop squares real rows: complex rows take the decomposition (|x|^2)
        return OPS["_rms_norm"].composite(x, normalized_shape, w, eps)
    with quiet():
        y, _, rstd = _norm_forward(x, normalized_shape, w, None, eps, False)
    return wrap(y, m[0].dtype), wrap(rstd.reshape(m[1].shape), m[1].dtype)


@kernel("_rms_norm_backward")
def rms_norm_backward(m, g, x, normalized_shape, rstd, w):
    if x.dtype.is_complex:
        return OPS["_rms_norm_backward"].composite(g, x, normalized_shape, rstd, w)
    with quiet():
        dx, gw, _ = _norm_backward(g, x, normalized_shape, None, rstd, w, False)
    return wrap(dx, m[0].dtype), wrap(np.asarray(gw), m[1].dtype)


def _chan(v, nd):
    return v.reshape((1, -1) + (1,) * (nd - 2))


@kernel("_batch_norm")
def batch_norm(m, x, w, b, rm, rv, training, momentum, eps):
    a = _f(x)
    nd = a.ndim
    axes = (0,) + tuple(range(2, nd))
    if training:
        mean = a.mean(axes)
        xc = a - _chan(mean, nd)
        var = np.mean(xc * xc, axes)
        invstd = 1.0 / np.sqrt(var + eps)
        cnt = a.size // a.shape[1]
        if rm is not None:
            r = arr(rm)
            r *= 1 - momentum
            r += momentum * mean
        if rv is not None:
            r = arr(rv)
            r *= 1 - momentum
            r += momentum * var * (cnt / max(cnt - 1, 1))
    else:
        mean = arr(rm).astype(a.dtype)
        invstd = 1.0 / np.sqrt(arr(rv).astype(a.dtype) + eps)
        xc = a - _chan(mean, nd)
    y = xc * _chan(invstd, nd)
    if w is not None:
        y = y * _chan(_f(w), nd)
    if b is not None:
        y = y + _chan(_f(b), nd)
    return wrap(y, m[0].dtype), wrap(mean.astype(a.dtype), m[1].dtype), wrap(invstd.astype(a.dtype), m[2].dtype)


@kernel("_batch_norm_backward")
def batch_norm_backward(m, g, x, w, rm, rv, save_mean, save_invstd, training, eps):
    ga, a = _f(g), _f(x)
    nd = a.ndim
    axes = (0,) + tuple(range(2, nd))
    if save_mean is not None and save_invstd is not None:
        mean, invstd = arr(save_mean), arr(save_invstd)
    elif training or rm is None or rv is None:
        mean = a.mean(axes)
        xc = a - _chan(mean, nd)
        invstd = 1.0 / np.sqrt(np.mean(xc * xc, axes) + eps)
    else:
        mean = arr(rm).astype(a.dtype)
        invstd = 1.0 / np.sqrt(arr(rv).astype(a.dtype) + eps)
    xhat = (a - _chan(mean, nd)) * _chan(invstd, nd)
    wv = _chan(_f(w), nd) if w is not None else 1.0
    gb = ga.sum(axes)
    gw = (ga * xhat).sum(axes)
    if training:
        cnt = a.size // a.shape[1]
        dx = (ga - _chan(gb / cnt, nd) - xhat * _chan(gw / cnt, nd)) * _chan(invstd, nd) * wv
    else:
        dx = ga * _chan(invstd, nd) * wv
    return wrap(dx, m[0].dtype), wrap(gw, m[1].dtype), wrap(gb, m[2].dtype)


@kernel("_group_norm")
def group_norm(m, x, w, b, groups, eps):
    a = _f(x)
    n, c = a.shape[:2]
    ag = a.reshape(n, groups, -1)
    mean = ag.mean(-1, keepdims=True)
    xc = ag - mean
    rstd = 1.0 / np.sqrt(np.mean(xc * xc, -1, keepdims=True) + eps)
    y = (xc * rstd).reshape(a.shape)
    nd = a.ndim
    if w is not None:
        y = y * _chan(_f(w), nd)
    if b is not None:
        y = y + _chan(_f(b), nd)
    return wrap(y, m[0].dtype), wrap(mean.reshape(n, groups), m[1].dtype), wrap(rstd.reshape(n, groups), m[2].dtype)


@kernel("_group_norm_backward")
def group_norm_backward(m, g, x, w, mean, rstd, groups):
    ga, a = _f(g), _f(x)
    n, c = a.shape[:2]
    nd = a.ndim
    mu = arr(mean).reshape(n, groups, 1)
    r = arr(rstd).reshape(n, groups, 1)
    xhat = ((a.reshape(n, groups, -1) - mu) * r).reshape(a.shape)
    sp = tuple(range(2, nd))
    gb = ga.sum((0,) + sp)
    gw = (ga * xhat).sum((0,) + sp)
    gx = ga * _chan(_f(w), nd) if w is not None else ga
    gx = gx.reshape(n, groups, -1)
    xh = xhat.reshape(n, groups, -1)
    dx = r * (gx - gx.mean(-1, keepdims=True) - xh * (gx * xh).mean(-1, keepdims=True))
    return wrap(dx.reshape(a.shape), m[0].dtype), wrap(gw, m[1].dtype), wrap(gb, m[2].dtype)


# --- embedding ---------------------------------------------------------------------------------
def _check_range(idx, n):
    if idx.size and (idx.min() < -n or idx.max() >= n):
        raise IndexError("index out of range in self")


@kernel("embedding")
def embedding(m, w, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    wa, idx = arr(w), arr(indices)
    if idx.size and (idx.min() < 0 or idx.max() >= wa.shape[0]):
        raise IndexError("index out of range in self")
    return wrap(wa[idx], m.dtype)


@kernel("_embedding_backward")
def embedding_backward(m, g, indices, num_weights, padding_idx, scale_grad_by_freq):
    ga = arr(g)
    idx = arr(indices).ravel()
    d = ga.shape[-1]
    out = np.zeros((num_weights, d), _acc_dtype(ga))
    g2 = ga.reshape(-1, d)
    if scale_grad_by_freq:
        cnt = np.bincount(idx, minlength=num_weights)
        g2 = g2 / cnt[idx][:, None]
    if idx.size:
        # rows grouped by index (stable sort keeps each group's order) and summed with one reduceat:
        # the sums np.add.at makes, at a fraction of its per-element cost
        order = np.argsort(idx, kind="stable")
        si = idx[order]
        starts = np.flatnonzero(np.r_[True, si[1:] != si[:-1]])
        out[si[starts]] = np.add.reduceat(g2[order].astype(out.dtype, copy=False), starts, axis=0)
    if padding_idx is not None and padding_idx >= 0:
        out[padding_idx] = 0
    return wrap(out.astype(TO_NP[m.dtype]), m.dtype)


@kernel("_embedding_renorm_")
def embedding_renorm_(m, w, indices, max_norm, norm_type):
    wa = arr(w)
    rows = np.unique(arr(indices).ravel())
    sel = wa[rows].astype(np.result_type(wa.dtype, np.float64))  # complex rows keep their imaginary part
    norms = np.sum(np.abs(sel) ** norm_type, -1) ** (1.0 / norm_type)
    big = norms > max_norm
    scale = max_norm / (norms[big] + 1e-7)
    wa[rows[big]] = (sel[big] * scale[:, None]).astype(wa.dtype)
    return w


# --- nll loss ----------------------------------------------------------------------------------
def _nll_parts(x, target, weight, ignore_index):
    a = arr(x)
    t = arr(target).astype(np.int64, copy=False)
    if a.ndim == 1:
        a = a[None]
        t = t[None]
    c = a.shape[1]
    if a.ndim > 2:  # (N, C, d1, ...) -> (N*d1*..., C)
        a = np.moveaxis(a, 1, -1).reshape(-1, c)
        t = t.reshape(-1)
    if t.size and t.min() >= 0 and t.max() < c and not 0 <= ignore_index < c:
        # the common case (every target a class, none ignored): no masks
        t = t if t.flags.c_contiguous else np.ascontiguousarray(t)
        wv = arr(weight)[t].astype(a.dtype, copy=False) if weight is not None else np.ones(t.shape, a.dtype)
        return a, t, wv, c
    valid = t != ignore_index
    bad = valid & ((t < 0) | (t >= c))
    if bad.any():
        raise IndexError(f"Target {int(t[bad][0])} is out of bounds.")
    safe = np.where(valid, t, 0)
    wv = arr(weight)[safe] if weight is not None else np.ones(safe.shape, a.dtype)
    wv = np.where(valid, wv, 0).astype(a.dtype)
    return a, safe, wv, c


def _nll_operands(x, target, weight):
    """(rows, int64 targets, weight or None) for one compiled call: float32 (classes) or (rows, classes)
    C-contiguous, as are the targets and the weight; else None."""
    if native.LIB is None:
        return None
    a, t = arr(x), arr(target)
    if a.ndim == 1:
        a, t = a.reshape(1, -1), t.reshape(1)
    w = arr(weight) if weight is not None else None
    if a.ndim != 2 or t.dtype != np.int64 or not t.flags.c_contiguous or not native.usable(a, *(w,) * (w is not None)):
        return None
    return a, t, w


def _nll_compiled(run, operands, reduction):
    """(per-row losses or None, loss sum, total weight) from run(rows, targets, weight, losses, sums),
    a compiled nll kernel (returning the first row with a target out of range, or -1)."""
    a, t, w = operands
    sums = np.zeros(2)
    losses = np.empty(a.shape[0], native.F32) if reduction == 0 else None
    bad = run(a, t, w, losses, sums)
    if bad >= 0:
        raise IndexError(f"Target {int(t[bad])} is out of bounds.")
    return losses, sums[0], sums[1]


def _nll_result(m, losses, loss_sum, total, reduction):
    """The (loss, total weight) tensors of the reduction."""
    if reduction == 0:
        out = losses.reshape(m[0].shape)
    elif reduction == 1:  # in float64, then rounded once
        out = float(loss_sum) / float(total) if total else math.nan
    else:
        out = loss_sum
    m0, m1 = m[0], m[1]
    return wrap(np.asarray(out, TO_NP[m0.dtype]), m0.dtype), wrap(np.asarray(total, TO_NP[m1.dtype]), m1.dtype)


@kernel("_nll_loss")
def nll_loss(m, x, target, weight, reduction, ignore_index):
    operands = _nll_operands(x, target, weight)
    if operands is not None:
        run = lambda a, t, w, losses, sums: native.nll(a, t, w, losses, sums, ignore_index)
        return _nll_result(m, *_nll_compiled(run, operands, reduction), reduction)
    a, safe, wv, c = _nll_parts(x, target, weight, ignore_index)
    picked = np.take_along_axis(a, safe[:, None], 1)[:, 0]
    with quiet():
        losses = -picked * wv
    losses[arr(target).reshape(-1) == ignore_index] = 0  # an ignored row adds nothing, not 0 * its value
    return _nll_result(m, losses, losses.sum(dtype=np.float64), wv.sum(dtype=np.float64), reduction)


@kernel("_nll_loss_backward")
def nll_loss_backward(m, g, x, target, weight, reduction, ignore_index, total_weight):
    a, safe, wv, c = _nll_parts(x, target, weight, ignore_index)
    ga = arr(g)
    if reduction == 0:
        coef = -wv * ga.reshape(-1)
    elif reduction == 1:
        tw = arr(total_weight)
        coef = -wv * (ga / tw) if tw != 0 else np.zeros_like(wv)  # all targets ignored: zero grads
    else:
        coef = -wv * ga
    out = np.zeros(a.shape, TO_NP[m.dtype])
    np.put_along_axis(out, safe[:, None], coef.reshape(-1, 1).astype(out.dtype), 1)
    if len(m.shape) > 2:
        shp = m.shape
        out = np.moveaxis(out.reshape((shp[0],) + tuple(shp[2:]) + (shp[1],)), -1, 1)
    return wrap(np.ascontiguousarray(out).reshape(m.shape), m.dtype)


# --- scaled dot-product attention ------------------------------------------------------------------
def _rows_apply(block_fn, out2, *ins2, scratch=False):
    """block_fn(out_rows, *in_rows, tmp, ones, threads) over the rows of 2-d C-contiguous arrays: one
    compiled call on the kernels' pool, or NumPy passes over row blocks (threads 0)."""
    n, c = out2.shape
    cross = THRESHOLDS["softmax"]
    if n * c >= cross.native and native.usable(out2, *ins2):
        block_fn(out2, *ins2, None, None, threads_for(n * c, cross.split))
        return
    ones = _ones(c, out2.dtype)

    def run(lo, hi):
        tmp = np.empty((hi - lo, c), out2.dtype) if scratch else None
        block_fn(out2[lo:hi], *[a[lo:hi] for a in ins2], tmp, ones, 0)

    split_rows(run, n, c, cross.split)


_CAUSAL = {}


def _causal_bias(L, S, dt):
    b = _CAUSAL.get((L, S, dt))
    if b is None:
        b = np.where(np.tril(np.ones((L, S), bool)), dt.type(0), dt.type(-np.inf))
        b.flags.writeable = False
        if len(_CAUSAL) < 64:
            _CAUSAL[(L, S, dt)] = b
    return b


def _sdpa_bias(mask, is_causal, L, S, dt):
    """The mask as an additive bias: 0 / -inf (causal, or a bool mask), or the float mask itself; None
    without one."""
    if is_causal:
        return _causal_bias(L, S, dt)
    if mask is None:
        return None
    ma = arr(mask)
    return np.where(ma, dt.type(0), dt.type(-np.inf)) if ma.dtype == np.bool_ else ma


def _sdpa_fused(s, bias):
    """The bias as the compiled attention kernels take it ((L, S) float32 rows repeated over the batch and
    heads, or None) when they can run on the scores s, else False."""
    if not s.size or not native.usable(s):
        return False
    if bias is None:
        return None
    if bias.shape == s.shape[-2:] and bias.dtype == s.dtype:
        b = np.ascontiguousarray(bias)
        return b if native.usable(b) else False
    return False


def _kv_heads(qa, a):
    """Key / value heads repeated for the query heads sharing them (grouped-query attention), and the count."""
    groups = qa.shape[-3] // a.shape[-3] if qa.ndim >= 3 and a.shape[-3] != qa.shape[-3] else 1
    return (np.repeat(a, groups, axis=-3) if groups > 1 else a), groups


def _head_sums(a, groups):
    """A gradient over repeated heads summed back onto each shared key / value head."""
    if groups == 1:
        return a
    return a.reshape(a.shape[:-3] + (a.shape[-3] // groups, groups) + a.shape[-2:]).sum(-3)


def _dropped(p, dropout_mask, dropout_p):
    """p (scores, probabilities or their gradient) times the dropout mask over 1 - dropout_p, in place."""
    if dropout_mask is not None:
        p *= arr(dropout_mask).astype(p.dtype) * p.dtype.type(1.0 / (1.0 - dropout_p))
    return p


@kernel("_scaled_dot_product_attention")
def sdpa(m, q, k, v, mask, is_causal, scale, dropout_mask=None, dropout_p=0.0):
    qa = _f(q)
    (ka, _), (va, _) = _kv_heads(qa, _f(k)), _kv_heads(qa, _f(v))
    L, S = qa.shape[-2], ka.shape[-2]
    bias = _sdpa_bias(mask, is_causal, L, S, qa.dtype)
    with quiet():
        s = blas.matmul(qa, ka.swapaxes(-1, -2))
        fused = _sdpa_fused(s, bias)
        if fused is not False:  # scale, bias, softmax and logsumexp in one pass over the scores
            lse = np.empty(s.shape[:-1], s.dtype)
            native.attn_softmax(s, fused, lse, scale, threads_for(s.size, THRESHOLDS["softmax"].split))
            out = blas.matmul(_dropped(s, dropout_mask, dropout_p), va)
            return wrap(out, m[0].dtype), wrap(lse, m[1].dtype)
        s *= s.dtype.type(scale)
        if bias is not None:
            s += bias
        top = s.max(-1) if S else np.full(s.shape[:-1], -np.inf, s.dtype)
        if s.size:
            p2 = s.reshape(-1, S)
            _rows_apply(_softmax_rows, p2, p2)
        # a row's probability at its largest score is exp(0) / sum, so logsumexp = max - log(that probability)
        lse = top - np.log(s.max(-1)) if S else top
        out = blas.matmul(_dropped(s, dropout_mask, dropout_p), va)
    return wrap(out, m[0].dtype), wrap(lse.astype(s.dtype, copy=False), m[1].dtype)


@kernel("_scaled_dot_product_attention_backward")
def sdpa_backward(m, g, q, k, v, mask, is_causal, out, lse, scale, dropout_mask=None, dropout_p=0.0):
    ga, qa = _f(g), _f(q)
    (ka, groups), (va, _) = _kv_heads(qa, _f(k)), _kv_heads(qa, _f(v))
    bias = _sdpa_bias(mask, is_causal, qa.shape[-2], ka.shape[-2], qa.dtype)
    with quiet():
        p = blas.matmul(qa, ka.swapaxes(-1, -2))  # the scores again, then the probabilities in place
        la = arr(lse).astype(p.dtype, copy=False)
        fused = _sdpa_fused(p, bias)
        if fused is not False and native.usable(la):
            native.attn_probs(p, fused, la, scale, threads_for(p.size, THRESHOLDS["softmax"].split))
        else:
            p *= p.dtype.type(scale)
            if bias is not None:
                p += bias
            p -= la[..., None]
            np.exp(p, out=p)
            # each row divided by its sum: a rounding of the row's logsumexp scales the whole row, and the
            # gradient (p * (dp - rowsum(dp * p))) is a difference of larger terms that would carry it
            p /= p.sum(-1, keepdims=True)
        kept = p if dropout_mask is None else _dropped(p.copy(), dropout_mask, dropout_p)
        dv = blas.matmul(kept.swapaxes(-1, -2), ga)
        dp = _dropped(blas.matmul(ga, va.swapaxes(-1, -2)), dropout_mask, dropout_p)
        S = dp.shape[-1]
        if dp.size:
            d2 = dp.reshape(-1, S)
            _rows_apply(_softmax_backward_rows, d2, d2, np.ascontiguousarray(p).reshape(-1, S), scratch=True)
        dp *= dp.dtype.type(scale)
        dq = blas.matmul(dp, ka)
        dk = _head_sums(blas.matmul(dp.swapaxes(-1, -2), qa), groups)
    return tuple(wrap(a, mm.dtype) for a, mm in zip((dq, dk, _head_sums(dv, groups)), m))


# --- cross entropy (class indices, 2-d) ---------------------------------------------------------------
@kernel("_cross_entropy")
def cross_entropy(m, x, target, weight, reduction, ignore_index):
    operands = _nll_operands(x, target, weight) if m[2].dtype is D.float32 else None
    if operands is not None:  # log_softmax (on the kernels' pool when large) and the loss in one call
        n = x.numel()
        split = THRESHOLDS["softmax"].split
        lp = np.empty(operands[0].shape, native.F32) if n < split else ALLOCATOR.empty(operands[0].shape, native.F32)
        k = threads_for(n, split)
        run = lambda a, t, w, losses, sums: native.cross_entropy(lp, a, t, w, losses, sums, ignore_index, k)
        loss, total = _nll_result(m, *_nll_compiled(run, operands, reduction), reduction)
        return loss, total, wrap(lp, m[2].dtype)
    logp = log_softmax_kernel(m[2], x, 1)
    loss, total = nll_loss(m[:2], logp, target, weight, reduction, ignore_index)
    return loss, total, logp


@kernel("_cross_entropy_backward")
def cross_entropy_backward(m, g, log_probs, target, weight, reduction, ignore_index, total_weight):
    lp, safe, wv, c = _nll_parts(log_probs, target, weight, ignore_index)
    ga = arr(g)
    if reduction == 0:
        coef = wv * ga.reshape(-1)
    elif reduction == 1:
        tw = arr(total_weight)
        coef = wv * (ga / tw) if tw != 0 else np.zeros_like(wv)  # all targets ignored: zero grads
    else:
        coef = wv * ga
    dt = _f(log_probs).dtype
    coef = coef.astype(dt, copy=False)
    cross = THRESHOLDS["cross_entropy_backward"]
    if lp.size >= cross.native and lp.ndim == 2 and native.usable(lp, coef):
        out = ALLOCATOR.empty(lp.shape, dt)
        native.cross_entropy_backward(out, lp, coef, safe, threads_for(lp.size, cross.split))
        return wrap(out, m.dtype)
    with quiet():
        out = np.exp(lp, dtype=dt)  # d/dlogits = coef * (softmax - one_hot), in one pass
        out *= coef[:, None]
        out[np.arange(out.shape[0]), safe] -= coef
    return wrap(out, m.dtype)
