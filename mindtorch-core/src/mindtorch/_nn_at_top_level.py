"""torch.* forms of neural-network functions (torch.conv2d, torch.dropout, torch.layer_norm, ...).

PyTorch exposes these at the top level with ATen's signatures, which differ from nn.functional's:
`train` is positional, losses take `reduction` as an int (1 mean, 2 sum, anything else none; PyTorch's
Python binding leaves these losses unreduced when `reduction` is not given), pooling takes `stride=[]`
for "same as the kernel". Each forwards to the nn.functional function that does the work.
"""

__all__ = [
    "adaptive_avg_pool1d",
    "adaptive_max_pool1d",
    "alpha_dropout",
    "alpha_dropout_",
    "avg_pool1d",
    "batch_norm",
    "bilinear",
    "binary_cross_entropy_with_logits",
    "celu",
    "celu_",
    "channel_shuffle",
    "constant_pad_nd",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_tbc",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
    "cosine_embedding_loss",
    "cosine_similarity",
    "dropout",
    "dropout_",
    "feature_alpha_dropout",
    "feature_alpha_dropout_",
    "feature_dropout",
    "feature_dropout_",
    "group_norm",
    "hinge_embedding_loss",
    "instance_norm",
    "kl_div",
    "layer_norm",
    "margin_ranking_loss",
    "max_pool1d",
    "max_pool1d_with_indices",
    "max_pool2d",
    "max_pool3d",
    "native_channel_shuffle",
    "pairwise_distance",
    "pdist",
    "pixel_shuffle",
    "pixel_unshuffle",
    "poisson_nll_loss",
    "rms_norm",
    "rrelu",
    "rrelu_",
    "selu",
    "selu_",
    "threshold",
    "threshold_",
    "triplet_margin_loss",
]

_REDUCTION = {1: "mean", 2: "sum"}


def _F():
    import mindtorch.nn.functional as F

    return F


def _reduction(value):
    return _REDUCTION.get(value, "none")


def _stride(stride):
    return None if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0) else stride


def _forward(name, *, out_of_place=None):
    """torch.NAME(*args, **kwargs) -> F.NAME(*args, **kwargs) where the signatures agree."""

    def fn(*args, **kwargs):
        return getattr(_F(), out_of_place or name)(*args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"torch.{name}: see mindtorch.nn.functional.{out_of_place or name}."
    return fn


adaptive_avg_pool1d = _forward("adaptive_avg_pool1d")
bilinear = _forward("bilinear")
celu = _forward("celu")
celu_ = _forward("celu_")
channel_shuffle = _forward("channel_shuffle")
conv1d = _forward("conv1d")
conv2d = _forward("conv2d")
conv3d = _forward("conv3d")
conv_tbc = _forward("conv_tbc")
conv_transpose1d = _forward("conv_transpose1d")
conv_transpose2d = _forward("conv_transpose2d")
conv_transpose3d = _forward("conv_transpose3d")
cosine_similarity = _forward("cosine_similarity")
pdist = _forward("pdist")
pixel_shuffle = _forward("pixel_shuffle")
pixel_unshuffle = _forward("pixel_unshuffle")
selu = _forward("selu")
selu_ = _forward("selu_")
threshold = _forward("threshold")
threshold_ = _forward("threshold_")
native_channel_shuffle = _forward("native_channel_shuffle")


def adaptive_max_pool1d(input, output_size):
    return _F().adaptive_max_pool1d(input, output_size, return_indices=True)


def _dropout(functional, inplace):
    def fn(input, p, train):
        return getattr(_F(), functional)(input, p, train, inplace)

    return fn


dropout, dropout_ = _dropout("dropout", False), _dropout("dropout", True)
alpha_dropout, alpha_dropout_ = _dropout("alpha_dropout", False), _dropout("alpha_dropout", True)
feature_alpha_dropout = _dropout("feature_alpha_dropout", False)
feature_alpha_dropout_ = _dropout("feature_alpha_dropout", True)


def _feature_dropout(input, p, train, inplace):
    # channel-wise dropout whatever the rank: one Bernoulli draw per (batch, channel)
    import mindtorch

    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not train or p == 0:
        return input
    mask_shape = tuple(input.shape[:2]) + (1,) * (input.dim() - 2)
    mask = mindtorch.empty(mask_shape, dtype=input.dtype, device=input.device).bernoulli_(1 - p)
    mask = mask.div_(1 - p) if p < 1 else mask
    return input.mul_(mask) if inplace else input * mask


def feature_dropout(input, p, train):
    return _feature_dropout(input, p, train, False)


def feature_dropout_(input, p, train):
    return _feature_dropout(input, p, train, True)


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled):
    return _F().batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled):
    return _F().instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5, cudnn_enable=True):
    return _F().layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5, cudnn_enabled=True):
    return _F().group_norm(input, num_groups, weight, bias, eps)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    return _F().rms_norm(input, normalized_shape, weight, eps)


def constant_pad_nd(input, pad, value=0):
    return _F().pad(input, pad, "constant", value)


def _pool(name):
    def fn(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
        return getattr(_F(), name)(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)

    fn.__name__ = fn.__qualname__ = name
    return fn


max_pool1d, max_pool2d, max_pool3d = _pool("max_pool1d"), _pool("max_pool2d"), _pool("max_pool3d")
max_pool1d_with_indices = _pool("max_pool1d_with_indices")


def avg_pool1d(input, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True):
    return _F().avg_pool1d(input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    return _F().pairwise_distance(x1, x2, p, eps, keepdim)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    return _F().rrelu(input, lower, upper, training, False)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    return _F().rrelu(input, lower, upper, training, True)


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=0):
    return _F().binary_cross_entropy_with_logits(
        input, target, weight, reduction=_reduction(reduction), pos_weight=pos_weight
    )


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    return _F().cosine_embedding_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def hinge_embedding_loss(input, target, margin=1.0, reduction=0):
    return _F().hinge_embedding_loss(input, target, margin, reduction=_reduction(reduction))


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    return _F().margin_ranking_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def kl_div(input, target, reduction=0, *, log_target=False):
    return _F().kl_div(input, target, reduction=_reduction(reduction), log_target=log_target)


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    return _F().poisson_nll_loss(input, target, log_input, full, eps=eps, reduction=_reduction(reduction))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-6, swap=False, reduction=0):
    return _F().triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, reduction=_reduction(reduction))
