"""Host copy routines for the CPU: the host *is* the device, so most are views."""

import numpy as np
from mindtorch.plugins import dtypes as D

from .convert import CPU, TO_NP, arr, wrap


class CPUCopy:
    def to_host(self, t):
        a = arr(t)
        if t.dtype is D.bfloat16:
            a = np.ascontiguousarray(a).reshape(a.shape).view(np.uint16)
        return a

    def from_host(self, array, dtype, device):
        if dtype is D.bfloat16 and array.dtype == np.uint16:
            array = array.view(TO_NP[D.bfloat16])
        return wrap(array, dtype)

    def copy_from_host(self, dst, array):
        if dst.dtype is D.bfloat16 and array.dtype == np.uint16:
            array = array.view(TO_NP[D.bfloat16])
        np.copyto(arr(dst), array, casting="unsafe")
        return dst

    def share_numpy(self, a, dtype):
        """from_numpy: a tensor over the array's own memory."""
        from mindtorch.plugins import Storage, make_tensor

        from .allocator import ALLOCATOR

        isz = a.itemsize
        if any(s < 0 for s in a.strides):
            raise ValueError(
                "At least one stride in the given numpy array is negative, and tensors with negative "
                "strides are not currently supported. (You can probably work around this by making a "
                "copy of your array  with array.copy().) "
            )
        if any(s % isz for s in a.strides):
            raise RuntimeError(
                "given numpy array strides not a multiple of the element byte size. Copy the numpy "
                "array to reallocate the memory."
            )
        if not a.flags.writeable:
            import warnings

            warnings.warn(
                "The given NumPy array is not writable, and PyTorch does not support non-writable tensors.",
                UserWarning,
                stacklevel=3,
            )
        span = (1 + sum((n - 1) * s // isz for n, s in zip(a.shape, a.strides))) if a.size else 0
        if a.flags.c_contiguous:
            buf = a
        else:
            buf = np.lib.stride_tricks.as_strided(a, shape=(span,), strides=(isz,))
        st = Storage(CPU, span * isz, buf, ALLOCATOR)
        ALLOCATOR.in_use += span * isz
        t = make_tensor(st, a.shape, tuple(s // isz for s in a.strides), 0, dtype, CPU)
        t._np = a if a.dtype == TO_NP[dtype] else None
        return t


COPY = CPUCopy()
