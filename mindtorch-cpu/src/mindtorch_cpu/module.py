"""mindtorch.cpu: the CPU's device module (torch.cpu).

The CPU has one device and runs every op to completion before returning, so streams and events are
ordering no-ops, as in PyTorch: they exist so that device-generic code runs unchanged.
"""

import contextlib
import os
import platform

import mindtorch

__all__ = [
    "is_available",
    "is_initialized",
    "device_count",
    "current_device",
    "set_device",
    "synchronize",
    "Stream",
    "Event",
    "StreamContext",
    "stream",
    "current_stream",
    "get_capabilities",
    "amp",
]


def is_available():
    return True


def is_initialized():
    return True


def device_count():
    return 1


def current_device():
    return "cpu"


def _check_cpu(device):
    if device is not None and mindtorch.device(device if not isinstance(device, int) else "cpu").type != "cpu":
        raise ValueError(f"Expected a cpu device, but got: {device}")


def set_device(device):
    _check_cpu(device)  # one device: nothing to switch to


def synchronize(device=None):
    _check_cpu(device)  # every kernel has finished when it returns


class Stream:
    """The CPU's only stream; work submitted to it is already complete."""

    def __init__(self, priority=-1):
        self.priority = priority

    def wait_stream(self, stream):
        pass

    def wait_event(self, event):
        pass

    def record_event(self, event=None):
        event = Event() if event is None else event
        event.record(self)
        return event


class Event:
    def record(self, stream=None):
        pass

    def wait(self, stream=None):
        pass

    def query(self):
        return True

    def synchronize(self):
        pass


_default_stream = Stream()
_current = [_default_stream]


def current_stream(device=None):
    _check_cpu(device)
    return _current[-1]


class StreamContext(contextlib.AbstractContextManager):
    def __init__(self, stream):
        self.stream = stream

    def __enter__(self):
        if self.stream is not None:
            _current.append(self.stream)

    def __exit__(self, *exc):
        if self.stream is not None:
            _current.pop()


def stream(stream):
    return StreamContext(stream)


_FLAGS = {  # /proc/cpuinfo flag -> the name PyTorch's get_capabilities reports
    "sse": "sse",
    "sse2": "sse2",
    "pni": "sse3",
    "ssse3": "ssse3",
    "sse4_1": "sse4_1",
    "sse4_2": "sse4_2",
    "sse4a": "sse4a",
    "avx": "avx",
    "avx2": "avx2",
    "fma": "fma3",
    "fma4": "fma4",
    "f16c": "f16c",
    "popcnt": "popcnt",
    "abm": "lzcnt",
    "bmi1": "bmi",
    "bmi2": "bmi2",
    "aes": "aes",
    "sha_ni": "sha",
    "clflush": "clflush",
    "clflushopt": "clflushopt",
    "clwb": "clwb",
    "avx512f": "avx512_f",
    "avx512cd": "avx512_cd",
    "avx512bw": "avx512_bw",
    "avx512dq": "avx512_dq",
    "avx512vl": "avx512_vl",
    "avx512_bf16": "avx512_bf16",
    "avx512_fp16": "avx512_fp16",
    "avx512_vnni": "avx512_vnni",
    "avx512vbmi": "avx512_vbmi",
    "avx512_vbmi2": "avx512_vbmi2",
    "avx512ifma": "avx512_ifma",
    "avx512_bitalg": "avx512_bitalg",
    "avx512_vpopcntdq": "avx512_vpopcntdq",
    "avx_vnni": "avx_vnni",
    "amx_bf16": "amx_bf16",
    "amx_tile": "amx_tile",
    "amx_int8": "amx_int8",
    "amx_fp16": "amx_fp16",
}


def get_capabilities():
    """What this CPU offers: architecture, core count, name and the instruction-set flags Linux reports."""
    caps = {"architecture": platform.machine(), "num_logical_cores": os.cpu_count() or 1}
    try:
        with open("/proc/cpuinfo") as f:
            info = f.read()
    except OSError:
        return caps
    flags = set()
    for line in info.splitlines():
        key, _, value = line.partition(":")
        key = key.strip()
        if key == "flags" and not flags:
            flags = set(value.split())
        elif key == "model name" and "cpu_name" not in caps:
            caps["cpu_name"] = value.strip()
    caps.update({name: flag in flags for flag, name in _FLAGS.items()})
    return caps


class amp:
    """torch.cpu.amp: the deprecated spellings of mindtorch.amp's CPU autocast and GradScaler."""

    class autocast(mindtorch.amp.autocast):
        def __init__(self, enabled=True, dtype=mindtorch.bfloat16, cache_enabled=True):
            import warnings

            warnings.warn(
                "`torch.cpu.amp.autocast(args...)` is deprecated. Please use "
                "`torch.amp.autocast('cpu', args...)` instead.",
                FutureWarning,
                stacklevel=2,
            )
            super().__init__("cpu", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)

    GradScaler = mindtorch.amp.GradScaler
