"""Storage: one block of device memory from that device's allocator.

`data` is the backend's handle for the block (a NumPy buffer on the CPU, a
device address on an accelerator, None on meta). Tensors are strided views
of a storage; several tensors may share one.
"""


class _ByteCount(int):
    """An int that can also be called: backends read `storage.nbytes` as a number, while PyTorch's
    UntypedStorage API spells it `storage.nbytes()`."""

    __slots__ = ()

    def __call__(self):
        return int(self)


class Storage:
    __slots__ = ("device", "nbytes", "data", "_allocator", "__weakref__")

    def __init__(self, device, nbytes, data, allocator):
        self.device = device
        self.nbytes = _ByteCount(nbytes)
        self.data = data
        self._allocator = allocator

    def __del__(self):
        allocator = self._allocator
        if allocator is not None:
            allocator.free(self)

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


def share_storages(storages):
    """Move storages into memory other processes can map (their allocator's `share`; a device whose
    memory is not host memory has none, and its storages stay as they are, as CUDA's do in PyTorch).
    Tensors cache a host view of their storage's old memory; those caches are dropped, found in one pass
    over the tensors that refer to the moved storages."""
    moved = [st for st in storages if getattr(st._allocator, "share", None) is not None and not st.is_shared()]
    for st in moved:
        st._allocator.share(st)
    if moved:
        import gc

        import mindtorch  # Tensor sits above Storage: bound through the package

        for ref in gc.get_referrers(*moved):
            if isinstance(ref, mindtorch.Tensor):
                ref._np = None


class VersionCounter:
    """Shared by a tensor and all its views; bumped by every in-place op."""

    __slots__ = ("value",)

    def __init__(self, value=0):
        self.value = value
