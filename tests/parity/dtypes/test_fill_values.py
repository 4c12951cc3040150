"""A number written into a tensor is converted as PyTorch's checked conversion does (fill_, full,
masked_fill, index_fill, fill_diagonal_): ints beyond an integer dtype's range, floats beyond a float dtype's max, NaN and infinities
into integer dtypes and complex numbers with an imaginary part into real dtypes are refused with PyTorch's
message; negative ints down to -max wrap into unsigned dtypes. Every form, dtype and value is compared with
PyTorch: the values written, or the error class and message."""

import numpy as np
import pytest
from helpers import torch_or_skip

torch = torch_or_skip()

import mindtorch as mt  # noqa: E402

VALUES = [300, -2, -255, -256, 2**40, -(2**40), 2.5, -1.5, 0.5, 255, True]
VALUES += [1e6, 1e39, 3.5e38, 70000.0, 65504.0, 65520.0, float("inf"), float("nan"), 1 + 1j, 2 + 0j, 2**63, -(2**63)]
DTYPES = ["uint8", "int8", "int16", "int32", "int64", "uint16", "uint32"]
DTYPES += ["float16", "bfloat16", "float32", "float64", "bool", "complex64"]
FORMS = {
    "fill_": lambda L, d, v: L.zeros(3, dtype=d).fill_(v),
    "full": lambda L, d, v: L.full((3,), v, dtype=d),
    "masked_fill": lambda L, d, v: L.zeros(3, dtype=d).masked_fill(L.tensor([True, False, True]), v),
    "masked_fill_": lambda L, d, v: L.zeros(3, dtype=d).masked_fill_(L.tensor([True, False, True]), v),
    "index_fill": lambda L, d, v: L.zeros(3, dtype=d).index_fill(0, L.tensor([1]), v),
    "index_fill_": lambda L, d, v: L.zeros(3, dtype=d).index_fill_(0, L.tensor([1]), v),
    "fill_diagonal_": lambda L, d, v: L.zeros(3, 2, dtype=d).fill_diagonal_(v, True),
}


def _outcome(lib, form, dtype, value):
    try:
        r = FORMS[form](lib, getattr(lib, dtype), value)
    except Exception as exc:  # the outcome compared is the error itself
        return type(exc).__name__, str(exc)
    wide = lib.complex128 if dtype.startswith("complex") else lib.bool if dtype == "bool" else lib.float64
    return "value", np.asarray(r.to(wide).tolist())


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("form", list(FORMS))
def test_a_written_number_is_converted_or_refused_as_pytorch_does(form, dtype):
    for value in VALUES:
        got, want = _outcome(mt, form, dtype, value), _outcome(torch, form, dtype, value)
        assert got[0] == want[0], (value, got, want)
        if got[0] == "value":
            np.testing.assert_array_equal(got[1], want[1], err_msg=repr(value))
        else:
            assert got[1] == want[1], value


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64", "complex64", "complex128"])
def test_ints_past_int64_become_a_float_tensor_as_pytorch_makes_them(dtype):
    for data in (2**63, -(2**63) - 1, 2**64, [2**63, 1], [[1, -(2**70)]]):
        got, want = (L.tensor(data, dtype=getattr(L, dtype)) for L in (mt, torch))
        assert str(got.dtype) == str(want.dtype)
        wide = mt.complex128 if dtype.startswith("complex") else mt.float64
        np.testing.assert_array_equal(got.to(wide).numpy(), want.to(getattr(torch, str(wide).split(".")[1])).numpy())


@pytest.mark.parametrize("dtype", ["int64", "uint32", "uint64", "int8"])
def test_ints_past_a_dtype_refused_by_tensor_as_pytorch_does(dtype):
    for data in (2**63, 2**64 - 1, 2**64, -1, -(2**63) - 1, [1, 2**64], [[2**70]], [2**64, -1], [-1, 2**64]):
        got, want = (_made(L, data, dtype) for L in (mt, torch))
        assert got[0] == want[0], (data, got, want)
        if got[0] == "value":
            assert got[1] == want[1], data
        else:
            assert got[1] == want[1], data


def _made(lib, data, dtype):
    try:
        return "value", lib.tensor(data, dtype=getattr(lib, dtype)).tolist()
    except Exception as exc:  # the outcome compared is the error itself
        return type(exc).__name__, str(exc)
