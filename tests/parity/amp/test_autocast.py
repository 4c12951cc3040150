"""autocast on the CPU against PyTorch's: the dtype every op returns under each policy (lower precision,
float32, promote, untouched), values to the autocast dtype's rounding, gradients reaching float32
parameters, nesting, the decorator form, and the switches."""

import warnings

import numpy as np
import pytest
from helpers import torch_or_skip

torch = torch_or_skip()

import mindtorch  # noqa: E402
import mindtorch as mt  # noqa: E402

R = np.random.default_rng(0)
X, W, B = (R.standard_normal(s).astype(np.float32) for s in ((4, 4), (4, 4), (4,)))
IMG, K = R.standard_normal((1, 2, 5, 5)).astype(np.float32), R.standard_normal((3, 2, 3, 3)).astype(np.float32)
T = np.array([0, 1, 2, 3])

CALLS = {
    "mm": lambda L, t: L.mm(t(X), t(W)),
    "matmul": lambda L, t: t(X) @ t(W),
    "bmm": lambda L, t: L.bmm(t(X)[None], t(W)[None]),
    "addmm": lambda L, t: L.addmm(t(B), t(X), t(W)),
    "baddbmm": lambda L, t: L.baddbmm(t(X)[None], t(X)[None], t(W)[None]),
    "linear": lambda L, t: L.nn.functional.linear(t(X), t(W), t(B)),
    "conv2d": lambda L, t: L.nn.functional.conv2d(t(IMG), t(K)),
    "conv1d": lambda L, t: L.nn.functional.conv1d(t(IMG)[:, :, 0], t(K)[:, :, 0]),
    "sdpa": lambda L, t: L.nn.functional.scaled_dot_product_attention(
        t(X)[None, None], t(X)[None, None], t(W)[None, None]
    ),
    "relu": lambda L, t: L.relu(t(X)),
    "add": lambda L, t: t(X) + t(W),
    "softmax": lambda L, t: L.softmax(t(X), -1),
    "layer_norm": lambda L, t: L.nn.functional.layer_norm(t(X), (4,)),
    "gelu": lambda L, t: L.nn.functional.gelu(t(X)),
    "sum": lambda L, t: t(X).sum(),
    "exp": lambda L, t: t(X).exp(),
    "mse_low": lambda L, t: L.nn.functional.mse_loss(t(X).bfloat16(), t(W).bfloat16()),
    "l1_low": lambda L, t: L.nn.functional.l1_loss(t(X).half(), t(W).half()),
    "bce_logits_low": lambda L, t: L.nn.functional.binary_cross_entropy_with_logits(
        t(X).bfloat16(), t(W).sigmoid().bfloat16()
    ),
    "cross_entropy_low": lambda L, t: L.nn.functional.cross_entropy(t(X).bfloat16(), L.tensor(T)),
    "nll_low": lambda L, t: L.nn.functional.nll_loss(t(X).bfloat16(), L.tensor(T)),
    "cat_mixed": lambda L, t: L.cat([t(X), t(X).bfloat16()]),
    "stack_mixed": lambda L, t: L.stack([t(X).bfloat16(), t(X)]),
    "prod_low": lambda L, t: t(X).bfloat16().prod(),
    "mm_float64": lambda L, t: L.mm(t(X).double(), t(W).double()),
    "layer_norm_low": lambda L, t: L.nn.functional.layer_norm(t(X).bfloat16(), (4,)),
    "embedding_low": lambda L, t: L.nn.functional.embedding(L.tensor([0, 1]), t(W).bfloat16()),
}


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("name", sorted(CALLS))
def test_output_dtypes_and_values_match(name, dtype):
    res = []
    for lib in (mt, torch):
        with lib.autocast("cpu", dtype=getattr(lib, dtype)):
            try:
                res.append(CALLS[name](lib, lambda a, lib=lib: lib.tensor(a)))
            except RuntimeError as exc:  # PyTorch refuses some mixes (a half type that is not the autocast one)
                res.append(("raises", str(exc)))
    m, t = res
    if isinstance(t, tuple) or isinstance(m, tuple):
        assert m == t
        return
    assert str(m.dtype) == str(t.dtype), (name, m.dtype, t.dtype)
    tol = 2e-2 if t.dtype in (torch.bfloat16, torch.float16) else 1e-2
    np.testing.assert_allclose(m.float().detach().numpy(), t.float().detach().numpy(), rtol=tol, atol=tol)


def test_gradients_reach_float32_parameters():
    grads = []
    for lib in (mt, torch):
        w = lib.tensor(W, requires_grad=True)
        with lib.autocast("cpu"):
            y = lib.nn.functional.linear(lib.tensor(X), w).float().pow(2).sum()
        y.backward()
        assert w.grad.dtype == lib.float32
        grads.append(w.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=2e-2, atol=2e-2)


def test_nesting_decorator_and_switches():
    for lib in (mt, torch):
        x, w = lib.tensor(X), lib.tensor(W)
        assert not lib.is_autocast_enabled("cpu")
        with lib.autocast("cpu", dtype=lib.bfloat16):
            assert lib.is_autocast_enabled("cpu") and lib.get_autocast_dtype("cpu") == lib.bfloat16
            with lib.autocast("cpu", enabled=False):
                assert lib.mm(x, w).dtype == lib.float32 and not lib.is_autocast_enabled("cpu")
            assert lib.mm(x, w).dtype == lib.bfloat16

        @lib.autocast("cpu", dtype=lib.float16)
        def f(a, b):
            return lib.mm(a, b)

        assert f(x, w).dtype == lib.float16 and lib.mm(x, w).dtype == lib.float32


def test_unsupported_dtype_warns_and_disables_like_pytorch():
    msgs = []
    for lib in (mt, torch):
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            with lib.autocast("cpu", dtype=lib.float64):
                out = lib.mm(lib.tensor(X), lib.tensor(W))
        assert out.dtype == lib.float32
        msgs.append([str(w.message) for w in rec])
    assert msgs[0] == msgs[1]


def test_legacy_autocast_switches():
    import warnings as w

    for lib in (mindtorch, torch):
        with w.catch_warnings():
            w.simplefilter("ignore")
            assert lib.is_autocast_cpu_enabled() is False and lib.is_autocast_cache_enabled() is True
            assert str(lib.get_autocast_cpu_dtype()).endswith("bfloat16")
            assert str(lib.get_autocast_gpu_dtype()).endswith("float16")
            with lib.autocast("cpu"):
                assert lib.is_autocast_cpu_enabled() is True
            lib.set_autocast_cpu_enabled(True)
            assert lib.is_autocast_enabled("cpu")
            lib.set_autocast_cpu_enabled(False)
            assert not lib.is_autocast_enabled("cpu")
