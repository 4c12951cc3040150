"""The chip capability table: one place that says what each Ascend chip family computes.

The family comes from `aclrtGetSocName()`. Which ACLNN operators a chip lacks comes from the operator table
(`optable.json`, generated from `docs/aclnnXxx.md` in hicann/ops-math and hicann/ops-nn): an operator whose
doc's product list marks the chip's product unsupported is missing there, and the dtypes an operator takes
on a chip are those its doc lists for its data parameter on the chip's product (OP_DTYPES). Kernels consult it before launching: an input
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

_ORDER = (D.float16, D.bfloat16, D.float32, D.float64, D.int8, D.uint8, D.int16, D.int32, D.int64, D.bool_)
# the docs' dtype names of the dtypes the backend holds
DOC_NAMES = {
    D.float32: "FLOAT",
    D.float16: "FLOAT16",
    D.bfloat16: "BFLOAT16",
    D.float64: "DOUBLE",
    D.int8: "INT8",
    D.uint8: "UINT8",
    D.int16: "INT16",
    D.int32: "INT32",
    D.int64: "INT64",
    D.bool_: "BOOL",
}
# the product of the docs' product lists (optable.PRODUCTS keys) each family's parts belong to; the
# Ascend910_93 parts of the 910B family are the A3 series (product()).
FAMILY_PRODUCT = {"910B": "910b", "910A": "910", "310P": "310p", "950": "950"}


@cache
def op_dtypes_by_product():
    """product -> ACLNN operator -> the dtypes of its data parameter (optable.data_param) its doc lists there;
    an operator whose doc states none on a product is absent from that product's map. Built on first use."""
    found = {}
    for p in (*FAMILY_PRODUCT.values(), "A3"):
        found[p] = {}
        for op in optable.ops():
            names = optable.self_dtypes(op, p)
            if names is not None:
                found[p][op] = frozenset(d for d, n in DOC_NAMES.items() if n in names)
    return found


@cache
def missing_by_product():
    """Operators each product lacks: those whose doc's product list marks them unsupported there. Built on
    first use, so `import mindtorch` does not parse optable.json."""
    return {
        p: frozenset(op for op in optable.ops() if not optable.supported(op, p))
        for p in (*FAMILY_PRODUCT.values(), "A3")
    }


def __getattr__(name):
    # MISSING_BY_PRODUCT (product -> ops), MISSING_OPS (family -> ops) and OP_DTYPES (family -> op -> dtypes
    # of its data parameter), computed on first access
    if name == "OP_DTYPES":
        return {fam: op_dtypes_by_product()[p] for fam, p in FAMILY_PRODUCT.items()}
    if name == "MISSING_BY_PRODUCT":
        return missing_by_product()
    if name == "MISSING_OPS":
        return {fam: missing_by_product()[p] for fam, p in FAMILY_PRODUCT.items()}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def family(soc=None):
    return _family(RUNTIME.soc_name() if soc is None else soc)


@cache  # the chip tables ask per op; a process sees a handful of names at most
def _family(soc):
    if soc.startswith("Ascend950"):
        return "950"
    if soc.startswith("Ascend310P"):
        return "310P"
    if soc == "Ascend910B" or soc.startswith(_LEGACY_910):
        return "910A"
    return "910B"  # Ascend910B<n>, Ascend910_93xx, or an unknown part: the 910B-class capabilities


def product(soc=None):
    """The product key of the operator docs' product lists that `soc` belongs to."""
    return _product(RUNTIME.soc_name() if soc is None else soc)


@cache
def _product(soc):
    return "A3" if soc.startswith("Ascend910_93") else FAMILY_PRODUCT[_family(soc)]


def native_fp32_cube(soc=None):
    """The cube multiplies float32 with KEEP_DTYPE (ops-nn matmul/common cube_util: 910B-class and Ascend950)."""
    return family(soc) in ("910B", "950")


def chip_dtypes(soc=None):
    return FAMILIES[family(soc)]


def op_dtypes(op, soc=None):
    """The dtypes `op` takes on `soc`'s product, per its doc (optable.json), that the chip holds; every dtype
    the chip holds where the doc states none."""
    found = op_dtypes_by_product()[product(soc)].get(op)
    return chip_dtypes(soc) if found is None else found & chip_dtypes(soc)


def supports(op, dtype, soc=None):
    return has_op(op, soc) and dtype in op_dtypes(op, soc)


def writes(op, dtype, soc=None):
    """`op` can write its result (optable.out_param) in `dtype` on `soc`'s product: the doc lists it there, or
    states nothing about that parameter."""
    param = optable.out_param(op)
    names = None if param is None else optable.dtypes(op, product(soc), param)
    held = dtype in chip_dtypes(soc)
    return has_op(op, soc) and held and (names is None or DOC_NAMES[dtype] in names)


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


_PASSED = set()  # (op, dtype) that check_dtype let through: a process sees one chip, kernels ask per call


def check_dtype(op, dtype, what):
    """The chip has operator `op` and `op` takes `dtype`: NotImplementedError naming the chip for an operator
    its family lacks, TypeError for a dtype the chip cannot hold, RuntimeError naming the dtypes `op` takes."""
    if (op, dtype) in _PASSED:
        return
    check_op(op, what)
    check_chip_dtype(dtype, f"aclnn{op}")
    if not supports(op, dtype):
        names = [str(d).replace("torch.", "") for d in _ORDER if d in op_dtypes(op)] or ["no dtype this chip holds"]
        listed = f"{', '.join(names[:-1])} and {names[-1]}" if len(names) > 1 else names[0]
        raise RuntimeError(
            f"\"{what}\" not implemented for '{dtype}' on npu ({RUNTIME.soc_name()}): aclnn{op} supports {listed}"
        )
    _PASSED.add((op, dtype))


def refusal(op, args, code):
    """The clear error for phase 1 of `op` refusing `args` with status `code`: DtypeRefused naming the first
    tensor whose dtype `op`'s doc does not list for its parameter on this chip's product (the operator's
    arguments follow its doc's parameters, as its header does); None when the table finds none."""
    from .runtime import DtypeRefused

    params = optable.ops().get(op, {}).get("params") or []
    for param, a in zip(params, args):
        dtype = getattr(a, "dtype", None) if hasattr(a, "_storage") else None
        names = optable.dtypes(op, product(), param) if dtype in DOC_NAMES else None
        why = None
        if dtype in DOC_NAMES and dtype not in chip_dtypes():
            why = f"aclnn{op}: {param} of {dtype} is not supported on {RUNTIME.soc_name()} (family {family()})"
        elif names is not None and DOC_NAMES[dtype] not in names:
            listed = ", ".join(n for n in names if n in DOC_NAMES.values()) or "none the backend holds"
            why = (
                f"aclnn{op}: {param} of {dtype} is not supported on {RUNTIME.soc_name()} (family {family()}): "
                f"{optable.ops()[op]['source']} lists {listed} there"
            )
        if why:
            detail = RUNTIME.rt.aclGetRecentErrMsg() if RUNTIME.rt is not None else None
            text = detail.decode(errors="replace").strip() if detail else ""
            return DtypeRefused(f"aclnn{op}GetWorkspaceSize", code, text, why)
    return None


def check_chip_dtype(dtype, what):
    """A dtype this chip cannot hold at all is a TypeError naming the chip (no silent widening)."""
    if (None, dtype) in _PASSED:
        return
    if dtype in chip_dtypes():
        _PASSED.add((None, dtype))
    else:
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
        "ops with narrower dtypes": sum(1 for op in optable.ops() if has_op(op) and op_dtypes(op) != chip_dtypes()),
        "ACLNN operators this chip lacks": ", ".join(sorted(missing_by_product()[product()])) or "none",
    }
