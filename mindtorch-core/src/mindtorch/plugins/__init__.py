"""The backend plugin system and the public surface a backend builds on.

Backends (in this repository and third parties') import what they need
from here and nothing private from core:

    Backend, hookimpl, PLUGIN_API_VERSION   the plugin shape and hook markers
    Storage                                  a block of device memory from an allocator
    make_tensor(storage, shape, stride, offset, dtype, device)
                                             a tensor viewing a storage
    Tensor, TensorMeta                       tensors; the (shape, dtype) a shape rule returns
    dtypes                                   the dtype objects (dtypes.float32, ...) and helpers
    device                                   device objects (device("npu", 1))
    contiguous_strides, numel, broadcast_shapes
                                             geometry helpers
    missing_kernel_error(op, device_type)    the error for an op a device cannot run
    OutOfMemoryError                         what an allocator raises when the device is full
    get_num_threads                          the intra-op thread count a backend's pool should use
"""
from .hookspec import hookimpl, PLUGIN_API_VERSION  # noqa: F401
from .backend import Backend  # noqa: F401
from .._storage import Storage  # noqa: F401
from .._tensor import Tensor, make_tensor  # noqa: F401
from ..ops.meta import TensorMeta  # noqa: F401
from .. import _dtype as dtypes  # noqa: F401
from .._device import device  # noqa: F401
from .._shape import contiguous_strides, numel, broadcast_shapes  # noqa: F401
from .._errors import missing_kernel_error, OutOfMemoryError  # noqa: F401
from .._threads import get_num_threads  # noqa: F401
