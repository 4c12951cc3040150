"""The Pareto distribution."""

import mindtorch

from . import constraints
from ._bases import _expand_into
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Pareto"]


class Pareto(Distribution):
    arg_constraints = {"scale": constraints.positive, "alpha": constraints.positive}
    has_rsample = True

    def __init__(self, scale, alpha, validate_args=None):
        self.scale, self.alpha = broadcast_all(scale, alpha)
        super().__init__(self.scale.shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_into(self, batch_shape, ("scale", "alpha"))

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.greater_than_eq(self.scale)

    @property
    def mean(self):
        a = self.alpha.clamp(min=1)
        return a * self.scale / (a - 1)

    mode = property(lambda self: self.scale)

    @property
    def variance(self):
        a = self.alpha.clamp(min=2)
        return self.scale.pow(2) * a / ((a - 1).pow(2) * (a - 2))

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        u = mindtorch.rand(shape, dtype=self.scale.dtype, device=self.scale.device)
        return self.scale * (-u).log1p().neg().div(self.alpha).exp()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self.alpha.log() + self.alpha * self.scale.log() - (self.alpha + 1) * value.log()

    def cdf(self, value):
        return 1 - (self.scale / value).pow(self.alpha)

    def icdf(self, value):
        return self.scale * (-value).log1p().neg().div(self.alpha).exp()

    def entropy(self):
        return (self.scale / self.alpha).log() + (1 + 1 / self.alpha)
