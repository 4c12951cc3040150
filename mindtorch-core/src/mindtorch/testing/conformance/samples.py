"""Sample inputs for every op of the schema table, keyed by qualified op name.

A sample is the positional and keyword arguments of one call, built on the
host (the cpu device) from a seeded generator, so every run and every device
sees the same values. The runner moves tensors to the device under test.
Families share generators: unary and binary pointwise ops get broadcasting
patterns (square shapes, a size-1 dim in the middle, the shorter operand on
either side, three and more dims, 0-dim and empty tensors); everything else
is listed by name. `missing_samples()` is the suite's own coverage check.
"""

import zlib

import numpy as np

import mindtorch
from mindtorch.ops.foreach import FOREACH_OPS, parse_operands as _parse_foreach_operands
from mindtorch.ops.registry import OPS, op_out_of_place
from mindtorch.ops.special import POLYNOMIALS, UNARY as SPECIAL_UNARY


class Sample:
    """One call's arguments. `needs_data`: the error it expects depends on the values (an out-of-range index),
    so a data-less device cannot be held to it. `host_error`: an error only PyTorch's cpu raises (integer
    division by zero: its CUDA kernels do not check), so a device may compute instead."""

    __slots__ = ("args", "kwargs", "needs_data", "host_error")

    def __init__(self, *args, **kwargs):
        self.args, self.kwargs, self.needs_data, self.host_error = args, kwargs, False, False

    def __repr__(self):
        def show(a):
            if isinstance(a, mindtorch.Tensor):
                return f"{'x'.join(map(str, a.shape)) or '0-dim'} {str(a.dtype).split('.')[-1]}" + (
                    "" if a.is_contiguous() else " strided"
                )
            if isinstance(a, (list, tuple)):
                return "[" + ", ".join(show(x) for x in a) + "]"
            return repr(a)

        parts = [show(a) for a in self.args] + [f"{k}={show(v)}" for k, v in self.kwargs.items()]
        return "(" + ", ".join(parts) + ")"


S = Sample


class Maker:
    """Deterministic host tensors. `mode` swaps the element type of the generic float maker, so that
    integer-only ops (bitwise_*) reuse the float patterns."""

    def __init__(self, name, mode="float"):
        self.rng = np.random.default_rng(zlib.crc32(name.encode()))
        self.mode = mode

    def _t(self, a, dtype):
        return mindtorch.tensor(np.asarray(a), dtype=dtype)

    def f(self, *shape, lo=-2.0, hi=2.0, dtype=None):
        if self.mode == "int" and dtype is None:
            return self.i(*shape, lo=-3, hi=4)
        if self.mode == "bool" and dtype is None:
            return self.b(*shape)
        return self._t(self.rng.uniform(lo, hi, shape), dtype or mindtorch.float32)

    def pos(self, *shape, dtype=None):
        return self.f(*shape, lo=0.5, hi=2.0, dtype=dtype)

    def u(self, *shape):
        return self.f(*shape, lo=0.1, hi=0.9)

    def i(self, *shape, lo=0, hi=5, dtype=None):
        return self._t(self.rng.integers(lo, hi, shape), dtype or mindtorch.int64)

    def b(self, *shape):
        return self._t(self.rng.integers(0, 2, shape).astype(bool), mindtorch.bool)

    def c(self, *shape):
        """complex64 values with both parts drawn like f()."""
        parts = self.rng.uniform(-2.0, 2.0, shape + (2,))
        return self._t(parts[..., 0] + 1j * parts[..., 1], mindtorch.complex64)

    def nc(self, *shape):
        """A non-contiguous (transposed) view with the given shape."""
        return self.f(*reversed(shape)).permute(*reversed(range(len(shape))))

    def spd(self, *shape):
        """Symmetric positive-definite matrices (..., n, n), well conditioned."""
        a = self.rng.uniform(-1.0, 1.0, shape)
        n = shape[-1]
        return self._t(a @ np.swapaxes(a, -1, -2) + n * np.eye(n), mindtorch.float32)

    def distinct(self, *shape):
        n = int(np.prod(shape))
        return self._t(self.rng.permutation(n).reshape(shape) * 0.25 - n * 0.1, mindtorch.float32)


SAMPLES = {}  # qualified op name -> fn(Maker) -> [Sample]
EDGES = {}  # qualified op name -> fn(Maker) -> [Sample]: edge cases added to the op's samples


def _registrar(table, what):
    """A decorator `@name("op", "op2")` filing a sample function under each op name, once."""

    def register(*names):
        def deco(fn):
            for n in names:
                if n in table:
                    raise ValueError(f"{what} for {n} declared twice")
                table[n] = fn
            return fn

        return deco

    return register


samples = _registrar(SAMPLES, "samples")
# edge-case samples (out-of-range indices, integer limits) appended to each op's own samples
edges = _registrar(EDGES, "edge samples")


# -- broadcasting patterns -------------------------------------------------------------------------

BINARY_SHAPES = [
    ((3, 4), (3, 4)),
    ((3, 1, 4), (3, 5, 4)),
    ((4,), (3, 4)),
    ((3, 4), (4,)),
    ((2, 3, 4, 5), (3, 1, 5)),
    ((1, 3, 1), (2, 1, 4)),
    ((), (3, 4)),
    ((3, 4), ()),
    ((0, 4), (4,)),
    ((2, 0, 3), (1, 3)),
]
TERNARY_SHAPES = [
    ((3, 4), (3, 4), (3, 4)),
    ((3, 1, 4), (5, 1), (4,)),
    ((4,), (3, 4), (3, 1)),
    ((2, 3, 4, 5), (3, 1, 5), (1, 5)),
    ((), (2, 3), ()),
    ((0, 3), (3,), ()),
]


def _broadcast(*shapes):
    return tuple(np.broadcast_shapes(*shapes))


def _inplace_ok(shapes):
    try:
        return _broadcast(*shapes) == tuple(shapes[0])
    except ValueError:
        return False


def unary(m):
    return [S(m.f(3, 4)), S(m.f()), S(m.f(0, 3)), S(m.nc(2, 3, 4))]


# bad input: shapes that do not broadcast (and, in place, a self the result would not fit)
BAD_BINARY_SHAPES = [((3, 4), (5,)), ((2, 3), (3, 2))]
BAD_INPLACE_SHAPES = [((4,), (3, 4)), ((3, 1), (3, 4))]


def binary(m, inplace=False, scalar=2.5):
    shapes = [s for s in BINARY_SHAPES if not inplace or _inplace_ok(s)]
    out = [S(m.f(*a), m.f(*b)) for a, b in shapes]
    out.append(S(m.nc(3, 4), m.f(4)))
    if scalar is not None:
        out.append(S(m.f(3, 4), 3 if m.mode != "float" else scalar))
    out += [S(m.f(*a), m.f(*b)) for a, b in BAD_BINARY_SHAPES + (BAD_INPLACE_SHAPES if inplace else [])]
    return out


def ternary(m, inplace=False, first=None):
    shapes = [s for s in TERNARY_SHAPES if not inplace or _inplace_ok(s)]
    return [S((first or m.f)(*a), m.f(*b), m.f(*c)) for a, b, c in shapes]


def _inplace_name(name):
    return name.endswith("_") or "_." in name


def generic(op):
    """Samples by the op's shape when none are listed by name."""
    req = [p for p in op.params if not p.has_default and not p.optional]
    tensors = [p for p in req if p.is_tensor]
    if op.family != "pointwise" or len(tensors) != len(req):
        return None
    if len(req) == 1:
        return unary
    if len(req) == 2:
        inplace = op.inplace
        return lambda m: binary(m, inplace, 2.5 if op.numbers_as_tensors else None)
    if len(req) == 3:
        inplace = op.inplace
        return lambda m: ternary(m, inplace)
    return None


def samples_for(qualname):
    """The sample function of an op (listed by name, or by its shape, then its edge cases), or None."""
    fn = SAMPLES.get(qualname)
    if fn is None and qualname in OPS:
        fn = generic(OPS[qualname])
    extra = EDGES.get(qualname)
    if fn is None or extra is None:
        return fn
    return lambda m, fn=fn: fn(m) + extra(m)


def missing_samples():
    return sorted(q for q in OPS if samples_for(q) is None)


# -- pointwise ops listed by name ------------------------------------------------------------------


@samples("pow", "pow_", "float_power")
def _pow(m):
    out = [S(m.pos(*a), m.f(*b, lo=-2, hi=3)) for a, b in BINARY_SHAPES if _inplace_ok((a, b))]
    return out + [S(m.pos(3, 4), 2), S(m.pos(3, 4), 0.5)]


@samples("pow.Scalar", "float_power.Scalar")
def _pow_scalar(m):
    return [S(2.0, m.f(3, 4)), S(0.5, m.f(2, 0))]


@samples("remainder.Scalar_Tensor")
def _scalar_first(m):
    return [S(2.5, m.pos(3, 4)), S(-3.0, m.pos(2, 1, 3))]


@samples(
    "bitwise_and.Scalar_Tensor",
    "bitwise_or.Scalar_Tensor",
    "bitwise_xor.Scalar_Tensor",
    "bitwise_left_shift.Scalar_Tensor",
    "bitwise_right_shift.Scalar_Tensor",
)
def _bitwise_scalar_first(m):
    return [S(5, m.i(3, 4, hi=4)), S(3, m.i(0, 2))]


@samples("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_and_", "bitwise_or_", "bitwise_xor_")
def _bitwise(m):
    m.mode = "int"
    out = binary(m, True) + [S(m.b(3, 4), m.b(4)), S(m.i(3, 4, dtype=mindtorch.uint8), m.i(4, dtype=mindtorch.uint8))]
    return out


@samples("bitwise_left_shift", "bitwise_right_shift", "bitwise_left_shift_", "bitwise_right_shift_")
def _shift(m):
    return [S(m.i(*a, hi=50), m.i(*b, hi=4)) for a, b in BINARY_SHAPES if _inplace_ok((a, b))] + [
        S(m.i(3, 4, hi=50), 2)
    ]


@samples("bitwise_not", "bitwise_not_")
def _bitwise_not(m):
    return [S(m.i(3, 4, lo=-5, hi=5)), S(m.i()), S(m.b(2, 3)), S(m.i(0, 2))]


def _div(m, inplace):
    out = [
        S(m.f(3, 4), m.pos(4), rounding_mode="trunc"),
        S(m.f(3, 1, 4), m.pos(5, 4), rounding_mode="floor"),
        S(m.f(3, 4), m.i(4, lo=1, hi=4), rounding_mode="floor"),
        S(m.i(3, 4, hi=20), m.i(4, lo=1, hi=4)),
    ]
    if inplace:
        out = [s for s in out if _inplace_ok((tuple(s.args[0].shape), tuple(s.args[1].shape)))]
    return binary(m, inplace) + out


samples("div")(lambda m: _div(m, False))
samples("div_")(lambda m: _div(m, True))


@samples("floor_divide", "floor_divide_", "remainder", "remainder_", "fmod", "fmod_")
def _divmod(m):
    out = [S(m.f(*a, lo=-5, hi=5), m.pos(*b)) for a, b in BINARY_SHAPES if _inplace_ok((a, b))]
    return out + [S(m.i(3, 4, lo=-9, hi=9), m.i(4, lo=1, hi=4)), S(m.f(3, 4), 1.5)]


@samples("lerp", "lerp_")
def _lerp(m):
    return ternary(m, True) + [S(m.f(3, 4), m.f(4), 0.3)]


@samples("addcdiv", "addcdiv_")
def _addcdiv(m):
    out = [S(m.f(*a), m.f(*b), m.pos(*c)) for a, b, c in TERNARY_SHAPES if _inplace_ok((a, b, c))]
    return out + [S(m.f(3, 4), m.f(4), m.pos(3, 1), value=-0.5)]


@samples("addcmul", "addcmul_")
def _addcmul(m):
    return ternary(m, True) + [S(m.f(3, 4), m.f(4), m.f(3, 1), value=2)]


@samples("where")
def _where(m):
    return ternary(m, first=m.b) + [S(m.b(3, 4), m.f(3, 4), 0.5)]


@samples("where.method")
def _where_method(m):
    return [S(m.f(*b), m.b(*a), m.f(*c)) for a, b, c in TERNARY_SHAPES]


@samples("clamp.Tensor", "clip.Tensor", "clamp_.Tensor", "clip_.Tensor")
def _clamp_t(m):
    return [
        S(m.f(3, 4), m.f(4, lo=-1, hi=0), m.f(3, 1, lo=0, hi=1)),
        S(m.f(2, 3, 4), m.f(3, 1)),
        S(m.f(3, 4), None, m.f()),
        S(m.f(0, 2), m.f(2), m.f(2)),
    ]


@samples("clamp", "clip", "clamp_", "clip_")
def _clamp(m):
    return [S(m.f(3, 4), -0.5, 0.5), S(m.f(2, 3), None, 0.2), S(m.f(), -1), S(m.i(3, 4), 1, 3)]


@samples("clamp_min.Tensor", "clamp_max.Tensor", "clamp_min_.Tensor", "clamp_max_.Tensor")
def _clamp_one_t(m):
    return [S(m.f(3, 4), m.f(4)), S(m.f(2, 3, 4), m.f(3, 1)), S(m.f(3, 4), m.f())]


@samples("clamp_min", "clamp_max", "clamp_min_", "clamp_max_")
def _clamp_one(m):
    return [S(m.f(3, 4), 0.3), S(m.f(), -0.5), S(m.i(2, 3), 2)]


@samples("acosh", "acosh_", "arccosh", "arccosh_")
def _acosh(m):
    return [S(m.f(3, 4, lo=1, hi=3)), S(m.f(lo=1.5, hi=2)), S(m.f(0, 2))]


@samples("round", "round_")
def _round(m):
    return unary(m) + [S(m.f(3, 4, lo=-50, hi=50), decimals=1), S(m.f(3, 4, lo=-500, hi=500), decimals=-1)]


@samples("logit", "logit_")
def _logit(m):
    return [S(m.u(3, 4)), S(m.f(3, 4, lo=-0.2, hi=1.2), 0.1), S(m.u())]


@samples("nan_to_num", "nan_to_num_")
def _nan_to_num(m):
    x = mindtorch.tensor([[float("nan"), 1.0, float("inf")], [-float("inf"), -2.0, 0.5]])
    return [S(x.clone()), S(x.clone(), 0.5, 10.0, -10.0), S(m.f(0, 3))]


@samples("gelu", "gelu_")
def _gelu(m):
    return unary(m) + [S(m.f(3, 4), approximate="tanh")]


@samples("softplus")
def _softplus(m):
    return unary(m) + [S(m.f(3, 4, lo=-30, hi=30), 2, 10)]


@samples("elu", "elu_")
def _elu(m):
    return unary(m) + [S(m.f(3, 4), 0.5, 2.0, 1.5)]


@samples("leaky_relu", "leaky_relu_")
def _leaky(m):
    return unary(m) + [S(m.f(3, 4), 0.2)]


@samples("hardtanh", "hardtanh_")
def _hardtanh(m):
    return unary(m) + [S(m.f(3, 4), -0.5, 0.25)]


@samples("isclose", "allclose", "equal")
def _isclose(m):
    a = m.f(3, 4)
    return [S(a, a + 1e-7), S(a, m.f(4)), S(a, a.clone()), S(m.f(0, 2), m.f(0, 2))]


# -- reductions ------------------------------------------------------------------------------------


@samples("sum", "mean")
def _sum(m):
    return [
        S(m.f(3, 4)),
        S(m.f(3, 4), 1),
        S(m.nc(2, 3, 4), (0, 2), True),
        S(m.f()),
        S(m.f(0, 3), 0),
        S(m.f(3, 4), -1, dtype=mindtorch.float64),
    ]


@samples("prod")
def _prod(m):
    return [S(m.f(3, 4)), S(m.f(3, 4), 1), S(m.f(2, 3, 4), 0, True), S(m.f()), S(m.f(0, 3), 1)]


@samples("_max_dim", "_min_dim", "max.dim", "min.dim")
def _max_dim(m):
    return [S(m.distinct(3, 4), 1), S(m.distinct(2, 3, 4), 0, True), S(m.distinct(3, 4), -1)]


@samples("max", "min")
def _max_all(m):
    return [S(m.distinct(3, 4)), S(m.distinct()), S(m.i(2, 3))]


@samples("max.other", "min.other")
def _max_other(m):
    return binary(m, scalar=None)


@samples("amax", "amin")
def _amax(m):
    return [S(m.f(3, 4)), S(m.f(3, 4), 1), S(m.f(2, 3, 4), (0, 2), True)]


@samples("argmax", "argmin")
def _argmax(m):
    return [S(m.distinct(3, 4)), S(m.distinct(3, 4), 1), S(m.distinct(2, 3, 4), 0, True)]


@samples("var.correction", "std.correction", "var_mean.correction", "std_mean.correction")
def _var(m):
    return [S(m.f(3, 4)), S(m.f(3, 4), 1), S(m.f(2, 3, 4), (0, 2), correction=0, keepdim=True)]


@samples("var", "std", "var_mean", "std_mean")
def _var_unbiased(m):
    return [S(m.f(3, 4)), S(m.f(3, 4), False)]


@samples("var.dim", "std.dim", "var_mean.dim", "std_mean.dim")
def _var_dim(m):
    return [S(m.f(3, 4), 1), S(m.f(2, 3, 4), (0, 2), False, True)]


@samples("logsumexp")
def _logsumexp(m):
    return [S(m.f(3, 4), 1), S(m.f(2, 3, 4), (0, 2), True), S(m.f(3, 4, lo=50, hi=90), 0)]


@samples("all", "any", "count_nonzero")
def _all(m):
    return [S(m.b(3, 4)), S(m.b(3, 4), 1), S(m.i(2, 3, 4, hi=2), (0, 2)), S(m.f(0, 3)), S(m.f(3, 4))]


@samples("hash_tensor")
def _hash_tensor(m):
    return [S(m.f(3, 4)), S(m.f(2, 3, 4), (0, 2), keepdim=True), S(m.i(3, 4), 1), S(m.b(5)), S(m.f(0, 3), 1)]


@samples("cumsum", "cumprod", "cumsum_", "cumprod_")
def _cumsum(m):
    return [S(m.f(3, 4), 1), S(m.f(2, 3, 4), 0), S(m.f(), 0), S(m.f(3, 4), -1, dtype=mindtorch.float64)]


@samples("softmax", "log_softmax")
def _softmax(m):
    return [
        S(m.f(3, 4), 1),
        S(m.f(2, 3, 4), 0),
        S(m.f(3, 4, lo=-80, hi=80), -1),
        S(m.f(0, 3), 1),
        S(m.f(3, 4), 1, mindtorch.float64),
    ]


@samples("linalg_vector_norm")
def _vnorm(m):
    return [S(m.f(3, 4)), S(m.f(3, 4), 1, 1), S(m.f(2, 3, 4), float("inf"), (0, 2), True), S(m.f(3, 4), 0)]


@samples("norm")
def _norm(m):
    return [S(m.f(3, 4)), S(m.f(3, 4), 1, 1), S(m.f(2, 3, 4), 3, (0, 2), True)]


@samples("norm.str")
def _norm_str(m):
    return [S(m.f(3, 4), "fro"), S(m.f(2, 3, 4), "fro", (1, 2))]


# -- shapes and views ------------------------------------------------------------------------------


@samples("view", "reshape")
def _view(m):
    return [S(m.f(3, 4), (4, 3)), S(m.f(2, 3, 4), (-1, 4)), S(m.f(), (1,)), S(m.f(0, 3), (3, 0))]


@samples("transpose", "swapaxes", "swapdims")
def _transpose(m):
    return [S(m.f(3, 4), 0, 1), S(m.f(2, 3, 4), -1, 0)]


@samples("t")
def _t(m):
    return [S(m.f(3, 4)), S(m.f(4))]


@samples("permute")
def _permute(m):
    return [S(m.f(2, 3, 4), (2, 0, 1)), S(m.nc(3, 4), (1, 0))]


@samples("expand", "broadcast_to")
def _expand(m):
    return [S(m.f(3, 1), (3, 4)), S(m.f(4), (2, 3, 4)), S(m.f(), (2, 2))]


@samples("squeeze")
def _squeeze(m):
    return [S(m.f(3, 1, 4, 1)), S(m.f(1))]


@samples("squeeze.dims")
def _squeeze_dims(m):
    return [S(m.f(3, 1, 4, 1), (1,)), S(m.f(3, 1, 4, 1), (1, 3))]


@samples("unsqueeze")
def _unsqueeze(m):
    return [S(m.f(3, 4), 1), S(m.f(), 0), S(m.f(3, 4), -1)]


@samples("select.int")
def _select(m):
    return [S(m.f(3, 4), 1, 2), S(m.f(2, 3, 4), 0, -1)]


@samples("slice.Tensor")
def _slice(m):
    return [S(m.f(5, 4), 0, 1, 4, 2), S(m.f(3, 6), 1, None, None, 3)]


@samples("narrow")
def _narrow(m):
    return [S(m.f(5, 4), 0, 1, 3), S(m.f(3, 6), 1, 2, 0)]


@samples("as_strided")
def _as_strided(m):
    return [S(m.f(3, 4), (2, 2), (4, 1), 1), S(m.f(3, 4), (3,), (5,))]


@samples("diagonal")
def _diagonal(m):
    return [S(m.f(3, 4)), S(m.f(3, 4), 1), S(m.f(2, 3, 4), -1, 1, 2)]


@samples("unfold")
def _unfold(m):
    return [S(m.f(3, 7), 1, 3, 2), S(m.f(5), 0, 2, 1)]


@samples("alias", "detach", "contiguous", "atleast_1d", "atleast_2d", "atleast_3d")
def _alias(m):
    return [S(m.f(3, 4)), S(m.nc(2, 3)), S(m.f())]


@samples("atleast_1d.Sequence", "atleast_2d.Sequence", "atleast_3d.Sequence")
def _atleast_seq(m):
    return [S([m.f(), m.f(3), m.f(2, 3)])]


@samples("flatten")
def _flatten(m):
    return [S(m.f(2, 3, 4)), S(m.f(2, 3, 4), 1), S(m.nc(2, 3, 4), 0, 1), S(m.f())]


@samples("unflatten")
def _unflatten(m):
    return [S(m.f(3, 4), 1, (2, 2)), S(m.f(6), 0, (-1, 3))]


@samples("unbind")
def _unbind(m):
    return [S(m.f(3, 4)), S(m.f(2, 3, 4), 2)]


@samples("split")
def _split(m):
    return [S(m.f(5, 4), 2), S(m.f(3, 6), 4, 1)]


@samples("split.sizes")
def _split_sizes(m):
    return [S(m.f(5, 4), (2, 3)), S(m.f(3, 6), (1, 0, 5), 1)]


@samples("chunk")
def _chunk(m):
    return [S(m.f(5, 4), 2), S(m.f(3, 6), 4, 1)]


@samples("unsafe_chunk", "unsafe_split")
def _unsafe_split(m):
    return [S(m.f(5, 4), 2), S(m.f(3, 6), 4, 1)]


@samples("split_with_sizes", "unsafe_split_with_sizes")
def _split_with_sizes(m):
    return [S(m.f(5, 4), (2, 3)), S(m.f(3, 6), (1, 0, 5), 1)]


@samples("narrow_copy")
def _narrow_copy(m):
    return [S(m.f(5, 4), 0, 1, 3), S(m.nc(3, 6), 1, 2, 0)]


@samples("sum_to_size")
def _sum_to_size(m):
    return [S(m.f(2, 3, 4), (3, 1)), S(m.f(3, 4), (1, 4)), S(m.f(3, 4), (3, 4))]


@samples("movedim.int", "moveaxis.int")
def _movedim(m):
    return [S(m.f(2, 3, 4), 0, 2), S(m.f(2, 3, 4), -1, 0)]


@samples("movedim.intlist", "moveaxis.intlist")
def _movedim_list(m):
    return [S(m.f(2, 3, 4), (0, 1), (2, 0))]


@samples("broadcast_tensors")
def _broadcast_tensors(m):
    return [S(m.f(3, 1), m.f(4), m.f()), S(m.f(2, 1, 3), m.f(4, 1))]


# -- indexing and joining --------------------------------------------------------------------------


@samples("index.Tensor")
def _index(m):
    return [
        S(m.f(4, 3), [m.i(5, hi=4)]),
        S(m.f(4, 3), [None, m.i(2, 2, hi=3)]),
        S(m.f(4, 3), [m.b(4)]),
        S(m.f(2, 3, 4), [m.i(3, hi=2), None, m.i(3, hi=4)]),
    ]


@samples("index_put", "index_put_")
def _index_put(m):
    return [
        S(m.f(4, 3), [m.i(2, hi=4).unique()], m.f(3)),
        S(m.f(4, 3), [m.i(5, hi=4)], m.f(5, 3), True),
        S(m.f(4, 3), [m.b(4, 3)], m.f()),
    ]


@samples("cat", "concat", "concatenate")
def _cat(m):
    return [S([m.f(2, 3), m.f(4, 3)]), S([m.f(2, 3), m.nc(2, 1), m.f(2, 0)], 1), S([m.f(0), m.f(3)])]


@samples("stack")
def _stack(m):
    return [S([m.f(2, 3), m.f(2, 3)]), S([m.f(2, 3), m.nc(2, 3)], 2)]


@samples("hstack", "vstack", "row_stack", "dstack", "column_stack")
def _hstack(m):
    return [S([m.f(2, 3), m.f(2, 3)]), S([m.f(3), m.f(3)])]


@samples("gather")
def _gather(m):
    return [S(m.f(3, 4), 1, m.i(3, 2, hi=4)), S(m.f(3, 4), 0, m.i(2, 4, hi=3))]


def _perm_index(m, rows, cols, hi):
    """Distinct targets along dim 1 (scatter without reduction is order-dependent on duplicates)."""
    return mindtorch.tensor(np.stack([m.rng.permutation(hi)[:cols] for _ in range(rows)]))


@samples("scatter.src", "scatter_.src")
def _scatter(m):
    return [
        S(m.f(3, 4), 1, _perm_index(m, 3, 2, 4), m.f(3, 2)),
        S(m.f(3, 4), 1, _perm_index(m, 2, 3, 4), m.f(3, 3), reduce="add"),
    ]


@samples("scatter.value", "scatter_.value")
def _scatter_value(m):
    return [S(m.f(3, 4), 1, _perm_index(m, 3, 2, 4), 0.5)]


@samples("scatter_add", "scatter_add_")
def _scatter_add(m):
    return [S(m.f(3, 4), 1, m.i(3, 5, hi=4), m.f(3, 5)), S(m.f(3, 4), 0, m.i(2, 4, hi=3), m.f(2, 4))]


@samples("index_select")
def _index_select(m):
    return [S(m.f(3, 4), 1, m.i(5, hi=4)), S(m.f(3, 4), 0, m.i(0, hi=3)), S(m.f(5), 0, m.i(hi=5))]


@samples("index_add", "index_add_")
def _index_add(m):
    return [S(m.f(4, 3), 0, m.i(5, hi=4), m.f(5, 3)), S(m.f(4, 3), 1, m.i(2, hi=3), m.f(4, 2), alpha=2)]


@samples("index_copy", "index_copy_")
def _index_copy(m):
    return [S(m.f(4, 3), 0, mindtorch.tensor([3, 0]), m.f(2, 3)), S(m.f(4, 3), 1, mindtorch.tensor([2]), m.f(4, 1))]


@samples("index_fill.int_Tensor", "index_fill_.int_Tensor")
def _index_fill_t(m):
    return [S(m.f(4, 3), 1, m.i(2, hi=3), m.f())]


@samples("index_fill.int_Scalar", "index_fill_.int_Scalar")
def _index_fill(m):
    return [S(m.f(4, 3), 1, m.i(2, hi=3), -1.5), S(m.f(4, 3), 0, m.i(0, hi=3), 2)]


@samples("masked_fill.Tensor", "masked_fill_.Tensor")
def _masked_fill_t(m):
    return [S(m.f(3, 4), m.b(3, 4), m.f()), S(m.f(3, 4), m.b(4), m.f())]


@samples("masked_fill.Scalar", "masked_fill_.Scalar")
def _masked_fill(m):
    return [S(m.f(3, 4), m.b(3, 4), 0.5), S(m.f(2, 3, 4), m.b(3, 1), -2), S(m.f(0, 4), m.b(4), 1.0)]


@samples("masked_select")
def _masked_select(m):
    return [S(m.f(3, 4), m.b(3, 4)), S(m.f(3, 4), m.b(4))]


@samples("argwhere", "nonzero", "where.cond_only")
def _nonzero(m):
    return [S(m.i(3, 4, hi=2)), S(m.b(5)), S(m.f(0, 3))]


@samples("tril", "triu", "tril_", "triu_")
def _tril(m):
    return [S(m.f(3, 4)), S(m.f(4, 3), 1), S(m.f(2, 3, 3), -1)]


@samples("flip")
def _flip(m):
    return [S(m.f(3, 4), (0,)), S(m.f(2, 3, 4), (0, 2))]


@samples("roll")
def _roll(m):
    return [S(m.f(3, 4), 1, 1), S(m.f(3, 4), (1, -2), (0, 1)), S(m.f(3, 4), 5)]


@samples("repeat", "tile")
def _repeat(m):
    return [S(m.f(2, 3), (2, 1)), S(m.f(3), (2, 1, 2)), S(m.f(2, 3), (1, 1, 0))]


@samples("repeat_interleave.self_Tensor")
def _repeat_interleave_t(m):
    return [S(m.f(3, 2), mindtorch.tensor([1, 0, 2]), 0), S(m.f(2, 2), mindtorch.tensor([2]))]


@samples("repeat_interleave.self_int")
def _repeat_interleave_i(m):
    return [S(m.f(3, 2), 2, 0), S(m.f(2, 2), 3)]


@samples("repeat_interleave.Tensor")
def _repeat_interleave(m):
    return [S(mindtorch.tensor([1, 0, 3]))]


@samples("_sort", "sort", "argsort")
def _sort(m):
    return [S(m.distinct(3, 4)), S(m.distinct(3, 4), 0, True), S(m.i(2, 5), stable=True)]


@samples("_topk", "topk")
def _topk(m):
    return [S(m.distinct(3, 4), 2), S(m.distinct(3, 4), 2, 0, False), S(m.distinct(5), 0)]


@samples("_unique", "unique")
def _unique(m):
    return [S(m.i(3, 4)), S(m.i(6), True, True, True), S(m.i(4, 2, hi=2), True, False, False, 0)]


@samples("searchsorted.Tensor")
def _searchsorted(m):
    seq = mindtorch.tensor([-1.0, 0.0, 0.5, 1.5])
    return [S(seq, m.f(3, 2)), S(seq, m.f(5), right=True), S(mindtorch.tensor([[0, 2, 4], [1, 3, 5]]), m.i(2, 3, hi=6))]


@samples("searchsorted.Scalar")
def _searchsorted_scalar(m):
    return [S(mindtorch.tensor([-1.0, 0.0, 0.5, 1.5]), 0.5), S(mindtorch.tensor([1, 3, 5]), 3, right=True)]


@samples("_bincount", "bincount")
def _bincount(m):
    return [S(m.i(10, hi=5)), S(m.i(6, hi=3), m.f(6)), S(m.i(4, hi=2), None, 5)]


@samples("one_hot")
def _one_hot(m):
    return [S(m.i(3, 2, hi=4)), S(m.i(5, hi=3), 6)]


@samples("diag")
def _diag(m):
    return [S(m.f(4)), S(m.f(3, 4)), S(m.f(3), 1), S(m.f(3, 3), -1)]


@samples("meshgrid")
def _meshgrid(m):
    return [S([m.f(3), m.f(4)], indexing="ij"), S([m.f(2), m.f(3)], indexing="xy")]


@samples("take")
def _take(m):
    return [S(m.f(3, 4), m.i(2, 3, hi=12)), S(m.f(5), m.i(0, hi=5))]


@samples("take_along_dim")
def _take_along(m):
    return [S(m.f(3, 4), m.i(3, 2, hi=4), 1), S(m.f(3, 4), m.i(5, hi=12))]


@samples("pad")
def _pad(m):
    return [
        S(m.f(3, 4), (1, 2)),
        S(m.f(2, 3, 4), (1, 0, 0, 2), value=0.5),
        S(m.f(1, 2, 3, 4), (1, 1, 2, 0), "reflect"),
        S(m.f(1, 3, 4), (2, 1), "replicate"),
    ]


# -- creation --------------------------------------------------------------------------------------


def _opts(dtype=None):
    return {"device": mindtorch.device("cpu")} | ({"dtype": dtype} if dtype else {})


@samples("empty", "zeros", "ones")
def _empty(m):
    return [S((3, 4), **_opts()), S((2, 0), **_opts(mindtorch.int64)), S((), **_opts(mindtorch.float16))]


@samples("empty_strided")
def _empty_strided(m):
    return [S((3, 4), (1, 3), **_opts()), S((2, 2), (2, 1), **_opts(mindtorch.int32))]


@samples("full")
def _full(m):
    return [S((3, 4), 1.5, **_opts()), S((2,), 7, **_opts()), S((2, 3), True, **_opts()), S((0, 2), 2.0, **_opts())]


@samples("empty_like", "zeros_like", "ones_like", "rand_like", "randn_like")
def _like(m):
    return [S(m.f(3, 4)), S(m.f(2, 3), dtype=mindtorch.float64), S(m.nc(2, 3))]


@samples("full_like")
def _full_like(m):
    return [S(m.f(3, 4), 2.5), S(m.i(2, 3), 7)]


@samples("arange.start_step")
def _arange(m):
    return [S(0, 5, 1, **_opts()), S(1.0, 2.5, 0.25, **_opts()), S(10, 0, -3, **_opts())]


@samples("arange")
def _arange_end(m):
    return [S(5, **_opts()), S(2.5, **_opts())]


@samples("linspace")
def _linspace(m):
    return [S(0, 1, 5, **_opts()), S(-2.0, 2.0, 1, **_opts()), S(0, 10, 4, **_opts(mindtorch.int64))]


@samples("logspace")
def _logspace(m):
    return [S(0, 2, 3, **_opts()), S(-1.0, 1.0, 4, 2.0, **_opts())]


@samples("eye")
def _eye(m):
    return [S(3, **_opts()), S(2, 4, **_opts(mindtorch.int64))]


@samples("clone")
def _clone(m):
    return [S(m.f(3, 4)), S(m.nc(2, 3, 4)), S(m.f()), S(m.f(3, 4).expand(2, 3, 4))]


@samples("_to_copy")
def _to_copy(m):
    return [
        S(m.f(3, 4), dtype=mindtorch.float64),
        S(m.f(3, 4, lo=-9, hi=9), dtype=mindtorch.int32),
        S(m.i(2, 3), dtype=mindtorch.float16),
        S(m.nc(2, 3), dtype=mindtorch.bfloat16),
        S(m.b(3), dtype=mindtorch.float32),
    ]


@samples("copy_")
def _copy(m):
    return [S(m.f(3, 4), m.f(3, 4)), S(m.f(3, 4), m.f(4)), S(m.nc(3, 4), m.i(3, 4)), S(m.f(2, 3), m.f())]


@samples("fill_.Scalar")
def _fill(m):
    return [S(m.f(3, 4), 2.5), S(m.i(2, 3), 7), S(m.nc(2, 3), -1)]


@samples("zero_")
def _zero(m):
    return [S(m.f(3, 4)), S(m.nc(2, 3))]


@samples("resize_")
def _resize(m):
    return [S(m.f(3, 4), (2, 3)), S(m.f(3, 4), (12,))]


@samples("resize_as_")
def _resize_as(m):
    return [S(m.f(3, 4), m.f(2, 3)), S(m.f(3, 4), m.i(12))]


@samples("fill_diagonal_")
def _fill_diagonal(m):
    return [S(m.f(3, 4), 1.5), S(m.f(7, 3), -2.0, True), S(m.f(2, 2, 2), 3.0), S(m.i(4, 4), 7)]


@samples("new_empty", "new_zeros", "new_ones")
def _new(m):
    return [S(m.f(3, 4), (2, 3)), S(m.i(2), (4,), dtype=mindtorch.float64)]


@samples("new_empty_strided")
def _new_strided(m):
    return [S(m.f(3, 4), (2, 3), (1, 2))]


@samples("new_full")
def _new_full(m):
    return [S(m.f(3, 4), (2, 3), 1.5)]


# -- random (values are the device's own draws: shapes and dtypes are compared) ---------------------


@samples("rand", "randn")
def _rand(m):
    return [S((3, 4), **_opts()), S((2, 0), **_opts()), S((5,), **_opts(mindtorch.float64))]


@samples("randint")
def _randint(m):
    return [S(5, (3, 4), **_opts()), S(3, (2,), **_opts(mindtorch.int32))]


@samples("randint.low")
def _randint_low(m):
    return [S(-2, 5, (3, 4), **_opts())]


@samples("randperm")
def _randperm(m):
    return [S(7, **_opts()), S(0, **_opts())]


@samples("randint_like")
def _randint_like(m):
    return [S(m.f(3, 4), 5)]


@samples("randint_like.low_dtype")
def _randint_like_low(m):
    return [S(m.f(3, 4), -2, 5)]


@samples("normal.Tensor_Tensor")
def _normal_tt(m):
    return [S(m.f(3, 4), m.pos(3, 4))]


@samples("normal.Tensor_float")
def _normal_tf(m):
    return [S(m.f(3, 4), 0.5)]


@samples("normal.float_Tensor")
def _normal_ft(m):
    return [S(0.5, m.pos(3, 4))]


@samples("normal.float_float")
def _normal_ff(m):
    return [S(0.0, 2.0, (3, 4), **_opts())]


@samples("bernoulli")
def _bernoulli(m):
    return [S(m.u(3, 4))]


@samples("bernoulli.p")
def _bernoulli_p(m):
    return [S(m.f(3, 4), 0.3)]


@samples("multinomial")
def _multinomial(m):
    return [S(m.pos(5), 3), S(m.pos(2, 4), 6, True)]


@samples("uniform_", "normal_", "exponential_", "random_", "bernoulli_.float")
def _fill_random(m):
    return [S(m.f(3, 4)), S(m.nc(2, 3))]


@samples("cauchy_", "log_normal_")
def _fill_continuous(m):
    return [S(m.f(3, 4)), S(m.nc(2, 3), 0.5, 2.0)]


@samples("geometric_")
def _fill_geometric(m):
    return [S(m.f(3, 4), 0.3), S(m.i(5), 0.7)]


@samples("bernoulli_.Tensor")
def _bernoulli_t(m):
    return [S(m.f(3, 4), m.u(3, 4))]


@samples("random_.to")
def _random_to(m):
    return [S(m.f(3, 4), 10), S(m.i(3, 4), 3)]


@samples("random_.from")
def _random_from(m):
    return [S(m.f(3, 4), -5, 10), S(m.i(3, 4), 2, None)]


# -- linear algebra --------------------------------------------------------------------------------


@samples("matmul")
def _matmul(m):
    return [
        S(m.f(3, 4), m.f(4, 5)),
        S(m.f(4), m.f(4)),
        S(m.f(4), m.f(4, 2)),
        S(m.f(3, 4), m.f(4)),
        S(m.f(2, 3, 4), m.f(4, 5)),
        S(m.f(2, 1, 3, 4), m.f(5, 4, 2)),
        S(m.nc(3, 4), m.nc(4, 2)),
        S(m.f(0, 4), m.f(4, 3)),
        S(m.f(3, 0), m.f(0, 2)),
    ]


@samples("mm")
def _mm(m):
    return [S(m.f(3, 4), m.f(4, 5)), S(m.nc(3, 4), m.f(4, 2)), S(m.f(0, 3), m.f(3, 2))]


@samples("bmm")
def _bmm(m):
    return [S(m.f(2, 3, 4), m.f(2, 4, 5)), S(m.nc(2, 3, 4), m.f(2, 4, 1))]


@samples("mv")
def _mv(m):
    return [S(m.f(3, 4), m.f(4)), S(m.nc(3, 4), m.f(4))]


@samples("dot")
def _dot(m):
    return [S(m.f(4), m.f(4)), S(m.f(0), m.f(0))]


@samples("outer", "ger")
def _outer(m):
    return [S(m.f(3), m.f(4)), S(m.f(0), m.f(2))]


@samples("addmm")
def _addmm(m):
    return [S(m.f(3, 5), m.f(3, 4), m.f(4, 5)), S(m.f(5), m.f(3, 4), m.f(4, 5), beta=0.5, alpha=2)]


@samples("addmm_")
def _addmm_inplace(m):
    return [S(m.f(3, 5), m.f(3, 4), m.f(4, 5)), S(m.nc(3, 5), m.f(3, 4), m.f(4, 5), beta=0.5, alpha=2)]


@samples("baddbmm")
def _baddbmm(m):
    return [S(m.f(2, 3, 5), m.f(2, 3, 4), m.f(2, 4, 5)), S(m.f(3, 1), m.f(2, 3, 4), m.f(2, 4, 5), beta=0.5)]


@samples("baddbmm_")
def _baddbmm_inplace(m):
    return [S(m.f(2, 3, 5), m.f(2, 3, 4), m.f(2, 4, 5), beta=0.5, alpha=-1)]


@samples("addmv")
def _addmv(m):
    return [S(m.f(3), m.f(3, 4), m.f(4)), S(m.f(), m.f(3, 4), m.f(4), alpha=2)]


@samples("addmv_")
def _addmv_inplace(m):
    return [S(m.f(3), m.f(3, 4), m.f(4), alpha=2)]


@samples("einsum")
def _einsum(m):
    return [
        S("ij,jk->ik", [m.f(3, 4), m.f(4, 5)]),
        S("bij->bji", [m.f(2, 3, 4)]),
        S("i,i->", [m.f(4), m.f(4)]),
        S("...ij,...jk", [m.f(2, 3, 4), m.f(4, 2)]),
    ]


@samples("mvlgamma", "mvlgamma_")
def _mvlgamma(m):
    return [S(m.f(3, 4, lo=1.5, hi=4.0), 2), S(m.f(5, lo=2.0, hi=3.0), 3)]


@samples("polygamma")
def _polygamma(m):
    return [S(1, m.f(3, 4, lo=0.5, hi=3.0)), S(0, m.f(4, lo=0.5, hi=3.0)), S(2, m.f(2, 3, lo=0.5, hi=3.0))]


@samples("i0", "i0_", *SPECIAL_UNARY)
def _special_unary(m):
    return unary(m) + [S(m.pos(2, 3))]


@samples(*("special_" + n for n in POLYNOMIALS))
def _orthogonal_polynomial(m):
    return [
        S(m.f(3, 4, lo=-1.0, hi=1.0), m.i(3, 4, lo=0, hi=7)),
        S(m.f(2, 1, 4), m.i(3, 1, lo=-1, hi=5)),
        S(m.f(3, 4), 3),
        S(m.f(0, 3), m.i(3)),
    ]


@samples("special_zeta")
def _zeta(m):
    return [S(m.f(3, 4, lo=1.5, hi=4.0), m.pos(3, 4)), S(m.f(2, 3, lo=2.0, hi=3.0), m.pos(3)), S(m.pos(4) + 1, 2.0)]


@samples("linalg_svdvals")
def _svdvals(m):
    return [S(m.f(3, 4)), S(m.f(2, 4, 3))]


@samples("linalg_inv", "linalg_slogdet", "linalg_cholesky")
def _square_matrix(m):
    return [S(m.spd(3, 3)), S(m.spd(2, 4, 4))]


@samples("linalg_solve")
def _solve(m):
    return [S(m.spd(3, 3), m.f(3, 2)), S(m.spd(2, 4, 4), m.f(4, 1))]


@samples("linalg_eigh")
def _eigh(m):
    return [S(m.spd(3, 3)), S(m.spd(2, 4, 4), "U")]


@samples("linalg_qr", "linalg_svd")
def _factor(m):
    return [S(m.f(4, 3)), S(m.f(2, 3, 4))]


@samples("linalg_solve_triangular")
def _solve_triangular(m):
    upper = m.spd(3, 3).triu()
    return [
        S(upper, m.f(3, 2), upper=True),
        S(m.spd(2, 4, 4).tril(), m.f(4, 3), upper=False, unitriangular=True),
        S(upper, m.f(2, 2, 3), upper=True, left=False),
    ]


@samples("linalg_eig")
def _eig(m):
    return [S(m.spd(3, 3)), S(m.spd(2, 4, 4) + m.f(4, 4))]


@samples("geqrf")
def _geqrf(m):
    return [S(m.f(4, 3)), S(m.f(2, 3, 5))]


@samples("linalg_ldl_factor_ex")
def _ldl_factor(m):
    return [S(m.spd(3, 3)), S(m.spd(2, 4, 4) - 5.0, hermitian=True)]


@samples("linalg_ldl_solve")
def _ldl_solve(m):
    A = m.spd(2, 3, 3)
    LD, pivots, _ = mindtorch.ops.linalg_ldl_factor_ex(A)
    return [S(LD, pivots, m.f(2, 3, 2))]


@samples("linalg_lstsq")
def _lstsq(m):
    return [S(m.f(5, 3), m.f(5, 2))]


# -- nn kernels ------------------------------------------------------------------------------------

_CONV = ((2, 1), (1, 0, 0, 1), (1, 2), 2)  # stride, padding (t, b, l, r), dilation, groups
_AVG = ((2, 2), (1, 1), (1, 1), False, False, None)


@samples("linear")
def _linear(m):
    return [
        S(m.f(3, 4), m.f(5, 4), m.f(5)),
        S(m.f(2, 3, 4), m.f(5, 4)),
        S(m.f(4), m.f(2, 4), m.f(2)),
        S(m.f(0, 4), m.f(5, 4), m.f(5)),
    ]


@samples("linear_backward")
def _linear_b(m):
    return [
        S(m.f(3, 4), m.f(3, 5), m.f(5, 4), [True, True, True]),
        S(m.f(2, 3, 4), m.nc(2, 3, 5), m.f(5, 4), [True, False, True]),
        S(m.f(4), m.f(5), m.f(5, 4), [False, True, False]),
        S(m.f(0, 4), m.f(0, 5), m.f(5, 4), [True, True, True]),
    ]


@samples("_conv2d")
def _conv2d(m):
    return [
        S(m.f(1, 2, 4, 5), m.f(2, 1, 2, 2), m.f(2), *_CONV),
        S(m.f(2, 3, 5, 5), m.f(4, 3, 3, 3), None, (1, 1), (1, 1, 1, 1), (1, 1), 1),
    ]


@samples("_conv2d_backward_input")
def _conv2d_bi(m):
    return [S(m.f(1, 2, 2, 4), m.f(2, 1, 2, 2), (1, 2, 4, 5), *_CONV)]


@samples("_conv2d_backward_weight")
def _conv2d_bw(m):
    return [S(m.f(1, 2, 2, 4), m.f(1, 2, 4, 5), (2, 1, 2, 2), *_CONV)]


@samples("_max_pool2d_with_indices")
def _maxpool(m):
    return [
        S(m.distinct(1, 2, 4, 4), (2, 2), (2, 2), (0, 0), (1, 1), False),
        S(m.distinct(2, 1, 5, 5), (3, 3), (2, 2), (1, 1), (1, 1), True),
    ]


@samples("_max_pool2d_backward")
def _maxpool_b(m):
    x = m.distinct(1, 2, 4, 4)
    _, idx = mindtorch.ops._max_pool2d_with_indices(x, (2, 2), (2, 2), (0, 0), (1, 1), False)
    return [S(m.f(1, 2, 2, 2), x, (2, 2), (2, 2), (0, 0), (1, 1), False, idx)]


@samples("_avg_pool2d")
def _avgpool(m):
    return [S(m.f(1, 1, 3, 3), *_AVG), S(m.f(2, 3, 4, 4), (2, 2), (2, 2), (0, 0), True, True, 3)]


@samples("_avg_pool2d_backward")
def _avgpool_b(m):
    return [S(m.f(1, 1, 4, 4), m.f(1, 1, 3, 3), *_AVG)]


@samples("_adaptive_avg_pool2d")
def _adaptive(m):
    return [S(m.f(1, 2, 5, 7), (2, 3)), S(m.f(2, 1, 4, 4), (1, 1))]


@samples("_adaptive_avg_pool2d_backward")
def _adaptive_b(m):
    return [S(m.f(1, 2, 2, 3), m.f(1, 2, 5, 7))]


@samples("_upsample2d")
def _upsample(m):
    x = m.f(1, 2, 2, 3)
    return [
        S(x, (4, 6), "nearest", False, None, None),
        S(x, (3, 5), "bilinear", False, None, None),
        S(x, (3, 5), "bilinear", True, None, None),
        S(x, (3, 4), "bilinear", False, 1.5, 1.5),
    ]


@samples("_upsample2d_backward")
def _upsample_b(m):
    g = m.f(1, 2, 4, 6)
    return [S(g, (1, 2, 2, 3), "nearest", False, None, None), S(g, (1, 2, 2, 3), "bilinear", True, None, None)]


@samples("native_layer_norm")
def _layer_norm(m):
    return [S(m.f(3, 4), (4,), m.f(4), m.f(4), 1e-5), S(m.f(2, 3, 4), (3, 4), None, None, 1e-5)]


@samples("native_layer_norm_backward")
def _layer_norm_b(m):
    x, w, b = m.f(3, 4), m.f(4), m.f(4)
    _, mean, rstd = mindtorch.ops.native_layer_norm(x, (4,), w, b, 1e-5)
    return [S(m.f(3, 4), x, (4,), mean, rstd, w, b)]


@samples("_rms_norm")
def _rms(m):
    return [S(m.f(3, 4), (4,), m.f(4), 1e-5), S(m.f(2, 3, 4), (3, 4), None, 1e-6)]


@samples("_rms_norm_backward")
def _rms_b(m):
    x, w = m.f(3, 4), m.f(4)
    _, rstd = mindtorch.ops._rms_norm(x, (4,), w, 1e-5)
    return [S(m.f(3, 4), x, (4,), rstd, w)]


@samples("_rotary_mul")
def _rotary_mul(m):
    x = m.f(2, 3, 4, 8)
    return [
        S(x, m.f(1, 1, 4, 8, lo=-1, hi=1), m.f(1, 1, 4, 8, lo=-1, hi=1)),
        S(x, m.f(2, 1, 4, 8, lo=-1, hi=1), m.f(2, 3, 4, 8, lo=-1, hi=1), "interleave"),
        S(m.f(5, 2, 6), m.f(5, 1, 6, lo=-1, hi=1), m.f(5, 1, 6, lo=-1, hi=1), rotary_mode="half"),
    ]


@samples("_rotary_mul_backward")
def _rotary_mul_b(m):
    x, r1, r2 = m.f(2, 3, 4, 8), m.f(1, 1, 4, 8, lo=-1, hi=1), m.f(2, 1, 4, 8, lo=-1, hi=1)
    return [S(m.f(2, 3, 4, 8), x, r1, r2, mode) for mode in ("half", "interleave")]


@samples("_swiglu")
def _swiglu(m):
    return [S(m.f(3, 8)), S(m.f(2, 6, 3), 1), S(m.f(4, 2, 2), dim=-3)]


@samples("_swiglu_backward")
def _swiglu_b(m):
    return [S(m.f(3, 4), m.f(3, 8), -1), S(m.f(2, 3, 3), m.f(2, 6, 3), 1)]


@samples("_grouped_matmul")
def _grouped_matmul(m):
    x, w = m.f(7, 4), m.f(3, 4, 5)
    return [S(x, w, mindtorch.tensor([2, 2, 6])), S(x, w, mindtorch.tensor([3, 5, 7]))]


@samples("_grouped_matmul_backward")
def _grouped_matmul_b(m):
    return [S(m.f(7, 5), m.f(7, 4), m.f(3, 4, 5), mindtorch.tensor([0, 4, 7]))]


@samples("_batch_norm")
def _batch_norm(m):
    return [
        S(m.f(4, 3, 2), m.f(3), m.f(3), None, None, True, 0.1, 1e-5),
        S(m.f(4, 3), m.f(3), m.f(3), m.f(3), m.pos(3), False, 0.1, 1e-5),
        S(m.f(4, 3, 2, 2), None, None, m.f(3), m.pos(3), True, 0.1, 1e-5),
    ]


@samples("_batch_norm_backward")
def _batch_norm_b(m):
    x, w, b = m.f(4, 3, 2), m.f(3), m.f(3)
    _, mean, invstd = mindtorch.ops._batch_norm(x, w, b, None, None, True, 0.1, 1e-5)
    return [S(m.f(4, 3, 2), x, w, None, None, mean, invstd, True, 1e-5)]


@samples("_group_norm")
def _group_norm(m):
    return [S(m.f(2, 4, 3), m.f(4), m.f(4), 2, 1e-5), S(m.f(2, 6, 2, 2), None, None, 3, 1e-5)]


@samples("_group_norm_backward")
def _group_norm_b(m):
    x, w, b = m.f(2, 4, 3), m.f(4), m.f(4)
    _, mean, rstd = mindtorch.ops._group_norm(x, w, b, 2, 1e-5)
    return [S(m.f(2, 4, 3), x, w, mean, rstd, 2)]


@samples("embedding")
def _embedding(m):
    return [S(m.f(5, 3), m.i(2, 4, hi=5)), S(m.f(5, 3), m.i(6, hi=5), 0)]


@samples("_embedding_backward")
def _embedding_b(m):
    return [S(m.f(2, 4, 3), m.i(2, 4, hi=5), 5, -1, False), S(m.f(6, 3), m.i(6, hi=5), 5, 0, True)]


@samples("_embedding_renorm_")
def _embedding_renorm(m):
    return [S(m.f(5, 3), m.i(4, hi=5), 1.0, 2.0)]


@samples("_nll_loss", "_cross_entropy")  # same arguments: (input, target, weight, reduction, ignore_index)
def _nll(m):
    x = m.f(4, 5)
    return [
        S(x, m.i(4, hi=5), None, 1, -100),
        S(x, mindtorch.tensor([0, 3, 1, 3]), m.pos(5), 1, 3),
        S(x, m.i(4, hi=5), None, 0, -100),
        S(x, m.i(4, hi=5), m.pos(5), 2, -100),
    ]


@samples("_nll_loss_backward")
def _nll_b(m):
    x, t, w = m.f(4, 5), mindtorch.tensor([0, 3, 1, 3]), m.pos(5)
    _, total = mindtorch.ops._nll_loss(x, t, w, 1, 3)
    return [S(m.f(), x, t, w, 1, 3, total)]


# --- compositions of other ops (diff, rot90, nansum, isin, cdist, ...) -------------------------------------
@samples("diff")
def _diff(m):
    return [S(m.f(3, 4)), S(m.f(3, 4), 2, 0), S(m.f(2, 5), 1, -1, m.f(2, 1), m.f(2, 2))]


@samples("rot90")
def _rot90(m):
    return [S(m.f(3, 4)), S(m.f(2, 3, 4), 3, (2, 0)), S(m.f(3, 4), -2)]


@samples("cummax", "cummin")
def _cummax(m):
    return [S(m.f(3, 4), 1), S(m.f(2, 3, 4), 0), S(m.f(), 0), S(m.i(3, 5, hi=3), -1)]


@samples("nansum", "nanmean")
def _nansum(m):
    x = m.f(3, 4)
    x[1, 2] = float("nan")
    return [S(x), S(x, 1), S(m.f(2, 3, 4), (0, 2), True)]


@samples("quantile", "nanquantile")
def _quantile(m):
    return [S(m.f(3, 4), mindtorch.tensor([0.1, 0.5, 0.9])), S(m.f(5, 4), mindtorch.tensor([0.25]), 0, True)]


@samples("quantile.scalar", "nanquantile.scalar")
def _quantile_scalar(m):
    return [S(m.f(3, 4), 0.3), S(m.f(5, 4), 0.5, 1, interpolation="midpoint")]


@samples("aminmax")
def _aminmax(m):
    return [S(m.f(3, 4)), S(m.f(3, 4), dim=1), S(m.i(2, 3), dim=0, keepdim=True)]


@samples("bucketize.Tensor")
def _bucketize(m):
    return [S(m.f(3, 4), mindtorch.tensor([-1.0, 0.0, 1.0])), S(m.f(5), mindtorch.tensor([0.0, 0.5]), right=True)]


@samples("bucketize.Scalar")
def _bucketize_scalar(m):
    return [S(0.5, mindtorch.tensor([0.0, 0.5, 1.0])), S(2, mindtorch.tensor([0, 5]))]


@samples("isin.Tensor_Tensor")
def _isin(m):
    return [S(m.i(3, 4), mindtorch.tensor([1, 3])), S(m.i(5), m.i(2), invert=True)]


@samples("isin.Tensor_Scalar")
def _isin_ts(m):
    return [S(m.i(3, 4), 2)]


@samples("isin.Scalar_Tensor")
def _isin_st(m):
    return [S(2, m.i(4))]


@samples("cdist")
def _cdist(m):
    return [S(m.f(4, 3), m.f(5, 3)), S(m.f(2, 3, 2), m.f(2, 4, 2), 1.0)]


@samples("block_diag")
def _block_diag(m):
    return [S(m.f(2, 3), m.f(1, 2)), S(m.f(3), m.f(2, 2))]


@samples("tensor_split.sections")
def _tensor_split(m):
    return [S(m.f(7, 4), 3), S(m.f(3, 5), 2, 1)]


@samples("tensor_split.indices")
def _tensor_split_idx(m):
    return [S(m.f(7, 4), (1, 4)), S(m.f(3, 5), (2,), 1)]


@samples("hsplit.int", "vsplit.int", "dsplit.int")
def _dir_split(m):
    return [S(m.f(4, 4, 4), 2)]


@samples("hsplit.array", "vsplit.array", "dsplit.array")
def _dir_split_idx(m):
    return [S(m.f(4, 4, 4), (1, 3))]


@samples("tril_indices", "triu_indices")
def _tri_indices(m):
    return [S(3, 4, **_opts()), S(4, 3, -1, **_opts(mindtorch.int32))]


@samples("range")
def _range(m):
    return [S(0, 4, **_opts()), S(1.0, 2.0, 0.25, **_opts())]


# -- fused ops (each has a composite fallback; these samples hold a device kernel to the cpu's) ----------


@samples("gelu_backward")
def _gelu_backward(m):
    return [
        S(m.f(3, 4), m.f(3, 4)),
        S(m.f(), m.f()),
        S(m.f(2, 3, 4), m.nc(2, 3, 4), approximate="tanh"),
        S(m.f(0, 3), m.f(0, 3)),
        S(m.f(3, 1, 4), m.f(3, 5, 4)),
    ]


@samples("silu_backward")
def _silu_backward(m):
    return [
        S(m.f(3, 4), m.f(3, 4)),
        S(m.f(), m.f()),
        S(m.f(2, 3, 4), m.nc(2, 3, 4)),
        S(m.f(0, 3), m.f(0, 3)),
        S(m.f(4), m.f(3, 4)),
        S(m.f(3, 1, 4), m.f(3, 5, 4)),
    ]


@samples("threshold_backward")
def _threshold_backward(m):
    return [
        S(m.f(3, 4), m.f(3, 4), 0),
        S(m.f(2, 3, 4), m.nc(2, 3, 4), 0.25),
        S(m.f(), m.f(), 0),
        S(m.f(0, 3), m.f(0, 3), 0),
        S(m.f(3, 1, 4), m.f(3, 5, 4), -0.5),
    ]


@samples("_softmax_backward_data", "_log_softmax_backward_data")
def _softmax_backward(m):
    return [
        S(m.f(3, 4), m.u(3, 4), 1),
        S(m.f(2, 3, 4), m.u(2, 3, 4), 0),
        S(m.f(5), m.u(5), -1),
        S(m.f(2, 0), m.u(2, 0), 1),
    ]


@samples("_cross_entropy_backward")
def _cross_entropy_backward(m):
    x, t, w = m.f(4, 5), m.i(4, hi=5), m.pos(5)
    out = []
    for weight, reduction in ((None, 1), (w, 1), (w, 0), (None, 2)):
        _, total, logp = mindtorch.ops._cross_entropy(x, t, weight, reduction, -100)
        g = m.f(4) if reduction == 0 else m.f()
        out.append(S(g, logp, t, weight, reduction, -100, total))
    return out


@samples("_scaled_dot_product_attention")
def _sdpa(m):
    q, k, v = m.f(2, 3, 4, 8), m.f(2, 3, 5, 8), m.f(2, 3, 5, 8)
    return [
        S(q, k, v, None, False, 8**-0.5),
        S(m.f(2, 4, 8), m.f(2, 4, 8), m.f(2, 4, 8), None, True, 0.3),
        S(q, k, v, m.b(4, 5), False, 0.5),
        S(q, k, v, m.f(1, 3, 4, 5), False, 8**-0.5),
        S(m.f(2, 4, 4, 8), k[:, :2], v[:, :2], None, True, 0.4),  # two query heads per key / value head
        S(q, k[:, :1], v[:, :1], m.b(4, 5), False, 0.5, m.b(2, 3, 4, 5), 0.25),
    ]


@samples("_scaled_dot_product_attention_backward")
def _sdpa_backward(m):
    q, k, v = m.f(2, 4, 8), m.f(2, 5, 8), m.f(2, 5, 8)
    out = []
    for mask, causal, scale in ((None, False, 0.35), (None, True, 0.5), (m.b(4, 5), False, 0.3)):
        if mask is not None:
            mask[:, 0] = True  # every row keeps a key
        o, lse = mindtorch.ops._scaled_dot_product_attention(q, k, v, mask, causal, scale)
        out.append(S(m.f(*o.shape), q, k, v, mask, causal, o, lse, scale))
    # four query heads over two key / value heads, with dropout
    q4, k2, v2, keep = m.f(4, 4, 8), m.f(2, 5, 8), m.f(2, 5, 8), m.b(4, 4, 5)
    o, lse = mindtorch.ops._scaled_dot_product_attention(q4, k2, v2, None, False, 0.35, keep, 0.2)
    out.append(S(m.f(*o.shape), q4, k2, v2, None, False, o, lse, 0.35, keep, 0.2))
    return out


def _rnn_layer_args(m, mode, proj, bias, batch_sizes):
    """(input, hx, cx, w_ih, w_hh, b_ih, b_hh, w_hr) of one recurrent layer: 3 features, hidden 4."""
    g = {"LSTM": 4, "GRU": 3}.get(mode, 1) * 4
    hout = proj or 4
    b = batch_sizes[0]
    return [
        m.f(sum(batch_sizes), 3, lo=-1, hi=1),
        m.f(b, hout, lo=-1, hi=1),
        m.f(b, 4, lo=-1, hi=1) if mode == "LSTM" else None,
        m.f(g, 3, lo=-0.5, hi=0.5),
        m.f(g, hout, lo=-0.5, hi=0.5),
        m.f(g, lo=-0.5, hi=0.5) if bias else None,
        m.f(g, lo=-0.5, hi=0.5) if bias else None,
        m.f(proj, 4, lo=-0.5, hi=0.5) if proj else None,
    ]


# (mode, proj_size, bias, batch sizes, reverse): padded and packed, both directions, every mode
_RNN_LAYER_CASES = (
    ("LSTM", 0, True, [2, 2, 2], False),
    ("LSTM", 2, True, [3, 2, 1], True),
    ("GRU", 0, True, [3, 2, 2, 1], False),
    ("GRU", 0, False, [2, 2], True),
    ("RNN_TANH", 0, True, [3, 3, 1], True),
    ("RNN_RELU", 0, False, [2, 1], False),
)


@samples("_rnn_layer")
def _rnn_layer(m):
    return [
        S(*_rnn_layer_args(m, mode, proj, bias, bs), bs, mode, rev) for mode, proj, bias, bs, rev in _RNN_LAYER_CASES
    ]


@samples("_rnn_layer_backward")
def _rnn_layer_backward(m):
    out = []
    for mode, proj, bias, bs, rev in _RNN_LAYER_CASES:
        args = _rnn_layer_args(m, mode, proj, bias, bs)
        y, h, c, ws = mindtorch.ops._rnn_layer(*args, bs, mode, rev)
        grads = (m.f(*y.shape), m.f(*h.shape), m.f(*c.shape) if mode == "LSTM" else None)
        out.append(S(*grads, *args, ws, bs, mode, rev))
    return out


def _param_group(m, n_state):
    shapes = [(3, 4), (5,), ()]
    return [[m.f(*s) for s in shapes] for _ in range(n_state)]


@samples("_foreach_adam_")
def _foreach_adam(m):
    out = []
    for amsgrad, decoupled, maximize in ((False, False, False), (True, True, False), (False, True, True)):
        p, g, ea = _param_group(m, 3)
        eas = [x.abs() for x in _param_group(m, 1)[0]]
        mx = [x.abs() for x in _param_group(m, 1)[0]] if amsgrad else []
        steps = [mindtorch.tensor(3.0) for _ in p]
        out.append(
            S(
                p,
                g,
                ea,
                eas,
                mx,
                steps,
                lr=1e-2,
                beta1=0.9,
                beta2=0.999,
                weight_decay=0.01,
                eps=1e-8,
                amsgrad=amsgrad,
                maximize=maximize,
                decoupled=decoupled,
            )
        )
    return out


@samples("_foreach_sgd_")
def _foreach_sgd(m):
    out = []
    for momentum, nesterov, fresh in ((0.0, False, False), (0.9, False, False), (0.9, True, True)):
        p, g, buf = _param_group(m, 3)
        out.append(
            S(
                p,
                g,
                buf if momentum else [],
                lr=0.1,
                momentum=momentum,
                dampening=0.0,
                weight_decay=1e-4,
                nesterov=nesterov,
                maximize=False,
                fresh=fresh,
            )
        )
    return out


@samples("_foreach_norm")
def _foreach_norm(m):
    return [
        S(_param_group(m, 1)[0]),
        S(_param_group(m, 1)[0], 1),
        S(_param_group(m, 1)[0], float("inf")),
        S([m.f(3, 4, dtype=mindtorch.float16), m.f(5, dtype=mindtorch.float16)], 3, dtype=mindtorch.float32),
        S([m.f(2, 3), m.f(4, dtype=mindtorch.float16)], 2),
    ]


def _foreach_operand(m, kind, n, scalar):
    if kind == "Tensor[]":
        return [m.pos(*s) for s in [(3, 4), (5,), ()][:n]]
    if kind == "Scalar[]":
        return [scalar + 0.5 * k for k in range(n)]
    if kind == "Tensor":
        return m.f(dtype=mindtorch.float64)
    if kind == "packed":
        return m.f(n)
    return False if kind == "bool" else scalar


def _foreach_samples(operand_text):
    """Positive lists (every unary op's domain) with a number, a number per tensor, a list, a 0-dim or a
    packed operand; with numbers also an integer list (the result dtype promotes for a float number)."""
    operands = [kind for kind, keyword in _parse_foreach_operands(operand_text) if keyword is None]

    def make(m):
        out = []
        for selfs, scalar in [(_param_group(m, 1)[0], 2), ([m.pos(3, 4), m.pos(5)], 0.5)]:
            n = len(selfs)
            out.append(S([t.abs() + 0.5 for t in selfs], *(_foreach_operand(m, k, n, scalar) for k in operands)))
        if "Scalar" in operands:
            out.append(S([m.i(3), m.i(2, 2)], *(_foreach_operand(m, k, 2, 2) for k in operands)))
        return out

    return make


for _name, (_op, _forms, *_) in FOREACH_OPS.items():
    for _overload, _text in _forms.items():
        _q = f".{_overload}" if _overload else ""
        samples(f"_foreach_{_name}{_q}", f"_foreach_{_name}_{_q}")(_foreach_samples(_text))
samples("_foreach_zero_")(_foreach_samples(""))
samples("_foreach_copy_")(_foreach_samples("Tensor[] src"))


@samples("_foreach_pow.ScalarAndTensor")
def _foreach_pow_scalar_and_tensor(m):
    return [S(2.0, _param_group(m, 1)[0]), S(3, [m.i(3), m.f(2, dtype=mindtorch.float64)])]


@samples("_amp_foreach_non_finite_check_and_unscale_")
def _amp_unscale(m):
    out = []
    for bad in (None, float("inf"), float("nan")):
        grads = _param_group(m, 1)[0]
        if bad is not None:
            grads[0][1, 2] = bad
        out.append(S(grads, mindtorch.zeros(1), mindtorch.tensor([0.125])))
    return out


@samples("_amp_update_scale_")
def _amp_update_scale(m):
    return [
        S(mindtorch.tensor([8.0]), mindtorch.tensor([n], dtype=mindtorch.int32), mindtorch.tensor([f]), 2.0, 0.5, 2)
        for n, f in ((0, 0.0), (1, 0.0), (1, 1.0))
    ]


# -- complex numbers and Fourier transforms ----------------------------------------------------------


@samples("view_as_real", "real", "imag", "angle")
def _complex_parts(m):
    return [S(m.c(3, 4)), S(m.c(4, 3).t()), S(m.c()), S(m.f(3, 4))]


@samples("view_as_complex")
def _view_as_complex(m):
    return [S(m.f(3, 2)), S(m.f(2, 4, 2)), S(m.f(3, 3)), S(m.f(2, 3).t())]


@samples("view.dtype")
def _view_dtype(m):
    return [
        S(m.f(3, 4), mindtorch.int32),
        S(m.f(3, 4), mindtorch.int16),
        S(m.f(3, 4), mindtorch.float64),
        S(m.f(3, 3), mindtorch.float64),
    ]


@samples("complex", "polar")
def _complex_from_parts(m):
    return [S(m.pos(3, 4), m.f(3, 4)), S(m.pos(3, 1), m.f(4)), S(m.f(3), m.i(3))]


@samples("_fft_c2c")
def _fft_c2c(m):
    return [S(m.c(4, 6), [1], 0, True), S(m.c(4, 6), [0, 1], 2, False), S(m.c(5), [0], 1, True)]


@samples("_fft_r2c")
def _fft_r2c(m):
    return [S(m.f(4, 6), [1], 0, True), S(m.f(4, 6), [0, 1], 1, False), S(m.f(3, 5), [0], 2, True)]


@samples("_fft_c2r")
def _fft_c2r(m):
    return [S(m.c(4, 4), [1], 2, 6), S(m.c(4, 4), [0, 1], 0, 7), S(m.c(3, 2), [0], 1, 3)]


# -- products, statistics, order statistics, scatters (composites) ----------------------------------


@samples("trace")
def _trace(m):
    return [S(m.f(3, 3)), S(m.f(2, 4)), S(m.f(2, 2, 2))]


@samples("kron", "inner")
def _kron(m):
    return [S(m.f(2, 3), m.f(3, 3)), S(m.f(4), m.f(2, 4)), S(m.f(2, 3), m.f(4, 2))]


@samples("vdot")
def _vdot(m):
    return [S(m.f(4), m.f(4)), S(m.f(4), m.f(3))]


@samples("addr", "addr_")
def _addr(m):
    return [S(m.f(3, 4), m.f(3), m.f(4), beta=0.5, alpha=2.0), S(m.f(3, 4), m.f(3), m.f(4))]


@samples("addbmm", "addbmm_")
def _addbmm(m):
    return [S(m.f(3, 5), m.f(2, 3, 4), m.f(2, 4, 5)), S(m.f(3, 5), m.f(2, 3, 4), m.f(2, 4, 5), beta=0.0)]


@samples("dist")
def _dist(m):
    return [S(m.f(3, 4), m.f(3, 4)), S(m.f(3, 4), m.f(4), 1.0), S(m.f(3, 4), m.f(3, 4), float("inf"))]


@samples("cov", "corrcoef")
def _cov(m):
    return [S(m.f(3, 5)), S(m.f(5)), S(m.f(2, 2, 2))]


@samples("cartesian_prod")
def _cartesian(m):
    return [S(m.f(2), m.f(3)), S(m.f(3)), S(m.f(2), m.f(2), m.f(2))]


@samples("combinations")
def _combinations(m):
    return [S(m.f(4)), S(m.f(4), 3), S(m.f(3), 2, True), S(m.f(2, 2))]


@samples("diag_embed", "diagflat")
def _diag_embed(m):
    return [S(m.f(3, 4)), S(m.f(3), 1), S(m.f(2, 3), -1)]


@samples("vander")
def _vander(m):
    return [S(m.f(4)), S(m.f(3), 5), S(m.f(3), None, True)]


@samples("trapezoid", "trapz", "cumulative_trapezoid")
def _trapezoid(m):
    return [S(m.f(3, 4)), S(m.f(3, 4), m.distinct(4)), S(m.f(3, 4), dx=0.5, dim=0)]


@samples("median", "nanmedian", "msort")
def _median(m):
    return [S(m.distinct(3, 4)), S(m.distinct(5)), S(m.f(0))]


@samples("median.dim", "nanmedian.dim", "mode")
def _median_dim(m):
    return [S(m.distinct(3, 4), 1), S(m.distinct(3, 4), 0, True), S(m.i(2, 6), 1)]


@samples("kthvalue")
def _kthvalue(m):
    return [S(m.distinct(3, 4), 2), S(m.distinct(3, 4), 3, 0, True), S(m.f(3, 4), 9)]


@samples("logcumsumexp")
def _logcumsumexp(m):
    return [S(m.f(3, 4), 1), S(m.f(3, 4), 0), S(m.f(), 0)]


@samples("histc")
def _histc(m):
    return [S(m.f(3, 4), 5), S(m.f(20), 4, -1.0, 1.0), S(m.i(5))]


@samples("select_scatter")
def _select_scatter(m):
    return [S(m.f(3, 4), m.f(4), 0, 1), S(m.f(3, 4), m.f(3), 1, -1), S(m.f(3, 4), m.f(3), 0, 1)]


@samples("slice_scatter")
def _slice_scatter(m):
    return [S(m.f(3, 4), m.f(3, 2), 1, 1, 4, 2), S(m.f(3, 4), m.f(1, 4), 0, 2)]


@samples("diagonal_scatter")
def _diagonal_scatter(m):
    return [S(m.f(3, 3), m.f(3)), S(m.f(3, 4), m.f(3), 1)]


@samples("masked_scatter", "masked_scatter_")
def _masked_scatter(m):
    return [S(m.f(3, 4), m.b(3, 4), m.f(12)), S(m.f(3, 4), m.b(4), m.f(3, 4))]


@samples("put", "put_")
def _put(m):
    return [S(m.f(3, 4), mindtorch.tensor([0, 5, 11]), m.f(3)), S(m.f(3, 4), mindtorch.tensor([1, 1, 2]), m.f(3), True)]


@samples("fill")
def _fill(m):
    return [S(m.f(3, 4), 2.5), S(m.i(3), 7)]


@samples("adjoint", "fliplr", "ravel")
def _flips(m):
    return [S(m.f(3, 4)), S(m.nc(2, 3, 4)), S(m.f(4))]


@samples("flipud")
def _flipud(m):
    return [S(m.f(3, 4)), S(m.f(4)), S(m.f())]


@samples("cross", "linalg_cross")
def _cross(m):
    return [S(m.f(4, 3), m.f(4, 3)), S(m.f(3, 2), m.f(3, 2)), S(m.f(2, 4), m.f(2, 4))]


@samples("chain_matmul")
def _chain_matmul(m):
    return [S(m.f(2, 3), m.f(3, 4), m.f(4, 2)), S(m.f(3, 3)), S(m.f(2, 3), m.f(2, 3))]


@samples("renorm", "renorm_")
def _renorm(m):
    return [S(m.f(3, 4), 2, 0, 1.0), S(m.f(3, 4), 1, 1, 0.5), S(m.f(3, 4), 2, 0, -1.0)]


@samples("nuclear_norm")
def _nuclear(m):
    return [S(m.f(3, 4)), S(m.f(2, 3, 3), True)]


@samples("frobenius_norm")
def _frobenius(m):
    return [S(m.f(3, 4), [0, 1]), S(m.f(2, 3, 4), [1], True)]


@samples("hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window")
def _windows(m):
    cpu = mindtorch.device("cpu")
    return [S(8, device=cpu), S(5, False, device=cpu), S(1, device=cpu), S(0, device=cpu), S(-1, device=cpu)]


@samples("poisson")
def _poisson(m):
    return [S(m.pos(3, 4)), S(m.f(0, 2))]


@samples("binomial")
def _binomial(m):
    return [S(m.f(3, 4, lo=1.0, hi=9.0).round(), m.u(3, 4)), S(m.i(3), m.u(3))]


@samples("native_dropout")
def _native_dropout(m):
    return [S(m.f(3, 4), 0.5, True), S(m.f(3, 4), 0.5, False), S(m.f(4), 1.0, True)]


@samples("nonzero_static")
def _nonzero_static(m):
    return [S(m.b(3, 4), size=5), S(m.i(6), size=10, fill_value=-2), S(m.b(3), size=-1)]


@samples("unique_consecutive")
def _unique_consecutive(m):
    # keywords: PyTorch 2.13 swaps the positional return_inverse/return_counts when dim is given
    return [S(m.i(10, hi=3)), S(m.i(10, hi=3), True, True), S(m.i(4, 3, hi=2), return_counts=True, dim=0)]


@samples("unravel_index")
def _unravel_index(m):
    return [S(m.i(5, hi=24), [2, 3, 4]), S(m.i(3, hi=6), [6]), S(m.f(3), [2, 2])]


@samples("histogram.bin_ct")
def _histogram(m):
    return [S(m.f(20), 5), S(m.f(3, 4), 4, range=[-1.0, 1.0], density=True), S(m.i(5), 3)]


@samples("histogram.bins_tensor")
def _histogram_edges(m):
    return [S(m.f(20), mindtorch.tensor([-2.0, 0.0, 0.5, 2.0])), S(m.f(20), m.distinct(5).sort().values)]


@samples("scatter_reduce.two", "scatter_reduce_.two")
def _scatter_reduce(m):
    idx = mindtorch.tensor([[0, 1, 0, 3], [2, 2, 1, 0], [3, 0, 0, 1]])
    return [S(m.f(3, 5), 1, idx, m.f(3, 4), reduce) for reduce in ("sum", "prod", "mean", "amax", "amin")] + [
        S(m.f(3, 5), 1, idx, m.f(3, 4), "mean", include_self=False),
        S(m.f(3, 5), 1, idx, m.f(3, 4), "median"),
    ]


@samples("index_reduce", "index_reduce_")
def _index_reduce(m):
    idx = mindtorch.tensor([0, 2, 0, 3])
    return [S(m.f(4, 3), 0, idx, m.f(4, 3), reduce) for reduce in ("mean", "amax", "amin", "prod")] + [
        S(m.f(3, 4), 1, idx, m.f(3, 4), "amax", include_self=False),
        S(m.f(3, 4), 1, idx, m.f(3, 4), "sum"),
    ]


@samples("as_strided_scatter")
def _as_strided_scatter(m):
    return [S(m.f(3, 4), m.f(2, 2), (2, 2), (4, 1), 1), S(m.f(3, 4), m.f(3), (3,), (5,))]


@samples("slice_inverse")
def _slice_inverse(m):
    base = m.f(4, 6)
    # slices holding src's first and last elements: a device copy of a view keeps only the storage it spans
    return [S(base[:, 0:6:5], base, 1, 0, 6, 5), S(base[0:4:3], base, 0, None, None, 3)]


def inplace_base(qualname):
    """The out-of-place op of an in-place one (for reporting), or None."""
    op = op_out_of_place.get(qualname)
    return op.qualname if op is not None else None


# -- edge cases: out-of-range indices (PyTorch's error class, nothing written) and integer limits -----


def data_dependent(*samples):
    """Samples whose expected error depends on index values (a data-less device cannot see it)."""
    for sample in samples:
        sample.needs_data = True
    return list(samples)


def host_error(*samples):
    """Samples whose error PyTorch's cpu raises and its CUDA does not: a device may raise it or compute."""
    for sample in data_dependent(*samples):
        sample.host_error = True
    return list(samples)


def _ix(*rows):
    return mindtorch.tensor(list(rows))


@edges("gather")
def _gather_oob(m):
    return data_dependent(S(m.f(3, 4), 1, _ix([0, 4], [1, 2], [3, 3])), S(m.f(3, 4), 0, _ix([0, -4, 1, 2])))


@edges("scatter.src", "scatter_.src", "scatter_add", "scatter_add_")
def _scatter_oob(m):
    return data_dependent(
        S(m.f(3, 4), 1, _ix([0, 4], [1, 2], [3, 0]), m.f(3, 2)), S(m.f(3, 4), 0, _ix([0, -4, 1, 2]), m.f(1, 4))
    )


@edges("scatter.value", "scatter_.value")
def _scatter_value_oob(m):
    return data_dependent(S(m.f(3, 4), 1, _ix([0, 4], [1, 2], [3, 0]), 0.5), S(m.f(3, 4), 0, _ix([-4, 1]), 2.0))


@edges("scatter_reduce.two", "scatter_reduce_.two")
def _scatter_reduce_oob(m):
    return data_dependent(
        S(m.f(3, 5), 1, _ix([0, 5], [1, 2], [3, 0]), m.f(3, 2), "sum"),
        S(m.f(3, 5), 1, _ix([0, -6], [1, 2], [3, 0]), m.f(3, 2), "amax"),
    )


@edges("index_select")
def _index_select_oob(m):
    return data_dependent(S(m.f(3, 4), 1, _ix(0, 4)), S(m.f(3, 4), 0, _ix(-4)))


@edges("index_add", "index_add_", "index_copy", "index_copy_")
def _index_add_oob(m):
    return data_dependent(S(m.f(4, 3), 0, _ix(1, 4), m.f(2, 3)), S(m.f(4, 3), 1, _ix(-4), m.f(4, 1)))


@edges("index_fill.int_Scalar", "index_fill_.int_Scalar")
def _index_fill_oob(m):
    return data_dependent(S(m.f(4, 3), 1, _ix(0, 3), -1.5), S(m.f(4, 3), 0, _ix(-5), 2.0))


@edges("index_fill.int_Tensor", "index_fill_.int_Tensor")
def _index_fill_t_oob(m):
    return data_dependent(S(m.f(4, 3), 1, _ix(0, 3), m.f()), S(m.f(4, 3), 0, _ix(-5), m.f()))


@edges("index_put", "index_put_")
def _index_put_oob(m):
    return data_dependent(
        S(m.f(4, 3), [_ix(1, 4)], m.f(3)), S(m.f(4, 3), [_ix(-5)], m.f(3), True), S(m.f(4, 3), [_ix(0), _ix(3)], m.f())
    )


@edges("index.Tensor")
def _index_oob(m):
    return data_dependent(S(m.f(4, 3), [_ix(0, 4)]), S(m.f(4, 3), [None, _ix(-4)]))


@edges("put", "put_")
def _put_oob(m):
    return data_dependent(S(m.f(3, 4), _ix(0, 12), m.f(2)), S(m.f(3, 4), _ix(-13), m.f(1), True))


@edges("take")
def _take_oob(m):
    return data_dependent(S(m.f(3, 4), _ix(0, 12)), S(m.f(3, 4), _ix([-13, 1])))


@edges("embedding")
def _embedding_oob(m):
    return data_dependent(S(m.f(5, 3), _ix([0, 5])), S(m.f(5, 3), _ix(-1, 2)))


@edges("one_hot")
def _one_hot_oob(m):
    return data_dependent(S(_ix(0, 4), 3), S(_ix(-1, 1)))


def _limits(dtype):
    info = mindtorch.iinfo(dtype)
    return mindtorch.tensor([info.min, info.max, info.max - 1, -1 if info.min < 0 else 1, 0, 1], dtype=dtype)


_SIGNED = (mindtorch.int8, mindtorch.int16, mindtorch.int32, mindtorch.int64)


@edges("add", "sub", "mul", "add_", "sub_", "mul_")
def _wrapping(m):
    """Integer arithmetic wraps at the type's limits."""
    return [S(_limits(d), _limits(d).flip(0)) for d in _SIGNED + (mindtorch.uint8,)] + [S(_limits(mindtorch.int8), 100)]


@edges("neg", "abs", "neg_", "abs_", "sign", "square")
def _int_limits(m):
    return [S(_limits(d)) for d in _SIGNED + (mindtorch.uint8,)]


@edges("pow", "pow_")
def _int_pow(m):
    """Integer powers: negative exponents (an error for integer bases in PyTorch, 1/x truncated for a tensor
    exponent), overflow, and 0 ** 0."""
    base = mindtorch.tensor([-3, -1, 0, 1, 2, 3])
    return [
        S(base, -2),
        S(base.clone(), mindtorch.tensor([2, -1, 0, -2, 3, 40])),
        S(base.to(mindtorch.int8), 5),
        S(base.to(mindtorch.int32), mindtorch.tensor([0, 3, 0, 7, 31, 2], dtype=mindtorch.int32)),
        S(base.to(mindtorch.uint8).abs(), 9),
    ]


@edges("pow.Scalar")
def _int_pow_scalar(m):
    return [S(2, mindtorch.tensor([-2, 0, 3, 62])), S(-3, mindtorch.tensor([-1, 2, 5]))]


@edges("floor_divide", "remainder", "fmod", "div", "floor_divide_", "remainder_", "fmod_", "div_")
def _int_division(m):
    """Integer division at the limits, and by zero (PyTorch raises for integer floor division and remainder)."""
    lim = _limits(mindtorch.int32)
    return [
        # not the minimum by -1: its quotient overflows, and PyTorch's cpu kernels die of SIGFPE on it
        S(lim, mindtorch.tensor([7, -1, -7, 3, 5, -2], dtype=mindtorch.int32)),
        *host_error(S(_ix(5, -5, 0), _ix(0, 2, 0))),
    ]


@edges("bitwise_left_shift", "bitwise_right_shift", "bitwise_left_shift_", "bitwise_right_shift_")
def _wide_shifts(m):
    """Shifts by the type's width and more, and of negative values."""
    return [
        S(_ix(1, -1, 5, -8, 3, 7), _ix(63, 64, 65, 1, 0, 70)),
        S(_limits(mindtorch.int8), mindtorch.tensor([1, 7, 8, 9, 2, 0], dtype=mindtorch.int8)),
        S(_limits(mindtorch.uint8), mindtorch.tensor([1, 7, 8, 9, 2, 0], dtype=mindtorch.uint8)),
    ]


@edges("sum", "cumsum", "prod")
def _int_accumulation(m):
    """Integer reductions accumulate in int64 (PyTorch's rule), so int8 sums do not wrap."""
    return [S(_limits(mindtorch.int8), 0), S(_limits(mindtorch.uint8), 0)]
