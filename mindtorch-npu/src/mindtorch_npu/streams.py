"""Streams and events, as torch.cuda / torch.npu users know them."""

import weakref

from mindtorch.plugins import device as Device

from .state import RUNTIME

_user_streams = weakref.WeakSet()


def _index(device):
    if device is None:
        return RUNTIME.current_device()
    if isinstance(device, int):
        return RUNTIME.valid_index(device)
    d = device if isinstance(device, Device) else Device(device)
    if d.type != "npu":
        raise ValueError(f"Expected an npu device, but got: {d}")
    return RUNTIME.current_device() if d.index is None else RUNTIME.valid_index(d.index)


class Stream:
    """An in-order queue of device work. `Stream()` creates one on the current device;
    the default stream of device i is `default_stream(i)` (handle 0, ACL's NULL stream)."""

    def __init__(self, device=None, priority=0, *, _handle=None):
        RUNTIME.ensure()
        self.device_index = _index(device)
        self.priority = priority
        if _handle is None:
            self.npu_stream = RUNTIME.create_stream(self.device_index)
            self._owned = True
            _user_streams.add(self)
        else:
            self.npu_stream, self._owned = _handle, False

    @property
    def device(self):
        return Device("npu", self.device_index)

    def handle(self):
        """The ACL handle; a destroyed stream is an error (its NULL handle would mean the default stream)."""
        if self.npu_stream is None:
            raise RuntimeError(f"{self!r} was destroyed and cannot be used")
        return self.npu_stream

    def query(self):
        return RUNTIME.stream_done(self.device_index, self.handle())

    def synchronize(self):
        RUNTIME.synchronize_stream(self.device_index, self.handle())

    def wait_event(self, event):
        event._ensure(self.device_index)
        RUNTIME.use(self.device_index)
        RUNTIME.stream_wait_event(self.handle(), event.npu_event)

    def wait_stream(self, stream):
        self.wait_event(stream.record_event())

    def record_event(self, event=None):
        event = Event() if event is None else event
        event.record(self)
        return event

    def destroy(self):
        if self._owned and self.npu_stream is not None and RUNTIME.state == "ready":
            RUNTIME.destroy_stream(self.device_index, self.npu_stream)
        self.npu_stream = None

    def __del__(self):
        try:
            self.destroy()
        except Exception:  # interpreter teardown: the runtime may be gone
            pass

    def __eq__(self, other):
        return isinstance(other, Stream) and (self.device_index, self.npu_stream) == (
            other.device_index,
            other.npu_stream,
        )

    def __hash__(self):
        return hash((self.device_index, self.npu_stream))

    def __repr__(self):
        state = "destroyed" if self.npu_stream is None else hex(self.npu_stream)
        return f"<mindtorch.npu.Stream device=npu:{self.device_index} npu_stream={state}>"


def default_stream(device=None):
    return Stream(device, _handle=0)


def current_stream(device=None):
    index = _index(device)
    return Stream(index, _handle=RUNTIME.current_stream(index))


def set_stream(stream):
    RUNTIME.set_current_stream(stream.device_index, stream.handle())


class StreamContext:
    """`with mindtorch.npu.stream(s):` makes s current on its device (and that device current)."""

    def __init__(self, stream):
        self.stream = stream

    def __enter__(self):
        s = self.stream
        if s is None:
            return None
        handle = s.handle()
        self._prev_device = RUNTIME.current_device()
        self._prev_stream = RUNTIME.current_stream(s.device_index)
        RUNTIME.set_device(s.device_index)
        RUNTIME.set_current_stream(s.device_index, handle)
        return s

    def __exit__(self, *exc):
        s = self.stream
        if s is not None:
            RUNTIME.set_current_stream(s.device_index, self._prev_stream)
            RUNTIME.set_device(self._prev_device)


def stream(s):
    return StreamContext(s)


class Event:
    """A marker in a stream: record, wait, query, synchronize, elapsed_time (ms)."""

    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        if interprocess:
            raise NotImplementedError("interprocess events are not supported by mindtorch-npu")
        self.enable_timing, self.blocking = enable_timing, blocking
        self.npu_event = None
        self.device_index = None
        self._recorded = False

    def _ensure(self, index):
        if self.npu_event is None:
            self.npu_event = RUNTIME.new_event(index, timing=self.enable_timing)
            self.device_index = index
        elif index != self.device_index:
            raise RuntimeError(f"Event device npu:{self.device_index} does not match the stream's device npu:{index}")

    def record(self, stream=None):
        stream = current_stream() if stream is None else stream
        handle = stream.handle()
        self._ensure(stream.device_index)
        RUNTIME.use(stream.device_index)
        RUNTIME.record_event(self.npu_event, handle)
        self._recorded = True

    def wait(self, stream=None):
        if self.npu_event is None:
            return  # never recorded: nothing to wait for
        (current_stream() if stream is None else stream).wait_event(self)

    def query(self):
        return True if self.npu_event is None else RUNTIME.event_done(self.npu_event)

    def synchronize(self):
        if self.npu_event is not None:
            RUNTIME.sync_event(self.npu_event)

    def elapsed_time(self, end_event):
        if not (self.enable_timing and end_event.enable_timing):
            raise RuntimeError("Both events must be created with argument 'enable_timing=True'.")
        if not (self._recorded and end_event._recorded):
            raise RuntimeError("Both events must be recorded before calculating elapsed time.")
        return RUNTIME.elapsed_ms(self.npu_event, end_event.npu_event)

    def __del__(self):
        try:
            if self.npu_event is not None and RUNTIME.state == "ready":
                RUNTIME.destroy_event(self.npu_event)
                self.npu_event = None
        except Exception:
            pass

    def __repr__(self):
        return f"<mindtorch.npu.Event {hex(self.npu_event or 0)}>"


class TimingEvent(Event):
    """A timing event of device `index` (the profiler's): `record()` marks that device's current stream."""

    def __init__(self, index):
        super().__init__(enable_timing=True)
        self.index = index

    def record(self, stream=None):
        super().record(current_stream(self.index) if stream is None else stream)


def destroy_user_streams():
    for s in list(_user_streams):
        s.destroy()
