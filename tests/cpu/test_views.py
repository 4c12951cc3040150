"""Torch-free tests of views: shapes, strides, storage_offset, storage sharing, contiguity and errors."""

import mindtorch as torch
import pytest


def _x():
    return torch.arange(12).reshape(3, 4)


def _same_storage(a, b):
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


def test_basic_view_geometry():
    x = _x()
    assert x.stride() == (4, 1) and x.storage_offset() == 0 and x.is_contiguous()
    v = x.t()
    assert v.shape == (4, 3) and v.stride() == (1, 4) and not v.is_contiguous()
    assert x[1].storage_offset() == 4 and x[1].stride() == (1,)
    assert x[:, 1].stride() == (4,) and x[:, 1].storage_offset() == 1
    s = x[1:, ::2]
    assert s.shape == (2, 2) and s.stride() == (4, 2) and s.storage_offset() == 4
    assert x.unsqueeze(1).stride() == (4, 4, 1)
    assert x.expand(2, 3, 4).stride() == (0, 4, 1)
    assert x.diagonal().stride() == (5,)
    assert x.narrow(1, 1, 2).storage_offset() == 1
    assert x.permute(1, 0).stride() == (1, 4)


def test_views_share_storage_and_writes():
    x = _x()
    for v in (x.view(2, 6), x.t(), x[1], x[:, ::2], x.unsqueeze(0), x.diagonal(), x.narrow(0, 1, 1)):
        assert _same_storage(v, x)
    x.t()[0, 2] = 100
    assert x[2, 0].item() == 100
    x[1].fill_(-1)
    assert x.tolist()[1] == [-1, -1, -1, -1]


def test_reshape_copies_only_when_needed():
    x = _x()
    assert _same_storage(x.reshape(6, 2), x)
    r = x.t().reshape(12)
    assert r.is_contiguous() and not _same_storage(r, x)
    assert r.tolist() == [0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11]


def test_contiguity_rules():
    assert not torch.ones(1, 3).expand(2, 3).is_contiguous()
    assert torch.ones(3, 1).t().is_contiguous()  # size-1 dims do not count
    assert torch.empty(2, 0, 3).is_contiguous()
    c = _x().t().contiguous()
    assert c.stride() == (3, 1) and c.is_contiguous()


@pytest.mark.parametrize(
    "fn, exc, msg",
    [
        (lambda x: x.t().view(12), RuntimeError, "view size is not compatible with input tensor's size and stride"),
        (lambda x: x.view(5), RuntimeError, r"shape '\[5\]' is invalid for input of size 12"),
        (lambda x: x.view(-1, -1), RuntimeError, "only one dimension can be inferred"),
        (
            lambda x: x.expand(2, 4),
            RuntimeError,
            r"The expanded size of the tensor \(2\) must match the existing size "
            r"\(3\) at non-singleton dimension 0",
        ),
        (
            lambda x: x.transpose(0, 2),
            IndexError,
            r"Dimension out of range \(expected to be in range of \[-2, 1\], "
            r"but got 2\)",
        ),
        (lambda x: x.narrow(1, 3, 2), RuntimeError, r"start \(3\) \+ length \(2\) exceeds dimension size \(4\)"),
        (lambda x: x[3], IndexError, "index 3 is out of bounds for dimension 0 with size 3"),
    ],
)
def test_view_errors(fn, exc, msg):
    with pytest.raises(exc, match=msg):
        fn(_x())


def test_size_repr_and_behaviour():
    s = torch.Size([2, 3])
    assert repr(s) == "torch.Size([2, 3])" and str(s) == "torch.Size([2, 3])"
    assert repr(torch.Size([])) == "torch.Size([])"
    assert s.numel() == 6 and isinstance(s, tuple)
    assert repr(s[1:]) == "torch.Size([3])" and s[0] == 2
    assert repr(torch.ones(2, 3).shape) == "torch.Size([2, 3])"
    assert torch.ones(2, 3).size() == (2, 3) and torch.ones(2, 3).size(1) == 3
