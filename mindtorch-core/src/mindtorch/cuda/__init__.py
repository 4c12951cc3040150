"""mindtorch.cuda: what torch.cuda answers on a build without CUDA.

No mindtorch backend provides CUDA, so this module behaves as PyTorch's CPU-only build does:
queries answer "none" (is_available() is False, device_count() is 0, memory counters are 0),
seeding is a no-op, and anything that needs a device raises PyTorch's
AssertionError("Torch not compiled with CUDA enabled").
"""

import contextlib

from .._errors import OutOfMemoryError  # noqa: F401
from . import amp  # noqa: F401

_NOT_COMPILED = "Torch not compiled with CUDA enabled"


def _not_compiled(*args, **kwargs):
    raise AssertionError(_NOT_COMPILED)


def _answer(value):
    def query(*args, **kwargs):
        return value() if callable(value) else value

    return query


# what PyTorch's CPU build answers without a device
is_available = _answer(False)
is_initialized = _answer(False)
is_bf16_supported = _answer(False)
is_tf32_supported = _answer(False)
device_count = _answer(0)
memory_allocated = max_memory_allocated = memory_reserved = max_memory_reserved = _answer(0)
memory_cached = max_memory_cached = _answer(0)
memory_stats = _answer(dict)
get_rng_state_all = _answer(list)
get_arch_list = _answer(list)
manual_seed = manual_seed_all = seed = seed_all = empty_cache = _answer(None)

# what needs a device
(
    synchronize,
    current_device,
    get_device_name,
    get_device_capability,
    get_device_properties,
    init,
    current_stream,
    default_stream,
    get_rng_state,
    initial_seed,
    mem_get_info,
    ipc_collect,
    set_device,
    reset_peak_memory_stats,
    reset_max_memory_allocated,
    is_current_stream_capturing,
) = (_not_compiled,) * 16


def set_rng_state(new_state, device="cuda"):
    """A no-op without CUDA (PyTorch queues it until CUDA initialises, which never happens)."""


def set_rng_state_all(new_states):
    for state in new_states:
        set_rng_state(state)


class device:
    """Context manager selecting a CUDA device; selecting none (-1 / None) is allowed, as in PyTorch."""

    def __init__(self, device):
        self.idx = -1 if device is None else (device if isinstance(device, int) else getattr(device, "index", -1))

    def __enter__(self):
        if self.idx not in (-1, None):
            raise RuntimeError("PyTorch was compiled without CUDA support")

    def __exit__(self, *exc):
        return False


class device_of(device):
    def __init__(self, obj):
        super().__init__(obj.get_device() if getattr(obj, "is_cuda", False) else -1)


class Stream:
    def __new__(cls, *args, **kwargs):
        raise RuntimeError("torch.cuda.Stream requires CUDA support")


class Event:
    def __new__(cls, *args, **kwargs):
        raise RuntimeError("torch.cuda.Event requires CUDA support")


class CUDAGraph:
    def __new__(cls, *args, **kwargs):
        raise RuntimeError("Tried to instantiate dummy base class CUDAGraph")


class graph:
    """Capture context for a CUDAGraph: needs a graph, which cannot be made without CUDA."""

    def __init__(self, cuda_graph, pool=None, stream=None, capture_error_mode="global"):
        self.cuda_graph = cuda_graph

    def __enter__(self):
        _not_compiled()

    def __exit__(self, *exc):
        return False


class StreamContext:
    """Context selecting a stream; a None stream selects nothing, as in PyTorch."""

    def __init__(self, stream):
        self.stream = stream

    def __enter__(self):
        if self.stream is not None:
            _not_compiled()

    def __exit__(self, *exc):
        return False


def stream(stream):
    return StreamContext(stream)


@contextlib.contextmanager
def nvtx_range(msg, *args, **kwargs):
    yield
