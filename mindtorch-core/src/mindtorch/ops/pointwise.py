"""Pointwise operators: arithmetic, comparisons, unary math, activations, PyTorch's spelled-out aliases
(multiply, divide, ...), number-theory and floating-point ops (gcd, lcm, hypot, copysign, nextafter,
frexp, igamma) and the compositions programs reach for (heaviside, deg2rad, ldexp, xlogy, sinc, ...)."""

import math
import warnings

from .. import _dtype as D
from .._geometry import broadcast_shapes as _bs2
from . import meta as M
from .formulas import SQRT_2_OVER_PI, computed_in_float32, torch
from .meta import TensorMeta
from .reduction import named_result
from .registry import OPS, copy_into_self, defop


def broadcast_shapes(*shapes):
    out = shapes[0]
    for s in shapes[1:]:
        out = _bs2(out, s)
    return out


F = "pointwise"

from .._dtype import _cname  # noqa: E402

_not_impl = M.not_implemented


def _dt(x):
    return x.dtype if hasattr(x, "_shape") else D.result_type(x)


# --- shape-and-dtype rules local to this family -----------------------------------------
def _real_no_bool(kname):
    """binary for an op whose kernels are real and not for bool (PyTorch's dtype error otherwise)."""

    def rule(self, other, *rest):
        m = M.binary(self, other)
        if m.dtype is D.bool_ or m.dtype._kind == 3:
            raise _not_impl(kname, m.dtype)
        return m

    return rule


def _bits(kname, allow_bool=True):
    def rule(self, other=None, *rest):
        m = M.binary(self, other) if other is not None else TensorMeta(self._shape, self.dtype)
        if m.dtype._kind >= 2 or (m.dtype is D.bool_ and not allow_bool):
            raise _not_impl(kname, m.dtype)
        return m

    return rule


def _real_float(kname):
    """binary_float for an op without complex kernels (PyTorch's dtype error)."""

    def rule(self, other, *rest):
        m = M.binary_float(self, other)
        if m.dtype._kind == 3:
            raise _not_impl(kname, m.dtype)
        return m

    return rule


def _keep_meta(self):
    return TensorMeta(self._shape, self.dtype)


def _real_unary(kname):
    """unary_float, but complex inputs are refused as PyTorch's real-only kernels refuse them."""

    def rule(self, *rest):
        if self.dtype.is_complex:
            raise _not_impl(kname, self.dtype)
        return M.unary_float(self)

    return rule


def _float_only(kname):
    def rule(self, *rest):
        if self.dtype._kind < 2:
            raise _not_impl(kname, self.dtype)
        return TensorMeta(self._shape, self.dtype)

    return rule


def _rounding(name, kname):
    """A rounding op keeps its dtype; PyTorch has no bool kernel and refuses complex inputs."""

    def rule(self, *rest):
        if self.dtype.is_complex:
            raise NotImplementedError(f"{name} is not supported for complex inputs")
        return _keep_no_bool(kname)(self)

    return rule


def _keep_no_bool(kname):
    def rule(self, *rest):
        if self.dtype is D.bool_:
            raise _not_impl(kname, self.dtype)
        return TensorMeta(self._shape, self.dtype)

    return rule


def _keep_real(kname):
    def rule(self, *rest):
        if self.dtype._kind != 2:  # float only: no bool, integer or complex kernel
            raise _not_impl(kname, self.dtype)
        return TensorMeta(self._shape, self.dtype)

    return rule


def _is_bool(x):
    return x.__class__ is bool or (hasattr(x, "_shape") and x.dtype is D.bool_)


def _sub_meta(self, other, alpha=1):
    if _is_bool(self) and _is_bool(other):
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. "
            "Use the `^` or `logical_xor()` operator instead."
        )
    if _is_bool(self) or _is_bool(other):
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying "
            "to invert a mask, use the `~` or `logical_not()` operator instead."
        )
    return M.binary(self, other)


def _div_meta(self, other, rounding_mode=None):
    m = M.div(self, other, rounding_mode)
    if rounding_mode is not None and m.dtype is D.bool_:
        raise _not_impl(f"div_{rounding_mode}_cpu", m.dtype)
    return m


def _abs_meta(self):
    if self.dtype is D.bool_:
        raise _not_impl("abs_cpu", self.dtype)
    return TensorMeta(self._shape, self.dtype.to_real())  # |complex| is real


def _sign_meta(self):
    if self.dtype._kind == 3:
        raise NotImplementedError(
            "Unlike NumPy, torch.sign is not intended to support complex numbers. Please use torch.sgn instead."
        )
    return TensorMeta(self._shape, self.dtype)


def _ordered(kname):
    def rule(self, other, *rest):
        m = M.comparison(self, other)
        if _dt(self)._kind == 3 or _dt(other)._kind == 3:
            raise _not_impl(kname, D.result_type(self, other))
        return m

    return rule


def _neg_meta(self):
    if self.dtype is D.bool_:
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
            "invert a mask, use the `~` or `logical_not()` operator instead."
        )
    return TensorMeta(self._shape, self.dtype)


def _square_meta(self):
    return TensorMeta(self._shape, D.int64 if self.dtype is D.bool_ else self.dtype)


def _pow_meta(self, exponent):
    m = M.binary(self, exponent)
    if m.dtype is D.bool_ and hasattr(exponent, "_shape"):  # bool ** Python bool is allowed
        raise _not_impl("pow", m.dtype)
    if (
        not hasattr(exponent, "_shape")
        and m.dtype._kind == 1
        and exponent.__class__ is not bool
        and isinstance(exponent, int)
        and exponent < 0
    ):
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    return m


def _round_meta(self, decimals=0):
    if self.dtype is D.bool_:
        raise _not_impl("round_vml_cpu", self.dtype)
    if decimals != 0 and self.dtype._kind < 2:
        raise _not_impl("round_cpu", self.dtype)
    return TensorMeta(self._shape, self.dtype)


def _relu_meta(self):
    if self.dtype is D.bool_:
        raise RuntimeError("Boolean inputs not supported for relu")
    if self.dtype._kind == 3:
        raise NotImplementedError("clamp is not supported for complex types")
    return M.shared_meta(self._shape, self.dtype)


def _gelu_meta(self, approximate="none"):
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    if self.dtype._kind != 2:
        raise _not_impl("GeluKernelImpl", self.dtype)
    return TensorMeta(self._shape, self.dtype)


def _lerp_meta(self, end, weight):
    if end.dtype is not self.dtype:
        raise RuntimeError(f"expected dtype {D.cpp_name(self.dtype)} for `end` but got dtype {D.cpp_name(end.dtype)}")
    if hasattr(weight, "_shape"):
        if weight.dtype is not self.dtype and weight._shape:  # a 0-dim weight is cast, like a number
            raise RuntimeError(
                f"expected dtype {D.cpp_name(self.dtype)} for `weight` but got dtype {D.cpp_name(weight.dtype)}"
            )
        shape = broadcast_shapes(self._shape, end._shape, weight._shape)
    else:
        shape = broadcast_shapes(self._shape, end._shape)
    if self.dtype._kind < 2:
        raise _not_impl("lerp_kernel_scalar", self.dtype)
    return TensorMeta(shape, self.dtype)


def _addc_meta(kname):
    def rule(self, t1, t2, value=1):
        dt = D.result_type(self, t1, t2)
        if kname == "addcdiv" and t1.dtype._kind < 2 and t2.dtype._kind < 2:
            raise RuntimeError(
                "Integer division with addcdiv is no longer supported, and in a future  release "
                "addcdiv will perform a true division of tensor1 and tensor2. The historic "
                "addcdiv behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2))"
                ".to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) "
                "for float inputs. The future addcdiv behavior is just the latter implementation: "
                "(input + value * tensor1 / tensor2), for all dtypes."
            )
        if dt is D.bool_:
            raise _not_impl(f"{kname}_cpu_out", dt)
        return TensorMeta(broadcast_shapes(self._shape, t1._shape, t2._shape), dt)

    return rule


def _where_meta(condition, self, other):
    d = condition.dtype if hasattr(condition, "_shape") else None
    if d is D.uint8:  # still taken, as in PyTorch, with its deprecation warning (once a process)
        if _WARNED_UINT8_WHERE:
            return _where_shape(condition, self, other)
        _WARNED_UINT8_WHERE.append(True)
        warnings.warn(
            "where received a uint8 condition tensor. This behavior is deprecated and will be removed in a "
            "future version of PyTorch. Use a boolean condition instead.",
            UserWarning,
            stacklevel=4,
        )
    elif d is not D.bool_:
        raise RuntimeError(
            "where expected condition to be a boolean tensor, but got a tensor with dtype "
            f"{_cname(d) if d else type(condition).__name__}"
        )
    return _where_shape(condition, self, other)


_WARNED_UINT8_WHERE: list[bool] = []


def _where_shape(condition, self, other):
    # two Python numbers: an int pair gives int64, floats the default dtype
    return TensorMeta(
        broadcast_shapes(condition._shape, M.shape_of(self), M.shape_of(other)), D.result_type(self, other)
    )


def _where_method_meta(self, condition, other):
    return _where_meta(condition, self, other)


def _clamp_meta(self, min=None, max=None):
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if self.dtype._kind == 3:
        raise NotImplementedError("clamp is not supported for complex types")
    ops = [x for x in (self, min, max) if x is not None]
    dtype = D.result_type(*ops)
    if dtype is D.bool_:
        _refuse_bool_clamp(min, max)
    return TensorMeta(broadcast_shapes(*(M.shape_of(x) for x in ops)), dtype)


def _refuse_bool_clamp(min, max):
    """A clamp whose result is bool: a single tensor bound is an elementwise maximum/minimum, which bool has;
    number bounds, or two bounds, go to clamp kernels without a bool form."""
    if any(hasattr(b, "_shape") for b in (min, max)):
        if min is None or max is None:
            return
        raise _not_impl("clamp_cpu", D.bool_)
    which = "clamp" if min is not None and max is not None else "clamp_min" if min is not None else "clamp_max"
    raise _not_impl(f"{which}_scalar_cpu", D.bool_)


def _clamp_one_meta(self, bound):
    return _clamp_meta(self, bound, None)


def _nan_to_num_meta(self, nan=None, posinf=None, neginf=None):
    return TensorMeta(self._shape, self.dtype)


def _logit_meta(self, eps=None):
    if self.dtype._kind == 3:
        raise _not_impl("logit_cpu", self.dtype)
    return M.unary_float(self)


def _softplus_meta(self, beta=1, threshold=20):
    return _float_only("softplus_cpu")(self)


def _isclose_meta(self, other, rtol=1e-5, atol=1e-8, equal_nan=False):
    if self.dtype is not other.dtype:
        raise RuntimeError(f"{_cname(self.dtype)} did not match {_cname(other.dtype)}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol}")
    return TensorMeta(broadcast_shapes(self._shape, other._shape), D.bool_)


def gelu_backward_composite(grad_output, self, approximate="none"):
    """gelu's derivative as a chain of ops, for backends without a fused gelu_backward kernel."""
    if approximate == "tanh":
        inner = SQRT_2_OVER_PI * (self + 0.044715 * self * self * self)
        t = torch.tanh(inner)
        d_inner = SQRT_2_OVER_PI * (1 + 3 * 0.044715 * self * self)
        return grad_output * (0.5 * (1 + t) + 0.5 * self * (1 - t * t) * d_inner)
    cdf = 0.5 * (1 + torch.erf(self * (1 / math.sqrt(2.0))))
    pdf = torch.exp(-0.5 * self * self) * (1 / math.sqrt(2 * math.pi))
    return grad_output * (cdf + self * pdf)


def silu_backward_composite(grad_output, self):
    """silu's derivative as a chain of ops, for backends without a fused silu_backward kernel: in the
    promoted dtype, half precision in float32 rounded once (as the kernels compute it)."""
    dt = _silu_backward_meta(grad_output, self).dtype  # composites run without the shape rule
    wide = D.float32 if dt in (D.float16, D.bfloat16) else dt
    g, x = grad_output.to(wide), self.to(wide)
    s = torch.sigmoid(x)
    out = g * s * (1 + x * (1 - s))
    return out if wide is dt else out.to(dt)


def _silu_backward_meta(grad_output, self):
    # a broadcasting binary op in the promoted dtype; PyTorch has no integer or bool kernel
    m = M.binary(grad_output, self)
    if m.dtype._kind < 2:
        raise _not_impl("silu_backward_cpu", m.dtype)
    return m


def _scalar_first(name, other="other"):
    """PyTorch's `name.Scalar_Tensor(Scalar self, Tensor other)` overload (torch.remainder(2, t)): the
    Tensor-Tensor op's kernels already take a Python number first (the reflected operators use them)."""
    from .registry import BY_NAME

    base = BY_NAME[name][0]

    def fn(self, other_):
        from .. import dispatch

        return dispatch.call(base, (self, other_))

    overload = "Scalar" if name == "float_power" else "Scalar_Tensor"
    defop(
        f"{name}(Scalar self, Tensor {other}) -> Tensor",
        overload=overload,
        composite=fn,
        method=False,
        meta=base.meta,
        family=F,
    )


# --- binary arithmetic -------------------------------------------------------
defop(
    "add(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    meta=M.binary,
    inplace=True,
    out=True,
    numbers_as_tensors=True,
    family=F,
    grad={"self": "grad", "other": "maybe_mul(grad, alpha)"},
)
defop(
    "sub(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    meta=_sub_meta,
    inplace=True,
    out=True,
    numbers_as_tensors=True,
    family=F,
    grad={"self": "grad", "other": "maybe_mul(-grad, alpha)"},
)
defop(
    "mul(Tensor self, Tensor other) -> Tensor",
    meta=M.binary,
    inplace=True,
    out=True,
    numbers_as_tensors=True,
    family=F,
    grad={"self": "grad * conj(other)", "other": "grad * conj(self)"},
)
defop(
    "div(Tensor self, Tensor other, *, str? rounding_mode=None) -> Tensor",
    meta=_div_meta,
    inplace=True,
    out=True,
    numbers_as_tensors=True,
    family=F,
    grad={
        "self": "div_self_grad(grad, other, rounding_mode)",
        "other": "div_other_grad(grad, self, other, rounding_mode)",
    },
)
defop(
    "floor_divide(Tensor self, Tensor other) -> Tensor",
    meta=_real_no_bool("div_floor_cpu"),
    inplace=True,
    out=True,
    numbers_as_tensors=True,
    family=F,
    grad={"self": "not_implemented('floor_divide')"},
)
defop(
    "remainder(Tensor self, Tensor other) -> Tensor",
    meta=_real_no_bool("remainder_cpu"),
    inplace=True,
    out=True,
    numbers_as_tensors=True,
    family=F,
    grad={"self": "grad", "other": "remainder_other_grad(grad, self, other)"},
)
defop(
    "fmod(Tensor self, Tensor other) -> Tensor",
    meta=_real_no_bool("fmod_cpu"),
    inplace=True,
    out=True,
    numbers_as_tensors=True,
    family=F,
    grad={"self": "grad", "other": "-grad * torch.div(self, other, rounding_mode='trunc')"},
)
_POW_GRAD = {"self": "pow_self_grad(grad, self, exponent)", "exponent": "pow_exp_grad(grad, self, exponent, result)"}
# one kernel serves Tensor^Tensor, Tensor^number and number^Tensor (operators pass numbers through)
_pow = defop(
    "pow(Tensor self, Tensor exponent) -> Tensor",
    meta=_pow_meta,
    inplace=True,
    out=True,
    numbers_as_tensors=True,
    family=F,
    grad=_POW_GRAD,
)


def _pow_scalar(self, exponent):
    from .. import dispatch

    return dispatch.call(_pow, (self, exponent))


defop(
    "pow(Scalar self, Tensor exponent) -> Tensor",
    overload="Scalar",
    composite=_pow_scalar,
    method=False,
    meta=_pow_meta,
    family=F,
)


def _float_power(s, e):
    """pow in float64, or complex128 when either side is complex."""
    wide = D.complex128 if D.result_type(s, e)._kind == 3 else D.float64
    cast = complex if wide is D.complex128 else float
    return torch.pow(*(x.to(wide) if hasattr(x, "_shape") else cast(x) for x in (s, e)))


defop(
    "float_power(Tensor self, Tensor exponent) -> Tensor",
    meta=lambda s, e: TensorMeta(
        broadcast_shapes(M.shape_of(s), M.shape_of(e)), D.complex128 if D.result_type(s, e)._kind == 3 else D.float64
    ),
    numbers_as_tensors=True,
    out=True,
    family=F,
    composite=_float_power,
)
_scalar_first("float_power", "exponent")
defop(
    "atan2(Tensor self, Tensor other) -> Tensor",
    meta=_real_float("atan2_cpu"),
    inplace=True,
    out=True,
    family=F,
    grad={
        "self": "grad * other / (self * self + other * other)",
        "other": "-grad * self / (self * self + other * other)",
    },
)
defop(
    "arctan2(Tensor self, Tensor other) -> Tensor",
    meta=_real_float("atan2_cpu"),
    inplace=True,
    out=True,
    family=F,
    grad={
        "self": "grad * other / (self * self + other * other)",
        "other": "-grad * self / (self * self + other * other)",
    },
)


def _real_binary(name):
    def rule(self, other):
        m = M.binary(self, other)
        if m.dtype.is_complex:
            raise RuntimeError(f"{name} not implemented for complex tensors.")
        return m

    return rule


defop(
    "maximum(Tensor self, Tensor other) -> Tensor",
    meta=_real_binary("maximum"),
    out=True,
    family=F,
    grad={"self": "minmax_grad(grad, self, other, True)", "other": "minmax_grad(grad, other, self, True)"},
)
defop(
    "minimum(Tensor self, Tensor other) -> Tensor",
    meta=_real_binary("minimum"),
    out=True,
    family=F,
    grad={"self": "minmax_grad(grad, self, other, False)", "other": "minmax_grad(grad, other, self, False)"},
)


def _nan_ignoring(extreme):
    """fmax / fmin: maximum / minimum where a NaN operand yields the other one."""

    def composite(self, other):
        return torch.where(torch.isnan(other), self, torch.where(torch.isnan(self), other, extreme(self, other)))

    return composite


defop(
    "fmax(Tensor self, Tensor other) -> Tensor",
    meta=_real_binary("fmax"),
    out=True,
    family=F,
    composite=_nan_ignoring(lambda a, b: torch.maximum(a, b)),
    grad={"self": "minmax_grad(grad, self, other, True)", "other": "minmax_grad(grad, other, self, True)"},
)
defop(
    "fmin(Tensor self, Tensor other) -> Tensor",
    meta=_real_binary("fmin"),
    out=True,
    family=F,
    composite=_nan_ignoring(lambda a, b: torch.minimum(a, b)),
    grad={"self": "minmax_grad(grad, self, other, False)", "other": "minmax_grad(grad, other, self, False)"},
)


# --- comparisons and logic ----------------------------------------------------------
for _n in ("eq", "ne", "lt", "le", "gt", "ge"):
    defop(
        f"{_n}(Tensor self, Tensor other) -> Tensor",
        meta=M.comparison if _n in ("eq", "ne") else _ordered(f"{_n}_cpu"),
        inplace=True,
        out=True,
        numbers_as_tensors=True,
        family=F,
    )
for _a, _n in (("greater", "gt"), ("greater_equal", "ge"), ("less", "lt"), ("less_equal", "le"), ("not_equal", "ne")):
    defop(
        f"{_a}(Tensor self, Tensor other) -> Tensor",
        meta=M.comparison if _n == "ne" else _ordered(f"{_n}_cpu"),
        inplace=True,
        out=True,
        numbers_as_tensors=True,
        family=F,
    )
for _n in ("logical_and", "logical_or", "logical_xor"):
    defop(f"{_n}(Tensor self, Tensor other) -> Tensor", meta=M.comparison, inplace=True, out=True, family=F)
defop("logical_not(Tensor self) -> Tensor", meta=M.same_shape_bool, inplace=True, out=True, family=F)
for _n, _k in (
    ("bitwise_and", "bitwise_and_cpu"),
    ("bitwise_or", "bitwise_or_cpu"),
    ("bitwise_xor", "bitwise_xor_cpu"),
    ("bitwise_left_shift", "lshift_cpu"),
    ("bitwise_right_shift", "rshift_cpu"),
):
    defop(
        f"{_n}(Tensor self, Tensor other) -> Tensor",
        meta=_bits(_k, "shift" not in _n),
        inplace=True,
        out=True,
        numbers_as_tensors=True,
        family=F,
    )
defop("bitwise_not(Tensor self) -> Tensor", meta=_bits("bitwise_not_cpu"), inplace=True, out=True, family=F)


for _n in ("remainder", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift"):
    _scalar_first(_n)


# --- ternary ------------------------------------------------------------------------------
defop(
    "lerp(Tensor self, Tensor end, Tensor weight) -> Tensor",
    meta=_lerp_meta,
    inplace=True,
    out=True,
    numbers_as_tensors=True,
    family=F,
    grad={"self": "grad * (1 - weight)", "end": "grad * weight", "weight": "lerp_weight_grad(grad, self, end, weight)"},
)
defop(
    "addcmul(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor",
    meta=_addc_meta("addcmul"),
    inplace=True,
    out=True,
    family=F,
    grad={"self": "grad", "tensor1": "grad * tensor2 * value", "tensor2": "grad * tensor1 * value"},
)
defop(
    "addcdiv(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor",
    meta=_addc_meta("addcdiv"),
    inplace=True,
    out=True,
    family=F,
    grad={
        "self": "grad",
        "tensor1": "grad * value / tensor2",
        "tensor2": "-grad * value * tensor1 / (tensor2 * tensor2)",
    },
)


def _threshold_backward_meta(grad_output, self, threshold):
    if grad_output.dtype is D.bool_ or grad_output.dtype._kind == 3:
        raise _not_impl("threshold_cpu", grad_output.dtype)
    return TensorMeta(broadcast_shapes(grad_output._shape, self._shape), grad_output.dtype)


# relu's gradient in one pass: 0 where self <= threshold, else grad (so a NaN in self passes the
# gradient, as in PyTorch). The composite serves backends without a kernel of their own.
defop(
    "threshold_backward(Tensor grad_output, Tensor self, Scalar threshold) -> Tensor",
    meta=_threshold_backward_meta,
    method=False,
    function=False,
    family=F,
    nondiff=("self",),
    composite=lambda g, x, threshold: torch.where(x <= threshold, 0, g),  # 0 takes g's dtype
    grad={"grad_output": "torch.ops.threshold_backward(grad, self, threshold)"},
)


defop(
    "where(Tensor condition, Tensor self, Tensor other) -> Tensor",
    meta=_where_meta,
    method=False,
    out=True,
    numbers_as_tensors=True,
    family=F,
    nondiff=("condition",),
    grad={"self": "torch.where(condition, grad, 0.0)", "other": "torch.where(condition, 0.0, grad)"},
)


def _where_method(self, condition, other):
    return torch.where(condition, self, other)


# Tensor.where(condition, other): self comes first, so it is its own method-only overload
defop(
    "where(Tensor self, Tensor condition, Tensor other) -> Tensor",
    overload="method",
    function=False,
    meta=_where_method_meta,
    numbers_as_tensors=True,
    composite=_where_method,
    family=F,
)

_CLAMP_T_GRAD = {
    "self": "clamp_self_grad(grad, self, min, max)",
    "min": "clamp_bound_grad(grad, self, min, max, 'min')",
    "max": "clamp_bound_grad(grad, self, min, max, 'max')",
}
for _c in ("clamp", "clip"):
    # the Tensor overload first: numbers fail its check and fall through to the Scalar one
    defop(
        f"{_c}(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor",
        overload="Tensor",
        meta=_clamp_meta,
        inplace=True,
        out=True,
        family=F,
        grad=_CLAMP_T_GRAD,
    )
    defop(
        f"{_c}(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor",
        meta=_clamp_meta,
        inplace=True,
        out=True,
        family=F,
        grad={"self": "clamp_self_grad(grad, self, min, max)"},
    )
defop(
    "clamp_min(Tensor self, Tensor min) -> Tensor",
    overload="Tensor",
    meta=_clamp_one_meta,
    inplace=True,
    out=True,
    family=F,
    grad={"self": "clamp_self_grad(grad, self, min, None)", "min": "clamp_bound_grad(grad, self, min, None, 'min')"},
)
defop(
    "clamp_min(Tensor self, Scalar min) -> Tensor",
    meta=_clamp_one_meta,
    inplace=True,
    out=True,
    family=F,
    grad={"self": "clamp_self_grad(grad, self, min, None)"},
)
defop(
    "clamp_max(Tensor self, Tensor max) -> Tensor",
    overload="Tensor",
    meta=lambda s, m: _clamp_meta(s, None, m),
    inplace=True,
    out=True,
    family=F,
    grad={"self": "clamp_self_grad(grad, self, None, max)", "max": "clamp_bound_grad(grad, self, None, max, 'max')"},
)
defop(
    "clamp_max(Tensor self, Scalar max) -> Tensor",
    meta=lambda s, m: _clamp_meta(s, None, m),
    inplace=True,
    out=True,
    family=F,
    grad={"self": "clamp_self_grad(grad, self, None, max)"},
)


# --- unary ------------------------------------------------------------------------------
_UNARY = [
    # name, meta, derivative of self (None: not differentiable)
    ("neg", _neg_meta, "-grad"),
    ("conj_physical", _keep_meta, "grad.conj_physical()"),
    ("negative", _neg_meta, "-grad"),
    ("abs", _abs_meta, "grad * torch.sgn(self)"),
    ("absolute", _abs_meta, "grad * torch.sgn(self)"),
    ("sign", _sign_meta, "zeros_like_grad(grad)"),
    ("sgn", M.same, "sgn_backward(grad, self, result)"),
    ("exp", M.unary_float, "grad * result"),
    ("exp2", M.unary_float, "grad * result * LN2"),
    ("expm1", M.unary_float, "grad * (result + 1)"),
    ("log", M.unary_float, "grad / self"),
    ("log2", M.unary_float, "grad / (self * LN2)"),
    ("log10", M.unary_float, "grad / (self * LN10)"),
    ("log1p", M.unary_float, "grad / (self + 1)"),
    ("sqrt", M.unary_float, "grad / (2 * result)"),
    ("rsqrt", M.unary_float, "-0.5 * grad * result * result * result"),
    ("square", _square_meta, "2 * grad * self"),
    ("reciprocal", M.unary_float, "-grad * result * result"),
    ("sin", M.unary_float, "grad * torch.cos(self)"),
    ("cos", M.unary_float, "-grad * torch.sin(self)"),
    ("tan", M.unary_float, "grad * (1 + result * result)"),
    ("asin", M.unary_float, "grad * torch.rsqrt(1 - self * self)"),
    ("acos", M.unary_float, "-grad * torch.rsqrt(1 - self * self)"),
    ("atan", M.unary_float, "grad / (1 + self * self)"),
    ("sinh", M.unary_float, "grad * torch.cosh(self)"),
    ("cosh", M.unary_float, "grad * torch.sinh(self)"),
    ("tanh", M.unary_float, "grad * (1 - result * result)"),
    ("asinh", M.unary_float, "grad * torch.rsqrt(self * self + 1)"),
    ("acosh", M.unary_float, "grad * torch.rsqrt(self - 1) * torch.rsqrt(self + 1)"),  # right branch for complex
    ("atanh", M.unary_float, "grad / (1 - self * self)"),
    ("sigmoid", M.unary_float, "grad * result * (1 - result)"),
    ("erf", _real_unary("erf_vml_cpu"), "grad * (2 / math.sqrt(math.pi)) * torch.exp(-self * self)"),
    ("erfc", _real_unary("erfc_vml_cpu"), "-grad * (2 / math.sqrt(math.pi)) * torch.exp(-self * self)"),
    ("erfinv", _real_unary("erfinv_vml_cpu"), "grad * (math.sqrt(math.pi) / 2) * torch.exp(result * result)"),
    ("lgamma", _real_unary("lgamma_vml_cpu"), "grad * torch.digamma(self)"),
    ("digamma", _real_unary("digamma"), "grad * torch.polygamma(1, self)"),
    ("floor", _rounding("floor", "floor_vml_cpu"), "zeros_like_grad(grad)"),
    ("ceil", _rounding("ceil", "ceil_vml_cpu"), "zeros_like_grad(grad)"),
    ("trunc", _rounding("trunc", "trunc_vml_cpu"), "zeros_like_grad(grad)"),
    ("fix", _rounding("trunc", "trunc_vml_cpu"), "zeros_like_grad(grad)"),
    ("frac", _keep_real("frac_cpu"), "grad"),
    ("relu", _relu_meta, "torch.ops.threshold_backward(grad, result, 0)"),
    ("silu", _float_only("silu_cpu"), "torch.ops.silu_backward(grad, self)"),
    ("mish", _float_only("mish_cpu"), "mish_grad(grad, self)"),
]
_UNARY += [("arc" + n[1:], m, g) for n, m, g in _UNARY if n in ("asin", "acos", "atan", "asinh", "acosh", "atanh")]
_NO_INPLACE: set[str] = set()
_NOT_METHOD = {"silu", "mish"}


def _sgn(self):
    if not self.dtype.is_complex:
        return torch.sign(self)
    a = torch.abs(self)
    return torch.where(a == 0, torch.zeros_like(self), self / torch.where(a == 0, 1.0, a))


def _conj_physical(self):
    return torch.complex(self.real, -self.imag) if self.dtype.is_complex else self.clone()


# composites: what a device without its own kernel runs (the cpu has kernels for these)
_UNARY_COMPOSITES = {"sgn": _sgn, "conj_physical": _conj_physical}
for _n, _m, _g in _UNARY:
    defop(
        f"{_n}(Tensor self) -> Tensor",
        meta=_m,
        inplace=_n not in _NO_INPLACE,
        out=True,
        family=F,
        method=_n not in _NOT_METHOD,
        grad={"self": _g},
        composite=_UNARY_COMPOSITES.get(_n),
        inplace_composite=copy_into_self(_UNARY_COMPOSITES[_n]) if _n in _UNARY_COMPOSITES else None,
    )


def _abs_inplace_meta(self):
    if self.dtype.is_complex:  # |z| is real: PyTorch does not write it back into a complex tensor
        raise RuntimeError("In-place abs is not supported for complex tensors.")
    return _abs_meta(self)


for _n in ("abs_", "absolute_"):
    OPS[_n].meta = _abs_inplace_meta


def _polygamma_meta(n, self):
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return _real_unary({0: "digamma", 1: "trigamma"}.get(n, "polygamma"))(self)


_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730)  # B2 .. B12


def _hurwitz_zeta(s, q):
    """zeta(s, q) for an integer s >= 2: twenty terms of the sum, then Euler-Maclaurin's tail (double
    precision for q > -11; integer s keeps (q + k)^-s defined for negative q)."""
    terms = 20
    out = sum(torch.pow(q + k, -float(s)) for k in range(terms))
    a = q + terms
    out = out + torch.pow(a, 1.0 - s) / (s - 1) + 0.5 * torch.pow(a, -float(s))
    for j, b in enumerate(_BERNOULLI, start=1):
        coef = b / math.factorial(2 * j) * math.prod(s + i for i in range(2 * j - 1))
        out = out + coef * torch.pow(a, -float(s + 2 * j - 1))
    return out


def _polygamma(n, self):
    """polygamma(n, x) = (-1)^(n+1) n! zeta(n + 1, x): what a device without a kernel runs."""
    _polygamma_meta(n, self)
    x = self if self.dtype.is_floating_point else self.to(D.get_default_dtype())
    if n == 0:
        return torch.digamma(x)
    return (-1) ** (n + 1) * math.factorial(n) * _hurwitz_zeta(n + 1, x)


defop(
    "polygamma(int n, Tensor self) -> Tensor",
    meta=_polygamma_meta,
    out=True,
    method=False,
    family=F,
    composite=computed_in_float32(_polygamma),
    grad={"self": "grad * torch.polygamma(n + 1, self)"},
)


def _mvlgamma(self, p):
    if self.dtype.is_complex:
        raise _not_impl("arange_cpu", self.dtype)  # PyTorch's refusal comes from the arange it builds
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    terms = torch.stack([torch.lgamma(self - j / 2) for j in range(p)]).sum(0)
    return terms + p * (p - 1) / 4 * math.log(math.pi)


defop(
    "mvlgamma(Tensor self, int p) -> Tensor",
    composite=_mvlgamma,
    inplace=True,
    out=True,
    family=F,
    inplace_composite=copy_into_self(_mvlgamma),
)


def _positive_meta(self):
    if self.dtype is D.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return TensorMeta(self._shape, self.dtype)


def _positive(self):
    _positive_meta(self)
    return self


defop("positive(Tensor self) -> Tensor", meta=_positive_meta, composite=_positive, family=F)
defop(
    "round(Tensor self, *, int decimals=0) -> Tensor",
    meta=_round_meta,
    inplace=True,
    out=True,
    family=F,
    grad={"self": "zeros_like_grad(grad)"},
)


@computed_in_float32
def _logit(self, eps=None):
    if self.dtype._kind < 2:  # integers and bool: in the default dtype, as the result is
        self = self.to(D.get_default_dtype())
    x = self if eps is None else torch.clamp(self, eps, 1 - eps)
    return torch.log(x / (1 - x))


defop(
    "logit(Tensor self, float? eps=None) -> Tensor",
    meta=_logit_meta,
    inplace=True,
    out=True,
    family=F,
    composite=_logit,
    inplace_composite=copy_into_self(_logit),
    grad={"self": "logit_grad(grad, self, eps)"},
)
defop(
    "nan_to_num(Tensor self, float? nan=None, float? posinf=None, float? neginf=None) -> Tensor",
    meta=_nan_to_num_meta,
    inplace=True,
    out=True,
    family=F,
    grad={"self": "grad * torch.isfinite(self)"},
)


def _signbit_meta(self):
    if self.dtype.is_complex:
        raise NotImplementedError("signbit is not implemented for complex tensors.")
    return M.same_shape_bool(self)


def _isreal(self):
    return self.imag == 0 if self.dtype.is_complex else torch.ones_like(self, dtype=D.bool_)


def _real_test(name):
    def rule(self):
        if self.dtype.is_complex:
            raise RuntimeError(f"{name} does not support complex inputs.")
        return M.same_shape_bool(self)

    return rule


_TEST_RULES = {"signbit": _signbit_meta, "isposinf": _real_test("isposinf"), "isneginf": _real_test("isneginf")}
for _n in ("isnan", "isinf", "isfinite", "isposinf", "isneginf", "signbit", "isreal"):
    defop(
        f"{_n}(Tensor self) -> Tensor",
        meta=_TEST_RULES.get(_n, M.same_shape_bool),
        family=F,
        out=_n in ("isposinf", "isneginf", "signbit"),
        composite=_isreal if _n == "isreal" else None,
    )


# --- activations ------------------------------------------------------------------------
defop(
    "gelu(Tensor self, *, str approximate='none') -> Tensor",
    meta=_gelu_meta,
    inplace=True,
    method=False,
    family=F,
    grad={"self": "torch.ops.gelu_backward(grad, self, approximate=approximate)"},
)
# one fused kernel for the derivative; backends without it get the composite chain
defop(
    "gelu_backward(Tensor grad_output, Tensor self, *, str approximate='none') -> Tensor",
    meta=lambda g, s, approximate="none": _gelu_meta(s, approximate),
    composite=computed_in_float32(gelu_backward_composite),
    method=False,
    family=F,
    grad={
        "grad_output": "torch.ops.gelu_backward(grad, self, approximate=approximate)",
        "self": "grad * grad_output * gelu_second(self, approximate)",
    },
)
# one fused kernel for silu's derivative (PyTorch's silu_backward); backends without it get the chain
defop(
    "silu_backward(Tensor grad_output, Tensor self) -> Tensor",
    meta=_silu_backward_meta,
    composite=silu_backward_composite,
    method=False,
    family=F,
    grad={
        "grad_output": "torch.ops.silu_backward(grad, self)",
        "self": "grad * grad_output * silu_second(self)",
    },
)
defop(
    "softplus(Tensor self, Scalar beta=1, Scalar threshold=20) -> Tensor",
    meta=_softplus_meta,
    method=False,
    family=F,
    grad={"self": "softplus_grad(grad, self, beta, threshold)"},
)
defop(
    "elu(Tensor self, Scalar alpha=1.0, Scalar scale=1, Scalar input_scale=1) -> Tensor",
    meta=_float_only("elu_cpu"),
    inplace=True,
    method=False,
    family=F,
    grad={
        "self": "torch.where(self > 0, grad * scale, grad * (alpha * scale * input_scale) * "
        "torch.exp(self * input_scale))"
    },
)
defop(
    "leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor",
    meta=_float_only("leaky_relu_cpu"),
    inplace=True,
    method=False,
    family=F,
    grad={"self": "torch.where(self > 0, grad, grad * negative_slope)"},
)


def _hardtanh_meta(self, min_val=-1, max_val=1):
    if self.dtype is D.bool_:
        raise RuntimeError("Bool inputs not supported for hardtanh")
    if self.dtype in D.WIDE_UINTS:  # PyTorch clamps with clamp_scalar, which has no wide unsigned kernel
        raise _not_impl("clamp_scalar_cpu", self.dtype)
    if self.dtype._kind == 3:
        raise NotImplementedError("clamp is not supported for complex types")
    if self.dtype is D.uint8 and (min_val < 0 or max_val < 0):
        raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")
    return _keep_no_bool("hardtanh_cpu")(self)


defop(
    "hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor",
    meta=_hardtanh_meta,
    inplace=True,
    method=False,
    family=F,
    grad={"self": "torch.where((self > min_val) & (self < max_val), grad, zeros_like_grad(grad))"},
)


# --- whole-tensor predicates ---------------------------------------------------------
defop(
    "isclose(Tensor self, Tensor other, float rtol=1e-05, float atol=1e-08, bool equal_nan=False) -> Tensor",
    meta=_isclose_meta,
    family=F,
)


def _allclose(self, other, rtol=1e-5, atol=1e-8, equal_nan=False):
    return bool(torch.isclose(self, other, rtol, atol, equal_nan).all())


def _equal(self, other):
    if tuple(self._shape) != tuple(other._shape):
        return False
    if self.dtype is not other.dtype:
        other = other.to(self.dtype)
    return bool(torch.eq(self, other).all())


defop(
    "allclose(Tensor self, Tensor other, float rtol=1e-05, float atol=1e-08, bool equal_nan=False) -> bool",
    composite=_allclose,
    family=F,
)
defop("equal(Tensor self, Tensor other) -> bool", composite=_equal, family=F)


# --- aliases: the same op under PyTorch's longer names --------------------------------------------
defop(
    "multiply(Tensor self, Tensor other) -> Tensor",
    composite=lambda s, o: torch.mul(s, o),
    out=True,
    numbers_as_tensors=True,
    inplace=True,
    inplace_composite=lambda s, o: s.mul_(o),
    family=F,
)
defop(
    "divide(Tensor self, Tensor other, *, str? rounding_mode=None) -> Tensor",
    composite=lambda s, o, rounding_mode=None: torch.div(s, o, rounding_mode=rounding_mode),
    out=True,
    numbers_as_tensors=True,
    inplace=True,
    inplace_composite=lambda s, o, rounding_mode=None: s.div_(o, rounding_mode=rounding_mode),
    family=F,
)
defop(
    "true_divide(Tensor self, Tensor other) -> Tensor",
    composite=lambda s, o: torch.div(s, o),
    out=True,
    numbers_as_tensors=True,
    inplace=True,
    inplace_composite=lambda s, o: s.div_(o),
    family=F,
)
defop(
    "subtract(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    composite=lambda s, o, alpha=1: torch.sub(s, o, alpha=alpha),
    out=True,
    numbers_as_tensors=True,
    inplace=True,
    inplace_composite=lambda s, o, alpha=1: s.sub_(o, alpha=alpha),
    family=F,
)
defop(
    "rsub(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    composite=lambda s, o, alpha=1: torch.sub(o, s, alpha=alpha),
    numbers_as_tensors=True,
    method=False,
    family=F,
)


# --- number theory, hypot, logaddexp, copysign, nextafter, igamma, frexp --------------------------
def _float_binary(kname):
    def rule(self, other, *rest):
        m = M.binary_float(self, other)
        if m.dtype.is_complex:
            raise _not_impl(kname, m.dtype)
        return m

    return rule


def _real_float_binary(kname):
    """Both operands real; integers compute in the default float dtype (PyTorch's float-only kernels)."""

    def rule(self, other, *rest):
        m = M.binary(self, other)
        if m.dtype.is_complex or m.dtype._kind < 2:
            raise _not_impl(kname, m.dtype)
        return m

    return rule


defop(
    "gcd(Tensor self, Tensor other) -> Tensor",
    meta=_bits("gcd_cpu", allow_bool=False),
    inplace=True,
    out=True,
    family=F,
)


def _lcm(self, other):
    g = torch.gcd(self, other)
    return torch.where(g == 0, torch.zeros_like(g), torch.abs(self // torch.where(g == 0, 1, g) * other))


defop(
    "lcm(Tensor self, Tensor other) -> Tensor",
    meta=_bits("lcm_cpu", allow_bool=False),
    inplace=True,
    out=True,
    composite=_lcm,
    inplace_composite=copy_into_self(_lcm),
    family=F,
)


def _hypot(self, other):
    """sqrt(a^2 + b^2) scaled by the larger magnitude (no overflow or underflow in the squares); an
    infinite operand gives inf even beside a NaN, as C's hypot."""
    dt = _real_float_binary("hypot_cpu")(self, other).dtype
    a, b = torch.abs(self).to(dt), torch.abs(other).to(dt)
    big, small = torch.maximum(a, b), torch.minimum(a, b)
    ratio = small / torch.where(big == 0, torch.ones_like(big), big)
    return torch.where(
        torch.isinf(a) | torch.isinf(b), torch.full_like(big, math.inf), big * torch.sqrt(1 + ratio * ratio)
    )


defop(
    "hypot(Tensor self, Tensor other) -> Tensor",
    meta=_real_float_binary("hypot_cpu"),
    inplace=True,
    out=True,
    family=F,
    composite=_hypot,
    inplace_composite=copy_into_self(_hypot),
    grad={"self": "grad * self / result", "other": "grad * other / result"},
)
defop(
    "logaddexp(Tensor self, Tensor other) -> Tensor",
    meta=M.binary_float,
    out=True,
    family=F,
    grad={"self": "grad * torch.exp(self - result)", "other": "grad * torch.exp(other - result)"},
)
defop(
    "logaddexp2(Tensor self, Tensor other) -> Tensor",
    meta=_float_binary("logaddexp2_cpu"),
    out=True,
    family=F,
    grad={"self": "grad * torch.exp2(self - result)", "other": "grad * torch.exp2(other - result)"},
)


def _copysign(self, other):
    # cast first: abs has no bool kernel, and the result is floating anyway
    magnitude = torch.abs(self.to(_float_binary("copysign_cpu")(self, other).dtype))
    if not isinstance(other, torch.Tensor):  # a number: its sign, -0.0 included
        return -magnitude if math.copysign(1.0, other) < 0 else magnitude
    return torch.where(torch.signbit(other), -magnitude, magnitude)


defop(
    "copysign(Tensor self, Tensor other) -> Tensor",
    meta=_float_binary("copysign_cpu"),
    inplace=True,
    out=True,
    numbers_as_tensors=True,
    family=F,
    composite=_copysign,
    inplace_composite=copy_into_self(_copysign),
    grad={"self": "copysign_self_grad(grad, self, result)", "other": "grad * 0"},
)


def _nextafter(self, other):
    """One step of the bit pattern toward `other` (away from zero when the magnitude grows); from zero, the
    smallest subnormal with other's sign."""
    dt = _real_float_binary("nextafter_cpu")(self, other).dtype
    a, b = (t.contiguous() for t in torch.broadcast_tensors(self.to(dt), other.to(dt)))
    ity = _LAYOUT[dt][0]
    away = (b > a) == (a > 0)
    stepped = (a.view(ity) + torch.where(away, 1, -1).to(ity)).view(dt)
    tiny = torch.ones((), dtype=ity, device=a.device).view(dt)
    out = torch.where(a == 0, torch.where(b > 0, tiny, -tiny), stepped)
    out = torch.where(a == b, b, out)
    return torch.where(torch.isnan(a) | torch.isnan(b), a + b, out)


defop(
    "nextafter(Tensor self, Tensor other) -> Tensor",
    meta=_real_float_binary("nextafter_cpu"),
    inplace=True,
    out=True,
    family=F,
    composite=_nextafter,
    inplace_composite=copy_into_self(_nextafter),
)


defop(
    "igamma(Tensor self, Tensor other) -> Tensor",
    meta=_real_float_binary("igamma_cpu"),
    inplace=True,
    out=True,
    family=F,
    grad={
        "self": "not_implemented('igamma: input')",
        "other": "grad * torch.exp((self - 1) * torch.log(other) - other - torch.lgamma(self))",
    },
)
defop(
    "igammac(Tensor self, Tensor other) -> Tensor",
    meta=_real_float_binary("igammac_cpu"),
    inplace=True,
    out=True,
    family=F,
    grad={
        "self": "not_implemented('igammac: input')",
        "other": "-grad * torch.exp((self - 1) * torch.log(other) - other - torch.lgamma(self))",
    },
)


def _frexp_meta(self):
    if self.dtype._kind != 2:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    return TensorMeta(self._shape, self.dtype), TensorMeta(self._shape, D.int32)


# (integer type of the same width, mantissa bits, exponent bits) of each floating dtype: frexp and nextafter work
# on the bit patterns, as their C implementations do
_LAYOUT = {
    D.float16: (D.int16, 10, 5),
    D.bfloat16: (D.int16, 7, 8),
    D.float32: (D.int32, 23, 8),
    D.float64: (D.int64, 52, 11),
}


def _frexp(self):
    """mantissa in [0.5, 1) and exponent from the bit pattern; subnormals are scaled into the normal range
    first; zero, inf and NaN keep their value with exponent 0. What a device without a kernel runs."""
    _frexp_meta(self)
    ity, mb, eb = _LAYOUT[self.dtype]
    bias = (1 << (eb - 1)) - 1
    finite = torch.isfinite(self) & (self != 0)
    sub = finite & (torch.abs(self) < 2.0 ** (1 - bias))
    bits = torch.where(sub, self * 2.0**mb, self).contiguous().view(ity)
    exponent = ((bits >> mb) & ((1 << eb) - 1)) - (bias - 1) - torch.where(sub, mb, 0).to(ity)
    mantissa = ((bits & ~(((1 << eb) - 1) << mb)) | ((bias - 1) << mb)).view(self.dtype)
    return (torch.where(finite, mantissa, self), torch.where(finite, exponent, torch.zeros_like(exponent)).to(D.int32))


defop(
    "_frexp(Tensor self) -> (Tensor mantissa, Tensor exponent)",
    meta=_frexp_meta,
    method=False,
    function=False,
    family=F,
    composite=_frexp,
)
_FREXP = named_result("frexp", ("mantissa", "exponent"))
defop(
    "frexp(Tensor self) -> (Tensor mantissa, Tensor exponent)",
    composite=lambda s: _FREXP(*torch.ops._frexp(s)),
    out=True,
    family=F,
)


# --- compositions: heaviside, angle units, ldexp, xlogy, sinc, hardshrink, fill -------------------
def _as_float(x):
    return x if x.dtype._kind >= 2 else x.to(torch.get_default_dtype())


def _angle_units(name, factor):
    def convert(self):
        if self.dtype.is_complex:
            raise RuntimeError(f"{name} is not supported for complex tensors.")
        return _as_float(self) * factor

    def convert_(self):
        if self.dtype.is_complex:
            raise RuntimeError(f"{name} is not supported for complex tensors.")
        return self.mul_(factor)

    defop(
        f"{name}(Tensor self) -> Tensor",
        composite=convert,
        out=True,
        inplace=True,
        inplace_composite=convert_,
        family=F,
    )


_angle_units("deg2rad", math.pi / 180)
_angle_units("rad2deg", 180 / math.pi)


def _heaviside(self, values):
    if self.dtype is not values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes")
    if self.dtype.is_complex:
        raise RuntimeError("heaviside is not yet implemented for complex tensors.")
    with torch.no_grad():  # a step: no gradient, as in PyTorch
        step = (self > 0).to(self.dtype)
        return torch.where(self == 0, values, step)


defop(
    "heaviside(Tensor self, Tensor values) -> Tensor",
    composite=_heaviside,
    inplace=True,
    inplace_composite=copy_into_self(_heaviside),
    out=True,
    family=F,
)


def _ldexp(self, other):
    return _as_float(self) * torch.pow(2.0, other).to(_as_float(self).dtype)


defop(
    "ldexp(Tensor self, Tensor other) -> Tensor",
    composite=_ldexp,
    out=True,
    inplace=True,
    inplace_composite=lambda s, o: s.mul_(torch.pow(2.0, o)),
    family=F,
)


def _xlogy(self, other):
    for x in (self, other):
        if getattr(x, "dtype", D.float32).is_complex:
            raise NotImplementedError(f"\"xlogy_cpu\" not implemented for '{D._cname(x.dtype)}'")
    return torch.special.xlogy(self, other)


defop(
    "xlogy(Tensor self, Tensor other) -> Tensor",
    composite=_xlogy,
    out=True,
    numbers_as_tensors=True,
    inplace=True,
    inplace_composite=copy_into_self(_xlogy),
    family=F,
)


def _sinc(s):
    return torch.special.sinc(s)  # mindtorch.special is only there once the package has loaded


defop(
    "sinc(Tensor self) -> Tensor",
    composite=_sinc,
    out=True,
    inplace=True,
    inplace_composite=copy_into_self(_sinc),
    family=F,
)


def _hardshrink(self, lambd=0.5):
    if self.dtype._kind != 2:  # floating point only, as PyTorch's kernel
        raise _not_impl("hardshrink_cpu", self.dtype)
    return torch.where((self > lambd) | (self < -lambd), self, self * 0)


defop("hardshrink(Tensor self, Scalar lambd=0.5) -> Tensor", composite=_hardshrink, out=True, family=F)


def _fill(self, value):
    if hasattr(value, "_shape") and value.dim():
        raise RuntimeError(f"fill only supports 0-dimension value tensor but got tensor with {value.dim()} dimensions.")
    if getattr(value, "requires_grad", False):  # the gradient flows to the fill value
        return torch.zeros_like(self) + value
    return torch.full_like(self, value.item() if hasattr(value, "_shape") else value)


defop("fill(Tensor self, Scalar value) -> Tensor", composite=_fill, method=False, family=F)
