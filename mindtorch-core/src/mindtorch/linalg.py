"""mindtorch.linalg: norms and matrix functions (built on the op table)."""
import mindtorch as _mt

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
    if dtype is not None:
        A = A.to(dtype)
    if ord == "fro":
        return vector_norm(A, 2, (d0, d1), keepdim)
    if ord in ("nuc", 2, -2):
        # singular values of the matrices moved to the last two dims
        rest = [d for d in range(A.dim()) if d not in (d0, d1)]
        B = A.permute(rest + [d0, d1])
        s = svdvals(B)
        if ord == "nuc":
            r = s.sum(-1)
        else:
            r = s.amax(-1) if ord == 2 else s.amin(-1)
        if keepdim:
            for d in sorted((d0, d1)):
                r = r.unsqueeze(d)
        return r
    if ord in (1, -1, _INF, -_INF):
        if not A.dtype.is_floating_point and not A.dtype.is_complex:
            raise RuntimeError("linalg.matrix_norm: Expected a floating point or complex tensor as input. "
                               f"Got {A.dtype}")
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
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                           f"Got {A.dim()}D.")
    if len(dim) == 1:
        return vector_norm(A, ord, dim, keepdim, dtype=dtype)
    return matrix_norm(A, ord, dim, keepdim, dtype=dtype)


def matmul(input, other, *, out=None):
    return _mt.matmul(input, other) if out is None else _mt.matmul(input, other, out=out)


def vecdot(x, y, *, dim=-1, out=None):
    return (x.conj() * y).sum(dim) if x.dtype.is_complex else (x * y).sum(dim)
