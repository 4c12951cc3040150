"""torch.Stream and torch.Event: device-generic streams and events. An accelerator's are its device
module's (mindtorch.npu.Stream / Event, from its plugin); the host devices (cpu, meta) have one
trivial stream that is always done, and no events, as in PyTorch."""

from . import accelerator
from ._device import device as _device

_HOST = ("cpu", "meta")
_NO_EVENTS = "{} backend doesn't support events."
# PyTorch's DeviceType numbers, which Stream.device_type answers; a plugin's device is PrivateUse1
_TYPE_CODES = {"cpu": 0, "cuda": 1, "xpu": 12, "mps": 13, "meta": 14, "hpu": 15, "mtia": 19}
_PRIVATE_USE1 = 20


def _resolve(device):
    """The device a Stream/Event is for: the current accelerator (else cpu) by default, an index
    names an accelerator device."""
    if device is None:
        acc = accelerator.current_accelerator()
        return _device("cpu") if acc is None else _device(acc.type, accelerator.current_device_index())
    if isinstance(device, int) and not isinstance(device, bool):
        acc = accelerator.current_accelerator()
        if acc is None:
            raise RuntimeError("Cannot access accelerator device when none is available.")
        return _device(acc.type, device)
    return device if isinstance(device, _device) else _device(device)


def _device_module(dev):
    """The accelerator's device module (mindtorch.npu), which must offer Stream and Event."""
    import mindtorch

    module = getattr(mindtorch, dev.type, None)
    available = getattr(module, "is_available", None)
    if module is None or not hasattr(module, "Stream") or available is None or not available():
        raise RuntimeError(f"PyTorch is not linked with support for {dev.type} devices")
    return module


class Stream:
    """Stream(device=None, *, priority=0): an in-order queue of work on a device."""

    def __init__(self, device=None, *, priority=0):
        dev = _resolve(device)
        self.priority = priority
        if dev.type in _HOST:
            self._impl, self._type, self.device_index = None, dev.type, -1
        else:
            self._impl = _device_module(dev).Stream(dev, priority)
            self._type, self.device_index = dev.type, self._impl.device_index

    @property
    def device(self):
        return _device(self._type) if self.device_index < 0 else _device(self._type, self.device_index)

    @property
    def device_type(self):
        return _TYPE_CODES.get(self._type, _PRIVATE_USE1)

    @property
    def stream_id(self):
        return 0 if self._impl is None else int(self._impl.handle())

    def query(self):
        return True if self._impl is None else self._impl.query()

    def synchronize(self):
        if self._impl is not None:
            self._impl.synchronize()

    def record_event(self, event=None):
        event = Event(self.device) if event is None else event
        event.record(self)
        return event

    def wait_event(self, event):
        if self._impl is not None and event._impl is not None:  # a host event has nothing to wait for
            self._impl.wait_event(event._impl)

    def wait_stream(self, stream):
        self.wait_event(stream.record_event())

    def __enter__(self):
        if self._impl is not None:
            import mindtorch

            self._context = getattr(mindtorch, self._type).stream(self._impl)
            self._context.__enter__()
        return self

    def __exit__(self, *exc):
        context = self.__dict__.pop("_context", None)
        if context is not None:
            context.__exit__(*exc)
        return False

    def __eq__(self, other):
        return isinstance(other, Stream) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def _key(self):
        return (self._type, self.device_index, self.stream_id)

    def __repr__(self):
        return f"torch.Stream device_type={self._type}, device_index={self.device_index}, stream_id={self.stream_id}"


class Event:
    """Event(device=None, *, enable_timing=False, blocking=False, interprocess=False): a marker
    recorded on a stream, to wait on, query, synchronize, and time (elapsed_time, in ms)."""

    def __init__(self, device=None, *, enable_timing=False, blocking=False, interprocess=False):
        dev = _resolve(device)
        self.enable_timing, self.blocking, self.interprocess = enable_timing, blocking, interprocess
        if dev.type in _HOST:
            self._impl, self._type, self.device_index = None, dev.type, -1
        else:
            self._impl = _device_module(dev).Event(
                enable_timing=enable_timing, blocking=blocking, interprocess=interprocess
            )
            self._type, self.device_index = dev.type, dev.index if dev.index is not None else 0

    @property
    def device(self):
        return _device(self._type) if self.device_index < 0 else _device(self._type, self.device_index)

    @property
    def event_id(self):
        return 0 if self._impl is None else int(self._impl.npu_event or 0)

    def _require_events(self):
        if self._impl is None:
            raise RuntimeError(_NO_EVENTS.format(self._type))

    def record(self, stream=None):
        self._require_events()  # on the device's current stream unless one is given
        self._impl.record(None if stream is None else stream._impl)

    def wait(self, stream=None):
        if self._impl is not None:
            self._impl.wait(None if stream is None else stream._impl)

    def query(self):
        return True if self._impl is None else self._impl.query()

    def synchronize(self):
        if self._impl is not None:
            self._impl.synchronize()

    def elapsed_time(self, end_event):
        if not (self.enable_timing and end_event.enable_timing):
            raise ValueError("Both events must be created with argument 'enable_timing=True'.")
        self._require_events()
        return self._impl.elapsed_time(end_event._impl)

    def __repr__(self):
        return (
            f"torch.Event device_type={self._type}, device_index={self.device_index}, "
            f"event_flag={int(self.enable_timing)}, event_id={self.event_id}"
        )
