"""The plugin contract as types: what the objects a backend's hooks return must offer.

These are `typing.Protocol` classes, so a backend never subclasses them: any object with the
methods fits. They are the one written form of the contract: the loader checks a loaded
backend's allocator and copy routines against them, and mypy checks core against them. The
hook docstrings in hookspec.py say when each object is asked for.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from datetime import timedelta

    import numpy

    from .._device import device as Device
    from .._dtype import dtype as DType
    from .._storage import Storage
    from .._tensor import Tensor


@runtime_checkable
class Allocator(Protocol):
    """Device memory for storages (`mindtorch_allocator`)."""

    def allocate(self, nbytes: int, device: Device) -> Storage:
        """A new storage of at least `nbytes` bytes on `device`; raises OutOfMemoryError when full."""
        ...

    def free(self, storage: Storage) -> None:
        """Release a storage; called once, when the last tensor viewing it dies."""
        ...

    def bytes_in_use(self, device: Device) -> int:
        """Bytes handed out and not yet freed on `device`."""
        ...

    def data_ptr(self, storage: Storage) -> int:
        """The storage's address as an integer (`Tensor.data_ptr()` adds the byte offset)."""
        ...


@runtime_checkable
class CachingAllocator(Allocator, Protocol):
    """What a caching allocator offers on top (optional: `torch.<device>.empty_cache()` and the
    memory statistics use it when present)."""

    def empty_cache(self) -> None: ...

    def bytes_reserved(self, device: Device) -> int: ...

    def max_bytes_in_use(self, device: Device) -> int: ...


@runtime_checkable
class SharingAllocator(Allocator, Protocol):
    """What an allocator of host-visible memory offers on top (optional: `Tensor.share_memory_` and
    mindtorch.multiprocessing use it when present; other devices' tensors travel by value)."""

    def share(self, storage: Storage, strategy: str) -> None:
        """Move the storage's bytes into memory other processes can map, in place. `strategy` is
        torch.multiprocessing's: "file_descriptor" or "file_system"."""
        ...

    def is_shared(self, storage: Storage) -> bool: ...

    def shared_handle(self, storage: Storage) -> Any:
        """What another process needs to map the storage, pickled by multiprocessing's ForkingPickler;
        it keeps the memory alive until received."""
        ...

    def from_shared_handle(self, handle: Any, device: Device) -> Storage:
        """The storage another process shared, mapped here (the same Storage for a block mapped twice)."""
        ...


@runtime_checkable
class CopyRoutines(Protocol):
    """Copies between the host and a device (`mindtorch_copy_routines`)."""

    def to_host(self, tensor: Tensor) -> numpy.ndarray:
        """An array of the tensor's shape holding its elements (bfloat16 as uint16 bits)."""
        ...

    def from_host(self, array: numpy.ndarray, dtype: DType, device: Device) -> Tensor:
        """A new contiguous tensor on `device` holding `array` (may also take `non_blocking`)."""
        ...

    def copy_from_host(self, dst: Tensor, array: numpy.ndarray) -> None:
        """Write an array of dst's shape into the possibly strided `dst`."""
        ...


@runtime_checkable
class GeneratorState(Protocol):
    """A device's random state (`mindtorch_generator`), wrapped by `mindtorch.Generator`."""

    def manual_seed(self, seed: int) -> Any: ...

    def seed(self) -> int: ...

    def initial_seed(self) -> int: ...

    def get_state(self) -> Any:
        """The state as the backend defines it; `set_state` accepts what this returns."""
        ...

    def set_state(self, state: Any) -> Any: ...


class Kernel(Protocol):
    """`kernel(meta, *args)`: `meta` is what the op's shape rule returned (a TensorMeta or a tuple of
    them), `args` the bound arguments in schema order; returns the output tensor(s)."""

    def __call__(self, meta: Any, /, *args: Any) -> Any: ...


KernelTable = dict[str, Callable[..., Any]]


class Work(Protocol):
    """A started operation, returned by every engine method."""

    def wait(self, timeout: timedelta | None = None) -> bool:
        """Block until the operation is done (a device engine may instead order the current stream after
        it), or raise its error; True."""

    def is_completed(self) -> bool:
        """Whether the operation has finished, without blocking."""

    def is_success(self) -> bool:
        """Whether it has finished without error."""

    def exception(self) -> BaseException | None:
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


def protocol_methods(protocol: type) -> tuple[str, ...]:
    """The methods a protocol requires, in the order written (what the loader checks for)."""
    return tuple(name for name, value in vars(protocol).items() if callable(value) and not name.startswith("_"))
