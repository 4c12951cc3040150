"""Linear algebra kernels: NumPy's BLAS-backed matmul on the zero-copy views."""
import numpy as np

from ..convert import arr, wrap, TO_NP
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
    x, y = arr(a), arr(b)
    if x.dtype.name in ("float16", "bfloat16"):  # accumulate in float32
        return _out(np.matmul(x.astype(np.float32), y.astype(np.float32)), m)
    return _out(np.matmul(x, y), m)


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
    return _out(np.linalg.svd(x, compute_uv=False), m)
