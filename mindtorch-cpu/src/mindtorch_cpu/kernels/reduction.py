"""Reduction kernels."""
import numpy as np

from ..convert import arr, wrap, TO_NP

KERNELS = {}


def kernel(name):
    def deco(fn):
        KERNELS[name] = fn
        return fn
    return deco


def axes(dim, ndim):
    if dim is None or dim == ():
        return None
    if isinstance(dim, int):
        dim = (dim,)
    return tuple(d % ndim for d in dim) if ndim else None


@kernel("sum")
def sum_(m, a, dim=None, keepdim=False, dtype=None):
    x = arr(a)
    return wrap(np.sum(x, axis=axes(dim, x.ndim), keepdims=keepdim, dtype=TO_NP[m.dtype]), m.dtype)
