"""Gradient utilities: clipping (in place, under no_grad) and zeroing."""

import math

import mindtorch

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "get_total_norm", "clip_grads_with_norm_"]


def _params(parameters):
    if isinstance(parameters, mindtorch.Tensor):
        return [parameters]
    return list(parameters)


def _device_has_foreach_support(device):
    """The foreach ops run on every device with a backend (through a kernel, or the composite where a backend has
    none); meta tensors take the per-tensor path, as in PyTorch."""
    return device.type != "meta"


def _has_foreach_support(tensors, device):
    return _device_has_foreach_support(device) and all(t is None or type(t) is mindtorch.Tensor for t in tensors)


def _by_device_and_dtype(tensors):
    """{(device, dtype): [tensors]} in the order each pair first appears."""
    groups = {}
    for t in tensors:
        groups.setdefault((t.device, t.dtype), []).append(t)
    return groups


def _use_foreach(foreach, tensors, device):
    """foreach=None: the foreach op wherever the device supports it; True: the foreach op, or PyTorch's error."""
    if (foreach is None and _has_foreach_support(tensors, device)) or (foreach and _device_has_foreach_support(device)):
        return True
    if foreach:
        raise RuntimeError(f"foreach=True was passed, but can't use the foreach API on {device.type} tensors")
    return False


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    tensors = _params(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return mindtorch.tensor(0.0)
    first = tensors[0].device
    with mindtorch.no_grad():
        norms = []
        for (device, _), group in _by_device_and_dtype(tensors).items():
            if _use_foreach(foreach, group, device):
                norms.extend(mindtorch._foreach_norm(group, norm_type))
            else:
                norms.extend(mindtorch.linalg.vector_norm(g, norm_type) for g in group)
        on_first = [n if n.device == first else n.to(first) for n in norms]
        total = mindtorch.linalg.vector_norm(mindtorch.stack(on_first), norm_type)
    if error_if_nonfinite and not math.isfinite(float(total)):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so "
            "it cannot be clipped. To disable this error and scale the gradients by the non-finite "
            "norm anyway, set `error_if_nonfinite=False`"
        )
    return total


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    grads = [p.grad for p in _params(parameters) if p.grad is not None]
    max_norm = float(max_norm)
    if not grads:
        return
    with mindtorch.no_grad():
        # multiplying by a coefficient clamped to 1 (rather than testing it) keeps a device's norm on the device
        coef = mindtorch.clamp(max_norm / (total_norm + 1e-6), max=1.0)
        for (device, _), group in _by_device_and_dtype(grads).items():
            on_device = coef.to(device)
            if _use_foreach(foreach, group, device):
                mindtorch._foreach_mul_(group, on_device)
            else:
                for g in group:
                    g.mul_(on_device)


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scales the gradients so their joint norm is at most max_norm; returns the norm before clipping."""
    params = _params(parameters)
    grads = [p.grad for p in params if p.grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(params, max_norm, total, foreach)
    return total


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    import warnings

    warnings.warn(
        "`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
        FutureWarning,
        stacklevel=2,
    )
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value, foreach=None):
    clip_value = float(clip_value)
    with mindtorch.no_grad():
        for p in _params(parameters):
            if p.grad is not None:
                p.grad.clamp_(min=-clip_value, max=clip_value)


def zero_grads(parameters, set_to_none=True):
    """Module.zero_grad / Optimizer.zero_grad: drop each .grad, or zero it in place (detached first
    when it carries history, as PyTorch does)."""
    for p in parameters:
        g = p.grad
        if g is None:
            continue
        if set_to_none:
            p.grad = None
        else:
            if g.grad_fn is not None:
                g = g.detach()
                p._grad = g
            g.zero_()
