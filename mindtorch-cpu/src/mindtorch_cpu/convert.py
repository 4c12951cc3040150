"""Tensor <-> NumPy: zero-copy strided views of a storage, and wrapping results."""
import numpy as np

from mindtorch import _dtype as D
from mindtorch._tensor import make_tensor
from mindtorch._storage import Storage
from mindtorch._device import device as _device

CPU = _device("cpu")

try:  # bfloat16 arithmetic comes from ml_dtypes
    import ml_dtypes as _mld
    _BF16 = np.dtype(_mld.bfloat16)
except ImportError:  # pragma: no cover - declared dependency
    _BF16 = None

TO_NP = {D.bool_: np.dtype(np.bool_), D.uint8: np.dtype(np.uint8), D.int8: np.dtype(np.int8),
         D.int16: np.dtype(np.int16), D.int32: np.dtype(np.int32), D.int64: np.dtype(np.int64),
         D.float16: np.dtype(np.float16), D.bfloat16: _BF16, D.float32: np.dtype(np.float32),
         D.float64: np.dtype(np.float64), D.complex64: np.dtype(np.complex64),
         D.complex128: np.dtype(np.complex128)}
FROM_NP = {v: k for k, v in TO_NP.items() if v is not None}
FROM_NP[np.dtype(np.uint16)] = D.bfloat16  # host interchange form of bfloat16 bits


def allocator():
    from .allocator import ALLOCATOR
    return ALLOCATOR


_ALLOC = None


def arr(t):
    """The NumPy view of a CPU tensor (cached on the tensor; shares memory)."""
    a = t._np
    if a is None:
        dt = TO_NP[t.dtype]
        isz = dt.itemsize
        a = np.ndarray(t._shape, dt, buffer=t._storage.data, offset=t._offset * isz,
                       strides=tuple(s * isz for s in t._stride))
        t._np = a
    return a


def wrap(a, dtype=None):
    """A new tensor owning the NumPy result `a` (no copy when its layout is dense)."""
    global _ALLOC
    if a.__class__ is not np.ndarray:
        a = np.asarray(a)
    if dtype is not None and TO_NP[dtype] != a.dtype:
        a = a.astype(TO_NP[dtype])
    elif dtype is None:
        dtype = FROM_NP[a.dtype]
    flags = a.flags
    if flags.c_contiguous:
        data = a
    else:
        data = _dense_buffer(a)
        if data is None:
            a = np.ascontiguousarray(a)
            data = a
    if not flags.writeable and data is a:
        a = a.copy()
        data = a
    isz = a.itemsize
    if _ALLOC is None:
        _ALLOC = allocator()
    st = Storage(CPU, a.nbytes, data, _ALLOC)
    _ALLOC.in_use += a.nbytes
    t = make_tensor(st, a.shape, tuple(s // isz for s in a.strides), 0, dtype, CPU)
    t._np = a
    return t


def _dense_buffer(a):
    """A C-contiguous array over the same memory when `a` is a permuted dense array."""
    if any(s <= 0 for s in a.strides) or a.size == 0:
        return None
    order = sorted(range(a.ndim), key=lambda i: -a.strides[i])
    b = a.transpose(order)
    return b if b.flags.c_contiguous else None


def scalar_or_arr(x):
    return arr(x) if hasattr(x, "_shape") else x


def np_dtype(d):
    return TO_NP[d]


def empty(shape, dtype):
    return wrap(np.empty(shape, TO_NP[dtype]), dtype)
