"""The exponential-family base class."""

from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """Base class of the exponential-family distributions (a marker, as in torch.distributions)."""
