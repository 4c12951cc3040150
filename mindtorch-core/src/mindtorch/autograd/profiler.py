"""The op-level profiler: `profile` records every op `dispatch.call` runs (and every `record_function` range)
as a timed span on its thread, nested as the calls nest, with the op's input shapes, the memory the
backends' allocators gained or lost during it, and its device time through the backend's timing events.

While no profiler records, the dispatch path pays one test of `_profiling.ACTIVE` per op; while one records,
the generated functions leave their inline fast paths so every op reaches `dispatch.call`.
"""

import os
import threading
import time
import traceback
import warnings
from contextlib import ContextDecorator

from .. import _profiling
from .._backends.registry import BACKENDS
from .._device import device as _device_cls
from .._tensor import Tensor
from .profiler_util import DeviceType, EventList, FunctionEvent

__all__ = ["profile", "record_function", "EventList", "FunctionEvent", "DeviceType", "kineto_available"]


def kineto_available():
    """mindtorch has no Kineto: its profiler records ops at dispatch."""
    return False


class _Span:
    __slots__ = (
        "name",
        "category",
        "tid",
        "parent",
        "start",
        "end",
        "shapes",
        "stack",
        "args_text",
        "device",
        "dev_events",
        "mem",
        "dev_mem",
    )

    def __init__(self, name, category, tid, parent):
        self.name, self.category, self.tid, self.parent = name, category, tid, parent
        self.end = None
        self.shapes = self.stack = self.args_text = self.device = self.dev_events = self.mem = self.dev_mem = None


def _shape_of(a):
    if isinstance(a, Tensor):
        return list(a._shape)
    if isinstance(a, (list, tuple)) and a and all(isinstance(t, Tensor) for t in a):
        return [list(t._shape) for t in a]
    return []


def _device_of(op, args):
    for i in op.tensor_params:
        a = args[i]
        if isinstance(a, Tensor):
            return a.device
        if isinstance(a, (list, tuple)):
            for t in a:
                if isinstance(t, Tensor):
                    return t.device
    return None


def _bytes_in_use(device):
    rec = BACKENDS.get(device.type)
    return rec.allocator.bytes_in_use(device) if rec is not None and rec.allocator is not None else 0


_CPU = _device_cls("cpu")
# the frames a recorded op passes through on its way here (and the generated API functions), left out of
# its call stack
_OWN_FILES = (__file__, os.path.join(os.path.dirname(os.path.dirname(__file__)), "dispatch.py"))


def _call_stack():
    """The Python frames above the profiler's own, innermost first, as "file(line): function"."""
    frames = [
        f
        for f in traceback.extract_stack()
        if f.filename not in _OWN_FILES and not f.filename.startswith("<mindtorch generated")
    ]
    return [f"{f.filename}({f.lineno}): {f.name}" for f in reversed(frames)]


class _Recorder:
    """What one recording phase collects: finished spans from every thread, on the perf_counter clock."""

    def __init__(self, record_shapes, profile_memory, with_stack, use_device):
        self.record_shapes, self.profile_memory, self.with_stack = record_shapes, profile_memory, with_stack
        self.use_device = use_device  # the device type whose work is timed on the device, or None
        rec = BACKENDS.get(use_device) if use_device else None
        self.timing_event = getattr(rec, "timing_event", None) if rec is not None else None
        self.local = threading.local()
        self.done = []
        self.device_base = {}  # device index -> (its first event, the CPU time it was recorded at)
        self.t0 = time.perf_counter_ns()

    # -- what dispatch.call asks
    def takes(self, args):
        """Whether dispatch.call should hand this call over; False for the call `run` makes itself."""
        local = self.local
        if getattr(local, "pending", None) is args:
            local.pending = None
            return False
        return True

    def run(self, op, args, call):
        span = self.open("aten::" + op.name, "cpu_op", op, args)
        self.local.pending = args
        try:
            return call(op, args)
        finally:
            self.close(span)

    # -- spans
    def open(self, name, category, op=None, args=None):
        local = self.local
        stack = local.__dict__.setdefault("stack", [])
        span = _Span(name, category, threading.get_native_id(), stack[-1] if stack else None)
        if self.record_shapes and args is not None:
            span.shapes = [_shape_of(a) for a in args]
        if self.with_stack:
            span.stack = _call_stack()
        if op is not None:
            span.device = _device_of(op, args)
        dev = span.device if span.device is not None and span.device.type == self.use_device else None
        if self.profile_memory:
            span.mem = _bytes_in_use(_CPU)
            if dev is not None:
                span.dev_mem = _bytes_in_use(dev)
        if dev is not None and self.timing_event is not None:
            span.dev_events = self._device_events(dev)
        stack.append(span)
        span.start = time.perf_counter_ns()
        return span

    def close(self, span):
        span.end = time.perf_counter_ns()
        if span.dev_events is not None:
            span.dev_events[1].record()
        if span.mem is not None:
            span.mem = _bytes_in_use(_CPU) - span.mem
        if span.dev_mem is not None:
            span.dev_mem = _bytes_in_use(span.device) - span.dev_mem
        stack = self.local.__dict__.get("stack")
        if stack and stack[-1] is span:
            stack.pop()
        elif stack and span in stack:
            stack.remove(span)
        self.done.append(span)

    def _device_events(self, dev):
        index = dev.index or 0
        if index not in self.device_base:
            base = self.timing_event(index)
            if base is None:  # the backend cannot time its work: CPU times only
                self.timing_event = None
                return None
            base.record()
            self.device_base[index] = (base, time.perf_counter_ns())
        start, end = self.timing_event(index), self.timing_event(index)
        start.record()
        return start, end

    # -- the result
    def events(self):
        """The finished spans as FunctionEvents in start order, children linked to their parents."""
        spans = sorted(self.done, key=lambda s: s.start)
        made = {}
        out = EventList(use_device=self.use_device, profile_memory=self.profile_memory)
        for i, s in enumerate(spans):
            e = FunctionEvent(
                i,
                s.name,
                s.tid,
                (s.start - self.t0) / 1e3,
                (s.end - self.t0) / 1e3,
                input_shapes=s.shapes,
                stack=s.stack,
                category=s.category,
            )
            e.record_args = s.args_text
            e.cpu_memory_usage = s.mem or 0
            e.device_memory_usage = s.dev_mem or 0
            if s.dev_events is not None:
                self._device_time(e, s)
            parent = made.get(id(s.parent)) if s.parent is not None else None
            if parent is not None:
                e.set_cpu_parent(parent)
                parent.append_cpu_child(e)
            made[id(s)] = e
            out.append(e)
        self.done = []
        self.device_base.clear()  # the device's events are released with the spans
        return out

    def _device_time(self, event, span):
        start, end = span.dev_events
        end.synchronize()
        index = span.device.index or 0
        base, base_ns = self.device_base[index]
        event.device_type = DeviceType.PrivateUse1
        event.device_index = index
        event.device_time_total = start.elapsed_time(end) * 1e3
        event.device_start_us = (base_ns - self.t0) / 1e3 + base.elapsed_time(start) * 1e3


def _start(recorder):
    if _profiling.ACTIVE:
        raise RuntimeError("Profiler is already enabled on this thread")
    _profiling.ACTIVE.append(recorder)


def _stop(recorder):
    if _profiling.ACTIVE and _profiling.ACTIVE[0] is recorder:
        _profiling.ACTIVE.clear()


class profile:
    """Records the ops run inside it (and record_function ranges): `function_events`, `key_averages()`,
    `table()`, `export_chrome_trace(path)`. `use_device` ("npu", or True-ish use_cuda for "cuda") times each
    op's work on that device too, through the backend's timing events."""

    def __init__(
        self,
        enabled=True,
        *,
        use_cuda=False,
        use_device=None,
        record_shapes=False,
        with_flops=False,
        profile_memory=False,
        with_stack=False,
        with_modules=False,
        use_kineto=False,
        use_cpu=True,
        experimental_config=None,
        acc_events=False,
        custom_trace_id_callback=None,
    ):
        self.enabled = enabled
        self.use_device = "cuda" if use_cuda and use_device is None else use_device
        self.record_shapes, self.profile_memory, self.with_stack = record_shapes, profile_memory, with_stack
        self.with_flops, self.with_modules = with_flops, with_modules
        self.acc_events = acc_events
        self.function_events = None
        self._recorder = None
        self.entered = False

    def __enter__(self):
        if not self.enabled:
            return self
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self.entered = True
        for flag, what in ((self.with_flops, "with_flops (no FLOPs column)"), (self.with_modules, "with_modules")):
            if flag:
                warnings.warn(f"mindtorch's profiler does not record {what}", UserWarning, stacklevel=2)
        self._recorder = _Recorder(self.record_shapes, self.profile_memory, self.with_stack, self.use_device)
        _start(self._recorder)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        if not self.enabled:
            return False
        _stop(self._recorder)
        new = self._recorder.events()
        self._recorder = None
        if self.acc_events and self.function_events is not None:
            new = EventList(
                list(self.function_events) + list(new), use_device=self.use_device, profile_memory=self.profile_memory
            )
        self.function_events = new
        self.entered = False
        return False

    def _check_finish(self):
        if self.function_events is None:
            raise RuntimeError("Profiler didn't finish running")

    def table(self, sort_by=None, row_limit=100, **options):
        """The summary table of every recorded event (EventList.table's options)."""
        self._check_finish()
        return self.function_events.table(sort_by=sort_by, row_limit=row_limit, **options)

    def export_chrome_trace(self, path):
        self._check_finish()
        return self.function_events.export_chrome_trace(path)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False):
        self._check_finish()
        return self.function_events.key_averages(group_by_input_shape, group_by_stack_n, group_by_overload_name)

    def total_average(self):
        self._check_finish()
        return self.function_events.total_average()

    @property
    def self_cpu_time_total(self):
        self._check_finish()
        return self.function_events.self_cpu_time_total

    def __str__(self):
        self._check_finish()
        return str(self.function_events)


class record_function(ContextDecorator):
    """A named range in the profile (a context manager or a decorator); free when no profiler records."""

    def __init__(self, name, args=None):
        self.name = name
        self.args = args
        self._open = []  # (recorder, span) per active entry: a decorated function may recurse

    def __enter__(self):
        if _profiling.ACTIVE:
            recorder = _profiling.ACTIVE[0]
            span = recorder.open(self.name, "user_annotation")
            span.args_text = self.args
            self._open.append((recorder, span))
        else:
            self._open.append(None)
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        entry = self._open.pop() if self._open else None
        if entry is not None:
            entry[0].close(entry[1])
        return False
