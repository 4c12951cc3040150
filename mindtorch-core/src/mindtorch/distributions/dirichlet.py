"""The Dirichlet distribution."""

import mindtorch

from . import constraints
from .distribution import Distribution
from .gamma import _rsample_gamma

__all__ = ["Dirichlet"]


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
        return (
            mindtorch.special.xlogy(self.concentration - 1.0, value).sum(-1)
            + mindtorch.lgamma(self.concentration.sum(-1))
            - mindtorch.lgamma(self.concentration).sum(-1)
        )

    def entropy(self):
        k = self.concentration.size(-1)
        a0 = self.concentration.sum(-1)
        return (
            mindtorch.lgamma(self.concentration).sum(-1)
            - mindtorch.lgamma(a0)
            - (k - a0) * mindtorch.digamma(a0)
            - ((self.concentration - 1.0) * mindtorch.digamma(self.concentration)).sum(-1)
        )
