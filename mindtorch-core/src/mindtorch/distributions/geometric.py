"""The geometric distribution."""

import mindtorch
from mindtorch.nn import functional as F

from . import constraints
from ._bases import BinaryParams
from .distribution import Distribution
from .utils import _as, broadcast_all

__all__ = ["Geometric"]


class Geometric(BinaryParams, Distribution):
    """Number of failures before the first success, with success probability probs."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._set_binary(probs, logits)
        super().__init__(self._param.shape, validate_args=validate_args)

    mean = property(lambda self: 1.0 / self.probs - 1.0)
    mode = property(lambda self: mindtorch.zeros_like(self.probs))
    variance = property(lambda self: (1.0 / self.probs - 1.0) / self.probs)

    def sample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        tiny = mindtorch.finfo(self.probs.dtype).tiny
        with mindtorch.no_grad():
            u = mindtorch.rand(shape, dtype=self.probs.dtype, device=self.probs.device).clamp(min=tiny)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(_as(value, self.probs), self.probs)
        # value * log(1 - p) + log p, with 0 * log(0) = 0 at p = 1
        fail = mindtorch.where((probs == 1) & (value == 0), mindtorch.zeros_like(probs), value * (-probs).log1p())
        return fail + probs.log()

    def entropy(self):
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none") / self.probs
