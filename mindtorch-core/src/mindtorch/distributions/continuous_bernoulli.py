"""The continuous Bernoulli distribution on [0, 1]: density C(p) p^x (1 - p)^(1 - x). Near p = 1/2 its
closed forms are 0/0, so inside `lims` they give way to Taylor expansions around 1/2."""

import math

import mindtorch
import mindtorch.nn.functional as F

from . import constraints
from ._bases import BinaryParams, _expand_into
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(BinaryParams, ExponentialFamily):
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        self._set_binary(probs, logits)
        self._lims = lims
        super().__init__(self._param.shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        name = "probs" if "probs" in self.__dict__ else "logits"
        new = _expand_into(self, batch_shape, (name,))
        new._param, new._lims = getattr(new, name), self._lims
        return new

    def _outside(self):
        p = self.probs
        return (p <= self._lims[0]) | (p >= self._lims[1])

    def _cut(self):
        """probs outside the unstable region; a harmless stand-in inside it (the Taylor branch is used)."""
        return mindtorch.where(self._outside(), self.probs, mindtorch.full_like(self.probs, self._lims[0]))

    def _near_half(self):
        d = self.probs - 0.5
        return d, d * d

    def _log_normalizer_of_probs(self):
        """log C(p) = log |log(1 - p) - log p| - log |1 - 2p|."""
        p = self._cut()
        exact = ((-p).log1p() - p.log()).abs().log() - (1 - 2 * p).abs().log()
        _, x = self._near_half()
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return mindtorch.where(self._outside(), exact, taylor)

    @property
    def mean(self):
        p = self._cut()
        exact = p / (2 * p - 1) + 1 / ((-p).log1p() - p.log())
        d, x = self._near_half()
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x) * d
        return mindtorch.where(self._outside(), exact, taylor)

    @property
    def variance(self):
        p = self._cut()
        exact = p * (p - 1) / (1 - 2 * p).pow(2) + 1 / ((-p).log1p() - p.log()).pow(2)
        _, x = self._near_half()
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return mindtorch.where(self._outside(), exact, taylor)

    @property
    def stddev(self):
        return self.variance.sqrt()

    @property
    def param_shape(self):
        return self._param.shape

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        u = mindtorch.rand(shape, dtype=self.probs.dtype, device=self.probs.device)
        return self.icdf(u)

    def sample(self, sample_shape=()):
        with mindtorch.no_grad():
            return self.rsample(sample_shape)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -F.binary_cross_entropy_with_logits(logits, value, reduction="none") + self._log_normalizer_of_probs()

    def cdf(self, value):
        p = self._cut()
        exact = (p.pow(value) * (1 - p).pow(1 - value) + p - 1) / (2 * p - 1)
        out = mindtorch.where(self._outside(), exact, value)
        return mindtorch.where(
            value <= 0, mindtorch.zeros_like(out), mindtorch.where(value >= 1, mindtorch.ones_like(out), out)
        )

    def icdf(self, value):
        p = self._cut()
        exact = ((-p + value * (2 * p - 1)).log1p() - (-p).log1p()) / (p.log() - (-p).log1p())
        return mindtorch.where(self._outside(), exact, value)

    def entropy(self):
        log_q, log_p = (-self.probs).log1p(), self.probs.log()
        return self.mean * (log_q - log_p) - self._log_normalizer_of_probs() - log_q
