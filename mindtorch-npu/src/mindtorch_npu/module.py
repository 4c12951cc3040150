"""`mindtorch.npu`: the device module, as PyTorch users know torch.cuda / torch.npu."""

import contextlib

from mindtorch.plugins import OutOfMemoryError, default_generator, device as Device, dtypes as _dtypes  # noqa: F401 (torch.cuda has it)

from .options import (  # noqa: F401 (torch_npu's switches)
    config,
    get_mm_bmm_format_nd,
    is_jit_compile_false,
    set_compile_mode,
    set_mm_bmm_format_nd,
    set_option,
)
from .precision import conv, matmul  # noqa: F401 (torch.npu.conv.allow_hf32, torch.npu.matmul.allow_hf32)
from .state import ALLOCATOR, HOST_ALLOCATOR, RUNTIME, STAGING
from .streams import Event, Stream, StreamContext, _index, current_stream, default_stream, set_stream, stream  # noqa: F401


def is_available():
    return RUNTIME.available()


def device_count():
    return RUNTIME.device_count() if RUNTIME.probe() else 0


def is_initialized():
    return RUNTIME.state == "ready"


def init():
    RUNTIME.ensure()


def current_device():
    RUNTIME.ensure()
    return RUNTIME.current_device()


def set_device(device):
    RUNTIME.set_device(_index(device))


@contextlib.contextmanager
def device(device):
    """`with mindtorch.npu.device(1):` makes npu:1 current inside the block."""
    prev = RUNTIME.current_device()
    RUNTIME.set_device(_index(device))
    try:
        yield
    finally:
        RUNTIME.set_device(prev)


@contextlib.contextmanager
def device_of(obj):
    """`with torch.npu.device_of(tensor):` makes the tensor's npu device current (a no-op for other tensors)."""
    if obj.device.type != "npu":
        yield
        return
    with device(obj.device):
        yield


def synchronize(device=None):
    RUNTIME.synchronize(_index(device))
    STAGING.poll()


# page-locked host storages for the cpu device: what Tensor.pin_memory() asks the accelerator's module for
host_allocator = HOST_ALLOCATOR


def get_device_name(device=None):
    _index(device)
    return RUNTIME.soc_name()


def mem_get_info(device=None):
    return RUNTIME.mem_info(_index(device))


class _DeviceProperties:
    """What get_device_properties reports: the chip's name and its device memory in bytes."""

    def __init__(self, name, total_memory):
        self.name, self.total_memory = name, total_memory

    def __repr__(self):
        return f"_NPUDeviceProperties(name='{self.name}', total_memory={self.total_memory >> 20}MB)"


def get_device_properties(device=None):
    index = _index(device)
    return _DeviceProperties(RUNTIME.soc_name(), RUNTIME.mem_info(index)[1])


def get_device_capability(device=None):
    """None, as torch_npu answers: an npu has no CUDA compute capability."""
    _index(device)
    return None


def is_bf16_supported(including_emulation=False):
    """Whether this chip holds bfloat16 (Ascend910A-class and Ascend310P parts do not)."""
    if not is_available():
        return False
    from . import chips

    return _dtypes.bfloat16 in chips.chip_dtypes()


def get_amp_supported_dtype():
    """The dtypes autocast("npu") computes in on this chip, float32 included (torch_npu's answer)."""
    low = [_dtypes.float16, _dtypes.bfloat16] if is_bf16_supported() else [_dtypes.float16]
    return low + [_dtypes.float32]


def get_allocator_backend():
    return "native"


def _generator(device=None):
    return default_generator(Device("npu", _index(device)))  # None: the current device


def manual_seed(seed):
    _generator().manual_seed(seed)


def manual_seed_all(seed):
    for i in range(device_count()):
        _generator(i).manual_seed(seed)


def seed():
    """A fresh nondeterministic seed for the current device's generator."""
    _generator().seed()


def initial_seed():
    return _generator().initial_seed()


def seed_all():
    """A fresh nondeterministic seed for every npu device's generator."""
    for i in range(device_count()):
        _generator(i).seed()


def get_rng_state(device=None):
    """The generator state of an npu device (a uint8 tensor, as torch.npu.get_rng_state)."""
    return _generator(device).get_state()


def set_rng_state(new_state, device=None):
    _generator(device).set_state(new_state)


def get_rng_state_all():
    return [get_rng_state(i) for i in range(device_count())]


def set_rng_state_all(new_states):
    for i, state in enumerate(new_states):
        set_rng_state(state, i)


# -- memory ------------------------------------------------------------------------------------------


def memory_allocated(device=None):
    return ALLOCATOR.bytes_in_use(_index(device))


def max_memory_allocated(device=None):
    return ALLOCATOR.max_bytes_in_use(_index(device))


def reset_max_memory_allocated(device=None):
    """Deprecated in PyTorch for reset_peak_memory_stats, which it calls."""
    reset_peak_memory_stats(device)


def memory_reserved(device=None):
    return ALLOCATOR.bytes_reserved(_index(device))


def max_memory_reserved(device=None):
    return ALLOCATOR.max_bytes_reserved(_index(device))


memory_cached, max_memory_cached = memory_reserved, max_memory_reserved  # PyTorch's old names
reset_max_memory_cached = reset_max_memory_allocated


def memory_stats(device=None):
    return ALLOCATOR.memory_stats(_index(device))


def memory_summary(device=None, abbreviated=False):
    return ALLOCATOR.memory_summary(_index(device), abbreviated=abbreviated)


def memory_snapshot():
    return ALLOCATOR.memory_snapshot()


def reset_peak_memory_stats(device=None):
    ALLOCATOR.reset_peak_memory_stats(_index(device))


def reset_accumulated_memory_stats(device=None):
    ALLOCATOR.reset_accumulated_memory_stats(_index(device))


def empty_cache():
    """Return cached device memory to CANN (whole free segments) and idle pinned host blocks, and drop cached
    ACLNN descriptors and launch plans."""
    if RUNTIME.state == "ready":
        from .aclnn import CACHE

        CACHE.clear()
        ALLOCATOR.empty_cache()
        STAGING.empty_cache()


# -- what `python -m mindtorch` shows ------------------------------------------------------------------


def backend_info():
    """Where each CANN library was found (or why not), and the chip when the runtime is up."""
    RUNTIME.probe()
    info = {lib: desc for lib, desc in RUNTIME.libs.describe().items()}
    if RUNTIME.reason:
        info["status"] = RUNTIME.reason
    elif RUNTIME.available():
        from . import chip_coverage, chips

        info["soc"] = RUNTIME.soc_name()
        info.update({f"chip {k}": v for k, v in chips.info().items()})
        lacking = chip_coverage.ops_without_path()
        info["chip ops without an npu path"] = f"{len(lacking)}: {', '.join(lacking)}" if lacking else "none"
    return info


# -- autocast on npu, as torch_npu's torch.npu.*_autocast_* (the npu entries of torch's per-device state) --


def is_autocast_enabled():
    import mindtorch

    return mindtorch.is_autocast_enabled("npu")


def set_autocast_enabled(enable):
    import mindtorch

    mindtorch.set_autocast_enabled("npu", enable)


def get_autocast_dtype():
    import mindtorch

    return mindtorch.get_autocast_dtype("npu")


def set_autocast_dtype(dtype):
    import mindtorch

    mindtorch.set_autocast_dtype("npu", dtype)


# torch_npu's torch.npu names this backend does not provide: asking for one is an error naming it, never a stub
NOT_PROVIDED = frozenset(
    [
        "set_dump",
        "init_dump",
        "finalize_dump",
        "can_device_access_peer",
        "set_sync_debug_mode",
        "get_sync_debug_mode",
        "utilization",
        "caching_allocator_alloc",
        "caching_allocator_delete",
        "get_per_process_memory_fraction",
        "set_per_process_memory_fraction",
        "empty_virt_addr_cache",
        "memory_stats_as_nested_dict",
        "MemPool",
        "use_mem_pool",
        "NPUPluggableAllocator",
        "change_current_allocator",
        "CubeMathType",
        "set_aoe",
        "get_npu_overflow_flag",
        "clear_npu_overflow_flag",
        "stress_detect",
        "BoolStorage",
        "ByteStorage",
        "ShortStorage",
        "LongStorage",
        "IntStorage",
        "HalfStorage",
        "CharStorage",
        "DoubleStorage",
        "FloatStorage",
        "BoolTensor",
        "ByteTensor",
        "CharTensor",
        "DoubleTensor",
        "FloatTensor",
        "HalfTensor",
        "IntTensor",
        "LongTensor",
        "ShortTensor",
        "BFloat16Tensor",
        "BFloat16Storage",
        "current_blas_handle",
        "stop_device",
        "restart_device",
        "check_uce_in_memory",
        "enable_deterministic_with_backward",
        "disable_deterministic_with_backward",
        "mstx",
        "SyncLaunchStream",
        "ExternalEvent",
        "ExternalStream",
        "graph_task_group_begin",
        "graph_task_group_end",
        "graph_task_update_begin",
        "graph_task_update_end",
        "set_device_limit",
        "get_device_limit",
        "set_stream_limit",
        "reset_stream_limit",
        "get_stream_limit",
        "ipc_collect",
        "obfuscation_initialize",
        "obfuscation_finalize",
        "obfuscation_calculate",
        "set_op_timeout_ms",
        "host_empty_cache",
        "host_memory_stats",
        "host_memory_stats_as_nested_dict",
        "reset_accumulated_host_memory_stats",
        "reset_peak_host_memory_stats",
        "set_deterministic_level",
        "use_compatible_impl",
        "are_compatible_impl_enabled",
        "NpuGraphOpHandler",
        "register_npu_graph_handler",
        "super_kernel_scope_begin",
        "super_kernel_scope_end",
        "npurt",
    ]
)

# NPU graphs (imported last: they use this module's synchronize and empty_cache)
from .graphed import make_graphed_callables  # noqa: E402,F401
from .graphs import NPUGraph, graph, graph_pool_handle, is_current_stream_capturing  # noqa: E402,F401


def __getattr__(name):
    if name == "amp":  # torch.npu.amp builds on mindtorch.amp, which is importable only once mindtorch is
        from . import amp

        return amp
    if name in NOT_PROVIDED:
        raise AttributeError(f"torch.npu.{name} (a torch_npu API) is not provided by mindtorch-npu")
    raise AttributeError(f"module 'torch.npu' has no attribute '{name}'")
