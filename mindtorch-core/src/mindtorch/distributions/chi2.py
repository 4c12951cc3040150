"""The chi-squared distribution (a gamma distribution with rate 1/2)."""

import mindtorch

from . import constraints
from .gamma import Gamma

__all__ = ["Chi2"]


class Chi2(Gamma):
    arg_constraints = {"df": constraints.positive}

    def __init__(self, df, validate_args=None):
        super().__init__(
            0.5 * (df if isinstance(df, mindtorch.Tensor) else mindtorch.tensor(float(df))),
            0.5,
            validate_args=validate_args,
        )

    df = property(lambda self: self.concentration * 2)
