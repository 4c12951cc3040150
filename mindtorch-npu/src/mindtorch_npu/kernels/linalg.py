"""Linear-algebra kernels: the matrix products (mm, bmm, matmul, mv, dot) and ops-math's Cholesky, Slogdet, QR,
SVD and TriangularSolve, with solve and inv built on QR; singular inputs raise LinAlgError as PyTorch does."""

from mindtorch.plugins import LinAlgError, broadcast_shapes, dtypes as D, kernel_table

from .. import chips
from ..aclnn import IntArray, launch, scalar_for
from ..copy import empty
from ._common import contiguous, cube_math_type, fill, host_values, mT, nan_mask, nonzero, numel, view

KERNELS, kernel = kernel_table()


def _matmul_op(name, acl_name):
    def k(m, a, b):
        chips.check_dtype(acl_name, m.dtype, name)
        out = empty(m.shape, m.dtype, a.device)
        launch(acl_name, a, b, out, cube_math_type(m.dtype))
        return out

    return k


KERNELS["mm"] = _matmul_op("mm", "Mm")
KERNELS["bmm"] = _matmul_op("bmm", "BatchMatMul")
KERNELS["matmul"] = _matmul_op("matmul", "Matmul")
KERNELS["mv"] = _matmul_op("mv", "Mv")


@kernel("dot")
def dot(m, a, b):
    chips.check_dtype("Dot", m.dtype, "dot")
    out = empty(m.shape, m.dtype, a.device)
    launch("Dot", a, b, out)
    return out


# --- factorizations --------------------------------------------------------------------------------------------


def _any_host(mask):
    """Whether any element of a bool device tensor is set (one sync: PyTorch's device linalg checks its
    info codes the same way)."""
    flag = empty((), D.bool_, mask.device)
    launch("Any", mask, IntArray(range(len(mask._shape))), False, flag)
    return bool(host_values(flag))


def _diagonal(t):
    n = t._shape[-1]
    return view(t, t._shape[:-2] + (n,), t._stride[:-2] + (t._stride[-2] + t._stride[-1],))


def _eq_zero(t):
    out = empty(t._shape, D.bool_, t.device)
    launch("EqScalar", t, scalar_for(0, t.dtype), out)
    return out


@kernel("linalg_cholesky")
def linalg_cholesky(m, A, upper=False):
    chips.check_dtype("LinalgCholesky", m.dtype, "linalg.cholesky")
    out = empty(m.shape, m.dtype, A.device)
    if not numel(out):
        return out
    launch("LinalgCholesky", A, bool(upper), out)
    bad = nan_mask(_diagonal(out))
    if _any_host(bad):  # the order of the failing minor, as PyTorch reports it
        first = nonzero(bad)
        order = int(host_values(view(first, (), (), first._offset + len(bad._shape) - 1))) + 1
        raise LinAlgError(
            f"linalg.cholesky: The factorization could not be completed because the input is not "
            f"positive-definite (the leading minor of order {order} is not positive-definite)."
        )
    return out


@kernel("linalg_slogdet")
def linalg_slogdet(m, A):
    chips.check_dtype("Slogdet", A.dtype, "linalg.slogdet")
    sign, logabs = empty(m[0].shape, m[0].dtype, A.device), empty(m[1].shape, m[1].dtype, A.device)
    if numel(A):
        launch("Slogdet", A, sign, logabs)
    else:  # the determinant of an empty matrix is 1
        fill(sign, 1)
        fill(logabs, 0)
    return sign, logabs


QR_MODE = {"reduced": 0, "complete": 1, "r": 0}  # aclnnLinalgQr's mode (the doc: 0 reduced, 1 complete)


@kernel("linalg_qr")
def linalg_qr(m, A, mode="reduced"):
    chips.check_dtype("LinalgQr", A.dtype, "linalg.qr")
    r = empty(m[1].shape, m[1].dtype, A.device)
    # mode "r": R alone; Q is computed in the reduced shape and dropped (PyTorch returns an empty Q)
    q = (
        empty(A._shape[:-1] + (min(A._shape[-2:]),), A.dtype, A.device)
        if mode == "r"
        else empty(m[0].shape, m[0].dtype, A.device)
    )
    if numel(A):
        launch("LinalgQr", A, QR_MODE[mode], q, r)
    return (empty(m[0].shape, m[0].dtype, A.device) if mode == "r" else q), r


def _svd(A, full_matrices, compute_uv):
    """(U, S, V) from aclnnSvd (V, not its transpose: the header's input = U diag(S) V^T)."""
    chips.check_dtype("Svd", A.dtype, "linalg.svd")
    m, n = A._shape[-2:]
    k = min(m, n)
    batch = tuple(A._shape[:-2])
    s = empty(batch + (k,), A.dtype, A.device)
    u = empty(batch + (m, m if full_matrices else k), A.dtype, A.device)
    v = empty(batch + (n, n if full_matrices else k), A.dtype, A.device)
    if numel(A):
        launch("Svd", A, bool(full_matrices), bool(compute_uv), s, u, v)
    else:
        for t in (s, u, v):
            launch("InplaceZero", t)
    return u, s, v


@kernel("linalg_svdvals")
def linalg_svdvals(m, A, driver=None):
    return _svd(A, False, False)[1]


@kernel("linalg_svd")
def linalg_svd(m, A, full_matrices=True, driver=None):
    u, s, v = _svd(A, full_matrices, True)
    return u, s, contiguous(mT(v))


# --- solve and inverse through QR ---------------------------------------------------------------------------------

_SOLVE_SINGULAR = "linalg.solve: The solver failed because the input matrix is singular."


def _qr_solve(A, B, dtype, singular=_SOLVE_SINGULAR):
    """X with A X = B: A = Q R (QR, complete), X = R^-1 (Q^T B) by one triangular solve; a zero on R's
    diagonal is a singular A (LinAlgError with the caller's message)."""
    n = A._shape[-1]
    q, r = empty(A._shape, dtype, A.device), empty(A._shape, dtype, A.device)
    launch("LinalgQr", A, 1, q, r)
    if _any_host(_eq_zero(_diagonal(r))):
        raise LinAlgError(singular)
    batch = tuple(broadcast_shapes(tuple(A._shape[:-2]), tuple(B._shape[:-2])))
    qtb = empty(batch + tuple(B._shape[-2:]), dtype, A.device)
    launch("Matmul", mT(q), B, qtb, cube_math_type(dtype))
    x, mo = empty(qtb._shape, dtype, A.device), empty(batch + (n, n), dtype, A.device)
    launch("TriangularSolve", qtb, r, True, False, False, x, mo)
    return x


@kernel("linalg_solve")
def linalg_solve(m, A, B, left=True):
    chips.check_dtype("Matmul", m.dtype, "linalg.solve")  # the product with Q^T
    if not numel(A) or not numel(B):
        return empty(m.shape, m.dtype, A.device)
    if left:
        return _qr_solve(A, B, m.dtype)
    # X A = B  <=>  A^T X^T = B^T
    return contiguous(mT(_qr_solve(contiguous(mT(A)), contiguous(mT(B)), m.dtype)))


@kernel("linalg_inv")
def linalg_inv(m, A):
    chips.check_dtype("Matmul", m.dtype, "linalg.inv")
    n = A._shape[-1]
    if not numel(A):
        return empty(m.shape, m.dtype, A.device)
    eye_ = empty((n, n), m.dtype, A.device)
    launch("Eye", n, n, eye_)
    return _qr_solve(
        A,
        view(eye_, tuple(A._shape[:-2]) + (n, n), (0,) * (len(A._shape) - 2) + (n, 1)),
        m.dtype,
        "linalg.inv: The diagonal element 1 is zero, the inversion could not be completed because the "
        "input matrix is singular.",
    )
