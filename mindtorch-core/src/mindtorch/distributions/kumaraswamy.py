"""The Kumaraswamy distribution on (0, 1): (1 - U^(1/b))^(1/a) of a uniform U, as a transformed
uniform distribution."""

import mindtorch

from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform
from .uniform import Uniform
from .utils import EULER, broadcast_all

__all__ = ["Kumaraswamy"]


def _moment(a, b, n):
    """E[X^n] = b B(1 + n/a, b)."""
    s = 1 + n / a
    return (b.log() + mindtorch.lgamma(s) + mindtorch.lgamma(b) - mindtorch.lgamma(s + b)).exp()


class Kumaraswamy(TransformedDistribution):
    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        a, b = self.concentration1, self.concentration0
        base = Uniform(mindtorch.zeros_like(a), mindtorch.ones_like(a), validate_args=validate_args)
        transforms = [PowerTransform(b.reciprocal()), AffineTransform(1.0, -1.0), PowerTransform(a.reciprocal())]
        super().__init__(base, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        shape = tuple(batch_shape)
        return Kumaraswamy(
            self.concentration1.expand(shape), self.concentration0.expand(shape), validate_args=self._validate_args
        )

    @property
    def mean(self):
        return _moment(self.concentration1, self.concentration0, 1)

    @property
    def mode(self):
        # PyTorch's expression, kept for parity: exp(log1p(-b) / b - log1p(-a b)), NaN where a < 1 or b < 1
        a, b = self.concentration1, self.concentration0
        log_mode = b.reciprocal() * (-b).log1p() - (-b * a).log1p()
        return mindtorch.where((b < 1) | (a < 1), mindtorch.full_like(log_mode, float("nan")), log_mode).exp()

    @property
    def variance(self):
        a, b = self.concentration1, self.concentration0
        return _moment(a, b, 2) - _moment(a, b, 1).pow(2)

    def entropy(self):
        a, b = self.concentration1, self.concentration0
        harmonic_b = mindtorch.digamma(b + 1) + EULER
        return (1 - 1 / b) + (1 - 1 / a) * harmonic_b - (a * b).log()
