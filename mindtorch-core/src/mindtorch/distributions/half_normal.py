"""The half-normal distribution: |X| for a normal X centred at zero."""

import math

from ._bases import _Folded
from .normal import Normal
from .transforms import AbsTransform

__all__ = ["HalfNormal"]


class HalfNormal(_Folded):
    def __init__(self, scale, validate_args=None):
        super().__init__(Normal(0, scale, validate_args=False), AbsTransform(), validate_args=validate_args)

    mean = property(lambda self: self.scale * math.sqrt(2 / math.pi))
    variance = property(lambda self: self.scale.pow(2) * (1 - 2 / math.pi))
