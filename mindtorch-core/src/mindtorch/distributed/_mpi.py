"""MPI (mpi4py over a system MPI): the communicators every process group is built on, and the mpi
engine, which moves cpu tensors.

The launcher (mpiexec, or mindtorch.distributed.run) gives the ranks; a group's communicator also
carries bootstrap data for device engines (HCCL's root info). The engine works on the NumPy arrays that
share the tensors' memory, so a contiguous tensor is sent and received in place. mpi4py is imported
(which initialises MPI) on first use, by init_process_group.
"""

import atexit
import sys

import numpy as np

from . import _peers
from ._buffers import NP_OPS, Buf, byte_counts, check_reduction, divide, split_back
from ._engine import HostWork, timeout_seconds

_MPI = []  # the mpi4py.MPI module once imported (each call is on the per-op path)
_WATCH = []  # the PeerWatch of the job while a default group is up


def mpi(timeout=None):
    """mpi4py's MPI, initialised on first use; MPI_Init waits at most `timeout` seconds for the job's
    other processes (a DistStoreError after it)."""
    if _MPI:
        return _MPI[0]
    try:
        import mpi4py
    except ImportError as e:  # the engine is an optional dependency
        raise RuntimeError(
            "the mpi backend needs mpi4py (pip install mpi4py) and an MPI library "
            "(for instance apt-get install openmpi-bin libopenmpi-dev)"
        ) from e
    if "mpi4py.MPI" not in sys.modules:  # MPI_Init is made below, where its wait can be bounded
        mpi4py.rc.initialize = False
        mpi4py.rc.finalize = True
    from mpi4py import MPI

    if not MPI.Is_initialized():
        _peers.start_mpi(MPI, timeout)
    _MPI.append(MPI)
    return MPI


# --------------------------------------------------------------------------- communicators


def world_comm(timeout=None):
    """A communicator of every process the launcher started, once all of them are there (a
    DistStoreError after `timeout` seconds); from then on the peers are watched (see _peers)."""
    MPI = mpi(timeout)
    if not _WATCH:
        _WATCH.append(_peers.PeerWatch(MPI, timeout))
        if not getattr(world_comm, "_exit_hook", False):
            atexit.register(_announce_exit)  # after mpi4py's: runs before MPI_Finalize
            world_comm._exit_hook = True
    return MPI.COMM_WORLD.Dup()


def release_world(comm=None):
    """The default group is gone: stop watching the peers."""
    if _WATCH:
        _WATCH.pop().close()


def _announce_exit():
    """At the exit of a process whose default group is up: tell the peers. After a wait gave up on
    them, end the job instead: MPI_Finalize would wait for peers that are not coming."""
    if _WATCH:
        _WATCH.pop().announce_exit()
        if _peers.broken:
            sys.stdout.flush()
            sys.stderr.flush()
            mpi().COMM_WORLD.Abort(1)


def watch():
    return _WATCH[0] if _WATCH else None


def split(comm, ranks):
    """The communicator of the members of comm whose ranks are `ranks` (sorted), in that order; None
    on the others."""
    me = comm.Get_rank()
    member = me in ranks
    sub = comm.Split(0 if member else mpi().UNDEFINED, ranks.index(me) if member else 0)
    return sub if member else None


def global_ranks(comm):
    """The ranks in the world of comm's members, in comm's rank order."""
    MPI = mpi()
    return MPI.Group.Translate_ranks(comm.Get_group(), list(range(comm.Get_size())), MPI.COMM_WORLD.Get_group())


def agree(comm, what, timeout, ranks):
    """Every rank of comm calls the same collective with the same arguments (a RuntimeError on all of
    them otherwise), checked before any data moves."""
    _peers.agree(mpi(), comm, what, timeout, watch(), ranks)


def abort_on_uncaught_exception(active):
    """An exception that ends one process ends the job (MPI_Abort) while `active()`: its peers would
    otherwise wait in their next collective until the timeout. The launcher does the same for any
    uncaught exception."""
    previous = sys.excepthook
    if getattr(previous, "_mindtorch_abort", False):
        return
    MPI = mpi()

    def hook(kind, value, tb):
        previous(kind, value, tb)
        sys.stderr.flush()
        if active() and not issubclass(kind, KeyboardInterrupt):
            MPI.COMM_WORLD.Abort(1)

    hook._mindtorch_abort = True
    sys.excepthook = hook


# --------------------------------------------------------------------------- work


class Work(HostWork):
    """A started operation: MPI requests, then `finish` callbacks (copy-backs, AVG's division).

    `waits` is (timeout seconds or None, the world ranks it waits for, the operation's name): a wait
    polls the requests, failing after the timeout or once one of those ranks is gone."""

    backend_name = "mpi"

    def __init__(self, requests, finish=(), waits=(None, (), "a collective"), keep=()):
        self._reqs, self._finish, self._waits, self._keep = list(requests), list(finish), waits, keep
        self._done = False

    def is_completed(self):
        if not self._done and (not self._reqs or mpi().Request.Testall(self._reqs)):
            self._complete()
        return self._done

    def wait(self, timeout=None):
        if self._done:
            return True
        limit, ranks, what = self._waits
        if timeout is not None:
            limit = timeout_seconds(timeout)
        if self._reqs:
            MPI, reqs = mpi(), self._reqs
            _peers.poll(lambda: MPI.Request.Testall(reqs), limit, watch(), ranks, what)
        self._complete()
        return True

    def _complete(self):
        self._done = True
        for f in self._finish:
            f()
        self._finish, self._keep = [], ()


def _bytes(arr):
    return [arr.reshape(-1).view(np.uint8), mpi().BYTE]


# --------------------------------------------------------------------------- reductions

# dtype -> MPI datatype name for reductions; other dtypes move as bytes and reduce with a NumPy op
_MPI_TYPES = {
    "float32": "FLOAT",
    "float64": "DOUBLE",
    "int8": "INT8_T",
    "int16": "INT16_T",
    "int32": "INT32_T",
    "int64": "INT64_T",
    "uint8": "UINT8_T",
    "uint16": "UINT16_T",
    "uint32": "UINT32_T",
    "uint64": "UINT64_T",
    "bool": "C_BOOL",
    "complex64": "C_FLOAT_COMPLEX",
    "complex128": "C_DOUBLE_COMPLEX",
}
# ReduceOp name -> MPI op name (for bool tensors, and for the others); AVG is a SUM then a division
_BOOL_OPS = {"sum": "LOR", "avg": "LOR", "product": "LAND", "min": "LAND", "max": "LOR"}
_OPS = {"sum": "SUM", "avg": "SUM", "product": "PROD", "min": "MIN", "max": "MAX"}


def _reduce_spec(buf, op):
    """(buffer spec, MPI op) for a reduction of a Buf's array with `op`."""
    key = ("bfloat16" if buf.bf16 else buf.arr.dtype, op)
    hit = _specs.get(key)
    if hit is None:
        hit = _specs[key] = _make_spec(key[0], op)
    return [buf.arr, hit[0]], hit[1]


_specs = {}


def _make_spec(dtype, op):
    MPI = mpi()
    if dtype == "bfloat16":
        return _bf16_spec(MPI, op)
    kind = dtype.kind
    check_reduction(kind, op)
    name = _MPI_TYPES.get(dtype.name)
    if name is not None:
        return getattr(MPI, name), getattr(MPI, _BOOL_OPS[op] if kind == "b" else _OPS[op])
    # float16 and the like: MPI has no such type; reduce elements of the item size with NumPy
    fn = NP_OPS[op]

    def combine(inbuf, inoutbuf, datatype):
        b = np.frombuffer(inoutbuf, dtype=dtype)
        fn(np.frombuffer(inbuf, dtype=dtype), b, out=b)

    return _item_type(MPI, dtype.itemsize), MPI.Op.Create(combine, commute=True)


_item_types = {}


def _item_type(MPI, size):
    """An MPI datatype of `size` opaque bytes (one element of a type MPI lacks)."""
    etype = _item_types.get(size)
    if etype is None:
        etype = _item_types[size] = MPI.BYTE.Create_contiguous(size).Commit()
    return etype


def _bf16_spec(MPI, op):
    """bfloat16 travels as its uint16 bits (MPI has no such type); each combining step widens both sides to
    float32, applies the op and rounds back once, as a bfloat16 kernel does."""
    from .._host_data import bf16_bits_to_float, float_to_bf16_bits

    fn = NP_OPS[op]

    def combine(inbuf, inoutbuf, datatype):
        b = np.frombuffer(inoutbuf, dtype=np.uint16)
        b[...] = float_to_bf16_bits(
            fn(bf16_bits_to_float(np.frombuffer(inbuf, dtype=np.uint16)), bf16_bits_to_float(b))
        )

    return _item_type(MPI, 2), MPI.Op.Create(combine, commute=True)


# --------------------------------------------------------------------------- the engine


class MpiEngine:
    """The GroupEngine (see _engine) of the mpi backend: cpu tensors through the group's communicator.

    Every operation starts nonblocking and its Work polls it (see _peers.poll): MPI's blocking calls
    would wait for ever for a peer that left.
    """

    device_type = "cpu"

    def __init__(self, comm, timeout):
        self.comm, self.timeout = comm, timeout
        self.rank, self.size = comm.Get_rank(), comm.Get_size()
        self.ranks = global_ranks(comm)

    def _start(self, async_op, name, *args, **kw):
        """The request of the operation I<name>, started."""
        self._name = name.lower()
        return [getattr(self.comm, "I" + self._name)(*args, **kw)]

    def _work(self, requests, finish, keep):
        return Work(requests, finish, (self.timeout, self.ranks, self._name), keep)

    def _finish_reduction(self, buf, op):
        return divide(buf, self.size) if op == "avg" else buf.back

    def all_reduce(self, tensor, op, async_op):
        b = Buf(tensor, out=True)
        spec, mop = _reduce_spec(b, op)
        req = self._start(async_op, "Allreduce", mpi().IN_PLACE, spec, mop)
        return self._work(req, [self._finish_reduction(b, op)], (b,))

    def broadcast(self, tensor, root, async_op):
        b = Buf(tensor, out=True)
        req = self._start(async_op, "Bcast", _bytes(b.arr), root=root)
        return self._work(req, [b.back], (b,))

    def reduce(self, tensor, root, op, async_op):
        b = Buf(tensor, out=True)
        spec, mop = _reduce_spec(b, op)
        if self.rank == root:
            req = self._start(async_op, "Reduce", mpi().IN_PLACE, spec, mop, root=root)
            return self._work(req, [self._finish_reduction(b, op)], (b,))
        req = self._start(async_op, "Reduce", spec, None, mop, root=root)
        return self._work(req, [], (b,))

    def all_gather(self, outputs, input, async_op):
        src = Buf(input).arr
        packed = np.empty((self.size,) + src.shape, src.dtype)
        req = self._start(async_op, "Allgather", _bytes(src), _bytes(packed))
        return self._work(req, [split_back(packed, outputs)], (src, packed))

    def all_gather_into_tensor(self, output, input, async_op):
        src, out = Buf(input), Buf(output, out=True)
        req = self._start(async_op, "Allgather", _bytes(src.arr), _bytes(out.arr))
        return self._work(req, [out.back], (src, out))

    def reduce_scatter_tensor(self, output, input, op, async_op):
        src, out = Buf(input), Buf(output, out=True)
        spec, mop = _reduce_spec(src, op)
        ospec, _ = _reduce_spec(out, op)
        req = self._start(async_op, "Reduce_scatter_block", spec, ospec, mop)
        return self._work(req, [self._finish_reduction(out, op)], (src, out))

    def gather(self, input, outputs, root, async_op):
        src = Buf(input).arr
        if self.rank != root:
            return self._work(self._start(async_op, "Gather", _bytes(src), None, root=root), [], (src,))
        packed = np.empty((self.size,) + src.shape, src.dtype)
        req = self._start(async_op, "Gather", _bytes(src), _bytes(packed), root=root)
        return self._work(req, [split_back(packed, outputs)], (src, packed))

    def scatter(self, output, packed, root, async_op):
        out = Buf(output, out=True)
        src = None if packed is None else Buf(packed).arr
        req = self._start(async_op, "Scatter", None if src is None else _bytes(src), _bytes(out.arr), root=root)
        return self._work(req, [out.back], (out, src))

    def all_to_all_single(self, output, input, output_split_sizes, input_split_sizes, async_op):
        src, out = Buf(input), Buf(output, out=True)
        isz = src.arr.itemsize
        sc = byte_counts(input_split_sizes, input, self.size, isz, "input")
        rc = byte_counts(output_split_sizes, output, self.size, isz, "output")
        sd, rd = list(np.cumsum([0] + sc[:-1])), list(np.cumsum([0] + rc[:-1]))
        MPI = mpi()
        req = self._start(
            async_op, "Alltoallv", [_bytes(src.arr)[0], (sc, sd), MPI.BYTE], [_bytes(out.arr)[0], (rc, rd), MPI.BYTE]
        )
        return self._work(req, [out.back], (src, out))

    def barrier(self, async_op):
        return self._work(self._start(async_op, "Barrier"), (), ())

    def send(self, tensor, peer, tag):
        src, self._name = Buf(tensor), "send"
        return self._work([self.comm.Isend(_bytes(src.arr), dest=peer, tag=tag)], (), (src,))

    def recv(self, tensor, peer, tag):
        out, self._name = Buf(tensor, out=True), "recv"
        source = mpi().ANY_SOURCE if peer is None else peer
        return self._work([self.comm.Irecv(_bytes(out.arr), source=source, tag=tag)], [out.back], (out,))

    def recv_wait(self, tensor, peer, tag):
        MPI = mpi()
        out, status = Buf(tensor, out=True), MPI.Status()
        req = self.comm.Irecv(_bytes(out.arr), source=MPI.ANY_SOURCE if peer is None else peer, tag=tag)
        _peers.poll(lambda: req.Test(status), self.timeout, watch(), self.ranks, "recv")
        out.back()
        return status.Get_source()

    def destroy(self):
        """Nothing of its own to release: the group frees the communicator."""


cpu_engine = MpiEngine  # the engine of cpu tensors on this transport
