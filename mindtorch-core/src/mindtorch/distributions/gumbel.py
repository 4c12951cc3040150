"""The Gumbel distribution."""

import math

import mindtorch

from ._bases import LocScale
from .utils import EULER

__all__ = ["Gumbel"]


class Gumbel(LocScale):
    mean = property(lambda self: self.loc + self.scale * EULER)
    mode = property(lambda self: self.loc)
    stddev = property(lambda self: (math.pi / math.sqrt(6)) * self.scale)
    variance = property(lambda self: self.stddev.pow(2))

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        finfo = mindtorch.finfo(self.loc.dtype)
        u = mindtorch.rand(shape, dtype=self.loc.dtype, device=self.loc.device).clamp(min=finfo.tiny, max=1 - finfo.eps)
        return self.loc - self.scale * (-u.log()).log()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        return -(z + (-z).exp()) - self.scale.log()

    def cdf(self, value):
        return (-(-(value - self.loc) / self.scale).exp()).exp()

    def icdf(self, value):
        return self.loc - self.scale * (-value.log()).log()

    def entropy(self):
        return self.scale.log() + (1 + EULER)
