"""Tensor <-> NumPy: zero-copy strided views of a storage, and wrapping results."""

from functools import partial

import numpy as np
from mindtorch.plugins import (
    Storage,
    c_strides,
    device as _device,
    dtypes as D,
    host_result,
    make_tensor,
)

from .allocator import ALLOCATOR, LAZY_MAX

CPU = _device("cpu")

try:  # bfloat16 arithmetic comes from ml_dtypes
    import ml_dtypes as _mld

    _BF16 = np.dtype(_mld.bfloat16)
except ImportError:  # pragma: no cover - declared dependency
    _BF16 = None

TO_NP = {
    D.bool_: np.dtype(np.bool_),
    D.uint8: np.dtype(np.uint8),
    D.int8: np.dtype(np.int8),
    D.int16: np.dtype(np.int16),
    D.int32: np.dtype(np.int32),
    D.int64: np.dtype(np.int64),
    D.float16: np.dtype(np.float16),
    D.bfloat16: _BF16,
    D.float32: np.dtype(np.float32),
    D.float64: np.dtype(np.float64),
    D.complex64: np.dtype(np.complex64),
    D.complex128: np.dtype(np.complex128),
    D.uint16: np.dtype(np.uint16),
    D.uint32: np.dtype(np.uint32),
    D.uint64: np.dtype(np.uint64),
}
FROM_NP = {v: k for k, v in TO_NP.items() if v is not None}


def arr(t):
    """The NumPy view of a CPU tensor (cached on the tensor; shares memory)."""
    a = t._np
    if a is None:
        dt = TO_NP[t.dtype]
        isz = dt.itemsize
        if 0 in t._shape:  # an empty view may sit past the end of its (empty) storage
            a = np.empty(t._shape, dt)
        else:
            a = np.ndarray(
                t._shape, dt, buffer=t._storage.data, offset=t._offset * isz, strides=tuple(s * isz for s in t._stride)
            )
        t._np = a
    return a


def _wrap_other(a, dtype):
    """wrap() of what is not already a small dense ndarray of dtype's NumPy type."""
    if a.__class__ is not np.ndarray or dtype is None or a.dtype is not TO_NP[dtype]:
        a, dtype = _as_result(a, dtype)
        return _wrap_converted(a, dtype)
    return _stored(a, dtype)


def _stored(a, dtype):
    """A tensor over a Storage holding the ndarray `a` (copied only when its layout is not dense)."""
    if a.flags.c_contiguous:
        data = a
        strides = c_strides(a.shape)
    else:
        data = _dense_buffer(a)
        if data is None or not a.flags.writeable:
            a = data = np.array(a, order="C", copy=True)
            strides = c_strides(a.shape)
        else:
            isz = a.itemsize
            strides = tuple(s // isz for s in a.strides)
    nbytes = a.nbytes
    st = Storage(CPU, nbytes, data, ALLOCATOR)
    ALLOCATOR.in_use += nbytes
    t = make_tensor(st, a.shape, strides, 0, dtype, CPU)
    t._np = a
    return t


def _as_result(a, dtype):
    """`a` as an ndarray of dtype's NumPy type (dtype None: the one `a` has), and that dtype."""
    if a.__class__ is not np.ndarray:
        a = np.asarray(a)
    if dtype is None:
        return a, FROM_NP[a.dtype]
    want = TO_NP[dtype]
    if want is not a.dtype and want != a.dtype:
        a = a.astype(want)
    return a, dtype


# wrap(a, dtype=None): a new tensor owning the NumPy result `a` (no copy when its layout is dense).
# A small dense one is the memory itself, counted while it lives (weakly referenced in the allocator's
# `lazy` table) and given a Storage only if asked (allocator.adopt); anything else goes to _wrap_other.
wrap = partial(host_result, CPU, ALLOCATOR, LAZY_MAX, TO_NP, _wrap_other)
_wrap_converted = partial(host_result, CPU, ALLOCATOR, LAZY_MAX, TO_NP, _stored)


def _dense_buffer(a):
    """A C-contiguous array over the same memory when `a` is a permuted dense array."""
    if any(s <= 0 for s in a.strides) or a.size == 0:
        return None
    order = sorted(range(a.ndim), key=lambda i: -a.strides[i])
    b = a.transpose(order)
    return b if b.flags.c_contiguous else None


def scalar_or_arr(x):
    return arr(x) if hasattr(x, "_shape") else x


def assignable(value, dt):
    """A fill value as NumPy can store it into dtype `dt`: a tensor's array, and a Python int beyond an integer
    dtype's range wrapped modulo 2**bits, as PyTorch's casts do (the op's shape rule refused what does not fit)."""
    if hasattr(value, "_shape"):
        return arr(value)
    kind = dt.kind
    if value.__class__ is complex and kind != "c":
        value = value.real  # its imaginary part is 0
    if kind == "b":
        return bool(value)
    if value.__class__ is int:
        if kind in "iu":
            info = np.iinfo(dt)
            if not info.min <= value <= info.max:
                return np.array(value % (1 << info.bits), dtype=np.uint64).astype(dt)
        elif kind != "c":
            return float(value)  # beyond a C long, too
    return value


def np_dtype(d):
    return TO_NP[d]


def empty(shape, dtype):
    return wrap(np.empty(shape, TO_NP[dtype]), dtype)


try:  # NumPy >= 2 keeps its error state in a context variable; setting it directly is ~4x cheaper
    from numpy._core._ufunc_config import _extobj_contextvar as _ERR_STATE

    with np.errstate(all="ignore"):
        _IGNORE_ALL = _ERR_STATE.get()

    class quiet:
        """Like np.errstate(all="ignore"): PyTorch computes inf/nan silently."""

        __slots__ = ("_token",)

        def __enter__(self):
            self._token = _ERR_STATE.set(_IGNORE_ALL)

        def __exit__(self, *exc):
            _ERR_STATE.reset(self._token)
except (ImportError, AttributeError):  # pragma: no cover - older NumPy

    def quiet():
        return np.errstate(all="ignore")
