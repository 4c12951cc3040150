"""torch.distributed.distributed_c10d: process groups and the collective API.

Each process group holds a communicator from one of two transports and an engine that moves its
tensors. The transports: MPI (_mpi; the ranks come from an MPI launcher, mpiexec or
mindtorch.distributed.run), or TCP sockets (_sockets; the processes meet through a store, from
init_method, `store` or torchrun's environment). The engines: the transport's own for cpu tensors, or a
backend's engine for device tensors (hccl for npu, from mindtorch-npu). A collective checks its
arguments, resolves the group and calls the group's engine (the contract is in _engine).

PyTorch's "gloo" backend name runs mindtorch's cpu engine: over sockets when a rendezvous is given,
over MPI inside an MPI launch without one. It is not the Gloo library.
"""

import contextlib
import functools
import os
from datetime import timedelta
from enum import IntEnum
from typing import NewType

from .. import _profiling
from . import _mpi, _sockets
from ._engine import DistBackendError, DistError, DistStoreError, HostWork as Work, timeout_seconds as _timeout
from ._plugin_engine import PluginEngine
from .rendezvous import rendezvous

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
    "default_pg_timeout",
    "is_gloo_available",
    "is_nccl_available",
    "is_ucc_available",
    "is_xccl_available",
    "is_backend_available",
    "get_default_backend_for_device",
    "is_torchelastic_launched",
    "get_node_local_rank",
    "DebugLevel",
    "get_debug_level",
    "set_debug_level",
    "set_debug_level_from_env",
    "supports_complex",
    "reduce_op",
    "group",
    "GroupName",
    "AllreduceOptions",
    "AllreduceCoalescedOptions",
    "ReduceOptions",
    "BroadcastOptions",
    "GatherOptions",
    "ScatterOptions",
    "ReduceScatterOptions",
    "AllToAllOptions",
    "BarrierOptions",
    "new_subgroups",
    "new_subgroups_by_enumeration",
    "split_group",
    "shrink_group",
    "get_group_rank",
    "get_pg_count",
    "get_backend_config",
    "ProcessGroupGloo",
    "all_to_all",
    "reduce_scatter",
    "all_reduce_coalesced",
    "all_gather_coalesced",
    "all_gather_single",
    "reduce_scatter_single",
    "monitored_barrier",
    "record_comm",
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


default_pg_timeout = timedelta(minutes=30)


def is_available():
    return True


def is_mpi_available():
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return False
    return True


def is_gloo_available():
    """True: "gloo" runs mindtorch's own cpu engine (sockets, or MPI inside an MPI launch), not Gloo."""
    return True


def is_nccl_available():
    return False


def is_ucc_available():
    return False


def is_xccl_available():
    return False


def is_backend_available(backend):
    """Whether init_process_group can run `backend`."""
    name = str(backend).lower()
    if name == Backend.GLOO:
        return True
    if name == Backend.MPI:
        return is_mpi_available()
    try:
        _engine_factory(name, _mpi)
    except RuntimeError:
        return False
    return True


def get_default_backend_for_device(device):
    dev = str(getattr(device, "type", device)).split(":")[0]
    backends = {"cpu": Backend.GLOO, "npu": Backend.HCCL}
    if dev not in backends:
        raise ValueError(f"Default backend not registered for device : {dev}")
    return backends[dev]


def is_torchelastic_launched():
    """Whether a torchrun-like launcher started this process (it sets TORCHELASTIC_RUN_ID)."""
    return os.getenv("TORCHELASTIC_RUN_ID") is not None


def get_node_local_rank(fallback_rank=None):
    """This process's rank on its node, from the launcher's LOCAL_RANK."""
    if "LOCAL_RANK" in os.environ:
        return int(os.environ["LOCAL_RANK"])
    if fallback_rank is not None:
        return int(fallback_rank)
    raise RuntimeError(
        "LOCAL_RANK is not in the environment. Consider passing fallback_rank to allow `get_node_local_rank` "
        "to work, assuming you are not running in a multi-device context and want the code to run locally instead."
    )


class DebugLevel(IntEnum):
    """TORCH_DISTRIBUTED_DEBUG's levels; DETAIL also checks device collectives' arguments across ranks."""

    OFF = 0
    INFO = 1
    DETAIL = 2

    def __str__(self):
        return f"DebugLevel.{self.name}"


_debug = []  # the level set, once set (until then TORCH_DISTRIBUTED_DEBUG's)


def _debug_level_of(value):
    try:
        return DebugLevel[value.upper()]
    except KeyError:
        raise ValueError("The value of TORCH_DISTRIBUTED_DEBUG must be OFF, INFO, or DETAIL.") from None


def get_debug_level():
    if _debug:
        return _debug[0]
    try:
        return _debug_level_of(os.environ.get("TORCH_DISTRIBUTED_DEBUG", "OFF"))
    except ValueError:
        return DebugLevel.OFF


def set_debug_level(level):
    _debug[:] = [DebugLevel(level)]


def set_debug_level_from_env():
    set_debug_level(_debug_level_of(os.environ.get("TORCH_DISTRIBUTED_DEBUG", "OFF")))


def supports_complex(reduceOp):
    """Whether `reduceOp` is defined on complex tensors (ordering and products are not)."""
    return reduceOp not in (ReduceOp.MAX, ReduceOp.MIN, ReduceOp.PRODUCT)


class _DeprecatedReduceOp:
    """torch.distributed.reduce_op: ReduceOp's members under the old name, with a warning."""

    def __getattr__(self, name):
        import warnings

        warnings.warn(
            "`torch.distributed.reduce_op` is deprecated, please use `torch.distributed.ReduceOp` instead",
            FutureWarning,
            stacklevel=2,
        )
        return getattr(ReduceOp, name)


reduce_op = _DeprecatedReduceOp()


class _GroupMeta(type):
    @property
    def WORLD(cls):
        return GroupMember.WORLD


class group(metaclass=_GroupMeta):
    """`group.WORLD`: the default group once initialised."""


GroupName = NewType("GroupName", str)


def _options(name, **defaults):
    """A PyTorch *Options class: attributes with their defaults, set by keyword."""

    def __init__(self, **kw):
        for k, v in {**defaults, **kw}.items():
            if k not in defaults:
                raise TypeError(f"{name}() got an unexpected keyword argument '{k}'")
            setattr(self, k, list(v) if isinstance(v, list) else v)

    return type(
        name,
        (),
        {"__init__": __init__, "__module__": __name__, "__doc__": f"Options of a collective: {', '.join(defaults)}."},
    )


_UNSET = timedelta(milliseconds=-1)  # no timeout of its own: the group's
AllreduceOptions = _options("AllreduceOptions", reduceOp=ReduceOp.SUM, timeout=_UNSET, asyncOp=True)
AllreduceCoalescedOptions = _options("AllreduceCoalescedOptions", reduceOp=ReduceOp.SUM, timeout=_UNSET, asyncOp=True)
ReduceOptions = _options("ReduceOptions", reduceOp=ReduceOp.SUM, rootRank=0, rootTensor=0, timeout=_UNSET, asyncOp=True)
BroadcastOptions = _options("BroadcastOptions", rootRank=0, rootTensor=0, timeout=_UNSET, asyncOp=True)
GatherOptions = _options("GatherOptions", rootRank=0, timeout=_UNSET, asyncOp=True)
ScatterOptions = _options("ScatterOptions", rootRank=0, timeout=_UNSET, asyncOp=True)
ReduceScatterOptions = _options("ReduceScatterOptions", reduceOp=ReduceOp.SUM, timeout=_UNSET, asyncOp=True)
AllToAllOptions = _options("AllToAllOptions", timeout=_UNSET, asyncOp=True)
BarrierOptions = _options("BarrierOptions", device_ids=[], device=None, timeout=_UNSET, asyncOp=True)


# --------------------------------------------------------------------------- groups


class ProcessGroup:
    """One communicator: `ranks` are the global ranks of its members, in group-rank order. `comm` is the
    transport's communicator (rank, size, bootstrap), `transport` the module that made it (_mpi or
    _sockets); `engine` moves the group's tensors (see _engine)."""

    def __init__(self, backend, comm, ranks, timeout, engine, transport=_mpi):
        self.backend, self.comm, self.ranks, self.timeout = backend, comm, list(ranks), timeout
        self.engine, self.transport = engine, transport
        # the arguments of each collective are compared across ranks first (see _agree): always for the
        # cpu engines, where it costs one small exchange; for a device engine, whose collectives are
        # queued without waiting for the host, only under TORCH_DISTRIBUTED_DEBUG=DETAIL (read when the
        # group is made)
        self.agree = len(self.ranks) > 1 and (
            backend in (Backend.MPI, Backend.GLOO) or get_debug_level() == DebugLevel.DETAIL
        )

    def rank(self):
        return self.comm.Get_rank()

    def size(self):
        return self.comm.Get_size()

    def name(self):
        return self.backend

    def __repr__(self):
        return f"ProcessGroup(backend={self.backend!r}, ranks={self.ranks})"


_state = {"world": None, "groups": [], "made": 0}  # made: the groups new_group made, members or not


class Backend(str):
    """Backend names, and the registry of collective engines for device tensors.

    An engine factory is called as `factory(comm, timeout)` with the group's communicator (for the
    rank, the size and exchanging bootstrap data such as HCCL's root info: Get_rank, Get_size, bcast)
    and the timeout in seconds (or None); it returns a CollectiveEngine (see
    mindtorch.distributed._engine). A device plugin offers its engines through the hook
    mindtorch_distributed_backends; users may register more.
    """

    UNDEFINED, GLOO, NCCL, UCC, MPI, XCCL, HCCL = "undefined", "gloo", "nccl", "ucc", "mpi", "xccl", "hccl"
    _engines = {}  # name -> (factory, device types)

    def __new__(cls, name):
        if not isinstance(name, str):
            raise ValueError(f"Backend constructor parameter must be string-ish, but got: {type(name)}")
        return super().__new__(cls, name.lower())

    @classmethod
    def register_backend(cls, name, func, extended_api=False, devices=None):
        name = name.lower()
        if name in (cls.MPI, cls.GLOO) or name in cls._engines:
            raise ValueError(f"{name} backend already exist in torch.distributed.Backend")
        cls._engines[name] = (func, tuple(devices or ()))


_CPU_BACKENDS = (Backend.MPI, Backend.GLOO)


def _engine_factory(name, transport):
    """`make(comm, timeout seconds)` -> the GroupEngine of backend `name`: the transport's cpu engine,
    or an engine registered or offered by a loaded device plugin."""
    if name in _CPU_BACKENDS:
        return transport.cpu_engine
    hit = Backend._engines.get(name)
    if hit is None:
        from .._backends.registry import BACKENDS, load_deferred

        load_deferred()
        for rec in BACKENDS.values():
            if name in rec.distributed:
                hit = (rec.distributed[name], (rec.device_type,))
                break
    if hit is None:
        known = sorted({*_CPU_BACKENDS, *Backend._engines})
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


# the variables an MPI launcher sets in every process it starts (Open MPI, MPICH / Intel MPI, PMIx)
_MPI_LAUNCH_VARS = ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK")


def _under_mpi_launcher():
    return any(v in os.environ for v in _MPI_LAUNCH_VARS)


def _default_backend(device_id):
    dev = getattr(device_id, "type", device_id)
    if dev is not None and str(dev).startswith("npu"):
        return Backend.HCCL
    # cpu: PyTorch's default is gloo; inside an MPI launch the mpi backend serves the launcher's ranks
    return Backend.MPI if _under_mpi_launcher() else Backend.GLOO


def _backend_of(spec, device_id):
    """The backend of a name, or of PyTorch's per-device form "cpu:gloo,cuda:nccl": the entry of the
    device the group serves (npu when device_id is one, else cpu); entries for devices mindtorch has no
    backend for (cuda) are ignored."""
    if ":" not in spec:
        return spec
    pairs = dict(p.split(":", 1) for p in spec.split(",") if ":" in p)
    dev = str(getattr(device_id, "type", device_id) or "cpu").split(":")[0]
    if dev in pairs:
        return pairs[dev]
    raise ValueError(f"Invalid backend: '{spec}' has no backend for device {dev}")


def _meets_through_a_store(backend, init_method, store):
    """Whether the processes meet through a store (the socket transport) rather than MPI's launcher:
    always when a rendezvous is given; for gloo inside an MPI launch only when torchrun's MASTER_ADDR is
    set; the mpi backend never."""
    if backend == Backend.MPI:
        return False
    if store is not None or init_method is not None:
        return True
    if _under_mpi_launcher():
        return backend == Backend.GLOO and "MASTER_ADDR" in os.environ
    return True  # env://, as PyTorch's default init_method


def _store_world(init_method, store, world_size, rank, timeout):
    """(store, rank, world size) of a rendezvous, as PyTorch's init_process_group makes it."""
    if store is not None:
        if not world_size > 0:
            raise AssertionError("world_size must be positive if using store")
        if not rank >= 0:
            raise AssertionError("rank must be non-negative if using store")
        return store, rank, world_size
    url = init_method or "env://"
    rank = -1 if rank is None else rank
    world_size = -1 if world_size is None else world_size
    return next(rendezvous(url, rank, world_size, timeout=timeout))


def _mpi_world(seconds, world_size, rank):
    comm = _mpi.world_comm(seconds)
    n = comm.Get_size()
    # as PyTorch's MPI backend: rank and size come from the launcher; a contradiction is an error
    if world_size not in (-1, None) and world_size != n:
        raise ValueError(f"world_size={world_size} but the MPI launcher started {n} processes")
    if rank not in (-1, None) and rank != comm.Get_rank():
        raise ValueError(f"rank={rank} but the MPI launcher gave this process rank {comm.Get_rank()}")
    return comm


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
    if store is not None and init_method is not None:
        raise AssertionError("Cannot specify both init_method and store.")
    backend = _default_backend(device_id) if backend is None else _backend_of(str(backend).lower(), device_id)
    if backend not in (Backend.MPI, Backend.GLOO, Backend.HCCL) and backend not in Backend._engines:
        raise ValueError(f"Invalid backend: '{backend}'; mindtorch supports 'gloo' and 'mpi' (cpu) and 'hccl' (npu)")
    if _meets_through_a_store(backend, init_method, store):
        transport = _sockets
        # the sockets' waits are bounded as PyTorch's: 30 minutes unless told
        seconds = _timeout(timeout or default_pg_timeout)
        store, rank, n = _store_world(init_method, store, world_size, rank, timeout or default_pg_timeout)
        master = os.environ.get("MASTER_ADDR") or getattr(store, "host", None)
        comm = _sockets.world_comm(store, rank, n, seconds, master)
    else:
        transport = _mpi
        # no timeout given: no deadline (PyTorch's default is 30 min), though a peer that leaves or dies
        # still fails the others (see _peers). A timeout given bounds MPI_Init and every wait.
        seconds = None if timeout is None else _timeout(timeout)
        comm = _mpi_world(seconds, world_size, rank)
    make_engine = _engine_factory(backend, transport)
    n = comm.Get_size()
    pg = ProcessGroup(backend, comm, range(n), seconds, make_engine(comm, seconds), transport)
    if n > 1:
        transport.abort_on_uncaught_exception(is_initialized)
    _state["world"] = pg
    GroupMember.WORLD = pg
    for var, val in (("RANK", comm.Get_rank()), ("WORLD_SIZE", n)):
        os.environ.setdefault(var, str(val))


def destroy_process_group(group=None):
    if group is None or group is GroupMember.WORLD:
        pg = _world()
        comm = pg.comm
        for g in _state["groups"] + [pg]:
            _free(g)
        pg.transport.release_world(comm)
        _state.update(world=None, groups=[], made=0)
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
    _state["made"] += 1
    comm = world.transport.split(world.comm, ranks)
    if comm is None:
        return GroupMember.NON_GROUP_MEMBER
    make_engine = _engine_factory(world.backend, world.transport)
    pg = ProcessGroup(world.backend, comm, ranks, seconds, make_engine(comm, seconds), world.transport)
    _state["groups"].append(pg)
    return pg


def new_subgroups_by_enumeration(ranks_per_subgroup_list, timeout=None, backend=None, pg_options=None, group_desc=None):
    """One group per list of ranks (the lists disjoint); (this process's subgroup, all subgroups)."""
    if not ranks_per_subgroup_list:
        raise ValueError("The arg 'ranks_per_subgroup_list' cannot be empty")
    seen = set()
    for ranks in ranks_per_subgroup_list:
        if seen & set(ranks):
            raise ValueError(f"Rank {sorted(seen & set(ranks))[0]} has appeared in more than one subgroup")
        seen |= set(ranks)
    mine, groups = None, []
    for ranks in ranks_per_subgroup_list:
        g = new_group(ranks, timeout=timeout)
        groups.append(g)
        if get_rank() in ranks:
            mine = g
    return mine, groups


def new_subgroups(group_size=None, group=None, timeout=None, backend=None, pg_options=None, group_desc=None):
    """Split the world into consecutive groups of `group_size` ranks; (this process's, all)."""
    world = get_world_size()
    if group_size is None:
        group_size = int(os.environ.get("LOCAL_WORLD_SIZE", world))
    if group_size <= 0:
        raise ValueError(f"The arg 'group_size' ({group_size}) must be positive")
    if group_size > world:
        raise ValueError(f"The arg 'group_size' ({group_size}) must not exceed the world size ({world})")
    if world % group_size != 0:
        raise ValueError(f"The world size ({world}) must be divisible by 'group_size={group_size}'")
    ranks = [list(range(start, start + group_size)) for start in range(0, world, group_size)]
    return new_subgroups_by_enumeration(ranks, timeout=timeout)


def split_group(parent_pg=None, split_ranks=None, timeout=None, pg_options=None, group_desc=None, backend=None):
    """Split the parent group (the world) into the disjoint groups of `split_ranks`; this process's
    group, or None when it is in none of them."""
    parent = _group(parent_pg)
    if parent is not _world():
        raise ValueError("split_group: mindtorch splits the default group only")
    if not split_ranks:
        raise ValueError("split_ranks cannot be None or empty")
    mine, _ = new_subgroups_by_enumeration(split_ranks, timeout=timeout)
    return mine


def shrink_group(ranks_to_exclude, group=None, shrink_flags=0, pg_options=None):
    """A group of the members of `group` (the world) but `ranks_to_exclude`."""
    parent = _group(group)
    if parent is None:
        raise ValueError("Group is not part of the process group")
    if not ranks_to_exclude:
        raise ValueError("ranks_to_exclude cannot be empty")
    left = [r for r in parent.ranks if r not in set(ranks_to_exclude)]
    if parent is not _world():
        raise ValueError("shrink_group: mindtorch shrinks the default group only")
    return new_group(left)


def get_group_rank(group, global_rank):
    """The rank in `group` of the process of world rank `global_rank`."""
    if group is GroupMember.WORLD:
        return global_rank
    g = _group(group)
    if g is None:
        raise ValueError("Group is not part of the process group")
    if global_rank not in g.ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {g}")
    return g.ranks.index(global_rank)


def get_pg_count():
    """How many process groups were made: the default one and every new_group (members or not)."""
    return 0 if _state["world"] is None else 1 + _state["made"]


def get_backend_config(group=None):
    return str(get_backend(group))


class ProcessGroupGloo(ProcessGroup):
    """PyTorch's gloo process group class: mindtorch's cpu engine over sockets (not the Gloo library),
    made from a store as PyTorch's is: `ProcessGroupGloo(store, rank, size, timeout)`. The groups
    init_process_group("gloo") and new_group make are ProcessGroup instances."""

    def __init__(self, store, rank, size, timeout=default_pg_timeout):
        seconds = _timeout(timeout)
        comm = _sockets.world_comm(store, rank, size, seconds, getattr(store, "host", None))
        super().__init__(Backend.GLOO, comm, range(size), seconds, _sockets.cpu_engine(comm, seconds), _sockets)


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
    g.transport.agree(g.comm, what, g.timeout, g.ranks)


_descriptions: dict = {}  # (name, dtype, shape, arguments) -> the text the ranks compare


# --------------------------------------------------------------------------- collectives

_comm_names: list = []  # the titles record_comm set, innermost last


@contextlib.contextmanager
def record_comm(name):
    """Collectives issued inside appear in the profiler under `name` instead of "<backend>:<collective>"."""
    _comm_names.append(name)
    try:
        yield
    finally:
        _comm_names.pop()


def _profiled(fn):
    """`fn`, a collective, as a range of the profile while a profiler records (free otherwise)."""
    name = fn.__name__

    @functools.wraps(fn)
    def run(*args, **kwargs):
        if not _profiling.ACTIVE:
            return fn(*args, **kwargs)
        recorder = _profiling.ACTIVE[0]
        world = _state["world"]
        title = _comm_names[-1] if _comm_names else f"{world.backend if world else 'c10d'}:{name}"
        span = recorder.open(title, "user_annotation")
        try:
            return fn(*args, **kwargs)
        finally:
            recorder.close(span)

    return run


@_profiled
def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    _check_tensor(tensor)
    g = _group(group)
    if g is None:
        return None
    _agree(g, "all_reduce", tensor, op=_valid_op(op))
    return _finished(g.engine.all_reduce(tensor, op, async_op), async_op)


@_profiled
def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    _check_tensor(tensor)
    g = _group(group)
    if g is None:
        return None
    root = _root(g, src, group_src, "src")
    _agree(g, "broadcast", tensor, src=root)
    return _finished(g.engine.broadcast(tensor, root, async_op), async_op)


@_profiled
def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op=False, group_dst=None):
    _check_tensor(tensor)
    g = _group(group)
    if g is None:
        return None
    root = _root(g, dst, group_dst, "dst")
    _agree(g, "reduce", tensor, dst=root, op=_valid_op(op))
    return _finished(g.engine.reduce(tensor, root, op, async_op), async_op)


@_profiled
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


@_profiled
def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    g = _pair_group(output_tensor, input_tensor, ("output_tensor", "input_tensor"), group)
    if g is None:
        return None
    if output_tensor.numel() != g.size() * input_tensor.numel():
        raise ValueError("output tensor size must be equal to world_size times input tensor size")
    _agree(g, "all_gather_into_tensor", input_tensor)
    return _finished(g.engine.all_gather_into_tensor(output_tensor, input_tensor, async_op), async_op)


@_profiled
def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    g = _pair_group(output, input, ("output", "input"), group)
    if g is None:
        return None
    if input.numel() != g.size() * output.numel():
        raise ValueError("input tensor must be the same size as output size times world size")
    _agree(g, "reduce_scatter_tensor", output, op=_valid_op(op))
    return _finished(g.engine.reduce_scatter_tensor(output, input, op, async_op), async_op)


@_profiled
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


@_profiled
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


@_profiled
def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None, async_op=False):
    g = _pair_group(output, input, ("output", "input"), group)
    if g is None:
        return None
    _agree(g, "all_to_all_single", dtype=str(input.dtype).rsplit(".", 1)[-1])
    work = g.engine.all_to_all_single(output, input, output_split_sizes, input_split_sizes, async_op)
    return _finished(work, async_op)


@_profiled
def barrier(group=None, async_op=False, device_ids=None):
    g = _group(group)
    if g is None:
        return None
    _agree(g, "barrier")
    return _finished(g.engine.barrier(async_op), async_op)


@_profiled
def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
    _check_tensor(tensor)
    g = _group(group)
    if g is None:
        return None
    return g.engine.send(tensor, _peer(g, dst, group_dst, "dst"), tag)


@_profiled
def irecv(tensor, src=None, group=None, tag=0, group_src=None):
    _check_tensor(tensor)
    g = _group(group)
    if g is None:
        return None
    return g.engine.recv(tensor, _source(g, src, group_src), tag)


@_profiled
def send(tensor, dst=None, group=None, tag=0, group_dst=None):
    w = isend(tensor, dst, group, tag, group_dst)
    if w is not None:
        w.wait()


@_profiled
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


# --------------------------------------------------------------------------- list forms


def _flat(tensors):
    import mindtorch

    return mindtorch.cat([t.detach().reshape(-1) for t in tensors])


def _unflatten_into(flat, tensors):
    start = 0
    for t in tensors:
        n = t.numel()
        t.detach().copy_(flat[start : start + n].reshape(t.shape))
        start += n


@_profiled
def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    """input_tensor_list[k] to group rank k, output_tensor_list[k] from group rank k (sizes may differ
    from peer to peer): one all_to_all_single over the flattened lists."""
    _check_list(output_tensor_list, "output_tensor_list")
    _check_list(input_tensor_list, "input_tensor_list")
    g = _group(group)
    if g is None:
        return None
    if len(output_tensor_list) != g.size() or len(input_tensor_list) != g.size():
        raise ValueError(f"all_to_all: the tensor lists must hold one tensor per rank of the group ({g.size()})")
    out = _flat(output_tensor_list)
    all_to_all_single(
        out,
        _flat(input_tensor_list),
        [t.numel() for t in output_tensor_list],
        [t.numel() for t in input_tensor_list],
        group=group,
    )
    _unflatten_into(out, output_tensor_list)
    return _finished(_sockets.Work(), async_op)


@_profiled
def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """The reduction over the group of input_list[k], into group rank k's output."""
    _check_tensor(output, "output")
    _check_list(input_list, "input_list")
    g = _group(group)
    if g is None:
        return None
    if len(input_list) != g.size():
        raise ValueError(f"reduce_scatter: input_list has {len(input_list)} tensors for a group of {g.size()}")
    _same(input_list, output, "reduce_scatter")
    return reduce_scatter_tensor(output, _flat(input_list), op=op, group=group, async_op=async_op)


def _on_the_way_out(name):
    import warnings

    warnings.warn(
        f"`torch.distributed.{name}` will be deprecated. If you must use it, please revisit our documentation "
        "later at https://pytorch.org/docs/main/distributed.html#collective-functions",
        FutureWarning,
        stacklevel=3,
    )


@_profiled
def all_reduce_coalesced(tensors, op=ReduceOp.SUM, group=None, async_op=False):
    """Every tensor all-reduced, in one all-reduce of their concatenation (they share a dtype)."""
    _on_the_way_out("all_reduce_coalesced")
    if _is_tensor(tensors):
        tensors = [tensors]
    _check_list(tensors, "tensors")
    if len({t.dtype for t in tensors}) > 1:
        raise RuntimeError("all_reduce_coalesced: all tensors must have the same dtype")
    flat = _flat(tensors)
    work = all_reduce(flat, op=op, group=group)
    if _group(group) is not None:
        _unflatten_into(flat, tensors)
    return _finished(_sockets.Work(), async_op) if work is None else work


@_profiled
def all_gather_coalesced(output_tensor_lists, input_tensor_list, group=None, async_op=False):
    """output_tensor_lists[k][i] receives group rank k's input_tensor_list[i]."""
    _on_the_way_out("all_gather_coalesced")
    _check_list(input_tensor_list, "input_tensor_list")
    for outs in output_tensor_lists:
        _check_list(outs, "output_tensor_lists")
    for i, t in enumerate(input_tensor_list):
        all_gather([outs[i] for outs in output_tensor_lists], t, group=group)
    return _finished(_sockets.Work(), async_op)


def all_gather_single(output_tensor, input_tensor, group=None, async_op=False):
    return all_gather_into_tensor(output_tensor, input_tensor, group=group, async_op=async_op)


def reduce_scatter_single(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    return reduce_scatter_tensor(output, input, op=op, group=group, async_op=async_op)


_MONITOR_TAG = 32000  # the messages of monitored_barrier, apart from the user's tags


@_profiled
def monitored_barrier(group=None, timeout=None, wait_all_ranks=False):
    """A barrier whose rank 0 names the ranks that did not reach it within `timeout` (a RuntimeError
    there); the others wait for rank 0's release."""
    import mindtorch

    g = _group(group)
    if g is None:
        return None
    limit = timeout if timeout is not None else timedelta(seconds=g.timeout or default_pg_timeout.total_seconds())
    token = mindtorch.zeros(1)
    if g.rank() != 0:
        send(token, group=group, group_dst=0, tag=_MONITOR_TAG)
        recv(token, group=group, group_src=0, tag=_MONITOR_TAG)
        return None
    works = {k: irecv(mindtorch.zeros(1), group=group, group_src=k, tag=_MONITOR_TAG) for k in range(1, g.size())}
    late = []
    for k, w in works.items():
        try:
            w.wait(limit)
        except DistError:
            late.append(k)
            if not wait_all_ranks:
                break
    if late:
        ms = int(limit.total_seconds() * 1000)
        if wait_all_ranks:
            raise RuntimeError(f"Ranks {', '.join(map(str, late))} failed to pass monitoredBarrier in {ms} ms")
        raise RuntimeError(f"Rank {late[0]} failed to pass monitoredBarrier in {ms} ms")
    for k in works:
        send(token, group=group, group_dst=k, tag=_MONITOR_TAG)
    return None
