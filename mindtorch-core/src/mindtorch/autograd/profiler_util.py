"""What a profile holds: one FunctionEvent per op or range, their averages by name, the summary table and the
Chrome trace (the trace event format's complete events, "ph": "X", times in microseconds)."""

import enum
import json
import os


class DeviceType(enum.IntEnum):
    """Device types by c10's numbering (what profiler events report)."""

    CPU = 0
    CUDA = 1
    MKLDNN = 2
    OPENGL = 3
    OPENCL = 4
    IDEEP = 5
    HIP = 6
    FPGA = 7
    MAIA = 8
    XLA = 9
    Vulkan = 10
    Metal = 11
    XPU = 12
    MPS = 13
    Meta = 14
    HPU = 15
    VE = 16
    Lazy = 17
    IPU = 18
    MTIA = 19
    PrivateUse1 = 20


def _format_time(us, unit=None):
    if unit == "s" or (unit is None and us >= 1e6):
        return f"{us / 1e6:.3f}s"
    if unit == "ms" or (unit is None and us >= 1e3):
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


def _format_share(us, total):
    return "NaN" if total == 0 else f"{us * 100.0 / total:.2f}%"


def _format_memory(nbytes):
    for unit, size in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if abs(nbytes) >= size:
            return f"{nbytes / size:.2f} {unit}"
    return f"{nbytes} B"


class _Timed:
    """Totals and their averages, shared by single events and their per-key averages."""

    count = 1
    cpu_time_total = 0.0
    self_cpu_time_total = 0.0
    device_time_total = 0.0
    self_device_time_total = 0.0

    @property
    def cpu_time(self):
        return self.cpu_time_total / max(self.count, 1)

    @property
    def device_time(self):
        return self.device_time_total / max(self.count, 1)

    # PyTorch's older spelling of the device columns
    cuda_time = device_time
    cuda_time_total = property(lambda self: self.device_time_total)
    self_cuda_time_total = property(lambda self: self.self_device_time_total)
    self_cuda_memory_usage = property(lambda self: self.self_device_memory_usage)

    cpu_time_str = property(lambda self: _format_time(self.cpu_time))
    cpu_time_total_str = property(lambda self: _format_time(self.cpu_time_total))
    self_cpu_time_total_str = property(lambda self: _format_time(self.self_cpu_time_total))
    device_time_str = property(lambda self: _format_time(self.device_time))
    device_time_total_str = property(lambda self: _format_time(self.device_time_total))
    self_device_time_total_str = property(lambda self: _format_time(self.self_device_time_total))


class FunctionEvent(_Timed):
    """One op or record_function range on one thread: its interval (µs since the profile began), where it
    nests, the input shapes, the memory it allocated net of frees, and its device time when timed there."""

    def __init__(self, id, name, thread, start_us, end_us, *, input_shapes=None, stack=None, category="cpu_op"):
        self.id = id
        self.name = name
        self.thread = thread
        self.start_us, self.end_us = start_us, end_us
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.stack = stack if stack is not None else []
        self.category = category
        self.is_user_annotation = category == "user_annotation"
        self.record_args = None  # the string a record_function range was given
        self.cpu_children = []
        self.cpu_parent = None
        self.cpu_memory_usage = 0
        self.device_memory_usage = 0
        self.device_type = DeviceType.CPU
        self.device_index = 0
        self.device_start_us = None  # where the device work began, on the profile's clock
        self.device_time_total = 0.0
        self.overload_name = ""
        self.is_async = False
        self.is_legacy = False
        self.node_id = -1
        self.sequence_nr = -1

    @property
    def key(self):
        return self.name

    @property
    def cpu_time_total(self):
        return self.end_us - self.start_us

    @property
    def self_cpu_time_total(self):
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def self_device_time_total(self):
        return self.device_time_total - sum(c.device_time_total for c in self.cpu_children)

    @property
    def self_cpu_memory_usage(self):
        return self.cpu_memory_usage - sum(c.cpu_memory_usage for c in self.cpu_children)

    @property
    def self_device_memory_usage(self):
        return self.device_memory_usage - sum(c.device_memory_usage for c in self.cpu_children)

    def append_cpu_child(self, child):
        self.cpu_children.append(child)

    def set_cpu_parent(self, parent):
        self.cpu_parent = parent

    def __repr__(self):
        return (
            f"<FunctionEvent id={self.id} name={self.name} thread={self.thread} "
            f"cpu_time={self.cpu_time_str} start_us={self.start_us:.3f} end_us={self.end_us:.3f} "
            f"input_shapes={self.input_shapes} cpu_memory_usage={self.cpu_memory_usage}>"
        )


class FunctionEventAvg(_Timed):
    """The events of one key (a name, or a name and its input shapes) summed: totals, calls and averages."""

    def __init__(self):
        self.key = None
        self.count = 0
        self.input_shapes = None
        self.stack = None
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.device_time_total = 0.0
        self.self_device_time_total = 0.0
        self.cpu_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.device_memory_usage = 0
        self.self_device_memory_usage = 0
        self.cpu_parent = None
        self.is_user_annotation = False
        self.is_async = False
        self.is_legacy = False
        self.node_id = -1
        self.overload_name = ""
        self.device_type = DeviceType.CPU

    def add(self, other):
        if self.key is None:
            self.key = other.key
            self.input_shapes = other.input_shapes
            self.stack = other.stack
            self.cpu_parent = other.cpu_parent
            self.is_user_annotation = other.is_user_annotation
            self.device_type = other.device_type
        elif other.key != self.key:
            raise AssertionError(f"cannot average {other.key} into {self.key}")
        for name in (
            "cpu_time_total",
            "self_cpu_time_total",
            "device_time_total",
            "self_device_time_total",
            "cpu_memory_usage",
            "self_cpu_memory_usage",
            "device_memory_usage",
            "self_device_memory_usage",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.count += other.count
        return self

    def __iadd__(self, other):
        return self.add(other)

    def __repr__(self):
        return (
            f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str} "
            f"cpu_time={self.cpu_time_str} input_shapes={self.input_shapes}>"
        )


class EventList(list):
    """A profile's events (or their averages), with the summary table and the Chrome trace."""

    def __init__(self, *args, use_device=None, profile_memory=False, with_flops=False, **kwargs):
        super().__init__(*args, **kwargs)
        self._use_device = use_device
        self._profile_memory = profile_memory
        self._with_flops = with_flops

    @property
    def self_cpu_time_total(self):
        return sum(e.self_cpu_time_total for e in self)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False):
        groups: dict = {}
        for e in self:
            key = [e.key]
            if group_by_input_shape:
                key.append(str(e.input_shapes))
            if group_by_stack_n > 0:
                key += list(e.stack[:group_by_stack_n])
            avg = groups.get(tuple(key))
            if avg is None:
                avg = groups[tuple(key)] = FunctionEventAvg()
            avg.add(e)
        if not group_by_input_shape:  # the shapes column belongs to tables grouped by them
            for avg in groups.values():
                avg.input_shapes = []
        return EventList(groups.values(), use_device=self._use_device, profile_memory=self._profile_memory)

    def total_average(self):
        total = FunctionEventAvg()
        for e in self:
            total.key = None
            total.add(e)
        total.key = "Total"
        return total

    def table(
        self,
        sort_by=None,
        row_limit=100,
        max_src_column_width=75,
        max_name_column_width=55,
        max_shapes_column_width=80,
        header=None,
        top_level_events_only=False,
        time_unit=None,
    ):
        from ._profiler_table import build_table

        return build_table(
            self,
            sort_by=sort_by,
            row_limit=row_limit,
            max_name_column_width=max_name_column_width,
            max_shapes_column_width=max_shapes_column_width,
            header=header,
            top_level_events_only=top_level_events_only,
            use_device=self._use_device,
            profile_memory=self._profile_memory,
            time_unit=time_unit,
        )

    def __str__(self):
        return self.table()

    def export_chrome_trace(self, path):
        trace = chrome_trace(self, self._use_device)
        if str(path).endswith(".gz"):
            import gzip

            with gzip.open(path, "wt") as f:
                json.dump(trace, f)
        else:
            with open(path, "w") as f:
                json.dump(trace, f)


# device rows get process ids above Linux's largest pid (2**22), so they never meet a real process's
DEVICE_PID_BASE = 1 << 23


def chrome_trace(events, use_device=None):
    """The trace event format's JSON object: one complete event per op or range on its thread, and one per
    op's device work on the device's own row (pid = the device), with process names as metadata events."""
    pid = os.getpid()
    out = [
        {"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "args": {"name": "python"}},
    ]
    devices = set()
    for e in events:
        args = {"External id": e.id}
        if e.input_shapes:
            args["Input Dims"] = e.input_shapes
        if e.stack:
            args["Call stack"] = ";".join(e.stack)
        if e.record_args is not None:
            args["Record function args"] = e.record_args
        out.append(
            {
                "ph": "X",
                "cat": e.category,
                "name": e.name,
                "pid": pid,
                "tid": e.thread,
                "ts": round(e.start_us, 3),
                "dur": round(e.cpu_time_total, 3),
                "args": args,
            }
        )
        if e.device_start_us is not None:
            devices.add(e.device_index)
            out.append(
                {
                    "ph": "X",
                    "cat": "kernel",
                    "name": e.name,
                    "pid": DEVICE_PID_BASE + e.device_index,
                    "tid": 0,
                    "ts": round(e.device_start_us, 3),
                    "dur": round(e.device_time_total, 3),
                    "args": {"External id": e.id, "device": e.device_index},
                }
            )
    for index in sorted(devices):
        name = f"{(use_device or 'device').upper()} {index}"
        out.append(
            {"ph": "M", "name": "process_name", "pid": DEVICE_PID_BASE + index, "tid": 0, "args": {"name": name}}
        )
    return {"schemaVersion": 1, "displayTimeUnit": "ms", "traceEvents": out}
