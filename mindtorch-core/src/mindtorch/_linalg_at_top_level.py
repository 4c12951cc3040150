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
    "lu",
    "lu_solve",
    "lu_unpack",
    "matrix_exp",
    "triangular_solve",
    "orgqr",
    "ormqr",
]

_SVD = collections.namedtuple("svd", ["U", "S", "V"])
_SVD.__module__ = "mindtorch.return_types"
_QR = collections.namedtuple("qr", ["Q", "R"])
_QR.__module__ = "mindtorch.return_types"
_LU_UNPACK = collections.namedtuple("lu_unpack", ["P", "L", "U"])
_LU_UNPACK.__module__ = "mindtorch.return_types"
_TRIANGULAR_SOLVE = collections.namedtuple("triangular_solve", ["solution", "cloned_coefficient"])
_TRIANGULAR_SOLVE.__module__ = "mindtorch.return_types"


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


def lu(A, pivot=True, get_infos=False, out=None):
    """(LU, pivots), with the infos too when asked (linalg.lu_factor_ex without its error check)."""
    LU, pivots, infos = _linalg().lu_factor_ex(A, pivot=pivot)
    return (LU, pivots, infos) if get_infos else (LU, pivots)


def lu_solve(b, LU_data, LU_pivots, *, out=None):
    return _linalg().lu_solve(LU_data, LU_pivots, b, out=out)


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    from ._linalg_lu import unpack

    return _LU_UNPACK(*unpack(LU_data, LU_pivots, unpack_data, unpack_pivots))


def matrix_exp(input):
    return _linalg().matrix_exp(input)


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False, *, out=None):
    """Solve A X = b (A^T X = b when transpose) for triangular A; returns X and a copy of A."""
    if b.dim() < 2:
        raise RuntimeError(
            f"torch.triangular_solve: Expected b to have at least 2 dimensions, but it has {b.dim()} dimensions instead"
        )
    if A.dim() < 2:
        raise RuntimeError(
            f"torch.triangular_solve: Expected A to have at least 2 dimensions, but it has {A.dim()} dimensions instead"
        )
    if b.dtype is not A.dtype:
        from ._dtype import _cname

        raise RuntimeError(
            f"Expected b and A to have the same dtype, but found b of type {_cname(b.dtype)} and A of type "
            f"{_cname(A.dtype)} instead."
        )
    T = A.mT if transpose else A
    X = _linalg().solve_triangular(T, b, upper=upper != transpose, unitriangular=unitriangular)
    # the coefficient comes back broadcast to the batch of the solution
    return _TRIANGULAR_SOLVE(X, A.expand(tuple(X.shape[:-2]) + tuple(A.shape[-2:])).clone())


def orgqr(input, tau):
    return _linalg().householder_product(input, tau)


def ormqr(input, tau, other, left=True, transpose=False, *, out=None):
    from ._linalg_householder import multiply

    return multiply(input, tau, other, left, transpose)


# Tensor methods PyTorch 2 removed: they remain, raising with PyTorch's migration advice
_REMOVED = "This function was deprecated since version 1.9 and is now removed. "
_REMOVED_ADVICE = {
    "eig": "`torch.linalg.eig` returns complex tensors of dtype `cfloat` or `cdouble` rather than real tensors "
    "mimicking complex tensors.\n\nL, _ = torch.eig(A) should be replaced with:\nL_complex = torch.linalg.eigvals(A)"
    "\n\nand\n\nL, V = torch.eig(A, eigenvectors=True) should be replaced with:\nL_complex, V_complex = "
    "torch.linalg.eig(A)",
    "lstsq": "`torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`.\n`torch.linalg.lstsq` has reversed "
    "arguments and does not return the QR decomposition in the returned tuple (although it returns other "
    "information about the problem).\n\nTo get the QR decomposition consider using `torch.linalg.qr`.\n\nThe "
    "returned solution in `torch.lstsq` stored the residuals of the solution in the last m - n columns of the "
    "returned value whenever m > n. In torch.linalg.lstsq, the residuals are in the field 'residuals' of the "
    "returned named tuple.\n\nThe unpacking of the solution, as in\nX, _ = torch.lstsq(B, A).solution[:A.size(1)]"
    "\nshould be replaced with:\nX = torch.linalg.lstsq(A, B).solution",
    "solve": "`torch.solve` is deprecated in favor of `torch.linalg.solve`. `torch.linalg.solve` has its arguments "
    "reversed and does not return the LU factorization.\n\nTo get the LU factorization see `torch.lu`, which can "
    "be used with `torch.lu_solve` or `torch.lu_unpack`.\nX = torch.solve(B, A).solution should be replaced with:"
    "\nX = torch.linalg.solve(A, B)",
    "symeig": "The default behavior has changed from using the upper triangular portion of the matrix by default "
    "to using the lower triangular portion.\n\nL, _ = torch.symeig(A, upper=upper) should be replaced with:\nL = "
    "torch.linalg.eigvalsh(A, UPLO='U' if upper else 'L')\n\nand\n\nL, V = torch.symeig(A, eigenvectors=True) "
    "should be replaced with:\nL, V = torch.linalg.eigh(A, UPLO='U' if upper else 'L')",
}


def _removed(name):
    def method(self, *args, **kwargs):
        raise RuntimeError(_REMOVED + _REMOVED_ADVICE[name])

    method.__name__ = method.__qualname__ = name
    return method


eig, lstsq, solve, symeig = (_removed(n) for n in ("eig", "lstsq", "solve", "symeig"))


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
    "lu",
    "lu_solve",
    "matrix_exp",
    "triangular_solve",
    "orgqr",
    "ormqr",
    "eig",
    "lstsq",
    "solve",
    "symeig",
)
