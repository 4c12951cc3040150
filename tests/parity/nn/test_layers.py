"""Layers against PyTorch: same weights, same inputs -> same outputs, gradients, state_dict layout."""

import numpy as np
import pytest
from helpers import assert_same, torch_or_skip

torch = torch_or_skip()

import mindtorch as mt  # noqa: E402
import mindtorch.nn as mnn  # noqa: E402


def _copy_weights(mmod, tmod):
    tsd = tmod.state_dict()
    assert list(mmod.state_dict()) == list(tsd)
    with torch.no_grad():
        for k, v in mmod.state_dict().items():
            assert tuple(v.shape) == tuple(tsd[k].shape), k
            tsd[k].copy_(torch.from_numpy(v.numpy().copy()))


CASES = [
    ("Linear", (5, 3), {}, (4, 5)),
    ("Embedding", (10, 4), {"padding_idx": 1}, "int"),
    ("LayerNorm", (6,), {}, (2, 3, 6)),
    ("RMSNorm", (6,), {"eps": 1e-6}, (2, 6)),
    ("GroupNorm", (2, 4), {}, (2, 4, 5)),
    ("BatchNorm1d", (4,), {}, (6, 4)),
    ("BatchNorm2d", (3,), {"momentum": None}, (2, 3, 4, 4)),
    ("Conv1d", (3, 4, 3), {"padding": 1, "stride": 2}, (2, 3, 9)),
    ("Conv2d", (3, 4, 3), {"padding": "same", "dilation": 2}, (2, 3, 7, 7)),
    ("Conv2d", (4, 6, 2), {"groups": 2, "bias": False}, (1, 4, 6, 6)),
    ("MaxPool2d", (2,), {}, (1, 2, 6, 6)),
    ("AvgPool2d", (3,), {"stride": 2, "padding": 1}, (1, 2, 7, 7)),
    ("AdaptiveAvgPool2d", ((2, 3),), {}, (1, 2, 6, 7)),
    ("Flatten", (), {}, (2, 3, 4)),
    ("GELU", (), {"approximate": "tanh"}, (3, 4)),
    ("SiLU", (), {}, (3, 4)),
    ("ELU", (0.5,), {}, (3, 4)),
    ("LeakyReLU", (0.2,), {}, (3, 4)),
    ("LogSoftmax", (), {"dim": 1}, (3, 4)),
    ("Softmax", (), {"dim": -1}, (3, 4)),
]


@pytest.mark.parametrize("name,args,kwargs,shape", CASES, ids=[c[0] for c in CASES])
def test_layer_forward_backward_and_repr(name, args, kwargs, shape):
    mmod, tmod = getattr(mnn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
    assert repr(mmod) == repr(tmod)
    _copy_weights(mmod, tmod)
    rng = np.random.default_rng(0)
    if shape == "int":
        x_np = rng.integers(0, args[0], size=(3, 5))
        mx, tx = mt.tensor(x_np), torch.tensor(x_np)
    else:
        x_np = rng.standard_normal(shape).astype(np.float32)
        mx, tx = mt.tensor(x_np).requires_grad_(), torch.tensor(x_np).requires_grad_()
    mo, to = mmod(mx), tmod(tx)
    assert_same(mo, to, rtol=1e-4, atol=1e-5)
    g = rng.standard_normal(tuple(to.shape)).astype(np.float32)
    mo.backward(mt.tensor(g))
    to.backward(torch.tensor(g))
    if shape != "int":
        assert_same(mx.grad, tx.grad, rtol=1e-4, atol=1e-5)
    for (_n, mp), (_, tp) in zip(mmod.named_parameters(), tmod.named_parameters()):
        assert_same(mp.grad, tp.grad, rtol=1e-4, atol=1e-4)
    for (_n, mb), (_, tb) in zip(mmod.named_buffers(), tmod.named_buffers()):
        assert_same(mb, tb, rtol=1e-5, atol=1e-6)


def test_default_init_distribution_matches():
    # same bounds as PyTorch's kaiming_uniform(a=sqrt(5)) init
    for ctor in (lambda m: m.Linear(50, 30), lambda m: m.Conv2d(4, 8, 3)):
        mw, tw = ctor(mnn).weight, ctor(torch.nn).weight
        assert abs(mw.abs().max().item() - tw.abs().max().item()) < 0.02
        assert abs(mw.std().item() - tw.std().item()) < 0.02


@pytest.mark.parametrize(
    "loss,kw",
    [
        ("CrossEntropyLoss", {"ignore_index": 2, "label_smoothing": 0.1}),
        ("CrossEntropyLoss", {"reduction": "sum"}),
        ("NLLLoss", {}),
        ("MSELoss", {}),
        ("L1Loss", {"reduction": "none"}),
        ("SmoothL1Loss", {"beta": 0.5}),
        ("BCEWithLogitsLoss", {}),
        ("BCELoss", {}),
        ("KLDivLoss", {"reduction": "batchmean"}),
    ],
)
def test_losses(loss, kw):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((6, 5)).astype(np.float32)
    if loss in ("CrossEntropyLoss", "NLLLoss"):
        t = rng.integers(0, 5, size=6)
        if loss == "NLLLoss":
            x = x - np.log(np.exp(x).sum(1, keepdims=True))
    elif loss == "BCELoss":
        x = 1 / (1 + np.exp(-x))
        t = rng.random((6, 5)).astype(np.float32)
    elif loss == "KLDivLoss":
        x = x - np.log(np.exp(x).sum(1, keepdims=True))
        t = rng.dirichlet(np.ones(5), size=6).astype(np.float32)
    else:
        t = rng.standard_normal((6, 5)).astype(np.float32)
    mx, tx = mt.tensor(x).requires_grad_(), torch.tensor(x).requires_grad_()
    mo, to = getattr(mnn, loss)(**kw)(mx, mt.tensor(t)), getattr(torch.nn, loss)(**kw)(tx, torch.tensor(t))
    assert_same(mo, to, rtol=1e-5, atol=1e-6)
    mo.sum().backward()
    to.sum().backward()
    assert_same(mx.grad, tx.grad, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("batch_first", [True, False])
def test_multihead_attention(batch_first):
    mmha = mnn.MultiheadAttention(8, 2, batch_first=batch_first)
    tmha = torch.nn.MultiheadAttention(8, 2, batch_first=batch_first)
    _copy_weights(mmha, tmha)
    rng = np.random.default_rng(2)
    q = rng.standard_normal((3, 5, 8)).astype(np.float32)
    kv = rng.standard_normal((3, 4, 8)).astype(np.float32)
    if not batch_first:
        q, kv = q.transpose(1, 0, 2).copy(), kv.transpose(1, 0, 2).copy()
    mask = np.triu(np.ones((5, 4), dtype=bool), 1)
    kpm = np.zeros((3, 4), dtype=bool)
    kpm[1, 3] = True  # no fully-masked rows (PyTorch itself differs between its paths there)
    for need_weights, avg in ((True, True), (True, False), (False, True)):
        mo, mw = mmha(
            mt.tensor(q),
            mt.tensor(kv),
            mt.tensor(kv),
            attn_mask=mt.tensor(mask),
            key_padding_mask=mt.tensor(kpm),
            need_weights=need_weights,
            average_attn_weights=avg,
        )
        to, tw = tmha(
            torch.tensor(q),
            torch.tensor(kv),
            torch.tensor(kv),
            attn_mask=torch.tensor(mask),
            key_padding_mask=torch.tensor(kpm),
            need_weights=need_weights,
            average_attn_weights=avg,
        )
        assert_same(mo, to, rtol=1e-4, atol=1e-5)
        if tw is None:
            assert mw is None
        else:
            assert_same(mw, tw, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("bias_kv,zero_attn", [(False, True), (True, True), (True, False)])
def test_multihead_attention_extra_key_rows(bias_kv, zero_attn):
    """add_bias_kv and add_zero_attn each append a key/value row; masks are padded to match."""
    mmha = mnn.MultiheadAttention(8, 2, add_bias_kv=bias_kv, add_zero_attn=zero_attn)
    tmha = torch.nn.MultiheadAttention(8, 2, add_bias_kv=bias_kv, add_zero_attn=zero_attn)
    _copy_weights(mmha, tmha)
    rng = np.random.default_rng(5)
    q = rng.standard_normal((5, 3, 8)).astype(np.float32)
    kv = rng.standard_normal((4, 3, 8)).astype(np.float32)
    mask = np.triu(np.ones((5, 4), dtype=bool), 1)
    kpm = np.zeros((3, 4), dtype=bool)
    kpm[2, 0] = True
    mq, tq = mt.tensor(q).requires_grad_(), torch.tensor(q).requires_grad_()
    mo, mw = mmha(mq, mt.tensor(kv), mt.tensor(kv), attn_mask=mt.tensor(mask), key_padding_mask=mt.tensor(kpm))
    to, tw = tmha(
        tq, torch.tensor(kv), torch.tensor(kv), attn_mask=torch.tensor(mask), key_padding_mask=torch.tensor(kpm)
    )
    assert_same(mo, to, rtol=1e-4, atol=1e-5)
    assert_same(mw, tw, rtol=1e-4, atol=1e-5)
    mo.sum().backward()
    to.sum().backward()
    assert_same(mq.grad, tq.grad, rtol=1e-4, atol=1e-5)
    if bias_kv:
        assert_same(mmha.bias_k.grad, tmha.bias_k.grad, rtol=1e-4, atol=1e-5)


def test_module_state_dict_and_error_text_match():
    def build(nn):
        return nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3), nn.ModuleDict({"a": nn.LayerNorm(3)}))

    mm, tm = build(mnn), build(torch.nn)
    assert list(mm.state_dict()) == list(tm.state_dict())
    assert dict(mm.state_dict()._metadata) == dict(tm.state_dict()._metadata)
    assert repr(mm) == repr(tm)
    bad = {"0.weight": np.zeros((3, 3), np.float32), "zz": np.zeros(1, np.float32)}
    with pytest.raises(RuntimeError) as me:
        mm.load_state_dict({k: mt.tensor(v) for k, v in bad.items()})
    with pytest.raises(RuntimeError) as te:
        tm.load_state_dict({k: torch.tensor(v) for k, v in bad.items()})
    assert str(me.value) == str(te.value)
    pl_m = mnn.ParameterList([mnn.Parameter(mt.ones(2)), mnn.Parameter(mt.ones(3))])
    pl_t = torch.nn.ParameterList([torch.nn.Parameter(torch.ones(2)), torch.nn.Parameter(torch.ones(3))])
    assert repr(pl_m) == repr(pl_t)
    assert repr(mnn.Parameter(mt.ones(2))) == repr(torch.nn.Parameter(torch.ones(2)))


@pytest.mark.parametrize("variant", ["packed", "separate", "static_kv", "unbatched", "causal-no-weights"])
def test_multi_head_attention_forward_function(variant):
    rng = np.random.default_rng(11)
    E, H, L, S, N = 8, 2, 5, 4, 3
    arr = lambda *s: rng.standard_normal(s).astype(np.float32)
    q, kv = (arr(L, E), arr(S, E)) if variant == "unbatched" else (arr(L, N, E), arr(S, N, E))
    w = dict(
        in_proj_weight=arr(3 * E, E),
        in_proj_bias=arr(3 * E),
        bias_k=arr(1, 1, E),
        bias_v=arr(1, 1, E),
        out_proj_weight=arr(E, E),
        out_proj_bias=arr(E),
    )
    kw = {}
    if variant == "separate":
        kw = dict(
            use_separate_proj_weight=True, q_proj_weight=arr(E, E), k_proj_weight=arr(E, E), v_proj_weight=arr(E, E)
        )
        w["in_proj_weight"] = None
    if variant == "static_kv":
        kw = dict(static_k=arr(N * H, S, E // H), static_v=arr(N * H, S, E // H))
        w["bias_k"] = w["bias_v"] = None
    if variant == "causal-no-weights":
        kw = dict(is_causal=True, need_weights=False, attn_mask=np.triu(np.full((L, L), -np.inf, np.float32), 1))
        w["bias_k"] = w["bias_v"] = None
        kv = q

    def run(lib, wide=False):
        # the oracle computes in float64 (rounded to float32 at the end): the query's gradient here is a
        # difference of much larger terms, so two float32 orders of summation may differ by more than atol
        t = lambda a: None if a is None else lib.tensor(a.astype(np.float64) if wide else a)
        qt = t(q).requires_grad_()
        out, weights = lib.nn.functional.multi_head_attention_forward(
            qt,
            t(kv),
            t(kv),
            E,
            H,
            t(w["in_proj_weight"]),
            t(w["in_proj_bias"]),
            t(w["bias_k"]),
            t(w["bias_v"]),
            variant == "packed",
            0.0,
            t(w["out_proj_weight"]),
            t(w["out_proj_bias"]),
            **{k: t(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()},
        )
        out.sum().backward()
        return tuple(None if r is None else r.detach().float() if wide else r for r in (out, weights, qt.grad))

    for m, t_ in zip(run(mt), run(torch, wide=True)):
        if t_ is None:  # need_weights=False
            assert m is None
        else:
            assert_same(m, t_, rtol=1e-4, atol=1e-5)


def test_multi_head_attention_causal_hint_needs_a_mask():
    for lib in (mt, torch):
        mha = lib.nn.MultiheadAttention(4, 2)
        x = lib.ones(3, 1, 4)
        with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
            mha(x, x, x, is_causal=True)
