"""mindtorch.nn.functional without the oracle: gradchecks (float64), errors, meta shapes, RNG."""

import mindtorch as mt
import mindtorch.nn.functional as F
import numpy as np
import pytest
from mindtorch.autograd import gradcheck

RNG = np.random.default_rng(7)


def r64(*shape, rg=True, low=None):
    a = RNG.standard_normal(shape)
    if low is not None:
        a = np.abs(a) + low
    return mt.tensor(a).requires_grad_(rg)


def gc(fn, *inputs):
    assert gradcheck(fn, inputs)


def test_gradcheck_linear_and_double_backward():
    x, w, b = r64(2, 3, 4), r64(5, 4), r64(5)
    gc(F.linear, x, w, b)
    y = F.linear(x, w, b)
    (gx,) = mt.autograd.grad(y.sum(), x, create_graph=True)
    assert gx.requires_grad  # linear's gradient is itself linear(): twice differentiable
    gc(lambda x, w: mt.autograd.grad(F.linear(x, w).pow(2).sum(), x, create_graph=True)[0], r64(2, 3), r64(4, 3))


@pytest.mark.parametrize("kw", [dict(), dict(stride=2, padding=1, dilation=(1, 2)), dict(groups=2, padding="same")])
def test_gradcheck_conv2d(kw):
    gc(lambda x, w, b: F.conv2d(x, w, b, **kw), r64(1, 2, 5, 5), r64(2, 2 // kw.get("groups", 1), 3, 2), r64(2))


def test_gradcheck_conv_double_backward():
    def f(x, w):
        y = F.conv2d(x, w, padding=1)
        gx, gw = mt.autograd.grad((y * y).sum(), (x, w), create_graph=True)
        return gx.sum() + (gw * gw).sum()

    gc(f, r64(1, 2, 4, 4), r64(3, 2, 3, 3))


def test_gradcheck_conv1d():
    gc(lambda x, w: F.conv1d(x, w, stride=2, padding=1), r64(2, 2, 7), r64(3, 2, 3))


def test_gradcheck_pooling():
    gc(lambda x: F.max_pool2d(x, 2, 2, ceil_mode=True), r64(1, 2, 5, 5))
    gc(lambda x: F.max_pool1d(x, 3, 1, 1), r64(1, 2, 6))
    gc(lambda x: F.avg_pool2d(x, 3, 2, 1, count_include_pad=False, ceil_mode=True), r64(1, 2, 6, 5))
    gc(lambda x: F.adaptive_avg_pool2d(x, (3, 2)), r64(1, 2, 5, 5))
    gc(lambda x: F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=True), r64(1, 1, 3, 3))
    gc(lambda x: F.interpolate(x, size=(5, 4), mode="nearest"), r64(1, 1, 3, 3))


def test_gradcheck_norms():
    gc(lambda x, w, b: F.layer_norm(x, (4,), w, b), r64(3, 4), r64(4), r64(4))
    gc(lambda x, w: F.rms_norm(x, (2, 3), w), r64(2, 2, 3), r64(2, 3))
    gc(lambda x, w, b: F.group_norm(x, 2, w, b), r64(2, 4, 3), r64(4), r64(4))
    rm, rv = mt.zeros(3, dtype=mt.float64), mt.ones(3, dtype=mt.float64)
    gc(lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True), r64(4, 3, 2), r64(3), r64(3))
    gc(lambda x, w, b: F.batch_norm(x, rm, rv, w, b, training=False), r64(4, 3), r64(3), r64(3))


def test_gradcheck_losses():
    tgt = mt.tensor([0, 2, -100, 1])
    gc(lambda x: F.cross_entropy(x, tgt, label_smoothing=0.1), r64(4, 3))
    gc(lambda x: F.nll_loss(x, tgt, reduction="sum"), r64(4, 3))
    gc(lambda x: F.cross_entropy(x, mt.tensor([[0, 1], [2, 2]])), r64(2, 3, 2))
    t = r64(3, 4, rg=False)
    gc(lambda x: F.mse_loss(x, t) + F.l1_loss(x, t) + F.smooth_l1_loss(x, t, beta=0.5), r64(3, 4))
    gc(lambda x: F.binary_cross_entropy_with_logits(x, t.sigmoid(), pos_weight=mt.ones(4) * 2), r64(3, 4))
    gc(lambda x: F.binary_cross_entropy(x.sigmoid(), t.sigmoid()), r64(3, 4))
    gc(lambda x: F.kl_div(x, t.softmax(-1), reduction="batchmean"), r64(3, 4))


def test_gradcheck_attention_and_similarity():
    q, k, v = r64(1, 2, 3, 4), r64(1, 2, 3, 4), r64(1, 2, 3, 2)
    gc(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True), q, k, v)
    gc(lambda a, b: F.cosine_similarity(a, b) + F.normalize(a).sum(1), r64(3, 4), r64(3, 4))


def test_embedding_grad_accumulates_and_skips_padding():
    w = mt.ones(4, 2, requires_grad=True)
    F.embedding(mt.tensor([1, 1, 3, 0, 1]), w, padding_idx=0).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [[0, 0], [3, 3], [0, 0], [1, 1]])


def test_dropout_reproducible_with_manual_seed():
    x = mt.ones(50)
    mt.manual_seed(3)
    a = F.dropout(x, 0.5)
    mt.manual_seed(3)
    b = F.dropout(x, 0.5)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert F.dropout(x, 0.5, training=False) is x
    assert (F.dropout(x, 1.0).numpy() == 0).all()
    y = mt.ones(4, 3, requires_grad=True)
    F.dropout(y, 0.5).sum().backward()
    assert set(np.unique(y.grad.numpy()).tolist()) <= {0.0, 2.0}


def test_batch_norm_running_stats_update():
    rm, rv = mt.zeros(2), mt.ones(2)
    x = mt.tensor([[1.0, 2.0], [3.0, 6.0]])
    F.batch_norm(x, rm, rv, training=True, momentum=0.5)
    np.testing.assert_allclose(rm.numpy(), [1.0, 2.0])
    np.testing.assert_allclose(rv.numpy(), [0.5 + 0.5 * 2.0, 0.5 + 0.5 * 8.0])


def test_errors():
    with pytest.raises(RuntimeError):
        F.linear(mt.zeros(2, 3), mt.zeros(2, 4))
    with pytest.raises(RuntimeError):
        F.conv2d(mt.zeros(1, 3, 5, 5), mt.zeros(2, 2, 3, 3))
    with pytest.raises(ValueError):
        F.dropout(mt.zeros(2), -0.1)
    with pytest.raises(ValueError):
        F.mse_loss(mt.zeros(2), mt.zeros(2), reduction="bad")
    with pytest.raises(IndexError):
        F.embedding(mt.tensor([7]), mt.zeros(3, 2))
    with pytest.raises(RuntimeError):
        F.group_norm(mt.zeros(1, 3, 2), 2)


def test_meta_device_shapes():
    x = mt.empty(2, 3, 8, 8, device="meta")
    w = mt.empty(4, 3, 3, 3, device="meta")
    assert F.conv2d(x, w, padding=1).shape == (2, 4, 8, 8)
    assert F.max_pool2d(x, 2).shape == (2, 3, 4, 4)
    assert F.linear(mt.empty(5, 8, device="meta"), mt.empty(6, 8, device="meta")).shape == (5, 6)
    assert F.layer_norm(x, (8,)).shape == (2, 3, 8, 8)
