"""Student's t distribution."""

import math

import mindtorch

from . import constraints
from ._bases import _expand_into
from .distribution import Distribution
from .gamma import _rsample_gamma
from .utils import broadcast_all

__all__ = ["StudentT"]


class StudentT(Distribution):
    arg_constraints = {"df": constraints.positive, "loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        super().__init__(self.df.shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_into(self, batch_shape, ("df", "loc", "scale"))

    @property
    def mean(self):
        m = self.loc.clone()
        return mindtorch.where(self.df <= 1, mindtorch.full_like(m, math.nan), m)

    mode = property(lambda self: self.loc)

    @property
    def variance(self):
        v = self.scale.pow(2) * self.df / (self.df - 2)
        v = mindtorch.where(self.df <= 2, mindtorch.full_like(v, math.inf), v)
        return mindtorch.where(self.df <= 1, mindtorch.full_like(v, math.nan), v)

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        x = mindtorch.randn(shape, dtype=self.df.dtype, device=self.df.device)
        z = 2 * _rsample_gamma(0.5 * self.df.expand(shape))  # chi-squared with df degrees of freedom
        return self.loc + self.scale * x * mindtorch.rsqrt(z / self.df)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        z = (
            self.scale.log()
            + 0.5 * self.df.log()
            + 0.5 * math.log(math.pi)
            + mindtorch.lgamma(0.5 * self.df)
            - mindtorch.lgamma(0.5 * (self.df + 1.0))
        )
        return -0.5 * (self.df + 1.0) * (y.pow(2) / self.df).log1p() - z

    def entropy(self):
        lbeta = mindtorch.lgamma(0.5 * self.df) + math.lgamma(0.5) - mindtorch.lgamma(0.5 * (self.df + 1))
        return (
            self.scale.log()
            + 0.5 * (self.df + 1) * (mindtorch.digamma(0.5 * (self.df + 1)) - mindtorch.digamma(0.5 * self.df))
            + 0.5 * self.df.log()
            + lbeta
        )
