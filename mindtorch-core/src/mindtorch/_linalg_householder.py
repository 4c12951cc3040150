"""Products of Householder reflectors H_i = I - tau_i v_i v_i^H, the form geqrf leaves Q in (v_i: 1 at row
i, the column of the input below it, zeros above), composed of tensor ops: householder_product (orgqr)
and ormqr. They run on every backend and differentiate through the reflections."""

import mindtorch as _mt


def _reflector(A, i, rows):
    """v_i of the batch: (..., m)."""
    col = A[..., :, i]
    return _mt.where(rows > i, col, _mt.where(rows == i, _mt.ones_like(col), _mt.zeros_like(col)))


def _reflect_left(X, v, tau):
    """H X = X - tau v (v^H X) for each matrix of the batch."""
    w = _mt.matmul(v.conj().unsqueeze(-2), X)
    return X - tau[..., None, None] * v.unsqueeze(-1) * w


def _reflect_right(X, v, tau):
    """X H = X - tau (X v) v^H."""
    w = _mt.matmul(X, v.unsqueeze(-1))
    return X - tau[..., None, None] * w * v.conj().unsqueeze(-2)


def _check(name, A, tau):
    if A.dim() < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if tau.dim() < 1:
        raise RuntimeError(f"{name}: tau must have at least 1 dimension.")
    if tau.shape[-1] > A.shape[-1]:
        raise RuntimeError(f"{name}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    if tuple(tau.shape[:-1]) != tuple(A.shape[:-2]):
        raise RuntimeError(
            f"{name}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got {list(tau.shape[:-1])}"
        )
    if tau.dtype is not A.dtype:
        raise RuntimeError(f"{name}: tau dtype {_cname(tau.dtype)} does not match input dtype {_cname(A.dtype)}")
    if not (A.dtype.is_floating_point or A.dtype.is_complex) or A.dtype in (_mt.float16, _mt.bfloat16):
        raise NotImplementedError(f"\"orgqr_cpu\" not implemented for '{_cname(A.dtype)}'")


def _cname(dtype):
    from ._dtype import _cname

    return _cname(dtype)


def product(A, tau):
    """The first n columns of H_1 H_2 ... H_k (A: (..., m, n), m >= n >= k)."""
    name = "torch.linalg.householder_product"
    if A.dim() >= 2 and A.shape[-2] < A.shape[-1]:
        raise RuntimeError(f"{name}: input.shape[-2] must be greater than or equal to input.shape[-1]")
    _check(name, A, tau)
    m, n = A.shape[-2:]
    rows = _mt.arange(m, device=A.device)
    X = _mt.eye(m, n, dtype=A.dtype, device=A.device).expand(tuple(A.shape)).clone()
    for i in reversed(range(tau.shape[-1])):
        X = _reflect_left(X, _reflector(A, i, rows), tau[..., i])
    return X


def multiply(A, tau, C, left=True, transpose=False):
    """Q C, Q^H C, C Q or C Q^H for Q = H_1 ... H_k of A's reflectors (ormqr)."""
    name = "torch.ormqr"
    if A.dim() < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    m = A.shape[-2]
    if C.dim() != A.dim():
        raise RuntimeError(
            f"{name}: Expected other to have the same number of dimensions as input, but got other.ndim equal to "
            f"{C.dim()} and input.ndim is equal to {A.dim()}"
        )
    side = -2 if left else -1
    if tau.shape[-1] != min(C.shape[side], A.shape[-1]):
        raise RuntimeError(f"{name}: tau.shape[-1] must be equal to min(other.shape[{side}], input.shape[-1])")
    if C.shape[side] != m:
        raise RuntimeError(f"{name}: other.shape[{side}] must be equal to input.shape[-2]")
    if C.dtype is not A.dtype:
        raise RuntimeError(
            f"{name}: Expected input and other to have the same dtype, but input has dtype"
            f"{_cname(A.dtype)} and other has dtype {_cname(C.dtype)}"
        )
    _check(name, A, tau)
    rows = _mt.arange(m, device=A.device)
    k = tau.shape[-1]
    # Q C applies H_k first; Q^H C applies H_1^H first; C Q applies H_1 first; C Q^H applies H_k^H first
    order = range(k) if left == transpose else reversed(range(k))
    X = C
    for i in order:
        t = tau[..., i].conj() if transpose else tau[..., i]
        v = _reflector(A, i, rows)
        X = _reflect_left(X, v, t) if left else _reflect_right(X, v, t)
    return X
