"""mindtorch.accelerator: the current accelerator (torch.accelerator).

The accelerator is the first loaded backend plugin, other than cpu and meta, whose device is
available (npu with mindtorch-npu on an Ascend host); without one the answers are PyTorch's on
a CPU-only build: no accelerator, zero devices.
"""

from ._device import device as _device

_HOST = ("cpu", "meta")
_NONE = "Cannot access accelerator device when none is available."


def _backend():
    from ._backends.registry import BACKENDS, load_deferred

    load_deferred()
    for name in sorted(BACKENDS):
        b = BACKENDS[name]
        if name not in _HOST and b.is_available():
            return b
    return None


def is_available():
    return _backend() is not None


def current_accelerator(check_available=False):
    b = _backend()
    return None if b is None else _device(b.device_type)


def device_count():
    b = _backend()
    return 0 if b is None else b.device_count()


def _require():
    b = _backend()
    if b is None:
        raise RuntimeError(_NONE)
    return b


def synchronize(device=None):
    b = _require()
    b.synchronize(None if device is None else _device(device).index)


def current_device_index():
    _require()
    return 0


current_device_idx = current_device_index


def set_device_index(device):
    _require()


set_device_idx = set_device_index
