"""The engine contracts of mindtorch.distributed.

Every process group moves its tensors through one engine. A backend implements `CollectiveEngine`
(mindtorch.plugins.protocols: mindtorch-npu's hccl engine; a device plugin offers a factory through
the hook mindtorch_distributed_backends, or a user registers one with `Backend.register_backend`).
distributed_c10d calls each group's engine through `GroupEngine`: the mpi engine implements it
directly, and `PluginEngine` serves it from a backend's CollectiveEngine.
"""

from datetime import timedelta
from typing import Protocol

from ..plugins.protocols import CollectiveEngine, Work  # noqa: F401  (the backend's side of the contract)


class DistError(RuntimeError):
    """The base of the errors of mindtorch.distributed's machinery."""


class DistBackendError(DistError):
    """A failure inside the collective engine (a peer died, a wait timed out)."""


class DistStoreError(DistError):
    """The processes of a group could not meet: a peer did not start within the timeout."""


class HostWork:
    """What the Works of the cpu engines share: a failure raises from `wait`, so `exception` is None;
    no futures. A subclass gives is_completed, wait and `backend_name`."""

    backend_name = ""

    def is_success(self):
        return self.is_completed()

    def result(self):
        self.wait()
        return []

    def exception(self):
        return None

    def get_future(self):
        raise RuntimeError(f"Work.get_future is not supported by the {self.backend_name} backend")


def timeout_seconds(timeout):
    """A timeout given as a timedelta (as PyTorch takes it), in seconds."""
    if not isinstance(timeout, timedelta):
        raise TypeError(f"Expected timeout argument to be of type datetime.timedelta, got {type(timeout).__name__}")
    return timeout.total_seconds()


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
