"""Pointwise ops on the CPU backend, checked against NumPy / math (no PyTorch here)."""

import math

import mindtorch
import numpy as np
import pytest
from helpers import to_np
from mindtorch.plugins import OPS

X = np.array([[0.25, -1.5, 2.0], [3.5, -0.75, 1.0]])


def mk(v, dtype="float32"):
    return mindtorch.tensor(np.asarray(v).tolist(), dtype=getattr(mindtorch, dtype))


@pytest.mark.parametrize(
    "name,ref",
    [
        ("exp", np.exp),
        ("sin", np.sin),
        ("tanh", np.tanh),
        ("abs", np.abs),
        ("neg", np.negative),
        ("floor", np.floor),
        ("ceil", np.ceil),
        ("atan", np.arctan),
        ("expm1", np.expm1),
        ("square", np.square),
        ("sigmoid", lambda a: 1 / (1 + np.exp(-a))),
        ("relu", lambda a: np.maximum(a, 0)),
        ("erf", np.vectorize(math.erf)),
    ],
)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_unary_values(name, ref, dtype):
    r = getattr(mindtorch, name)(mk(X, dtype))
    assert r.dtype is getattr(mindtorch, dtype)
    np.testing.assert_allclose(to_np(r), ref(X), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", ["int32", "int64", "uint8", "bool"])
def test_integer_inputs_to_float_functions_use_default_dtype(dtype):
    t = mk([1, 2, 3], dtype)
    for name in ("exp", "sqrt", "sin", "sigmoid", "log1p", "reciprocal"):
        assert getattr(mindtorch, name)(t).dtype is mindtorch.float32
    mindtorch.set_default_dtype(mindtorch.float64)
    try:
        assert mindtorch.exp(t).dtype is mindtorch.float64
    finally:
        mindtorch.set_default_dtype(mindtorch.float32)


@pytest.mark.parametrize(
    "dtype,scalar,expected",
    [
        ("int32", 5, "int32"),
        ("int32", 1.5, "float32"),
        ("float16", 3, "float16"),
        ("uint8", True, "uint8"),
        ("bool", 2, "int64"),
        ("bool", 2.5, "float32"),
        ("int64", 2.0, "float32"),
        ("float64", 1, "float64"),
    ],
)
def test_weak_scalar_result_dtype(dtype, scalar, expected):
    t = mk([1, 0, 1], dtype)
    assert (t + scalar).dtype is getattr(mindtorch, expected)
    assert (scalar * t).dtype is getattr(mindtorch, expected)


def test_reflected_operators():
    t = mk([1.0, 2.0, 4.0])
    np.testing.assert_allclose(to_np(2 - t), [1.0, 0.0, -2.0])
    np.testing.assert_allclose(to_np(1 / t), [1.0, 0.5, 0.25])
    np.testing.assert_allclose(to_np(2**t), [2.0, 4.0, 16.0])
    np.testing.assert_allclose(to_np(7 // t), [7.0, 3.0, 1.0])
    np.testing.assert_allclose(to_np(7 % t), [0.0, 1.0, 3.0])
    i = mk([1, 2, 4], "int64")
    assert to_np(6 & i).tolist() == [0, 2, 4]
    assert to_np(1 | i).tolist() == [1, 3, 5]
    assert to_np(i << 1).tolist() == [2, 4, 8]
    assert to_np(~i).tolist() == [-2, -3, -5]


def test_integer_floor_semantics():
    a = mk([7, -7, 7, -7], "int64")
    b = mk([2, 2, -2, -2], "int64")
    assert to_np(a // b).tolist() == [7 // 2, -7 // 2, 7 // -2, -7 // -2]
    assert to_np(a % b).tolist() == [7 % 2, -7 % 2, 7 % -2, -7 % -2]
    assert to_np(mindtorch.fmod(a, b)).tolist() == [math.fmod(7, 2), math.fmod(-7, 2), 1, -1]
    assert to_np(mindtorch.div(a, b, rounding_mode="trunc")).tolist() == [3, -3, -3, 3]


def test_integer_overflow_wraps_like_c():
    t = mk([100, 120], "int8")
    assert (t + 100).dtype is mindtorch.int8
    assert to_np(t + 100).tolist() == [np.int8(-56), np.int8(-36)]


@pytest.mark.parametrize(
    "name,args",
    [
        ("add", (1,)),
        ("mul", (2.0,)),
        ("sub", (1,)),
        ("div", (2,)),
        ("exp", ()),
        ("clamp", (0.0, 1.0)),
        ("sigmoid", ()),
        ("relu", ()),
        ("pow", (2,)),
        ("lt", (1.0,)),
    ],
)
def test_inplace_matches_out_of_place(name, args):
    t = mk(X)
    expected = to_np(getattr(t, name)(*args)).astype(np.float32)
    r = getattr(t, name + "_")(*args)
    assert r is t
    np.testing.assert_allclose(to_np(t), expected, rtol=1e-6)


def test_inplace_into_view_updates_base():
    base = mk(X)
    row = base[0]
    row.mul_(10)
    np.testing.assert_allclose(to_np(base)[0], X[0] * 10, rtol=1e-6)
    np.testing.assert_allclose(to_np(base)[1], X[1], rtol=1e-6)


def test_noncontiguous_inputs():
    t = mk(X).t()
    np.testing.assert_allclose(to_np(t.exp()), np.exp(X.T), rtol=1e-6)
    np.testing.assert_allclose(to_np(t + t[:, :1]), X.T + X.T[:, :1], rtol=1e-6)


@pytest.mark.parametrize(
    "bad",
    [
        lambda: mk([1.0]) & mk([1.0]),
        lambda: mindtorch.bitwise_left_shift(mk([1.0]), 1),
        lambda: -mk([True], "bool"),
        lambda: mk([True], "bool") - mk([True], "bool"),
        lambda: mk([1, 2], "int64") ** -1,
        lambda: mk([1, 2], "int64") // 0,
        lambda: mindtorch.clamp(mk([1.0])),
        lambda: mindtorch.where(mk([1.0]), mk([1.0]), 0),
        lambda: mindtorch.gelu(mk([1, 2], "int64")),
        lambda: mk([1.0, 2.0]) + mk([1.0, 2.0, 3.0]),
    ],
)
def test_errors_are_runtime_errors(bad):
    with pytest.raises(RuntimeError):
        bad()


def test_type_errors():
    with pytest.raises(TypeError):
        mindtorch.add(mk([1.0]), "x")
    with pytest.raises(TypeError):
        mindtorch.maximum(mk([1.0]), 1.0)


def test_gradcheck_chain():
    a = mk([0.3, -0.8, 1.2], "float64").requires_grad_(True)
    b = mk([1.1, 0.4, -0.5], "float64").requires_grad_(True)
    f = lambda x, y: mindtorch.sigmoid(x * y) + mindtorch.atan2(x, y) - (x**2) / (y.abs() + 1) + 2**x
    assert mindtorch.autograd.gradcheck(f, (a, b))


def test_equal_allclose_return_python_bool():
    a = mk([1.0, 2.0])
    assert mindtorch.equal(a, a.clone()) is True
    assert mindtorch.allclose(a, a + 1e-9) is True
    assert mindtorch.allclose(a, a + 1) is False


@pytest.mark.parametrize("dtype", ["bool", "int32", "int64", "float32", "float64"])
@pytest.mark.parametrize("other", [-1.0, 0.0, -0.0, "tensor"])
def test_copysign_composite_agrees_with_the_kernel(dtype, other):
    # the composite is what a backend without a copysign kernel runs: it must give the cpu kernel's values
    x = (
        mindtorch.tensor([True, False] * 2)
        if dtype == "bool"
        else mindtorch.tensor([1, 0, -3, 2], dtype=getattr(mindtorch, dtype))
    )
    o = mindtorch.tensor([-1.0, 2.0, -0.0, 0.0]) if other == "tensor" else other
    composite = OPS["copysign"].composite(x, o)
    kernel = mindtorch.copysign(x, o)
    assert composite.dtype == kernel.dtype
    assert composite.tolist() == kernel.tolist()
    assert mindtorch.signbit(composite).tolist() == mindtorch.signbit(kernel).tolist()
