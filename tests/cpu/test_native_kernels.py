"""The compiled float32 kernels (mindtorch_cpu.native) against the NumPy kernels they replace and
against float64 (which never takes the compiled path), on small and split-across-threads sizes,
special values and non-contiguous inputs. Each case runs the op twice: compiled, and with the
library switched off (the fallback users without a compiler get)."""

import math
import os
import subprocess
import sys
from types import SimpleNamespace

import mindtorch
import mindtorch.nn.functional as F
import numpy as np
import pytest
from mindtorch_cpu import native

pytestmark = pytest.mark.skipif(
    native.LIB is None and os.environ.get("MINDTORCH_CPU_REQUIRE_NATIVE") != "1",
    reason="the compiled kernels were not built (no C compiler at install)",
)


def test_library_is_built_where_required():
    # the nox sessions install wheels built with a compiler: a silent fallback would hide a broken build
    assert native.LIB is not None, "mindtorch-cpu's compiled kernels did not load"
    assert native.VARIANT in native.VARIANTS


def test_extension_entry_is_loaded_where_built():
    # where this Python's headers are found the build adds the CPython entry to the same library; only
    # MINDTORCH_CPU_NATIVE_ENTRY=ctypes may keep to ctypes then
    from mindtorch_cpu.native import build

    if os.environ.get("MINDTORCH_CPU_NATIVE_ENTRY") == "ctypes":
        assert native.ENTRY is None
    elif os.environ.get("MINDTORCH_CPU_REQUIRE_NATIVE") == "1" and build.python_include() is not None:
        assert native.ENTRY is not None, "the compiled kernels loaded without their CPython entry"
    if native.ENTRY is not None:  # the extension is the loaded library's own file: one set of kernels
        assert os.path.samefile(native.ENTRY.__file__, native._PATH)


def test_entry_built_for_another_python_is_not_imported():
    class Lib:  # a library whose entry was compiled for the next minor version
        def mt_entry_python(self):
            return (sys.hexversion >> 16) + 1

    assert native._load_entry(Lib(), native.VARIANT or "_kernels.so", native._PATH) is None
    assert native._load_entry(object(), native.VARIANT or "_kernels.so", native._PATH) is None  # no entry built


def test_ctypes_switch_is_read_at_import():
    code = "from mindtorch_cpu import native; print(native.LIB is not None, native.ENTRY is None)"
    env = {**os.environ, "MINDTORCH_CPU_NATIVE_ENTRY": "ctypes"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "True"]


@pytest.fixture
def ctypes_only(monkeypatch):
    """Run a function with the kernels reached through ctypes, whichever entry is loaded."""

    def run(fn):
        with monkeypatch.context() as mp:
            kernels = {name: native._through_ctypes(getattr(native.LIB, name)) for name in native._SIGNATURES}
            mp.setattr(native, "_K", SimpleNamespace(**kernels))
            return fn()

    return run


@pytest.fixture
def numpy_only(monkeypatch):
    """Run a function with the compiled library switched off."""

    def run(fn):
        with monkeypatch.context() as mp:
            mp.setattr(native, "LIB", None)
            return fn()

    return run


@pytest.fixture(params=[1, 2], ids=["1thread", "2threads"])
def threads(request):
    before = mindtorch.get_num_threads()
    mindtorch.set_num_threads(request.param)
    yield request.param
    mindtorch.set_num_threads(before)


def _ulps(a, b):
    ia, ib = a.view(np.int32).astype(np.int64), b.view(np.int32).astype(np.int64)
    ia = np.where(ia < 0, -(2**31) - ia, ia)
    ib = np.where(ib < 0, -(2**31) - ib, ib)
    same = (a == b) | (np.isnan(a) & np.isnan(b))
    return np.where(same, 0, np.abs(ia - ib))


def test_exp_within_one_ulp_over_the_whole_range(threads):
    x = np.concatenate(
        [
            np.linspace(-110, 95, 400_001, dtype=np.float32),
            np.array(
                [
                    np.nan,
                    np.inf,
                    -np.inf,
                    0.0,
                    -0.0,
                    88.72283,
                    88.72284,
                    -87.33655,
                    -103.97208,
                    -103.97209,
                    1e-30,
                    -1e-30,
                ],
                np.float32,
            ),
        ]
    )
    got = mindtorch.tensor(x).exp().numpy()
    with np.errstate(all="ignore"):
        exact = np.exp(x.astype(np.float64)).astype(np.float32)
    assert _ulps(got, exact).max() <= 1
    assert np.signbit(got).sum() == 0


def _sample(shape, seed=0, scale=3.0, specials=True):
    x = (np.random.default_rng(seed).standard_normal(shape) * scale).astype(np.float32)
    if specials and x.size > 8:
        x.reshape(-1)[:7] = [np.nan, np.inf, -np.inf, 0.0, -0.0, 60.0, -60.0]
    return x


def _tensor(x, layout):
    t = mindtorch.tensor(x)
    if layout == "transposed":  # a non-contiguous view of the same values
        t = mindtorch.tensor(np.ascontiguousarray(np.swapaxes(x, -1, -2))).transpose(-1, -2)
    return t


def _grad_of(fn, x, layout, seed=1):
    t = _tensor(x, layout).requires_grad_()
    y = fn(t)
    g = np.random.default_rng(seed).standard_normal(tuple(y.shape)).astype(np.float32)
    y.backward(mindtorch.tensor(g))
    return y.detach().numpy(), t.grad.numpy()


W512 = np.random.default_rng(5).standard_normal(512).astype(np.float32)
B512 = np.random.default_rng(6).standard_normal(512).astype(np.float32)
TARGET = mindtorch.tensor(np.random.default_rng(7).integers(0, 512, 300))


MASK50 = mindtorch.tensor(np.random.default_rng(8).random((50, 50)) < 0.7) | mindtorch.eye(50, dtype=mindtorch.bool)
BIAS50 = np.random.default_rng(9).standard_normal((50, 50)).astype(np.float32)


def _qkv(t):
    """Queries, keys and values (2 batches, 2 heads, 50 positions, 128 features) from a (300, 512) tensor."""
    return t.reshape(3, 2, 2, 50, 256)[..., :128].unbind(0)


def _like(a, t):
    return mindtorch.tensor(a, dtype=t.dtype)


# name -> (function of a tensor, tolerance against float64 as (rtol, atol)); max pooling's overlapping
# windows sum their gradients in float32 (as PyTorch does), the NumPy kernel in float64
CASES = {
    "gelu": (F.gelu, (1e-5, 1e-6)),
    "gelu_tanh": (lambda t: F.gelu(t, approximate="tanh"), (1e-5, 2e-6)),
    "softmax": (lambda t: F.softmax(t, -1), (1e-5, 1e-7)),
    "log_softmax": (lambda t: F.log_softmax(t, -1), (1e-5, 1e-5)),
    "softmax_dim0": (lambda t: F.softmax(t, 0), (1e-5, 1e-7)),
    "layer_norm": (lambda t: F.layer_norm(t, (512,), _like(W512, t), _like(B512, t)), (1e-4, 1e-5)),
    "layer_norm_plain": (lambda t: F.layer_norm(t, (512,)), (1e-4, 1e-5)),
    "rms_norm": (lambda t: F.rms_norm(t, (512,), _like(W512, t)), (1e-4, 1e-5)),
    "cross_entropy": (lambda t: F.cross_entropy(t, TARGET, reduction="none"), (1e-5, 1e-5)),
    "max_pool2d": (lambda t: F.max_pool2d(t.reshape(3, 4, 25, 512), 3, stride=2, padding=1), (1e-6, 1e-6)),
    "add": (lambda t: t + t.flip(0), (1e-6, 1e-6)),
    "sub_number": (lambda t: 2.5 - t, (1e-6, 1e-6)),
    "mul": (lambda t: t * t.flip(1), (1e-6, 1e-6)),
    "div_number": (lambda t: t / 3.0, (1e-6, 1e-6)),
    "sum_rows": (lambda t: t.sum(-1), (1e-5, 1e-4)),
    "sum_all": (lambda t: t.sum(), (1e-5, 1e-3)),
    # peaked softmaxes (scores with a standard deviation of ~9): float32's error, on either path, is ~4e-5
    "attention_causal": (lambda t: F.scaled_dot_product_attention(*_qkv(t), is_causal=True), (1e-4, 1e-4)),
    "attention_bool_mask": (lambda t: F.scaled_dot_product_attention(*_qkv(t), attn_mask=MASK50), (1e-4, 1e-4)),
    "attention_float_mask": (
        lambda t: F.scaled_dot_product_attention(*_qkv(t), attn_mask=_like(BIAS50, t), scale=0.3),
        (1e-4, 1e-3),
    ),
}
FINITE_ONLY = {
    "attention_causal",
    "attention_bool_mask",
    "attention_float_mask",
    "layer_norm",
    "layer_norm_plain",
    "rms_norm",
    "cross_entropy",
    "softmax",
    "log_softmax",
    "softmax_dim0",
}


@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_compiled_matches_numpy_kernels_and_float64(name, layout, threads, numpy_only):
    fn, (rtol, atol) = CASES[name]
    x = _sample((300, 512), specials=name not in FINITE_ONLY)
    got = _grad_of(fn, x, layout)
    fallback = numpy_only(lambda: _grad_of(fn, x, layout))
    ref64 = _grad_of(lambda t: fn(t.double()), x, layout)
    for g, f, r in zip(got, fallback, ref64):
        np.testing.assert_allclose(g, f, rtol=rtol * 4, atol=atol * 4, equal_nan=True)
        np.testing.assert_allclose(g, r.astype(np.float32), rtol=rtol, atol=atol, equal_nan=True)


@pytest.mark.parametrize(
    "kw",
    [
        dict(kernel_size=2),
        dict(kernel_size=3, stride=2, padding=1),
        dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 1), dilation=(2, 1), ceil_mode=True),
    ],
)
def test_max_pool_indices_ties_and_nan_as_numpy_kernel(kw, threads, numpy_only):
    x = np.round(np.random.default_rng(0).standard_normal((4, 3, 17, 19)) * 2).astype(np.float32) / 2
    x[0, 0, 3, 4] = np.nan
    x[1, 2, 5:7, 5:7] = np.nan

    def run():
        t = mindtorch.tensor(x).requires_grad_()
        y, i = F.max_pool2d(t, return_indices=True, **kw)
        y.backward(mindtorch.ones_like(y))
        return y.detach().numpy(), i.numpy(), t.grad.numpy()

    for a, b in zip(run(), numpy_only(run)):
        np.testing.assert_array_equal(a, b)


def test_softmax_rows_with_infinities_and_nan(numpy_only):
    x = np.array(
        [[1, 2, 3, 4], [-np.inf] * 4, [1, np.inf, 2, 3], [1, np.nan, 2, 3], [-np.inf, 0, 1, -np.inf]], np.float32
    )
    for f in (F.softmax, F.log_softmax):
        got = f(mindtorch.tensor(x), 1).numpy()
        want = numpy_only(lambda: f(mindtorch.tensor(x), 1).numpy())
        np.testing.assert_allclose(got, want, rtol=1e-6, equal_nan=True)


def test_gelu_specials_exact():
    x = mindtorch.tensor([math.nan, math.inf, -math.inf, -0.0, 0.0])
    for approx in ("none", "tanh"):
        y = F.gelu(x, approximate=approx).tolist()
        assert math.isnan(y[0]) and y[1] == math.inf and math.isnan(y[2]) and y[3] == 0 and y[4] == 0


@pytest.mark.parametrize(
    "shape, wshape, kw",
    [
        ((4, 6, 11, 13), (8, 6, 3, 3), dict(padding=1)),
        ((2, 4, 12, 9), (6, 2, 3, 2), dict(stride=(2, 3), padding=(2, 1), dilation=(2, 1), groups=2)),
        ((3, 3, 10, 10), (5, 3, 4, 4), dict(padding="same")),
        ((2, 3, 9, 9), (4, 3, 2, 2), dict(stride=2)),
        ((1, 2, 5, 5), (2, 2, 3, 3), dict(padding=4, dilation=2)),  # taps entirely in the padding
        # batches the pool splits, several column blocks per thread: the weight's gradient sums
        # thousands of float32 products (atol: against float64)
        ((8, 16, 20, 20), (24, 16, 3, 3), dict(padding=1, atol=2e-4)),
        ((16, 8, 23, 17), (12, 8, 3, 2), dict(stride=(2, 1), padding=(1, 0), dilation=(1, 2), atol=1e-4)),
    ],
    ids=["same3x3", "strided-grouped", "same-even", "stride2", "wide-padding", "split", "split-strided"],
)
def test_conv2d_unfold_and_fold_as_numpy_kernels(shape, wshape, kw, threads, numpy_only):
    kw = dict(kw)
    atol = kw.pop("atol", 1e-5)
    rng = np.random.default_rng(0)
    x, w, b = (rng.standard_normal(s).astype(np.float32) for s in (shape, wshape, wshape[:1]))

    def run(dtype=mindtorch.float32):
        xa, wa, ba = (mindtorch.tensor(v, dtype=dtype).requires_grad_() for v in (x, w, b))
        y = F.conv2d(xa, wa, ba, **kw)
        g = np.cos(np.arange(y.numel())).reshape(tuple(y.shape))
        y.backward(mindtorch.tensor(g, dtype=dtype))
        return [v.detach().numpy().astype(np.float32) for v in (y, xa.grad, wa.grad, ba.grad)]

    got, fallback, ref64 = run(), numpy_only(run), run(mindtorch.float64)
    for g, f, r in zip(got, fallback, ref64):
        np.testing.assert_allclose(g, f, rtol=1e-5, atol=atol)
        np.testing.assert_allclose(g, r, rtol=1e-5, atol=atol)


def _conv_geometries(count=24, seed=5):
    """Generated conv2d geometries (x shape, w shape, stride, padding, dilation): kernels of 1-4 taps a
    side, strides 1-3 (mostly 1: the direct path), paddings up to beyond the kernel's reach (the input
    gradient's padding then negative), channel counts around the tile sizes, any batch."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        kh, kw = rng.integers(1, 5, 2)
        stride = (1, 1) if rng.random() < 0.6 else tuple(int(v) for v in rng.integers(1, 4, 2))
        dilation = tuple(int(v) for v in rng.integers(1, 3, 2))
        padding = tuple(int(v) for v in rng.integers(0, 5, 2))
        h, w = (int(v) for v in rng.integers(1, 40, 2))
        n, c, o = int(rng.integers(1, 6)), int(rng.integers(1, 20)), int(rng.choice([1, 5, 8, 16, 33, 40]))
        ho = (h + 2 * padding[0] - dilation[0] * (kh - 1) - 1) // stride[0] + 1
        wo = (w + 2 * padding[1] - dilation[1] * (kw - 1) - 1) // stride[1] + 1
        if ho > 0 and wo > 0:
            out.append(((n, c, h, w), (o, c, int(kh), int(kw)), stride, padding, dilation))
    return out


# a strided row of 31 outputs whose first tap starts inside the padding: a panel ends one position into
# the next row, before that tap's first input
PANEL_EDGE = ((2, 2, 5, 61), (3, 2, 1, 3), (1, 2), (0, 3), (1, 3))


@pytest.mark.parametrize("entry", ["loaded", "ctypes"])
@pytest.mark.parametrize("geometry", [*_conv_geometries(), PANEL_EDGE], ids=lambda g: "x{}w{}s{}p{}d{}".format(*g))
def test_conv_kernels_against_float64(geometry, entry, threads, ctypes_only):
    # native.conv2d, conv2d_input (any stride) and conv2d_weight (stride 1) called directly, on every
    # thread count, against mindtorch's float64 convolution and its gradients
    xs, ws, stride, padding, dilation = geometry
    rng = np.random.default_rng(1)
    x, w, b = (rng.standard_normal(s).astype(np.float32) for s in (xs, ws, ws[:1]))
    x64, w64, b64 = (mindtorch.tensor(v, dtype=mindtorch.float64).requires_grad_() for v in (x, w, b))
    y64 = F.conv2d(x64, w64, b64, stride=stride, padding=padding, dilation=dilation)
    g = rng.standard_normal(tuple(y64.shape)).astype(np.float32)
    y64.backward(mindtorch.tensor(g, dtype=mindtorch.float64))

    def run():
        y, dx, dw = np.full(g.shape, np.nan, np.float32), np.full(xs, np.nan, np.float32), np.empty(ws, np.float32)
        native.conv2d(y, x, w, b, stride, padding, dilation, threads)
        native.conv2d_input(dx, g, w, stride, padding, dilation, threads)
        if stride == (1, 1):
            native.conv2d_weight(dw, g, x, padding, dilation, threads)
        return y, dx, dw

    got = run() if entry == "loaded" else ctypes_only(run)
    want = [v.detach().numpy() for v in (y64, x64.grad, w64.grad)]
    for a, r in zip(got[: 3 if stride == (1, 1) else 2], want):
        np.testing.assert_allclose(a, r, rtol=1e-5, atol=1e-5 * max(1.0, np.abs(r).max()))


@pytest.mark.parametrize("width", [13, 16, 40])
def test_conv_weight_gradient_of_non_finite_inputs(width, threads):
    # an infinity or NaN at a row's first column reaches exactly the weight taps PyTorch's sums give it:
    # none through the products the fast form makes past a row's end
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 4, 9, width)).astype(np.float32)
    x[0, 1, 4, 0], x[2, 3, 0, width - 1], x[1, 0, 8, 0] = np.inf, np.nan, -np.inf
    w = rng.standard_normal((5, 4, 3, 3)).astype(np.float32)
    g = rng.standard_normal((3, 5, 9, width)).astype(np.float32)
    dw = np.empty(w.shape, np.float32)
    native.conv2d_weight(dw, g, x, (1, 1), (1, 1), threads)
    x64, w64 = (mindtorch.tensor(v, dtype=mindtorch.float64).requires_grad_() for v in (x, w))
    F.conv2d(x64, w64, padding=1).backward(mindtorch.tensor(g, dtype=mindtorch.float64))
    want = w64.grad.numpy()
    assert np.isnan(want).any() and np.isfinite(want).any()
    np.testing.assert_array_equal(np.isnan(dw), np.isnan(want))
    np.testing.assert_allclose(dw, want, rtol=1e-5, atol=1e-4)


def test_conv_weight_gradient_beyond_its_sums_budget(threads, monkeypatch):
    # a weight whose per-chunk vector sums would pass the budget takes the unfold + BLAS kernel
    rng = np.random.default_rng(4)
    x, w = rng.standard_normal((4, 6, 9, 7)).astype(np.float32), rng.standard_normal((5, 6, 3, 3))

    def grad(dtype):
        xa, wa = mindtorch.tensor(x, dtype=dtype), mindtorch.tensor(w, dtype=dtype).requires_grad_()
        F.conv2d(xa, wa, padding=1).sum().backward()
        return wa.grad.numpy()

    want = grad(mindtorch.float64)
    calls = []
    monkeypatch.setattr(native, "conv2d_weight", lambda *a: calls.append(a))
    monkeypatch.setattr(native, "WEIGHT_SUMS_BYTES", 0)
    np.testing.assert_allclose(grad(mindtorch.float32), want, rtol=1e-5, atol=1e-4)
    assert not calls and not native.conv2d_weight_fits(w.shape, threads)


def test_conv_kernels_results_do_not_depend_on_timing():
    # the weight gradient's per-chunk sums are added in chunk order: one thread count, one result
    rng = np.random.default_rng(2)
    x, w = rng.standard_normal((9, 16, 13, 11)).astype(np.float32), rng.standard_normal((24, 16, 3, 3))
    g = rng.standard_normal((9, 24, 13, 11)).astype(np.float32)
    w = w.astype(np.float32)
    for threads in (2, 3):
        runs = []
        for _ in range(5):
            y, dx, dw = np.empty(g.shape, np.float32), np.empty(x.shape, np.float32), np.empty(w.shape, np.float32)
            native.conv2d(y, x, w, None, (1, 1), (1, 1), (1, 1), threads)
            native.conv2d_input(dx, g, w, (1, 1), (1, 1), (1, 1), threads)
            native.conv2d_weight(dw, g, x, (1, 1), (1, 1), threads)
            runs.append((y, dx, dw))
        for r in runs[1:]:
            for a, b in zip(r, runs[0]):
                np.testing.assert_array_equal(a, b)


def _strided_gradient(layout, g):
    """`g` (float32, N C H W) as a gradient of the given memory layout, with its values."""
    if layout == "broadcast":  # a loss's y.sum(): one value seen everywhere
        return mindtorch.tensor(np.float32(0.5)).expand(g.shape), np.full(g.shape, 0.5, np.float32)
    if layout == "batch-broadcast":
        return mindtorch.tensor(g[:1]).expand(g.shape), np.broadcast_to(g[:1], g.shape)
    return mindtorch.tensor(np.ascontiguousarray(g.transpose(0, 1, 3, 2))).transpose(2, 3), g  # transposed


@pytest.mark.parametrize("layout", ["broadcast", "batch-broadcast", "transposed"])
def test_conv2d_backward_of_a_strided_gradient(layout, threads):
    # the fused kernels read the gradient a block of images at a time (the pool splits this batch)
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((8, 16, 20, 20)).astype(np.float32), rng.standard_normal((24, 16, 3, 3))
    g = np.cos(np.arange(8 * 24 * 20 * 20)).reshape(8, 24, 20, 20).astype(np.float32)
    gs, values = _strided_gradient(layout, g)

    def grads(dtype, grad):
        xa, wa = (mindtorch.tensor(v, dtype=dtype).requires_grad_() for v in (x, w))
        F.conv2d(xa, wa, padding=1).backward(grad)
        return xa.grad.numpy(), wa.grad.numpy()

    got = grads(mindtorch.float32, gs)
    want = grads(mindtorch.float64, mindtorch.tensor(np.array(values), dtype=mindtorch.float64))
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=2e-4)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ignore_index", [-100, 1])
@pytest.mark.parametrize("shape", [(8, 10), (7,), (40, 1000)])
def test_nll_and_cross_entropy_compiled_as_numpy_kernels(reduction, weighted, ignore_index, shape, numpy_only):
    # small logits are one compiled call (log_softmax and the loss), larger ones split the log_softmax
    rng = np.random.default_rng(4)
    x = (rng.standard_normal(shape) * 3).astype(np.float32)
    c = shape[-1]
    tgt = rng.integers(0, c, shape[:-1])
    if tgt.ndim:
        tgt[::3] = ignore_index
    w = mindtorch.tensor((rng.random(c) + 0.5).astype(np.float32)) if weighted else None
    kw = dict(reduction=reduction, ignore_index=ignore_index)

    def run():
        t = mindtorch.tensor(x).requires_grad_()
        ce = F.cross_entropy(t, mindtorch.tensor(tgt), w, **kw)
        nll = F.nll_loss(F.log_softmax(t, -1), mindtorch.tensor(tgt), w, **kw)
        (ce.sum() + nll.sum()).backward()
        return ce.detach().numpy(), nll.detach().numpy(), t.grad.numpy()

    for a, b in zip(run(), numpy_only(run)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def _targets(t):
    return mindtorch.arange(t.shape[0]) * 7 % t.shape[1]


# every kernel the entry offers, on operands of any row count
ENTRY_CASES = {
    **{k: v[0] for k, v in CASES.items() if k != "max_pool2d" and not k.startswith("attention")},
    "attention": lambda t: F.scaled_dot_product_attention(*[t.reshape(-1, 4, 128).transpose(0, 1)] * 3, is_causal=True),
    "cross_entropy": lambda t: F.cross_entropy(t, _targets(t), reduction="none"),
    "nll": lambda t: F.nll_loss(F.log_softmax(t, -1), _targets(t), reduction="sum"),
    "max_pool2d": lambda t: F.max_pool2d(t.reshape(-1, 4, 8, 16), 3, stride=2, padding=1),
    "conv2d": lambda t: F.conv2d(t.reshape(-1, 4, 8, 16), t[:1, :72].reshape(2, 4, 3, 3)),
}


@pytest.mark.parametrize("rows", [4, 300])
@pytest.mark.parametrize("name", sorted(ENTRY_CASES))
def test_extension_entry_and_ctypes_give_identical_results(name, rows, ctypes_only):
    if native.ENTRY is None:
        pytest.skip("the kernels are reached through ctypes only here")
    fn = ENTRY_CASES[name]
    x = np.ascontiguousarray(_sample((300, 512), specials=name not in FINITE_ONLY)[:rows])
    for a, b in zip(_grad_of(fn, x, "contiguous"), ctypes_only(lambda: _grad_of(fn, x, "contiguous"))):
        np.testing.assert_array_equal(a, b)


def test_extension_entry_refuses_what_ctypes_would_misread():
    if native.ENTRY is None:
        pytest.skip("the kernels are reached through ctypes only here")
    x = np.ones((4, 6), np.float32)
    with pytest.raises(ValueError):  # not C-contiguous: no buffer
        native.ENTRY.mt_exp_f32(x.T, np.empty((6, 4), np.float32), 24, 1)
    with pytest.raises(ValueError):  # read-only output: no writable buffer
        native.ENTRY.mt_exp_f32(x, np.broadcast_to(np.float32(0), (24,)), 24, 1)
    with pytest.raises(TypeError):
        native.ENTRY.mt_exp_f32(x, x)
