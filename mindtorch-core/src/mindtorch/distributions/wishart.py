"""The Wishart distribution over positive-definite matrices: df degrees of freedom, a scale given as its
covariance, precision or Cholesky factor; rsample by Bartlett's decomposition."""

import math

import mindtorch

from . import constraints
from .chi2 import Chi2
from .distribution import Distribution
from .utils import lazy_property

__all__ = ["Wishart"]


def _multi_digamma(a, p):
    """sum_{i<p} digamma(a - i / 2)."""
    return sum(mindtorch.digamma(a - i / 2) for i in range(p))


class Wishart(Distribution):
    arg_constraints = {
        "covariance_matrix": constraints.positive_definite,
        "precision_matrix": constraints.positive_definite,
        "scale_tril": constraints.lower_cholesky,
        "df": constraints.greater_than(0),
    }
    support = constraints.positive_definite
    has_rsample = True

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        if (covariance_matrix is not None) + (scale_tril is not None) + (precision_matrix is not None) != 1:
            # an AssertionError, as PyTorch's Wishart asserts it (MultivariateNormal raises ValueError)
            raise AssertionError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        given = next(m for m in (scale_tril, covariance_matrix, precision_matrix) if m is not None)
        if given.dim() < 2:
            # PyTorch names scale_tril whichever matrix was given
            raise ValueError("scale_tril must be at least two-dimensional, with optional leading batch dimensions")
        p = given.shape[-1]
        df = df if isinstance(df, mindtorch.Tensor) else mindtorch.tensor(float(df), dtype=given.dtype)
        batch_shape = tuple(mindtorch.broadcast_shapes(tuple(given.shape[:-2]), tuple(df.shape)))
        event_shape = (p, p)
        self.df = df.expand(batch_shape)
        if bool((self.df <= p - 1).any()):
            shown = df.item() if df.numel() == 1 else df
            raise ValueError(f"Value of df={shown} expected to be greater than ndim - 1 = {p - 1}.")
        if scale_tril is not None:
            self.scale_tril = scale_tril.expand(batch_shape + event_shape)
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self.covariance_matrix = covariance_matrix.expand(batch_shape + event_shape)
            self._unbroadcasted_scale_tril = mindtorch.linalg.cholesky(covariance_matrix)
        else:
            self.precision_matrix = precision_matrix.expand(batch_shape + event_shape)
            self._unbroadcasted_scale_tril = mindtorch.linalg.cholesky(mindtorch.linalg.inv(precision_matrix))
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        # Bartlett's diagonal: chi-squared with df, df - 1, ..., df - p + 1 degrees of freedom
        steps = mindtorch.arange(p, dtype=self.df.dtype, device=self.df.device)
        self._dist_chi2 = Chi2(self.df.unsqueeze(-1) - steps)

    def expand(self, batch_shape, _instance=None):
        shape = tuple(batch_shape)
        L = self._unbroadcasted_scale_tril.expand(shape + tuple(self._event_shape))
        return Wishart(self.df.expand(shape), scale_tril=L, validate_args=self._validate_args)

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(tuple(self._batch_shape) + tuple(self._event_shape))

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return (L @ L.mT).expand(tuple(self._batch_shape) + tuple(self._event_shape))

    @lazy_property
    def precision_matrix(self):
        eye = mindtorch.eye(self._event_shape[-1], dtype=self.df.dtype, device=self.df.device)
        return mindtorch.cholesky_solve(eye, self._unbroadcasted_scale_tril).expand(
            tuple(self._batch_shape) + tuple(self._event_shape)
        )

    @property
    def mean(self):
        return self.df.view(tuple(self._batch_shape) + (1, 1)) * self.covariance_matrix

    @property
    def mode(self):
        factor = self.df - self._event_shape[-1] - 1
        factor = mindtorch.where(factor <= 0, mindtorch.full_like(factor, math.nan), factor)
        return factor.view(tuple(self._batch_shape) + (1, 1)) * self.covariance_matrix

    @property
    def variance(self):
        V = self.covariance_matrix
        diag = V.diagonal(dim1=-2, dim2=-1)
        return self.df.view(tuple(self._batch_shape) + (1, 1)) * (V.pow(2) + diag.unsqueeze(-1) * diag.unsqueeze(-2))

    def rsample(self, sample_shape=()):
        """L A A^T L^T with A lower triangular: sqrt(chi2(df - i)) on the diagonal, standard normals below."""
        sample_shape = tuple(sample_shape)
        shape = tuple(self._extended_shape(sample_shape))
        noise = mindtorch.randn(shape, dtype=self.df.dtype, device=self.df.device).tril(-1)
        A = noise + mindtorch.diag_embed(self._dist_chi2.rsample(sample_shape).sqrt())
        LA = self._unbroadcasted_scale_tril @ A
        return LA @ LA.mT

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        nu, p = self.df, self._event_shape[-1]
        L = self._unbroadcasted_scale_tril
        log_det_scale = 2 * L.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        log_det_value = mindtorch.linalg.slogdet(value).logabsdet
        trace = mindtorch.cholesky_solve(value, L).diagonal(dim1=-2, dim2=-1).sum(-1)
        return (
            -0.5 * nu * log_det_scale
            - 0.5 * nu * p * math.log(2)
            - mindtorch.mvlgamma(0.5 * nu, p)
            + 0.5 * (nu - p - 1) * log_det_value
            - 0.5 * trace
        )

    def entropy(self):
        nu, p = self.df, self._event_shape[-1]
        L = self._unbroadcasted_scale_tril
        half_log_det = L.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return (
            (p + 1) * half_log_det
            + 0.5 * p * (p + 1) * math.log(2)
            + mindtorch.mvlgamma(0.5 * nu, p)
            - 0.5 * (nu - p - 1) * _multi_digamma(0.5 * nu, p)
            + 0.5 * nu * p
        )
