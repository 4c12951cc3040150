"""Matrix decompositions and solvers for mindtorch.linalg: inverse, slogdet, solve, cholesky, eigh, qr, svd,
lstsq — each declared with its shape rule and, where PyTorch differentiates it, its derivative.

Batched over leading dimensions; float32/float64 (and complex where the backend supports it). A singular
or non-positive-definite input raises mindtorch.linalg.LinAlgError (a RuntimeError), as PyTorch.
"""
from .registry import defop
from . import meta as M
from .formulas import torch, shape_of, not_implemented  # noqa: F401
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
