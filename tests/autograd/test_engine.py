"""Engine semantics: order, accumulation, freeing, higher order, hooks, autograd.grad."""

import gc
import sys
import warnings

import mindtorch as torch
import numpy as np
import pytest


def t64(vals, rg=True):
    return torch.tensor(np.asarray(vals, dtype=np.float64), dtype=torch.float64).requires_grad_(rg)


def vals(t):
    return t.detach().numpy().tolist()


def test_long_chain_no_recursion_and_teardown():
    x = t64([1.0, 2.0])
    y = x
    for _ in range(20000):
        y = y * 1.0
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)  # the engine and the teardown must not depend on it
    try:
        y.sum().backward()
        assert vals(x.grad) == [1.0, 1.0]
        del y  # frees a 20000-node chain
        gc.collect()
    finally:
        sys.setrecursionlimit(old)


def test_accumulates_into_leaf_grad():
    x = t64([1.0, 2.0])
    (x * 3).sum().backward()
    (x * x).sum().backward()
    assert vals(x.grad) == [3 + 2.0, 3 + 4.0]


def test_diamond_dependency_order():
    x = t64([2.0])
    a = x * 2
    b = a * a  # uses a twice
    c = b + a
    c.backward()
    # dc/dx = (2a + 1) * 2 with a = 4
    assert vals(x.grad) == [18.0]


def test_second_backward_raises_and_retain_graph_allows():
    x = t64([1.0, 2.0])
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert vals(x.grad) == [4.0, 8.0]
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()


def test_second_backward_without_saved_tensors_is_fine():
    x = t64([1.0])
    y = x + x
    g = t64([1.0], False)
    y.backward(g)
    y.backward(g)
    assert vals(x.grad) == [4.0]


def test_create_graph_higher_order():
    x = t64([3.0])
    y = x * x * x
    (g,) = torch.autograd.grad(y, x, create_graph=True)
    assert g.requires_grad and vals(g) == [27.0]
    (g2,) = torch.autograd.grad(g, x, create_graph=True)
    assert vals(g2) == [18.0]
    (g3,) = torch.autograd.grad(g2, x)
    assert vals(g3) == [6.0]


def test_backward_gradient_argument():
    x = t64([1.0, 2.0])
    y = x * 2
    y.backward(t64([10.0, 100.0], False))
    assert vals(x.grad) == [20.0, 200.0]
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        (x * 2).backward()
    with pytest.raises(RuntimeError, match=r"Mismatch in shape: grad_output\[0\]"):
        (x * 2).backward(t64([1.0, 2.0, 3.0], False))


def test_leaf_grad_does_not_alias_user_gradient():
    x = t64([1.0, 2.0])
    g = t64([1.0, 1.0], False)
    x.backward(g)
    x.grad.mul_(5)
    assert vals(g) == [1.0, 1.0]


def _keeping_backward(keep):
    """A Function doubling its input whose backward returns 2 * grad after `keep` saw that tensor
    (keep may hold it, a view of it, or its array); returns (the Function, weak refs to the returns)."""
    import weakref

    returned = []

    class Double(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            out = g * 2
            returned.append(weakref.ref(out))
            keep(out)
            return out

    return Double, returned


def test_gradients_meeting_at_a_node_are_summed_in_place():
    # nothing else holds the first gradient (large enough for the cpu allocator's pool, so its storage
    # is built): the second is added into it and the leaf keeps it
    Double, returned = _keeping_backward(lambda t: None)
    n = 70000
    x = t64(np.arange(n, dtype=np.float64))
    (Double.apply(x) + Double.apply(x) * 3).sum().backward()
    assert vals(x.grad) == [8.0] * n
    assert any(r() is x.grad for r in returned)


@pytest.mark.parametrize("n", [3, 70000])
@pytest.mark.parametrize("how", ["tensor", "view", "array", "detached"])
def test_gradients_held_elsewhere_are_not_summed_in_place(how, n):
    kept = []
    hold = {
        "tensor": kept.append,
        "view": lambda t: kept.append(t[:]),
        "array": lambda t: kept.append(t.numpy()),
        "detached": lambda t: kept.append(t.detach()),
    }[how]
    Double, returned = _keeping_backward(hold)
    x = t64(np.arange(n, dtype=np.float64))
    (Double.apply(x) + Double.apply(x) * 3).sum().backward()
    assert vals(x.grad) == [8.0] * n
    got = sorted(float(np.asarray(k)[0]) if how == "array" else float(k[0]) for k in kept)
    assert got == [2.0, 6.0]  # what each backward returned, unchanged


def test_user_gradient_reaching_a_node_twice_is_not_written():
    x = t64([1.0, 2.0])
    y = x * 1
    g = t64([1.0, 1.0], False)
    (y + y).backward(g)
    assert vals(g) == [1.0, 1.0] and vals(x.grad) == [2.0, 2.0]


def test_backward_requires_grad_error():
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad"):
        t64([1.0], False).sum().backward()


def test_grad_allow_unused_and_materialize():
    x, z = t64([1.0]), t64([2.0])
    y = (x * 2).sum()
    with pytest.raises(RuntimeError, match="The differentiated Tensor at index 1 appears to not have been used"):
        torch.autograd.grad(y, [x, z], retain_graph=True)
    gx, gz = torch.autograd.grad(y, [x, z], allow_unused=True, retain_graph=True)
    assert vals(gx) == [2.0] and gz is None
    gx, gz = torch.autograd.grad(y, [x, z], materialize_grads=True)
    assert vals(gz) == [0.0]
    with pytest.raises(ValueError):
        torch.autograd.grad(y, [x], allow_unused=False, materialize_grads=True)
    with pytest.raises(RuntimeError, match="One of the differentiated Tensors does not require grad"):
        torch.autograd.grad((x * 2).sum(), [t64([1.0], False)])


def test_grad_does_not_touch_leaf_grads():
    x = t64([1.0])
    w = t64([2.0])
    (g,) = torch.autograd.grad((x * w).sum(), x)
    assert vals(g) == [2.0] and x.grad is None and w.grad is None


def test_grad_prunes_graph_to_inputs():
    x = t64([1.0])
    w = t64([2.0])
    a = x * 2
    b = w * 3
    ran = []
    b.grad_fn.register_prehook(lambda go: ran.append("b"))
    a.grad_fn.register_prehook(lambda go: ran.append("a"))
    torch.autograd.grad((a + b).sum(), x)
    assert ran == ["a"]


def test_grad_wrt_non_leaf_does_not_run_its_node():
    x = t64([1.0])
    a = x * 2
    ran = []
    a.grad_fn.register_prehook(lambda go: ran.append(1))
    (g,) = torch.autograd.grad((a * a).sum(), a)
    assert vals(g) == [4.0] and ran == []


def test_backward_inputs_only_accumulates_there():
    x, w = t64([1.0]), t64([2.0])
    (x * w).sum().backward(inputs=[w])
    assert x.grad is None and vals(w.grad) == [1.0]
    a = x * 3
    (a * a).sum().backward(inputs=[a])
    assert vals(a.grad) == [6.0] and x.grad is None


def test_requires_grad_and_leaf_flags():
    x = t64([1.0], False)
    assert x.is_leaf and not x.requires_grad and x.grad_fn is None
    x.requires_grad_()
    y = x * 2
    assert not y.is_leaf and y.requires_grad
    with pytest.raises(RuntimeError, match="you can only change requires_grad flags of leaf variables"):
        y.requires_grad_(False)
    assert y.output_nr == 0


def test_detach_and_detach_():
    x = t64([1.0, 2.0])
    y = x * 2
    d = y.detach()
    assert not d.requires_grad and d.is_leaf
    d.add_(1)  # shares storage and version counter
    assert vals(y) == [3.0, 5.0] and y._version == d._version
    y.detach_()
    assert not y.requires_grad and y.grad_fn is None and y.is_leaf
    v = (x * 2).view(2)
    with pytest.raises(RuntimeError, match="Can't detach views in-place"):
        v.detach_()


def test_retain_grad_via_grad_fn_hook():
    x = t64([1.0, 2.0])
    y = x * 2
    y.retain_grad()
    assert y.retains_grad
    assert y.grad_fn.retains_grad_hooks  # the hook lives on the node
    (y * y).sum().backward()
    assert vals(y.grad) == [4.0, 8.0]
    x.retain_grad()  # no-op on a leaf
    with pytest.raises(RuntimeError, match="can't retain_grad on Tensor that has requires_grad=False"):
        t64([1.0], False).retain_grad()


def test_retain_grad_accumulates_and_survives_inplace():
    x = t64([1.0])
    y = x * 2
    y.retain_grad()
    y.mul_(3)
    (y * 1).sum().backward()
    assert vals(y.grad) == [1.0]


def test_non_leaf_grad_warns():
    y = t64([1.0]) * 2
    with pytest.warns(UserWarning, match="is not a leaf Tensor is being accessed"):
        assert y.grad is None
    y.retain_grad()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert y.grad is None


def test_leaf_hook_runs_before_accumulation():
    x = t64([1.0, 2.0])
    seen = []
    h = x.register_hook(lambda g: (seen.append(vals(g)), g * 10)[1])
    (x * 2).sum().backward()
    assert seen == [[2.0, 2.0]] and vals(x.grad) == [20.0, 20.0]
    h.remove()
    (x * 2).sum().backward()
    assert vals(x.grad) == [22.0, 22.0]


def test_leaf_hook_applies_to_autograd_grad():
    x = t64([1.0])
    x.register_hook(lambda g: g * 3)
    (g,) = torch.autograd.grad((x * 2).sum(), x)
    assert vals(g) == [6.0]


def test_non_leaf_hook_on_grad_fn():
    x = t64([1.0, 2.0])
    y = x * 2
    h = y.register_hook(lambda g: g * 0 + 1)
    assert y.grad_fn.tensor_pre_hooks
    (y * y).sum().backward()
    assert vals(x.grad) == [2.0, 2.0]
    h.remove()
    with pytest.raises(RuntimeError, match="cannot register a hook on a tensor that doesn't require gradient"):
        t64([1.0], False).register_hook(lambda g: g)


def test_node_hooks_and_prehooks():
    x = t64([1.0])
    y = x * 5
    got = {}

    def pre(grad_outputs):
        got["pre"] = vals(grad_outputs[0])
        return (grad_outputs[0] * 2,)

    def post(grad_inputs, grad_outputs):
        got["post"] = (vals(grad_inputs[0]), vals(grad_outputs[0]))

    y.grad_fn.register_prehook(pre)
    y.grad_fn.register_hook(post)
    y.sum().backward()
    assert got["pre"] == [1.0] and got["post"] == ([10.0], [2.0]) and vals(x.grad) == [10.0]


def test_post_accumulate_grad_hook():
    x = t64([1.0])
    seen = []
    x.register_post_accumulate_grad_hook(lambda t: seen.append(vals(t.grad)))
    (x * 4).sum().backward()
    assert seen == [[4.0]]


def test_next_functions_and_names():
    x = t64([1.0])
    c = t64([1.0], False)
    y = x * c
    assert y.grad_fn.name() == "MulBackward0"
    (n0, nr0), (n1, nr1) = y.grad_fn.next_functions
    assert n0.name() == "torch::autograd::AccumulateGrad" and n0.variable is x and n1 is None
    assert (x + 1).grad_fn.name() == "AddBackward0"
    z = (x * 2).sum()
    assert z.grad_fn.name() == "SumBackward0"
    assert z.grad_fn.next_functions[0][0].name() == "MulBackward0"


def test_only_floating_can_require_grad():
    with pytest.raises(RuntimeError, match="only Tensors of floating point dtype can require gradients"):
        torch.tensor([1, 2]).requires_grad_()
    with pytest.raises(RuntimeError, match="only Tensors of floating point dtype can require gradients"):
        torch.tensor([True]).requires_grad_()
    torch.tensor([1.0], dtype=torch.float16).requires_grad_()
    torch.tensor([1.0], dtype=torch.float32).requires_grad_()


def test_saved_tensor_freed_after_backward():
    x = t64([1.0])
    y = x * x
    node = y.grad_fn
    y.sum().backward()
    assert node.saved is None


@pytest.mark.parametrize("which", ["first", "second", "both"])
def test_recorded_node_edges_and_needs(which):
    """A recorded op keeps its edges as a tuple; which inputs need a gradient is read off them."""
    x, y = t64([1.0, 2.0], which != "second"), t64([3.0, 4.0], which != "first")
    z = x * y
    node = z.grad_fn
    assert isinstance(node.inputs, tuple) and len(node.inputs) == 2
    assert node.needs()[:2] == [which != "second", which != "first"]
    assert [f is not None for f, _ in node.next_functions] == node.needs()[:2]
    z.sum().backward()
    assert (x.grad is not None) == (which != "second") and (y.grad is not None) == (which != "first")
    if x.grad is not None:
        assert vals(x.grad) == [3.0, 4.0]
    if y.grad is not None:
        assert vals(y.grad) == [1.0, 2.0]


def test_saved_version_is_an_int_checked_at_backward():
    """The version a saved tensor had is kept as an int and compared at backward, with PyTorch's message."""
    x = t64([1.0, 2.0])
    a = x * 1.0
    z = a * a
    saved = z.grad_fn.saved[0]
    assert type(saved.version) is int and saved.version == a._version_value
    a.add_(1.0)
    with pytest.raises(
        RuntimeError,
        match=r"\[torch.DoubleTensor \[2\]\], which is output 0 of Add, is at "
        r"version 1; expected version 0 instead",
    ):
        z.sum().backward()
