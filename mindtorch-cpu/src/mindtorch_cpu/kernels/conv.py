"""Convolution (im2col and a GEMM) and max / average pooling kernels."""

import numpy as np
from mindtorch.plugins import dtypes as D
from numpy.lib.stride_tricks import as_strided

from .. import blas, native
from ..allocator import ALLOCATOR, dense
from ..convert import TO_NP, arr, quiet, wrap
from ..parallel import GRAIN, blocks, parallel_for, row_blocks, threads_for
from ..sizes import THRESHOLDS
from . import kernel_table
from .nn import _acc_dtype

KERNELS, kernel = kernel_table()


# --- convolution -----------------------------------------------------------------------
_BF16 = np.dtype(TO_NP[D.bfloat16])


def _wide(a, half=()):
    """bfloat16 in float32, as PyTorch's cpu convolution accumulates it: sums and the bias round once. Pass
    half=(np.float16,) where PyTorch does the same for float16 (the forward); its backward rounds each GEMM
    to float16 and adds the pieces in float16, as NumPy's float16 matmul and adds do."""
    return a.astype(np.float32) if a is not None and (a.dtype == _BF16 or a.dtype in half) else a


_F16 = (np.dtype(np.float16),)


def _pad(a, padding, value=0):
    pt, pb, pl, pr = padding
    if not (pt or pb or pl or pr):
        return a
    return np.pad(a, ((0, 0), (0, 0), (pt, pb), (pl, pr)), constant_values=value)


def _windows(a, kh, kw, ho, wo, stride, dilation):
    """(N, C, kh, kw, ho, wo) view of the (already padded) input."""
    sn, sc, sh, sw = a.strides
    return as_strided(
        a,
        (a.shape[0], a.shape[1], kh, kw, ho, wo),
        (sn, sc, sh * dilation[0], sw * dilation[1], sh * stride[0], sw * stride[1]),
        writeable=False,
    )


def _cols(x, kh, kw, ho, wo, stride, padding, dilation):
    if native.usable(x) and x.ndim == 4:
        n, c = x.shape[:2]
        cols = ALLOCATOR.empty((n, c * kh * kw, ho * wo), np.float32)  # given back by the caller
        row_blocks(
            lambda lo, hi: native.im2col(
                cols[lo:hi], x[lo:hi], (kh, kw), (ho, wo), stride, (padding[0], padding[2]), dilation
            ),
            n,
            cols[0].size,
            native.BLOCK,
        )
        return cols
    a = _pad(x, padding)
    win = _windows(a, kh, kw, ho, wo, stride, dilation)
    n, c = a.shape[:2]
    return np.ascontiguousarray(win).reshape(n, c * kh * kw, ho * wo)


# --- float32, ungrouped ------------------------------------------------------------------------------
# The compiled kernels (native/conv.c) run the forward and the input's gradient at any stride and the
# weight's gradient at stride 1, each a whole op on the library's own pool. The weight's gradient at
# other strides unfolds and runs its GEMMs per block of images: each pool thread takes a share of the
# batch and, a block of images at a time, unfolds it into its own column buffer and runs its GEMMs on it
# while the columns are still in cache (OpenBLAS kept to that thread: the pool already fills the cores).
# Columns of at most this many bytes make a block: on a 2-core machine with 1 MB of L2 per core (32 MB
# L3) one-thread fwd+bwd times were flat, within 4%, from 128 KB to 8 MB blocks for (32,16,32,32)
# 16->32, (32,3,32,32) 3->16 and (32,16,16,16) 16->32.
COLS_BYTES = 1 << 19


def _unfold(ks, out_hw, stride, padding, dilation):
    """The geometry native.im2col and native.col2im take (the padding by its top and left sides)."""
    return ks, out_hw, stride, (padding[0], padding[2]), dilation


def _compiled(macs, *arrays):
    """The thread count for a compiled convolution of `macs` multiply-adds, or 0 where it does not run: an
    operand not a C-contiguous float32 4-d array, or below its threshold."""
    if not (native.usable(*arrays) and all(a.ndim == 4 for a in arrays)):
        return 0
    cross = THRESHOLDS["conv2d"]
    return 0 if macs == 0 or macs < cross.native else threads_for(macs, cross.split)


def _macs(out_shape, weight_shape):
    return int(np.prod(out_shape)) * int(np.prod(weight_shape[1:]))


def _fused(*arrays):
    return native.usable(*arrays) and all(a.ndim == 4 for a in arrays)


def _over_images(n, ck, hw, work):
    """work(lo, hi, cols, part) over blocks of images [lo, hi), with `cols` a (block, ck, hw) float32
    buffer of the calling part's own and `part` its index; the batch is shared out across the pool."""
    parts = blocks(n, GRAIN, ck * hw)
    per = max(1, min(COLS_BYTES // max(1, 4 * ck * hw), max(hi - lo for lo, hi in parts)))
    bufs = [ALLOCATOR.empty((per, ck, hw), np.float32) for _ in parts]

    def run(p0, p1):
        for p in range(p0, p1):
            lo, hi = parts[p]
            for s in range(lo, hi, per):
                e = min(hi, s + per)
                work(s, e, bufs[p][: e - s], p)

    with blas.serial:  # small GEMMs, one per block: threading each would cost more than it gives
        if len(parts) > 1:
            parallel_for(len(parts), run, grain=1)
        else:
            run(0, 1)
    for buf in bufs:
        ALLOCATOR.release(buf)


class _DenseBlocks:
    """Blocks of images of a gradient as C-contiguous arrays for BLAS: views of a dense gradient, else
    copies into a buffer of each part's own (a loss's gradient is often a broadcast view: copied a
    block at a time, on the pool, it is never materialised whole)."""

    def __init__(self, g3):
        self.g3 = g3
        self.dense = g3.flags.c_contiguous
        self.bufs = {}

    def __call__(self, lo, hi, part):
        blk = self.g3[lo:hi]
        if self.dense:
            return blk
        buf = self.bufs.get(part)
        if buf is None or len(buf) < hi - lo:
            buf = self.bufs[part] = np.empty(blk.shape, np.float32)
        np.copyto(buf[: hi - lo], blk)
        return buf[: hi - lo]


def _conv2d_weight_fused(g3, a, ck, geo):
    """The (O, C*kh*kw) sum over images of g3[i] (O, L) @ unfold(a)[i].T, one partial sum per part."""
    o = g3.shape[1]
    partial = {}
    grads = _DenseBlocks(g3)

    def work(lo, hi, cols, part):
        native.im2col(cols, a[lo:hi], *geo)
        g = grads(lo, hi, part)
        acc = partial.get(part)
        tmp = np.empty((ck, o), np.float32)
        for i in range(hi - lo):
            # (ck, L) @ (L, O): the orientation OpenBLAS runs fastest for a long L
            if acc is None:
                acc = partial[part] = blas.matmul(cols[i], g[i].T)
            else:
                acc += blas.matmul(cols[i], g[i].T, out=tmp)

    _over_images(a.shape[0], ck, g3.shape[2], work)
    total = np.zeros((ck, o), np.float32)  # an empty batch has a zero gradient
    for acc in partial.values():
        total += acc
    return total.T


@kernel("_conv2d")
def conv2d(m, x, w, b, stride, padding, dilation, groups):
    a, wt = _wide(arr(x), _F16), _wide(arr(w), _F16)
    n, o, ho, wo = m.shape
    _, cg, kh, kw = wt.shape
    bv = None if b is None else _wide(arr(b), _F16)
    threads = _compiled(_macs(m.shape, wt.shape), wt, a) if groups == 1 and (bv is None or native.usable(bv)) else 0
    if threads:
        out = ALLOCATOR.empty(m.shape, np.float32)
        native.conv2d(out, a, wt, bv, stride, (padding[0], padding[2]), dilation, threads)
        return wrap(out, m.dtype)
    cols = _cols(a, kh, kw, ho, wo, stride, padding, dilation)  # (N, C*kh*kw, L)
    if groups == 1:
        out = blas.matmul(wt.reshape(o, -1), cols, out=ALLOCATOR.empty((n, o, ho * wo), cols.dtype))  # (N, O, L)
    else:
        out = blas.matmul(
            wt.reshape(groups, o // groups, -1), cols.reshape(n, groups, cg * kh * kw, ho * wo)
        )  # (N, G, O/G, L)
    ALLOCATOR.release(cols)
    out = out.reshape(n, o, ho, wo)
    if bv is not None:
        out += bv.reshape(1, o, 1, 1)
    return wrap(out, m.dtype)


@kernel("_conv2d_backward_input")
def conv2d_backward_input(m, g, w, input_size, stride, padding, dilation, groups):
    ga, wt = _wide(arr(g)), _wide(arr(w))
    n, o, ho, wo = ga.shape
    _, cg, kh, kw = wt.shape
    c, h, wd = input_size[1:]
    threads = _compiled(_macs(ga.shape, wt.shape), wt) if groups == 1 and ga.dtype == native.F32 else 0
    if threads:
        dx = ALLOCATOR.empty((n, c, h, wd), np.float32)
        gd = dense(ga)  # a loss's gradient is often a broadcast view
        native.conv2d_input(dx, gd, wt, stride, (padding[0], padding[2]), dilation, threads)
        if gd is not ga:
            ALLOCATOR.release(gd)
        return wrap(dx, m.dtype)
    g3 = ga.reshape(n, groups, o // groups, ho * wo)
    w3 = wt.reshape(groups, o // groups, cg * kh * kw)
    # a contiguous transposed weight keeps the batched matmul on BLAS
    g3d = dense(g3)
    cols = blas.matmul(
        np.ascontiguousarray(w3.transpose(0, 2, 1)),
        g3d,
        out=ALLOCATOR.empty((n, groups, cg * kh * kw, ho * wo), np.result_type(w3, g3d)),
    )
    if g3d is not g3:
        ALLOCATOR.release(g3d)
    pt, pb, pl, pr = padding
    if native.usable(cols):
        c3 = cols.reshape(n, c * kh * kw, ho * wo)
        dxn = ALLOCATOR.empty((n, c, h, wd), np.float32)
        row_blocks(
            lambda lo, hi: native.col2im(dxn[lo:hi], c3[lo:hi], (kh, kw), (ho, wo), stride, (pt, pl), dilation),
            n,
            c3[0].size,
            native.BLOCK,
        )
        ALLOCATOR.release(cols)
        return wrap(dxn, m.dtype)
    cols = cols.reshape(n, c, kh, kw, ho, wo)
    hp, wp = h + pt + pb, wd + pl + pr
    dx = np.zeros((n, c, hp, wp), cols.dtype)
    sh, sw = stride
    dh, dw = dilation
    for i in range(kh):  # col2im: one strided add per kernel tap
        for j in range(kw):
            dx[:, :, i * dh : i * dh + sh * (ho - 1) + 1 : sh, j * dw : j * dw + sw * (wo - 1) + 1 : sw] += cols[
                :, :, i, j
            ]
    return wrap(np.ascontiguousarray(dx[:, :, pt : pt + h, pl : pl + wd]), m.dtype)


@kernel("_conv2d_backward_weight")
def conv2d_backward_weight(m, g, x, weight_size, stride, padding, dilation, groups):
    ga = _wide(arr(g))
    n, o, ho, wo = ga.shape
    _, cg, kh, kw = weight_size
    a = _wide(arr(x))
    direct = groups == 1 and ga.dtype == native.F32 and tuple(stride) == (1, 1)
    threads = _compiled(_macs(ga.shape, weight_size), a) if direct else 0
    if threads and native.conv2d_weight_fits(weight_size, threads):
        gw = np.empty(weight_size, np.float32)
        gd = dense(ga)
        native.conv2d_weight(gw, gd, a, (padding[0], padding[2]), dilation, threads)
        if gd is not ga:
            ALLOCATOR.release(gd)
        return wrap(gw, m.dtype)
    if groups == 1 and _fused(a) and ga.dtype == native.F32:
        geo = _unfold((kh, kw), (ho, wo), stride, padding, dilation)
        gw = _conv2d_weight_fused(ga.reshape(n, o, ho * wo), a, cg * kh * kw, geo)
        return wrap(np.ascontiguousarray(gw).reshape(weight_size), m.dtype)
    cols = _cols(a, kh, kw, ho, wo, stride, padding, dilation)
    if groups == 1:
        g3 = dense(ga)
        gw = blas.matmul(g3.reshape(n, o, -1), cols.transpose(0, 2, 1)).sum(0)
        if g3 is not ga:
            ALLOCATOR.release(g3)
    else:
        g4 = ga.reshape(n, groups, o // groups, ho * wo)
        c4 = cols.reshape(n, groups, cg * kh * kw, ho * wo)
        gw = np.empty((groups, o // groups, cg * kh * kw), ga.dtype)
        for k in range(groups):
            gw[k] = blas.tensordot(g4[:, k], c4[:, k], axes=([0, 2], [0, 2]))
    ALLOCATOR.release(cols)
    return wrap(gw.reshape(weight_size), m.dtype)


# --- pooling -----------------------------------------------------------------------------
def _pool_windows(a, ks, stride, padding, dilation, out_hw, fill):
    """Padded (with `fill`, extra on the far side for ceil_mode) windows (N, C, ho, wo, kh, kw)."""
    n, c, h, w = a.shape
    ho, wo = out_hw
    need_h = (ho - 1) * stride[0] + dilation[0] * (ks[0] - 1) + 1
    need_w = (wo - 1) * stride[1] + dilation[1] * (ks[1] - 1) + 1
    ph, pw = padding
    extra_h = max(0, need_h - (h + 2 * ph))
    extra_w = max(0, need_w - (w + 2 * pw))
    if ph or pw or extra_h or extra_w:
        a = np.pad(a, ((0, 0), (0, 0), (ph, ph + extra_h), (pw, pw + extra_w)), constant_values=fill)
    sn, sc, sh, sw = a.strides
    return as_strided(
        a,
        (n, c, ho, wo, ks[0], ks[1]),
        (sn, sc, sh * stride[0], sw * stride[1], sh * dilation[0], sw * dilation[1]),
        writeable=False,
    )


def _lowest(dt):
    return -np.inf if dt.kind in "fV" else np.iinfo(dt).min  # V: ml_dtypes bfloat16


@kernel("_max_pool2d_with_indices")
def max_pool2d(m, x, ks, stride, padding, dilation, ceil_mode):
    a = arr(x)
    mv, mi = m
    n, c, ho, wo = mv.shape
    h, w = a.shape[2:]
    if native.usable(a) and a.ndim == 4:
        vals, idx = ALLOCATOR.empty((n * c, ho, wo), np.float32), ALLOCATOR.empty((n * c, ho, wo), np.int64)
        planes = a.reshape(n * c, h, w)
        row_blocks(
            lambda lo, hi: native.max_pool2d(vals[lo:hi], idx[lo:hi], planes[lo:hi], ks, stride, padding, dilation),
            n * c,
            h * w,
            native.BLOCK,
        )
        return wrap(vals.reshape(mv.shape), mv.dtype), wrap(idx.reshape(mi.shape), mi.dtype)
    win = _pool_windows(a, ks, stride, padding, dilation, (ho, wo), _lowest(a.dtype))
    # one pass per kernel tap over strided views (no window copy, no argmax over tiny rows): the first
    # maximum wins, a NaN always does (as PyTorch); taps only grow, so the tap index is a running max
    taps = ks[0] * ks[1]
    kt = np.int8 if taps < 128 else np.int32
    vals = np.array(win[..., 0, 0])
    k = np.zeros(vals.shape, kt)
    with quiet():
        for tap in range(1, taps):
            v = win[..., tap // ks[1], tap % ks[1]]
            upd = np.greater(v, vals)
            upd |= np.isnan(v)
            np.maximum(vals, v, out=vals)
            np.maximum(k, np.multiply(upd, tap, dtype=kt), out=k)
    ki, kj = np.divmod(k.astype(np.int64), ks[1])
    hh = np.arange(ho).reshape(ho, 1) * stride[0] - padding[0] + ki * dilation[0]
    ww = np.arange(wo).reshape(1, wo) * stride[1] - padding[1] + kj * dilation[1]
    idx = (hh * w + ww).astype(np.int64)
    return wrap(np.ascontiguousarray(vals), mv.dtype), wrap(idx, mi.dtype)


@kernel("_max_pool2d_backward")
def max_pool2d_backward(m, g, x, kernel_size, stride, padding, dilation, ceil_mode, indices):
    n, c, h, w = m.shape
    ga, ia = arr(g), arr(indices)
    if TO_NP[m.dtype] == native.F32 and native.LIB is not None and ia.dtype == np.int64 and ia.flags.c_contiguous:
        ga = np.ascontiguousarray(ga, np.float32)  # a loss's gradient is often a broadcast view
        ho, wo = ga.shape[-2:]
        out = ALLOCATOR.empty((n * c, h, w), np.float32)
        g3, i3 = ga.reshape(n * c, ho, wo), ia.reshape(n * c, ho, wo)
        row_blocks(
            lambda lo, hi: native.max_pool2d_backward(out[lo:hi], g3[lo:hi], i3[lo:hi]), n * c, h * w, native.BLOCK
        )
        return wrap(out.reshape(m.shape), m.dtype)
    plane = (np.arange(n * c, dtype=np.int64) * (h * w)).reshape(n, c, 1, 1)
    flat = (arr(indices) + plane).ravel()
    out = np.bincount(flat, weights=ga.ravel().astype(np.float64), minlength=n * c * h * w)
    return wrap(out.reshape(m.shape).astype(TO_NP[m.dtype]), m.dtype)


def _avg_divisor(h, w, ho, wo, ks, stride, padding, count_include_pad, divisor_override):
    if divisor_override is not None:
        return float(divisor_override)

    def counts(n, o, k, s, p):
        start = np.arange(o) * s - p
        end = np.minimum(start + k, n + p)
        full = end - start
        start = np.maximum(start, 0)
        end = np.minimum(end, n)
        return full if count_include_pad else end - start

    return np.outer(counts(h, ho, ks[0], stride[0], padding[0]), counts(w, wo, ks[1], stride[1], padding[1]))


@kernel("_avg_pool2d")
def avg_pool2d(m, x, ks, stride, padding, ceil_mode, count_include_pad, divisor_override):
    a = arr(x)
    n, c, ho, wo = m.shape
    acc = _acc_dtype(a)
    win = _pool_windows(a, ks, stride, padding, (1, 1), (ho, wo), 0)
    s = win.sum((-2, -1), dtype=acc)
    div = _avg_divisor(a.shape[2], a.shape[3], ho, wo, ks, stride, padding, count_include_pad, divisor_override)
    return wrap((s / div).astype(TO_NP[m.dtype]), m.dtype)


@kernel("_avg_pool2d_backward")
def avg_pool2d_backward(m, g, x, ks, stride, padding, ceil_mode, count_include_pad, divisor_override):
    ga = arr(g)
    n, c, h, w = m.shape
    ho, wo = ga.shape[2:]
    div = _avg_divisor(h, w, ho, wo, ks, stride, padding, count_include_pad, divisor_override)
    gd = ga / div
    ph, pw = padding
    hp = max(h + 2 * ph, (ho - 1) * stride[0] + ks[0])
    wp = max(w + 2 * pw, (wo - 1) * stride[1] + ks[1])
    dx = np.zeros((n, c, hp, wp), gd.dtype)
    for i in range(ks[0]):
        for j in range(ks[1]):
            dx[:, :, i : i + stride[0] * (ho - 1) + 1 : stride[0], j : j + stride[1] * (wo - 1) + 1 : stride[1]] += gd
    return wrap(np.ascontiguousarray(dx[:, :, ph : ph + h, pw : pw + w]).astype(TO_NP[m.dtype]), m.dtype)
