"""Backend: a base class for the common plugin shape, one device type per plugin.

Subclass it, set `device_type`, override what your device provides, and
point your entry point at an instance:

    class MyBackend(Backend):
        device_type = "mydev"
        def allocator(self): ...
        def copy_routines(self): ...
        def kernels(self): return {"add": my_add, ...}
        fallback = True            # optional: ops without a kernel run on the host, with a warning

    backend = MyBackend()          # [project.entry-points."mindtorch.backends"] mydev = "my_pkg:backend"

The hooks below answer only for `device_type`; a plugin with several
device types, or one that prefers plain functions, implements the hooks of
hookspec.py directly instead.
"""

from .hookspec import PLUGIN_API_VERSION, hookimpl


class Backend:
    device_type = None
    api_version = PLUGIN_API_VERSION
    # host fallback for bring-up: False, True (every op without a kernel) or a set of op names;
    # override host_fallback() to decide at load time (e.g. from an environment variable)
    fallback = False

    # -- what a device provides (override) --------------------------------------------
    def allocator(self):
        raise NotImplementedError(f"{type(self).__name__} provides no allocator")

    def copy_routines(self):
        raise NotImplementedError(f"{type(self).__name__} provides no copy routines")

    def kernels(self):
        return {}

    def is_available(self):
        return True

    def device_count(self):
        return 1

    def synchronize(self, index):
        return True

    def generator(self, index):
        """A random state object for device `index`, or None when the device draws no random numbers."""
        return None

    def device_module(self):
        return None

    def timing_event(self, index):
        """A new event timing work on device `index` for the profiler (see the hookspec
        mindtorch_timing_event), or None when the device cannot time its work."""
        return None

    def distributed_backends(self):
        """{backend name: engine factory} for mindtorch.distributed (see the hookspec
        mindtorch_distributed_backends for the engine's methods)."""
        return {}

    def host_fallback(self):
        """Ops that may run through the host when this device has no kernel: see `fallback`."""
        return self.fallback

    # -- the hooks, answering for this backend's device type only ---------------------------
    def _mine(self, device_type):
        return device_type == self.device_type

    @hookimpl
    def mindtorch_plugin_api_version(self):
        return self.api_version

    @hookimpl
    def mindtorch_device_types(self):
        return [self.device_type]

    @hookimpl
    def mindtorch_allocator(self, device_type):
        return self.allocator() if self._mine(device_type) else None

    @hookimpl
    def mindtorch_copy_routines(self, device_type):
        return self.copy_routines() if self._mine(device_type) else None

    @hookimpl
    def mindtorch_kernels(self, device_type):
        return self.kernels() if self._mine(device_type) else None

    @hookimpl
    def mindtorch_is_available(self, device_type):
        return self.is_available() if self._mine(device_type) else None

    @hookimpl
    def mindtorch_device_count(self, device_type):
        return self.device_count() if self._mine(device_type) else None

    @hookimpl
    def mindtorch_synchronize(self, device_type, index):
        return self.synchronize(index) if self._mine(device_type) else None

    @hookimpl
    def mindtorch_generator(self, device_type, index):
        return self.generator(index) if self._mine(device_type) else None

    @hookimpl
    def mindtorch_timing_event(self, device_type, index):
        return self.timing_event(index) if self._mine(device_type) else None

    @hookimpl
    def mindtorch_device_module(self, device_type):
        return self.device_module() if self._mine(device_type) else None

    @hookimpl
    def mindtorch_distributed_backends(self, device_type):
        return self.distributed_backends() if self._mine(device_type) else None

    @hookimpl
    def mindtorch_host_fallback(self, device_type):
        return self.host_fallback() if self._mine(device_type) else None
