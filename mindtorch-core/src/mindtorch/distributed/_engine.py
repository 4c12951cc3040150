"""The engine contracts of mindtorch.distributed.

Every process group moves its tensors through one engine. A backend implements `CollectiveEngine`
(mindtorch-npu's hccl engine; a device plugin offers a factory through the hook
mindtorch_distributed_backends, or a user registers one with `Backend.register_backend`).
distributed_c10d calls each group's engine through `GroupEngine`: the mpi engine implements it
directly, and `PluginEngine` serves it from a backend's CollectiveEngine.
"""
from datetime import timedelta
from typing import Optional, Protocol


class DistBackendError(RuntimeError):
    """A failure inside the collective engine (a peer died, a wait timed out)."""


def timeout_seconds(timeout):
    """A timeout given as a timedelta (as PyTorch takes it), in seconds."""
    if not isinstance(timeout, timedelta):
        raise TypeError(f"Expected timeout argument to be of type datetime.timedelta, got {type(timeout).__name__}")
    return timeout.total_seconds()


class Work(Protocol):
    """A started operation, returned by every engine method."""

    def wait(self, timeout: Optional[timedelta] = None) -> bool:
        """Block until the operation is done (a device engine may instead order the current stream after
        it), or raise its error; True."""

    def is_completed(self) -> bool:
        """Whether the operation has finished, without blocking."""

    def is_success(self) -> bool:
        """Whether it has finished without error."""

    def exception(self) -> Optional[BaseException]:
        """The error it failed with, or None."""

    def result(self) -> list:
        """Wait, then return the outputs (mindtorch's engines return [])."""


class CollectiveEngine(Protocol):
    """What a backend's collective engine implements.

    A factory `factory(comm, timeout)` builds one per process group: `comm` is the group's mpi4py
    communicator (rank, size, and a channel for bootstrap data such as a root id), `timeout` the
    group's timeout in seconds or None. Every collective takes tensors of `device_type`, starts the
    operation and returns a `Work`. `op` is a ReduceOp name ("sum", "avg", "product", "min", "max");
    roots and peers are ranks within the group. mindtorch.distributed checks the arguments before it
    calls, composes gather and the tensor-list forms from these methods, and bumps the version of each
    tensor written (autograd sees an in-place write).
    """

    device_type: str

    def all_reduce(self, tensor, op) -> Work:
        """Reduce `tensor` over the group; every rank receives the result in `tensor`."""

    def broadcast(self, tensor, root) -> Work:
        """Copy the root's `tensor` into every rank's `tensor`."""

    def reduce(self, tensor, root, op) -> Work:
        """Reduce `tensor` over the group into the root's `tensor`."""

    def all_gather_into_tensor(self, output, input) -> Work:
        """Every rank's `input`, in rank order, into `output` (group size times its elements)."""

    def reduce_scatter_tensor(self, output, input, op) -> Work:
        """Reduce `input` (group size times `output`'s elements) over the group; rank k receives
        the k-th chunk in `output`."""

    def scatter(self, output, packed, root) -> Work:
        """The root's `packed` (one stacked row per rank; None on other ranks): row k into rank k's
        `output`."""

    def send(self, tensor, peer) -> Work:
        """Send `tensor` to group rank `peer`."""

    def recv(self, tensor, peer) -> Work:
        """Receive into `tensor` from group rank `peer`."""

    def barrier(self) -> Work:
        """Wait until every rank of the group has arrived."""

    def destroy(self) -> None:
        """Release the engine's resources (the group is being destroyed); no call follows."""


class GroupEngine(Protocol):
    """What distributed_c10d calls on a process group's engine, once it has checked the arguments.

    The CollectiveEngine collectives with `async_op` (the caller waits on the Work when False, so an
    engine may run a blocking operation instead) and message tags, plus the forms the API offers beyond
    them. Every tensor an engine writes has its version bumped, as after an in-place op.
    """

    device_type: str

    def all_reduce(self, tensor, op, async_op) -> Work: ...

    def broadcast(self, tensor, root, async_op) -> Work: ...

    def reduce(self, tensor, root, op, async_op) -> Work: ...

    def all_gather(self, outputs, input, async_op) -> Work:
        """Rank k's `input` into `outputs[k]` on every rank."""

    def all_gather_into_tensor(self, output, input, async_op) -> Work: ...

    def reduce_scatter_tensor(self, output, input, op, async_op) -> Work: ...

    def gather(self, input, outputs, root, async_op) -> Work:
        """Rank k's `input` into the root's `outputs[k]`; `outputs` is None on other ranks."""

    def scatter(self, output, packed, root, async_op) -> Work: ...

    def all_to_all_single(self, output, input, output_split_sizes, input_split_sizes, async_op) -> Work:
        """Rank r's k-th dim-0 block of `input` into rank k's r-th block of `output` (blocks of equal
        size, or of the given sizes)."""

    def barrier(self, async_op) -> Work: ...

    def send(self, tensor, peer, tag) -> Work: ...

    def recv(self, tensor, peer, tag) -> Work:
        """Start receiving into `tensor` from group rank `peer` (None: from any rank)."""

    def recv_wait(self, tensor, peer, tag) -> int:
        """Receive into `tensor` and wait for it; the sender's group rank."""

    def destroy(self) -> None: ...
