"""Neural-network kernels: linear, embedding and its backward, ops-nn's NCHW convolution and pooling, layer /
batch / group norm, and the negative log-likelihood loss (with their backward passes)."""

from mindtorch.plugins import OPS, dtypes as D, kernel_table

from .. import chips
from ..aclnn import BoolArray, IntArray, launch, scalar_for
from ..copy import empty
from ..state import RUNTIME
from ._common import (
    cast,
    check_index,
    contiguous,
    conv_cube_math_type,
    cube_math_type,
    dense,
    fill,
    is_contiguous,
    mT,
    numel,
    view,
)

KERNELS, kernel = kernel_table()


@kernel("linear")
def linear(m, x, w, b=None):
    """x @ w.T (+ b): aclnnMatmul on the transposed view of w, then aclnnInplaceAdd of the bias."""
    chips.check_chip_dtype(m.dtype, "aclnnMatmul")
    wt = view(w, tuple(reversed(w._shape)), tuple(reversed(w._stride)))
    out = empty(m.shape, m.dtype, x.device)
    launch("Matmul", x, wt, out, cube_math_type(m.dtype))
    if b is not None:
        launch("InplaceAdd", out, b, scalar_for(1, m.dtype))
    return out


def _as_rows(t):
    """t.reshape(-1, t.shape[-1]): t itself when 2-D, else a view of t (or of a dense copy of it)."""
    if len(t._shape) == 2:
        return t
    n = t._shape[-1]
    t = dense(t)
    return view(t, (numel(t) // n, n), (n, 1))


@kernel("linear_backward")
def linear_backward(m, x, g, w, mask):
    """linear's three gradients in one kernel, launch for launch what the op's decomposition runs (grad @ w and
    grad^T @ input over the leading dims by this module's linear, the bias by the sum kernel) without its
    dispatches and views. Mixed dtypes and empty tensors take the decomposition."""
    if not (x.dtype is g.dtype is w.dtype) or not (numel(x) and numel(g) and numel(w)):
        return OPS["linear_backward"].composite(x, g, w, mask)
    g2 = _as_rows(g)
    gi = linear(m[0], g, mT(w)) if mask[0] else None
    gw = linear(m[1], mT(g2), mT(_as_rows(x))) if mask[1] else None
    gb = OPS["sum"].kernels["npu"](m[2], g2, 0) if mask[2] else None
    return gi, gw, gb


@kernel("embedding")
def embedding(m, w, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    check_index(indices, w._shape[0], 0, "embedding", deferred=True)
    out = empty(m.shape, m.dtype, w.device)
    launch("Embedding", w, indices, out)
    return out


@kernel("_embedding_backward")
def embedding_backward(m, g, indices, num_weights, padding_idx, scale_grad_by_freq):
    chips.check_dtype("EmbeddingDenseBackward", g.dtype, "embedding backward")
    out = empty(m.shape, m.dtype, g.device)
    pad = padding_idx if padding_idx is not None and padding_idx >= 0 else -1
    launch(
        "EmbeddingDenseBackward",
        dense(g),
        dense(indices),
        int(num_weights),
        pad & 0xFFFFFFFFFFFFFFFF,
        bool(scale_grad_by_freq),
        out,
    )
    return out


# --- convolution -----------------------------------------------------------------------------------------------


def _symmetric(padding):
    """(top, left) when core's (top, bottom, left, right) padding is the same on both sides, else None: the
    operators take one padding per spatial dim."""
    t, b, l, r = padding
    return (t, l) if t == b and l == r else None


def _interior(t, padding, shape):
    """The unpadded window of a padded [N, C, H, W] tensor, as a view."""
    return view(t, shape, t._stride, t._offset + padding[0] * t._stride[2] + padding[2] * t._stride[3])


def _zero_padded(x, padding):
    t, b, l, r = padding
    n, c, h, w = x._shape
    out = empty((n, c, h + t + b, w + l + r), x.dtype, x.device)
    launch("InplaceZero", out)
    launch("InplaceCopy", _interior(out, padding, x._shape), x)
    return out


def _convolution_backward(g, x, w, stride, pad, dilation, groups, grad_input=None, grad_weight=None):
    launch(
        "ConvolutionBackward",
        g,
        x,
        w,
        IntArray((w._shape[0],)),
        IntArray(stride),
        IntArray(pad),
        IntArray(dilation),
        False,
        IntArray((0, 0)),
        int(groups),
        BoolArray((grad_input is not None, grad_weight is not None, False)),
        conv_cube_math_type(),
        grad_input,
        grad_weight,
        None,
    )


@kernel("_conv2d")
def conv2d(m, x, w, b, stride, padding, dilation, groups):
    chips.check_dtype("Convolution", m.dtype, "conv2d")
    pad = _symmetric(padding)
    if pad is None:  # asymmetric ('same' with an even kernel): the zeros are written out
        x, pad = _zero_padded(x, padding), (0, 0)
    out = empty(m.shape, m.dtype, x.device)
    launch(
        "Convolution",
        x,
        w,
        b,
        IntArray(stride),
        IntArray(pad),
        IntArray(dilation),
        False,
        IntArray((0, 0)),
        int(groups),
        out,
        conv_cube_math_type(),
    )
    return out


@kernel("_conv2d_backward_input")
def conv2d_backward_input(m, g, w, input_size, stride, padding, dilation, groups):
    chips.check_dtype("ConvolutionBackward", m.dtype, "conv2d backward")
    pad = _symmetric(padding)
    n, c, h, wd = input_size
    size = tuple(input_size) if pad else (n, c, h + padding[0] + padding[1], wd + padding[2] + padding[3])
    gi = empty(size, m.dtype, g.device)
    # the operator reads the input only for its geometry when just gradInput is asked for
    _convolution_backward(g, empty(size, m.dtype, g.device), w, stride, pad or (0, 0), dilation, groups, grad_input=gi)
    return gi if pad else contiguous(_interior(gi, padding, tuple(input_size)))


@kernel("_conv2d_backward_weight")
def conv2d_backward_weight(m, g, x, weight_size, stride, padding, dilation, groups):
    chips.check_dtype("ConvolutionBackward", m.dtype, "conv2d backward")
    pad = _symmetric(padding)
    if pad is None:
        x, pad = _zero_padded(x, padding), (0, 0)
    gw = empty(m.shape, m.dtype, g.device)
    _convolution_backward(g, x, empty(m.shape, m.dtype, g.device), stride, pad, dilation, groups, grad_weight=gw)
    return gw


# --- pooling ------------------------------------------------------------------------------------------------------


def _window(kernel_size, stride, padding, dilation):
    return IntArray(kernel_size), IntArray(stride), IntArray(padding), IntArray(dilation)


def _max_pool_dilation(dilation, what):
    """910B-class parts pool with dilation 1 only (the ops' docs, Atlas A2 / A3): anything else is a clear error."""
    if chips.family() == "910B" and any(int(d) != 1 for d in dilation):
        raise NotImplementedError(
            f"{what}: aclnnMaxPool2dWithIndices takes only dilation 1 on "
            f"{RUNTIME.soc_name()} (family 910B), got {tuple(dilation)}"
        )


@kernel("_max_pool2d_with_indices")
def max_pool2d_with_indices(m, x, kernel_size, stride, padding, dilation, ceil_mode):
    chips.check_dtype("MaxPool2dWithIndices", x.dtype, "max_pool2d")
    _max_pool_dilation(dilation, "max_pool2d")
    out, idx = empty(m[0].shape, m[0].dtype, x.device), empty(m[1].shape, m[1].dtype, x.device)
    launch("MaxPool2dWithIndices", x, *_window(kernel_size, stride, padding, dilation), bool(ceil_mode), out, idx)
    return out, idx


@kernel("_max_pool2d_backward")
def max_pool2d_backward(m, g, x, kernel_size, stride, padding, dilation, ceil_mode, indices):
    """On 910B-class parts the operator takes float32 gradients and int32 indices only: the others are cast there
    and the gradient back (the int64 indices the forward returns are flat per-plane positions, which int32 holds)."""
    chips.check_op("MaxPool2dWithIndicesBackward", "max_pool2d backward")
    _max_pool_dilation(dilation, "max_pool2d backward")
    cdt = chips.compute_dtype("MaxPool2dWithIndicesBackward", m.dtype, m.dtype)
    g, x = (t if t.dtype is cdt else cast(t, cdt) for t in (g, x))
    if chips.family() == "910B" and indices.dtype is not D.int32:
        indices = cast(indices, D.int32)
    out = empty(m.shape, cdt, g.device)
    launch(
        "MaxPool2dWithIndicesBackward",
        g,
        x,
        indices,
        *_window(kernel_size, stride, padding, dilation),
        bool(ceil_mode),
        out,
    )
    return out if cdt is m.dtype else cast(out, m.dtype)


def _average(dtype, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    """aclnnAvgPool2d's and its backward's window arguments (divisorOverride 0: none)."""
    return (
        IntArray(kernel_size),
        IntArray(stride),
        IntArray(padding),
        bool(ceil_mode),
        bool(count_include_pad),
        int(divisor_override or 0),
        cube_math_type(dtype),
    )


@kernel("_avg_pool2d")
def avg_pool2d(m, x, *window):
    chips.check_dtype("AvgPool2d", m.dtype, "avg_pool2d")
    out = empty(m.shape, m.dtype, x.device)
    launch("AvgPool2d", x, *_average(m.dtype, *window), out)
    return out


@kernel("_avg_pool2d_backward")
def avg_pool2d_backward(m, g, x, *window):
    chips.check_dtype("AvgPool2dBackward", m.dtype, "avg_pool2d backward")
    out = empty(m.shape, m.dtype, g.device)
    launch("AvgPool2dBackward", g, x, *_average(m.dtype, *window), out)
    return out


@kernel("_adaptive_avg_pool2d")
def adaptive_avg_pool2d(m, x, output_size):
    chips.check_dtype("AdaptiveAvgPool2d", m.dtype, "adaptive_avg_pool2d")
    out = empty(m.shape, m.dtype, x.device)
    if numel(out):
        launch("AdaptiveAvgPool2d", x, IntArray(output_size), out)
    return out


@kernel("_adaptive_avg_pool2d_backward")
def adaptive_avg_pool2d_backward(m, g, x):
    chips.check_dtype("AdaptiveAvgPool2dBackward", m.dtype, "adaptive_avg_pool2d backward")
    out = empty(m.shape, m.dtype, g.device)
    if numel(g):
        launch("AdaptiveAvgPool2dBackward", g, x, out)
    else:
        launch("InplaceZero", out)
    return out


# --- normalisation -------------------------------------------------------------------------------------------------


@kernel("native_layer_norm")
def layer_norm(m, x, normalized_shape, w, b, eps):
    chips.check_dtype("LayerNorm", x.dtype, "layer_norm")
    mo, mm, mr = m
    x = dense(x)
    out, mean, rstd = (
        empty(mo.shape, mo.dtype, x.device),
        empty(mm.shape, mm.dtype, x.device),
        empty(mr.shape, mr.dtype, x.device),
    )
    launch("LayerNorm", x, IntArray(normalized_shape), dense(w), dense(b), float(eps), out, mean, rstd)
    return out, mean, rstd


@kernel("native_layer_norm_backward")
def layer_norm_backward(m, g, x, normalized_shape, mean, rstd, w, b):
    chips.check_dtype("LayerNormBackward", x.dtype, "layer_norm backward")
    outs = tuple(empty(mm.shape, mm.dtype, x.device) for mm in m)
    launch(
        "LayerNormBackward",
        dense(g),
        dense(x),
        IntArray(normalized_shape),
        dense(mean),
        dense(rstd),
        dense(w),
        dense(b),
        BoolArray((True, True, True)),
        *outs,
    )
    return outs


@kernel("_batch_norm")
def batch_norm(m, x, w, b, rm, rv, training, momentum, eps):
    chips.check_dtype("BatchNorm", m[0].dtype, "batch_norm")
    out, mean, invstd = (empty(mm.shape, mm.dtype, x.device) for mm in m)
    launch(
        "BatchNorm",
        x,
        w,
        b,
        rm,
        rv,
        bool(training),
        float(momentum),
        float(eps),
        out,
        mean if training else None,
        invstd if training else None,
    )
    if not training:  # the statistics used, as the CPU returns them: the running mean and 1 / sqrt(var + eps)
        launch("InplaceCopy", mean, rm)
        launch("Adds", rv, scalar_for(eps, D.float64), scalar_for(1, D.float64), invstd)
        launch("InplaceRsqrt", invstd)
    return out, mean, invstd


@kernel("_batch_norm_backward")
def batch_norm_backward(m, g, x, w, rm, rv, save_mean, save_invstd, training, eps):
    chips.check_dtype("BatchNormBackward", m[0].dtype, "batch_norm backward")
    if training and (save_mean is None or save_invstd is None):  # core recomputes the batch statistics
        c = x._shape[1]
        sd = D.float32 if x.dtype in (D.float16, D.bfloat16) else x.dtype
        save_mean, save_invstd = empty((c,), sd, x.device), empty((c,), sd, x.device)
        launch(
            "BatchNorm",
            x,
            None,
            None,
            None,
            None,
            True,
            0.0,
            float(eps),
            empty(x._shape, x.dtype, x.device),
            save_mean,
            save_invstd,
        )
    outs = tuple(empty(mm.shape, mm.dtype, x.device) for mm in m)
    launch(
        "BatchNormBackward",
        g,
        x,
        w,
        rm,
        rv,
        save_mean if training else None,
        save_invstd if training else None,
        bool(training),
        float(eps),
        BoolArray((True, True, True)),
        *outs,
    )
    return outs


def _group_shape(x):
    n, c = x._shape[:2]
    return n, c, numel(x) // (n * c) if n * c else 1


@kernel("_group_norm")
def group_norm(m, x, w, b, num_groups, eps):
    chips.check_dtype("GroupNorm", m[0].dtype, "group_norm")
    out = empty(m[0].shape, m[0].dtype, x.device)
    mean, rstd = empty(m[1].shape, m[1].dtype, x.device), empty(m[2].shape, m[2].dtype, x.device)
    launch("GroupNorm", x, w, b, *_group_shape(x), int(num_groups), float(eps), out, mean, rstd)
    return out, mean, rstd


@kernel("_group_norm_backward")
def group_norm_backward(m, g, x, w, mean, rstd, num_groups):
    chips.check_dtype("GroupNormBackward", m[0].dtype, "group_norm backward")
    if mean.dtype is not x.dtype:
        mean, rstd = cast(mean, x.dtype), cast(rstd, x.dtype)
    outs = tuple(empty(mm.shape, mm.dtype, x.device) for mm in m)
    launch(
        "GroupNormBackward",
        g,
        x,
        mean,
        rstd,
        w,
        *_group_shape(x),
        int(num_groups),
        BoolArray((True, True, True)),
        *outs,
    )
    return outs


# --- negative log-likelihood loss ----------------------------------------------------------------------------------


def _rows(x, target):
    """aclnnNLLLoss takes [N, C] (or [C]): an [N, C, d...] input becomes [N*d..., C] (one copy)."""
    if len(x._shape) <= 2:
        return x, target
    c = x._shape[1]
    perm = (0,) + tuple(range(2, len(x._shape))) + (1,)
    moved = contiguous(view(x, [x._shape[i] for i in perm], [x._stride[i] for i in perm]))
    rows = numel(moved) // c
    t = target if is_contiguous(target) else contiguous(target)
    return view(moved, (rows, c), (c, 1)), view(t, (rows,), (1,))


def _weight(weight, x):
    if weight is not None:
        return weight
    return fill(empty((x._shape[1] if len(x._shape) > 1 else x._shape[0],), x.dtype, x.device), 1)


@kernel("_nll_loss")
def nll_loss(m, x, target, weight, reduction, ignore_index):
    chips.check_dtype("NLLLoss", x.dtype, "nll_loss")
    w = _weight(weight, x)
    xr, tr = _rows(x, target)
    out, total = empty(m[0].shape, m[0].dtype, x.device), empty(m[1].shape, m[1].dtype, x.device)
    o = out if reduction or len(x._shape) <= 2 else view(out, (numel(out),), (1,))
    launch("NLLLoss", xr, tr, w, int(reduction), int(ignore_index), o, total)
    return out, total


@kernel("_nll_loss_backward")
def nll_loss_backward(m, g, x, target, weight, reduction, ignore_index, total_weight):
    chips.check_dtype("NLLLossBackward", x.dtype, "nll_loss backward")
    w = _weight(weight, x)
    xr, tr = _rows(x, target)
    gr = g if reduction or len(x._shape) <= 2 else view(contiguous(g), (numel(g),), (1,))
    if len(x._shape) <= 2:
        out = empty(m.shape, m.dtype, x.device)
        launch("NLLLossBackward", gr, xr, tr, w, int(reduction), int(ignore_index), total_weight, out)
        return out
    rows = empty(xr._shape, m.dtype, x.device)
    launch("NLLLossBackward", gr, xr, tr, w, int(reduction), int(ignore_index), total_weight, rows)
    # [N*d..., C] back to [N, C, d...]: a permuted view of the rows, copied into a contiguous out
    shp = m.shape
    moved_shape = (shp[0],) + tuple(shp[2:]) + (shp[1],)
    st, acc = [0] * len(moved_shape), 1
    for i in range(len(moved_shape) - 1, -1, -1):
        st[i], acc = acc, acc * moved_shape[i]
    inv = [0, len(shp) - 1] + list(range(1, len(shp) - 1))
    return contiguous(view(rows, [moved_shape[i] for i in inv], [st[i] for i in inv]))


# --- fused transformer operators: RmsNorm, SwiGlu, RotaryPositionEmbedding ---------------------------------------
# Each runs its ACLNN operator where the chip has it for the dtype and the arguments fit the operator's doc, and
# the op's composite (the same math through the other kernels) otherwise.


def _fused(op, dtype):
    return chips.supports(op, dtype)


def _dense_as(t, shape):
    """A dense tensor's elements in row-major order under another shape of the same size (a view)."""
    stride, acc = [], 1
    for s in reversed(shape):
        stride.append(acc)
        acc *= s
    return view(t, tuple(shape), tuple(reversed(stride)))


def _ones(shape, dtype, device):
    return fill(empty(tuple(shape), dtype, device), 1)


def _tail_too_short(t):
    """Atlas inference parts (RmsNorm, RmsNormGrad): the tail axis must hold at least 32 bytes."""
    return chips.family() == "310P" and t._shape[-1] * t.dtype.itemsize < 32


@kernel("_rms_norm")
def rms_norm(m, x, normalized_shape, w, eps):
    """aclnnRmsNorm: gamma is the weight (ones without one); its rstdOut is FLOAT with x's dims, the normalized
    ones 1, which is the op's second output for float32 and half inputs alike. The composite takes an empty
    normalized shape (gamma may not be empty) and what the chip lacks."""
    if not _fused("RmsNorm", x.dtype) or not numel(x) or _tail_too_short(x):
        return OPS["_rms_norm"].composite(x, normalized_shape, w, eps)
    mo, mr = m
    gamma = dense(w) if w is not None else _ones(normalized_shape, x.dtype, x.device)
    out, rstd = empty(mo.shape, mo.dtype, x.device), empty(mr.shape, mr.dtype, x.device)
    launch("RmsNorm", dense(x), gamma, float(eps), out, rstd)
    return out, rstd


@kernel("_rms_norm_backward")
def rms_norm_backward(m, g, x, normalized_shape, rstd, w):
    """aclnnRmsNormGrad: rstd goes in as x's leading dims (the doc's rstd_shape = x_shape[0:n]) and dgammaOut is
    FLOAT, cast to the gradient's dtype. The composite takes a 1-d x (the doc wants 2 to 8 dims), a gradient of
    another dtype than x and what the chip lacks."""
    k = len(normalized_shape)
    n = x.ndim - k
    if (
        not _fused("RmsNormGrad", x.dtype)
        or n < 1
        or g.dtype != x.dtype
        or rstd.dtype != D.float32
        or not numel(x)
        or _tail_too_short(x)
    ):
        return OPS["_rms_norm_backward"].composite(g, x, normalized_shape, rstd, w)
    mx, mw = m
    gamma = dense(w) if w is not None else _ones(normalized_shape, x.dtype, x.device)
    dx, dgamma = empty(mx.shape, mx.dtype, x.device), empty(mw.shape, D.float32, x.device)
    launch("RmsNormGrad", dense(g), dense(x), _dense_as(dense(rstd), x._shape[:n]), gamma, dx, dgamma)
    return dx, (dgamma if mw.dtype == D.float32 else cast(dgamma, mw.dtype))


@kernel("_swiglu")
def swiglu(m, x, dim=-1):
    """aclnnSwiGlu (dense x: the doc takes no strided one); the composite takes an empty x and what the chip lacks."""
    if not _fused("SwiGlu", x.dtype) or not numel(x):
        return OPS["_swiglu"].composite(x, dim)
    out = empty(m.shape, m.dtype, x.device)
    launch("SwiGlu", dense(x), int(dim), out)
    return out


@kernel("_swiglu_backward")
def swiglu_backward(m, g, x, dim):
    if not _fused("SwiGluGrad", x.dtype) or not numel(x) or g.dtype != x.dtype:
        return OPS["_swiglu_backward"].composite(g, x, dim)
    out = empty(m.shape, m.dtype, x.device)
    launch("SwiGluGrad", dense(g), dense(x), int(dim), out)
    return out


# the cos / sin layouts aclnnRotaryPositionEmbedding(Grad) take on the Atlas A2 / A3 parts for a 4-d x
# (d0, d1, d2, D): which of x's first three dims the pattern keeps, the dims of B and N in that layout, and
# whether interleave mode takes it (BNSD: 11SD B1SD BNSD; BSND: 1S1D BS1D BSND; SBND: S11D SB1D SBND)
_ROPE_LAYOUTS = (
    ((0, 0, 1), 0, 1, True),
    ((1, 0, 1), 0, 1, False),
    ((1, 1, 1), 0, 1, False),
    ((0, 1, 0), 0, 2, True),
    ((1, 1, 0), 0, 2, False),
    ((1, 1, 1), 0, 2, False),
    ((1, 0, 0), 1, 2, True),
    ((1, 1, 0), 1, 2, False),
    ((1, 1, 1), 1, 2, False),
)
_ROPE_MODES = {"half": 0, "interleave": 1}


def _rope_layout_ok(xs, rs, interleave, grads):
    """Whether (x shape, cos shape) is a layout of the doc whose B and N limits x keeps; `grads`: the backward
    computes dcos / dsin too (half mode then needs B * N <= 1024)."""
    if xs[3] != rs[3] or xs[3] >= 896 or xs[3] % 2:
        return False
    for keep, b, n, il in _ROPE_LAYOUTS:
        if any(rs[i] != (xs[i] if keep[i] else 1) for i in range(3)) or (interleave and not il):
            continue
        B, N = xs[b], xs[n]
        if (B * N < 1000) if interleave else (B < 1000 and N < 1000 and (not grads or B * N <= 1024)):
            return True
    return False


def _rope_operands(x, r1, r2, mode, grads):
    """x, r1, r2 as the operator's 4-d dense operands in x's dtype (a 3-d TND x is T,1,N,D: SBND with B = 1),
    or None where they do not fit the doc (a rank other than 3 or 4, r1 and r2 of different shapes, a layout
    the doc does not list)."""
    if x.ndim not in (3, 4) or not numel(x):
        return None
    r1, r2 = (r if r.dtype == x.dtype else cast(r, x.dtype) for r in (r1, r2))
    rs = (1,) * (x.ndim - r1.ndim) + tuple(r1._shape)
    if (1,) * (x.ndim - r2.ndim) + tuple(r2._shape) != rs:
        return None
    xs = tuple(x._shape)
    if x.ndim == 3:
        xs, rs = (xs[0], 1) + xs[1:], (rs[0], 1) + rs[1:]
    if not _rope_layout_ok(xs, rs, mode == "interleave", grads):
        return None
    return _dense_as(dense(x), xs), _dense_as(dense(r1), rs), _dense_as(dense(r2), rs)


@kernel("_rotary_mul")
def rotary_mul(m, x, r1, r2, rotary_mode="half"):
    """aclnnRotaryPositionEmbedding (mode 0 half, 1 interleave); the composite takes what _rope_operands turns
    down and the chips without the operator (the doc lists the Atlas A2 and A3 parts)."""
    ops = _rope_operands(x, r1, r2, rotary_mode, False) if _fused("RotaryPositionEmbedding", x.dtype) else None
    if ops is None:
        return OPS["_rotary_mul"].composite(x, r1, r2, rotary_mode)
    out = empty(m.shape, m.dtype, x.device)
    launch("RotaryPositionEmbedding", *ops, _ROPE_MODES[rotary_mode], _dense_as(out, ops[0]._shape))
    return out


@kernel("_rotary_mul_backward")
def rotary_mul_backward(m, g, x, r1, r2, rotary_mode):
    """aclnnRotaryPositionEmbeddingGrad with xOptional = x, so it computes dcos and dsin too."""
    ops = None
    if _fused("RotaryPositionEmbeddingGrad", x.dtype) and g.dtype == x.dtype:
        ops = _rope_operands(x, r1, r2, rotary_mode, True)
    if ops is None:
        return OPS["_rotary_mul_backward"].composite(g, x, r1, r2, rotary_mode)
    x4, c4, s4 = ops
    dx, dr1, dr2 = (empty(mm.shape, mm.dtype, x.device) for mm in m)
    launch(
        "RotaryPositionEmbeddingGrad",
        _dense_as(dense(g), x4._shape),
        c4,
        s4,
        x4,
        _ROPE_MODES[rotary_mode],
        _dense_as(dx, x4._shape),
        _dense_as(dr1, c4._shape),
        _dense_as(dr2, c4._shape),
    )
    return dx, dr1, dr2
