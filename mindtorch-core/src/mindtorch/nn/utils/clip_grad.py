"""Gradient utilities: clipping (in place, under no_grad) and zeroing."""

import math

import mindtorch

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "get_total_norm", "clip_grads_with_norm_"]


def _params(parameters):
    if isinstance(parameters, mindtorch.Tensor):
        return [parameters]
    return list(parameters)


def _vector_norm(t, p):
    linalg = getattr(mindtorch, "linalg", None)
    if linalg is not None and hasattr(linalg, "vector_norm"):
        return linalg.vector_norm(t, p)
    if p == math.inf:
        return t.abs().amax()
    if p == -math.inf:
        return t.abs().amin()
    if p == 2:
        return (t * t).sum().sqrt()
    return (t.abs() ** p).sum() ** (1.0 / p)


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    tensors = _params(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return mindtorch.tensor(0.0)
    with mindtorch.no_grad():
        norms = [_vector_norm(g, norm_type) for g in tensors]
        dev = norms[0].device
        total = _vector_norm(mindtorch.stack([n.to(dev) for n in norms]), norm_type)
    if error_if_nonfinite and not math.isfinite(float(total)):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so "
            "it cannot be clipped. To disable this error and scale the gradients by the non-finite "
            "norm anyway, set `error_if_nonfinite=False`"
        )
    return total


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    grads = [p.grad for p in _params(parameters) if p.grad is not None]
    if not grads:
        return
    with mindtorch.no_grad():
        clip_coef = float(max_norm) / (total_norm + 1e-6)
        clip_coef = clip_coef.clamp(max=1.0)
        for g in grads:
            g.mul_(clip_coef.to(g.device, g.dtype) if clip_coef.dtype is not g.dtype else clip_coef)


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scales the gradients so their joint norm is at most max_norm; returns the norm before clipping."""
    params = _params(parameters)
    grads = [p.grad for p in params if p.grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite)
    clip_grads_with_norm_(params, max_norm, total)
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
