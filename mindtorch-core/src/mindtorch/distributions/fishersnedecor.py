"""The Fisher-Snedecor (F) distribution."""

import math

import mindtorch

from . import constraints
from ._bases import _expand_into
from .distribution import Distribution
from .gamma import _rsample_gamma
from .utils import broadcast_all

__all__ = ["FisherSnedecor"]


class FisherSnedecor(Distribution):
    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1, df2, validate_args=None):
        self.df1, self.df2 = broadcast_all(df1, df2)
        super().__init__(self.df1.shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_into(self, batch_shape, ("df1", "df2"))

    @property
    def mean(self):
        d2 = self.df2.clone()
        d2 = mindtorch.where(d2 <= 2, mindtorch.full_like(d2, math.nan), d2)
        return d2 / (d2 - 2)

    @property
    def mode(self):
        m = (self.df1 - 2) / self.df1 * self.df2 / (self.df2 + 2)
        return mindtorch.where(self.df1 <= 2, mindtorch.full_like(m, math.nan), m)

    @property
    def variance(self):
        d1, d2 = self.df1, self.df2.clone()
        d2 = mindtorch.where(d2 <= 4, mindtorch.full_like(d2, math.nan), d2)
        return 2 * d2.pow(2) * (d1 + d2 - 2) / (d1 * (d2 - 2).pow(2) * (d2 - 4))

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        x1 = _rsample_gamma(0.5 * self.df1.expand(shape)) / self.df1
        x2 = _rsample_gamma(0.5 * self.df2.expand(shape)) / self.df2
        return x1 / x2

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        ct1, ct2 = self.df1 * 0.5, self.df2 * 0.5
        ct3 = self.df1 / self.df2
        t1 = (ct1 + ct2).lgamma() - ct1.lgamma() - ct2.lgamma()
        t2 = ct1 * ct3.log() + (ct1 - 1) * value.log()
        t3 = (ct1 + ct2) * (ct3 * value).log1p()
        return t1 + t2 - t3
