"""The ACL runtime: initialise once, devices, streams, events, memory and copies.

Every call's return code is checked; a failure raises RuntimeError naming the call, CANN's code,
its symbolic name and aclGetRecentErrMsg(). Nothing touches CANN until first use, so importing
mindtorch on a machine without CANN works and `is_available()` is simply False.
Device contexts are per thread in ACL, so each thread sets its device before device calls.
"""

import atexit
import ctypes
import threading

from .acl import types as A
from .acl.libs import Libraries
from .acl.prototypes import MODEL_RI, NNOPBASE, RUNTIME, bind
from .native import load as _load_native

_c_void_p, _byref = ctypes.c_void_p, ctypes.byref
OPTIONAL = ("aclSetTensorAddr",)  # without it (older CANN) every launch runs both phases
_native = _load_native("launch")  # current_stream in C, or None


class _ThreadState(threading.local):
    """Per-thread device state. The class attributes are every thread's defaults, so reading one a thread
    never set is a plain attribute read (a missing attribute would cost an AttributeError per launch)."""

    device = 0  # the thread's current device
    bound = None  # the device bound to the thread (aclrtSetDevice)
    streams = None  # device index -> current stream handle, once the thread sets one


class AclRuntimeError(RuntimeError):
    def __init__(self, call, code, detail):
        self.call, self.code = call, code
        msg = f"{call} failed with ACL error {code} ({A.error_name(code)})"
        super().__init__(msg + (f": {detail}" if detail else ""))


class DtypeRefused(TypeError, AclRuntimeError):
    """Phase 1 refused a tensor whose dtype the operator's doc does not list for that parameter on this chip's
    product: a TypeError naming the operator, the parameter, the dtype and the chip (and still the device's
    status, for callers that look for it)."""

    def __init__(self, call, code, detail, why):
        AclRuntimeError.__init__(self, call, code, detail)
        self.args = (f"{why} (the device refused: {self.args[0]})",)


class Runtime:
    def __init__(self):
        self._lock = threading.RLock()
        self._tls = _ThreadState()
        if _native is not None:  # the method below in C: every result's allocation asks it
            self.current_stream = _native.CurrentStream(self._tls, self._current_stream)
        self.libs = None
        self.rt = self.nn = None
        self.state = "new"  # new -> ready | unavailable -> finalized
        self.reason = None
        self._count = None
        self._opened = set()  # device indices set at least once (reset at exit)
        self.sync_hook = None  # called after every host wait on the device (deferred device-side checks)
        self.plans_possible = False  # the library can refresh a repeatable executor's addresses (launch plans)
        self._soc = None
        self.mdl = None  # the stream-capture functions (ACL Graph), bound when the library has them
        self.captures = {}  # (device index, stream handle) -> the NPUGraph capturing on it

    # -- bring-up ---------------------------------------------------------------------------
    def probe(self):
        """Load the libraries (not aclInit); True when they load."""
        with self._lock:
            if self.libs is None:
                self.libs = Libraries()
                if self.libs.ok:
                    self.rt = bind(self.libs.ascendcl, RUNTIME)
                    self.nn = bind(self.libs.nnopbase, NNOPBASE)
                    self.mdl = bind(self.libs.ascendcl, MODEL_RI)
                    missing = self.rt.missing + [n for n in self.nn.missing if n not in OPTIONAL]
                    self.plans_possible = "aclSetTensorAddr" not in self.nn.missing
                    if missing:
                        self.libs.error = f"CANN libraries lack required functions: {', '.join(missing)}"
                if not self.libs.ok:
                    self.reason = self.libs.error
            return self.libs.ok

    def ensure(self):
        """aclInit once; raise RuntimeError saying what to install or source when CANN is absent."""
        if self.state == "ready":
            return self
        with self._lock:
            if self.state == "ready":
                return self
            if self.state == "finalized":
                raise RuntimeError("the NPU runtime was finalized at interpreter exit")
            if not self.probe():
                self.state = "unavailable"
                raise RuntimeError(f"the npu device is not available: {self.reason}")
            code = self.rt.aclInit(None)
            if code != A.ACL_ERROR_REPEAT_INITIALIZE:  # another library in the process may have done it
                self.check("aclInit", code)
            self.state = "ready"
            atexit.register(self.shutdown)
        return self

    def available(self):
        try:
            return self.device_count() > 0
        except RuntimeError:
            return False

    def device_count(self):
        if self._count is None:
            if not self.probe():
                return 0
            n = ctypes.c_uint32()
            self.ensure()
            self.check("aclrtGetDeviceCount", self.rt.aclrtGetDeviceCount(_byref(n)))
            self._count = n.value
        return self._count

    def check(self, call, code):
        if code != 0:
            detail = self.rt.aclGetRecentErrMsg() if self.rt is not None else None
            raise AclRuntimeError(call, code, detail.decode(errors="replace").strip() if detail else "")
        return code

    def soc_name(self):
        """The chip's name; a process sees one chip, so it is asked once (the chip tables read it per op)."""
        name = self._soc
        if name is None:
            self.ensure()
            raw = self.rt.aclrtGetSocName()
            name = self._soc = raw.decode() if raw else "unknown"
        return name

    # -- devices -----------------------------------------------------------------------------
    def current_device(self):
        return self._tls.device

    def set_device(self, index):
        """Make `index` this thread's device (ACL contexts are per thread)."""
        index = self.valid_index(index)
        self.use(index)
        self._tls.device = index

    def valid_index(self, index):
        n = self.device_count()
        if not isinstance(index, int) or not 0 <= index < n:
            raise RuntimeError(f"Invalid device ordinal npu:{index}: {n} npu device(s) are visible")
        return index

    def use(self, index):
        """Bind `index` to the calling thread before a device call."""
        if self._tls.bound != index:
            self.ensure()
            self.check("aclrtSetDevice", self.rt.aclrtSetDevice(index))
            self._tls.bound = index
            self._opened.add(index)

    # -- streams ---------------------------------------------------------------------------------
    def current_stream(self, index):
        """The handle of this thread's current stream on device `index` (0 = the default stream)."""
        streams = self._tls.streams
        return streams.get(index, 0) if streams else 0

    _current_stream = current_stream  # the reference, when an instance holds the compiled version

    def set_current_stream(self, index, handle):
        streams = self._tls.streams
        if streams is None:
            streams = self._tls.streams = {}
        streams[index] = handle

    def create_stream(self, index):
        self.use(index)
        h = _c_void_p()
        self.check("aclrtCreateStream", self.rt.aclrtCreateStream(_byref(h)))
        return h.value

    def destroy_stream(self, index, handle):
        self.use(index)
        self.check("aclrtDestroyStream", self.rt.aclrtDestroyStream(handle))

    def synchronize_stream(self, index, handle):
        self.use(index)
        self.check("aclrtSynchronizeStream", self.rt.aclrtSynchronizeStream(handle))
        if self.sync_hook is not None:
            self.sync_hook()

    def stream_done(self, index, handle):
        self.use(index)
        status = ctypes.c_int()
        self.check("aclrtStreamQuery", self.rt.aclrtStreamQuery(handle, _byref(status)))
        return status.value == A.ACL_STREAM_STATUS_COMPLETE

    def synchronize(self, index):
        self.use(index)
        self.check("aclrtSynchronizeDevice", self.rt.aclrtSynchronizeDevice())
        if self.sync_hook is not None:
            self.sync_hook()

    # -- events ------------------------------------------------------------------------------------
    def new_event(self, index, timing=False):
        self.use(index)
        h = _c_void_p()
        flag = A.ACL_EVENT_SYNC | (A.ACL_EVENT_TIME_LINE if timing else 0)
        self.check("aclrtCreateEventWithFlag", self.rt.aclrtCreateEventWithFlag(_byref(h), flag))
        return h.value

    def record_event(self, event, stream):
        self.check("aclrtRecordEvent", self.rt.aclrtRecordEvent(event, stream))

    def stream_wait_event(self, stream, event):
        self.check("aclrtStreamWaitEvent", self.rt.aclrtStreamWaitEvent(stream, event))

    def event_done(self, event):
        status = ctypes.c_int()
        self.check("aclrtQueryEventStatus", self.rt.aclrtQueryEventStatus(event, _byref(status)))
        return status.value == A.ACL_EVENT_RECORDED_STATUS_COMPLETE

    def sync_event(self, event):
        self.check("aclrtSynchronizeEvent", self.rt.aclrtSynchronizeEvent(event))
        if self.sync_hook is not None:
            self.sync_hook()

    def elapsed_ms(self, start, end):
        ms = ctypes.c_float()
        self.check("aclrtEventElapsedTime", self.rt.aclrtEventElapsedTime(_byref(ms), start, end))
        return ms.value

    def destroy_event(self, event):
        self.check("aclrtDestroyEvent", self.rt.aclrtDestroyEvent(event))

    # -- memory -----------------------------------------------------------------------------------------
    def malloc(self, index, nbytes):
        """A device address, or 0 when the device is out of memory."""
        self.use(index)
        p = _c_void_p()
        code = self.rt.aclrtMalloc(_byref(p), nbytes, A.ACL_MEM_MALLOC_HUGE_FIRST)
        if code == A.ACL_ERROR_RT_MEMORY_ALLOCATION:
            return 0
        self.check("aclrtMalloc", code)
        return p.value

    def free(self, index, ptr):
        if self.state != "ready":  # after aclFinalize the device memory is gone already
            return
        self.use(index)
        self.check("aclrtFree", self.rt.aclrtFree(ptr))

    def mem_info(self, index):
        self.use(index)
        free, total = ctypes.c_size_t(), ctypes.c_size_t()
        self.check("aclrtGetMemInfo", self.rt.aclrtGetMemInfo(A.ACL_HBM_MEM, _byref(free), _byref(total)))
        return free.value, total.value

    def malloc_host(self, nbytes):
        self.ensure()
        p = _c_void_p()
        self.check("aclrtMallocHost", self.rt.aclrtMallocHost(_byref(p), nbytes))
        return p.value

    def free_host(self, ptr):
        self.check("aclrtFreeHost", self.rt.aclrtFreeHost(ptr))

    def memcpy(self, dst, src, nbytes, kind):
        """aclrtMemcpy: copies at once, waiting for no stream (the caller orders it first)."""
        if nbytes:
            self.check("aclrtMemcpy", self.rt.aclrtMemcpy(dst, nbytes, src, nbytes, kind))

    def memcpy_async(self, dst, src, nbytes, kind, stream):
        if nbytes:
            self.check("aclrtMemcpyAsync", self.rt.aclrtMemcpyAsync(dst, nbytes, src, nbytes, kind, stream))

    def memset_async(self, dst, value, nbytes, stream):
        if nbytes:
            self.check("aclrtMemsetAsync", self.rt.aclrtMemsetAsync(dst, nbytes, value, nbytes, stream))

    # -- stream capture (ACL Graph: model run instances) -------------------------------------------
    def _model_api(self):
        self.ensure()
        if self.mdl.missing:
            raise RuntimeError(
                "NPU graphs need ACL Graph capture, which this CANN's libascendcl lacks: " + ", ".join(self.mdl.missing)
            )
        return self.mdl

    def capture_begin(self, index, stream, mode):
        api = self._model_api()
        self.use(index)
        self.check("aclmdlRICaptureBegin", api.aclmdlRICaptureBegin(stream, mode))

    def capture_info(self, index, stream):
        """(aclmdlRICaptureStatus, model handle or None) of `stream`."""
        api = self._model_api()
        self.use(index)
        status, model = ctypes.c_int(), _c_void_p()
        self.check("aclmdlRICaptureGetInfo", api.aclmdlRICaptureGetInfo(stream, _byref(status), _byref(model)))
        return status.value, model.value

    def capture_end(self, index, stream):
        api = self._model_api()
        self.use(index)
        model = _c_void_p()
        self.check("aclmdlRICaptureEnd", api.aclmdlRICaptureEnd(stream, _byref(model)))
        return model.value

    def exchange_capture_mode(self, mode):
        """Set this thread's capture mode; returns the previous one."""
        api = self._model_api()
        m = ctypes.c_int(mode)
        self.check("aclmdlRICaptureThreadExchangeMode", api.aclmdlRICaptureThreadExchangeMode(_byref(m)))
        return m.value

    def execute_model(self, index, model, stream):
        self.use(index)
        self.check("aclmdlRIExecuteAsync", self.mdl.aclmdlRIExecuteAsync(model, stream))

    def destroy_model(self, model):
        if self.state == "ready":  # aclFinalize released every model already
            self.check("aclmdlRIDestroy", self.mdl.aclmdlRIDestroy(model))

    def dump_model(self, model, path):
        self.check("aclmdlRIDebugJsonPrint", self.mdl.aclmdlRIDebugJsonPrint(model, path.encode(), 1))

    def capturing(self, index):
        """The NPUGraph capturing on this thread's current stream of device `index`, or None."""
        return self.captures.get((index, self.current_stream(index))) if self.captures else None

    # -- exit ---------------------------------------------------------------------------------------------
    def shutdown(self):
        """Drain, return cached memory, reset devices, aclFinalize (registered with atexit)."""
        if self.state != "ready":
            return
        from . import state

        try:
            state.before_shutdown()
            # aclrtSetDevice is counted (every thread that bound a device added one): one forced reset
            # releases the device whatever the count; CANN without it gets the plain reset
            reset = getattr(self.libs.ascendcl, "aclrtResetDeviceForce", None) or self.rt.aclrtResetDevice
            reset.restype, reset.argtypes = ctypes.c_int, [ctypes.c_int32]
            for index in sorted(self._opened):
                reset(index)
            self.rt.aclFinalize()
        finally:
            self.state = "finalized"
