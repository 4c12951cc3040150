"""Recurrent, Transformer and the other common nn modules against PyTorch.

Both modules are built with the same arguments; PyTorch's state_dict is loaded into the mindtorch
module through NumPy; then outputs, input gradients and parameter gradients must agree to float32
rounding, and repr and state_dict keys must be identical.
"""

import itertools

import numpy as np
import pytest
from helpers import assert_same, torch_or_skip

torch = torch_or_skip()

import mindtorch as mt  # noqa: E402
import mindtorch.nn as mnn  # noqa: E402
from mindtorch.nn.utils import rnn as mrnn  # noqa: E402
from torch.nn.utils import rnn as trnn  # noqa: E402

RTOL, ATOL = 1e-4, 1e-5


def _pair(name, *args, **kwargs):
    """The same module built in both libraries, PyTorch's weights copied into mindtorch's."""
    if callable(name):  # a builder taking (library, its nn)
        tmod, mmod = name(torch, torch.nn), name(mt, mnn)
    else:
        tmod = getattr(torch.nn, name)(*args, **kwargs)
        mmod = getattr(mnn, name)(*args, **kwargs)
    assert repr(mmod) == repr(tmod)
    tsd = tmod.state_dict()
    assert list(mmod.state_dict()) == list(tsd)
    mmod.load_state_dict({k: mt.tensor(v.detach().numpy().copy()) for k, v in tsd.items()})
    return mmod, tmod


def _inputs(rng, *shapes, grad=True):
    """Random float32 inputs as (mindtorch, torch) pairs."""
    out = []
    for s in shapes:
        a = rng.standard_normal(s).astype(np.float32)
        m, t = mt.tensor(a), torch.tensor(a)
        if grad:
            m.requires_grad_()
            t.requires_grad_()
        out.append((m, t))
    return out


def _flat(x):
    if isinstance(x, (trnn.PackedSequence, mrnn.PackedSequence)):
        return [x.data]
    if isinstance(x, (tuple, list)):
        return [t for v in x for t in _flat(v)]
    return [] if x is None else [x]


def _check(mout, tout, mmod, tmod, inputs, rtol=RTOL, atol=ATOL, seed=1, param_atol=1e-4):
    """Outputs equal; then backward of a random projection of every output: the gradients equal."""
    mo, to = _flat(mout), _flat(tout)
    assert len(mo) == len(to)
    for a, b in zip(mo, to):
        assert_same(a, b, rtol=rtol, atol=atol)
    rng = np.random.default_rng(seed)
    ml, tl = 0, 0
    for a, b in zip(mo, to):
        if b.requires_grad:
            g = rng.standard_normal(tuple(b.shape)).astype(np.float32)
            ml = ml + (a * mt.tensor(g)).sum()
            tl = tl + (b * torch.tensor(g)).sum()
    if isinstance(tl, int):
        return
    ml.backward()
    tl.backward()
    for m, t in inputs:
        if t.requires_grad:
            assert_same(m.grad, t.grad, rtol=rtol, atol=atol)
    if mmod is not None:
        for (n, mp), (_, tp) in zip(mmod.named_parameters(), tmod.named_parameters()):
            assert (mp.grad is None) == (tp.grad is None), n
            if tp.grad is not None:
                assert_same(mp.grad, tp.grad, rtol=rtol, atol=param_atol)


# --- recurrent layers ----------------------------------------------------------------------------------
RNN_CONFIGS = [
    dict(num_layers=1),
    dict(num_layers=2, bidirectional=True),
    dict(num_layers=2, batch_first=True),
    dict(num_layers=3, bidirectional=True, batch_first=True, bias=False),
]


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("cfg", RNN_CONFIGS, ids=lambda c: "-".join(f"{k}{v}" for k, v in c.items()))
@pytest.mark.parametrize("with_hx", [False, True])
def test_recurrent_padded(kind, cfg, with_hx):
    mmod, tmod = _pair(kind, 3, 5, **cfg)
    rng = np.random.default_rng(0)
    dirs = 2 if cfg.get("bidirectional") else 1
    T, N = 4, 2
    shape = (N, T, 3) if cfg.get("batch_first") else (T, N, 3)
    ins = _inputs(rng, shape)
    if with_hx:
        hs = _inputs(rng, *[(cfg["num_layers"] * dirs, N, 5)] * (2 if kind == "LSTM" else 1))
        ins += hs
        mh = tuple(m for m, _ in hs) if kind == "LSTM" else hs[0][0]
        th = tuple(t for _, t in hs) if kind == "LSTM" else hs[0][1]
        mout, tout = mmod(ins[0][0], mh), tmod(ins[0][1], th)
    else:
        mout, tout = mmod(ins[0][0]), tmod(ins[0][1])
    _check(mout, tout, mmod, tmod, ins)


@pytest.mark.parametrize(
    "kind,kw",
    [
        ("RNN", {"nonlinearity": "relu"}),
        ("LSTM", {"proj_size": 3}),
        ("LSTM", {"proj_size": 2, "num_layers": 2, "bidirectional": True}),
    ],
)
def test_recurrent_options(kind, kw):
    mmod, tmod = _pair(kind, 4, 5, **kw)
    ins = _inputs(np.random.default_rng(2), (6, 3, 4))
    _check(mmod(ins[0][0]), tmod(ins[0][1]), mmod, tmod, ins)


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
def test_recurrent_unbatched(kind):
    mmod, tmod = _pair(kind, 3, 4, num_layers=2, bidirectional=True)
    rng = np.random.default_rng(3)
    ins = _inputs(rng, (5, 3))
    hs = _inputs(rng, *[(4, 4)] * (2 if kind == "LSTM" else 1))
    mh = tuple(m for m, _ in hs) if kind == "LSTM" else hs[0][0]
    th = tuple(t for _, t in hs) if kind == "LSTM" else hs[0][1]
    _check(mmod(ins[0][0], mh), tmod(ins[0][1], th), mmod, tmod, ins + hs)


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_recurrent_packed(kind, bidirectional, enforce_sorted):
    mmod, tmod = _pair(kind, 3, 4, num_layers=2, bidirectional=bidirectional, batch_first=True)
    rng = np.random.default_rng(4)
    lengths = [5, 3, 3, 1] if enforce_sorted else [2, 5, 1, 3]
    ins = _inputs(rng, (4, 5, 3))
    mp = mrnn.pack_padded_sequence(ins[0][0], lengths, batch_first=True, enforce_sorted=enforce_sorted)
    tp = trnn.pack_padded_sequence(ins[0][1], lengths, batch_first=True, enforce_sorted=enforce_sorted)
    assert_same(mp.batch_sizes, tp.batch_sizes)
    assert_same(mp.data, tp.data)
    if not enforce_sorted:
        assert_same(mp.sorted_indices, tp.sorted_indices)
        assert_same(mp.unsorted_indices, tp.unsorted_indices)
    hs = _inputs(rng, *[((2 if bidirectional else 1) * 2, 4, 4)] * (2 if kind == "LSTM" else 1))
    mh = tuple(m for m, _ in hs) if kind == "LSTM" else hs[0][0]
    th = tuple(t for _, t in hs) if kind == "LSTM" else hs[0][1]
    mo, mhn = mmod(mp, mh)
    to, thn = tmod(tp, th)
    assert isinstance(mo, mrnn.PackedSequence)
    mpad, mlen = mrnn.pad_packed_sequence(mo, batch_first=True, total_length=6)
    tpad, tlen = trnn.pad_packed_sequence(to, batch_first=True, total_length=6)
    assert_same(mlen, tlen)
    _check((mpad, mhn), (tpad, thn), mmod, tmod, ins + hs)


def _recurrent_sweep(count=96, seed=11):
    """A seeded sample of the product of every recurrent-layer option, the input forms and dtypes."""
    kinds = [("RNN", {"nonlinearity": "tanh"}), ("RNN", {"nonlinearity": "relu"}), ("LSTM", {}), ("GRU", {})]
    grid = itertools.product(
        range(len(kinds)),
        (1, 2),  # num_layers
        (True, False),  # bias
        (False, True),  # batch_first
        (False, True),  # bidirectional
        (0, 2),  # proj_size (LSTM only)
        ("padded", "unbatched", "packed"),
        (False, True),  # h0 (and c0) given
        ("float32", "float64"),
    )
    cases = [c for c in grid if c[5] == 0 or kinds[c[0]][0] == "LSTM"]
    rng = np.random.default_rng(seed)
    picked = sorted(rng.choice(len(cases), size=count, replace=False))
    out = []
    for i in picked:
        k, layers, bias, bf, bidir, proj, form, given, dt = cases[i]
        kw = dict(kinds[k][1], num_layers=layers, bias=bias, batch_first=bf, bidirectional=bidir)
        if proj:
            kw["proj_size"] = proj
        out.append(pytest.param(kinds[k][0], kw, form, given, dt, id=f"{i}"))
    return out


def _typed_inputs(rng, dtype, *shapes):
    out = []
    for s in shapes:
        a = rng.standard_normal(s).astype(dtype)
        out.append((mt.tensor(a).requires_grad_(), torch.tensor(a).requires_grad_()))
    return out


@pytest.mark.parametrize("kind,kw,form,given,dtype", _recurrent_sweep())
def test_recurrent_option_sweep(kind, kw, form, given, dtype):
    """Outputs, final states and the gradients of input, h0, c0 and every weight, as PyTorch's."""
    mmod, tmod = _pair(kind, 3, 4, **kw)
    if dtype == "float64":
        mmod, tmod = mmod.double(), tmod.double()
    rng = np.random.default_rng(12)
    dirs = 2 if kw["bidirectional"] else 1
    T, N, hout = 5, 3, kw.get("proj_size") or 4
    x_shape = (T, 3) if form == "unbatched" else ((N, T, 3) if kw["batch_first"] else (T, N, 3))
    ins = _typed_inputs(rng, dtype, x_shape)
    lead = (kw["num_layers"] * dirs,) + (() if form == "unbatched" else (N,))
    hs = _typed_inputs(rng, dtype, lead + (hout,), lead + (4,))[: 2 if kind == "LSTM" else 1] if given else []
    mx, tx = ins[0]
    if form == "packed":
        lengths = [3, 5, 2]
        mx = mrnn.pack_padded_sequence(mx, lengths, batch_first=kw["batch_first"], enforce_sorted=False)
        tx = trnn.pack_padded_sequence(tx, lengths, batch_first=kw["batch_first"], enforce_sorted=False)
    margs, targs = (mx,), (tx,)
    if given:
        margs += (tuple(m for m, _ in hs) if kind == "LSTM" else hs[0][0],)
        targs += (tuple(t for _, t in hs) if kind == "LSTM" else hs[0][1],)
    mout, tout = mmod(*margs), tmod(*targs)
    if form == "packed":
        assert isinstance(mout[0], mrnn.PackedSequence)
        assert_same(mout[0].batch_sizes, tout[0].batch_sizes)
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == "float32" else dict(rtol=1e-9, atol=1e-10, param_atol=1e-9)
    _check(mout, tout, mmod, tmod, ins + hs, **tol)


@pytest.mark.parametrize("kind", ["RNNCell", "LSTMCell", "GRUCell"])
@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("bias", [True, False])
def test_cells(kind, batched, bias):
    mmod, tmod = _pair(kind, 3, 4, bias=bias)
    rng = np.random.default_rng(5)
    lead = (2,) if batched else ()
    ins = _inputs(rng, lead + (3,))
    hs = _inputs(rng, *[lead + (4,)] * (2 if kind == "LSTMCell" else 1))
    mh = tuple(m for m, _ in hs) if kind == "LSTMCell" else hs[0][0]
    th = tuple(t for _, t in hs) if kind == "LSTMCell" else hs[0][1]
    _check(mmod(ins[0][0], mh), tmod(ins[0][1], th), mmod, tmod, ins + hs)
    _check(mmod(ins[0][0]), tmod(ins[0][1]), None, None, [])


def test_rnn_cell_relu_repr_and_init_bounds():
    mmod, tmod = _pair("RNNCell", 3, 4, nonlinearity="relu")
    ins = _inputs(np.random.default_rng(6), (2, 3))
    _check(mmod(ins[0][0]), tmod(ins[0][1]), mmod, tmod, ins)
    big = mnn.LSTM(10, 100)
    bound = 1 / 100**0.5
    for p in big.parameters():
        assert p.abs().max().item() <= bound
        assert p.abs().max().item() > 0.9 * bound


def test_recurrent_dropout_train_vs_eval():
    m = mnn.GRU(3, 4, num_layers=2, dropout=0.5)
    x = mt.randn(5, 2, 3)
    m.eval()
    a, b = m(x)[0], m(x)[0]
    assert_same(a, b)
    m.train()
    assert not np.allclose(m(x)[0].detach().numpy(), a.detach().numpy())


@pytest.mark.parametrize(
    "call,exc",
    [
        (lambda m: m.LSTM(3, 4, dropout=1.5), ValueError),
        (lambda m: m.LSTM(3, 4, proj_size=4), ValueError),
        (lambda m: m.GRU(3, 4, proj_size=2), ValueError),
        (lambda m: m.RNN(3, 4, nonlinearity="gelu"), ValueError),
        (lambda m: m.RNN(3, 0), ValueError),
        (lambda m: m.RNN(3, 4.0), TypeError),
        (lambda m: m.LSTM(3, 4)(m_or_t(m).zeros(2, 3, 4, 5)), ValueError),
        (lambda m: m.LSTM(3, 4)(m_or_t(m).zeros(2, 3, 5)), RuntimeError),
        (lambda m: m.GRU(3, 4)(m_or_t(m).zeros(2, 3, 3), m_or_t(m).zeros(1, 2, 4)), RuntimeError),
        (lambda m: m.GRU(3, 4)(m_or_t(m).zeros(2, 3, 3), m_or_t(m).zeros(2, 4)), RuntimeError),
        (lambda m: m.LSTM(3, 4)(m_or_t(m).zeros(2, 3, 3, dtype=m_or_t(m).float64)), ValueError),
        (lambda m: m.GRUCell(3, 4)(m_or_t(m).zeros(2, 2, 3)), ValueError),
        (lambda m: m.LSTM(3, 4)(m_or_t(m).zeros(0, 2, 3)), RuntimeError),
        (lambda m: m.GRU(3, 4, batch_first=True)(m_or_t(m).zeros(2, 0, 3)), RuntimeError),
    ],
)
def test_recurrent_errors(call, exc):
    for lib in (torch.nn, mnn):
        with pytest.raises(exc):
            call(lib)


def m_or_t(nn_module):
    return torch if nn_module is torch.nn else mt


# --- nn.utils.rnn ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("padding_side", ["right", "left"])
def test_pad_sequence(batch_first, padding_side):
    ins = _inputs(np.random.default_rng(7), (3, 2), (5, 2), (1, 2))
    mo = mrnn.pad_sequence([m for m, _ in ins], batch_first, -1.0, padding_side)
    to = trnn.pad_sequence([t for _, t in ins], batch_first, -1.0, padding_side)
    _check(mo, to, None, None, ins)


@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_pack_sequence_roundtrip(enforce_sorted):
    shapes = [(4, 2), (3, 2), (3, 2), (1, 2)] if enforce_sorted else [(1, 2), (3, 2), (4, 2), (3, 2)]
    ins = _inputs(np.random.default_rng(8), *shapes)
    mp = mrnn.pack_sequence([m for m, _ in ins], enforce_sorted)
    tp = trnn.pack_sequence([t for _, t in ins], enforce_sorted)
    for a, b in zip(mp, tp):
        if b is None:
            assert a is None
        else:
            assert_same(a, b)
    mseqs, tseqs = mrnn.unpack_sequence(mp), trnn.unpack_sequence(tp)
    _check(mseqs, tseqs, None, None, ins)
    mpad, mlen = mrnn.pad_packed_sequence(mp, padding_value=9.0)
    tpad, tlen = trnn.pad_packed_sequence(tp, padding_value=9.0)
    assert_same(mpad, tpad)
    assert_same(mlen, tlen)
    for a, b in zip(mrnn.unpad_sequence(mpad, mlen), trnn.unpad_sequence(tpad, tlen)):
        assert_same(a, b)


def test_packing_errors():
    for lib, rnn in ((torch, trnn), (mt, mrnn)):
        x = lib.zeros(3, 2, 1)
        with pytest.raises(RuntimeError):
            rnn.pack_padded_sequence(x, [1, 3])
        with pytest.raises(RuntimeError):
            rnn.pack_padded_sequence(x, [2, 0])
        p = rnn.pack_padded_sequence(x, [3, 2])
        with pytest.raises(ValueError):
            rnn.pad_packed_sequence(p, total_length=2)


# --- Transformer family ------------------------------------------------------------------------------------
def _masks(lib, kind, L, S, N):
    """(attn_mask (L, S), key_padding_mask (N, S)) of the given kind: None, bool or float."""
    if kind is None:
        return None, None
    causal = lib.ones(L, S, dtype=lib.bool).triu(1)
    kpm = lib.zeros(N, S, dtype=lib.bool)
    kpm[0, S - 1] = True
    kpm[N - 1, S - 2 :] = True
    if kind == "bool":
        return causal, kpm
    return (lib.zeros(L, S).masked_fill(causal, float("-inf")), lib.zeros(N, S).masked_fill(kpm, float("-inf")))


LAYER_CONFIGS = [
    dict(),
    dict(norm_first=True),
    dict(batch_first=True, activation="gelu"),
    dict(batch_first=True, norm_first=True, bias=False),
    dict(layer_norm_eps=1e-3),
]


def _cfg_id(c):
    return "-".join(f"{k}{v}" for k, v in c.items()) or "default"


@pytest.mark.parametrize("cfg", LAYER_CONFIGS, ids=_cfg_id)
@pytest.mark.parametrize("mask", [None, "bool", "float"])
def test_transformer_encoder(cfg, mask):
    def build(lib, nn):
        layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, **cfg)
        return nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(8), enable_nested_tensor=False)

    mmod, tmod = _pair(build)
    N, S = 3, 5
    ins = _inputs(np.random.default_rng(9), (N, S, 8) if cfg.get("batch_first") else (S, N, 8))
    (ma, mk), (ta, tk) = _masks(mt, mask, S, S, N), _masks(torch, mask, S, S, N)
    mo = mmod(ins[0][0], mask=ma, src_key_padding_mask=mk)
    to = tmod(ins[0][1], mask=ta, src_key_padding_mask=tk)
    _check(mo, to, mmod, tmod, ins)


@pytest.mark.parametrize("cfg", LAYER_CONFIGS, ids=_cfg_id)
@pytest.mark.parametrize("mask", [None, "bool", "float"])
def test_transformer_decoder(cfg, mask):
    def build(lib, nn):
        return nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, **cfg), 2)

    mmod, tmod = _pair(build)
    N, T, S = 2, 4, 6
    bf = cfg.get("batch_first")
    ins = _inputs(np.random.default_rng(10), (N, T, 8) if bf else (T, N, 8), (N, S, 8) if bf else (S, N, 8))
    (ma, mk), (ta, tk) = _masks(mt, mask, T, T, N), _masks(torch, mask, T, T, N)
    (mma, mmk), (tma, tmk) = _masks(mt, mask, T, S, N), _masks(torch, mask, T, S, N)
    mo = mmod(ins[0][0], ins[1][0], tgt_mask=ma, memory_mask=mma, tgt_key_padding_mask=mk, memory_key_padding_mask=mmk)
    to = tmod(ins[0][1], ins[1][1], tgt_mask=ta, memory_mask=tma, tgt_key_padding_mask=tk, memory_key_padding_mask=tmk)
    _check(mo, to, mmod, tmod, ins)


@pytest.mark.parametrize("cfg", [dict(), dict(batch_first=True, norm_first=True)], ids=_cfg_id)
def test_transformer_full(cfg):
    def build(lib, nn):
        return nn.Transformer(8, 2, 2, 1, 16, dropout=0.0, **cfg)

    mmod, tmod = _pair(build)
    N, S, T = 2, 5, 4
    bf = cfg.get("batch_first")
    ins = _inputs(np.random.default_rng(11), (N, S, 8) if bf else (S, N, 8), (N, T, 8) if bf else (T, N, 8))
    mmask = mnn.Transformer.generate_square_subsequent_mask(T)
    tmask = torch.nn.Transformer.generate_square_subsequent_mask(T)
    assert_same(mmask, tmask)
    _, mk = _masks(mt, "bool", S, S, N)
    _, tk = _masks(torch, "bool", S, S, N)
    mo = mmod(ins[0][0], ins[1][0], tgt_mask=mmask, src_key_padding_mask=mk, memory_key_padding_mask=mk)
    to = tmod(ins[0][1], ins[1][1], tgt_mask=tmask, src_key_padding_mask=tk, memory_key_padding_mask=tk)
    _check(mo, to, mmod, tmod, ins)


@pytest.mark.parametrize("act", ["module", "function"])
def test_transformer_callable_activation_and_unbatched(act):
    def build(lib, nn):
        a = nn.GELU(approximate="tanh") if act == "module" else nn.functional.silu
        return nn.TransformerEncoderLayer(8, 4, 16, dropout=0.0, activation=a)

    mmod, tmod = _pair(build)
    assert mmod.activation_relu_or_gelu == tmod.activation_relu_or_gelu
    ins = _inputs(np.random.default_rng(12), (5, 8))
    _check(mmod(ins[0][0]), tmod(ins[0][1]), mmod, tmod, ins)


def test_transformer_dropout_and_errors():
    layer = mnn.TransformerEncoderLayer(8, 2, 16, dropout=0.5)
    x = mt.randn(4, 2, 8)
    layer.eval()
    assert_same(layer(x), layer(x))
    layer.train()
    assert not np.allclose(layer(x).detach().numpy(), layer.eval()(x).detach().numpy())
    for lib in (torch, mt):
        with pytest.raises(RuntimeError):
            lib.nn.TransformerEncoderLayer(8, 2, activation="tanh")
        layer = lib.nn.TransformerEncoderLayer(8, 2, 16)
        with pytest.raises(RuntimeError):
            layer(lib.zeros(3, 2, 8), is_causal=True)
        with pytest.raises(AssertionError):
            layer(lib.zeros(3, 2, 8), src_mask=lib.zeros(3, 3, dtype=lib.int64))
        model = lib.nn.Transformer(8, 2, 1, 1, 16)
        with pytest.raises(RuntimeError):
            model(lib.zeros(3, 2, 8), lib.zeros(3, 4, 8))
        with pytest.raises(RuntimeError):
            model(lib.zeros(3, 2, 8), lib.zeros(3, 2, 6))


def test_transformer_nested_tensor_warning_matches():
    import warnings

    msgs = []
    for nn in (torch.nn, mnn):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 1)
        msgs.append([str(x.message) for x in w if "nested" in str(x.message)])
    assert msgs[0] == msgs[1] and msgs[0]


# --- the other common modules --------------------------------------------------------------------------------
def _data(rng, spec):
    """One input from a spec: (kind, shape[, extra]); returns (ndarray, requires_grad)."""
    kind, shape = spec[0], spec[1]
    if kind == "f":
        return rng.standard_normal(shape).astype(np.float32), True
    if kind == "pos":
        return rng.uniform(0.2, 2.0, shape).astype(np.float32), True
    if kind == "sign":
        return rng.choice([-1.0, 1.0], shape).astype(np.float32), False
    if kind == "bin":
        return rng.integers(0, 2, shape).astype(np.float32), False
    if kind == "int":
        return rng.integers(0, spec[2], shape), False
    if kind == "const":
        return np.asarray(spec[1]), False
    raise ValueError(kind)


def _nn(name, *args, **kwargs):
    return lambda lib, nn: getattr(nn, name)(*args, **kwargs)


MODULE_CASES = [
    # activations
    ("Threshold", _nn("Threshold", 0.1, 20.0), [("f", (3, 4, 5))]),
    ("RReLU-eval", _nn("RReLU", 0.1, 0.3), [("f", (3, 4, 5))], "eval"),
    ("Hardsigmoid", _nn("Hardsigmoid"), [("f", (3, 4, 5))]),
    ("Hardswish", _nn("Hardswish"), [("f", (3, 4, 5))]),
    ("SELU", _nn("SELU"), [("f", (3, 4, 5))]),
    ("CELU", _nn("CELU", 0.5), [("f", (3, 4, 5))]),
    ("GLU", _nn("GLU", 1), [("f", (3, 4, 5))]),
    ("Hardshrink", _nn("Hardshrink", 0.3), [("f", (3, 4, 5))]),
    ("Softshrink", _nn("Softshrink", 0.3), [("f", (3, 4, 5))]),
    ("LogSigmoid", _nn("LogSigmoid"), [("f", (3, 4, 5))]),
    ("PReLU", _nn("PReLU"), [("f", (3, 4, 5))]),
    ("PReLU-channels", _nn("PReLU", 4, 0.1), [("f", (3, 4, 5))]),
    ("PReLU-1d", _nn("PReLU", 1), [("f", (6,))]),
    ("Softsign", _nn("Softsign"), [("f", (3, 4, 5))]),
    ("Tanhshrink", _nn("Tanhshrink"), [("f", (3, 4, 5))]),
    ("Softmax2d", _nn("Softmax2d"), [("f", (2, 3, 4, 5))]),
    ("ReLU6", _nn("ReLU6"), [("f", (3, 4, 5))]),
    ("Softmin", _nn("Softmin", 1), [("f", (3, 4, 5))]),
    # padding
    ("ConstantPad1d", _nn("ConstantPad1d", 2, 1.5), [("f", (2, 3, 4))]),
    ("ConstantPad2d", _nn("ConstantPad2d", (1, 0, 2, 1), -1.0), [("f", (2, 3, 4, 5))]),
    ("ConstantPad3d", _nn("ConstantPad3d", 1, 0.5), [("f", (1, 2, 3, 3, 3))]),
    ("ZeroPad1d", _nn("ZeroPad1d", (1, 2)), [("f", (2, 3, 4))]),
    ("ZeroPad2d", _nn("ZeroPad2d", 2), [("f", (3, 4, 5))]),
    ("ZeroPad3d", _nn("ZeroPad3d", (1, 0, 0, 1, 2, 0)), [("f", (1, 2, 3, 3, 3))]),
    ("ReflectionPad1d", _nn("ReflectionPad1d", 2), [("f", (2, 3, 5))]),
    ("ReflectionPad2d", _nn("ReflectionPad2d", [1, 2, 0, 1]), [("f", (1, 2, 4, 5))]),
    ("ReflectionPad3d", _nn("ReflectionPad3d", 1), [("f", (1, 2, 3, 3, 3))]),
    ("ReplicationPad1d", _nn("ReplicationPad1d", (3, 1)), [("f", (2, 3, 4))]),
    ("ReplicationPad2d", _nn("ReplicationPad2d", 2), [("f", (1, 2, 3, 4))]),
    ("ReplicationPad3d", _nn("ReplicationPad3d", 1), [("f", (1, 2, 3, 3, 3))]),
    ("CircularPad1d", _nn("CircularPad1d", 2), [("f", (2, 3, 4))]),
    ("CircularPad2d", _nn("CircularPad2d", (1, 2, 2, 1)), [("f", (1, 2, 4, 5))]),
    ("CircularPad3d", _nn("CircularPad3d", 1), [("f", (1, 2, 3, 3, 3))]),
    # rearrangement and resampling
    ("PixelShuffle", _nn("PixelShuffle", 2), [("f", (2, 8, 3, 4))]),
    ("PixelShuffle-unbatched", _nn("PixelShuffle", 3), [("f", (9, 2, 2))]),
    ("PixelUnshuffle", _nn("PixelUnshuffle", 2), [("f", (1, 2, 4, 6))]),
    ("ChannelShuffle", _nn("ChannelShuffle", 2), [("f", (2, 4, 3, 3))]),
    ("Upsample-nearest", _nn("Upsample", scale_factor=2), [("f", (1, 2, 3, 4))]),
    ("Upsample-bilinear", _nn("Upsample", size=(5, 7), mode="bilinear"), [("f", (1, 2, 3, 4))]),
    (
        "Upsample-bilinear-ac",
        _nn("Upsample", scale_factor=2, mode="bilinear", align_corners=True),
        [("f", (1, 2, 3, 4))],
    ),
    ("Upsample-linear", _nn("Upsample", scale_factor=3, mode="linear"), [("f", (2, 2, 4))]),
    ("UpsamplingNearest2d", _nn("UpsamplingNearest2d", scale_factor=2), [("f", (1, 2, 3, 3))]),
    ("UpsamplingBilinear2d", _nn("UpsamplingBilinear2d", size=(5, 6)), [("f", (1, 2, 3, 3))]),
    ("Identity", _nn("Identity", 3, unused=True), [("f", (2, 3))]),
    ("Unflatten", _nn("Unflatten", 1, (2, 3)), [("f", (4, 6, 2))]),
    ("Bilinear", _nn("Bilinear", 3, 4, 5), [("f", (6, 3)), ("f", (6, 4))]),
    # distances
    ("CosineSimilarity", _nn("CosineSimilarity"), [("f", (4, 5)), ("f", (4, 5))]),
    ("CosineSimilarity-dim", _nn("CosineSimilarity", 0, 1e-6), [("f", (4, 5)), ("f", (4, 5))]),
    ("PairwiseDistance", _nn("PairwiseDistance"), [("f", (4, 5)), ("f", (4, 5))]),
    ("PairwiseDistance-p1", _nn("PairwiseDistance", 1.0, 1e-5, True), [("f", (4, 5)), ("f", (4, 5))]),
    # normalization
    ("InstanceNorm1d", _nn("InstanceNorm1d", 3), [("f", (2, 3, 5))]),
    ("InstanceNorm1d-unbatched", _nn("InstanceNorm1d", 3, affine=True), [("f", (3, 5))]),
    ("InstanceNorm2d-affine", _nn("InstanceNorm2d", 3, affine=True), [("f", (2, 3, 4, 4))]),
    ("InstanceNorm2d-stats", _nn("InstanceNorm2d", 3, track_running_stats=True, momentum=0.3), [("f", (2, 3, 4, 4))]),
    ("InstanceNorm2d-stats-eval", _nn("InstanceNorm2d", 3, track_running_stats=True), [("f", (2, 3, 4, 4))], "eval"),
    ("InstanceNorm3d", _nn("InstanceNorm3d", 2, affine=True), [("f", (1, 2, 3, 3, 3))]),
    ("LocalResponseNorm", _nn("LocalResponseNorm", 3), [("f", (2, 5, 4, 4))]),
    ("LocalResponseNorm-3d", _nn("LocalResponseNorm", 2, 0.1, 0.5, 2.0), [("f", (2, 6, 7))]),
    ("LocalResponseNorm-5d", _nn("LocalResponseNorm", 4), [("f", (1, 5, 2, 3, 2))]),
    # forward only: PyTorch's legacy backward is not the derivative of its own forward at channel 0
    ("CrossMapLRN2d", _nn("CrossMapLRN2d", 3), [("f", (2, 5, 4, 4))], "forward"),
    # pooling
    ("LPPool1d", _nn("LPPool1d", 2, 3), [("f", (2, 3, 7))]),
    ("LPPool2d", _nn("LPPool2d", 3, (2, 3), stride=1), [("f", (1, 2, 5, 6))]),
    ("AdaptiveMaxPool1d", _nn("AdaptiveMaxPool1d", 3), [("f", (2, 3, 7))]),
    ("AdaptiveMaxPool1d-indices", _nn("AdaptiveMaxPool1d", 4, return_indices=True), [("f", (2, 3, 9))]),
    ("AdaptiveMaxPool2d-indices", _nn("AdaptiveMaxPool2d", (2, 3), return_indices=True), [("f", (2, 3, 5, 7))]),
    ("AdaptiveMaxPool2d-none", _nn("AdaptiveMaxPool2d", (None, 2)), [("f", (3, 4, 5))]),
    # dropout in eval mode is the identity
    ("Dropout3d-eval", _nn("Dropout3d", 0.3), [("f", (2, 3, 2, 2, 2))], "eval"),
    ("AlphaDropout-eval", _nn("AlphaDropout", 0.3), [("f", (2, 3))], "eval"),
    ("FeatureAlphaDropout-eval", _nn("FeatureAlphaDropout", 0.3), [("f", (2, 3, 4))], "eval"),
    # losses
    ("PoissonNLLLoss", _nn("PoissonNLLLoss"), [("f", (4, 5)), ("pos", (4, 5))]),
    (
        "PoissonNLLLoss-full",
        _nn("PoissonNLLLoss", log_input=False, full=True, reduction="sum"),
        [("pos", (4, 5)), ("pos", (4, 5))],
    ),
    ("GaussianNLLLoss", _nn("GaussianNLLLoss"), [("f", (4, 5)), ("f", (4, 5)), ("pos", (4, 5))]),
    (
        "GaussianNLLLoss-full",
        _nn("GaussianNLLLoss", full=True, reduction="none"),
        [("f", (4, 5)), ("f", (4, 5)), ("pos", (4,))],
    ),
    ("HingeEmbeddingLoss", _nn("HingeEmbeddingLoss", 0.5), [("f", (4, 5)), ("sign", (4, 5))]),
    (
        "MultiLabelMarginLoss",
        _nn("MultiLabelMarginLoss"),
        [("f", (3, 5)), ("const", [[3, 0, -1, 1, 2], [4, 4, 1, -1, -1], [-1, 0, 1, 2, 3]])],
    ),
    ("MultiLabelMarginLoss-1d", _nn("MultiLabelMarginLoss", reduction="none"), [("f", (4,)), ("const", [2, 1, -1, 0])]),
    ("SoftMarginLoss", _nn("SoftMarginLoss"), [("f", (4, 5)), ("sign", (4, 5))]),
    (
        "MultiLabelSoftMarginLoss",
        lambda lib, nn: nn.MultiLabelSoftMarginLoss(lib.tensor([1.0, 2.0, 0.5, 1.0, 3.0])),
        [("f", (3, 5)), ("bin", (3, 5))],
    ),
    ("CosineEmbeddingLoss", _nn("CosineEmbeddingLoss", 0.2), [("f", (4, 5)), ("f", (4, 5)), ("sign", (4,))]),
    (
        "CosineEmbeddingLoss-1d",
        _nn("CosineEmbeddingLoss", reduction="sum"),
        [("f", (5,)), ("f", (5,)), ("const", -1.0)],
    ),
    ("MarginRankingLoss", _nn("MarginRankingLoss", 0.1), [("f", (6,)), ("f", (6,)), ("sign", (6,))]),
    ("MultiMarginLoss", _nn("MultiMarginLoss"), [("f", (4, 5)), ("int", (4,), 5)]),
    (
        "MultiMarginLoss-p2-weight",
        lambda lib, nn: nn.MultiMarginLoss(2, 0.5, lib.tensor([1.0, 2.0, 0.5, 1.0, 3.0])),
        [("f", (4, 5)), ("int", (4,), 5)],
    ),
    ("TripletMarginLoss", _nn("TripletMarginLoss"), [("f", (4, 5))] * 3),
    ("TripletMarginLoss-swap", _nn("TripletMarginLoss", 0.5, 1.0, swap=True, reduction="none"), [("f", (4, 5))] * 3),
    ("TripletMarginWithDistanceLoss", _nn("TripletMarginWithDistanceLoss", margin=0.7, swap=True), [("f", (4, 5))] * 3),
    ("NLLLoss2d", _nn("NLLLoss2d"), [("f", (2, 3, 4, 4)), ("int", (2, 4, 4), 3)]),
]


@pytest.mark.parametrize("case", MODULE_CASES, ids=[c[0] for c in MODULE_CASES])
def test_module_parity(case):
    _, build, specs = case[:3]
    mmod, tmod = _pair(build)
    if len(case) > 3 and case[3] == "eval":
        mmod.eval()
        tmod.eval()
    rng = np.random.default_rng(13)
    ins = []
    for spec in specs:
        a, grad = _data(rng, spec)
        m, t = mt.tensor(a), torch.tensor(a)
        if grad:
            m.requires_grad_()
            t.requires_grad_()
        ins.append((m, t))
    mo, to = mmod(*[m for m, _ in ins]), tmod(*[t for _, t in ins])
    if len(case) > 3 and case[3] == "forward":
        assert_same(mo, to, rtol=RTOL, atol=ATOL)
        return
    _check(mo, to, mmod, tmod, ins)
    for (_n, mb), (_, tb) in zip(mmod.named_buffers(), tmod.named_buffers()):
        assert_same(mb, tb, rtol=1e-5, atol=1e-6)


def _lib_errors(cases):
    for i, (build, exc) in enumerate(cases):
        for lib in (torch, mt):
            with pytest.raises(exc):
                build(lib, lib.nn)
                pytest.fail(f"case {i}: {lib.__name__} did not raise")


def test_module_errors_match_pytorch():
    _lib_errors(
        [
            (lambda lib, nn: nn.PixelShuffle(2)(lib.zeros(1, 6, 2, 2)), RuntimeError),
            (lambda lib, nn: nn.PixelShuffle(2)(lib.zeros(6, 2)), RuntimeError),
            (lambda lib, nn: nn.PixelUnshuffle(2)(lib.zeros(1, 1, 3, 4)), RuntimeError),
            (lambda lib, nn: nn.ChannelShuffle(3)(lib.zeros(1, 4, 2, 2)), RuntimeError),
            (lambda lib, nn: nn.Softshrink(-1.0)(lib.zeros(3)), RuntimeError),
            (lambda lib, nn: nn.PReLU(3)(lib.zeros(2, 4)), RuntimeError),
            (lambda lib, nn: nn.Softmax2d()(lib.zeros(2, 3)), ValueError),
            (lambda lib, nn: nn.CircularPad2d(1)(lib.zeros(2, 3)), ValueError),
            (lambda lib, nn: nn.InstanceNorm1d(3, affine=True)(lib.zeros(2, 4, 5)), ValueError),
            (lambda lib, nn: nn.InstanceNorm2d(3)(lib.zeros(2, 3)), ValueError),
            (lambda lib, nn: nn.InstanceNorm1d(3)(lib.zeros(2, 3, 1)), ValueError),
            (lambda lib, nn: nn.LocalResponseNorm(2)(lib.zeros(2, 3)), ValueError),
            (lambda lib, nn: nn.TripletMarginLoss(margin=0.0), ValueError),
            (lambda lib, nn: nn.TripletMarginWithDistanceLoss(margin=-1.0), ValueError),
            (lambda lib, nn: nn.MultiMarginLoss(p=3), ValueError),
            (lambda lib, nn: nn.GaussianNLLLoss()(lib.zeros(2, 3), lib.zeros(2, 3), -lib.ones(2, 3)), ValueError),
            (lambda lib, nn: nn.GaussianNLLLoss()(lib.zeros(2, 3), lib.zeros(2, 3), lib.ones(3, 3)), ValueError),
            (lambda lib, nn: nn.Dropout3d(p=1.5), ValueError),
            (lambda lib, nn: nn.AlphaDropout(p=-0.1), ValueError),
        ]
    )


def test_random_modules_in_training_mode():
    x = mt.randn(200, 50)
    # alpha dropout keeps zero mean and unit variance of a standard normal input
    y = mnn.AlphaDropout(0.2)(x)
    assert abs(y.mean().item()) < 0.1 and abs(y.std().item() - 1) < 0.1
    dropped = np.isclose(
        y.numpy(),
        -1.7580993408473766 * (1 / np.sqrt((1.7580993408473766**2 * 0.2 + 1) * 0.8))
        + 1.7580993408473766 * (1 / np.sqrt((1.7580993408473766**2 * 0.2 + 1) * 0.8)) * 0.2,
    )
    assert 0.15 < dropped.mean() < 0.25
    # feature variants drop whole channels
    f = mnn.FeatureAlphaDropout(0.5)(mt.randn(4, 30, 6)).numpy()
    assert all(np.ptp(f[i, c]) < 1e-6 or len(set(np.round(f[i, c], 5))) > 1 for i in range(4) for c in range(30))
    d = mnn.Dropout3d(0.5)(mt.ones(4, 30, 2, 2, 2)).numpy()
    per_channel = d.reshape(4, 30, -1)
    assert np.all(per_channel.min(-1) == per_channel.max(-1))
    assert set(np.unique(d)) <= {0.0, 2.0}
    # RReLU: negative inputs scaled by a slope in [lower, upper], which is also their gradient
    x = mt.full((1000,), -1.0, requires_grad=True)
    y = mnn.RReLU(0.1, 0.3)(x)
    y.sum().backward()
    slopes = -y.detach().numpy()
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3 and slopes.std() > 0.03
    assert_same(x.grad, -y.detach())


def test_functional_extras_match_pytorch():
    rng = np.random.default_rng(14)
    a = rng.standard_normal((5, 4)).astype(np.float32)
    mx, tx = mt.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    _check(mt.nn.functional.pdist(mx), torch.nn.functional.pdist(tx), None, None, [(mx, tx)])
    _check(mt.nn.functional.pdist(mx, 1.0), torch.nn.functional.pdist(tx, 1.0), None, None, [])
    b = rng.standard_normal((1, 2, 3, 3)).astype(np.float32)
    assert_same(
        mt.nn.functional.upsample_nearest(mt.tensor(b), scale_factor=2),
        torch.nn.functional.upsample_nearest(torch.tensor(b), scale_factor=2),
    )
    assert_same(
        mt.nn.functional.upsample_bilinear(mt.tensor(b), size=(4, 5)),
        torch.nn.functional.upsample_bilinear(torch.tensor(b), size=(4, 5)),
        rtol=RTOL,
        atol=ATOL,
    )
    mi, ti = mt.tensor(a), torch.tensor(a)
    mt.nn.functional.threshold(mi, 0.2, -5.0, inplace=True)
    torch.nn.functional.threshold(ti, 0.2, -5.0, inplace=True)
    assert_same(mi, ti)
    assert_same(mt.nn.functional.rrelu(mt.tensor(a)), torch.nn.functional.rrelu(torch.tensor(a)))


CONV_CASES = [
    ("Conv3d", _nn("Conv3d", 2, 4, 3), [("f", (2, 2, 5, 5, 5))]),
    (
        "Conv3d-strided",
        _nn("Conv3d", 2, 4, (2, 3, 1), stride=(2, 1, 2), padding=(1, 0, 1), dilation=(1, 2, 1)),
        [("f", (1, 2, 6, 7, 5))],
    ),
    ("Conv3d-groups", _nn("Conv3d", 4, 6, 2, groups=2, bias=False), [("f", (1, 4, 3, 4, 4))]),
    ("Conv3d-same", _nn("Conv3d", 2, 3, (3, 2, 3), padding="same"), [("f", (1, 2, 4, 5, 5))]),
    ("Conv3d-circular", _nn("Conv3d", 2, 3, 3, padding=1, padding_mode="circular"), [("f", (2, 4, 4, 4))]),
    ("ConvTranspose1d", _nn("ConvTranspose1d", 3, 4, 3, stride=2, padding=1, output_padding=1), [("f", (2, 3, 5))]),
    ("ConvTranspose1d-unbatched", _nn("ConvTranspose1d", 3, 2, 4, dilation=2), [("f", (3, 6))]),
    ("ConvTranspose2d", _nn("ConvTranspose2d", 3, 4, 3), [("f", (2, 3, 4, 5))]),
    (
        "ConvTranspose2d-strided",
        _nn("ConvTranspose2d", 4, 6, (3, 2), stride=(2, 3), padding=(1, 0), output_padding=(1, 2), groups=2),
        [("f", (1, 4, 3, 4))],
    ),
    (
        "ConvTranspose2d-crop",
        _nn("ConvTranspose2d", 2, 2, 2, stride=2, padding=2, dilation=1, bias=False),
        [("f", (1, 2, 5, 5))],
    ),
    ("ConvTranspose3d", _nn("ConvTranspose3d", 2, 3, 2, stride=2), [("f", (1, 2, 2, 3, 2))]),
    ("Unfold", _nn("Unfold", (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)), [("f", (2, 3, 5, 6))]),
    ("Unfold-unbatched", _nn("Unfold", 2), [("f", (2, 4, 4))]),
    ("Fold", _nn("Fold", (5, 6), (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)), [("f", (2, 18, 12))]),
    ("Fold-overlap", _nn("Fold", 4, 2), [("f", (1, 12, 9))]),
    ("EmbeddingBag-2d", _nn("EmbeddingBag", 10, 3), [("int", (4, 3), 10)]),
    ("EmbeddingBag-sum-offsets", _nn("EmbeddingBag", 10, 3, mode="sum"), [("int", (7,), 10), ("const", [0, 2, 2, 5])]),
    (
        "EmbeddingBag-max-last",
        _nn("EmbeddingBag", 10, 3, mode="max", include_last_offset=True),
        [("int", (7,), 10), ("const", [0, 3, 4, 7])],
    ),
    (
        "EmbeddingBag-padding",
        _nn("EmbeddingBag", 10, 3, padding_idx=2),
        [("const", [2, 1, 2, 2, 5, 7]), ("const", [0, 2, 4])],
    ),
    (
        "EmbeddingBag-weights",
        _nn("EmbeddingBag", 10, 3, mode="sum"),
        [("int", (6,), 10), ("const", [0, 3]), ("f", (6,))],
    ),
]


POOL3D_CASES = [
    ("MaxPool3d", _nn("MaxPool3d", 2), [("f", (2, 3, 4, 5, 6))]),
    (
        "MaxPool3d-full",
        _nn("MaxPool3d", (3, 2, 2), stride=(2, 1, 2), padding=1, dilation=(1, 2, 1), ceil_mode=True),
        [("f", (1, 2, 6, 6, 7))],
    ),
    ("MaxPool3d-indices", _nn("MaxPool3d", 2, stride=1, padding=1, return_indices=True), [("f", (2, 3, 3, 4))]),
    ("AvgPool3d", _nn("AvgPool3d", 2), [("f", (2, 3, 4, 5, 6))]),
    ("AvgPool3d-pad", _nn("AvgPool3d", 3, stride=2, padding=1, ceil_mode=True), [("f", (1, 2, 6, 5, 7))]),
    (
        "AvgPool3d-nopadcount",
        _nn("AvgPool3d", 3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
        [("f", (1, 2, 6, 5, 7))],
    ),
    ("AvgPool3d-divisor", _nn("AvgPool3d", (2, 1, 2), stride=1, divisor_override=3), [("f", (2, 3, 4, 5))]),
    ("LPPool3d", _nn("LPPool3d", 2, 2), [("f", (1, 2, 4, 4, 5))]),
    ("AdaptiveAvgPool3d", _nn("AdaptiveAvgPool3d", (2, 3, None)), [("f", (2, 3, 5, 7, 4))]),
    ("AdaptiveMaxPool3d", _nn("AdaptiveMaxPool3d", 2, return_indices=True), [("f", (2, 3, 5, 7, 4))]),
]


@pytest.mark.parametrize("case", POOL3D_CASES, ids=[c[0] for c in POOL3D_CASES])
def test_pool3d_parity(case):
    test_module_parity(case)


@pytest.mark.parametrize("case", CONV_CASES, ids=[c[0] for c in CONV_CASES])
def test_conv_fold_bag_parity(case):
    test_module_parity(case)


@pytest.mark.parametrize("output_size", [None, (8, 9), [1, 2, 8, 10]])
def test_conv_transpose_output_size(output_size):
    mmod, tmod = _pair("ConvTranspose2d", 4, 2, 3, stride=2, padding=1)
    ins = _inputs(np.random.default_rng(15), (1, 4, 4, 5))
    _check(mmod(ins[0][0], output_size), tmod(ins[0][1], output_size), mmod, tmod, ins)
    for lib, mod in ((torch, tmod), (mt, mmod)):
        with pytest.raises(ValueError):
            mod(lib.zeros(1, 4, 4, 5), (12, 9))
        with pytest.raises(RuntimeError):
            lib.nn.functional.conv_transpose2d(lib.zeros(1, 4, 4, 5), mod.weight, stride=1, output_padding=1)
        with pytest.raises(ValueError):
            lib.nn.ConvTranspose2d(4, 2, 3, padding_mode="reflect")


@pytest.mark.parametrize("n", [1, 2, 3])
def test_max_unpool_parity(n):
    rng = np.random.default_rng(16)
    shape = {1: (2, 3, 8), 2: (2, 3, 6, 8), 3: (1, 2, 4, 4, 6)}[n]
    a = rng.standard_normal(shape).astype(np.float32)
    pool = getattr(torch.nn, f"MaxPool{n}d")(2, return_indices=True)
    tv, ti = pool(torch.tensor(a))
    mmod, tmod = _pair(f"MaxUnpool{n}d", 2)
    mv = mt.tensor(tv.numpy(), requires_grad=True)
    tv = tv.detach().requires_grad_()
    mi = mt.tensor(ti.numpy())
    _check(mmod(mv, mi), tmod(tv, ti), None, None, [(mv, tv)])
    size = {1: (9,), 2: (7, 9), 3: (5, 4, 7)}[n]
    _check(mmod(mv, mi, size), tmod(tv, ti, size), None, None, [])


MISC_CASES = [
    ("SyncBatchNorm", _nn("SyncBatchNorm", 3), [("f", (4, 3, 2, 2, 2))]),
    ("SyncBatchNorm-eval", _nn("SyncBatchNorm", 3, momentum=None), [("f", (4, 3))], "eval"),
    ("LinearCrossEntropyLoss", _nn("LinearCrossEntropyLoss", 4, 5), [("f", (6, 4)), ("int", (6,), 5)]),
    (
        "LinearCrossEntropyLoss-kd",
        lambda lib, nn: nn.LinearCrossEntropyLoss(
            4,
            3,
            out_features=(2,),
            bias=True,
            weight=lib.tensor([1.0, 2.0, 0.5]),
            ignore_index=1,
            label_smoothing=0.1,
            reduction="sum",
        ),
        [("f", (5, 4)), ("int", (5, 2), 3)],
    ),
]


@pytest.mark.parametrize("case", MISC_CASES, ids=[c[0] for c in MISC_CASES])
def test_misc_module_parity(case):
    test_module_parity(case)


def test_sync_batchnorm_conversion():
    for nn in (torch.nn, mnn):
        model = nn.Sequential(nn.Conv2d(2, 3, 1), nn.BatchNorm2d(3), nn.Sequential(nn.BatchNorm1d(4)))
        model.eval()
        conv = nn.SyncBatchNorm.convert_sync_batchnorm(model)
        assert isinstance(conv[1], nn.SyncBatchNorm) and isinstance(conv[2][0], nn.SyncBatchNorm)
        assert conv[1].weight is model[1].weight and not conv[1].training
        assert [k for k, _ in conv.state_dict().items()] == [k for k, _ in model.state_dict().items()]


@pytest.mark.parametrize("batched", [True, False])
def test_adaptive_log_softmax(batched):
    def build(lib, nn):
        return nn.AdaptiveLogSoftmaxWithLoss(8, 20, [4, 10, 15], div_value=2.0, head_bias=True)

    mmod, tmod = _pair(build)
    rng = np.random.default_rng(17)
    ins = _inputs(rng, (6, 8) if batched else (8,))
    tgt = np.array([0, 5, 12, 19, 3, 11]) if batched else np.array(17)
    mo, to = mmod(ins[0][0], mt.tensor(tgt)), tmod(ins[0][1], torch.tensor(tgt))
    assert type(mo).__name__ == "_ASMoutput"
    _check(tuple(mo), tuple(to), mmod, tmod, ins)
    if batched:
        assert_same(mmod.log_prob(ins[0][0]), tmod.log_prob(ins[0][1]), rtol=RTOL, atol=ATOL)
        assert_same(mmod.predict(ins[0][0]), tmod.predict(ins[0][1]))
    for lib, mod in ((torch, tmod), (mt, mmod)):
        with pytest.raises(RuntimeError):
            mod(lib.zeros(2, 8), lib.tensor([1, 20]))
        with pytest.raises(ValueError):
            lib.nn.AdaptiveLogSoftmaxWithLoss(8, 20, [10, 4])


def test_linear_cross_entropy_options_validation():
    assert repr(mnn.LinearCrossEntropyOptions()) == repr(torch.nn.LinearCrossEntropyOptions())
    for kw in ({"acc_policy": "fast"}, {"chunking_method": "aspect_ratio:0"}, {"batch_chunk_size": 0}):
        for nn in (torch.nn, mnn):
            with pytest.raises(ValueError):
                nn.LinearCrossEntropyOptions(**kw)
    opts = {"batch_chunk_size": 2}
    m = lambda lib, nn: nn.LinearCrossEntropyLoss(4, 3, options=nn.LinearCrossEntropyOptions(**opts))
    test_module_parity(("opts", m, [("f", (6, 4)), ("int", (6,), 3)]))


CTC_CASES = [
    ("CTCLoss", _nn("CTCLoss"), [(7, 2, 5), ("const", [[1, 2, 2], [3, 1, 0]]), ("const", [7, 6]), ("const", [3, 2])]),
    (
        "CTCLoss-concat-sum",
        _nn("CTCLoss", blank=4, reduction="sum"),
        [(6, 3, 5), ("const", [0, 1, 1, 2, 3, 0]), ("const", [6, 5, 6]), ("const", [2, 1, 3])],
    ),
    (
        "CTCLoss-none-empty",
        _nn("CTCLoss", reduction="none"),
        [(5, 2, 4), ("const", [[2, 3], [0, 0]]), ("const", [5, 4]), ("const", [2, 0])],
    ),
    (
        "CTCLoss-zero-infinity",
        _nn("CTCLoss", reduction="none", zero_infinity=True),
        [(3, 2, 4), ("const", [[1, 1, 1], [2, 3, 1]]), ("const", [3, 3]), ("const", [3, 2])],
    ),
    ("CTCLoss-unbatched", _nn("CTCLoss"), [(6, 4), ("const", [1, 2]), ("const", 6), ("const", 2)]),
]


@pytest.mark.parametrize("case", CTC_CASES, ids=[c[0] for c in CTC_CASES])
def test_ctc_loss(case):
    # the gradient is compared at the logits: PyTorch's CTC backward returns the gradient through
    # log_softmax rather than the gradient with respect to log_probs themselves
    _, build, (shape, *rest) = case
    mmod, tmod = _pair(build)
    ins = _inputs(np.random.default_rng(18), shape)
    args = [np.asarray(r[1]) for r in rest]
    mo = mmod(mt.nn.functional.log_softmax(ins[0][0], -1), *[mt.tensor(a) for a in args])
    to = tmod(torch.nn.functional.log_softmax(ins[0][1], -1), *[torch.tensor(a) for a in args])
    _check(mo, to, None, None, ins)


LAZY_CASES = [
    ("LazyLinear", (7,), {}, (3, 4)),
    ("LazyLinear", (7,), {"bias": False}, (2, 3, 4)),
    ("LazyConv1d", (4, 3), {"padding": 1}, (2, 3, 6)),
    ("LazyConv2d", (4, 3), {"groups": 2, "stride": 2}, (2, 6, 7, 7)),
    ("LazyConv3d", (2, 2), {}, (1, 3, 3, 4, 4)),
    ("LazyConvTranspose1d", (4, 3), {"stride": 2}, (3, 5)),
    ("LazyConvTranspose2d", (4, 3), {"output_padding": 1, "stride": 2}, (1, 2, 3, 3)),
    ("LazyConvTranspose3d", (2, 2), {}, (1, 2, 2, 2, 2)),
    ("LazyBatchNorm1d", (), {}, (5, 3)),
    ("LazyBatchNorm2d", (), {"affine": False}, (2, 3, 4, 4)),
    ("LazyBatchNorm3d", (), {"momentum": None}, (2, 3, 2, 2, 2)),
    ("LazyInstanceNorm1d", (), {}, (2, 3, 5)),
    ("LazyInstanceNorm2d", (), {"affine": False, "track_running_stats": False}, (3, 4, 4)),
    ("LazyInstanceNorm3d", (), {}, (1, 2, 3, 3, 3)),
]


@pytest.mark.parametrize("name,args,kwargs,shape", LAZY_CASES, ids=[c[0] for c in LAZY_CASES])
def test_lazy_modules(name, args, kwargs, shape):
    tmod, mmod = getattr(torch.nn, name)(*args, **kwargs), getattr(mnn, name)(*args, **kwargs)
    assert repr(mmod) == repr(tmod)
    assert mmod.has_uninitialized_params() == tmod.has_uninitialized_params()
    ins = _inputs(np.random.default_rng(19), shape)
    with torch.no_grad():
        tmod(ins[0][1])
    with mt.no_grad():
        mmod(ins[0][0])
    assert type(mmod).__name__ == type(tmod).__name__ and repr(mmod) == repr(tmod)
    tsd = tmod.state_dict()
    assert list(mmod.state_dict()) == list(tsd)
    mmod.load_state_dict({k: mt.tensor(v.numpy().copy()) for k, v in tsd.items()})
    _check(mmod(ins[0][0]), tmod(ins[0][1]), mmod, tmod, ins)


def test_lazy_module_loads_a_checkpoint_before_its_first_call():
    src = torch.nn.Linear(3, 5)
    for nn, lib in ((torch.nn, torch), (mnn, mt)):
        m = nn.LazyLinear(5)
        m.load_state_dict({k: lib.tensor(v.detach().numpy().copy()) for k, v in src.state_dict().items()})
        assert tuple(m.weight.shape) == (5, 3) and type(m).__name__ == "LazyLinear"
        m(lib.zeros(2, 3))
        assert type(m).__name__ == "Linear"
        with pytest.raises(RuntimeError):
            nn.LazyConv2d(4, 3)(lib.zeros(3, 2))


@pytest.mark.parametrize(
    "nd,shape,kw",
    [
        (2, (2, 3, 9, 11), {"kernel_size": 2, "output_size": (4, 5)}),
        (2, (3, 10, 7), {"kernel_size": (3, 2), "output_ratio": 0.5}),
        (3, (1, 2, 6, 7, 8), {"kernel_size": 2, "output_size": (3, 4, 5)}),
        (3, (2, 5, 6, 7), {"kernel_size": (2, 3, 2), "output_ratio": (0.5, 0.6, 0.7)}),
    ],
)
def test_fractional_max_pool(nd, shape, kw):
    rng = np.random.default_rng(20)
    n = shape[0] if len(shape) == nd + 2 else 1
    c = shape[-nd - 1]
    u = rng.uniform(size=(n, c, nd)).astype(np.float32)

    def build(lib, nn):
        return getattr(nn, f"FractionalMaxPool{nd}d")(return_indices=True, _random_samples=lib.tensor(u), **kw)

    mmod, tmod = _pair(build)
    ins = _inputs(rng, shape)
    _check(mmod(ins[0][0]), tmod(ins[0][1]), None, None, ins)
    # without given samples: the windows are random, the shape and the value-index agreement are not
    out, idx = getattr(mnn, f"FractionalMaxPool{nd}d")(return_indices=True, **kw)(ins[0][0])
    flat = ins[0][0].detach().reshape(shape[:-nd] + (-1,))
    assert_same(flat.gather(-1, idx.reshape(idx.shape[:-nd] + (-1,))).reshape(out.shape), out.detach())
    for nn in (torch.nn, mnn):
        with pytest.raises(ValueError):
            getattr(nn, f"FractionalMaxPool{nd}d")(2)
        with pytest.raises(ValueError):
            getattr(nn, f"FractionalMaxPool{nd}d")(2, output_ratio=1.5)


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_affine_grid_and_grid_sample(mode, padding_mode, align_corners):
    rng = np.random.default_rng(21)
    # generic transforms: no sample lands exactly on a pixel, where bilinear gradients are one-sided
    th = (np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]) + 0.3 * rng.standard_normal((2, 2, 3))).astype(np.float32)
    (mth, tth), (mx, tx) = _inputs(rng, (2, 2, 3), (2, 3, 5, 6))
    with torch.no_grad():
        tth.copy_(torch.tensor(th))
    with mt.no_grad():
        mth.copy_(mt.tensor(th))
    mg = mt.nn.functional.affine_grid(mth, (2, 3, 4, 7), align_corners=align_corners)
    tg = torch.nn.functional.affine_grid(tth, (2, 3, 4, 7), align_corners=align_corners)
    assert_same(mg, tg, rtol=RTOL, atol=ATOL)
    mo = mt.nn.functional.grid_sample(mx, mg * 1.3, mode, padding_mode, align_corners)
    to = torch.nn.functional.grid_sample(tx, tg * 1.3, mode, padding_mode, align_corners)
    # nearest sampling has no gradient for the grid: PyTorch fills zeros, mindtorch leaves it unset
    _check(mo, to, None, None, [(mx, tx)] + ([(mth, tth)] if mode == "bilinear" else []), atol=1e-4)
    if mode == "nearest":
        assert mth.grad is None or not mth.grad.abs().sum().item()


def test_affine_grid_3d():
    rng = np.random.default_rng(22)
    ins = _inputs(rng, (2, 3, 4))
    _check(
        mt.nn.functional.affine_grid(ins[0][0], (2, 1, 3, 4, 5), align_corners=False),
        torch.nn.functional.affine_grid(ins[0][1], (2, 1, 3, 4, 5), align_corners=False),
        None,
        None,
        ins,
    )


def test_functional_wrappers():
    F_m, F_t = mt.nn.functional, torch.nn.functional
    rng = np.random.default_rng(23)
    a = rng.standard_normal((3, 4, 5)).astype(np.float32)
    for name, args in (
        ("elu_", (0.7,)),
        ("celu_", (0.5,)),
        ("selu_", ()),
        ("hardtanh_", (-0.5, 0.4)),
        ("leaky_relu_", (0.2,)),
    ):
        mx, tx = mt.tensor(a), torch.tensor(a)
        r = getattr(F_m, name)(mx, *args)
        getattr(F_t, name)(tx, *args)
        assert r is mx
        assert_same(mx, tx, rtol=RTOL, atol=ATOL)
    for n, shape in ((1, (2, 3, 8)), (2, (2, 3, 4, 6))):
        b = rng.standard_normal(shape).astype(np.float32)
        assert_same(
            getattr(F_m, f"max_pool{n}d_with_indices")(mt.tensor(b), 2),
            getattr(F_t, f"max_pool{n}d_with_indices")(torch.tensor(b), 2),
        )
    (mi, ti), (mw, tw), (mb, tb) = _inputs(rng, (7, 2, 3), (3, 3, 4), (4,))
    _check(F_m.conv_tbc(mi, mw, mb, 1), F_t.conv_tbc(ti, tw, tb, 1), None, None, [(mi, ti), (mw, tw), (mb, tb)])
    logits = mt.randn(1000, 5, requires_grad=True)
    soft = F_m.gumbel_softmax(logits, tau=0.5)
    assert np.allclose(soft.sum(-1).detach().numpy(), 1, atol=1e-5)
    hard = F_m.gumbel_softmax(logits, hard=True)
    assert set(np.unique(hard.detach().numpy())) == {0.0, 1.0} and np.all(hard.detach().numpy().sum(-1) == 1)
    hard[:, 0].sum().backward()
    assert logits.grad.abs().sum().item() > 0
    # with equal logits every class is drawn about equally often
    counts = np.bincount(F_m.gumbel_softmax(mt.zeros(4000, 4), hard=True).argmax(-1).numpy(), minlength=4)
    assert counts.min() > 850


@pytest.mark.parametrize(
    "build",
    [
        _nn("SELU", True),
        _nn("CELU", 0.5, True),
        _nn("Hardsigmoid", True),
        _nn("Threshold", 0.1, -2.0, True),
        _nn("RReLU", inplace=True),
        _nn("ReLU6", True),
    ],
    ids=["SELU", "CELU", "Hardsigmoid", "Threshold", "RReLU", "ReLU6"],
)
def test_inplace_activation_modules(build):
    mmod, tmod = _pair(build)
    mmod.eval()
    tmod.eval()
    ((mx, tx),) = _inputs(np.random.default_rng(24), (3, 4))
    my, ty = mx * 1, tx * 1
    mo, to = mmod(my), tmod(ty)
    assert mo is my
    _check(mo, to, None, None, [(mx, tx)])


def test_embedding_bag_errors_and_empty_mean_bag():
    _lib_errors(
        [
            (lambda lib, nn: nn.EmbeddingBag(10, 3)(lib.tensor([1, 2, 3]), lib.tensor([1, 2])), RuntimeError),
            (lambda lib, nn: nn.EmbeddingBag(10, 3)(lib.tensor([1, 2, 3])), ValueError),
            (lambda lib, nn: nn.EmbeddingBag(10, 3)(lib.tensor([[1, 2]]), lib.tensor([0])), ValueError),
            (
                lambda lib, nn: nn.EmbeddingBag(10, 3)(lib.tensor([1, 2, 3]), lib.tensor([0, 1]), lib.ones(3)),
                NotImplementedError,
            ),
        ]
    )
    test_module_parity(("mean-empty", _nn("EmbeddingBag", 10, 3), [("int", (5,), 10), ("const", [0, 0, 2, 5])]))


# --- small training programs, unchanged between the libraries -------------------------------------------------
def _lm_program(lib, kind, init_sd=None, steps=4):
    """A word-language-model loop (as PyTorch's example): embedding, recurrent or Transformer body, decoder,
    packed variable-length batches for the recurrent case, gradient clipping, SGD. Returns losses and weights."""
    nn, F = lib.nn, lib.nn.functional
    rnn_utils = nn.utils.rnn
    vocab, emb, hid = 20, 8, 12

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = nn.Embedding(vocab, emb)
            if kind == "lstm":
                self.body = nn.LSTM(emb, hid, num_layers=2, dropout=0.0, batch_first=True, bidirectional=True)
                out = 2 * hid
            elif kind == "gru":
                self.body = nn.GRU(emb, hid, num_layers=2, batch_first=True)
                out = hid
            else:
                layer = nn.TransformerEncoderLayer(emb, 2, 16, dropout=0.0, batch_first=True, norm_first=True)
                self.body = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
                out = emb
            self.decoder = nn.Linear(out, vocab)

        def forward(self, tokens, lengths):
            x = self.encoder(tokens)
            if kind == "transformer":
                t = tokens.shape[1]
                causal = nn.Transformer.generate_square_subsequent_mask(t)
                pad = lib.arange(t).unsqueeze(0) >= lengths.unsqueeze(1)
                return self.decoder(self.body(x, mask=causal, src_key_padding_mask=pad))
            packed = rnn_utils.pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
            out, _ = self.body(packed)
            out, _ = rnn_utils.pad_packed_sequence(out, batch_first=True, total_length=tokens.shape[1])
            return self.decoder(out)

    model = Model()
    model.load_state_dict({k: lib.tensor(v) for k, v in init_sd.items()})
    opt = lib.optim.SGD(model.parameters(), lr=0.5, momentum=0.9)
    rng = np.random.default_rng(25)
    losses = []
    for _ in range(steps):
        tokens = lib.tensor(rng.integers(0, vocab, (4, 7)))
        lengths = lib.tensor([7, 3, 5, 6])
        target = tokens.roll(-1, 1).masked_fill(lib.arange(7).unsqueeze(0) >= lengths.unsqueeze(1) - 1, -100)
        opt.zero_grad()
        loss = F.cross_entropy(model(tokens, lengths).reshape(-1, vocab), target.reshape(-1), ignore_index=-100)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        opt.step()
        losses.append(loss.item())
    return losses, {k: v.detach().numpy() for k, v in model.state_dict().items()}


@pytest.mark.parametrize("kind", ["lstm", "gru", "transformer"])
def test_language_model_training_matches(kind):
    torch.manual_seed(0)
    sd = _initial_state(kind)  # PyTorch's initialization; both programs load it
    t_losses, t_sd = _lm_program(torch, kind, sd)
    m_losses, m_sd = _lm_program(mt, kind, sd)
    np.testing.assert_allclose(m_losses, t_losses, rtol=2e-5, atol=1e-5)
    assert list(m_sd) == list(t_sd)
    for k in t_sd:
        np.testing.assert_allclose(m_sd[k], t_sd[k], rtol=1e-4, atol=2e-5, err_msg=k)


def _initial_state(kind):
    """The program's parameters as PyTorch initializes them, keyed as the program's model names them."""
    nn = torch.nn
    vocab, emb, hid = 20, 8, 12
    parts = {"encoder": nn.Embedding(vocab, emb)}
    if kind == "lstm":
        parts["body"] = nn.LSTM(emb, hid, num_layers=2, batch_first=True, bidirectional=True)
        out = 2 * hid
    elif kind == "gru":
        parts["body"] = nn.GRU(emb, hid, num_layers=2, batch_first=True)
        out = hid
    else:
        parts["body"] = nn.TransformerEncoder(
            nn.TransformerEncoderLayer(emb, 2, 16, dropout=0.0, batch_first=True, norm_first=True),
            2,
            enable_nested_tensor=False,
        )
        out = emb
    parts["decoder"] = nn.Linear(out, vocab)
    return {f"{name}.{k}": v.numpy().copy() for name, mod in parts.items() for k, v in mod.state_dict().items()}


def test_every_pytorch_module_class_exists_at_pytorch_path():
    import importlib

    for name in torch.nn.modules.__all__:
        assert hasattr(mnn, name), name
        path = getattr(torch.nn, name).__module__.replace("torch.", "mindtorch.", 1)
        assert getattr(importlib.import_module(path), name) is getattr(mnn, name), (path, name)
    for name in trnn.__all__:
        assert hasattr(mrnn, name), name
