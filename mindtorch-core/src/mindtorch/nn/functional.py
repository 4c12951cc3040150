"""mindtorch.nn.functional: PyTorch's functional API over mindtorch ops (device-agnostic).

Each function is a composition of table ops, so autograd and every backend come for free.
"""

import functools
import inspect
import itertools
import math
import warnings

import numpy as np

import mindtorch as torch
from mindtorch._dtype import _cname as _dtype_cname
from mindtorch.overrides import (  # noqa: F401 (re-exported, as PyTorch's functional module does)
    handle_torch_function,
    has_torch_function,
    has_torch_function_unary,
    has_torch_function_variadic,
)

_ops = torch.ops
Tensor = torch.Tensor


# --- shared argument and reduction helpers -------------------------------------------------------------------
def _pair(v, n=2, name="argument"):
    if isinstance(v, (list, tuple)):
        if len(v) == 1:
            return tuple(int(v[0]) for _ in range(n))
        if len(v) != n:
            raise RuntimeError(f"expected {name} to be a single integer value or a list of {n} values")
        return tuple(int(x) for x in v)
    return (int(v),) * n


def _tuple(v, n):
    return tuple(int(x) for x in v) if isinstance(v, (list, tuple)) else (int(v),) * n


def _reduction_enum(size_average, reduce, reduction):
    if size_average is not None or reduce is not None:
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        reduction = "none" if not reduce else ("mean" if size_average else "sum")
        warnings.warn(
            f"size_average and reduce args will be deprecated, please use reduction='{reduction}' instead.",
            stacklevel=2,
        )
    if reduction == "none":
        return 0
    if reduction == "mean":
        return 1
    if reduction == "sum":
        return 2
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _reduce(loss, reduction):
    if reduction == 0:
        return loss
    return loss.mean() if reduction == 1 else loss.sum()


def _reduced(loss, size_average, reduce, reduction):
    return _reduce(loss, _reduction_enum(size_average, reduce, reduction))


def _check_tensor(name, x, what="input"):
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument '{what}' (position 1) must be Tensor, not {type(x).__name__}")


def _check_same_size(input, target, name):
    if tuple(target.shape) != tuple(input.shape):
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
            "This will likely lead to incorrect results due to broadcasting. Please ensure they have the "
            "same size.",
            stacklevel=2,
        )


def _weighted(loss, weight):
    return loss if weight is None else loss * weight


def _shape_tuple(s):
    return (int(s),) if not isinstance(s, (list, tuple)) else tuple(int(v) for v in s)


# --- convolution ---------------------------------------------------------------------------------------------
def _conv_padding(padding, ks, stride, dilation, n):
    """Padding as (before, after) per spatial dim."""
    if isinstance(padding, str):
        if padding == "valid":
            return ((0, 0),) * n
        if padding == "same":
            if any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
            out = []
            for k, d in zip(ks, dilation):
                total = d * (k - 1)
                out.append((total // 2, total - total // 2))  # the extra one goes after, as PyTorch
            return tuple(out)
        raise ValueError(f"Invalid padding string '{padding}', should be one of {{'valid', 'same'}}")
    p = _pair(padding, n, "padding")
    return tuple((x, x) for x in p)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    _check_tensor("conv1d", input)
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"Expected 2D (unbatched) or 3D (batched) input to conv1d, but got input of size: {list(input.shape)}"
        )
    if weight.ndim != 3:
        raise RuntimeError(f"Expected 3-dimensional weight for conv1d, but got weight of size {list(weight.shape)}")
    stride, dilation = _pair(stride, 1, "stride"), _pair(dilation, 1, "dilation")
    pads = _conv_padding(padding, weight.shape[2:], stride, dilation, 1)
    unbatched = input.ndim == 2
    x = input.unsqueeze(0) if unbatched else input
    # a 1-d conv is a 2-d conv over a height-1 image
    out = _ops._conv2d(
        x.unsqueeze(2), weight.unsqueeze(2), bias, (1,) + stride, (0, 0) + pads[0], (1,) + dilation, int(groups)
    ).squeeze(2)
    return out.squeeze(0) if unbatched else out


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    _check_tensor("conv2d", input)
    if input.ndim not in (3, 4):
        raise RuntimeError(
            f"Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: {list(input.shape)}"
        )
    stride, dilation = _pair(stride, 2, "stride"), _pair(dilation, 2, "dilation")
    pads = _conv_padding(padding, weight.shape[2:], stride, dilation, 2)
    unbatched = input.ndim == 3
    x = input.unsqueeze(0) if unbatched else input
    out = _ops._conv2d(x, weight, bias, stride, pads[0] + pads[1], dilation, int(groups))
    return out.squeeze(0) if unbatched else out


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """A sum over kernel depth of 2-d convolutions, with the output depth folded into the batch."""
    if input.dim() not in (4, 5):
        raise RuntimeError(
            f"Expected 4D (unbatched) or 5D (batched) input to conv3d, but got input of size: {list(input.shape)}"
        )
    if weight.dim() != 5:
        raise RuntimeError(f"Expected 5-dimensional weight for conv3d, but got weight of size {list(weight.shape)}")
    unbatched = input.dim() == 4
    x = input.unsqueeze(0) if unbatched else input
    stride, dilation = _tuple(stride, 3), _tuple(dilation, 3)
    pads = _conv_padding(padding, weight.shape[2:], stride, dilation, 3)
    x = torch.pad(x, (0, 0, 0, 0) + pads[0])
    n, c, depth = x.shape[:3]
    kd = weight.shape[2]
    od = (depth - dilation[0] * (kd - 1) - 1) // stride[0] + 1
    if od <= 0:
        raise RuntimeError(
            f"Calculated padded input size per channel: ({depth}). Kernel size: ({kd}). Kernel size "
            "can't be greater than actual input size"
        )
    hw_pad = padding if isinstance(padding, str) else (pads[1][0], pads[2][0])
    out = None
    for i in range(kd):
        xs = x.narrow(2, i * dilation[0], (od - 1) * stride[0] + 1)[:, :, :: stride[0]]
        xs = xs.transpose(1, 2).reshape((n * od, c) + tuple(x.shape[3:]))
        y = conv2d(xs, weight[:, :, i], None, stride[1:], hw_pad, dilation[1:], groups)
        out = y if out is None else out + y
    out = out.reshape((n, od) + tuple(out.shape[1:])).transpose(1, 2)
    if bias is not None:
        out = out + bias.reshape(1, -1, 1, 1, 1)
    return out.squeeze(0) if unbatched else out


def _zero_insert(x, dim, s):
    """s - 1 zeros between neighbours along dim."""
    if s == 1:
        return x
    length = x.shape[dim]
    xe = x.unsqueeze(dim + 1)
    zeros = torch.zeros(
        tuple(xe.shape[: dim + 1]) + (s - 1,) + tuple(xe.shape[dim + 2 :]), dtype=x.dtype, device=x.device
    )
    out = torch.cat([xe, zeros], dim + 1).reshape(tuple(x.shape[:dim]) + (length * s,) + tuple(x.shape[dim + 1 :]))
    return out.narrow(dim, 0, (length - 1) * s + 1)


def _pad_or_crop(x, dim, before, after):
    if before < 0:
        x = x.narrow(dim, -before, x.shape[dim] + before)
        before = 0
    if after < 0:
        x = x.narrow(dim, 0, x.shape[dim] + after)
        after = 0
    if before or after:
        pad = [0, 0] * (x.dim() - dim - 1) + [before, after]
        x = torch.pad(x, tuple(pad))
    return x


def _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, n):
    """The adjoint of a convolution: zero-insert by stride, pad by dilation * (k - 1) - padding, then
    convolve with the flipped, transposed kernel."""
    name = f"conv_transpose{n}d"
    if input.dim() not in (n + 1, n + 2):
        raise RuntimeError(
            f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to {name}, but got input of "
            f"size: {list(input.shape)}"
        )
    if weight.dim() != n + 2:
        raise RuntimeError(
            f"Expected {n + 2}-dimensional weight for {name}, but got weight of size {list(weight.shape)}"
        )
    unbatched = input.dim() == n + 1
    x = input.unsqueeze(0) if unbatched else input
    s, p, op, d = (_tuple(v, n) for v in (stride, padding, output_padding, dilation))
    if any(o >= st and o >= dl for o, st, dl in zip(op, s, d)):
        raise RuntimeError(
            f"output padding must be smaller than either stride or dilation, but got output_padding: "
            f"{op}, stride: {s}, dilation: {d}"
        )
    cin = weight.shape[0]
    if x.shape[1] != cin:
        raise RuntimeError(
            f"Given transposed=1, weight of size {list(weight.shape)}, expected input"
            f"{list(x.shape)} to have {cin} channels, but got {x.shape[1]} channels instead"
        )
    k = tuple(weight.shape[2:])
    for i in range(n):
        x = _zero_insert(x, 2 + i, s[i])
        edge = d[i] * (k[i] - 1) - p[i]
        x = _pad_or_crop(x, 2 + i, edge, edge + op[i])
    cout_g = weight.shape[1]
    w = (
        weight.reshape((groups, cin // groups, cout_g) + k)
        .transpose(1, 2)
        .reshape((groups * cout_g, cin // groups) + k)
    )
    w = torch.flip(w, list(range(2, 2 + n)))
    conv = {1: conv1d, 2: conv2d, 3: conv3d}[n]
    out = conv(x, w, bias, 1, 0, d, groups)
    return out.squeeze(0) if unbatched else out


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 1)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 2)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 3)


def conv_tbc(input, weight, bias, pad=0):
    """Time-batch-channel convolution: (T, B, Cin) with a (K, Cin, Cout) kernel."""
    if input.dim() != 3 or weight.dim() != 3:
        raise RuntimeError("conv_tbc: input and weight must be 3-dimensional")
    out = conv1d(input.permute(1, 2, 0), weight.permute(2, 1, 0), bias, padding=pad)
    return out.permute(2, 0, 1)


# --- pooling -------------------------------------------------------------------------------------------------
def _pool_stride(stride, kernel_size, n):
    if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0):
        return kernel_size
    return _pair(stride, n, "stride")


def _batched(name, input, dims):
    if input.ndim not in (dims + 1, dims + 2):
        raise RuntimeError(
            f"{name}: Expected {dims + 1}D or {dims + 2}D (batch mode) tensor for input, but got "
            f"input of size: {list(input.shape)}"
        )
    return input.ndim == dims + 1


def _pool_out(length, k, s, p, d, ceil_mode):
    span = d * (k - 1) + 1
    num = length + 2 * p - span
    o = (-(-num // s) if ceil_mode else num // s) + 1
    if ceil_mode and (o - 1) * s >= length + p:
        o -= 1
    return o


def _windows(x, k, s, p, d, ceil_mode, fill):
    """(N, C, o1, o2, o3, k1, k2, k3) windows of x padded with `fill` (extra on the right for ceil_mode)."""
    outs, pads = [], []
    for i in range(3):
        length = x.shape[2 + i]
        o = _pool_out(length, k[i], s[i], p[i], d[i], ceil_mode)
        if o <= 0:
            raise RuntimeError(f"Given input size: {tuple(x.shape[1:])}. Calculated output size is too small")
        need = (o - 1) * s[i] + d[i] * (k[i] - 1) + 1
        outs.append(o)
        pads.append((p[i], max(need - length - p[i], p[i])))
    flat = []
    for before, after in reversed(pads):
        flat += [before, after]
    xp = torch.pad(x, tuple(flat), value=fill)
    for i in range(3):
        span = d[i] * (k[i] - 1) + 1
        xp = xp.unfold(2 + i, span, s[i]).narrow(2 + i, 0, outs[i])
    return xp[..., :: d[0], :: d[1], :: d[2]], outs


def _pool3d_args(input, name, kernel_size, stride, padding):
    if input.dim() not in (4, 5):
        raise RuntimeError(f"{name}: Expected 4D or 5D tensor for input, but got: {list(input.shape)}")
    k = _tuple(kernel_size, 3)
    s = k if stride is None or (isinstance(stride, (list, tuple)) and not stride) else _tuple(stride, 3)
    p = _tuple(padding, 3)
    if any(pp * 2 > kk for pp, kk in zip(p, k)):
        raise RuntimeError(
            f"pad should be at most half of effective kernel size, but got pad={p[0]}, "
            f"kernel_size={k[0]} and dilation=1"
        )
    return k, s, p


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    ks = _pair(kernel_size, 1, "kernel_size")
    st = _pool_stride(stride, ks, 1)
    unb = _batched("avg_pool1d", input, 1)
    x = (input.unsqueeze(0) if unb else input).unsqueeze(2)
    out = _ops._avg_pool2d(
        x, (1,) + ks, (1,) + st, (0,) + _pair(padding, 1), bool(ceil_mode), bool(count_include_pad), None
    ).squeeze(2)
    return out.squeeze(0) if unb else out


def avg_pool2d(
    input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None
):
    ks = _pair(kernel_size, 2, "kernel_size")
    st = _pool_stride(stride, ks, 2)
    unb = _batched("avg_pool2d", input, 2)
    x = input.unsqueeze(0) if unb else input
    out = _ops._avg_pool2d(x, ks, st, _pair(padding), bool(ceil_mode), bool(count_include_pad), divisor_override)
    return out.squeeze(0) if unb else out


def avg_pool3d(
    input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None
):
    k, s, p = _pool3d_args(input, "avg_pool3d", kernel_size, stride, padding)
    unbatched = input.dim() == 4
    x = input.unsqueeze(0) if unbatched else input
    win, outs = _windows(x, k, s, p, (1, 1, 1), ceil_mode, 0.0)
    total = win.sum((-3, -2, -1))
    if divisor_override:
        out = total / divisor_override
    else:
        # how many cells each window covers: of the padded input, or of the input alone
        ones = torch.ones((1, 1) + tuple(x.shape[2:]), dtype=x.dtype, device=x.device)
        if count_include_pad:
            ones = torch.pad(ones, (p[2], p[2], p[1], p[1], p[0], p[0]), value=1.0)
            cnt, _ = _windows(ones, k, s, (0, 0, 0), (1, 1, 1), ceil_mode, 0.0)
            cnt = cnt.narrow(2, 0, outs[0]).narrow(3, 0, outs[1]).narrow(4, 0, outs[2])
        else:
            cnt, _ = _windows(ones, k, s, p, (1, 1, 1), ceil_mode, 0.0)
        out = total / cnt.sum((-3, -2, -1))
    return out.squeeze(0) if unbatched else out


def _fractional_starts(samples, in_size, out_size, pool):
    """Window starts per plane, computed in float32 as PyTorch's kernel does: (planes, out_size) int64."""
    u = np.asarray(samples, dtype=np.float32)
    starts = np.empty(u.shape + (out_size,), dtype=np.int64)
    if out_size > 1:
        alpha = np.float32(in_size - pool) / np.float32(out_size - 1)
        i = np.arange(out_size - 1, dtype=np.float32)
        starts[..., :-1] = ((i + u[..., None]) * alpha).astype(np.int64) - (u[..., None] * alpha).astype(np.int64)
    starts[..., -1] = in_size - pool
    return starts


def _fractional_max_pool(input, kernel_size, output_size, output_ratio, return_indices, samples, nd):
    name = f"fractional_max_pool{nd}d"
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(f"{name}(): Expected {nd + 1}D or {nd + 2}D tensor, but got: {list(input.shape)}")
    k = _tuple(kernel_size, nd)
    spatial = tuple(input.shape[-nd:])
    if output_size is None:
        if output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
        ratio = output_ratio if isinstance(output_ratio, (list, tuple)) else (output_ratio,) * nd
        output_size = [int(s * r) for s, r in zip(spatial, ratio)]
    out = _tuple(output_size, nd)
    for s, o, kk in zip(spatial, out, k):
        if o + kk - 1 > s:
            raise RuntimeError(f"{name}(): pool size {kk} too large relative to input size {s} and output size {o}")
    unbatched = input.dim() == nd + 1
    x = input.unsqueeze(0) if unbatched else input
    n, c = x.shape[:2]
    if samples is None:
        samples = torch.rand((n, c, nd), dtype=x.dtype, device=x.device)
    u = samples.detach().float().cpu().numpy().reshape(n * c, nd)
    # PyTorch's sample order: 2-d (w, h); 3-d (t, h, w)
    order = (1, 0) if nd == 2 else tuple(range(nd))
    starts = [_fractional_starts(u[:, order[d]], spatial[d], out[d], k[d]) for d in range(nd)]
    # flat input index of every (output cell, window offset), per plane
    idx = np.zeros((n * c,) + out + k, dtype=np.int64)
    for d in range(nd):
        pos = starts[d].reshape((n * c,) + (1,) * d + (out[d],) + (1,) * (nd - d - 1) + (1,) * nd) + np.arange(
            k[d]
        ).reshape((1,) + (1,) * nd + (1,) * d + (k[d],) + (1,) * (nd - d - 1))
        idx = idx * spatial[d] + pos
    idx_t = torch.tensor(idx.reshape(n, c, -1), dtype=torch.int64, device=x.device)
    plane = x.reshape(n, c, -1)
    win = plane.gather(2, idx_t).reshape((n, c) + out + (-1,))
    v, arg = win.max(-1)
    flat_idx = idx_t.reshape((n, c) + out + (-1,)).gather(-1, arg.unsqueeze(-1)).squeeze(-1)
    if unbatched:
        v, flat_idx = v.squeeze(0), flat_idx.squeeze(0)
    return (v, flat_idx) if return_indices else v


def fractional_max_pool2d_with_indices(
    input, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None
):
    return fractional_max_pool2d(input, kernel_size, output_size, output_ratio, True, _random_samples)


def fractional_max_pool2d(
    input, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None
):
    return _fractional_max_pool(input, kernel_size, output_size, output_ratio, return_indices, _random_samples, 2)


def fractional_max_pool3d_with_indices(
    input, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None
):
    return fractional_max_pool3d(input, kernel_size, output_size, output_ratio, True, _random_samples)


def fractional_max_pool3d(
    input, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None
):
    return _fractional_max_pool(input, kernel_size, output_size, output_ratio, return_indices, _random_samples, 3)


def max_pool1d_with_indices(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    ks = _pair(kernel_size, 1, "kernel_size")
    st = _pool_stride(stride, ks, 1)
    unb = _batched("max_pool1d", input, 1)
    x = (input.unsqueeze(0) if unb else input).unsqueeze(2)
    out, idx = _ops._max_pool2d_with_indices(
        x, (1,) + ks, (1,) + st, (0,) + _pair(padding, 1), (1,) + _pair(dilation, 1), bool(ceil_mode)
    )
    out, idx = out.squeeze(2), idx.squeeze(2)
    if unb:
        out, idx = out.squeeze(0), idx.squeeze(0)
    return (out, idx) if return_indices else out


def max_pool2d_with_indices(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    ks = _pair(kernel_size, 2, "kernel_size")
    st = _pool_stride(stride, ks, 2)
    unb = _batched("max_pool2d", input, 2)
    x = input.unsqueeze(0) if unb else input
    out, idx = _ops._max_pool2d_with_indices(x, ks, st, _pair(padding), _pair(dilation), bool(ceil_mode))
    if unb:
        out, idx = out.squeeze(0), idx.squeeze(0)
    return (out, idx) if return_indices else out


def max_pool3d_with_indices(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    k, s, p = _pool3d_args(input, "max_pool3d", kernel_size, stride, padding)
    d = _tuple(dilation, 3)
    unbatched = input.dim() == 4
    x = input.unsqueeze(0) if unbatched else input
    win, outs = _windows(x, k, s, p, d, ceil_mode, float("-inf"))
    n, c = x.shape[:2]
    v, arg = win.reshape(n, c, *outs, -1).max(-1)
    # window position (i, j, l) -> input position o * stride - pad + offset * dilation
    i, j, l = arg // (k[1] * k[2]), (arg // k[2]) % k[1], arg % k[2]
    grid = [torch.arange(o, device=x.device) * s[a] - p[a] for a, o in enumerate(outs)]
    zd = grid[0].reshape(-1, 1, 1) + i * d[0]
    zh = grid[1].reshape(1, -1, 1) + j * d[1]
    zw = grid[2].reshape(1, 1, -1) + l * d[2]
    idx = (zd * x.shape[3] + zh) * x.shape[4] + zw
    if unbatched:
        v, idx = v.squeeze(0), idx.squeeze(0)
    return v, idx


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    out = max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return out if return_indices else out[0]


def _max_unpool(input, indices, kernel_size, stride, padding, output_size, n):
    k = _tuple(kernel_size, n)
    s = _tuple(stride if stride is not None else kernel_size, n)
    p = _tuple(padding, n)
    spatial = tuple(input.shape[-n:])
    default = tuple((spatial[i] - 1) * s[i] - 2 * p[i] + k[i] for i in range(n))
    if output_size is None:
        out_size = default
    else:
        out_size = tuple(int(v) for v in output_size)[-n:]
        for i in range(n):
            lo, hi = default[i] - s[i], default[i] + s[i]
            if not lo < out_size[i] < hi:
                raise ValueError(f"invalid output_size {list(output_size)} (dim {i} must be between {lo} and {hi})")
    lead = tuple(input.shape[:-n])
    flat_in = input.reshape(lead + (-1,))
    size = 1
    for v in out_size:
        size *= v
    out = torch.zeros(lead + (size,), dtype=input.dtype, device=input.device)
    out = out.scatter(-1, indices.reshape(lead + (-1,)), flat_in)
    return out.reshape(lead + out_size)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 2)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 3)


def _lp_finish(out, norm_type, window):
    return (torch.sign(out) * torch.relu(torch.abs(out))).mul(window).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    out = avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    k = kernel_size[0] if isinstance(kernel_size, (list, tuple)) else kernel_size
    return _lp_finish(out, norm_type, k)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    kh, kw = _pair(kernel_size)
    out = avg_pool2d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return _lp_finish(out, norm_type, kh * kw)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    kd, kh, kw = _tuple(kernel_size, 3)
    out = avg_pool3d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return _lp_finish(out, norm_type, kd * kh * kw)


def _adaptive_windows(n_in, n_out):
    return [((i * n_in) // n_out, -((-(i + 1) * n_in) // n_out)) for i in range(n_out)]


def _adaptive(input, output_size, nd, name, mode):
    """Adaptive pooling as one reduction per output cell (mode "max" also returns flat indices)."""
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(f"{name}(): Expected {nd + 1}D or {nd + 2}D tensor, but got: {list(input.shape)}")
    spatial = tuple(input.shape[-nd:])
    sizes = output_size if isinstance(output_size, (list, tuple)) else (output_size,) * nd
    out = tuple(s if o is None else int(o) for s, o in zip(spatial, sizes))
    lead = tuple(input.shape[:-nd])
    vals, idxs = [], []
    grids = [_adaptive_windows(s, o) for s, o in zip(spatial, out)]
    for cell in itertools.product(*grids):
        win = input
        for d, (a, b) in enumerate(cell):
            win = win.narrow(input.dim() - nd + d, a, b - a)
        flat = win.reshape(lead + (-1,))
        if mode == "avg":
            vals.append(flat.mean(-1))
            continue
        v, arg = flat.max(-1)
        # local window position -> flat position in the input plane
        idx, rem = 0, arg
        widths = [b - a for a, b in cell]
        for d in range(nd):
            inner = 1
            for w in widths[d + 1 :]:
                inner *= w
            pos = rem // inner + cell[d][0]
            rem = rem % inner
            idx = idx * spatial[d] + pos
        vals.append(v)
        idxs.append(idx)
    value = torch.stack(vals, -1).reshape(lead + out)
    if mode == "avg":
        return value
    return value, torch.stack(idxs, -1).reshape(lead + out)


def _adaptive_max(input, output_size, nd, name):
    return _adaptive(input, output_size, nd, name, "max")


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    return _adaptive_max(input, output_size, 1, "adaptive_max_pool1d")


def adaptive_max_pool1d(input, output_size, return_indices=False):
    out = adaptive_max_pool1d_with_indices(input, output_size)
    return out if return_indices else out[0]


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    return _adaptive_max(input, output_size, 2, "adaptive_max_pool2d")


def adaptive_max_pool2d(input, output_size, return_indices=False):
    out = adaptive_max_pool2d_with_indices(input, output_size)
    return out if return_indices else out[0]


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    return _adaptive_max(input, output_size, 3, "adaptive_max_pool3d")


def adaptive_max_pool3d(input, output_size, return_indices=False):
    out = adaptive_max_pool3d_with_indices(input, output_size)
    return out if return_indices else out[0]


def adaptive_avg_pool1d(input, output_size):
    if isinstance(output_size, (list, tuple)):
        output_size = output_size[0]
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, output_size)).squeeze(-2)


def adaptive_avg_pool2d(input, output_size):
    unb = _batched("adaptive_avg_pool2d", input, 2)
    x = input.unsqueeze(0) if unb else input
    if not isinstance(output_size, (list, tuple)):
        output_size = (output_size, output_size)
    size = tuple(x.shape[2 + i] if s is None else int(s) for i, s in enumerate(output_size))
    # a single output cell is the mean over the plane, as in PyTorch (integers get mean's refusal)
    out = x.mean((-2, -1), keepdim=True) if size == (1, 1) else _ops._adaptive_avg_pool2d(x, size)
    return out.squeeze(0) if unb else out


def adaptive_avg_pool3d(input, output_size):
    return _adaptive(input, output_size, 3, "adaptive_avg_pool3d", "avg")


# --- dropout -------------------------------------------------------------------------------------------------
def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout(input, p=0.5, training=True, inplace=False):
    _check_p(p)
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return input.mul_(0) if inplace else input * 0
    # mask already scaled by 1/(1-p), in the input dtype (as PyTorch's CPU kernel)
    mask = torch.empty_like(input).bernoulli_(1 - p).div_(1 - p)
    return input.mul_(mask) if inplace else input * mask


def _alpha_dropout(input, p, training, inplace, feature):
    _check_p(p)
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return input.mul_(0) if inplace else input * 0
    shape = tuple(input.shape[:2]) + (1,) * (input.dim() - 2) if feature else tuple(input.shape)
    keep = torch.empty(shape, dtype=input.dtype, device=input.device).bernoulli_(1 - p)
    # SELU's negative saturation value; a and b keep mean 0 and variance 1
    alpha = 1.7580993408473766
    a = 1.0 / math.sqrt((alpha * alpha * p + 1) * (1 - p))
    b = (keep - 1) * (alpha * a) + alpha * a * p
    keep = keep * a
    return input.mul_(keep).add_(b) if inplace else input * keep + b


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    return _alpha_dropout(input, p, training, inplace, False)


def _feature_dropout(input, p, training, inplace, nd):
    _check_p(p)
    if not training or p == 0.0:
        return input
    batched = input.ndim == nd + 2
    shape = tuple(input.shape[: 2 if batched else 1]) + (1,) * nd
    if p == 1.0:
        mask = torch.zeros(shape, dtype=input.dtype, device=input.device)
    else:
        mask = torch.empty(shape, dtype=input.dtype, device=input.device).bernoulli_(1 - p).div_(1 - p)
    return input.mul_(mask) if inplace else input * mask


def dropout1d(input, p=0.5, training=True, inplace=False):
    return _feature_dropout(input, p, training, inplace, 1)


def dropout2d(input, p=0.5, training=True, inplace=False):
    return _feature_dropout(input, p, training, inplace, 2)


def dropout3d(input, p=0.5, training=True, inplace=False):
    return _feature_dropout(input, p, training, inplace, 3)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    return _alpha_dropout(input, p, training, inplace, True)


# --- activations (the pointwise ops live at the top level) ---------------------------------------------------
def threshold(input, threshold, value, inplace=False):
    # x <= threshold -> value; NaN stays NaN (as PyTorch's kernel)
    mask = input <= threshold
    if inplace:
        return input.masked_fill_(mask, value)
    return input.masked_fill(mask, value)


def threshold_(input, threshold, value):
    return input.masked_fill_(input <= threshold, value)


def relu(input, inplace=False):
    return torch.relu_(input) if inplace else torch.relu(input)


def relu_(input):
    return torch.relu_(input)


def glu(input, dim=-1):
    a, b = input.chunk(2, dim)
    return a * torch.sigmoid(b)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    return torch.hardtanh_(input, min_val, max_val) if inplace else torch.hardtanh(input, min_val, max_val)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return torch.hardtanh_(input, min_val, max_val)


def relu6(input, inplace=False):
    return hardtanh(input, 0.0, 6.0, inplace)


def elu(input, alpha=1.0, inplace=False):
    return torch.elu_(input, alpha) if inplace else torch.elu(input, alpha)


def elu_(input, alpha=1.0):
    return torch.elu_(input, alpha)


def selu(input, inplace=False):
    if inplace:
        return selu_(input)
    alpha, scale = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
    return scale * torch.elu(input, alpha)


def selu_(input):
    return torch.elu_(input, 1.6732632423543772848170429916717).mul_(1.0507009873554804934193349852946)


def celu(input, alpha=1.0, inplace=False):
    if inplace:
        return celu_(input, alpha)
    return torch.elu(input / alpha, 1.0) * alpha if alpha != 1.0 else torch.elu(input, 1.0)


def celu_(input, alpha=1.0):
    # celu(x) = alpha * elu(x / alpha); each in-place step records its own derivative
    return torch.elu_(input.div_(alpha), 1.0).mul_(alpha)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    return torch.leaky_relu_(input, negative_slope) if inplace else torch.leaky_relu(input, negative_slope)


def leaky_relu_(input, negative_slope=0.01):
    return torch.leaky_relu_(input, negative_slope)


def prelu(input, weight):
    if weight.numel() != 1:
        if input.dim() == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input.size(1) if input.dim() >= 2 else 1
        if channels != weight.numel():
            raise RuntimeError(
                "Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                f"{weight.numel()} and channel size = {channels}."
            )
        if input.dim() >= 2:
            weight = weight.reshape((-1,) + (1,) * (input.dim() - 2))
    return torch.where(input > 0, input, weight * input)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    if not training:
        return leaky_relu(input, (lower + upper) / 2, inplace)
    # a random slope per negative element, drawn uniformly from [lower, upper]
    slope = torch.empty_like(input).uniform_(lower, upper)
    noise = torch.where(input >= 0, torch.ones_like(input), slope)
    return input.mul_(noise) if inplace else input * noise


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    return rrelu(input, lower, upper, training, True)


def logsigmoid(input):
    return -softplus(-input)


def gelu(input, approximate="none"):
    return torch.gelu(input, approximate=approximate)


def hardshrink(input, lambd=0.5):
    return torch.hardshrink(input, lambd)


def tanhshrink(input):
    return input - torch.tanh(input)


def softsign(input):
    return input / (input.abs() + 1)


def softplus(input, beta=1.0, threshold=20.0):
    return torch.softplus(input, beta, threshold)


def _softmax_dim(ndim):
    warnings.warn(
        "Implicit dimension choice for softmax has been deprecated. Change the call to include dim=X as an argument.",
        stacklevel=2,
    )
    return 0 if ndim in (0, 1, 3) else 1


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim(input.ndim)
    return torch.softmax(-input, dim, dtype=dtype)


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim(input.ndim)
    return torch.softmax(input, dim, dtype=dtype)


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    gumbels = -torch.empty_like(logits).exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    # straight-through: one-hot forward, soft gradient
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = torch.zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim(input.ndim)
    return torch.log_softmax(input, dim, dtype=dtype)


def softshrink(input, lambd=0.5):
    if lambd < 0:
        raise RuntimeError(f"lambda must be greater or equal to 0, but found to be {lambd}.")
    out = torch.where(input > lambd, input - lambd, torch.where(input < -lambd, input + lambd, input * 0))
    return out


def tanh(input):
    return torch.tanh(input)


def sigmoid(input):
    return torch.sigmoid(input)


def hardsigmoid(input, inplace=False):
    if inplace:
        return input.div_(6).add_(0.5).clamp_(0.0, 1.0)
    return torch.clamp(input / 6 + 0.5, 0.0, 1.0)


def silu(input, inplace=False):
    return torch.silu_(input) if inplace else torch.silu(input)


def mish(input, inplace=False):
    return torch.mish_(input) if inplace else torch.mish(input)


def hardswish(input, inplace=False):
    return input * hardsigmoid(input)


# --- linear and bilinear -------------------------------------------------------------------------------------
def linear(input, weight, bias=None):
    return _ops.linear(input, weight, bias)


def bilinear(input1, input2, weight, bias=None):
    out = torch.einsum("...i,oij,...j->...o", input1, weight, input2)
    return out if bias is None else out + bias


# --- embedding -----------------------------------------------------------------------------------------------
def _padding_index(padding_idx, num_embeddings):
    """padding_idx checked against the table size, negative values counted from the end."""
    if (padding_idx > 0 and padding_idx >= num_embeddings) or padding_idx < -num_embeddings:
        raise AssertionError("Padding_idx must be within num_embeddings")
    return padding_idx + num_embeddings if padding_idx < 0 else padding_idx


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False, sparse=False):
    padding_idx = -1 if padding_idx is None else _padding_index(padding_idx, weight.shape[0])
    if max_norm is not None:
        with torch.no_grad():
            _ops._embedding_renorm_(weight, input.contiguous(), float(max_norm), float(norm_type))
    return _ops.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


def embedding_bag(  # noqa: C901
    input,
    weight,
    offsets=None,
    max_norm=None,
    norm_type=2,
    scale_grad_by_freq=False,
    mode="mean",
    sparse=False,
    per_sample_weights=None,
    include_last_offset=False,
    padding_idx=None,
):
    """Sums, means or maxima of bags of embeddings, bags given as rows (2-d input) or by offsets."""
    if mode not in ("sum", "mean", "max"):
        raise ValueError(f"mode has to be one of sum, mean or max, but got {mode}")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
            f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
            "GitHub."
        )
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError(
                "if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                "fixed length sequences. However, found offsets of type " + type(offsets).__name__
            )
        b, per = input.shape
        starts = [i * per for i in range(b)]
        ends = starts[1:] + [b * per]
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        starts = [int(v) for v in offsets.tolist()]
        if starts and starts[0] != 0:
            raise RuntimeError(
                "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                f"position 0. However, got {starts[0]}"
            )
        if include_last_offset:
            ends, starts = starts[1:], starts[:-1]
        else:
            ends = starts[1:] + [input.shape[0]]
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if padding_idx is not None:
        padding_idx = _padding_index(padding_idx, weight.shape[0])
    emb = embedding(input, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse)
    keep = None
    if padding_idx is not None:
        keep = input != padding_idx
        emb = emb * keep.unsqueeze(1).to(emb.dtype)
    if per_sample_weights is not None:
        emb = emb * per_sample_weights.unsqueeze(1)
    bags, dim = len(starts), weight.shape[1]
    if bags == 0:
        return torch.zeros((0, dim), dtype=weight.dtype, device=weight.device)
    if mode == "max":
        rows = []
        for a, e in zip(starts, ends):
            bag = emb[a:e] if keep is None else emb[a:e][keep[a:e]]
            rows.append(bag.amax(0) if bag.shape[0] else torch.zeros((dim,), dtype=emb.dtype, device=emb.device))
        return torch.stack(rows, 0)
    # sum and mean: one index_add over the bag id of every looked-up row
    sizes = [max(e - a, 0) for a, e in zip(starts, ends)]
    bag_id = torch.repeat_interleave(
        torch.arange(bags, device=emb.device), torch.tensor(sizes, dtype=torch.int64, device=emb.device)
    )
    used = emb[starts[0] : starts[0] + sum(sizes)]
    total = torch.zeros((bags, dim), dtype=emb.dtype, device=emb.device).index_add(0, bag_id, used)
    if mode == "sum":
        return total
    ones = torch.ones((used.shape[0],), dtype=emb.dtype, device=emb.device)
    if keep is not None:
        ones = ones * keep[starts[0] : starts[0] + sum(sizes)].to(emb.dtype)
    count = torch.zeros((bags,), dtype=emb.dtype, device=emb.device).index_add(0, bag_id, ones)
    return total / count.clamp(min=1).unsqueeze(1)


def one_hot(tensor, num_classes=-1):
    return torch.one_hot(tensor, num_classes)


# --- normalization -------------------------------------------------------------------------------------------
def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    if training:
        size = input.shape
        n = 1
        for i, s in enumerate(size):
            if i != 1:
                n *= s
        if input.ndim >= 2 and n == 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")
    return _ops._batch_norm(
        input,
        weight,
        bias,
        running_mean,
        running_var,
        bool(training),
        0.0 if momentum is None else float(momentum),
        float(eps),
    )[0]


def instance_norm(
    input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True, momentum=0.1, eps=1e-5
):
    if use_input_stats:
        n = 1
        for s in input.shape[2:]:
            n *= s
        if n == 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input size {input.shape}")
    if running_mean is None and running_var is None:
        out = group_norm(input, input.shape[1], None, None, eps)
    else:
        # batch norm over (1, N*C, ...): each instance its own channel; running stats averaged over N
        b, c = input.shape[:2]
        rm = running_mean.repeat(b) if running_mean is not None else None
        rv = running_var.repeat(b) if running_var is not None else None
        out = batch_norm(
            input.reshape((1, b * c) + tuple(input.shape[2:])), rm, rv, None, None, use_input_stats, momentum, eps
        ).reshape(input.shape)
        if use_input_stats:
            with torch.no_grad():
                if running_mean is not None:
                    running_mean.copy_(rm.reshape(b, c).mean(0))
                if running_var is not None:
                    running_var.copy_(rv.reshape(b, c).mean(0))
    shape = (1, -1) + (1,) * (input.ndim - 2)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    if normalized_shape.__class__ is not tuple:  # a tuple goes as it is: the op's parsing checks it
        normalized_shape = _shape_tuple(normalized_shape)
    return _ops.native_layer_norm(input, normalized_shape, weight, bias, eps)[0]


def rms_norm(input, normalized_shape, weight=None, eps=None):
    if eps is None:
        eps = (
            torch.finfo(input.dtype).eps
            if hasattr(torch, "finfo")
            else {"float64": 2.220446049250313e-16, "float16": 0.0009765625, "bfloat16": 0.0078125}.get(
                input.dtype.name, 1.1920928955078125e-07
            )
        )
    return _ops._rms_norm(input, _shape_tuple(normalized_shape), weight, float(eps))[0]


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.ndim}")
    return _ops._group_norm(input, weight, bias, int(num_groups), float(eps))[0]


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    c = input.size(1)
    sq = input * input
    # the mean of squares over a window of `size` channels, zero beyond the edges
    pad = (0, 0) * (dim - 2) + (size // 2, (size - 1) // 2)
    sq = torch.pad(sq, pad)
    div = sum(sq.narrow(1, i, c) for i in range(size)) / size
    return input / div.mul(alpha).add(k).pow(beta)


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    if out is not None:
        return torch.div(input, denom, out=out)
    return input / denom


# --- losses --------------------------------------------------------------------------------------------------
def _logaddexp3(a, b, c):
    """log(exp(a) + exp(b) + exp(c)) that stays finite, with zero gradient, where all three are -inf."""
    m = torch.maximum(torch.maximum(a, b), c)
    alive = m > float("-inf")
    m = torch.where(alive, m, torch.zeros_like(m))
    s = torch.exp(a - m) + torch.exp(b - m) + torch.exp(c - m)
    s = torch.where(alive, s, torch.ones_like(s))
    return torch.where(alive, m + torch.log(s), torch.full_like(s, float("-inf")))


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    """Connectionist temporal classification: the forward (alpha) recursion in log space, batched over N."""
    unbatched = log_probs.dim() == 2
    if log_probs.dim() not in (2, 3):
        raise RuntimeError(f"ctc_loss: expected log_probs to be 2-D or 3-D, got {log_probs.dim()}-D")
    lp = log_probs.unsqueeze(1) if unbatched else log_probs
    steps, n, classes = lp.shape
    as_list = lambda v: [
        int(x)
        for x in (
            v.reshape(-1).tolist() if isinstance(v, torch.Tensor) else (v if isinstance(v, (list, tuple)) else [v])
        )
    ]
    in_lens, tg_lens = as_list(input_lengths), as_list(target_lengths)
    if len(in_lens) != n or len(tg_lens) != n:
        raise RuntimeError(
            f"input_lengths and target_lengths must have size {n}, got {len(in_lens)} and {len(tg_lens)}"
        )
    if any(t > steps for t in in_lens):
        raise RuntimeError(f"Expected input_lengths to have value at most {steps}, but got value {max(in_lens)}")
    if unbatched:
        targets = targets.reshape(1, -1)
    if targets.dim() == 2:
        labels = [targets[i, : tg_lens[i]].tolist() for i in range(n)]
    else:
        flat, labels, off = targets.tolist(), [], 0
        for t in tg_lens:
            labels.append(flat[off : off + t])
            off += t
    width = 2 * max(tg_lens + [0]) + 1
    ext = [[blank] * width for _ in range(n)]
    skip = [[False] * width for _ in range(n)]
    for i, lab in enumerate(labels):
        for j, c in enumerate(lab):
            ext[i][2 * j + 1] = int(c)
            # a label may be reached from two back when it differs from the label before it
            skip[i][2 * j + 1] = j > 0 and int(c) != int(lab[j - 1])
    ext_t = torch.tensor(ext, dtype=torch.int64, device=lp.device)
    skip_t = torch.tensor(skip, dtype=torch.bool, device=lp.device)
    valid = torch.arange(width, device=lp.device).unsqueeze(0) < torch.tensor(
        [2 * t + 1 for t in tg_lens], device=lp.device
    ).unsqueeze(1)
    neg = torch.full((n, width), float("-inf"), dtype=lp.dtype, device=lp.device)
    emit = lp.gather(2, ext_t.unsqueeze(0).expand(steps, n, width))  # (T, N, S)
    start = torch.arange(width, device=lp.device).unsqueeze(0) < 2
    alpha = torch.where(start & valid, emit[0], neg)
    pad1 = torch.full((n, 1), float("-inf"), dtype=lp.dtype, device=lp.device)
    pad2 = torch.full((n, 2), float("-inf"), dtype=lp.dtype, device=lp.device)
    for t in range(1, steps):
        prev1 = torch.cat([pad1, alpha[:, :-1]], 1)
        prev2 = torch.where(skip_t, torch.cat([pad2, alpha[:, :-2]], 1), neg)
        new = torch.where(valid, _logaddexp3(alpha, prev1, prev2) + emit[t], neg)
        running = torch.tensor([t < T for T in in_lens], device=lp.device).unsqueeze(1)
        alpha = torch.where(running, new, alpha)
    last = torch.tensor([2 * t for t in tg_lens], device=lp.device).unsqueeze(1)
    end_blank = alpha.gather(1, last).squeeze(1)
    end_label = alpha.gather(1, (last - 1).clamp(min=0)).squeeze(1)
    has_label = torch.tensor([t > 0 for t in tg_lens], device=lp.device)
    end_label = torch.where(has_label, end_label, torch.full_like(end_label, float("-inf")))
    loss = -_logaddexp3(end_blank, end_label, torch.full_like(end_label, float("-inf")))
    if zero_infinity:
        loss = torch.where(torch.isinf(loss), torch.zeros_like(loss), loss)
    if reduction == "mean":
        denom = torch.tensor([max(t, 1) for t in tg_lens], dtype=loss.dtype, device=loss.device)
        return (loss / denom).mean()
    if reduction == "sum":
        return loss.sum()
    if reduction != "none":
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return loss.squeeze(0) if unbatched else loss


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    red = _reduction_enum(size_average, reduce, reduction)
    return _ops._nll_loss(input, target, weight, red, int(ignore_index))[0]


def poisson_nll_loss(
    input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None, reduction="mean"
):
    red = _reduction_enum(size_average, reduce, reduction)
    loss = torch.exp(input) - target * input if log_input else input - target * torch.log(input + eps)
    if full:
        st = target * torch.log(target) - target + 0.5 * torch.log(2 * math.pi * target)
        loss = loss + torch.where(target > 1, st, 0)
    return _reduce(loss, red)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    if isinstance(var, (int, float)):
        var = torch.full_like(input, float(var))
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif not (tuple(input.shape[:-1]) == tuple(var.shape[:-1]) and var.size(-1) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    if bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    # clamped for stability; the gradient passes as if unclamped (PyTorch clamps a clone under no_grad)
    var = var + (var.clamp(min=eps) - var).detach()
    loss = 0.5 * (torch.log(var) + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    if reduction == "mean":
        return loss.mean()
    return loss.sum() if reduction == "sum" else loss


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    if reduction == "batchmean":
        red = 3
    else:
        red = _reduction_enum(size_average, reduce, reduction)
        if red == 1:
            warnings.warn(
                "reduction: 'mean' divides the total loss by both the batch size and the support size."
                "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                stacklevel=2,
            )
    if log_target:
        loss = torch.exp(target) * (target - input)
    else:
        pos = target > 0
        loss = torch.where(pos, target * torch.log(torch.where(pos, target, 1)), 0) - target * input
    if red == 3:
        return loss.sum() / input.shape[0] if input.ndim else loss.sum()
    return _reduce(loss, red)


def cross_entropy(
    input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean", label_smoothing=0.0
):
    red = _reduction_enum(size_average, reduce, reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    if input.ndim == 2 and label_smoothing <= 0 and not target.dtype.is_floating_point:
        # one fused op: log_softmax + nll forward, a single pass over the logits backward
        return _ops._cross_entropy(input, target, weight, red, int(ignore_index))[0]
    cdim = 1 if input.ndim >= 2 else 0
    logp = torch.log_softmax(input, cdim)
    c = input.shape[cdim]
    wshape = (1,) * cdim + (c,) + (1,) * (input.ndim - cdim - 1)
    if target.dtype.is_floating_point:  # class probabilities
        if tuple(target.shape) != tuple(input.shape):
            raise RuntimeError(f"Expected target size {list(input.shape)}, got {list(target.shape)}")
        if label_smoothing > 0:
            target = target * (1 - label_smoothing) + label_smoothing / c
        prod = logp * target
        if weight is not None:
            prod = prod * weight.reshape(wshape)
        loss = -prod.sum(cdim)
        if red == 1:
            n = input.numel() // c if input.numel() else 0
            return loss.sum() / n
        return _reduce(loss, red)
    nll = _ops._nll_loss(logp, target, weight, red, int(ignore_index))[0]
    if label_smoothing <= 0:
        return nll
    # smoothing term: -sum_c w_c * logp_c, zero where the target is ignored
    valid = target != ignore_index
    lw = logp * weight.reshape(wshape) if weight is not None else logp
    smooth = -lw.sum(cdim) * valid
    if red == 0:
        s = smooth
    elif red == 2:
        s = smooth.sum()
    elif weight is not None:
        s = smooth.sum() / (weight[torch.where(valid, target, 0)] * valid).sum()
    else:
        s = smooth.sum() / valid.sum()
    return nll * (1 - label_smoothing) + s * (label_smoothing / c)


def linear_cross_entropy(
    input,
    linear_weight,
    target,
    *,
    linear_bias=None,
    weight=None,
    reduction="mean",
    ignore_index=None,
    label_smoothing=0.0,
    options=None,
):
    """cross_entropy(linear(input)); options select PyTorch's chunked path, which this reference path ignores."""
    # (..., in) x (C, *out, in) -> (..., C, *out)
    logits = linear(input, linear_weight.reshape(-1, linear_weight.shape[-1]))
    logits = logits.reshape(tuple(input.shape[:-1]) + tuple(linear_weight.shape[:-1]))
    if linear_bias is not None:
        logits = logits + linear_bias
    return cross_entropy(
        logits,
        target,
        weight=weight,
        reduction=reduction,
        ignore_index=-100 if ignore_index is None else ignore_index,
        label_smoothing=label_smoothing,
    )


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    red = _reduction_enum(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}) is deprecated. Please ensure they have the same size."
        )
    with torch.no_grad():
        if bool(((input < 0) | (input > 1)).any()):
            raise RuntimeError("all elements of input should be between 0 and 1")
    # log clamped at -100 (PyTorch's convention) keeps 0*log(0) finite
    loss = -(
        target * torch.clamp(torch.log(input), min=-100) + (1 - target) * torch.clamp(torch.log(1 - input), min=-100)
    )
    return _reduce(_weighted(loss, weight), red)


def binary_cross_entropy_with_logits(
    input, target, weight=None, size_average=None, reduce=None, reduction="mean", pos_weight=None
):
    red = _reduction_enum(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    # -log(sigmoid(x)): log1p(exp(-x)) for x > 0, log1p(exp(x)) - x otherwise; each branch sees its clamped
    # side only, so neither overflows, and the gradient at 0 is sigmoid(0) - 1 (not the 0 that relu and
    # abs would give there)
    pos, neg = input.clamp(min=0), input.clamp(max=0)
    neg_logsig = torch.where(input > 0, torch.log1p(torch.exp(-pos)), torch.log1p(torch.exp(neg)) - neg)
    if pos_weight is not None:
        loss = (1 - target) * input + (1 + (pos_weight - 1) * target) * neg_logsig
    else:
        loss = (1 - target) * input + neg_logsig
    return _reduce(_weighted(loss, weight), red)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    red = _reduction_enum(size_average, reduce, reduction)
    _check_same_size(input, target, "smooth_l1_loss")
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    d = (input - target).abs()
    if beta == 0:
        return _reduce(d, red)
    loss = torch.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta)
    return _reduce(loss, red)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    red = _reduction_enum(None, None, reduction)
    _check_same_size(input, target, "huber_loss")
    d = (input - target).abs()
    loss = torch.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta))
    return _reduce(_weighted(loss, weight), red)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    red = _reduction_enum(size_average, reduce, reduction)
    _check_same_size(input, target, "l1_loss")
    return _reduce(_weighted((input - target).abs(), weight), red)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    red = _reduction_enum(size_average, reduce, reduction)
    _check_same_size(input, target, "mse_loss")
    d = input - target
    return _reduce(_weighted(d * d, weight), red)


def margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    red = _reduction_enum(size_average, reduce, reduction)
    return _reduce(torch.clamp(-target * (input1 - input2) + margin, min=0), red)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    zeros = torch.zeros_like(input)
    loss = torch.where(target != 1, (margin - input).clamp_min(0), zeros) + torch.where(target != -1, input, zeros)
    return _reduced(loss, size_average, reduce, reduction)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    x = input.unsqueeze(0) if input.dim() <= 1 else input
    t = target.unsqueeze(0) if target.dim() <= 1 else target
    if tuple(x.shape) != tuple(t.shape):
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}")
    c = x.size(1)
    # targets are the entries before the first -1
    valid = (t >= 0).to(torch.int64).cumprod(1)
    idx = t.clamp(min=0) * valid
    is_target = torch.zeros_like(t).scatter_add(1, idx, valid) > 0
    x_t = x.gather(1, idx)
    terms = (1 - x_t.unsqueeze(2) + x.unsqueeze(1)).clamp_min(0)
    keep = valid.to(x.dtype).unsqueeze(2) * (~is_target).to(x.dtype).unsqueeze(1)
    loss = (terms * keep).sum((1, 2)) / c
    if input.dim() <= 1:
        loss = loss.reshape(())
    return _reduced(loss, size_average, reduce, reduction)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    loss = torch.log1p(torch.exp(-target * input))
    return _reduced(loss, size_average, reduce, reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    red = _reduction_enum(size_average, reduce, reduction)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(class_dim) / input.size(class_dim)
    return _reduce(loss, red)


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    if input1.dim() != input2.dim() or input1.dim() not in (1, 2):
        raise RuntimeError(
            f"cosine_embedding_loss : 1D target tensor expects 2D input tensors, but found inputs "
            f"with sizes {list(input1.shape)} and {list(input2.shape)}."
        )
    d = input1.dim() - 1
    eps = 1e-12
    prod = (input1 * input2).sum(d)
    mag1 = (input1 * input1).sum(d) + eps
    mag2 = (input2 * input2).sum(d) + eps
    cos = prod / (mag1 * mag2).sqrt()
    zeros = torch.zeros_like(cos)
    loss = torch.where(target == 1, 1 - cos, zeros) + torch.where(target == -1, (cos - margin).clamp_min(0), zeros)
    return _reduced(loss, size_average, reduce, reduction)


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction="mean"):
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError(f"weight must be one-dimensional, got {weight.dim()}D")
    x = input.unsqueeze(0) if input.dim() <= 1 else input
    if x.dim() != 2:
        raise RuntimeError(
            f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: {list(input.shape)}"
        )
    t = target.reshape(-1)
    c = x.size(1)
    x_y = x.gather(1, t.unsqueeze(1))
    z = (margin - x_y + x).clamp_min(0)
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * weight.index_select(0, t).unsqueeze(1)
    z = z.masked_fill(torch.arange(c, device=x.device).unsqueeze(0) == t.unsqueeze(1), 0)
    loss = z.sum(1) / c
    if input.dim() <= 1:
        loss = loss.reshape(target.shape)
    return _reduced(loss, size_average, reduce, reduction)


def triplet_margin_loss(
    anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None, reduce=None, reduction="mean"
):
    dims = (anchor.dim(), positive.dim(), negative.dim())
    if len(set(dims)) != 1:
        raise RuntimeError(
            f"The anchor, positive, and negative tensors are expected to have the same number of "
            f"dimensions, but got: anchor {dims[0]}D, positive {dims[1]}D, and negative {dims[2]}D "
            "inputs"
        )
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = torch.minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    loss = (margin + d_pos - d_neg).clamp_min(0)
    return _reduced(loss, size_average, reduce, reduction)


def triplet_margin_with_distance_loss(
    anchor, positive, negative, *, distance_function=None, margin=1.0, swap=False, reduction="mean"
):
    if margin <= 0:
        raise ValueError(
            f"triplet_margin_with_distance_loss: expected margin to be greater than 0, got {margin} instead"
        )
    dist = distance_function if distance_function is not None else pairwise_distance
    d_pos, d_neg = dist(anchor, positive), dist(anchor, negative)
    if swap:
        d_neg = torch.minimum(d_neg, dist(positive, negative))
    loss = (margin + d_pos - d_neg).clamp_min(0)
    return _reduced(loss, None, None, reduction)


# --- distance ------------------------------------------------------------------------------------------------
def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    return (x1 - x2 + eps).norm(p, -1, keepdim=keepdim)


def pdist(input, p=2):
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    n = input.size(0)
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    rows = torch.tensor([a for a, _ in pairs], dtype=torch.int64, device=input.device)
    cols = torch.tensor([b for _, b in pairs], dtype=torch.int64, device=input.device)
    diff = input.index_select(0, rows) - input.index_select(0, cols)
    return torch.linalg_vector_norm(diff, p, -1)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    n1 = torch.linalg_vector_norm(x1, 2, dim, keepdim=True).clamp_min(eps)
    n2 = torch.linalg_vector_norm(x2, 2, dim, keepdim=True).clamp_min(eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


# --- vision: rearrangements, resampling, padding, spatial transformers ---------------------------------------
def pixel_shuffle(input, upscale_factor):
    r = int(upscale_factor)
    if input.dim() < 3:
        raise RuntimeError(
            f"pixel_shuffle expects input to have at least 3 dimensions, but got input with {input.dim()} dimension(s)"
        )
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    *lead, c, h, w = input.shape
    if c % (r * r):
        raise RuntimeError(
            "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
            f"upscale_factor, but input.size(-3)={c} is not divisible by {r * r}"
        )
    n = len(lead)
    x = input.reshape(*lead, c // (r * r), r, r, h, w)
    x = x.permute(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return x.reshape(*lead, c // (r * r), h * r, w * r)


def pixel_unshuffle(input, downscale_factor):
    r = int(downscale_factor)
    if input.dim() < 3:
        raise RuntimeError(
            f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
            f"{input.dim()} dimension(s)"
        )
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    *lead, c, h, w = input.shape
    if h % r:
        raise RuntimeError(
            f"pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)="
            f"{h} is not divisible by {r}"
        )
    if w % r:
        raise RuntimeError(
            f"pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)="
            f"{w} is not divisible by {r}"
        )
    n = len(lead)
    x = input.reshape(*lead, c, h // r, r, w // r, r)
    x = x.permute(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return x.reshape(*lead, c * r * r, h // r, w // r)


def channel_shuffle(input, groups):
    if input.dim() <= 2:
        raise RuntimeError(
            f"channel_shuffle expects input to have at least 3 dimensions, but got input with "
            f"{input.dim()} dimension(s)"
        )
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    n, c = input.shape[:2]
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    rest = tuple(input.shape[2:])
    return input.reshape(n, groups, c // groups, *rest).transpose(1, 2).reshape(n, c, *rest)


native_channel_shuffle = channel_shuffle


def interpolate(
    input,
    size=None,
    scale_factor=None,
    mode="nearest",
    align_corners=None,
    recompute_scale_factor=None,
    antialias=False,
):
    if mode in ("nearest", "area", "nearest-exact") and align_corners is not None:
        raise ValueError(
            "align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | trilinear"
        )
    nd = input.ndim - 2
    if nd not in (1, 2):
        raise NotImplementedError(
            f"Input Error: Only 3D and 4D input Tensors supported (got {input.ndim}D) for "
            f"the modes: nearest | linear | bilinear (got {mode})"
        )
    if mode not in ("nearest", "linear", "bilinear"):
        raise NotImplementedError(f"interpolate mode '{mode}' is not supported")
    if (mode == "linear" and nd != 1) or (mode == "bilinear" and nd != 2):
        raise NotImplementedError(
            f"Got {input.ndim}D input, but {mode} mode needs {3 if mode == 'linear' else 4}D input"
        )
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    spatial = tuple(input.shape[2:])
    scales = (None,) * nd
    if size is not None:
        out = _pair(size, nd, "size") if isinstance(size, (list, tuple)) else (int(size),) * nd
    elif scale_factor is not None:
        sf = (
            tuple(float(v) for v in scale_factor)
            if isinstance(scale_factor, (list, tuple))
            else (float(scale_factor),) * nd
        )
        if len(sf) != nd:
            raise ValueError(
                f"Input and scale_factor must have the same number of spatial dimensions, but got "
                f"input with spatial dimensions of {list(spatial)} and scale_factor of shape {list(sf)}."
            )
        out = tuple(int(math.floor(n * f)) for n, f in zip(spatial, sf))
        if not recompute_scale_factor:
            scales = sf
    else:
        raise ValueError("either size or scale_factor should be defined")
    ac = bool(align_corners)
    m = "nearest" if mode == "nearest" else "linear"
    if nd == 1:
        return _ops._upsample2d(input.unsqueeze(2), (1, out[0]), m, ac, None, scales[0]).squeeze(2)
    return _ops._upsample2d(input, out, m, ac, scales[0], scales[1])


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def pad(input, pad, mode="constant", value=None):
    return torch.pad(input, pad, mode, value)


def _align_default(align_corners):
    if align_corners is None:
        warnings.warn(
            "Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
            "Please specify align_corners=True if the old behavior is desired. See the documentation of "
            "grid_sample for details.",
            stacklevel=2,
        )
        return False
    return align_corners


def _base_coords(n, align_corners, like):
    v = (
        torch.linspace(-1.0, 1.0, n, dtype=like.dtype, device=like.device)
        if n > 1
        else torch.zeros((1,), dtype=like.dtype, device=like.device)
    )
    return v if align_corners else v * ((n - 1) / n)


def affine_grid(theta, size, align_corners=None):
    align_corners = _align_default(align_corners)
    if not theta.dtype.is_floating_point:
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = list(size)
    if len(size) == 4:
        if theta.dim() != 3 or tuple(theta.shape[-2:]) != (2, 3):
            raise ValueError(
                f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. Got {list(theta.shape)}."
            )
        n, _, h, w = size
        xs, ys = _base_coords(w, align_corners, theta), _base_coords(h, align_corners, theta)
        base = torch.stack(
            [
                xs.reshape(1, w).expand(h, w),
                ys.reshape(h, 1).expand(h, w),
                torch.ones((h, w), dtype=theta.dtype, device=theta.device),
            ],
            -1,
        )
        return base.reshape(1, h * w, 3).matmul(theta.transpose(1, 2)).reshape(n, h, w, 2)
    if len(size) == 5:
        if theta.dim() != 3 or tuple(theta.shape[-2:]) != (3, 4):
            raise ValueError(
                f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. Got {list(theta.shape)}."
            )
        n, _, d, h, w = size
        xs, ys, zs = (_base_coords(s, align_corners, theta) for s in (w, h, d))
        base = torch.stack(
            [
                xs.reshape(1, 1, w).expand(d, h, w),
                ys.reshape(1, h, 1).expand(d, h, w),
                zs.reshape(d, 1, 1).expand(d, h, w),
                torch.ones((d, h, w), dtype=theta.dtype, device=theta.device),
            ],
            -1,
        )
        return base.reshape(1, d * h * w, 4).matmul(theta.transpose(1, 2)).reshape(n, d, h, w, 3)
    raise NotImplementedError(
        f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, respectively. Got size {size}."
    )


def _reflect(x, twice_low, twice_high):
    if twice_low == twice_high:
        return torch.zeros_like(x)
    lo, span = twice_low / 2, (twice_high - twice_low) / 2
    x = (x - lo).abs()
    extra = torch.fmod(x, span)
    flips = torch.floor(x / span)
    return torch.where(torch.fmod(flips, 2) == 0, extra + lo, span - extra + lo)


def _source_coord(g, size, padding_mode, align_corners):
    x = (g + 1) / 2 * (size - 1) if align_corners else ((g + 1) * size - 1) / 2
    if padding_mode == "border":
        x = x.clamp(0, size - 1)
    elif padding_mode == "reflection":
        x = _reflect(x, 0, 2 * (size - 1)) if align_corners else _reflect(x, -1, 2 * size - 1)
        x = x.clamp(0, size - 1)
    return x


def _check_grid(input, grid, mode):
    nd = input.dim() - 2
    if grid.shape[-1] != nd:
        raise RuntimeError(
            f"grid_sampler(): expected grid to have size {nd} in last dimension, but got grid with sizes "
            f"{list(grid.shape)}"
        )
    if grid.dim() != input.dim():
        raise RuntimeError(
            f"grid_sampler(): expected {input.dim()}D input and grid with same number of dimensions, but got "
            f"input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}"
        )
    if grid.shape[0] != input.shape[0]:
        raise RuntimeError(
            f"grid_sampler(): expected grid and input to have same batch size, but got input with sizes "
            f"{list(input.shape)} and grid with sizes {list(grid.shape)}"
        )
    if mode == "bicubic" and nd != 2:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """2-d (4-D input) or 3-d (5-D input) sampling at normalized grid points, by gathering the
    neighbouring pixels or voxels; bilinear is trilinear on 5-D input."""
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(
            f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: '{mode}'"
        )
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(
            "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
            f"'reflection', but got: '{padding_mode}'"
        )
    if input.dim() not in (4, 5):
        raise NotImplementedError("grid_sample is implemented here for 4-D and 5-D input only")
    _check_grid(input, grid, mode)
    if mode == "bicubic":
        raise NotImplementedError("grid_sample(mode='bicubic') is not implemented")
    align_corners = _align_default(align_corners)
    n, c = input.shape[:2]
    sizes = tuple(input.shape[2:])  # (H, W) or (D, H, W); grid coordinate k indexes sizes[-1 - k]
    nd, out_shape = len(sizes), tuple(grid.shape[1:-1])
    m = math.prod(out_shape)
    coords = [_source_coord(grid[..., k], sizes[-1 - k], padding_mode, align_corners) for k in range(nd)]
    flat = input.reshape(n, c, math.prod(sizes))

    def tap(idx):
        """Values at integer coordinates idx (x, y[, z]), zero outside the input: (N, C, *out)."""
        inside, lin, step = None, 0, 1
        for k, i in enumerate(idx):
            size = sizes[-1 - k]
            ok = (i >= 0) & (i <= size - 1)
            inside = ok if inside is None else inside & ok
            lin = lin + i.clamp(0, size - 1) * step
            step *= size
        gather_at = lin.to(torch.int64).reshape(n, 1, m).expand(n, c, m)
        vals = flat.gather(2, gather_at).reshape(n, c, *out_shape)
        return vals * inside.unsqueeze(1).to(input.dtype)

    if mode == "nearest":
        out = tap([torch.round(x) for x in coords])
        if grid.requires_grad and torch.is_grad_enabled():
            # the grid's gradient is zero, as in PyTorch, not absent: subtract a +0.0 that depends on it
            # (subtracting keeps every value's sign, -0.0 included)
            out = out - torch.where(torch.zeros_like(grid, dtype=torch.bool), grid, 0.0).sum()
        return out
    lows = [torch.floor(x) for x in coords]
    fracs = [(x - lo).unsqueeze(1) for x, lo in zip(coords, lows)]
    out = None
    for corner in itertools.product((0, 1), repeat=nd):
        corner = corner[::-1]  # x varies fastest
        term = tap([lo + 1 if o else lo for lo, o in zip(lows, corner)])
        for f, o in zip(fracs, corner):
            term = term * (f if o else 1 - f)
        out = term if out is None else out + term
    return out


# --- sliding blocks ------------------------------------------------------------------------------------------
def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """im2col: (N, C, H, W) -> (N, C * kh * kw, L), read through a strided window view."""
    if input.dim() not in (3, 4):
        raise RuntimeError(f"Input Error: Only 3D or 4D input Tensors are supported (got {input.dim()}D)")
    k, d, p, s = (_tuple(v, 2) for v in (kernel_size, dilation, padding, stride))
    unbatched = input.dim() == 3
    x = input.unsqueeze(0) if unbatched else input
    x = torch.pad(x, (p[1], p[1], p[0], p[0]))
    span = [d[i] * (k[i] - 1) + 1 for i in range(2)]
    if any(x.shape[2 + i] < span[i] for i in range(2)):
        raise RuntimeError(
            f"Given input with spatial size {tuple(input.shape[-2:])}, kernel_size={k}, dilation={d}, "
            f"padding={p}, calculated shape of the array of sliding blocks is non-positive."
        )
    win = x.unfold(2, span[0], s[0]).unfold(3, span[1], s[1])[..., :: d[0], :: d[1]]
    n, c, oh, ow = win.shape[:4]
    out = win.permute(0, 1, 4, 5, 2, 3).reshape(n, c * k[0] * k[1], oh * ow)
    return out.squeeze(0) if unbatched else out


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """col2im, the adjoint of unfold: every block added back at its place."""
    if input.dim() not in (2, 3):
        raise RuntimeError(
            f"Input Error: Only unbatched (2D) or batched (3D) input Tensors are supported (got {input.dim()}D)"
        )
    o, k, d, p, s = (_tuple(v, 2) for v in (output_size, kernel_size, dilation, padding, stride))
    unbatched = input.dim() == 2
    x = input.unsqueeze(0) if unbatched else input
    n, ck, length = x.shape
    kk = k[0] * k[1]
    if ck % kk:
        raise RuntimeError(
            f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, but "
            f"got input.size(1)={ck} and kernel_size={k}"
        )
    blocks = [(o[i] + 2 * p[i] - d[i] * (k[i] - 1) - 1) // s[i] + 1 for i in range(2)]
    if blocks[0] * blocks[1] != length:
        raise RuntimeError(
            f"Given output_size={o}, kernel_size={k}, dilation={d}, padding={p}, stride={s}, expected "
            f"size of input's dimension 2 to match the calculated number of sliding blocks "
            f"{blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, but got input.size(2)={length}."
        )
    c = ck // kk
    cols = x.reshape(n, c, k[0], k[1], blocks[0], blocks[1])
    full = (o[0] + 2 * p[0], o[1] + 2 * p[1])
    out = None
    for i in range(k[0]):
        for j in range(k[1]):
            v = _zero_insert(_zero_insert(cols[:, :, i, j], 2, s[0]), 3, s[1])
            top, left = i * d[0], j * d[1]
            v = torch.pad(v, (left, full[1] - left - v.shape[3], top, full[0] - top - v.shape[2]))
            out = v if out is None else out + v
    out = out[:, :, p[0] : p[0] + o[0], p[1] : p[1] + o[1]]
    return out.squeeze(0) if unbatched else out


# --- attention -----------------------------------------------------------------------------------------------
def _sdpa_fuses(query, key, value, attn_mask, dropout_p, gqa):
    """The arguments one fused op takes: same dtypes, leading dims equal (key / value with a divisor of query's
    heads under enable_gqa), a mask that needs no gradient and dropout below 1."""
    if query.ndim < 2 or not query.dtype == key.dtype == value.dtype or not 0.0 <= dropout_p < 1.0:
        return False
    if attn_mask is not None and attn_mask.requires_grad and torch.is_grad_enabled():
        return False
    if query.shape[:-2] == key.shape[:-2] == value.shape[:-2]:
        return True
    kh = key.shape[-3] if key.ndim >= 3 else 0
    return (
        gqa
        and key.shape[:-2] == value.shape[:-2]
        and key.shape[:-3] == query.shape[:-3]
        and kh > 0
        and query.shape[-3] % kh == 0
    )


def scaled_dot_product_attention(
    query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False
):
    L, S, E = query.shape[-2], key.shape[-2], query.shape[-1]
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    s = 1.0 / math.sqrt(E) if scale is None else scale
    gqa = enable_gqa and query.ndim >= 3 and key.shape[-3] != query.shape[-3]
    if _sdpa_fuses(query, key, value, attn_mask, dropout_p, gqa):
        # one fused op (kernel or composite per backend), with one fused backward; the dropout mask is drawn
        # here (as F.dropout draws it for the probabilities), so the backward applies the same one
        keep = None
        if dropout_p > 0.0:
            shape = tuple(query.shape[:-1]) + (S,)
            keep = torch.empty(shape, dtype=query.dtype, device=query.device).bernoulli_(1 - dropout_p).bool()
        causal = bool(is_causal)
        return _ops._scaled_dot_product_attention(
            query, key, value, attn_mask, causal, float(s), keep, float(dropout_p)
        )[0]
    if gqa:
        rep = query.shape[-3] // key.shape[-3]
        key = key.repeat_interleave(rep, -3)
        value = value.repeat_interleave(rep, -3)
    attn = torch.matmul(query, key.transpose(-2, -1)) * s
    if is_causal:
        keep = torch.ones((L, S), dtype=torch.bool, device=query.device).tril()
        attn = attn.masked_fill(~keep, float("-inf"))
    elif attn_mask is not None:
        if attn_mask.dtype is torch.bool:
            attn = attn.masked_fill(~attn_mask, float("-inf"))
        else:
            attn = attn + attn_mask
    attn = torch.softmax(attn, -1)
    if dropout_p > 0.0:
        attn = dropout(attn, dropout_p, True)
    return torch.matmul(attn, value)


def _additive_mask(mask, dtype, name):
    """A bool mask (True = masked out) or a float mask, as the float mask added to attention scores."""
    if mask is None:
        return None
    if mask.dtype is torch.bool:
        return torch.zeros(mask.shape, dtype=dtype, device=mask.device).masked_fill(mask, float("-inf"))
    if not mask.dtype.is_floating_point:
        raise AssertionError(f"only bool and floating types of {name} are supported")
    return mask.to(dtype)


def multi_head_attention_forward(  # noqa: C901
    query,
    key,
    value,
    embed_dim_to_check,
    num_heads,
    in_proj_weight,
    in_proj_bias,
    bias_k,
    bias_v,
    add_zero_attn,
    dropout_p,
    out_proj_weight,
    out_proj_bias,
    training=True,
    key_padding_mask=None,
    need_weights=True,
    attn_mask=None,
    use_separate_proj_weight=False,
    q_proj_weight=None,
    k_proj_weight=None,
    v_proj_weight=None,
    static_k=None,
    static_v=None,
    average_attn_weights=True,
    is_causal=False,
):
    """Multi-head attention on sequence-first inputs (L, N, E) or unbatched (L, E); returns (output, weights)."""
    batched = query.dim() == 3
    if not batched:  # (L, E) -> (L, 1, E)
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, E = query.shape
    if embed_dim_to_check != E:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {E}")
    H = num_heads
    D = E // H
    if D * H != E:
        raise AssertionError(f"embed_dim {E} not divisible by num_heads {H}")
    if use_separate_proj_weight:
        w_q, w_k, w_v = q_proj_weight, k_proj_weight, v_proj_weight
    else:
        w_q, w_k, w_v = in_proj_weight.chunk(3)
    b_q = b_k = b_v = None
    if in_proj_bias is not None:
        b_q, b_k, b_v = in_proj_bias.chunk(3)
    q = linear(query, w_q, b_q)
    k = linear(key, w_k, b_k) if static_k is None else None
    v = linear(value, w_v, b_v) if static_v is None else None
    attn_mask = _additive_mask(attn_mask, q.dtype, "attn_mask")
    key_padding_mask = _additive_mask(key_padding_mask, q.dtype, "key_padding_mask")
    if attn_mask is None and is_causal:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
            "method `generate_square_subsequent_mask` to create this mask."
        )
    # per-head layout (N*H, S, D), as PyTorch's static_k / static_v are given
    q = q.reshape(tgt_len, bsz * H, D).transpose(0, 1)
    k = static_k if static_k is not None else k.reshape(k.shape[0], bsz * H, D).transpose(0, 1)
    v = static_v if static_v is not None else v.reshape(v.shape[0], bsz * H, D).transpose(0, 1)
    # learned bias row, then a zero row (PyTorch's order): one more key/value, masks padded to match
    extra = []
    if bias_k is not None and bias_v is not None:
        extra.append(
            (
                bias_k.reshape(1, 1, E).expand(1, bsz, E).reshape(1, bsz * H, D).transpose(0, 1),
                bias_v.reshape(1, 1, E).expand(1, bsz, E).reshape(1, bsz * H, D).transpose(0, 1),
            )
        )
    if add_zero_attn:
        zeros = q.new_zeros((bsz * H, 1, D))
        extra.append((zeros, zeros))
    for k_row, v_row in extra:
        k, v = torch.cat([k, k_row], 1), torch.cat([v, v_row], 1)
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    src_len = k.shape[1]
    q, k, v = (t.reshape(bsz, H, t.shape[1], D) for t in (q, k, v))
    mask = None
    if attn_mask is not None:
        mask = attn_mask if attn_mask.dim() == 2 else attn_mask.reshape(bsz, H, tgt_len, src_len)
    if key_padding_mask is not None:
        kpm = key_padding_mask.reshape(bsz, 1, 1, src_len)
        mask = kpm if mask is None else mask + kpm
    if not training:
        dropout_p = 0.0
    if need_weights:
        scores = torch.matmul(q * math.sqrt(1.0 / D), k.transpose(-2, -1))
        if mask is not None:
            scores = scores + mask
        weights = softmax(scores, dim=-1)
        out = torch.matmul(dropout(weights, p=dropout_p) if dropout_p > 0.0 else weights, v)
    else:
        out = scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=dropout_p)
        weights = None
    out = out.permute(2, 0, 1, 3).reshape(tgt_len, bsz, E)
    out = linear(out, out_proj_weight, out_proj_bias)
    if weights is not None and average_attn_weights:
        weights = weights.mean(dim=1)
    if not batched:
        out = out.squeeze(1)
        if weights is not None:
            weights = weights.squeeze(0)
    return out, weights


# --- argument checks and autocast, applied to every public function above ------------------------------------
class _NotATensorError(TypeError, AttributeError):
    """PyTorch raises TypeError where its argument parser checks a tensor argument, and AttributeError
    where its Python code first touches one (mse_loss(x, None)); this error is both."""


# A required tensor argument given None (or a non-tensor) is refused before the function body
# touches it: checked once here for every public function instead of in each one.
_TENSOR_PARAMS = frozenset(
    (
        "input",
        "target",
        "weight",
        "query",
        "key",
        "value",
        "input1",
        "input2",
        "x1",
        "x2",
        "anchor",
        "positive",
        "negative",
        "log_probs",
        "targets",
    )
)
# ...except where a function gives one of those names to a number: threshold's value is the fill
_NOT_TENSORS = {"threshold": {"value"}, "threshold_": {"value"}}
# functions whose first statement is the op's own call, whose argument parser refuses a non-tensor with
# PyTorch's message (naming relu_ when in place, as PyTorch does): no wrapper in front of them
_PARSER_CHECKED = frozenset(("relu",))


def _require_tensors(fn, policy=None):
    """fn behind PyTorch's argument check of its tensor parameters; with `policy` (an autocast policy's name),
    also behind that policy's casts, in the same wrapper (one frame for both: losses are called every step)."""
    import functools
    import inspect

    params = list(inspect.signature(fn).parameters.values())
    checks = tuple(
        (i, p.name)
        for i, p in enumerate(params)
        if p.name in _TENSOR_PARAMS - _NOT_TENSORS.get(fn.__name__, set())
        and p.default is inspect.Parameter.empty
        and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    )
    if not checks and policy is None:
        return fn

    first_only = len(checks) == 1 and checks[0][0] == 0
    if policy is not None:
        from .._amp_state import ACTIVE as amp_active
        from ..amp.autocast_mode import cast_call

    @functools.wraps(fn)
    def checked(*args, **kwargs):
        if not (first_only and args and args[0].__class__ is Tensor):  # (the common call: nothing to look at)
            for i, name in checks:
                v = args[i] if i < len(args) else kwargs.get(name, Tensor)
                if v is not Tensor and not isinstance(v, Tensor):
                    raise _NotATensorError(
                        f"{fn.__name__}(): argument '{name}' (position {i + 1}) must be Tensor, not {type(v).__name__}"
                    )
        if policy is not None and amp_active:
            args, kwargs = cast_call(policy, args, kwargs)
        return fn(*args, **kwargs)

    # (itself, what it wraps): the autocast wrappers below fold their policy into this wrapper; a wrapper
    # made around it later (functools.wraps copies the attribute) is not this one and keeps its own
    checked._checked = (checked, fn)
    return checked


for _name, _fn in list(globals().items()):
    if (
        not _name.startswith("_")
        and callable(_fn)
        and getattr(_fn, "__module__", None) == __name__
        and type(_fn).__name__ == "function"
        and _name not in _PARSER_CHECKED
    ):
        globals()[_name] = _require_tensors(_fn)
del _name, _fn


# --- grouped matrix products (mixture-of-experts layers) --------------------------------------------
def grouped_mm(mat_a, mat_b, *, offs=None, bias=None, out_dtype=None):
    """Several matrix products in one call, the groups cut from a 2-D operand at `offs` (the cumulative ends):
    2-D a (M, K) with 3-D b (G, K, N): row groups of a times b[g] -> (M, N); 2-D a with 2-D b (K, N): K
    groups -> (G, M, N); 3-D a (G, M, K) with 2-D b (K, N): column groups of b -> (M, N); 3-D with 3-D:
    a batched product. Rows (columns) past the last offset are zero. `bias` (G, N) is added per group."""
    da, db = mat_a.dim(), mat_b.dim()
    if da not in (2, 3) or db not in (2, 3):
        raise RuntimeError("grouped_mm: mat_a and mat_b must be 2-D or 3-D")
    if (da == 3 and db == 3) != (offs is None):
        raise RuntimeError("grouped_mm: offs is needed exactly when an operand is 2-D")
    ends = [] if offs is None else [int(v) for v in offs.tolist()]
    starts = [0] + ends[:-1]
    if da == 3 and db == 3:
        out = torch.bmm(mat_a, mat_b)
        if bias is not None:
            out = out + bias.unsqueeze(-2)
    elif da == 2 and db == 3:  # the fused MoE op (a kernel where the device has one)
        out = torch.ops._grouped_matmul(mat_a, mat_b, offs.to(torch.int64))
        if bias is not None:
            sizes = torch.tensor([e - s for s, e in zip(starts, ends)], device=mat_a.device)
            rows = torch.repeat_interleave(bias, sizes, dim=0)
            out = out + torch.cat([rows, rows.new_zeros((out.shape[0] - rows.shape[0], rows.shape[1]))])
    elif da == 3:
        out = torch.zeros((mat_a.shape[1], mat_b.shape[-1]), dtype=mat_a.dtype, device=mat_a.device)
        for g, (s, e) in enumerate(zip(starts, ends)):
            part = mat_a[g] @ mat_b[:, s:e]
            out = torch.slice_scatter(out, part if bias is None else part + bias[g][s:e], 1, s, e)
    else:
        out = torch.stack([mat_a[:, s:e] @ mat_b[s:e] for s, e in zip(starts, ends)])
        if bias is not None:
            out = out + bias.unsqueeze(-2)
    return out if out_dtype is None else out.to(out_dtype)


# --- helpers PyTorch's functional module exports ------------------------------------------------------
TYPE_CHECKING = False
GRID_SAMPLE_INTERPOLATION_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
GRID_SAMPLE_PADDING_MODES = {"zeros": 0, "border": 1, "reflection": 2}
# notes the documentation of several functions shares
reproducibility_notes = {
    "forward_reproducibility_note": "On some devices this operation may be nondeterministic.",
    "backward_reproducibility_note": "On some devices this operation's gradients may be nondeterministic.",
    "cudnn_reproducibility_note": "With a vendor library this operation may choose a nondeterministic algorithm.",
}
tf32_notes = {"tf32_note": "On devices with TensorFloat32 this operator may use it."}


def assert_int_or_pair(arg, arg_name, message):
    if not (isinstance(arg, int) or len(arg) == 2):
        raise AssertionError(message.format(arg_name))


def boolean_dispatch(arg_name, arg_index, default, if_true, if_false, module_name, func_name):
    """A function calling if_true or if_false by the boolean argument `arg_name` (position arg_index), as
    F.max_pool2d chooses by return_indices; it takes the documentation of the one that has some."""

    def fn(*args, **kwargs):
        flag = kwargs[arg_name] if arg_name in kwargs else args[arg_index] if arg_index < len(args) else default
        return if_true(*args, **kwargs) if flag else if_false(*args, **kwargs)

    docs = [f.__doc__ for f in (if_true, if_false) if f.__doc__ is not None]
    if len(docs) > 1:
        raise RuntimeError("only one function can have a docstring")
    fn.__doc__ = if_true.__doc__ = if_false.__doc__ = docs[0] if docs else None
    if module_name is not None:
        fn.__module__ = module_name
    if func_name is not None:
        fn.__name__ = func_name
    return fn


# nn.functional composites over dtypes PyTorch's kernel for them lacks: function -> (the kernel's name in
# PyTorch's NotImplementedError, or a function of the dtype and the input giving the error; whether a dtype is
# refused; how many leading tensor arguments the kernel's dtype is the common dtype of). Checked before the composite runs, so
# every backend refuses alike.
_FLOAT_KINDS_ONLY = (0, 1, 3)  # bool, integers, complex


def _kinds(*kinds):
    return lambda d: d._kind in kinds


def _avg_pool3d_lacks(d):
    return d not in (torch.int64, torch.float32, torch.float64)


_KERNEL_REFUSALS = {
    "hardswish": ("hardswish_cpu", _kinds(*_FLOAT_KINDS_ONLY), 1),
    "glu": ("glu_cpu", _kinds(*_FLOAT_KINDS_ONLY), 1),
    "prelu": ("prelu_cpu", _kinds(*_FLOAT_KINDS_ONLY), 1),
    "mse_loss": ("mse_cpu", _kinds(*_FLOAT_KINDS_ONLY), 2),
    "binary_cross_entropy": ("binary_cross_entropy", _kinds(*_FLOAT_KINDS_ONLY), 1),
    "rms_norm": ("rms_norm", _kinds(0, 1), 1),
    "instance_norm": ("batch_norm", _kinds(*_FLOAT_KINDS_ONLY), 1),  # PyTorch's runs through batch_norm
    "unfold": ("im2col_out_cpu", _kinds(1), 1),
    "grid_sample": (
        lambda d, x: _missing("grid_sampler3d_cpu" if x.dim() == 5 else "grid_sampler_2d_cpu_kernel_impl", d),
        _kinds(*_FLOAT_KINDS_ONLY),
        1,
    ),
    "cosine_similarity": (
        lambda d, x: RuntimeError(f"expected common dtype to be floating point, yet common dtype is {_dtype_cname(d)}"),
        _kinds(*_FLOAT_KINDS_ONLY),
        2,
    ),
    # its average runs through avg_pool3d, whose cpu kernel has int64 and no other integer or half form
    "local_response_norm": ("avg_pool3d_out_frame", _avg_pool3d_lacks, 1),
}


def _missing(kernel, d):
    return NotImplementedError(f"\"{kernel}\" not implemented for '{_dtype_cname(d)}'")


def _refusing_dtypes(fn, error, refused, n_tensors):
    names = list(inspect.signature(fn).parameters)[:n_tensors]

    @functools.wraps(fn)
    def checked(*args, **kwargs):
        ts = [args[i] if i < len(args) else kwargs.get(n) for i, n in enumerate(names)]
        if all(isinstance(t, torch.Tensor) for t in ts):
            d = ts[0].dtype if len(ts) == 1 else torch.result_type(*ts)
            if refused(d):
                raise _missing(error, d) if isinstance(error, str) else error(d, ts[0])
        return fn(*args, **kwargs)

    return checked


def _kernel_refusal_wrappers():
    g = globals()
    for name, (error, refused, n_tensors) in _KERNEL_REFUSALS.items():
        g[name] = _refusing_dtypes(g[name], error, refused, n_tensors)


_kernel_refusal_wrappers()


def _autocast_wrappers():
    """nn.functional functions that are not table ops get their autocast policy here (ops get it in dispatch)."""
    from .._amp_state import POLICY_OPS
    from ..amp.autocast_mode import with_policy

    g = globals()
    for name in sorted(POLICY_OPS & set(g)):
        fn = g[name]
        if (
            callable(fn)
            and not getattr(fn, "_autocast_wrapped", False)
            and getattr(fn, "__module__", "").startswith("mindtorch.nn")
        ):
            own, inner = getattr(fn, "_checked", (None, None))
            # the argument check's own wrapper: one wrapper does both
            wrapped = _require_tensors(inner, name) if own is fn else with_policy(name, fn)
            wrapped._autocast_wrapped = True
            g[name] = wrapped


_autocast_wrappers()
