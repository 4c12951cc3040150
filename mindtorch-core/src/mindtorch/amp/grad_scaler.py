"""GradScaler: scales the loss so small gradients survive low precision, skips steps whose gradients
overflowed, and adapts the scale (PyTorch's rule: back off on overflow, grow after growth_interval
clean steps). The scale, the clean-step count and the overflow flags are device tensors updated by the
_amp_foreach_non_finite_check_and_unscale_ / _amp_update_scale_ ops, so a step reads the device once:
step() asks whether any gradient overflowed."""

import warnings

import mindtorch

_READY, _UNSCALED, _STEPPED = 0, 1, 2


class GradScaler:
    def __init__(
        self,
        device="cuda",
        init_scale=2.0**16,
        growth_factor=2.0,
        backoff_factor=0.5,
        growth_interval=2000,
        enabled=True,
    ):
        self._device = device
        if enabled and device == "cuda" and not mindtorch.cuda.is_available():
            warnings.warn(
                "torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
                UserWarning,
                stacklevel=2,
            )
            enabled = False
        self._enabled = enabled
        if enabled:
            if growth_factor <= 1.0:  # PyTorch asserts these
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale, self._growth_factor = init_scale, growth_factor
            self._backoff_factor, self._growth_interval = backoff_factor, growth_interval
            self._init_growth_tracker = 0
            # the scale and the count of clean steps live on the device of the first scaled output
            self._scale = None
            self._growth_tracker = None
            self._per_optimizer = {}

    def is_enabled(self):
        return self._enabled

    def _lazy_init(self, device):
        self._scale = mindtorch.full((), self._init_scale, dtype=mindtorch.float32, device=device)
        self._growth_tracker = mindtorch.full((), self._init_growth_tracker, dtype=mindtorch.int32, device=device)

    def _require_scale(self, funcname):
        if self._scale is None:
            raise AssertionError(
                f"Attempted {funcname} but _scale is None.  This may indicate your script did not use "
                "scaler.scale(loss or outputs) earlier in the iteration."
            )
        return self._scale

    def scale(self, outputs):
        if not self._enabled:
            return outputs
        if isinstance(outputs, mindtorch.Tensor):
            if self._scale is None:
                self._lazy_init(outputs.device)
            return outputs * self._scale.to(outputs.device)
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(o) for o in outputs)
        raise ValueError("outputs must be a Tensor or an iterable of Tensors")

    def _state(self, optimizer):
        return self._per_optimizer.setdefault(id(optimizer), {"stage": _READY, "found_inf_per_device": {}})

    def _grads_by_device_and_dtype(self, optimizer):
        groups = {}
        for group in optimizer.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if p.grad.dtype is mindtorch.float16:
                    raise ValueError("Attempting to unscale FP16 gradients.")
                groups.setdefault((p.grad.device, p.grad.dtype), []).append(p.grad)
        return groups

    def unscale_(self, optimizer):
        """Divide the optimizer's gradients by the scale in place, and record on each gradient's device
        whether any of them overflowed (a device flag: nothing is read back here)."""
        if not self._enabled:
            return
        scale = self._require_scale("unscale_")
        state = self._state(optimizer)
        if state["stage"] is _UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] is _STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv_scale = scale.double().reciprocal().float()
        found, inv = {}, {}
        with mindtorch.no_grad():
            for (device, _), grads in self._grads_by_device_and_dtype(optimizer).items():
                if device not in found:
                    found[device] = mindtorch.zeros((), dtype=mindtorch.float32, device=device)
                    inv[device] = inv_scale.to(device)
                mindtorch._amp_foreach_non_finite_check_and_unscale_(grads, found[device], inv[device])
        state.update(stage=_UNSCALED, found_inf_per_device=found)

    def step(self, optimizer, *args, **kwargs):
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._require_scale("step")
        state = self._state(optimizer)
        if state["stage"] is _STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is _READY:
            self.unscale_(optimizer)
        if not state["found_inf_per_device"]:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        # the one host read of a step: whether any device saw an inf or a NaN
        overflowed = sum(float(v.item()) for v in state["found_inf_per_device"].values())
        result = None if overflowed else optimizer.step(*args, **kwargs)
        state["stage"] = _STEPPED
        return result

    def update(self, new_scale=None):
        """Set the scale, or adapt it on its device from the steps' overflow flags (no host read)."""
        if not self._enabled:
            return
        scale = self._require_scale("update")
        if new_scale is not None:
            self._set_scale(scale, new_scale)
        else:
            found = [
                f.to(scale.device)
                for s in self._per_optimizer.values()
                if s["stage"] is not _READY
                for f in s["found_inf_per_device"].values()
            ]
            if not found:
                raise AssertionError("No inf checks were recorded prior to update.")
            combined = found[0]
            for f in found[1:]:
                combined = combined + f
            mindtorch._amp_update_scale_(
                scale,
                self._growth_tracker,
                combined,
                self._growth_factor,
                self._backoff_factor,
                self._growth_interval,
            )
        self._per_optimizer = {}

    def _set_scale(self, scale, new_scale):
        if isinstance(new_scale, float):
            scale.fill_(new_scale)
            return
        reason = (
            "new_scale should be a float or a 1-element torch.cuda.FloatTensor or torch.FloatTensor with "
            "requires_grad=False."
        )
        if not (
            isinstance(new_scale, mindtorch.Tensor)
            and new_scale.device.type == self._device
            and new_scale.numel() == 1
            and not new_scale.requires_grad
        ):
            raise AssertionError(reason)
        scale.copy_(new_scale.reshape(scale.shape))

    def get_scale(self):
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else float(self._scale.item())

    def _get_growth_tracker(self):
        if not self._enabled:
            return 0
        return self._init_growth_tracker if self._growth_tracker is None else int(self._growth_tracker.item())

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, value):
        self._growth_factor = value

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, value):
        self._backoff_factor = value

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, value):
        self._growth_interval = value

    def state_dict(self):
        if not self._enabled:
            return {}
        return {
            "scale": self.get_scale(),
            "growth_factor": self._growth_factor,
            "backoff_factor": self._backoff_factor,
            "growth_interval": self._growth_interval,
            "_growth_tracker": self._get_growth_tracker(),
        }

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError(
                "The source state dict is empty, possibly because it was saved from a disabled instance of GradScaler."
            )
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])
