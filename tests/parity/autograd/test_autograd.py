"""Autograd behaviour against PyTorch: gradients, error messages, in-place on views."""

from helpers import torch_or_skip

torch = torch_or_skip()

import mindtorch as mt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402


def pair(arr):
    a = np.asarray(arr, dtype=np.float64)
    return (mt.tensor(a, dtype=mt.float64).requires_grad_(), torch.tensor(a, dtype=torch.float64).requires_grad_())


def test_copyslices_example_matches():
    x_m, x_t = pair(np.arange(6.0).reshape(2, 3))
    w = np.arange(1.0, 7.0).reshape(2, 3)
    for lib, x in ((mt, x_m), (torch, x_t)):
        y = x.clone()
        y.select(1, 0).fill_(0)
        y.select(0, 1).mul_(3)
        (y * lib.tensor(w, dtype=lib.float64)).sum().backward()
    np.testing.assert_allclose(x_m.grad.numpy(), x_t.grad.numpy())


def test_higher_order_matches():
    x_m, x_t = pair([0.5, 1.5])
    out = []
    for lib, x in ((mt, x_m), (torch, x_t)):
        y = (x * x * x / (x + 1)).sum()
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        (g2,) = lib.autograd.grad(g.sum(), x)
        out.append((g.detach().numpy(), g2.numpy()))
    np.testing.assert_allclose(out[0][0], out[1][0])
    np.testing.assert_allclose(out[0][1], out[1][1])


def _err(fn):
    with pytest.raises(Exception) as e:
        fn()
    return type(e.value), str(e.value)


@pytest.mark.parametrize(
    "case",
    [
        "leaf_inplace",
        "view_leaf_inplace",
        "second_backward",
        "saved_modified",
        "saved_modified_later_op",
        "operand_is_self",
        "operand_is_view_of_self",
        "nonscalar",
        "int_requires_grad",
        "unused",
    ],
)
def test_error_messages_match(case):
    def run(lib):
        x = lib.tensor(np.array([1.0, 2.0]), dtype=lib.float64).requires_grad_()
        if case == "leaf_inplace":
            x.add_(1)
        elif case == "view_leaf_inplace":
            x.select(0, 0).add_(1)
        elif case == "second_backward":
            y = (x * x).sum()
            y.backward()
            y.backward()
        elif case == "saved_modified":
            a = x * 2
            b = a * a
            a.mul_(2)
            b.sum().backward()
        elif case == "saved_modified_later_op":  # named by the history it has now
            a = x * 2
            b = a.sin()
            a.add_(1)
            b.sum().backward()
        elif case == "operand_is_self":  # mul_ saves its operand: the very tensor it writes
            y = x * 2
            y.add_(1)
            y.mul_(y)
            y.sum().backward()
        elif case == "operand_is_view_of_self":
            y = x * 2
            y.mul_(y.view(2))
            y.sum().backward()
        elif case == "nonscalar":
            (x * 2).backward()
        elif case == "int_requires_grad":
            lib.tensor([1, 2]).requires_grad_()
        elif case == "unused":
            z = lib.tensor(np.array([1.0]), dtype=lib.float64).requires_grad_()
            lib.autograd.grad((x * 2).sum(), [x, z])

    cls_m, msg_m = _err(lambda: run(mt))
    cls_t, msg_t = _err(lambda: run(torch))
    assert cls_m is cls_t
    assert msg_m.replace("DoubleTensor", "X") == msg_t.replace("DoubleTensor", "X")


CASTS = {
    "int()": lambda L, x: x.int(),
    "long()": lambda L, x: x.long(),
    "bool()": lambda L, x: x.bool(),
    "to(int16)": lambda L, x: x.to(L.int16),
    "to(uint8)": lambda L, x: x.to(L.uint8),
    "type(int32)": lambda L, x: x.type(L.int32),
    "round().int()": lambda L, x: x.round().int(),
}


@pytest.mark.parametrize("name", CASTS)
def test_casts_to_integer_or_bool_carry_no_gradient(name):
    # an integer or bool tensor never requires grad: it is a constant to the ops that use it
    seen = []
    for L in (mt, torch):
        x = L.tensor([1.5, 2.5, -0.5], requires_grad=True)
        y = CASTS[name](L, x)
        (y * x).sum().backward()
        seen.append((y.requires_grad, y.grad_fn is None, x.grad.tolist()))
    assert seen[0] == seen[1]
