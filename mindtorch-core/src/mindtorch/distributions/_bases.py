"""Base classes shared by several distributions that PyTorch has no counterpart for: the probs / logits
pair of two-outcome distributions, the location-scale family, the folded |X| of a symmetric X, and the
copy with its parameters expanded that their expand() builds."""

import math

import mindtorch

from . import constraints
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .utils import _as, broadcast_all, lazy_property, logits_to_probs, probs_to_logits


class BinaryParams:
    """probs and logits of a two-outcome parameter (Bernoulli, Binomial, Geometric, ...), each computed
    from the other on first use."""

    def _set_binary(self, probs, logits, *others):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        name, value = ("probs", probs) if probs is not None else ("logits", logits)
        values = broadcast_all(value, *others)
        setattr(self, name, values[0])
        self._param = values[0]
        return values[1:]

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)


def _expand_into(self, batch_shape, names):
    """A copy of `self` with the parameters `names` expanded to batch_shape (views, no data copied)."""
    new = type(self).__new__(type(self))
    for n in names:
        setattr(new, n, getattr(self, n).expand(tuple(batch_shape)))
    Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
    new._validate_args = self._validate_args
    return new


class LocScale(Distribution):
    """A real-valued location-scale family: loc and scale broadcast together, expand views both."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_into(self, batch_shape, ("loc", "scale"))

    # the location is the mode of every family here and the mean of the symmetric ones (Cauchy's and
    # Gumbel's means override it)
    mean = property(lambda self: self.loc)
    mode = property(lambda self: self.loc)


class _Folded(TransformedDistribution):
    """|X| for X symmetric about zero: twice the density on [0, inf), cdf 2F - 1, entropy less log 2."""

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    scale = property(lambda self: self.base_dist.scale)
    mode = property(lambda self: mindtorch.zeros_like(self.scale))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = _as(value, self.scale)
        lp = self.base_dist.log_prob(value) + math.log(2)
        return mindtorch.where(value >= 0, lp, mindtorch.full_like(lp, -math.inf))

    def cdf(self, value):
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)
