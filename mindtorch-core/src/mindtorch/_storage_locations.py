"""Where a checkpoint's storages live: the registry of (priority, tagger, restorer) triples that
mindtorch.save asks for a storage's location tag and mindtorch.load asks to put a storage back on
its device. A backend registers its device here through `register_package`; the built-in entries
handle cpu and every device type that has a `mindtorch.<type>` device module."""

import importlib
import re

from ._backends.registry import BACKENDS
from ._storage import Storage

_registry = []  # (priority, tagger, restorer), lowest priority first


def register_package(priority, tagger, deserializer):
    """Add a tagger (storage -> tag or None) and a restorer ((storage, tag) -> storage or None),
    tried in priority order (lower first) until one returns something other than None."""
    _registry.append((priority, tagger, deserializer))
    _registry.sort(key=lambda entry: entry[0])


def _typename(storage):
    return "torch.storage.UntypedStorage" if isinstance(storage, Storage) else type(storage).__qualname__


def location_tag(storage):
    for _, tagger, _ in _registry:
        location = tagger(storage)
        if location:
            return location
    raise RuntimeError("don't know how to determine data location of " + _typename(storage))


def default_restore_location(storage, location):
    for _, _, restore in _registry:
        result = restore(storage, location)
        if result is not None:
            return result
    raise RuntimeError(f"don't know how to restore data location of {_typename(storage)} (tagged with {location})")


def _device_module(backend_name):
    import mindtorch

    module = getattr(mindtorch, backend_name, None) or BACKENDS.get(backend_name)
    if module is None:
        raise RuntimeError(
            f"The {backend_name.upper()} device module is not registered. If you are running on a CPU-only "
            "machine, please use torch.load with map_location=torch.device('cpu') to map your storages to the CPU."
        )
    return module


def _validate_device(location, backend_name):
    """The device `location` names, checked against its device module's availability and count."""
    import mindtorch

    module = _device_module(backend_name)
    dev = mindtorch.device(location)
    index = dev.index or 0
    if hasattr(module, "is_available") and not module.is_available():
        raise RuntimeError(
            f"Attempting to deserialize object on a {backend_name.upper()} device but "
            f"torch.{backend_name}.is_available() is False. If you are running on a CPU-only machine, please use "
            "torch.load with map_location=torch.device('cpu') to map your storages to the CPU."
        )
    if hasattr(module, "device_count") and index >= module.device_count():
        raise RuntimeError(
            f"Attempting to deserialize object on {backend_name.upper()} device {index} but "
            f"torch.{backend_name}.device_count() is {module.device_count()}. Please use torch.load with "
            "map_location to map your storages to an existing device."
        )
    return mindtorch.device(backend_name, index)


def validate_cuda_device(location):
    return _validate_device(location, "cuda").index


def validate_hpu_device(location):
    return _validate_device(location, "hpu").index


def _cpu_tag(storage):
    return "cpu" if storage.device.type == "cpu" else None


def _cpu_restore(storage, location):
    return storage if location == "cpu" else None


def _device_tag(storage):
    dev = storage.device
    if dev.type == "cpu":
        return None
    return dev.type if dev.index is None else f"{dev.type}:{dev.index}"


_TAG = re.compile(r"([a-z_]+)(?::([0-9]+))?")
# accelerators PyTorch tags storages with, besides those of the installed backends
_ACCELERATORS = ("cuda", "hpu", "xpu", "mtia")


def _device_restore(storage, location):
    """Restore a host storage onto the accelerator its tag names (`npu`, `npu:1`)."""
    from ._tensor import make_tensor

    m = _TAG.fullmatch(location) if isinstance(location, str) else None
    backend_name = m and m.group(1)
    if backend_name in (None, "cpu", "meta") or (backend_name not in BACKENDS and backend_name not in _ACCELERATORS):
        return None
    target = _validate_device(backend_name + (f":{m.group(2)}" if m.group(2) else ""), backend_name)
    import mindtorch

    flat = make_tensor(storage, (storage.nbytes,), (1,), 0, mindtorch.uint8, storage.device)
    return flat.to(target).untyped_storage()


def _meta_tag(storage):
    return "meta" if storage.device.type == "meta" else None


def _meta_restore(storage, location):
    if location != "meta":
        return None
    import mindtorch

    return mindtorch.empty(storage.nbytes, dtype=mindtorch.uint8, device="meta").untyped_storage()


register_package(10, _cpu_tag, _cpu_restore)
register_package(22, _meta_tag, _meta_restore)
register_package(23, _device_tag, _device_restore)


def normalize_storage_type(storage_type):
    import mindtorch

    return getattr(mindtorch, storage_type.__name__)


def storage_to_tensor_type(storage):
    """The tensor class named like the storage's class, from the same module (XStorage -> XTensor)."""
    storage_type = type(storage)
    module = importlib.import_module(storage_type.__module__)
    return getattr(module, storage_type.__name__.replace("Storage", "Tensor"))


__all__ = [
    "default_restore_location",
    "location_tag",
    "normalize_storage_type",
    "register_package",
    "storage_to_tensor_type",
    "validate_cuda_device",
    "validate_hpu_device",
]
