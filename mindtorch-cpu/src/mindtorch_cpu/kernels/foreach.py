"""Optimizer updates over whole parameter lists: the single-tensor update's NumPy steps, in the same
order and dtype (so results match it bit for bit), without an op dispatch per step and parameter."""

import numpy as np
from mindtorch.plugins import OPS, Tensor, TensorMeta

from .. import native
from ..convert import arr, quiet, wrap
from ..parallel import threads_for
from ..sizes import THRESHOLDS
from . import kernel_table
from .pointwise import _HALF, KERNELS as POINTWISE, _addcdiv_update, _addcmul_update, _lerp_update
from .reduction import vector_norm

KERNELS, kernel = kernel_table()


def _scaled_add(g, p, alpha):
    return np.add(g, np.multiply(p, np.asarray(alpha).astype(g.dtype), dtype=g.dtype), dtype=g.dtype)


@kernel("_foreach_adam_")
def foreach_adam(
    m,
    params,
    grads,
    exp_avgs,
    exp_avg_sqs,
    max_exp_avg_sqs,
    state_steps,
    lr,
    beta1,
    beta2,
    weight_decay,
    eps,
    amsgrad,
    maximize,
    decoupled,
):
    split = THRESHOLDS["elementwise"].split
    with quiet():
        for i, pt in enumerate(params):
            p, g, ea, es, st = arr(pt), arr(grads[i]), arr(exp_avgs[i]), arr(exp_avg_sqs[i]), arr(state_steps[i])
            mx = arr(max_exp_avg_sqs[i]) if amsgrad else None
            st += 1
            if native.usable(p, g, ea, es, *(mx,) * amsgrad) and p.shape == g.shape:  # one compiled pass
                step = float(st)
                native.adam(
                    p,
                    g,
                    ea,
                    es,
                    mx,
                    beta1=beta1,
                    beta2=beta2,
                    lr=lr,
                    weight_decay=weight_decay,
                    eps=eps,
                    decoupled=decoupled,
                    maximize=maximize,
                    step_size=lr / (1 - beta1**step),
                    bc2_sqrt=(1 - beta2**step) ** 0.5,
                    threads=threads_for(p.size, split),
                )
                continue
            if maximize:
                g = np.negative(g)
            if weight_decay != 0:
                if decoupled:
                    p *= 1 - lr * weight_decay
                else:
                    g = _scaled_add(g, p, weight_decay)
            _lerp_update(ea, g, None, 1 - beta1)
            es *= beta2
            _addcmul_update(es, g, g, 1 - beta2)
            step = float(st)
            step_size = lr / (1 - beta1**step)
            bc2_sqrt = (1 - beta2**step) ** 0.5
            if amsgrad:
                np.maximum(mx, es, out=mx)
                denom = np.sqrt(mx)
            else:
                denom = np.sqrt(es)
            denom /= bc2_sqrt
            denom += eps
            _addcdiv_update(p, ea, denom, -step_size)


@kernel("_foreach_sgd_")
def foreach_sgd(m, params, grads, momentum_buffers, lr, momentum, dampening, weight_decay, nesterov, maximize, fresh):
    if params and params[0].dtype in _HALF:  # each step rounds as its op does: the single-tensor update's ops
        return OPS["_foreach_sgd_"].composite(
            params, grads, momentum_buffers, lr, momentum, dampening, weight_decay, nesterov, maximize, fresh
        )
    with quiet():
        for i, pt in enumerate(params):
            p, g = arr(pt), arr(grads[i])
            if maximize:
                g = np.negative(g)
            if weight_decay != 0:
                g = _scaled_add(g, p, weight_decay)
            if momentum != 0:
                buf = arr(momentum_buffers[i])
                if fresh:
                    np.copyto(buf, g)
                else:
                    buf *= momentum
                    if dampening == 0:
                        buf += g
                    else:
                        buf += np.multiply(g, np.asarray(1 - dampening).astype(g.dtype))
                g = _scaled_add(g, buf, momentum) if nesterov else buf
            p += np.multiply(g, np.asarray(-lr).astype(g.dtype))


# -- gradient clipping: the norms of a list, and its scaling ----------------------------------------------


_REAL = (np.dtype(np.float32), np.dtype(np.float64))


@kernel("_foreach_norm")
def foreach_norm(m, tensors, ord=2, dtype=None):
    """linalg.vector_norm's kernel per tensor (the same results), without an op dispatch per tensor; the
    2-norm of a float32 / float64 tensor is its sum of squares in one pass (what that kernel computes)."""
    if float(ord) != 2 or dtype is not None:
        return tuple(vector_norm(mi, t, ord, None, False, dtype) for mi, t in zip(m, tensors))
    out = []
    for mi, t in zip(m, tensors):
        x = arr(t)
        if x.dtype in _REAL:
            out.append(wrap(np.sqrt(np.sum(x * x, dtype=x.dtype)).reshape(()), mi.dtype))
        else:
            out.append(vector_norm(mi, t, ord, None, False, None))
    return tuple(out)


def _keeps_dtype(t, operand):
    """t * operand has t's dtype and shape, so mul_'s kernel can write it in place: t is floating and the
    operand a real number, a 0-dim real tensor, or a tensor of t's dtype and shape."""
    if not t.dtype.is_floating_point:
        return False
    if operand.__class__ in (float, int):
        return True
    if not isinstance(operand, Tensor) or operand.device.type != "cpu" or operand.dtype.is_complex:
        return False
    return not operand._shape or (operand.dtype is t.dtype and operand._shape == t._shape)


def _scale_each(name, tensors, operands):
    """mul_'s kernel on each tensor; a list with any other form (integer tensors, promotion, broadcasting)
    takes the op's composite, one mul_ op per tensor."""
    if not all(_keeps_dtype(t, o) for t, o in zip(tensors, operands)):
        return OPS[name].composite(tensors, operands if name.endswith("List") else operands[0])
    mul_ = POINTWISE["mul_"]
    for t, o in zip(tensors, operands):
        mul_(TensorMeta(t._shape, t.dtype), t, o)
    return list(tensors)


@kernel("_foreach_mul_.Scalar")
def foreach_mul_scalar_(m, tensors, scalar):
    return _scale_each("_foreach_mul_.Scalar", tensors, [scalar] * len(tensors))


@kernel("_foreach_mul_.Tensor")
def foreach_mul_tensor_(m, tensors, other):
    return _scale_each("_foreach_mul_.Tensor", tensors, [other] * len(tensors))


@kernel("_foreach_mul_.List")
def foreach_mul_list_(m, tensors, other):
    return _scale_each("_foreach_mul_.List", tensors, other)
