"""Type promotion, result_type, can_cast and dtype attributes vs PyTorch."""

from helpers import torch_or_skip

torch = torch_or_skip()

import itertools  # noqa: E402

import mindtorch as mt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from helpers import assert_same, results_or_same_error  # noqa: E402

NAMES = [
    "bool",
    "uint8",
    "int8",
    "int16",
    "int32",
    "int64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "complex64",
    "complex128",
]


@pytest.mark.parametrize("a", NAMES)
def test_promote_types_all_pairs(a):
    for b in NAMES:
        assert str(mt.promote_types(getattr(mt, a), getattr(mt, b))) == str(
            torch.promote_types(getattr(torch, a), getattr(torch, b))
        ), (a, b)


@pytest.mark.parametrize("a", NAMES)
def test_can_cast_all_pairs(a):
    for b in NAMES:
        assert mt.can_cast(getattr(mt, a), getattr(mt, b)) == torch.can_cast(getattr(torch, a), getattr(torch, b))


SCALARS = [True, 2, 2.5, 1 + 1j]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("scalar", SCALARS)
@pytest.mark.parametrize("zero_dim", [False, True])
def test_result_type_with_weak_scalars(name, scalar, zero_dim):
    if name == "float16" and isinstance(scalar, complex):
        pytest.skip("complex32 is not a mindtorch dtype")
    shape = () if zero_dim else (2,)
    m = mt.zeros(shape, dtype=getattr(mt, name))
    t = torch.zeros(shape, dtype=getattr(torch, name))
    assert str(mt.result_type(m, scalar)) == str(torch.result_type(t, scalar))


@pytest.mark.parametrize(
    "a,b", list(itertools.product(["int8", "uint8", "int64", "float16", "float64", "bool"], repeat=2))
)
def test_result_type_zero_dim_vs_dimensioned(a, b):
    m = mt.result_type(mt.zeros(2, dtype=getattr(mt, a)), mt.zeros((), dtype=getattr(mt, b)))
    t = torch.result_type(torch.zeros(2, dtype=getattr(torch, a)), torch.zeros((), dtype=getattr(torch, b)))
    assert str(m) == str(t)


@pytest.mark.parametrize("name", NAMES)
def test_dtype_attributes(name):
    m, t = getattr(mt, name), getattr(torch, name)
    assert repr(m) == repr(t) and str(m) == str(t)
    assert m.itemsize == t.itemsize
    assert m.is_floating_point == t.is_floating_point and m.is_complex == t.is_complex
    assert m.is_signed == t.is_signed


@pytest.mark.parametrize("alias", ["half", "float", "double", "short", "int", "long", "cfloat", "cdouble"])
def test_dtype_aliases(alias):
    assert str(getattr(mt, alias)) == str(getattr(torch, alias))


def test_default_dtype_in_result_type():
    mt.set_default_dtype(mt.float64)
    try:
        assert mt.result_type(mt.zeros(2, dtype=mt.int32), 2.5) is mt.float64
        assert mt.result_type(mt.zeros(2, dtype=mt.float16), 2.5) is mt.float16
    finally:
        mt.set_default_dtype(mt.float32)


@pytest.mark.parametrize("spec", ["cpu", "meta", "npu:1", "cpu:0", "npu", "cuda:3"])
def test_device_parsing(spec):
    # torch only knows "npu" with torch_npu installed: compare with the same string on cuda
    m, t = mt.device(spec), torch.device(spec.replace("npu", "cuda"))
    assert m.type == t.type.replace("cuda", "npu") if "npu" in spec else m.type == t.type
    assert m.index == t.index
    assert str(m) == str(t).replace("cuda", "npu" if "npu" in spec else "cuda")
    assert repr(m) == repr(t).replace("cuda", "npu" if "npu" in spec else "cuda")
    assert m == spec


@pytest.mark.parametrize("spec", ["cpu:-1", "npu:x", "", "npu:1:2", "1"])
def test_device_errors(spec):
    with pytest.raises(RuntimeError):
        torch.device(spec)
    with pytest.raises(RuntimeError):
        mt.device(spec)


def test_device_type_and_index_args():
    assert mt.device("npu", 2) == mt.device("npu:2")
    assert repr(mt.device("npu", 2)) == repr(torch.device("cuda", 2)).replace("cuda", "npu")
    with pytest.raises(TypeError):
        mt.device(1.5)


@pytest.mark.parametrize("shape", [(), (3,), (2, 0, 4)])
def test_size_repr(shape):
    assert repr(mt.Size(shape)) == repr(torch.Size(shape))
    assert repr(mt.zeros(shape).shape) == repr(torch.zeros(shape).shape)
    assert mt.Size(shape).numel() == torch.Size(shape).numel()
    assert isinstance(mt.zeros(shape).shape[:1], mt.Size)


@pytest.mark.parametrize("op", ["eq", "ne", "lt", "le", "gt", "ge"])
@pytest.mark.parametrize(
    "da, db",
    [
        ("int64", "float32"),
        ("int32", "float16"),
        ("int64", "bfloat16"),
        ("float64", "float32"),
        ("uint8", "int8"),
        ("bool", "float32"),
    ],
)
def test_comparison_in_promoted_dtype(op, da, db):
    a = np.array([16777217, 2049, 257, -1, 0, 1], dtype=np.int64)
    b = np.array([16777216.0, 2048.0, 256.0, 255.0, 0.0, 1.0])

    def run(L):
        x = L.tensor(a.tolist()).to(getattr(L, da))
        y = L.tensor(b.tolist()).to(getattr(L, db))
        return getattr(L, op)(x, y), getattr(L, op)(y, x), getattr(L, op)(x, y[0])

    mt, th = results_or_same_error(run)
    assert_same(list(mt), list(th))
