"""Pointwise kernels: NumPy ufuncs over zero-copy views, in the dtype core's rules chose."""
import numpy as np

from ..convert import arr, wrap, TO_NP

KERNELS = {}


def kernel(name):
    def deco(fn):
        KERNELS[name] = fn
        return fn
    return deco


def _v(x):
    """NumPy operand: the view of a tensor, or a Python scalar as is."""
    return arr(x) if hasattr(x, "_shape") else x


def _binary(ufunc, name):
    def out_of_place(m, a, b, *rest):
        return wrap(ufunc(_v(a), _v(b), dtype=TO_NP[m.dtype]), m.dtype)

    def in_place(m, a, b, *rest):
        ufunc(arr(a), _v(b), out=arr(a), dtype=TO_NP[m.dtype], casting="unsafe")
        return a
    KERNELS[name] = out_of_place
    KERNELS[name + "_"] = in_place


def _scaled(x, alpha):
    if alpha == 1:
        return _v(x)
    return _v(x) * alpha


@kernel("add")
def add(m, a, b, alpha=1):
    dt = TO_NP[m.dtype]
    if alpha != 1:
        b = np.multiply(_v(b), alpha, dtype=dt)
        return wrap(np.add(_v(a), b, dtype=dt), m.dtype)
    return wrap(np.add(_v(a), _v(b), dtype=dt), m.dtype)


@kernel("add_")
def add_(m, a, b, alpha=1):
    out = arr(a)
    np.add(out, _scaled(b, alpha), out=out, casting="unsafe")
    return a


@kernel("sub")
def sub(m, a, b, alpha=1):
    dt = TO_NP[m.dtype]
    if alpha != 1:
        b = np.multiply(_v(b), alpha, dtype=dt)
        return wrap(np.subtract(_v(a), b, dtype=dt), m.dtype)
    return wrap(np.subtract(_v(a), _v(b), dtype=dt), m.dtype)


@kernel("sub_")
def sub_(m, a, b, alpha=1):
    out = arr(a)
    np.subtract(out, _scaled(b, alpha), out=out, casting="unsafe")
    return a


_binary(np.multiply, "mul")


def _div_values(m, a, b, rounding_mode):
    dt = TO_NP[m.dtype]
    x, y = _v(a), _v(b)
    if rounding_mode is None:
        return np.true_divide(x, y, dtype=dt)
    if m.dtype.is_floating_point:
        q = np.true_divide(x, y, dtype=dt)
        return np.trunc(q) if rounding_mode == "trunc" else np.floor(q)
    x = np.asarray(x, dtype=dt)
    y = np.asarray(y, dtype=dt)
    if np.any(y == 0):
        raise RuntimeError("ZeroDivisionError")
    if rounding_mode == "floor":
        return np.floor_divide(x, y)
    q = np.floor_divide(x, y)
    fix = (q < 0) & (q * y != x)
    return (q + fix).astype(dt)


@kernel("div")
def div(m, a, b, rounding_mode=None):
    with np.errstate(divide="ignore", invalid="ignore"):
        return wrap(_div_values(m, a, b, rounding_mode), m.dtype)


@kernel("div_")
def div_(m, a, b, rounding_mode=None):
    with np.errstate(divide="ignore", invalid="ignore"):
        r = _div_values(m, a, b, rounding_mode)
    np.copyto(arr(a), r, casting="unsafe")
    return a
