"""Process-wide switches programs set (determinism, float32 matmul precision, warn-always, denormals).

mindtorch's CPU kernels are deterministic already, so the determinism switches are recorded and
reported as PyTorch reports them; the float32 matmul precision is recorded (NumPy's matmul always
computes in full float32, which is PyTorch's "highest").
"""

import warnings

__all__ = [
    "use_deterministic_algorithms",
    "are_deterministic_algorithms_enabled",
    "is_deterministic_algorithms_warn_only_enabled",
    "set_deterministic_debug_mode",
    "get_deterministic_debug_mode",
    "set_float32_matmul_precision",
    "get_float32_matmul_precision",
    "set_warn_always",
    "is_warn_always_enabled",
    "set_flush_denormal",
]

_state = {"deterministic": False, "warn_only": False, "matmul_precision": "highest", "warn_always": False}
_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


def _bool_arg(fn, name, value, position=1):
    if not isinstance(value, bool):
        raise TypeError(f"{fn}(): argument '{name}' (position {position}) must be bool, not {type(value).__name__}")


def use_deterministic_algorithms(mode, *, warn_only=False):
    _bool_arg("_set_deterministic_algorithms", "mode", mode)
    _state["deterministic"], _state["warn_only"] = mode, bool(warn_only) and mode


def are_deterministic_algorithms_enabled():
    return _state["deterministic"]


def is_deterministic_algorithms_warn_only_enabled():
    return _state["warn_only"]


def set_deterministic_debug_mode(debug_mode):
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(
                f"invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got {debug_mode}"
            )
        debug_mode = _DEBUG_MODES[debug_mode]
    elif not isinstance(debug_mode, int) or isinstance(debug_mode, bool):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode():
    if not _state["deterministic"]:
        return 0
    return 1 if _state["warn_only"] else 2


def set_float32_matmul_precision(precision):
    if precision not in ("highest", "high", "medium"):
        warnings.warn(
            f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
            "setFloat32MatmulPrecision call has no effect.",
            UserWarning,
            stacklevel=2,
        )  # PyTorch's text
        return
    _state["matmul_precision"] = precision


def get_float32_matmul_precision():
    return _state["matmul_precision"]


def set_warn_always(b, /):
    _bool_arg("set_warn_always", "b", b)
    _state["warn_always"] = b


def is_warn_always_enabled():
    return _state["warn_always"]


def set_flush_denormal(mode):
    """NumPy offers no flush-to-zero control, so this reports "not supported" (False), as PyTorch does on
    a CPU without the feature; subnormal numbers keep being computed exactly."""
    _bool_arg("set_flush_denormal", "mode", mode)
    return False
