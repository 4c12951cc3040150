"""The multivariate normal with a low-rank-plus-diagonal covariance W W^T + D: log_prob and entropy
through the capacitance matrix I + W^T D^-1 W (Woodbury), never forming the n x n covariance."""

import math

import mindtorch

from . import constraints
from .distribution import Distribution
from .utils import lazy_property

__all__ = ["LowRankMultivariateNormal"]


def _capacitance_tril(W, D):
    """Cholesky factor of I + W^T D^-1 W."""
    m = W.shape[-1]
    Wt_Dinv = W.mT / D.unsqueeze(-2)
    K = Wt_Dinv @ W + mindtorch.eye(m, dtype=W.dtype, device=W.device)
    return mindtorch.linalg.cholesky(K)


class LowRankMultivariateNormal(Distribution):
    arg_constraints = {
        "loc": constraints.real_vector,
        "cov_factor": constraints.independent(constraints.real, 2),
        "cov_diag": constraints.independent(constraints.positive, 1),
    }
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, cov_factor, cov_diag, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        event_shape = tuple(loc.shape[-1:])
        if cov_factor.dim() < 2:
            raise ValueError("cov_factor must be at least two-dimensional, with optional leading batch dimensions")
        if tuple(cov_factor.shape[-2:-1]) != event_shape:
            raise ValueError(f"cov_factor must be a batch of matrices with shape {event_shape[0]} x m")
        if tuple(cov_diag.shape[-1:]) != event_shape:
            raise ValueError(f"cov_diag must be a batch of vectors with shape {mindtorch.Size(event_shape)}")
        try:
            loc_, self.cov_factor, diag_ = mindtorch.broadcast_tensors(
                loc.unsqueeze(-1), cov_factor, cov_diag.unsqueeze(-1)
            )
        except RuntimeError as e:
            raise ValueError(
                f"Incompatible batch shapes: loc {loc.shape}, cov_factor {cov_factor.shape}, cov_diag {cov_diag.shape}"
            ) from e
        self.loc, self.cov_diag = loc_[..., 0], diag_[..., 0]
        self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag = cov_factor, cov_diag
        self._capacitance_tril = _capacitance_tril(cov_factor, cov_diag)
        super().__init__(self.loc.shape[:-1], event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        shape = tuple(batch_shape) + tuple(self.event_shape)
        W = self.cov_factor.expand(shape + tuple(self.cov_factor.shape[-1:]))
        return LowRankMultivariateNormal(
            self.loc.expand(shape), W, self.cov_diag.expand(shape), validate_args=self._validate_args
        )

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        W, D = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        return (W.pow(2).sum(-1) + D).expand(tuple(self._batch_shape) + tuple(self._event_shape))

    @lazy_property
    def covariance_matrix(self):
        W, D = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        cov = W @ W.mT + mindtorch.diag_embed(D)
        return cov.expand(tuple(self._batch_shape) + tuple(self._event_shape) * 2)

    @lazy_property
    def scale_tril(self):
        return mindtorch.linalg.cholesky(self.covariance_matrix)

    @lazy_property
    def precision_matrix(self):
        """D^-1 - D^-1 W K^-1 W^T D^-1 with K the capacitance."""
        W, D = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        Wt_Dinv = W.mT / D.unsqueeze(-2)
        A = mindtorch.linalg.solve_triangular(self._capacitance_tril, Wt_Dinv, upper=False)
        prec = mindtorch.diag_embed(D.reciprocal()) - A.mT @ A
        return prec.expand(tuple(self._batch_shape) + tuple(self._event_shape) * 2)

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        W, D = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        eps_w = mindtorch.randn(shape[:-1] + tuple(W.shape[-1:]), dtype=self.loc.dtype, device=self.loc.device)
        eps_d = mindtorch.randn(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + (W @ eps_w.unsqueeze(-1)).squeeze(-1) + D.sqrt() * eps_d

    def _log_det(self):
        """log det(W W^T + D) = 2 sum log diag(chol K) + sum log D."""
        L = self._capacitance_tril
        return 2 * L.diagonal(dim1=-2, dim2=-1).log().sum(-1) + self._unbroadcasted_cov_diag.log().sum(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        W, D = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        Wt_Dinv = W.mT / D.unsqueeze(-2)
        y = mindtorch.linalg.solve_triangular(self._capacitance_tril, Wt_Dinv @ diff.unsqueeze(-1), upper=False)
        mahalanobis = (diff.pow(2) / D).sum(-1) - y.squeeze(-1).pow(2).sum(-1)
        n = self._event_shape[0]
        return -0.5 * (n * math.log(2 * math.pi) + self._log_det() + mahalanobis)

    def entropy(self):
        n = self._event_shape[0]
        H = 0.5 * (n * (1.0 + math.log(2 * math.pi)) + self._log_det())
        return H.expand(tuple(self._batch_shape))
