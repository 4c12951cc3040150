"""Linear algebra kernels: NumPy's BLAS-backed matmul on the zero-copy views."""

import numpy as np
from mindtorch.plugins import dtypes as D

from .. import blas
from ..convert import TO_NP, arr, wrap
from . import kernel_table

KERNELS, kernel = kernel_table()


def _out(res, m):
    dt = TO_NP[m.dtype]
    if res.__class__ is not np.ndarray or res.dtype != dt:
        res = np.asarray(res, dtype=dt)
    if not res.flags.c_contiguous:
        res = np.ascontiguousarray(res)
    return wrap(res, m.dtype)


def _mm(m, a, b):
    x, y = a._np, b._np  # the cached NumPy views, made when missing
    if x is None:
        x = arr(a)
    if y is None:
        y = arr(b)
    d = a.dtype
    if d is D.float16 or d is D.bfloat16:  # accumulate in float32
        return _out(blas.matmul(x.astype(np.float32), y.astype(np.float32)), m)
    if x.ndim == 2 and y.ndim == 2:  # the same BLAS product as matmul's, without the ufunc machinery
        r = blas.dot(x, y)
        if r.dtype is x.dtype:  # a new array in the operands' dtype: wrapped as it is
            return wrap(r, m.dtype)
        return _out(r, m)
    return _out(blas.matmul(x, y), m)


KERNELS["matmul"] = _mm
KERNELS["mm"] = _mm
KERNELS["bmm"] = _mm
KERNELS["mv"] = _mm
KERNELS["dot"] = _mm


@kernel("linalg_svdvals")
def svdvals(m, a, driver=None):
    x = arr(a)
    if x.size == 0:
        return wrap(np.zeros(m.shape, TO_NP[m.dtype]), m.dtype)
    return _out(blas.linalg.svd(x, compute_uv=False), m)


# --- decompositions and solvers (NumPy's LAPACK) --------------------------------------------------
def _linalg_error(msg, info=None):
    from mindtorch.plugins import LinAlgError

    err = LinAlgError(msg)
    if info is not None:
        err.info = info
    return err


def _lapack(a, m):
    """The input in a dtype LAPACK computes in (float16/bfloat16 widen to float32)."""
    x = arr(a)
    return x.astype(np.float32) if x.dtype.itemsize < 4 and x.dtype.kind in "fV" else x


def _singular_order(x):
    """1-based index of the first zero pivot of an LU factorisation, as PyTorch's message reports it."""
    import scipy.linalg

    for mat in x.reshape((-1,) + x.shape[-2:]):
        try:
            with blas.GATE:
                _, u = scipy.linalg.lu(mat, permute_l=True)
        except ValueError:
            continue
        zero = np.flatnonzero(np.abs(np.diag(u)) == 0)
        if zero.size:
            return int(zero[0]) + 1
    return x.shape[-1]


def _nan_where_input_nan(res, x):
    """LAPACK's LU spreads a NaN of A over the whole result; NumPy's may leave parts finite."""
    bad = np.isnan(x).any(axis=(-2, -1))
    if bad.any():
        res = np.array(res, copy=True)
        res[bad] = np.nan
    return res


@kernel("linalg_inv")
def linalg_inv(m, A):
    x = _lapack(A, m)
    try:
        return _out(_nan_where_input_nan(blas.linalg.inv(x), x), m)
    except blas.linalg.LinAlgError:
        order = _singular_order(x)
        raise _linalg_error(
            f"linalg.inv: The diagonal element {order} is zero, the inversion could "
            "not be completed because the input matrix is singular.",
            order,
        ) from None


@kernel("linalg_slogdet")
def linalg_slogdet(m, A):
    sign, logabs = blas.linalg.slogdet(_lapack(A, m[0]))
    return _out(sign, m[0]), _out(logabs, m[1])


@kernel("linalg_solve")
def linalg_solve(m, A, B, left=True):
    x, b = _lapack(A, m), arr(B)
    batch = np.broadcast_shapes(x.shape[:-2], b.shape[:-2])
    x = np.broadcast_to(x, batch + x.shape[-2:])
    b = np.broadcast_to(b, batch + b.shape[-2:])
    try:
        return _out(_nan_where_input_nan(blas.linalg.solve(x, b), x), m)
    except blas.linalg.LinAlgError:
        raise _linalg_error("linalg.solve: The solver failed because the input matrix is singular.") from None


@kernel("linalg_cholesky")
def linalg_cholesky(m, A, upper=False):
    x, order = _lapack(A, m), 0
    try:
        L = blas.linalg.cholesky(x)
        order = _first_nan_pivot(L)
        if order:  # LAPACK's potrf stops at a NaN pivot; NumPy's carries it through
            raise blas.linalg.LinAlgError
    except blas.linalg.LinAlgError:
        order = order or _cholesky_failure(x)
        raise _linalg_error(
            f"linalg.cholesky: The factorization could not be completed because the input is not "
            f"positive-definite (the leading minor of order {order} is not positive-definite).",
            order,
        ) from None
    return _out(np.swapaxes(L, -1, -2).conj() if upper else L, m)


def _first_nan_pivot(L):
    """1-based index of the first NaN on the diagonal of any factor of the batch, or 0."""
    for d in np.isnan(np.diagonal(L, axis1=-2, axis2=-1)).reshape(-1, L.shape[-1]):
        if d.any():
            return int(np.argmax(d)) + 1
    return 0


def _cholesky_failure(x):
    for mat in x.reshape((-1,) + x.shape[-2:]):
        for k in range(1, mat.shape[-1] + 1):
            try:
                blas.linalg.cholesky(mat[:k, :k])
            except blas.linalg.LinAlgError:
                return k
    return x.shape[-1]


@kernel("linalg_eigh")
def linalg_eigh(m, A, UPLO="L"):
    w, v = blas.linalg.eigh(_lapack(A, m[1]), UPLO=UPLO)
    return _out(w, m[0]), _out(v, m[1])


@kernel("linalg_qr")
def linalg_qr(m, A, mode="reduced"):
    x = _lapack(A, m[1])
    if mode == "r":
        return _out(np.zeros(m[0].shape), m[0]), _out(blas.linalg.qr(x, mode="r"), m[1])
    q, r = blas.linalg.qr(x, mode=mode)
    return _out(q, m[0]), _out(r, m[1])


@kernel("linalg_svd")
def linalg_svd(m, A, full_matrices=True, driver=None):
    x = _lapack(A, m[0])
    if x.size == 0:  # the singular vectors of an empty matrix: identities (empty when reduced)
        return tuple(
            _out(np.broadcast_to(np.eye(*t.shape[-2:]), t.shape) if i != 1 else np.zeros(t.shape), t)
            for i, t in enumerate(m)
        )
    u, s, vh = blas.linalg.svd(x, full_matrices=full_matrices)
    return _out(u, m[0]), _out(s, m[1]), _out(vh, m[2])


@kernel("linalg_lstsq")
def linalg_lstsq(m, A, B, rcond=None, driver=None):
    x, b = _lapack(A, m[0]), arr(B)
    if x.ndim == 2:
        sol, _, rank, sv = blas.linalg.lstsq(x, b, rcond=rcond)
        return _out(sol, m[0]), _out(np.zeros(m[1].shape), m[1]), _out(np.int64(rank), m[2]), _out(sv, m[3])
    sols, ranks, svs = [], [], []
    batch = x.shape[:-2]
    for mat, rhs in zip(
        x.reshape((-1,) + x.shape[-2:]), np.broadcast_to(b, batch + b.shape[-2:]).reshape((-1,) + b.shape[-2:])
    ):
        sol, _, rank, sv = blas.linalg.lstsq(mat, rhs, rcond=rcond)
        sols.append(sol)
        ranks.append(rank)
        svs.append(sv)
    return (
        _out(np.stack(sols).reshape(m[0].shape), m[0]),
        _out(np.zeros(m[1].shape), m[1]),
        _out(np.array(ranks, np.int64).reshape(m[2].shape), m[2]),
        _out(np.stack(svs).reshape(m[3].shape), m[3]),
    )


@kernel("linalg_solve_triangular")
def linalg_solve_triangular(m, A, B, upper, left=True, unitriangular=False):
    """BLAS's trsm per matrix of the broadcast batch: a zero on the diagonal gives inf/NaN, not an error."""
    from scipy.linalg import blas as sblas

    dt = TO_NP[m.dtype]
    x, b = arr(A).astype(dt, copy=False), arr(B).astype(dt, copy=False)
    batch = np.broadcast_shapes(x.shape[:-2], b.shape[:-2])
    xs = np.broadcast_to(x, batch + x.shape[-2:]).reshape((-1,) + x.shape[-2:])
    bs = np.broadcast_to(b, batch + b.shape[-2:]).reshape((-1,) + b.shape[-2:])
    trsm = sblas.get_blas_funcs("trsm", (xs, bs))
    out = np.empty(batch + b.shape[-2:], dt).reshape(bs.shape)
    with blas.GATE:
        for i, (a, rhs) in enumerate(zip(xs, bs)):
            if rhs.size:
                out[i] = trsm(1.0, a, rhs, side=0 if left else 1, lower=not upper, diag=int(unitriangular))
    return _out(out.reshape(batch + b.shape[-2:]), m)


def _matrices(x):
    return x.reshape((-1,) + x.shape[-2:])


@kernel("linalg_eig")
def linalg_eig(m, A):
    x = arr(A).astype(TO_NP[m[1].dtype], copy=False) if A.dtype.is_complex else _lapack(A, m[0])
    if x.size == 0:
        return _out(np.zeros(m[0].shape), m[0]), _out(np.zeros(m[1].shape), m[1])
    w, v = blas.linalg.eig(x)
    return _out(w, m[0]), _out(v, m[1])


def _lapack_fn(name, x):
    from scipy.linalg import lapack

    return lapack.get_lapack_funcs(name, (x,))


@kernel("geqrf")
def geqrf(m, A):
    x = arr(A).astype(TO_NP[m[0].dtype], copy=False)
    a = np.empty(m[0].shape, x.dtype)
    tau = np.empty(m[1].shape, x.dtype)
    if x.size:
        fn = _lapack_fn("geqrf", x)
        with blas.GATE:
            for i, mat in enumerate(_matrices(x)):
                qr, t, _, _ = fn(mat)
                a.reshape(_matrices(a).shape)[i], tau.reshape((-1, tau.shape[-1]))[i] = qr, t
    return _out(a, m[0]), _out(tau, m[1])


@kernel("linalg_ldl_factor_ex")
def linalg_ldl_factor_ex(m, A, hermitian=False):
    """LAPACK's Bunch-Kaufman factorization of the lower triangle (sytrf, or hetrf for a Hermitian A)."""
    x = arr(A).astype(TO_NP[m[0].dtype], copy=False)
    ld, piv = np.zeros(m[0].shape, x.dtype), np.zeros(m[1].shape, np.int32)
    info = np.zeros(m[2].shape, np.int32)
    if x.size:
        fn = _lapack_fn("hetrf" if hermitian and x.dtype.kind == "c" else "sytrf", x)
        lds, pivs, infos = _matrices(ld), piv.reshape((-1, x.shape[-1])), info.reshape(-1)
        with blas.GATE:
            for i, mat in enumerate(_matrices(x)):
                f, p, inf = fn(mat, lower=1)
                lds[i], pivs[i], infos[i] = np.tril(f), p, inf
    return _out(ld, m[0]), _out(piv, m[1]), _out(info, m[2])


@kernel("linalg_ldl_solve")
def linalg_ldl_solve(m, LD, pivots, B, hermitian=False):
    dt = TO_NP[m.dtype]
    ld, b = arr(LD).astype(dt, copy=False), arr(B).astype(dt, copy=False)
    piv = arr(pivots).astype(np.int32, copy=False)
    batch = tuple(m.shape[:-2])
    out = np.zeros(m.shape, dt)
    if out.size:
        fn = _lapack_fn("hetrs" if hermitian and dt.kind == "c" else "sytrs", ld)
        lds = _matrices(np.broadcast_to(ld, batch + ld.shape[-2:]))
        pivs = np.broadcast_to(piv, batch + piv.shape[-1:]).reshape((-1, piv.shape[-1]))
        bs = _matrices(np.broadcast_to(b, batch + b.shape[-2:]))
        outs = _matrices(out)
        with blas.GATE:
            for i in range(len(outs)):
                outs[i] = fn(lds[i], pivs[i], bs[i], lower=1)[0]
    return _out(out, m)
