"""Kumaraswamy, ContinuousBernoulli, GeneralizedPareto, VonMises, LowRankMultivariateNormal and the
matrix, slice and cdf transforms against torch.distributions: log_prob, moments, entropy, cdf/icdf,
gradients of log_prob, sample shapes and statistics, argument errors."""

import math

import numpy as np
import pytest
from helpers import assert_same, torch_or_skip

torch = torch_or_skip()

import mindtorch as mt  # noqa: E402

R = np.random.default_rng(3)


def T(lib, a, dtype="float64"):
    return lib.tensor(np.asarray(a, dtype=dtype))


# name, constructor(lib, dtype), values inside the support, probabilities for icdf
CASES = [
    (
        "Kumaraswamy",
        lambda L, d: L.distributions.Kumaraswamy(T(L, [0.5, 2.0, 3.0, 1.0], d), T(L, [1.5, 0.7, 2.0, 1.0], d)),
        [0.3, 0.5, 0.9, 0.01],
    ),
    (
        "GeneralizedPareto",
        lambda L, d: L.distributions.GeneralizedPareto(
            T(L, [0.0, 1.0, -1.0, 2.0], d), T(L, [1.0, 2.0, 0.5, 0.3], d), T(L, [0.0, 0.3, -0.4, 1.5], d)
        ),
        [0.5, 3.0, -0.5, 2.5],
    ),
    (
        "VonMises",
        lambda L, d: L.distributions.VonMises(T(L, [0.5, 1.0, -2.0, 3.0], d), T(L, [2.0, 0.3, 10.0, 1e-3], d)),
        [0.1, 2.0, -2.5, -3.0],
    ),
    (
        "ContinuousBernoulli-probs",
        lambda L, d: L.distributions.ContinuousBernoulli(probs=T(L, [0.2, 0.5, 0.7, 0.4995, 0.999, 0.01], d)),
        [0.3, 0.6, 0.9, 0.2, 0.5, 0.05],
    ),
    (
        "ContinuousBernoulli-logits",
        lambda L, d: L.distributions.ContinuousBernoulli(logits=T(L, [-1.0, 0.0, 2.0, 1e-4], d)),
        [0.3, 0.6, 0.9, 0.5],
    ),
    (
        "LowRankMultivariateNormal",
        lambda L, d: L.distributions.LowRankMultivariateNormal(
            T(L, [[0.0, 1, 2], [1, 1, 1]], d), T(L, [[1.0, 0.5], [0.2, -0.3], [0.1, 0.4]], d), T(L, [0.5, 1.0, 2.0], d)
        ),
        [[0.2, 0.3, 0.1], [1.0, 2, 3]],
    ),
]
IDS = [c[0] for c in CASES]
PROPS = ["mean", "mode", "variance", "stddev", "covariance_matrix", "precision_matrix", "scale_tril"]


def _both(fn):
    """fn(torch); then fn(mindtorch) is expected to raise the same class when PyTorch raised."""
    try:
        theirs = fn(torch)
    except Exception as e:
        with pytest.raises(type(e)):
            fn(mt)
        return None, None
    return fn(mt), theirs


@pytest.mark.parametrize("name,make,value", CASES, ids=IDS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_values(name, make, value, dtype):
    tol = dict(rtol=2e-5, atol=2e-6) if dtype == "float32" else dict(rtol=1e-7, atol=1e-9)
    if name == "VonMises":  # PyTorch's log I0 and I1 are polynomial approximations good to ~1e-7
        tol = dict(rtol=1e-6, atol=1e-7)
    ours, theirs = make(mt, dtype), make(torch, dtype)
    assert tuple(ours.batch_shape) == tuple(theirs.batch_shape)
    assert tuple(ours.event_shape) == tuple(theirs.event_shape)
    if name == "GeneralizedPareto" and dtype == "float64":  # PyTorch's isclose against a float32 zero fails here
        theirs32 = make(torch, "float32")
        assert_same(
            ours.log_prob(T(mt, value, dtype)),
            theirs32.log_prob(T(torch, value, "float32")),
            rtol=2e-5,
            check_dtype=False,
        )
    else:
        assert_same(ours.log_prob(T(mt, value, dtype)), theirs.log_prob(T(torch, value, dtype)), **tol)
    for prop in PROPS:
        a, b = _both(lambda L, p=prop: getattr(ours if L is mt else theirs, p))
        if b is not None:
            assert_same(a, b, **tol)
    a, b = _both(lambda L: (ours if L is mt else theirs).entropy())
    if b is not None:
        assert_same(a, b, **tol)
    q = [0.2, 0.5, 0.9, 0.3, 0.6, 0.99][: len(value)] if not name.startswith("LowRank") else None
    if name == "GeneralizedPareto" and dtype == "float64":
        theirs = make(torch, "float32")  # as above: PyTorch's float64 survival function fails
        tol = dict(rtol=2e-5, atol=2e-6, check_dtype=False)
    if q is not None:
        for method, arg in (("cdf", value), ("icdf", q)):
            a, b = _both(lambda L, m=method, v=arg: getattr(ours if L is mt else theirs, m)(T(L, v, dtype)))
            if b is not None:
                assert_same(a, b, **tol)


@pytest.mark.parametrize("name,make,value", CASES, ids=IDS)
def test_log_prob_gradients(name, make, value):
    dtype = "float32" if name == "GeneralizedPareto" else "float64"

    def grads(L):
        d = make(L, dtype)
        leaves = [getattr(d, n) for n in sorted(type(d).arg_constraints) if n in vars(d)]
        leaves = [p for p in leaves if p.is_leaf]
        for p in leaves:
            p.requires_grad_(True)
        v = T(L, value, dtype).requires_grad_(True)
        d.log_prob(v).sum().backward()
        return [v.grad] + [p.grad for p in leaves]

    for a, b in zip(grads(mt), grads(torch)):
        assert_same(a, b, rtol=1e-6 if dtype == "float64" else 1e-4, atol=1e-8 if dtype == "float64" else 1e-5)


@pytest.mark.parametrize("name,make,value", CASES, ids=IDS)
def test_sample_shapes_and_expand(name, make, value):
    ours, theirs = make(mt, "float32"), make(torch, "float32")
    assert tuple(ours.sample((5, 2)).shape) == tuple(theirs.sample((5, 2)).shape)
    if theirs.has_rsample:
        assert ours.has_rsample and tuple(ours.rsample((3,)).shape) == tuple(theirs.rsample((3,)).shape)
    batch = (2,) + tuple(theirs.batch_shape)
    e_ours, e_theirs = ours.expand(batch), theirs.expand(batch)
    v = np.broadcast_to(np.asarray(value, dtype=np.float32), batch + tuple(theirs.event_shape))
    assert_same(e_ours.log_prob(T(mt, v, "float32")), e_theirs.log_prob(T(torch, v, "float32")), rtol=2e-5, atol=2e-6)


def test_sample_statistics():
    mt.manual_seed(0)
    n = 40000
    km = mt.distributions.Kumaraswamy(T(mt, [0.5, 2.0]), T(mt, [1.5, 0.7])).sample((n,))
    np.testing.assert_allclose(
        km.mean(0).numpy(),
        torch.distributions.Kumaraswamy(T(torch, [0.5, 2.0]), T(torch, [1.5, 0.7])).mean.numpy(),
        atol=0.01,
    )
    gp = mt.distributions.GeneralizedPareto(T(mt, [0.0, 1.0]), T(mt, [1.0, 2.0]), T(mt, [0.0, -0.3]))
    np.testing.assert_allclose(gp.sample((n,)).mean(0).numpy(), gp.mean.numpy(), rtol=0.03)
    cb = mt.distributions.ContinuousBernoulli(probs=T(mt, [0.2, 0.5, 0.9]))
    np.testing.assert_allclose(cb.sample((n,)).mean(0).numpy(), cb.mean.numpy(), atol=0.01)
    loc, k = [0.5, -2.5, 3.0], [2.0, 10.0, 1e-3]
    vm = mt.distributions.VonMises(T(mt, loc), T(mt, k)).sample((n,))
    assert float(vm.abs().max()) <= math.pi
    resultant = np.abs(np.exp(1j * vm.numpy()).mean(0))
    expected = 1 - torch.distributions.VonMises(T(torch, loc), T(torch, k)).variance.numpy()
    np.testing.assert_allclose(resultant, expected, atol=0.015)
    circ_mean = np.angle(np.exp(1j * vm.numpy()).mean(0))
    np.testing.assert_allclose(circ_mean[:2], loc[:2], atol=0.03)
    lr = mt.distributions.LowRankMultivariateNormal(
        T(mt, [0.0, 1, 2]), T(mt, [[1.0, 0.5], [0.2, -0.3], [0.1, 0.4]]), T(mt, [0.5, 1.0, 2.0])
    )
    s = lr.rsample((n,)).numpy()
    np.testing.assert_allclose(np.cov(s.T), lr.covariance_matrix.numpy(), atol=0.06)


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.distributions.LowRankMultivariateNormal(L.tensor(0.0), L.ones(3, 1), L.ones(3)),
        lambda L: L.distributions.LowRankMultivariateNormal(L.zeros(3), L.ones(3), L.ones(3)),
        lambda L: L.distributions.LowRankMultivariateNormal(L.zeros(3), L.ones(2, 1), L.ones(3)),
        lambda L: L.distributions.LowRankMultivariateNormal(L.zeros(3), L.ones(3, 1), L.ones(2)),
        lambda L: L.distributions.LowRankMultivariateNormal(L.zeros(2, 3), L.ones(4, 3, 1), L.ones(3)),
        lambda L: L.distributions.ContinuousBernoulli(),
        lambda L: L.distributions.Kumaraswamy(L.tensor([-1.0]), L.tensor([1.0]), validate_args=True),
        lambda L: L.distributions.VonMises(L.tensor([0.0]), L.tensor([-1.0]), validate_args=True),
        lambda L: L.distributions.GeneralizedPareto(0.0, -1.0, 0.5, validate_args=True),
        lambda L: L.distributions.VonMises(L.tensor([0.0]), L.tensor([1.0])).entropy(),
    ],
)
def test_argument_errors(call):
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value)):
        call(mt)


# --- transforms ------------------------------------------------------------------------------------
def _check_transform(make, x, tol=1e-10):
    a, b = make(mt), make(torch)
    ya, yb = a(T(mt, x)), b(T(torch, x))
    assert_same(ya, yb, rtol=tol, atol=tol)
    assert_same(a.inv(ya), b.inv(yb), rtol=1e-8, atol=1e-8)
    try:
        ldj = b.log_abs_det_jacobian(T(torch, x), yb)
    except NotImplementedError:
        return a, b
    assert_same(a.log_abs_det_jacobian(T(mt, x), ya), ldj, rtol=1e-8, atol=1e-8)
    return a, b


@pytest.mark.parametrize("shape", [(6,), (2, 3), (4, 10), (1,)])
def test_corr_cholesky_transform(shape):
    x = R.standard_normal(shape)
    a, b = _check_transform(lambda L: L.distributions.CorrCholeskyTransform(), x)
    assert tuple(a.forward_shape(shape)) == tuple(b.forward_shape(shape))
    y = a(T(mt, x))
    assert tuple(a.inverse_shape(tuple(y.shape))) == tuple(b.inverse_shape(tuple(y.shape)))
    assert bool(mt.distributions.constraints.corr_cholesky.check(y).all())
    xg = T(mt, x).requires_grad_(True)
    a.log_abs_det_jacobian(xg, a(xg)).sum().backward()
    xt = T(torch, x).requires_grad_(True)
    b.log_abs_det_jacobian(xt, b(xt)).sum().backward()
    assert_same(xg.grad, xt.grad, rtol=1e-8, atol=1e-10)
    with pytest.raises(ValueError):
        a.forward_shape((5,))


@pytest.mark.parametrize("name", ["LowerCholeskyTransform", "PositiveDefiniteTransform"])
def test_matrix_transforms(name):
    x = R.standard_normal((2, 3, 3))
    a, b = _check_transform(lambda L: getattr(L.distributions, name)(), x)
    assert a == getattr(mt.distributions, name)() and a.codomain.check(a(T(mt, x))).all()


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cat_and_stack_transforms(dim):
    def cat(L):
        D = L.distributions
        return D.CatTransform([D.ExpTransform(), D.SigmoidTransform(), D.AffineTransform(1.0, 2.0)], dim, [2, 1, 2])

    x = R.random((5, 5))
    _check_transform(cat, x)

    def stack(L):
        D = L.distributions
        return D.StackTransform(
            [D.ExpTransform(), D.SigmoidTransform(), D.TanhTransform(), D.ExpTransform(), D.SoftplusTransform()], dim
        )

    _check_transform(stack, x)
    assert bool(cat(mt).codomain.check(cat(mt)(T(mt, x))).all())

    def ind(L):
        D = L.distributions
        return D.CatTransform(
            [D.IndependentTransform(D.ExpTransform(), 1), D.IndependentTransform(D.SigmoidTransform(), 1)], 0, [2, 3]
        )

    _check_transform(ind, R.random((5, 4)))


def test_cumulative_distribution_transform():
    def make(L):
        return L.distributions.CumulativeDistributionTransform(
            L.distributions.Normal(T(L, [0.0, 1.0]), T(L, [1.0, 2.0]))
        )

    a, b = _check_transform(make, [0.3, -1.0])
    assert a.codomain is mt.distributions.constraints.unit_interval and a.bijective
    td = mt.distributions.TransformedDistribution(mt.distributions.Normal(T(mt, 0.0), T(mt, 1.0)), [make(mt)])
    tt = torch.distributions.TransformedDistribution(
        torch.distributions.Normal(T(torch, 0.0), T(torch, 1.0)), [make(torch)]
    )
    assert_same(td.log_prob(T(mt, [0.2, 0.7])), tt.log_prob(T(torch, [0.2, 0.7])), rtol=1e-8)


# --- LKJCholesky and Wishart -----------------------------------------------------------------------
@pytest.mark.parametrize("dim", [2, 3, 5])
@pytest.mark.parametrize("conc", [[0.5, 1.0, 3.0], 2.0])
def test_lkj_cholesky(dim, conc):
    ours = mt.distributions.LKJCholesky(dim, T(mt, conc))
    theirs = torch.distributions.LKJCholesky(dim, T(torch, conc))
    assert tuple(ours.batch_shape) == tuple(theirs.batch_shape) and tuple(ours.event_shape) == tuple(theirs.event_shape)
    values = theirs.sample((4,))
    assert_same(ours.log_prob(mt.tensor(values.numpy())), theirs.log_prob(values), rtol=1e-10, atol=1e-10)
    mt.manual_seed(1)
    s = ours.sample((3000,))
    assert tuple(s.shape) == tuple(theirs.sample((3000,)).shape)
    assert bool(mt.distributions.constraints.corr_cholesky.check(s).all())
    # E[C_12] = 0 and Var[C_12] = 1 / (2 conc + dim - 1) for the correlations of an LKJ matrix
    corr = (s @ s.mT)[..., 0, 1].numpy()
    conc_arr = np.broadcast_to(np.asarray(conc, dtype=np.float64), tuple(theirs.batch_shape))
    np.testing.assert_allclose(corr.mean(0), 0.0, atol=0.06)
    np.testing.assert_allclose(corr.var(0), 1 / (2 * conc_arr + dim - 1), rtol=0.12)
    c = T(mt, conc).requires_grad_(True)
    mt.distributions.LKJCholesky(dim, c).log_prob(mt.tensor(values.numpy())).sum().backward()
    ct = T(torch, conc).requires_grad_(True)
    torch.distributions.LKJCholesky(dim, ct).log_prob(values).sum().backward()
    assert_same(c.grad, ct.grad, rtol=1e-8, atol=1e-10)


def _spd(batch, p):
    m = R.standard_normal(batch + (p, p))
    return m @ np.swapaxes(m, -1, -2) + p * np.eye(p)


@pytest.mark.parametrize("param", ["covariance_matrix", "precision_matrix", "scale_tril"])
@pytest.mark.parametrize("df", [[4.0, 6.5], 3.5])
def test_wishart(param, df):
    S = _spd((2,), 3)
    given = np.linalg.cholesky(S) if param == "scale_tril" else S
    ours = mt.distributions.Wishart(T(mt, df), **{param: T(mt, given)})
    theirs = torch.distributions.Wishart(T(torch, df), **{param: T(torch, given)})
    values = theirs.sample((3,))
    assert_same(ours.log_prob(mt.tensor(values.numpy())), theirs.log_prob(values), rtol=1e-9, atol=1e-9)
    for prop in ("mean", "mode", "variance", "covariance_matrix", "precision_matrix", "scale_tril"):
        assert_same(getattr(ours, prop), getattr(theirs, prop), rtol=1e-9, atol=1e-9)
    assert_same(ours.entropy(), theirs.entropy(), rtol=1e-9, atol=1e-9)
    mt.manual_seed(2)
    s = ours.rsample((4000,))
    assert tuple(s.shape[1:]) == tuple(theirs.rsample((2,)).shape[1:]) and s.shape[0] == 4000
    # within five standard errors of the mean (the entries' variances are known)
    bound = 5 * np.sqrt(ours.variance.numpy() / s.shape[0])
    assert (np.abs(s.mean(0).numpy() - ours.mean.numpy()) < bound).all()
    d = T(mt, df).requires_grad_(True)
    g = T(mt, given).requires_grad_(True)
    mt.distributions.Wishart(d, **{param: g}).log_prob(mt.tensor(values.numpy())).sum().backward()
    dt, gt = T(torch, df).requires_grad_(True), T(torch, given).requires_grad_(True)
    torch.distributions.Wishart(dt, **{param: gt}).log_prob(values).sum().backward()
    assert_same(d.grad, dt.grad, rtol=1e-8, atol=1e-9)
    assert_same(g.grad, gt.grad, rtol=1e-8, atol=1e-9)


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.distributions.LKJCholesky(1),
        lambda L: L.distributions.Wishart(L.tensor(1.0), L.eye(3)),
        lambda L: L.distributions.Wishart(L.tensor(4.0)),
        lambda L: L.distributions.Wishart(L.tensor(4.0), L.eye(3), scale_tril=L.eye(3)),
        lambda L: L.distributions.Wishart(L.tensor(4.0), L.ones(3)),
    ],
)
def test_lkj_wishart_errors(call):
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value)) as ours:
        call(mt)
    assert str(ours.value) == str(theirs.value)


def test_constraint_registry():
    C, Ct = mt.distributions.constraints, torch.distributions.constraints
    pairs = [
        (C.corr_cholesky, Ct.corr_cholesky),
        (C.lower_cholesky, Ct.lower_cholesky),
        (C.positive_definite, Ct.positive_definite),
        (C.positive_semidefinite, Ct.positive_semidefinite),
        (C.cat([C.real, C.positive], 0, [1, 1]), Ct.cat([Ct.real, Ct.positive], 0, [1, 1])),
        (C.stack([C.real, C.positive]), Ct.stack([Ct.real, Ct.positive])),
    ]
    for ours, theirs in pairs:
        for name in ("biject_to", "transform_to"):
            try:
                expected = type(getattr(torch.distributions, name)(theirs)).__name__
            except NotImplementedError:
                with pytest.raises(NotImplementedError):
                    getattr(mt.distributions, name)(ours)
                continue
            assert type(getattr(mt.distributions, name)(ours)).__name__ == expected
