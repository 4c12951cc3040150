"""The Laplace distribution."""

import mindtorch

from ._bases import LocScale

__all__ = ["Laplace"]


class Laplace(LocScale):
    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        return (2**0.5) * self.scale

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
