"""mindtorch.multiprocessing: Python's multiprocessing, with tensors that travel through shared memory.

A CPU tensor put on a Queue or Pipe (or passed to a spawned Process) is moved into shared memory
(`share_memory_`) and sent by name: the receiver maps the same block, so in-place updates on either side
are seen by both, as in torch.multiprocessing. By default a block has no name and travels as a file
descriptor, so a tensor in flight stays alive until the receiver has it and nothing is left in /dev/shm
whoever dies (see set_sharing_strategy). Tensors of other devices are sent by value.
"""

import multiprocessing
from multiprocessing import *  # noqa: F403
from multiprocessing.reduction import ForkingPickler

import mindtorch

from ._storage import sharing

__all__ = list(getattr(multiprocessing, "__all__", ())) + [
    "spawn",
    "start_processes",
    "ProcessContext",
    "ProcessRaisedException",
    "ProcessExitedException",
    "get_sharing_strategy",
    "set_sharing_strategy",
    "get_all_sharing_strategies",
]

_STRATEGIES = ("file_descriptor", "file_system")


class _InvalidStrategy(ValueError, AssertionError):
    """PyTorch asserts on an unknown strategy; a ValueError is what the argument error is."""


def get_all_sharing_strategies():
    return set(_STRATEGIES)


def get_sharing_strategy():
    return sharing["strategy"]


def set_sharing_strategy(new_strategy):
    """How tensors are shared from now on: "file_descriptor" (the default), blocks with no name that
    travel as open descriptors and can never be left behind, one descriptor per shared storage; or
    "file_system", named files in /dev/shm, opened by name, that need no descriptor each but must be
    kept alive by the sender until the receiver has opened them."""
    if new_strategy not in _STRATEGIES:
        raise _InvalidStrategy(f"invalid sharing strategy {new_strategy!r}, expected one of {set(_STRATEGIES)}")
    sharing["strategy"] = new_strategy


# -- tensors through pickling ------------------------------------------------------------------------


def _rebuild_shared(handle, device, shape, stride, offset, dtype, requires_grad, is_param=False):
    from ._backends.registry import backend_for
    from ._tensor import make_tensor

    storage = backend_for(device.type).allocator.from_shared_handle(handle, device)
    t = make_tensor(storage, shape, stride, offset, dtype, device)
    if is_param:
        return mindtorch.nn.Parameter(t, requires_grad)
    return t.requires_grad_(requires_grad)


def _reduce_tensor(t):
    if t.requires_grad and not t.is_leaf:
        raise RuntimeError(
            "Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd "
            "does not support crossing process boundaries.  If you just want to transfer the "
            "data, call detach() on the tensor before serializing (e.g., putting it on the queue)."
        )
    allocator = t._storage._allocator
    if getattr(allocator, "shared_handle", None) is None:
        return t.__reduce_ex__(2)  # device memory: by value
    if not t._storage.is_shared():
        t.share_memory_()
    return _rebuild_shared, (
        allocator.shared_handle(t._storage),
        t.device,
        tuple(t._shape),
        tuple(t._stride),
        t._offset,
        t.dtype,
        t.requires_grad,
        isinstance(t, mindtorch.nn.Parameter),
    )


def init_reductions():
    ForkingPickler.register(mindtorch.Tensor, _reduce_tensor)
    ForkingPickler.register(mindtorch.nn.Parameter, _reduce_tensor)


init_reductions()


# -- spawn ---------------------------------------------------------------------------------------------


class ProcessException(Exception):
    def __init__(self, msg, error_index, pid):
        super().__init__(msg)
        self.msg, self.error_index, self.pid = msg, error_index, pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid)


class ProcessRaisedException(ProcessException):
    """A spawned process raised; the message holds its traceback."""


class ProcessExitedException(ProcessException):
    """A spawned process exited with a non-zero code or a signal."""

    def __init__(self, msg, error_index, pid, exit_code=None, signal_name=None):
        super().__init__(msg, error_index, pid)
        self.exit_code, self.signal_name = exit_code, signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid, self.exit_code, self.signal_name)


def _wrap(fn, i, args, error_queue):
    import traceback

    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass
    except Exception:
        error_queue.put(traceback.format_exc())
        raise SystemExit(1) from None


class ProcessContext:
    def __init__(self, processes, error_queues):
        self.processes, self.error_queues = processes, error_queues

    def pids(self):
        return [p.pid for p in self.processes]

    def join(self, timeout=None):
        """Wait for the processes; True when all ended well, raises on the first that failed."""
        import time

        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            alive = False
            for i, p in enumerate(self.processes):
                p.join(0.05)
                if p.exitcode is None:
                    alive = True
                elif p.exitcode != 0:
                    self._fail(i, p)
            if not alive:
                return True
            if deadline is not None and time.monotonic() >= deadline:
                return False

    def _fail(self, i, p):
        for other in self.processes:
            if other.is_alive():
                other.terminate()
        q = self.error_queues[i]
        if not q.empty():
            raise ProcessRaisedException(
                f"\n\n-- Process {i} terminated with the following error:\n{q.get()}", i, p.pid
            )
        if p.exitcode < 0:
            import signal

            name = signal.Signals(-p.exitcode).name
            raise ProcessExitedException(f"process {i} terminated with signal {name}", i, p.pid, signal_name=name)
        raise ProcessExitedException(
            f"process {i} terminated with exit code {p.exitcode}", i, p.pid, exit_code=p.exitcode
        )


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    ctx = multiprocessing.get_context(start_method)
    processes, queues = [], []
    for i in range(nprocs):
        q = ctx.SimpleQueue()
        p = ctx.Process(target=_wrap, args=(fn, i, args, q), daemon=daemon)
        p.start()
        processes.append(p)
        queues.append(q)
    context = ProcessContext(processes, queues)
    if not join:
        return context
    while not context.join():
        pass
    return None


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Run fn(i, *args) in nprocs new processes (i = 0 .. nprocs-1); with join, wait and raise if any fails."""
    return start_processes(fn, args, nprocs, join, daemon, start_method)
