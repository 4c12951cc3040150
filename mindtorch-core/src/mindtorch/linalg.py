"""mindtorch.linalg: norms and matrix functions (built on the op table)."""

import math

import mindtorch as _mt

from . import _dtype as D

_INF = float("inf")


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    if out is not None:
        return _mt.linalg_vector_norm(x, ord, dim, keepdim, dtype=dtype, out=out)
    return _mt.linalg_vector_norm(x, ord, dim, keepdim, dtype=dtype)


def svdvals(A, *, driver=None, out=None):
    return _mt.ops.linalg_svdvals(A, driver=driver)


def _check_matrix(A, dim):
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    if not isinstance(dim, (tuple, list)) or len(dim) != 2:
        raise RuntimeError("linalg.matrix_norm: dim must be a 2-tuple. Got " + str(dim))
    d0, d1 = (d % A.dim() for d in dim)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, {dim[1]})")
    return d0, d1


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    d0, d1 = _check_matrix(A, dim)
    if not (A.dtype.is_floating_point or A.dtype.is_complex):
        raise RuntimeError(
            f"linalg.matrix_norm: Expected a floating point or complex tensor as input. Got {D._cname(A.dtype)}"
        )
    if ord in ("nuc", 2, -2) and A.dtype in (D.float16, D.bfloat16):  # no half-precision SVD
        raise RuntimeError(f"linalg.matrix_norm: Low precision dtypes not supported. Got {D._cname(A.dtype)}")
    if dtype is not None:
        A = A.to(dtype)
    if ord == "fro":
        return vector_norm(A, 2, (d0, d1), keepdim)
    if ord in ("nuc", 2, -2):
        # singular values of the matrices moved to the last two dims
        rest = [d for d in range(A.dim()) if d not in (d0, d1)]
        B = A.permute(rest + [d0, d1])
        s = svdvals(B)
        if ord == "nuc" or (ord == 2 and s.shape[-1] == 0):  # the 2-norm of an empty matrix is 0
            r = s.sum(-1)
        else:
            r = s.amax(-1) if ord == 2 else s.amin(-1)
        if keepdim:
            for d in sorted((d0, d1)):
                r = r.unsqueeze(d)
        return r
    if ord in (1, -1, _INF, -_INF):
        # 1: max column sum (sum over rows d0, then extreme over d1); inf: the transpose
        sum_dim, ext_dim = (d0, d1) if ord in (1, -1) else (d1, d0)
        s = A.abs().sum(sum_dim, keepdim=True)
        r = s.amax(ext_dim, keepdim=True) if ord > 0 else s.amin(ext_dim, keepdim=True)
        if not keepdim:
            r = r.squeeze((d0, d1)) if A.dim() > 2 else r.reshape(())
        return r
    raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):
    if isinstance(dim, int):
        dim = (dim,)
    if dim is not None:
        dim = tuple(dim)
    if ord is None:
        if dim is not None and len(dim) == 2:
            return matrix_norm(A, "fro", dim, keepdim, dtype=dtype)
        return vector_norm(A, 2, dim, keepdim, dtype=dtype)
    if isinstance(ord, str):
        return matrix_norm(A, ord, dim if dim is not None else (-2, -1), keepdim, dtype=dtype)
    if dim is None:
        if A.dim() == 1:
            return vector_norm(A, ord, None, keepdim, dtype=dtype)
        if A.dim() == 2:
            return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)
        raise RuntimeError(
            f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got {A.dim()}D."
        )
    if len(dim) == 1:
        return vector_norm(A, ord, dim, keepdim, dtype=dtype)
    return matrix_norm(A, ord, dim, keepdim, dtype=dtype)


def matmul(input, other, *, out=None):
    return _mt.matmul(input, other) if out is None else _mt.matmul(input, other, out=out)


def vecdot(x, y, *, dim=-1, out=None):
    return (x.conj() * y).sum(dim) if x.dtype.is_complex else (x * y).sum(dim)


def cross(input, other, *, dim=-1, out=None):
    """Cross product of 3-vectors along dim (inputs broadcast)."""
    res = _mt.ops.linalg_cross(input, other, dim=dim)
    return res if out is None else out.resize_(res.shape).copy_(res)


# --- decompositions, inverses and solvers --------------------------------------------------------
from ._errors import LinAlgError  # noqa: E402  (kernels raise it through mindtorch.plugins)

_RESULTS = {}


def _named(name, fields, values):
    """values as torch.return_types.<name>(field=...), like PyTorch's named results."""
    cls = _RESULTS.get(name)
    if cls is None:
        import collections

        cls = _RESULTS[name] = collections.namedtuple(name, fields)
        cls.__module__ = "mindtorch.return_types"
    return cls(*values)


def inv(A, *, out=None):
    return _assign(out, _mt.ops.linalg_inv(A))


def _ex(fn, A, check_errors):
    """fn(A) with LAPACK's info per matrix instead of an error: a failing matrix of the batch gets
    NaN and the info its kernel reports, the others their results."""
    try:
        return fn(A), _mt.zeros(tuple(A.shape[:-2]), dtype=_mt.int32, device=A.device)
    except LinAlgError:
        if check_errors:
            raise
    results, infos = [], []
    for M in A.reshape((-1,) + tuple(A.shape[-2:])):
        try:
            results.append(fn(M))
            infos.append(0)
        except LinAlgError as e:
            results.append(_mt.full(tuple(M.shape), float("nan"), dtype=A.dtype, device=A.device))
            infos.append(e.info)
    res = _mt.stack(results).reshape(tuple(A.shape))
    return res, _mt.tensor(infos, dtype=_mt.int32, device=A.device).reshape(tuple(A.shape[:-2]))


def inv_ex(A, *, check_errors=False, out=None):
    return _named("linalg_inv_ex", ("inverse", "info"), _ex(inv, A, check_errors))


def slogdet(A, *, out=None):
    return _named("linalg_slogdet", ("sign", "logabsdet"), _mt.ops.linalg_slogdet(A))


def det(A, *, out=None):
    from .ops.linalg import _square

    _square("det", A)  # errors name det, not the slogdet it is computed from
    sign, logabsdet = _mt.ops.linalg_slogdet(A)
    return _assign(out, sign * logabsdet.exp())


def solve(A, B, *, left=True, out=None):
    if not left:  # X A = B  <=>  A^T X^T = B^T
        return _assign(out, solve(A.mT, B.mT).mT)
    vector = B.dim() == 1 or (B.dim() == A.dim() - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    X = _mt.ops.linalg_solve(A, B.unsqueeze(-1) if vector else B)
    return _assign(out, X.squeeze(-1) if vector else X)


def cholesky(A, *, upper=False, out=None):
    return _assign(out, _mt.ops.linalg_cholesky(A, upper=upper))


def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    return _named("linalg_cholesky_ex", ("L", "info"), _ex(lambda M: cholesky(M, upper=upper), A, check_errors))


def eigh(A, UPLO="L", *, out=None):
    return _named("linalg_eigh", ("eigenvalues", "eigenvectors"), _mt.ops.linalg_eigh(A, UPLO))


def eigvalsh(A, UPLO="L", *, out=None):
    return _assign(out, _mt.ops.linalg_eigh(A, UPLO)[0])


def qr(A, mode="reduced", *, out=None):
    return _named("linalg_qr", ("Q", "R"), _mt.ops.linalg_qr(A, mode))


def svd(A, full_matrices=True, *, driver=None, out=None):
    return _named("linalg_svd", ("U", "S", "Vh"), _mt.ops.linalg_svd(A, full_matrices, driver=driver))


def lstsq(A, B, rcond=None, *, driver=None):
    return _named(
        "linalg_lstsq",
        ("solution", "residuals", "rank", "singular_values"),
        _mt.ops.linalg_lstsq(A, B, rcond, driver=driver),
    )


def matrix_power(A, n, *, out=None):
    if A.dim() < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError("linalg.matrix_power: A must be batches of square matrices")
    if not isinstance(n, int):
        raise TypeError(f"matrix_power(): argument 'n' must be int, not {type(n).__name__}")
    if n == 0:
        eye = _mt.eye(A.shape[-1], dtype=A.dtype, device=A.device)
        return _assign(out, eye.expand(tuple(A.shape)).clone())
    base = inv(A) if n < 0 else A
    result, power, k = None, base, abs(n)
    while k:  # square-and-multiply
        if k & 1:
            result = power if result is None else _mt.matmul(result, power)
        k >>= 1
        if k:
            power = _mt.matmul(power, power)
    return _assign(out, result)


def matrix_rank(A, *, atol=None, rtol=None, hermitian=False, out=None):
    s = svdvals(A)
    if s.shape[-1] == 0:  # an empty matrix has rank 0
        return _assign(out, _mt.zeros(tuple(s.shape[:-1]), dtype=_mt.int64, device=A.device))
    if atol is None and rtol is None:
        eps = _mt.finfo(s.dtype).eps
        tol = s.amax(-1, keepdim=True) * max(A.shape[-2:]) * eps
    else:
        tol = _mt.zeros((), dtype=s.dtype)
        if rtol is not None:
            tol = _mt.maximum(tol, s.amax(-1, keepdim=True) * rtol)
        if atol is not None:
            tol = _mt.maximum(tol, _mt.as_tensor(atol, dtype=s.dtype))
    return _assign(out, (s > tol).sum(-1))


def pinv(A, *, atol=None, rtol=None, hermitian=False, out=None):
    U, S, Vh = svd(A, full_matrices=False)
    if S.shape[-1] == 0:  # the pseudo-inverse of an empty matrix: the empty transposed shape
        return _assign(out, _mt.matmul(Vh.mT, U.mT))
    if atol is None and rtol is None:
        rtol = max(A.shape[-2:]) * _mt.finfo(S.dtype).eps
    tol = _mt.zeros((), dtype=S.dtype)
    if rtol is not None:
        tol = _mt.maximum(tol, S.amax(-1, keepdim=True) * rtol)
    if atol is not None:
        tol = _mt.maximum(tol, _mt.as_tensor(atol, dtype=S.dtype))
    S_inv = _mt.where(tol < S, 1.0 / S, _mt.zeros_like(S))
    return _assign(out, _mt.matmul(Vh.mT * S_inv.unsqueeze(-2), U.mT))


def _assign(out, value):
    if out is None:
        return value
    out.resize_(value.shape).copy_(value)
    return out


# --- LU: factorization, unpacking and solves (composites in _linalg_lu) ----------------------------
from . import _linalg_lu  # noqa: E402


def lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    LU, piv, info = _linalg_lu.factor_ex(A, pivot, check_errors)
    return _named("linalg_lu_factor_ex", ("LU", "pivots", "info"), (LU, piv, info))


def lu_factor(A, *, pivot=True, out=None):
    LU, piv, _ = _linalg_lu.factor_ex(A, pivot, True, name="torch.linalg.lu_factor")
    return _named("linalg_lu_factor", ("LU", "pivots"), (LU, piv))


def lu(A, *, pivot=True, out=None):
    LU, piv, _ = _linalg_lu.factor_ex(A, pivot, check_name="linalg.lu")
    return _named("linalg_lu", ("P", "L", "U"), _linalg_lu.unpack(LU, piv))


def lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    return _assign(out, _linalg_lu.solve(LU, pivots, B, left, adjoint))


def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    X = _mt.ops.linalg_solve_triangular(A, B, upper=upper, left=left, unitriangular=unitriangular)
    return _assign(out, X)


def solve_ex(A, B, *, left=True, check_errors=False, out=None):
    from .ops.linalg import _solve_meta

    if not left:  # X A = B  <=>  A^T X^T = B^T
        X, info = solve_ex(A.mT, B.mT, check_errors=check_errors)
        return _named("linalg_solve_ex", ("result", "info"), (X.mT, info))
    vector = B.dim() == 1 or (B.dim() == A.dim() - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    B2 = B.unsqueeze(-1) if vector else B
    _solve_meta(A, B2)  # linalg.solve's shape and dtype errors
    LU, piv, info = _linalg_lu.factor_ex(A)
    if check_errors and bool((info != 0).any()):
        raise LinAlgError("torch.linalg.solve_ex: The solver failed because the input matrix is singular.")
    X = _linalg_lu.solve(LU, piv, B2)
    return _named("linalg_solve_ex", ("result", "info"), (X.squeeze(-1) if vector else X, info))


# --- Householder products (composites in _linalg_householder) --------------------------------------
from . import _linalg_householder  # noqa: E402


def householder_product(A, tau, *, out=None):
    return _assign(out, _linalg_householder.product(A, tau))


# --- eigendecompositions of general matrices, LDL^T ----------------------------------------------
def eig(A, *, out=None):
    return _named("linalg_eig", ("eigenvalues", "eigenvectors"), _mt.ops.linalg_eig(A))


def eigvals(A, *, out=None):
    if A.dim() < 2:
        raise RuntimeError("linalg.eigvals: The input tensor A must have at least 2 dimensions.")
    return _assign(out, _mt.ops.linalg_eig(A)[0])


def ldl_factor_ex(A, *, hermitian=False, check_errors=False, out=None):
    LD, piv, info = _mt.ops.linalg_ldl_factor_ex(A, hermitian=hermitian)
    if check_errors and bool((info != 0).any()):
        raise LinAlgError(
            f"torch.linalg.ldl_factor_ex: The factorization could not be completed because the "
            f"input is singular: D[{int(info.reshape(-1).max())}] is zero."
        )
    return _named("linalg_ldl_factor_ex", ("LD", "pivots", "info"), (LD, piv, info))


def ldl_factor(A, *, hermitian=False, out=None):
    LD, piv, _ = _mt.ops.linalg_ldl_factor_ex(A, hermitian=hermitian)
    return _named("linalg_ldl_factor", ("LD", "pivots"), (LD, piv))


def ldl_solve(LD, pivots, B, *, hermitian=False, out=None):
    return _assign(out, _mt.ops.linalg_ldl_solve(LD, pivots, B, hermitian=hermitian))


# --- products, structured matrices and tensor equations -----------------------------------------
def multi_dot(tensors, *, out=None):
    """The chain product; a 1-D first (last) operand is a row (column) vector, dropped from the result."""
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    for i, t in enumerate(tensors):
        where = "first" if i == 0 else "last" if i == n - 1 else None
        if where is not None and t.dim() not in (1, 2):
            raise RuntimeError(f"multi_dot(): the {where} tensor must be 1D or 2D but got {t.dim()}D")
        if where is None and t.dim() != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {t.dim()}D")
        if t.dtype is not tensors[0].dtype:
            raise RuntimeError(
                f"multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                f"{_cname(tensors[0].dtype).lower()} and tensor {i} {_cname(t.dtype).lower()}"
            )
    mats = [tensors[0].unsqueeze(0) if tensors[0].dim() == 1 else tensors[0]]
    mats += list(tensors[1:-1]) + [tensors[-1].unsqueeze(1) if tensors[-1].dim() == 1 else tensors[-1]]
    for i in range(n - 1):
        if mats[i].shape[1] != mats[i + 1].shape[0]:
            raise RuntimeError(
                f"multi_dot(): tensors {i} and {i + 1} with shapes {list(tensors[i].shape)} and "
                f"{list(tensors[i + 1].shape)} cannot be multiplied"
            )
    res = mats[0]
    for M in mats[1:]:
        res = _mt.mm(res, M)
    if tensors[0].dim() == 1:
        res = res.squeeze(0)
    if tensors[-1].dim() == 1:
        res = res.squeeze(-1)
    return _assign(out, res)


def vander(x, *, N=None):
    """Rows of increasing powers x^0 .. x^(N-1) of each element of the last dim."""
    if x.dtype is _mt.bool:
        raise RuntimeError("linalg.vander supports floating point, complex, and integer tensors, but got Bool")
    n = (x.shape[-1] if x.dim() else 1) if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    if x.dim() < 1:
        raise RuntimeError("linalg.vander: Expected a tensor with at least one dimension")
    x = x.to(_mt.int64) if not (x.dtype.is_floating_point or x.dtype.is_complex) else x
    powers = x.unsqueeze(-1).expand(tuple(x.shape) + (n - 1,))
    return _mt.cat([_mt.ones_like(x).unsqueeze(-1), powers.cumprod(-1)], -1)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    return _mt.diagonal(A, offset, dim1, dim2)


def tensorinv(A, ind=2, *, out=None):
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    rows, cols = math.prod(A.shape[:ind]), math.prod(A.shape[ind:])
    if rows != cols:
        raise RuntimeError(
            "Expected self to satisfy the requirement prod(self.shape[ind:]) == prod(self.shape[:ind]), but got "
            f"{cols} != {rows}"
        )
    res = inv(A.reshape(rows, cols)).reshape(tuple(A.shape[ind:]) + tuple(A.shape[:ind]))
    return _assign(out, res)


def tensorsolve(A, B, dims=None, *, out=None):
    if dims is not None:  # the named dims of A move to the end
        dims = [d % A.dim() for d in dims]
        A = A.permute([d for d in range(A.dim()) if d not in dims] + dims)
    lead, rest = B.numel(), math.prod(A.shape[B.dim() :])
    if lead != rest:
        raise RuntimeError(
            "Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
            f"prod(self.shape[:other.ndim]), but got {rest} != {lead}"
        )
    X = solve(A.reshape(lead, rest), B.reshape(lead))
    return _assign(out, X.reshape(tuple(A.shape[B.dim() :])))


_COND_ORDS = (None, 2, -2, "fro", "nuc", 1, -1, _INF, -_INF)


def cond(A, p=None, *, out=None):
    """The condition number: the ratio of extreme singular values for p None, 2 or -2, otherwise
    norm(A, p) * norm(A^-1, p) (inf for a singular square matrix)."""
    if p not in _COND_ORDS or isinstance(p, bool):
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    if A.dim() < 2:
        raise RuntimeError("linalg.cond: The input tensor A must have at least 2 dimensions.")
    if p in (None, 2, -2):
        s = svdvals(A)
        res = s[..., 0] / s[..., -1] if p != -2 else s[..., -1] / s[..., 0]
        return _assign(out, res)
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            f"linalg.cond(ord={p}): A must be batches of square matrices, but they are "
            f"{A.shape[-2]} by {A.shape[-1]} matrices"
        )
    Ainv, info = inv_ex(A)
    res = matrix_norm(A, p) * matrix_norm(_mt.where(_mt.isnan(Ainv), 0.0, Ainv), p)
    res = _mt.where(info.to(_mt.bool), _mt.full_like(res, _INF), res)
    return _assign(out, res)


_TAYLOR_DEGREE = 18  # the remainder 1/19! ~ 8e-18 is below float64's epsilon for a 1-norm of at most 1


def matrix_exp(A):
    """exp(A) by scaling and squaring: each matrix is halved s times until its 1-norm is at most 1, its
    Taylor polynomial is evaluated by Horner's rule, then squared back s times."""
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_exp: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            "linalg.matrix_exp: A must be batches of square matrices, but they are "
            f"{A.shape[-2]} by {A.shape[-1]} matrices"
        )
    if not (A.dtype.is_floating_point or A.dtype.is_complex):
        raise RuntimeError(f"linalg.matrix_exp: Expected a floating point or complex tensor as input. Got {_tname(A)}")
    n = A.shape[-1]
    if n == 0 or A.numel() == 0:
        return A.clone()
    with _mt.no_grad():
        norm = A.abs().sum(-2).amax(-1)
        norm = _mt.where(_mt.isfinite(norm) & (norm > 1), norm, _mt.ones_like(norm))
        halvings = norm.log2().ceil().to(_mt.int64)
    steps = int(halvings.max())
    X = A / (2.0 ** halvings.to(A.real.dtype if A.is_complex() else A.dtype))[..., None, None]
    eye = _mt.eye(n, dtype=A.dtype, device=A.device)
    R = eye
    for k in range(_TAYLOR_DEGREE, 0, -1):
        R = eye + _mt.matmul(X, R) / k
    for step in range(steps):
        R = _mt.where((halvings > step)[..., None, None], _mt.matmul(R, R), R)
    return R


def _tname(A):
    return _cname(A.dtype)


def _cname(dtype):
    from ._dtype import _cname

    return _cname(dtype)
