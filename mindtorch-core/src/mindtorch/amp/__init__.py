"""mindtorch.amp: autocast (per-op casting with PyTorch's CPU policies and torch_npu's npu policy; see
autocast_mode) and GradScaler (loss scaling, PyTorch's growth/backoff rule, kept on the device)."""

from .autocast_mode import (  # noqa: F401
    autocast,
    custom_bwd,
    custom_fwd,
    get_autocast_dtype,
    is_autocast_available,
    is_autocast_enabled,
)
from .grad_scaler import GradScaler

__all__ = ["GradScaler", "autocast", "custom_bwd", "custom_fwd", "is_autocast_available"]
