"""LU factorization with partial pivoting, composed of tensor ops: it runs on every backend, over any batch,
and differentiates through its elimination steps. Built on it: lu_unpack, lu_solve, linalg.lu and
linalg.solve_ex. Pivots are LAPACK's (1-based int32 row swaps); the pivot row is the first of largest
magnitude, as LAPACK's getrf chooses it."""

import mindtorch as _mt

_SINGULAR = (
    "U[{0},{0}] is zero and using it on lu_solve would result in a division by zero. If you still want to "
    "perform the factorization, consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)"
)


def _check_input(name, A, pivot):
    if A.dim() < 2:
        raise RuntimeError(f"{name}: Expected tensor with 2 or more dimensions. Got size: {list(A.shape)} instead")
    if not (A.dtype.is_floating_point or A.dtype.is_complex) or A.dtype in (_mt.float16, _mt.bfloat16):
        raise NotImplementedError(f"\"lu_cpu\" not implemented for '{_cname(A.dtype)}'")
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")


def _cname(dtype):
    from ._dtype import _cname

    return _cname(dtype)


def _eliminate(LU, j, rows, cols, info):
    """One step of Gaussian elimination on column j: pick and swap in the pivot row, store the multipliers
    below the diagonal and update the trailing block. Returns (LU, the 0-based pivot row, info)."""
    m, n = LU.shape[-2:]
    batch = tuple(LU.shape[:-2])
    col = LU[..., :, j]
    # LAPACK's i?amax: |re| + |im| for complex
    mag = col.real.abs() + col.imag.abs() if col.is_complex() else col.abs()
    mag = _mt.where(rows >= j, mag, -1.0)
    p = mag.argmax(-1)
    pe = p.unsqueeze(-1)
    order = _mt.where(rows == j, pe, _mt.where(rows == pe, j, rows))
    LU = LU.gather(-2, order.unsqueeze(-1).expand(batch + (m, n)))
    pivot = LU[..., j, j]
    zero = pivot == 0
    info = _mt.where((info == 0) & zero, j + 1, info)
    below = (rows > j) & ~zero.unsqueeze(-1)
    safe = _mt.where(zero, _mt.ones_like(pivot), pivot).unsqueeze(-1)
    mult = _mt.where(below, LU[..., :, j] / safe, _mt.zeros_like(LU[..., :, j]))
    top = _mt.where(cols > j, LU[..., j, :], _mt.zeros_like(LU[..., j, :]))
    LU = LU - mult.unsqueeze(-1) * top.unsqueeze(-2)
    LU = _mt.where(below.unsqueeze(-1) & (cols == j), mult.unsqueeze(-1), LU)
    return LU, p, info


def _raise_singular(name, info):
    flat = info.reshape(-1).tolist()
    bad = next(i for i, v in enumerate(flat) if v)
    where = f"(Batch element {bad}): " if info.dim() else ""
    raise RuntimeError(f"{name}: {where}" + _SINGULAR.format(flat[bad]))


def factor_ex(A, pivot=True, check_errors=False, name="torch.linalg.lu_factor_ex", check_name="torch.lu_factor"):
    _check_input(check_name, A, pivot)
    m, n = A.shape[-2:]
    rows = _mt.arange(m, device=A.device)
    cols = _mt.arange(n, device=A.device)
    info = _mt.zeros(tuple(A.shape[:-2]), dtype=_mt.int32, device=A.device)
    LU, pivots = A, []
    for j in range(min(m, n)):
        LU, p, info = _eliminate(LU, j, rows, cols, info)
        pivots.append(p)
    if not pivots:
        LU = A.clone()
    piv = (
        _mt.stack(pivots, -1).to(_mt.int32) + 1
        if pivots
        else _mt.zeros(tuple(A.shape[:-2]) + (0,), dtype=_mt.int32, device=A.device)
    )
    if check_errors and bool((info != 0).any()):
        _raise_singular(name, info)
    return LU, piv, info


def permutation(pivots, m, dtype, device):
    """The permutation matrix P of LAPACK's row swaps: A = P L U."""
    rows = _mt.arange(m, device=device)
    perm = rows.expand(tuple(pivots.shape[:-1]) + (m,))
    for i in range(pivots.shape[-1]):
        p = (pivots[..., i].to(_mt.int64) - 1).unsqueeze(-1)
        here, there = perm[..., i : i + 1], perm.gather(-1, p)
        perm = _mt.where(rows == i, there, _mt.where(rows == p, here, perm))
    return (rows.unsqueeze(-1) == perm.unsqueeze(-2)).to(dtype)


def unpack(LU, pivots, unpack_data=True, unpack_pivots=True):
    m, n = LU.shape[-2:]
    k = min(m, n)
    empty = _mt.empty((0,), dtype=LU.dtype, device=LU.device)
    if unpack_data:
        eye = _mt.eye(m, k, dtype=LU.dtype, device=LU.device)
        L = LU[..., :, :k].tril(-1) + eye
        U = LU[..., :k, :].triu()
    else:
        L = U = empty
    P = permutation(pivots, m, LU.dtype, LU.device) if unpack_pivots else empty
    return P, L, U


def solve(LU, pivots, B, left=True, adjoint=False):
    if B.dim() < 2:
        raise RuntimeError("linalg.lu_solve: The input tensor B must have at least 2 dimensions.")
    from .ops.linalg import check_equation_shapes

    check_equation_shapes("linalg.lu_solve", tuple(LU.shape), tuple(B.shape), left)
    if not left:  # X A = B  <=>  A^H X^H = B^H
        return solve(LU, pivots, B.mH, True, not adjoint).mH
    P, L, U = unpack(LU, pivots)
    solve_t = _mt.ops.linalg_solve_triangular
    if adjoint:  # A^H = U^H L^H P^T
        Y = solve_t(U.mH, B, upper=False)
        return _mt.matmul(P, solve_t(L.mH, Y, upper=True, unitriangular=True))
    Y = solve_t(L, _mt.matmul(P.mT, B), upper=False, unitriangular=True)
    return solve_t(U, Y, upper=True)
