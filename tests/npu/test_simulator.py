"""ctypes-level tests of the ACL simulator itself: it must behave like a device (memory that is not host
memory, asynchronous in-order streams, events, CANN's error codes) and its ops must match NumPy/PyTorch.

In-process tests share the simulator with any other npu test in this pytest run, so they never finalize,
accept an earlier aclInit, restore the thread's device and check leaks as deltas. Life-cycle, config and
crash tests run in subprocesses.
"""

import ctypes as C
import os
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

# error codes (acl_base_rt.h, rt_error_codes.h, aclnn return codes)
INVALID_PARAM, UNINIT, REPEAT_INIT, REPEAT_FINALIZE = 100000, 100001, 100002, 100037
RT_PARAM_INVALID, RT_INVALID_DEVICEID, RT_CONTEXT_NULL, RT_TIMESTAMP_INVALID = 107000, 107001, 107002, 107006
RT_INVALID_HANDLE, RT_MEMORY_ALLOCATION, RT_EVENT_NOT_COMPLETE = 107017, 207001, 507006
RT_SYS_DMA, RT_AICORE_EXCEPTION = 507013, 507015
NN_NULLPTR, NN_INVALID, NN_INNER_NULLPTR = 161001, 161002, 561103
H2H, H2D, D2H, D2D, DEFAULT = 0, 1, 2, 3, 4
FLOAT, FLOAT16, INT8, INT32, UINT8, INT16, INT64, DOUBLE, BOOL, BF16 = 0, 1, 2, 3, 4, 6, 9, 11, 12, 27
ND = 2
NP = {
    FLOAT: np.float32,
    FLOAT16: np.float16,
    INT8: np.int8,
    INT32: np.int32,
    UINT8: np.uint8,
    INT16: np.int16,
    INT64: np.int64,
    DOUBLE: np.float64,
    BOOL: np.bool_,
    BF16: np.uint16,
}
ALL = list(NP)
FLOATS = {FLOAT, FLOAT16, DOUBLE, BF16}
P, I64, U64, U32, I32, SZ = C.c_void_p, C.c_int64, C.c_uint64, C.c_uint32, C.c_int32, C.c_size_t

SIG = {  # name: (restype, argtypes), from the CANN headers
    "aclInit": (C.c_int, [C.c_char_p]),
    "aclFinalize": (C.c_int, []),
    "aclGetRecentErrMsg": (C.c_char_p, []),
    "aclrtSetDevice": (C.c_int, [I32]),
    "aclrtResetDevice": (C.c_int, [I32]),
    "aclrtGetDevice": (C.c_int, [C.POINTER(I32)]),
    "aclrtGetDeviceCount": (C.c_int, [C.POINTER(U32)]),
    "aclrtGetSocName": (C.c_char_p, []),
    "aclrtCreateStream": (C.c_int, [C.POINTER(P)]),
    "aclrtDestroyStream": (C.c_int, [P]),
    "aclrtSynchronizeStream": (C.c_int, [P]),
    "aclrtSynchronizeDevice": (C.c_int, []),
    "aclrtStreamQuery": (C.c_int, [P, C.POINTER(C.c_int)]),
    "aclrtCreateEvent": (C.c_int, [C.POINTER(P)]),
    "aclrtCreateEventWithFlag": (C.c_int, [C.POINTER(P), U32]),
    "aclrtDestroyEvent": (C.c_int, [P]),
    "aclrtRecordEvent": (C.c_int, [P, P]),
    "aclrtResetEvent": (C.c_int, [P, P]),
    "aclrtStreamWaitEvent": (C.c_int, [P, P]),
    "aclrtSynchronizeEvent": (C.c_int, [P]),
    "aclrtQueryEventStatus": (C.c_int, [P, C.POINTER(C.c_int)]),
    "aclrtEventElapsedTime": (C.c_int, [C.POINTER(C.c_float), P, P]),
    "aclrtMalloc": (C.c_int, [C.POINTER(P), SZ, C.c_int]),
    "aclrtFree": (C.c_int, [P]),
    "aclrtMallocHost": (C.c_int, [C.POINTER(P), SZ]),
    "aclrtFreeHost": (C.c_int, [P]),
    "aclrtMemcpy": (C.c_int, [P, SZ, P, SZ, C.c_int]),
    "aclrtMemcpyAsync": (C.c_int, [P, SZ, P, SZ, C.c_int, P]),
    "aclrtMemset": (C.c_int, [P, SZ, I32, SZ]),
    "aclrtMemsetAsync": (C.c_int, [P, SZ, I32, SZ, P]),
    "aclrtGetMemInfo": (C.c_int, [C.c_int, C.POINTER(SZ), C.POINTER(SZ)]),
    "aclsimLiveCount": (I64, [C.c_char_p]),
    "aclsimPauseStream": (C.c_int, [P]),
    "aclsimResumeStream": (C.c_int, [P]),
    "aclCreateTensor": (P, [C.POINTER(I64), U64, C.c_int, C.POINTER(I64), I64, C.c_int, C.POINTER(I64), U64, P]),
    "aclCreateScalar": (P, [P, C.c_int]),
    "aclCreateIntArray": (P, [C.POINTER(I64), U64]),
    "aclCreateFloatArray": (P, [C.POINTER(C.c_float), U64]),
    "aclCreateBoolArray": (P, [C.POINTER(C.c_bool), U64]),
    "aclCreateTensorList": (P, [C.POINTER(P), U64]),
    "aclCreateScalarList": (P, [C.POINTER(P), U64]),
    "aclDestroyTensor": (I32, [P]),
    "aclDestroyScalar": (I32, [P]),
    "aclDestroyIntArray": (I32, [P]),
    "aclDestroyFloatArray": (I32, [P]),
    "aclDestroyBoolArray": (I32, [P]),
    "aclDestroyTensorList": (I32, [P]),
    "aclDestroyScalarList": (I32, [P]),
    "aclGetViewShape": (I32, [P, C.POINTER(C.POINTER(I64)), C.POINTER(U64)]),
    "aclGetViewStrides": (I32, [P, C.POINTER(C.POINTER(I64)), C.POINTER(U64)]),
    "aclGetStorageShape": (I32, [P, C.POINTER(C.POINTER(I64)), C.POINTER(U64)]),
    "aclGetViewOffset": (I32, [P, C.POINTER(I64)]),
    "aclGetFormat": (I32, [P, C.POINTER(C.c_int)]),
    "aclGetDataType": (I32, [P, C.POINTER(C.c_int)]),
    "aclGetIntArraySize": (I32, [P, C.POINTER(U64)]),
    "aclGetTensorListSize": (I32, [P, C.POINTER(U64)]),
    "aclSetAclOpExecutorRepeatable": (I32, [P]),
    "aclDestroyAclOpExecutor": (I32, [P]),
    "aclSetTensorAddr": (I32, [P, SZ, P, P]),
    "aclnnInit": (I32, [C.c_char_p]),
}
WSX = [C.POINTER(U64), C.POINTER(P)]
OPS = {  # phase-1 argument types before (workspaceSize, executor)
    "Add": [P, P, P, P],
    "Adds": [P, P, P, P],
    "InplaceAdd": [P, P, P],
    "InplaceAdds": [P, P, P],
    "Mul": [P, P, P],
    "Muls": [P, P, P],
    "InplaceMul": [P, P],
    "InplaceMuls": [P, P],
    "Cast": [P, C.c_int, P],
    "InplaceCopy": [P, P],
    "InplaceFillScalar": [P, P],
    "InplaceZero": [P],
    "Matmul": [P, P, P, C.c_int8],
    "Mm": [P, P, P, C.c_int8],
    "BatchMatMul": [P, P, P, C.c_int8],
}
KINDS = [
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
]

_here = os.path.dirname(os.path.abspath(__file__))


def _load(libdir):
    libs = [
        C.CDLL(os.path.join(str(libdir), n), mode=C.RTLD_GLOBAL)
        for n in ("libascendcl.so", "libnnopbase.so", "libopapi.so")
    ]
    ns = {}
    for name, (res, args) in SIG.items():
        f = next(getattr(lib, name) for lib in libs if hasattr(lib, name))
        f.restype, f.argtypes = res, args
        ns[name] = f
    for op, args in OPS.items():
        g, l_ = getattr(libs[2], f"aclnn{op}GetWorkspaceSize"), getattr(libs[2], f"aclnn{op}")
        g.restype, g.argtypes = I32, args + WSX
        l_.restype, l_.argtypes = I32, [P, U64, P, P]
        ns[op] = (g, l_)
    return type("Sim", (), ns)


# ---------------------------------------------------------------- bf16 on the host (NumPy has no bfloat16)
def to_bf16(a):
    u = np.asarray(a, np.float32).view(np.uint32).astype(np.uint64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where(np.isnan(np.asarray(a, np.float32)), np.uint16(0x7FC0), r)


def from_bf16(u):
    return (np.asarray(u, np.uint16).astype(np.uint32) << 16).view(np.float32)


def host_values(a, dt):
    """Values of an array stored in simulator dtype dt, as float64 (bf16 decoded)."""
    return from_bf16(a).astype(np.float64) if dt == BF16 else np.asarray(a).astype(np.float64)


def encode(x, dt):
    """float64/int values -> storage array for dt (through float32 for bf16)."""
    return to_bf16(np.asarray(x, np.float32)) if dt == BF16 else np.asarray(x).astype(NP[dt])


def sample(shape, dt, rng):
    if dt == BOOL:
        return rng.random(shape) < 0.5
    if dt in FLOATS:
        x = rng.uniform(-4, 4, shape).round(2)
        return encode(x, dt)
    lo, hi = (0, 100) if dt == UINT8 else (-50, 50)
    return rng.integers(lo, hi, shape).astype(NP[dt])


# ---------------------------------------------------------------- fixtures and helpers
@pytest.fixture(scope="module")
def sim(aclsim_dir):
    s = _load(aclsim_dir)
    rc = s.aclInit(None)
    assert rc in (0, REPEAT_INIT)  # the backend may have initialised the shared simulator already
    yield s
    if rc == 0:  # we initialised it: finalize, so a later aclInit (the backend's) starts afresh
        assert s.aclFinalize() == 0


@pytest.fixture
def dev(sim):
    """Device 0 current on this thread for the test; the thread's previous device is restored after."""
    prev = I32(-1)
    had = sim.aclrtGetDevice(C.byref(prev)) == 0
    assert sim.aclrtSetDevice(0) == 0
    before = {k: sim.aclsimLiveCount(k.encode()) for k in KINDS}
    yield sim
    assert sim.aclrtSynchronizeDevice() == 0
    after = {k: sim.aclsimLiveCount(k.encode()) for k in KINDS}
    assert after == before, "leaked simulator objects"
    if had:
        assert sim.aclrtSetDevice(prev.value) == 0


def errmsg(sim):
    m = sim.aclGetRecentErrMsg()
    return m.decode() if m else ""


class Pinned:
    """Page-locked host memory (aclrtMallocHost) seen as a NumPy array: what async copies need before CANN 8.5."""

    def __init__(self, sim, n, dtype):
        self.sim, nbytes = sim, n * np.dtype(dtype).itemsize
        p = P()
        assert sim.aclrtMallocHost(C.byref(p), nbytes) == 0, errmsg(sim)
        self.ptr = p.value
        self.a = np.frombuffer((C.c_char * nbytes).from_address(p.value), dtype=dtype)
        self.a[:] = 0

    def free(self):
        assert self.sim.aclrtFreeHost(self.ptr) == 0


class Dev:
    """A device allocation holding a host array's bytes."""

    def __init__(self, sim, nbytes):
        self.sim, self.n = sim, max(int(nbytes), 1)
        p = P()
        assert sim.aclrtMalloc(C.byref(p), self.n, 0) == 0, errmsg(sim)
        self.ptr = p.value

    @classmethod
    def of(cls, sim, arr):
        arr = np.ascontiguousarray(arr)
        d = cls(sim, arr.nbytes)
        if arr.nbytes:
            assert sim.aclrtMemcpy(d.ptr, d.n, arr.ctypes.data, arr.nbytes, H2D) == 0, errmsg(sim)
        return d

    def read(self, dtype, count):
        out = np.empty(count, dtype)
        if out.nbytes:
            assert self.sim.aclrtMemcpy(out.ctypes.data, out.nbytes, self.ptr, out.nbytes, D2H) == 0, errmsg(self.sim)
        return out

    def free(self):
        assert self.sim.aclrtFree(self.ptr) == 0, errmsg(self.sim)


def arr64(v):
    v = list(v)
    return (I64 * max(len(v), 1))(*v)


def tensor(sim, ptr, dt, shape, strides=None, offset=0, storage=None, fmt=ND):
    if strides is None:
        strides, acc = [], 1
        for d in reversed(shape):
            strides.insert(0, acc)
            acc *= max(d, 1)
    if storage is None:
        storage = [offset + sum((d - 1) * s for d, s in zip(shape, strides)) + 1] if all(shape) else [0]
    t = sim.aclCreateTensor(
        arr64(shape), len(shape), dt, arr64(strides), offset, fmt, arr64(storage), len(storage), ptr
    )
    assert t, errmsg(sim)
    return t


def scalar(sim, value, dt):
    buf = np.array([value]).astype(NP[dt]) if dt != BF16 else to_bf16([value])
    s = sim.aclCreateScalar(buf.ctypes.data, dt)
    assert s
    return s


class DT:
    """A device tensor: storage (device) + aclTensor view; view of a host storage array."""

    def __init__(self, sim, storage, dt, shape=None, strides=None, offset=0):
        self.sim, self.dt = sim, dt
        self.storage = np.ascontiguousarray(storage).reshape(-1)
        self.mem = Dev.of(sim, self.storage)
        shape = list(np.shape(storage)) if shape is None else list(shape)
        self.shape, self.strides, self.offset = shape, strides, offset
        self.t = tensor(sim, self.mem.ptr, dt, shape, strides, offset, [self.storage.size])

    def host(self):
        """The view's values (as NumPy, bf16 raw) after reading the storage back."""
        raw = self.mem.read(self.storage.dtype, self.storage.size)
        st = self.strides
        if st is None:
            return raw[self.offset : self.offset + int(np.prod(self.shape))].reshape(self.shape)
        item = raw.itemsize
        return np.lib.stride_tricks.as_strided(raw[self.offset :], self.shape, [s * item for s in st]).copy()

    def close(self):
        assert self.sim.aclDestroyTensor(self.t) == 0
        self.mem.free()


def run_op(sim, op, *args, stream=None, sync=True):
    ws, ex = U64(0), P()
    g, launch = getattr(sim, op)
    rc = g(*args, C.byref(ws), C.byref(ex))
    if rc:
        return rc
    wsmem = Dev(sim, ws.value) if ws.value else None
    rc = launch(wsmem.ptr if wsmem else None, ws.value, ex, stream)
    assert rc == 0, errmsg(sim)
    if sync:
        assert sim.aclrtSynchronizeStream(stream) == 0, errmsg(sim)
    if wsmem:
        wsmem.free()
    return 0


# ---------------------------------------------------------------- subprocess tests (life cycle, config, crashes)
PRELUDE = textwrap.dedent(f"""
    import ctypes as C, os, sys
    sys.path.insert(0, {_here!r})
    from test_simulator import _load, errmsg, P, SZ, U32, I32, U64
    sim = _load(os.environ["MINDTORCH_NPU_LIB_DIR"])
    def check(rc, want=0):
        assert rc == want, (rc, want, errmsg(sim))
""")


def run_py(aclsim_dir, code, **env):
    e = dict(os.environ, MINDTORCH_NPU_LIB_DIR=str(aclsim_dir), **env)
    return subprocess.run(
        [sys.executable, "-c", PRELUDE + textwrap.dedent(code)], env=e, capture_output=True, text=True, timeout=60
    )


def test_host_read_through_device_pointer_crashes(aclsim_dir):
    r = run_py(
        aclsim_dir,
        """
        check(sim.aclInit(None)); check(sim.aclrtSetDevice(0))
        p = P(); check(sim.aclrtMalloc(C.byref(p), 64, 0))
        print("allocated", flush=True)
        C.string_at(p.value, 4)        # a host read through a device address
        print("survived", flush=True)
    """,
    )
    assert "allocated" in r.stdout and "survived" not in r.stdout
    assert r.returncode == -11, (r.returncode, r.stderr)  # SIGSEGV


def test_lifecycle_error_codes(aclsim_dir):
    r = run_py(
        aclsim_dir,
        """
        n = U32()
        check(sim.aclrtGetDeviceCount(C.byref(n)), 100001)
        assert "aclrtGetDeviceCount" in errmsg(sim)
        check(sim.aclrtSetDevice(0), 100001)
        p = P(); check(sim.aclrtMalloc(C.byref(p), 64, 0), 100001)
        check(sim.aclFinalize(), 100001)
        assert sim.aclrtGetSocName() is None
        check(sim.aclInit(None)); check(sim.aclInit(None), 100002)
        assert "aclInit" in errmsg(sim)
        check(sim.aclrtGetDeviceCount(C.byref(n))); assert n.value == 3
        assert sim.aclrtGetSocName() == b"Ascend910B4"
        check(sim.aclrtSetDevice(3), 107001); assert "aclrtSetDevice" in errmsg(sim)
        check(sim.aclrtSetDevice(-1), 107001)
        check(sim.aclrtMalloc(C.byref(p), 64, 0), 107002)      # no device set on this thread yet
        check(sim.aclrtSetDevice(2)); check(sim.aclrtMalloc(C.byref(p), 64, 0))
        s = P(); check(sim.aclrtCreateStream(C.byref(s)))
        e = P(); check(sim.aclrtCreateEvent(C.byref(e)))
        h = P(); check(sim.aclrtMallocHost(C.byref(h), 100))
        assert [sim.aclsimLiveCount(k) for k in (b"device_allocations", b"streams", b"events", b"host_allocations")] == [1, 1, 1, 1]
        check(sim.aclFinalize())   # releases everything still live
        assert [sim.aclsimLiveCount(k) for k in (b"device_allocations", b"streams", b"events", b"host_allocations")] == [0, 0, 0, 0]
        check(sim.aclFinalize(), 100037); assert "aclFinalize" in errmsg(sim)
        print("ok")
    """,
        ACLSIM_DEVICE_COUNT="3",
        ACLSIM_SOC_NAME="Ascend910B4",
    )
    assert r.returncode == 0 and "ok" in r.stdout, r.stderr


def test_malformed_configuration_fails_init(aclsim_dir):
    r = run_py(
        aclsim_dir,
        """
        check(sim.aclInit(None), 100000)
        assert "ACLSIM_DEVICE_MEMORY" in errmsg(sim)
        print("ok")
    """,
        ACLSIM_DEVICE_MEMORY="1G",
    )
    assert r.returncode == 0 and "ok" in r.stdout, r.stderr


def test_out_of_memory_and_allocator(aclsim_dir):
    r = run_py(
        aclsim_dir,
        """
        check(sim.aclInit(None)); check(sim.aclrtSetDevice(0))
        free, total = SZ(), SZ()
        check(sim.aclrtGetMemInfo(1, C.byref(free), C.byref(total)))
        assert total.value == 1 << 20 and free.value == 1 << 20
        a = P(); check(sim.aclrtMalloc(C.byref(a), 1, 0))          # 512-byte granularity
        check(sim.aclrtGetMemInfo(1, C.byref(free), C.byref(total))); assert free.value == (1 << 20) - 512
        assert sim.aclsimLiveCount(b"device_bytes") == 512
        check(sim.aclrtFree(a))
        q = [P() for _ in range(4)]                                 # each padded to ALIGN_UP(n, 32) + 32: 256 KiB
        for x in q: check(sim.aclrtMalloc(C.byref(x), (256 << 10) - 64, 0))
        big = P(); check(sim.aclrtMalloc(C.byref(big), 1, 0), 207001)
        m = errmsg(sim); assert "aclrtMalloc" in m and "out of device memory" in m, m
        check(sim.aclrtFree(q[1])); check(sim.aclrtFree(q[2]))
        check(sim.aclrtMalloc(C.byref(big), (512 << 10) - 64, 0))   # the two freed neighbours coalesced
        assert big.value == q[1].value
        check(sim.aclrtMalloc(C.byref(a), 1 << 20, 0), 207001)
        for x in (q[0], q[3], big): check(sim.aclrtFree(x))
        check(sim.aclrtMalloc(C.byref(a), (1 << 20) - 64, 0))       # everything coalesced back
        check(sim.aclrtGetMemInfo(99, C.byref(free), C.byref(total)), 100000)
        # device 1 has its own, disjoint address range
        check(sim.aclrtSetDevice(1)); b = P(); check(sim.aclrtMalloc(C.byref(b), (1 << 20) - 64, 0))
        assert abs(b.value - a.value) >= 1 << 20
        print("ok")
    """,
        ACLSIM_DEVICE_MEMORY=str(1 << 20),
    )
    assert r.returncode == 0 and "ok" in r.stdout, r.stderr


# ---------------------------------------------------------------- runtime error codes (in process)
def test_device_and_parameter_errors(dev):
    sim = dev
    n = U32()
    assert sim.aclrtGetDeviceCount(C.byref(n)) == 0 and n.value >= 2
    assert sim.aclrtSetDevice(n.value) == RT_INVALID_DEVICEID and str(n.value) in errmsg(sim)
    assert sim.aclrtGetDevice(None) == INVALID_PARAM
    assert sim.aclrtMalloc(None, 16, 0) == INVALID_PARAM
    p = P()
    assert sim.aclrtMalloc(C.byref(p), 0, 0) == INVALID_PARAM
    assert sim.aclrtGetSocName() == os.environ.get("ACLSIM_SOC_NAME", "Ascend910B1").encode()
    assert sim.aclsimLiveCount(b"no_such_kind") == -1


def test_free_errors(dev):
    sim = dev
    d = Dev(sim, 4096)
    before = sim.aclsimLiveCount(b"device_bytes")
    assert sim.aclrtFree(d.ptr + 512) == RT_PARAM_INVALID and "interior" in errmsg(sim)
    host = np.zeros(4)
    assert sim.aclrtFree(host.ctypes.data) == RT_PARAM_INVALID and "aclrtFree" in errmsg(sim)
    assert sim.aclrtFree(None) == INVALID_PARAM
    assert sim.aclsimLiveCount(b"device_bytes") == before  # failed frees change nothing
    d.free()
    assert sim.aclrtFree(d.ptr) == RT_PARAM_INVALID  # double free
    assert sim.aclrtFreeHost(host.ctypes.data) == RT_PARAM_INVALID
    h = P()
    assert sim.aclrtMallocHost(C.byref(h), 64) == 0
    assert sim.aclrtFreeHost(h) == 0 and sim.aclrtFreeHost(h) == RT_PARAM_INVALID


def test_memcpy_errors(dev):
    sim = dev
    d = Dev(sim, 1024)
    host = np.zeros(256, np.float32)
    assert sim.aclrtMemcpy(d.ptr, 1024, host.ctypes.data, 1024, D2H) == RT_PARAM_INVALID  # kind vs pointers
    assert "DEVICE_TO_HOST" in errmsg(sim)
    assert sim.aclrtMemcpy(host.ctypes.data, 1024, d.ptr, 1024, H2D) == RT_PARAM_INVALID
    assert sim.aclrtMemcpy(d.ptr, 1024, d.ptr, 1024, H2H) == RT_PARAM_INVALID
    assert sim.aclrtMemcpy(d.ptr, 512, host.ctypes.data, 1024, H2D) == INVALID_PARAM  # count > destMax
    assert sim.aclrtMemcpy(d.ptr + 1024, 1024, host.ctypes.data, 1024, H2D) == RT_PARAM_INVALID  # overruns the pad
    assert sim.aclrtMemcpy(d.ptr, 1024, host.ctypes.data, 1024, 42) == INVALID_PARAM
    assert sim.aclrtMemcpy(None, 1024, host.ctypes.data, 16, H2D) == INVALID_PARAM
    assert sim.aclrtMemset(d.ptr, 100, 0, 1024) == INVALID_PARAM
    d.free()
    assert sim.aclrtMemcpy(d.ptr, 1024, host.ctypes.data, 1024, H2D) == RT_PARAM_INVALID  # use after free
    assert "live device allocation" in errmsg(sim)
    assert sim.aclrtMemset(d.ptr, 1024, 0, 1024) == RT_PARAM_INVALID


def test_destroyed_stream_and_event(dev):
    sim = dev
    s, e = P(), P()
    assert sim.aclrtCreateStream(C.byref(s)) == 0 and sim.aclrtCreateEvent(C.byref(e)) == 0
    assert sim.aclrtDestroyStream(s) == 0 and sim.aclrtDestroyEvent(e) == 0
    st, d = C.c_int(), Dev(sim, 64)
    for rc in (
        sim.aclrtSynchronizeStream(s),
        sim.aclrtDestroyStream(s),
        sim.aclrtStreamQuery(s, C.byref(st)),
        sim.aclsimPauseStream(s),
        sim.aclrtMemsetAsync(d.ptr, 64, 0, 64, s),
    ):
        assert rc == RT_INVALID_HANDLE
    assert "stream" in errmsg(sim)
    for rc in (
        sim.aclrtSynchronizeEvent(e),
        sim.aclrtDestroyEvent(e),
        sim.aclrtRecordEvent(e, None),
        sim.aclrtQueryEventStatus(e, C.byref(st)),
        sim.aclrtStreamWaitEvent(None, e),
    ):
        assert rc == RT_INVALID_HANDLE
    assert "event" in errmsg(sim)
    assert sim.aclrtSynchronizeStream(P(12345)) == RT_INVALID_HANDLE  # never a stream
    assert sim.aclrtDestroyStream(None) == INVALID_PARAM
    d.free()


def test_no_current_device_on_a_new_thread(dev):
    sim, out = dev, {}

    def body():
        p, s = P(), P()
        out["malloc"] = sim.aclrtMalloc(C.byref(p), 64, 0)
        out["stream"] = sim.aclrtCreateStream(C.byref(s))
        out["sync"] = sim.aclrtSynchronizeStream(None)
        out["msg"] = errmsg(sim)

    th = threading.Thread(target=body)
    th.start()
    th.join()
    assert out["malloc"] == out["stream"] == out["sync"] == RT_CONTEXT_NULL
    assert "aclrtSetDevice" in out["msg"]


# ---------------------------------------------------------------- copies, streams, async semantics
def test_copies_round_trip_and_memset(dev):
    sim = dev
    x = np.arange(64, dtype=np.float32)
    a, b = Dev.of(sim, x), Dev(sim, x.nbytes)
    assert sim.aclrtMemcpy(b.ptr, b.n, a.ptr, x.nbytes, D2D) == 0
    np.testing.assert_array_equal(b.read(np.float32, 64), x)
    assert sim.aclrtMemcpy(b.ptr, b.n, a.ptr, 16, DEFAULT) == 0
    assert sim.aclrtMemset(b.ptr, b.n, 0x7F, 8) == 0
    got = b.read(np.uint8, 16)
    assert list(got[:8]) == [0x7F] * 8 and list(got[8:]) == list(x[:4].view(np.uint8)[8:16])
    host = np.ones(4, np.float32)  # memset decides host vs device by address, like the header says
    assert sim.aclrtMemset(host.ctypes.data, 16, 0, 16) == 0 and not host.any()
    # cross-device copy: npu:0 -> npu:1
    assert sim.aclrtSetDevice(1) == 0
    c = Dev(sim, x.nbytes)
    assert sim.aclrtMemcpy(c.ptr, c.n, a.ptr, x.nbytes, D2D) == 0
    np.testing.assert_array_equal(c.read(np.float32, 64), x)
    c.free()
    assert sim.aclrtSetDevice(0) == 0
    a.free()
    b.free()


def test_async_h2d_reads_its_source_when_the_stream_runs(dev):
    sim = dev
    s = P()
    assert sim.aclrtCreateStream(C.byref(s)) == 0
    d = Dev(sim, 64)
    src_mem, out_mem = Pinned(sim, 16, np.float32), Pinned(sim, 16, np.float32)
    src, out = src_mem.a, out_mem.a
    src[:] = 1.0
    assert sim.aclsimPauseStream(s) == 0
    assert sim.aclrtMemcpyAsync(d.ptr, 64, src_mem.ptr, 64, H2D, s) == 0
    assert sim.aclrtMemcpyAsync(out_mem.ptr, 64, d.ptr, 64, D2H, s) == 0
    src[:] = 7.0  # changed after enqueue, before execution
    time.sleep(0.02)
    st = C.c_int()
    assert sim.aclrtStreamQuery(s, C.byref(st)) == 0 and st.value == 1  # NOT_READY
    assert not out.any()  # the D2H has not written host memory yet
    assert sim.aclsimResumeStream(s) == 0
    assert sim.aclrtSynchronizeStream(s) == 0
    assert sim.aclrtStreamQuery(s, C.byref(st)) == 0 and st.value == 0
    np.testing.assert_array_equal(out, np.full(16, 7.0, np.float32))
    assert sim.aclrtDestroyStream(s) == 0
    d.free()
    src_mem.free()
    out_mem.free()


def test_stream_runs_in_order(dev):
    sim = dev
    s = P()
    assert sim.aclrtCreateStream(C.byref(s)) == 0
    d = Dev(sim, 256)
    assert sim.aclsimPauseStream(s) == 0
    for v in range(1, 40):  # each task overwrites the whole buffer: only in-order execution leaves 39
        assert sim.aclrtMemsetAsync(d.ptr, 256, v, 256, s) == 0
    assert sim.aclsimResumeStream(s) == 0
    assert sim.aclrtSynchronizeStream(s) == 0
    assert set(d.read(np.uint8, 256)) == {39}
    assert sim.aclrtDestroyStream(s) == 0  # destroy drains first
    d.free()


def test_destroy_drains_a_queued_stream(dev):
    sim = dev
    s = P()
    assert sim.aclrtCreateStream(C.byref(s)) == 0
    d = Dev(sim, 64)
    out = Pinned(sim, 64, np.uint8)
    assert sim.aclsimPauseStream(s) == 0
    assert sim.aclrtMemsetAsync(d.ptr, 64, 5, 64, s) == 0
    assert sim.aclrtMemcpyAsync(out.ptr, 64, d.ptr, 64, D2H, s) == 0
    assert sim.aclrtDestroyStream(s) == 0
    assert set(out.a) == {5}
    d.free()
    out.free()


def test_failed_task_is_sticky_until_synchronize(dev):
    sim = dev
    s = P()
    assert sim.aclrtCreateStream(C.byref(s)) == 0
    d = Dev(sim, 64)
    host = Pinned(sim, 16, np.float32)
    assert sim.aclsimPauseStream(s) == 0
    assert sim.aclrtMemcpyAsync(d.ptr, 64, host.ptr, 64, H2D, s) == 0
    d.free()  # freed before the stream reached the copy
    host.free()
    assert sim.aclsimResumeStream(s) == 0
    assert sim.aclrtSynchronizeStream(s) == RT_SYS_DMA
    assert "no longer a live allocation" in errmsg(sim)
    assert sim.aclrtSynchronizeStream(s) == 0  # reported once
    assert sim.aclrtDestroyStream(s) == 0


# ---------------------------------------------------------------- events
def test_events_record_query_wait_and_elapsed(dev):
    sim = dev
    s1, s2, e1, e2, e3 = P(), P(), P(), P(), P()
    assert sim.aclrtCreateStream(C.byref(s1)) == 0 and sim.aclrtCreateStream(C.byref(s2)) == 0
    assert sim.aclrtCreateEvent(C.byref(e1)) == 0 and sim.aclrtCreateEvent(C.byref(e2)) == 0
    assert sim.aclrtCreateEventWithFlag(C.byref(e3), 0x1) == 0  # ACL_EVENT_SYNC only: no timestamps
    st, ms = C.c_int(), C.c_float()
    assert sim.aclrtQueryEventStatus(e1, C.byref(st)) == 0 and st.value == 1  # never recorded: complete
    assert sim.aclrtEventElapsedTime(C.byref(ms), e1, e2) == RT_TIMESTAMP_INVALID
    assert sim.aclrtRecordEvent(e1, s1) == 0
    assert sim.aclrtSynchronizeEvent(e1) == 0
    time.sleep(0.03)
    d = Dev(sim, 64)
    assert sim.aclsimPauseStream(s1) == 0
    assert sim.aclrtRecordEvent(e2, s1) == 0
    assert sim.aclrtQueryEventStatus(e2, C.byref(st)) == 0 and st.value == 0  # NOT_READY
    assert sim.aclrtEventElapsedTime(C.byref(ms), e1, e2) == RT_EVENT_NOT_COMPLETE
    assert "not completed" in errmsg(sim)
    # s2 waits for e2 (recorded on the paused s1): its memset must not run before s1 resumes
    assert sim.aclrtStreamWaitEvent(s2, e2) == 0
    assert sim.aclrtMemsetAsync(d.ptr, 64, 9, 64, s2) == 0
    time.sleep(0.02)
    assert sim.aclrtStreamQuery(s2, C.byref(st)) == 0 and st.value == 1
    assert sim.aclsimResumeStream(s1) == 0
    assert sim.aclrtSynchronizeStream(s2) == 0
    assert set(d.read(np.uint8, 64)) == {9}
    assert sim.aclrtQueryEventStatus(e2, C.byref(st)) == 0 and st.value == 1
    assert sim.aclrtEventElapsedTime(C.byref(ms), e1, e2) == 0
    assert 25.0 <= ms.value < 5000.0
    assert sim.aclrtRecordEvent(e3, s1) == 0 and sim.aclrtSynchronizeEvent(e3) == 0
    assert sim.aclrtEventElapsedTime(C.byref(ms), e1, e3) == RT_TIMESTAMP_INVALID
    assert sim.aclrtEventElapsedTime(None, e1, e2) == INVALID_PARAM
    for h in (e1, e2, e3):
        assert sim.aclrtDestroyEvent(h) == 0
    for h in (s1, s2):
        assert sim.aclrtDestroyStream(h) == 0
    d.free()


def test_wait_uses_the_record_current_at_the_wait_call(dev):
    sim = dev
    s1, s2, s3, e = P(), P(), P(), P()
    for s in (s1, s2, s3):
        assert sim.aclrtCreateStream(C.byref(s)) == 0
    assert sim.aclrtCreateEvent(C.byref(e)) == 0
    d = Dev(sim, 64)
    st = C.c_int()
    assert sim.aclsimPauseStream(s1) == 0
    assert sim.aclrtRecordEvent(e, s1) == 0  # record 1, held back by the paused s1
    assert sim.aclrtStreamWaitEvent(s2, e) == 0  # s2 waits for record 1 ...
    assert sim.aclrtMemsetAsync(d.ptr, 64, 3, 64, s2) == 0
    assert sim.aclrtRecordEvent(e, s3) == 0  # ... not for record 2, which completes at once
    assert sim.aclrtSynchronizeStream(s3) == 0
    assert sim.aclrtQueryEventStatus(e, C.byref(st)) == 0 and st.value == 1  # the latest record is done
    time.sleep(0.02)
    assert sim.aclrtStreamQuery(s2, C.byref(st)) == 0 and st.value == 1  # still waiting for record 1
    assert sim.aclsimResumeStream(s1) == 0
    assert sim.aclrtSynchronizeStream(s2) == 0
    assert set(d.read(np.uint8, 64)) == {3}
    assert sim.aclrtDestroyEvent(e) == 0
    for s in (s1, s2, s3):
        assert sim.aclrtDestroyStream(s) == 0
    d.free()


def test_event_destroyed_while_a_wait_is_queued(dev):
    sim = dev
    s1, s2, e = P(), P(), P()
    assert sim.aclrtCreateStream(C.byref(s1)) == 0 and sim.aclrtCreateStream(C.byref(s2)) == 0
    assert sim.aclrtCreateEvent(C.byref(e)) == 0
    assert sim.aclsimPauseStream(s1) == 0
    assert sim.aclrtRecordEvent(e, s1) == 0 and sim.aclrtStreamWaitEvent(s2, e) == 0
    assert sim.aclrtDestroyEvent(e) == 0  # allowed before completion; resources go when it completes
    assert sim.aclsimResumeStream(s1) == 0
    assert sim.aclrtSynchronizeStream(s2) == 0
    assert sim.aclrtDestroyStream(s1) == 0 and sim.aclrtDestroyStream(s2) == 0


# ---------------------------------------------------------------- descriptors
def test_descriptors_copy_their_inputs_and_are_counted(dev):
    sim = dev
    base = {k: sim.aclsimLiveCount(k.encode()) for k in KINDS}
    dims, strides, stor = arr64([2, 3]), arr64([1, 2]), arr64([6])
    t = sim.aclCreateTensor(dims, 2, FLOAT16, strides, 0, ND, stor, 1, None)
    dims[0] = 99  # copied at creation
    out, n = C.POINTER(I64)(), U64()
    assert sim.aclGetViewShape(t, C.byref(out), C.byref(n)) == 0 and [out[i] for i in range(n.value)] == [2, 3]
    libc = C.CDLL(None)
    libc.free.argtypes = [P]
    libc.free(C.cast(out, P))
    assert sim.aclGetViewStrides(t, C.byref(out), C.byref(n)) == 0 and [out[i] for i in range(n.value)] == [1, 2]
    libc.free(C.cast(out, P))
    assert sim.aclGetStorageShape(t, C.byref(out), C.byref(n)) == 0 and [out[i] for i in range(n.value)] == [6]
    libc.free(C.cast(out, P))
    off, dt, fm = I64(), C.c_int(), C.c_int()
    assert sim.aclGetViewOffset(t, C.byref(off)) == 0 and off.value == 0
    assert sim.aclGetDataType(t, C.byref(dt)) == 0 and dt.value == FLOAT16
    assert sim.aclGetFormat(t, C.byref(fm)) == 0 and fm.value == ND
    assert sim.aclGetViewShape(None, C.byref(out), C.byref(n)) == NN_NULLPTR
    # a view reaching past its storage is refused
    assert not sim.aclCreateTensor(arr64([4]), 1, FLOAT, arr64([2]), 0, ND, arr64([6]), 1, None)
    assert "exceeds the storage" in errmsg(sim)
    assert not sim.aclCreateTensor(arr64([-1]), 1, FLOAT, None, 0, ND, arr64([1]), 1, None)
    v = C.c_double(2.5)
    sc = sim.aclCreateScalar(C.byref(v), DOUBLE)
    ia = sim.aclCreateIntArray(arr64([1, 2, 3]), 3)
    fa = sim.aclCreateFloatArray((C.c_float * 2)(1, 2), 2)
    ba = sim.aclCreateBoolArray((C.c_bool * 2)(True, False), 2)
    assert sim.aclGetIntArraySize(ia, C.byref(n)) == 0 and n.value == 3
    t2 = sim.aclCreateTensor(arr64([1]), 1, FLOAT, None, 0, ND, arr64([1]), 1, None)
    tl = sim.aclCreateTensorList((P * 2)(t, t2), 2)
    sc2 = sim.aclCreateScalar(C.byref(v), DOUBLE)
    sl = sim.aclCreateScalarList((P * 1)(sc2), 1)
    assert sim.aclGetTensorListSize(tl, C.byref(n)) == 0 and n.value == 2
    now = {k: sim.aclsimLiveCount(k.encode()) for k in KINDS}
    grew = {k: now[k] - base[k] for k in KINDS if now[k] != base[k]}
    assert grew == {
        "tensors": 2,
        "scalars": 2,
        "int_arrays": 1,
        "float_arrays": 1,
        "bool_arrays": 1,
        "tensor_lists": 1,
        "scalar_lists": 1,
    }
    # a list owns its elements: destroying it destroys them
    for f, h in (
        (sim.aclDestroyTensorList, tl),
        (sim.aclDestroyScalarList, sl),
        (sim.aclDestroyScalar, sc),
        (sim.aclDestroyIntArray, ia),
        (sim.aclDestroyFloatArray, fa),
        (sim.aclDestroyBoolArray, ba),
    ):
        assert f(h) == 0
    assert {k: sim.aclsimLiveCount(k.encode()) for k in KINDS} == base


# ---------------------------------------------------------------- ops vs NumPy
def ref_binary(op, a, b, alpha, ct):
    fa, fb = a.astype(np.float64), b.astype(np.float64)
    if ct == BOOL:
        return (fa != 0) | (fb != 0) if op == "add" else (fa != 0) & (fb != 0)
    return fa + alpha * fb if op == "add" else fa * fb


def assert_close(got_raw, want, dt):
    got = host_values(got_raw, dt)
    if dt == BOOL:
        np.testing.assert_array_equal(got != 0, np.asarray(want) != 0)
    elif dt in FLOATS:
        want = host_values(encode(want, dt), dt)  # the reference rounded to dt
        tol = {FLOAT: 1e-6, DOUBLE: 1e-12, FLOAT16: 1e-3, BF16: 8e-3}[dt]
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    else:
        np.testing.assert_array_equal(got, np.asarray(want).astype(NP[dt]).astype(np.float64))


@pytest.mark.parametrize("dt", ALL)
@pytest.mark.parametrize("op", ["add", "mul"])
def test_binary_ops_every_dtype_with_broadcasting(dev, dt, op):
    sim, rng = dev, np.random.default_rng(dt)
    cases = [((3, 1, 4), (3, 5, 4)), ((5, 4), (3, 5, 4)), ((3, 5, 4), (4,)), ((), (2, 3)), ((0, 3), (1, 3))]
    for sa, sb in cases:
        a, b = sample(sa, dt, rng), sample(sb, dt, rng)
        shape = np.broadcast_shapes(sa, sb)
        A, B, O = DT(sim, a, dt), DT(sim, b, dt), DT(sim, np.zeros(shape, NP[dt]), dt)
        if op == "add":
            alpha = True if dt == BOOL else 2
            al = scalar(sim, alpha, BOOL if dt == BOOL else INT64)
            assert run_op(sim, "Add", A.t, B.t, al, O.t) == 0, errmsg(sim)
            sim.aclDestroyScalar(al)
        else:
            alpha = 1
            assert run_op(sim, "Mul", A.t, B.t, O.t) == 0, errmsg(sim)
        want = ref_binary(op, host_values(a, dt), host_values(b, dt), alpha, dt)
        if dt not in FLOATS and dt != BOOL:  # integer results wrap like the dtype
            want = np.asarray(want).astype(np.int64).astype(NP[dt])
        assert_close(O.host(), want, dt)
        for x in (A, B, O):
            x.close()


@pytest.mark.parametrize("dt", ALL)
def test_scalar_and_inplace_ops_every_dtype(dev, dt):
    sim, rng = dev, np.random.default_rng(100 + dt)
    a = sample((4, 3), dt, rng)
    same = True if dt == BOOL else 3
    for op in ("Adds", "Muls", "InplaceAdds", "InplaceMuls", "InplaceAdd", "InplaceMul"):
        A, O = DT(sim, a, dt), DT(sim, np.zeros((4, 3), NP[dt]), dt)
        other = scalar(sim, same, BOOL if dt == BOOL else INT64)
        one = scalar(sim, True if dt == BOOL else 1, BOOL if dt == BOOL else INT64)
        B = DT(sim, sample((3,), dt, rng), dt)
        args = {
            "Adds": (A.t, other, one, O.t),
            "Muls": (A.t, other, O.t),
            "InplaceAdds": (A.t, other, one),
            "InplaceMuls": (A.t, other),
            "InplaceAdd": (A.t, B.t, one),
            "InplaceMul": (A.t, B.t),
        }[op]
        assert run_op(sim, op, *args) == 0, errmsg(sim)
        kind = "add" if "Add" in op else "mul"
        rhs = host_values(B.storage, dt) if op in ("InplaceAdd", "InplaceMul") else np.float64(same)
        want = ref_binary(kind, host_values(a, dt), rhs, 1, dt)
        if dt not in FLOATS and dt != BOOL:
            want = np.asarray(want).astype(np.int64).astype(NP[dt])
        assert_close((A if "Inplace" in op else O).host(), want, dt)
        for x in (A, O, B):
            x.close()
        sim.aclDestroyScalar(other)
        sim.aclDestroyScalar(one)


def test_type_promotion_and_float_alpha(dev):
    sim = dev
    a = np.array([1, 2, 3], np.int32)
    b = encode([0.5, 0.25, 0.125], FLOAT16)
    A, B, O = DT(sim, a, INT32), DT(sim, b, FLOAT16), DT(sim, np.zeros(3, np.float32), FLOAT)
    al = scalar(sim, 1.5, DOUBLE)
    assert run_op(sim, "Add", A.t, B.t, al, O.t) == 0  # int32 + fp16 -> fp16, written to a float32 out
    np.testing.assert_allclose(O.host(), np.float16(a + 1.5 * np.array([0.5, 0.25, 0.125])), rtol=1e-3)
    # int tensor * float scalar -> float (the scalar lifts the category)
    two = scalar(sim, 2.5, DOUBLE)
    assert run_op(sim, "Muls", A.t, two, O.t) == 0
    np.testing.assert_allclose(O.host(), a * 2.5)
    for x in (A, B, O):
        x.close()
    for s in (al, two):
        sim.aclDestroyScalar(s)


def test_cast_every_pair(dev):
    sim = dev
    vals = np.array([0.0, 1.0, -1.5, 2.75, 100.0, -3.0, 0.5, 7.0])
    for src in ALL:
        x = (vals != 0) if src == BOOL else encode(np.abs(vals) if src == UINT8 else vals, src)
        S = DT(sim, x, src)
        v = host_values(x, src)
        for dst in ALL:
            O = DT(sim, np.zeros(8, NP[dst]), dst)
            assert run_op(sim, "Cast", S.t, dst, O.t) == 0, errmsg(sim)
            if dst == BOOL:
                want = v != 0
            elif dst in FLOATS:
                want = v
            else:
                want = np.trunc(v).astype(np.int64).astype(NP[dst])  # float -> int truncates
            assert_close(O.host(), want, dst)
            O.close()
        S.close()


def test_half_and_bfloat16_round_to_nearest_even(dev):
    sim = dev
    x = np.array(
        [1 + 2**-11, 1 + 3 * 2**-11, 65519.0, 65520.0, 1e-8, 2**-24 * 0.5, 2**-24 * 0.75, 1 + 2**-8, 1 + 3 * 2**-8],
        np.float64,
    )
    S = DT(sim, x, DOUBLE)
    O = DT(sim, np.zeros(len(x), np.float16), FLOAT16)
    assert run_op(sim, "Cast", S.t, FLOAT16, O.t) == 0
    with np.errstate(over="ignore"):  # 65520 rounds to inf, as it should
        want = x.astype(np.float32).astype(np.float16)
    np.testing.assert_array_equal(O.host().view(np.uint16), want.view(np.uint16))
    Ob = DT(sim, np.zeros(len(x), np.uint16), BF16)
    assert run_op(sim, "Cast", S.t, BF16, Ob.t) == 0
    np.testing.assert_array_equal(Ob.host(), to_bf16(x.astype(np.float32)))
    for t in (S, O, Ob):
        t.close()


def test_non_contiguous_views(dev):
    sim, rng = dev, np.random.default_rng(7)
    base = rng.uniform(-1, 1, 12).astype(np.float32)
    # transposed: a (4, 3) storage seen as (3, 4) with strides (1, 3)
    A = DT(sim, base, FLOAT, shape=[3, 4], strides=[1, 3])
    # sliced with an offset: 20 elements, view (3, 4) strides (5, 1) offset 2
    st = rng.uniform(-1, 1, 20).astype(np.float32)
    B = DT(sim, st, FLOAT, shape=[3, 4], strides=[5, 1], offset=2)
    # the output is a strided view too: every other element of a 24-element storage
    O = DT(sim, np.zeros(24, np.float32), FLOAT, shape=[3, 4], strides=[8, 2], offset=1)
    one = scalar(sim, 1, INT64)
    assert run_op(sim, "Add", A.t, B.t, one, O.t) == 0
    want = base.reshape(4, 3).T + np.lib.stride_tricks.as_strided(st[2:], (3, 4), (20, 4))
    np.testing.assert_allclose(O.host(), want, rtol=1e-6)
    untouched = O.mem.read(np.float32, 24)[0::2]
    assert not untouched.any()  # elements outside the view are not written
    # copy_ broadcasting a row into a transposed destination, cross-dtype (float -> int truncates)
    D = DT(sim, np.zeros(12, np.int32), INT32, shape=[3, 4], strides=[1, 3])
    R = DT(sim, np.array([1.9, -2.9, 3.5, 4.0], np.float32), FLOAT)
    assert run_op(sim, "InplaceCopy", D.t, R.t) == 0
    np.testing.assert_array_equal(D.host(), np.broadcast_to(np.array([1, -2, 3, 4]), (3, 4)))
    for x in (A, B, O, D, R):
        x.close()
    sim.aclDestroyScalar(one)


@pytest.mark.parametrize("dt", ALL)
def test_fill_and_zero(dev, dt):
    sim = dev
    T = DT(sim, encode(np.ones(10), dt), dt, shape=[2, 3], strides=[4, 1], offset=1)
    v = scalar(sim, 2.75, DOUBLE)
    assert run_op(sim, "InplaceFillScalar", T.t, v) == 0
    full = T.mem.read(NP[dt], 10)
    want_v = (2.75 != 0) if dt == BOOL else (2.75 if dt in FLOATS else 2)
    assert_close(T.host(), np.full((2, 3), want_v), dt)
    assert host_values(full[:1], dt)[0] == 1  # outside the view: untouched
    assert run_op(sim, "InplaceZero", T.t) == 0
    assert not host_values(T.host(), dt).any()
    T.close()
    sim.aclDestroyScalar(v)


def matmul_ref(a, b):
    return np.matmul(a.astype(np.float64), b.astype(np.float64))


@pytest.mark.parametrize("dt", [FLOAT, FLOAT16, BF16])
def test_matmul_family(dev, dt):
    sim, rng = dev, np.random.default_rng(dt)
    cases = [
        ("Matmul", (3, 4), (4, 5)),
        ("Matmul", (4,), (4,)),
        ("Matmul", (4,), (2, 4, 3)),
        ("Matmul", (2, 1, 3, 4), (5, 4, 2)),
        ("Matmul", (2, 3, 4), (4,)),
        ("Mm", (3, 4), (4, 2)),
        ("BatchMatMul", (2, 3, 4), (2, 4, 5)),
        ("Matmul", (0, 4), (4, 3)),
    ]
    for op, sa, sb in cases:
        a, b = sample(sa, dt, rng), sample(sb, dt, rng)
        want = matmul_ref(host_values(a, dt), host_values(b, dt))
        A, B, O = DT(sim, a, dt), DT(sim, b, dt), DT(sim, np.zeros(want.shape, NP[dt]), dt)
        assert run_op(sim, op, A.t, B.t, O.t, 1) == 0, (op, sa, sb, errmsg(sim))
        got, ref = host_values(O.host(), dt), host_values(encode(want, dt), dt)
        np.testing.assert_allclose(got, ref, rtol={FLOAT: 1e-5, FLOAT16: 2e-3, BF16: 1e-2}[dt], atol=1e-2)
        for x in (A, B, O):
            x.close()


def test_matmul_fp16_accumulates_in_float32(dev):
    sim = dev
    k = 4096  # 4096 * 1.0 is exact in fp32 accumulation; an fp16 accumulator would stall at 2048
    A = DT(sim, np.ones((1, k), np.float16), FLOAT16)
    B = DT(sim, np.ones((k, 1), np.float16), FLOAT16)
    O = DT(sim, np.zeros((1, 1), np.float16), FLOAT16)
    assert run_op(sim, "Mm", A.t, B.t, O.t, 0) == 0
    assert O.host()[0, 0] == 4096
    for x in (A, B, O):
        x.close()


def test_matmul_packs_non_contiguous_operands_into_its_workspace(dev):
    sim, rng = dev, np.random.default_rng(3)
    a = rng.uniform(-1, 1, (4, 3)).astype(np.float32)
    b = rng.uniform(-1, 1, (4, 5)).astype(np.float32)
    A = DT(sim, a, FLOAT, shape=[3, 4], strides=[1, 3])  # a.T, transposed view
    B, O = DT(sim, b, FLOAT), DT(sim, np.zeros((3, 5), np.float32), FLOAT)
    ws, ex = U64(), P()
    g, launch = sim.Mm
    assert g(A.t, B.t, O.t, 0, C.byref(ws), C.byref(ex)) == 0
    assert ws.value >= 12 * 4
    assert sim.aclSetAclOpExecutorRepeatable(ex) == 0
    assert launch(None, ws.value, ex, None) == NN_INVALID and "workspace" in errmsg(sim)
    small = Dev(sim, 16)
    assert launch(small.ptr, 16, ex, None) == NN_INVALID
    host = np.zeros(ws.value, np.uint8)
    assert launch(host.ctypes.data, ws.value, ex, None) == NN_INVALID  # host memory is not a workspace
    w = Dev(sim, ws.value)
    assert launch(w.ptr, ws.value, ex, None) == 0 and sim.aclrtSynchronizeStream(None) == 0
    np.testing.assert_allclose(O.host(), a.T @ b, rtol=1e-5)
    assert sim.aclDestroyAclOpExecutor(ex) == 0
    for x in (A, B, O, small, w):
        (x.close if isinstance(x, DT) else x.free)()


# ---------------------------------------------------------------- validation at phase 1
def test_phase_one_validation(dev):
    sim = dev
    f = lambda shape, dt=FLOAT, fmt=ND: tensor(sim, None, dt, shape, fmt=fmt)
    one = scalar(sim, 1, INT64)
    fone = scalar(sim, 1.5, DOUBLE)
    ws, ex = U64(), P()
    g = lambda op, *a: getattr(sim, op)[0](*a, C.byref(ws), C.byref(ex))
    made = []

    def t(*a, **k):
        made.append(f(*a, **k))
        return made[-1]

    cases = [
        (NN_NULLPTR, g("Add", None, t([2]), one, t([2]))),
        (NN_NULLPTR, g("Add", t([2]), t([2]), None, t([2]))),
        (NN_INVALID, g("Add", t([2, 3]), t([4]), one, t([2, 3]))),  # cannot broadcast
        (NN_INVALID, g("Add", t([2, 1]), t([3]), one, t([2, 1]))),  # out is not the broadcast shape
        (NN_INVALID, g("InplaceAdd", t([1, 3]), t([2, 3]), one)),  # selfRef must hold the result
        (NN_INVALID, g("Add", t([2], FLOAT), t([2], FLOAT), one, t([2], INT32))),  # float -> int out
        (NN_INVALID, g("Add", t([2], INT32), t([2], INT32), fone, t([2], INT32))),  # float alpha, int result
        (NN_INVALID, g("Add", t([2], fmt=29), t([2]), one, t([2]))),  # FRACTAL_NZ is not ND
        (NN_INVALID, g("Mul", t([1] * 9), t([1]), t([1] * 9))),  # more than 8 dims
        (NN_INVALID, g("Mm", t([2, 3]), t([4, 2]), t([2, 2]), 0)),  # inner dims
        (NN_INVALID, g("Mm", t([2, 3], INT32), t([3, 2], INT32), t([2, 2], INT32), 0)),  # dtype
        (NN_INVALID, g("Mm", t([2, 3, 1]), t([1, 2]), t([2, 3, 2]), 0)),  # Mm is 2-D only
        (NN_INVALID, g("BatchMatMul", t([2, 2, 3]), t([3, 3, 2]), t([2, 2, 2]), 0)),  # batch
        (NN_INVALID, g("Matmul", t([2, 3]), t([3, 2]), t([2, 3]), 0)),  # out shape
        (NN_INVALID, g("Matmul", t([2, 3], BF16), t([3, 2], BF16), t([2, 2], BF16), 2)),  # USE_FP16 with bf16
        (NN_INVALID, g("Cast", t([2]), INT32, t([2], FLOAT))),  # dtype vs out
        (NN_INVALID, g("InplaceCopy", t([2, 3]), t([3, 3]))),
        (NN_NULLPTR, g("InplaceFillScalar", t([2]), None)),
    ]
    for i, (want, rc) in enumerate(cases):
        assert rc == want, (i, rc, errmsg(sim))
    assert "GetWorkspaceSize" in errmsg(sim)
    for x in made:
        sim.aclDestroyTensor(x)
    sim.aclDestroyScalar(one)
    sim.aclDestroyScalar(fone)


# ---------------------------------------------------------------- executor life cycle
def test_executor_is_consumed_snapshotted_and_repeatable(dev):
    sim = dev
    s = P()
    assert sim.aclrtCreateStream(C.byref(s)) == 0
    A = DT(sim, np.arange(6, dtype=np.float32), FLOAT)
    O = DT(sim, np.zeros(6, np.float32), FLOAT)
    ws, ex = U64(), P()
    g, launch = sim.Muls
    two = scalar(sim, 2.0, FLOAT)
    assert g(A.t, two, O.t, C.byref(ws), C.byref(ex)) == 0 and ws.value == 0
    assert sim.aclsimLiveCount(b"executors") >= 1
    # the caller may destroy every descriptor right after phase 1: the executor holds a snapshot
    assert sim.aclDestroyTensor(A.t) == 0 and sim.aclDestroyTensor(O.t) == 0 and sim.aclDestroyScalar(two) == 0
    assert sim.aclsimPauseStream(s) == 0
    assert launch(None, 0, ex, s) == 0
    assert launch(None, 0, ex, s) == NN_INVALID and "not live" in errmsg(sim)  # consumed by the first launch
    assert sim.aclDestroyAclOpExecutor(ex) == NN_INVALID
    assert sim.aclsimResumeStream(s) == 0 and sim.aclrtSynchronizeStream(s) == 0
    np.testing.assert_array_equal(O.mem.read(np.float32, 6), np.arange(6) * 2.0)
    # repeatable: launched twice, then destroyed by the caller
    A.t = tensor(sim, A.mem.ptr, FLOAT, [6])
    O.t = tensor(sim, O.mem.ptr, FLOAT, [6])
    one = scalar(sim, 1, INT64)
    g2, launch2 = sim.InplaceAdd
    assert g2(O.t, A.t, one, C.byref(ws), C.byref(ex)) == 0
    assert sim.aclSetAclOpExecutorRepeatable(ex) == 0
    assert sim.Mul[1](None, 0, ex, s) == NN_INVALID  # an Add executor is not a Mul
    assert launch2(None, 0, ex, s) == 0 and launch2(None, 0, ex, s) == 0
    assert sim.aclrtSynchronizeStream(s) == 0
    np.testing.assert_array_equal(O.mem.read(np.float32, 6), np.arange(6) * 4.0)
    assert sim.aclDestroyAclOpExecutor(ex) == 0
    assert sim.aclDestroyAclOpExecutor(ex) == NN_INVALID
    assert sim.aclDestroyAclOpExecutor(None) == NN_INNER_NULLPTR
    assert launch2(None, 0, None, s) == NN_INNER_NULLPTR
    sim.aclDestroyScalar(one)
    A.close()
    O.close()
    assert sim.aclrtDestroyStream(s) == 0


def _stream_and_operands(sim):
    """A new stream and four 6-element float32 device tensors: 0..5, tens, and two of zeros."""
    s = P()
    assert sim.aclrtCreateStream(C.byref(s)) == 0
    values = (
        np.arange(6, dtype=np.float32),
        np.full(6, 10, np.float32),
        np.zeros(6, np.float32),
        np.zeros(6, np.float32),
    )
    return s, [DT(sim, v, FLOAT) for v in values]


def _close_all(sim, s, *tensors):
    for x in tensors:
        x.close()
    assert sim.aclrtDestroyStream(s) == 0


def test_tensor_addresses_refresh_only_a_repeatable_executor(dev):
    sim = dev
    s, (A, B, O1, O2) = _stream_and_operands(sim)
    ws, ex = U64(), P()
    g, launch = sim.Muls
    two = scalar(sim, 2.0, FLOAT)
    # a fresh executor is consumed by its launch: its addresses cannot be refreshed
    assert g(A.t, two, O1.t, C.byref(ws), C.byref(ex)) == 0
    assert sim.aclSetTensorAddr(ex, 0, A.t, B.mem.ptr) == NN_INVALID and "repeatable" in errmsg(sim)
    assert sim.aclSetAclOpExecutorRepeatable(ex) == 0
    assert sim.aclSetTensorAddr(None, 0, A.t, B.mem.ptr) == NN_INNER_NULLPTR
    assert sim.aclSetTensorAddr(ex, 0, None, B.mem.ptr) == NN_INNER_NULLPTR
    assert sim.aclSetTensorAddr(ex, 2, A.t, B.mem.ptr) == NN_INVALID and "out of range" in errmsg(sim)
    assert sim.aclSetTensorAddr(ex, 0, B.t, B.mem.ptr) == NN_INVALID and "not an operand" in errmsg(sim)
    assert sim.aclSetTensorAddr(ex, 0, A.t, B.mem.ptr + 4) == NN_INVALID and "aligned" in errmsg(sim)
    # a launch keeps the addresses it was launched with; a refresh reaches the launches after it
    assert sim.aclsimPauseStream(s) == 0
    assert launch(None, 0, ex, s) == 0
    assert sim.aclSetTensorAddr(ex, 0, A.t, B.mem.ptr) == 0 and sim.aclSetTensorAddr(ex, 1, O1.t, O2.mem.ptr) == 0
    assert launch(None, 0, ex, s) == 0
    assert sim.aclsimResumeStream(s) == 0 and sim.aclrtSynchronizeStream(s) == 0
    np.testing.assert_array_equal(O1.mem.read(np.float32, 6), np.arange(6) * 2.0)
    np.testing.assert_array_equal(O2.mem.read(np.float32, 6), np.full(6, 20.0))
    assert sim.aclDestroyAclOpExecutor(ex) == 0
    assert sim.aclSetTensorAddr(ex, 0, A.t, A.mem.ptr) == NN_INVALID  # destroyed
    sim.aclDestroyScalar(two)
    _close_all(sim, s, A, B, O1, O2)


def test_queued_launches_keep_their_addresses_across_refreshes(dev):
    """Launches queued between two refreshes run with the addresses of their launch, however many share them,
    and survive the executor's destruction."""
    sim = dev
    s, (A, B, O1, O2) = _stream_and_operands(sim)
    ws, ex = U64(), P()
    g, launch = sim.InplaceAdd
    one = scalar(sim, 1, INT64)
    assert g(O1.t, A.t, one, C.byref(ws), C.byref(ex)) == 0 and sim.aclSetAclOpExecutorRepeatable(ex) == 0
    assert sim.aclsimPauseStream(s) == 0
    assert launch(None, 0, ex, s) == 0 and launch(None, 0, ex, s) == 0  # O1 += A, twice
    assert sim.aclSetTensorAddr(ex, 0, O1.t, O2.mem.ptr) == 0
    assert launch(None, 0, ex, s) == 0  # O2 += A
    assert sim.aclSetTensorAddr(ex, 1, A.t, B.mem.ptr) == 0
    for _ in range(3):  # O2 += B, three times
        assert launch(None, 0, ex, s) == 0
    assert sim.aclDestroyAclOpExecutor(ex) == 0  # the queued launches keep what they need
    assert sim.aclsimResumeStream(s) == 0 and sim.aclrtSynchronizeStream(s) == 0
    np.testing.assert_array_equal(O1.mem.read(np.float32, 6), np.arange(6) * 2.0)
    np.testing.assert_array_equal(O2.mem.read(np.float32, 6), np.arange(6) + 30.0)
    sim.aclDestroyScalar(one)
    _close_all(sim, s, A, B, O1, O2)


def test_kernel_on_freed_memory_fails_at_execution(dev):
    sim = dev
    s = P()
    assert sim.aclrtCreateStream(C.byref(s)) == 0
    A = DT(sim, np.ones(4, np.float32), FLOAT)
    assert sim.aclsimPauseStream(s) == 0
    assert run_op(sim, "InplaceZero", A.t, stream=s, sync=False) == 0
    A.mem.free()
    assert sim.aclsimResumeStream(s) == 0
    assert sim.aclrtSynchronizeStream(s) == RT_AICORE_EXCEPTION
    assert "aclnnInplaceZero" in errmsg(sim)
    assert sim.aclDestroyTensor(A.t) == 0
    assert sim.aclrtDestroyStream(s) == 0


def test_launch_on_a_destroyed_stream(dev):
    sim = dev
    s = P()
    assert sim.aclrtCreateStream(C.byref(s)) == 0 and sim.aclrtDestroyStream(s) == 0
    A = DT(sim, np.ones(4, np.float32), FLOAT)
    ws, ex = U64(), P()
    assert sim.InplaceZero[0](A.t, C.byref(ws), C.byref(ex)) == 0
    assert sim.InplaceZero[1](None, 0, ex, s) == 361001  # ACLNN_ERR_RUNTIME_ERROR
    assert sim.aclDestroyAclOpExecutor(ex) == 0  # not consumed: the launch never happened
    A.close()


# ---------------------------------------------------------------- concurrency and the build itself
def test_threads_drive_their_own_streams_concurrently(dev):
    sim, errors = dev, []

    def body(k):
        try:
            assert sim.aclrtSetDevice(k % 2) == 0
            s = P()
            assert sim.aclrtCreateStream(C.byref(s)) == 0
            x = np.arange(256, dtype=np.float32) + k
            A, O = DT(sim, x, FLOAT), DT(sim, np.zeros(256, np.float32), FLOAT)
            one = scalar(sim, 1, INT64)
            for _ in range(20):  # O += A, 20 times, queued back to back
                assert run_op(sim, "InplaceAdd", O.t, A.t, one, stream=s, sync=False) == 0
            assert sim.aclrtSynchronizeStream(s) == 0
            np.testing.assert_array_equal(O.host(), 20 * x)
            sim.aclDestroyScalar(one)
            A.close()
            O.close()
            assert sim.aclrtDestroyStream(s) == 0
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)

    threads = [threading.Thread(target=body, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_build_is_warning_free_and_cached(tmp_path):
    here = os.path.join(os.path.dirname(_here), "..", "mindtorch-npu", "simulator")
    env = dict(os.environ, CC=os.environ.get("CC", "cc") + " -Werror")
    r = subprocess.run(
        [sys.executable, os.path.join(here, "build.py"), str(tmp_path)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0 and not r.stderr, r.stderr  # -Wall -Wextra clean
    libs = sorted(p.name for p in tmp_path.glob("*.so"))
    assert libs == ["libascendcl.so", "libhccl.so", "libnnopbase.so", "libopapi.so"]
    mtimes = {p: p.stat().st_mtime_ns for p in tmp_path.glob("*.so")}
    code = f"import sys; sys.path.insert(0, {here!r}); import build; build.build({str(tmp_path)!r})"
    assert subprocess.run([sys.executable, "-c", code], env=env, timeout=120).returncode == 0
    assert {p: p.stat().st_mtime_ns for p in tmp_path.glob("*.so")} == mtimes  # up to date: not rebuilt


# ---------------------------------------------------------------- PyTorch as the oracle (when installed)
def _torch():
    return pytest.importorskip("torch")


def _torch_dtype(torch, dt):
    return {
        FLOAT: torch.float32,
        FLOAT16: torch.float16,
        INT8: torch.int8,
        INT32: torch.int32,
        UINT8: torch.uint8,
        INT16: torch.int16,
        INT64: torch.int64,
        DOUBLE: torch.float64,
        BOOL: torch.bool,
        BF16: torch.bfloat16,
    }[dt]


def _to_torch(torch, arr, dt):
    t = torch.from_numpy(np.ascontiguousarray(arr))
    return t.view(torch.bfloat16) if dt == BF16 else t


def _from_torch(torch, t, dt):
    return t.view(torch.uint16).numpy() if dt == BF16 else t.numpy()


def test_binary_promotion_matches_pytorch(dev):
    torch = _torch()
    sim, rng = dev, np.random.default_rng(11)
    by_torch = {_torch_dtype(torch, d): d for d in ALL}
    for d1 in ALL:
        for d2 in ALL:
            a, b = sample((2, 1, 3), d1, rng), sample((4, 3), d2, rng)
            ta, tb = _to_torch(torch, a, d1), _to_torch(torch, b, d2)
            rt = by_torch[torch.result_type(ta, tb)]
            for op in ("Add", "Mul"):
                want = torch.add(ta, tb, alpha=2 if rt != BOOL else True) if op == "Add" else torch.mul(ta, tb)
                for out_dt in (rt, FLOAT, BOOL, INT32):
                    A, B = DT(sim, a, d1), DT(sim, b, d2)
                    O = DT(sim, np.zeros((2, 4, 3), NP[out_dt]), out_dt)
                    args = [A.t, B.t]
                    if op == "Add":
                        args.append(scalar(sim, 2 if rt != BOOL else True, INT64 if rt != BOOL else BOOL))
                    rc = run_op(sim, op, *args, O.t)
                    if op == "Add":
                        sim.aclDestroyScalar(args[2])
                    ok = torch.can_cast(torch.result_type(ta, tb), _torch_dtype(torch, out_dt))
                    assert (rc == 0) == ok, (op, d1, d2, out_dt, rc, errmsg(sim))
                    if ok:
                        assert_close(
                            O.host(),
                            host_values(_from_torch(torch, want.to(_torch_dtype(torch, out_dt)), out_dt), out_dt),
                            out_dt,
                        )
                    for x in (A, B, O):
                        x.close()


def test_scalar_promotion_matches_pytorch(dev):
    torch = _torch()
    sim, rng = dev, np.random.default_rng(12)
    by_torch = {_torch_dtype(torch, d): d for d in ALL}
    for d in ALL:
        a = sample((5,), d, rng)
        ta = _to_torch(torch, a, d)
        for value, sdt in ((3, INT64), (0.5, DOUBLE), (True, BOOL)):
            rt = by_torch[torch.result_type(ta, value)]
            A, O = DT(sim, a, d), DT(sim, np.zeros(5, NP[rt]), rt)
            s = scalar(sim, value, sdt)
            assert run_op(sim, "Muls", A.t, s, O.t) == 0, (d, value, errmsg(sim))
            assert_close(O.host(), host_values(_from_torch(torch, torch.mul(ta, value), rt), rt), rt)
            sim.aclDestroyScalar(s)
            A.close()
            O.close()


@pytest.mark.parametrize("dt", [FLOAT, FLOAT16, BF16])
def test_elementwise_bits_match_pytorch(dev, dt):
    torch = _torch()
    sim, rng = dev, np.random.default_rng(13)
    a, b = encode(rng.standard_normal((64,)) * 100, dt), encode(rng.standard_normal((64,)) * 0.01, dt)
    ta, tb = _to_torch(torch, a, dt), _to_torch(torch, b, dt)
    for op, want in (("Add", torch.add(ta, tb)), ("Mul", torch.mul(ta, tb))):
        A, B, O = DT(sim, a, dt), DT(sim, b, dt), DT(sim, np.zeros(64, NP[dt]), dt)
        args = [A.t, B.t] + ([scalar(sim, 1, INT64)] if op == "Add" else [])
        assert run_op(sim, op, *args, O.t) == 0
        np.testing.assert_array_equal(O.host().view(np.uint8), _from_torch(torch, want, dt).view(np.uint8))
        if op == "Add":
            sim.aclDestroyScalar(args[2])
        for x in (A, B, O):
            x.close()
    # casts from float64, including ties and overflow, round exactly as PyTorch does
    x = rng.standard_normal(256) * np.logspace(-8, 6, 256)
    S, O = DT(sim, x, DOUBLE), DT(sim, np.zeros(256, NP[dt]), dt)
    assert run_op(sim, "Cast", S.t, dt, O.t) == 0
    want = torch.from_numpy(x).to(_torch_dtype(torch, dt))
    np.testing.assert_array_equal(O.host().view(np.uint8), _from_torch(torch, want, dt).view(np.uint8))
    S.close()
    O.close()


def _convert_ref(v, dst):
    """PyTorch's conversion of float64 values v to dst (float -> int truncates, -> bool is != 0)."""
    if dst == BOOL:
        return v != 0
    if dst in FLOATS:
        return v
    return np.trunc(v).astype(np.int64).astype(NP[dst])


def test_copy_every_pair_broadcast_into_a_strided_view(dev):
    sim = dev
    vals = np.array([0.0, 2.75, -1.5])
    for src in ALL:
        x = (vals != 0) if src == BOOL else encode(np.abs(vals) if src == UINT8 else vals, src)
        v = host_values(x, src)
        for dst in ALL:
            D = DT(sim, encode(np.full(12, 9.0), dst), dst, shape=[4, 3], strides=[1, 4])  # a transposed view
            S = DT(sim, x, src)
            assert run_op(sim, "InplaceCopy", D.t, S.t) == 0, (src, dst, errmsg(sim))
            assert_close(D.host(), np.broadcast_to(_convert_ref(v, dst), (4, 3)), dst)
            D.close()
            S.close()


def test_scalar_ops_on_0_dim_and_empty_tensors(dev):
    sim = dev
    two = scalar(sim, 2, INT64)
    one = scalar(sim, 1, INT64)
    Z = DT(sim, np.array(3.0, np.float32), FLOAT)  # 0-dim
    O = DT(sim, np.array(0.0, np.float32), FLOAT)
    assert run_op(sim, "Adds", Z.t, two, one, O.t) == 0 and O.host() == 5.0
    assert run_op(sim, "InplaceMuls", Z.t, two) == 0 and Z.host() == 6.0
    E = DT(sim, np.zeros((0, 4), np.float32), FLOAT)
    EO = DT(sim, np.zeros((0, 4), np.float32), FLOAT)
    assert run_op(sim, "Muls", E.t, two, EO.t) == 0 and EO.host().shape == (0, 4)
    assert run_op(sim, "InplaceZero", E.t) == 0
    for x in (Z, O, E, EO):
        x.close()
    sim.aclDestroyScalar(two)
    sim.aclDestroyScalar(one)


def test_reset_event_and_device_wide_synchronize(dev):
    sim = dev
    s, e = P(), P()
    assert sim.aclrtCreateStream(C.byref(s)) == 0
    assert sim.aclrtCreateEventWithFlag(C.byref(e), 0x1 | 0x8) == 0  # SYNC | TIME_LINE
    ms = C.c_float()
    assert sim.aclrtRecordEvent(e, s) == 0 and sim.aclrtSynchronizeEvent(e) == 0
    assert sim.aclrtEventElapsedTime(C.byref(ms), e, e) == 0 and ms.value == 0.0
    assert sim.aclrtResetEvent(e, s) == 0 and sim.aclrtSynchronizeStream(s) == 0
    assert sim.aclrtEventElapsedTime(C.byref(ms), e, e) == RT_TIMESTAMP_INVALID  # no record any more
    # a failure on a user stream surfaces through aclrtSynchronizeDevice too
    d = Dev(sim, 64)
    assert sim.aclsimPauseStream(s) == 0
    assert sim.aclrtMemsetAsync(d.ptr, 64, 0, 64, s) == 0
    d.free()
    assert sim.aclsimResumeStream(s) == 0
    assert sim.aclrtSynchronizeDevice() == RT_SYS_DMA and "aclrtSynchronizeDevice" in errmsg(sim)
    assert sim.aclrtSynchronizeDevice() == 0
    assert sim.aclrtDestroyEvent(e) == 0 and sim.aclrtDestroyStream(s) == 0


@pytest.mark.parametrize("dt", [FLOAT, FLOAT16, BF16])
def test_matmul_matches_pytorch(dev, dt):
    torch = _torch()
    sim, rng = dev, np.random.default_rng(14)
    for sa, sb in (((3, 64), (64, 5)), ((2, 1, 4, 32), (3, 32, 2)), ((32,), (2, 32, 3))):
        a, b = encode(rng.standard_normal(sa), dt), encode(rng.standard_normal(sb), dt)
        want = torch.matmul(_to_torch(torch, a, dt), _to_torch(torch, b, dt))
        A, B, O = DT(sim, a, dt), DT(sim, b, dt), DT(sim, np.zeros(tuple(want.shape), NP[dt]), dt)
        assert run_op(sim, "Matmul", A.t, B.t, O.t, 0) == 0
        got, ref = host_values(O.host(), dt), host_values(_from_torch(torch, want, dt), dt)
        np.testing.assert_allclose(got, ref, rtol={FLOAT: 1e-5, FLOAT16: 1e-3, BF16: 8e-3}[dt], atol=1e-4)
        for x in (A, B, O):
            x.close()


def test_synchronous_copy_acts_at_once_without_waiting_for_queued_work(dev):
    # acl docs (aclrtMemcpy): the copy is immediate, with no implicit device or stream synchronization
    sim = dev
    s1, e = P(), P()
    assert sim.aclrtCreateStream(C.byref(s1)) == 0 and sim.aclrtCreateEvent(C.byref(e)) == 0
    d = Dev(sim, 64)
    assert sim.aclrtMemset(d.ptr, 64, 1, 64) == 0
    assert sim.aclsimPauseStream(s1) == 0
    assert sim.aclrtRecordEvent(e, s1) == 0
    assert sim.aclrtStreamWaitEvent(None, e) == 0  # the default stream now waits for the paused s1
    assert sim.aclrtMemsetAsync(d.ptr, 64, 7, 64, None) == 0
    out = np.zeros(64, np.uint8)
    assert sim.aclrtMemcpy(out.ctypes.data, 64, d.ptr, 64, D2H) == 0
    assert set(out) == {1}  # the queued memset has not run
    assert sim.aclsimResumeStream(s1) == 0
    assert sim.aclrtSynchronizeStream(None) == 0
    assert sim.aclrtMemcpy(out.ctypes.data, 64, d.ptr, 64, D2H) == 0 and set(out) == {7}
    assert sim.aclrtDestroyEvent(e) == 0 and sim.aclrtDestroyStream(s1) == 0
    d.free()


def test_async_copy_with_pageable_memory_follows_the_cann_version():
    # CANN 8.0 docs: unpredictable (refused here); 8.5 docs: returns once the copy has completed
    code = """
        import ctypes as C, os, numpy as np
        sim = C.CDLL(os.path.join(os.environ["MINDTORCH_NPU_LIB_DIR"], "libascendcl.so"))
        sim.aclrtMemcpyAsync.argtypes = [C.c_void_p, C.c_size_t, C.c_void_p, C.c_size_t, C.c_int, C.c_void_p]
        sim.aclrtMalloc.argtypes = [C.POINTER(C.c_void_p), C.c_size_t, C.c_int]
        assert sim.aclInit(None) == 0 and sim.aclrtSetDevice(0) == 0
        d, s = C.c_void_p(), C.c_void_p()
        assert sim.aclrtMalloc(C.byref(d), 64, 0) == 0 and sim.aclrtCreateStream(C.byref(s)) == 0
        host = np.arange(16, dtype=np.float32)
        print("rc", sim.aclrtMemcpyAsync(d, 64, host.ctypes.data, 64, 1, s))
        back = np.zeros(16, np.float32)
        print("rc", sim.aclrtMemcpyAsync(back.ctypes.data, 64, d, 64, 2, s), back[5])
    """
    from npu_helpers import run_python

    old = run_python(code, {"ACLSIM_CANN_VERSION": "8.0"})
    assert old.returncode == 0 and old.stdout.split() == ["rc", "107000", "rc", "107000", "0.0"], old
    new = run_python(code, {"ACLSIM_CANN_VERSION": "8.5"})
    assert new.returncode == 0 and new.stdout.split() == ["rc", "0", "rc", "0", "5.0"], new  # done on return
    bad = run_python(code, {"ACLSIM_CANN_VERSION": "eight"})
    assert bad.returncode != 0


def test_kernel_with_an_operand_on_another_device_fails_at_execution(dev):
    sim = dev
    assert sim.aclrtSetDevice(1) == 0
    other = Dev.of(sim, np.ones(4, np.float32))  # lives on npu:1
    assert sim.aclrtSetDevice(0) == 0
    t = tensor(sim, other.ptr, FLOAT, [4])
    assert run_op(sim, "InplaceZero", t, sync=False) == 0  # queued on npu:0's default stream
    assert sim.aclrtSynchronizeStream(None) == RT_AICORE_EXCEPTION and "device 0" in errmsg(sim)
    np.testing.assert_array_equal(other.read(np.float32, 4), np.ones(4))
    sim.aclDestroyTensor(t)
    other.free()


def test_kernel_reading_host_memory_fails_at_execution(dev):
    sim = dev
    host = np.ones(4, np.float32)  # tensorData must be a device address; host memory is not one
    t = tensor(sim, host.ctypes.data, FLOAT, [4])
    assert run_op(sim, "InplaceZero", t, sync=False) == 0
    assert sim.aclrtSynchronizeStream(None) == RT_AICORE_EXCEPTION
    np.testing.assert_array_equal(host, np.ones(4))
    sim.aclDestroyTensor(t)
