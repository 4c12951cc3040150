"""Pointwise kernels: the unary math table, arithmetic, comparisons, logical and bitwise ops (all binary ones
through the shared tensor / scalar dispatcher), clamp and where, activations with parameters, the optimizers'
ternary updates (lerp, addcmul, addcdiv) and the float predicates."""

from collections import namedtuple

from mindtorch.plugins import OPS, Tensor, clamp_family, dtypes as D, kernel_table

from .. import chips
from ..acl import types as A
from ..acl.prototypes import UNARY_HEADERS, UNARY_ONLY_HEADERS
from ..aclnn import Scalar, launch, scalar_for
from ..copy import empty
from ._common import (
    as_1d,
    binary,
    binary_out,
    cast,
    compiled_unary,
    fill_masked,
    in_place_by_copy,
    launch_binary,
    nan_mask,
    numel,
    run,
    scalar_tensor,
    view,
)

KERNELS, kernel = kernel_table()


def _register(names, kernels):
    """The out-of-place kernel under every name, the in-place one (if any) under the first name's."""
    out_of_place, in_place = kernels
    for n in names:
        KERNELS[n] = out_of_place
    if in_place is not None:
        KERNELS[names[0] + "_"] = in_place


# --- unary math: core name -> ACLNN operator ---------------------------------------------------------

UNARY = {
    "exp2": "Exp2",
    "expm1": "Expm1",
    "log": "Log",
    "log2": "Log2",
    "log10": "Log10",
    "log1p": "Log1p",
    "sqrt": "Sqrt",
    "rsqrt": "Rsqrt",
    "sin": "Sin",
    "cos": "Cos",
    "tan": "Tan",
    "asin": "Asin",
    "arcsin": "Asin",
    "acos": "Acos",
    "arccos": "Acos",
    "atan": "Atan",
    "arctan": "Atan",
    "sinh": "Sinh",
    "cosh": "Cosh",
    "tanh": "Tanh",
    "erf": "Erf",
    "sigmoid": "Sigmoid",
    "reciprocal": "Reciprocal",
    "neg": "Neg",
    "negative": "Neg",
    "relu": "Relu",
    "floor": "Floor",
    "ceil": "Ceil",
    "trunc": "Trunc",
    "fix": "Trunc",
    "frac": "Frac",
    "logical_not": "LogicalNot",
    "abs": "Abs",
    "absolute": "Abs",
    "silu": "Silu",
    "acosh": "Acosh",
    "arccosh": "Acosh",
    "asinh": "Asinh",
    "arcsinh": "Asinh",
    "atanh": "Atanh",
    "arctanh": "Atanh",
    "erfc": "Erfc",
    "mish": "Mish",
    "signbit": "Signbit",
    "erfinv": "Erfinv",
    "lgamma": "Lgamma",
    "digamma": "Digamma",
    "special_erfinv": "Erfinv",
}
# no in-place kernel: core composes logical_not_ (a bool result into self's dtype); signbit_ is no op
UNARY_OUT_OF_PLACE_ONLY = {"logical_not", "signbit"}


def _unary(acl):
    def run_it(m, a):
        return run(acl, a, m)

    out_of_place = compiled_unary(acl, run_it)

    def in_place(m, a):
        if acl in UNARY_HEADERS and chips.supports(
            "Inplace" + acl, a.dtype
        ):  # its own doc (aclnnInplaceSin: no DOUBLE)
            launch("Inplace" + acl, a)
        elif chips.supports(acl, a.dtype):  # no in-place form in the header: the elementwise op writes over a
            launch(acl, a, a)
        else:
            launch("InplaceCopy", a, run(acl, a, m))
        return a

    return out_of_place, in_place


for _name, _acl in UNARY.items():
    assert _acl in UNARY_HEADERS or _acl in UNARY_ONLY_HEADERS
    _out, _in = _unary(_acl)
    _register((_name,), (_out, None if _name in UNARY_OUT_OF_PLACE_ONLY else _in))


@kernel("exp")
def exp(m, a):
    """aclnnExp, or where the chip's product lacks it (the Atlas training series' docs list aclnnExpm1 but not
    aclnnExp) expm1(a) + 1 through aclnnExpm1 and aclnnInplaceAdds; with neither, aclnnExp's refusal."""
    if chips.has_op("Exp") or not (chips.has_op("Expm1") and chips.has_op("InplaceAdds")):
        return run("Exp", a, m)
    out = run("Expm1", a, m)
    one = scalar_for(1, out.dtype)
    launch("InplaceAdds", out, one, one)
    return out


@kernel("exp_")
def exp_(m, a):
    if chips.supports("InplaceExp", a.dtype):
        launch("InplaceExp", a)
        return a
    launch("InplaceCopy", a, exp(m, a))
    return a


@kernel("sign")
def sign(m, a):
    """aclnnSign keeps NaN; PyTorch's sign(nan) is 0."""
    out = run("Sign", a, m)
    if a.dtype.is_floating_point:
        fill_masked(out, nan_mask(a), 0)
    return out


KERNELS["sign_"] = in_place_by_copy(sign)


# out of place only: the predicates (a bool result)
for _name, _acl in (("isfinite", "IsFinite"), ("isposinf", "IsPosInf"), ("isneginf", "IsNegInf")):
    KERNELS[_name] = _unary(_acl)[0]


@kernel("square")
def square(m, a):
    """aclnnSquare where the chip has it (Ascend950) and takes the dtype, else a * a through aclnnMul."""
    if chips.supports("Square", a.dtype) and a.dtype is m.dtype:
        return run("Square", a, m)
    out = empty(m.shape, m.dtype, a.device)
    launch("Mul", a, a, out)
    return out


KERNELS["square_"] = in_place_by_copy(square)


@kernel("round")
def round_(m, a, decimals=0):
    return run("RoundDecimals", a, m, int(decimals)) if decimals else run("Round", a, m)


@kernel("round_")
def round_inplace(m, a, decimals=0):
    if not chips.supports("Round", a.dtype):
        launch("InplaceCopy", a, round_(m, a, decimals))
    elif decimals:
        launch("InplaceRoundDecimals", a, int(decimals))
    else:
        launch("InplaceRound", a)
    return a


@kernel("isnan")
def isnan(m, a):
    return nan_mask(a)


@kernel("isinf")
def isinf(m, a):
    if not a.dtype.is_floating_point:  # aclnnIsPosInf.md takes floating dtypes only; no integer is infinite
        out = empty(m.shape, D.bool_, a.device)
        launch("InplaceZero", out)
        return out
    pos, neg, out = (empty(m.shape, D.bool_, a.device) for _ in range(3))
    launch("IsPosInf", a, pos)
    launch("IsNegInf", a, neg)
    launch("LogicalOr", pos, neg, out)
    return out


@kernel("isclose")
def isclose(m, a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    out = empty(m.shape, m.dtype, a.device)
    launch("IsClose", a, b, float(rtol), float(atol), bool(equal_nan), out)
    return out


# --- arithmetic ----------------------------------------------------------------------------------------

_register(("add",), binary("Add", "Adds", with_alpha=True))
_register(("sub",), binary("Sub", "Subs", with_alpha=True))
_register(("mul",), binary("Mul", "Muls"))
_register(("maximum",), binary("Maximum", inplace=False))
_register(("minimum",), binary("Minimum", inplace=False))
_register(("atan2", "arctan2"), binary("Atan2"))
_register(("logaddexp",), binary("LogAddExp", inplace=False))
_register(("logaddexp2",), binary("LogAddExp2", inplace=False))
_register(("gcd",), binary("Gcd", inplace=False))
_SMALL_INTS = (D.int8, D.uint8, D.int16)
_Meta = namedtuple("_Meta", "shape dtype")


def _small_ints_in_int32(pair, *ops):
    """(out-of-place, in-place) kernels whose operators `ops` lack some 8- or 16-bit integer dtype: those operands
    run in int32 and the result is cast back (exact: their values, and the residues mod 2**16 wrapping arithmetic
    keeps, survive the round trip)."""
    out_of_place, in_place = pair

    def narrow(dtype):
        return dtype in _SMALL_INTS and not all(chips.supports(op, dtype) for op in ops)

    def wide_out_of_place(m, *args):
        if not narrow(m.dtype):
            return out_of_place(m, *args)
        args = [cast(x, D.int32) if isinstance(x, Tensor) else x for x in args]
        return cast(out_of_place(_Meta(m.shape, D.int32), *args), m.dtype)

    def wide_in_place(m, a, *args):
        if not narrow(a.dtype):
            return in_place(m, a, *args)
        launch("InplaceCopy", a, wide_out_of_place(_Meta(a.shape, a.dtype), a, *args))
        return a

    return wide_out_of_place, wide_in_place


_register(
    ("remainder",),
    _small_ints_in_int32(
        binary("RemainderTensorTensor", "RemainderTensorScalar"), "RemainderTensorTensor", "RemainderTensorScalar"
    ),
)
_register(("fmod",), _small_ints_in_int32(binary("FmodTensor", "FmodScalar"), "FmodTensor", "FmodScalar"))

_div, _div_ = binary("Div", "Divs")
DIV_MODE = {None: 0, "trunc": 1, "floor": 2}  # aclnnDivMod's rounding modes


@kernel("div")
def div(m, a, b, rounding_mode=None):
    if rounding_mode is None:
        return _div(m, a, b)
    if rounding_mode == "trunc" and _trunc_in_float(m.dtype, a, b):
        return _trunc_div(m, a, b)
    return binary_out(m, "DivMod", "DivMods", a, b, DIV_MODE[rounding_mode])


@kernel("div_")
def div_inplace(m, a, b, rounding_mode=None):
    if rounding_mode is None:
        return _div_(m, a, b)
    if rounding_mode == "trunc" and _trunc_in_float(m.dtype, a, b):
        launch("InplaceCopy", a, _trunc_div(m, a, b))
        return a
    return launch_binary("DivMod", "DivMods", a, b, a.dtype, DIV_MODE[rounding_mode])


def _trunc_in_float(dtype, a, b):
    """aclnnDivMod's trunc division would round `dtype` through FLOAT: off Ascend950 it computes every dtype
    but FLOAT, FLOAT16, BFLOAT16 and BOOL as FLOAT, except INT32 by INT32 on the 910B class (ops-math
    math/div/op_api/aclnn_div.cpp, CompatibleInferDivModeDtype). That loses values for DOUBLE, INT64 and
    INT32; the narrower integers fit FLOAT exactly."""
    fam = chips.family()
    if fam == "950" or dtype not in (D.float64, D.int64, D.int32):
        return False
    both_int32 = a.dtype is D.int32 and isinstance(b, Tensor) and b.dtype is D.int32
    return not (dtype is D.int32 and fam == "910B" and both_int32)


def _trunc_div(m, a, b):
    """Trunc division in `m`'s dtype through operators that keep it: float64 as aclnnDiv (which keeps DOUBLE)
    rounded toward zero (Ceil below zero, Floor above); integers as the floor quotient (aclnnDivMod's floor
    mode keeps its dtype) of a - fmod(a, b), which b divides exactly."""
    dt, dev = m.dtype, a.device
    x, y = (t if t.dtype is dt else cast(t, dt) for t in (a, b if isinstance(b, Tensor) else scalar_tensor(b, dt, dev)))
    out = empty(m.shape, dt, dev)
    if dt.is_floating_point:
        q, lo, hi, neg = (empty(m.shape, t, dev) for t in (dt, dt, dt, D.bool_))
        launch("Div", x, y, q)
        launch("Floor", q, lo)
        launch("Ceil", q, hi)
        launch("LtScalar", q, scalar_for(0, dt), neg)
        launch("SWhere", neg, hi, lo, out)
    else:
        r, exact = empty(m.shape, dt, dev), empty(m.shape, dt, dev)
        launch("FmodTensor", x, y, r)
        launch("Sub", x, r, scalar_for(1, dt), exact)
        launch("DivMod", exact, y, DIV_MODE["floor"], out)
    return out


@kernel("floor_divide")
def floor_divide(m, a, b):
    return div(m, a, b, "floor")


@kernel("floor_divide_")
def floor_divide_(m, a, b):
    return div_inplace(m, a, b, "floor")


@kernel("pow")
def pow_(m, a, b):
    if isinstance(a, Tensor):
        return binary_out(m, "PowTensorTensor", "PowTensorScalar", a, b)
    out = empty(m.shape, m.dtype, b.device)  # number ** tensor has its own operator
    launch("PowScalarTensor", scalar_for(a, m.dtype), b, out)
    return out


@kernel("pow_")
def pow_inplace(m, a, b):
    return launch_binary("PowTensorTensor", "PowTensorScalar", a, b, a.dtype)


# --- comparisons, logical and bitwise ops ---------------------------------------------------------------
# no in-place kernels for the bool-result ops: core's in-place form goes through its own cast rule

for _names, _t, _s in (
    (("eq",), "EqTensor", "EqScalar"),
    (("ne", "not_equal"), "NeTensor", "NeScalar"),
    (("lt", "less"), "LtTensor", "LtScalar"),
    (("le", "less_equal"), "LeTensor", "LeScalar"),
    (("gt", "greater"), "GtTensor", "GtScalar"),
    (("ge", "greater_equal"), "GeTensor", "GeScalar"),
):
    _register(_names, binary(_t, _s, inplace=False))
_register(("logical_and",), binary("LogicalAnd", inplace=False))
_register(("logical_or",), binary("LogicalOr", inplace=False))
_register(("logical_xor",), binary("LogicalXor", inplace=False))
_register(("bitwise_and",), binary("BitwiseAndTensor"))
_register(("bitwise_or",), binary("BitwiseOrTensor"))
_register(("bitwise_xor",), binary("BitwiseXorTensor"))
_register(("bitwise_left_shift", "bitwise_left_shift.Scalar_Tensor"), binary("LeftShift", "LeftShifts", inplace=False))
_register(("bitwise_right_shift", "bitwise_right_shift.Scalar_Tensor"), binary("RightShift", inplace=False))


@kernel("bitwise_not")
def bitwise_not(m, a):
    return run("LogicalNot" if a.dtype is D.bool_ else "BitwiseNot", a, m)  # ~ of a bool is its negation


KERNELS["bitwise_not_"] = in_place_by_copy(bitwise_not)


# --- where and clamp -------------------------------------------------------------------------------------


@kernel("where")
def where(m, c, a, b):
    a = a if isinstance(a, Tensor) else scalar_tensor(a, m.dtype, c.device)
    b = b if isinstance(b, Tensor) else scalar_tensor(b, m.dtype, c.device)
    out = empty(m.shape, m.dtype, c.device)
    launch("SWhere", c, a, b, out)
    return out


def clamp(m, a, lo=None, hi=None):
    out = empty(m.shape, m.dtype, a.device)
    if not isinstance(lo, Tensor) and not isinstance(hi, Tensor):
        s = [None if v is None else scalar_for(v, m.dtype) for v in (lo, hi)]
        if s[0] is not None and s[1] is not None:
            launch("Clamp", a, s[0], s[1], out)
        elif s[0] is not None:
            launch("ClampMin", a, s[0], out)
        else:
            launch("ClampMax", a, s[1], out)
        return out
    lo, hi = (v if v is None or isinstance(v, Tensor) else scalar_tensor(v, m.dtype, a.device) for v in (lo, hi))
    if lo is not None and hi is not None:
        launch("ClampTensor", a, lo, hi, out)
    elif lo is not None:
        launch("ClampMinTensor", a, lo, out)
    else:
        launch("ClampMaxTensor", a, hi, out)
    return out


KERNELS.update(clamp_family(clamp, in_place_by_copy(clamp)))


# --- activations with parameters -------------------------------------------------------------------------

GELU_APPROXIMATE = {"none": 0, "tanh": 1}  # aclnnGeluV2's approximate attribute


@kernel("gelu")
def gelu(m, a, approximate="none"):
    if approximate == "none":
        return run("Gelu", a, m)
    return run("GeluV2", a, m, GELU_APPROXIMATE[approximate])


@kernel("gelu_backward")
def gelu_backward(m, g, a, approximate="none"):
    """aclnnGeluBackwardV2 for both forms (approximate as the string "none" / "tanh", as torch_npu's op-plugin
    passes it), which broadcasts the gradient into self's shape. Core's composite takes a gradient of another
    dtype than self's or one that does not broadcast into self's shape, and a dtype the chip's operator lacks;
    an empty self has nothing to compute."""
    if (
        g.dtype is not a.dtype
        or not _broadcasts_into(g._shape, a._shape)
        or not chips.supports("GeluBackwardV2", a.dtype)
    ):
        return OPS["gelu_backward"].composite(g, a, approximate=approximate)
    out = empty(m.shape, m.dtype, a.device)
    if numel(out):
        launch("GeluBackwardV2", g, a, _APPROXIMATE_BYTES[approximate], out)
    return out


_APPROXIMATE_BYTES = {"none": b"none", "tanh": b"tanh"}  # core's shape rule refuses any other


def _broadcasts_into(shape, target):
    if shape == target:
        return True
    k = len(target) - len(shape)
    return k >= 0 and all(s in (1, t) for s, t in zip(shape, target[k:]))


@kernel("silu_backward")
def silu_backward(m, g, a):
    """aclnnSiluBackward. Off Ascend950 its op_api wants the three dtypes and shapes equal, so a gradient that
    broadcasts into self's shape goes in as a stride-0 view of that shape (the operator takes strided inputs)
    and a 0-dim pair as 1-d (the doc takes 1 to 8 dims). Core's composite takes mixed dtypes, a self that
    broadcasts up to the gradient, more than 8 dims and a dtype the chip's operator lacks; an empty result
    has nothing to compute."""
    shape = a._shape
    if (
        g.dtype is not a.dtype
        or tuple(m.shape) != shape
        or len(shape) > 8
        or not chips.supports("SiluBackward", a.dtype)
    ):
        return OPS["silu_backward"].composite(g, a)
    out = empty(m.shape, m.dtype, a.device)
    if numel(out):
        launch("SiluBackward", as_1d(_expanded(g, shape)), as_1d(a), as_1d(out))
    return out


def _expanded(t, shape):
    """t broadcast to `shape` as a view (stride 0 along the dims it is repeated on)."""
    if t._shape == shape:
        return t
    k = len(shape) - len(t._shape)
    stride = [0] * k + [0 if s == 1 and n != 1 else st for s, n, st in zip(t._shape, shape[k:], t._stride)]
    return view(t, shape, stride)


@kernel("leaky_relu")
def leaky_relu(m, a, slope=0.01):
    return run("LeakyRelu", a, m, scalar_for(slope, D.float64))


@kernel("leaky_relu_")
def leaky_relu_(m, a, slope=0.01):
    launch("InplaceLeakyRelu", a, scalar_for(slope, D.float64))
    return a


def _elu_args(alpha, scale, input_scale):
    return tuple(Scalar(float(v), A.ACL_DOUBLE) for v in (alpha, scale, input_scale))


@kernel("elu")
def elu(m, a, alpha=1.0, scale=1, input_scale=1):
    chips.check_dtype("Elu", m.dtype, "elu")
    out = empty(m.shape, m.dtype, a.device)
    launch("Elu", a, *_elu_args(alpha, scale, input_scale), out)
    return out


@kernel("elu_")
def elu_(m, a, alpha=1.0, scale=1, input_scale=1):
    chips.check_dtype("Elu", a.dtype, "elu")
    launch("InplaceElu", a, *_elu_args(alpha, scale, input_scale))
    return a


@kernel("softplus")
def softplus(m, a, beta=1, threshold=20):
    return run("Softplus", a, m, scalar_for(beta, D.float64), scalar_for(threshold, D.float64))


@kernel("hardtanh")
def hardtanh(m, a, lo=-1, hi=1):
    out = empty(m.shape, m.dtype, a.device)
    launch("Hardtanh", a, scalar_for(lo, m.dtype), scalar_for(hi, m.dtype), out)
    return out


@kernel("hardtanh_")
def hardtanh_(m, a, lo=-1, hi=1):
    launch("InplaceHardtanh", a, scalar_for(lo, a.dtype), scalar_for(hi, a.dtype))
    return a


_FMAX = {D.float16: 65504.0, D.bfloat16: 3.3895313892515355e38, D.float32: 3.4028234663852886e38}


def _nan_to_num_args(op, dtype, nan, posinf, neginf):
    """aclnnNanToNum takes float replacements: float64's own range does not fit them."""
    if dtype.is_floating_point and dtype not in _FMAX and (posinf is None or neginf is None):
        chips.check_dtype(op, dtype, "nan_to_num")  # a chip whose operator lacks the dtype says so first
        raise TypeError(
            "nan_to_num on npu: aclnnNanToNum takes float32 replacement values, so float64's default "
            "(its largest finite value) cannot be passed; give posinf and neginf explicitly"
        )
    big = _FMAX.get(dtype, 0.0)
    return (
        0.0 if nan is None else float(nan),
        big if posinf is None else float(posinf),
        -big if neginf is None else float(neginf),
    )


@kernel("nan_to_num")
def nan_to_num(m, a, nan=None, posinf=None, neginf=None):
    out = empty(m.shape, m.dtype, a.device)
    launch("NanToNum", a, *_nan_to_num_args("NanToNum", a.dtype, nan, posinf, neginf), out)
    return out


@kernel("nan_to_num_")
def nan_to_num_(m, a, nan=None, posinf=None, neginf=None):
    launch("InplaceNanToNum", a, *_nan_to_num_args("InplaceNanToNum", a.dtype, nan, posinf, neginf))
    return a


# --- ternary updates (the optimizers') --------------------------------------------------------------------


@kernel("lerp")
def lerp(m, a, end, weight):
    chips.check_dtype("Lerp", m.dtype, "lerp")
    out = empty(m.shape, m.dtype, a.device)
    if isinstance(weight, Tensor):
        launch("Lerp", a, end, weight, out)
    else:
        launch("Lerps", a, end, scalar_for(weight, m.dtype), out)
    return out


@kernel("lerp_")
def lerp_(m, a, end, weight):
    chips.check_dtype("InplaceLerp", a.dtype, "lerp_")
    if isinstance(weight, Tensor):
        launch("InplaceLerp", a, end, weight)
    else:
        launch("InplaceLerps", a, end, scalar_for(weight, a.dtype))
    return a


def _addc(acl):
    def out_of_place(m, s, t1, t2, value=1):
        out = empty(m.shape, m.dtype, s.device)
        launch(acl, s, t1, t2, scalar_for(value, m.dtype), out)
        return out

    def in_place(m, s, t1, t2, value=1):
        launch("Inplace" + acl, s, t1, t2, scalar_for(value, s.dtype))
        return s

    return out_of_place, in_place


_register(("addcmul",), _small_ints_in_int32(_addc("Addcmul"), "Addcmul"))
_register(("addcdiv",), _addc("Addcdiv"))
