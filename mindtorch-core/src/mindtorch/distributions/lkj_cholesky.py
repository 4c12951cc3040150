"""The LKJ distribution over Cholesky factors of correlation matrices: density proportional to
det(C)^(concentration - 1), sampled by the onion method (a Beta-distributed length per row, a uniform
direction on the hypersphere)."""

import math

import mindtorch

from . import constraints
from .beta import Beta
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        batch_shape = tuple(self.concentration.shape)
        # row i's squared length below the diagonal is Beta(i / 2, concentration + (dim - 2 - i) / 2)
        offset = mindtorch.arange(dim - 1, dtype=self.concentration.dtype, device=self.concentration.device)
        offset = mindtorch.cat([offset.new_zeros((1,)), offset])
        marginal = self.concentration + 0.5 * (dim - 2)
        self._beta = Beta(offset + 0.5, marginal.unsqueeze(-1) - 0.5 * offset)
        super().__init__(batch_shape, (dim, dim), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return LKJCholesky(self.dim, self.concentration.expand(tuple(batch_shape)), validate_args=self._validate_args)

    @mindtorch.no_grad()
    def sample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        y = self._beta.sample(sample_shape).unsqueeze(-1)
        normal = mindtorch.randn(shape, dtype=y.dtype, device=y.device).tril(-1)
        norm = normal.norm(dim=-1, keepdim=True)
        direction = normal / mindtorch.where(norm == 0, mindtorch.ones_like(norm), norm)  # row 0 stays zero
        w = y.sqrt() * direction
        tiny = mindtorch.finfo(w.dtype).tiny
        diag = (1 - (w * w).sum(-1)).clamp(min=tiny).sqrt()
        return w + mindtorch.diag_embed(diag)

    def log_prob(self, value):
        """sum_i (dim - i + 2 (concentration - 1)) log L_ii over rows i = 2..dim, minus the log normalizer."""
        if self._validate_args:
            self._validate_sample(value)
        diag = value.diagonal(dim1=-2, dim2=-1)[..., 1:]
        rows = mindtorch.arange(2, self.dim + 1, dtype=diag.dtype, device=diag.device)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - rows
        unnormalized = (order * diag.log()).sum(-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        log_normalizer = 0.5 * dm1 * math.log(math.pi) + mindtorch.mvlgamma(alpha - 0.5, dm1) - dm1 * alpha.lgamma()
        return unnormalized - log_normalizer
