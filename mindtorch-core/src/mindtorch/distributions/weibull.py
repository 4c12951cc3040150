"""The Weibull distribution."""

import mindtorch

from . import constraints
from ._bases import _expand_into
from .distribution import Distribution
from .utils import EULER, broadcast_all

__all__ = ["Weibull"]


class Weibull(Distribution):
    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, scale, concentration, validate_args=None):
        self.scale, self.concentration = broadcast_all(scale, concentration)
        super().__init__(self.scale.shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_into(self, batch_shape, ("scale", "concentration"))

    mean = property(lambda self: self.scale * mindtorch.exp(mindtorch.lgamma(1 + 1 / self.concentration)))

    @property
    def mode(self):
        k = self.concentration
        return self.scale * ((k - 1) / k) ** (1 / k)

    @property
    def variance(self):
        k = self.concentration
        return self.scale.pow(2) * (
            mindtorch.exp(mindtorch.lgamma(1 + 2 / k)) - mindtorch.exp(2 * mindtorch.lgamma(1 + 1 / k))
        )

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        u = mindtorch.rand(shape, dtype=self.scale.dtype, device=self.scale.device)
        return self.scale * (-(-u).log1p()).pow(1 / self.concentration)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        k, lam = self.concentration, self.scale
        z = value / lam
        return (k / lam).log() + (k - 1) * z.log() - z.pow(k)

    def cdf(self, value):
        return 1 - (-(value / self.scale).pow(self.concentration)).exp()

    def icdf(self, value):
        return self.scale * (-(-value).log1p()).pow(1 / self.concentration)

    def entropy(self):
        k = self.concentration
        return EULER * (1 - 1 / k) + (self.scale / k).log() + 1
