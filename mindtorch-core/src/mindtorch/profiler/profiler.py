"""torch.profiler.profile: the step-driven profiler over mindtorch.autograd.profiler's recorder, its schedule
(wait, warmup, active, repeat, skip_first) and the TensorBoard trace handler."""

import enum
import os
import socket
import time
import warnings

from .._backends.registry import BACKENDS
from ..autograd import profiler as _autograd_profiler
from ..autograd.profiler import kineto_available

__all__ = [
    "ProfilerAction",
    "ProfilerActivity",
    "ExecutionTraceObserver",
    "kineto_available",
    "profile",
    "schedule",
    "supported_activities",
    "tensorboard_trace_handler",
]


class ProfilerActivity(enum.IntEnum):
    """What a profile records: CPU (the ops at dispatch) and a backend's device (PrivateUse1, the
    out-of-tree device: npu; `NPU` is its torch_npu spelling)."""

    CPU = 0
    XPU = 1
    MTIA = 4
    CUDA = 2
    HPU = 3
    PrivateUse1 = 5
    NPU = 5


class ProfilerAction(enum.Enum):
    """What a schedule asks of the profiler for a step."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3
    DEVICE_STOPPED = 4


def _timed_device_type():
    """The loaded out-of-tree backend (PrivateUse1's device: npu) the profiler follows, or None."""
    for name, rec in BACKENDS.items():
        if name not in ("cpu", "meta") and getattr(rec, "timing_event", None) is not None:
            return name
    return None


def supported_activities():
    acts = {ProfilerActivity.CPU}
    name = _timed_device_type()
    if name is not None and BACKENDS[name].is_available():
        acts.add(ProfilerActivity.PrivateUse1)
    return acts


def schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
    """The step -> ProfilerAction function: skip `skip_first` steps, then cycles of `wait` idle, `warmup`
    and `active` recorded steps (the last saves), `repeat` times (0: until the profile ends)."""
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), warmup={warmup} (need >= 0), "
            f"active={active} (need > 0), repeat={repeat} (need >= 0), skip_first={skip_first} (need >= 0)."
        )
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results", stacklevel=2)
    cycle = wait + warmup + active

    def schedule_fn(step):
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait != 0:  # the first cycle starts without its wait
            step += wait
        if repeat > 0 and step >= repeat * cycle:
            return ProfilerAction.NONE
        pos = step % cycle
        if pos < wait:
            return ProfilerAction.NONE
        if pos < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if pos < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    return schedule_fn


def _record_every_step(step):
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False, use_python_export=False):
    """An on_trace_ready handler writing each saved cycle's Chrome trace into `dir_name` as
    `<worker>.<ns>.pt.trace.json[.gz]` (worker: host_pid unless named)."""

    def handler_fn(prof):
        nonlocal worker_name
        try:
            os.makedirs(dir_name, exist_ok=True)
        except Exception as e:
            raise RuntimeError("Can't create directory: " + dir_name) from e
        if not worker_name:
            worker_name = f"{socket.gethostname()}_{os.getpid()}"
        name = f"{worker_name}.{time.time_ns()}.pt.trace.json" + (".gz" if use_gzip else "")
        prof.export_chrome_trace(os.path.join(dir_name, name))

    return handler_fn


class ExecutionTraceObserver:
    """PyTorch's execution trace is the graph of ATen ops with every input's and output's tensor identity and
    storage, taken by its C++ observer; mindtorch records timed op events only, so it offers no execution
    trace (profile(...).export_chrome_trace gives the op timeline)."""

    def __init__(self):
        raise RuntimeError(
            "ExecutionTraceObserver is not available in mindtorch: its profiler records timed op events at "
            "dispatch, not the execution graph; use profile(...).export_chrome_trace(path) for the op timeline"
        )


def _use_device(activities):
    if ProfilerActivity.PrivateUse1 in activities:
        return _timed_device_type()
    if ProfilerActivity.CUDA in activities and "cuda" in BACKENDS:
        return "cuda"
    return None


class profile:
    """The profiler as a context manager or with start()/step()/stop(): the schedule decides per step
    whether to record; each RECORD_AND_SAVE step ends a cycle and calls on_trace_ready(self)."""

    def __init__(
        self,
        *,
        activities=None,
        schedule=None,
        on_trace_ready=None,
        record_shapes=False,
        profile_memory=False,
        with_stack=False,
        with_flops=False,
        with_modules=False,
        experimental_config=None,
        execution_trace_observer=None,
        acc_events=False,
        use_cuda=None,
        custom_trace_id_callback=None,
    ):
        acts = set(activities) if activities else supported_activities()
        if use_cuda:
            acts.add(ProfilerActivity.CUDA)
        if not acts:
            raise AssertionError("No valid profiler activities found")
        self.activities = acts
        self.schedule = schedule if schedule is not None else _record_every_step
        self.record_steps = schedule is not None
        self.on_trace_ready = on_trace_ready
        self.record_shapes, self.profile_memory, self.with_stack = record_shapes, profile_memory, with_stack
        self.with_flops, self.with_modules, self.acc_events = with_flops, with_modules, acc_events
        self.use_device = _use_device(acts)
        self.profiler = None
        self.step_rec_fn = None
        self.step_num = 0
        self.current_action = self.schedule(self.step_num)
        self._check_action(self.current_action)
        self._transitions = self._transition_table()

    # -- the phases
    def prepare_trace(self):
        if self.profiler is None or not self.acc_events:
            self.profiler = _autograd_profiler.profile(
                use_device=self.use_device,
                record_shapes=self.record_shapes,
                with_flops=self.with_flops,
                profile_memory=self.profile_memory,
                with_stack=self.with_stack,
                with_modules=self.with_modules,
                acc_events=self.acc_events,
            )

    def start_trace(self):
        self.profiler.__enter__()

    def stop_trace(self):
        if self.profiler is not None and self.profiler.entered:
            self.profiler.__exit__(None, None, None)

    def _trace_ready(self):
        if self.on_trace_ready:
            self.on_trace_ready(self)

    def _transition_table(self):
        N, W, R, S = ProfilerAction.NONE, ProfilerAction.WARMUP, ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE
        prep, start, stop, ready = self.prepare_trace, self.start_trace, self.stop_trace, self._trace_ready

        def bad(what):
            return lambda: warnings.warn(f"Incorrect schedule: {what}", stacklevel=3)

        return {
            (N, N): [],
            (N, W): [prep],
            (N, R): [prep, start],
            (N, S): [prep, start],
            (W, N): [bad("WARMUP followed by NONE"), start, stop],
            (W, W): [],
            (W, R): [start],
            (W, S): [start],
            (R, N): [bad("RECORD followed by NONE"), stop],
            (R, W): [bad("RECORD followed by WARMUP"), stop],
            (R, R): [],
            (R, S): [],
            (S, N): [stop, ready],
            (S, W): [stop, ready, prep],
            (S, R): [stop, ready, prep, start],
            (S, S): [stop, ready, prep, start],
            (W, None): [start, stop],
            (R, None): [stop, ready],
            (S, None): [stop, ready],
            (N, None): [],
        }

    def _transit(self, prev, cur):
        for fn in self._transitions.get((prev, cur), []):
            fn()

    @staticmethod
    def _check_action(action):
        if action == ProfilerAction.DEVICE_STOPPED:
            raise ValueError(
                "ProfilerAction.DEVICE_STOPPED is set internally by the profiler and must not be returned by a "
                "user-provided schedule"
            )

    # -- the driver
    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.stop()

    def start(self):
        self._transit(ProfilerAction.NONE, self.current_action)
        self._open_step()

    def stop(self):
        self._close_step()
        self._transit(self.current_action, None)

    def step(self):
        """The next step begins: the schedule's action for it decides what starts, stops or is saved."""
        self._close_step()
        prev = self.current_action
        action = self.schedule(self.step_num + 1)
        self._check_action(action)
        self.step_num += 1
        self.current_action = action
        self._transit(prev, action)
        self._open_step()

    def _open_step(self):
        if self.record_steps:
            self.step_rec_fn = _autograd_profiler.record_function(f"ProfilerStep#{self.step_num}")
            self.step_rec_fn.__enter__()

    def _close_step(self):
        if self.step_rec_fn is not None:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None

    # -- the results (of the last recorded cycle)
    def _finished(self):
        if self.profiler is None or self.profiler.function_events is None:
            raise AssertionError("Profiler must be initialized before exporting chrome trace")
        return self.profiler

    def events(self):
        return self._finished().function_events

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False):
        return self._finished().key_averages(group_by_input_shape, group_by_stack_n, group_by_overload_name)

    def export_chrome_trace(self, path):
        return self._finished().export_chrome_trace(path)

    def export_stacks(self, path, metric="self_cpu_time_total"):
        """One line per recorded op with a stack: the frames outermost first, ';'-joined, and the metric (µs),
        the collapsed-stack format flame graph tools read."""
        if not self.with_stack:
            raise AssertionError("export_stacks() requires with_stack=True")
        with open(path, "w") as f:
            for e in self.events():
                if e.stack:
                    f.write(";".join(reversed(e.stack)) + f" {int(getattr(e, metric))}\n")

    def get_trace_id(self):
        return None
