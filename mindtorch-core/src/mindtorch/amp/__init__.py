"""mindtorch.amp: GradScaler (loss scaling, PyTorch's growth/backoff rule) and autocast.

autocast runs disabled (what programs on the CPU without mixed precision use: `enabled=use_amp`, or
device_type="cuda" without CUDA, which PyTorch itself disables with a warning); enabling it for a
device raises NotImplementedError, because PyTorch's per-op cast lists are not implemented yet.
"""
from .grad_scaler import GradScaler  # noqa: F401
from .autocast_mode import autocast, is_autocast_available  # noqa: F401

__all__ = ["GradScaler", "autocast", "is_autocast_available"]
