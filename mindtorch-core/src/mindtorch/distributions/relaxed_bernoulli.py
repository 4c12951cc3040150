"""The relaxed (Concrete) Bernoulli distribution, for reparameterized gradient estimates."""

import math

import mindtorch
from mindtorch.nn import functional as F

from . import constraints
from ._bases import BinaryParams
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import SigmoidTransform

__all__ = ["RelaxedBernoulli"]


class _LogitRelaxedBernoulli(BinaryParams, Distribution):
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self.temperature = temperature
        self._set_binary(probs, logits)
        super().__init__(self._param.shape, validate_args=validate_args)

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        finfo = mindtorch.finfo(self.logits.dtype)
        u = mindtorch.rand(shape, dtype=self.logits.dtype, device=self.logits.device).clamp(
            min=finfo.tiny, max=1 - finfo.eps
        )
        return (u.log() - (-u).log1p() + self.logits) / self.temperature

    def log_prob(self, value):
        diff = self.logits - value * self.temperature
        return (
            math.log(self.temperature) + diff - 2 * F.softplus(diff)
            if isinstance(self.temperature, float)
            else self.temperature.log() + diff - 2 * F.softplus(diff)
        )


class RelaxedBernoulli(TransformedDistribution):
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base = _LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(base, SigmoidTransform(), validate_args=validate_args)

    temperature = property(lambda self: self.base_dist.temperature)
    logits = property(lambda self: self.base_dist.logits)
    probs = property(lambda self: self.base_dist.probs)
