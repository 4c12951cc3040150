"""Complex tensors' parts as views, Tensor.view(dtype), complex/polar/angle, and mindtorch.fft, against
PyTorch: values, dtypes, geometry, errors, gradients (and gradcheck in float64)."""

from helpers import torch_or_skip

torch = torch_or_skip()

import mindtorch  # noqa: E402
import mindtorch.fft  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from helpers import assert_same, check_grad  # noqa: E402

RS = np.random.RandomState(0)
X = RS.randn(4, 6)
XC = X + 1j * RS.randn(4, 6)


def _run(lib, fn, dtype="float32"):
    real = lib.tensor(X.astype(dtype))
    cplx = lib.tensor(XC.astype("complex64" if dtype == "float32" else "complex128"))
    try:
        return fn(lib, real, cplx)
    except Exception as exc:
        return exc


def _same_outcome(fn, dtype="float32", check_stride=False):
    got, want = _run(mindtorch, fn, dtype), _run(torch, fn, dtype)
    if isinstance(want, Exception) or isinstance(got, Exception):
        assert type(got) is type(want), (got, want)
        return
    tol = 1e-10 if want.dtype in (torch.float64, torch.complex128) else 1e-4
    assert_same(got, want, rtol=tol, atol=tol, check_stride=check_stride)


TRANSFORMS = {
    "fft": lambda L, x, c: L.fft.fft(x),
    "fft_n_pad": lambda L, x, c: L.fft.fft(c, n=8),
    "ifft_trim_dim0": lambda L, x, c: L.fft.ifft(c, n=3, dim=0, norm="ortho"),
    "fft2_forward": lambda L, x, c: L.fft.fft2(c, norm="forward"),
    "ifft2": lambda L, x, c: L.fft.ifft2(x),
    "fftn_s": lambda L, x, c: L.fft.fftn(x, s=(3, 8)),
    "ifftn": lambda L, x, c: L.fft.ifftn(c),
    "rfft": lambda L, x, c: L.fft.rfft(x),
    "rfft_n_ortho": lambda L, x, c: L.fft.rfft(x, n=5, norm="ortho"),
    "irfft": lambda L, x, c: L.fft.irfft(c),
    "irfft_odd": lambda L, x, c: L.fft.irfft(c, n=7),
    "irfft_real_input": lambda L, x, c: L.fft.irfft(x, n=4, dim=0),
    "rfft2": lambda L, x, c: L.fft.rfft2(x),
    "irfft2_s": lambda L, x, c: L.fft.irfft2(c, s=(4, 9)),
    "rfftn": lambda L, x, c: L.fft.rfftn(x),
    "irfftn": lambda L, x, c: L.fft.irfftn(c),
    "hfft": lambda L, x, c: L.fft.hfft(c),
    "hfft_forward": lambda L, x, c: L.fft.hfft(c, n=5, norm="forward"),
    "ihfft": lambda L, x, c: L.fft.ihfft(x),
    "hfft2": lambda L, x, c: L.fft.hfft2(c),
    "ihfft2": lambda L, x, c: L.fft.ihfft2(x),
    "hfftn_ortho": lambda L, x, c: L.fft.hfftn(c, norm="ortho"),
    "ihfftn_forward": lambda L, x, c: L.fft.ihfftn(x, norm="forward"),
    "fft_int": lambda L, x, c: L.fft.fft(L.arange(5)),
    "fft_strided": lambda L, x, c: L.fft.fft(x.t()[:, ::2]),
    "fftfreq": lambda L, x, c: L.fft.fftfreq(5),
    "fftfreq_f64": lambda L, x, c: L.fft.fftfreq(6, 0.5, dtype=L.float64),
    "rfftfreq": lambda L, x, c: L.fft.rfftfreq(6, d=0.3),
    "fftshift": lambda L, x, c: L.fft.fftshift(x),
    "ifftshift_dim": lambda L, x, c: L.fft.ifftshift(x, dim=1),
    "fftshift_odd": lambda L, x, c: L.fft.fftshift(x[:3]),
    "out": lambda L, x, c: L.fft.fft(x, out=L.empty(0, dtype=L.complex64)),
    # bad input
    "bad_norm": lambda L, x, c: L.fft.fft(x, norm="bad"),
    "half": lambda L, x, c: L.fft.fft(x.half()),
    "bfloat16": lambda L, x, c: L.fft.rfft(x.bfloat16()),
    "rfft_complex": lambda L, x, c: L.fft.rfft(c),
    "ihfft_complex": lambda L, x, c: L.fft.ihfft(c),
    "zero_points": lambda L, x, c: L.fft.irfft(x, n=0),
    "fft_n0": lambda L, x, c: L.fft.fft(x, n=0),
    "dim_range": lambda L, x, c: L.fft.fft(x, dim=2),
    "s_dim_len": lambda L, x, c: L.fft.fftn(x, s=(3,), dim=(0, 1)),
    "dims_unique": lambda L, x, c: L.fft.fftn(x, dim=(0, 0)),
    "scalar": lambda L, x, c: L.fft.fft(L.tensor(1.0)),
    "out_real": lambda L, x, c: L.fft.fft(x, out=L.empty(0)),
    "empty": lambda L, x, c: L.fft.fft(L.zeros(0)),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_transform(name, dtype):
    _same_outcome(TRANSFORMS[name], dtype)


DIFFERENTIABLE = [
    n
    for n in TRANSFORMS
    if not n.startswith(
        (
            "fftfreq",
            "rfftfreq",
            "out",
            "bad",
            "half",
            "bfloat",
            "rfft_complex",
            "ihfft_complex",
            "zero",
            "fft_n0",
            "dim_range",
            "s_dim",
            "dims_",
            "scalar",
            "empty",
            "fft_int",
        )
    )
]


def _loss(lib, out):
    w = lib.tensor(np.cos(np.arange(out.numel())).reshape(tuple(out.shape)))
    return ((out.abs() ** 2) * w).sum() if out.is_complex() else (out * out * w).sum()


@pytest.mark.parametrize("name", DIFFERENTIABLE)
def test_transform_gradients_match_torch(name):
    grads = []
    for lib in (mindtorch, torch):
        x, c = lib.tensor(X, requires_grad=True), lib.tensor(XC, requires_grad=True)
        _loss(lib, TRANSFORMS[name](lib, x, c)).backward()
        grads.append((x.grad, c.grad))
    for got, want in zip(*grads):
        assert (got is None) == (want is None)
        if want is not None:
            assert_same(got, want, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("name", DIFFERENTIABLE)
def test_transform_gradcheck(name):
    """float64 gradcheck over real coordinates: the complex input built from two real tensors, complex
    outputs seen as their (real, imag) pairs."""

    def fn(x, re, im):
        out = TRANSFORMS[name](mindtorch, x, mindtorch.complex(re, im))
        return mindtorch.view_as_real(out) if out.is_complex() else out

    check_grad(
        fn,
        mindtorch.tensor(X, requires_grad=True),
        mindtorch.tensor(XC.real, requires_grad=True),
        mindtorch.tensor(XC.imag, requires_grad=True),
    )


VIEWS = {
    "view_as_real": lambda L, x, c: L.view_as_real(c),
    "view_as_real_slice": lambda L, x, c: L.view_as_real(c[:, 1:]),
    "view_as_real_t": lambda L, x, c: L.view_as_real(c.t()),
    "view_as_real_of_real": lambda L, x, c: L.view_as_real(x),
    "view_as_complex": lambda L, x, c: L.view_as_complex(x[:, :2].contiguous()),
    "view_as_complex_rows": lambda L, x, c: L.view_as_complex(x.reshape(12, 2)),
    "view_as_complex_size": lambda L, x, c: L.view_as_complex(x[:, :3]),
    "view_as_complex_stride": lambda L, x, c: L.view_as_complex(x[:2].t()),
    "view_as_complex_offset": lambda L, x, c: L.view_as_complex(x.reshape(12, 2)[:, :1].reshape(-1)[1:3]),
    "view_as_complex_int": lambda L, x, c: L.view_as_complex(x[:, :2].int()),
    "view_as_complex_0d": lambda L, x, c: L.view_as_complex(x[0, 0]),
    "real": lambda L, x, c: c.real,
    "imag": lambda L, x, c: c.imag,
    "real_fn": lambda L, x, c: L.real(c[1:]),
    "imag_fn": lambda L, x, c: L.imag(c.t()),
    "real_of_real": lambda L, x, c: x.real,
    "imag_of_real": lambda L, x, c: x.imag,
    "view_int16": lambda L, x, c: x.view(L.int16),
    "view_f64": lambda L, x, c: x.view(L.float64),
    "view_int32_same": lambda L, x, c: x.view(L.int32),
    "view_bool": lambda L, x, c: x.view(L.bool),
    "view_complex": lambda L, x, c: x.view(L.complex64),
    "view_c_as_f": lambda L, x, c: c.view(L.float32),
    "view_odd": lambda L, x, c: x[:, :3].view(L.float64),
    "view_stride": lambda L, x, c: x.t().view(L.float64),
    "view_0d": lambda L, x, c: x[0, 0].view(L.float64),
    "view_0d_same": lambda L, x, c: x[0, 0].view(L.int32),
    "view_slice": lambda L, x, c: x[:, 2:].view(L.int16),
    "complex": lambda L, x, c: L.complex(x, x * 2),
    "complex_bcast": lambda L, x, c: L.complex(x[:, :1], x[0]),
    "complex_mixed": lambda L, x, c: L.complex(x.double(), x.float()),
    "complex_int": lambda L, x, c: L.complex(x.long(), x.long()),
    "polar": lambda L, x, c: L.polar(x.abs(), x),
    "angle_complex": lambda L, x, c: L.angle(c),
    "angle_real": lambda L, x, c: L.angle(L.tensor([-1.0, 0.0, 2.0, float("nan")])),
    "angle_int": lambda L, x, c: L.angle(L.tensor([-1, 0, 2])),
    "angle_method": lambda L, x, c: c.angle(),
}


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_complex_views(name):
    _same_outcome(VIEWS[name], check_stride=True)


def test_parts_write_through():
    for lib in (mindtorch, torch):
        c = lib.tensor(XC.astype("complex64"))
        c.real.mul_(10)
        c.imag = lib.zeros(4, 6)
        lib.view_as_real(c)[..., 1].add_(1)
        yield_ = c
        if lib is mindtorch:
            got = yield_
        else:
            assert_same(got, yield_)


def test_randn_complex_has_unit_variance_split_evenly():
    mindtorch.manual_seed(0)
    z = mindtorch.randn(20000, dtype=mindtorch.complex64)
    parts = mindtorch.view_as_real(z)
    assert abs(float(z.abs().pow(2).mean()) - 1) < 0.05
    assert np.allclose(parts.std(0).numpy(), np.sqrt(0.5), atol=0.02)


def test_inplace_on_part_of_graph_tensor():
    """In-place ops on the real/imag views of a complex tensor in a graph rewrite its history (CopySlices)."""
    grads = []
    for lib in (mindtorch, torch):
        a = lib.tensor(np.array([1 + 2j, -3 + 0.5j, 0.2 - 1j]), requires_grad=True)
        z = a.clone()
        z.real.mul_(2)
        z.imag.add_(z.real)
        (z.abs() ** 2).sum().backward()
        grads.append(a.grad)
    assert_same(*grads, rtol=1e-12)


def test_view_as_complex_gradient():
    grads = []
    for lib in (mindtorch, torch):
        b = lib.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=lib.float64, requires_grad=True)
        c = lib.view_as_complex(b * 1)
        (c * c).abs().sum().backward()
        grads.append(b.grad)
    assert_same(*grads, rtol=1e-12)


def test_angle_and_polar_gradcheck():
    check_grad(
        lambda re, im: mindtorch.angle(mindtorch.complex(re, im)),
        mindtorch.tensor(X, requires_grad=True),
        mindtorch.tensor(XC.imag, requires_grad=True),
    )
    check_grad(
        lambda r, t: mindtorch.view_as_real(mindtorch.polar(r, t)),
        mindtorch.tensor(np.abs(X) + 0.1, requires_grad=True),
        mindtorch.tensor(XC.imag, requires_grad=True),
    )


def _complex_differentiable_pointwise():
    from mindtorch.ops.registry import OPS

    out = []
    for _q, op in sorted(OPS.items()):
        req = [p for p in op.params if not p.has_default]
        if (
            op.family == "pointwise"
            and not op.inplace
            and op.derivative is not None
            and "function" in op.variants
            and len(req) in (1, 2)
            and all(p.is_tensor for p in req)
            and hasattr(torch, op.name)
        ):
            out.append((op.name, len(req)))
    return out


@pytest.mark.parametrize("name,arity", _complex_differentiable_pointwise())
def test_complex_gradients_follow_pytorch_convention(name, arity):
    """Every differentiable pointwise op of the table on complex128: the same outcome as PyTorch (both refuse,
    or the same gradient: grad times the conjugate derivative, PyTorch's convention)."""
    z = np.array([0.5 + 0.3j, -0.2 + 0.7j, 0.4 - 0.1j, -0.6 - 0.45j])
    results = []
    for lib in (torch, mindtorch):
        a, b = lib.tensor(z, requires_grad=True), lib.tensor(z[::-1].copy() * 0.7, requires_grad=True)
        try:
            out = getattr(lib, name)(a) if arity == 1 else getattr(lib, name)(a, b)
        except (RuntimeError, NotImplementedError, TypeError) as exc:
            results.append(type(exc))
            if lib is torch:
                return  # PyTorch refuses complex here; whether mindtorch computes it is not compared
            continue
        out = out if out.is_complex() else out * (1 + 0j)
        (out.real * 1.3 + out.imag * 0.7).sum().backward()
        results.append([a.grad] + ([b.grad] if arity == 2 else []))
    want, got = results
    assert not isinstance(got, type), f"mindtorch raised {got.__name__}"
    for g, w in zip(got, want):
        assert_same(g, w, rtol=1e-10, atol=1e-12)
