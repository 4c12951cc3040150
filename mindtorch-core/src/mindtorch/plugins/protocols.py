"""The plugin contract as types: what the objects a backend's hooks return must offer.

These are `typing.Protocol` classes, so a backend never subclasses them: any object with the
methods fits. They are the one written form of the contract: the loader checks a loaded
backend's allocator and copy routines against them, and mypy checks core against them. The
hook docstrings in hookspec.py say when each object is asked for.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Protocol, runtime_checkable

if TYPE_CHECKING:
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


def protocol_methods(protocol: type) -> tuple[str, ...]:
    """The methods a protocol requires, in the order written (what the loader checks for)."""
    return tuple(name for name, value in vars(protocol).items()
                 if callable(value) and not name.startswith("_"))
