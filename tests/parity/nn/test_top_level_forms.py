"""torch.conv2d, torch.dropout, torch.layer_norm, ...: the top-level forms with ATen's signatures."""

from pathlib import Path

import numpy as np
import pytest
from helpers import assert_same, torch_or_skip

torch = torch_or_skip()

import mindtorch as mt  # noqa: E402
from mindtorch._nn_at_top_level import __all__ as NAMES  # noqa: E402

R = np.random.default_rng(0)


def a(*shape, positive=False):
    x = R.standard_normal(shape).astype(np.float32)
    return np.abs(x) + 0.1 if positive else x


def sign(*shape):
    return np.where(R.standard_normal(shape) > 0, 1.0, -1.0).astype(np.float32)


# name -> positional arguments (arrays become tensors) and keyword arguments; random ones are run deterministically
CASES = {
    "adaptive_avg_pool1d": ((a(2, 3, 8), 3), {}),
    "adaptive_max_pool1d": ((a(2, 3, 8), 3), {}),
    "alpha_dropout": ((a(4, 5), 0.3, False), {}),
    "alpha_dropout_": ((a(4, 5), 0.3, False), {}),
    "batch_norm": ((a(4, 3, 5), a(3), a(3), a(3), a(3, positive=True), False, 0.1, 1e-5, True), {}),
    "bilinear": ((a(4, 3), a(4, 2), a(5, 3, 2), a(5)), {}),
    "binary_cross_entropy_with_logits": (
        (a(6), (a(6) > 0).astype(np.float32)),
        {"pos_weight": a(6, positive=True), "reduction": 2},
    ),
    "celu": ((a(3, 4),), {"alpha": 0.7}),
    "celu_": ((a(3, 4), 0.7), {}),
    "channel_shuffle": ((a(1, 6, 2, 2), 3), {}),
    "constant_pad_nd": ((a(2, 3), [1, 2, 0, 1], 0.5), {}),
    "conv1d": ((a(2, 3, 9), a(4, 3, 3), a(4), [2], [1]), {}),
    "conv2d": ((a(1, 2, 6, 6), a(3, 2, 3, 3)), {"padding": "same"}),
    "conv3d": ((a(1, 2, 4, 4, 4), a(2, 2, 2, 2, 2)), {"stride": 2}),
    "conv_tbc": ((a(5, 2, 3), a(3, 3, 4), a(4), 1), {}),
    "conv_transpose1d": ((a(2, 3, 5), a(3, 2, 3)), {"stride": 2, "output_padding": 1}),
    "conv_transpose2d": ((a(1, 3, 4, 4), a(3, 2, 3, 3)), {"padding": 1}),
    "conv_transpose3d": ((a(1, 2, 3, 3, 3), a(2, 2, 2, 2, 2)), {}),
    "cosine_embedding_loss": ((a(4, 5), a(4, 5), sign(4), 0.2, 0), {}),
    "cosine_similarity": ((a(4, 5), a(4, 5), 0), {}),
    "dropout": ((a(4, 5), 0.5, False), {}),
    "dropout_": ((a(4, 5), 0.0, True), {}),
    "feature_alpha_dropout": ((a(2, 3, 4), 0.4, False), {}),
    "feature_alpha_dropout_": ((a(2, 3, 4), 0.4, False), {}),
    "feature_dropout": ((a(2, 3, 4), 0.4, False), {}),
    "feature_dropout_": ((a(2, 3, 4), 0.0, True), {}),
    "group_norm": ((a(2, 4, 3), 2, a(4), a(4)), {}),
    "hinge_embedding_loss": ((a(6), sign(6)), {"margin": 0.5, "reduction": 0}),
    "instance_norm": ((a(2, 3, 5), a(3), a(3), None, None, True, 0.1, 1e-5, False), {}),
    "kl_div": ((a(3, 4), a(3, 4, positive=True)), {"reduction": 2}),
    "layer_norm": ((a(2, 3, 4), [4], a(4), a(4)), {"eps": 1e-3}),
    "margin_ranking_loss": ((a(5), a(5), sign(5)), {"margin": 0.1}),
    "max_pool1d": ((a(2, 3, 9), [3]), {}),
    "avg_pool1d": ((a(2, 3, 9), [3], [2], 1, True, False), {}),
    "max_pool1d_with_indices": ((a(2, 3, 9), [3], [2], [1]), {}),
    "max_pool2d": ((a(1, 2, 6, 6), [2, 2], [], 0, 1, True), {}),
    "max_pool3d": ((a(1, 2, 4, 4, 4), 2), {}),
    "native_channel_shuffle": ((a(1, 4, 2, 2), 2), {}),
    "pairwise_distance": ((a(4, 5), a(4, 5)), {"p": 1.0, "keepdim": True}),
    "pdist": ((a(5, 3),), {}),
    "pixel_shuffle": ((a(1, 8, 2, 3), 2), {}),
    "pixel_unshuffle": ((a(1, 2, 4, 6), 2), {}),
    "poisson_nll_loss": ((a(6), a(6, positive=True), True, True, 1e-8, 1), {}),
    "rms_norm": ((a(2, 5), [5], a(5)), {"eps": 1e-6}),
    "rrelu": ((a(3, 4),), {}),
    "rrelu_": ((a(3, 4), 0.1, 0.3), {}),
    "selu": ((a(3, 4),), {}),
    "selu_": ((a(3, 4),), {}),
    "threshold": ((a(3, 4), 0.1, -2.0), {}),
    "threshold_": ((a(3, 4), 0.1, -2.0), {}),
    "triplet_margin_loss": ((a(4, 5), a(4, 5), a(4, 5)), {"swap": True, "reduction": 0}),
}


def _call(lib, name):
    args, kwargs = CASES[name]
    conv = lambda v: lib.tensor(v.copy()) if isinstance(v, np.ndarray) else v
    return getattr(lib, name)(*(conv(v) for v in args), **{k: conv(v) for k, v in kwargs.items()})


# the forms with lists of weights, several outputs or gradients to check: their cases are in test_aten_forms.py
ATEN_FORMS = {
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
    "gru",
    "gru_cell",
    "lstm",
    "lstm_cell",
    "native_batch_norm",
    "native_group_norm",
    "norm_except_dim",
    "rnn_relu",
    "rnn_relu_cell",
    "rnn_tanh",
    "rnn_tanh_cell",
}


def test_every_top_level_name_has_a_case():
    from . import test_aten_forms

    assert sorted(set(CASES) | ATEN_FORMS) == sorted(NAMES) and not set(CASES) & ATEN_FORMS
    tested = Path(test_aten_forms.__file__).read_text()
    assert [
        n for n in sorted(ATEN_FORMS) if f".{n}(" not in tested and f'"{n.removesuffix("_cell")}"' not in tested
    ] == []


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_pytorch(name):
    m, t = _call(mt, name), _call(torch, name)
    if isinstance(t, tuple):
        assert isinstance(m, tuple) and len(m) == len(t)
        for x, y in zip(m, t):
            assert_same(x, y, rtol=1e-5, atol=1e-5)
    else:
        assert_same(m, t, rtol=1e-5, atol=1e-5)


LOSSES = [
    "binary_cross_entropy_with_logits",
    "cosine_embedding_loss",
    "hinge_embedding_loss",
    "kl_div",
    "margin_ranking_loss",
    "triplet_margin_loss",
]


@pytest.mark.parametrize("name", LOSSES)
@pytest.mark.parametrize("reduction", [None, 0, 1, 2, 7])
def test_loss_reduction_codes(name, reduction):
    """1 mean, 2 sum, other codes none; without `reduction` PyTorch's binding does not reduce either."""
    args = [v for v in CASES[name][0] if isinstance(v, np.ndarray)]
    kw = {} if reduction is None else {"reduction": reduction}
    m = getattr(mt, name)(*(mt.tensor(v) for v in args), **kw)
    t = getattr(torch, name)(*(torch.tensor(v) for v in args), **kw)
    assert_same(m, t, rtol=1e-5, atol=1e-5)


def test_feature_dropout_drops_whole_channels():
    x = mt.ones(8, 16, 5)
    y = mt.feature_dropout(x, 0.5, True)
    per_channel = y.numpy().reshape(8, 16, 5)
    assert set(np.unique(per_channel)) <= {0.0, 2.0}
    assert (per_channel.min(-1) == per_channel.max(-1)).all()  # each (batch, channel) all kept or all dropped
    assert 0 < (per_channel[..., 0] == 0).sum() < 128
