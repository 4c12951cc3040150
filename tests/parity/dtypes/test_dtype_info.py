"""finfo / iinfo and the dtypes PyTorch names without promotion (uint16/32/64, float8)."""

from helpers import torch_or_skip

torch = torch_or_skip()

import mindtorch  # noqa: E402
import pytest  # noqa: E402

FLOATS = [
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "complex64",
    "complex128",
    "float8_e4m3fn",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
    "float8_e8m0fnu",
]
INTS = ["uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64"]
ALL = FLOATS + INTS + ["bool"]


def _info(lib, kind, name):
    try:
        info = getattr(lib, kind)(getattr(lib, name))
    except Exception as e:
        return type(e), str(e)
    fields = ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype")
    return {f: getattr(info, f) for f in fields if hasattr(info, f)}, repr(info)


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("kind", ["finfo", "iinfo"])
def test_info(kind, name):
    mt, th = _info(mindtorch, kind, name), _info(torch, kind, name)
    assert mt == th
    if isinstance(th[0], dict):
        for v in th[0].values():  # exact Python types too (ints stay ints)
            assert type(v) in (int, float, str)
        assert {k: type(v) for k, v in mt[0].items()} == {k: type(v) for k, v in th[0].items()}


def test_finfo_default_and_bad_argument():
    assert repr(mindtorch.finfo()) == repr(torch.finfo())
    mindtorch.set_default_dtype(mindtorch.float64)
    try:
        assert mindtorch.finfo().dtype == "float64"
    finally:
        mindtorch.set_default_dtype(mindtorch.float32)
    for bad in ("float32", 3):
        with pytest.raises(TypeError) as th:
            torch.finfo(bad)
        with pytest.raises(TypeError) as mt:
            mindtorch.finfo(bad)
        assert str(mt.value) == str(th.value)
    assert mindtorch.finfo(mindtorch.float32) == mindtorch.finfo(mindtorch.complex64)
    assert mindtorch.iinfo(mindtorch.int8) != mindtorch.iinfo(mindtorch.uint8)


@pytest.mark.parametrize("name", ["uint16", "uint32", "uint64", "float8_e4m3fn", "float8_e5m2", "float8_e8m0fnu"])
def test_shell_dtype_attributes(name):
    mt, th = getattr(mindtorch, name), getattr(torch, name)
    assert repr(mt) == repr(th)
    for attr in ("itemsize", "is_floating_point", "is_complex", "is_signed"):
        assert getattr(mt, attr) == getattr(th, attr), attr


SHELL = ["uint16", "uint32", "uint64", "float8_e4m3fn", "float8_e5m2"]


@pytest.mark.parametrize("a", SHELL)
@pytest.mark.parametrize("b", SHELL + ["bool", "uint8", "int64", "float16", "bfloat16", "float64", "complex64"])
def test_shell_dtype_promotion_as_pytorch(a, b):
    for x, y in ((a, b), (b, a)):
        try:
            th = torch.promote_types(getattr(torch, x), getattr(torch, y))
        except RuntimeError as e:
            with pytest.raises(RuntimeError) as mt:
                mindtorch.promote_types(getattr(mindtorch, x), getattr(mindtorch, y))
            assert str(mt.value) == str(e)
            continue
        assert repr(mindtorch.promote_types(getattr(mindtorch, x), getattr(mindtorch, y))) == repr(th)
