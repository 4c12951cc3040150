"""Fused attention on the npu: F.scaled_dot_product_attention through aclnnFlashAttentionScore and its Grad
(values and gradients against the cpu backend, which paths fuse and which take the composite), torch_npu's
npu_fusion_attention / npu_fusion_attention_grad (layouts, GQA, sparse modes, dropout) against PyTorch, what
the simulator refuses as the operators' docs do, and the memory the fused path saves."""

import importlib.util
import sys
from pathlib import Path

import mindtorch as torch
import numpy as np
import pytest
from mindtorch_npu import optable
from mindtorch_npu.kernels import attention as fused

ROOT = Path(__file__).resolve().parents[2]
T = pytest.importorskip("torch")  # PyTorch: the oracle of the torch_npu functions


def _torch_npu_attention():
    """mindtorch-npu/src/torch_npu/_attention.py, loaded by path (the package's __init__ imports it)."""
    spec = importlib.util.spec_from_file_location(
        "torch_npu_attention", ROOT / "mindtorch-npu/src/torch_npu/_attention.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture
def launches(monkeypatch):
    """The ACLNN operators the attention kernels launch."""
    seen = []
    real = fused.launch
    monkeypatch.setattr(fused, "launch", lambda name, *a, **k: (seen.append(name), real(name, *a, **k))[1])
    return seen


def _doc_dtypes():
    names = optable.dtypes(fused.FORWARD, "910b", "query")
    by_name = {"FLOAT": torch.float32, "FLOAT16": torch.float16, "BFLOAT16": torch.bfloat16}
    return [by_name[n] for n in names]


TOL = {torch.float32: 2e-6, torch.float16: 2e-3, torch.bfloat16: 2e-2}


def _mask(kind, b, n, L, S, rng):
    shapes = {"LS": (L, S), "B1LS": (b, 1, L, S), "1NLS": (1, n, L, S), "NLS": (n, L, S), "BNLS": (b, n, L, S)}
    shape = shapes.get(kind, (S,))
    m = rng.random(shape) > 0.4
    m[..., 0] = True  # every row keeps a key
    return m


def _run_sdpa(device, arrays, dtype, mask=None, **kw):
    q, k, v, g = (torch.tensor(a, dtype=dtype, device=device) for a in arrays)
    q, k, v = (t.requires_grad_() for t in (q, k, v))
    m = None if mask is None else torch.tensor(mask, device=device)
    out = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=m, **kw)
    out.backward(g)
    return [t.detach().float().cpu().numpy() for t in (out, q.grad, k.grad, v.grad)]


CASES = [
    "plain",
    "causal",
    "causal-compressed",
    "cross",
    "causal-cross",
    "scale",
    "LS",
    "B1LS",
    "1NLS",
    "NLS",
    "BNLS",
    "S",
    "3d",
    "dv",
    "gqa",
    "mqa",
    "gqa-3d",
]


@pytest.mark.parametrize("dtype", _doc_dtypes(), ids=str)
@pytest.mark.parametrize("case", CASES)
def test_sdpa_values_and_grads_match_the_cpu_through_the_fused_operators(case, dtype, launches, monkeypatch):
    if case == "causal-compressed":  # sparse mode 2 with the [2048, 2048] mask, as for long sequences
        monkeypatch.setattr(fused, "EXPLICIT_CAUSAL_LIMIT", 0)
    rng = np.random.default_rng(CASES.index(case))
    b, n, L, S, d = 2, 3, (1 if case == "S" else 5), (7 if "cross" in case else 5), 8
    nkv = {"gqa": 2, "gqa-3d": 2, "mqa": 1}.get(case, n)
    n = 4 if "gqa" in case else n  # a key / value head per two query heads
    qs, ks, vs = (b, n, L, d), (b, nkv, S, d), (b, nkv, S, d - 3 if case == "dv" else d)
    if "3d" in case:
        qs, ks, vs = qs[1:], ks[1:], vs[1:]
    arrays = [rng.standard_normal(s).astype(np.float32) for s in (qs, ks, vs, qs[:-1] + vs[-1:])]
    kw = {"is_causal": "causal" in case, "scale": 0.3 if case == "scale" else None, "enable_gqa": nkv != n}
    mask = _mask(case, b, n, L, S, rng) if case in ("LS", "B1LS", "1NLS", "NLS", "BNLS", "S") else None
    # the cpu computes half precision in float32 too: the same inputs, rounded once at the end
    want = _run_sdpa("cpu", arrays, dtype, mask, **kw)
    got = _run_sdpa("npu", arrays, dtype, mask, **kw)
    for w, g in zip(want, got):
        np.testing.assert_allclose(g, w, rtol=TOL[dtype], atol=TOL[dtype])
    assert fused.FORWARD in launches and fused.BACKWARD in launches


@pytest.mark.parametrize("why", ["float_mask", "value_dim", "5d", "head_dim"])
def test_what_the_operators_do_not_take_runs_the_composite(why, launches):
    rng = np.random.default_rng(1)
    dtype = torch.float32
    lead = (2, 2, 2) if why == "5d" else (2, 2)
    d = 800 if why == "head_dim" else 4
    dv = 6 if why == "value_dim" else d  # the docs ask kD >= vD
    arrays = [rng.standard_normal(lead + (3, e)) for e in (d, d, dv, dv)]
    mask = rng.standard_normal((3, 3)).astype(np.float32) if why == "float_mask" else None
    want = _run_sdpa("cpu", arrays, dtype, mask)
    got = _run_sdpa("npu", arrays, dtype, mask)
    for w, g in zip(want, got):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)
    assert fused.FORWARD not in launches and fused.BACKWARD not in launches


def _revealed_keep_mask(device, dtype, shape, p, seed):
    """The keep mask F.scaled_dot_product_attention draws after manual_seed(seed): with q = 0 every row's
    probabilities are 1 / S, and v = the identity makes out[..., i, j] = keep[i, j] / (S * (1 - p))."""
    L, S = shape[-2:]
    q = torch.zeros(shape[:-1] + (S,), dtype=dtype, device=device)
    eye = torch.eye(S, dtype=dtype, device=device).expand(shape[:-2] + (S, S))
    torch.manual_seed(seed)
    out = torch.nn.functional.scaled_dot_product_attention(q, eye, eye, dropout_p=p)
    scaled = out.float().cpu().numpy() * (S * (1 - p))
    np.testing.assert_allclose(scaled, np.round(scaled), atol=TOL[dtype] * S)  # every entry is 0 or 1
    return scaled > 0.5


@pytest.mark.parametrize("dtype", _doc_dtypes(), ids=str)
@pytest.mark.parametrize("kv_heads", [4, 2], ids=["MHA", "GQA"])
def test_sdpa_dropout_runs_fused_with_one_mask_for_forward_and_backward(dtype, kv_heads, launches):
    """The mask F.scaled_dot_product_attention draws reaches both operators as their dropMask bits: the
    values and all three gradients are PyTorch's with that mask (read back from the same seed)."""
    rng = np.random.default_rng(7)
    b, n, L, S, d, p = 2, 4, 5, 8, 8, 0.3
    keep = _revealed_keep_mask("npu", dtype, (b, n, L, S), p, seed=11)
    assert fused.FORWARD in launches
    q, k, v, g = (rng.standard_normal(s).astype(np.float32) for s in ((b, n, L, d), (b, kv_heads, S, d),
                  (b, kv_heads, S, d), (b, n, L, d)))  # fmt: skip
    # the operands rounded to dtype first, so both sides see the same numbers
    q, k, v, g = (torch.tensor(a, dtype=dtype).float().numpy() for a in (q, k, v, g))
    ts = [torch.tensor(a, dtype=dtype, device="npu").requires_grad_() for a in (q, k, v)]
    torch.manual_seed(11)
    out = torch.nn.functional.scaled_dot_product_attention(*ts, dropout_p=p, scale=0.4, enable_gqa=kv_heads != n)
    out.backward(torch.tensor(g, dtype=dtype, device="npu"))
    want = _reference(q, k, v, g, 0.4, drop=keep / (1 - p))
    for got, w in zip((out, *(t.grad for t in ts)), want):
        np.testing.assert_allclose(got.detach().float().cpu().numpy(), w, rtol=TOL[dtype] * 4, atol=TOL[dtype] * 4)
    assert launches.count(fused.FORWARD) == 2 and launches.count(fused.BACKWARD) == 1


def test_sdpa_dropout_keeps_its_share_and_repeats_with_the_seed():
    b, n, L, S, p = 2, 4, 16, 16, 0.4
    first = _revealed_keep_mask("npu", torch.float32, (b, n, L, S), p, seed=3)
    assert abs(first.mean() - (1 - p)) < 0.05  # 2048 draws: the share kept is 1 - p within ~4 sigma
    np.testing.assert_array_equal(_revealed_keep_mask("npu", torch.float32, (b, n, L, S), p, seed=3), first)
    assert (_revealed_keep_mask("npu", torch.float32, (b, n, L, S), p, seed=4) != first).any()


def test_drop_bits_packs_one_bit_per_score_in_row_major_order():
    rng = np.random.default_rng(3)
    for shape in ((2, 3, 5, 7), (4, 8), (1,)):
        keep = rng.random(shape) > 0.5
        t = torch.tensor(keep, device="npu")
        strided = t.transpose(-1, -2).contiguous().transpose(-1, -2) if t.ndim > 1 else t[::1]
        for given in (t, strided):
            bits = fused.drop_bits(given).cpu().numpy()
            np.testing.assert_array_equal(bits, np.packbits(keep.reshape(-1), bitorder="little"))


def test_the_saved_statistics_are_the_rows_logsumexp():
    rng = np.random.default_rng(2)
    q, k, v = (rng.standard_normal((2, 3, 6, 8)).astype(np.float32) for _ in range(3))
    for dtype in _doc_dtypes():
        args = [torch.tensor(a, dtype=dtype, device="npu") for a in (q, k, v)]
        out, lse = torch.ops._scaled_dot_product_attention(*args, None, True, 0.4)
        _, want = torch.ops._scaled_dot_product_attention(*(a.cpu() for a in args), None, True, 0.4)
        assert lse.dtype is torch.float32 and tuple(lse.shape) == (2, 3, 6)
        np.testing.assert_allclose(lse.cpu().numpy(), want.numpy(), rtol=1e-5, atol=1e-5)


# --- torch_npu's functions ------------------------------------------------------------------------------------


def _layout(a, layout):
    """A [B, N, S, D] array in `layout`."""
    if layout == "BNSD":
        return a
    bsnd = a.transpose(0, 2, 1, 3)
    if layout == "BSND":
        return np.ascontiguousarray(bsnd)
    bsh = bsnd.reshape(bsnd.shape[0], bsnd.shape[1], -1)
    return np.ascontiguousarray(bsh if layout == "BSH" else bsh.transpose(1, 0, 2))


def _reference(q, k, v, g, scale, keep=None, bias=None, drop=None):
    """Attention in float64 PyTorch (GQA by repeating key / value heads): out and the q, k, v gradients."""
    qt, kt, vt = (T.tensor(a, dtype=T.float64, requires_grad=True) for a in (q, k, v))
    rep = q.shape[1] // k.shape[1]
    s = qt @ kt.repeat_interleave(rep, 1).transpose(-1, -2) * scale
    if keep is not None:
        s = s.masked_fill(~T.tensor(keep), float("-inf"))
    p = T.softmax(s, -1)
    if drop is not None:
        p = p * T.tensor(drop, dtype=T.float64)
    out = p @ vt.repeat_interleave(rep, 1)
    out.backward(T.tensor(g, dtype=T.float64))
    return [t.detach().numpy() for t in (out, qt.grad, kt.grad, vt.grad)]


SPARSE = {
    # sparse mode -> (the mask the operator takes, the scores PyTorch keeps) for Sq=L, Skv=S
    0: lambda L, S, rng: ((m := rng.random((L, S)) > 0.6), ~m),
    2: lambda L, S, rng: (np.triu(np.ones((2048, 2048), bool), 1), np.tril(np.ones((L, S), bool))),
    3: lambda L, S, rng: (np.triu(np.ones((2048, 2048), bool), 1), np.tril(np.ones((L, S), bool), S - L)),
}


@pytest.mark.parametrize("layout", ["BNSD", "BSND", "BSH", "SBH"])
@pytest.mark.parametrize("kv_heads", [4, 2, 1], ids=["MHA", "GQA", "MQA"])
@pytest.mark.parametrize("sparse", sorted(SPARSE))
def test_npu_fusion_attention_matches_pytorch(layout, kv_heads, sparse):
    tn = _torch_npu_attention()
    rng = np.random.default_rng(sparse * 10 + kv_heads)
    b, n, L, S, d = 2, 4, 5, 7, 8
    q = rng.standard_normal((b, n, L, d)).astype(np.float32)
    k, v = (rng.standard_normal((b, kv_heads, S, d)).astype(np.float32) for _ in range(2))
    g = rng.standard_normal((b, n, L, d)).astype(np.float32)
    atten, keep = SPARSE[sparse](L, S, rng)
    keep[:, 0] |= sparse == 0  # every row keeps a key
    atten = atten & ~keep if sparse == 0 else atten
    want = _reference(q, k, v, g, 0.3, keep)
    qn, kn, vn = (torch.tensor(_layout(a, layout), device="npu").requires_grad_() for a in (q, k, v))
    res = tn.npu_fusion_attention(
        qn, kn, vn, n, layout, atten_mask=torch.tensor(atten, device="npu"), scale=0.3, sparse_mode=sparse
    )
    out, smax, ssum, sout = res[:4]
    assert tuple(smax.shape) == tuple(ssum.shape) == (b, n, L, 8) and smax.dtype is torch.float32
    assert sout.numel() == 0 and res[4:] == (0, 0, b * n * L * S)
    out.backward(torch.tensor(_layout(g, layout), device="npu"))
    for got, w in zip((out, qn.grad, kn.grad, vn.grad), want):
        np.testing.assert_allclose(got.detach().cpu().numpy(), _layout(w, layout), rtol=1e-5, atol=1e-5)


def test_npu_fusion_attention_dropout_follows_its_mask_and_the_grad_regenerates_it():
    tn = _torch_npu_attention()
    rng = np.random.default_rng(5)
    b, n, L, S, d, keep_prob = 1, 2, 6, 9, 4, 0.6
    q, k, v, g = (
        rng.standard_normal(s).astype(np.float32) for s in ((b, n, L, d), (b, n, S, d), (b, n, S, d), (b, n, L, d))
    )
    qn, kn, vn = (torch.tensor(a, device="npu").requires_grad_() for a in (q, k, v))
    torch.manual_seed(123)  # seed 0: the mask's (seed, offset) are drawn from the device's generator
    out, smax, ssum, _, seed, offset, numels = tn.npu_fusion_attention(
        qn, kn, vn, n, "BNSD", scale=0.5, keep_prob=keep_prob
    )
    assert (seed, offset, numels) == (123, 0, b * n * L * S)
    assert tn.npu_fusion_attention(qn, kn, vn, n, "BNSD", keep_prob=keep_prob)[4:] == (123, numels, numels)
    bits = tn._drop_mask(qn, keep_prob, seed, offset, numels).cpu().numpy()
    assert bits.size == (numels + 127) // 128 * 16
    kept = np.unpackbits(bits, bitorder="little")[:numels].reshape(b, n, L, S)
    assert 0.3 < kept.mean() < 0.9
    want = _reference(q, k, v, g, 0.5, drop=kept / keep_prob)
    out.backward(torch.tensor(g, device="npu"))
    for got, w in zip((out, qn.grad, kn.grad, vn.grad), want):
        np.testing.assert_allclose(got.detach().cpu().numpy(), w, rtol=1e-5, atol=1e-5)
    grads = tn.npu_fusion_attention_grad(
        qn.detach(), kn.detach(), vn.detach(), torch.tensor(g, device="npu"), n, "BNSD", softmax_max=smax,
        softmax_sum=ssum, attention_in=out.detach(), scale_value=0.5, keep_prob=keep_prob, seed=seed,
        offset=offset, numels=numels,
    )  # fmt: skip
    assert len(grads) == 5 and grads[3].numel() == grads[4].numel() == 0
    for got, w in zip(grads[:3], want[1:]):
        np.testing.assert_allclose(got.cpu().numpy(), w, rtol=1e-5, atol=1e-5)


def _prefix_mask(mode, keep):
    """The attenMask sparse mode 5 takes (True where a score is left out, [B, 1, Sq, Skv]) or mode 6's compressed
    [3072, 2048] one: the [2048, 2048] triangle over a block whose left half is 0 and right half 1."""
    if mode == 5:
        return ~keep
    block = np.zeros((1024, 2048), bool)
    block[:, 1024:] = True
    return np.concatenate([np.triu(np.ones((2048, 2048), bool), 1), block])


@pytest.mark.parametrize("layout", ["BNSD", "BSND"])
@pytest.mark.parametrize("mode", [5, 6])
def test_npu_fusion_attention_prefix_modes_see_each_batchs_prefix(layout, mode):
    """Sparse modes 5 / 6: right-down causal plus, per batch, the first prefix[b] key columns for every row."""
    tn = _torch_npu_attention()
    rng = np.random.default_rng(mode)
    b, n, kv, L, S, d = 2, 4, 2, 5, 7, 8
    prefix = [3, 6]  # Sq <= Skv: the doc's range is [Skv - Sq, Skv]
    q, g = (rng.standard_normal((b, n, L, d)).astype(np.float32) for _ in range(2))
    k, v = (rng.standard_normal((b, kv, S, d)).astype(np.float32) for _ in range(2))
    i, j = np.arange(L)[:, None], np.arange(S)[None, :]
    keep = np.stack([(j <= i + S - L) | (j < p) for p in prefix])[:, None]
    want = _reference(q, k, v, g, 0.3, keep)
    qn, kn, vn = (torch.tensor(_layout(a, layout), device="npu").requires_grad_() for a in (q, k, v))
    atten = torch.tensor(_prefix_mask(mode, keep), device="npu")
    out = tn.npu_fusion_attention(qn, kn, vn, n, layout, atten_mask=atten, scale=0.3, prefix=prefix, sparse_mode=mode)[
        0
    ]
    out.backward(torch.tensor(_layout(g, layout), device="npu"))
    for got, w in zip((out, qn.grad, kn.grad, vn.grad), want):
        np.testing.assert_allclose(got.detach().cpu().numpy(), _layout(w, layout), rtol=1e-5, atol=1e-5)


def test_npu_fusion_attention_refuses_what_it_does_not_bind():
    tn = _torch_npu_attention()
    q = torch.zeros(1, 2, 3, 4, device="npu")
    with pytest.raises(NotImplementedError, match="TND"):
        tn.npu_fusion_attention(q, q, q, 2, "TND")
    with pytest.raises(NotImplementedError, match="actual_seq_qlen"):
        tn.npu_fusion_attention(q, q, q, 2, "BNSD", actual_seq_qlen=[3])
    with pytest.raises(RuntimeError, match="input_layout"):
        tn.npu_fusion_attention(q, q, q, 2, "NSD")


# --- the simulator refuses what the docs refuse ----------------------------------------------------------------

# (what the doc says, change to a valid BNSD call, the refusal's words); a valid call: B=1, N=4, S=5, D=8
REFUSALS = [
    ("inputLayout is BSH, SBH, BSND or BNSD", {"layout": b"TND"}, "inputLayout"),
    ("headNum is query's N", {"heads": 2}, "headNum"),
    ("headNum within 1..256", {"heads": 0}, "headNum"),
    ("Nq / Nkv a whole number", {"kv_heads": 3}, "multiple of key's N"),
    ("qD == kD", {"k_dim": 6}, "head dims"),
    ("kD >= vD", {"v_dim": 10}, "head dims"),
    ("D within 1..768", {"dim": 769}, "ranges"),
    ("keepProb within (0, 1]", {"keep": 0.0}, "keepProb"),
    ("keepProb within (0, 1]", {"keep": 1.5}, "keepProb"),
    ("sparseMode within 0..6", {"sparse": 9}, "sparseMode"),
    ("the forward's sparseMode within 0..6", {"sparse": 7}, "0..6"),
    ("sparse mode 2 takes the compressed [2048, 2048] mask", {"sparse": 2, "mask": (5, 5)}, "2048"),
    ("attenMask [B,N,S,S], [B,1,S,S], [1,1,S,S] or [S,S]", {"mask": (1, 4, 5, 5)}, "attenMaskOptional"),
    ("attenMask BOOL or UINT8", {"mask": (5, 5), "mask_dtype": torch.float32}, "attenMaskOptional"),
    ("query, key, value of one dtype", {"v_dtype": torch.float16}, "dtype"),
    ("softmaxMax [B, N, Sq, 8] FLOAT", {"stats": (1, 4, 5, 1)}, "softmaxMax"),
    ("batch sizes equal", {"k_batch": 2}, "batch"),
    ("sparse mode 5 reads prefixOptional", {"sparse": 5, "mask": (1, 1, 5, 5)}, "prefixOptional"),
    ("prefix within [Skv - Sq, Skv]", {"sparse": 5, "mask": (1, 1, 5, 5), "prefix": [6]}, "outside"),
    ("one prefix per batch", {"sparse": 5, "mask": (1, 1, 5, 5), "prefix": [2, 3]}, "one per batch"),
    ("sparse mode 5 takes a BNSS or B1SS mask", {"sparse": 5, "mask": (5, 5), "prefix": [2]}, "sparseMode 5"),
    (
        "sparse mode 6 takes the compressed [3072, 2048] mask",
        {"sparse": 6, "mask": (2048, 2048), "prefix": [2]},
        "3072",
    ),
]


def _launch_forward(heads=4, kv_heads=4, dim=8, k_dim=None, v_dim=None, layout=b"BNSD", keep=1.0, sparse=0,
                    mask=None, mask_dtype=torch.bool, v_dtype=None, stats=None, k_batch=1, prefix=None):  # fmt: skip
    from mindtorch_npu.aclnn import IntArray, launch
    from mindtorch_npu.copy import empty

    dev = torch.device("npu", 0)
    f32 = torch.float32
    q = empty((1, 4, 5, dim), f32, dev)
    k = empty((k_batch, kv_heads, 5, k_dim or dim), f32, dev)
    v = empty((k_batch, kv_heads, 5, v_dim or dim), v_dtype or f32, dev)
    m = None if mask is None else empty(mask, mask_dtype, dev)
    st = [empty(stats or (1, 4, 5, 8), f32, dev) for _ in range(2)]
    out = empty((1, 4, 5, v_dim or dim), f32, dev)
    pre = None if prefix is None else IntArray(prefix)
    launch(fused.FORWARD, q, k, v, None, None, None, m, pre, 0.5, keep, 2147483647, 2147483647, heads, layout, 0,
           sparse, st[0], st[1], None, out)  # fmt: skip


@pytest.mark.parametrize("doc, change, words", REFUSALS, ids=[f"{r[0]}-{i}" for i, r in enumerate(REFUSALS)])
def test_the_simulator_refuses_what_the_doc_refuses(doc, change, words):
    _launch_forward()  # the unchanged call is taken
    with pytest.raises(RuntimeError, match=words):
        _launch_forward(**change)


def test_the_refused_dtypes_are_the_docs():
    """Every dtype the chip holds that the doc does not list for query on this product is refused at phase 1."""
    from mindtorch_npu import chips

    listed = set(_doc_dtypes())
    for dtype in sorted(chips.chip_dtypes() - listed, key=str):
        with pytest.raises((RuntimeError, TypeError)):
            from mindtorch_npu.aclnn import device_launch
            from mindtorch_npu.copy import empty

            dev = torch.device("npu", 0)
            t = empty((1, 1, 2, 4), dtype, dev)
            st = [empty((1, 1, 2, 8), torch.float32, dev) for _ in range(2)]
            device_launch(fused.FORWARD, t, t, t, None, None, None, None, None, 0.5, 1.0, 2147483647, 2147483647,
                          1, b"BNSD", 0, 0, st[0], st[1], None, empty((1, 1, 2, 4), dtype, dev))  # fmt: skip


@pytest.mark.parametrize("soc", ["Ascend910_9391", "Ascend310P3"])
def test_a_chip_without_the_operators_runs_the_composite(soc):
    """aclnnFlashAttentionScore.md marks Atlas A3 unsupported and lists no 310P product: the simulator refuses
    the operator there, and F.scaled_dot_product_attention takes the composite, with the cpu's values (the
    backward on A3 only: 310P lacks aclnnSub, which the composite's backward needs)."""
    from npu_helpers import run_python

    res = run_python(
        """
        BACKWARD = SOC_BACKWARD
        import numpy as np, mindtorch as torch
        from mindtorch_npu.aclnn import device_launch
        from mindtorch_npu.copy import empty
        from mindtorch_npu.kernels import attention
        rng = np.random.default_rng(0)
        q = rng.standard_normal((2, 3, 4, 8)).astype(np.float32)
        out = []
        for dev in ("cpu", "npu"):
            t = torch.tensor(q, device=dev).requires_grad_(BACKWARD)
            y = torch.nn.functional.scaled_dot_product_attention(t, t, t, scale=0.3)
            if BACKWARD:
                y.sum().backward()
            out.append((y.detach().cpu().numpy(), t.grad.cpu().numpy() if BACKWARD else 0))
        print(all(np.allclose(a, b, atol=1e-5) for a, b in zip(*out)))
        d = torch.device("npu", 0)
        x = empty((1, 1, 2, 4), torch.float32, d)
        st = [empty((1, 1, 2, 8), torch.float32, d) for _ in range(2)]
        try:
            device_launch(attention.FORWARD, x, x, x, None, None, None, None, None, 0.5, 1.0, 2147483647,
                          2147483647, 1, b"BNSD", 0, 0, st[0], st[1], None, empty((1, 1, 2, 4), torch.float32, d))
            print("taken")
        except RuntimeError as e:
            print("refused")
    """.replace("SOC_BACKWARD", str(soc != "Ascend310P3")),
        {"ACLSIM_SOC_NAME": soc},
    )
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.split() == ["True", "refused"]


# --- memory ----------------------------------------------------------------------------------------------------


def test_the_fused_path_holds_no_seq_by_seq_buffer():
    """Peak device memory of a causal forward + backward (B=1, N=2, D=64, float16): the fused path holds one
    causal mask (a byte per score below 2048 x 2048, the compressed mask above) and O(S) statistics; the
    composite keeps float32 [N, S, S] scores and probabilities."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from npu_attention import attention_peak

    seq = 512
    fused_peak, _ = attention_peak(seq, 2, 64, fused=True)
    composite_peak, _ = attention_peak(seq, 2, 64, fused=False)
    inputs = 4 * 2 * seq * 64 * 2  # q, k, v, g in float16
    assert fused_peak < seq * seq + 4 * inputs  # the mask, the output and gradients, the statistics
    assert composite_peak > 2 * seq * seq * 4  # at least one float32 [N, S, S] buffer
