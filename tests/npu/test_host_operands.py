"""What programs written for cuda do with an npu tensor, against PyTorch on the CPU: index it with cpu
index tensors and masks (moved to the tensor's device, as cuda does), take sign of NaN (0), and meet a
dtype the chip cannot hold (a TypeError naming the dtype, the device and the chip, never ACL's NULL)."""

import mindtorch as torch
import numpy as np
import pytest

pt = pytest.importorskip("torch")  # the oracle

MASK = [True, False, True, False, True, False]


def _base(lib):
    return lib.arange(6.0).reshape(2, 3)


# name -> fn(lib, x): x is the indexed tensor, every index tensor is made on the cpu
READS = {
    "long": lambda lib, x: x[lib.tensor([1, 0, 1])],
    "int32": lambda lib, x: x[lib.tensor([1, 0], dtype=lib.int32)],
    "two dims": lambda lib, x: x[lib.tensor([0, 1]), lib.tensor([2, 0])],
    "mask": lambda lib, x: x.reshape(-1)[lib.tensor(MASK)],
    "row mask": lambda lib, x: x[lib.tensor([False, True])],
    "with a slice": lambda lib, x: x[:, lib.tensor([2, 1])],
}


def _write_index(lib, x):
    x[lib.tensor([1]), lib.tensor([2])] = 9.0
    return x


def _write_mask(lib, x):
    x.reshape(-1)[lib.tensor(MASK)] = -1.0
    return x


def _write_tensor_value(lib, x):
    x[lib.tensor([0])] = lib.full((1, 3), 5.0)
    return x


WRITES = {"index": _write_index, "mask": _write_mask, "tensor value": _write_tensor_value}


@pytest.mark.parametrize("name", sorted(READS))
def test_cpu_index_reads_an_npu_tensor(name):
    got = READS[name](torch, _base(torch).to("npu"))
    assert got.device.type == "npu"
    np.testing.assert_array_equal(got.cpu().numpy(), READS[name](pt, _base(pt)).numpy())


@pytest.mark.parametrize("name", sorted(WRITES))
def test_cpu_index_writes_an_npu_tensor(name):
    x = _base(torch).to("npu")
    if name == "tensor value":  # the value is on the device too, as in a cuda program
        x[torch.tensor([0])] = torch.full((1, 3), 5.0).to("npu")
    else:
        WRITES[name](torch, x)
    np.testing.assert_array_equal(x.cpu().numpy(), WRITES[name](pt, _base(pt)).numpy())


def test_cpu_mask_of_the_wrong_shape_is_pytorchs_index_error():
    with pytest.raises(IndexError, match="does not match the shape of the indexed tensor"):
        _base(torch).to("npu")[torch.tensor([True, False, True])]


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "float64"])
def test_sign_of_nan_is_zero(dtype):
    values = [float("nan"), -2.5, -0.0, 0.0, 3.0, float("inf"), float("-inf")]
    want = pt.tensor(values, dtype=getattr(pt, dtype)).sign()
    x = torch.tensor(values, dtype=getattr(torch, dtype)).to("npu")
    for got in (x.sign(), torch.sign(x), x.clone().sign_()):
        np.testing.assert_array_equal(got.cpu().float().numpy(), want.float().numpy())


def _complex_cases():
    z = lambda: torch.tensor([1 + 2j, -3j]).to("npu")
    return {
        "mul": lambda: z() * 2,
        "add": lambda: z() + z(),
        "abs": lambda: z().abs(),
        "fft of a real tensor": lambda: torch.fft.fft(torch.arange(4.0).to("npu")),
    }


@pytest.mark.parametrize("name", sorted(_complex_cases()))
def test_a_dtype_the_chip_cannot_hold_is_named(name):
    from mindtorch_npu import chips

    torch.ones(1).to("npu")  # the runtime is up: the chip is known
    if torch.complex64 in chips.chip_dtypes():
        pytest.skip("this chip holds complex numbers")
    with pytest.raises((TypeError, RuntimeError, NotImplementedError)) as info:
        _complex_cases()[name]()
    msg = str(info.value)
    assert "aclCreateTensor" not in msg and "aclDataType" not in msg, msg
    assert "complex64" in msg and ("npu" in msg or "Ascend" in msg), msg
