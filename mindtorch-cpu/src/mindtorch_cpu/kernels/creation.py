"""Factory and copy kernels."""

import numpy as np

from ..convert import TO_NP, arr, assignable, quiet, wrap
from . import kernel_table

KERNELS, kernel = kernel_table()


@kernel("empty")
def empty(m, *args):
    return wrap(np.empty(m.shape, TO_NP[m.dtype]), m.dtype)


@kernel("empty_strided")
def empty_strided(m, size, stride, *args):
    from mindtorch.plugins import make_tensor

    from ..allocator import ALLOCATOR
    from ..convert import CPU

    isz = m.dtype.itemsize
    span = 1 + sum((s - 1) * st for s, st in zip(size, stride)) if all(size) else 0
    st = ALLOCATOR.allocate(span * isz, CPU)
    return make_tensor(st, tuple(size), tuple(stride), 0, m.dtype, CPU)


@kernel("full")
def full(m, size, value, *args):
    dt = TO_NP[m.dtype]
    return wrap(np.full(m.shape, assignable(value, dt), dt), m.dtype)


@kernel("arange.start_step")
def arange(m, start, end, step, *args):
    from mindtorch.plugins import arange_params

    _, start, step, n = arange_params(start, end, step, m.dtype)
    dt = TO_NP[m.dtype]
    if m.dtype.is_floating_point:
        r = (start + np.arange(n, dtype=np.float64) * step).astype(dt)
    else:
        r = (start + np.arange(n, dtype=np.int64) * step).astype(dt)
    return wrap(r, m.dtype)


@kernel("linspace")
def linspace(m, start, end, steps, *args):
    dt = TO_NP[m.dtype]
    if m.dtype.is_floating_point or m.dtype.is_complex:
        r = np.linspace(start, end, steps, dtype=np.float64).astype(dt)
    else:
        r = np.linspace(start, end, steps, dtype=np.float64).astype(dt)
    return wrap(r, m.dtype)


@kernel("logspace")
def logspace(m, start, end, steps, base, *args):
    return wrap(np.logspace(start, end, steps, base=base, dtype=np.float64).astype(TO_NP[m.dtype]), m.dtype)


@kernel("eye")
def eye(m, n, mm=None, *args):
    return wrap(np.eye(m.shape[0], m.shape[1], dtype=TO_NP[m.dtype]), m.dtype)


@kernel("clone")
def clone(m, a, memory_format=None):
    x = arr(a)
    order = "C" if memory_format == "contiguous_format" else "K"
    return wrap(np.array(x, order=order, copy=True), m.dtype)


@kernel("_to_copy")
def to_copy(m, a, dtype=None, device=None, non_blocking=False):
    x = arr(a)
    if a.dtype.is_complex and not m.dtype.is_complex and m.dtype._kind:
        x = x.real  # as PyTorch: the imaginary part is discarded
    if m.dtype._kind == 1 and a.dtype._kind >= 2:  # float -> int truncates; -> bool tests nonzero
        with quiet():
            return wrap(np.trunc(x).astype(TO_NP[m.dtype]), m.dtype)
    return wrap(x.astype(TO_NP[m.dtype], order="K", copy=True), m.dtype)


@kernel("copy_")
def copy_(m, dst, src, non_blocking=False):
    src_values = arr(src) if hasattr(src, "_shape") else src
    np.copyto(arr(dst), src_values, casting="unsafe")
    return dst


@kernel("fill_.Scalar")
def fill_(m, a, value):
    x = arr(a)
    x[...] = assignable(value, x.dtype)
    return a


@kernel("zero_")
def zero_(m, a):
    arr(a)[...] = 0
    return a
