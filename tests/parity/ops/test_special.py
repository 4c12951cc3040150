"""mindtorch.special's compositions against torch.special."""

from helpers import torch_or_skip

torch = torch_or_skip()

import mindtorch  # noqa: E402
import mindtorch as mt  # noqa: E402
import mindtorch.special  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from helpers import assert_same  # noqa: E402

X = np.array([-3.0, -1.0, -0.5, 0.0, 1e-3, 0.25, 0.5, 1.0, 2.5, 7.0, np.inf, -np.inf, np.nan], dtype=np.float32)
P = np.array([0.0, 1e-4, 0.1, 0.5, 0.9, 0.9999, 1.0, -0.1, 1.5, np.nan], dtype=np.float32)
UNARY = [
    "erf",
    "erfc",
    "erfinv",
    "exp2",
    "expit",
    "expm1",
    "log1p",
    "logit",
    "round",
    "entr",
    "ndtr",
    "sinc",
    "log_ndtr",
]


@pytest.mark.parametrize("name", UNARY)
def test_unary(name):
    for arr in (X, P):
        mt = getattr(mindtorch.special, name)(mindtorch.tensor(arr))
        th = getattr(torch.special, name)(torch.tensor(arr))
        assert_same(mt, th, rtol=2e-5, atol=1e-6)


def test_ndtri():
    assert_same(
        mindtorch.special.ndtri(mindtorch.tensor(P)), torch.special.ndtri(torch.tensor(P)), rtol=1e-4, atol=1e-5
    )


@pytest.mark.parametrize("name", ["xlogy", "xlog1py"])
def test_binary(name):
    a, b = np.meshgrid(
        np.array([0.0, 1.0, -2.0, 3.5, np.nan], dtype=np.float32),
        np.array([0.0, 0.5, 2.0, -1.0, np.nan, np.inf], dtype=np.float32),
    )
    mt = getattr(mindtorch.special, name)(mindtorch.tensor(a), mindtorch.tensor(b))
    th = getattr(torch.special, name)(torch.tensor(a), torch.tensor(b))
    assert_same(mt, th, rtol=1e-6, atol=1e-6)
    assert_same(
        getattr(mindtorch.special, name)(2.0, mindtorch.tensor(b)),
        getattr(torch.special, name)(2.0, torch.tensor(b)),
        rtol=1e-6,
    )


@pytest.mark.parametrize("name", ["sinc", "entr", "ndtr", "expit", "logit"])
def test_gradients(name):
    arr = (
        np.array([-0.7, 0.0, 0.3, 0.6, 1.9], dtype=np.float32)
        if name != "logit"
        else np.array([0.1, 0.3, 0.6, 0.9], dtype=np.float32)
    )
    if name == "entr":
        arr = np.abs(arr) + 0.1
    m = mindtorch.tensor(arr, requires_grad=True)
    t = torch.tensor(arr, requires_grad=True)
    getattr(mindtorch.special, name)(m).sum().backward()
    getattr(torch.special, name)(t).sum().backward()
    assert_same(m.grad, t.grad, rtol=1e-5, atol=1e-6)


def test_softmax_family():
    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    for name in ("softmax", "log_softmax"):
        assert_same(
            getattr(mindtorch.special, name)(mindtorch.tensor(x), 1),
            getattr(torch.special, name)(torch.tensor(x), 1),
            rtol=1e-6,
        )
    assert_same(
        mindtorch.special.logsumexp(mindtorch.tensor(x), 1), torch.special.logsumexp(torch.tensor(x), 1), rtol=1e-6
    )


@pytest.mark.parametrize("name", ["lgamma", "digamma"])
def test_gamma_functions_and_gradients(name):
    x = np.array([0.3, 1.5, 4.0, -2.5, 10.0, 0.0, -3.0, float("inf"), float("-inf")])
    for dt in ("float32", "float64"):
        m = getattr(mt, name)(mt.tensor(x, dtype=getattr(mt, dt)))
        t = getattr(torch, name)(torch.tensor(x, dtype=getattr(torch, dt)))
        assert_same(m, t, rtol=1e-5, atol=1e-6)
    g = np.array([0.3, 1.5, 4.0, -2.5])
    mg, tg = mt.tensor(g).requires_grad_(), torch.tensor(g).requires_grad_()
    getattr(mt, name)(mg).sum().backward()
    getattr(torch, name)(tg).sum().backward()
    assert_same(mg.grad, tg.grad, rtol=1e-8, atol=1e-12)  # PyTorch's trigamma is good to ~5e-10 here


@pytest.mark.parametrize("n", [0, 1, 2, 3])
def test_polygamma(n):
    x = np.array([0.3, 1.5, 4.0, -2.5, 10.0])
    assert_same(mt.polygamma(n, mt.tensor(x)), torch.polygamma(n, torch.tensor(x)), rtol=1e-7, atol=1e-12)
    assert_same(mt.special.polygamma(n, mt.tensor(x)), torch.special.polygamma(n, torch.tensor(x)), rtol=1e-7)


def test_mvlgamma_inside_and_outside_its_domain():
    x = np.array([[2.3, 1.6], [4.0, 3.0], [0.5, 1.0]])  # PyTorch 2.13 no longer checks the domain: inf
    assert_same(mt.mvlgamma(mt.tensor(x), 3), torch.mvlgamma(torch.tensor(x), 3), rtol=1e-10)
    for lib in (mt, torch):
        with pytest.raises(RuntimeError, match="p has to be greater than or equal to 1"):
            lib.mvlgamma(lib.tensor([2.0]), 0)
    assert_same(mt.special.multigammaln(mt.tensor(x), 2), torch.special.multigammaln(torch.tensor(x), 2), rtol=1e-10)
