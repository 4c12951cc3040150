"""Foreach kernels: optimizer updates over whole parameter groups and GradScaler's unscale and scale update,
through ACLNN's foreach and loss-scaling operators."""

import numpy as np
from mindtorch.plugins import OPS, backend_for, dtypes as D, kernel_table, make_tensor

from .. import chips
from ..acl import types as A
from ..aclnn import Scalar, launch
from ..allocator import MIN_BLOCK_SIZE
from ..copy import DENSE, dense_layout, empty
from ..state import RUNTIME
from ._common import is_contiguous

KERNELS, kernel = kernel_table()

# the most tensors one foreach call takes per list: the operators' tiling holds 256 (ops-nn foreach_tiling_def.h)
LIST_LIMIT = 256


def _one_group(*lists):
    """Every tensor of the lists is a dense float tensor of one dtype the foreach operators take."""
    ts = [t for ts in lists for t in ts]
    if not ts:
        return False
    dt, dense = ts[0].dtype, DENSE.get
    for t in ts:  # one loop without a call per tensor: a group holds hundreds
        if t.dtype is not dt:
            return False
        known = dense(t._shape)
        if (known is None or known[1] != t._stride) and not is_contiguous(t):
            return False
    return chips.supports("ForeachAddcdivScalarV2", dt)


def _number(v):
    return Scalar(float(v), A.ACL_DOUBLE)


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
    """Adam / AdamW in eight launches per group (PyTorch's single-tensor update, op for op, on lists); the
    forms they do not cover (amsgrad, maximize, L2 weight decay, mixed steps or layouts) take core's composite."""
    if params and RUNTIME.captures and RUNTIME.capturing(params[0].device.index) is not None:
        # torch.cuda's rule (capturable=False): the step count lives on the host, so a replay would repeat the
        # captured bias correction
        raise RuntimeError(
            "Attempting NPU graph capture of an Adam/AdamW step: its step counts live on the host, so every replay "
            "would repeat the captured step's bias correction (capturable=True is not implemented)"
        )
    step = (
        None
        if amsgrad
        or maximize
        or (weight_decay and not decoupled)
        or not _one_group(params, grads, exp_avgs, exp_avg_sqs)
        else _next_step(state_steps)
    )
    if step is None:
        return OPS["_foreach_adam_"].composite(
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
        )
    params, grads, exp_avgs, exp_avg_sqs = (list(x) for x in (params, grads, exp_avgs, exp_avg_sqs))
    for i in range(0, len(params), LIST_LIMIT):
        chunk = slice(i, i + LIST_LIMIT)
        _adam_step(
            params[chunk], grads[chunk], exp_avgs[chunk], exp_avg_sqs[chunk], lr, beta1, beta2, weight_decay, eps, step
        )


# the step counts' dtypes the fast path bumps with NumPy in their own precision (PyTorch keeps float32 ones)
_STEP_DTYPES = {D.float32: np.float32, D.float64: np.float64}


def _next_step(state_steps):
    """The group's step count after this step, every count set to it, when the counts are 0-dim tensors of one
    value, dtype and device type (PyTorch's are float32 host tensors); else None, nothing changed. One read
    and one write per count through its backend's copy routines: no op call per count, since
    _foreach_adam_'s dispatch bumps their versions (its schema marks them written)."""
    s0 = state_steps[0]
    dt, kind = s0.dtype, s0.device.type
    if dt not in _STEP_DTYPES or any(s.dtype is not dt or s.device.type != kind or s._shape for s in state_steps):
        return None
    copies = backend_for(kind)
    held = {float(copies.to_host(s)) for s in state_steps}
    if len(held) != 1:
        return None
    new = _STEP_DTYPES[dt](held.pop()) + 1  # the count's own rounding, as its add_ would
    for s in state_steps:
        copies.copy_from_host(s, new)
    return float(new)


def _scratch_like(ts):
    """Dense tensors shaped as `ts` (one dtype and device), views of one allocation: one allocator call per
    group, not one per tensor. Each starts MIN_BLOCK_SIZE-aligned, as a block of its own would."""
    t0 = ts[0]
    per = MIN_BLOCK_SIZE // t0.dtype.itemsize
    dense = [dense_layout(t._shape) for t in ts]
    spans = [-(-n // per) * per for n, _ in dense]
    whole = empty((sum(spans),), t0.dtype, t0.device)
    storage, dtype, device = whole._storage, whole.dtype, whole.device
    out, offset = [], 0
    for t, (_, strides), n in zip(ts, dense, spans):
        out.append(make_tensor(storage, t._shape, strides, offset, dtype, device))
        offset += n
    return out


def _adam_step(params, grads, exp_avgs, exp_avg_sqs, lr, beta1, beta2, weight_decay, eps, step):
    if weight_decay:
        launch("ForeachMulScalarV2", params, _number(1 - lr * weight_decay), params)
    launch("ForeachLerpScalar", exp_avgs, grads, _number(1 - beta1), exp_avgs)
    launch("ForeachMulScalarV2", exp_avg_sqs, _number(beta2), exp_avg_sqs)
    launch("ForeachAddcmulScalarV2", exp_avg_sqs, grads, grads, _number(1 - beta2), exp_avg_sqs)
    denom = _scratch_like(exp_avg_sqs)
    launch("ForeachSqrt", exp_avg_sqs, denom)
    launch("ForeachDivScalarV2", denom, _number((1 - beta2**step) ** 0.5), denom)
    launch("ForeachAddScalarV2", denom, _number(eps), denom)
    launch("ForeachAddcdivScalarV2", params, exp_avgs, denom, _number(-lr / (1 - beta1**step)), params)


# -- loss scaling: GradScaler's unscale and scale update, on the device ------------------------------------


def _unscalable(grads, found_inf, inv_scale):
    """The grads fit aclnnForeachNonFiniteCheckAndUnscale on this chip: one dtype it takes, dense and non-empty;
    found_inf and inv_scale one float32 element each (the doc's rules)."""
    return (
        bool(grads)
        and all(t.dtype is grads[0].dtype and is_contiguous(t) and t.numel() for t in grads)
        and chips.supports("ForeachNonFiniteCheckAndUnscale", grads[0].dtype)
        and found_inf.dtype is inv_scale.dtype is D.float32
        and is_contiguous(found_inf)
    )


@kernel("_amp_foreach_non_finite_check_and_unscale_")
def amp_foreach_non_finite_check_and_unscale(m, grads, found_inf, inv_scale):
    grads = list(grads)
    if not _unscalable(grads, found_inf, inv_scale):
        return OPS["_amp_foreach_non_finite_check_and_unscale_"].composite(grads, found_inf, inv_scale)
    for i in range(0, len(grads), LIST_LIMIT):
        launch("ForeachNonFiniteCheckAndUnscale", grads[i : i + LIST_LIMIT], found_inf, inv_scale)


@kernel("_amp_update_scale_")
def amp_update_scale(m, scale, growth_tracker, found_inf, growth_factor, backoff_factor, growth_interval):
    """aclnnAmpUpdateScale writes the new scale and count into [1]-shaped views of PyTorch's one-element tensors."""
    if not (
        chips.supports("AmpUpdateScale", scale.dtype)
        and found_inf.dtype is scale.dtype
        and 1 <= growth_interval <= 2**31 - 1
        and all(is_contiguous(t) for t in (scale, growth_tracker, found_inf))
    ):
        return OPS["_amp_update_scale_"].composite(
            scale, growth_tracker, found_inf, growth_factor, backoff_factor, growth_interval
        )
    s, g = scale.reshape(1), growth_tracker.reshape(1)
    launch(
        "AmpUpdateScale", s, g, found_inf.reshape(1), float(growth_factor), float(backoff_factor), growth_interval, s, g
    )
    return scale
