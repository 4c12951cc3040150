"""The multivariate normal distribution."""

import math

import mindtorch

from . import constraints
from .distribution import Distribution

__all__ = ["MultivariateNormal"]


class MultivariateNormal(Distribution):
    arg_constraints = {
        "loc": constraints.real_vector,
        "covariance_matrix": constraints.positive_definite,
        "precision_matrix": constraints.positive_definite,
        "scale_tril": constraints.lower_cholesky,
    }
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        if (covariance_matrix is not None) + (scale_tril is not None) + (precision_matrix is not None) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        given = (
            scale_tril
            if scale_tril is not None
            else (covariance_matrix if covariance_matrix is not None else precision_matrix)
        )
        if given.dim() < 2:
            raise ValueError(
                "scale_tril, covariance_matrix or precision_matrix must be at least two-dimensional, "
                "with optional leading batch dimensions"
            )
        batch_shape = mindtorch.broadcast_shapes(tuple(given.shape[:-2]), tuple(loc.shape[:-1]))
        n = loc.shape[-1]
        self.loc = loc.expand(tuple(batch_shape) + (n,))
        if scale_tril is not None:
            self.scale_tril = scale_tril.expand(tuple(batch_shape) + (n, n))
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self.covariance_matrix = covariance_matrix.expand(tuple(batch_shape) + (n, n))
            self._unbroadcasted_scale_tril = mindtorch.linalg.cholesky(covariance_matrix)
        else:
            self.precision_matrix = precision_matrix.expand(tuple(batch_shape) + (n, n))
            self._unbroadcasted_scale_tril = mindtorch.linalg.cholesky(mindtorch.linalg.inv(precision_matrix))
        super().__init__(batch_shape, (n,), validate_args=validate_args)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(tuple(self._batch_shape + self._event_shape))

    def __getattr__(self, name):
        # the parametrisations not given are derived on demand, as PyTorch's lazy properties
        L = self.__dict__.get("_unbroadcasted_scale_tril")
        if L is None:
            raise AttributeError(name)
        shape = tuple(self._batch_shape) + tuple(self._event_shape) * 2
        if name == "scale_tril":
            return L.expand(shape)
        if name == "covariance_matrix":
            return mindtorch.matmul(L, L.mT).expand(shape)
        if name == "precision_matrix":
            return mindtorch.linalg.inv(mindtorch.matmul(L, L.mT)).expand(shape)
        raise AttributeError(name)

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        eps = mindtorch.randn(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + mindtorch.matmul(self._unbroadcasted_scale_tril, eps.unsqueeze(-1)).squeeze(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        L = self._unbroadcasted_scale_tril
        batch = mindtorch.broadcast_shapes(tuple(L.shape[:-2]), tuple(diff.shape[:-1]))
        Lb = L.expand(tuple(batch) + tuple(L.shape[-2:]))
        z = mindtorch.linalg.solve(Lb, diff.expand(tuple(batch) + tuple(diff.shape[-1:])).unsqueeze(-1)).squeeze(-1)
        M = z.pow(2).sum(-1)
        half_log_det = L.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + M) - half_log_det

    def entropy(self):
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        H = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + half_log_det
        return H.expand(tuple(self._batch_shape)) if len(self._batch_shape) else H
