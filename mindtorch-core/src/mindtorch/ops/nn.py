"""nn kernels: linear, convolution, pooling, normalization, embedding, losses, upsampling.

Forward and backward are separate ops (like ATen's *_backward ops), so a
backend provides kernels for both; the derivative formulas only call ops.
"""

import math
import struct

from .. import _dtype as D
from .._geometry import wrap_dim
from .formulas import computed_in_float32, linear_grad_weight, rotate, sum_to, torch
from .meta import TensorMeta
from .registry import OPS, declare_inplace, defop

F = "nn"
_TN = {
    "float32": "Float",
    "float64": "Double",
    "float16": "Half",
    "bfloat16": "BFloat16",
    "int64": "Long",
    "int32": "Int",
    "int16": "Short",
    "int8": "Char",
    "uint8": "Byte",
    "bool": "Bool",
}


def _tn(d):
    return _TN.get(d.name, d.name)


def _shp(s):
    return "[" + ", ".join(map(str, s)) + "]"


def _no_kernel_for(kname, d, kinds=(0, 1)):
    """PyTorch's error for a dtype its kernel lacks: by default bool and integers (dtype kinds 0 and 1), which
    the floating-point nn kernels lack; complex is kind 3."""
    if kinds(d) if callable(kinds) else d._kind in kinds:
        raise NotImplementedError(f"\"{kname}\" not implemented for '{D._cname(d)}'")


def _check_float(name, *ts):
    d = ts[0].dtype
    for t in ts[1:]:
        if t is not None and t.dtype is not d:
            raise RuntimeError(
                f"{name}: expected all tensors to have the same dtype, but got {_tn(d)} and {_tn(t.dtype)}"
            )


# --- linear --------------------------------------------------------------------------
def _linear_meta(input, weight, bias=None):
    if input.ndim == 0 or weight.ndim != 2:
        raise RuntimeError(
            f"linear(): expected input of at least 1 dimension and a 2-D weight, but got input "
            f"of shape {_shp(input.shape)} and weight of shape {_shp(weight.shape)}"
        )
    if input._shape[-1] != weight._shape[1]:
        rows = 1
        for s in input._shape[:-1]:
            rows *= s
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({rows}x{input._shape[-1]} and "
            f"{weight._shape[1]}x{weight._shape[0]})"
        )
    if input.dtype is not weight.dtype:
        raise RuntimeError(
            f"mat1 and mat2 must have the same dtype, but got {_tn(input.dtype)} and {_tn(weight.dtype)}"
        )
    if bias is not None and bias.dtype is not input.dtype:
        raise RuntimeError(f"expected bias to have dtype {_tn(input.dtype)}, but got {_tn(bias.dtype)}")
    out = tuple(input._shape[:-1]) + (weight._shape[0],)
    if bias is not None:  # the bias is expanded to the output: checked here so no kernel broadcasts it
        b = tuple(bias._shape)
        bad = len(b) > len(out) or any(s not in (1, o) for s, o in zip(reversed(b), reversed(out)))
        if bad:
            raise RuntimeError(
                f"The expanded size of the tensor ({out[-1]}) must match the existing size "
                f"({b[-1] if b else 1}) at non-singleton dimension {len(out) - 1}.  Target sizes: "
                f"{list(out)}.  Tensor sizes: {list(b)}"
            )
    return TensorMeta(out, input.dtype)


defop(
    "linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor",
    meta=_linear_meta,
    method=False,
    family=F,
    grad={"input, weight, bias": "linear_grads(grad, input, weight, bias, needs)"},
)


def _linear_backward_meta(self, grad_output, weight, output_mask):
    d = grad_output.dtype
    return TensorMeta(tuple(self._shape), d), TensorMeta(tuple(weight._shape), d), TensorMeta(weight._shape[:1], d)


def _linear_backward(self, grad_output, weight, output_mask):
    """grad_output @ weight, grad_output^T @ self over the leading dims, and grad_output's column sums
    (None where output_mask says no). Unrecorded only through a backend's kernel: with a graph to build
    (create_graph) dispatch runs this decomposition, whose ops are recorded."""
    gi = torch.ops.linear(grad_output, weight.t()) if output_mask[0] else None
    gw = linear_grad_weight(grad_output, self) if output_mask[1] else None
    gb = grad_output.reshape(-1, grad_output.shape[-1]).sum(0) if output_mask[2] else None
    return gi, gw, gb


defop(
    "linear_backward(Tensor self, Tensor grad_output, Tensor weight, bool[3] output_mask) -> "
    "(Tensor grad_input, Tensor grad_weight, Tensor grad_bias)",
    meta=_linear_backward_meta,
    composite=_linear_backward,
    method=False,
    function=False,
    family=F,
)


# --- convolution (2-d; 1-d convs are 2-d convs with height 1) --------------------------
def _conv_out(n, k, s, p0, p1, d):
    return (n + p0 + p1 - d * (k - 1) - 1) // s + 1


def _conv2d_meta(input, weight, bias, stride, padding, dilation, groups):
    if input.ndim != 4 or weight.ndim != 4:
        raise RuntimeError(
            f"Expected 4-dimensional input and weight for conv2d, but got input of size "
            f"{_shp(input.shape)} and weight of size {_shp(weight.shape)}"
        )
    n, c, h, w = input._shape
    o, cg, kh, kw = weight._shape
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero")
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if c != cg * groups:
        raise RuntimeError(
            f"Given groups={groups}, weight of size {_shp(weight.shape)}, expected input"
            f"{_shp(input.shape)} to have {cg * groups} channels, but got {c} channels instead"
        )
    if o < groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but got weight of "
            f"size {_shp(weight.shape)} instead"
        )
    if o % groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
            f"but got weight of size {_shp(weight.shape)} instead"
        )
    if bias is not None and (bias.ndim != 1 or bias._shape[0] != o):
        raise RuntimeError(
            f"Given weight of size {_shp(weight.shape)}, expected bias to be 1-dimensional with "
            f"{o} elements, but got bias of size {_shp(bias.shape)} instead"
        )
    if input.dtype is not weight.dtype or (bias is not None and bias.dtype is not input.dtype):
        other = weight if input.dtype is not weight.dtype else bias
        which = "weight" if other is weight else "bias"
        raise RuntimeError(f"Input type ({_tn(input.dtype)}) and {which} type ({_tn(other.dtype)}) should be the same")
    ho = _conv_out(h, kh, stride[0], padding[0], padding[1], dilation[0])
    wo = _conv_out(w, kw, stride[1], padding[2], padding[3], dilation[1])
    if ho <= 0 or wo <= 0:
        raise RuntimeError(
            f"Calculated padded input size per channel: ({h + padding[0] + padding[1]} x "
            f"{w + padding[2] + padding[3]}). Kernel size: ({dilation[0] * (kh - 1) + 1} x "
            f"{dilation[1] * (kw - 1) + 1}). Kernel size can't be greater than actual input size"
        )
    return TensorMeta((n, o, ho, wo), input.dtype)


def _conv2d_bwd_input_meta(grad, weight, input_size, stride, padding, dilation, groups):
    return TensorMeta(tuple(input_size), grad.dtype)


def _conv2d_bwd_weight_meta(grad, input, weight_size, stride, padding, dilation, groups):
    return TensorMeta(tuple(weight_size), grad.dtype)


# The backward ops are adjoints of the forward in one argument, which gives their own
# derivatives: <conv(x, W), g> = <x, bwd_input(g, W)> = <W, bwd_weight(g, x)>.
defop(
    "_conv2d(Tensor input, Tensor weight, Tensor? bias, int[2] stride, int[4] padding, int[2] dilation, "
    "int groups) -> Tensor",
    meta=_conv2d_meta,
    method=False,
    function=False,
    family=F,
    grad={"input, weight, bias": "conv2d_grads(grad, input, weight, stride, padding, dilation, groups, needs)"},
)
defop(
    "_conv2d_backward_input(Tensor grad_output, Tensor weight, int[4] input_size, int[2] stride, int[4] padding, "
    "int[2] dilation, int groups) -> Tensor",
    meta=_conv2d_bwd_input_meta,
    method=False,
    function=False,
    family=F,
    grad={
        "grad_output": "torch.ops._conv2d(grad, weight, None, stride, padding, dilation, groups)",
        "weight": "torch.ops._conv2d_backward_weight(grad_output, grad, weight.shape, stride, padding, "
        "dilation, groups)",
    },
)
defop(
    "_conv2d_backward_weight(Tensor grad_output, Tensor input, int[4] weight_size, int[2] stride, int[4] padding, "
    "int[2] dilation, int groups) -> Tensor",
    meta=_conv2d_bwd_weight_meta,
    method=False,
    function=False,
    family=F,
    grad={
        "grad_output": "torch.ops._conv2d(input, grad, None, stride, padding, dilation, groups)",
        "input": "torch.ops._conv2d_backward_input(grad_output, grad, input.shape, stride, padding, dilation, groups)",
    },
)


# --- pooling -------------------------------------------------------------------------
def _pool_out(n, k, s, p, d, ceil):
    eff = d * (k - 1) + 1
    num = n + 2 * p - eff
    o = (-(-num // s) if ceil else num // s) + 1
    if ceil and (o - 1) * s >= n + p:
        o -= 1
    return o


def _pool_checks(name, input, kernel_size, stride, padding, dilation):
    if input.ndim != 4:
        raise RuntimeError(f"{name}: Expected 3D or 4D (batch mode) tensor for input, but got {_shp(input.shape)}")
    if any(k <= 0 for k in kernel_size):
        raise RuntimeError(
            f"{name}: kernel_size must be greater than zero, but got kH: {kernel_size[0]} kW: {kernel_size[1]}"
        )
    if any(s <= 0 for s in stride):
        raise RuntimeError(f"{name}: stride must be greater than zero, but got dH: {stride[0]} dW: {stride[1]}")
    if any(d <= 0 for d in dilation):
        raise RuntimeError(
            f"{name}: dilation must be greater than zero, but got dilationH: {dilation[0]} dilationW: {dilation[1]}"
        )
    for k, p, d in zip(kernel_size, padding, dilation):
        if p < 0 or p > (d * (k - 1) + 1) // 2:
            raise RuntimeError(
                f"pad should be at most half of effective kernel size, but got pad={p}, "
                f"kernel_size={k} and dilation={d}"
            )
    if input._shape[1] == 0 or input._shape[2] == 0 or input._shape[3] == 0:
        raise RuntimeError(
            f"{name}: Expected input's non-batch dimensions to have positive length, but input "
            f"has a shape of {_shp(input.shape)}"
        )


def _pool_shape(name, input, kernel_size, stride, padding, dilation, ceil_mode):
    n, c, h, w = input._shape
    ho = _pool_out(h, kernel_size[0], stride[0], padding[0], dilation[0], ceil_mode)
    wo = _pool_out(w, kernel_size[1], stride[1], padding[1], dilation[1], ceil_mode)
    if ho <= 0 or wo <= 0:
        raise RuntimeError(
            f"Given input size: ({c}x{h}x{w}). Calculated output size: ({c}x{ho}x{wo}). Output size is too small"
        )
    return (n, c, ho, wo)


def _max_pool2d_meta(input, kernel_size, stride, padding, dilation, ceil_mode):
    _pool_checks("max_pool2d", input, kernel_size, stride, padding, dilation)
    shape = _pool_shape("max_pool2d", input, kernel_size, stride, padding, dilation, ceil_mode)
    return TensorMeta(shape, input.dtype), TensorMeta(shape, D.int64)


defop(
    "_max_pool2d_with_indices(Tensor self, int[2] kernel_size, int[2] stride, int[2] padding, int[2] dilation, "
    "bool ceil_mode) -> (Tensor output, Tensor indices)",
    meta=_max_pool2d_meta,
    method=False,
    function=False,
    family=F,
    grad={
        "self": "torch.ops._max_pool2d_backward(grad, self, kernel_size, stride, padding, dilation, ceil_mode, "
        "result[1])"
    },
)
# the window geometry travels with the indices, as in PyTorch's max_pool2d_with_indices_backward: devices whose
# backward operator takes it (ACLNN's) need it, the CPU reads only the indices
defop(
    "_max_pool2d_backward(Tensor grad_output, Tensor self, int[2] kernel_size, int[2] stride, int[2] padding, "
    "int[2] dilation, bool ceil_mode, Tensor indices) -> Tensor",
    meta=lambda grad, self, *a: TensorMeta(self._shape, grad.dtype),
    method=False,
    function=False,
    family=F,
    nondiff=("indices",),
    grad={"grad_output": "not_implemented('max_pool2d double backward')"},
)


def _avg_pool2d_meta(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    _pool_checks("avg_pool2d", input, kernel_size, stride, padding, (1, 1))
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    return TensorMeta(_pool_shape("avg_pool2d", input, kernel_size, stride, padding, (1, 1), ceil_mode), input.dtype)


defop(
    "_avg_pool2d(Tensor self, int[2] kernel_size, int[2] stride, int[2] padding, bool ceil_mode, "
    "bool count_include_pad, int? divisor_override) -> Tensor",
    meta=_avg_pool2d_meta,
    method=False,
    function=False,
    family=F,
    grad={
        "self": "torch.ops._avg_pool2d_backward(grad, self, kernel_size, stride, padding, ceil_mode, "
        "count_include_pad, divisor_override)"
    },
)
defop(
    "_avg_pool2d_backward(Tensor grad_output, Tensor self, int[2] kernel_size, int[2] stride, int[2] padding, "
    "bool ceil_mode, bool count_include_pad, int? divisor_override) -> Tensor",
    meta=lambda grad, self, *a: TensorMeta(self._shape, grad.dtype),
    method=False,
    function=False,
    family=F,
    grad={
        "grad_output": "torch.ops._avg_pool2d(grad, kernel_size, stride, padding, ceil_mode, count_include_pad, "
        "divisor_override)"
    },
)


def _adaptive_meta(input, output_size):
    if input.ndim != 4:
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {_shp(input.shape)}")
    if any(s < 0 for s in output_size):
        raise RuntimeError(
            "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 "
            f"but received {{{output_size[0]}, {output_size[1]}}}"
        )
    return TensorMeta(tuple(input._shape[:2]) + tuple(output_size), input.dtype)


defop(
    "_adaptive_avg_pool2d(Tensor self, int[2] output_size) -> Tensor",
    meta=_adaptive_meta,
    method=False,
    function=False,
    family=F,
    grad={"self": "torch.ops._adaptive_avg_pool2d_backward(grad, self)"},
)
defop(
    "_adaptive_avg_pool2d_backward(Tensor grad_output, Tensor self) -> Tensor",
    meta=lambda grad, self: TensorMeta(self._shape, grad.dtype),
    method=False,
    function=False,
    family=F,
    grad={"grad_output": "torch.ops._adaptive_avg_pool2d(grad, grad_output.shape[-2:])"},
)


# --- upsampling (nearest / bilinear, 2-d) -----------------------------------------------
def _upsample_meta(input, output_size, mode, align_corners, scale_h, scale_w):
    # PyTorch's cpu kernels: floating point, and uint8 (images); the others are refused by the kernel's name
    d = input.dtype
    if d._kind != 2 and d is not D.uint8:
        kname = "upsample_nearest2d_channels_last" if mode == "nearest" else "upsample_bilinear2d_channels_last"
        raise NotImplementedError(f"\"{kname}\" not implemented for '{D._cname(d)}'")
    return TensorMeta(tuple(input._shape[:2]) + tuple(output_size), input.dtype)


def _src_scale(n_in, n_out, align_corners, scale):
    if align_corners:
        return (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    return 1.0 / scale if scale is not None and scale > 0 else n_in / n_out


def _f32(v):
    return struct.unpack("f", struct.pack("f", v))[0]


def _nearest_rows(n_in, n_out, scale):
    """Source row of each output row: floor(i * scale) in float32, as PyTorch's nearest kernel."""
    s = _f32(_src_scale(n_in, n_out, False, scale))
    return [min(math.floor(_f32(i * s)), n_in - 1) for i in range(n_out)]


def _linear_rows(n_in, n_out, align_corners, scale):
    """The (n_out, n_in) matrix of linear interpolation weights along one dim."""
    s = _src_scale(n_in, n_out, align_corners, scale)
    rows = []
    for dst in range(n_out):
        src = dst * s if align_corners else max((dst + 0.5) * s - 0.5, 0.0)
        i0 = min(math.floor(src), n_in - 1)
        row = [0.0] * n_in
        row[i0] += 1.0 - (src - i0)
        row[min(i0 + 1, n_in - 1)] += src - i0
        rows.append(row)
    return rows


def _upsample_plan(x, in_hw, out_hw, mode, align_corners, scale_h, scale_w):
    """Index tensors (nearest) or weight matrices (bilinear) for both spatial dims, on x's device; half
    precision interpolates in float32."""
    if mode == "nearest":
        return [
            torch.tensor(_nearest_rows(i, o, s), device=x.device) for i, o, s in zip(in_hw, out_hw, (scale_h, scale_w))
        ]
    acc = D.float32 if x.dtype in (D.float16, D.bfloat16) else x.dtype
    return [
        torch.tensor(_linear_rows(i, o, align_corners, s), dtype=acc, device=x.device)
        for i, o, s in zip(in_hw, out_hw, (scale_h, scale_w))
    ]


# composites for devices without upsampling kernels: gathers (nearest) or two small matmuls (bilinear)
def _upsample2d(self, output_size, mode, align_corners, scale_h, scale_w):
    ph, pw = _upsample_plan(self, self.shape[2:], output_size, mode, align_corners, scale_h, scale_w)
    if mode == "nearest":
        return self.index_select(2, ph).index_select(3, pw)
    return torch.matmul(torch.matmul(ph, self.to(ph.dtype)), pw.t()).to(self.dtype)


def _upsample2d_backward(grad_output, input_size, mode, align_corners, scale_h, scale_w):
    n, c, h, w = input_size
    ph, pw = _upsample_plan(grad_output, (h, w), grad_output.shape[2:], mode, align_corners, scale_h, scale_w)
    if mode == "nearest":
        rows = torch.zeros((n, c, grad_output.shape[2], w), dtype=grad_output.dtype, device=grad_output.device)
        rows.index_add_(3, pw, grad_output)
        out = torch.zeros(tuple(input_size), dtype=grad_output.dtype, device=grad_output.device)
        return out.index_add_(2, ph, rows)
    return torch.matmul(torch.matmul(ph.t(), grad_output.to(ph.dtype)), pw).to(grad_output.dtype)


defop(
    "_upsample2d(Tensor self, int[2] output_size, str mode, bool align_corners, float? scale_h, "
    "float? scale_w) -> Tensor",
    meta=_upsample_meta,
    method=False,
    function=False,
    family=F,
    composite=computed_in_float32(_upsample2d),
    grad={"self": "torch.ops._upsample2d_backward(grad, self.shape, mode, align_corners, scale_h, scale_w)"},
)
defop(
    "_upsample2d_backward(Tensor grad_output, int[4] input_size, str mode, bool align_corners, float? scale_h, "
    "float? scale_w) -> Tensor",
    meta=lambda grad, input_size, mode, *a: (
        _upsample_meta(grad, input_size[2:], mode, *a) and TensorMeta(tuple(input_size), grad.dtype)
    ),
    method=False,
    function=False,
    family=F,
    composite=computed_in_float32(_upsample2d_backward),
    grad={"grad_output": "torch.ops._upsample2d(grad, grad_output.shape[-2:], mode, align_corners, scale_h, scale_w)"},
)


# --- normalization ---------------------------------------------------------------------
def _layer_norm_meta(input, normalized_shape, weight, bias, eps):
    ns = tuple(normalized_shape)
    shape, k = tuple(input._shape), len(ns)
    lead = len(shape) - k
    if k == 0 or lead < 0 or shape[lead:] != ns:
        raise RuntimeError(
            f"Given normalized_shape={list(ns)}, expected input with shape [*, "
            f"{', '.join(map(str, ns))}], but got input of size{_shp(input.shape)}"
        )
    if weight is not None and tuple(weight._shape) != ns:
        _norm_param_error("weight", weight, ns)
    if bias is not None and tuple(bias._shape) != ns:
        _norm_param_error("bias", bias, ns)
    d = input.dtype
    if (weight is not None and weight.dtype is not d) or (bias is not None and bias.dtype is not d):
        _check_float("layer_norm", input, weight, bias)
    stat = TensorMeta(shape[:lead] + (1,) * k, D.float32 if d is D.float16 or d is D.bfloat16 else d)
    return TensorMeta(shape, d), stat, stat  # metas are never changed: mean and rstd share one


def _norm_param_error(name, t, ns):
    raise RuntimeError(
        f"Expected {name} to be of same shape as normalized_shape, but got {name} of "
        f"shape {_shp(t.shape)} and normalized_shape = {_shp(ns)}"
    )


defop(
    "native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias, float eps) -> "
    "(Tensor output, Tensor mean, Tensor rstd)",
    meta=_layer_norm_meta,
    method=False,
    family=F,
    grad={
        "input, weight, bias": "torch.ops.native_layer_norm_backward(grads[0], input, normalized_shape, "
        "result[1], result[2], weight, bias)"
    },
)
defop(
    "native_layer_norm_backward(Tensor grad_out, Tensor input, SymInt[] normalized_shape, Tensor mean, "
    "Tensor rstd, Tensor? weight, Tensor? bias) -> (Tensor grad_input, Tensor grad_weight, Tensor grad_bias)",
    meta=lambda g, x, ns, m, r, w, b: (
        TensorMeta(x._shape, g.dtype),
        TensorMeta(tuple(ns), g.dtype),
        TensorMeta(tuple(ns), g.dtype),
    ),
    method=False,
    function=False,
    family=F,
    nondiff=("mean", "rstd"),
    grad={"grad_out": "not_implemented('layer_norm double backward')"},
)


def _rms_norm_meta(input, normalized_shape, weight, eps):
    _no_kernel_for("rms_norm", input.dtype)
    m = _layer_norm_meta(input, normalized_shape, weight, None, 0.0)
    return m[0], m[2]


def _rms_norm(input, normalized_shape, weight, eps):
    dims = tuple(range(input.ndim - len(normalized_shape), input.ndim))
    x = input.float() if input.dtype in (D.float16, D.bfloat16) else input
    rstd = torch.rsqrt((x * x).mean(dims, keepdim=True) + eps)
    y = x * rstd
    return (y if weight is None else y * weight).to(input.dtype), rstd.detach()  # rstd: a non-differentiable output


def _rms_norm_backward(grad_out, input, normalized_shape, rstd, weight):
    k = len(normalized_shape)
    dims = tuple(range(input.ndim - k, input.ndim))
    xhat = input * rstd
    gx = grad_out if weight is None else grad_out * weight
    grad_input = rstd * (gx - xhat * (gx * xhat).mean(dims, keepdim=True))
    lead = tuple(range(input.ndim - k))
    grad_weight = (grad_out * xhat).sum(lead) if lead else grad_out * xhat
    return grad_input.to(grad_out.dtype), grad_weight.to(grad_out.dtype)


defop(
    "_rms_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, float eps) -> (Tensor output, Tensor rstd)",
    meta=_rms_norm_meta,
    method=False,
    function=False,
    family=F,
    composite=_rms_norm,
    grad={"input, weight": "torch.ops._rms_norm_backward(grads[0], input, normalized_shape, result[1], weight)"},
)
defop(
    "_rms_norm_backward(Tensor grad_out, Tensor input, SymInt[] normalized_shape, Tensor rstd, Tensor? weight) "
    "-> (Tensor grad_input, Tensor grad_weight)",
    composite=computed_in_float32(_rms_norm_backward),
    meta=lambda g, x, ns, r, w: (
        _no_kernel_for("rms_norm", x.dtype),
        (TensorMeta(x._shape, g.dtype), TensorMeta(tuple(ns), g.dtype)),
    )[1],
    method=False,
    function=False,
    family=F,
    nondiff=("rstd",),
    grad={"grad_out": "not_implemented('rms_norm double backward')"},
)


# --- fused transformer blocks: rotary embedding, SwiGLU, grouped (MoE) matmul -------------------------
# Accelerators run each as one operator; the composites give every other backend the same values.
def _float_input(name, t):
    if t.dtype._kind != 2:
        raise RuntimeError(f"{name}: expected a floating-point tensor, but got {D._cname(t.dtype)}")


_ROTARY_MODES = ("half", "interleave")


def _rotary_mul_meta(x, r1, r2, rotary_mode="half"):
    if rotary_mode not in _ROTARY_MODES:
        raise RuntimeError(f"The rotary_mode of npu_rotary_mul should be half or interleave, but got {rotary_mode}")
    for t in (x, r1, r2):
        _float_input("npu_rotary_mul", t)
    if x.ndim == 0 or x._shape[-1] % 2:
        raise RuntimeError(
            f"npu_rotary_mul: the last dim of input must be even, but got input of shape {_shp(x.shape)}"
        )
    for name, r in (("r1", r1), ("r2", r2)):
        if r.ndim > x.ndim or any(a not in (1, b) for a, b in zip(reversed(r._shape), reversed(x._shape))):
            raise RuntimeError(
                f"npu_rotary_mul: {name} of shape {_shp(r.shape)} does not broadcast to input of shape {_shp(x.shape)}"
            )
    return TensorMeta(x._shape, x.dtype)


def _rotary_mul(x, r1, r2, rotary_mode="half"):
    _rotary_mul_meta(x, r1, r2, rotary_mode)
    r1, r2 = r1.to(x.dtype), r2.to(x.dtype)  # torch_npu computes mixed inputs in the input's dtype
    return x * r1 + rotate(x, rotary_mode) * r2


def _rotary_mul_backward(grad, x, r1, r2, rotary_mode):
    _rotary_mul_backward_meta(grad, x, r1, r2, rotary_mode)
    r1, r2 = r1.to(x.dtype), r2.to(x.dtype)
    grad = grad.to(x.dtype)
    dx = grad * r1 - rotate(grad * r2, rotary_mode)
    return dx, sum_to(grad * x, r1.shape), sum_to(grad * rotate(x, rotary_mode), r2.shape)


def _rotary_mul_backward_meta(grad, x, r1, r2, rotary_mode):
    _rotary_mul_meta(x, r1, r2, rotary_mode)
    if tuple(grad._shape) != tuple(x._shape):
        raise RuntimeError(
            f"npu_rotary_mul_backward: grad of shape {_shp(grad.shape)} for input of shape {_shp(x.shape)}"
        )
    return TensorMeta(x._shape, x.dtype), TensorMeta(r1._shape, x.dtype), TensorMeta(r2._shape, x.dtype)


defop(
    '_rotary_mul(Tensor x, Tensor r1, Tensor r2, str rotary_mode="half") -> Tensor',
    meta=_rotary_mul_meta,
    composite=computed_in_float32(_rotary_mul),
    method=False,
    function=False,
    family=F,
    grad={"x, r1, r2": "torch.ops._rotary_mul_backward(grad, x, r1, r2, rotary_mode)"},
)
defop(
    "_rotary_mul_backward(Tensor grad, Tensor x, Tensor r1, Tensor r2, str rotary_mode) -> "
    "(Tensor dx, Tensor dr1, Tensor dr2)",
    meta=_rotary_mul_backward_meta,
    composite=computed_in_float32(_rotary_mul_backward),
    method=False,
    function=False,
    family=F,
    grad={"grad, x, r1, r2": "rotary_mul_double_backward(grads, grad, x, r1, r2, rotary_mode)"},
)


def _swiglu_meta(x, dim=-1):
    _float_input("npu_swiglu", x)
    d = wrap_dim(dim, x.ndim)
    if x._shape[d] % 2:
        raise RuntimeError(f"npu_swiglu: input of shape {_shp(x.shape)} cannot be split in two halves along dim {dim}")
    shape = list(x._shape)
    shape[d] //= 2
    return TensorMeta(tuple(shape), x.dtype)


def _swiglu(x, dim=-1):
    _swiglu_meta(x, dim)
    a, b = x.chunk(2, dim)
    return torch.nn.functional.silu(a) * b


def _swiglu_backward_meta(grad, x, dim):
    half = _swiglu_meta(x, dim)
    if tuple(grad._shape) != tuple(half.shape):
        raise RuntimeError(f"npu_swiglu_backward: grad of shape {_shp(grad.shape)} for input of shape {_shp(x.shape)}")
    return TensorMeta(x._shape, x.dtype)


def _swiglu_backward(grad, x, dim):
    _swiglu_backward_meta(grad, x, dim)
    a, b = x.chunk(2, dim)
    s = torch.sigmoid(a)
    silu = a * s
    return torch.cat((grad * b * (s + silu * (1 - s)), grad * silu), dim)


defop(
    "_swiglu(Tensor x, int dim=-1) -> Tensor",
    meta=_swiglu_meta,
    composite=computed_in_float32(_swiglu),
    method=False,
    function=False,
    family=F,
    grad={"x": "torch.ops._swiglu_backward(grad, x, dim)"},
)
defop(
    "_swiglu_backward(Tensor grad, Tensor x, int dim) -> Tensor",
    meta=_swiglu_backward_meta,
    composite=computed_in_float32(_swiglu_backward),
    method=False,
    function=False,
    family=F,
    grad={"grad, x": "swiglu_double_backward(grads[0], grad, x, dim)"},
)


def _grouped_matmul_meta(x, weight, group_list):
    if x.ndim != 2 or weight.ndim != 3 or group_list.ndim != 1:
        raise RuntimeError(
            "npu_grouped_matmul: expected x (M, K), weight (G, K, N) and group_list (G,), but got shapes "
            f"{_shp(x.shape)}, {_shp(weight.shape)} and {_shp(group_list.shape)}"
        )
    _float_input("npu_grouped_matmul", x)
    _check_float("npu_grouped_matmul", x, weight)
    if group_list.dtype is not D.int64:
        raise RuntimeError(f"npu_grouped_matmul: group_list must be int64, but got {D._cname(group_list.dtype)}")
    if weight._shape[1] != x._shape[1] or group_list._shape[0] != weight._shape[0]:
        raise RuntimeError(
            f"npu_grouped_matmul: x {_shp(x.shape)}, weight {_shp(weight.shape)} and group_list "
            f"{_shp(group_list.shape)} do not fit together"
        )
    return TensorMeta((x._shape[0], weight._shape[2]), x.dtype)


def _group_bounds(group_list, rows):
    """(start, end) row ranges of the groups from the cumulative ends in group_list."""
    ends = [int(e) for e in group_list.tolist()]
    starts = [0] + ends[:-1]
    if any(e < s for s, e in zip(starts, ends)) or (ends and (ends[0] < 0 or ends[-1] > rows)):
        raise RuntimeError(
            f"npu_grouped_matmul: group_list must be non-decreasing cumulative row ends within [0, {rows}], "
            f"but got {ends}"
        )
    return list(zip(starts, ends))


def _grouped_matmul(x, weight, group_list):
    """Rows past the last group's end are zero."""
    _grouped_matmul_meta(x, weight, group_list)
    bounds = _group_bounds(group_list, x.shape[0])
    parts = [torch.matmul(x[s:e], weight[g]) for g, (s, e) in enumerate(bounds)]
    tail = x.shape[0] - (bounds[-1][1] if bounds else 0)
    parts.append(torch.zeros((tail, weight.shape[2]), dtype=x.dtype, device=x.device))
    return torch.cat(parts, 0)


def _grouped_matmul_backward_meta(grad, x, weight, group_list):
    out = _grouped_matmul_meta(x, weight, group_list)
    if tuple(grad._shape) != tuple(out.shape):
        raise RuntimeError(f"npu_grouped_matmul_backward: grad of shape {_shp(grad.shape)}, expected {_shp(out.shape)}")
    return TensorMeta(x._shape, x.dtype), TensorMeta(weight._shape, weight.dtype)


def _grouped_matmul_backward(grad, x, weight, group_list):
    _grouped_matmul_backward_meta(grad, x, weight, group_list)
    bounds = _group_bounds(group_list, x.shape[0])
    dx = [torch.matmul(grad[s:e], weight[g].transpose(0, 1)) for g, (s, e) in enumerate(bounds)]
    tail = x.shape[0] - (bounds[-1][1] if bounds else 0)
    dx.append(torch.zeros((tail, x.shape[1]), dtype=x.dtype, device=x.device))
    dw = [torch.matmul(x[s:e].transpose(0, 1), grad[s:e]) for s, e in bounds]
    return torch.cat(dx, 0), (torch.stack(dw, 0) if dw else torch.zeros_like(weight))


defop(
    "_grouped_matmul(Tensor x, Tensor weight, Tensor group_list) -> Tensor",
    meta=_grouped_matmul_meta,
    composite=computed_in_float32(_grouped_matmul),
    method=False,
    function=False,
    family=F,
    nondiff=("group_list",),
    grad={"x, weight": "torch.ops._grouped_matmul_backward(grad, x, weight, group_list)"},
)
defop(
    "_grouped_matmul_backward(Tensor grad, Tensor x, Tensor weight, Tensor group_list) -> "
    "(Tensor grad_x, Tensor grad_weight)",
    meta=_grouped_matmul_backward_meta,
    composite=computed_in_float32(_grouped_matmul_backward),
    method=False,
    function=False,
    family=F,
    nondiff=("group_list",),
    grad={"grad, x, weight": "grouped_matmul_double_backward(grads, grad, x, weight, group_list)"},
)


def _batch_norm_meta(input, weight, bias, running_mean, running_var, training, momentum, eps):
    if input.ndim < 2:
        raise ValueError(f"expected 2D or higher input (got {input.ndim}D input)")
    c = input._shape[1]
    for name, t in (("weight", weight), ("bias", bias), ("running_mean", running_mean), ("running_var", running_var)):
        if t is not None and t.numel() != c:
            raise RuntimeError(f"{name} should contain {c} elements not {t.numel()}")
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError("running_mean must be defined in evaluation mode")
    sd = D.float32 if input.dtype in (D.float16, D.bfloat16) else input.dtype
    return TensorMeta(input._shape, input.dtype), TensorMeta((c,), sd), TensorMeta((c,), sd)


# The backward recomputes the batch statistics from the input instead of reading result[1:], because
# reading `result` saves every output, and PyTorch allows in-place ops on the output (BatchNorm2d
# followed by ReLU(inplace=True)).
defop(
    "_batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor(a!)? running_mean, Tensor(b!)? running_var, "
    "bool training, float momentum, float eps) -> (Tensor output, Tensor save_mean, Tensor save_invstd)",
    meta=_batch_norm_meta,
    method=False,
    function=False,
    family=F,
    nondiff=("running_mean", "running_var"),
    unversioned=("running_mean", "running_var"),
    grad={
        "input, weight, bias": "torch.ops._batch_norm_backward(grads[0], input, weight, running_mean, "
        "running_var, None, None, training, eps)"
    },
)
defop(
    "_batch_norm_backward(Tensor grad_out, Tensor input, Tensor? weight, Tensor? running_mean, "
    "Tensor? running_var, Tensor? save_mean, Tensor? save_invstd, bool training, float eps) -> "
    "(Tensor grad_input, Tensor grad_weight, Tensor grad_bias)",
    meta=lambda g, x, *a: (
        TensorMeta(x._shape, g.dtype),
        TensorMeta((x._shape[1],), g.dtype),
        TensorMeta((x._shape[1],), g.dtype),
    ),
    method=False,
    function=False,
    family=F,
    nondiff=("running_mean", "running_var", "save_mean", "save_invstd"),
    grad={"grad_out": "not_implemented('batch_norm double backward')"},
)


def _group_norm_meta(input, weight, bias, num_groups, eps):
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.ndim}")
    n, c = input._shape[:2]
    if num_groups <= 0 or c % num_groups:
        raise RuntimeError(
            f"Expected number of channels in input to be divisible by num_groups, but got input "
            f"of shape {_shp(input.shape)} and num_groups={num_groups}"
        )
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.ndim != 1 or t.numel() != c):
            raise RuntimeError(
                f"Expected {name} to be a vector of size equal to the number of channels in "
                f"input, but got {name} of shape {_shp(t.shape)} and input of shape "
                f"{_shp(input.shape)}"
            )
    # the statistics in the input's dtype, as PyTorch's cpu native_group_norm (and aclnnGroupNorm) give them
    stats = TensorMeta((n, num_groups), input.dtype)
    return TensorMeta(input._shape, input.dtype), stats, stats


defop(
    "_group_norm(Tensor input, Tensor? weight, Tensor? bias, int num_groups, float eps) -> "
    "(Tensor output, Tensor mean, Tensor rstd)",
    meta=_group_norm_meta,
    method=False,
    function=False,
    family=F,
    grad={
        "input, weight, bias": "torch.ops._group_norm_backward(grads[0], input, weight, result[1], result[2], "
        "num_groups)"
    },
)
defop(
    "_group_norm_backward(Tensor grad_out, Tensor input, Tensor? weight, Tensor mean, Tensor rstd, "
    "int num_groups) -> (Tensor grad_input, Tensor grad_weight, Tensor grad_bias)",
    meta=lambda g, x, *a: (
        TensorMeta(x._shape, g.dtype),
        TensorMeta((x._shape[1],), g.dtype),
        TensorMeta((x._shape[1],), g.dtype),
    ),
    method=False,
    function=False,
    family=F,
    nondiff=("mean", "rstd"),
    grad={"grad_out": "not_implemented('group_norm double backward')"},
)


# --- embedding -------------------------------------------------------------------------
def _check_indices(indices, fname):
    if indices.dtype not in (D.int64, D.int32):
        raise RuntimeError(
            f"Expected tensor for argument #1 'indices' to have one of the following scalar "
            f"types: Long, Int; but got torch.{_tn(indices.dtype)}Tensor instead (while checking "
            f"arguments for {fname})"
        )


def _embedding_meta(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    _check_indices(indices, "embedding")
    if weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    return TensorMeta(tuple(indices._shape) + (weight._shape[1],), weight.dtype)


defop(
    "embedding(Tensor weight, Tensor indices, SymInt padding_idx=-1, bool scale_grad_by_freq=False, "
    "bool sparse=False) -> Tensor",
    meta=_embedding_meta,
    method=False,
    family=F,
    nondiff=("indices",),
    grad={"weight": "torch.ops._embedding_backward(grad, indices, weight.shape[0], padding_idx, scale_grad_by_freq)"},
)
defop(
    "_embedding_backward(Tensor grad_output, Tensor indices, SymInt num_weights, SymInt padding_idx, "
    "bool scale_grad_by_freq) -> Tensor",
    meta=lambda g, i, n, p, s: TensorMeta((n, g._shape[-1]), g.dtype),
    method=False,
    function=False,
    family=F,
    nondiff=("indices",),
    grad={"grad_output": "not_implemented('embedding double backward')"},
)


def _embedding_renorm(self, indices, max_norm, norm_type):
    """Rows named by `indices` whose norm exceeds max_norm are scaled to max_norm / (norm + 1e-7); a row
    named twice is written twice with the same values."""
    rows = indices.reshape(-1)
    picked = self.index_select(0, rows)
    norms = torch.linalg.vector_norm(picked, norm_type, dim=1, keepdim=True)
    scale = torch.where(norms > max_norm, max_norm / (norms + 1e-7), torch.ones_like(norms))
    return self.index_copy_(0, rows, picked * scale)


declare_inplace(
    "_embedding_renorm_(Tensor(a!) self, Tensor indices, float max_norm, float norm_type) -> Tensor(a!)",
    meta=lambda s, i, m, n: _embedding_renorm_meta(s),
    function=True,
    family=F,
    composite=_embedding_renorm,
)


# --- nll loss (class-index targets) --------------------------------------------------------
def _nll_meta(input, target, weight, reduction, ignore_index):
    shape, td = input._shape, target.dtype
    nd = len(shape)
    if nd < 1:
        raise ValueError("input tensor should be 1D or 2D")
    if td is not D.int64 and (td._kind >= 2 or td is not D.uint8):
        raise RuntimeError(f"expected scalar type Long but found {_tn(td)}")
    if nd == 1:
        exp_t = ()
        c = shape[0]
    else:
        c = shape[1]
        exp_t = (shape[0],) + tuple(shape[2:])
    if tuple(target._shape) != exp_t:
        if nd <= 2:
            raise (
                ValueError(
                    f"Expected input batch_size ({input._shape[0] if input.ndim else 0}) to match target "
                    f"batch_size ({target._shape[0] if target.ndim else 0})."
                )
                if target.ndim == 1 and input.ndim == 2
                else RuntimeError("0D or 1D target tensor expected, multi-target not supported")
            )
        raise RuntimeError(f"Expected target size {_shp(exp_t[:1] + exp_t[1:])}, got {_shp(target.shape)}")
    if weight is not None and (weight.ndim != 1 or weight.numel() != c):
        raise RuntimeError(
            f"weight tensor should be defined either for all {c} classes or no classes but got "
            f"weight tensor of shape: {_shp(weight.shape)}"
        )
    total = TensorMeta((), input.dtype)
    return (TensorMeta(exp_t, input.dtype) if reduction == 0 else total), total


defop(
    "_nll_loss(Tensor self, Tensor target, Tensor? weight, int reduction, SymInt ignore_index) -> "
    "(Tensor loss, Tensor total_weight)",
    meta=_nll_meta,
    method=False,
    function=False,
    family=F,
    nondiff=("target", "weight"),
    grad={"self": "torch.ops._nll_loss_backward(grads[0], self, target, weight, reduction, ignore_index, result[1])"},
)
defop(
    "_nll_loss_backward(Tensor grad_output, Tensor self, Tensor target, Tensor? weight, int reduction, "
    "SymInt ignore_index, Tensor total_weight) -> Tensor",
    meta=lambda g, s, *a: TensorMeta(s._shape, g.dtype),
    method=False,
    function=False,
    family=F,
    nondiff=("target", "weight", "total_weight"),
    grad={"grad_output": "not_implemented('nll_loss double backward')"},
)


# --- scaled dot-product attention (fused) -------------------------------------------------------
def _sdpa_float(query):
    if query.dtype._kind < 2:
        raise RuntimeError(f"expected scalar type Float but found {D._cname(query.dtype)}")
    if query.dtype._kind == 3:
        raise NotImplementedError(f"\"softmax_lastdim_kernel_impl\" not implemented for '{D._cname(query.dtype)}'")


def _sdpa_groups(query, key, value):
    """How many query heads share each key / value head: 1, or the ratio of dim -3's sizes (grouped-query
    attention) when key and value have fewer heads than query and the leading dims agree otherwise."""
    lead, klead, vlead = (tuple(t._shape[:-2]) for t in (query, key, value))
    if klead == lead and vlead == lead:
        return 1
    kh = klead[-1] if klead else 0
    if len(lead) and klead == vlead and klead[:-1] == lead[:-1] and kh and lead[-1] % kh == 0:
        return lead[-1] // kh
    raise RuntimeError(
        "scaled_dot_product_attention: query, key and value must have the same batch dimensions (key and "
        f"value may have a divisor of query's heads), but got {_shp(query.shape)}, {_shp(key.shape)} and "
        f"{_shp(value.shape)}"
    )


def _sdpa_check_dropout(query, key, dropout_mask, dropout_p):
    if dropout_mask is None:
        return
    want = tuple(query._shape[:-1]) + (key._shape[-2],)
    if dropout_mask.dtype is not D.bool_ or tuple(dropout_mask._shape) != want:
        raise RuntimeError(
            f"scaled_dot_product_attention: dropout_mask must be a bool tensor of shape {_shp(want)}, but got "
            f"{D._cname(dropout_mask.dtype)} {_shp(dropout_mask.shape)}"
        )
    if not 0.0 <= dropout_p < 1.0:
        raise RuntimeError(f"scaled_dot_product_attention: dropout_p must be in [0, 1) with a mask, got {dropout_p}")


def _sdpa_meta(query, key, value, attn_mask, is_causal, scale, dropout_mask=None, dropout_p=0.0):
    if query.ndim < 2 or key.ndim != query.ndim or value.ndim != query.ndim:
        raise RuntimeError("scaled_dot_product_attention: expected query, key and value of the same rank (>= 2)")
    _check_float("scaled_dot_product_attention", query, key, value)
    _sdpa_float(query)
    _sdpa_groups(query, key, value)
    lead = tuple(query._shape[:-2])
    L, E = query._shape[-2:]
    S = key._shape[-2]
    if key._shape[-1] != E or value._shape[-2] != S:
        raise RuntimeError(
            f"scaled_dot_product_attention: shapes {_shp(query.shape)}, {_shp(key.shape)} and "
            f"{_shp(value.shape)} do not fit together"
        )
    _sdpa_check_dropout(query, key, dropout_mask, dropout_p)
    return TensorMeta(lead + (L, value._shape[-1]), query.dtype), TensorMeta(lead + (L,), _sdpa_stat_dtype(query))


def _sdpa_stat_dtype(query):
    """The row statistics' dtype: float32 for half-precision inputs (as the fused kernels keep them)."""
    return D.float32 if query.dtype.itemsize == 2 else query.dtype


def _sdpa_backward_meta(g, q, k, v, attn_mask, is_causal, out, logsumexp, scale, dropout_mask=None, dropout_p=0.0):
    _sdpa_float(q)
    _sdpa_groups(q, k, v)
    _sdpa_check_dropout(q, k, dropout_mask, dropout_p)
    return TensorMeta(q._shape, q.dtype), TensorMeta(k._shape, k.dtype), TensorMeta(v._shape, v.dtype)


def _sdpa_scores(query, key, attn_mask, is_causal, scale):
    attn = torch.matmul(query, key.transpose(-2, -1)) * scale
    L, S = query.shape[-2], key.shape[-2]
    if is_causal:
        keep = torch.ones((L, S), dtype=torch.bool, device=query.device).tril()
        attn = attn.masked_fill(~keep, float("-inf"))
    elif attn_mask is not None:
        attn = attn.masked_fill(~attn_mask, float("-inf")) if attn_mask.dtype is torch.bool else attn + attn_mask
    return attn


def _widened(*ts):
    """Half-precision tensors in float32 (the composites compute there and round once), others as given."""
    return [t.float() if t is not None and t.dtype.is_floating_point and t.dtype.itemsize == 2 else t for t in ts]


def _sdpa_heads(t, groups):
    """Key / value heads repeated for the query heads that share them (grouped-query attention)."""
    return t if groups == 1 else t.repeat_interleave(groups, -3)


def _sdpa_head_sums(t, groups):
    """A gradient over the repeated heads summed back onto each shared key / value head."""
    if groups == 1:
        return t
    return t.unflatten(-3, (t.shape[-3] // groups, groups)).sum(-3)


def _sdpa_dropped(attn, dropout_mask, dropout_p):
    """The probabilities with the dropped ones zeroed and the kept ones scaled by 1 / (1 - dropout_p)."""
    if dropout_mask is None:
        return attn
    return attn.masked_fill(~dropout_mask, 0.0) * (1.0 / (1.0 - dropout_p))


def sdpa_composite(query, key, value, attn_mask, is_causal, scale, dropout_mask=None, dropout_p=0.0):
    """Attention as a chain of ops (backends without the fused kernel): (out, logsumexp of each row's scaled,
    masked scores), the statistics in float32 for half-precision inputs; dropout_mask (True = kept) applies
    to the probabilities, after the softmax, as PyTorch's math formulation does."""
    groups = _sdpa_groups(query, key, value)
    q, k, v, m = _widened(query, key, value, attn_mask)
    scores = _sdpa_scores(q, _sdpa_heads(k, groups), m, is_causal, scale)
    attn = _sdpa_dropped(torch.softmax(scores, -1), dropout_mask, dropout_p)
    out = torch.matmul(attn, _sdpa_heads(v, groups))
    return out.to(query.dtype), torch.logsumexp(scores, -1).detach()  # saved for the backward, not differentiated


def sdpa_backward_composite(
    grad_out, query, key, value, attn_mask, is_causal, out, logsumexp, scale, dropout_mask=None, dropout_p=0.0
):
    """The probabilities recomputed from the scores and the forward's row statistics: exp(scores - logsumexp);
    the dropout mask scales both the probabilities v sees and the gradient reaching them."""
    groups = _sdpa_groups(query, key, value)
    g, q, k, v, m = _widened(grad_out, query, key, value, attn_mask)
    k, v = _sdpa_heads(k, groups), _sdpa_heads(v, groups)
    attn = torch.exp(_sdpa_scores(q, k, m, is_causal, scale) - logsumexp.to(q.dtype).unsqueeze(-1))
    attn = attn / attn.sum(-1, keepdim=True)  # a rounding of logsumexp scales its whole row: divided out
    dv = torch.matmul(_sdpa_dropped(attn, dropout_mask, dropout_p).transpose(-2, -1), g)
    dp = _sdpa_dropped(torch.matmul(g, v.transpose(-2, -1)), dropout_mask, dropout_p)
    ds = attn * (dp - (dp * attn).sum(-1, keepdim=True)) * scale
    dk = _sdpa_head_sums(torch.matmul(ds.transpose(-2, -1), q), groups)
    grads = torch.matmul(ds, k), dk, _sdpa_head_sums(dv, groups)
    return tuple(gr.to(t.dtype) for gr, t in zip(grads, (query, key, value)))


# The second output is each row's logsumexp of the scaled, masked scores (float32 for half-precision inputs),
# kept for the backward, which recomputes the probabilities from it (memory O(L), not O(L * S)); a float mask
# is added before the softmax and gets no gradient here (F.scaled_dot_product_attention routes a mask that
# requires grad through the op-by-op path). Key and value may have fewer heads (dim -3) than query, a divisor
# of them (grouped-query attention); dropout_mask (bool, query's shape with key's length last, True = kept) is
# drawn by the caller, so forward and backward apply the same one.
defop(
    "_scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_mask, bool is_causal, "
    "float scale, Tensor? dropout_mask=None, float dropout_p=0.0) -> (Tensor output, Tensor logsumexp)",
    meta=_sdpa_meta,
    composite=sdpa_composite,
    method=False,
    function=False,
    family=F,
    nondiff=("attn_mask", "dropout_mask"),
    grad={
        "query, key, value": "torch.ops._scaled_dot_product_attention_backward(grads[0], query, key, value, "
        "attn_mask, is_causal, result[0], result[1], scale, dropout_mask, dropout_p)"
    },
)
defop(
    "_scaled_dot_product_attention_backward(Tensor grad_out, Tensor query, Tensor key, Tensor value, "
    "Tensor? attn_mask, bool is_causal, Tensor output, Tensor logsumexp, float scale, Tensor? dropout_mask=None, "
    "float dropout_p=0.0) -> (Tensor grad_query, Tensor grad_key, Tensor grad_value)",
    meta=_sdpa_backward_meta,
    composite=sdpa_backward_composite,
    method=False,
    function=False,
    family=F,
    grad={"grad_out": "not_implemented('scaled_dot_product_attention double backward')"},
)


# --- cross entropy with class indices (fused log_softmax + nll) ----------------------------------
def _embedding_renorm_meta(self):
    if self.dtype._kind < 2:
        raise RuntimeError(
            f"norm(): input dtype should be either floating point or complex. Got {D._cname(self.dtype)} instead."
        )
    return TensorMeta(self._shape, self.dtype)


def _cross_entropy_meta(input, target, weight, reduction, ignore_index):
    if input.ndim != 2:
        raise RuntimeError(f"_cross_entropy: expected 2-d input (N, C), but got {_shp(input.shape)}")
    loss, total = _nll_meta(input, target, weight, reduction, ignore_index)
    return loss, total, TensorMeta(input._shape, input.dtype)


def cross_entropy_composite(input, target, weight, reduction, ignore_index):
    logp = torch.log_softmax(input, 1)
    loss, total = torch.ops._nll_loss(logp, target, weight, reduction, ignore_index)
    # the total weight and log-probabilities are saved values, not differentiable outputs: the fused
    # op's derivative reads only grads[0], so the decomposition must not differ from it
    return loss, total.detach(), logp.detach()


def cross_entropy_backward_composite(grad, log_probs, target, weight, reduction, ignore_index, total_weight):
    g = torch.ops._nll_loss_backward(grad, log_probs, target, weight, reduction, ignore_index, total_weight)
    return torch.ops._log_softmax_backward_data(g, log_probs, 1)


# Outputs: the loss, the total weight and the log-probabilities (kept for the backward, which is one
# pass over the logits: (softmax - one_hot) * weight * grad).
defop(
    "_cross_entropy(Tensor self, Tensor target, Tensor? weight, int reduction, SymInt ignore_index) -> "
    "(Tensor loss, Tensor total_weight, Tensor log_probs)",
    meta=_cross_entropy_meta,
    composite=cross_entropy_composite,
    method=False,
    function=False,
    family=F,
    nondiff=("target", "weight"),
    grad={
        "self": "torch.ops._cross_entropy_backward(grads[0], result[2], target, weight, reduction, "
        "ignore_index, result[1])"
    },
)
defop(
    "_cross_entropy_backward(Tensor grad_output, Tensor log_probs, Tensor target, Tensor? weight, int reduction, "
    "SymInt ignore_index, Tensor total_weight) -> Tensor",
    meta=lambda g, lp, *a: (
        _no_kernel_for("log_softmax_lastdim_kernel_impl", lp.dtype),
        TensorMeta(lp._shape, g.dtype),
    )[1],
    composite=cross_entropy_backward_composite,
    method=False,
    function=False,
    family=F,
    nondiff=("target", "weight", "total_weight"),
    grad={"grad_output": "not_implemented('cross_entropy double backward')"},
)


# --- recurrent layers: one op runs one direction of one layer over the whole sequence -------------------
# The sequence is time-major and packed: `input` is (sum(batch_sizes), features), step t holding the
# first batch_sizes[t] sequences (a padded batch is one whose batch size never shrinks). Outputs: the
# per-step hidden states, the final hidden (and, for LSTM, cell) state, and a workspace of per-step
# activations the backward reads. Workspace columns, per mode:
#   LSTM      i, f, g, o (activated gates, 4H) | tanh(c_t) (H) | h_prev (Hout) | c_prev (H)
#   GRU       r, z, n (3H) | W_hn h_prev + b_hn (H) | h_prev (H)
#   RNN_*     h_t (H) | h_prev (H)
RNN_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _rnn_sizes(mode, w_ih, w_hr):
    """(hidden size, output size, workspace width) of one layer."""
    h = w_ih._shape[0] // RNN_GATES[mode]
    out = w_hr._shape[0] if w_hr is not None else h
    width = {"LSTM": 6 * h + out, "GRU": 5 * h}.get(mode, 2 * h)
    return h, out, width


def _rnn_layer_checks(input, hx, cx, w_ih, w_hh, batch_sizes, mode):
    if mode not in RNN_GATES:
        raise RuntimeError(f"_rnn_layer: unknown mode {mode!r}")
    if input.ndim != 2 or hx.ndim != 2:
        raise RuntimeError(
            f"_rnn_layer: expected a 2-D packed input and a 2-D hx, got {_shp(input.shape)} and {_shp(hx.shape)}"
        )
    if (mode == "LSTM") != (cx is not None):
        raise RuntimeError("_rnn_layer: cx is required for LSTM and only for LSTM")
    bs = list(batch_sizes)
    if any(b <= 0 for b in bs) or any(a < b for a, b in zip(bs, bs[1:])):
        raise RuntimeError(f"_rnn_layer: batch_sizes must be positive and non-increasing, got {bs}")
    if sum(bs) != input._shape[0] or (bs and bs[0] != hx._shape[0]):
        raise RuntimeError(
            f"_rnn_layer: batch_sizes {bs} do not fit an input of {input._shape[0]} rows and a batch of {hx._shape[0]}"
        )
    if w_ih.ndim != 2 or w_ih._shape[1] != input._shape[1] or w_ih._shape[0] % RNN_GATES[mode]:
        raise RuntimeError(
            f"_rnn_layer: weight_ih of shape {_shp(w_ih.shape)} does not fit input of shape {_shp(input.shape)}"
        )
    if tuple(w_hh._shape) != (w_ih._shape[0], hx._shape[1]):
        raise RuntimeError(
            f"_rnn_layer: weight_hh of shape {_shp(w_hh.shape)} does not fit hx of shape {_shp(hx.shape)}"
        )


def _rnn_state_checks(hx, cx, b_ih, b_hh, w_hr, gates, h, out):
    """The state, bias and projection shapes, for `gates` gate rows, hidden size h and output size out."""
    batch = hx._shape[0]
    expected = (
        ("hx", hx, (batch, out)),
        ("cx", cx, (batch, h)),
        ("bias_ih", b_ih, (gates,)),
        ("bias_hh", b_hh, (gates,)),
        ("weight_hr", w_hr, (out, h)),
    )
    for name, t, shape in expected:
        if t is not None and tuple(t._shape) != shape:
            raise RuntimeError(f"_rnn_layer: expected {name} of shape {_shp(shape)}, got {_shp(t.shape)}")


def _rnn_layer_meta(input, hx, cx, w_ih, w_hh, b_ih, b_hh, w_hr, batch_sizes, mode, reverse):
    _rnn_layer_checks(input, hx, cx, w_ih, w_hh, batch_sizes, mode)
    _check_float("_rnn_layer", input, hx, cx, w_ih, w_hh, b_ih, b_hh, w_hr)
    _no_kernel_for("addmm_impl_cpu_", input.dtype)  # its matrix products have no integer or bool kernels
    if input.dtype._kind == 3:  # the cpu kernel and the composite disagree on complex: neither is trusted yet
        raise NotImplementedError("_rnn_layer: complex recurrent layers are not implemented")
    h, out, width = _rnn_sizes(mode, w_ih, w_hr)
    _rnn_state_checks(hx, cx, b_ih, b_hh, w_hr, w_ih._shape[0], h, out)
    dt = input.dtype
    c_n = (cx._shape[0], h) if cx is not None else (0,)
    rows = input._shape[0]
    return TensorMeta((rows, out), dt), TensorMeta(hx._shape, dt), TensorMeta(c_n, dt), TensorMeta((rows, width), dt)


def _rnn_layer_backward_meta(g_out, g_hy, g_cy, input, hx, cx, w_ih, w_hh, b_ih, b_hh, w_hr, ws, bs, mode, reverse):
    if input.dtype._kind < 2:  # as the composite: integers and bool carry no gradients
        raise RuntimeError("only Tensors of floating point dtype can require gradients")
    if input.dtype._kind == 3:  # neither the cpu kernel nor the composite gets complex gradients right yet
        raise NotImplementedError("_rnn_layer_backward: gradients of complex recurrent layers are not implemented")
    # an absent argument (cx, a bias, weight_hr) gets an empty gradient
    return tuple(
        TensorMeta(t._shape if t is not None else (0,), input.dtype)
        for t in (input, hx, cx, w_ih, w_hh, b_ih, b_hh, w_hr)
    )


def lstm_cell(gi, h, c, w_hh_t, w_hr):
    """One LSTM step from the input projection (both biases in): (h, c, activated gates)."""
    gates = torch.addmm(gi, h, w_hh_t)
    # one sigmoid over all four gates (the g slice is unused) instead of three
    i, f, _, o = torch.sigmoid(gates).chunk(4, -1)
    g = torch.tanh(gates.chunk(4, -1)[2])
    c = f * c + i * g
    h = o * torch.tanh(c)
    if w_hr is not None:
        h = torch.ops.linear(h, w_hr)
    return h, c, (i, f, g, o)


def gru_cell(gi, h, w_hh_t, b_hh):
    """One GRU step from the input projection (b_ih in, b_hh apart): (h, (r, z, n, W_hn h + b_hn))."""
    i_r, i_z, i_n = gi.chunk(3, -1)
    gh = h.mm(w_hh_t) if b_hh is None else torch.addmm(b_hh, h, w_hh_t)
    h_r, h_z, h_n = gh.chunk(3, -1)
    r = torch.sigmoid(i_r + h_r)
    z = torch.sigmoid(i_z + h_z)
    n = torch.tanh(i_n + r * h_n)
    return (1 - z) * n + z * h, (r, z, n, h_n)


def _rnn_cell(act):
    # looked up per call: naming torch.tanh at import would generate it then
    def cell(gi, h, w_hh_t):
        return getattr(torch, act)(torch.addmm(gi, h, w_hh_t))

    return cell


RNN_CELLS = {"RNN_TANH": _rnn_cell("tanh"), "RNN_RELU": _rnn_cell("relu")}


def rnn_input_projection(mode, x, w_ih, b_ih, b_hh):
    """x W_ih^T + b_ih, plus b_hh where the step takes it folded in (all modes but GRU)."""
    gi = torch.ops.linear(x, w_ih, b_ih)
    if mode != "GRU" and b_hh is not None:
        gi = gi + b_hh
    return gi


def rnn_steps(batch_sizes, reverse):
    """(first row, batch size) of each time step, in the order the recurrence visits them."""
    steps, off = [], 0
    for b in batch_sizes:
        steps.append((off, b))
        off += b
    return steps[::-1] if reverse else steps


def _merged(new, old, b):
    """The new state of the first b sequences over the kept state of the others."""
    return new if b == old.shape[0] else torch.cat([new, old[b:]], 0)


def _rnn_step(mode, x, h, c, w_hh_t, b_hh, w_hr):
    """One step of any mode: (h, c, workspace row block)."""
    if mode == "LSTM":
        h2, c2, gates = lstm_cell(x, h, c, w_hh_t, w_hr)
        return h2, c2, torch.cat([*gates, torch.tanh(c2), h, c], 1)
    if mode == "GRU":
        h2, parts = gru_cell(x, h, w_hh_t, b_hh)
        return h2, None, torch.cat([*parts, h], 1)
    h2 = RNN_CELLS[mode](x, h, w_hh_t)
    return h2, None, torch.cat([h2, h], 1)


def rnn_layer_composite(input, hx, cx, w_ih, w_hh, b_ih, b_hh, w_hr, batch_sizes, mode, reverse):
    """The layer as per-step ops (devices without the fused kernel): the reference the kernels follow."""
    gi = rnn_input_projection(mode, input, w_ih, b_ih, b_hh)
    w_hh_t = w_hh.t()
    h, c = hx, cx
    outs, saved = [], []
    for off, b in rnn_steps(batch_sizes, reverse):
        h2, c2, ws = _rnn_step(mode, gi[off : off + b], h[:b], None if c is None else c[:b], w_hh_t, b_hh, w_hr)
        h = _merged(h2, h, b)
        if c is not None:
            c = _merged(c2, c, b)
        outs.append(h2)
        saved.append(ws)
    if reverse:
        outs.reverse()
        saved.reverse()
    width = _rnn_sizes(mode, w_ih, w_hr)[2]
    empty = input.new_empty((0, width))
    out = torch.cat(outs, 0) if outs else input.new_empty((0, h.shape[1]))
    workspace = torch.cat(saved, 0) if saved else empty
    c_n = c if c is not None else input.new_empty((0,))
    return out, h, c_n, workspace.detach()  # the workspace is a saved value, not a differentiable output


def rnn_layer_backward_composite(g_out, g_hy, g_cy, input, hx, cx, w_ih, w_hh, b_ih, b_hh, w_hr, ws, bs, mode, reverse):
    """Backpropagation through time by differentiating the per-step composite (it recomputes the forward;
    the workspace is not read). Dispatch also runs it when a graph of the gradient is being built
    (create_graph=True): the op declares no derivative, so double backward goes through these steps."""
    args = (input, hx, cx, w_ih, w_hh, b_ih, b_hh, w_hr)
    create_graph = torch.is_grad_enabled() and any(
        t is not None and t.requires_grad for t in (g_out, g_hy, g_cy) + args
    )
    grads = rnn_layer_vjp(g_out, g_hy, g_cy, args, bs, mode, reverse, create_graph)
    sizes = _rnn_layer_backward_meta(g_out, g_hy, g_cy, *args, ws, bs, mode, reverse)
    return tuple(g if g is not None else input.new_zeros(tuple(m.shape)) for g, m in zip(grads, sizes))


def rnn_layer_vjp(g_out, g_hy, g_cy, args, batch_sizes, mode, reverse, create_graph):
    """Gradients of the layer's outputs' dot product with (g_out, g_hy, g_cy) with respect to `args` (input,
    hx, cx, w_ih, w_hh, b_ih, b_hh, w_hr), through the per-step composite; None where an argument is
    absent or, with create_graph, does not require grad. With create_graph the result is differentiable
    with respect to the arguments and the incoming gradients (double backward)."""
    with torch.enable_grad():
        if not create_graph:
            args = tuple(a if a is None else a.detach().requires_grad_() for a in args)
        out, hy, cy, _ = rnn_layer_composite(*args, batch_sizes, mode, reverse)
        wrt = [k for k, a in enumerate(args) if a is not None and a.requires_grad]
        roots = [(t, g) for t, g in ((out, g_out), (hy, g_hy), (cy, g_cy)) if g is not None and t.requires_grad]
        got = ()
        if wrt and roots:
            got = torch.autograd.grad(
                [t for t, _ in roots],
                [args[k] for k in wrt],
                [g for _, g in roots],
                create_graph=create_graph,
                allow_unused=True,
            )
    grads = [None] * len(args)
    for k, g in zip(wrt, got):
        grads[k] = g
    return tuple(grads)


defop(
    "_rnn_layer(Tensor input, Tensor hx, Tensor? cx, Tensor weight_ih, Tensor weight_hh, Tensor? bias_ih, "
    "Tensor? bias_hh, Tensor? weight_hr, int[] batch_sizes, str mode, bool reverse) -> "
    "(Tensor output, Tensor h_n, Tensor c_n, Tensor workspace)",
    meta=_rnn_layer_meta,
    composite=computed_in_float32(rnn_layer_composite),
    method=False,
    function=False,
    family=F,
    grad={
        "input, hx, cx, weight_ih, weight_hh, bias_ih, bias_hh, weight_hr": "torch.ops._rnn_layer_backward("
        "grads[0], grads[1], grads[2] if mode == 'LSTM' else None, input, hx, cx, weight_ih, weight_hh, "
        "bias_ih, bias_hh, weight_hr, result[3], batch_sizes, mode, reverse)"
    },
)
# Backpropagation through time for the whole sequence in one op. It declares no derivative: when its
# result must be differentiable, dispatch runs the composite, which builds the graph step by step.
defop(
    "_rnn_layer_backward(Tensor grad_output, Tensor grad_hy, Tensor? grad_cy, Tensor input, Tensor hx, "
    "Tensor? cx, Tensor weight_ih, Tensor weight_hh, Tensor? bias_ih, Tensor? bias_hh, Tensor? weight_hr, "
    "Tensor workspace, int[] batch_sizes, str mode, bool reverse) -> (Tensor grad_input, Tensor grad_hx, "
    "Tensor grad_cx, Tensor grad_weight_ih, Tensor grad_weight_hh, Tensor grad_bias_ih, Tensor grad_bias_hh, "
    "Tensor grad_weight_hr)",
    meta=_rnn_layer_backward_meta,
    composite=computed_in_float32(rnn_layer_backward_composite),
    method=False,
    function=False,
    family=F,
)


# Input dtypes PyTorch has no kernel for, by op: (the kernel's name in its NotImplementedError, the refused
# dtype kinds: 0 bool, 1 integer, 3 complex, or a test of the dtype). Refused in the op's shared rule, so every backend refuses alike.
_BIC = (0, 1, 3)


def _lacks_all_but_float_and_int64(d):
    """A kernel with floating point and int64 forms only."""
    return d._kind in (0, 3) or (d._kind == 1 and d is not D.int64)


NO_KERNEL = {
    "native_layer_norm": ("LayerNormKernelImpl", _BIC),
    "_group_norm": ("GroupNormKernelImpl", _BIC),
    "_batch_norm": ("batch_norm", _BIC),
    "_nll_loss": ("nll_loss_out_frame", _BIC),
    "_cross_entropy": ("log_softmax_lastdim_kernel_impl", _BIC),
    "softmax": ("softmax_lastdim_kernel_impl", _BIC),
    "log_softmax": ("log_softmax_lastdim_kernel_impl", _BIC),
    "mish": ("mish_cpu", _BIC),
    "mish_": ("mish_cpu", _BIC),
    "elu": ("elu_cpu", _BIC),
    "elu_": ("elu_cpu", _BIC),
    "leaky_relu": ("leaky_relu_cpu", _BIC),
    "leaky_relu_": ("leaky_relu_cpu", _BIC),
    "softplus": ("softplus_cpu", _BIC),
    "_max_pool2d_with_indices": ("max_pool2d", (0, 3)),
    "_avg_pool2d": ("avg_pool2d", _lacks_all_but_float_and_int64),
    "_conv2d": ("slow_conv2d_cpu", (0,)),
    "linear": ("addmm_impl_cpu_", (0,)),
    "_adaptive_avg_pool2d": ("adaptive_avg_pool2d", _BIC),
}


def _refusing(rule, kname, kinds):
    def checked(input, *rest, **kw):
        _no_kernel_for(kname, input.dtype, kinds)
        return rule(input, *rest, **kw)

    checked.__wrapped__ = rule
    return checked


def refuse_missing_kernels():
    """Put NO_KERNEL's refusals in front of the listed ops' rules (once the whole table is declared)."""
    for q, (kname, kinds) in NO_KERNEL.items():
        op = OPS[q]
        if not hasattr(op.meta, "__wrapped__"):
            op.meta = _refusing(op.meta, kname, kinds)
