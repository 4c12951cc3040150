"""Torch-free tests of dtypes, type promotion and devices (expected values from PyTorch's documented rules)."""

import mindtorch as torch
import pytest

T = torch.tensor


def _t(dtype, zero_dim=False, value=1):
    return T(value if zero_dim else [value], dtype=dtype)


# (lhs, rhs, expected result dtype of lhs + rhs)
PROMOTION = [
    (lambda: _t(torch.int8), lambda: _t(torch.uint8), torch.int16),
    (lambda: _t(torch.bool), lambda: _t(torch.int64), torch.int64),
    (lambda: _t(torch.int32), lambda: 5, torch.int32),
    (lambda: _t(torch.int64), lambda: 1.5, torch.float32),
    (lambda: _t(torch.float16, value=1.0), lambda: 3, torch.float16),
    (lambda: _t(torch.float16, value=1.0), lambda: _t(torch.bfloat16, value=1.0), torch.float32),
    (lambda: _t(torch.float64, True, 1.0), lambda: _t(torch.float32, value=1.0), torch.float32),
    (lambda: _t(torch.bool), lambda: _t(torch.bool), torch.bool),
    (lambda: _t(torch.bool), lambda: 1, torch.int64),
    (lambda: _t(torch.bool), lambda: 1.5, torch.float32),
    (lambda: _t(torch.int8), lambda: _t(torch.int64, True), torch.int8),
    (lambda: _t(torch.int8), lambda: _t(torch.float64, True, 1.0), torch.float64),
    (lambda: _t(torch.uint8), lambda: _t(torch.int8, True, -1), torch.uint8),
    (lambda: _t(torch.int32), lambda: 2**40, torch.int32),
    (lambda: _t(torch.float16, value=1.0), lambda: _t(torch.float64, True, 1.0), torch.float16),
    (lambda: _t(torch.int32), lambda: 1j, torch.complex64),
]


@pytest.mark.parametrize("i", range(len(PROMOTION)))
def test_add_promotion_table(i):
    lhs, rhs, expected = PROMOTION[i]
    a, b = lhs(), rhs()
    assert (a + b).dtype is expected
    assert torch.result_type(a, b) is expected


def test_uint8_plus_int8_scalar_tensor_wraps_like_c():
    r = _t(torch.uint8, value=1) + _t(torch.int8, True, -2)
    assert r.dtype is torch.uint8 and r.tolist() == [255]


def test_division_and_floor_division_dtypes():
    i8 = _t(torch.int8, value=3)
    assert (i8 / i8).dtype is torch.float32
    assert (_t(torch.int32, value=7) // 2).dtype is torch.int32


def test_promote_types_and_can_cast():
    assert torch.promote_types(torch.uint8, torch.int8) is torch.int16
    assert torch.promote_types(torch.bfloat16, torch.float16) is torch.float32
    assert torch.promote_types(torch.int64, torch.float16) is torch.float16
    assert torch.result_type(T([1]), 1.0) is torch.float32
    assert not torch.can_cast(torch.float32, torch.int32)
    assert torch.can_cast(torch.int32, torch.float32)


def test_comparison_uses_promoted_dtype():
    # int64 vs float32 compares in float32: 16777217 rounds to 16777216
    a, b = T([16777217]), T([16777216.0])
    assert (a == b).tolist() == [True]
    assert (a > b).tolist() == [False]
    assert (a != b).tolist() == [False]
    assert (a == b).dtype is torch.bool


@pytest.mark.parametrize(
    "d, flt, cplx, signed, size, name",
    [
        (torch.float32, True, False, True, 4, "torch.float32"),
        (torch.float16, True, False, True, 2, "torch.float16"),
        (torch.bfloat16, True, False, True, 2, "torch.bfloat16"),
        (torch.int64, False, False, True, 8, "torch.int64"),
        (torch.bool, False, False, False, 1, "torch.bool"),
        (torch.complex64, False, True, True, 8, "torch.complex64"),
        (torch.uint8, False, False, False, 1, "torch.uint8"),
    ],
)
def test_dtype_attributes(d, flt, cplx, signed, size, name):
    assert d.is_floating_point is flt
    assert d.is_complex is cplx
    assert d.is_signed is signed
    assert d.itemsize == size
    assert repr(d) == name and str(d) == name


def test_dtype_aliases():
    assert torch.float is torch.float32 and torch.long is torch.int64 and torch.half is torch.float16
    assert torch.double is torch.float64 and torch.int is torch.int32 and torch.short is torch.int16
    assert torch.get_default_dtype() is torch.float32


def test_device_parsing():
    d = torch.device("cpu")
    assert repr(d) == "device(type='cpu')" and str(d) == "cpu" and d.type == "cpu" and d.index is None
    d0 = torch.device("cpu:0")
    assert repr(d0) == "device(type='cpu', index=0)" and str(d0) == "cpu:0" and d0.index == 0
    assert repr(torch.device("cpu", 1)) == "device(type='cpu', index=1)"
    assert torch.device("cpu") == torch.device("cpu")
    assert torch.device("cpu") != torch.device("cpu:0")
    assert torch.device(d0) is d0
    assert hash(torch.device("cpu:0")) == hash(torch.device("cpu", 0))


@pytest.mark.parametrize(
    "bad, msg",
    [
        ("cpu:-1", "Invalid device string: 'cpu:-1'"),
        ("cpu:a", "Invalid device string: 'cpu:a'"),
        ("", "Device string must not be empty"),
    ],
)
def test_device_parsing_errors(bad, msg):
    with pytest.raises(RuntimeError, match=msg.replace("(", r"\(")):
        torch.device(bad)


def test_device_index_in_string_and_argument():
    with pytest.raises(RuntimeError, match="type \\(string\\) must not include an index because index was passed"):
        torch.device("cpu:0", 0)


def test_tensor_device():
    assert T([1]).device == torch.device("cpu")
    assert T([1]).device.type == "cpu"


def test_device_objects_are_canonical_however_spelled():
    """Dispatch compares devices by identity: "npu:1" and ("npu", 1) must be the same object."""
    assert torch.device("npu:1") is torch.device("npu", 1) is torch.device(torch.device("npu:1"))
    assert torch.device("xla", 0) is torch.device("xla:0")
    assert torch.device("npu") is not torch.device("npu:0") and torch.device("npu").index is None
