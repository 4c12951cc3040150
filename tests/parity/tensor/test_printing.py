"""repr(tensor) vs PyTorch for common cases."""

from helpers import torch_or_skip

torch = torch_or_skip()

import mindtorch as mt  # noqa: E402
import pytest  # noqa: E402

CASES = [
    "L.tensor(3.5)",
    "L.tensor(3.)",
    "L.tensor([1., 2.])",
    "L.tensor([1.5, 2.25])",
    "L.tensor([1e-5, 1.])",
    "L.tensor([1e10, 1.])",
    "L.tensor([123456789., 1.])",
    "L.tensor([1, -2, 300])",
    "L.tensor([True, False])",
    "L.tensor(True)",
    "L.tensor([], dtype=L.int64)",
    "L.zeros(0, 3)",
    "L.tensor([1.5], dtype=L.float64)",
    "L.tensor([1, 2], dtype=L.int32)",
    "L.tensor([float('nan'), float('inf'), 1.5])",
    "L.tensor([float('nan'), 1.])",
    "L.tensor([-1.5, 2.])",
    "L.ones(2, requires_grad=True)",
    "L.arange(0, 1, 0.1)",
    "L.arange(2000.)",
    "L.arange(2000)",
    "L.arange(3000.).reshape(30, 100)",
    "L.arange(1100).reshape(11, 10, 10)",
    "L.ones(2, 2, 2)",
    "L.tensor(1 + 2j)",
    "L.tensor([1.5, -2.25j])",
    "L.tensor([1.5, 2.], dtype=L.float16)",
    "L.tensor([1.5, 2.], dtype=L.bfloat16)",
    "L.zeros(2, 3, device='meta')",
    "L.zeros(2, dtype=L.int64, device='meta')",
    "L.tensor(2.5, device='meta')",
    "L.zeros(0, device='meta')",
    "L.linspace(0, 100, 30)",
    "L.tensor([0.001, 0.0001])",
    "L.tensor([1e-8, 0.])",
    "L.tensor([0., 0.])",
    "L.tensor([-0., 1.])",
    "L.tensor([[1.5, -2], [3, 4e3]])",
    "L.tensor([100000., 1.])",
    "L.tensor([1e5, 1e-5])",
    "L.tensor([12345.678])",
    "L.tensor(-0.5)",
    "L.arange(12).reshape(2, 3, 2)",
    "L.tensor([[[]]])",
    "L.zeros(2, 0, dtype=L.int32)",
    "L.tensor(1e-3)",
    "L.tensor([0.1, 0.25], requires_grad=True)",
    "L.tensor([2.0], dtype=L.float64, requires_grad=True)",
    "L.tensor([-5, 3], dtype=L.int8)",
    "L.tensor([1, 2], dtype=L.uint8)",
    "L.arange(40.).reshape(4, 10) / 3",
    "L.tensor([[True], [False]])",
    "L.tensor([1.123456789, 22.5])",
    "L.tensor([1e-20, 1e20])",
    "L.arange(25).reshape(5, 5) * 1000000",
]


def _repr(lib, expr):
    return repr(eval(expr.replace("L.", "lib."), {"lib": lib}))


@pytest.mark.parametrize("expr", CASES)
def test_repr_matches_torch(expr):
    assert _repr(mt, expr) == _repr(torch, expr)


def test_grad_fn_suffix():
    x = mt.ones(2, requires_grad=True)
    y = x.view(2)
    r = repr(y)
    assert r.startswith("tensor([1., 1.], grad_fn=<") and r.endswith(">)")


def test_default_dtype_changes_suffix():
    mt.set_default_dtype(mt.float64)
    try:
        assert repr(mt.tensor([1.5])) == "tensor([1.5000])"
        assert repr(mt.tensor([1.5], dtype=mt.float32)) == "tensor([1.5000], dtype=torch.float32)"
    finally:
        mt.set_default_dtype(mt.float32)


@pytest.mark.parametrize(
    "opts,expr",
    [
        ({"precision": 2}, "L.tensor([1.23456, 2.5])"),
        ({"sci_mode": True}, "L.tensor([1.5, 2.])"),
        ({"threshold": 5}, "L.arange(10)"),
        ({"edgeitems": 1, "threshold": 3}, "L.arange(10.)"),
        ({"linewidth": 30}, "L.arange(20.)"),
    ],
)
def test_printoptions(opts, expr):
    try:
        torch.set_printoptions(**opts)
        mt.set_printoptions(**opts)
        assert _repr(mt, expr) == _repr(torch, expr)
        assert mt.get_printoptions() == torch._tensor_str.get_printoptions()
    finally:
        torch.set_printoptions(profile="default")
        mt.set_printoptions(profile="default")


def test_get_printoptions_after_profile():
    try:
        mt.set_printoptions(profile="short", sci_mode=True)
        torch.set_printoptions(profile="short", sci_mode=True)
        assert mt.get_printoptions() == torch._tensor_str.get_printoptions()
    finally:
        torch.set_printoptions(profile="default")
        mt.set_printoptions(profile="default")
    assert mt.get_printoptions() == torch._tensor_str.get_printoptions()
