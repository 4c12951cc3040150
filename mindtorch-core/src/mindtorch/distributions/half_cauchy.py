"""The half-Cauchy distribution: |X| for a Cauchy X centred at zero."""

import math

import mindtorch

from ._bases import _Folded
from .cauchy import Cauchy
from .transforms import AbsTransform

__all__ = ["HalfCauchy"]


class HalfCauchy(_Folded):
    def __init__(self, scale, validate_args=None):
        super().__init__(Cauchy(0, scale, validate_args=False), AbsTransform(), validate_args=validate_args)

    mean = property(lambda self: mindtorch.full_like(self.scale, math.inf))
    variance = property(lambda self: mindtorch.full_like(self.scale, math.inf))
