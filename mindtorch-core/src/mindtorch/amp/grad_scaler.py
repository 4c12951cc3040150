"""GradScaler: scales the loss so small gradients survive low precision, skips steps whose gradients
overflowed, and adapts the scale (PyTorch's rule: back off on overflow, grow after growth_interval
clean steps)."""

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
            self._scale = None
            self._growth_tracker = 0
            self._per_optimizer = {}

    def is_enabled(self):
        return self._enabled

    def _lazy_scale(self):
        if self._scale is None:
            self._scale = mindtorch.full((), self._init_scale, dtype=mindtorch.float32)
        return self._scale

    def scale(self, outputs):
        if not self._enabled:
            return outputs
        scale = self._lazy_scale()
        if isinstance(outputs, mindtorch.Tensor):
            return outputs * scale.to(outputs.device)
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(o) for o in outputs)
        raise ValueError("outputs must be a Tensor or an iterable of Tensors")

    def _state(self, optimizer):
        return self._per_optimizer.setdefault(id(optimizer), {"stage": _READY, "found_inf": False})

    def unscale_(self, optimizer):
        if not self._enabled:
            return
        state = self._state(optimizer)
        if state["stage"] is _UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] is _STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv = self._lazy_scale().double().reciprocal().float()
        found = False
        with mindtorch.no_grad():
            for group in optimizer.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    p.grad.mul_(inv)
                    found = found or not bool(mindtorch.isfinite(p.grad).all())
        state.update(stage=_UNSCALED, found_inf=found)

    def step(self, optimizer, *args, **kwargs):
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        state = self._state(optimizer)
        if state["stage"] is _STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is _READY:
            self.unscale_(optimizer)
        result = None if state["found_inf"] else optimizer.step(*args, **kwargs)
        state["stage"] = _STEPPED
        return result

    def update(self, new_scale=None):
        if not self._enabled:
            return
        scale = self._lazy_scale()
        if new_scale is not None:
            scale.fill_(float(new_scale))
        else:
            found = [s["found_inf"] for s in self._per_optimizer.values() if s["stage"] is not _READY]
            if not found:
                raise AssertionError("No inf checks were recorded prior to update.")
            if any(found):
                scale.mul_(self._backoff_factor)
                self._growth_tracker = 0
            else:
                self._growth_tracker += 1
                if self._growth_tracker == self._growth_interval:
                    scale.mul_(self._growth_factor)
                    self._growth_tracker = 0
        self._per_optimizer = {}

    def get_scale(self):
        return float(self._lazy_scale().item()) if self._enabled else 1.0

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
            "_growth_tracker": self._growth_tracker,
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
        self._growth_tracker = state_dict["_growth_tracker"]
