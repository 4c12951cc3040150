"""mindtorch.autograd.Function."""

import mindtorch as torch
import numpy as np
import pytest
from mindtorch.autograd import Function, gradcheck, once_differentiable


def t64(v, rg=True):
    return torch.tensor(np.asarray(v, dtype=np.float64), dtype=torch.float64).requires_grad_(rg)


def vals(t):
    return t.detach().numpy().tolist()


class Scale(Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.save_for_backward(x)
        ctx.k = k
        ctx.seen_needs = ctx.needs_input_grad
        return x * x * k

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 2 * x * ctx.k, None


def test_apply_saved_tensors_non_tensor_args():
    x = t64([1.0, 2.0])
    y = Scale.apply(x, 3.0)
    assert y.grad_fn.name() == "ScaleBackward"
    assert y.grad_fn.seen_needs == (True, False)
    assert y.grad_fn.next_functions[0][0].variable is x and y.grad_fn.next_functions[1] == (None, 0)
    y.sum().backward()
    assert vals(x.grad) == [6.0, 12.0]
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        _ = y.grad_fn.saved_tensors


def test_gradcheck_on_function():
    assert gradcheck(lambda x: Scale.apply(x, 1.5), (t64([0.3, -0.7, 1.1]),))


def test_no_graph_when_inputs_do_not_require_grad():
    y = Scale.apply(t64([1.0], False), 2.0)
    assert not y.requires_grad and y.grad_fn is None
    with torch.no_grad():
        assert Scale.apply(t64([1.0]), 2.0).grad_fn is None


class Split(Function):
    @staticmethod
    def forward(ctx, x):
        idx = torch.tensor([0, 1])
        ctx.mark_non_differentiable(idx)
        return x * 2, x * 3, idx

    @staticmethod
    def backward(ctx, ga, gb, gidx):
        return ga * 2 + gb * 3


def test_multiple_outputs_nondiff_and_materialized_grads():
    x = t64([1.0, 1.0])
    a, b, idx = Split.apply(x)
    assert a.requires_grad and b.requires_grad and not idx.requires_grad
    assert b.output_nr == 1
    a.sum().backward()  # gb arrives as zeros (materialize_grads default)
    assert vals(x.grad) == [2.0, 2.0]


class NoMaterialize(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        return x * 1, x * 1

    @staticmethod
    def backward(ctx, ga, gb):
        ctx.got_none = gb is None
        return ga


def test_set_materialize_grads_false():
    x = t64([1.0])
    a, b = NoMaterialize.apply(x)
    a.sum().backward()
    assert a.grad_fn.got_none


class Double_(Function):
    @staticmethod
    def forward(ctx, x):
        x.mul_(2)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, g):
        return g * 2


def test_mark_dirty():
    x = t64([1.0, 2.0])
    y = x * 1
    z = Double_.apply(y)
    assert z is y and y.grad_fn.name() == "Double_Backward"
    z.sum().backward()
    assert vals(x.grad) == [2.0, 2.0]
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        Double_.apply(t64([1.0]))


class WrongCount(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g, g


class WrongShape(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return t64([1.0, 2.0, 3.0], False)


def test_backward_errors():
    x = t64([1.0, 2.0])
    with pytest.raises(
        RuntimeError,
        match=r"function WrongCountBackward returned an incorrect number of gradients "
        r"\(expected 1, got 2\)",
    ):
        WrongCount.apply(x).sum().backward()
    with pytest.raises(
        RuntimeError,
        match=r"Function WrongShapeBackward returned an invalid gradient at index 0 - "
        r"got \[3\] but expected shape compatible with \[2\]",
    ):
        WrongShape.apply(x).sum().backward()


class Once(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 2 * x


def test_once_differentiable():
    x = t64([3.0])
    (g,) = torch.autograd.grad(Once.apply(x), x, create_graph=True)
    assert vals(g) == [6.0]
    assert not g.requires_grad  # grad output did not require grad
    y = Once.apply(x)
    go = t64([1.0])
    (g,) = torch.autograd.grad(y, x, go, create_graph=True)
    assert g.requires_grad
    with pytest.raises(
        RuntimeError, match="trying to differentiate twice a function that was marked with @once_differentiable"
    ):
        g.sum().backward()


class Identity(Function):
    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
    def backward(ctx, g):
        return g * 5


def test_returning_input_makes_new_output():
    x = t64([1.0])
    y = Identity.apply(x)
    assert y is not x and y.grad_fn is not None and x.is_leaf
    y.sum().backward()
    assert vals(x.grad) == [5.0]


def test_higher_order_through_function():
    class Cube(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x * x

    x = t64([2.0])
    (g,) = torch.autograd.grad(Cube.apply(x), x, create_graph=True)
    (g2,) = torch.autograd.grad(g, x)
    assert vals(g) == [12.0] and vals(g2) == [12.0]
