"""Helpers the distributions share: parameters broadcast to one shape, probs <-> logits, cached
properties, sums over the rightmost dimensions, and the constants the densities use."""

import math

import mindtorch

__all__ = ["broadcast_all", "logits_to_probs", "probs_to_logits", "lazy_property"]

LOG_SQRT_2PI = math.log(math.sqrt(2 * math.pi))
EULER = 0.57721566490153286061  # the Euler-Mascheroni constant


def broadcast_all(*values):
    """Tensors (numbers become tensors of the default dtype) broadcast to one shape."""
    ref = next((v for v in values if isinstance(v, mindtorch.Tensor)), None)
    kw = {} if ref is None else {"dtype": ref.dtype if ref.dtype.is_floating_point else None, "device": ref.device}
    tensors = [v if isinstance(v, mindtorch.Tensor) else mindtorch.tensor(float(v), **kw) for v in values]
    return mindtorch.broadcast_tensors(*tensors)


def probs_to_logits(probs, is_binary=False):
    eps = mindtorch.finfo(probs.dtype).eps
    p = probs.clamp(min=eps, max=1 - eps)
    return mindtorch.log(p) - mindtorch.log1p(-p) if is_binary else mindtorch.log(p)


def logits_to_probs(logits, is_binary=False):
    return mindtorch.sigmoid(logits) if is_binary else mindtorch.softmax(logits, dim=-1)


class lazy_property:
    """Computed on first access and cached on the instance (probs from logits and the other way)."""

    def __init__(self, fn):
        self.fn = fn
        self.__doc__ = fn.__doc__

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        value = self.fn(instance)
        instance.__dict__[self.fn.__name__] = value
        return value


def _sum_rightmost(value, dim):
    """`value` summed over its `dim` rightmost dimensions (an event's log-density terms)."""
    return value.reshape(tuple(value.shape[: value.dim() - dim]) + (-1,)).sum(-1) if dim > 0 else value


def _as(value, like):
    """`value` as a tensor of `like`'s dtype and device."""
    return mindtorch.as_tensor(value, dtype=like.dtype, device=like.device)
