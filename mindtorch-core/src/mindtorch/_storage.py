"""Storage: one block of device memory from that device's allocator.

`data` is the backend's handle for the block (a NumPy buffer on the CPU, a
device address on an accelerator, None on meta). Tensors are strided views
of a storage; several tensors may share one.
"""

import sys

from ._accel_load import ACCEL
from ._backends.registry import backend_for
from ._device import device


class _ByteCount(int):
    """An int that can also be called: backends read `storage.nbytes` as a number, while PyTorch's
    UntypedStorage API spells it `storage.nbytes()`."""

    __slots__ = ()

    def __call__(self):
        return int(self)


class _PyStorageBase:
    """Storage's slots, constructor and finalizer; the reference for mindtorch._accel.StorageBase, which
    frees a dying storage without a Python frame (every result of every op dies through here)."""

    __slots__ = ("device", "nbytes", "data", "_allocator", "__weakref__")

    def __init__(self, device, nbytes, data, allocator):
        self.device = device
        self.nbytes = _ByteCount(nbytes)
        self.data = data
        self._allocator = allocator

    def __del__(self):
        allocator = getattr(self, "_allocator", None)  # unset when __init__ failed: nothing to give back
        if allocator is not None:
            allocator.free(self)


if ACCEL is not None:
    ACCEL.setup_storage(_ByteCount)
    _StorageBase = ACCEL.StorageBase
else:
    _StorageBase = _PyStorageBase


# the Python versions of what mindtorch._accel may replace: the reference its tests compare with
PYTHON_TWINS = {"StorageBase": _PyStorageBase}


class Storage(_StorageBase):
    __slots__ = ()

    def size(self):
        return int(self.nbytes)

    def __len__(self):
        return int(self.nbytes)

    def element_size(self):
        return 1

    def data_ptr(self):
        return self._allocator.data_ptr(self) if self._allocator is not None else 0

    def is_shared(self):
        shared = getattr(self._allocator, "is_shared", None)
        return bool(shared and shared(self))

    def share_memory_(self):
        share_storages([self])
        return self

    def is_pinned(self, device="cuda"):
        return False

    def __repr__(self):
        return f"Storage(device={self.device}, nbytes={self.nbytes})"

    @staticmethod
    def from_file(filename, shared=False, nbytes=0):
        """`nbytes` bytes mapped from a file (UntypedStorage.from_file): see map_file."""
        return map_file(filename, shared, nbytes)


def map_file(filename, shared, nbytes):
    """An UntypedStorage of `nbytes` bytes mapped from a file (cpu): with `shared`, writes reach the file
    (which is created or grown to the size); otherwise the mapping is private, copy-on-write."""
    import os

    import numpy as np

    try:
        if shared and not os.path.exists(filename):
            open(filename, "wb").close()
        have = os.stat(filename).st_size
        if not os.access(filename, os.R_OK | (os.W_OK if shared else 0)):
            raise PermissionError(13, os.strerror(13))
    except OSError as e:
        how = "read-write" if shared else "read-only"
        raise RuntimeError(f"unable to open file <{filename}> in {how} mode: {e.strerror} ({e.errno})") from None
    if have < nbytes:
        if not shared:
            raise RuntimeError(f"file <{filename}> size <{have}> is smaller than the required mapping size <{nbytes}>")
        os.truncate(filename, nbytes)
    data = np.memmap(filename, np.uint8, "r+" if shared else "c", shape=(nbytes,)) if nbytes else np.empty(0, np.uint8)
    return backend_for("cpu").allocator.adopt(data.view(np.ndarray), device("cpu"))


# How share_memory_ makes its blocks (torch.multiprocessing's sharing strategy): "file_descriptor", a
# block with no name that travels as an open descriptor, or "file_system", a named file other
# processes open by name
sharing = {"strategy": "file_descriptor"}


def share_storages(storages, tensors=()):
    """Move storages into memory other processes can map (their allocator's `share`; a device whose
    memory is not host memory has none, and its storages stay as they are, as CUDA's do in PyTorch).
    Tensors cache a host view of their storage's old memory, and those caches are dropped. `tensors`
    are the ones known to view the storages: when nothing else holds a storage, their caches are
    the only ones; otherwise the holders are found in one pass over every object."""
    moved = [st for st in storages if getattr(st._allocator, "share", None) is not None and not st.is_shared()]
    strategy = sharing["strategy"]
    for st in moved:
        st._allocator.share(st, strategy)
    unknown = []
    for st in moved:
        holders = [t for t in tensors if t._storage is st]
        if _refs_beyond_frame(st) == len(holders):
            for t in holders:
                t._np = None
        else:
            unknown.append(st)
    if unknown:
        import gc

        import mindtorch  # Tensor sits above Storage: bound through the package

        for ref in gc.get_referrers(*unknown):
            if isinstance(ref, mindtorch.Tensor):
                ref._np = None


def _refs_beyond_frame(st):
    """References to `st` besides those of share_storages' own frame (its two lists and loop name)."""
    return sys.getrefcount(st) - _FRAME_REFS


def _frame_refs():
    probe = object()
    storages = [probe]
    moved = list(storages)
    for st in moved:
        return sys.getrefcount(st)
    return 0


_FRAME_REFS = _frame_refs()  # `probe` stands for _refs_beyond_frame's argument


class VersionCounter:
    """Shared by a tensor and all its views; bumped by every in-place op."""

    __slots__ = ("value",)

    def __init__(self, value=0):
        self.value = value
