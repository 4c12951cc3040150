"""Layer construction, parameter shapes/init ranges, state_dict layout and forward shapes (no PyTorch)."""

import math

import mindtorch as torch
import mindtorch.nn as nn
import pytest


def test_linear_init_and_forward():
    m = nn.Linear(20, 7)
    assert m.weight.shape == (7, 20) and m.bias.shape == (7,)
    bound = 1 / math.sqrt(20)
    assert m.weight.abs().max().item() <= bound and m.bias.abs().max().item() <= bound
    assert m(torch.randn(5, 3, 20)).shape == (5, 3, 7)
    assert nn.Linear(2, 3, bias=False).bias is None
    assert list(nn.Linear(2, 3).state_dict()) == ["weight", "bias"]


def test_embedding_padding_idx():
    e = nn.Embedding(10, 4, padding_idx=-1)
    assert e.padding_idx == 9 and e.weight[9].abs().sum().item() == 0
    out = e(torch.tensor([[1, 9], [0, 2]]))
    assert out.shape == (2, 2, 4)
    with pytest.raises(AssertionError):
        nn.Embedding(3, 2, padding_idx=3)
    assert repr(e) == "Embedding(10, 4, padding_idx=9)"


def test_norm_layers():
    ln = nn.LayerNorm(6)
    assert ln.normalized_shape == (6,) and ln.weight.tolist() == [1.0] * 6 and ln.bias.tolist() == [0.0] * 6
    y = ln(torch.randn(3, 6))
    assert abs(y.mean(-1)).max().item() < 1e-5
    assert nn.LayerNorm(4, elementwise_affine=False).weight is None
    assert nn.RMSNorm(4)(torch.randn(2, 4)).shape == (2, 4)
    gn = nn.GroupNorm(2, 4)
    assert gn(torch.randn(2, 4, 3)).shape == (2, 4, 3)
    with pytest.raises(ValueError, match="num_channels must be divisible by num_groups"):
        nn.GroupNorm(3, 4)


def test_batchnorm_running_stats():
    bn = nn.BatchNorm1d(3)
    assert list(bn.state_dict()) == ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"]
    assert bn.state_dict()._metadata[""]["version"] == 2
    x = torch.randn(8, 3) * 2 + 1
    bn(x)
    assert bn.num_batches_tracked.item() == 1 and bn.num_batches_tracked.dtype is torch.int64
    assert bn.running_mean.abs().sum().item() > 0
    bn.eval()
    rm = bn.running_mean.clone()
    bn(x)
    assert bn.running_mean.tolist() == rm.tolist()
    with pytest.raises(ValueError, match=r"expected 2D or 3D input \(got 4D input\)"):
        bn(torch.randn(2, 3, 2, 2))
    with pytest.raises(ValueError, match=r"expected 4D input \(got 2D input\)"):
        nn.BatchNorm2d(3)(x)
    assert nn.BatchNorm2d(3, track_running_stats=False).running_mean is None


def test_conv_and_pooling_shapes():
    c = nn.Conv2d(3, 8, 3, stride=2, padding=1, bias=False)
    assert c.weight.shape == (8, 3, 3, 3) and c.bias is None
    assert repr(c) == "Conv2d(3, 8, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), bias=False)"
    x = torch.randn(2, 3, 16, 16)
    assert c(x).shape == (2, 8, 8, 8)
    assert nn.Conv1d(4, 6, 5, padding="same")(torch.randn(1, 4, 10)).shape == (1, 6, 10)
    assert nn.MaxPool2d(2)(x).shape == (2, 3, 8, 8)
    assert nn.AvgPool2d(4, stride=2)(x).shape == (2, 3, 7, 7)
    assert nn.AdaptiveAvgPool2d((1, 1))(x).shape == (2, 3, 1, 1)
    assert nn.Flatten()(x).shape == (2, 768)
    assert nn.Unflatten(1, (3, 256))(nn.Flatten()(x)).shape == (2, 3, 256)
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        nn.Conv2d(3, 6, 3, groups=2)


def test_activations_and_dropout():
    x = torch.tensor([-2.0, -0.5, 0.0, 1.5])
    assert nn.ReLU()(x).tolist() == [0.0, 0.0, 0.0, 1.5]
    assert nn.LeakyReLU(0.1)(x).tolist() == pytest.approx([-0.2, -0.05, 0.0, 1.5])
    assert nn.Softmax(dim=0)(x).sum().item() == pytest.approx(1.0)
    assert nn.LogSoftmax(dim=0)(x).exp().sum().item() == pytest.approx(1.0)
    for m in (nn.GELU(), nn.GELU("tanh"), nn.SiLU(), nn.Tanh(), nn.Sigmoid(), nn.ELU(), nn.Identity()):
        assert m(x).shape == (4,)
    d = nn.Dropout(0.5)
    y = d(torch.ones(1000))
    assert set(y.tolist()) <= {0.0, 2.0} and 300 < (y == 0).sum().item() < 700
    assert d.eval()(torch.ones(5)).tolist() == [1.0] * 5
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        nn.Dropout(1.5)
    assert repr(nn.GELU()) == "GELU(approximate='none')" and repr(nn.ReLU(inplace=True)) == "ReLU(inplace=True)"


def test_losses():
    logits, target = torch.randn(4, 5), torch.tensor([1, 0, -100, 3])
    ce = nn.CrossEntropyLoss()(logits, target)
    assert ce.dim() == 0
    assert nn.CrossEntropyLoss(reduction="none")(logits, target).shape == (4,)
    assert nn.CrossEntropyLoss(label_smoothing=0.1)(logits, target).item() > 0
    assert nn.NLLLoss()(logits.log_softmax(1), target).item() == pytest.approx(ce.item(), rel=1e-5)
    a, b = torch.randn(3, 2), torch.randn(3, 2)
    assert nn.MSELoss()(a, b).item() == pytest.approx(((a - b) ** 2).mean().item(), rel=1e-5)
    assert nn.L1Loss(reduction="sum")(a, b).item() == pytest.approx((a - b).abs().sum().item(), rel=1e-5)
    assert nn.SmoothL1Loss()(a, b).dim() == 0
    p = torch.rand(3, 2) * 0.8 + 0.1
    t = torch.rand(3, 2)
    assert nn.BCELoss()(p, t).item() > 0 and nn.BCEWithLogitsLoss()(a, t).item() > 0
    assert nn.KLDivLoss(reduction="batchmean")(a.log_softmax(1), p.softmax(1)).dim() == 0
    assert nn.CrossEntropyLoss().state_dict() == {}
    assert list(nn.CrossEntropyLoss(weight=torch.ones(5)).state_dict()) == ["weight"]


def test_multihead_attention_layout_and_masks():
    mha = nn.MultiheadAttention(8, 2, batch_first=True)
    assert list(mha.state_dict()) == ["in_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias"]
    assert mha.in_proj_bias.abs().sum().item() == 0
    x = torch.randn(3, 5, 8)
    out, w = mha(x, x, x)
    assert out.shape == (3, 5, 8) and w.shape == (3, 5, 5)
    assert w.sum(-1).sub(1).abs().max().item() < 1e-5
    causal = torch.ones(5, 5, dtype=torch.bool).triu(1)
    out2, w2 = mha(x, x, x, attn_mask=causal, average_attn_weights=False)
    assert w2.shape == (3, 2, 5, 5) and w2[:, :, 0, 1:].abs().sum().item() == 0
    kpm = torch.zeros(3, 5, dtype=torch.bool)
    kpm[:, -1] = True
    _, w3 = mha(x, x, x, key_padding_mask=kpm)
    assert w3[:, :, -1].abs().sum().item() == 0
    out4, w4 = mha(x, x, x, attn_mask=causal, need_weights=False)
    assert w4 is None and (out4 - out2).abs().max().item() < 1e-5
    seq_first = nn.MultiheadAttention(8, 2)
    assert seq_first(x, x, x)[0].shape == (3, 5, 8)
