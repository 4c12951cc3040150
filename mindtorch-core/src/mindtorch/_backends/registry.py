"""The resolved backends: one plain record per device type.

Filled once by the loader; read by the dispatcher, Tensor.to and the
device modules. A leaf: it imports nothing of mindtorch. What to do about a
device type no loaded backend has (load the plugins deferred at import, say
why it is missing) is the loader's, which hands it in through set_loader_hooks.
"""

from typing import Any


class DeviceBackend:
    """Everything one plugin said about one device type, resolved."""

    def __init__(self, device_type, distribution, version, plugin):
        self.device_type = device_type
        self.distribution = distribution
        self.version = version
        self.plugin = plugin
        self.allocator: Any = None  # plugins.protocols.Allocator
        self.copy: Any = None  # plugins.protocols.CopyRoutines
        self.kernels: dict = {}
        self._is_available = None
        self._device_count = None
        self._synchronize = None
        self._generator = None
        self.timing_event = None  # index -> an event timing device work for the profiler, or None
        self._has_generator = None
        self.module = None
        self.distributed = {}  # backend name -> collective engine factory (mindtorch.distributed)
        self.host_fallback = False  # what the plugin opted into: False, True or op names
        self.fallback_ops = set()  # ops this device runs through the host (coverage shows them)

    def is_available(self):
        return bool(self._is_available()) if self._is_available else False

    def device_count(self):
        return int(self._device_count()) if self._device_count else 0

    def synchronize(self, index=None):
        if self._synchronize:
            self._synchronize(index)

    def has_generator(self):
        """Whether the device draws random numbers (the generator hook is optional)."""
        if self._has_generator is None:
            try:
                self._has_generator = self._generator is not None and self._generator(0) is not None
            except Exception:
                self._has_generator = False
        return self._has_generator

    def new_generator(self, index):
        state = self._generator(index) if self._generator is not None else None
        if state is None:
            raise RuntimeError(f"the {self.device_type} backend provides no random generator")
        return state

    def to_host(self, tensor):
        return self.copy.to_host(tensor)

    def current_device(self, device):
        """`device` as a backend's hooks see it: with its index (the current one when the user gave none; cpu
        and meta carry no index), so that `mydev` and `mydev:0` are one device to every backend."""
        if device.type in ("cpu", "meta"):
            return device if device.index is None else type(device)(device.type)
        if device.index is not None:
            return device
        mod = self.module
        index = mod.current_device() if mod is not None and hasattr(mod, "current_device") else 0
        return type(device)(device.type, index)

    def from_host(self, array, dtype, device, non_blocking=False):
        device = self.current_device(device)
        if non_blocking and self._takes_non_blocking():
            return self.copy.from_host(array, dtype, device, non_blocking=True)
        return self.copy.from_host(array, dtype, device)

    def _takes_non_blocking(self):
        """Whether the backend's from_host accepts non_blocking= (an optional extension)."""
        takes = getattr(self, "_non_blocking", None)
        if takes is None:
            import inspect

            try:
                takes = "non_blocking" in inspect.signature(self.copy.from_host).parameters
            except (TypeError, ValueError):
                takes = False
            self._non_blocking = takes
        return takes

    def copy_from_host(self, dst, array):
        return self.copy.copy_from_host(dst, array)


BACKENDS: dict[str, DeviceBackend] = {}
# device type -> distribution name of the plugin that ships it, for messages
KNOWN_DISTRIBUTIONS = {"cpu": "mindtorch-cpu", "meta": "mindtorch-meta", "npu": "mindtorch-npu"}


# set by the loader: () -> device types loaded now from the plugins deferred at import;
# device type -> the exception that says why no loaded backend provides it
_load_deferred = None
_why_missing = None


def set_loader_hooks(load_deferred, why_missing):
    global _load_deferred, _why_missing
    _load_deferred, _why_missing = load_deferred, why_missing


def load_deferred():
    """Load the plugins whose import was under way when mindtorch loaded; True if any loaded."""
    return _load_deferred is not None and bool(_load_deferred())


def no_backend_error(device_type):
    if _why_missing is not None:
        return _why_missing(device_type)
    return RuntimeError(f"no installed mindtorch backend provides the device '{device_type}'")


def backend_for(device_type):
    b = BACKENDS.get(device_type)
    if b is None:
        if load_deferred():
            return backend_for(device_type)
        raise no_backend_error(device_type)
    return b
