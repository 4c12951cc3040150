"""mindtorch.nn.functional: PyTorch's functional API over mindtorch ops (device-agnostic)."""
import math
import warnings

import mindtorch as torch

_ops = torch.ops
Tensor = torch.Tensor


# --- helpers ---------------------------------------------------------------------------
def _pair(v, n=2, name="argument"):
    if isinstance(v, (list, tuple)):
        if len(v) == 1:
            return tuple(int(v[0]) for _ in range(n))
        if len(v) != n:
            raise RuntimeError(f"expected {name} to be a single integer value or a list of {n} values")
        return tuple(int(x) for x in v)
    return (int(v),) * n


def _reduction_enum(size_average, reduce, reduction):
    if size_average is not None or reduce is not None:
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        reduction = "none" if not reduce else ("mean" if size_average else "sum")
        warnings.warn("size_average and reduce args will be deprecated, please use reduction='"
                      f"{reduction}' instead.")
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


def _check_tensor(name, x, what="input"):
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument '{what}' (position 1) must be Tensor, not {type(x).__name__}")


# --- linear / convolution ----------------------------------------------------------------
def linear(input, weight, bias=None):
    return _ops.linear(input, weight, bias)


def bilinear(input1, input2, weight, bias=None):
    out = torch.einsum("...i,oij,...j->...o", input1, weight, input2)
    return out if bias is None else out + bias


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


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    _check_tensor("conv2d", input)
    if input.ndim not in (3, 4):
        raise RuntimeError(f"Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: "
                           f"{list(input.shape)}")
    stride, dilation = _pair(stride, 2, "stride"), _pair(dilation, 2, "dilation")
    pads = _conv_padding(padding, weight.shape[2:], stride, dilation, 2)
    unbatched = input.ndim == 3
    x = input.unsqueeze(0) if unbatched else input
    out = _ops._conv2d(x, weight, bias, stride, pads[0] + pads[1], dilation, int(groups))
    return out.squeeze(0) if unbatched else out


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    _check_tensor("conv1d", input)
    if input.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2D (unbatched) or 3D (batched) input to conv1d, but got input of size: "
                           f"{list(input.shape)}")
    if weight.ndim != 3:
        raise RuntimeError(f"Expected 3-dimensional weight for conv1d, but got weight of size "
                           f"{list(weight.shape)}")
    stride, dilation = _pair(stride, 1, "stride"), _pair(dilation, 1, "dilation")
    pads = _conv_padding(padding, weight.shape[2:], stride, dilation, 1)
    unbatched = input.ndim == 2
    x = input.unsqueeze(0) if unbatched else input
    # a 1-d conv is a 2-d conv over a height-1 image
    out = _ops._conv2d(x.unsqueeze(2), weight.unsqueeze(2), bias, (1,) + stride, (0, 0) + pads[0],
                       (1,) + dilation, int(groups)).squeeze(2)
    return out.squeeze(0) if unbatched else out


# --- pooling -----------------------------------------------------------------------------
def _pool_stride(stride, kernel_size, n):
    if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0):
        return kernel_size
    return _pair(stride, n, "stride")


def _batched(name, input, dims):
    if input.ndim not in (dims + 1, dims + 2):
        raise RuntimeError(f"{name}: Expected {dims + 1}D or {dims + 2}D (batch mode) tensor for input, but got "
                           f"input of size: {list(input.shape)}")
    return input.ndim == dims + 1


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    ks = _pair(kernel_size, 2, "kernel_size")
    st = _pool_stride(stride, ks, 2)
    unb = _batched("max_pool2d", input, 2)
    x = input.unsqueeze(0) if unb else input
    out, idx = _ops._max_pool2d_with_indices(x, ks, st, _pair(padding), _pair(dilation), bool(ceil_mode))
    if unb:
        out, idx = out.squeeze(0), idx.squeeze(0)
    return (out, idx) if return_indices else out


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    ks = _pair(kernel_size, 1, "kernel_size")
    st = _pool_stride(stride, ks, 1)
    unb = _batched("max_pool1d", input, 1)
    x = (input.unsqueeze(0) if unb else input).unsqueeze(2)
    out, idx = _ops._max_pool2d_with_indices(x, (1,) + ks, (1,) + st, (0,) + _pair(padding, 1),
                                             (1,) + _pair(dilation, 1), bool(ceil_mode))
    out, idx = out.squeeze(2), idx.squeeze(2)
    if unb:
        out, idx = out.squeeze(0), idx.squeeze(0)
    return (out, idx) if return_indices else out


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    ks = _pair(kernel_size, 2, "kernel_size")
    st = _pool_stride(stride, ks, 2)
    unb = _batched("avg_pool2d", input, 2)
    x = input.unsqueeze(0) if unb else input
    out = _ops._avg_pool2d(x, ks, st, _pair(padding), bool(ceil_mode), bool(count_include_pad), divisor_override)
    return out.squeeze(0) if unb else out


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    ks = _pair(kernel_size, 1, "kernel_size")
    st = _pool_stride(stride, ks, 1)
    unb = _batched("avg_pool1d", input, 1)
    x = (input.unsqueeze(0) if unb else input).unsqueeze(2)
    out = _ops._avg_pool2d(x, (1,) + ks, (1,) + st, (0,) + _pair(padding, 1), bool(ceil_mode),
                           bool(count_include_pad), None).squeeze(2)
    return out.squeeze(0) if unb else out


def adaptive_avg_pool2d(input, output_size):
    unb = _batched("adaptive_avg_pool2d", input, 2)
    x = input.unsqueeze(0) if unb else input
    if not isinstance(output_size, (list, tuple)):
        output_size = (output_size, output_size)
    size = tuple(x.shape[2 + i] if s is None else int(s) for i, s in enumerate(output_size))
    out = _ops._adaptive_avg_pool2d(x, size)
    return out.squeeze(0) if unb else out


def adaptive_avg_pool1d(input, output_size):
    if isinstance(output_size, (list, tuple)):
        output_size = output_size[0]
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, output_size)).squeeze(-2)


# --- normalization -------------------------------------------------------------------------
def _shape_tuple(s):
    return (int(s),) if not isinstance(s, (list, tuple)) else tuple(int(v) for v in s)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    return _ops.native_layer_norm(input, _shape_tuple(normalized_shape), weight, bias, float(eps))[0]


def rms_norm(input, normalized_shape, weight=None, eps=None):
    if eps is None:
        eps = torch.finfo(input.dtype).eps if hasattr(torch, "finfo") else \
            {"float64": 2.220446049250313e-16, "float16": 0.0009765625, "bfloat16": 0.0078125}.get(
                input.dtype.name, 1.1920928955078125e-07)
    return _ops._rms_norm(input, _shape_tuple(normalized_shape), weight, float(eps))[0]


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    if training:
        size = input.shape
        n = 1
        for i, s in enumerate(size):
            if i != 1:
                n *= s
        if input.ndim >= 2 and n == 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")
    return _ops._batch_norm(input, weight, bias, running_mean, running_var, bool(training),
                            0.0 if momentum is None else float(momentum), float(eps))[0]


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.ndim}")
    return _ops._group_norm(input, weight, bias, int(num_groups), float(eps))[0]


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5):
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
        out = batch_norm(input.reshape((1, b * c) + tuple(input.shape[2:])), rm, rv, None, None, use_input_stats,
                         momentum, eps).reshape(input.shape)
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


# --- embedding -------------------------------------------------------------------------------
def _padding_index(padding_idx, num_embeddings):
    """padding_idx checked against the table size, negative values counted from the end."""
    if (padding_idx > 0 and padding_idx >= num_embeddings) or padding_idx < -num_embeddings:
        raise AssertionError("Padding_idx must be within num_embeddings")
    return padding_idx + num_embeddings if padding_idx < 0 else padding_idx


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    padding_idx = -1 if padding_idx is None else _padding_index(padding_idx, weight.shape[0])
    if max_norm is not None:
        with torch.no_grad():
            _ops._embedding_renorm_(weight, input.contiguous(), float(max_norm), float(norm_type))
    return _ops.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


def one_hot(tensor, num_classes=-1):
    return torch.one_hot(tensor, num_classes)


def pad(input, pad, mode="constant", value=None):
    return torch.pad(input, pad, mode, value)


# --- dropout ---------------------------------------------------------------------------------
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


def _feature_dropout(input, p, training, inplace, nd):
    _check_p(p)
    if not training or p == 0.0:
        return input
    batched = input.ndim == nd + 2
    shape = tuple(input.shape[:2 if batched else 1]) + (1,) * nd
    if p == 1.0:
        mask = torch.zeros(shape, dtype=input.dtype, device=input.device)
    else:
        mask = torch.empty(shape, dtype=input.dtype, device=input.device).bernoulli_(1 - p).div_(1 - p)
    return input.mul_(mask) if inplace else input * mask


def dropout1d(input, p=0.5, training=True, inplace=False):
    return _feature_dropout(input, p, training, inplace, 1)


def dropout2d(input, p=0.5, training=True, inplace=False):
    return _feature_dropout(input, p, training, inplace, 2)


# --- activations (the ops live at the top level) -------------------------------------------------
def relu(input, inplace=False):
    return torch.relu_(input) if inplace else torch.relu(input)


def relu_(input):
    return torch.relu_(input)


def relu6(input, inplace=False):
    return hardtanh(input, 0.0, 6.0, inplace)


def gelu(input, approximate="none"):
    return torch.gelu(input, approximate=approximate)


def silu(input, inplace=False):
    return torch.silu_(input) if inplace else torch.silu(input)


def mish(input, inplace=False):
    return torch.mish_(input) if inplace else torch.mish(input)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    return torch.leaky_relu_(input, negative_slope) if inplace else torch.leaky_relu(input, negative_slope)


def elu(input, alpha=1.0, inplace=False):
    return torch.elu_(input, alpha) if inplace else torch.elu(input, alpha)


def selu(input, inplace=False):
    if inplace:
        return selu_(input)  # noqa: F405 (from _functional_more)
    alpha, scale = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
    return scale * torch.elu(input, alpha)


def celu(input, alpha=1.0, inplace=False):
    if inplace:
        return celu_(input, alpha)  # noqa: F405 (from _functional_more)
    return torch.elu(input / alpha, 1.0) * alpha if alpha != 1.0 else torch.elu(input, 1.0)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    return torch.hardtanh_(input, min_val, max_val) if inplace else torch.hardtanh(input, min_val, max_val)


def softplus(input, beta=1.0, threshold=20.0):
    return torch.softplus(input, beta, threshold)


def sigmoid(input):
    return torch.sigmoid(input)


def tanh(input):
    return torch.tanh(input)


def logsigmoid(input):
    return -softplus(-input)


def hardsigmoid(input, inplace=False):
    if inplace:
        return input.div_(6).add_(0.5).clamp_(0.0, 1.0)
    return torch.clamp(input / 6 + 0.5, 0.0, 1.0)


def hardswish(input, inplace=False):
    return input * hardsigmoid(input)


def softsign(input):
    return input / (input.abs() + 1)


def tanhshrink(input):
    return input - torch.tanh(input)


def glu(input, dim=-1):
    a, b = input.chunk(2, dim)
    return a * torch.sigmoid(b)


def _softmax_dim(ndim):
    warnings.warn("Implicit dimension choice for softmax has been deprecated. Change the call to include dim=X "
                  "as an argument.")
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim(input.ndim)
    return torch.softmax(input, dim, dtype=dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim(input.ndim)
    return torch.softmax(-input, dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim(input.ndim)
    return torch.log_softmax(input, dim, dtype=dtype)


# --- losses ------------------------------------------------------------------------------------
def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    red = _reduction_enum(size_average, reduce, reduction)
    return _ops._nll_loss(input, target, weight, red, int(ignore_index))[0]


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
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


def _check_same_size(input, target, name):
    if tuple(target.shape) != tuple(input.shape):
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
                      "This will likely lead to incorrect results due to broadcasting. Please ensure they have the "
                      "same size.")


def _weighted(loss, weight):
    return loss if weight is None else loss * weight


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    red = _reduction_enum(size_average, reduce, reduction)
    _check_same_size(input, target, "mse_loss")
    d = input - target
    return _reduce(_weighted(d * d, weight), red)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    red = _reduction_enum(size_average, reduce, reduction)
    _check_same_size(input, target, "l1_loss")
    return _reduce(_weighted((input - target).abs(), weight), red)


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


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    red = _reduction_enum(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input size "
                         f"({input.shape}) is deprecated. Please ensure they have the same size.")
    with torch.no_grad():
        if bool(((input < 0) | (input > 1)).any()):
            raise RuntimeError("all elements of input should be between 0 and 1")
    # log clamped at -100 (PyTorch's convention) keeps 0*log(0) finite
    loss = -(target * torch.clamp(torch.log(input), min=-100) +
             (1 - target) * torch.clamp(torch.log(1 - input), min=-100))
    return _reduce(_weighted(loss, weight), red)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                                     pos_weight=None):
    red = _reduction_enum(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    # -log(sigmoid(x)) = relu(-x) + log1p(exp(-|x|)), stable for any x
    neg_logsig = torch.relu(-input) + torch.log1p(torch.exp(-input.abs()))
    if pos_weight is not None:
        loss = (1 - target) * input + (1 + (pos_weight - 1) * target) * neg_logsig
    else:
        loss = (1 - target) * input + neg_logsig
    return _reduce(_weighted(loss, weight), red)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    if reduction == "batchmean":
        red = 3
    else:
        red = _reduction_enum(size_average, reduce, reduction)
        if red == 1:
            warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                          "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                          "'mean' will be changed to behave the same as 'batchmean' in the next major release.")
    if log_target:
        loss = torch.exp(target) * (target - input)
    else:
        pos = target > 0
        loss = torch.where(pos, target * torch.log(torch.where(pos, target, 1)), 0) - target * input
    if red == 3:
        return loss.sum() / input.shape[0] if input.ndim else loss.sum()
    return _reduce(loss, red)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    red = _reduction_enum(size_average, reduce, reduction)
    loss = torch.exp(input) - target * input if log_input else input - target * torch.log(input + eps)
    if full:
        st = target * torch.log(target) - target + 0.5 * torch.log(2 * math.pi * target)
        loss = loss + torch.where(target > 1, st, 0)
    return _reduce(loss, red)


def margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    red = _reduction_enum(size_average, reduce, reduction)
    return _reduce(torch.clamp(-target * (input1 - input2) + margin, min=0), red)


# --- attention ----------------------------------------------------------------------------------
def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    L, S, E = query.shape[-2], key.shape[-2], query.shape[-1]
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when "
                           "is_causal=True")
    if enable_gqa and query.ndim >= 3 and key.shape[-3] != query.shape[-3]:
        rep = query.shape[-3] // key.shape[-3]
        key = key.repeat_interleave(rep, -3)
        value = value.repeat_interleave(rep, -3)
    s = 1.0 / math.sqrt(E) if scale is None else scale
    mask_grad = attn_mask is not None and attn_mask.requires_grad and torch.is_grad_enabled()
    if dropout_p == 0.0 and not mask_grad and query.ndim >= 2 and query.shape[:-2] == key.shape[:-2] == \
            value.shape[:-2] and query.dtype == key.dtype == value.dtype:
        # one fused op (kernel or composite per backend), with one fused backward
        return _ops._scaled_dot_product_attention(query, key, value, attn_mask, bool(is_causal), float(s))[0]
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


# --- resampling / similarity ----------------------------------------------------------------------
def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    if mode in ("nearest", "area", "nearest-exact") and align_corners is not None:
        raise ValueError("align_corners option can only be set with the interpolating modes: "
                         "linear | bilinear | bicubic | trilinear")
    nd = input.ndim - 2
    if nd not in (1, 2):
        raise NotImplementedError(f"Input Error: Only 3D and 4D input Tensors supported (got {input.ndim}D) for "
                                  f"the modes: nearest | linear | bilinear (got {mode})")
    if mode not in ("nearest", "linear", "bilinear"):
        raise NotImplementedError(f"interpolate mode '{mode}' is not supported")
    if (mode == "linear" and nd != 1) or (mode == "bilinear" and nd != 2):
        raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs "
                                  f"{3 if mode == 'linear' else 4}D input")
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    spatial = tuple(input.shape[2:])
    scales = (None,) * nd
    if size is not None:
        out = _pair(size, nd, "size") if isinstance(size, (list, tuple)) else (int(size),) * nd
    elif scale_factor is not None:
        sf = tuple(float(v) for v in scale_factor) if isinstance(scale_factor, (list, tuple)) else \
            (float(scale_factor),) * nd
        if len(sf) != nd:
            raise ValueError(f"Input and scale_factor must have the same number of spatial dimensions, but got "
                             f"input with spatial dimensions of {list(spatial)} and scale_factor of shape {list(sf)}.")
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


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    if out is not None:
        return torch.div(input, denom, out=out)
    return input / denom


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    n1 = torch.linalg_vector_norm(x1, 2, dim, keepdim=True).clamp_min(eps)
    n2 = torch.linalg_vector_norm(x2, 2, dim, keepdim=True).clamp_min(eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    return (x1 - x2 + eps).norm(p, -1, keepdim=keepdim)


from ._functional_more import *  # noqa: E402,F401,F403  (compositions used by the extra modules)


class _NotATensorError(TypeError, AttributeError):
    """PyTorch raises TypeError where its argument parser checks a tensor argument, and AttributeError
    where its Python code first touches one (mse_loss(x, None)); this error is both."""


# A required tensor argument given None (or a non-tensor) is refused before the function body
# touches it: checked once here for every public function instead of in each one.
_TENSOR_PARAMS = frozenset(("input", "target", "weight", "query", "key", "value", "input1", "input2", "x1", "x2",
                            "anchor", "positive", "negative", "log_probs", "targets"))


def _require_tensors(fn):
    import functools
    import inspect
    params = list(inspect.signature(fn).parameters.values())
    checks = tuple((i, p.name) for i, p in enumerate(params)
                   if p.name in _TENSOR_PARAMS and p.default is inspect.Parameter.empty
                   and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))
    if not checks:
        return fn

    @functools.wraps(fn)
    def checked(*args, **kwargs):
        for i, name in checks:
            v = args[i] if i < len(args) else kwargs.get(name, Tensor)
            if v is not Tensor and not isinstance(v, Tensor):
                raise _NotATensorError(f"{fn.__name__}(): argument '{name}' (position {i + 1}) must be Tensor, "
                                f"not {type(v).__name__}")
        return fn(*args, **kwargs)
    return checked


for _name, _fn in list(globals().items()):
    if not _name.startswith("_") and callable(_fn) and getattr(_fn, "__module__", None) == __name__ \
            and type(_fn).__name__ == "function":
        globals()[_name] = _require_tensors(_fn)
del _name, _fn


def _autocast_wrappers():
    """nn.functional functions that are not table ops get their autocast policy here (ops get it in dispatch)."""
    from ..amp.autocast_mode import FP32, LOWER, with_policy
    g = globals()
    for name in sorted((FP32 | LOWER) & set(g)):
        fn = g[name]
        if callable(fn) and not getattr(fn, "_autocast_wrapped", False) and getattr(fn, "__module__", "").startswith(
                "mindtorch.nn"):
            wrapped = with_policy(name, fn)
            wrapped._autocast_wrapped = True
            g[name] = wrapped


_autocast_wrappers()
