"""The negative binomial distribution."""

import mindtorch
from mindtorch.nn import functional as F

from . import constraints
from ._bases import BinaryParams
from .distribution import Distribution
from .gamma import _rsample_gamma
from .utils import _as

__all__ = ["NegativeBinomial"]


class NegativeBinomial(BinaryParams, Distribution):
    """Number of successes before total_count failures, success probability probs."""

    arg_constraints = {
        "total_count": constraints.greater_than_eq(0),
        "probs": constraints.half_open_interval(0.0, 1.0),
        "logits": constraints.real,
    }
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        (count,) = self._set_binary(probs, logits, total_count)
        self.total_count = count.type_as(self._param)
        super().__init__(self._param.shape, validate_args=validate_args)

    mean = property(lambda self: self.total_count * self.logits.exp())
    variance = property(lambda self: self.mean / mindtorch.sigmoid(-self.logits))

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    def sample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        with mindtorch.no_grad():
            rate = _rsample_gamma(self.total_count.expand(shape)) * self.logits.exp().expand(shape)
            return mindtorch.poisson(rate)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = _as(value, self.logits)
        unnorm = self.total_count * F.logsigmoid(-self.logits) + value * F.logsigmoid(self.logits)
        norm = (
            -mindtorch.lgamma(self.total_count + value)
            + mindtorch.lgamma(1.0 + value)
            + mindtorch.lgamma(self.total_count)
        )
        norm = mindtorch.where(self.total_count + value == 0, mindtorch.zeros_like(norm), norm)
        return unnorm - norm
