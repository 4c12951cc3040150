"""torch.profiler: op-level profiling recorded at dispatch (see mindtorch.autograd.profiler), with
PyTorch's schedule, trace handler and result API. There is no Kineto: `kineto_available()` is False."""

from ..autograd.profiler import record_function
from ..autograd.profiler_util import DeviceType
from .profiler import (
    ExecutionTraceObserver,
    ProfilerAction,
    ProfilerActivity,
    kineto_available,
    profile,
    schedule,
    supported_activities,
    tensorboard_trace_handler,
)

__all__ = [
    "profile",
    "schedule",
    "supported_activities",
    "tensorboard_trace_handler",
    "ProfilerAction",
    "ProfilerActivity",
    "kineto_available",
    "DeviceType",
    "record_function",
    "ExecutionTraceObserver",
]
