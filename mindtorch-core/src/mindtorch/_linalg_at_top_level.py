"""torch.inverse, torch.det, torch.svd, ...: the top-level and Tensor-method spellings of mindtorch.linalg
functions, with their older signatures (svd returns V, not Vh; `some` instead of full_matrices)."""

import collections

__all__ = [
    "inverse",
    "det",
    "logdet",
    "slogdet",
    "matrix_power",
    "pinverse",
    "svd",
    "qr",
    "cholesky",
    "cholesky_solve",
    "cholesky_inverse",
]

_SVD = collections.namedtuple("svd", ["U", "S", "V"])
_SVD.__module__ = "mindtorch.return_types"
_QR = collections.namedtuple("qr", ["Q", "R"])
_QR.__module__ = "mindtorch.return_types"


def _linalg():
    import mindtorch.linalg as linalg

    return linalg


def inverse(input, *, out=None):
    return _linalg().inv(input, out=out)


def det(input):
    return _linalg().det(input)


def logdet(input):
    """log(det(A)): nan for a negative determinant, -inf for a singular matrix."""
    import mindtorch

    sign, logabs = _linalg().slogdet(input)
    return mindtorch.where(sign < 0, mindtorch.full_like(logabs, float("nan")), logabs)


def slogdet(input):
    return _linalg().slogdet(input)


def matrix_power(input, n, *, out=None):
    return _linalg().matrix_power(input, n, out=out)


def pinverse(input, rcond=1e-15):
    return _linalg().pinv(input, rtol=rcond)


def svd(input, some=True, compute_uv=True, *, out=None):
    U, S, Vh = _linalg().svd(input, full_matrices=not some)
    if not compute_uv:
        import mindtorch

        return _SVD(mindtorch.zeros_like(U), S, mindtorch.zeros_like(Vh.mT))
    return _SVD(U, S, Vh.mT)


def qr(input, some=True, *, out=None):
    return _QR(*_linalg().qr(input, mode="reduced" if some else "complete"))


def cholesky(input, upper=False, *, out=None):
    return _linalg().cholesky(input, upper=upper, out=out)


def cholesky_solve(input, input2, upper=False, *, out=None):
    """Solve A X = B given A's Cholesky factor (input2): two triangular solves through linalg.solve."""
    L = input2.mT if upper else input2
    y = _linalg().solve(L, input)
    return _linalg().solve(L.mT, y)


def cholesky_inverse(input, upper=False, *, out=None):
    import mindtorch

    eye = mindtorch.eye(input.shape[-1], dtype=input.dtype, device=input.device)
    return cholesky_solve(eye.expand(tuple(input.shape)), input, upper)


METHODS = (
    "inverse",
    "det",
    "logdet",
    "slogdet",
    "matrix_power",
    "pinverse",
    "svd",
    "qr",
    "cholesky",
    "cholesky_solve",
    "cholesky_inverse",
)
