"""Shared by the npu tests: the simulator's leak counters, a subprocess runner, and npu results compared with
the cpu backend's."""

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


def close(got, want):
    """An npu result against the cpu's: same dtype and shape, values within the dtype's tolerance."""
    import mindtorch as torch
    import numpy as np

    tol = {torch.float32: 2e-6, torch.float16: 1e-3, torch.bfloat16: 8e-3, torch.float64: 1e-12}[want.dtype]
    got = got.cpu()
    assert got.dtype == want.dtype and tuple(got.shape) == tuple(want.shape), (got.dtype, want.dtype, got.shape)
    np.testing.assert_allclose(got.to(torch.float64).numpy(), want.to(torch.float64).numpy(), rtol=tol, atol=tol)


def both(fn, *tensors):
    """fn on the cpu tensors and on their npu copies."""
    return fn(*tensors), fn(*(t.to("npu") for t in tensors))
