"""mindtorch.amp: autocast (per-op casting with PyTorch's CPU policies; see autocast_mode) and GradScaler
(loss scaling, PyTorch's growth/backoff rule)."""
from .grad_scaler import GradScaler  # noqa: F401
from .autocast_mode import autocast, is_autocast_available, is_autocast_enabled, get_autocast_dtype  # noqa: F401

__all__ = ["GradScaler", "autocast", "is_autocast_available"]
