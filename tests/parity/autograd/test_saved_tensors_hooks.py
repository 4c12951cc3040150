"""autograd.graph.saved_tensors_hooks against PyTorch's: tensors saved for backward go through pack and
come back through unpack, with the same gradients (first and second order, leaves and custom Functions),
the innermost hooks applying, pack hooks running without grad, and PyTorch's errors. Which tensors an
op saves differs between the libraries, so hook calls are compared as pairs, not counted."""

import mindtorch
import numpy as np
import pytest
from helpers import raises_alike, torch_or_skip

torch = torch_or_skip()
LIBS = pytest.mark.parametrize("lib", [mindtorch, torch], ids=["mindtorch", "torch"])

HOOKS = {
    "identity": (lambda t: t, lambda p: p),
    "clone": (lambda t: t.detach().clone(), lambda p: p),
    "scaled": (lambda t: t * 4, lambda p: p / 4),
    "numpy": (lambda t: (type(t), t.detach().numpy().copy()), lambda p: _from_numpy(*p)),
}


def _from_numpy(cls, array):
    lib = mindtorch if cls is mindtorch.Tensor or issubclass(cls, mindtorch.Tensor) else torch
    return lib.from_numpy(array)


FUNCTIONS = {
    "product": lambda lib, x, y: (x * y).sin().sum(),
    "matmul": lambda lib, x, y: (x.reshape(2, 3) @ y.reshape(3, 2)).tanh().pow(2).sum(),
    "cat_exp": lambda lib, x, y: lib.cat([x.exp(), y * x]).pow(3).mean(),
    "softmax": lambda lib, x, y: (lib.softmax(x * y, dim=0) * y).sum(),
}


def _leaves(lib):
    x = lib.tensor([0.3, -0.2, 0.9, 1.4, -1.1, 0.5], dtype=lib.float64, requires_grad=True)
    y = lib.tensor([1.2, 0.7, -0.4, 0.1, 0.8, -0.6], dtype=lib.float64, requires_grad=True)
    return x, y


def _run(lib, fn_name, hooks_name, create_graph):
    x, y = _leaves(lib)
    calls = {"pack": 0, "unpack": 0}
    pack, unpack = HOOKS[hooks_name]

    def counting_pack(t):
        calls["pack"] += 1
        return pack(t)

    def counting_unpack(p):
        calls["unpack"] += 1
        return unpack(p)

    with lib.autograd.graph.saved_tensors_hooks(counting_pack, counting_unpack):
        out = FUNCTIONS[fn_name](lib, x, y)
    gx, gy = lib.autograd.grad(out, (x, y), create_graph=create_graph)
    results = [out, gx, gy]
    if create_graph:
        (gx * gy).sum().backward()
        results += [x.grad, y.grad]
    # the second-order pass goes through forward nodes again, unpacking their tensors once more
    assert calls["pack"] > 0 and (
        calls["unpack"] >= calls["pack"] if create_graph else calls["unpack"] == calls["pack"]
    )
    return results


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("hooks_name", sorted(HOOKS))
@pytest.mark.parametrize("fn_name", sorted(FUNCTIONS))
def test_gradients_match(fn_name, hooks_name, create_graph):
    for o, t in zip(_run(mindtorch, fn_name, hooks_name, create_graph), _run(torch, fn_name, hooks_name, create_graph)):
        np.testing.assert_allclose(o.detach().numpy(), t.detach().numpy(), rtol=1e-10, atol=1e-12)


@LIBS
def test_leaf_gradients_accumulate_through_hooks(lib):
    x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(lambda t: t.detach().clone(), lambda p: p):
        y = (x * x * x).sum()
    (g,) = lib.autograd.grad(y, x, create_graph=True)
    g.sum().backward()
    assert x.grad.tolist() == [6.0, 12.0] and g.tolist() == [3.0, 12.0]


@LIBS
def test_custom_function_saves_go_through_hooks(lib):
    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return 3 * x * x * grad

    seen = []
    x = lib.tensor([2.0], dtype=lib.float64, requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(lambda t: seen.append("pack") or t * 2, lambda p: p / 2):
        y = Cube.apply(x)
    y.backward()
    assert "pack" in seen and x.grad.item() == 12.0


@LIBS
def test_innermost_hooks_apply_and_pack_runs_without_grad(lib):
    calls = []
    x = lib.ones(3, dtype=lib.float64, requires_grad=True)

    def inner(t):
        calls.append(("inner", lib.is_grad_enabled()))
        return t * 1

    with lib.autograd.graph.saved_tensors_hooks(lambda t: calls.append(("outer", None)) or t, lambda p: p):
        with lib.autograd.graph.saved_tensors_hooks(inner, lambda p: p):
            y = (x.exp() * x).sum()
        z = (x.sin() * x).sum()
    w = (x.cos() * x).sum()
    assert calls and all(c == ("inner", False) for c in calls[: calls.index(("outer", None))])
    assert ("outer", None) in calls
    n = len(calls)
    w.backward()
    assert len(calls) == n
    y.backward()
    z.backward()


@LIBS
def test_saved_values_are_the_packed_ones(lib):
    """With hooks, in-place changes after saving are not checked: backward sees what was packed."""
    x = lib.ones(3, dtype=lib.float64, requires_grad=True)
    a = x * 1
    with lib.autograd.graph.saved_tensors_hooks(lambda t: t.detach().clone(), lambda p: p):
        y = (a * a).sum()
    with lib.no_grad():
        a.add_(1)
    y.backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]


@LIBS
def test_backward_twice_still_fails(lib):
    x = lib.ones(2, dtype=lib.float64, requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(lambda t: t.detach().clone(), lambda p: p):
        y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()


def _non_tensor_unpack(lib):
    x = lib.ones(3, requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(lambda t: 1, lambda p: 2):
        y = (x * x).sum()
    y.backward()


def _disabled(lib):
    with (
        lib.autograd.graph.disable_saved_tensors_hooks("hooks are not allowed here"),
        lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda p: p),
    ):
        pass


@pytest.mark.parametrize("case", [_non_tensor_unpack, _disabled], ids=["non_tensor_unpack", "disabled"])
def test_errors_match(case):
    raises_alike(case)


@LIBS
def test_disable_ends_with_its_block(lib):
    with lib.autograd.graph.disable_saved_tensors_hooks("no"):
        pass
    with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda p: p):
        pass
