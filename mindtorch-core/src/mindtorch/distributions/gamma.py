"""The gamma distribution, and the differentiable Gamma(alpha, 1) draws that Chi2, Beta, Dirichlet,
StudentT and the other gamma-based distributions sample through."""

import mindtorch

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Gamma"]


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
            h + (a - (a - h).clamp(min=1e-12))
        )
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
        return (
            mindtorch.special.xlogy(self.concentration, self.rate)
            + mindtorch.special.xlogy(self.concentration - 1, value)
            - self.rate * value
            - mindtorch.lgamma(self.concentration)
        )

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return mindtorch.special.gammainc(self.concentration, self.rate * value)

    def entropy(self):
        return (
            self.concentration
            - mindtorch.log(self.rate)
            + mindtorch.lgamma(self.concentration)
            + (1.0 - self.concentration) * mindtorch.digamma(self.concentration)
        )
