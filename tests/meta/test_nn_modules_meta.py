"""The composed nn modules on the meta device: shapes through forward and backward, no data touched."""

import mindtorch as mt
import mindtorch.nn as nn
import pytest

D = "meta"

CASES = [
    (lambda: nn.LSTM(3, 4, 2, bidirectional=True, device=D), (5, 2, 3), (5, 2, 8)),
    (lambda: nn.GRU(3, 4, batch_first=True, device=D), (2, 5, 3), (2, 5, 4)),
    (lambda: nn.RNN(3, 4, device=D), (5, 3), (5, 4)),
    (lambda: nn.LSTM(3, 4, 2, proj_size=2, batch_first=True, device=D), (2, 5, 3), (2, 5, 2)),
    (lambda: nn.RNN(3, 4, nonlinearity="relu", bias=False, bidirectional=True, device=D), (5, 2, 3), (5, 2, 8)),
    (lambda: nn.TransformerEncoderLayer(8, 2, 16, device=D), (5, 2, 8), (5, 2, 8)),
    (lambda: nn.ConvTranspose2d(3, 4, 3, stride=2, device=D), (1, 3, 5, 5), (1, 4, 11, 11)),
    (lambda: nn.Conv3d(3, 4, 3, padding=1, device=D), (1, 3, 4, 4, 4), (1, 4, 4, 4, 4)),
    (lambda: nn.PixelShuffle(2), (1, 8, 3, 3), (1, 2, 6, 6)),
    (lambda: nn.InstanceNorm2d(3, affine=True, device=D), (2, 3, 4, 4), (2, 3, 4, 4)),
    (lambda: nn.MaxPool3d(2), (1, 3, 4, 4, 4), (1, 3, 2, 2, 2)),
    (lambda: nn.Unfold(2), (1, 3, 4, 4), (1, 12, 9)),
    (lambda: nn.Fold(4, 2), (1, 12, 9), (1, 3, 4, 4)),
    (lambda: nn.ReflectionPad2d(1), (1, 3, 4, 4), (1, 3, 6, 6)),
]


@pytest.mark.parametrize("make,shape,out_shape", CASES, ids=[str(i) for i in range(len(CASES))])
def test_module_runs_on_meta(make, shape, out_shape):
    x = mt.empty(shape, device=D, requires_grad=True)
    y = make()(x)
    y = y[0] if isinstance(y, tuple) else y
    assert tuple(y.shape) == out_shape and y.device.type == "meta"
    y.sum().backward()
    assert tuple(x.grad.shape) == shape and x.grad.device.type == "meta"


@pytest.mark.parametrize("mode,gates,width", [("LSTM", 4, 6 * 4 + 2), ("GRU", 3, 5 * 4), ("RNN_TANH", 1, 2 * 4)])
def test_rnn_layer_op_shapes_on_meta(mode, gates, width):
    """The fused layer's outputs: per-step hidden states, final states, the workspace; and its backward."""
    e = lambda *s: mt.empty(s, device=D, requires_grad=True)
    proj = mode == "LSTM"
    hout = 2 if proj else 4
    args = (e(6, 3), e(3, hout), e(3, 4) if proj else None, e(4 * gates, 3), e(4 * gates, hout), e(4 * gates), None)
    out, h, c, ws = mt.ops._rnn_layer(*args, e(2, 4) if proj else None, [3, 2, 1], mode, True)
    assert (tuple(out.shape), tuple(h.shape), tuple(ws.shape)) == ((6, hout), (3, hout), (6, width))
    assert tuple(c.shape) == ((3, 4) if proj else (0,)) and ws.device.type == "meta"
    (out.sum() + h.sum()).backward()
    assert tuple(args[0].grad.shape) == (6, 3) and tuple(args[3].grad.shape) == (4 * gates, 3)
