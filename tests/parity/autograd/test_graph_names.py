"""torch.autograd's and torch.autograd.graph's smaller names against PyTorch's: Variable, the
thread-local flag modes, GradientEdge (as an input of autograd.grad), increment_version,
register_multi_grad_hook (both modes, with and without `inputs`), allow_mutation_on_saved_tensors and
the compiler/stream settings, with PyTorch's errors."""

import warnings

import mindtorch
import numpy as np
import pytest
from helpers import raises_alike, torch_or_skip

torch = torch_or_skip()
LIBS = pytest.mark.parametrize("lib", [mindtorch, torch], ids=["mindtorch", "torch"])


def _np(t):
    return None if t is None else t.detach().numpy()


def _x(lib):
    return lib.tensor([0.3, -0.2, 0.9, 1.4], dtype=lib.float64, requires_grad=True)


def both(fn):
    """fn(lib) for both libraries, as numpy (nested lists and tuples kept)."""

    def conv(v):
        if isinstance(v, (list, tuple)):
            return [conv(e) for e in v]
        return _np(v) if hasattr(v, "detach") else v

    ours, theirs = conv(fn(mindtorch)), conv(fn(torch))
    np.testing.assert_equal(ours, theirs)
    return ours


@pytest.mark.parametrize("requires_grad, volatile", [(False, False), (True, False), (False, True)])
def test_variable(requires_grad, volatile):
    def run(lib):
        x = _x(lib)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            v = lib.autograd.Variable(x * 2, requires_grad, volatile)
        assert isinstance(v, lib.autograd.Variable) and isinstance(x, lib.autograd.Variable)
        assert not issubclass(lib.Tensor, lib.autograd.Variable)
        return [v, v.requires_grad, v.grad_fn is None, len(w), lib.autograd.Variable().shape == (0,)]

    both(run)


@pytest.mark.parametrize("bad", [3, [1.0, 2.0]])
def test_variable_errors(bad):
    raises_alike(lambda lib: lib.autograd.Variable(bad))
    raises_alike(lambda lib: lib.autograd.Variable(lib.ones(2), True, True))
    raises_alike(lambda lib: lib.autograd.variable(lib.ones(2)))


@pytest.mark.parametrize("name", ["set_multithreading_enabled", "enforce_grad_layout_policy"])
@pytest.mark.parametrize("mode", [False, True])
def test_flag_modes_compute_alike(name, mode):
    def run(lib):
        x = _x(lib)
        mgr = getattr(lib.autograd, name)(mode)
        with mgr:
            (x.sin() * x).sum().backward()
        with mgr.clone():
            pass

        @getattr(lib.autograd, name)(mode)
        def f(t):
            return lib.autograd.grad(t.exp().sum(), t)[0]

        return [x.grad, f(x)]

    both(run)
    assert mindtorch._grad_mode.state.multithreading and mindtorch._grad_mode.state.grad_layout_enforced


@pytest.mark.parametrize("which", ["leaf", "nonleaf", "second_output"])
def test_gradient_edge_as_grad_input(which):
    def run(lib):
        x = _x(lib)
        if which == "leaf":
            t, out = x, (x * x).sum()
        elif which == "nonleaf":
            t = x.tanh()
            out = (t * x).sum()
        else:
            t = x.reshape(2, 2).unbind(0)[1]
            out = t.exp().sum()
        edge = lib.autograd.graph.get_gradient_edge(t)
        g_edge = lib.autograd.grad(out, edge, retain_graph=True)
        g_edge2 = lib.autograd.grad(out, [edge, x], retain_graph=True)
        return [g_edge, lib.autograd.grad(out, t), g_edge2, edge.node is t.grad_fn, len(edge)]

    both(run)


def test_gradient_edge_errors():
    raises_alike(lambda lib: lib.autograd.graph.get_gradient_edge(lib.ones(2)))


def test_increment_version():
    def run(lib):
        x = _x(lib)
        y = x * 1.0
        out = (y * y).sum()
        lib.autograd.graph.increment_version(y)
        lib.autograd.graph.increment_version([y, x.detach()])
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            out.backward()
        return x.grad

    both(run)


@pytest.mark.parametrize("use_inputs", [False, True])
def test_multi_grad_hook_all(use_inputs):
    def run(lib):
        a, b, c = _x(lib), _x(lib) * 2, _x(lib).detach().requires_grad_()
        b.retain_grad()
        calls = []
        h = lib.autograd.graph.register_multi_grad_hook((a, b, c), lambda gs: calls.append(list(gs)))
        out = (a.sin() * b).sum()
        if use_inputs:
            out.backward(inputs=[b], retain_graph=True)
        else:
            out.backward(retain_graph=True)
        out.backward(retain_graph=True)
        h.remove()
        out.backward()
        return calls

    both(run)


def test_multi_grad_hook_any():
    def run(lib):
        a, b = _x(lib), _x(lib)
        calls = []
        lib.autograd.graph.register_multi_grad_hook([a, b], lambda g: calls.append(g), mode="any")
        for _ in range(2):
            (a * b.exp()).sum().backward()
        return calls

    both(run)


def test_multi_grad_hook_errors():
    raises_alike(lambda lib: lib.autograd.graph.register_multi_grad_hook([_x(lib)], print, mode="some"))


def test_allow_mutation_on_saved_tensors():
    def run(lib):
        a = _x(lib)
        with lib.autograd.graph.allow_mutation_on_saved_tensors():
            b = a.clone()
            out = (b**2).sum()
            b.sin_()
            out.backward()
        return [a.grad, b]

    both(run)

    def nested(lib):
        allow = lib.autograd.graph.allow_mutation_on_saved_tensors
        with allow(), allow():
            pass

    raises_alike(nested)


@pytest.mark.parametrize("budget", [0.5, 1, 1.5, -0.1, True, "0.5"])
def test_region_activation_memory_budget_in_eager_mode(budget):
    raises_alike(lambda lib: lib.autograd.graph.region_activation_memory_budget(budget))


@LIBS
@pytest.mark.parametrize("name", ["set_override_stale_capture_stream", "set_warn_on_accumulate_grad_stream_mismatch"])
def test_stream_settings_return_none(lib, name):
    setter = getattr(lib.autograd.graph, name)
    default = name.startswith("set_warn")
    assert setter(not default) is None
    assert setter(default) is None
