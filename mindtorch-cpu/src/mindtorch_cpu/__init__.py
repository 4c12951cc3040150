"""mindtorch-cpu: the CPU device, with NumPy kernels on zero-copy strided views."""
from mindtorch.plugins import hookimpl, PLUGIN_API_VERSION

__version__ = "0.1.0"
DEVICE = "cpu"


@hookimpl
def mindtorch_plugin_api_version():
    return PLUGIN_API_VERSION


@hookimpl
def mindtorch_device_types():
    return [DEVICE]


@hookimpl
def mindtorch_allocator(device_type):
    if device_type == DEVICE:
        from .allocator import ALLOCATOR
        return ALLOCATOR


@hookimpl
def mindtorch_copy_routines(device_type):
    if device_type == DEVICE:
        from .copy import COPY
        return COPY


@hookimpl
def mindtorch_kernels(device_type):
    if device_type == DEVICE:
        from .kernels import all_kernels
        return all_kernels()


@hookimpl
def mindtorch_is_available(device_type):
    if device_type == DEVICE:
        return True


@hookimpl
def mindtorch_device_count(device_type):
    if device_type == DEVICE:
        return 1


@hookimpl
def mindtorch_synchronize(device_type, index):
    if device_type == DEVICE:
        return True


@hookimpl
def mindtorch_generator(device_type, index):
    if device_type == DEVICE:
        from .generator import CPUGenerator
        return CPUGenerator(index)
