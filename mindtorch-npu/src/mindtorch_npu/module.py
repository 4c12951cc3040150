"""`mindtorch.npu`: the device module, as PyTorch users know torch.cuda / torch.npu."""

import contextlib

from mindtorch.plugins import OutOfMemoryError, default_generator, device as Device  # noqa: F401 (torch.cuda has it)

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


def get_rng_state(device=None):
    """The generator state of an npu device (a uint8 tensor, as torch.npu.get_rng_state)."""
    return _generator(device).get_state()


def set_rng_state(new_state, device=None):
    _generator(device).set_state(new_state)


# -- memory ------------------------------------------------------------------------------------------


def memory_allocated(device=None):
    return ALLOCATOR.bytes_in_use(_index(device))


def max_memory_allocated(device=None):
    return ALLOCATOR.max_bytes_in_use(_index(device))


def memory_reserved(device=None):
    return ALLOCATOR.bytes_reserved(_index(device))


def max_memory_reserved(device=None):
    return ALLOCATOR.max_bytes_reserved(_index(device))


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
