"""The CPU allocator: host memory from NumPy, with byte accounting."""
import numpy as np

from mindtorch.plugins import Storage


class CPUAllocator:
    def __init__(self):
        self.in_use = 0
        self.peak = 0

    def allocate(self, nbytes, device):
        try:
            buf = np.empty(nbytes, np.uint8)
        except (MemoryError, ValueError):  # PyTorch reports a failed host allocation as a RuntimeError
            raise RuntimeError(f"DefaultCPUAllocator: not enough memory: you tried to allocate {nbytes} bytes.") from None
        self.in_use += nbytes
        if self.in_use > self.peak:
            self.peak = self.in_use
        return Storage(device, nbytes, buf, self)

    def free(self, storage):
        self.in_use -= storage.nbytes

    def bytes_in_use(self, device=None):
        return self.in_use

    def max_bytes_in_use(self, device=None):
        return max(self.peak, self.in_use)

    def data_ptr(self, storage):
        return storage.data.__array_interface__["data"][0] if storage.data is not None else 0


ALLOCATOR = CPUAllocator()
