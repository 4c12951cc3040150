"""mindtorch.distributions against torch.distributions: log_prob, entropy, moments, cdf/icdf, shapes, KL,
argument validation, reparameterised gradients; samples by their statistics (the random streams differ);
the constraints' checks."""

import numpy as np
import pytest
from helpers import assert_same, torch_or_skip

torch = torch_or_skip()

import mindtorch as mt  # noqa: E402

R = np.random.default_rng(0)
P = R.dirichlet(np.ones(4), size=3).astype(np.float32)
SPD = (lambda a: a @ a.T + 3 * np.eye(3))(R.standard_normal((3, 3))).astype(np.float32)

# name, constructor(lib, t), a value inside the support
CASES = [
    ("Normal", lambda L, t: L.distributions.Normal(t([0.0, 1.0, -2.0]), t([1.0, 0.5, 2.0])), [0.3, 1.2, -1.0]),
    ("Uniform", lambda L, t: L.distributions.Uniform(t([0.0, -1.0]), t([2.0, 3.0])), [0.5, 2.0]),
    ("Bernoulli-probs", lambda L, t: L.distributions.Bernoulli(probs=t([0.2, 0.7, 0.5])), [1.0, 0.0, 1.0]),
    ("Bernoulli-logits", lambda L, t: L.distributions.Bernoulli(logits=t([-1.0, 2.0])), [0.0, 1.0]),
    ("Categorical-probs", lambda L, t: L.distributions.Categorical(probs=t(P)), [0, 3, 2]),
    ("Categorical-logits", lambda L, t: L.distributions.Categorical(logits=t(np.log(P) + 1)), [1, 1, 0]),
    (
        "OneHotCategorical",
        lambda L, t: L.distributions.OneHotCategorical(probs=t(P)),
        [[0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 1]],
    ),
    ("Exponential", lambda L, t: L.distributions.Exponential(t([0.5, 2.0])), [1.0, 0.3]),
    ("Laplace", lambda L, t: L.distributions.Laplace(t([0.0, 1.0]), t([1.0, 0.5])), [0.7, -0.2]),
    ("Gamma", lambda L, t: L.distributions.Gamma(t([2.0, 0.5]), t([1.0, 3.0])), [1.5, 0.2]),
    ("Beta", lambda L, t: L.distributions.Beta(t([2.0, 0.5]), t([3.0, 1.5])), [0.3, 0.8]),
    (
        "Dirichlet",
        lambda L, t: L.distributions.Dirichlet(t([[1.0, 2.0, 3.0], [0.5, 0.5, 2.0]])),
        [[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]],
    ),
    (
        "MVN-cov",
        lambda L, t: L.distributions.MultivariateNormal(t([0.0, 1.0, -1.0]), covariance_matrix=t(SPD)),
        [0.5, 0.5, 0.5],
    ),
    (
        "MVN-tril",
        lambda L, t: L.distributions.MultivariateNormal(t([[0.0, 1.0, -1.0]]), scale_tril=L.linalg.cholesky(t(SPD))),
        [[0.5, 0.5, 0.5]],
    ),
    (
        "Independent",
        lambda L, t: L.distributions.Independent(L.distributions.Normal(t([[0.0, 1.0]]), t([[1.0, 2.0]])), 1),
        [[0.1, 0.2]],
    ),
    ("Poisson", lambda L, t: L.distributions.Poisson(t([0.5, 3.0])), [1.0, 4.0]),
    ("Binomial-probs", lambda L, t: L.distributions.Binomial(t([5.0, 10.0]), probs=t([0.3, 0.6])), [2.0, 7.0]),
    ("Binomial-logits", lambda L, t: L.distributions.Binomial(8, logits=t([-1.0, 0.5])), [3.0, 5.0]),
    ("Geometric", lambda L, t: L.distributions.Geometric(probs=t([0.2, 0.7])), [3.0, 0.0]),
    ("NegativeBinomial", lambda L, t: L.distributions.NegativeBinomial(t([3.0, 5.0]), probs=t([0.4, 0.7])), [2.0, 6.0]),
    (
        "Multinomial",
        lambda L, t: L.distributions.Multinomial(6, probs=t(P)),
        [[1.0, 2.0, 1.0, 2.0], [0.0, 0.0, 3.0, 3.0], [6.0, 0.0, 0.0, 0.0]],
    ),
    ("Cauchy", lambda L, t: L.distributions.Cauchy(t([0.0, 1.0]), t([1.0, 2.0])), [0.5, -3.0]),
    ("HalfCauchy", lambda L, t: L.distributions.HalfCauchy(t([1.0, 2.0])), [0.5, 3.0]),
    ("HalfNormal", lambda L, t: L.distributions.HalfNormal(t([1.0, 0.5])), [0.3, 1.2]),
    ("LogNormal", lambda L, t: L.distributions.LogNormal(t([0.0, 1.0]), t([0.5, 1.0])), [1.2, 3.0]),
    ("Chi2", lambda L, t: L.distributions.Chi2(t([3.0, 5.0])), [2.0, 4.0]),
    ("StudentT", lambda L, t: L.distributions.StudentT(t([3.0, 1.5]), t([0.0, 1.0]), t([1.0, 2.0])), [0.5, -1.0]),
    ("Gumbel", lambda L, t: L.distributions.Gumbel(t([0.0, 1.0]), t([1.0, 2.0])), [0.5, -1.0]),
    ("Weibull", lambda L, t: L.distributions.Weibull(t([1.0, 2.0]), t([1.5, 0.8])), [0.5, 3.0]),
    ("Pareto", lambda L, t: L.distributions.Pareto(t([1.0, 2.0]), t([3.0, 1.5])), [1.5, 4.0]),
    ("InverseGamma", lambda L, t: L.distributions.InverseGamma(t([3.0, 1.5]), t([2.0, 1.0])), [0.7, 2.0]),
    ("FisherSnedecor", lambda L, t: L.distributions.FisherSnedecor(t([3.0, 6.0]), t([5.0, 10.0])), [0.7, 2.0]),
    ("LogisticNormal", lambda L, t: L.distributions.LogisticNormal(t([0.0, 1.0]), t([1.0, 0.5])), [0.2, 0.3, 0.5]),
    ("RelaxedBernoulli", lambda L, t: L.distributions.RelaxedBernoulli(t(0.5), probs=t([0.3, 0.8])), [0.2, 0.9]),
    (
        "RelaxedOneHotCategorical",
        lambda L, t: L.distributions.RelaxedOneHotCategorical(t(0.7), probs=t(P)),
        [[0.1, 0.2, 0.3, 0.4], [0.25, 0.25, 0.25, 0.25], [0.7, 0.1, 0.1, 0.1]],
    ),
    (
        "MixtureSameFamily",
        lambda L, t: L.distributions.MixtureSameFamily(
            L.distributions.Categorical(probs=t([[0.3, 0.7], [0.5, 0.5]])),
            L.distributions.Normal(t([[0.0, 2.0], [1.0, -1.0]]), t([[1.0, 0.5], [2.0, 1.0]])),
        ),
        [0.7, -0.3],
    ),
    (
        "Transformed-tanh",
        lambda L, t: L.distributions.TransformedDistribution(
            L.distributions.Normal(t([0.0, 1.0]), t([1.0, 0.5])), [L.distributions.TanhTransform()]
        ),
        [0.3, -0.5],
    ),
    (
        "Transformed-affine-exp",
        lambda L, t: L.distributions.TransformedDistribution(
            L.distributions.Normal(t([0.0, 1.0]), t([1.0, 0.5])),
            [L.distributions.AffineTransform(1.0, 2.0), L.distributions.ExpTransform()],
        ),
        [0.3, 2.5],
    ),
    (
        "Transformed-sigmoid-independent",
        lambda L, t: L.distributions.TransformedDistribution(
            L.distributions.Independent(L.distributions.Normal(t([0.0, 1.0]), t([1.0, 0.5])), 1),
            [L.distributions.SigmoidTransform()],
        ),
        [0.3, 0.6],
    ),
]
IDS = [c[0] for c in CASES]


def _t(lib):
    def t(v):
        a = np.asarray(v)
        return lib.tensor(a.astype(np.float32) if a.dtype.kind == "f" else a)

    return t


def _both(make):
    return make(mt, _t(mt)), make(torch, _t(torch))


@pytest.mark.parametrize("name,make,value", CASES, ids=IDS)
def test_densities_moments_and_shapes(name, make, value):
    m, t = _both(make)
    assert tuple(m.batch_shape) == tuple(t.batch_shape) and tuple(m.event_shape) == tuple(t.event_shape)
    vm, vt = _t(mt)(value), _t(torch)(value)
    if name.startswith("Categorical"):
        vm, vt = vm.long(), vt.long()
    assert_same(m.log_prob(vm), t.log_prob(vt), rtol=1e-5, atol=1e-5)
    try:
        te = t.entropy()
    except NotImplementedError:
        te = None
    if te is not None:
        assert_same(m.entropy(), te, rtol=1e-5, atol=1e-5)
    for attr in ("mean", "variance", "stddev", "mode"):
        try:
            tv = getattr(t, attr)
        except NotImplementedError:
            continue
        assert_same(getattr(m, attr), tv, rtol=1e-5, atol=1e-5)
    for fn in ("cdf", "icdf"):
        try:
            tv = getattr(t, fn)(vt if fn == "cdf" else torch.full_like(vt, 0.3))
        except (NotImplementedError, ValueError, AttributeError):
            continue
        assert_same(getattr(m, fn)(vm if fn == "cdf" else mt.full_like(vm, 0.3)), tv, rtol=1e-5, atol=1e-5)
    s = m.sample((5, 2))
    assert tuple(s.shape) == tuple(t.sample((5, 2)).shape)
    assert bool(m.support.check(s).all()) if m.support is not None and not name.startswith("Independent") else True


SAMPLED = (
    "Normal",
    "Uniform",
    "Exponential",
    "Laplace",
    "Gamma",
    "Bernoulli-probs",
    "Categorical-probs",
    "Beta",
    "MVN-cov",
    "Poisson",
    "Binomial-probs",
    "Geometric",
    "NegativeBinomial",
    "Gumbel",
    "Weibull",
    "LogNormal",
    "HalfNormal",
    "Chi2",
    "MixtureSameFamily",
    "Multinomial",
)


@pytest.mark.parametrize(
    "name,make,value", [c for c in CASES if c[0] in SAMPLED], ids=[c[0] for c in CASES if c[0] in SAMPLED]
)
def test_sample_statistics(name, make, value):
    mt.manual_seed(0)
    m, t = _both(make)
    draws = m.sample((20000,)).double()
    if name.startswith("Categorical"):
        freq = mt.stack([(draws == k).double().mean(0) for k in range(4)], -1)
        assert np.allclose(freq.numpy(), t.probs.numpy(), atol=0.02)
        return
    assert np.allclose(draws.mean(0).numpy(), t.mean.numpy(), atol=0.05, rtol=0.05)
    assert np.allclose(draws.var(0).numpy(), t.variance.numpy(), atol=0.05, rtol=0.08)


def test_rsample_carries_gradients_to_the_parameters():
    for lib in (mt,):
        loc, scale = lib.tensor([0.5, -1.0], requires_grad=True), lib.tensor([1.0, 2.0], requires_grad=True)
        lib.manual_seed(1)
        x = lib.distributions.Normal(loc, scale).rsample((1000,))
        x.mean().backward()
        assert np.allclose(loc.grad.numpy(), [0.5, 0.5]) and scale.grad is not None
    mu = mt.tensor([0.0, 0.0, 0.0], requires_grad=True)
    mvn = mt.distributions.MultivariateNormal(mu, covariance_matrix=mt.tensor(SPD))
    mvn.log_prob(mt.tensor([0.5, 0.5, 0.5])).backward()
    tmu = torch.tensor([0.0, 0.0, 0.0], requires_grad=True)
    torch.distributions.MultivariateNormal(tmu, covariance_matrix=torch.tensor(SPD)).log_prob(
        torch.tensor([0.5, 0.5, 0.5])
    ).backward()
    assert_same(mu.grad, tmu.grad, rtol=1e-5, atol=1e-6)


KL = [
    ("Normal", "Normal"),
    ("Bernoulli-probs", "Bernoulli-probs"),
    ("Categorical-probs", "Categorical-logits"),
    ("Exponential", "Exponential"),
    ("Laplace", "Laplace"),
    ("MVN-cov", "MVN-tril"),
    ("Uniform", "Uniform"),
]


@pytest.mark.parametrize("a,b", KL)
def test_kl_divergence(a, b):
    make = {c[0]: c[1] for c in CASES}
    pm, pt = _both(make[a])
    if a == b:  # a different q of the same family
        qm = make[b](mt, lambda v: _t(mt)(np.asarray(v) * 0.8 + 0.1))
        qt = make[b](torch, lambda v: _t(torch)(np.asarray(v) * 0.8 + 0.1))
    else:
        qm, qt = _both(make[b])
    assert_same(mt.distributions.kl_divergence(pm, qm), torch.distributions.kl_divergence(pt, qt), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(
    "make",
    [
        lambda L: L.distributions.Normal(L.tensor([0.0]), L.tensor([-1.0])),
        lambda L: L.distributions.Bernoulli(probs=L.tensor([1.5])),
        lambda L: L.distributions.Categorical(probs=L.tensor(1.0)),
        lambda L: L.distributions.Bernoulli(),
        lambda L: L.distributions.Normal(L.tensor([0.0, 1.0]), L.tensor([1.0, 1.0])).log_prob(L.ones(3)),
        lambda L: L.distributions.MultivariateNormal(L.zeros(3), covariance_matrix=L.eye(3)).log_prob(L.ones(2)),
        lambda L: L.distributions.Exponential(L.tensor([1.0])).log_prob(L.tensor([-1.0])),
    ],
)
def test_argument_and_support_validation(make):
    kinds = []
    for lib in (mt, torch):
        with pytest.raises(Exception) as info:
            make(lib)
        kinds.append(type(info.value))
    assert kinds[0] is kinds[1]


@pytest.mark.parametrize("name,make,value", CASES, ids=IDS)
def test_has_rsample_as_pytorch_and_rsample_is_differentiable(name, make, value):
    m, t = _both(make)
    assert m.has_rsample == t.has_rsample
    if m.has_rsample:
        params = [v for v in vars(m).values() if isinstance(v, mt.Tensor) and v.is_floating_point()]
        leaf = mt.ones((), requires_grad=True)
        base = m
        # rebuild with every float parameter scaled by a leaf: the draw must depend on it differentiably
        scaled = make(mt, lambda v: _t(mt)(v) * leaf)
        draw = scaled.rsample((3,))
        assert draw.requires_grad, name
        draw.sum().backward()
        assert leaf.grad is not None and bool(mt.isfinite(leaf.grad)), name
        del params, base


def test_gamma_rsample_gradient_is_the_implicit_one():
    """d x / d alpha at fixed quantile, against PyTorch's own implicit gradient for the same (alpha, x)."""
    from mindtorch.distributions.gamma import _ReparamGamma

    alpha = np.array([0.3, 0.9, 1.5, 4.0, 20.0])
    x = np.array([0.05, 0.7, 2.0, 3.5, 25.0])

    class Saved:
        saved_tensors = (mt.tensor(alpha), mt.tensor(x))

    got = _ReparamGamma.backward(Saved(), mt.ones(5, dtype=mt.float64))
    want = torch._standard_gamma_grad(torch.tensor(alpha), torch.tensor(x))
    assert np.allclose(got.numpy(), want.numpy(), rtol=1e-4)


def test_transforms_invert_and_registries():
    D = mt.distributions
    x = mt.tensor([[-1.5, 0.2, 2.0]], dtype=mt.float64)
    for tr in (
        D.ExpTransform(),
        D.SigmoidTransform(),
        D.TanhTransform(),
        D.SoftplusTransform(),
        D.AffineTransform(1.0, -2.0),
        D.PowerTransform(2.0).inv,
        D.StickBreakingTransform(),
        D.ComposeTransform([D.AffineTransform(0.5, 3.0), D.ExpTransform()]),
    ):
        src = x.abs() if isinstance(tr.inv, D.PowerTransform) else x
        assert np.allclose(tr.inv(tr(src)).numpy(), src.numpy(), atol=1e-10), tr
    for c in (
        D.constraints.positive,
        D.constraints.unit_interval,
        D.constraints.simplex,
        D.constraints.real,
        D.constraints.interval(-2.0, 3.0),
        D.constraints.greater_than(1.0),
    ):
        y = D.transform_to(c)(x)
        assert bool(c.check(y).all()), c
        assert np.allclose(D.biject_to(c).inv(D.biject_to(c)(x)).numpy(), x.numpy(), atol=1e-8)
    # log-determinants against PyTorch's
    for name, args in (
        ("ExpTransform", ()),
        ("SigmoidTransform", ()),
        ("TanhTransform", ()),
        ("SoftplusTransform", ()),
        ("AffineTransform", (1.0, -2.0)),
        ("StickBreakingTransform", ()),
    ):
        m = getattr(D, name)(*args)
        t = getattr(torch.distributions, name)(*args)
        xm, xt = x, torch.tensor(x.numpy())
        assert_same(m.log_abs_det_jacobian(xm, m(xm)), t.log_abs_det_jacobian(xt, t(xt)), rtol=1e-9, atol=1e-9)


CONSTRAINT_CASES = [
    ("real", [1.0, float("nan"), float("inf")]),
    ("positive", [1.0, 0.0, -1.0]),
    ("nonnegative", [0.0, -1e-9]),
    ("unit_interval", [0.0, 0.5, 1.0, 1.5]),
    ("boolean", [0.0, 1.0, 0.5]),
    ("simplex", [[0.2, 0.8], [0.5, 0.6]]),
    ("nonnegative_integer", [0.0, 2.0, 1.5, -1.0]),
    ("positive_definite", [[[2.0, 0.5], [0.5, 1.0]], [[1.0, 2.0], [2.0, 1.0]]]),
    ("lower_cholesky", [[[1.0, 0.0], [3.0, 2.0]], [[1.0, 1.0], [0.0, 1.0]]]),
    ("real_vector", [[1.0, float("nan")]]),
]


@pytest.mark.parametrize("name,value", CONSTRAINT_CASES, ids=[c for c, _ in CONSTRAINT_CASES])
def test_constraints_check_like_pytorch(name, value):
    import torch.distributions.constraints as tc
    from mindtorch.distributions import constraints as mc

    m = getattr(mc, name).check(mt.tensor(value))
    t = getattr(tc, name).check(torch.tensor(value))
    assert m.tolist() == t.tolist()
    assert getattr(mc, name).event_dim == getattr(tc, name).event_dim


def test_parametrised_constraints():
    import torch.distributions.constraints as tc
    from mindtorch.distributions import constraints as mc

    x = [0.0, 1.0, 2.5, 3.0]
    for mk, tk in (
        (mc.interval(1.0, 3.0), tc.interval(1.0, 3.0)),
        (mc.greater_than(1.0), tc.greater_than(1.0)),
        (mc.integer_interval(0, 2), tc.integer_interval(0, 2)),
        (mc.half_open_interval(0.0, 3.0), tc.half_open_interval(0.0, 3.0)),
    ):
        assert mk.check(mt.tensor(x)).tolist() == tk.check(torch.tensor(x)).tolist()
    assert mc.is_dependent(mc.dependent) and tc.is_dependent(tc.dependent)
