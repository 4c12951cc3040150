"""Matrix decompositions and solvers for mindtorch.linalg: inverse, slogdet, solve, cholesky, eigh, qr, svd,
lstsq — each declared with its shape rule and, where PyTorch differentiates it, its derivative.

Batched over leading dimensions; float32/float64 (and complex where the backend supports it). A singular
or non-positive-definite input raises mindtorch.linalg.LinAlgError (a RuntimeError), as PyTorch.
"""
from .registry import defop
from . import meta as M
from .grad_helpers import torch, shape_of, not_implemented  # noqa: F401
from .linalg import _tname

F = "linalg"
TM = M.TensorMeta


def _square(name, A):
    if len(A._shape) < 2:
        raise RuntimeError(f"linalg.{name}: The input tensor A must have at least 2 dimensions.")
    if A._shape[-1] != A._shape[-2]:
        raise RuntimeError(f"linalg.{name}: A must be batches of square matrices, but they are "
                           f"{A._shape[-2]} by {A._shape[-1]} matrices")
    _floating(name, A)


def _floating(name, A):
    if not (A.dtype.is_floating_point or A.dtype.is_complex):
        raise RuntimeError(f"linalg.{name}: Expected a floating point or complex tensor as input. Got {_tname(A.dtype)}")


def _matrix(name, A):
    if len(A._shape) < 2:
        raise RuntimeError(f"linalg.{name}: The input tensor A must have at least 2 dimensions.")
    _floating(name, A)


def _inv_meta(A):
    _square("inv", A)
    return TM(A._shape, A.dtype)


def _slogdet_meta(A):
    _square("slogdet", A)
    return TM(A._shape[:-2], A.dtype), TM(A._shape[:-2], A.dtype.to_real())


def _solve_meta(A, B, left=True):
    _square("solve", A)
    if B._shape[-2:-1] != A._shape[-1:]:
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation AX = B "
                           f"({A._shape[-2]}x{A._shape[-1]} and {B._shape[-2]}x{B._shape[-1]})")
    from .._shape import broadcast_shapes
    batch = broadcast_shapes(A._shape[:-2], B._shape[:-2])
    return TM(tuple(batch) + tuple(B._shape[-2:]), A.dtype)


def _cholesky_meta(A, upper=False):
    _square("cholesky", A)
    return TM(A._shape, A.dtype)


def _eigh_meta(A, UPLO="L"):
    _square("eigh", A)
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    return TM(A._shape[:-1], A.dtype.to_real()), TM(A._shape, A.dtype)


def _qr_meta(A, mode="reduced"):
    _matrix("qr", A)
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), "
                           "'r', or 'complete'")
    m, n = A._shape[-2:]
    k = min(m, n)
    batch = tuple(A._shape[:-2])
    if mode == "r":
        return TM(batch + (0,), A.dtype), TM(batch + (k, n), A.dtype)
    q = m if mode == "complete" else k
    return TM(batch + (m, q), A.dtype), TM(batch + (q, n), A.dtype)


def _svd_meta(A, full_matrices=True, driver=None):
    _matrix("svd", A)
    m, n = A._shape[-2:]
    k = min(m, n)
    batch = tuple(A._shape[:-2])
    um, vn = (m, n) if full_matrices else (k, k)
    return TM(batch + (m, um), A.dtype), TM(batch + (k,), A.dtype.to_real()), TM(batch + (vn, n), A.dtype)


def _lstsq_meta(A, B, rcond=None, driver=None):
    _matrix("lstsq", A)
    m, n = A._shape[-2:]
    batch = tuple(A._shape[:-2])
    return (TM(batch + (n,) + tuple(B._shape[-1:]), A.dtype), TM((0,), A.dtype.to_real()),
            TM(batch, torch.int64), TM(batch + (min(m, n),), A.dtype.to_real()))


# --- derivatives (real inputs; the standard matrix-calculus results) ------------------------------
def _diag_embed(d):
    """(..., n) -> (..., n, n) with d on the diagonal."""
    return d.unsqueeze(-1) * torch.eye(d.shape[-1], dtype=d.dtype, device=d.device)


def inv_backward(grad, result):
    Ainv_t = result.mT
    return -torch.matmul(torch.matmul(Ainv_t, grad), Ainv_t)


def slogdet_backward(grad_logabsdet, A):
    return grad_logabsdet.unsqueeze(-1).unsqueeze(-1) * torch.ops.linalg_inv(A).mT


def solve_backward_B(grad, A):
    return torch.ops.linalg_solve(A.mT, grad)


def solve_backward_A(grad, A, result):
    gB = torch.ops.linalg_solve(A.mT, grad)
    return -torch.matmul(gB, result.mT)


def cholesky_backward(grad, L, upper):
    """A = L L^T: gA = sym(L^{-T} Phi(L^T gL) L^{-1}), Phi taking the lower triangle with a halved diagonal."""
    if upper:  # result is U = L^T; its gradient is the transposed one
        L, grad = L.mT, grad.mT
    P = torch.matmul(L.mT, grad).tril()
    P = P - 0.5 * _diag_embed(P.diagonal(dim1=-2, dim2=-1))
    Linv = torch.ops.linalg_inv(L)
    S = torch.matmul(torch.matmul(Linv.mT, P), Linv)
    return 0.5 * (S + S.mT)


def eigh_backward(grads, L, V):
    """gA = V (diag(gL) + skew(V^T gV) / (L_j - L_i)) V^T (PyTorch's formula for the Hermitian case)."""
    gL, gV = grads
    inner = None
    if gV is not None:
        VtgV = torch.matmul(V.mT, gV)
        E = L.unsqueeze(-2) - L.unsqueeze(-1)
        E = E + _diag_embed(torch.ones_like(L))  # the diagonal is replaced below; avoid 0/0
        inner = 0.5 * (VtgV - VtgV.mT) / E
        inner = inner - _diag_embed(inner.diagonal(dim1=-2, dim2=-1))
    if gL is not None:
        d = _diag_embed(gL)
        inner = d if inner is None else inner + d
    return torch.matmul(torch.matmul(V, inner), V.mT)


def _zeros_if_none(g, like):
    return torch.zeros_like(like) if g is None else g


def _qr_backward_tall(gQ, gR, Q, R):
    """m >= n: M = R gR^T - gQ^T Q, gA = (gQ + Q sym_lower(M)) R^{-T}, sym_lower mirroring M's lower
    triangle onto the upper one (diagonal kept)."""
    M = torch.matmul(R, gR.mT) - torch.matmul(gQ.mT, Q)
    low = M.tril(-1)
    sym = low + low.mT + _diag_embed(M.diagonal(dim1=-2, dim2=-1))
    b = gQ + torch.matmul(Q, sym)
    return torch.ops.linalg_solve(R, b.mT).mT  # b R^{-T}


def qr_backward(grads, A, Q, R, mode):
    """Tall or square A directly; wide A = [X Y] as X = Q R1 with R2 = Q^T Y, whose gradient reaches Q too."""
    m, n = A.shape[-2], A.shape[-1]
    if mode == "r":
        raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
                           "Please use linalg.qr(A, mode='reduced') if you are going to differentiate through "
                           "linalg.qr.")
    if mode == "complete" and m > n:
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and nrows > ncols.")
    gQ, gR = _zeros_if_none(grads[0], Q), _zeros_if_none(grads[1], R)
    if m >= n:
        return _qr_backward_tall(gQ, gR, Q, R)
    Y = A[..., :, m:]
    gR1, gR2 = gR[..., :, :m], gR[..., :, m:]
    gX = _qr_backward_tall(gQ + torch.matmul(Y, gR2.mT), gR1, Q, R[..., :, :m])
    return torch.cat([gX, torch.matmul(Q, gR2)], -1)


def lstsq_backward(grad, A, B, X, which):
    """The solution of a full-rank least-squares problem: X = (A^T A)^{-1} A^T B when A is tall or square,
    the minimum-norm X = A^T (A A^T)^{-1} B when it is wide. Gradients for A (which=0) or B (which=1)."""
    m, n = A.shape[-2], A.shape[-1]
    vector = B.dim() == A.dim() - 1
    if vector:
        B, X, grad = B.unsqueeze(-1), X.unsqueeze(-1), grad.unsqueeze(-1)
    if m >= n:
        G = torch.ops.linalg_solve(torch.matmul(A.mT, A), grad)
        if which == 1:
            out = torch.matmul(A, G)
        else:
            R = B - torch.matmul(A, X)
            out = torch.matmul(R, G.mT) - torch.matmul(torch.matmul(A, G), X.mT)
    else:
        AAt = torch.matmul(A, A.mT)
        Z = torch.ops.linalg_solve(AAt, torch.matmul(A, grad))
        if which == 1:
            out = Z
        else:
            Y = torch.ops.linalg_solve(AAt, B)
            out = torch.matmul(Y, grad.mT) - torch.matmul(Z, X.mT) - torch.matmul(torch.matmul(Y, Z.mT), A)
    return out.squeeze(-1) if vector and which == 1 else out


def svd_backward(grads, A, U, S, Vh, full_matrices):
    """A = U diag(S) V^T (distinct nonzero singular values): the inner part U^T gA V from the symmetric
    parts of U^T gU and V^T gV scaled by 1/(s_j^2 - s_i^2), plus the parts of gU and gV outside the spans
    of U and V."""
    gU, gS, gVh = grads
    m, n = A.shape[-2], A.shape[-1]
    k = S.shape[-1]
    # with full_matrices, the columns of U and rows of Vh past min(m, n) carry no gradient (as in PyTorch)
    U, Vh = U[..., :, :k], Vh[..., :k, :]
    V = Vh.mT
    gU = None if gU is None else gU[..., :, :k]
    gV = None if gVh is None else gVh[..., :k, :].mT
    Sd = _diag_embed(S)
    inner = _diag_embed(gS) if gS is not None else torch.zeros_like(Sd)
    if gU is not None or gV is not None:
        s2 = S * S
        E = s2.unsqueeze(-2) - s2.unsqueeze(-1)            # E_ij = s_j^2 - s_i^2
        eye = _diag_embed(torch.ones_like(S))
        F = torch.where(eye > 0, torch.zeros_like(E), 1 / (E + eye))
    if gU is not None:
        UtgU = torch.matmul(U.mT, gU)
        inner = inner + torch.matmul(F * (UtgU - UtgU.mT), Sd)
    if gV is not None:
        VtgV = torch.matmul(V.mT, gV)
        inner = inner + torch.matmul(Sd, F * (VtgV - VtgV.mT))
    gA = torch.matmul(torch.matmul(U, inner), Vh)
    Sinv = _diag_embed(1 / S)
    if gU is not None and m > k:
        proj = gU - torch.matmul(U, torch.matmul(U.mT, gU))
        gA = gA + torch.matmul(torch.matmul(proj, Sinv), Vh)
    if gV is not None and n > k:
        proj = gV - torch.matmul(V, torch.matmul(V.mT, gV))
        gA = gA + torch.matmul(torch.matmul(U, Sinv), proj.mT)
    return gA


defop("linalg_inv(Tensor A) -> Tensor", meta=_inv_meta, method=False, family=F,
      grad={"A": "inv_backward(grad, result)"})
defop("linalg_slogdet(Tensor A) -> (Tensor sign, Tensor logabsdet)", meta=_slogdet_meta, method=False, family=F,
      grad={"A": "slogdet_backward(grads[1], A)"})
defop("linalg_solve(Tensor A, Tensor B, *, bool left=True) -> Tensor", meta=_solve_meta, method=False, family=F,
      grad={"A": "solve_backward_A(grad, A, result)", "B": "solve_backward_B(grad, A)"})
defop("linalg_cholesky(Tensor A, *, bool upper=False) -> Tensor", meta=_cholesky_meta, method=False, family=F,
      grad={"A": "cholesky_backward(grad, result, upper)"})
defop("linalg_eigh(Tensor A, str UPLO=\"L\") -> (Tensor eigenvalues, Tensor eigenvectors)", meta=_eigh_meta,
      method=False, family=F, grad={"A": "eigh_backward(grads, result[0], result[1])"})
defop("linalg_qr(Tensor A, str mode=\"reduced\") -> (Tensor Q, Tensor R)", meta=_qr_meta, method=False, family=F,
      grad={"A": "qr_backward(grads, A, result[0], result[1], mode)"})
defop("linalg_svd(Tensor A, bool full_matrices=True, *, str? driver=None) -> (Tensor U, Tensor S, Tensor Vh)",
      meta=_svd_meta, method=False, family=F,
      grad={"A": "svd_backward(grads, A, result[0], result[1], result[2], full_matrices)"})
defop("linalg_lstsq(Tensor A, Tensor B, float? rcond=None, *, str? driver=None) -> (Tensor solution, Tensor "
      "residuals, Tensor rank, Tensor singular_values)", meta=_lstsq_meta, method=False, family=F,
      grad={"A": "lstsq_backward(grads[0], A, B, result[0], 0)", "B": "lstsq_backward(grads[0], A, B, result[0], 1)"})
