"""Fused CPU kernels against PyTorch, forward and backward, on tensors large enough to be split into
cache blocks and across threads (and on small ones, which run inline)."""

from helpers import torch_or_skip

torch = torch_or_skip()

import mindtorch  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from helpers import assert_same, to_torch  # noqa: E402
from mindtorch_cpu import native  # noqa: E402

# (shape, threads): 1 thread and 2 threads, a small tensor (inline) and a large one (many blocks)
SIZES = [((5, 7), 2), ((3, 70001), 1), ((3, 70001), 2)]
TOL = {"float32": (1e-5, 2e-6), "float64": (1e-12, 1e-12), "float16": (2e-3, 2e-3), "bfloat16": (2e-2, 2e-2)}


def _ulps(a, b):
    """Distance in units in the last place between float32 arrays (equal nans and infinities: 0)."""
    ia, ib = a.view(np.int32).astype(np.int64), b.view(np.int32).astype(np.int64)
    ia = np.where(ia < 0, -(2**31) - ia, ia)  # order negative floats below positive ones
    ib = np.where(ib < 0, -(2**31) - ib, ib)
    same = (a == b) | (np.isnan(a) & np.isnan(b))
    return np.where(same, 0, np.abs(ia - ib))


@pytest.fixture
def threads():
    before = mindtorch.get_num_threads()
    yield mindtorch.set_num_threads
    mindtorch.set_num_threads(before)


def leaf(shape, dtype, scale=3.0, seed=0):
    a = np.random.default_rng(seed).standard_normal(shape) * scale
    m = mindtorch.tensor(a, dtype=getattr(mindtorch, dtype)).requires_grad_()
    return m, to_torch(m)


@pytest.mark.parametrize("shape, nt", SIZES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_forward_backward(shape, nt, dtype, approximate, threads):
    threads(nt)
    m, t = leaf(shape, dtype)
    ym = mindtorch.nn.functional.gelu(m, approximate=approximate)
    yt = torch.nn.functional.gelu(t, approximate=approximate)
    rtol, atol = TOL[dtype]
    assert_same(ym, yt, rtol=rtol, atol=atol)
    g = np.random.default_rng(1).standard_normal(shape)
    ym.backward(mindtorch.tensor(g, dtype=ym.dtype))
    yt.backward(torch.tensor(g).to(yt.dtype))
    assert_same(m.grad, t.grad, rtol=rtol, atol=4 * atol)


def test_gelu_float32_is_float32_accurate():
    # against float64: the erf approximation's 1.5e-7 bound (times |x|) plus float32 rounding, and within
    # float32 rounding of PyTorch's own float32 kernel (whose accuracy depends on the CPU's vector ISA: its
    # AVX-512 erf is tighter than its AVX2 one)
    x = np.linspace(-8, 8, 200001).astype(np.float32)
    got = mindtorch.nn.functional.gelu(mindtorch.tensor(x)).numpy()
    ref = torch.nn.functional.gelu(torch.tensor(x)).numpy()
    exact = torch.nn.functional.gelu(torch.tensor(x, dtype=torch.float64)).numpy()
    assert np.all(np.abs(got - exact) <= 3e-7 * np.abs(x) + 1.2e-7 * np.abs(exact) + 1e-30)
    scale = np.abs(x) + 1e-3
    assert np.max(np.abs(got - exact) / scale) <= max(np.max(np.abs(ref - exact) / scale), 3e-7)


def test_gelu_inplace_and_special_values():
    vals = [0.0, -0.0, 1e-30, -1e-30, 40.0, -40.0, 0.5, -0.5]
    m = mindtorch.tensor(vals)
    assert_same(mindtorch.nn.functional.gelu(m), torch.nn.functional.gelu(torch.tensor(vals)))
    m2 = mindtorch.tensor(vals)
    mindtorch.gelu_(m2)
    assert_same(m2, torch.nn.functional.gelu(torch.tensor(vals)))


@pytest.mark.parametrize("shape, nt", SIZES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_silu_forward_backward(shape, nt, dtype, threads):
    # silu's derivative is one silu_backward call (the cpu's fused kernel), as in PyTorch
    threads(nt)
    m, t = leaf(shape, dtype)
    ym, yt = mindtorch.nn.functional.silu(m), torch.nn.functional.silu(t)
    g = np.random.default_rng(1).standard_normal(shape)
    ym.backward(mindtorch.tensor(g, dtype=ym.dtype))
    yt.backward(torch.tensor(g).to(yt.dtype))
    rtol, atol = TOL[dtype]
    assert_same(m.grad, t.grad, rtol=rtol, atol=4 * atol)
    gm = mindtorch.tensor(g, dtype=m.dtype)
    assert_same(
        mindtorch.ops.silu_backward(gm, m.detach()),
        torch.ops.aten.silu_backward(to_torch(gm), t.detach()),
        rtol=rtol,
        atol=atol,
    )


SILU_SPECIAL = [0.0, -0.0, 1e-30, -1e-30, 20.0, -20.0, 100.0, -100.0, 1e4, -1e4, np.inf, -np.inf, np.nan, 0.5]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_silu_backward_special_values(dtype):
    x = mindtorch.tensor(SILU_SPECIAL, dtype=getattr(mindtorch, dtype))
    g = mindtorch.linspace(-2, 2, len(SILU_SPECIAL), dtype=x.dtype)
    rtol, atol = TOL[dtype]
    assert_same(mindtorch.ops.silu_backward(g, x), torch.ops.aten.silu_backward(to_torch(g), to_torch(x)), rtol, atol)


@pytest.mark.parametrize(
    "gspec, xspec",
    [
        (((4,), "float32"), ((3, 4), "float32")),  # the gradient broadcasts into self
        (((3, 4), "float32"), ((4,), "float32")),  # and self up to the gradient
        (((3, 1), "float64"), ((1, 5), "float64")),
        (((), "float32"), ((), "float32")),
        (((0, 4), "float32"), ((4,), "float32")),
        (((3, 4), "float64"), ((3, 4), "float32")),  # mixed dtypes promote
        (((3, 4), "float16"), ((3, 4), "bfloat16")),
        (((3, 4), "float32"), ((3, 4), "float16")),
        (((3, 4), "int64"), ((3, 4), "float16")),
        (((3, 4), "bool"), ((3, 4), "float32")),
        (((2, 3), "complex64"), ((2, 3), "complex64")),
    ],
)
def test_silu_backward_broadcasts_and_promotes(gspec, xspec):
    rng = np.random.default_rng(3)

    def make(shape, dtype):
        a = rng.standard_normal(shape) * 3
        if dtype.startswith("complex"):
            a = a + 1j * rng.standard_normal(shape)
        return mindtorch.tensor(a).to(getattr(mindtorch, dtype))

    g, x = make(*gspec), make(*xspec)
    want = torch.ops.aten.silu_backward(to_torch(g), to_torch(x))
    assert_same(mindtorch.ops.silu_backward(g, x), want, rtol=1e-2, atol=1e-3)
    from mindtorch.ops.registry import OPS

    # what a backend without the kernel runs: the same dtype, shape and values
    assert_same(OPS["silu_backward"].composite(g, x), want, rtol=1e-2, atol=1e-3)


def test_silu_backward_non_contiguous():
    g, gt = leaf((8, 6), "float32", seed=1)
    x, xt = leaf((6, 8), "float32", seed=2)
    got = mindtorch.ops.silu_backward(g.detach().t()[::2], x.detach()[::2])
    assert_same(got, torch.ops.aten.silu_backward(gt.detach().t()[::2], xt.detach()[::2]))


@pytest.mark.parametrize(
    "g, x",
    [
        (lambda m: m.ones(3, dtype=m.int64), lambda m: m.ones(3, dtype=m.int64)),
        (lambda m: m.ones(3, dtype=m.bool), lambda m: m.ones(3, dtype=m.bool)),
        (lambda m: m.ones(3, dtype=m.int32), lambda m: m.ones(3, dtype=m.int64)),
        (lambda m: m.ones(2, 4), lambda m: m.ones(3, 4)),
    ],
)
def test_silu_backward_errors_are_pytorchs(g, x):
    with pytest.raises(Exception) as want:
        torch.ops.aten.silu_backward(g(torch), x(torch))
    with pytest.raises(type(want.value)) as got:
        mindtorch.ops.silu_backward(g(mindtorch), x(mindtorch))
    assert str(got.value) == str(want.value)


def test_silu_gradcheck_and_gradgradcheck_float64():
    x, _ = leaf((3, 4), "float64", seed=6)
    g, _ = leaf((3, 4), "float64", seed=7)
    assert mindtorch.autograd.gradcheck(mindtorch.nn.functional.silu, (x,))
    assert mindtorch.autograd.gradgradcheck(mindtorch.nn.functional.silu, (x,))
    # silu_backward's own derivative (in both arguments), which silu's double backward runs
    assert mindtorch.autograd.gradcheck(mindtorch.ops.silu_backward, (g, x))
    assert mindtorch.autograd.gradgradcheck(mindtorch.ops.silu_backward, (g, x))
    # silu's second derivative against PyTorch's
    (d1,) = mindtorch.autograd.grad(mindtorch.nn.functional.silu(x).sum(), x, create_graph=True)
    (d2,) = mindtorch.autograd.grad(d1.sum(), x)
    xt = to_torch(x.detach(), requires_grad=True)
    (e1,) = torch.autograd.grad(torch.nn.functional.silu(xt).sum(), xt, create_graph=True)
    (e2,) = torch.autograd.grad(e1.sum(), xt)
    assert_same(d1, e1, rtol=1e-12, atol=1e-12)
    assert_same(d2, e2, rtol=1e-12, atol=1e-12)


def test_num_threads_api():
    before = mindtorch.get_num_threads()
    assert before >= 1 and mindtorch.get_num_interop_threads() >= 1
    try:
        mindtorch.set_num_threads(1)
        assert mindtorch.get_num_threads() == 1
        for bad in (0, -2, 1.5):
            with pytest.raises(type(_torch_error(torch.set_num_threads, bad))):
                mindtorch.set_num_threads(bad)
        assert mindtorch.get_num_threads() == 1
    finally:
        mindtorch.set_num_threads(before)


def _torch_error(fn, arg):
    try:
        fn(arg)
    except Exception as e:
        return e
    raise AssertionError(f"torch accepted {arg!r}")


@pytest.mark.parametrize("shape, nt", [((4, 5, 6), 2), ((300, 1000), 1), ((300, 1000), 2)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dim", [-1, 0, 1])
def test_softmax_forward_backward(shape, nt, dtype, name, dim, threads):
    threads(nt)
    m, t = leaf(shape, dtype, scale=4.0)
    ym = getattr(mindtorch, name)(m, dim)
    yt = getattr(torch, name)(t, dim)
    rtol, atol = TOL[dtype]
    assert_same(ym, yt, rtol=rtol, atol=atol)
    g = np.random.default_rng(1).standard_normal(shape)
    ym.backward(mindtorch.tensor(g, dtype=ym.dtype))
    yt.backward(torch.tensor(g).to(yt.dtype))
    assert_same(m.grad, t.grad, rtol=rtol, atol=4 * atol)


def test_softmax_masked_rows_and_dtype_argument():
    x = np.random.default_rng(0).standard_normal((70, 1000)).astype(np.float32)
    x[3] = -np.inf  # a fully masked row: nan, as PyTorch
    x[5, 10:] = -np.inf  # a causal-style partial mask
    x[7, 0] = np.inf
    for fn in ("softmax", "log_softmax"):
        assert_same(getattr(mindtorch, fn)(mindtorch.tensor(x), 1), getattr(torch, fn)(torch.tensor(x), 1))
        assert_same(
            getattr(mindtorch, fn)(mindtorch.tensor(x), 1, dtype=mindtorch.float64),
            getattr(torch, fn)(torch.tensor(x), 1, dtype=torch.float64),
        )


@pytest.mark.parametrize(
    "shape, dims",
    [((300, 1000), 1), ((300, 1000), 0), ((40, 30, 20), (1, 2)), ((40, 30, 20), (0, 1)), ((3, 70001), 1), ((5, 7), 1)],
)
def test_sum_over_leading_or_trailing_dims(shape, dims):
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    for keepdim in (False, True):
        assert_same(
            mindtorch.tensor(x).sum(dims, keepdim=keepdim),
            torch.tensor(x).sum(dims, keepdim=keepdim),
            rtol=1e-5,
            atol=1e-4,
        )


@pytest.mark.parametrize("shape, nt", [((4, 5, 6), 2), ((16, 64, 512), 1), ((16, 64, 512), 2)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("kind", ["layer_norm", "rms_norm"])
def test_norm_forward_backward(shape, nt, dtype, affine, kind, threads):
    threads(nt)
    c = shape[-1]
    m, t = leaf(shape, dtype, scale=2.0)
    wm, wt = leaf((c,), dtype, seed=2) if affine else (None, None)
    bm, bt = leaf((c,), dtype, seed=3) if affine and kind == "layer_norm" else (None, None)
    g = np.random.default_rng(1).standard_normal(shape)

    def run(lib, x, w, b):
        f = lib.nn.functional
        y = f.layer_norm(x + 1.5, (c,), w, b) if kind == "layer_norm" else f.rms_norm(x, (c,), w, 1e-6)
        y.backward(lib.tensor(g).to(y.dtype))
        return y

    ym, yt = run(mindtorch, m, wm, bm), run(torch, t, wt, bt)
    rtol, atol = TOL[dtype]
    assert_same(ym, yt, rtol=rtol, atol=4 * atol)
    assert_same(m.grad, t.grad, rtol=rtol, atol=4 * atol)
    rows = int(np.prod(shape[:-1]))
    if dtype == "bfloat16":  # PyTorch sums weight grads in bfloat16 (off by ~3 here); we sum in float32:
        ref = [None if v is None else v.detach().double().requires_grad_() for v in (t, wt, bt)]
        run(torch, *ref)  # so compare with float64 on the same inputs
        wt, bt = ref[1], ref[2]
    for a, b in ((wm, wt), (bm, bt)):  # sums over all rows: rounding grows like sqrt(rows)
        if a is not None:
            assert np.allclose(a.grad.double().numpy(), b.grad.double().numpy(), rtol=rtol, atol=4 * rtol * rows**0.5)


# gradients that reach a norm's backward broadcast (shape of the tensor expanded to the output's):
# a sum's (one number), one row, one block of rows over the batch, a middle dimension, a transposed one
BROADCAST_GRADS = {"number": (), "row": (-1,), "rows_over_batch": (1, -2, -1), "middle": (-3, 1, -1), "t": "t"}


def _broadcast_grad(lib, kind, shape, dtype):
    rng = np.random.default_rng(7)
    if kind == "t":
        g = lib.tensor(rng.standard_normal(shape[::-1]), dtype=getattr(lib, dtype)).permute(2, 1, 0)
        return g
    src = tuple(shape[i] if i < 0 else i for i in kind)
    return lib.tensor(rng.standard_normal(src), dtype=getattr(lib, dtype)).expand(shape)


@pytest.mark.parametrize("shape, nt", [((4, 5, 6), 2), ((16, 64, 512), 1), ((16, 64, 512), 2)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("grad", sorted(BROADCAST_GRADS))
@pytest.mark.parametrize("kind", ["layer_norm", "rms_norm"])
def test_norm_backward_of_a_broadcast_gradient(shape, nt, dtype, grad, kind, threads):
    threads(nt)
    c = shape[-1]
    m, t = leaf(shape, dtype, scale=2.0)
    wm, wt = leaf((c,), dtype, seed=2)
    bm, bt = leaf((c,), dtype, seed=3)

    def run(lib, x, w, b):
        f = lib.nn.functional
        y = f.layer_norm(x, (c,), w, b) if kind == "layer_norm" else f.rms_norm(x, (c,), w, 1e-6)
        g = _broadcast_grad(lib, BROADCAST_GRADS[grad], shape, dtype)
        assert g.shape == y.shape and not g.is_contiguous()
        y.backward(g)

    run(mindtorch, m, wm, bm)
    run(torch, t, wt, bt)
    rtol, atol = TOL[dtype]
    assert_same(m.grad, t.grad, rtol=rtol, atol=4 * atol)
    # weight and bias gradients sum a gradient repeated over rows, so rounding grows with the rows:
    # against float64, within twice PyTorch's own error (or the usual sqrt(rows) bound)
    ref = [v.detach().double().requires_grad_() for v in (t, wt, bt)]
    run(torch, *ref)
    rows = int(np.prod(shape[:-1]))
    for a, b, r in ((wm, wt, ref[1]), (bm, bt, ref[2])):
        if kind == "rms_norm" and a is bm:
            continue
        want = r.grad.numpy()
        tol = max(4 * rtol * rows**0.5, 2 * np.abs(b.grad.double().numpy() - want).max())
        assert np.abs(a.grad.double().numpy() - want).max() <= tol


@pytest.mark.parametrize("case", ["causal", "bool_mask", "float_mask", "cross", "none", "scale"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
def test_scaled_dot_product_attention(case, dtype):
    b, h, L, S, e = 3, 4, 64, (48 if case == "cross" else 64), 32
    q, qt = leaf((b, h, L, e), dtype, scale=1.0, seed=1)
    k, kt = leaf((b, h, S, e), dtype, scale=1.0, seed=2)
    v, vt = leaf((b, h, S, e + 8), dtype, scale=1.0, seed=3)
    kw_m, kw_t = {}, {}
    if case == "causal":
        kw_m = kw_t = {"is_causal": True}
    elif case == "bool_mask":
        mask = np.random.default_rng(4).random((L, S)) > 0.3
        mask[:, 0] = True
        kw_m, kw_t = {"attn_mask": mindtorch.tensor(mask)}, {"attn_mask": torch.tensor(mask)}
    elif case == "float_mask":
        mask = np.random.default_rng(4).standard_normal((h, L, S))
        kw_m = {"attn_mask": mindtorch.tensor(mask, dtype=q.dtype)}
        kw_t = {"attn_mask": torch.tensor(mask).to(qt.dtype)}
    elif case == "scale":
        kw_m = kw_t = {"scale": 0.3}
    ym = mindtorch.nn.functional.scaled_dot_product_attention(q, k, v, **kw_m)
    yt = torch.nn.functional.scaled_dot_product_attention(qt, kt, vt, **kw_t)
    rtol, atol = TOL[dtype]
    if dtype == "bfloat16":
        rtol, atol = 5e-2, 5e-2
    assert_same(ym, yt, rtol=rtol, atol=4 * atol)
    g = np.random.default_rng(5).standard_normal(tuple(yt.shape))
    ym.backward(mindtorch.tensor(g, dtype=ym.dtype))
    yt.backward(torch.tensor(g).to(yt.dtype))
    for a, c in ((q, qt), (k, kt), (v, vt)):
        assert_same(a.grad, c.grad, rtol=rtol, atol=10 * atol)


def test_sdpa_mask_requiring_grad_still_gets_its_gradient():
    q, qt = leaf((2, 5, 4), "float64", seed=1)
    mask, mask_t = leaf((5, 5), "float64", seed=2)
    mindtorch.nn.functional.scaled_dot_product_attention(q, q, q, attn_mask=mask).sum().backward()
    torch.nn.functional.scaled_dot_product_attention(qt, qt, qt, attn_mask=mask_t).sum().backward()
    assert_same(mask.grad, mask_t.grad, rtol=1e-10, atol=1e-12)


def _composite_cases():
    x, _ = leaf((3, 4, 6), "float64", seed=1)
    g, _ = leaf((3, 4, 6), "float64", seed=2)
    y = mindtorch.softmax(x, -1).detach()
    k, _ = leaf((3, 5, 6), "float64", seed=3)
    v, _ = leaf((3, 5, 2), "float64", seed=4)
    out, lse = mindtorch.ops._scaled_dot_product_attention(x, k, v, None, False, 0.4)
    g2, _ = leaf((3, 4, 2), "float64", seed=5)
    return [
        ("gelu_backward", (g, x), {"approximate": "none"}),
        ("gelu_backward", (g, x), {"approximate": "tanh"}),
        ("silu_backward", (g, x), {}),
        ("_softmax_backward_data", (g, y, 1), {}),
        ("_log_softmax_backward_data", (g, y.log(), -1), {}),
        ("_scaled_dot_product_attention", (x, k, v, None, True, 0.4), {}),
        ("_scaled_dot_product_attention_backward", (g2, x, k, v, None, False, out.detach(), lse, 0.4), {}),
        ("_cross_entropy", (x[0], mindtorch.tensor([1, 5, -100, 0]), None, 1, -100), {}),
        (
            "_cross_entropy_backward",
            (
                g[0, 0, 0].detach(),
                mindtorch.log_softmax(x[0], 1).detach(),
                mindtorch.tensor([1, 5, -100, 0]),
                mindtorch.rand(6, dtype=x.dtype),
                1,
                -100,
                mindtorch.tensor(2.5, dtype=x.dtype),
            ),
            {},
        ),
    ]


@pytest.mark.parametrize("i", range(9))
def test_composite_fallback_matches_fused_kernel(i):
    # what a backend without the fused kernel runs gives the fused kernel's values
    from mindtorch.ops.registry import OPS

    name, args, kw = _composite_cases()[i]
    op = OPS[name]
    with mindtorch.no_grad():
        fused = getattr(mindtorch.ops, name)(*args, **kw)
        comp = op.composite(*args, **kw)
    fused = fused if isinstance(fused, tuple) else (fused,)
    comp = comp if isinstance(comp, tuple) else (comp,)
    for a, b in zip(fused, comp):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("other", ["tensor", "row", "zero", "neg_zero", "nan", "number"])
def test_where_large_bitmask_path(dtype, other):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((70, 100)) * 5
    b = rng.standard_normal((70, 100)) * 5
    if dtype.startswith("float"):
        a[0, :4] = [np.nan, np.inf, -np.inf, -0.0]
        b[1, :4] = [np.nan, np.inf, -np.inf, -0.0]
    cond = rng.random((70, 100)) > 0.5
    am, at = mindtorch.tensor(a).to(getattr(mindtorch, dtype)), torch.tensor(a).to(getattr(torch, dtype))
    bm, bt = mindtorch.tensor(b).to(getattr(mindtorch, dtype)), torch.tensor(b).to(getattr(torch, dtype))
    cm, ct = mindtorch.tensor(cond), torch.tensor(cond)
    pick = {
        "tensor": (bm, bt),
        "row": (bm[0], bt[0]),
        "zero": (0.0, 0.0),
        "neg_zero": (-0.0, -0.0),
        "nan": (float("nan"), float("nan")),
        "number": (3, 3),
    }
    ym, yt = pick[other]
    if other in ("nan", "zero", "neg_zero") and not dtype.startswith("float"):
        ym = yt = 0
    rm, rt = mindtorch.where(cm, am, ym), torch.where(ct, at, yt)
    assert_same(rm, rt, rtol=0, atol=0)
    assert np.array_equal(np.signbit(rm.float().numpy()), np.signbit(rt.float().numpy()))
    assert_same(mindtorch.where(cm, ym, am), torch.where(ct, yt, at), rtol=0, atol=0)


@pytest.mark.parametrize(
    "kw",
    [
        dict(kernel_size=2),
        dict(kernel_size=3, stride=2, padding=1),
        dict(kernel_size=3, stride=1, dilation=2, ceil_mode=True),
        dict(kernel_size=(2, 3), stride=(1, 2), padding=(1, 0)),
    ],
)
def test_max_pool2d_ties_nan_and_grads(kw):
    rng = np.random.default_rng(0)
    x = np.round(rng.standard_normal((4, 3, 17, 19)) * 2) / 2  # many ties
    x[0, 0, 3, 4] = np.nan
    x[1, 2, 5:7, 5:7] = np.nan
    m, t = mindtorch.tensor(x, dtype=mindtorch.float32).requires_grad_(), torch.tensor(x).float().requires_grad_()
    om, im = mindtorch.nn.functional.max_pool2d(m, return_indices=True, **kw)
    ot, it = torch.nn.functional.max_pool2d(t, return_indices=True, **kw)
    assert_same(om, ot, rtol=0, atol=0)
    assert_same(im, it)
    g = rng.standard_normal(tuple(ot.shape))
    om.backward(mindtorch.tensor(g, dtype=mindtorch.float32))
    ot.backward(torch.tensor(g).float())
    assert_same(m.grad, t.grad)


@pytest.mark.parametrize("nt", [1, 2])
@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "exp", "tanh", "sqrt", "log"])
def test_large_elementwise_split_across_threads(name, nt, threads, recwarn):
    # split across the pool, the result is bit-for-bit NumPy's (exp: within 1 ulp of the correctly rounded
    # value when the compiled kernel runs it); overflow and nan stay silent in workers
    threads(nt)
    rng = np.random.default_rng(0)
    a = (rng.standard_normal((300, 1000)) * 60).astype(np.float32)
    b = rng.standard_normal((300, 1000)).astype(np.float32)
    am, bm = mindtorch.tensor(a), mindtorch.tensor(b)
    fm = getattr(mindtorch, name)
    fn = {
        "add": np.add,
        "sub": np.subtract,
        "mul": np.multiply,
        "div": np.divide,
        "exp": np.exp,
        "tanh": np.tanh,
        "sqrt": np.sqrt,
        "log": np.log,
    }[name]
    with np.errstate(all="ignore"):
        want = fn(a, b) if fn.nin == 2 else fn(a)
    got = fm(am, bm) if fn.nin == 2 else fm(am)
    if name == "exp" and native.LIB is not None:
        with np.errstate(all="ignore"):
            exact = np.exp(a.astype(np.float64)).astype(np.float32)
        assert _ulps(got.numpy(), exact).max() <= 1
    else:
        np.testing.assert_array_equal(got.numpy(), want)
    assert_same(
        got, getattr(torch, name)(*(torch.tensor(v) for v in ((a, b) if fn.nin == 2 else (a,)))), rtol=1e-5, atol=1e-6
    )
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


@pytest.mark.parametrize("padding_idx, scale", [(None, False), (3, False), (None, True)])
def test_embedding_backward_grouped_sum(padding_idx, scale):
    rng = np.random.default_rng(0)
    idx = rng.integers(0, 50, (16, 64))
    w = rng.standard_normal((50, 128))
    g = rng.standard_normal((16, 64, 128))
    wm = mindtorch.tensor(w, dtype=mindtorch.float32).requires_grad_()
    wt = torch.tensor(w).float().requires_grad_()
    mindtorch.nn.functional.embedding(
        mindtorch.tensor(idx), wm, padding_idx=padding_idx, scale_grad_by_freq=scale
    ).backward(mindtorch.tensor(g, dtype=mindtorch.float32))
    torch.nn.functional.embedding(torch.tensor(idx), wt, padding_idx=padding_idx, scale_grad_by_freq=scale).backward(
        torch.tensor(g).float()
    )
    assert_same(wm.grad, wt.grad, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
def test_cross_entropy_fused(reduction, weighted, dtype):
    rng = np.random.default_rng(0)
    n, c = 1024, 256
    m, t = leaf((n, c), dtype, scale=3.0)
    tgt = rng.integers(0, c, n)
    tgt[::7] = -100
    w = rng.random(c) + 0.5 if weighted else None
    wm = None if w is None else mindtorch.tensor(w, dtype=m.dtype)
    wt = None if w is None else torch.tensor(w).to(t.dtype)
    lm = mindtorch.nn.functional.cross_entropy(m, mindtorch.tensor(tgt), wm, reduction=reduction)
    lt = torch.nn.functional.cross_entropy(t, torch.tensor(tgt), wt, reduction=reduction)
    rtol, atol = TOL[dtype]
    assert_same(lm, lt, rtol=rtol, atol=atol)
    g = rng.standard_normal(tuple(lt.shape))
    lm.backward(mindtorch.tensor(g, dtype=lm.dtype))
    lt.backward(torch.tensor(g).to(lt.dtype))
    assert_same(m.grad, t.grad, rtol=rtol, atol=atol)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ignore_index", [-100, 2])
@pytest.mark.parametrize("shape", [(8, 10), (10,), (1, 3)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nll_loss_small(reduction, weighted, ignore_index, shape, dtype):
    # float32 (rows, classes) log-probabilities take one compiled call, float64 NumPy's: the sums, ignored
    # rows (one holding -inf, which an ignored row never reaches) and weights against PyTorch's
    rng = np.random.default_rng(3)
    c = shape[-1]
    x = np.log(rng.dirichlet(np.ones(c), shape[0] if len(shape) == 2 else 1)).astype(dtype).reshape(shape)
    tgt = rng.integers(0, c, shape[:-1])
    if tgt.ndim and tgt.size > 1:
        tgt[::3] = ignore_index
        x[0, 0] = x[0, 2] = -np.inf
    w = (rng.random(c) + 0.5).astype(dtype) if weighted else None
    m = mindtorch.tensor(x).requires_grad_()
    t = to_torch(m)
    wm, wt = (None, None) if w is None else (mindtorch.tensor(w), torch.tensor(w))
    kw = dict(reduction=reduction, ignore_index=ignore_index)
    lm = mindtorch.nn.functional.nll_loss(m, mindtorch.tensor(tgt), wm, **kw)
    lt = torch.nn.functional.nll_loss(t, torch.tensor(tgt), wt, **kw)
    assert_same(lm, lt, rtol=1e-6, atol=1e-6)
    lm.sum().backward()
    lt.sum().backward()
    assert_same(m.grad, t.grad, rtol=1e-6, atol=1e-7)
    lm = mindtorch.nn.functional.cross_entropy(m, mindtorch.tensor(tgt), wm, **kw)
    lt = torch.nn.functional.cross_entropy(t, torch.tensor(tgt), wt, **kw)
    assert_same(lm, lt, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("fn", ["nll_loss", "cross_entropy"])
def test_nll_target_out_of_range_float32(fn):
    x = mindtorch.randn(4, 3)
    for bad in (3, -1, -101):
        with pytest.raises(IndexError, match=f"Target {bad} is out of bounds"):
            getattr(mindtorch.nn.functional, fn)(x, mindtorch.tensor([0, 1, bad, 0]))
        with pytest.raises(IndexError, match=f"Target {bad} is out of bounds"):
            getattr(torch.nn.functional, fn)(to_torch(x), torch.tensor([0, 1, bad, 0]))


def test_cross_entropy_errors_and_all_ignored():
    x = mindtorch.randn(4, 3, requires_grad=True)
    with pytest.raises(IndexError):
        mindtorch.nn.functional.cross_entropy(x, mindtorch.tensor([0, 1, 3, 0]))
    loss = mindtorch.nn.functional.cross_entropy(x, mindtorch.tensor([-100] * 4))
    lt = torch.nn.functional.cross_entropy(torch.tensor(x.detach().numpy()).requires_grad_(), torch.tensor([-100] * 4))
    assert np.isnan(loss.item()) and np.isnan(lt.item())
    loss.backward()
    assert np.all(x.grad.numpy() == 0)


def test_allocator_pool_reuses_only_unreferenced_blocks():
    from mindtorch_cpu.allocator import ALLOCATOR, POOL_MIN

    a, b = mindtorch.randn(512, 512), mindtorch.randn(512, 512)
    assert a.numel() * 4 >= POOL_MIN
    before = ALLOCATOR.bytes_in_use()
    x = a + b
    view = x.numpy()  # the user keeps a NumPy view of the result
    keep = view.copy()
    ptr = x.data_ptr()
    del x
    assert ALLOCATOR.bytes_in_use() == before
    ys = [a * b for _ in range(3)]  # must not land in the viewed block
    assert all(y.data_ptr() != ptr for y in ys)
    np.testing.assert_array_equal(view, keep)
    del view, ys
    z = a - b  # nothing references a freed block now: it is reused
    w = a - b
    del z
    z2 = a + b
    assert z2.data_ptr() != w.data_ptr()
    np.testing.assert_array_equal(z2.numpy(), a.numpy() + b.numpy())


def test_num_threads_default_follows_omp_num_threads():
    import os
    import subprocess
    import sys

    code = "import mindtorch; print(mindtorch.get_num_threads(), mindtorch.get_num_interop_threads())"
    env = dict(os.environ, OMP_NUM_THREADS="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["1", "1"]


@pytest.mark.parametrize("name", ["_softmax_backward_data", "_log_softmax_backward_data"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_softmax_backward_of_one_element_matches_pytorch(name, dtype):
    """A 0-dim pair is a row of one: the derivative's formula, whatever the output holds (not only 1 or 0)."""
    for g, y in [(0.7, 0.3), (1.5, 1.0), (2.0, -0.5)]:
        got = getattr(mindtorch.ops, name)(*(mindtorch.tensor(v, dtype=getattr(mindtorch, dtype)) for v in (g, y)), 0)
        d = getattr(torch, dtype)
        want = getattr(torch.ops.aten, name)(torch.tensor(g, dtype=d), torch.tensor(y, dtype=d), 0, d)
        assert_same(got, want, rtol=1e-6, atol=1e-7)
