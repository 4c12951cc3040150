"""The inverse-gamma distribution."""

import math

import mindtorch

from . import constraints
from ._bases import _expand_into
from .distribution import Distribution
from .gamma import _rsample_gamma
from .utils import broadcast_all

__all__ = ["InverseGamma"]


class InverseGamma(Distribution):
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        super().__init__(self.concentration.shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_into(self, batch_shape, ("concentration", "rate"))

    @property
    def mean(self):
        m = self.rate / (self.concentration - 1)
        return mindtorch.where(self.concentration <= 1, mindtorch.full_like(m, math.inf), m)

    mode = property(lambda self: self.rate / (self.concentration + 1))

    @property
    def variance(self):
        a = self.concentration
        v = self.rate.pow(2) / ((a - 1).pow(2) * (a - 2))
        return mindtorch.where(a <= 2, mindtorch.full_like(v, math.inf), v)

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        return self.rate.expand(shape) / _rsample_gamma(self.concentration.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        a, b = self.concentration, self.rate
        return a * b.log() - mindtorch.lgamma(a) - (a + 1) * value.log() - b / value

    def cdf(self, value):
        return mindtorch.special.gammaincc(self.concentration, self.rate / value)

    def entropy(self):
        a = self.concentration
        return a + self.rate.log() + mindtorch.lgamma(a) - (1 + a) * mindtorch.digamma(a)
