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


# -- pointwise ops over tensor lists: one table row per op, one single-tensor op per tensor ------------


def _same_length(tensors, other):
    if len(other) != len(tensors):
        raise RuntimeError(f"Tensor lists must have the same number of tensors, got {len(tensors)} and {len(other)}")


def _scalar_list_length(tensors, scalars):
    if len(scalars) != len(tensors):
        raise RuntimeError("Tensor list must have same number of elements as scalar list.")


def _zero_dim(tensors, other):
    if other.dim() != 0:
        raise RuntimeError(
            f"scalar tensor expected to be 0 dim but it has {other.dim()} dimensions and {other.numel()} elements."
        )


def _packed(tensors, scalars):
    if scalars.dim() != 1:
        raise RuntimeError(f"Expected packed scalar Tensor to be of dimension 1. Got {scalars.dim()} instead.")
    if scalars.numel() != len(tensors):
        raise RuntimeError(
            f"Expected length of scalars to match input of length {len(tensors)} but got {scalars.numel()} instead."
        )


# an operand's schema type: (its check against the tensor list, its value for tensor i)
_KINDS = {
    "Tensor[]": (_same_length, lambda v, i: v[i]),
    "Scalar[]": (_scalar_list_length, lambda v, i: v[i]),
    "Scalar": (None, lambda v, i: v),
    "bool": (None, lambda v, i: v),
    "Tensor": (_zero_dim, lambda v, i: v),
    # a ternary op's "Tensor scalars": one number per tensor, packed in a 1-D tensor
    "packed": (_packed, lambda v, i: v[i].item()),
}


def parse_operands(text):
    """'Tensor[] other, *, Scalar alpha=1' -> [(kind, keyword name or None)] in schema order."""
    parsed, keyword = [], False
    for part in filter(None, (p.strip() for p in text.split(","))):
        if part == "*":
            keyword = True
            continue
        typ, name = part.split("=")[0].split()
        kind = "packed" if (typ, name) == ("Tensor", "scalars") else typ
        parsed.append((kind, name if keyword else None))
    return parsed


def _per_tensor(operands, values, tensors):
    """Checks the operands against the list and returns, per tensor, the single op's (args, kwargs)."""
    _nonempty(tensors)
    # PyTorch checks a packed scalar tensor before the lists' lengths
    for (kind, _), v in sorted(zip(operands, values), key=lambda kv: kv[0][0] != "packed"):
        check = _KINDS[kind][0]
        if check is not None:
            check(tensors, v)
    calls = []
    for i in range(len(tensors)):
        args, kwargs = [], {}
        for (kind, keyword), v in zip(operands, values):
            x = _KINDS[kind][1](v, i)
            if keyword is None:
                args.append(x)
            else:
                kwargs[keyword] = x
        calls.append((args, kwargs))
    return calls


def _write_back(t, op, args, kwargs):
    """t.op_(...) where the tensor has that method; else the result copied back, refusing what t's dtype
    cannot hold (as the in-place single-tensor ops do)."""
    method = getattr(t, op + "_", None)
    if method is not None:
        method(*args, **kwargs)
        return
    result = getattr(torch, op)(t, *args, **kwargs)
    if not D.can_cast(result.dtype, t.dtype):
        raise RuntimeError(
            f"result type {_cname(result.dtype)} can't be cast to the desired output type {_cname(t.dtype)}"
        )
    t.copy_(result)


def _declare(name, op, overload, operand_text, last_as=None, in_place=True, out_of_place=True):
    """_foreach_<name>(_) for one overload; `last_as` names the keyword the single op takes the last operand by."""
    operands = parse_operands(operand_text)
    if last_as is not None:
        operands[-1] = (operands[-1][0], last_as)
    tail = f", {operand_text}" if operand_text else ""

    def inplace(tensors, *values):
        """Each tensor updated in place by its single-tensor op; the tensors come back as a list (as from
        PyTorch's binding of the in-place foreach ops)."""
        for t, (args, kwargs) in zip(tensors, _per_tensor(operands, values, tensors)):
            _write_back(t, op, args, kwargs)
        return list(tensors)

    def outplace(tensors, *values):
        calls = _per_tensor(operands, values, tensors)
        return tuple(getattr(torch, op)(t, *args, **kwargs) for t, (args, kwargs) in zip(tensors, calls))

    if in_place:
        defop(
            f"{name}_(Tensor(a!)[] self{tail}) -> ()",
            composite=inplace,
            meta=lambda tensors, *values: _per_tensor(operands, values, tensors) and None,
            overload=overload,
            method=False,
            family=F,
        )
    if out_of_place:
        defop(f"{name}(Tensor[] self{tail}) -> Tensor[]", composite=outplace, overload=overload, method=False, family=F)


# a 0-dim tensor also reads as a Scalar: the Tensor forms come first so that overload takes it
_BINARY = {
    "List": "Tensor[] other",
    "Tensor": "Tensor other",
    "Scalar": "Scalar scalar",
    "ScalarList": "Scalar[] scalars",
}
_ALPHA = ", *, Scalar alpha=1"
_ADD_ALPHA = {"Tensor": _BINARY["Tensor"] + _ALPHA, "List": _BINARY["List"] + _ALPHA}
_MINMAX = {k: _BINARY[k] for k in ("List", "Scalar", "ScalarList")}
_TERNARY = {
    "Tensor": "Tensor[] tensor1, Tensor[] tensor2, Tensor scalars",
    "Scalar": "Tensor[] tensor1, Tensor[] tensor2, Scalar value=1",
    "ScalarList": "Tensor[] tensor1, Tensor[] tensor2, Scalar[] scalars",
}
_UNARY = [
    "abs",
    "acos",
    "asin",
    "atan",
    "ceil",
    "cos",
    "cosh",
    "erf",
    "erfc",
    "exp",
    "expm1",
    "floor",
    "frac",
    "lgamma",
    "log",
    "log10",
    "log1p",
    "log2",
    "neg",
    "reciprocal",
    "round",
    "rsqrt",
    "sigmoid",
    "sign",
    "sin",
    "sinh",
    "sqrt",
    "tan",
    "tanh",
    "trunc",
]

# _foreach_<name>: (the single-tensor op, {overload: its operands' schema text}[, the keyword the single op
# takes the last operand by])
FOREACH_OPS = {
    **{u: (u, {"": ""}) for u in _UNARY},
    # PyTorch's binding tries add's number forms before its alpha-taking ones: a 0-dim tensor without alpha
    # adds as a number
    "add": ("add", {"Scalar": _BINARY["Scalar"], "ScalarList": _BINARY["ScalarList"], **_ADD_ALPHA}),
    "sub": ("sub", {k: _BINARY[k] + (_ALPHA if k == "List" else "") for k in ("List", "Scalar", "ScalarList")}),
    "mul": ("mul", _BINARY),
    "div": ("div", _BINARY),
    "clamp_min": ("clamp_min", _MINMAX),
    "clamp_max": ("clamp_max", _MINMAX),
    "maximum": ("clamp_min", _MINMAX),  # with a number or a list: one clamp_min per tensor
    "minimum": ("clamp_max", _MINMAX),
    "pow": ("pow", {"Scalar": "Scalar exponent", "ScalarList": "Scalar[] exponent", "List": "Tensor[] exponent"}),
    "addcmul": ("addcmul", _TERNARY, "value"),
    "addcdiv": ("addcdiv", _TERNARY, "value"),
    "lerp": (
        "lerp",
        {
            "Scalar": "Tensor[] tensors1, Scalar weight",
            "ScalarList": "Tensor[] tensors1, Scalar[] weight",
            "List": "Tensor[] tensors1, Tensor[] weights",
        },
    ),
}

for _name, (_op, _forms, *_last_as) in FOREACH_OPS.items():
    for _overload, _text in _forms.items():
        _declare(f"_foreach_{_name}", _op, _overload, _text, *_last_as)
_declare("_foreach_zero", "zero", "", "", out_of_place=False)
_declare("_foreach_copy", "copy", "", "Tensor[] src, bool non_blocking=False", out_of_place=False)


def pow_scalar_and_tensor(base, exponent):
    """A number raised to each tensor of a list."""
    _nonempty(exponent)
    return tuple(torch.pow(base, e) for e in exponent)


defop(
    "_foreach_pow(Scalar self, Tensor[] exponent) -> Tensor[]",
    composite=pow_scalar_and_tensor,
    overload="ScalarAndTensor",
    method=False,
    family=F,
)
