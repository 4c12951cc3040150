"""Host <-> NPU copies (the backend's copy routines) and the tensor helpers kernels share.

A blocking copy synchronizes the current stream (so it follows the kernels that produced its source
or still read its destination), then copies with the synchronous aclrtMemcpy, as torch_npu does: an
aclrtMemcpyAsync from pageable (NumPy) memory is documented as unpredictable before CANN 8.5. A
non-blocking upload goes through pinned staging memory and stays asynchronous.
"""

import numpy as np
from mindtorch.plugins import c_strides, device as Device, dtypes as D, make_tensor, numel

from . import chips
from .native import load as load_native
from .state import ALLOCATOR, RUNTIME, STAGING

H2D, D2H = 1, 2  # aclrtMemcpyKind: ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST
HOST_DTYPE = {
    D.float32: np.float32,
    D.float16: np.float16,
    D.bfloat16: np.uint16,
    D.float64: np.float64,
    D.int8: np.int8,
    D.uint8: np.uint8,
    D.int16: np.int16,
    D.int32: np.int32,
    D.int64: np.int64,
    D.bool_: np.bool_,
    D.complex64: np.complex64,
    D.complex128: np.complex128,
}


def npu_device(dev=None):
    """An indexed npu device: `None` or a bare "npu" means this thread's current device."""
    if dev is None or dev.index is None:
        return Device("npu", RUNTIME.current_device())
    RUNTIME.valid_index(dev.index)
    return dev


DENSE = {}  # shape -> (elements, C-contiguous strides): results come in a few shapes, over and over


def dense_layout(shape):
    """(elements, C-contiguous strides) of a tuple `shape`, kept in DENSE for the shapes that come again."""
    dense = DENSE.get(shape)
    if dense is None:
        dense = (numel(shape), c_strides(shape))
        if len(DENSE) < 4096:
            DENSE[shape] = dense
    return dense


def _empty_py(shape, dtype, dev):
    """A new dense tensor of `shape` and `dtype` on npu device `dev` (indexed), its memory uninitialized."""
    if shape.__class__ is not tuple:
        shape = tuple(shape)
    dense = dense_layout(shape)
    return make_tensor(ALLOCATOR.allocate(dense[0] * dtype.itemsize, dev), shape, dense[1], 0, dtype, dev)


_alloc = load_native("alloc")
# every result is made here: in C when built (a shape seen before), the Python version the reference
empty = _alloc.Empty(DENSE, ALLOCATOR, make_tensor, _empty_py) if _alloc is not None else _empty_py
PYTHON_TWINS = {"empty": _empty_py}


def address(t):
    return t._storage.data + t._offset * t.dtype.itemsize


class NPUCopy:
    def to_host(self, t):
        """An array of t's shape holding its values (bfloat16 as uint16 bits)."""
        index = t.device.index
        if t.dtype not in HOST_DTYPE:
            # a view such as view(uint64) can name a dtype no npu memory is ever copied as: the chip's refusal
            chips.check_chip_dtype(t.dtype, "copying an npu tensor to the host")
            raise TypeError(f"the npu device does not support tensors of dtype {t.dtype}")
        host_dt = HOST_DTYPE[t.dtype]
        n = numel(t._shape)
        if n == 0:
            return np.empty(t._shape, host_dt)
        if not t.is_contiguous():
            from .kernels import contiguous

            t = contiguous(t)
        out = np.empty(t._shape, host_dt)
        RUNTIME.use(index)
        RUNTIME.synchronize_stream(index, RUNTIME.current_stream(index))
        RUNTIME.memcpy(out.ctypes.data, address(t), out.nbytes, D2H)
        return out

    def from_host(self, array, dtype, device, non_blocking=False):
        if dtype not in HOST_DTYPE:
            raise TypeError(f"the npu device does not support tensors of dtype {dtype}")
        dev = npu_device(device)
        host = np.asarray(array, dtype=HOST_DTYPE[dtype], order="C")  # keeps 0-dim (ascontiguousarray does not)
        t = empty(host.shape, dtype, dev)
        self._upload(address(t), host, dev.index, non_blocking)
        return t

    def copy_from_host(self, dst, array, non_blocking=False):
        host = np.asarray(np.broadcast_to(array, dst._shape), dtype=HOST_DTYPE[dst.dtype], order="C")
        # aclrtMemcpyAsync wants 64-byte aligned addresses (CANN 8.0 docs); fresh blocks are, views may not be
        if dst.is_contiguous() and not (non_blocking and address(dst) % 64):
            self._upload(address(dst), host, dst.device.index, non_blocking)
        else:  # upload densely, then let the device scatter into the (strided or unaligned) view
            from .aclnn import launch

            launch("InplaceCopy", dst, self.from_host(host, dst.dtype, dst.device, non_blocking))
        return dst

    def _upload(self, dst_ptr, host, index, non_blocking):
        if not host.nbytes:
            return
        RUNTIME.use(index)
        stream = RUNTIME.current_stream(index)
        if non_blocking:
            src = host.ctypes.data
            block = STAGING.block_of(src, host.nbytes) if not src % 64 else None
            if RUNTIME.captures and RUNTIME.capturing(index) is not None:
                _captured_upload(dst_ptr, src, host.nbytes, stream, block)
            elif block is not None:  # a pinned tensor's memory: the copy reads it in place
                STAGING.copy_from(dst_ptr, src, host.nbytes, stream, index, block)
            else:
                STAGING.upload(dst_ptr, host, stream, index)
        else:
            RUNTIME.synchronize_stream(index, stream)
            RUNTIME.memcpy(dst_ptr, host.ctypes.data, host.nbytes, H2D)


def _captured_upload(dst_ptr, src, nbytes, stream, block):
    """While an NPU graph captures, the copy is recorded and reads its source at every replay: only a pinned
    tensor's memory, which its owner keeps, can be that source (a staging block is reused before any replay)."""
    if block is None:
        raise RuntimeError(
            "a non-blocking upload of pageable host memory cannot be captured in an NPU graph: its staging buffer "
            "is reused before the graph replays. Upload from a pinned tensor (Tensor.pin_memory()), whose memory "
            "each replay reads, or upload before the capture"
        )
    RUNTIME.memcpy_async(dst_ptr, src, nbytes, H2D, stream)


COPY = NPUCopy()
