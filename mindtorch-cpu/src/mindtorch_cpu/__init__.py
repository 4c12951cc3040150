"""mindtorch-cpu: the CPU device, with NumPy kernels on zero-copy strided views."""

from mindtorch.plugins import Backend

__version__ = "0.1.0"


class CPUBackend(Backend):
    device_type = "cpu"

    def allocator(self):
        from .allocator import ALLOCATOR

        return ALLOCATOR

    def copy_routines(self):
        from .copy import COPY

        return COPY

    def kernels(self):
        from .kernels import all_kernels

        return all_kernels()

    def generator(self, index):
        from .generator import CPUGenerator

        return CPUGenerator(index)

    def device_module(self):
        from . import module

        return module


backend = CPUBackend()
