"""The chip capability table: one place that says what each Ascend chip family computes.

The family comes from `aclrtGetSocName()`. Which ACLNN operators a chip lacks comes from the operator table
(`optable.json`, generated from `docs/aclnnXxx.md` in hicann/ops-math and hicann/ops-nn): an operator whose
doc's product list marks the chip's product unsupported is missing there. Dtypes per ACLNN operator
(OP_DTYPES: the `self` row for 910B-class parts, and the notes there that training-series (910A) and
inference-series (310P) parts lack BFLOAT16) are kept here. Kernels consult it before launching: an input
the operator does not take is cast on the device to one it does (and the result cast back), a dtype the chip
cannot hold at all is a clear error, and so is an operator the chip lacks.
"""

from functools import cache

from mindtorch.plugins import dtypes as D

from . import optable
from .state import RUNTIME

_ALL = frozenset((D.float32, D.float16, D.bfloat16, D.float64, D.int8, D.uint8, D.int16, D.int32, D.int64, D.bool_))
_NO_BF16 = _ALL - {D.bfloat16}

# family -> dtypes the chip holds. The family of a SoC name follows torch_npu's SoC table (NpuVariables.h):
# "Ascend910B1".."Ascend910B4-1" and "Ascend910_93xx" are 910B-class (BFLOAT16, float32 cube); the legacy
# "Ascend910B" sits with the 910A parts below Ascend910B1 (neither); "Ascend950*" is a family of its own.
FAMILIES = {
    "910B": _ALL,
    "910A": _NO_BF16,
    "310P": _NO_BF16,
    "950": _ALL,
}
_LEGACY_910 = ("Ascend910A", "Ascend910ProA", "Ascend910ProB", "Ascend910PremiumA")

_F = frozenset((D.float32, D.float16, D.bfloat16))
_ORDER = (D.float16, D.bfloat16, D.float32, D.float64, D.int8, D.uint8, D.int16, D.int32, D.int64, D.bool_)
_FD = _F | {D.float64}
_I = frozenset((D.int8, D.int32, D.int64))
# ACLNN operator -> dtypes of `self` it takes (910B-class); operators not listed take every dtype of the chip
OP_DTYPES = {
    "Exp": _FD | {D.int64, D.bool_},
    "Expm1": _F | {D.int64, D.bool_},
    "Asin": _ALL - {D.bfloat16},
    "Acos": _ALL - {D.bfloat16},
    "Cosh": frozenset((D.float32, D.float16, D.float64)),
    "Tanh": _ALL - {D.float64},
    "Erf": frozenset((D.float32, D.float16, D.float64, D.int64, D.bool_)),
    "Sigmoid": _F,
    "Gelu": _F,
    "GeluV2": _F,
    "Silu": _F,
    "Frac": _F,
    "Neg": _FD | _I,
    "Relu": _F | _I,
    "Floor": (_FD | _I | {D.int16, D.uint8}) - {D.bfloat16},
    "Ceil": _FD,
    "Round": _FD | {D.int32, D.int64},
    "RoundDecimals": _FD | {D.int32, D.int64},
    "InplaceRoundDecimals": _FD | {D.int32, D.int64},
    "Trunc": _ALL - {D.bool_},
    "Softmax": _FD,
    "LogSoftmax": _FD,
    "Mean": _FD,
    "Matmul": _F,
    "Mm": _F,
    "BatchMatMul": _F,
    "Erfinv": _ALL - {D.float64},
    "Square": _F | {D.int32, D.int64},
    "Mish": _F,
    "NLLLoss": _F,
    "NLLLossBackward": _F,
    "SearchSorted": _ALL - {D.bfloat16, D.bool_},
    "Lgamma": frozenset((D.float32, D.float16, D.float64)),
    "Digamma": _FD,
    "LogSumExp": _ALL - {D.float64},
    "VarCorrection": _F,
    "Std": _F,
    "LinalgVectorNorm": _F,
    "Elu": _F,
    "LinalgCholesky": frozenset((D.float32, D.bfloat16)),
    "Slogdet": frozenset((D.float32, D.float64)),
    "LinalgQr": frozenset((D.float32, D.float16, D.float64)),
    "TriangularSolve": frozenset((D.float32, D.float64)),
    "Svd": frozenset((D.float32, D.float64)),
    "Mv": _F,
    "Dot": _F,
}
# ops-nn's NCHW operators and the foreach operators all take float16, bfloat16 and float32 (their docs)
OP_DTYPES.update(
    dict.fromkeys(
        (
            "Convolution",
            "ConvolutionBackward",
            "MaxPool2dWithIndices",
            "MaxPool2dWithIndicesBackward",
            "AvgPool2d",
            "AvgPool2dBackward",
            "AdaptiveAvgPool2d",
            "AdaptiveAvgPool2dBackward",
            "BatchNorm",
            "BatchNormBackward",
            "GroupNorm",
            "GroupNormBackward",
            "ForeachMulScalarV2",
            "ForeachDivScalarV2",
            "ForeachAddScalarV2",
            "ForeachSqrt",
            "ForeachLerpScalar",
            "ForeachAddcmulScalarV2",
            "ForeachAddcdivScalarV2",
        ),
        _F,
    )
)
# operators whose docs list fewer dtypes than "every dtype" (the `self` / `out` row, hicann/ops-math and ops-nn):
# integer-only bit operators, no BOOL for the arg-extremes, Topk and the clamp family with tensor bounds
_INTS = frozenset((D.int8, D.uint8, D.int16, D.int32, D.int64))
OP_DTYPES.update(
    {
        "BitwiseNot": _INTS | {D.bool_},
        "Gcd": _INTS,
        "LeftShift": _INTS,
        "LeftShifts": _INTS,
        "RightShift": _INTS,
        "ArgMax": _ALL - {D.bool_},
        "ArgMin": _ALL - {D.bool_},
        "Topk": _ALL - {D.bool_},
        "Multinomial": _FD,
        "Randperm": _ALL - {D.bool_},
        "PowScalarTensor": _ALL - {D.bool_},
        "InplaceUniform": _ALL - {D.bool_},
        "Lerp": _F,
        "Lerps": _F,
        "InplaceLerp": _F,
        "InplaceLerps": _F,
        "LeakyRelu": _F,
        "InplaceLeakyRelu": _FD,
        "Softplus": _F,
        "LayerNorm": _F,
        "LayerNormBackward": _F,
        "InplaceElu": _FD,
        "FmodScalar": _ALL - {D.bool_, D.int16},
        "FmodTensor": _ALL - {D.bool_, D.int16},
        "InplaceFmodScalar": _ALL - {D.bool_, D.int16},
        "InplaceFmodTensor": _ALL - {D.bool_, D.int16},
        "RemainderTensorScalar": _FD | {D.int32, D.int64},
        "InplaceRemainderTensorScalar": _FD | {D.int32, D.int64},
        "Addcmul": _ALL - {D.bool_, D.int16},
        "InplaceAddcmul": _ALL - {D.bool_, D.int16},
        "Addcdiv": _FD | {D.int64},
        "InplaceAddcdiv": _FD | {D.int64},
        "Arange": _FD | {D.int32, D.int64},
        "Linspace": _ALL - {D.bool_, D.int64},
        "EmbeddingDenseBackward": _F,
    }
)
OP_DTYPES.update(
    dict.fromkeys(
        (
            "BitwiseAndTensor",
            "BitwiseOrTensor",
            "BitwiseXorTensor",
            "InplaceBitwiseAndTensor",
            "InplaceBitwiseOrTensor",
            "InplaceBitwiseXorTensor",
        ),
        _INTS | {D.bool_},
    )
)
OP_DTYPES.update(
    dict.fromkeys(
        (
            "ClampMin",
            "ClampMax",
            "InplaceClampMax",
            "ClampTensor",
            "ClampMinTensor",
            "InplaceClampMinTensor",
            "ClampMaxTensor",
            "InplaceClampMaxTensor",
            "Hardtanh",
            "InplaceHardtanh",
        ),
        _ALL - {D.bool_},
    )
)
# 910B-class parts take float32 gradients only (docs/aclnnMaxPool2dWithIndicesBackward.md, Atlas A2 / A3)
OP_DTYPES["MaxPool2dWithIndicesBackward"] = frozenset((D.float32,))
# the product of the docs' product lists (optable.PRODUCTS keys) each family's parts belong to; the
# Ascend910_93 parts of the 910B family are the A3 series (product()).
FAMILY_PRODUCT = {"910B": "910b", "910A": "910", "310P": "310p", "950": "950"}


@cache
def missing_by_product():
    """Operators each product lacks: those whose doc's product list marks them unsupported there. Built on
    first use, so `import mindtorch` does not parse optable.json."""
    return {
        p: frozenset(op for op in optable.ops() if not optable.supported(op, p))
        for p in (*FAMILY_PRODUCT.values(), "A3")
    }


def __getattr__(name):
    # MISSING_BY_PRODUCT (product -> ops) and MISSING_OPS (family -> ops), computed on first access
    if name == "MISSING_BY_PRODUCT":
        return missing_by_product()
    if name == "MISSING_OPS":
        return {fam: missing_by_product()[p] for fam, p in FAMILY_PRODUCT.items()}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def family(soc=None):
    soc = RUNTIME.soc_name() if soc is None else soc
    if soc.startswith("Ascend950"):
        return "950"
    if soc.startswith("Ascend310P"):
        return "310P"
    if soc == "Ascend910B" or soc.startswith(_LEGACY_910):
        return "910A"
    return "910B"  # Ascend910B<n>, Ascend910_93xx, or an unknown part: the 910B-class capabilities


def product(soc=None):
    """The product key of the operator docs' product lists that `soc` belongs to."""
    soc = RUNTIME.soc_name() if soc is None else soc
    return "A3" if soc.startswith("Ascend910_93") else FAMILY_PRODUCT[family(soc)]


def native_fp32_cube(soc=None):
    """The cube multiplies float32 with KEEP_DTYPE (ops-nn matmul/common cube_util: 910B-class and Ascend950)."""
    return family(soc) in ("910B", "950")


def chip_dtypes(soc=None):
    return FAMILIES[family(soc)]


def op_dtypes(op):
    """The dtypes `op` takes on 910B-class parts; an in-place form not listed takes what its out-of-place form does."""
    found = OP_DTYPES.get(op)
    if found is None and op.startswith("Inplace"):
        found = OP_DTYPES.get(op[len("Inplace") :])
    return _ALL if found is None else found


def supports(op, dtype, soc=None):
    if not has_op(op, soc) or dtype not in FAMILIES[family(soc)]:
        return False
    return dtype in op_dtypes(op)


def has_op(op, soc=None):
    return op not in missing_by_product()[product(soc)]


def check_op(op, what):
    """An operator this chip's product lacks is NotImplementedError naming the op, npu, the chip and the doc
    that says so."""
    if not has_op(op):
        doc = optable.ops().get(op, {}).get("source")
        raise NotImplementedError(
            f"{what}: aclnn{op} is not available on {RUNTIME.soc_name()} (family {family()}): it is not supported "
            f"on product '{product()}' per {doc}, so this op has no npu path on this chip"
        )


def check_dtype(op, dtype, what):
    """The chip has operator `op` and `op` takes `dtype`: NotImplementedError naming the chip for an operator
    its family lacks, TypeError for a dtype the chip cannot hold, RuntimeError naming the dtypes `op` takes."""
    check_op(op, what)
    check_chip_dtype(dtype, f"aclnn{op}")
    if not supports(op, dtype):
        names = [str(d).replace("torch.", "") for d in _ORDER if d in op_dtypes(op)]
        listed = f"{', '.join(names[:-1])} and {names[-1]}" if len(names) > 1 else names[0]
        raise RuntimeError(
            f"\"{what}\" not implemented for '{dtype}' on npu ({RUNTIME.soc_name()}): aclnn{op} supports {listed}"
        )


def check_chip_dtype(dtype, what):
    """A dtype this chip cannot hold at all is a TypeError naming the chip (no silent widening)."""
    if dtype not in chip_dtypes():
        raise TypeError(
            f"{what}: {dtype} is not supported on {RUNTIME.soc_name()} (family {family()}); "
            f"this chip holds {', '.join(sorted(str(d) for d in chip_dtypes()))}"
        )


def compute_dtype(op, dtype, result):
    """The dtype to feed `op` for an input of `dtype` whose result is `result`: the input's own when the op
    takes it, else the result's (an int input of a float op), else a wider one of the same kind. Never a
    narrower one: float64 through float32 would silently lose precision, so that is a TypeError instead.
    An operator the chip lacks altogether is NotImplementedError (check_op)."""
    check_op(op, f"aclnn{op}")
    if supports(op, dtype):
        return dtype
    if result.is_floating_point or dtype.is_floating_point:
        candidates = (result, D.float32) if result.is_floating_point else (D.float32,)
    else:
        candidates = (D.int64, D.int32)
    for c in candidates:
        if supports(op, c) and (not dtype.is_floating_point or c.itemsize >= dtype.itemsize):
            return c
    raise TypeError(
        f"aclnn{op} does not take {dtype} on {RUNTIME.soc_name()} (family {family()}) "
        "and no dtype it takes holds these values without loss"
    )


def info():
    fam = family()
    return {
        "family": fam,
        "dtypes": ", ".join(sorted(str(d).replace("mindtorch.", "") for d in chip_dtypes())),
        "ops with narrower dtypes": len(OP_DTYPES),
        "ACLNN operators this chip lacks": ", ".join(sorted(missing_by_product()[product()])) or "none",
    }
