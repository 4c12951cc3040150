"""The hccl collective engine: npu tensors through libhccl.so (HCCL), on the current stream.

`init_process_group("hccl")` builds one `HcclEngine` per process group: rank 0 asks HCCL for a root
info, the group's MPI communicator carries it to the others, every rank joins with
HcclCommInitRootInfo on its current npu device. Each collective is queued on the device's current
stream like any kernel; its work handle is an event on that stream. A failure inside a collective (a
peer that died, a timeout) surfaces when the stream is synchronized, or at the next `wait()`.
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
# bool travels as uint8; its sum / product would leave bytes other than 0 and 1, so they become max / min
_BOOL_OPS = {
    "sum": A.HCCL_REDUCE_MAX,
    "avg": A.HCCL_REDUCE_MAX,
    "max": A.HCCL_REDUCE_MAX,
    "product": A.HCCL_REDUCE_MIN,
    "min": A.HCCL_REDUCE_MIN,
}

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
        root = A.HcclRootInfo()
        if self.rank == 0:
            _check("HcclGetRootInfo", lib.HcclGetRootInfo(ctypes.byref(root)))
        raw = comm.bcast(bytes(root.internal) if self.rank == 0 else None, root=0)
        ctypes.memmove(ctypes.addressof(root), raw, len(raw))
        self.comm = A.HcclComm()
        RUNTIME.use(self.device)
        _check(
            "HcclCommInitRootInfo",
            lib.HcclCommInitRootInfo(self.size, ctypes.byref(root), self.rank, ctypes.byref(self.comm)),
        )

    def destroy(self):
        if self.comm:
            mindtorch.npu.synchronize(self.device)  # queued collectives finish before the communicator goes
            _check("HcclCommDestroy", _hccl().HcclCommDestroy(self.comm))
            self.comm = A.HcclComm()

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
        for t in tensors:
            if t.device.type != "npu" or (t.device.index or 0) != self.device:
                raise RuntimeError(f"Tensors must be on the process group's device npu:{self.device}, got {t.device}")
        RUNTIME.use(self.device)
        return mindtorch.npu.current_stream(self.device).handle()

    @staticmethod
    def _dtype(t):
        code = A.HCCL_DATA_TYPES.get(str(t.dtype).split(".")[-1])
        if code is None:
            raise RuntimeError(f"Unsupported data type for the hccl backend: {t.dtype}")
        return code

    @staticmethod
    def _op(t, op):
        return (_BOOL_OPS if t.dtype == mindtorch.bool else _OPS)[op]

    @staticmethod
    def _dense(t):
        return t if t.is_contiguous() else t.contiguous()

    def _run(self, call, out, tmp, finish=None):
        """Queue `call(stream)`; copy a packed output back into `out` and run `finish` after it."""
        _check(call.__name__, call())
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
        stream = self._stream(tensor)
        buf, lib = self._dense(tensor.detach()), _hccl()
        finish = self._avg(tensor, op)

        def HcclAllReduce():
            return lib.HcclAllReduce(
                buf.data_ptr(), buf.data_ptr(), buf.numel(), self._dtype(buf), self._op(buf, op), self.comm, stream
            )

        return self._run(HcclAllReduce, tensor, buf, finish)

    def broadcast(self, tensor, root):
        stream = self._stream(tensor)
        buf, lib = self._dense(tensor.detach()), _hccl()

        def HcclBroadcast():
            return lib.HcclBroadcast(buf.data_ptr(), buf.numel(), self._dtype(buf), root, self.comm, stream)

        return self._run(HcclBroadcast, tensor, buf)

    def reduce(self, tensor, root, op):
        stream = self._stream(tensor)
        buf, lib = self._dense(tensor.detach()), _hccl()
        finish = self._avg(tensor, op) if self.rank == root else None

        def HcclReduce():
            return lib.HcclReduce(
                buf.data_ptr(),
                buf.data_ptr(),
                buf.numel(),
                self._dtype(buf),
                self._op(buf, op),
                root,
                self.comm,
                stream,
            )

        return self._run(HcclReduce, tensor if self.rank == root else buf, buf, finish)

    def all_gather_into_tensor(self, output, input):
        stream = self._stream(output, input)
        src, out, lib = self._dense(input.detach()), self._dense(output.detach()), _hccl()

        def HcclAllGather():
            return lib.HcclAllGather(src.data_ptr(), out.data_ptr(), src.numel(), self._dtype(src), self.comm, stream)

        return self._run(HcclAllGather, output, out)

    def reduce_scatter_tensor(self, output, input, op):
        stream = self._stream(output, input)
        src, out, lib = self._dense(input.detach()), self._dense(output.detach()), _hccl()
        finish = self._avg(output, op)

        def HcclReduceScatter():
            return lib.HcclReduceScatter(
                src.data_ptr(), out.data_ptr(), out.numel(), self._dtype(src), self._op(src, op), self.comm, stream
            )

        return self._run(HcclReduceScatter, output, out, finish)

    def scatter(self, output, packed, root):
        stream = self._stream(output, *(() if packed is None else (packed,)))
        out, lib = self._dense(output.detach()), _hccl()
        src = None if packed is None else self._dense(packed.detach())

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
        stream = self._stream(tensor)
        buf, lib = self._dense(tensor.detach()), _hccl()

        def HcclSend():
            return lib.HcclSend(buf.data_ptr(), buf.numel(), self._dtype(buf), peer, self.comm, stream)

        return self._run(HcclSend, buf, buf)

    def recv(self, tensor, peer):
        stream = self._stream(tensor)
        buf, lib = self._dense(tensor.detach()), _hccl()

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
