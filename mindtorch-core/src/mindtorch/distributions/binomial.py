"""The binomial distribution."""

import mindtorch

from . import constraints
from ._bases import BinaryParams
from .distribution import Distribution
from .utils import _as

__all__ = ["Binomial"]


class Binomial(BinaryParams, Distribution):
    arg_constraints = {
        "total_count": constraints.nonnegative_integer,
        "probs": constraints.unit_interval,
        "logits": constraints.real,
    }
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        (count,) = self._set_binary(probs, logits, total_count)
        self.total_count = count.type_as(self._param)
        super().__init__(self._param.shape, validate_args=validate_args)

    @property
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    def expand(self, batch_shape, _instance=None):
        new = type(self).__new__(type(self))
        new.total_count = self.total_count.expand(tuple(batch_shape))
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(tuple(batch_shape))
            new._param = new.probs
        else:
            new.logits = self.logits.expand(tuple(batch_shape))
            new._param = new.logits
        Distribution.__init__(new, batch_shape, validate_args=False)
        return new

    mean = property(lambda self: self.total_count * self.probs)
    variance = property(lambda self: self.total_count * self.probs * (1 - self.probs))

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    def sample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        with mindtorch.no_grad():
            return mindtorch.binomial(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        n, k = self.total_count, _as(value, self.total_count)
        log_coef = mindtorch.lgamma(n + 1) - mindtorch.lgamma(k + 1) - mindtorch.lgamma(n - k + 1)
        # k log p + (n - k) log(1 - p), in logits: k * logits - n * log(1 + exp(logits)), stable at both ends
        logits = self.logits
        norm = n * mindtorch.clamp(logits, min=0) + n * mindtorch.log1p(mindtorch.exp(-logits.abs()))
        return log_coef + k * logits - norm

    def enumerate_support(self, expand=True):
        n = int(self.total_count.max())
        if not bool((self.total_count == n).all()):
            raise NotImplementedError("Inhomogeneous total count not supported by `enumerate_support`.")
        values = mindtorch.arange(1 + n, dtype=self._param.dtype, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values

    def entropy(self):
        values = self.enumerate_support(expand=False)
        logp = self.log_prob(values)
        return -(logp.exp() * logp).sum(0)
