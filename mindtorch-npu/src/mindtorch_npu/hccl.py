"""The hccl collective engine: npu tensors through libhccl.so (HCCL), on a communication stream.

`init_process_group("hccl")` builds one `HcclEngine` per process group: rank 0 asks HCCL for a root
info (after binding its device: the root info names it), the group's MPI communicator carries all of
its bytes to the others, every rank joins with HcclCommInitRootInfo on its current npu device. HCCL
refuses the NULL (default) stream, so, as torch_npu does, each engine owns a communication stream: it
waits for the work queued so far on the current stream, runs the collective, and the current stream
waits for the collective before anything queued after it. The work handle is an event on the current
stream. A failure inside a collective (a peer that died, a timeout) surfaces when the stream is
synchronized, or at the next `wait()`.
"""

import ctypes

import mindtorch

from .acl import types as A
from .acl.prototypes import HCCL, bind
from .state import RUNTIME

# ReduceOp name -> HcclReduceOp; AVG is a SUM followed by a division on the device
_OPS = {
    "sum": A.HCCL_REDUCE_SUM,
    "avg": A.HCCL_REDUCE_SUM,
    "product": A.HCCL_REDUCE_PROD,
    "min": A.HCCL_REDUCE_MIN,
    "max": A.HCCL_REDUCE_MAX,
}
# HCCL reduces neither bool nor unsigned types (hccl op_common.cc CheckDataType) and its PROD takes no
# int16 / bfloat16 (CheckReduceOp): those tensors reduce through a wider copy, as torch_npu does for bool
# and uint8, and are written back in their own dtype
_REDUCE_THROUGH = {"bool": "int32", "uint8": "int32"}
_PROD_THROUGH = {"int16": "int32", "bfloat16": "float32"}
# float64 and uint64 reductions exist on Ascend950 only (hccl docs, HcclAllReduce.md dataType)
_REDUCE_950_ONLY = ("float64", "uint64")

_lib = []


def _hccl():
    if not _lib:
        RUNTIME.ensure()
        bound = bind(RUNTIME.libs.load_hccl(), HCCL)
        if bound.missing:
            raise RuntimeError(f"libhccl.so lacks {', '.join(bound.missing)}")
        _lib.append(bound)
    return _lib[0]


class HcclError(RuntimeError):
    pass


def _check(call, code):
    if code != 0:
        lib = _hccl()
        detail = RUNTIME.rt.aclGetRecentErrMsg()
        raise HcclError(
            f"{call} failed with HCCL error {code} ({A.HCCL_RESULT_NAMES.get(code, '?')}: "
            f"{lib.HcclGetErrorString(code).decode()})" + (f": {detail.decode()}" if detail else "")
        )


class HcclWork:
    """A queued collective: an event recorded on its stream after it (and after any copy-back)."""

    def __init__(self, engine, keep=()):
        self._engine, self._keep = engine, keep
        self._event = mindtorch.npu.Event()
        self._event.record(mindtorch.npu.current_stream(engine.device))

    def is_completed(self):
        return self._event.query()

    def is_success(self):
        return self.is_completed() and self._engine.async_error() == 0

    def wait(self, timeout=None):
        """The current stream waits for the collective (no host block, as PyTorch's NCCL work); an error a
        previous collective of this communicator hit is raised here."""
        mindtorch.npu.current_stream(self._engine.device).wait_event(self._event)
        self._engine.raise_async_error()
        return True

    def synchronize(self):
        self._event.synchronize()
        self._engine.raise_async_error()

    def exception(self):
        code = self._engine.async_error()
        return None if code == 0 else HcclError(f"HCCL collective failed: {A.HCCL_RESULT_NAMES.get(code, code)}")

    def result(self):
        self.wait()
        return []

    def get_future(self):
        raise RuntimeError("Work.get_future is not supported by the hccl backend")


class HcclEngine:
    device_type = "npu"

    def __init__(self, comm, timeout=None):
        lib = _hccl()
        self.rank, self.size, self.timeout = comm.Get_rank(), comm.Get_size(), timeout
        self.device = RUNTIME.current_device()  # torch.npu.set_device(local_rank) comes first, as in torch_npu
        RUNTIME.use(self.device)  # the root info names the device bound to this thread
        root = A.HcclRootInfo()
        if self.rank == 0:
            _check("HcclGetRootInfo", lib.HcclGetRootInfo(ctypes.byref(root)))
        # the root info is binary (NUL bytes inside): every byte travels, and the length is checked on receipt
        raw = comm.bcast(
            ctypes.string_at(ctypes.addressof(root), ctypes.sizeof(root)) if self.rank == 0 else None, root=0
        )
        if len(raw) != A.HCCL_ROOT_INFO_BYTES:
            raise HcclError(f"received an HCCL root info of {len(raw)} bytes, expected {A.HCCL_ROOT_INFO_BYTES}")
        ctypes.memmove(ctypes.addressof(root), raw, len(raw))
        self.comm = A.HcclComm()
        _check(
            "HcclCommInitRootInfo",
            lib.HcclCommInitRootInfo(self.size, ctypes.byref(root), self.rank, ctypes.byref(self.comm)),
        )
        self.stream = mindtorch.npu.Stream(device=self.device)  # the communication stream

    def destroy(self):
        if self.comm:
            mindtorch.npu.synchronize(self.device)  # queued collectives finish before the communicator goes
            _check("HcclCommDestroy", _hccl().HcclCommDestroy(self.comm))
            self.comm = A.HcclComm()
            self.stream.destroy()

    # -- errors ------------------------------------------------------------------------------
    def async_error(self):
        code = A.HcclResult()
        _check("HcclGetCommAsyncError", _hccl().HcclGetCommAsyncError(self.comm, ctypes.byref(code)))
        return code.value

    def raise_async_error(self):
        code = self.async_error()
        if code:
            raise HcclError(
                f"a collective of this HCCL communicator failed earlier ({A.HCCL_RESULT_NAMES[code]}); "
                "synchronize the device for the reason"
            )

    # -- plumbing ----------------------------------------------------------------------------
    def _stream(self, *tensors):
        """The communication stream, after it waited for the work queued so far on the current stream."""
        for t in tensors:
            if t.device.type != "npu" or (t.device.index or 0) != self.device:
                raise RuntimeError(f"Tensors must be on the process group's device npu:{self.device}, got {t.device}")
        RUNTIME.use(self.device)
        self.stream.wait_stream(mindtorch.npu.current_stream(self.device))
        return self.stream.handle()

    @staticmethod
    def _dtype(t):
        code = A.HCCL_DATA_TYPES.get(str(t.dtype).split(".")[-1])
        if code is None:
            raise RuntimeError(f"Unsupported data type for the hccl backend: {t.dtype}")
        return code

    @staticmethod
    def _dense(t):
        return t if t.is_contiguous() else t.contiguous()

    def _reducible(self, t, op):
        """`t` dense in a dtype HCCL reduces with `op` (a wider copy when its own dtype is refused)."""
        name = str(t.dtype).split(".")[-1]
        if name in _REDUCE_950_ONLY and not RUNTIME.soc_name().startswith("Ascend950"):
            raise RuntimeError(
                f"the hccl backend cannot reduce {t.dtype} tensors on {RUNTIME.soc_name()}: HCCL "
                "reduces float64 and uint64 on Ascend950 only; reduce a float32 / int64 copy"
            )
        wide = _REDUCE_THROUGH.get(name) or (_PROD_THROUGH.get(name) if op == "product" else None)
        if wide is not None:
            return self._dense(t.detach().to(getattr(mindtorch, wide)))
        return self._dense(t.detach())

    def _run(self, call, out, tmp, finish=None):
        """Queue `call(stream)` on the communication stream; the current stream waits for it, then copies a
        packed or widened output back into `out` and runs `finish`."""
        _check(call.__name__, call())
        mindtorch.npu.current_stream(self.device).wait_stream(self.stream)
        if out is not None and tmp.data_ptr() != out.data_ptr():  # a packed copy: write it back in order
            out.detach().copy_(tmp.view(out.shape))
        if finish is not None:
            finish()
        return HcclWork(self, keep=(tmp,))

    def _avg(self, t, op):
        if op != "avg":
            return None
        if not t.dtype.is_floating_point:
            raise RuntimeError("ReduceOp.AVG is only supported for floating point and complex tensors")
        return lambda: t.detach().div_(self.size)

    # -- collectives -------------------------------------------------------------------------
    def all_reduce(self, tensor, op):
        finish = self._avg(tensor, op)
        buf, lib = self._reducible(tensor, op), _hccl()
        stream = self._stream(tensor)

        def HcclAllReduce():
            return lib.HcclAllReduce(
                buf.data_ptr(), buf.data_ptr(), buf.numel(), self._dtype(buf), _OPS[op], self.comm, stream
            )

        return self._run(HcclAllReduce, tensor, buf, finish)

    def broadcast(self, tensor, root):
        buf, lib = self._dense(tensor.detach()), _hccl()
        stream = self._stream(tensor)

        def HcclBroadcast():
            return lib.HcclBroadcast(buf.data_ptr(), buf.numel(), self._dtype(buf), root, self.comm, stream)

        return self._run(HcclBroadcast, tensor, buf)

    def reduce(self, tensor, root, op):
        finish = self._avg(tensor, op) if self.rank == root else None
        buf, lib = self._reducible(tensor, op), _hccl()
        stream = self._stream(tensor)

        def HcclReduce():
            return lib.HcclReduce(
                buf.data_ptr(), buf.data_ptr(), buf.numel(), self._dtype(buf), _OPS[op], root, self.comm, stream
            )

        return self._run(HcclReduce, tensor if self.rank == root else buf, buf, finish)

    def all_gather_into_tensor(self, output, input):
        src, out, lib = self._dense(input.detach()), self._dense(output.detach()), _hccl()
        stream = self._stream(output, input)

        def HcclAllGather():
            return lib.HcclAllGather(src.data_ptr(), out.data_ptr(), src.numel(), self._dtype(src), self.comm, stream)

        return self._run(HcclAllGather, output, out)

    def reduce_scatter_tensor(self, output, input, op):
        finish = self._avg(output, op)
        src, out, lib = self._reducible(input, op), self._reducible(output, op), _hccl()
        stream = self._stream(output, input)

        def HcclReduceScatter():
            return lib.HcclReduceScatter(
                src.data_ptr(), out.data_ptr(), out.numel(), self._dtype(src), _OPS[op], self.comm, stream
            )

        return self._run(HcclReduceScatter, output, out, finish)

    def scatter(self, output, packed, root):
        out, lib = self._dense(output.detach()), _hccl()
        src = None if packed is None else self._dense(packed.detach())
        stream = self._stream(output, *(() if packed is None else (packed,)))

        def HcclScatter():
            return lib.HcclScatter(
                None if src is None else src.data_ptr(),
                out.data_ptr(),
                out.numel(),
                self._dtype(out),
                root,
                self.comm,
                stream,
            )

        return self._run(HcclScatter, output, out)

    def send(self, tensor, peer):
        buf, lib = self._dense(tensor.detach()), _hccl()
        stream = self._stream(tensor)

        def HcclSend():
            return lib.HcclSend(buf.data_ptr(), buf.numel(), self._dtype(buf), peer, self.comm, stream)

        return self._run(HcclSend, buf, buf)

    def recv(self, tensor, peer):
        buf, lib = self._dense(tensor.detach()), _hccl()
        stream = self._stream(tensor)

        def HcclRecv():
            return lib.HcclRecv(buf.data_ptr(), buf.numel(), self._dtype(buf), peer, self.comm, stream)

        return self._run(HcclRecv, tensor, buf)

    def barrier(self):
        stream = self._stream()
        lib = _hccl()

        def HcclBarrier():
            return lib.HcclBarrier(self.comm, stream)

        work = self._run(HcclBarrier, None, None)
        work.synchronize()  # a barrier holds the host too, as PyTorch's
        return work
