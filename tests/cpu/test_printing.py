"""Torch-free tests of tensor printing for common cases (expected text is PyTorch's)."""

import mindtorch as torch
import pytest

T = torch.tensor


@pytest.mark.parametrize(
    "make, text",
    [
        (lambda: T([1.0, 2.5]), "tensor([1.0000, 2.5000])"),
        (lambda: T([1, 2]), "tensor([1, 2])"),
        (lambda: T([True, False]), "tensor([ True, False])"),
        (lambda: T(3.0), "tensor(3.)"),
        (lambda: T([]), "tensor([])"),
        (lambda: T([1.0, 2], dtype=torch.float16), "tensor([1., 2.], dtype=torch.float16)"),
        (lambda: T([[1, 2], [3, 4]]), "tensor([[1, 2],\n        [3, 4]])"),
        (lambda: T([1e10, 1.0]), "tensor([1.0000e+10, 1.0000e+00])"),
        (lambda: T([1.5], dtype=torch.float64), "tensor([1.5000], dtype=torch.float64)"),
        (lambda: T([0.1, 2.0], requires_grad=True), "tensor([0.1000, 2.0000], requires_grad=True)"),
        (lambda: torch.zeros(2, 0), "tensor([], size=(2, 0))"),
        (lambda: T(2, dtype=torch.int32), "tensor(2, dtype=torch.int32)"),
        (lambda: T([1 + 2j]), "tensor([1.+2.j])"),
        (lambda: T([float("nan"), float("inf"), -1.0]), "tensor([nan, inf, -1.])"),
        (lambda: T(1e-5), "tensor(1.0000e-05)"),
        (lambda: torch.arange(2000.0)[:3], "tensor([0., 1., 2.])"),
        (lambda: T([float("nan"), 1.0, -3.0]).clamp(max=0), "tensor([nan,  0., -3.])"),
    ],
)
def test_repr(make, text):
    assert repr(make()) == text
    assert str(make()) == text


def test_grad_fn_in_repr():
    a = T([1.0, 2.0], requires_grad=True)
    assert repr(a * 2) == "tensor([2., 4.], grad_fn=<MulBackward0>)"
