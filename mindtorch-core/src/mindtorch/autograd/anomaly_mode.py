"""Anomaly detection for autograd: NaN checks on every backward output and the forward traceback of a
failing backward node (torch.autograd.detect_anomaly / set_detect_anomaly)."""

import traceback
import warnings

from .graph import Node

__all__ = ["detect_anomaly", "set_detect_anomaly"]


def is_anomaly_enabled():
    return Node.anomaly_enabled


def is_anomaly_check_nan_enabled():
    return Node.anomaly_check_nan


def set_anomaly_enabled(enabled, check_nan=True):
    # class attributes: the recording hot path reads one flag, and only pays for a traceback when it is set
    Node.anomaly_enabled = bool(enabled)
    Node.anomaly_check_nan = bool(check_nan)


class detect_anomaly:
    """Context manager / decorator: while active, backward raises on NaN gradients and reports the forward
    traceback of the node that failed."""

    def __init__(self, check_nan=True):
        self.prev, self.prev_check_nan = is_anomaly_enabled(), is_anomaly_check_nan_enabled()
        self.check_nan = check_nan
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
            "enabled for debugging.",
            UserWarning,
            stacklevel=2,
        )

    def __enter__(self):
        set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *exc):
        set_anomaly_enabled(self.prev, self.prev_check_nan)

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__(self.check_nan):
                return fn(*args, **kwargs)

        return wrapper


class set_detect_anomaly:
    """Turn anomaly detection on or off now; as a context manager, restore the previous setting on exit."""

    def __init__(self, mode, check_nan=True):
        self.prev, self.prev_check_nan = is_anomaly_enabled(), is_anomaly_check_nan_enabled()
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        set_anomaly_enabled(self.prev, self.prev_check_nan)


_PACKAGE = __file__.rsplit("autograd", 1)[0]


def record_forward_trace(node):
    # the caller's frames only: mindtorch's own dispatch frames say nothing about where the op came from
    frames = [f for f in traceback.extract_stack()[:-1] if not f.filename.startswith(_PACKAGE)]
    node.forward_trace = "".join(traceback.format_list(frames))


def check_nan(node, grads_per_edge):
    for i, g in enumerate(grads_per_edge):
        if g is not None and (g.dtype.is_floating_point or g.dtype.is_complex) and bool(g.isnan().any()):
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")


def warn_forward_trace(node):
    trace = getattr(node, "forward_trace", None)
    if trace is None:
        return
    warnings.warn(
        f"Error detected in {node.name()}. Traceback of forward call that caused the error:\n{trace}",
        UserWarning,
        stacklevel=3,
    )
