"""torch.distributed.distributed_c10d: process groups and the collective API.

Each process group holds an MPI communicator (the launcher's ranks) and an engine that moves its
tensors: the mpi engine for cpu tensors (_mpi), or a backend's engine for device tensors (hccl for npu,
from mindtorch-npu). A collective checks its arguments, resolves the group and calls the group's engine
(the contract is in _engine).
"""

import os

from . import _mpi
from ._engine import DistBackendError, DistError, DistStoreError, timeout_seconds as _timeout
from ._mpi import Work
from ._plugin_engine import PluginEngine

__all__ = [
    "Backend",
    "ReduceOp",
    "Work",
    "ProcessGroup",
    "GroupMember",
    "DistError",
    "DistBackendError",
    "DistStoreError",
    "is_available",
    "init_process_group",
    "destroy_process_group",
    "is_initialized",
    "is_mpi_available",
    "get_rank",
    "get_world_size",
    "get_backend",
    "get_process_group_ranks",
    "new_group",
    "all_reduce",
    "broadcast",
    "reduce",
    "all_gather",
    "all_gather_into_tensor",
    "reduce_scatter_tensor",
    "gather",
    "scatter",
    "all_to_all_single",
    "barrier",
    "send",
    "recv",
    "isend",
    "irecv",
    "P2POp",
    "batch_isend_irecv",
]

_NOT_INIT = "Default process group has not been initialized, please make sure to call init_process_group."


class ReduceOp:
    SUM, AVG, PRODUCT, MIN, MAX = "sum", "avg", "product", "min", "max"
    RedOpType = None  # set below: PyTorch exposes the enum type under this name


ReduceOp.RedOpType = ReduceOp

_REDUCE_OPS = frozenset((ReduceOp.SUM, ReduceOp.AVG, ReduceOp.PRODUCT, ReduceOp.MIN, ReduceOp.MAX))


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
    MPI communicator (rank, size, bootstrap); `engine` moves the group's tensors (see _engine)."""

    def __init__(self, backend, comm, ranks, timeout, engine):
        self.backend, self.comm, self.ranks, self.timeout = backend, comm, list(ranks), timeout
        self.engine = engine
        # the arguments of each collective are compared across ranks first (see _agree): always for mpi,
        # where it costs about a microsecond; for a device engine, whose collectives are queued without
        # waiting for the host, only under TORCH_DISTRIBUTED_DEBUG=DETAIL (read when the group is made)
        self.agree = len(self.ranks) > 1 and (
            backend == Backend.MPI or os.environ.get("TORCH_DISTRIBUTED_DEBUG", "").upper() == "DETAIL"
        )

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
    None); it returns a CollectiveEngine (see mindtorch.distributed._engine). A device plugin offers its
    engines through the hook mindtorch_distributed_backends; users may register more.
    """

    UNDEFINED, MPI, HCCL = "undefined", "mpi", "hccl"
    _engines = {}  # name -> (factory, device types)

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
    """`make(comm, timeout seconds)` -> the GroupEngine of backend `name`: the mpi engine, or an engine
    registered or offered by a loaded device plugin."""
    if name == Backend.MPI:
        return _mpi.MpiEngine
    hit = Backend._engines.get(name)
    if hit is None:
        from .._backends.registry import BACKENDS, load_deferred

        load_deferred()
        for rec in BACKENDS.values():
            if name in rec.distributed:
                hit = (rec.distributed[name], (rec.device_type,))
                break
    if hit is None:
        known = sorted({"mpi", *Backend._engines})
        hint = " (install mindtorch-npu for 'hccl')" if name == "hccl" else ""
        raise RuntimeError(f"the {name} backend is not available{hint}; available backends: {', '.join(known)}")
    factory = hit[0]
    return lambda comm, timeout: PluginEngine(factory(comm, timeout), name, comm.Get_size())


def is_initialized():
    return _state["world"] is not None


def _world():
    pg = _state["world"]
    if pg is None:
        raise ValueError(_NOT_INIT)
    return pg


def _group(group):
    """The ProcessGroup a collective runs on (None: this process is not a member)."""
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


def init_process_group(
    backend=None,
    init_method=None,
    timeout=None,
    world_size=-1,
    rank=-1,
    store=None,
    group_name="",
    pg_options=None,
    device_id=None,
):
    if _state["world"] is not None:
        raise ValueError("trying to initialize the default process group twice!")
    if backend is None:
        dev = getattr(device_id, "type", device_id)
        backend = "hccl" if dev is not None and str(dev).startswith("npu") else "mpi"
    backend = str(backend).lower()
    if backend not in ("mpi", "hccl") and backend not in Backend._engines:
        raise ValueError(f"Invalid backend: '{backend}'; mindtorch supports 'mpi' (cpu) and 'hccl' (npu)")
    make_engine = _engine_factory(backend)
    # no timeout given: no deadline (PyTorch's default is 30 min), though a peer that leaves or dies still
    # fails the others (see _peers). A timeout given bounds MPI_Init and every wait.
    seconds = None if timeout is None else _timeout(timeout)
    comm = _mpi.world_comm(seconds)
    n = comm.Get_size()
    # as PyTorch's MPI backend: rank and size come from the launcher; a contradiction is an error
    if world_size not in (-1, None) and world_size != n:
        raise ValueError(f"world_size={world_size} but the MPI launcher started {n} processes")
    if rank not in (-1, None) and rank != comm.Get_rank():
        raise ValueError(f"rank={rank} but the MPI launcher gave this process rank {comm.Get_rank()}")
    pg = ProcessGroup(backend, comm, range(n), seconds, make_engine(comm, seconds))
    if n > 1:
        _mpi.abort_on_uncaught_exception(is_initialized)
    _state["world"] = pg
    GroupMember.WORLD = pg
    for var, val in (("RANK", comm.Get_rank()), ("WORLD_SIZE", n)):
        os.environ.setdefault(var, str(val))


def destroy_process_group(group=None):
    if group is None or group is GroupMember.WORLD:
        pg = _world()
        for g in _state["groups"] + [pg]:
            _free(g)
        _mpi.release_world()
        _state["world"], _state["groups"] = None, []
        GroupMember.WORLD = None
        return
    g = _group(group)
    if g is not None:
        _free(g)


def _free(g):
    if g.comm is not None:
        g.engine.destroy()
        g.comm.Free()
        g.comm = g.engine = None


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
    me = world.rank()
    member = me in ranks
    comm = _mpi.split(world.comm, member, ranks.index(me) if member else 0)
    if not member:
        return GroupMember.NON_GROUP_MEMBER
    pg = ProcessGroup(world.backend, comm, ranks, seconds, _engine_factory(world.backend)(comm, seconds))
    _state["groups"].append(pg)
    return pg


# --------------------------------------------------------------------------- argument checks


def _finished(work, async_op):
    if async_op:
        return work
    work.wait()
    return None


def _check_tensor(t, what="tensor"):
    if not _is_tensor(t):
        raise TypeError(
            f"Invalid function argument. Expected parameter `{what}` of type torch.Tensor\n"
            f"             but got {type(t)} instead."
        )
    dev = t.device.type
    world = _state["world"]
    expected = "cpu" if world is None else world.engine.device_type
    if dev != expected:
        raise RuntimeError(f"No backend type associated with device type {dev}")


def _check_list(ts, what):
    if not isinstance(ts, (list, tuple)) or not all(_is_tensor(t) for t in ts):
        raise TypeError(
            f"Invalid function argument. Expected parameter `{what}` of type List[torch.Tensor]\n"
            f"             but got {type(ts)} instead."
        )
    for t in ts:
        _check_tensor(t, what)


def _is_tensor(t):
    import mindtorch

    return isinstance(t, mindtorch.Tensor)


def _valid_op(op):
    if op not in _REDUCE_OPS:
        raise ValueError(f"Invalid reduce op: {op!r}")
    return op


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


def _group_rank(g, rank, group_rank, what):
    """The group rank of a peer given as a global rank or as a group rank (exactly one of them)."""
    if rank is not None and group_rank is not None:
        raise ValueError(f"Can not specify both {what} and group_{what}")
    if group_rank is not None:
        if not 0 <= group_rank < g.size():
            raise ValueError(f"Group rank {group_rank} is not part of group {g}")
        return group_rank
    if rank is None:
        raise ValueError(f"Must specify either {what} or group_{what}")
    if rank not in g.ranks:
        raise ValueError(f"Global rank {rank} is not part of group {g}")
    return g.ranks.index(rank)


def _peer(g, rank, group_rank, what):
    peer = _group_rank(g, rank, group_rank, what)
    if peer == g.rank():
        raise ValueError("Invalid destination rank: should not be the same as the rank of the current process.")
    return peer


def _source(g, src, group_src):
    """The group rank to receive from; None when neither is given (any rank)."""
    return None if src is None and group_src is None else _peer(g, src, group_src, "src")


def _pair_group(output, input, names, group):
    """The group of a collective from `input` into `output`, once both are checked (tensors of the
    group's device, of one dtype); None when this process is not a member."""
    _check_tensor(output, names[0])
    _check_tensor(input, names[1])
    g = _group(group)
    if g is not None and output.dtype != input.dtype:
        raise TypeError("output tensor must have the same type as input tensor")
    return g


def _same(ts, ref, what):
    for t in ts:
        if tuple(t.shape) != tuple(ref.shape) or t.dtype != ref.dtype:
            raise ValueError(
                f"{what}: every tensor must have the shape {tuple(ref.shape)} and dtype {ref.dtype} "
                f"of the input, got {tuple(t.shape)} and {t.dtype}"
            )


def _agree(g, name, tensor=None, **args):
    """Every rank of g runs the same collective with the same arguments (see _mpi.agree): a rank that
    differs would make MPI write past a buffer or HCCL reduce garbage."""
    if not g.agree:
        return
    key = (name, None, None) if tensor is None else (name, tensor.dtype, tuple(tensor.shape))
    key += tuple(args.items())
    what = _descriptions.get(key)
    if what is None:
        parts = [f"{k}={v}" for k, v in args.items()]
        if tensor is not None:
            parts += [f"dtype={str(tensor.dtype).rsplit('.', 1)[-1]}", f"shape={list(tensor.shape)}"]
        what = _descriptions[key] = f"{name}({', '.join(parts)})"
    _mpi.agree(g.comm, what, g.timeout, g.ranks)


_descriptions: dict = {}  # (name, dtype, shape, arguments) -> the text the ranks compare


# --------------------------------------------------------------------------- collectives


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    _check_tensor(tensor)
    g = _group(group)
    if g is None:
        return None
    _agree(g, "all_reduce", tensor, op=_valid_op(op))
    return _finished(g.engine.all_reduce(tensor, op, async_op), async_op)


def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    _check_tensor(tensor)
    g = _group(group)
    if g is None:
        return None
    root = _root(g, src, group_src, "src")
    _agree(g, "broadcast", tensor, src=root)
    return _finished(g.engine.broadcast(tensor, root, async_op), async_op)


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op=False, group_dst=None):
    _check_tensor(tensor)
    g = _group(group)
    if g is None:
        return None
    root = _root(g, dst, group_dst, "dst")
    _agree(g, "reduce", tensor, dst=root, op=_valid_op(op))
    return _finished(g.engine.reduce(tensor, root, op, async_op), async_op)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    _check_list(tensor_list, "tensor_list")
    _check_tensor(tensor)
    g = _group(group)
    if g is None:
        return None
    if len(tensor_list) != g.size():
        raise ValueError(f"all_gather: tensor_list has {len(tensor_list)} tensors for a group of {g.size()}")
    _same(tensor_list, tensor, "all_gather")
    _agree(g, "all_gather", tensor)
    return _finished(g.engine.all_gather(tensor_list, tensor, async_op), async_op)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    g = _pair_group(output_tensor, input_tensor, ("output_tensor", "input_tensor"), group)
    if g is None:
        return None
    if output_tensor.numel() != g.size() * input_tensor.numel():
        raise ValueError("output tensor size must be equal to world_size times input tensor size")
    _agree(g, "all_gather_into_tensor", input_tensor)
    return _finished(g.engine.all_gather_into_tensor(output_tensor, input_tensor, async_op), async_op)


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    g = _pair_group(output, input, ("output", "input"), group)
    if g is None:
        return None
    if input.numel() != g.size() * output.numel():
        raise ValueError("input tensor must be the same size as output size times world size")
    _agree(g, "reduce_scatter_tensor", output, op=_valid_op(op))
    return _finished(g.engine.reduce_scatter_tensor(output, input, op, async_op), async_op)


def gather(tensor, gather_list=None, dst=None, group=None, async_op=False, group_dst=None):
    _check_tensor(tensor)
    g = _group(group)
    if g is None:
        return None
    root = _root(g, dst, group_dst, "dst")
    if g.rank() == root:
        if gather_list is None:
            raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
        _check_list(gather_list, "gather_list")
        if len(gather_list) != g.size():
            raise ValueError(f"gather: gather_list has {len(gather_list)} tensors for a group of {g.size()}")
        _same(gather_list, tensor, "gather")
    elif gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination ranks.")
    else:
        gather_list = None
    _agree(g, "gather", tensor, dst=root)
    return _finished(g.engine.gather(tensor, gather_list, root, async_op), async_op)


def scatter(tensor, scatter_list=None, src=None, group=None, async_op=False, group_src=None):
    _check_tensor(tensor)
    g = _group(group)
    if g is None:
        return None
    root = _root(g, src, group_src, "src")
    packed = None
    if g.rank() == root:
        if scatter_list is None:
            raise ValueError("Argument ``scatter_list`` must be specified on source rank.")
        _check_list(scatter_list, "scatter_list")
        if len(scatter_list) != g.size():
            raise ValueError(f"scatter: scatter_list has {len(scatter_list)} tensors for a group of {g.size()}")
        _same(scatter_list, tensor, "scatter")
        import mindtorch

        packed = mindtorch.stack([t.detach() for t in scatter_list])
    elif scatter_list:
        raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")
    _agree(g, "scatter", tensor, src=root)
    return _finished(g.engine.scatter(tensor, packed, root, async_op), async_op)


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None, async_op=False):
    g = _pair_group(output, input, ("output", "input"), group)
    if g is None:
        return None
    _agree(g, "all_to_all_single", dtype=str(input.dtype).rsplit(".", 1)[-1])
    work = g.engine.all_to_all_single(output, input, output_split_sizes, input_split_sizes, async_op)
    return _finished(work, async_op)


def barrier(group=None, async_op=False, device_ids=None):
    g = _group(group)
    if g is None:
        return None
    _agree(g, "barrier")
    return _finished(g.engine.barrier(async_op), async_op)


def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
    _check_tensor(tensor)
    g = _group(group)
    if g is None:
        return None
    return g.engine.send(tensor, _peer(g, dst, group_dst, "dst"), tag)


def irecv(tensor, src=None, group=None, tag=0, group_src=None):
    _check_tensor(tensor)
    g = _group(group)
    if g is None:
        return None
    return g.engine.recv(tensor, _source(g, src, group_src), tag)


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
    return g.ranks[g.engine.recv_wait(tensor, _source(g, src, group_src), tag)]


class P2POp:
    """One send or receive of a batch_isend_irecv: `op` is isend or irecv, `peer` a global rank (or
    `group_peer` a rank of `group`)."""

    def __new__(cls, op, tensor, peer=None, group=None, tag=0, group_peer=None):
        if op is not isend and op is not irecv:
            raise ValueError(
                "Invalid ``op``. Expected ``op`` to be of type ``torch.distributed.isend`` or "
                "``torch.distributed.irecv``."
            )
        if not _is_tensor(tensor):
            raise TypeError(
                f"Invalid function argument. Expected parameter `tensor` of type torch.Tensor\n"
                f"             but got {type(tensor)} instead."
            )
        return object.__new__(cls)

    def __init__(self, op, tensor, peer=None, group=None, tag=0, group_peer=None):
        self.op, self.tensor, self.group, self.tag = op, tensor, group, tag
        g = _group(group)
        self.group_peer = None if g is None else _group_rank(g, peer, group_peer, "peer")
        self.peer = None if g is None else g.ranks[self.group_peer]

    def __repr__(self):
        me = get_rank(self.group)
        src, dst = (me, self.group_peer) if self.op is isend else (self.group_peer, me)
        name = "default_pg" if self.group is None else repr(self.group)
        shape, dtype = self.tensor.shape, self.tensor.dtype
        return f"P2POp({self.op.__name__} pg={name}, group_src={src}, group_dst={dst},  {shape}, {dtype})"


def batch_isend_irecv(p2p_op_list):
    """Start every send and receive of the list; their Works, in the list's order. Every operation
    starts before any is waited for, and the sends before the receives (each kind in the list's order):
    an engine that queues its operations in order, as HCCL does on a stream, would otherwise wait in a
    receive before reaching the send its peer waits for."""
    if not isinstance(p2p_op_list, list) or not all(isinstance(p, P2POp) for p in p2p_op_list):
        raise ValueError("Invalid ``p2p_op_list``. Each op is expected to to be of type ``torch.distributed.P2POp``.")
    group = p2p_op_list[0].group
    if any(p.group is not group for p in p2p_op_list):
        raise ValueError("All ops need to use the same group.")
    works = [None] * len(p2p_op_list)
    for i in sorted(range(len(p2p_op_list)), key=lambda i: p2p_op_list[i].op is irecv):
        p = p2p_op_list[i]
        peer = {"group_dst": p.group_peer} if p.op is isend else {"group_src": p.group_peer}
        works[i] = p.op(p.tensor, group=p.group, tag=p.tag, **peer)
    return [w for w in works if w is not None]
