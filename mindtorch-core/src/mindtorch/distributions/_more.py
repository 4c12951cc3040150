"""Exponential, Laplace, Gamma, Beta, Dirichlet, MultivariateNormal and Independent."""
import math

import mindtorch

from . import constraints
from .distribution import Distribution, LocScale, broadcast_all

__all__ = ["Exponential", "Laplace", "Gamma", "Beta", "Dirichlet", "MultivariateNormal", "Independent"]


class Exponential(Distribution):
    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        super().__init__(self.rate.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.rate.reciprocal()

    @property
    def mode(self):
        return mindtorch.zeros_like(self.rate)

    @property
    def stddev(self):
        return self.rate.reciprocal()

    @property
    def variance(self):
        return self.rate.pow(-2)

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        return mindtorch.empty(shape, dtype=self.rate.dtype, device=self.rate.device).exponential_() / self.rate

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        return 1 - mindtorch.exp(-self.rate * value)

    def icdf(self, value):
        return -mindtorch.log1p(-value) / self.rate

    def entropy(self):
        return 1.0 - mindtorch.log(self.rate)


class Laplace(LocScale):

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        return (2 ** 0.5) * self.scale

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        finfo = mindtorch.finfo(self.loc.dtype)
        u = mindtorch.rand(shape, dtype=self.loc.dtype, device=self.loc.device) * 2 - 1
        u = u.clamp(min=finfo.eps - 1, max=1)
        return self.loc - self.scale * u.sign() * mindtorch.log1p(-u.abs())

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -mindtorch.log(2 * self.scale) - mindtorch.abs(value - self.loc) / self.scale

    def cdf(self, value):
        return 0.5 - 0.5 * (value - self.loc).sign() * mindtorch.expm1(-(value - self.loc).abs() / self.scale)

    def icdf(self, value):
        term = value - 0.5
        return self.loc - self.scale * term.sign() * mindtorch.log1p(-2 * term.abs())

    def entropy(self):
        return 1 + mindtorch.log(2 * self.scale)


def _standard_gamma(alpha):
    """Gamma(alpha, 1) draws (Marsaglia and Tsang), vectorised with redraws until every lane accepts."""
    boost = alpha < 1  # Gamma(a) = Gamma(a + 1) * U^(1/a)
    a = mindtorch.where(boost, alpha + 1, alpha)
    d = a - 1.0 / 3
    c = 1.0 / mindtorch.sqrt(9 * d)
    out = mindtorch.zeros_like(alpha)
    todo = mindtorch.ones_like(alpha, dtype=mindtorch.bool)
    for _ in range(64):
        x = mindtorch.randn(tuple(alpha.shape), dtype=alpha.dtype, device=alpha.device)
        v = (1 + c * x) ** 3
        u = mindtorch.rand(tuple(alpha.shape), dtype=alpha.dtype, device=alpha.device)
        ok = (v > 0) & (mindtorch.log(u) < 0.5 * x * x + d - d * v + d * mindtorch.log(v.clamp(min=1e-30)))
        take = todo & ok
        out = mindtorch.where(take, d * v, out)
        todo = todo & ~ok
        if not bool(todo.any()):
            break
    u = mindtorch.rand(tuple(alpha.shape), dtype=alpha.dtype, device=alpha.device)
    out = mindtorch.where(boost, out * u.pow(1 / alpha), out)
    return out.clamp(min=mindtorch.finfo(alpha.dtype).tiny)


class _ReparamGamma(mindtorch.autograd.Function):
    """Gamma(alpha, 1) draws whose gradient in alpha is the implicit one: holding the draw's quantile
    F(x; alpha) fixed, dx/dalpha = -(dF/dalpha) / (dF/dx), with F the regularized incomplete gamma
    function; dF/dx is its density, dF/dalpha a central difference of F in alpha (float64)."""

    @staticmethod
    def forward(ctx, alpha):
        x = _standard_gamma(alpha.detach())
        ctx.save_for_backward(alpha, x)
        return x

    @staticmethod
    def backward(ctx, grad):
        alpha, x = ctx.saved_tensors
        a, xd = alpha.double(), x.double()
        h = 1e-5 * a.clamp(min=1.0)
        dF_da = (mindtorch.igamma(a + h, xd) - mindtorch.igamma((a - h).clamp(min=1e-12), xd)) / (
            h + (a - (a - h).clamp(min=1e-12)))
        log_density = (a - 1) * xd.log() - xd - mindtorch.lgamma(a)
        dx_da = -dF_da / log_density.exp().clamp(min=1e-300)
        return grad * dx_da.to(grad.dtype)


def _rsample_gamma(alpha):
    """Gamma(alpha, 1) draws, differentiable in alpha."""
    if alpha.requires_grad and mindtorch.is_grad_enabled():
        return _ReparamGamma.apply(alpha)
    return _standard_gamma(alpha)


class Gamma(Distribution):
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        super().__init__(self.concentration.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        value = _rsample_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        return value.clamp(min=mindtorch.finfo(value.dtype).tiny)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = mindtorch.as_tensor(value, dtype=self.rate.dtype, device=self.rate.device)
        return (mindtorch.special.xlogy(self.concentration, self.rate) + mindtorch.special.xlogy(
            self.concentration - 1, value) - self.rate * value - mindtorch.lgamma(self.concentration))

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return mindtorch.special.gammainc(self.concentration, self.rate * value)

    def entropy(self):
        return (self.concentration - mindtorch.log(self.rate) + mindtorch.lgamma(self.concentration)
                + (1.0 - self.concentration) * mindtorch.digamma(self.concentration))


class Dirichlet(Distribution):
    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:], validate_args=validate_args)

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def mode(self):
        concm1 = (self.concentration - 1).clamp(min=0.0)
        return concm1 / concm1.sum(-1, keepdim=True)

    @property
    def variance(self):
        con0 = self.concentration.sum(-1, keepdim=True)
        return self.concentration * (con0 - self.concentration) / (con0.pow(2) * (con0 + 1))

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        g = _rsample_gamma(self.concentration.expand(shape))
        return g / g.sum(-1, keepdim=True)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return (mindtorch.special.xlogy(self.concentration - 1.0, value).sum(-1)
                + mindtorch.lgamma(self.concentration.sum(-1)) - mindtorch.lgamma(self.concentration).sum(-1))

    def entropy(self):
        k = self.concentration.size(-1)
        a0 = self.concentration.sum(-1)
        return (mindtorch.lgamma(self.concentration).sum(-1) - mindtorch.lgamma(a0) - (k - a0) * mindtorch.digamma(a0)
                - ((self.concentration - 1.0) * mindtorch.digamma(self.concentration)).sum(-1))


class Beta(Distribution):
    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        c1, c0 = broadcast_all(concentration1, concentration0)
        self._dirichlet = Dirichlet(mindtorch.stack([c1, c0], -1), validate_args=validate_args)
        super().__init__(self._dirichlet.batch_shape, validate_args=validate_args)

    @property
    def concentration1(self):
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self):
        return self._dirichlet.concentration[..., 1]

    @property
    def mean(self):
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self):
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self):
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape=()):
        return self._dirichlet.rsample(sample_shape).select(-1, 0)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self._dirichlet.log_prob(mindtorch.stack([value, 1.0 - value], -1))

    def entropy(self):
        return self._dirichlet.entropy()


class MultivariateNormal(Distribution):
    arg_constraints = {"loc": constraints.real_vector, "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite, "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        if (covariance_matrix is not None) + (scale_tril is not None) + (precision_matrix is not None) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        given = scale_tril if scale_tril is not None else (
            covariance_matrix if covariance_matrix is not None else precision_matrix)
        if given.dim() < 2:
            raise ValueError("scale_tril, covariance_matrix or precision_matrix must be at least two-dimensional, "
                             "with optional leading batch dimensions")
        batch_shape = mindtorch.broadcast_shapes(tuple(given.shape[:-2]), tuple(loc.shape[:-1]))
        n = loc.shape[-1]
        self.loc = loc.expand(tuple(batch_shape) + (n,))
        if scale_tril is not None:
            self.scale_tril = scale_tril.expand(tuple(batch_shape) + (n, n))
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self.covariance_matrix = covariance_matrix.expand(tuple(batch_shape) + (n, n))
            self._unbroadcasted_scale_tril = mindtorch.linalg.cholesky(covariance_matrix)
        else:
            self.precision_matrix = precision_matrix.expand(tuple(batch_shape) + (n, n))
            self._unbroadcasted_scale_tril = mindtorch.linalg.cholesky(mindtorch.linalg.inv(precision_matrix))
        super().__init__(batch_shape, (n,), validate_args=validate_args)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(tuple(self._batch_shape + self._event_shape))

    def __getattr__(self, name):
        # the parametrisations not given are derived on demand, as PyTorch's lazy properties
        L = self.__dict__.get("_unbroadcasted_scale_tril")
        if L is None:
            raise AttributeError(name)
        shape = tuple(self._batch_shape) + tuple(self._event_shape) * 2
        if name == "scale_tril":
            return L.expand(shape)
        if name == "covariance_matrix":
            return mindtorch.matmul(L, L.mT).expand(shape)
        if name == "precision_matrix":
            return mindtorch.linalg.inv(mindtorch.matmul(L, L.mT)).expand(shape)
        raise AttributeError(name)

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        eps = mindtorch.randn(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + mindtorch.matmul(self._unbroadcasted_scale_tril, eps.unsqueeze(-1)).squeeze(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        L = self._unbroadcasted_scale_tril
        batch = mindtorch.broadcast_shapes(tuple(L.shape[:-2]), tuple(diff.shape[:-1]))
        Lb = L.expand(tuple(batch) + tuple(L.shape[-2:]))
        z = mindtorch.linalg.solve(Lb, diff.expand(tuple(batch) + tuple(diff.shape[-1:])).unsqueeze(-1)).squeeze(-1)
        M = z.pow(2).sum(-1)
        half_log_det = L.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + M) - half_log_det

    def entropy(self):
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        H = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + half_log_det
        return H.expand(tuple(self._batch_shape)) if len(self._batch_shape) else H


class Independent(Distribution):
    arg_constraints = {}

    def __init__(self, base_distribution, reinterpreted_batch_ndims, validate_args=None):
        if reinterpreted_batch_ndims > len(base_distribution.batch_shape):
            raise ValueError(f"Expected reinterpreted_batch_ndims <= len(base_distribution.batch_shape), actual "
                             f"{reinterpreted_batch_ndims} vs {len(base_distribution.batch_shape)}")
        shape = tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape)
        event_dim = reinterpreted_batch_ndims + len(base_distribution.event_shape)
        self.base_dist, self.reinterpreted_batch_ndims = base_distribution, reinterpreted_batch_ndims
        super().__init__(shape[:len(shape) - event_dim], shape[len(shape) - event_dim:], validate_args=validate_args)

    @property
    def has_rsample(self):
        return self.base_dist.has_rsample

    @property
    def support(self):
        return constraints.independent(self.base_dist.support, self.reinterpreted_batch_ndims)

    @property
    def mean(self):
        return self.base_dist.mean

    @property
    def mode(self):
        return self.base_dist.mode

    @property
    def variance(self):
        return self.base_dist.variance

    def sample(self, sample_shape=()):
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape=()):
        return self.base_dist.rsample(sample_shape)

    def _sum_rightmost(self, value):
        n = self.reinterpreted_batch_ndims
        return value.reshape(tuple(value.shape[:value.dim() - n]) + (-1,)).sum(-1) if n else value

    def log_prob(self, value):
        return self._sum_rightmost(self.base_dist.log_prob(value))

    def entropy(self):
        return self._sum_rightmost(self.base_dist.entropy())



