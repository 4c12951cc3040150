"""TransformedDistribution: a base distribution pushed through transforms (density by change of variables)."""

import mindtorch

from . import constraints
from .distribution import Distribution
from .transforms import ComposeTransform, Transform
from .utils import _sum_rightmost

__all__ = ["TransformedDistribution"]


class TransformedDistribution(Distribution):
    arg_constraints = {}

    def __init__(self, base_distribution, transforms, validate_args=None):
        if isinstance(transforms, Transform):
            transforms = [transforms]
        if not all(isinstance(t, Transform) for t in transforms):
            raise ValueError(f"transforms must be a Transform or a list of Transforms, but was {transforms}")
        self.transforms = list(transforms)
        self.base_dist = base_distribution
        base_shape = tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape)
        base_event_dim = len(base_distribution.event_shape)
        chain = ComposeTransform(self.transforms)
        event_dim = max(chain.codomain.event_dim, base_event_dim) if self.transforms else base_event_dim
        shape = tuple(chain.forward_shape(base_shape))
        cut = len(shape) - event_dim
        super().__init__(shape[:cut], shape[cut:], validate_args=validate_args)

    @property
    def support(self):
        if not self.transforms:
            return self.base_dist.support
        support = self.transforms[-1].codomain
        extra = len(self.event_shape) - support.event_dim
        return constraints.independent(support, extra) if extra > 0 else support

    @property
    def has_rsample(self):
        return self.base_dist.has_rsample

    def expand(self, batch_shape, _instance=None):
        shape = tuple(batch_shape) + tuple(self.event_shape)
        base_shape = tuple(ComposeTransform(self.transforms).inverse_shape(shape))
        cut = len(base_shape) - len(self.base_dist.event_shape)
        return TransformedDistribution(
            self.base_dist.expand(base_shape[:cut]), self.transforms, validate_args=self._validate_args
        )

    def sample(self, sample_shape=()):
        with mindtorch.no_grad():
            x = self.base_dist.sample(sample_shape)
            for t in self.transforms:
                x = t(x)
            return x

    def rsample(self, sample_shape=()):
        x = self.base_dist.rsample(sample_shape)
        for t in self.transforms:
            x = t(x)
        return x

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        event_dim = len(self.event_shape)
        log_prob = 0.0
        y = value
        for t in reversed(self.transforms):
            x = t.inv(y)
            event_dim += t.domain.event_dim - t.codomain.event_dim
            log_prob = log_prob - _sum_rightmost(t.log_abs_det_jacobian(x, y), event_dim - t.domain.event_dim)
            y = x
        return log_prob + _sum_rightmost(self.base_dist.log_prob(y), event_dim - len(self.base_dist.event_shape))

    def _monotone_sign(self):
        """+1 or -1 (a tensor of them when the transforms' signs depend on their parameters)."""
        sign = 1
        for t in self.transforms:
            sign = sign * t.sign
        if isinstance(sign, mindtorch.Tensor) and sign.numel() == 1:
            sign = int(sign.item())
        if not isinstance(sign, mindtorch.Tensor) and sign not in (1, -1):
            raise NotImplementedError("cdf/icdf need transforms with one monotone direction")
        return sign

    @staticmethod
    def _oriented(sign, p):
        """p for increasing transforms, 1 - p for decreasing ones."""
        if isinstance(sign, mindtorch.Tensor):
            return sign * (p - 0.5) + 0.5
        return p if sign == 1 else 1 - p

    def cdf(self, value):
        sign = self._monotone_sign()
        for t in reversed(self.transforms):
            value = t.inv(value)
        return self._oriented(sign, self.base_dist.cdf(value))

    def icdf(self, value):
        sign = self._monotone_sign()
        x = self.base_dist.icdf(self._oriented(sign, value))
        for t in self.transforms:
            x = t(x)
        return x
