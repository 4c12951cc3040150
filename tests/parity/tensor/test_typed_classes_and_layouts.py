"""Typed tensor classes, layouts, memory formats, is_pinned / pin_memory."""

from helpers import torch_or_skip

torch = torch_or_skip()

import pickle  # noqa: E402

import mindtorch  # noqa: E402
import pytest  # noqa: E402
from helpers import assert_same  # noqa: E402

TYPED = [
    "FloatTensor",
    "DoubleTensor",
    "HalfTensor",
    "BFloat16Tensor",
    "ByteTensor",
    "CharTensor",
    "ShortTensor",
    "IntTensor",
    "LongTensor",
    "BoolTensor",
]


@pytest.mark.parametrize("name", TYPED)
def test_typed_tensor_classes(name):
    m, t = getattr(mindtorch, name), getattr(torch, name)
    assert_same(m([1, 0, 1]), t([1, 0, 1]))
    assert tuple(m(2, 3).shape) == tuple(t(2, 3).shape) and str(m(2, 3).dtype) == str(t(2, 3).dtype)
    assert tuple(m().shape) == tuple(t().shape)
    assert tuple(m(mindtorch.Size([4])).shape) == tuple(t(torch.Size([4])).shape)
    for other in ("float32", "int64", "bool"):
        assert isinstance(mindtorch.ones(2, dtype=getattr(mindtorch, other)), m) == isinstance(
            torch.ones(2, dtype=getattr(torch, other)), t
        )
    assert not isinstance(3, m)


@pytest.mark.parametrize(
    "name", ["strided", "sparse_coo", "contiguous_format", "preserve_format", "channels_last", "channels_last_3d"]
)
def test_layout_and_memory_format_names(name):
    m, t = getattr(mindtorch, name), getattr(torch, name)
    assert repr(m) == repr(t)
    assert type(m).__name__ == type(t).__name__
    assert pickle.loads(pickle.dumps(m)) is m
    assert isinstance(m, (mindtorch.layout, mindtorch.memory_format))


def test_tensor_layout_is_the_strided_object():
    assert mindtorch.ones(2).layout is mindtorch.strided
    assert repr(mindtorch.ones(2).layout) == repr(torch.ones(2).layout)


def test_contiguous_accepts_memory_format():
    x = mindtorch.arange(6.0).reshape(2, 3).t()
    y = x.contiguous(memory_format=mindtorch.contiguous_format)
    assert y.is_contiguous()


def test_is_pinned_and_pin_memory():
    m, t = mindtorch.ones(2), torch.ones(2)
    assert m.is_pinned() == t.is_pinned()
    with pytest.raises(RuntimeError) as th:
        t.pin_memory()
    with pytest.raises(RuntimeError) as mt:
        m.pin_memory()
    assert str(mt.value) == str(th.value)
