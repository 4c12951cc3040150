"""Storage: one block of device memory from that device's allocator.

`data` is the backend's handle for the block (a NumPy buffer on the CPU, a
device address on an accelerator, None on meta). Tensors are strided views
of a storage; several tensors may share one.
"""


class Storage:
    __slots__ = ("device", "nbytes", "data", "_allocator", "__weakref__")

    def __init__(self, device, nbytes, data, allocator):
        self.device = device
        self.nbytes = nbytes
        self.data = data
        self._allocator = allocator

    def __del__(self):
        allocator = self._allocator
        if allocator is not None:
            allocator.free(self)

    def size(self):
        return self.nbytes

    def data_ptr(self):
        return self._allocator.data_ptr(self) if self._allocator is not None else 0

    def __repr__(self):
        return f"Storage(device={self.device}, nbytes={self.nbytes})"


class VersionCounter:
    """Shared by a tensor and all its views; bumped by every in-place op."""

    __slots__ = ("value",)

    def __init__(self, value=0):
        self.value = value
