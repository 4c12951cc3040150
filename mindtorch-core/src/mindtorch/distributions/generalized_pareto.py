"""The generalized Pareto distribution: location, scale and shape (concentration) xi; xi = 0 is the
shifted exponential, xi < 0 has the bounded support [loc, loc - scale / xi]."""

import math

import mindtorch

from . import constraints
from ._bases import _expand_into
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive, "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        super().__init__(self.loc.shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_into(self, batch_shape, ("loc", "scale", "concentration"))

    def _xi(self):
        """(xi close to 0, xi with those replaced by 1 so the divisions stay finite)."""
        xi = self.concentration
        zero = mindtorch.isclose(xi, mindtorch.zeros_like(xi))
        return zero, mindtorch.where(zero, mindtorch.ones_like(xi), xi)

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        xi = self.concentration
        upper = mindtorch.where(xi < 0, self.loc - self.scale / xi, mindtorch.full_like(self.loc, math.inf))
        return constraints.interval(self.loc, upper)

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        u = mindtorch.rand(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.icdf(u)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        zero, safe = self._xi()
        y = 1 / safe + mindtorch.ones_like(z)
        tail = mindtorch.where(y == 0, y, y * (safe * z).log1p())  # xi = -1: the uniform density
        return -self.scale.log() - mindtorch.where(zero, z, tail)

    def log_survival_function(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        zero, safe = self._xi()
        return mindtorch.where(zero, -z, -(safe * z).log1p() / safe)

    def log_cdf(self, value):
        return (-self.log_survival_function(value).exp()).log1p()

    def cdf(self, value):
        return self.log_cdf(value).exp()

    def icdf(self, value):
        zero, safe = self._xi()
        log_u = (-value).log1p()
        return mindtorch.where(
            zero, self.loc - self.scale * log_u, self.loc + self.scale / safe * (-safe * log_u).expm1()
        )

    @property
    def mean(self):
        """loc + scale / (1 - xi), NaN for xi >= 1 (no finite mean)."""
        valid = self.concentration < 1
        safe = mindtorch.where(valid, self.concentration, mindtorch.full_like(self.concentration, 0.5))
        return mindtorch.where(valid, self.loc + self.scale / (1 - safe), mindtorch.full_like(self.loc, math.nan))

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        """scale^2 / ((1 - xi)^2 (1 - 2 xi)), NaN for xi >= 1/2."""
        valid = self.concentration < 0.5
        safe = mindtorch.where(valid, self.concentration, mindtorch.full_like(self.concentration, 0.25))
        var = self.scale.pow(2) / ((1 - safe).pow(2) * (1 - 2 * safe))
        return mindtorch.where(valid, var, mindtorch.full_like(var, math.nan))

    def entropy(self):
        return (self.scale.log() + self.concentration + 1).expand(tuple(self._batch_shape))
