"""Shared by the npu tests: the simulator's leak counters and a subprocess runner."""

import ctypes
import os
import subprocess
import sys
import textwrap

KINDS = (
    "device_allocations",
    "device_bytes",
    "host_allocations",
    "streams",
    "events",
    "tensors",
    "scalars",
    "int_arrays",
    "float_arrays",
    "bool_arrays",
    "tensor_lists",
    "scalar_lists",
    "executors",
    "hccl_comms",
    "model_ris",
)


def simulator():
    """The loaded simulator runtime library (the same handle the backend uses)."""
    from mindtorch_npu.state import RUNTIME

    RUNTIME.ensure()
    lib = RUNTIME.libs.ascendcl
    fn = lib.aclsimLiveCount
    fn.restype, fn.argtypes = ctypes.c_int64, [ctypes.c_char_p]
    return lib


def live(kind):
    return simulator().aclsimLiveCount(kind.encode())


def live_counts():
    return {k: live(k) for k in KINDS}


def pause(stream_handle):
    lib = simulator()
    lib.aclsimPauseStream.argtypes = [ctypes.c_void_p]
    assert lib.aclsimPauseStream(stream_handle) == 0


def resume(stream_handle):
    lib = simulator()
    lib.aclsimResumeStream.argtypes = [ctypes.c_void_p]
    assert lib.aclsimResumeStream(stream_handle) == 0


def run_python(code, env_update=None, drop=(), timeout=120):
    """Run `code` in a fresh interpreter; returns CompletedProcess (text)."""
    env = dict(os.environ)
    for k in drop:
        env.pop(k, None)
    env.update(env_update or {})
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True, timeout=timeout
    )
