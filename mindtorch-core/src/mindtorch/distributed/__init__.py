"""mindtorch.distributed: PyTorch's collective API over an existing engine.

cpu tensors go through MPI (mpi4py) on the NumPy arrays that share the tensors' memory, so a
contiguous tensor is sent and received in place; npu tensors go through HCCL. mpi4py is imported
(which initialises MPI) only by init_process_group.
"""
import os
import time
from datetime import timedelta

import numpy as np

from ..dispatch import bump_version

__all__ = ["Backend", "ReduceOp", "Work", "ProcessGroup", "GroupMember", "DistBackendError", "is_available",
           "init_process_group", "destroy_process_group", "is_initialized", "is_mpi_available",
           "get_rank", "get_world_size", "get_backend", "get_process_group_ranks", "new_group", "all_reduce", "broadcast", "reduce",
           "all_gather", "all_gather_into_tensor", "reduce_scatter_tensor", "gather", "scatter",
           "all_to_all_single", "barrier", "send", "recv", "isend", "irecv"]

_NOT_INIT = "Default process group has not been initialized, please make sure to call init_process_group."


class DistBackendError(RuntimeError):
    """A failure inside the collective engine (a peer died, a wait timed out)."""


class ReduceOp:
    SUM, AVG, PRODUCT, MIN, MAX = "sum", "avg", "product", "min", "max"
    RedOpType = None  # set below: PyTorch exposes the enum type under this name


ReduceOp.RedOpType = ReduceOp


class _NonMember:
    def __repr__(self):
        return "GroupMember.NON_GROUP_MEMBER"


class GroupMember:
    WORLD = None  # the default group once initialised
    NON_GROUP_MEMBER = _NonMember()


def is_available():
    return True


def is_mpi_available():
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return False
    return True


# --------------------------------------------------------------------------- groups

class ProcessGroup:
    """One communicator: `ranks` are the global ranks of its members, in group-rank order. `comm` is the
    MPI communicator (rank, size, bootstrap); `engine` moves device tensors for a registered backend
    (None: MPI itself moves cpu tensors)."""

    def __init__(self, backend, comm, ranks, timeout, engine=None):
        self.backend, self.comm, self.ranks, self.timeout = backend, comm, list(ranks), timeout
        self.engine = engine

    def rank(self):
        return self.comm.Get_rank()

    def size(self):
        return self.comm.Get_size()

    def name(self):
        return self.backend

    def __repr__(self):
        return f"ProcessGroup(backend={self.backend!r}, ranks={self.ranks})"


_state = {"world": None, "groups": []}


class Backend(str):
    """Backend names, and the registry of collective engines for device tensors.

    An engine factory is called as `factory(comm, timeout)` with the group's MPI communicator (for the
    rank, the size and exchanging bootstrap data such as HCCL's root info) and the timeout in seconds (or
    None); it returns an object with the collectives the hookspec mindtorch_distributed_backends documents.
    A device plugin offers its engines through that hook; users may register more.
    """

    UNDEFINED, MPI, HCCL = "undefined", "mpi", "hccl"
    _engines = {}   # name -> (factory, device types)

    def __new__(cls, name):
        if not isinstance(name, str):
            raise ValueError(f"Backend constructor parameter must be string-ish, but got: {type(name)}")
        return super().__new__(cls, name.lower())

    @classmethod
    def register_backend(cls, name, func, extended_api=False, devices=None):
        name = name.lower()
        if name == cls.MPI or name in cls._engines:
            raise ValueError(f"{name} backend already exist in torch.distributed.Backend")
        cls._engines[name] = (func, tuple(devices or ()))


def _engine_factory(name):
    """(factory, device types) of a non-MPI backend: registered, or offered by a loaded device plugin."""
    hit = Backend._engines.get(name)
    if hit is None:
        from ..plugins import loader
        from ..plugins.registry import BACKENDS
        loader.finish_deferred()
        for rec in BACKENDS.values():
            if name in rec.distributed:
                hit = (rec.distributed[name], (rec.device_type,))
                break
    if hit is None:
        known = sorted({"mpi", *Backend._engines})
        hint = " (install mindtorch-npu for 'hccl')" if name == "hccl" else ""
        raise RuntimeError(f"the {name} backend is not available{hint}; available backends: {', '.join(known)}")
    return hit


def is_initialized():
    return _state["world"] is not None


def _world():
    pg = _state["world"]
    if pg is None:
        raise ValueError(_NOT_INIT)
    return pg


def _group(group):
    if group is None or group is GroupMember.WORLD:
        return _world()
    if group is GroupMember.NON_GROUP_MEMBER:
        return None
    _world()
    if not isinstance(group, ProcessGroup):
        raise TypeError(f"expected a ProcessGroup, got {type(group).__name__}")
    if group.comm is None:
        raise ValueError("The given group has been destroyed")
    return group


_MPI = []  # the mpi4py.MPI module once imported (each call is on the per-op path)


def _mpi():
    if _MPI:
        return _MPI[0]
    try:
        from mpi4py import MPI
    except ImportError as e:  # the engine is an optional dependency
        raise RuntimeError("the mpi backend needs mpi4py (pip install mpi4py) and an MPI library "
                           "(for instance apt-get install openmpi-bin libopenmpi-dev)") from e
    _MPI.append(MPI)
    return MPI


def _timeout(timeout):
    if not isinstance(timeout, timedelta):
        raise TypeError(f"Expected timeout argument to be of type datetime.timedelta, got {type(timeout).__name__}")
    return timeout.total_seconds()


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1, store=None,
                       group_name="", pg_options=None, device_id=None):
    if _state["world"] is not None:
        raise ValueError("trying to initialize the default process group twice!")
    if backend is None:
        dev = getattr(device_id, "type", device_id)
        backend = "hccl" if dev is not None and str(dev).startswith("npu") else "mpi"
    backend = str(backend).lower()
    if backend not in ("mpi", "hccl") and backend not in Backend._engines:
        raise ValueError(f"Invalid backend: '{backend}'; mindtorch supports 'mpi' (cpu) and 'hccl' (npu)")
    factory = None if backend == "mpi" else _engine_factory(backend)[0]
    # no timeout given: MPI's blocking calls, no deadline (PyTorch's default is 30 min); a dead peer still
    # ends the job, through the launcher. A timeout given is enforced by polling nonblocking requests.
    seconds = None if timeout is None else _timeout(timeout)
    MPI = _mpi()
    comm = MPI.COMM_WORLD.Dup()
    n = comm.Get_size()
    # as PyTorch's MPI backend: rank and size come from the launcher; a contradiction is an error
    if world_size not in (-1, None) and world_size != n:
        raise ValueError(f"world_size={world_size} but the MPI launcher started {n} processes")
    if rank not in (-1, None) and rank != comm.Get_rank():
        raise ValueError(f"rank={rank} but the MPI launcher gave this process rank {comm.Get_rank()}")
    engine = None if factory is None else factory(comm, seconds)
    pg = ProcessGroup(backend, comm, range(n), seconds, engine)
    if n > 1:
        _abort_on_uncaught_exception(MPI)
    _state["world"] = pg
    GroupMember.WORLD = pg
    for var, val in (("RANK", comm.Get_rank()), ("WORLD_SIZE", n)):
        os.environ.setdefault(var, str(val))


def _abort_on_uncaught_exception(MPI):
    """An exception that ends one process ends the job (MPI_Abort): its peers would otherwise wait in
    their next collective until the timeout. The launcher does the same for any uncaught exception."""
    import sys
    previous = sys.excepthook
    if getattr(previous, "_mindtorch_abort", False):
        return

    def hook(kind, value, tb):
        previous(kind, value, tb)
        sys.stderr.flush()
        if _state["world"] is not None and not issubclass(kind, KeyboardInterrupt):
            MPI.COMM_WORLD.Abort(1)

    hook._mindtorch_abort = True
    sys.excepthook = hook


def destroy_process_group(group=None):
    if group is None or group is GroupMember.WORLD:
        pg = _world()
        for g in _state["groups"] + [pg]:
            _free(g)
        _state["world"], _state["groups"] = None, []
        GroupMember.WORLD = None
        return
    g = _group(group)
    if g is not None:
        _free(g)


def _free(g):
    if g.engine is not None:
        g.engine.destroy()
        g.engine = None
    if g.comm is not None:
        g.comm.Free()
        g.comm = None


def get_rank(group=None):
    g = _group(group)
    return -1 if g is None else g.rank()


def get_world_size(group=None):
    g = _group(group)
    return -1 if g is None else g.size()


def get_backend(group=None):
    g = _group(group)
    if g is None:
        raise ValueError("Invalid process group specified")
    return g.backend


def get_process_group_ranks(group):
    """The global ranks of a group's members, in group-rank order."""
    g = _group(group)
    if g is None:
        raise ValueError("Group is not part of the process group")
    return list(g.ranks)


def get_global_rank(group, group_rank):
    g = _group(group)
    if g is None:
        raise ValueError("Group is not part of the process group")
    if not 0 <= group_rank < len(g.ranks):
        raise ValueError(f"Group rank {group_rank} is not part of group {g}")
    return g.ranks[group_rank]


def new_group(ranks=None, timeout=None, backend=None, pg_options=None, use_local_synchronization=False):
    """Collective over the world (every process calls it); non-members get NON_GROUP_MEMBER."""
    world = _world()
    n = world.size()
    ranks = list(range(n)) if ranks is None else sorted(int(r) for r in ranks)
    if len(set(ranks)) != len(ranks) or any(not 0 <= r < n for r in ranks):
        raise ValueError(f"new_group ranks must be distinct and in [0, {n}), got {ranks}")
    seconds = _timeout(timeout) if timeout is not None else world.timeout
    MPI = _mpi()
    me = world.rank()
    member = me in ranks
    comm = world.comm.Split(0 if member else MPI.UNDEFINED, ranks.index(me) if member else 0)
    if not member:
        return GroupMember.NON_GROUP_MEMBER
    engine = None if world.engine is None else _engine_factory(world.backend)[0](comm, seconds)
    pg = ProcessGroup(world.backend, comm, ranks, seconds, engine)
    _state["groups"].append(pg)
    return pg


# --------------------------------------------------------------------------- buffers and work

class Work:
    """A started operation: MPI requests, then `finish` callbacks (copy-backs, AVG's division)."""

    def __init__(self, requests, finish=(), timeout=None, keep=()):
        self._reqs, self._finish, self._timeout, self._keep = list(requests), list(finish), timeout, keep
        self._done = False

    def is_completed(self):
        if not self._done and (not self._reqs or _mpi().Request.Testall(self._reqs)):
            self._complete()
        return self._done

    def is_success(self):
        return self.is_completed()

    def wait(self, timeout=None):
        if self._done:
            return True
        limit = self._timeout if timeout is None else _timeout(timeout)
        if self._reqs:
            MPI = _mpi()
            if limit is None:
                MPI.Request.Waitall(self._reqs)
            else:
                reqs = self._reqs
                _poll(lambda: MPI.Request.Testall(reqs), limit)
        self._complete()
        return True

    def _complete(self):
        self._done = True
        for f in self._finish:
            f()
        self._finish, self._keep = [], ()

    def result(self):
        self.wait()
        return []

    def exception(self):
        return None

    def get_future(self):
        raise RuntimeError("Work.get_future is not supported by the mpi backend")


def _start(g, async_op, name, *args, **kw):
    """The requests of a collective started nonblocking (I<name>), or none when it ran to completion as
    MPI's blocking call: a blocking op on a group without a timeout takes MPI's fastest path (a dead peer
    then ends the job through the launcher); with a timeout, nonblocking requests are polled against it."""
    if async_op or g.timeout is not None:
        return [getattr(g.comm, "I" + name.lower())(*args, **kw)]
    getattr(g.comm, name)(*args, **kw)
    return []


def _finished(work, async_op):
    if async_op:
        return work
    work.wait()
    return None


def _check_tensor(t, what="tensor"):
    import mindtorch
    if not isinstance(t, mindtorch.Tensor):
        raise TypeError(f"Invalid function argument. Expected parameter `{what}` of type torch.Tensor\n"
                        f"             but got {type(t)} instead.")
    dev = t.device.type
    world = _state["world"]
    expected = "cpu" if world is None or world.engine is None else world.engine.device_type
    if dev != expected:
        raise RuntimeError(f"No backend type associated with device type {dev}")


def _check_list(ts, what):
    if not isinstance(ts, (list, tuple)) or not all(_is_tensor(t) for t in ts):
        raise TypeError(f"Invalid function argument. Expected parameter `{what}` of type List[torch.Tensor]\n"
                        f"             but got {type(ts)} instead.")
    for t in ts:
        _check_tensor(t, what)


def _is_tensor(t):
    import mindtorch
    return isinstance(t, mindtorch.Tensor)


class _Buf:
    """The contiguous NumPy array MPI reads or writes for a tensor: the tensor's own memory when it is
    contiguous, else a packed copy that `back()` writes into the tensor after the operation."""

    def __init__(self, t, out=False):
        view = t.detach()._host()  # the tensor's own memory; bfloat16 as uint16 bits (a packed copy if strided)
        self.bf16 = str(t.dtype) == "torch.bfloat16"
        self.out = t if out else None
        self.through_backend = out and self.bf16 and not t.is_contiguous()
        if view.flags.c_contiguous:
            self.arr, self.view = view, None
        else:
            self.arr = np.ascontiguousarray(view)
            self.view = view if out else None

    def back(self):
        if self.through_backend:  # the bits are a copy: the backend writes them into the strided tensor
            from ..plugins.registry import backend_for
            backend_for(self.out.device.type).copy_from_host(self.out.detach(), self.arr.reshape(self.out.shape))
        elif self.view is not None:
            self.view[...] = self.arr
        if self.out is not None:  # written in place, as an in-place op: autograd sees the new version
            bump_version(self.out)


# dtype -> MPI datatype name for reductions; other dtypes move as bytes and reduce with a NumPy op
_MPI_TYPES = {"float32": "FLOAT", "float64": "DOUBLE", "int8": "INT8_T", "int16": "INT16_T", "int32": "INT32_T",
              "int64": "INT64_T", "uint8": "UINT8_T", "uint16": "UINT16_T", "uint32": "UINT32_T",
              "uint64": "UINT64_T", "bool": "C_BOOL", "complex64": "C_FLOAT_COMPLEX",
              "complex128": "C_DOUBLE_COMPLEX"}
_BOOL_OPS = {ReduceOp.SUM: "LOR", ReduceOp.AVG: "LOR", ReduceOp.PRODUCT: "LAND", ReduceOp.MIN: "LAND",
             ReduceOp.MAX: "LOR"}
_OPS = {ReduceOp.SUM: "SUM", ReduceOp.AVG: "SUM", ReduceOp.PRODUCT: "PROD", ReduceOp.MIN: "MIN",
        ReduceOp.MAX: "MAX"}
_NP_OPS = {ReduceOp.SUM: np.add, ReduceOp.AVG: np.add, ReduceOp.PRODUCT: np.multiply, ReduceOp.MIN: np.minimum,
           ReduceOp.MAX: np.maximum}


def _reduce_spec(buf, op):
    """(buffer spec, MPI op) for a reduction of a _Buf's array with `op`."""
    key = ("bfloat16" if buf.bf16 else buf.arr.dtype, op)
    hit = _specs.get(key)
    if hit is None:
        hit = _specs[key] = _make_spec(key[0], op)
    return [buf.arr, hit[0]], hit[1]


_specs = {}


def _make_spec(dtype, op):
    MPI = _mpi()
    if op not in _OPS:
        raise ValueError(f"Invalid reduce op: {op!r}")
    if dtype == "bfloat16":
        return _bf16_spec(MPI, op)
    kind = dtype.kind
    if op == ReduceOp.AVG and kind not in "fc":
        raise RuntimeError("ReduceOp.AVG is only supported for floating point and complex tensors")
    if kind == "c" and op in (ReduceOp.MIN, ReduceOp.MAX):
        raise RuntimeError(f"Cannot use ReduceOp.{op.upper()} with complex inputs")
    name = _MPI_TYPES.get(dtype.name)
    if name is not None:
        return getattr(MPI, name), getattr(MPI, _BOOL_OPS[op] if kind == "b" else _OPS[op])
    # float16 and the like: MPI has no such type; reduce elements of the item size with NumPy
    fn = _NP_OPS[op]

    def combine(inbuf, inoutbuf, datatype):
        b = np.frombuffer(inoutbuf, dtype=dtype)
        fn(np.frombuffer(inbuf, dtype=dtype), b, out=b)

    etype = _item_types.get(dtype.itemsize)
    if etype is None:
        etype = _item_types[dtype.itemsize] = MPI.BYTE.Create_contiguous(dtype.itemsize).Commit()
    return etype, MPI.Op.Create(combine, commute=True)


_item_types = {}


def _bf16_spec(MPI, op):
    """bfloat16 travels as its uint16 bits (MPI has no such type); each combining step widens both sides to
    float32, applies the op and rounds back once, as a bfloat16 kernel does."""
    from .._creation import bf16_bits_to_float, float_to_bf16_bits
    fn = _NP_OPS[op]

    def combine(inbuf, inoutbuf, datatype):
        b = np.frombuffer(inoutbuf, dtype=np.uint16)
        b[...] = float_to_bf16_bits(fn(bf16_bits_to_float(np.frombuffer(inbuf, dtype=np.uint16)),
                                       bf16_bits_to_float(b)))

    etype = _item_types.get(2)
    if etype is None:
        etype = _item_types[2] = MPI.BYTE.Create_contiguous(2).Commit()
    return etype, MPI.Op.Create(combine, commute=True)


def _bytes(arr):
    return [arr.reshape(-1).view(np.uint8), _mpi().BYTE]


def _divide(buf, n):
    def f():
        if buf.bf16:
            from .._creation import bf16_bits_to_float, float_to_bf16_bits
            buf.arr[...] = float_to_bf16_bits(bf16_bits_to_float(buf.arr) / n)
        else:
            np.divide(buf.arr, n, out=buf.arr, casting="unsafe")
        buf.back()
    return f


# --------------------------------------------------------------------------- collectives

def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    _check_tensor(tensor)
    g = _group(group)
    if g is None:
        return None
    if g.engine is not None:
        return _finished(_written(g.engine.all_reduce(tensor, _valid_op(op)), tensor), async_op)
    b = _Buf(tensor, out=True)
    spec, mop = _reduce_spec(b, op)
    req = _start(g, async_op, "Allreduce", _mpi().IN_PLACE, spec, mop)
    fin = _divide(b, g.size()) if op == ReduceOp.AVG else b.back
    return _finished(Work(req, [fin], g.timeout, keep=(b,)), async_op)


def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    _check_tensor(tensor)
    g = _group(group)
    if g is None:
        return None
    root = _root(g, src, group_src, "src")
    if g.engine is not None:
        return _finished(_written(g.engine.broadcast(tensor, root), tensor), async_op)
    b = _Buf(tensor, out=True)
    req = _start(g, async_op, "Bcast", _bytes(b.arr), root=root)
    return _finished(Work(req, [b.back], g.timeout, keep=(b,)), async_op)


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op=False, group_dst=None):
    _check_tensor(tensor)
    g = _group(group)
    if g is None:
        return None
    root = _root(g, dst, group_dst, "dst")
    if g.engine is not None:
        return _finished(_written(g.engine.reduce(tensor, root, _valid_op(op)), tensor), async_op)
    MPI = _mpi()
    b = _Buf(tensor, out=True)
    spec, mop = _reduce_spec(b, op)
    if g.rank() == root:
        req = _start(g, async_op, "Reduce", MPI.IN_PLACE, spec, mop, root=root)
        fin = _divide(b, g.size()) if op == ReduceOp.AVG else b.back
    else:
        req = _start(g, async_op, "Reduce", spec, None, mop, root=root)
        fin = None
    return _finished(Work(req, [fin] if fin else [], g.timeout, keep=(b,)), async_op)


def _written(work, tensor):
    """An engine wrote `tensor` in place: autograd sees a new version, as after any in-place op."""
    bump_version(tensor)
    return work


def _valid_op(op):
    if op not in _OPS:
        raise ValueError(f"Invalid reduce op: {op!r}")
    return op


def _gather_via_all_gather(g, tensor, gather_list):
    """gather on an engine without one: every rank gathers, the destination keeps the pieces."""
    packed = tensor.new_empty((g.size(),) + tuple(tensor.shape))
    work = g.engine.all_gather_into_tensor(packed, tensor)
    for k, o in enumerate(gather_list or ()):
        o.detach().copy_(packed[k])
    return work


def _root(g, rank, group_rank, what):
    """The group rank of a root given as a global rank (or directly as a group rank)."""
    if rank is not None and group_rank is not None:
        raise ValueError(f"Can not specify both {what} and group_{what}")
    if group_rank is None:
        rank = 0 if rank is None else rank
        if rank not in g.ranks:
            raise ValueError(f"Global rank {rank} is not part of group {g}")
        return g.ranks.index(rank)
    if not 0 <= group_rank < g.size():
        raise ValueError(f"Group rank {group_rank} is not part of group {g}")
    return group_rank


def _same(ts, ref, what):
    for t in ts:
        if tuple(t.shape) != tuple(ref.shape) or t.dtype != ref.dtype:
            raise ValueError(f"{what}: every tensor must have the shape {tuple(ref.shape)} and dtype {ref.dtype} "
                             f"of the input, got {tuple(t.shape)} and {t.dtype}")


def _split_back(packed, outs):
    def f():
        for k, o in enumerate(outs):
            o.detach().numpy()[...] = packed[k].reshape(o.shape)
            bump_version(o)
    return f


def all_gather(tensor_list, tensor, group=None, async_op=False):
    _check_list(tensor_list, "tensor_list")
    _check_tensor(tensor)
    g = _group(group)
    if g is None:
        return None
    if len(tensor_list) != g.size():
        raise ValueError(f"all_gather: tensor_list has {len(tensor_list)} tensors for a group of {g.size()}")
    _same(tensor_list, tensor, "all_gather")
    if g.engine is not None:  # one gather into a packed tensor, then device copies into the list
        packed = tensor.new_empty((g.size(),) + tuple(tensor.shape))
        work = g.engine.all_gather_into_tensor(packed, tensor)
        for k, o in enumerate(tensor_list):
            o.detach().copy_(packed[k])
        return _finished(work, async_op)
    src = _Buf(tensor).arr
    packed = np.empty((g.size(),) + src.shape, src.dtype)
    req = _start(g, async_op, "Allgather", _bytes(src), _bytes(packed))
    return _finished(Work(req, [_split_back(packed, tensor_list)], g.timeout, keep=(src, packed)), async_op)


def _numel(t):
    n = 1
    for s in t.shape:
        n *= s
    return n


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    _check_tensor(output_tensor, "output_tensor")
    _check_tensor(input_tensor, "input_tensor")
    g = _group(group)
    if g is None:
        return None
    if output_tensor.dtype != input_tensor.dtype:
        raise TypeError("output tensor must have the same type as input tensor")
    if _numel(output_tensor) != g.size() * _numel(input_tensor):
        raise ValueError("output tensor size must be equal to world_size times input tensor size")
    if g.engine is not None:
        return _finished(_written(g.engine.all_gather_into_tensor(output_tensor, input_tensor), output_tensor),
                         async_op)
    src, out = _Buf(input_tensor), _Buf(output_tensor, out=True)
    req = _start(g, async_op, "Allgather", _bytes(src.arr), _bytes(out.arr))
    return _finished(Work(req, [out.back], g.timeout, keep=(src, out)), async_op)


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    _check_tensor(output, "output")
    _check_tensor(input, "input")
    g = _group(group)
    if g is None:
        return None
    if output.dtype != input.dtype:
        raise TypeError("output tensor must have the same type as input tensor")
    if _numel(input) != g.size() * _numel(output):
        raise ValueError("input tensor must be the same size as output size times world size")
    if g.engine is not None:
        return _finished(_written(g.engine.reduce_scatter_tensor(output, input, _valid_op(op)), output), async_op)
    src, out = _Buf(input), _Buf(output, out=True)
    spec, mop = _reduce_spec(src, op)
    ospec, _ = _reduce_spec(out, op)
    req = _start(g, async_op, "Reduce_scatter_block", spec, ospec, mop)
    fin = _divide(out, g.size()) if op == ReduceOp.AVG else out.back
    return _finished(Work(req, [fin], g.timeout, keep=(src, out)), async_op)


def gather(tensor, gather_list=None, dst=None, group=None, async_op=False, group_dst=None):
    _check_tensor(tensor)
    g = _group(group)
    if g is None:
        return None
    root = _root(g, dst, group_dst, "dst")
    src = _Buf(tensor).arr if g.engine is None else None
    if g.rank() == root:
        if gather_list is None:
            raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
        _check_list(gather_list, "gather_list")
        if len(gather_list) != g.size():
            raise ValueError(f"gather: gather_list has {len(gather_list)} tensors for a group of {g.size()}")
        _same(gather_list, tensor, "gather")
        if g.engine is not None:
            return _finished(_gather_via_all_gather(g, tensor, gather_list), async_op)
        packed = np.empty((g.size(),) + src.shape, src.dtype)
        req = _start(g, async_op, "Gather", _bytes(src), _bytes(packed), root=root)
        fin = [_split_back(packed, gather_list)]
    else:
        if gather_list:
            raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination ranks.")
        if g.engine is not None:
            return _finished(_gather_via_all_gather(g, tensor, None), async_op)
        packed = None
        req = _start(g, async_op, "Gather", _bytes(src), None, root=root)
        fin = []
    return _finished(Work(req, fin, g.timeout, keep=(src, packed)), async_op)


def scatter(tensor, scatter_list=None, src=None, group=None, async_op=False, group_src=None):
    _check_tensor(tensor)
    g = _group(group)
    if g is None:
        return None
    root = _root(g, src, group_src, "src")
    out = _Buf(tensor, out=True) if g.engine is None else None
    if g.rank() == root:
        if scatter_list is None:
            raise ValueError("Argument ``scatter_list`` must be specified on source rank.")
        _check_list(scatter_list, "scatter_list")
        if len(scatter_list) != g.size():
            raise ValueError(f"scatter: scatter_list has {len(scatter_list)} tensors for a group of {g.size()}")
        _same(scatter_list, tensor, "scatter")
        if g.engine is not None:
            import mindtorch
            packed = mindtorch.stack([t.detach() for t in scatter_list])
            return _finished(_written(g.engine.scatter(tensor, packed, root), tensor), async_op)
        packed = np.stack([t.detach().numpy() for t in scatter_list]) if scatter_list else None
        req = _start(g, async_op, "Scatter", _bytes(packed), _bytes(out.arr), root=root)
    else:
        if scatter_list:
            raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")
        if g.engine is not None:
            return _finished(_written(g.engine.scatter(tensor, None, root), tensor), async_op)
        packed = None
        req = _start(g, async_op, "Scatter", None, _bytes(out.arr), root=root)
    return _finished(Work(req, [out.back], g.timeout, keep=(out, packed)), async_op)


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None,
                      async_op=False):
    _check_tensor(output, "output")
    _check_tensor(input, "input")
    g = _group(group)
    if g is None:
        return None
    n = g.size()
    if output.dtype != input.dtype:
        raise TypeError("output tensor must have the same type as input tensor")
    if g.engine is not None:
        raise RuntimeError(f"all_to_all_single is not supported by mindtorch's {g.backend} backend")
    src, out = _Buf(input), _Buf(output, out=True)
    row_in = _numel(input) // input.shape[0] if input.dim() and input.shape[0] else 0
    row_out = _numel(output) // output.shape[0] if output.dim() and output.shape[0] else 0
    isz = src.arr.itemsize

    def counts(splits, t, row, what):
        if splits is None or len(splits) == 0:
            if t.dim() == 0 or t.shape[0] % n:
                raise ValueError(f"Tensor's dim 0 does not divide equally across group size ({what})")
            return [t.shape[0] // n * row * isz] * n
        if len(splits) != n:
            raise ValueError(f"Split sizes doesn't match number of ranks ({what})")
        if sum(splits) != t.shape[0]:
            raise ValueError(f"Split sizes doesn't match total dim 0 size ({what})")
        return [int(s) * row * isz for s in splits]

    sc = counts(input_split_sizes, input, row_in, "input")
    rc = counts(output_split_sizes, output, row_out, "output")
    sd, rd = list(np.cumsum([0] + sc[:-1])), list(np.cumsum([0] + rc[:-1]))
    MPI = _mpi()
    req = _start(g, async_op, "Alltoallv", [_bytes(src.arr)[0], (sc, sd), MPI.BYTE], [_bytes(out.arr)[0], (rc, rd), MPI.BYTE])
    return _finished(Work(req, [out.back], g.timeout, keep=(src, out)), async_op)


def barrier(group=None, async_op=False, device_ids=None):
    g = _group(group)
    if g is None:
        return None
    if g.engine is not None:
        return _finished(g.engine.barrier(), async_op)
    return _finished(Work((_start(g, async_op, "Barrier")), (), g.timeout), async_op)


def _peer(g, rank, group_rank, what):
    if rank is not None and group_rank is not None:
        raise ValueError(f"Can not specify both {what} and group_{what}")
    if group_rank is not None:
        if not 0 <= group_rank < g.size():
            raise ValueError(f"Group rank {group_rank} is not part of group {g}")
        peer = group_rank
    else:
        if rank is None:
            raise ValueError(f"Must specify either {what} or group_{what}")
        if rank not in g.ranks:
            raise ValueError(f"Global rank {rank} is not part of group {g}")
        peer = g.ranks.index(rank)
    if peer == g.rank():
        raise ValueError("Invalid destination rank: should not be the same as the rank of the current process.")
    return peer


def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
    _check_tensor(tensor)
    g = _group(group)
    if g is None:
        return None
    peer = _peer(g, dst, group_dst, "dst")
    if g.engine is not None:
        return g.engine.send(tensor, peer)
    src = _Buf(tensor)
    return Work([g.comm.Isend(_bytes(src.arr), dest=peer, tag=tag)], (), g.timeout, keep=(src,))


def irecv(tensor, src=None, group=None, tag=0, group_src=None):
    _check_tensor(tensor)
    g = _group(group)
    if g is None:
        return None
    if g.engine is not None:
        return _written(g.engine.recv(tensor, _peer(g, src, group_src, "src")), tensor)
    peer = _peer(g, src, group_src, "src") if (src is not None or group_src is not None) else _mpi().ANY_SOURCE
    out = _Buf(tensor, out=True)
    return Work([g.comm.Irecv(_bytes(out.arr), source=peer, tag=tag)], [out.back], g.timeout, keep=(out,))


def send(tensor, dst=None, group=None, tag=0, group_dst=None):
    w = isend(tensor, dst, group, tag, group_dst)
    if w is not None:
        w.wait()


def recv(tensor, src=None, group=None, tag=0, group_src=None):
    """Blocks until received; returns the sender's global rank, as PyTorch does."""
    _check_tensor(tensor)
    g = _group(group)
    if g is None:
        return -1
    if g.engine is not None:  # HCCL receives from a named peer only
        peer = _peer(g, src, group_src, "src")
        _written(g.engine.recv(tensor, peer), tensor).wait()
        return g.ranks[peer]
    MPI = _mpi()
    peer = _peer(g, src, group_src, "src") if (src is not None or group_src is not None) else MPI.ANY_SOURCE
    out, status = _Buf(tensor, out=True), MPI.Status()
    req = g.comm.Irecv(_bytes(out.arr), source=peer, tag=tag)
    if g.timeout is None:
        req.Wait(status)
    else:
        _poll(lambda: req.Test(status), g.timeout)
    out.back()
    return g.ranks[status.Get_source()]


def _poll(test, limit):
    """Drive MPI progress until `test()`; the clock is read every few hundred polls."""
    deadline, k = time.monotonic() + limit, 0
    while not test():
        k += 1
        if k % 256 == 0:
            if time.monotonic() > deadline:
                raise DistBackendError(f"a collective did not complete within {limit:g} s "
                                       "(a peer process may have died or diverged)")
            if k > 4096:
                time.sleep(0)  # a long wait yields the core to the peers sharing it
