"""mindtorch.amp: autocast (per-op casting with PyTorch's CPU policies; see autocast_mode) and GradScaler
(loss scaling, PyTorch's growth/backoff rule)."""

from .autocast_mode import autocast, get_autocast_dtype, is_autocast_available, is_autocast_enabled  # noqa: F401
from .grad_scaler import GradScaler

__all__ = ["GradScaler", "autocast", "is_autocast_available"]
