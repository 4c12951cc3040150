"""Version counters, in-place checks, and history rebase of in-place ops on views."""

import mindtorch as torch
import numpy as np
import pytest


def t64(v, rg=True):
    return torch.tensor(np.asarray(v, dtype=np.float64), dtype=torch.float64).requires_grad_(rg)


def vals(t):
    return t.detach().numpy().tolist()


def test_views_share_version_counter_and_inplace_bumps():
    x = t64([[1.0, 2.0], [3.0, 4.0]], False)
    v = x.select(0, 1)
    before = x._version_value
    v.add_(1)
    assert x._version_value == before + 1 == v._version_value
    x.mul_(2)
    assert v._version_value == before + 2


def test_modified_saved_tensor_raises():
    x = t64([1.0, 2.0])
    a = x * 2
    b = a * a
    a.mul_(3)
    with pytest.raises(
        RuntimeError,
        match=r"one of the variables needed for gradient computation has been modified "
        r"by an inplace operation: \[torch.DoubleTensor \[2\]\], which is output 0 "
        r"of Mul, is at version 1; expected version 0 instead",
    ):
        b.sum().backward()


def test_modified_leaf_saved_under_no_grad_raises():
    x = t64([1.0])
    y = x * x
    with torch.no_grad():
        x.add_(1)
    with pytest.raises(RuntimeError, match=r"\[torch.DoubleTensor \[1\]\] is at version 1; expected version 0"):
        y.backward()


def test_inplace_on_leaf_requiring_grad_raises():
    x = t64([1.0, 2.0])
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        x.add_(1)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad is being used in an"):
        x.select(0, 0).mul_(2)
    with torch.no_grad():
        x.add_(1)  # allowed without grad mode
    assert vals(x) == [2.0, 3.0]


def test_inplace_on_non_leaf_rebases_history():
    x = t64([1.0, 2.0])
    y = x * 1
    y.mul_(3)
    assert y.grad_fn.name() == "MulBackward0"
    y.add_(x)
    y.sum().backward()
    assert vals(x.grad) == [4.0, 4.0]


def test_pytorch_copyslices_example_with_select():
    # PyTorch's doc example: y = x.clone(); y[:, 0] = 0; y[1].mul_(3)
    x = t64(np.arange(6.0).reshape(2, 3))
    y = x.clone()
    y.select(1, 0).fill_(0)
    y.select(0, 1).mul_(3)
    assert y.grad_fn.name() == "torch::autograd::CopySlices"
    (y * t64([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], False)).sum().backward()
    assert vals(x.grad) == [[0.0, 2.0, 3.0], [0.0, 15.0, 18.0]]


def test_view_inplace_with_other_requiring_grad():
    x = t64([1.0, 2.0, 3.0])
    w = t64([10.0, 20.0])
    y = x * 1
    y.narrow(0, 1, 2).mul_(w)
    y.sum().backward()
    assert vals(x.grad) == [1.0, 10.0, 20.0]
    assert vals(w.grad) == [2.0, 3.0]


def test_view_becomes_differentiable_after_copy_into_base():
    base = torch.zeros(3, dtype=torch.float64)
    x = t64([5.0, 6.0])
    base.narrow(0, 0, 2).copy_(x)
    assert base.requires_grad
    (base * 2).sum().backward()
    assert vals(x.grad) == [2.0, 2.0]


def test_old_view_sees_new_history_of_base():
    x = t64([[1.0, 2.0], [3.0, 4.0]])
    b = x * 1
    v = b.select(0, 0)
    b.mul_(2)
    assert v.grad_fn.name() == "AsStridedBackward0"
    v.sum().backward()
    assert vals(x.grad) == [[2.0, 2.0], [0.0, 0.0]]


def test_view_of_view_inplace():
    x = t64(np.ones((2, 3)))
    y = x * 1
    y.select(0, 1).narrow(0, 1, 2).mul_(5)
    (y * y).sum().backward()
    expected = 2 * np.array([[1, 1, 1], [1, 25, 25]], dtype=float)
    assert vals(x.grad) == expected.tolist()


def test_getitem_setitem_form_when_available():
    x = t64(np.arange(6.0).reshape(2, 3))
    y = x.clone()
    try:
        y[:, 0] = 0
    except (TypeError, NotImplementedError, AttributeError):
        pytest.skip("__setitem__ not implemented yet")
    y[1].mul_(3)
    (y * t64([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], False)).sum().backward()
    assert vals(x.grad) == [[0.0, 2.0, 3.0], [0.0, 15.0, 18.0]]
