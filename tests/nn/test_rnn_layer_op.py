"""The fused recurrent-layer op (`_rnn_layer` and its backward): the CPU kernels against the per-step
composite, gradcheck and gradgradcheck in float64, and what the modules record."""

import itertools

import mindtorch as mt
import mindtorch.nn as nn
import numpy as np
import pytest
from mindtorch.ops.registry import OPS

MODES = ("LSTM", "GRU", "RNN_TANH", "RNN_RELU")
GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _layer_args(mode, packed, bias, proj, dtype, seed=0, F=3, H=4, B=3):
    """Random arguments of one `_rnn_layer` call (time-major packed input, batch sizes)."""
    g = mt.Generator().manual_seed(seed)
    bs = [3, 3, 2, 1] if packed else [B] * 4
    hout = proj or H
    G = GATES[mode] * H

    def r(*shape):
        return mt.randn(*shape, generator=g, dtype=dtype)

    cx = r(B, H) if mode == "LSTM" else None
    b_ih, b_hh = (r(G), r(G)) if bias else (None, None)
    return [r(sum(bs), F), r(B, hout), cx, r(G, F), r(G, hout), b_ih, b_hh, r(proj, H) if proj else None, bs]


def _cases():
    for mode, reverse, packed, bias, proj, dtype in itertools.product(
        MODES, (False, True), (False, True), (True, False), (0, 2), (mt.float32, mt.float64)
    ):
        if proj and mode != "LSTM":
            continue
        yield pytest.param(
            mode, reverse, packed, bias, proj, dtype, id=f"{mode}-r{reverse:d}-p{packed:d}-b{bias:d}-{proj}"
        )


def _close(a, b, dtype):
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == mt.float32 else dict(rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(a.numpy(), b.numpy(), **tol)


@pytest.mark.parametrize("mode,reverse,packed,bias,proj,dtype", list(_cases()))
def test_kernel_matches_per_step_composite(mode, reverse, packed, bias, proj, dtype):
    args = _layer_args(mode, packed, bias, proj, dtype) + [mode, reverse]
    fused = mt.ops._rnn_layer(*args)
    steps = OPS["_rnn_layer"].composite(*args)
    assert fused[0].dtype == dtype
    for a, b in zip(fused, steps):  # outputs, final states and the workspace layout
        assert a.shape == b.shape
        _close(a, b, dtype)
    g = mt.Generator().manual_seed(1)
    grads = [mt.randn(t.shape, generator=g, dtype=dtype) for t in fused[:2]]
    grads.append(mt.randn(fused[2].shape, generator=g, dtype=dtype) if mode == "LSTM" else None)
    bargs = grads + args[:8] + [fused[3]] + args[8:]
    fused_b = mt.ops._rnn_layer_backward(*bargs)
    steps_b = OPS["_rnn_layer_backward"].composite(*bargs)
    for k, (a, b) in enumerate(zip(fused_b, steps_b)):
        assert a.shape == b.shape
        assert a.shape == ((0,) if args[k] is None else args[k].shape)  # absent arguments: empty gradients
        _close(a, b, dtype)


def _grad_cases():
    for mode, reverse, packed in itertools.product(MODES, (False, True), (False, True)):
        yield pytest.param(mode, reverse, packed, id=f"{mode}-r{reverse:d}-p{packed:d}")


def _differentiable(args):
    return [a.requires_grad_() if isinstance(a, mt.Tensor) else a for a in args]


@pytest.mark.parametrize("mode,reverse,packed", list(_grad_cases()))
def test_gradcheck_fused_layer(mode, reverse, packed):
    proj = 2 if mode == "LSTM" and packed else 0
    args = _differentiable(_layer_args(mode, packed, True, proj, mt.float64, F=2, H=3, seed=2))
    idx = [i for i, a in enumerate(args) if isinstance(a, mt.Tensor)]

    def fn(*ts):
        full = list(args)
        for i, t in zip(idx, ts):
            full[i] = t
        return mt.ops._rnn_layer(*full, mode, reverse)[: 3 if mode == "LSTM" else 2]

    assert mt.autograd.gradcheck(fn, [args[i] for i in idx])


@pytest.mark.parametrize("mode", MODES)
def test_gradgradcheck_goes_through_the_composite(mode):
    """create_graph=True: the backward is differentiated through the per-step ops."""
    args = _differentiable(_layer_args(mode, True, True, 0, mt.float64, F=2, H=2, seed=3))
    idx = [0, 1, 3, 4]  # input, hx, weight_ih, weight_hh

    def fn(*ts):
        full = list(args)
        for i, t in zip(idx, ts):
            full[i] = t
        return mt.ops._rnn_layer(*full, mode, True)[:2]

    assert mt.autograd.gradgradcheck(fn, [args[i] for i in idx])


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("bidirectional", [False, True])
def test_one_node_per_layer_and_direction(kind, bidirectional):
    m = getattr(nn, kind)(3, 4, num_layers=2, bidirectional=bidirectional)
    out, _ = m(mt.randn(6, 2, 3))
    seen, stack, names = set(), [out.grad_fn], []
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        names.append(node.name())
        stack.extend(f for f, _ in node.next_functions)
    recurrent = [n for n in names if "RnnLayer" in n or "rnn_layer" in n.lower()]
    assert len(recurrent) == 2 * (2 if bidirectional else 1), names
    assert not any("Sigmoid" in n or "Tanh" in n for n in names), names


def test_dropout_between_layers_is_the_dropout_op():
    """A 2-layer LSTM in training with dropout is layer 1, F.dropout, layer 2 under the same seed."""
    m = nn.LSTM(3, 4, num_layers=2, dropout=0.5)
    first, second = nn.LSTM(3, 4), nn.LSTM(4, 4)
    first.load_state_dict({k: v for k, v in m.state_dict().items() if k.endswith("_l0")})
    second.load_state_dict({k.replace("_l1", "_l0"): v for k, v in m.state_dict().items() if k.endswith("_l1")})
    x = mt.randn(5, 2, 3)
    mt.manual_seed(7)
    out, (h, c) = m(x)
    mt.manual_seed(7)
    y, (h1, c1) = first(x)
    y, (h2, c2) = second(nn.functional.dropout(y, 0.5, True))
    np.testing.assert_allclose(out.detach().numpy(), y.detach().numpy(), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(h.detach().numpy(), mt.cat([h1, h2]).detach().numpy(), rtol=1e-6, atol=1e-6)
    m.eval()
    a, b = m(x)[0], m(x)[0]
    np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


def test_flatten_parameters_is_a_no_op():
    m = nn.GRU(3, 4)
    before = {k: v.clone() for k, v in m.state_dict().items()}
    assert m.flatten_parameters() is None
    for k, v in m.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), before[k].numpy())


@pytest.mark.parametrize(
    "change,match",
    [
        (lambda a: a.__setitem__(8, [3, 2, 2]), "batch_sizes"),
        (lambda a: a.__setitem__(8, [2, 3, 1, 2]), "non-increasing"),
        (lambda a: a.__setitem__(2, None), "cx"),
        (lambda a: a.__setitem__(3, a[3][:, :2]), "weight_ih"),
        (lambda a: a.__setitem__(4, a[4][:, :2]), "weight_hh"),
        (lambda a: a.__setitem__(2, a[2][:, :2]), "cx"),
        (lambda a: a.__setitem__(5, a[5][:4]), "bias_ih"),
        (lambda a: a.__setitem__(7, mt.zeros(4, 3)), "weight_hr"),
    ],
)
def test_bad_arguments_raise(change, match):
    args = _layer_args("LSTM", True, True, 0, mt.float32)
    change(args)
    with pytest.raises(RuntimeError, match=match):
        mt.ops._rnn_layer(*args, "LSTM", False)
