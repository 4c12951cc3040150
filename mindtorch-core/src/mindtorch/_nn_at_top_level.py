"""torch.* forms of neural-network functions (torch.conv2d, torch.dropout, torch.layer_norm, ...).

PyTorch exposes these at the top level with ATen's signatures, which differ from nn.functional's:
`train` is positional, losses take `reduction` as an int (1 mean, 2 sum, anything else none; PyTorch's
Python binding leaves these losses unreduced when `reduction` is not given), pooling takes `stride=[]`
for "same as the kernel". Each forwards to the nn.functional function that does the work.
"""

__all__ = [
    "affine_grid_generator",
    "batch_norm_backward_elemt",
    "batch_norm_backward_reduce",
    "batch_norm_elemt",
    "batch_norm_gather_stats",
    "batch_norm_gather_stats_with_counts",
    "batch_norm_stats",
    "batch_norm_update_stats",
    "convolution",
    "ctc_loss",
    "embedding_bag",
    "embedding_renorm_",
    "grid_sampler",
    "grid_sampler_2d",
    "grid_sampler_3d",
    "native_batch_norm",
    "native_group_norm",
    "norm_except_dim",
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
    "gru",
    "gru_cell",
    "lstm",
    "lstm_cell",
    "rnn_relu",
    "rnn_relu_cell",
    "rnn_tanh",
    "rnn_tanh_cell",
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


# --- recurrent networks: ATen's flat-parameter forms of the RNN modules ----------------------------
def _recurrent(mode):
    """torch.lstm / gru / rnn_tanh / rnn_relu: (input, hx, params, has_biases, num_layers, dropout, train,
    bidirectional, batch_first) over a padded batch, or (data, batch_sizes, hx, params, has_biases,
    num_layers, dropout, train, bidirectional) over a packed one. `params` is the modules' flat weight list."""

    def fn(*args):
        from .nn.modules.rnn import run_layers

        packed = not isinstance(args[3], bool)  # the packed form's fourth argument is the parameter list
        if packed:
            data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional = args
            sizes = [int(b) for b in batch_sizes.tolist()]
        else:
            data, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first = args
            if batch_first:
                data = data.transpose(0, 1)
            sizes = [data.shape[1]] * data.shape[0]
        per_layer = len(params) // (num_layers * (2 if bidirectional else 1))
        has_proj = per_layer > 2 + 2 * bool(has_biases)
        out, h_n = run_layers(
            mode,
            data,
            sizes,
            tuple(hx) if mode == "LSTM" else hx,
            list(params),
            has_biases,
            has_proj,
            num_layers,
            dropout,
            train,
            bidirectional,
            packed,
        )
        if not packed and batch_first:
            out = out.transpose(0, 1)
        return (out, *h_n) if mode == "LSTM" else (out, h_n)

    fn.__name__ = fn.__qualname__ = mode.lower()
    return fn


lstm, gru = _recurrent("LSTM"), _recurrent("GRU")
rnn_tanh, rnn_relu = _recurrent("RNN_TANH"), _recurrent("RNN_RELU")


def _cell(mode):
    def fn(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
        from .nn.modules.rnn import run_cell

        states = tuple(hx) if mode == "LSTM" else (hx,)
        return run_cell(mode, input, states, w_ih, w_hh, b_ih, b_hh)

    fn.__name__ = fn.__qualname__ = mode.lower() + "_cell"
    return fn


lstm_cell, gru_cell = _cell("LSTM"), _cell("GRU")
rnn_tanh_cell, rnn_relu_cell = _cell("RNN_TANH"), _cell("RNN_RELU")


# --- ATen's forms of convolution, sampling, embedding bags and normalization ------------------------------
def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    """Any convolution: its rank from the weight's, transposed or not."""
    n = weight.dim() - 2
    if transposed:
        fn = getattr(_F(), f"conv_transpose{n}d")
        return fn(input, weight, bias, stride, padding, output_padding, groups, dilation)
    return getattr(_F(), f"conv{n}d")(input, weight, bias, stride, padding, dilation, groups)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=1, zero_infinity=False):
    return _F().ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, _reduction(reduction), zero_infinity)


_SAMPLING_MODES = ("bilinear", "nearest", "bicubic")
_PADDING_MODES = ("zeros", "border", "reflection")


def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    """grid_sample with the modes as ATen's numbers (0 bilinear, 1 nearest, 2 bicubic; 0 zeros, 1 border,
    2 reflection)."""
    return _F().grid_sample(
        input, grid, _SAMPLING_MODES[interpolation_mode], _PADDING_MODES[padding_mode], align_corners
    )


def _grid_sampler_nd(nd, input, grid, interpolation_mode, padding_mode, align_corners):
    if input.dim() != nd or grid.dim() != nd:
        raise RuntimeError(
            f"grid_sampler(): expected {nd}D input and grid with same number of dimensions, but got input with "
            f"sizes {list(input.shape)} and grid with sizes {list(grid.shape)}"
        )
    return grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)


def grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners):
    return _grid_sampler_nd(4, input, grid, interpolation_mode, padding_mode, align_corners)


def grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners):
    return _grid_sampler_nd(5, input, grid, interpolation_mode, padding_mode, align_corners)


def affine_grid_generator(theta, size, align_corners):
    return _F().affine_grid(theta, size, align_corners)


def embedding_renorm_(input, indices, max_norm, norm_type):
    """Rescale, in place, the rows of `input` that `indices` names to a norm of at most max_norm."""
    import mindtorch

    with mindtorch.no_grad():
        return mindtorch.ops._embedding_renorm_(input, indices, float(max_norm), float(norm_type))


_BAG_MODES = ("sum", "mean", "max")


def embedding_bag(
    weight,
    indices,
    offsets,
    scale_grad_by_freq=False,
    mode=0,
    sparse=False,
    per_sample_weights=None,
    include_last_offset=False,
    padding_idx=None,
):
    """ATen's embedding_bag: (output, offset2bag, bag_size, max_indices), the last three describing the bags:
    each index's bag, each bag's number of indices (not counting padding_idx; zeros for sums), and for
    maxima the row each element came from (for means, the bag sizes again)."""
    import mindtorch

    out = _F().embedding_bag(
        indices,
        weight,
        offsets,
        None,
        2,
        scale_grad_by_freq,
        _BAG_MODES[mode],
        sparse,
        per_sample_weights,
        include_last_offset,
        padding_idx,
    )
    bags = out.shape[0]
    starts = offsets.tolist()[:bags]
    ends = starts[1:] + ([offsets.tolist()[bags]] if include_last_offset else [indices.shape[0]])
    sizes = mindtorch.tensor([e - s for s, e in zip(starts, ends)], dtype=mindtorch.int64, device=indices.device)
    bag_of = mindtorch.repeat_interleave(mindtorch.arange(bags, device=indices.device), sizes)
    offset2bag = mindtorch.zeros(indices.shape[0], dtype=mindtorch.int64, device=indices.device)
    offset2bag[: bag_of.shape[0]] = bag_of
    if mode == 0:
        zeros = mindtorch.zeros(offsets.shape[0], dtype=mindtorch.int64, device=indices.device)
        return out, offset2bag, zeros, zeros.clone()
    counted = indices if padding_idx is None else indices[indices != padding_idx]
    bag_size = mindtorch.zeros(bags, dtype=mindtorch.int64, device=indices.device)
    if counted.numel():
        kept = bag_of if padding_idx is None else bag_of[indices[: bag_of.shape[0]] != padding_idx]
        bag_size = bag_size.index_add(0, kept, mindtorch.ones_like(kept))
    if mode == 1:
        return out, offset2bag, bag_size, bag_size.clone()
    return out, offset2bag, bag_size, _bag_argmax(weight, indices, starts, ends, padding_idx)


def _bag_argmax(weight, indices, starts, ends, padding_idx):
    """For each bag and feature, the embedding row its maximum came from (0 for an empty bag)."""
    import mindtorch

    rows = []
    for a, e in zip(starts, ends):
        idx = indices[a:e]
        if padding_idx is not None:
            idx = idx[idx != padding_idx]
        if idx.numel() == 0:
            rows.append(mindtorch.zeros(weight.shape[1], dtype=mindtorch.int64, device=weight.device))
            continue
        pos = weight.detach()[idx].argmax(0)
        rows.append(idx[pos])
    return mindtorch.stack(rows, 0)


def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """(output, the batch's mean and inverse standard deviation when training, empty otherwise)."""
    import mindtorch

    out, mean, invstd = mindtorch.ops._batch_norm(
        input, weight, bias, running_mean, running_var, training, momentum, eps
    )
    if not training:
        mean, invstd = (mindtorch.empty(0, dtype=mean.dtype, device=mean.device) for _ in range(2))
    return out, mean, invstd


def native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    """(output, mean and inverse standard deviation per sample and group, shaped (N, group))."""
    if C % group:
        raise RuntimeError(
            f"Expected number of channels in input to be divisible by num_groups, but got input of shape "
            f"{list(input.shape)} and num_groups={group}"
        )
    import mindtorch

    out, mean, rstd = mindtorch.ops._group_norm(input, weight, bias, int(group), float(eps))
    return out, mean.reshape(N, group), rstd.reshape(N, group)


def norm_except_dim(v, pow=2, dim=0):
    """The p-norm over every dim but `dim` (kept, with size-1 others), or over all of them for dim -1."""
    if dim == -1:
        return v.norm(pow)
    dim = dim % v.dim()
    others = [d for d in range(v.dim()) if d != dim]
    return v.norm(pow, others, keepdim=True)


# --- SyncBatchNorm's pieces: per-process statistics, their combination, and the two halves of backward ---
def _channel_dims(input):
    return [d for d in range(input.dim()) if d != 1]


def _per_channel(t, input):
    """A (C,) tensor shaped to broadcast against input's channel dim."""
    return t.reshape([1, -1] + [1] * (input.dim() - 2))


def batch_norm_stats(input, eps):
    """(mean, 1/sqrt(biased variance + eps)) of each channel."""
    import mindtorch

    var, mean = mindtorch.var_mean(input, _channel_dims(input), correction=0)
    return mean, (var + eps).rsqrt()


def batch_norm_elemt(input, weight, bias, mean, invstd, eps):
    """Normalize with given statistics, then scale and shift."""
    out = (input - _per_channel(mean, input)) * _per_channel(invstd, input)
    if weight is not None:
        out = out * _per_channel(weight, input)
    if bias is not None:
        out = out + _per_channel(bias, input)
    return out


def batch_norm_gather_stats_with_counts(input, mean, invstd, running_mean, running_var, momentum, eps, counts):
    """The statistics of the union of several processes' batches, from their (mean, invstd) rows and
    element counts; the running statistics (given) move toward them (the variance unbiased)."""
    import mindtorch

    counts = counts.to(mean.dtype).reshape(-1, 1)
    total = counts.sum()
    all_mean = (counts * mean).sum(0) / total
    var = 1 / (invstd * invstd) - eps
    all_var = (counts * (var + (mean - all_mean) ** 2)).sum(0) / total
    with mindtorch.no_grad():
        if running_mean is not None:
            running_mean.mul_(1 - momentum).add_(all_mean.to(running_mean.dtype), alpha=momentum)
        if running_var is not None:
            unbiased = all_var * total / (total - 1)
            running_var.mul_(1 - momentum).add_(unbiased.to(running_var.dtype), alpha=momentum)
    return all_mean, (all_var + eps).rsqrt()


def batch_norm_gather_stats(input, mean, invstd, running_mean, running_var, momentum, eps, count):
    """batch_norm_gather_stats_with_counts where every process counted `count` elements."""
    import mindtorch

    counts = mindtorch.full((mean.shape[0],), float(count), dtype=mean.dtype, device=mean.device)
    return batch_norm_gather_stats_with_counts(input, mean, invstd, running_mean, running_var, momentum, eps, counts)


def batch_norm_update_stats(input, running_mean, running_var, momentum):
    """(mean, biased variance) of each channel; the running statistics move toward them (unbiased)."""
    import mindtorch

    var, mean = mindtorch.var_mean(input, _channel_dims(input), correction=0)
    n = input.numel() // input.shape[1]
    with mindtorch.no_grad():
        if running_mean is not None:
            running_mean.mul_(1 - momentum).add_(mean.to(running_mean.dtype), alpha=momentum)
        if running_var is not None:
            running_var.mul_(1 - momentum).add_((var * n / max(n - 1, 1)).to(running_var.dtype), alpha=momentum)
    return mean, var


def batch_norm_backward_reduce(grad_out, input, mean, invstd, weight, input_g, weight_g, bias_g):
    """Per channel: (sum of grad_out, sum of grad_out * (input - mean), weight's gradient, bias's
    gradient), each None unless asked for (the first two by input_g)."""
    dims = _channel_dims(input)
    sum_dy = grad_out.sum(dims)
    sum_dy_xmu = (grad_out * (input - _per_channel(mean, input))).sum(dims)
    return (
        sum_dy if input_g else None,
        sum_dy_xmu if input_g else None,
        sum_dy_xmu * invstd if weight_g and weight is not None else None,
        sum_dy if bias_g else None,
    )


def batch_norm_backward_elemt(grad_out, input, mean, invstd, weight, sum_dy, sum_dy_xmu, count):
    """The input's gradient from the sums batch_norm_backward_reduce made (added over processes) and the
    processes' element counts."""
    n = count.sum().to(grad_out.dtype)
    inv = _per_channel(invstd, input)
    xmu = input - _per_channel(mean, input)
    scale = inv if weight is None else inv * _per_channel(weight, input)
    return (grad_out - _per_channel(sum_dy, input) / n - xmu * inv * inv * _per_channel(sum_dy_xmu, input) / n) * scale
