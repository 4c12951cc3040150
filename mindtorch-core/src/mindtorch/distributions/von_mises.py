"""The von Mises distribution: the circular analogue of the normal, on angles in [-pi, pi)."""

import math

import mindtorch

from . import constraints
from ._bases import _expand_into
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["VonMises"]


def _log_i0(x):
    return mindtorch.special.i0e(x).log() + x


class VonMises(Distribution):
    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_into(self, batch_shape, ("loc", "concentration"))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        k = self.concentration
        return k * (value - self.loc).cos() - math.log(2 * math.pi) - _log_i0(k)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        """1 - I1(k) / I0(k): one minus the mean resultant length."""
        import mindtorch.special as S

        return 1 - S.i1e(self.concentration) / S.i0e(self.concentration)

    @mindtorch.no_grad()
    def sample(self, sample_shape=()):
        """Best and Fisher's rejection sampler (a wrapped Cauchy envelope), computed in float64."""
        shape = tuple(self._extended_shape(sample_shape))
        k = self.concentration.to(mindtorch.float64).expand(shape)
        tau = 1 + (1 + 4 * k * k).sqrt()
        rho = (tau - (2 * tau).sqrt()) / (2 * k)
        # a tiny concentration is nearly uniform: rho's series avoids the cancellation of the closed form
        rho = mindtorch.where(k < 1e-5, k / 2, rho)
        r = (1 + rho * rho) / (2 * rho)
        angle = mindtorch.zeros(shape, dtype=mindtorch.float64, device=k.device)
        done = mindtorch.zeros(shape, dtype=mindtorch.bool, device=k.device)
        while not bool(done.all()):
            u1, u2, u3 = (mindtorch.rand(shape, dtype=mindtorch.float64, device=k.device) for _ in range(3))
            z = (math.pi * u1).cos()
            f = (1 + r * z) / (r + z)
            c = k * (r - f)
            accept = ((c * (2 - c) - u2) > 0) | ((c / u2).log() + 1 - c >= 0)
            theta = (u3 - 0.5).sign() * f.clamp(-1, 1).acos()
            fresh = accept & ~done
            angle = mindtorch.where(fresh, theta, angle)
            done = done | accept
        wrapped = (angle + self.loc.to(mindtorch.float64) + math.pi).remainder(2 * math.pi) - math.pi
        return wrapped.to(self.loc.dtype)
