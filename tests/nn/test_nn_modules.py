"""Recurrent, Transformer and other nn modules on the CPU, checked against their own definitions (no PyTorch)."""

import mindtorch as mt
import mindtorch.nn as nn
import numpy as np
import pytest
from helpers import check_grad
from mindtorch.nn.utils import rnn as rnn_utils


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("bidirectional", [False, True])
def test_packed_batch_equals_each_sequence_alone(kind, bidirectional):
    m = getattr(nn, kind)(3, 4, num_layers=2, bidirectional=bidirectional).eval()
    seqs = [mt.randn(n, 3) for n in (2, 5, 3)]
    packed = rnn_utils.pack_sequence(seqs, enforce_sorted=False)
    out, h = m(packed)
    padded, lengths = rnn_utils.pad_packed_sequence(out, batch_first=True)
    assert lengths.tolist() == [2, 5, 3]
    h_n = h[0] if kind == "LSTM" else h
    for i, s in enumerate(seqs):
        o1, h1 = m(s)  # unbatched
        np.testing.assert_allclose(padded[i, : len(s)].detach().numpy(), o1.detach().numpy(), rtol=1e-5, atol=1e-6)
        assert np.all(padded[i, len(s) :].detach().numpy() == 0)
        h1 = h1[0] if kind == "LSTM" else h1
        np.testing.assert_allclose(h_n[:, i].detach().numpy(), h1.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_rnn_shapes_and_state_dict_layout():
    m = nn.LSTM(3, 6, num_layers=2, bidirectional=True, batch_first=True, proj_size=2)
    out, (h, c) = m(mt.randn(4, 7, 3))
    assert tuple(out.shape) == (4, 7, 4) and tuple(h.shape) == (4, 4, 2) and tuple(c.shape) == (4, 4, 6)
    keys = list(m.state_dict())
    assert keys[:5] == ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0", "weight_hr_l0"]
    assert keys[-1] == "weight_hr_l1_reverse" and len(keys) == 20
    assert tuple(m.weight_ih_l1.shape) == (24, 4) and tuple(m.weight_hh_l0.shape) == (24, 2)
    assert len(m.all_weights) == 4 and len(m.all_weights[0]) == 5
    assert repr(m) == "LSTM(3, 6, proj_size=2, num_layers=2, batch_first=True, bidirectional=True)"


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
def test_recurrent_gradients(kind):
    m = getattr(nn, kind)(2, 3, num_layers=2, bidirectional=True).double()
    x = mt.randn(3, 2, 2, dtype=mt.float64, requires_grad=True)
    check_grad(lambda x: m(x)[0], x)


@pytest.mark.parametrize("cell", ["RNNCell", "LSTMCell", "GRUCell"])
def test_cell_matches_one_layer_step(cell):
    c = getattr(nn, cell)(3, 4)
    layer = getattr(nn, cell.replace("Cell", ""))(3, 4)
    layer.load_state_dict({k + "_l0": v for k, v in c.state_dict().items()})
    x = mt.randn(1, 2, 3)
    out, _ = layer(x)
    h = c(x[0])
    h = h[0] if cell == "LSTMCell" else h
    np.testing.assert_allclose(out[0].detach().numpy(), h.detach().numpy(), rtol=1e-6, atol=1e-6)


def test_pad_and_pack_roundtrip_keeps_gradients():
    seqs = [mt.randn(n, 2, requires_grad=True) for n in (4, 1, 3)]
    packed = rnn_utils.pack_sequence(seqs, enforce_sorted=False)
    assert packed.batch_sizes.tolist() == [3, 2, 2, 1]
    back = rnn_utils.unpack_sequence(packed)
    for a, b in zip(seqs, back):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    sum(b.sum() * (i + 1) for i, b in enumerate(back)).backward()
    for i, s in enumerate(seqs):
        np.testing.assert_array_equal(s.grad.numpy(), np.full(s.shape, i + 1.0, dtype=np.float32))
    padded = rnn_utils.pad_sequence(seqs, batch_first=True, padding_value=-1.0, padding_side="left")
    assert tuple(padded.shape) == (3, 4, 2) and padded[1, :3].eq(-1).all().item()
    with pytest.raises(RuntimeError):
        rnn_utils.pack_padded_sequence(mt.zeros(3, 2, 1), [1, 2])


def test_transformer_masks_hide_what_they_should():
    enc = nn.TransformerEncoder(
        nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True), 2, enable_nested_tensor=False
    )
    x = mt.randn(2, 5, 8)
    causal = nn.Transformer.generate_square_subsequent_mask(5)
    y = enc(x, mask=causal)
    x2 = x.clone()
    x2[:, 3:] = mt.randn(2, 2, 8)  # change the future: the first three outputs stay
    y2 = enc(x2, mask=causal)
    np.testing.assert_allclose(y[:, :3].detach().numpy(), y2[:, :3].detach().numpy(), rtol=1e-5, atol=1e-6)
    pad = mt.tensor([[False] * 4 + [True], [False] * 5])
    x3 = x.clone()
    x3[0, 4] = 100.0  # a padded key: no unpadded output changes
    a, b = enc(x, src_key_padding_mask=pad), enc(x3, src_key_padding_mask=pad)
    np.testing.assert_allclose(a[0, :4].detach().numpy(), b[0, :4].detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(a[1].detach().numpy(), b[1].detach().numpy(), rtol=1e-5, atol=1e-6)


def test_transformer_trains():
    model = nn.Transformer(8, 2, 1, 1, 16, dropout=0.0)
    opt = mt.optim.SGD(model.parameters(), lr=0.05)
    src, tgt = mt.randn(5, 3, 8), mt.randn(4, 3, 8)
    mask = model.generate_square_subsequent_mask(4)
    losses = []
    for _ in range(5):
        opt.zero_grad()
        loss = ((model(src, tgt, tgt_mask=mask) - tgt) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0]
    assert all(p.grad is not None for p in model.parameters())


def test_shuffles_and_padding_on_cpu():
    x = mt.randn(2, 3, 4, 6)
    np.testing.assert_array_equal(nn.PixelShuffle(2)(nn.PixelUnshuffle(2)(x)).numpy(), x.numpy())
    assert tuple(nn.ReflectionPad2d((1, 2, 0, 1))(x).shape) == (2, 3, 5, 9)
    assert tuple(nn.ZeroPad3d(1)(mt.zeros(1, 1, 2, 2, 2)).shape) == (1, 1, 4, 4, 4)
    y = nn.ChannelShuffle(3)(mt.arange(6.0).reshape(1, 6, 1, 1)).flatten().tolist()
    assert y == [0.0, 2.0, 4.0, 1.0, 3.0, 5.0]
    t = mt.randn(1, 4, 2, 3, dtype=mt.float64, requires_grad=True)
    check_grad(lambda t: nn.functional.pixel_shuffle(t, 2), t)
    check_grad(lambda t: nn.functional.local_response_norm(t, 3), t)


def _r(*shape):
    return mt.randn(*shape, dtype=mt.float64, requires_grad=True)


@pytest.mark.parametrize(
    "name,fn,shapes",
    [
        (
            "conv_transpose2d",
            lambda x, w: nn.functional.conv_transpose2d(x, w, stride=2, padding=1, output_padding=1),
            [(1, 2, 3, 3), (2, 3, 3, 3)],
        ),
        (
            "conv3d",
            lambda x, w: nn.functional.conv3d(x, w, stride=(1, 2, 1), padding=1),
            [(1, 2, 3, 4, 3), (2, 2, 2, 2, 2)],
        ),
        ("fold", lambda x: nn.functional.fold(x, (4, 5), 2, stride=1), [(1, 8, 12)]),
        ("unfold", lambda x: nn.functional.unfold(x, 2, dilation=2, padding=1), [(1, 2, 4, 4)]),
        ("max_pool3d", lambda x: nn.functional.max_pool3d(x, 2, stride=1), [(1, 1, 3, 3, 3)]),
        ("avg_pool3d", lambda x: nn.functional.avg_pool3d(x, 2, padding=1, count_include_pad=False), [(1, 1, 3, 3, 3)]),
        (
            "grid_sample",
            lambda x, g: nn.functional.grid_sample(x, g * 0.9, align_corners=False),
            [(1, 2, 4, 5), (1, 3, 2, 2)],
        ),
        (
            "ctc_loss",
            lambda lp: nn.functional.ctc_loss(lp.log_softmax(-1), mt.tensor([[1, 2], [2, 2]]), [4, 4], [2, 2]),
            [(4, 2, 3)],
        ),
        (
            "embedding_bag",
            lambda w: nn.functional.embedding_bag(mt.tensor([1, 2, 4, 4, 0]), w, mt.tensor([0, 2]), mode="mean"),
            [(5, 3)],
        ),
        ("local_response_norm", lambda x: nn.functional.local_response_norm(x, 3), [(1, 4, 2, 3)]),
    ],
)
def test_composed_functionals_gradcheck(name, fn, shapes):
    check_grad(fn, *[_r(*s) for s in shapes])


def test_lazy_module_copies_and_pickles_before_init():
    import copy
    import pickle

    m = nn.LazyLinear(3)
    for c in (copy.deepcopy(m), pickle.loads(pickle.dumps(m))):
        assert type(c).__name__ == "LazyLinear" and c.has_uninitialized_params()
        assert tuple(c(mt.randn(2, 5)).shape) == (2, 3) and type(c).__name__ == "Linear"
    assert m.has_uninitialized_params()


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_recurrent_double_backward(kind):
    m = getattr(nn, kind)(2, 2).double()
    x = mt.randn(2, 1, 2, dtype=mt.float64, requires_grad=True)
    assert mt.autograd.gradgradcheck(lambda x: m(x)[0], (x,))
