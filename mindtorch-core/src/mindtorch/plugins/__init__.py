"""The backend plugin system and the public surface a backend builds on.

Backends (in this repository and third parties') import what they need
from here and nothing private from core (a test in the plugins session
enforces this for the in-repo backends):

    Backend, hookimpl, PLUGIN_API_VERSION   the plugin shape and hook markers
    Storage                                  a block of device memory from an allocator:
                                             Storage(device, nbytes, data, allocator)
    make_tensor(storage, shape, stride, offset, dtype, device)
                                             a tensor viewing a storage (geometry in elements)
    make_lazy_tensor(host, shape, stride, dtype, device)
                                             a tensor over a C-contiguous host array whose Storage is
                                             built by the allocator's adopt(host, device) on first use
    host_result(device, allocator, limit, host_dtypes, general, a, dtype=None)
                                             make_lazy_tensor over a small C-contiguous ndarray result,
                                             counted in allocator.lazy; else general(a, dtype)
    Tensor, TensorMeta                       tensors; the (shape, dtype) a shape rule returns
    dtypes                                   the dtype objects (dtypes.float32, ...; each with
                                             .itemsize, .is_floating_point, .is_complex) and helpers:
                                             .TENSOR_DTYPES (every dtype a tensor holds, the wide
                                             unsigned integers included), .ALL (those in the promotion
                                             table), promote_types, result_type, finfo, iinfo, ...
    device                                   device objects (device("npu", 1))
    contiguous_strides, c_strides, numel, broadcast_shapes, wrap_dims
                                             geometry helpers (wrap_dims: negative dims to positions)
    missing_kernel_error(op, device_type)    the error for an op a device cannot run
    kernel_table(), clamp_family(clamp, clamp_)
                                             a kernel dict with its registering decorator; the clamp ops
    OutOfMemoryError                         what an allocator raises when the device is full
    LinAlgError                              what a linear-algebra kernel raises for a singular or
                                             non-positive-definite input
    default_generator(device)                the default random Generator of a device (torch.cuda.default_generators)
    backend_for(device_type)                 a loaded backend's record: .allocator, .to_host(t),
                                             .from_host(array, dtype, device), .copy_from_host(dst, a)
    OPS                                      the op table {qualified name: Op}: .meta, .inplace,
                                             .view_fn, .composite, .name, .qualname, .signature,
                                             .params (each .name, .kwarg_only, .writes, ...), .mutated
    generator_state(generator, device)       the backend state object a random kernel draws from
    arange_params, random_bounds             how arange / random_ compute their ranges
    bf16_bits_to_float, float_to_bf16_bits, to_host_array
                                             bfloat16 travels between host and devices as uint16 bits
    get_num_threads                          the intra-op thread count a backend's pool should use
    tree_flatten, tree_unflatten, tree_leaves
                                             nested containers of tensors as flat lists and back
                                             (torch.utils._pytree's meaning), e.g. for graph capture
    protocols                                the contract as typing.Protocol classes: Allocator,
                                             CachingAllocator, SharingAllocator, CopyRoutines,
                                             GeneratorState, Kernel,
                                             CollectiveEngine, Work
"""

from .. import _dtype as dtypes  # noqa: F401
from .._backends.registry import backend_for  # noqa: F401
from .._device import device  # noqa: F401
from .._errors import LinAlgError, OutOfMemoryError, missing_kernel_error  # noqa: F401
from .._generator import (
    default_generator,  # noqa: F401
    generator_state,  # noqa: F401
)
from .._geometry import broadcast_shapes, c_strides, contiguous_strides, numel, wrap_dims  # noqa: F401
from .._host_data import bf16_bits_to_float, float_to_bf16_bits  # noqa: F401
from .._storage import Storage  # noqa: F401
from .._tensor import Tensor, host_result, make_lazy_tensor, make_tensor  # noqa: F401
from .._tensor_from_data import to_host_array  # noqa: F401
from .._threads import get_num_threads  # noqa: F401
from ..ops.creation import arange_params  # noqa: F401
from ..ops.meta import TensorMeta  # noqa: F401
from ..ops.random import random_bounds  # noqa: F401
from ..ops.registry import OPS  # noqa: F401
from ..utils._pytree import tree_flatten, tree_leaves, tree_unflatten  # noqa: F401
from . import protocols  # noqa: F401
from .backend import Backend  # noqa: F401
from .hookspec import PLUGIN_API_VERSION, hookimpl  # noqa: F401
from .kernel_helpers import clamp_family, kernel_table  # noqa: F401
