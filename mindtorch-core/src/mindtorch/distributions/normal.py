"""The normal (Gaussian) distribution."""

import math

import mindtorch

from ._bases import LocScale
from .utils import LOG_SQRT_2PI

__all__ = ["Normal"]


class Normal(LocScale):
    @property
    def stddev(self):
        return self.scale

    @property
    def variance(self):
        return self.scale.pow(2)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        eps = mindtorch.randn(tuple(shape), dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + eps * self.scale

    def sample(self, sample_shape=()):
        with mindtorch.no_grad():
            return mindtorch.normal(
                self.loc.expand(self._extended_shape(sample_shape)),
                self.scale.expand(self._extended_shape(sample_shape)),
            )

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale**2
        log_scale = math.log(self.scale) if isinstance(self.scale, float) else self.scale.log()
        return -((value - self.loc) ** 2) / (2 * var) - log_scale - LOG_SQRT_2PI

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + mindtorch.erf((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)))

    def icdf(self, value):
        return self.loc + self.scale * mindtorch.erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self):
        return 0.5 + 0.5 * math.log(2 * math.pi) + mindtorch.log(self.scale)
