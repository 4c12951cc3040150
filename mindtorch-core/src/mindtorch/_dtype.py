"""dtypes and PyTorch's type-promotion rules.

Core describes dtypes abstractly; each backend maps them to its own
representation (NumPy dtypes on the CPU, aclDataType on the NPU).
"""

import math


class dtype:
    __slots__ = ("name", "itemsize", "is_floating_point", "is_complex", "is_signed", "_rank", "_kind")

    def __init__(self, name, itemsize, kind, rank):
        self.name = name
        self.itemsize = itemsize
        self._kind = kind  # 0 bool, 1 integral, 2 floating, 3 complex
        self._rank = rank  # column in the promotion table
        self.is_floating_point = kind == 2
        self.is_complex = kind == 3
        self.is_signed = name not in ("bool", "uint8", "uint16", "uint32", "uint64", "float8_e8m0fnu")

    def __repr__(self):
        return "torch." + self.name

    def __reduce__(self):
        return (_by_name, (self.name,))

    def to_real(self):
        return {"complex64": float32, "complex128": float64}.get(self.name, self)

    def to_complex(self):
        return {"float64": complex128}.get(self.name, complex64 if self._kind == 2 else self)


bool_ = dtype("bool", 1, 0, 0)
uint8 = dtype("uint8", 1, 1, 1)
int8 = dtype("int8", 1, 1, 2)
int16 = dtype("int16", 2, 1, 3)
int32 = dtype("int32", 4, 1, 4)
int64 = dtype("int64", 8, 1, 5)
float16 = dtype("float16", 2, 2, 6)
bfloat16 = dtype("bfloat16", 2, 2, 7)
float32 = dtype("float32", 4, 2, 8)
float64 = dtype("float64", 8, 2, 9)
complex64 = dtype("complex64", 8, 3, 10)
complex128 = dtype("complex128", 16, 3, 11)

ALL = (bool_, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64, complex64, complex128)
_BY_NAME = {d.name: d for d in ALL}
ALIASES = {
    "bool": bool_,
    "uint8": uint8,
    "int8": int8,
    "int16": int16,
    "short": int16,
    "int32": int32,
    "int": int32,
    "int64": int64,
    "long": int64,
    "float16": float16,
    "half": float16,
    "bfloat16": bfloat16,
    "float32": float32,
    "float": float32,
    "float64": float64,
    "double": float64,
    "complex64": complex64,
    "cfloat": complex64,
    "complex128": complex128,
    "cdouble": complex128,
}


# The wide unsigned integers: real tensors, but outside the promotion table (as in PyTorch, where mixing
# them with another integer type raises; with a floating type, the float wins).
uint16 = dtype("uint16", 2, 1, None)
uint32 = dtype("uint32", 4, 1, None)
uint64 = dtype("uint64", 8, 1, None)
WIDE_UINTS = (uint16, uint32, uint64)
# every dtype a tensor can hold (what a backend's dtype table covers)
TENSOR_DTYPES = ALL + WIDE_UINTS
# the dtype a Python type names where a dtype is expected (x.to(float), dtype=int)
PY_TYPES = {float: float64, int: int64, bool: bool_, complex: complex128}
ALIASES.update({d.name: d for d in WIDE_UINTS})

# the dtypes outside the promotion table, exported by name from mindtorch: the wide unsigned integers
# and the float8 formats (names programs compare against and finfo describes; no float8 tensors yet)
SHELL = {d.name: d for d in WIDE_UINTS}
SHELL.update(
    {
        n: dtype(n, size, kind, None)
        for n, size, kind in (
            ("float8_e4m3fn", 1, 2),
            ("float8_e4m3fnuz", 1, 2),
            ("float8_e5m2", 1, 2),
            ("float8_e5m2fnuz", 1, 2),
            ("float8_e8m0fnu", 1, 2),
        )
    }
)
_BY_NAME.update(SHELL)


def _by_name(name):
    return _BY_NAME[name]


# PyTorch's promote_types table over the ranks above.
_b, _u1, _i1, _i2, _i4, _i8, _f2, _bf, _f4, _f8, _c4, _c8 = ALL
_TABLE = [
    # b    u1   i1   i2   i4   i8   f2   bf   f4   f8   c4   c8
    [_b, _u1, _i1, _i2, _i4, _i8, _f2, _bf, _f4, _f8, _c4, _c8],  # b
    [_u1, _u1, _i2, _i2, _i4, _i8, _f2, _bf, _f4, _f8, _c4, _c8],  # u1
    [_i1, _i2, _i1, _i2, _i4, _i8, _f2, _bf, _f4, _f8, _c4, _c8],  # i1
    [_i2, _i2, _i2, _i2, _i4, _i8, _f2, _bf, _f4, _f8, _c4, _c8],  # i2
    [_i4, _i4, _i4, _i4, _i4, _i8, _f2, _bf, _f4, _f8, _c4, _c8],  # i4
    [_i8, _i8, _i8, _i8, _i8, _i8, _f2, _bf, _f4, _f8, _c4, _c8],  # i8
    [_f2, _f2, _f2, _f2, _f2, _f2, _f2, _f4, _f4, _f8, _c4, _c8],  # f2
    [_bf, _bf, _bf, _bf, _bf, _bf, _f4, _bf, _f4, _f8, _c4, _c8],  # bf
    [_f4, _f4, _f4, _f4, _f4, _f4, _f4, _f4, _f4, _f8, _c4, _c8],  # f4
    [_f8, _f8, _f8, _f8, _f8, _f8, _f8, _f8, _f8, _f8, _c8, _c8],  # f8
    [_c4, _c4, _c4, _c4, _c4, _c4, _c4, _c4, _c4, _c8, _c4, _c8],  # c4
    [_c8, _c8, _c8, _c8, _c8, _c8, _c8, _c8, _c8, _c8, _c8, _c8],  # c8
]
PROMOTE = {(a, b): _TABLE[a._rank][b._rank] for a in ALL for b in ALL}


def promote_types(a, b):
    got = PROMOTE.get((a, b))
    if got is None and a is b:
        return a
    if got is None:
        for u, f in ((a, b), (b, a)):  # a wide unsigned integer meets a floating type: the float
            if u._kind == 1 and f._kind == 2 and f._rank is not None:
                return f
        kind = "Float8 Types" if "float8" in a.name + b.name else "uint16, uint32, uint64 types"
        raise RuntimeError(f"Promotion for {kind} is not supported, attempted to promote {_cname(a)} and {_cname(b)}")
    return got


def _cname(d):
    """PyTorch's C++ scalar-type name (Float, UInt16, Float8_e4m3fn) for messages."""
    if d.name.startswith("float8"):
        return "F" + d.name[1:]
    return {
        "float32": "Float",
        "float64": "Double",
        "float16": "Half",
        "bfloat16": "BFloat16",
        "int64": "Long",
        "int32": "Int",
        "int16": "Short",
        "int8": "Char",
        "uint8": "Byte",
        "bool": "Bool",
        "complex64": "ComplexFloat",
        "complex128": "ComplexDouble",
    }.get(d.name, d.name.capitalize().replace("Uint", "UInt"))


# C++ element types, as some of PyTorch's messages spell them ("long int", "c10::Half")
_CPP_NAMES = {
    "float32": "float",
    "float64": "double",
    "float16": "c10::Half",
    "bfloat16": "c10::BFloat16",
    "int64": "long int",
    "int32": "int",
    "int16": "short int",
    "int8": "signed char",
    "uint8": "unsigned char",
    "bool": "bool",
    "complex64": "c10::complex<float>",
    "complex128": "c10::complex<double>",
}


def cpp_name(d):
    return _CPP_NAMES.get(d.name, d.name)


def tensor_type_name(d):
    """The legacy tensor type a CPU tensor of dtype d reports (torch.FloatTensor, torch.UInt32Tensor)."""
    return f"torch.{_cname(d)}Tensor"


# (bits, eps, max, tiny) of each floating format; IEEE-style ones are computed from (mantissa, exponent) bits
def _ieee(bits, mant, exp):
    return bits, 2.0**-mant, (2 - 2.0**-mant) * 2.0 ** (2 ** (exp - 1) - 1), 2.0 ** (2 - 2 ** (exp - 1))


_FLOAT_FORMATS = {
    "float16": _ieee(16, 10, 5),
    "bfloat16": _ieee(16, 7, 8),
    "float32": _ieee(32, 23, 8),
    "float64": _ieee(64, 52, 11),
    "float8_e5m2": _ieee(8, 2, 5),
    # the fn/fnuz formats give up infinities (and fnuz negative zero) for range
    "float8_e4m3fn": (8, 0.125, 448.0, 2.0**-6),
    "float8_e4m3fnuz": (8, 0.125, 240.0, 2.0**-7),
    "float8_e5m2fnuz": (8, 0.125, 57344.0, 2.0**-15),
    "float8_e8m0fnu": (8, 1.0, 2.0**127, 2.0**-127),
}


class finfo:
    """Machine limits of a floating dtype (torch.finfo); a complex dtype describes its real part."""

    def __init__(self, type=None):
        import math

        if type is None:
            type = get_default_dtype()
        if not isinstance(type, dtype):
            raise TypeError(f"finfo(): argument 'type' (position 1) must be torch.dtype, not {_tn(type)}")
        if type._kind < 2:
            raise TypeError(
                "torch.finfo() requires a floating point input type. Use torch.iinfo to handle 'torch.finfo'"
            )
        type = type.to_real()
        self.bits, self.eps, self.max, self.tiny = _FLOAT_FORMATS[type.name]
        # e8m0 has no sign bit: its smallest value is its tiny
        self.min = self.tiny if type.name == "float8_e8m0fnu" else -self.max
        self.smallest_normal = self.tiny
        self.resolution = 10.0 ** -math.floor(-math.log10(self.eps))
        self.dtype = type.name

    def __eq__(self, other):
        return isinstance(other, finfo) and self.dtype == other.dtype

    def __hash__(self):
        return hash(("finfo", self.dtype))

    def __repr__(self):
        return (
            f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
            f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})"
        )


class iinfo:
    """Machine limits of an integer dtype (torch.iinfo)."""

    def __init__(self, type):
        if not isinstance(type, dtype):
            raise TypeError(f"iinfo(): argument 'type' (position 1) must be torch.dtype, not {_tn(type)}")
        if type is bool_:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if type._kind != 1:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'")
        self.bits = type.itemsize * 8
        self.min = -(1 << (self.bits - 1)) if type.is_signed else 0
        self.max = (1 << (self.bits - 1)) - 1 if type.is_signed else (1 << self.bits) - 1
        self.dtype = type.name

    def __eq__(self, other):
        return isinstance(other, iinfo) and self.dtype == other.dtype

    def __hash__(self):
        return hash(("iinfo", self.dtype))

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"


# the C++ type PyTorch's checked conversion names when a number does not fit a dtype
_SCALAR_C_TYPES = {
    "uint8": "uint8_t",
    "int8": "int8_t",
    "int16": "int16_t",
    "int32": "int",
    "int64": "int64_t",
    "uint16": "uint16_t",
    "uint32": "uint32_t",
    "uint64": "uint64_t",
    "float16": "c10::Half",
    "bfloat16": "c10::BFloat16",
    "float32": "float",
    "float64": "double",
    "complex64": "c10::complex<float>",
    "complex128": "c10::complex<double>",
}


def check_fits(value, d):
    """RuntimeError when the number `value` does not fit dtype `d` by PyTorch's checked conversion (fill_,
    full, masked_fill, index_fill): an integer dtype takes the ints of its range, and an unsigned one also
    negatives down to -max (they wrap), and the finite floats within its range (truncated); a float dtype
    takes any number up to its max in magnitude, infinities and NaN; a complex number with an imaginary part
    fits complex dtypes only; bool takes anything."""
    if d is bool_ or isinstance(value, bool):
        return
    parts = (value.real, value.imag) if isinstance(value, complex) else (value,)
    if len(parts) == 2 and not d.is_complex:
        fits = parts[1] == 0 and _fits_real(parts[0], d)
    else:
        fits = all(_fits_real(v, d) for v in parts)
    if not fits:
        raise RuntimeError(f"value cannot be converted to type {_SCALAR_C_TYPES.get(d.name, d.name)} without overflow")


def _fits_real(v, d):
    if d._kind == 1:
        info = iinfo(d)
        if isinstance(v, int):
            return info.min <= v <= info.max or (info.min == 0 and -info.max <= v < 0)
        return math.isfinite(v) and info.min <= v <= info.max
    if isinstance(v, float) and not math.isfinite(v):
        return True
    fmax = finfo(d.to_real() if d.is_complex else d).max
    return -fmax <= v <= fmax  # Python compares an int with a float exactly


def _tn(obj):
    return type(obj).__name__


def can_cast(from_, to):
    """torch.can_cast: no casting to a lower category (float->int, non-bool->bool)."""
    return from_._kind <= to._kind


_state = {"default": float32}


def get_default_dtype():
    return _state["default"]


def set_default_dtype(d):
    if not isinstance(d, dtype) or d._kind != 2:
        raise TypeError("only floating-point types are supported as the default type")
    _state["default"] = d


def scalar_dtype(value):
    """The dtype a Python scalar takes when it stands alone (torch.tensor(3.0))."""
    t = type(value)
    if t is bool:
        return bool_
    if t is int:
        return int64
    if t is float:
        return _state["default"]
    if t is complex:
        return complex128 if _state["default"] is float64 else complex64
    # numpy scalars and the like
    name = getattr(getattr(value, "dtype", None), "name", None)
    if name in _BY_NAME:
        return _BY_NAME[name]
    if isinstance(value, bool):
        return bool_
    if isinstance(value, int):
        return int64
    if isinstance(value, float):
        return _state["default"]
    raise TypeError(f"unsupported scalar type {t.__name__}")


def _combine(higher, lower):
    # at::native::combine_categories
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher._kind == 3:
        return higher
    if lower._kind == 3:
        return higher.to_complex() if higher._kind == 2 else lower
    if higher._kind == 2:
        return higher
    if higher is bool_ or lower._kind == 2:
        return promote_types(higher, lower)
    return higher


def result_type(*operands):
    """PyTorch's result_type: dimensioned tensors, then 0-dim tensors, then Python scalars."""
    dim = zero = wrapped = None
    for x in operands:
        if x is None:
            continue
        d = getattr(x, "dtype", None)
        if d is not None and hasattr(x, "_shape"):
            if x._shape:
                dim = d if dim is None else promote_types(dim, d)
            else:
                zero = d if zero is None else promote_types(zero, d)
        else:
            d = scalar_dtype(x)
            if d._kind == 2:
                d = _state["default"]
            elif d._kind == 3:
                d = complex128 if _state["default"] is float64 else complex64
            wrapped = d if wrapped is None else promote_types(wrapped, d)
    return _combine(dim, _combine(zero, wrapped))
