"""Creation ops vs PyTorch: values, shapes, dtypes, errors."""

from helpers import torch_or_skip

torch = torch_or_skip()

import mindtorch as mt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from helpers import assert_same  # noqa: E402


def both(expr):
    """Evaluate `expr` with L bound to torch and to mindtorch; errors come back as their class."""
    out = []
    for lib in (torch, mt):
        try:
            out.append(eval(expr, {"L": lib, "np": np}))
        except Exception as e:
            out.append(type(e))
    return out


TENSOR_CASES = [
    "L.tensor(True)",
    "L.tensor(3)",
    "L.tensor(3.5)",
    "L.tensor([1, 2])",
    "L.tensor([1, 2.0])",
    "L.tensor([True, 2])",
    "L.tensor([[1], [2]])",
    "L.tensor([])",
    "L.tensor([[]])",
    "L.tensor(np.float32(2))",
    "L.tensor(np.int32(2))",
    "L.tensor([np.float64(1), 2])",
    "L.tensor([np.int16(1), np.int8(2)])",
    "L.tensor([np.float16(1), 2])",
    "L.tensor(np.array([1, 2], dtype=np.int16))",
    "L.tensor([1, 2], dtype=float)",
    "L.tensor([1.5, -2.7], dtype=L.int32)",
    "L.tensor([[1, 2], [3]])",
    "L.tensor('a')",
    "L.tensor([1, 'a'])",
    "L.tensor([L.tensor(1.), L.tensor(2.)])",
    "L.tensor([L.tensor(1, dtype=L.int8), 2])",
    "L.tensor([1.5, True])",
    "L.tensor([[1, 2], [3, 4]], dtype=L.float64)",
    "L.tensor([2 ** 70])",
    "L.tensor(((1, 2), (3, 4)))",
    "L.tensor([1, 2], dtype=L.bfloat16)",
    "L.tensor(np.zeros((2, 0, 3)))",
    "L.tensor(7, dtype=L.uint8)",
    "L.tensor([0.1, 0.2], dtype=L.float16)",
]


@pytest.mark.parametrize("expr", TENSOR_CASES)
def test_tensor_inference(expr):
    th, m = both(expr)
    if isinstance(th, type):
        if th is ValueError and m is ValueError or th is m:
            return
        assert m is th, f"{expr}: torch raised {th.__name__}, mindtorch gave {m}"
    assert not isinstance(m, type), f"{expr}: mindtorch raised {m.__name__}"
    assert_same(m, th)


def test_default_dtype_affects_inference():
    mt.set_default_dtype(mt.float64)
    try:
        assert mt.tensor([1.0]).dtype is mt.float64
        assert mt.tensor(1 + 2j).dtype is mt.complex128
        assert mt.arange(0.5, 2).dtype is mt.float64
        assert mt.zeros(2).dtype is mt.float64
        assert mt.tensor([1]).dtype is mt.int64
    finally:
        mt.set_default_dtype(mt.float32)
    assert mt.tensor([1.0]).dtype is mt.float32
    with pytest.raises(TypeError):
        mt.set_default_dtype(mt.int64)


FACTORY_CASES = [
    "L.arange(5)",
    "L.arange(1, 4)",
    "L.arange(0, 1, 0.1)",
    "L.arange(1.5)",
    "L.arange(0, 10, 3)",
    "L.arange(10, 0, -3)",
    "L.arange(0, 5, dtype=L.float64)",
    "L.arange(0, -1)",
    "L.arange(0, 1, 0)",
    "L.arange(0.0, 1.0, 0.3)",
    "L.arange(1, 2.5, 0.5)",
    "L.arange(-1.5, 2, 1, dtype=L.int64)",
    "L.arange(0, 2 ** 60, 2 ** 59)",
    "L.arange(0.0, float('inf'))",
    "L.arange(-5, 5, 0.7, dtype=L.float16)",
    "L.arange(0, 10, 3, dtype=L.float32)",
    "L.arange(5, dtype=L.bool)",
    "L.linspace(0, 1, 5)",
    "L.linspace(0, 10, 5, dtype=L.int64)",
    "L.linspace(-1, 1, 1)",
    "L.linspace(0, 1, 0)",
    "L.linspace(0, 1, -1)",
    "L.logspace(0, 2, 3)",
    "L.logspace(0, 2, 3, base=2)",
    "L.logspace(-1, 1, 4, dtype=L.float64)",
    "L.eye(3)",
    "L.eye(2, 3)",
    "L.eye(2, dtype=L.int32)",
    "L.eye(-1)",
    "L.eye(3, 0)",
    "L.zeros(2, 3)",
    "L.zeros((2, 3))",
    "L.zeros([2, 3], dtype=L.int64)",
    "L.zeros(())",
    "L.ones(0)",
    "L.ones(2, 3, dtype=L.bool)",
    "L.empty(-1)",
    "L.zeros(2, 2, dtype=L.bfloat16)",
    "L.full((2,), 3)",
    "L.full((2,), 3.)",
    "L.full((2,), True)",
    "L.full([2, 2], 1.5, dtype=L.float64)",
    "L.full((2,), 1.5, dtype=L.int64)",
    "L.zeros_like(L.ones(2, dtype=L.int32))",
    "L.ones_like(L.ones(2), dtype=L.int64)",
    "L.full_like(L.ones(2, dtype=L.int32), 2.7)",
    "L.empty_like(L.ones(2, 3)).shape",
    "L.ones(2).new_zeros(3)",
    "L.ones(2, dtype=L.int32).new_ones((2, 2))",
    "L.ones(2, dtype=L.int32).new_zeros(2, 3)",
    "L.ones(2).new_full((2,), 5)",
    "L.ones(2, dtype=L.float64).new_tensor([1, 2])",
    "L.ones(2, dtype=L.int32).new_tensor([1.5, 2])",
    "L.ones(2, dtype=L.float64).new_empty(3).shape",
    "L.empty_strided((2, 3), (1, 2)).stride()",
    "L.Tensor(2, 3).shape",
    "L.Tensor([1, 2])",
    "L.Tensor((2, 3))",
    "L.Tensor([[1, 2]]).dtype",
    "L.Tensor(2.5)",
    "L.Tensor(L.Size([2, 1])).shape",
    "L.as_tensor([1, 2])",
    "L.as_tensor(np.arange(3))",
    "L.as_tensor([1, 2], dtype=L.float32)",
]


@pytest.mark.parametrize("expr", FACTORY_CASES)
def test_factories(expr):
    th, m = both(expr)
    if isinstance(th, type):
        assert m is th, f"{expr}: torch raised {th.__name__}, mindtorch gave {m}"
        return
    assert not isinstance(m, type), f"{expr}: mindtorch raised {m.__name__}"
    if isinstance(th, torch.dtype):
        assert str(m) == str(th)
    elif hasattr(th, "shape") and not isinstance(th, tuple):
        assert_same(m, th, rtol=1e-6)
    else:
        assert tuple(m) == tuple(th)


def test_from_numpy_shares_memory_both_ways():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = mt.from_numpy(a)
    assert t.dtype is mt.float32 and t.shape == (2, 3) and t.stride() == (3, 1)
    a[0, 0] = 100
    assert t[0, 0].item() == 100 if hasattr(t, "__getitem__") else True
    t.fill_(7)
    assert np.all(a == 7)
    n = t.numpy()
    n[1, 2] = -1
    assert a[1, 2] == -1


def test_from_numpy_strided_and_errors():
    a = np.arange(12, dtype=np.int64).reshape(3, 4)[:, ::2]
    t, th = mt.from_numpy(a), torch.from_numpy(a)
    assert t.stride() == th.stride() and t.shape == th.shape
    np.testing.assert_array_equal(t.numpy(), a)
    with pytest.raises(ValueError, match="negative"):
        mt.from_numpy(np.arange(5)[::-1])
    with pytest.raises(TypeError):
        mt.from_numpy([1, 2])
    with pytest.raises(TypeError):
        mt.from_numpy(np.array(["a"]))


def test_numpy_shares_memory():
    t = mt.zeros(2, 3)
    n = t.numpy()
    n[...] = 5
    assert t.tolist() == [[5.0] * 3] * 2
    v = t.transpose(0, 1)
    v.numpy()[0, 1] = 9
    assert t.tolist()[1][0] == 9


def test_as_tensor_shares_numpy():
    a = np.zeros(3)
    t = mt.as_tensor(a)
    a[1] = 4
    assert t.tolist() == [0.0, 4.0, 0.0]
    same = mt.ones(2)
    assert mt.as_tensor(same) is same


def test_requires_grad_factories():
    t = mt.zeros(2, requires_grad=True)
    assert t.requires_grad and t.is_leaf
    with pytest.raises(RuntimeError):
        mt.zeros(2, dtype=mt.int64, requires_grad=True)
    with pytest.raises(RuntimeError):
        mt.tensor([1, 2], requires_grad=True)


def test_set_default_device():
    mt.set_default_device("meta")
    try:
        assert mt.zeros(2).device.type == "meta"
        assert mt.arange(3).device.type == "meta"
    finally:
        mt.set_default_device(None)
    assert mt.zeros(2).device.type == "cpu"


@pytest.mark.parametrize(
    "expr",
    [
        "L.ones(2).to(L.int64)",
        "L.ones(2).long()",
        "L.tensor([1.7, -1.7]).int()",
        "L.tensor([2.5]).item()",
        "L.tensor([[1, 2]]).tolist()",
        "L.tensor(3).tolist()",
        "L.tensor([1.5, 0]).bool()",
        "bool(L.tensor(0.0))",
        "int(L.tensor(3.7))",
        "float(L.tensor(3))",
        "L.tensor([1, 2]).float()",
        "L.tensor([1.5]).double()",
        "L.tensor([1.5]).half()",
        "L.tensor([300]).byte()",
        "L.tensor([1.5]).to(L.ones(1, dtype=L.int16))",
        "L.tensor([1.5]).to('cpu', L.float64)",
        "L.tensor([1, 2]).to(dtype=L.float16)",
        "bool(L.tensor([1, 2]))",
        "L.tensor([1.0, 2.0]).item()",
        "L.tensor([]).tolist()",
        "L.tensor(2.5, dtype=L.bfloat16).item()",
    ],
)
def test_conversions(expr):
    th, m = both(expr)
    if isinstance(th, type):
        assert m is th
        return
    if hasattr(th, "shape"):
        assert_same(m, th)
    else:
        assert m == th and type(m) is type(th)
