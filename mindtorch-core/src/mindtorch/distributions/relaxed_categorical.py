"""The relaxed (Concrete / Gumbel-softmax) one-hot categorical distribution."""

import mindtorch

from . import constraints
from .categorical import Categorical
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform, IndependentTransform

__all__ = ["RelaxedOneHotCategorical"]


class _ExpRelaxedCategorical(Distribution):
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        self.temperature = temperature
        batch = self._categorical.batch_shape
        super().__init__(batch, self._categorical.param_shape[-1:], validate_args=validate_args)

    logits = property(lambda self: self._categorical.logits)
    probs = property(lambda self: self._categorical.probs)

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        finfo = mindtorch.finfo(self.logits.dtype)
        u = mindtorch.rand(shape, dtype=self.logits.dtype, device=self.logits.device).clamp(
            min=finfo.tiny, max=1 - finfo.eps
        )
        scores = (self.logits - (-u.log()).log()) / self.temperature
        return scores - scores.logsumexp(dim=-1, keepdim=True)

    def log_prob(self, value):
        k = self._categorical._num_events
        t = (
            self.temperature
            if isinstance(self.temperature, mindtorch.Tensor)
            else mindtorch.tensor(float(self.temperature), dtype=self.logits.dtype)
        )
        log_scale = mindtorch.lgamma(mindtorch.tensor(float(k), dtype=self.logits.dtype)) + (k - 1) * t.log()
        score = self.logits - value * t
        score = (score - score.logsumexp(dim=-1, keepdim=True)).sum(-1)
        return score + log_scale


class RelaxedOneHotCategorical(TransformedDistribution):
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base = _ExpRelaxedCategorical(temperature, probs, logits)
        super().__init__(base, IndependentTransform(ExpTransform(), 1), validate_args=validate_args)

    temperature = property(lambda self: self.base_dist.temperature)
    logits = property(lambda self: self.base_dist.logits)
    probs = property(lambda self: self.base_dist.probs)
