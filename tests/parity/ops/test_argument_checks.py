"""Argument checks against PyTorch: bad sizes and overflow, None for a tensor argument, mixed devices, index
sources; mindtorch raises the exception class PyTorch raises."""

from helpers import torch_or_skip

torch = torch_or_skip()

import mindtorch  # noqa: E402
import pytest  # noqa: E402
from helpers import assert_same  # noqa: E402


def _same_class(fn):
    """fn(lib) raises PyTorch's exception class (an instance of it) under mindtorch, or both succeed."""
    try:
        fn(torch)
        expected = None
    except Exception as e:
        expected = type(e)
    try:
        fn(mindtorch)
        got = None
    except Exception as e:
        got = e
    assert (got is None) if expected is None else isinstance(got, expected), (got, expected)
    return expected


SIZE_CASES = {
    "expand to a negative size": lambda L: L.ones(2, 1).expand(2, -2),
    "meta sizes whose numel overflows": lambda L: L.empty(2**40, 2**40, device="meta"),
    "meta zeros overflowing in bytes": lambda L: L.zeros(2**62, dtype=L.float32, device="meta"),
    "int8 from 300": lambda L: L.tensor([300], dtype=L.int8),
    "int8 from -129": lambda L: L.tensor([[1], [-129]], dtype=L.int8),
    "int8 from 300.0": lambda L: L.tensor(300.0, dtype=L.int8),
    "uint8 from 256": lambda L: L.tensor([256], dtype=L.uint8),
    "int32 from 2**40": lambda L: L.tensor([2**40], dtype=L.int32),
    "cpu allocation too large": lambda L: L.empty(2**61, dtype=L.uint8),
    "cpu zeros too large": lambda L: L.zeros(2**40),
}


@pytest.mark.parametrize("name", list(SIZE_CASES))
def test_sizes_and_overflow_raise_pytorch_class(name):
    assert _same_class(SIZE_CASES[name]) is RuntimeError


def test_in_range_values_still_convert_like_pytorch():
    for dtype, values in (("int8", [127, -128]), ("uint8", [-1, 255, -129]), ("int16", [3.9, -3.9])):
        assert_same(
            mindtorch.tensor(values, dtype=getattr(mindtorch, dtype)), torch.tensor(values, dtype=getattr(torch, dtype))
        )


NONE_CASES = {
    "conv2d weight": lambda L: L.nn.functional.conv2d(L.ones(1, 1, 3, 3), None),
    "conv1d weight": lambda L: L.nn.functional.conv1d(L.ones(1, 1, 3), None),
    "cross_entropy target": lambda L: L.nn.functional.cross_entropy(L.ones(2, 3), None),
    "cross_entropy input": lambda L: L.nn.functional.cross_entropy(None, L.zeros(2, dtype=L.int64)),
    "mse_loss target": lambda L: L.nn.functional.mse_loss(L.ones(2), None),
    "softmax input": lambda L: L.nn.functional.softmax(None, 0),
    "layer_norm input": lambda L: L.nn.functional.layer_norm(None, (3,)),
    "embedding weight": lambda L: L.nn.functional.embedding(L.zeros(2, dtype=L.int64), None),
    "add other": lambda L: L.add(L.ones(2), None),
    "mm mat2": lambda L: L.mm(L.ones(2, 2), None),
}


@pytest.mark.parametrize("name", list(NONE_CASES))
def test_none_for_a_tensor_argument_raises_pytorch_class(name):
    assert _same_class(NONE_CASES[name]) in (TypeError, AttributeError)


@pytest.mark.parametrize("inplace", [False, True])
@pytest.mark.parametrize("bad", [None, 3, 2.5, [1.0]])
def test_relu_of_a_non_tensor_gives_pytorch_message(bad, inplace):
    """F.relu's refusal comes from the op's own parser: the message names relu_ when in place."""
    messages = []
    for L in (torch, mindtorch):
        with pytest.raises(TypeError) as info:
            L.nn.functional.relu(bad, inplace=inplace)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("bad", [[1.0], (1, 2), [mindtorch.ones(1)], "x"])
@pytest.mark.parametrize("op", ["exp", "relu", "neg"])
def test_one_signature_refusal_names_the_plain_type(op, bad):
    """A single-signature op names the value's own type (list, not list of [float]) as PyTorch does."""
    theirs = [torch.ones(1)] if isinstance(bad, list) and bad and not isinstance(bad[0], float) else bad
    messages = []
    for L, v in ((torch, theirs), (mindtorch, bad)):
        with pytest.raises(TypeError) as info:
            getattr(L, op)(v)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_linear_bias_of_the_wrong_size_is_runtime_error():
    assert _same_class(lambda L: L.nn.functional.linear(L.ones(2, 3), L.ones(4, 3), L.ones(5))) is RuntimeError
    assert _same_class(lambda L: L.nn.functional.linear(L.ones(2, 3), L.ones(4, 3), L.ones(2, 4))) is None
    assert _same_class(lambda L: L.nn.functional.linear(L.ones(2, 3), L.ones(4, 3), L.ones(3, 4))) is RuntimeError


# mixed devices: a 0-dim cpu tensor may join another device; any other mix raises, both orders
def _mixed(op):
    return [
        lambda L: op(L, L.ones(2, 3), L.ones(2, 3, device="meta")),
        lambda L: op(L, L.ones(2, 3, device="meta"), L.ones(2, 3)),
    ]


MIXED_OPS = {
    "add": lambda L, a, b: a + b,
    "cat": lambda L, a, b: L.cat([a, b]),
    "stack": lambda L, a, b: L.stack([a, b]),
    "where": lambda L, a, b: L.where(a > 0, a, b),
    "matmul": lambda L, a, b: a @ b.t(),
    "mse_loss": lambda L, a, b: L.nn.functional.mse_loss(a, b),
    "layer_norm": lambda L, a, b: L.nn.functional.layer_norm(a, (3,), b[0]),
    "index_select": lambda L, a, b: a.index_select(0, b[0].long()[:1] * 0),
}


@pytest.mark.parametrize("name", list(MIXED_OPS))
@pytest.mark.parametrize("order", [0, 1])
def test_mixed_devices_raise(name, order):
    # PyTorch 2.13 itself lets cpu and meta mix silently in a few ops (mm, index_select, mul_):
    # the rule (raise for every op) is stricter, so only mindtorch is checked here
    with pytest.raises(RuntimeError, match="device"):
        _mixed(MIXED_OPS[name])[order](mindtorch)


@pytest.mark.parametrize("op", ["add_", "mul_", "sub_", "div_"])
def test_mixed_devices_in_place_raise_and_leave_the_target(op):
    a = mindtorch.ones(2, 3)
    before = a.tolist()
    with pytest.raises(RuntimeError):
        getattr(a, op)(mindtorch.ones(2, 3, device="meta"))
    assert a.tolist() == before
    with pytest.raises(RuntimeError):
        getattr(mindtorch.ones(2, 3, device="meta"), op)(mindtorch.ones(2, 3))


def test_zero_dim_cpu_tensor_joins_another_device():
    assert (mindtorch.ones(2, device="meta") + mindtorch.tensor(1.0)).device.type == "meta"
    assert (mindtorch.tensor(1.0) + mindtorch.ones(2, device="meta")).device.type == "meta"


def test_copy_between_devices():
    assert _same_class(lambda L: L.ones(2).copy_(L.ones(2, device="meta"))) is NotImplementedError
    assert _same_class(lambda L: L.ones(2, device="meta").copy_(L.ones(2))) is None


INDEX_SRC_CASES = {
    "index_copy source rows != indices": lambda L: L.ones(3, 4).index_copy(0, L.tensor([0]), L.ones(7, 4)),
    "index_copy along dim 1": lambda L: L.ones(3, 4).index_copy(1, L.tensor([0]), L.ones(3, 2)),
    "index_copy slice shape": lambda L: L.ones(3, 4).index_copy(0, L.tensor([0]), L.ones(1, 5)),
    "index_copy scalar source": lambda L: L.ones(3).index_copy(0, L.tensor([0, 1]), L.tensor(1.0)),
    "index_add source rows != indices": lambda L: L.ones(3, 4).index_add(0, L.tensor([0]), L.ones(7, 4)),
}


@pytest.mark.parametrize("name", list(INDEX_SRC_CASES))
def test_index_source_checks_raise_pytorch_class(name):
    assert _same_class(INDEX_SRC_CASES[name]) in (IndexError, RuntimeError)
