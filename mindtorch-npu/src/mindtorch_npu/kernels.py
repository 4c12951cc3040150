"""NPU kernels: each op of the table that runs on the device, through one ACLNN operator.

Kernels follow core's calling convention, kernel(meta, *bound args); `meta` carries the output
shape and dtype from core's shape rule, so a kernel allocates its output and launches.
"""
import math

from mindtorch.plugins import Tensor, clamp_family, dtypes as D, kernel_table

from .aclnn import launch, DType, Scalar, scalar_for
from .acl import types as A
from .copy import COPY, empty, npu_device
from .state import RUNTIME

KERNELS, kernel = kernel_table()


def contiguous(t):
    out = empty(t._shape, t.dtype, t.device)
    launch("InplaceCopy", out, t)
    return out


# --- factories and copies ------------------------------------------------------------------------

@kernel("empty")
def empty_(m, size, dtype=None, layout=None, device=None, *rest):
    return empty(m.shape, m.dtype, npu_device(device))


@kernel("empty_strided")
def empty_strided(m, size, stride, dtype=None, layout=None, device=None, *rest):
    from mindtorch.plugins import make_tensor
    from .state import ALLOCATOR
    dev = npu_device(device)
    span = 1 + sum((s - 1) * st for s, st in zip(size, stride)) if all(size) else 0
    storage = ALLOCATOR.allocate(span * m.dtype.itemsize, dev)
    return make_tensor(storage, tuple(size), tuple(stride), 0, m.dtype, dev)


@kernel("full")
def full(m, size, value, dtype=None, layout=None, device=None, *rest):
    out = empty(m.shape, m.dtype, npu_device(device))
    return fill_(None, out, value)


@kernel("clone")
def clone(m, a, memory_format=None):
    return contiguous(a)


@kernel("fill_.Scalar")
def fill_(m, a, value):
    launch("InplaceFillScalar", a, scalar_for(value, a.dtype))
    return a


@kernel("zero_")
def zero_(m, a):
    launch("InplaceZero", a)
    return a


@kernel("copy_")
def copy_(m, dst, src, non_blocking=False):
    # core moves data between backends through the copy routines; here both are NPU tensors
    if src.device.index != dst.device.index:  # between two NPUs, through the host
        COPY.copy_from_host(dst, _host_values(src, dst.dtype))
    else:
        launch("InplaceCopy", dst, src)
    return dst


@kernel("_to_copy")
def to_copy(m, a, dtype=None, device=None, non_blocking=False):
    dev = a.device if device is None else npu_device(device)
    if dev.index != a.device.index:
        return COPY.from_host(_host_values(a, m.dtype), m.dtype, dev, non_blocking)
    out = empty(a._shape, m.dtype, dev)
    if m.dtype is a.dtype:
        launch("InplaceCopy", out, a)
    else:
        launch("Cast", a, DType(m.dtype), out)
    return out


def _host_values(t, dtype=None):
    """t's values on the host, cast on the device first when another dtype is asked for."""
    if dtype is not None and dtype is not t.dtype:
        out = empty(t._shape, dtype, t.device)
        launch("Cast", t, DType(dtype), out)
        t = out
    return COPY.to_host(t)


# --- arithmetic ------------------------------------------------------------------------------------

def _binary(tensor_op, scalar_op, has_alpha, negate=False):
    def out_of_place(m, a, b, alpha=1):
        if not isinstance(a, Tensor):  # number - tensor (rsub, derivative formulas)
            a = _scalar_tensor(a, m.dtype, b.device)
        out = empty(m.shape, m.dtype, a.device)
        extra = (scalar_for(-alpha if negate else alpha, m.dtype),) if has_alpha else ()
        if isinstance(b, Tensor):
            launch(tensor_op, a, b, *extra, out)
        else:
            launch(scalar_op, a, scalar_for(b, m.dtype), *extra, out)
        return out

    def in_place(m, a, b, alpha=1):
        extra = (scalar_for(-alpha if negate else alpha, a.dtype),) if has_alpha else ()
        if isinstance(b, Tensor):
            launch("Inplace" + tensor_op, a, b, *extra)
        else:
            launch("Inplace" + scalar_op, a, scalar_for(b, a.dtype), *extra)
        return a
    return out_of_place, in_place


KERNELS["add"], KERNELS["add_"] = _binary("Add", "Adds", True)
KERNELS["sub"], KERNELS["sub_"] = _binary("Add", "Adds", True, negate=True)   # self - alpha*other
KERNELS["mul"], KERNELS["mul_"] = _binary("Mul", "Muls", False)


# --- matrix products -------------------------------------------------------------------------------

_native_fp32 = []


def _cube_math_type(dtype):
    """KEEP_DTYPE (0) where the chip multiplies float32 natively (910B/910_93 class), otherwise
    ALLOW_FP32_DOWN_PRECISION (1), which aclnnMatmul requires for float32 on older chips."""
    if not _native_fp32:
        _native_fp32.append(RUNTIME.soc_name().startswith(("Ascend910B", "Ascend910_93")))
    return 1 if dtype is D.float32 and not _native_fp32[0] else 0


def _matmul_op(name, acl_name):
    def k(m, a, b):
        chips.check_dtype(acl_name, m.dtype, name)
        out = empty(m.shape, m.dtype, a.device)
        launch(acl_name, a, b, out, _cube_math_type(m.dtype))
        return out
    return k


KERNELS["mm"] = _matmul_op("mm", "Mm")
KERNELS["bmm"] = _matmul_op("bmm", "BatchMatMul")
KERNELS["matmul"] = _matmul_op("matmul", "Matmul")
KERNELS["mv"] = _matmul_op("mv", "Mv")


@kernel("dot")
def dot(m, a, b):
    chips.check_dtype("Dot", m.dtype, "dot")
    out = empty(m.shape, m.dtype, a.device)
    launch("Dot", a, b, out)
    return out


# --- the op table: core op name -> ACLNN operator, one helper per argument shape -------------------

from .acl.prototypes import UNARY_HEADERS, UNARY_ONLY_HEADERS  # noqa: E402
from .aclnn import BoolArray, IntArray  # noqa: E402
from . import chips  # noqa: E402

UNARY = {  # core name: ACLNN operator
    "exp": "Exp", "exp2": "Exp2", "expm1": "Expm1", "log": "Log", "log2": "Log2", "log10": "Log10",
    "log1p": "Log1p", "sqrt": "Sqrt", "rsqrt": "Rsqrt", "sin": "Sin", "cos": "Cos", "tan": "Tan",
    "asin": "Asin", "arcsin": "Asin", "acos": "Acos", "arccos": "Acos", "atan": "Atan", "arctan": "Atan",
    "sinh": "Sinh", "cosh": "Cosh", "tanh": "Tanh", "erf": "Erf", "sigmoid": "Sigmoid", "reciprocal": "Reciprocal",
    "neg": "Neg", "negative": "Neg", "relu": "Relu", "floor": "Floor", "ceil": "Ceil", "trunc": "Trunc",
    "fix": "Trunc", "frac": "Frac", "logical_not": "LogicalNot", "abs": "Abs", "absolute": "Abs", "sign": "Sign",
    "silu": "Silu", "acosh": "Acosh", "arccosh": "Acosh", "asinh": "Asinh", "arcsinh": "Asinh", "atanh": "Atanh",
    "arctanh": "Atanh", "erfc": "Erfc", "mish": "Mish", "signbit": "Signbit", "erfinv": "Erfinv",
    "lgamma": "Lgamma", "digamma": "Digamma", "special_erfinv": "Erfinv",
}


def cast(t, dtype):
    out = empty(t._shape, dtype, t.device)
    launch("Cast", t, DType(dtype), out)
    return out


def through(acl, a, result):
    """(input, out dtype) for running `acl` on `a` toward a `result`-typed value, per the chip table: an input
    dtype the operator does not take is cast to one it does, and so is an out dtype it cannot write."""
    chips.check_chip_dtype(a.dtype, f"aclnn{acl}")
    cdt = chips.compute_dtype(acl, a.dtype, result)
    x = a if cdt is a.dtype else cast(a, cdt)
    return x, (result if chips.supports(acl, result) or not (chips.supports(acl, cdt)) else cdt)


def run(acl, a, m, *attrs):
    """out = acl(a, *attrs) with m's shape and dtype, through a supported dtype when needed."""
    x, rdt = through(acl, a, m.dtype)
    out = empty(m.shape, rdt, a.device)
    launch(acl, x, *attrs, out)
    return out if rdt is m.dtype else cast(out, m.dtype)


def _unary(acl):
    def out_of_place(m, a):
        return run(acl, a, m)

    def in_place(m, a):
        if chips.supports(acl, a.dtype) and acl in UNARY_HEADERS:
            launch("Inplace" + acl, a)
        elif chips.supports(acl, a.dtype):  # no in-place form in the header: the elementwise op writes over a
            launch(acl, a, a)
        else:
            launch("InplaceCopy", a, run(acl, a, m))
        return a
    return out_of_place, in_place


for _name, _acl in UNARY.items():
    assert _acl in UNARY_HEADERS or _acl in UNARY_ONLY_HEADERS
    KERNELS[_name], KERNELS[_name + "_"] = _unary(_acl)
KERNELS.pop("logical_not_")  # core composes it (bool result into selfRef's dtype)
KERNELS.pop("signbit_")  # no such op


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


GELU_APPROXIMATE = {"none": 0, "tanh": 1}  # aclnnGeluV2's approximate attribute


@kernel("gelu")
def gelu(m, a, approximate="none"):
    if approximate == "none":
        return run("Gelu", a, m)
    return run("GeluV2", a, m, GELU_APPROXIMATE[approximate])


def _binary_table(tensor_op, scalar_op=None, inplace=True):
    """out-of-place and in-place kernels of a binary op with tensor and (optionally) scalar forms."""
    def out_of_place(m, a, b):
        if not isinstance(a, Tensor):  # number op tensor
            a = _scalar_tensor(a, b.dtype, b.device)
        out = empty(m.shape, m.dtype, a.device)
        if isinstance(b, Tensor):
            launch(tensor_op, a, b, out)
        elif scalar_op:
            launch(scalar_op, a, scalar_for(b, m.dtype if m.dtype is not D.bool_ else a.dtype), out)
        else:
            launch(tensor_op, a, _scalar_tensor(b, a.dtype, a.device), out)
        return out

    def in_place(m, a, b):
        if isinstance(b, Tensor):
            launch("Inplace" + tensor_op, a, b)
        elif scalar_op:
            launch("Inplace" + scalar_op, a, scalar_for(b, a.dtype))
        else:
            launch("Inplace" + tensor_op, a, _scalar_tensor(b, a.dtype, a.device))
        return a
    return out_of_place, (in_place if inplace else None)


def _scalar_tensor(value, dtype, device):
    """A 0-dim device tensor holding a Python number (for ops whose header has no scalar form)."""
    # the number keeps its category (bool / int64 / default float), as a wrapped number does in PyTorch;
    # within the tensor's category it takes the tensor's dtype, so it never widens the result
    dt = D.bool_ if isinstance(value, bool) else D.int64 if isinstance(value, int) else D.float32
    if (dt.is_floating_point and dtype.is_floating_point) or (dt is D.int64 and not dtype.is_floating_point
                                                            and dtype is not D.bool_):
        dt = dtype
    t = empty((), dt, device)
    launch("InplaceFillScalar", t, scalar_for(value, dt))
    return t


def _register(names, fns):
    out_of_place, in_place = fns
    for n in names:
        KERNELS[n] = out_of_place
    if in_place is not None:
        KERNELS[names[0] + "_"] = in_place


for _names, _t, _s in ((("eq",), "EqTensor", "EqScalar"), (("ne", "not_equal"), "NeTensor", "NeScalar"),
                       (("lt", "less"), "LtTensor", "LtScalar"), (("le", "less_equal"), "LeTensor", "LeScalar"),
                       (("gt", "greater"), "GtTensor", "GtScalar"), (("ge", "greater_equal"), "GeTensor", "GeScalar")):
    _out, _in = _binary_table(_t, _s)

    def _cmp_inplace(m, a, b, _in=_in):  # the tensor forms' in-place rows exist for every comparison
        return _in(m, a, b)
    _register(_names, (_out, _cmp_inplace))

_register(("maximum",), _binary_table("Maximum", inplace=False))
_register(("minimum",), _binary_table("Minimum", inplace=False))
_register(("atan2", "arctan2"), _binary_table("Atan2"))
_register(("logical_and",), _binary_table("LogicalAnd"))
_register(("logical_or",), _binary_table("LogicalOr"))
_register(("logical_xor",), _binary_table("LogicalXor", inplace=False))
_register(("logaddexp",), _binary_table("LogAddExp", inplace=False))
_register(("logaddexp2",), _binary_table("LogAddExp2", inplace=False))
_register(("gcd",), _binary_table("Gcd", inplace=False))
KERNELS.pop("arctan2_", None)
for _n in ("logical_and_", "logical_or_", "eq_", "ne_", "lt_", "le_", "gt_", "ge_"):
    KERNELS.pop(_n, None)  # core's in-place of a bool-result op goes through its own cast rule
KERNELS["sub"], KERNELS["sub_"] = _binary("Sub", "Subs", True)


DIV_MODE = {None: 0, "trunc": 1, "floor": 2}  # aclnnDivMod's rounding modes


@kernel("div")
def div(m, a, b, rounding_mode=None):
    if rounding_mode is None:
        return _div(m, a, b)
    out = empty(m.shape, m.dtype, a.device)
    mode = DIV_MODE[rounding_mode]
    if isinstance(b, Tensor):
        launch("DivMod", a, b, mode, out)
    else:
        launch("DivMods", a, scalar_for(b, m.dtype), mode, out)
    return out


@kernel("div_")
def div_inplace(m, a, b, rounding_mode=None):
    if rounding_mode is None:
        return _div_(m, a, b)
    mode = DIV_MODE[rounding_mode]
    if isinstance(b, Tensor):
        launch("InplaceDivMod", a, b, mode)
    else:
        launch("InplaceDivMods", a, scalar_for(b, a.dtype), mode)
    return a


@kernel("floor_divide")
def floor_divide(m, a, b):
    return div(m, a, b, "floor")


@kernel("floor_divide_")
def floor_divide_(m, a, b):
    return div_inplace(m, a, b, "floor")


_div, _div_ = _binary_table("Div", "Divs")



@kernel("pow")
def pow_(m, a, b):
    out = empty(m.shape, m.dtype, (a if isinstance(a, Tensor) else b).device)
    if not isinstance(a, Tensor):
        launch("PowScalarTensor", scalar_for(a, m.dtype), b, out)
    elif isinstance(b, Tensor):
        launch("PowTensorTensor", a, b, out)
    else:
        launch("PowTensorScalar", a, scalar_for(b, m.dtype), out)
    return out


@kernel("pow_")
def pow_inplace(m, a, b):
    if isinstance(b, Tensor):
        launch("InplacePowTensorTensor", a, b)
    else:
        launch("InplacePowTensorScalar", a, scalar_for(b, a.dtype))
    return a


@kernel("where")
def where(m, c, a, b):
    a = a if isinstance(a, Tensor) else _scalar_tensor(a, m.dtype, c.device)
    b = b if isinstance(b, Tensor) else _scalar_tensor(b, m.dtype, c.device)
    out = empty(m.shape, m.dtype, c.device)
    launch("SWhere", c, a, b, out)
    return out


# --- reductions ------------------------------------------------------------------------------------

def _dims(dim, ndim):
    if dim is None:
        return IntArray(range(ndim))
    if isinstance(dim, int):
        dim = (dim,)
    return IntArray(dim if len(dim) else range(ndim))


def _reduce_dtype(acl):
    def k(m, a, dim=None, keepdim=False, dtype=None):
        out = empty(m.shape, m.dtype, a.device)
        launch(acl, a, _dims(dim, len(a._shape)), bool(keepdim), DType(m.dtype), out)
        return out
    return k


def _reduce(acl):
    def k(m, a, dim=(), keepdim=False):
        out = empty(m.shape, m.dtype, a.device)
        launch(acl, a, _dims(dim, len(a._shape)), bool(keepdim), out)
        return out
    return k


KERNELS["sum"] = _reduce_dtype("ReduceSum")
KERNELS["mean"] = _reduce_dtype("Mean")
KERNELS["amax"], KERNELS["amin"] = _reduce("Amax"), _reduce("Amin")
KERNELS["max"] = lambda m, a: _reduce("Amax")(m, a, None)
KERNELS["min"] = lambda m, a: _reduce("Amin")(m, a, None)


def _softmax(acl):
    def k(m, a, dim, dtype=None):
        return run(acl, a, m, int(dim))
    return k


KERNELS["softmax"], KERNELS["log_softmax"] = _softmax("Softmax"), _softmax("LogSoftmax")


@kernel("cumsum")
def cumsum(m, a, dim, dtype=None):
    out = empty(m.shape, m.dtype, a.device)
    launch("Cumsum", a, int(dim), DType(m.dtype), out)
    return out


def _arg(acl):
    def k(m, a, dim=None, keepdim=False):
        if dim is None:  # over the flattened tensor: a contiguous 1-D view of it
            a = _flat(a)
            dim, keepdim = 0, False
        out = empty(m.shape, m.dtype, a.device)
        launch(acl, a, int(dim), bool(keepdim), out)
        return out
    return k


def _flat(a):
    from mindtorch.plugins import make_tensor
    c = a if _is_contiguous(a) else contiguous(a)
    n = 1
    for s in c._shape:
        n *= s
    return make_tensor(c._storage, (n,), (1,), c._offset, c.dtype, c.device)


def _is_contiguous(t):
    acc = 1
    for s, st in zip(reversed(t._shape), reversed(t._stride)):
        if s != 1 and st != acc:
            return False
        acc *= s
    return True


KERNELS["argmax"], KERNELS["argmin"] = _arg("ArgMax"), _arg("ArgMin")


def _check_index(index, size, dim, name, exc=IndexError):
    """PyTorch's IndexError for an index out of [0, size): both bounds are reduced on the device into one
    2-element tensor, so the host waits for the stream once and reads two numbers."""
    if not _numel(index):
        return
    from mindtorch.plugins import make_tensor
    bounds = empty((2,), index.dtype, index.device)
    every = IntArray(range(len(index._shape)))
    for i, acl in enumerate(("Amin", "Amax")):
        slot = make_tensor(bounds._storage, (), (), bounds._offset + i, index.dtype, index.device)
        launch(acl, index, every, False, slot)
    lo, hi = COPY.to_host(bounds).tolist()
    bad = lo if lo < 0 else hi if hi >= size else None
    if bad is not None:
        raise exc(f"{name}(): index {bad} is out of bounds for dimension {dim} with size {size}")


def _numel(t):
    n = 1
    for s in t._shape:
        n *= s
    return n


@kernel("index_select")
def index_select(m, a, dim, index):
    nd = len(a._shape)
    d = dim % nd if nd else 0
    _check_index(index, a._shape[d] if nd else 1, d, "index_select")
    out = empty(m.shape, m.dtype, a.device)
    launch("IndexSelect", a, int(dim), index, out)
    return out


@kernel("embedding")
def embedding(m, w, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    _check_index(indices, w._shape[0], 0, "embedding")
    out = empty(m.shape, m.dtype, w.device)
    launch("Embedding", w, indices, out)
    return out


def _masked_fill_value(value):
    if isinstance(value, Tensor):  # masked_fill.Tensor: a 0-dim value, read once
        return COPY.to_host(value).item()
    return value


@kernel("masked_fill_.Scalar", "masked_fill_.Tensor")
def masked_fill_(m, a, mask, value):
    launch("InplaceMaskedFillScalar", a, mask, scalar_for(_masked_fill_value(value), a.dtype))
    return a


@kernel("masked_fill.Scalar", "masked_fill.Tensor")
def masked_fill(m, a, mask, value):
    out = empty(m.shape, m.dtype, a.device)
    launch("InplaceCopy", out, a)
    launch("InplaceMaskedFillScalar", out, mask, scalar_for(_masked_fill_value(value), m.dtype))
    return out


@kernel("cat")
def cat(m, tensors, dim=0):
    """Each part copied into its slice of the output (aclnnInplaceCopy on a strided view of out)."""
    from mindtorch.plugins import make_tensor
    out = empty(m.shape, m.dtype, tensors[0].device)
    if not m.shape:
        return out
    d = dim % len(m.shape)
    pos = 0
    for t in tensors:
        if len(t._shape) == 1 and t._shape[0] == 0 and len(m.shape) != 1:
            continue  # legacy empty 1-D parts are skipped, as PyTorch does
        n = t._shape[d]
        if n:
            shape = out._shape[:d] + (n,) + out._shape[d + 1:]
            view = make_tensor(out._storage, shape, out._stride, out._offset + pos * out._stride[d], m.dtype, out.device)
            if t.dtype is m.dtype:
                launch("InplaceCopy", view, t)
            else:
                launch("Cast", t, DType(m.dtype), view)
        pos += n
    return out


@kernel("linear")
def linear(m, x, w, b=None):
    """x @ w.T (+ b): aclnnMatmul on the transposed view of w, then aclnnInplaceAdd of the bias."""
    from mindtorch.plugins import make_tensor
    chips.check_chip_dtype(m.dtype, "aclnnMatmul")
    wt = make_tensor(w._storage, tuple(reversed(w._shape)), tuple(reversed(w._stride)), w._offset, w.dtype, w.device)
    out = empty(m.shape, m.dtype, x.device)
    launch("Matmul", x, wt, out, _cube_math_type(m.dtype))
    if b is not None:
        launch("InplaceAdd", out, b, scalar_for(1, m.dtype))
    return out



# --- random numbers: ACLNN's counter-based operators, (seed, offset) from the device's generator ---------

def _draw(t, generator):
    """(seed, offset) for filling t: the generator of t's device advances by t's element count."""
    from mindtorch.plugins import generator_state
    if generator is not None and generator.device.type != "npu":
        raise RuntimeError(f"Expected a 'npu' device type for generator but found '{generator.device.type}'")
    if generator is None:
        from mindtorch.plugins import default_generator
        generator = default_generator(t.device)
    return generator_state(generator, t.device).advance(_numel(t))


def _fill_random(t, acl, params, generator):
    if _numel(t):
        launch(acl, t, *params, *_draw(t, generator))
    return t


@kernel("uniform_")
def uniform_(m, a, low=0.0, high=1.0, generator=None):
    return _fill_random(a, "InplaceUniform", (float(low), float(high)), generator)


@kernel("normal_")
def normal_(m, a, mean=0.0, std=1.0, generator=None):
    return _fill_random(a, "InplaceNormal", (float(mean), float(std)), generator)


@kernel("bernoulli_.float")
def bernoulli_(m, a, p=0.5, generator=None):
    return _fill_random(a, "InplaceBernoulli", (scalar_for(p, D.float64),), generator)


@kernel("bernoulli_.Tensor")
def bernoulli_tensor_(m, a, p, generator=None):
    return _fill_random(a, "InplaceBernoulliTensor", (p,), generator)


@kernel("bernoulli")
def bernoulli(m, probs, generator=None):
    return bernoulli_tensor_(None, empty(m.shape, m.dtype, probs.device), probs, generator)


@kernel("bernoulli.p")
def bernoulli_p(m, a, p, generator=None):
    return bernoulli_(None, empty(m.shape, m.dtype, a.device), p, generator)


@kernel("randperm")
def randperm(m, n, generator=None, *rest):
    out = empty(m.shape, m.dtype, npu_device(_device_of(rest)))
    if n:
        launch("Randperm", int(n), *_draw(out, generator), out)
    return out


def _scaled_normal(m, mean, std, device, generator):
    """normal(mean, std) with tensor parameters: a standard normal draw, scaled and shifted on the device."""
    out = normal_(None, empty(m.shape, m.dtype, device), 0.0, 1.0, generator)
    if isinstance(std, Tensor):
        launch("InplaceMul", out, std)
    else:
        launch("InplaceMuls", out, scalar_for(std, m.dtype))
    if isinstance(mean, Tensor):
        launch("InplaceAdd", out, mean, scalar_for(1, m.dtype))
    else:
        launch("InplaceAdds", out, scalar_for(mean, m.dtype), scalar_for(1, m.dtype))
    return out


KERNELS["normal.Tensor_Tensor"] = lambda m, mean, std, generator=None: _scaled_normal(m, mean, std, mean.device,
                                                                                      generator)
KERNELS["normal.Tensor_float"] = lambda m, mean, std=1, generator=None: _scaled_normal(m, mean, std, mean.device,
                                                                                       generator)
KERNELS["normal.float_Tensor"] = lambda m, mean, std, generator=None: _scaled_normal(m, mean, std, std.device,
                                                                                     generator)


@kernel("normal.float_float")
def normal_float_float(m, mean, std, size, generator=None, *rest):
    return normal_(None, empty(m.shape, m.dtype, npu_device(_device_of(rest))), mean, std, generator)


@kernel("exponential_")
def exponential_(m, a, lambd=1.0, generator=None):
    """-log(1 - u) / lambda from a uniform draw (ACLNN has no exponential sampler)."""
    uniform_(None, a, 0.0, 1.0, generator)
    launch("InplaceMuls", a, scalar_for(-1, a.dtype))
    launch("InplaceAdds", a, scalar_for(1, a.dtype), scalar_for(1, a.dtype))
    launch("InplaceLog", a)
    launch("InplaceMuls", a, scalar_for(-1.0 / lambd, a.dtype))
    return a


_I64_MAX = (1 << 63) - 1


def _random_range(a, low, high, generator):
    # aclnnInplaceRandom's `to` is an exclusive int64: int64's full range [from, 2**63) ends one short
    return _fill_random(a, "InplaceRandom", (int(low), min(int(high), _I64_MAX)), generator)


@kernel("random_")
def random_(m, a, generator=None):
    from mindtorch.plugins import random_bounds
    return _random_range(a, *random_bounds(a.dtype), generator)


@kernel("random_.to")
def random_to(m, a, to, generator=None):
    from mindtorch.plugins import random_bounds
    return _random_range(a, *random_bounds(a.dtype, 0, to), generator)


@kernel("random_.from")
def random_from(m, a, low, to=None, generator=None):
    from mindtorch.plugins import random_bounds
    return _random_range(a, *random_bounds(a.dtype, low, to), generator)


@kernel("rand")
def rand(m, size, generator=None, *rest):
    return uniform_(None, empty(m.shape, m.dtype, npu_device(_device_of(rest))), 0.0, 1.0, generator)


@kernel("randn")
def randn(m, size, generator=None, *rest):
    return normal_(None, empty(m.shape, m.dtype, npu_device(_device_of(rest))), 0.0, 1.0, generator)


@kernel("randint.low")
def randint(m, low, high, size, generator=None, *rest):
    return _random_range(empty(m.shape, m.dtype, npu_device(_device_of(rest))), low, high, generator)


def _device_of(rest):
    """The device argument of a factory's (dtype, layout, device, ...) tail."""
    return rest[2] if len(rest) > 2 else None



# --- losses ----------------------------------------------------------------------------------------

def _view(t, shape, stride, offset=None):
    from mindtorch.plugins import make_tensor
    return make_tensor(t._storage, tuple(shape), tuple(stride), t._offset if offset is None else offset, t.dtype,
                       t.device)


def _rows(x, target):
    """aclnnNLLLoss takes [N, C] (or [C]): an [N, C, d...] input becomes [N*d..., C] (one copy)."""
    if len(x._shape) <= 2:
        return x, target
    n, c, rest = x._shape[0], x._shape[1], x._shape[2:]
    perm = (0,) + tuple(range(2, len(x._shape))) + (1,)
    moved = contiguous(_view(x, [x._shape[i] for i in perm], [x._stride[i] for i in perm]))
    rows = _numel(moved) // c
    t = target if _is_contiguous(target) else contiguous(target)
    del n, rest
    return _view(moved, (rows, c), (c, 1)), _view(t, (rows,), (1,))


def _weight(weight, x):
    if weight is not None:
        return weight
    w = empty((x._shape[1] if len(x._shape) > 1 else x._shape[0],), x.dtype, x.device)
    return fill_(None, w, 1)


@kernel("_nll_loss")
def nll_loss(m, x, target, weight, reduction, ignore_index):
    w = _weight(weight, x)
    xr, tr = _rows(x, target)
    out, total = empty(m[0].shape, m[0].dtype, x.device), empty(m[1].shape, m[1].dtype, x.device)
    o = out if reduction or len(x._shape) <= 2 else _view(out, (_numel(out),), (1,))
    launch("NLLLoss", xr, tr, w, int(reduction), int(ignore_index), o, total)
    return out, total


@kernel("_nll_loss_backward")
def nll_loss_backward(m, g, x, target, weight, reduction, ignore_index, total_weight):
    w = _weight(weight, x)
    xr, tr = _rows(x, target)
    gr = g if reduction or len(x._shape) <= 2 else _view(contiguous(g), (_numel(g),), (1,))
    if len(x._shape) <= 2:
        out = empty(m.shape, m.dtype, x.device)
        launch("NLLLossBackward", gr, xr, tr, w, int(reduction), int(ignore_index), total_weight, out)
        return out
    rows = empty(xr._shape, m.dtype, x.device)
    launch("NLLLossBackward", gr, xr, tr, w, int(reduction), int(ignore_index), total_weight, rows)
    # [N*d..., C] back to [N, C, d...]: a permuted view of the rows, copied into a contiguous out
    shp = m.shape
    moved_shape = (shp[0],) + tuple(shp[2:]) + (shp[1],)
    st, acc = [0] * len(moved_shape), 1
    for i in range(len(moved_shape) - 1, -1, -1):
        st[i], acc = acc, acc * moved_shape[i]
    inv = [0, len(shp) - 1] + list(range(1, len(shp) - 1))
    view = _view(rows, [moved_shape[i] for i in inv], [st[i] for i in inv])
    return contiguous(view)



# --- ternary pointwise (the optimizers' updates) -----------------------------------------------------

@kernel("lerp")
def lerp(m, a, end, weight):
    out = empty(m.shape, m.dtype, a.device)
    if isinstance(weight, Tensor):
        launch("Lerp", a, end, weight, out)
    else:
        launch("Lerps", a, end, scalar_for(weight, m.dtype), out)
    return out


@kernel("lerp_")
def lerp_(m, a, end, weight):
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


KERNELS["addcmul"], KERNELS["addcmul_"] = _addc("Addcmul")
KERNELS["addcdiv"], KERNELS["addcdiv_"] = _addc("Addcdiv")



# --- creation, normalisation, embedding backward -----------------------------------------------------

@kernel("arange.start_step")
def arange(m, start, end, step, *rest):
    from mindtorch.plugins import arange_params
    _, start, step, n = arange_params(start, end, step, m.dtype)
    out = empty(m.shape, m.dtype, npu_device(_device_of(rest)))
    if n:
        launch("Arange", scalar_for(start, m.dtype), scalar_for(end, m.dtype), scalar_for(step, m.dtype), out)
    return out


def _dense(t):
    return t if t is None or _is_contiguous(t) else contiguous(t)


@kernel("native_layer_norm")
def layer_norm(m, x, normalized_shape, w, b, eps):
    mo, mm, mr = m
    x = _dense(x)
    out, mean, rstd = (empty(mo.shape, mo.dtype, x.device), empty(mm.shape, mm.dtype, x.device),
                       empty(mr.shape, mr.dtype, x.device))
    launch("LayerNorm", x, IntArray(normalized_shape), _dense(w), _dense(b), float(eps), out, mean, rstd)
    return out, mean, rstd


@kernel("native_layer_norm_backward")
def layer_norm_backward(m, g, x, normalized_shape, mean, rstd, w, b):
    outs = tuple(empty(mm.shape, mm.dtype, x.device) for mm in m)
    launch("LayerNormBackward", _dense(g), _dense(x), IntArray(normalized_shape), _dense(mean), _dense(rstd),
           _dense(w), _dense(b), BoolArray((True, True, True)), *outs)
    return outs


@kernel("_embedding_backward")
def embedding_backward(m, g, indices, num_weights, padding_idx, scale_grad_by_freq):
    out = empty(m.shape, m.dtype, g.device)
    pad = padding_idx if padding_idx is not None and padding_idx >= 0 else -1
    launch("EmbeddingDenseBackward", _dense(g), _dense(indices), int(num_weights), pad & 0xFFFFFFFFFFFFFFFF,
           bool(scale_grad_by_freq), out)
    return out



# --- clamp, triangles, predicates, bitwise -----------------------------------------------------------

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
    lo, hi = (v if v is None or isinstance(v, Tensor) else _scalar_tensor(v, m.dtype, a.device) for v in (lo, hi))
    if lo is not None and hi is not None:
        launch("ClampTensor", a, lo, hi, out)
    elif lo is not None:
        launch("ClampMinTensor", a, lo, out)
    else:
        launch("ClampMaxTensor", a, hi, out)
    return out


def clamp_(m, a, lo=None, hi=None):
    launch("InplaceCopy", a, clamp(m, a, lo, hi))
    return a


KERNELS.update(clamp_family(clamp, clamp_))


def _tri(acl):
    def out_of_place(m, a, diagonal=0):
        out = empty(m.shape, m.dtype, a.device)
        launch(acl, a, int(diagonal), out)
        return out

    def in_place(m, a, diagonal=0):
        launch("Inplace" + acl, a, int(diagonal))
        return a
    return out_of_place, in_place


KERNELS["tril"], KERNELS["tril_"] = _tri("Tril")
KERNELS["triu"], KERNELS["triu_"] = _tri("Triu")
for _name, _acl in (("isfinite", "IsFinite"), ("isposinf", "IsPosInf"), ("isneginf", "IsNegInf"),
                    ("square", "Square")):
    KERNELS[_name] = _unary(_acl)[0]


@kernel("bitwise_not")
def bitwise_not(m, a):
    return run("LogicalNot" if a.dtype is D.bool_ else "BitwiseNot", a, m)  # ~ of a bool is its negation
KERNELS["square_"] = lambda m, a: (launch("InplaceCopy", a, KERNELS["square"](m, a)), a)[1]
KERNELS["bitwise_not_"] = lambda m, a: (launch("InplaceCopy", a, KERNELS["bitwise_not"](m, a)), a)[1]
_register(("bitwise_and",), _binary_table("BitwiseAndTensor"))
_register(("bitwise_or",), _binary_table("BitwiseOrTensor"))
_register(("bitwise_xor",), _binary_table("BitwiseXorTensor"))


def _dim_extreme(acl):
    def k(m, a, dim, keepdim=False):
        values, indices = empty(m[0].shape, m[0].dtype, a.device), empty(m[1].shape, m[1].dtype, a.device)
        launch(acl, a, int(dim), bool(keepdim), values, indices)
        return values, indices
    return k


KERNELS["_max_dim"], KERNELS["_min_dim"] = _dim_extreme("MaxDim"), _dim_extreme("MinDim")


@kernel("_sort")
def sort(m, a, dim=-1, descending=False, stable=False):
    values, indices = empty(m[0].shape, m[0].dtype, a.device), empty(m[1].shape, m[1].dtype, a.device)
    launch("Sort", a, bool(stable), int(dim), bool(descending), values, indices)
    return values, indices


@kernel("_topk")
def topk(m, a, k, dim=-1, largest=True, sorted=True):
    values, indices = empty(m[0].shape, m[0].dtype, a.device), empty(m[1].shape, m[1].dtype, a.device)
    launch("Topk", a, int(k), int(dim), bool(largest), bool(sorted), values, indices)
    return values, indices


# --- gather / scatter ------------------------------------------------------------------------------

SCATTER_REDUCE = {None: 0, "add": 1, "multiply": 2}  # aclnnScatter's reduce attribute


def _axis(a, dim):
    n = len(a._shape)
    return dim % n if n else 0


@kernel("gather")
def gather(m, a, dim, index, sparse_grad=False):
    d = _axis(a, dim)
    _check_index(index, a._shape[d] if a._shape else 1, d, "gather", RuntimeError)
    out = empty(m.shape, m.dtype, a.device)
    launch("Gather", a, int(dim), index, out)
    return out


def _scatter_args(a, dim, index, src, reduce):
    d = _axis(a, dim)
    _check_index(index, a._shape[d] if a._shape else 1, d, "scatter", RuntimeError)
    return (src if isinstance(src, Tensor) else scalar_for(src, a.dtype)), SCATTER_REDUCE[reduce]


def _scatter_pair(reduce_default=None):
    def out_of_place(m, a, dim, index, src, reduce=reduce_default):
        s, r = _scatter_args(a, dim, index, src, reduce)
        out = empty(m.shape, m.dtype, a.device)
        launch("Scatter" if isinstance(src, Tensor) else "ScatterValue", a, int(dim), index, s, r, out)
        return out

    def in_place(m, a, dim, index, src, reduce=reduce_default):
        s, r = _scatter_args(a, dim, index, src, reduce)
        launch("InplaceScatter" if isinstance(src, Tensor) else "InplaceScatterValue", a, int(dim), index, s, r)
        return a
    return out_of_place, in_place


KERNELS["scatter.src"], KERNELS["scatter_.src"] = _scatter_pair()
KERNELS["scatter.value"], KERNELS["scatter_.value"] = _scatter_pair()
KERNELS["scatter_add"], KERNELS["scatter_add_"] = _scatter_pair("add")


_register(("remainder",), _binary_table("RemainderTensorTensor", "RemainderTensorScalar"))
_register(("fmod",), _binary_table("FmodTensor", "FmodScalar"))
KERNELS["all"], KERNELS["any"] = _reduce("All"), _reduce("Any")



@kernel("multinomial")
def multinomial(m, probs, num_samples, replacement=False, generator=None):
    """aclnnMultinomial; PyTorch's errors for bad probabilities from three numbers reduced on the device
    (min, max, smallest row sum), read with one stream wait."""
    from mindtorch.plugins import make_tensor
    nd = len(probs._shape)
    checks = empty((3,), probs.dtype, probs.device)
    slot = [make_tensor(checks._storage, (), (), checks._offset + i, probs.dtype, probs.device) for i in range(3)]
    every = IntArray(range(nd))
    launch("Amin", probs, every, False, slot[0])
    launch("Amax", probs, every, False, slot[1])
    sums = empty(probs._shape[:-1], probs.dtype, probs.device)
    launch("ReduceSum", probs, IntArray([nd - 1]), False, DType(probs.dtype), sums)
    launch("Amin", sums, IntArray(range(nd - 1)), False, slot[2])
    lo, hi, least = COPY.to_host(checks).tolist()
    if not (lo >= 0 and math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if not least > 0:
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    out = empty(m.shape, m.dtype, probs.device)
    rows = _numel(probs) // probs._shape[-1] if probs._shape[-1] else 0
    seed, offset = _draw_n(probs.device, rows * max(num_samples, probs._shape[-1]), generator)
    launch("Multinomial", probs, int(num_samples), bool(replacement), seed, offset, out)
    return out


def _draw_n(device, n, generator):
    from mindtorch.plugins import generator_state, default_generator
    if generator is not None and generator.device.type != "npu":
        raise RuntimeError(f"Expected a 'npu' device type for generator but found '{generator.device.type}'")
    return generator_state(generator or default_generator(device), device).advance(n)



# --- activations with parameters ---------------------------------------------------------------------

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


def _nan_to_num_args(dtype, nan, posinf, neginf):
    """aclnnNanToNum takes float replacements: float64's own range does not fit them."""
    if dtype.is_floating_point and dtype not in _FMAX and (posinf is None or neginf is None):
        raise TypeError("nan_to_num on npu: aclnnNanToNum takes float32 replacement values, so float64's default "
                        "(its largest finite value) cannot be passed; give posinf and neginf explicitly")
    big = _FMAX.get(dtype, 0.0)
    return (0.0 if nan is None else float(nan), big if posinf is None else float(posinf),
            -big if neginf is None else float(neginf))


@kernel("nan_to_num")
def nan_to_num(m, a, nan=None, posinf=None, neginf=None):
    out = empty(m.shape, m.dtype, a.device)
    launch("NanToNum", a, *_nan_to_num_args(a.dtype, nan, posinf, neginf), out)
    return out


@kernel("nan_to_num_")
def nan_to_num_(m, a, nan=None, posinf=None, neginf=None):
    launch("InplaceNanToNum", a, *_nan_to_num_args(a.dtype, nan, posinf, neginf))
    return a



@kernel("eye")
def eye(m, n, mm=None, *rest):
    out = empty(m.shape, m.dtype, npu_device(_device_of(rest)))
    if _numel(out):
        launch("Eye", int(m.shape[0]), int(m.shape[1]), out)
    return out


@kernel("linspace")
def linspace(m, start, end, steps, *rest):
    out = empty(m.shape, m.dtype, npu_device(_device_of(rest)))
    if steps:
        launch("Linspace", scalar_for(start, D.float64), scalar_for(end, D.float64), int(steps), out)
    return out


@kernel("flip")
def flip(m, a, dims):
    out = empty(m.shape, m.dtype, a.device)
    launch("Flip", a, IntArray(dims if len(a._shape) else ()), out)
    return out


# --- convolution, pooling, batch and group norm: ops-nn's NCHW operators -----------------------------

def _symmetric(padding):
    """(top, left) when core's (top, bottom, left, right) padding is the same on both sides, else None: the
    operators take one padding per spatial dim."""
    t, b, l, r = padding
    return (t, l) if t == b and l == r else None


def _interior(t, padding, shape):
    """The unpadded window of a padded [N, C, H, W] tensor, as a view."""
    return _view(t, shape, t._stride, t._offset + padding[0] * t._stride[2] + padding[2] * t._stride[3])


def _zero_padded(x, padding):
    t, b, l, r = padding
    n, c, h, w = x._shape
    out = empty((n, c, h + t + b, w + l + r), x.dtype, x.device)
    launch("InplaceZero", out)
    launch("InplaceCopy", _interior(out, padding, x._shape), x)
    return out


def _convolution_backward(g, x, w, stride, pad, dilation, groups, grad_input=None, grad_weight=None):
    launch("ConvolutionBackward", g, x, w, IntArray((w._shape[0],)), IntArray(stride), IntArray(pad),
           IntArray(dilation), False, IntArray((0, 0)), int(groups),
           BoolArray((grad_input is not None, grad_weight is not None, False)), _cube_math_type(g.dtype),
           grad_input, grad_weight, None)


@kernel("_conv2d")
def conv2d(m, x, w, b, stride, padding, dilation, groups):
    chips.check_dtype("Convolution", m.dtype, "conv2d")
    pad = _symmetric(padding)
    if pad is None:  # asymmetric ('same' with an even kernel): the zeros are written out
        x, pad = _zero_padded(x, padding), (0, 0)
    out = empty(m.shape, m.dtype, x.device)
    launch("Convolution", x, w, b, IntArray(stride), IntArray(pad), IntArray(dilation), False, IntArray((0, 0)),
           int(groups), out, _cube_math_type(m.dtype))
    return out


@kernel("_conv2d_backward_input")
def conv2d_backward_input(m, g, w, input_size, stride, padding, dilation, groups):
    chips.check_dtype("ConvolutionBackward", m.dtype, "conv2d backward")
    pad = _symmetric(padding)
    n, c, h, wd = input_size
    size = tuple(input_size) if pad else (n, c, h + padding[0] + padding[1], wd + padding[2] + padding[3])
    gi = empty(size, m.dtype, g.device)
    # the operator reads the input only for its geometry when just gradInput is asked for
    _convolution_backward(g, empty(size, m.dtype, g.device), w, stride, pad or (0, 0), dilation, groups,
                          grad_input=gi)
    return gi if pad else contiguous(_interior(gi, padding, tuple(input_size)))


@kernel("_conv2d_backward_weight")
def conv2d_backward_weight(m, g, x, weight_size, stride, padding, dilation, groups):
    chips.check_dtype("ConvolutionBackward", m.dtype, "conv2d backward")
    pad = _symmetric(padding)
    if pad is None:
        x, pad = _zero_padded(x, padding), (0, 0)
    gw = empty(m.shape, m.dtype, g.device)
    _convolution_backward(g, x, empty(m.shape, m.dtype, g.device), stride, pad, dilation, groups, grad_weight=gw)
    return gw


def _window(kernel_size, stride, padding, dilation):
    return IntArray(kernel_size), IntArray(stride), IntArray(padding), IntArray(dilation)


@kernel("_max_pool2d_with_indices")
def max_pool2d_with_indices(m, x, kernel_size, stride, padding, dilation, ceil_mode):
    chips.check_dtype("MaxPool2dWithIndices", x.dtype, "max_pool2d")
    out, idx = empty(m[0].shape, m[0].dtype, x.device), empty(m[1].shape, m[1].dtype, x.device)
    launch("MaxPool2dWithIndices", x, *_window(kernel_size, stride, padding, dilation), bool(ceil_mode), out, idx)
    return out, idx


@kernel("_max_pool2d_backward")
def max_pool2d_backward(m, g, x, kernel_size, stride, padding, dilation, ceil_mode, indices):
    chips.check_dtype("MaxPool2dWithIndicesBackward", m.dtype, "max_pool2d backward")
    out = empty(m.shape, m.dtype, g.device)
    launch("MaxPool2dWithIndicesBackward", g, x, indices, *_window(kernel_size, stride, padding, dilation),
           bool(ceil_mode), out)
    return out


def _average(dtype, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    """aclnnAvgPool2d's and its backward's window arguments (divisorOverride 0: none)."""
    return (IntArray(kernel_size), IntArray(stride), IntArray(padding), bool(ceil_mode), bool(count_include_pad),
            int(divisor_override or 0), _cube_math_type(dtype))


@kernel("_avg_pool2d")
def avg_pool2d(m, x, *window):
    chips.check_dtype("AvgPool2d", m.dtype, "avg_pool2d")
    out = empty(m.shape, m.dtype, x.device)
    launch("AvgPool2d", x, *_average(m.dtype, *window), out)
    return out


@kernel("_avg_pool2d_backward")
def avg_pool2d_backward(m, g, x, *window):
    chips.check_dtype("AvgPool2dBackward", m.dtype, "avg_pool2d backward")
    out = empty(m.shape, m.dtype, g.device)
    launch("AvgPool2dBackward", g, x, *_average(m.dtype, *window), out)
    return out


@kernel("_adaptive_avg_pool2d")
def adaptive_avg_pool2d(m, x, output_size):
    chips.check_dtype("AdaptiveAvgPool2d", m.dtype, "adaptive_avg_pool2d")
    out = empty(m.shape, m.dtype, x.device)
    if _numel(out):
        launch("AdaptiveAvgPool2d", x, IntArray(output_size), out)
    return out


@kernel("_adaptive_avg_pool2d_backward")
def adaptive_avg_pool2d_backward(m, g, x):
    chips.check_dtype("AdaptiveAvgPool2dBackward", m.dtype, "adaptive_avg_pool2d backward")
    out = empty(m.shape, m.dtype, g.device)
    if _numel(g):
        launch("AdaptiveAvgPool2dBackward", g, x, out)
    else:
        launch("InplaceZero", out)
    return out


@kernel("_batch_norm")
def batch_norm(m, x, w, b, rm, rv, training, momentum, eps):
    chips.check_dtype("BatchNorm", m[0].dtype, "batch_norm")
    out, mean, invstd = (empty(mm.shape, mm.dtype, x.device) for mm in m)
    launch("BatchNorm", x, w, b, rm, rv, bool(training), float(momentum), float(eps), out,
           mean if training else None, invstd if training else None)
    if not training:  # the statistics used, as the CPU returns them: the running mean and 1 / sqrt(var + eps)
        launch("InplaceCopy", mean, rm)
        launch("Adds", rv, scalar_for(eps, D.float64), scalar_for(1, D.float64), invstd)
        launch("InplaceRsqrt", invstd)
    return out, mean, invstd


@kernel("_batch_norm_backward")
def batch_norm_backward(m, g, x, w, rm, rv, save_mean, save_invstd, training, eps):
    chips.check_dtype("BatchNormBackward", m[0].dtype, "batch_norm backward")
    if training and (save_mean is None or save_invstd is None):  # core recomputes the batch statistics
        c = x._shape[1]
        sd = D.float32 if x.dtype in (D.float16, D.bfloat16) else x.dtype
        save_mean, save_invstd = empty((c,), sd, x.device), empty((c,), sd, x.device)
        launch("BatchNorm", x, None, None, None, None, True, 0.0, float(eps), empty(x._shape, x.dtype, x.device),
               save_mean, save_invstd)
    outs = tuple(empty(mm.shape, mm.dtype, x.device) for mm in m)
    launch("BatchNormBackward", g, x, w, rm, rv, save_mean if training else None, save_invstd if training else None,
           bool(training), float(eps), BoolArray((True, True, True)), *outs)
    return outs


def _group_shape(x):
    n, c = x._shape[:2]
    return n, c, _numel(x) // (n * c) if n * c else 1


@kernel("_group_norm")
def group_norm(m, x, w, b, num_groups, eps):
    chips.check_dtype("GroupNorm", m[0].dtype, "group_norm")
    out = empty(m[0].shape, m[0].dtype, x.device)
    # meanOut / rstdOut share self's dtype (the doc); core keeps half-precision statistics in float32
    mean, rstd = empty(m[1].shape, x.dtype, x.device), empty(m[2].shape, x.dtype, x.device)
    launch("GroupNorm", x, w, b, *_group_shape(x), int(num_groups), float(eps), out, mean, rstd)
    if m[1].dtype is not x.dtype:
        mean, rstd = cast(mean, m[1].dtype), cast(rstd, m[2].dtype)
    return out, mean, rstd


@kernel("_group_norm_backward")
def group_norm_backward(m, g, x, w, mean, rstd, num_groups):
    chips.check_dtype("GroupNormBackward", m[0].dtype, "group_norm backward")
    if mean.dtype is not x.dtype:
        mean, rstd = cast(mean, x.dtype), cast(rstd, x.dtype)
    outs = tuple(empty(mm.shape, mm.dtype, x.device) for mm in m)
    launch("GroupNormBackward", g, x, mean, rstd, w, *_group_shape(x), int(num_groups), BoolArray((True, True, True)),
           *outs)
    return outs



# --- statistics and scans ------------------------------------------------------------------------------

@kernel("prod")
def prod(m, a, dim=None, keepdim=False, dtype=None):
    out = empty(m.shape, m.dtype, a.device)
    if dim is None:
        launch("Prod", a, DType(m.dtype), out)
    else:
        launch("ProdDim", a, int(dim), bool(keepdim), DType(m.dtype), out)
    return out


@kernel("logsumexp")
def logsumexp(m, a, dim, keepdim=False):
    chips.check_dtype("LogSumExp", m.dtype, "logsumexp")
    x = a if chips.supports("LogSumExp", a.dtype) else cast(a, m.dtype)
    out = empty(m.shape, m.dtype, a.device)
    launch("LogSumExp", x, _dims(dim, len(a._shape)), bool(keepdim), out)
    return out


def _moment(name, acl):
    """var / std with a correction (core composes the unbiased= spellings and var_mean / std_mean from it)."""
    def k(m, a, dim=None, correction=None, keepdim=False):
        chips.check_dtype(acl, a.dtype, name)
        c = 1 if correction is None else correction
        if c != int(c):
            raise RuntimeError(f"{name} on npu: aclnn{acl} takes an integer correction, got {c}")
        out = empty(m.shape, m.dtype, a.device)
        launch(acl, a, _dims(dim, len(a._shape)), int(c), bool(keepdim), out)
        return out
    return k


KERNELS["var.correction"], KERNELS["std.correction"] = _moment("var", "VarCorrection"), _moment("std", "Std")


@kernel("linalg_vector_norm")
def vector_norm(m, a, ord=2, dim=None, keepdim=False, dtype=None):
    chips.check_dtype("LinalgVectorNorm", m.dtype, "linalg_vector_norm")
    out = empty(m.shape, m.dtype, a.device)
    launch("LinalgVectorNorm", a, Scalar(float(ord), A.ACL_DOUBLE), _dims(dim, len(a._shape)), bool(keepdim),
           DType(m.dtype), out)
    return out


@kernel("cumprod")
def cumprod(m, a, dim, dtype=None):
    out = empty(m.shape, m.dtype, a.device)
    if _numel(out):
        launch("Cumprod", a, Scalar(int(dim), A.ACL_INT64), DType(m.dtype), out)
    return out


def _cumulative_extreme(acl):
    def k(m, a, dim):  # core's op is a composite (no shape rule): the outputs have self's shape
        values, indices = empty(a._shape, a.dtype, a.device), empty(a._shape, D.int64, a.device)
        if _numel(values):
            launch(acl, a, int(dim), values, indices)
        return values, indices
    return k


KERNELS["cummax"], KERNELS["cummin"] = _cumulative_extreme("Cummax"), _cumulative_extreme("Cummin")


@kernel("isclose")
def isclose(m, a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    out = empty(m.shape, m.dtype, a.device)
    launch("IsClose", a, b, float(rtol), float(atol), bool(equal_nan), out)
    return out


def _nan_mask(a):
    out = empty(a._shape, D.bool_, a.device)
    launch("NeTensor", a, a, out)  # NaN is the one value unequal to itself
    return out


@kernel("isnan")
def isnan(m, a):
    return _nan_mask(a)


@kernel("isinf")
def isinf(m, a):
    pos, neg, out = (empty(m.shape, D.bool_, a.device) for _ in range(3))
    launch("IsPosInf", a, pos)
    launch("IsNegInf", a, neg)
    launch("LogicalOr", pos, neg, out)
    return out


# --- advanced indexing and element moves ---------------------------------------------------------------

def _count_nonzero(a):
    """How many elements of a are nonzero, on the host: a data-dependent shape needs it (one sync)."""
    mask = empty(a._shape, D.bool_, a.device)
    launch("NeScalar", a, scalar_for(0, a.dtype), mask)
    total = empty((), D.int64, a.device)
    launch("ReduceSum", mask, IntArray(range(len(a._shape))), False, DType(D.int64), total)
    return int(_host_values(total))


@kernel("argwhere")
def argwhere(m, a):
    n, nd = _numel(a), len(a._shape)
    rows = _count_nonzero(a) if n else 0
    full = empty((n, nd), D.int64, a.device)
    if rows:
        launch("Nonzero", a, full)
    # aclnnNonzero fills the first `rows` rows of its [numel, ndim] output; they are copied out exactly
    return contiguous(_view(full, (rows, nd), (nd, 1))) if rows < n else full


def _long_indices(indices):
    """Tensor?[] indices with each bool mask replaced by the columns of its argwhere (as PyTorch does)."""
    out = []
    for t in indices:
        if t is not None and t.dtype is D.bool_:
            where = argwhere(None, t)
            k = len(t._shape)
            out.extend(_view(where, (where._shape[0],), (k,), where._offset + j) for j in range(k))
        else:
            out.append(t)
    return out


def _indexed_layout(self, indices):
    """(self's view with the indexed dims first, the index tensors, their broadcast shape, where PyTorch puts
    the broadcast index dims): adjacent indexed dims keep their place in the result, separated ones go first."""
    from mindtorch.plugins import broadcast_shapes
    pos = [i for i, t in enumerate(indices) if t is not None]
    nd = len(self._shape)
    perm = pos + [i for i in range(nd) if i not in pos]
    view = _view(self, [self._shape[i] for i in perm], [self._stride[i] for i in perm])
    front = pos[0] if pos == list(range(pos[0], pos[-1] + 1)) else 0
    idx = [indices[i] for i in pos]
    b = ()
    for t in idx:
        b = tuple(broadcast_shapes(b, t._shape))
    return view, idx, b, front


def _mT(t):
    """t with its last two dims swapped (a view)."""
    return _view(t, t._shape[:-2] + (t._shape[-1], t._shape[-2]), t._stride[:-2] + (t._stride[-1], t._stride[-2]))


def _move_dims(t, start, count, to):
    """t with its dims [start, start + count) moved to position `to` (a view)."""
    order = list(range(len(t._shape)))
    block = order[start:start + count]
    rest = order[:start] + order[start + count:]
    order = rest[:to] + block + rest[to:]
    return _view(t, [t._shape[i] for i in order], [t._stride[i] for i in order])


@kernel("index.Tensor")
def index(m, a, indices):
    view, idx, b, front = _indexed_layout(a, _long_indices(indices))
    shape = b + tuple(view._shape[len(idx):])
    out = empty(shape, a.dtype, a.device)
    if _numel(out):
        launch("Index", view, list(idx), out)
    return contiguous(_move_dims(out, 0, len(b), front)) if front else out


def _index_put(target, indices, values, accumulate):
    view, idx, b, front = _indexed_layout(target, _long_indices(indices))
    rest = tuple(view._shape[len(idx):])
    # values broadcast against PyTorch's result layout, then viewed in the operator's (index dims first)
    result_shape = rest[:front] + b + rest[front:]
    if values.dtype is not target.dtype:
        values = cast(values, target.dtype)
    vs = (0,) * (len(result_shape) - len(values._shape)) + tuple(
        0 if n == 1 and r != 1 else st for n, st, r in zip(values._shape, values._stride, result_shape[-len(values._shape):]))
    values = _move_dims(_view(values, result_shape, vs[-len(result_shape):] if result_shape else ()), front, len(b), 0)
    if _numel(values):
        launch("IndexPutImpl", view, list(idx), values, bool(accumulate), False)
    return target


@kernel("index_put")
def index_put(m, a, indices, values, accumulate=False):
    return _index_put(contiguous(a), indices, values, accumulate)


@kernel("index_put_")
def index_put_(m, a, indices, values, accumulate=False):
    return _index_put(a, indices, values, accumulate)


def _as_1d(t):
    return _view(t, (1,), (1,)) if not t._shape else t


@kernel("index_add")
def index_add(m, a, dim, index, source, alpha=1):
    out = empty(m.shape, m.dtype, a.device)
    launch("IndexAdd", _as_1d(a), int(dim), _as_1d(index), _as_1d(source), scalar_for(alpha, m.dtype), _as_1d(out))
    return out


@kernel("index_add_")
def index_add_(m, a, dim, index, source, alpha=1):
    launch("InplaceCopy", a, index_add(m, a, dim, index, source, alpha))
    return a


@kernel("index_copy_")
def index_copy_(m, a, dim, index, source):
    launch("InplaceIndexCopy", _as_1d(a), int(dim), _as_1d(index), _as_1d(source))
    return a


@kernel("index_copy")
def index_copy(m, a, dim, index, source):
    return index_copy_(m, contiguous(a), dim, index, source)


def _index_fill(a, dim, index, value):
    """index_fill as index_copy of a source holding `value` (the fill operator takes its index on the host)."""
    x = _as_1d(a)
    d = dim % len(x._shape)
    shape = x._shape[:d] + (_numel(index),) + x._shape[d + 1:]
    src = empty(shape, a.dtype, a.device)
    if isinstance(value, Tensor):
        launch("InplaceCopy", src, _view(value, shape, (0,) * len(shape)))
    else:
        fill_(None, src, value)
    launch("InplaceIndexCopy", x, d, _as_1d(index), src)
    return a


KERNELS["index_fill_.int_Scalar"] = KERNELS["index_fill_.int_Tensor"] = \
    lambda m, a, dim, index, value: _index_fill(a, dim, index, value)
KERNELS["index_fill.int_Scalar"] = KERNELS["index_fill.int_Tensor"] = \
    lambda m, a, dim, index, value: _index_fill(contiguous(a), dim, index, value)


@kernel("repeat")
def repeat(m, a, repeats):
    out = empty(m.shape, m.dtype, a.device)
    if _numel(out):
        launch("Repeat", a, IntArray(repeats), out)
    return out


@kernel("roll")
def roll(m, a, shifts, dims=()):
    out = empty(m.shape, m.dtype, a.device)
    if _numel(out):
        launch("Roll", a if dims else _dense(a), IntArray(shifts), IntArray(dims), out)
    return out



# --- optimizer updates over whole parameter groups: ACLNN's foreach operators ---------------------------

def _one_group(*lists):
    """Every tensor of the lists is a dense float tensor of one dtype the foreach operators take."""
    ts = [t for ts in lists for t in ts]
    return bool(ts) and all(t.dtype is ts[0].dtype and _is_contiguous(t) for t in ts) and chips.supports("ForeachAddcdivScalarV2", ts[0].dtype)


@kernel("_foreach_adam_")
def foreach_adam(m, params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, lr, beta1, beta2,
                 weight_decay, eps, amsgrad, maximize, decoupled):
    """Adam / AdamW in eight launches per group (PyTorch's single-tensor update, op for op, on lists); the
    forms they do not cover (amsgrad, maximize, L2 weight decay, mixed steps or layouts) take core's composite."""
    from mindtorch.plugins import OPS
    steps = {float(s.item()) for s in state_steps}
    if amsgrad or maximize or (weight_decay and not decoupled) or len(steps) != 1 or \
            not _one_group(params, grads, exp_avgs, exp_avg_sqs):
        return OPS["_foreach_adam_"].composite(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps,
                                               lr, beta1, beta2, weight_decay, eps, amsgrad, maximize, decoupled)
    for s in state_steps:
        s.add_(1)
    step = steps.pop() + 1

    def num(v):
        return Scalar(float(v), A.ACL_DOUBLE)
    params, grads, exp_avgs, exp_avg_sqs = (list(x) for x in (params, grads, exp_avgs, exp_avg_sqs))
    if weight_decay:
        launch("ForeachMulScalarV2", params, num(1 - lr * weight_decay), params)
    launch("ForeachLerpScalar", exp_avgs, grads, num(1 - beta1), exp_avgs)
    launch("ForeachMulScalarV2", exp_avg_sqs, num(beta2), exp_avg_sqs)
    launch("ForeachAddcmulScalarV2", exp_avg_sqs, grads, grads, num(1 - beta2), exp_avg_sqs)
    denom = [empty(t._shape, t.dtype, t.device) for t in exp_avg_sqs]
    launch("ForeachSqrt", exp_avg_sqs, denom)
    launch("ForeachDivScalarV2", denom, num((1 - beta2 ** step) ** 0.5), denom)
    launch("ForeachAddScalarV2", denom, num(eps), denom)
    launch("ForeachAddcdivScalarV2", params, exp_avgs, denom, num(-lr / (1 - beta1 ** step)), params)



# --- shifts, searchsorted, bincount ------------------------------------------------------------------

def _shift(acl, scalar_acl=None):
    def k(m, a, b):
        if not isinstance(a, Tensor):  # number << tensor
            a = _scalar_tensor(a, m.dtype, b.device)
        out = empty(m.shape, m.dtype, a.device)
        if isinstance(b, Tensor):
            launch(acl, a, b, out)
        elif scalar_acl:
            launch(scalar_acl, a, scalar_for(b, m.dtype), out)
        else:
            launch(acl, a, _scalar_tensor(b, m.dtype, a.device), out)
        return out
    return k


KERNELS["bitwise_left_shift"] = KERNELS["bitwise_left_shift.Scalar_Tensor"] = _shift("LeftShift", "LeftShifts")
KERNELS["bitwise_right_shift"] = KERNELS["bitwise_right_shift.Scalar_Tensor"] = _shift("RightShift")


def _searchsorted(m, seq, values, out_int32=False, right=False, side=None, sorter=None):
    if not isinstance(values, Tensor):
        values = _scalar_tensor(values, seq.dtype, seq.device)
    if values.dtype is not seq.dtype:  # the operator takes one dtype for both (PyTorch promotes them)
        from mindtorch.plugins import dtypes
        common = dtypes.promote_types(seq.dtype, values.dtype)
        seq, values = (t if t.dtype is common else cast(t, common) for t in (seq, values))
    out = empty(m.shape, m.dtype, seq.device)
    if _numel(out):
        launch("SearchSorted", seq, values, bool(out_int32), bool(right or side == "right"), sorter, out)
    return out


KERNELS["searchsorted.Tensor"] = KERNELS["searchsorted.Scalar"] = _searchsorted


@kernel("_bincount")
def bincount(m, a, weights=None, minlength=0):
    """The output length is data-dependent: the largest value comes to the host (one sync)."""
    top = -1
    if _numel(a):
        extremes = empty((2,), a.dtype, a.device)  # max and min, brought to the host in one copy
        dims = IntArray(range(len(a._shape)))
        launch("Amax", a, dims, False, _view(extremes, (), ()))
        launch("Amin", a, dims, False, _view(extremes, (), (), extremes._offset + 1))
        top, bottom = (int(v) for v in _host_values(extremes))
        if bottom < 0:
            raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is None:
        dt = D.int64
    elif weights.dtype in (D.float16, D.bfloat16, D.float32):
        dt = weights.dtype
    else:
        dt = D.float64
    n = max(top + 1, int(minlength))
    # the operator writes INT32, INT64, FLOAT or DOUBLE: half precision counts in float and is cast back
    wide = D.float32 if dt in (D.float16, D.bfloat16) else dt
    out = empty((n,), wide, a.device)
    launch("InplaceZero", out)
    if _numel(a):
        launch("Bincount", a, weights, int(minlength), out)
    return out if wide is dt else cast(out, dt)


def _sorted_rows(rows, k, r, device):
    """The row order of a (k, r) tensor sorted lexicographically: stable sorts by the last column first."""
    order = empty((k,), D.int64, device)
    launch("Arange", scalar_for(0, D.int64), scalar_for(k, D.int64), scalar_for(1, D.int64), order)
    col, keys, idx, nxt = (empty((k,), t, device) for t in (rows.dtype, rows.dtype, D.int64, D.int64))
    for c in range(r - 1, -1, -1):
        launch("IndexSelect", _view(rows, (k,), (rows._stride[0],), rows._offset + c * rows._stride[1]), 0, order, col)
        launch("Sort", col, True, 0, False, keys, idx)
        launch("IndexSelect", order, 0, idx, nxt)
        order, nxt = nxt, order
    return order


@kernel("_unique")
def unique(m, a, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """Sorted unique values (or slices along `dim`) from stable device sorts: an entry starts where it
    differs from its predecessor (so every NaN stays its own value, as PyTorch keeps them), the number
    of entries comes to the host through argwhere, inverse indices from a cumulative count put back in
    the original order."""
    if dim is None:
        n, r = _numel(a), 1
        rows = _view(_dense(a), (n, 1), (1, 1))
        inverse = empty(a._shape, D.int64, a.device)
    else:
        d = dim % max(len(a._shape), 1)
        moved = _dense(_move_dims(a, d, 1, 0)) if a._shape else _view(a, (1,), (1,))
        n = moved._shape[0]
        r = _numel(moved) // n if n else 0
        rows = _view(moved, (n, r), (r, 1))
        inverse = empty((n,), D.int64, a.device)
    if n == 0:  # nothing to sort: the empty result keeps the other dims
        return empty((0,) if dim is None else a._shape, a.dtype, a.device), inverse, empty((0,), D.int64, a.device)
    order = _sorted_rows(rows, n, r, a.device) if r != 1 else None
    values = empty((n, r), a.dtype, a.device)
    if order is None:
        order = empty((n,), D.int64, a.device)
        launch("Sort", _view(rows, (n,), (rows._stride[0],)), True, 0, False, _view(values, (n,), (1,)), order)
    else:
        launch("IndexSelect", rows, 0, order, values)
    change = empty((n,), D.bool_, a.device)
    launch("InplaceFillScalar", _view(change, (1,), (1,)), scalar_for(True, D.bool_))
    if n > 1:
        diff = empty((n - 1, r), D.bool_, a.device)
        launch("NeTensor", _view(values, (n - 1, r), (r, 1), values._offset + r), _view(values, (n - 1, r), (r, 1)), diff)
        launch("Any", diff, IntArray((1,)), False, _view(change, (n - 1,), (1,), change._offset + 1))
    where = argwhere(None, change)
    k = where._shape[0]
    starts = _view(where, (k,), (1,))
    uniques = empty((k, r), a.dtype, a.device)
    launch("IndexSelect", values, 0, starts, uniques)
    group = empty((n,), D.int64, a.device)
    launch("Cumsum", change, 0, DType(D.int64), group)
    launch("InplaceAdds", group, scalar_for(-1, D.int64), scalar_for(1, D.int64))
    launch("IndexPutImpl", _view(inverse, (n,), (1,)), [order], group, False, False)
    ends = empty((k,), D.int64, a.device)
    if k > 1:
        launch("InplaceCopy", _view(ends, (k - 1,), (1,)), _view(starts, (k - 1,), (1,), starts._offset + 1))
    launch("InplaceFillScalar", _view(ends, (1,), (1,), ends._offset + k - 1), scalar_for(n, D.int64))
    counts = empty((k,), D.int64, a.device)
    launch("Sub", ends, starts, scalar_for(1, D.int64), counts)
    if dim is None:
        return _view(uniques, (k,), (1,)), inverse, counts
    shape = (k,) + tuple(a._shape[:d]) + tuple(a._shape[d + 1:])
    from mindtorch.plugins import contiguous_strides
    return contiguous(_move_dims(_view(uniques, shape, contiguous_strides(shape)), 0, 1, d)), inverse, counts



SCATTER_REDUCTIONS = {"sum": 1, "prod": 2, "amax": 3, "amin": 4, "mean": 5}  # aclnn_scatter_reduce.h's values


@kernel("scatter_reduce.two")
def scatter_reduce(m, a, dim, index, src, reduce, include_self=True):
    out = empty(m.shape, m.dtype, a.device)
    launch("ScatterReduce", _as_1d(a), int(dim), _as_1d(index), _as_1d(src), SCATTER_REDUCTIONS[reduce],
           bool(include_self), _as_1d(out))
    return out


@kernel("scatter_reduce_.two")
def scatter_reduce_(m, a, dim, index, src, reduce, include_self=True):
    launch("InplaceScatterReduce", _as_1d(a), int(dim), _as_1d(index), _as_1d(src), SCATTER_REDUCTIONS[reduce],
           bool(include_self))
    return a



# --- linear algebra: ops-math's Cholesky, Slogdet, QR and TriangularSolve -------------------------------

def _linalg_error(message):
    from mindtorch.plugins import LinAlgError
    return LinAlgError(message)


def _any_host(mask):
    """Whether any element of a bool device tensor is set (one sync: PyTorch's device linalg checks its
    info codes the same way)."""
    flag = empty((), D.bool_, mask.device)
    launch("Any", mask, IntArray(range(len(mask._shape))), False, flag)
    return bool(_host_values(flag))


def _diagonal(t):
    n = t._shape[-1]
    return _view(t, t._shape[:-2] + (n,), t._stride[:-2] + (t._stride[-2] + t._stride[-1],))


@kernel("linalg_cholesky")
def linalg_cholesky(m, A, upper=False):
    chips.check_dtype("LinalgCholesky", m.dtype, "linalg.cholesky")
    out = empty(m.shape, m.dtype, A.device)
    if not _numel(out):
        return out
    launch("LinalgCholesky", A, bool(upper), out)
    bad = _nan_mask(_diagonal(out))
    if _any_host(bad):  # the order of the failing minor, as PyTorch reports it
        first = argwhere(None, bad)
        order = int(_host_values(_view(first, (), (), first._offset + len(bad._shape) - 1))) + 1
        raise _linalg_error(f"linalg.cholesky: The factorization could not be completed because the input is not "
                            f"positive-definite (the leading minor of order {order} is not positive-definite).")
    return out


@kernel("linalg_slogdet")
def linalg_slogdet(m, A):
    chips.check_dtype("Slogdet", A.dtype, "linalg.slogdet")
    sign, logabs = empty(m[0].shape, m[0].dtype, A.device), empty(m[1].shape, m[1].dtype, A.device)
    if _numel(A):
        launch("Slogdet", A, sign, logabs)
    else:  # the determinant of an empty matrix is 1
        fill_(None, sign, 1)
        fill_(None, logabs, 0)
    return sign, logabs


QR_MODE = {"reduced": 0, "complete": 1, "r": 0}  # aclnnLinalgQr's mode (the doc: 0 reduced, 1 complete)


@kernel("linalg_qr")
def linalg_qr(m, A, mode="reduced"):
    chips.check_dtype("LinalgQr", A.dtype, "linalg.qr")
    r = empty(m[1].shape, m[1].dtype, A.device)
    # mode "r": R alone; Q is computed in the reduced shape and dropped (PyTorch returns an empty Q)
    q = empty(A._shape[:-1] + (min(A._shape[-2:]),), A.dtype, A.device) if mode == "r" else \
        empty(m[0].shape, m[0].dtype, A.device)
    if _numel(A):
        launch("LinalgQr", A, QR_MODE[mode], q, r)
    return (empty(m[0].shape, m[0].dtype, A.device) if mode == "r" else q), r


_SOLVE_SINGULAR = "linalg.solve: The solver failed because the input matrix is singular."


def _qr_solve(A, B, dtype, singular=_SOLVE_SINGULAR):
    """X with A X = B: A = Q R (QR, complete), X = R^-1 (Q^T B) by one triangular solve; a zero on R's
    diagonal is a singular A (LinAlgError with the caller's message)."""
    n = A._shape[-1]
    q, r = empty(A._shape, dtype, A.device), empty(A._shape, dtype, A.device)
    launch("LinalgQr", A, 1, q, r)
    if _any_host(_eq_zero(_diagonal(r))):
        raise _linalg_error(singular)
    from mindtorch.plugins import broadcast_shapes
    batch = tuple(broadcast_shapes(tuple(A._shape[:-2]), tuple(B._shape[:-2])))
    qtb = empty(batch + tuple(B._shape[-2:]), dtype, A.device)
    launch("Matmul", _mT(q), B, qtb, _cube_math_type(dtype))
    x, mo = empty(qtb._shape, dtype, A.device), empty(batch + (n, n), dtype, A.device)
    launch("TriangularSolve", qtb, r, True, False, False, x, mo)
    return x


def _eq_zero(t):
    out = empty(t._shape, D.bool_, t.device)
    launch("EqScalar", t, scalar_for(0, t.dtype), out)
    return out


@kernel("linalg_solve")
def linalg_solve(m, A, B, left=True):
    chips.check_dtype("Matmul", m.dtype, "linalg.solve")  # the product with Q^T
    if not _numel(A) or not _numel(B):
        return empty(m.shape, m.dtype, A.device)
    if left:
        return _qr_solve(A, B, m.dtype)
    # X A = B  <=>  A^T X^T = B^T
    return contiguous(_mT(_qr_solve(contiguous(_mT(A)), contiguous(_mT(B)), m.dtype)))


@kernel("linalg_inv")
def linalg_inv(m, A):
    chips.check_dtype("Matmul", m.dtype, "linalg.inv")
    n = A._shape[-1]
    if not _numel(A):
        return empty(m.shape, m.dtype, A.device)
    eye_ = empty((n, n), m.dtype, A.device)
    launch("Eye", n, n, eye_)
    return _qr_solve(A, _view(eye_, tuple(A._shape[:-2]) + (n, n), (0,) * (len(A._shape) - 2) + (n, 1)), m.dtype,
                     "linalg.inv: The diagonal element 1 is zero, the inversion could not be completed because the "
                     "input matrix is singular.")



def _svd(A, full_matrices, compute_uv):
    """(U, S, V) from aclnnSvd (V, not its transpose: the header's input = U diag(S) V^T)."""
    chips.check_dtype("Svd", A.dtype, "linalg.svd")
    m, n = A._shape[-2:]
    k = min(m, n)
    batch = tuple(A._shape[:-2])
    s = empty(batch + (k,), A.dtype, A.device)
    u = empty(batch + (m, m if full_matrices else k), A.dtype, A.device)
    v = empty(batch + (n, n if full_matrices else k), A.dtype, A.device)
    if _numel(A):
        launch("Svd", A, bool(full_matrices), bool(compute_uv), s, u, v)
    else:
        for t in (s, u, v):
            launch("InplaceZero", t)
    return u, s, v


@kernel("linalg_svdvals")
def linalg_svdvals(m, A, driver=None):
    return _svd(A, False, False)[1]


@kernel("linalg_svd")
def linalg_svd(m, A, full_matrices=True, driver=None):
    u, s, v = _svd(A, full_matrices, True)
    return u, s, contiguous(_mT(v))
