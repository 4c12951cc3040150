"""Optimizer updates over all parameters at once (PyTorch's foreach path).

One op call per parameter group instead of ~8 per parameter: a backend's kernel updates every
tensor in place; backends without one get the composite, PyTorch's single-tensor update op for op.
"""

from .. import _dtype as D
from .._dtype import _cname
from .formulas import torch
from .meta import TensorMeta
from .registry import defop

F = "foreach"


def adam_composite(
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
    for i, p in enumerate(params):
        grad, exp_avg, exp_avg_sq, step_t = grads[i], exp_avgs[i], exp_avg_sqs[i], state_steps[i]
        if maximize:
            grad = -grad
        step_t.add_(1)
        if weight_decay != 0:
            if decoupled:
                p.mul_(1 - lr * weight_decay)
            else:
                grad = grad.add(p, alpha=weight_decay)
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        step = step_t.item()
        step_size = lr / (1 - beta1**step)
        bc2_sqrt = (1 - beta2**step) ** 0.5
        if amsgrad:
            mx = max_exp_avg_sqs[i]
            mx.copy_(torch.maximum(mx, exp_avg_sq))
            denom = mx.sqrt().div_(bc2_sqrt).add_(eps)
        else:
            denom = exp_avg_sq.sqrt().div_(bc2_sqrt).add_(eps)
        p.addcdiv_(exp_avg, denom, value=-step_size)


def sgd_composite(params, grads, momentum_buffers, lr, momentum, dampening, weight_decay, nesterov, maximize, fresh):
    """momentum_buffers[i] was just made from the gradient when `fresh` (PyTorch's first step: no dampening)."""
    for i, p in enumerate(params):
        grad = grads[i]
        if maximize:
            grad = -grad
        if weight_decay != 0:
            grad = grad.add(p, alpha=weight_decay)
        if momentum != 0:
            buf = momentum_buffers[i]
            if fresh:
                buf.copy_(grad)
            else:
                buf.mul_(momentum).add_(grad, alpha=1 - dampening)
            grad = grad.add(buf, alpha=momentum) if nesterov else buf
        p.add_(grad, alpha=-lr)


def _floating_params(params, *rest, **kwargs):
    """The shape rule of the optimizer steps: it checks, and has no result (kernels get meta=None). An update
    scaled by a float learning rate has no integer form: PyTorch's error for integral tensors."""
    for p in params:
        if not p.dtype.is_floating_point and not p.dtype.is_complex:
            raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")


defop(
    "_foreach_adam_(Tensor(a!)[] params, Tensor[] grads, Tensor(b!)[] exp_avgs, Tensor(c!)[] exp_avg_sqs, "
    "Tensor(d!)[] max_exp_avg_sqs, Tensor(e!)[] state_steps, *, float lr, float beta1, float beta2, float weight_decay, "
    "float eps, bool amsgrad, bool maximize, bool decoupled) -> ()",
    composite=adam_composite,
    meta=_floating_params,
    method=False,
    function=False,
    family=F,
)
defop(
    "_foreach_sgd_(Tensor(a!)[] params, Tensor[] grads, Tensor(b!)[] momentum_buffers, *, float lr, float momentum, "
    "float dampening, float weight_decay, bool nesterov, bool maximize, bool fresh) -> ()",
    composite=sgd_composite,
    meta=_floating_params,
    method=False,
    function=False,
    family=F,
)


# -- loss scaling (GradScaler): the overflow check and the scale update stay on the device ---------------


def non_finite_check_and_unscale_composite(grads, found_inf, inv_scale):
    """Multiply every gradient by inv_scale; found_inf becomes 1 when any gradient holds an inf or a NaN."""
    _unscale_checks(grads, found_inf, inv_scale)  # the composite path runs no shape rule of its own
    inv = inv_scale.reshape(())
    flag = found_inf.reshape(())
    for g in grads:
        flag.copy_(torch.maximum(flag, g.isfinite().logical_not().any().to(flag.dtype)))
        g.mul_(inv)


def update_scale_composite(scale, growth_tracker, found_inf, growth_factor, backoff_factor, growth_interval):
    """PyTorch's rule without a host read: back off and restart the count on an overflow; after
    growth_interval clean steps grow (unless the grown scale would not be finite) and restart the count."""
    _update_scale_checks(scale, growth_tracker, found_inf, growth_factor, backoff_factor, growth_interval)
    inf = found_inf.reshape(()) > 0
    counted = torch.where(inf, torch.zeros_like(growth_tracker), growth_tracker + 1)
    grown = scale * growth_factor
    grow = inf.logical_not() & (counted == growth_interval)
    scale.copy_(torch.where(inf, scale * backoff_factor, torch.where(grow & grown.isfinite(), grown, scale)))
    growth_tracker.copy_(torch.where(grow, torch.zeros_like(counted), counted))
    return scale


def _one_float(t, what):
    if t.numel() != 1:
        raise RuntimeError(f"{what} must be a 1-element tensor.")
    if t.dtype is not D.float32:
        raise RuntimeError(f"{what} must be a float tensor.")


def _unscale_checks(grads, found_inf, inv_scale):
    _one_float(inv_scale, "inv_scale")
    _one_float(found_inf, "found_inf")
    for g in grads:
        if not g.dtype.is_floating_point:
            kname = f"_amp_foreach_non_finite_check_and_unscale_{g.device.type}"
            raise NotImplementedError(f"\"{kname}\" not implemented for '{_cname(g.dtype)}'")


def _update_scale_checks(scale, growth_tracker, found_inf, growth_factor, backoff_factor, growth_interval):
    if growth_tracker.numel() != 1:
        raise RuntimeError("growth_tracker must be a 1-element tensor.")
    _one_float(scale, "current_scale")
    if growth_tracker.dtype is not D.int32:
        raise RuntimeError("growth_tracker must be an int tensor.")
    _one_float(found_inf, "found_inf")
    return TensorMeta(tuple(scale.shape), scale.dtype)


defop(
    "_amp_foreach_non_finite_check_and_unscale_(Tensor(a!)[] self, Tensor(b!) found_inf, Tensor inv_scale) -> ()",
    composite=non_finite_check_and_unscale_composite,
    meta=_unscale_checks,
    method=False,
    family=F,
)
defop(
    "_amp_update_scale_(Tensor(a!) self, Tensor(b!) growth_tracker, Tensor found_inf, float scale_growth_factor, "
    "float scale_backoff_factor, int growth_interval) -> Tensor(a!)",
    composite=update_scale_composite,
    meta=_update_scale_checks,
    method=False,
    family=F,
)


# -- norms and scaling over tensor lists (gradient clipping) ---------------------------------------------


def _nonempty(tensors):
    if len(tensors) == 0:
        raise RuntimeError("Tensor list must have at least one tensor.")


def _norm_checks(tensors, ord=2, dtype=None):
    """PyTorch's checks of _foreach_norm, and the results' shapes and dtypes: one 0-dim norm per tensor."""
    _nonempty(tensors)
    if dtype is not None and dtype._kind < 2:
        raise RuntimeError(f"linalg.vector_norm: dtype should be floating point or complex, but got {_cname(dtype)}")
    metas = []
    for t in tensors:
        if t.dtype._kind < 2:
            raise RuntimeError(
                f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got {_cname(t.dtype)}"
            )
        if t.numel() == 0 and (ord < 0 or ord == float("inf")):
            what = "infinity" if ord == float("inf") else int(ord) if float(ord).is_integer() else ord
            raise RuntimeError(
                f"_foreach_norm cannot compute the {what} norm on an empty tensor because the operation does not "
                "have an identity"
            )
        if dtype is not None:
            _norm_dtype_checks(t.dtype, dtype)
        metas.append(TensorMeta((), (dtype or t.dtype).to_real()))
    return tuple(metas)


def _norm_dtype_checks(src, dtype):
    """A norm's dtype= keeps the input's kind (real or complex) and never narrows it."""
    if src.is_complex != dtype.is_complex:
        want = "complex for complex" if src.is_complex else "real for real"
        raise RuntimeError(f"linalg.vector_norm: dtype should be {want} inputs, but got {_cname(dtype)}")
    if D.promote_types(src, dtype) is not dtype:
        raise RuntimeError(
            f"linalg.vector_norm: the dtype of the input ({_cname(src)}) should be convertible without narrowing "
            f"to the specified dtype ({_cname(dtype)})"
        )


def norm_composite(tensors, ord=2, dtype=None):
    """One linalg.vector_norm per tensor (differentiable through each)."""
    _norm_checks(tensors, ord, dtype)
    return tuple(torch.linalg.vector_norm(t, ord, dtype=dtype) for t in tensors)


defop(
    "_foreach_norm(Tensor[] self, Scalar ord=2, ScalarType? dtype=None) -> Tensor[]",
    composite=norm_composite,
    meta=_norm_checks,
    method=False,
    family=F,
)


def _mul_list_checks(tensors, other):
    _nonempty(tensors)
    if len(other) != len(tensors):
        raise RuntimeError(f"Tensor lists must have the same number of tensors, got {len(tensors)} and {len(other)}")


def _mul_tensor_checks(tensors, other):
    _nonempty(tensors)
    if other.dim() != 0:
        raise RuntimeError(
            f"scalar tensor expected to be 0 dim but it has {other.dim()} dimensions and {other.numel()} elements."
        )


def _mul_scalar_checks(tensors, scalar):
    _nonempty(tensors)


# overload: (the operand's schema type, its checks, the operand of tensor i)
_MUL_FORMS = {
    "List": ("Tensor[] other", _mul_list_checks, lambda other, i: other[i]),
    "Tensor": ("Tensor other", _mul_tensor_checks, lambda other, i: other),
    "Scalar": ("Scalar scalar", _mul_scalar_checks, lambda other, i: other),
}


def _declare_mul(overload, operand_type, checks, operand):
    def mul_(tensors, other):
        """Each tensor multiplied in place, one mul_ per tensor; the tensors come back as a list (as from
        PyTorch's binding of the in-place foreach ops)."""
        checks(tensors, other)
        for i, t in enumerate(tensors):
            t.mul_(operand(other, i))
        return list(tensors)

    def mul(tensors, other):
        checks(tensors, other)
        return tuple(t.mul(operand(other, i)) for i, t in enumerate(tensors))

    defop(
        f"_foreach_mul_(Tensor(a!)[] self, {operand_type}) -> ()",
        composite=mul_,
        meta=lambda tensors, other: checks(tensors, other),
        overload=overload,
        method=False,
        family=F,
    )
    defop(
        f"_foreach_mul(Tensor[] self, {operand_type}) -> Tensor[]",
        composite=mul,
        overload=overload,
        method=False,
        family=F,
    )


for _overload, (_type, _checks, _operand) in _MUL_FORMS.items():
    _declare_mul(_overload, _type, _checks, _operand)
