"""The Cauchy distribution."""

import math

import mindtorch

from ._bases import LocScale

__all__ = ["Cauchy"]


class Cauchy(LocScale):
    mean = property(lambda self: mindtorch.full_like(self.loc, math.nan))
    mode = property(lambda self: self.loc)
    variance = property(lambda self: mindtorch.full_like(self.loc, math.inf))

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        u = mindtorch.rand(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + self.scale * mindtorch.tan(math.pi * (u - 0.5))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -math.log(math.pi) - self.scale.log() - (((value - self.loc) / self.scale) ** 2).log1p()

    def cdf(self, value):
        return mindtorch.atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value):
        return mindtorch.tan(math.pi * (value - 0.5)) * self.scale + self.loc

    def entropy(self):
        return math.log(4 * math.pi) + self.scale.log()
