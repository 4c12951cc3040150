"""`torch.npu.amp`: autocast and GradScaler bound to the npu device, as torch_npu has them."""

import mindtorch

__all__ = ["autocast", "GradScaler", "custom_fwd", "custom_bwd"]


class autocast(mindtorch.amp.autocast):
    """`torch.npu.amp.autocast(enabled=True, dtype=torch.float16, cache_enabled=True)`: torch.autocast("npu")."""

    def __init__(self, enabled=True, dtype=mindtorch.float16, cache_enabled=True):
        super().__init__("npu", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


class GradScaler(mindtorch.amp.GradScaler):
    """`torch.npu.amp.GradScaler(...)`: torch.amp.GradScaler("npu", ...)."""

    def __init__(self, init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000, enabled=True):
        super().__init__("npu", init_scale, growth_factor, backoff_factor, growth_interval, enabled)


def custom_fwd(fwd=None, *, cast_inputs=None):
    return mindtorch.amp.custom_fwd(fwd, device_type="npu", cast_inputs=cast_inputs)


def custom_bwd(bwd=None):
    return mindtorch.amp.custom_bwd(bwd, device_type="npu")
