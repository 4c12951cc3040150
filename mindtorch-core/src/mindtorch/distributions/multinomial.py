"""The multinomial distribution."""

import math

import mindtorch

from . import constraints
from .binomial import Binomial
from .categorical import Categorical
from .distribution import Distribution

__all__ = ["Multinomial"]


class Multinomial(Distribution):
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.independent(constraints.real, 1)}

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self._categorical.probs)
        batch = self._categorical.batch_shape
        super().__init__(batch, self._categorical.param_shape[-1:], validate_args=validate_args)

    @property
    def support(self):
        return constraints.multinomial(self.total_count)

    probs = property(lambda self: self._categorical.probs)
    logits = property(lambda self: self._categorical.logits)
    mean = property(lambda self: self.probs * self.total_count)
    variance = property(lambda self: self.total_count * self.probs * (1 - self.probs))

    def sample(self, sample_shape=()):
        shape = mindtorch.Size(tuple(sample_shape))
        with mindtorch.no_grad():
            draws = self._categorical.sample((self.total_count,) + tuple(shape))  # (n, *sample, *batch)
            counts = mindtorch.zeros(
                tuple(shape) + tuple(self._batch_shape) + tuple(self._event_shape),
                dtype=self.probs.dtype,
                device=self.probs.device,
            )
            return counts.scatter_add_(
                -1, draws.movedim(0, -1), mindtorch.ones_like(draws.movedim(0, -1), dtype=self.probs.dtype)
            )

    def entropy(self):
        """n H(categorical) - log n! + sum_k E[log X_k!], X_k ~ Binomial(n, p_k) (by enumerating 0..n)."""
        n = self.total_count
        support = mindtorch.arange(n + 1, dtype=self.probs.dtype, device=self.probs.device)
        support = support.reshape((-1,) + (1,) * self.probs.dim())
        logp = self._binomial.log_prob(support)
        expected = (logp.exp() * mindtorch.lgamma(support + 1)).sum([0, -1])
        return n * self._categorical.entropy() - math.lgamma(n + 1) + expected

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits = self.logits.clone()
        logits = mindtorch.where((value == 0) & (logits == -math.inf), mindtorch.zeros_like(logits), logits)
        log_factorial_n = mindtorch.lgamma(value.sum(-1) + 1)
        log_factorial_xs = mindtorch.lgamma(value + 1).sum(-1)
        return log_factorial_n - log_factorial_xs + (logits * value).sum(-1)
