"""autograd.functional against PyTorch's: vjp, jvp, jacobian, hessian, vhp and hvp give the same values in
the same tensor/tuple forms over a sweep of functions, build graphs with create_graph (checked with
gradcheck), and raise PyTorch's errors for bad input and in strict mode."""

import mindtorch
import numpy as np
import pytest
from helpers import raises_alike, torch_or_skip

torch = torch_or_skip()


def _inputs(lib, tupled, seed=0):
    rng = np.random.default_rng(seed)
    a, b = rng.standard_normal((3,)), rng.standard_normal((2, 3))
    make = lambda v: lib.tensor(v, dtype=lib.float64)
    return (make(a), make(b)) if tupled else make(a)


# functions of one input (tensor form) and of two (tuple form); "lib" gives the namespace
ONE = {
    "square": lambda lib: lambda x: x**2,
    "outer": lambda lib: lambda x: x[:, None] * x.exp()[None, :],
    "pair": lambda lib: lambda x: (x.sin(), (x * x).sum()),
    "linear": lambda lib: lambda x: 3 * x,
    "unused": lambda lib: lambda x: lib.ones(2, dtype=lib.float64),
}
TWO = {
    "matvec": lambda lib: lambda x, m: m @ x.tanh(),
    "pair": lambda lib: lambda x, m: (m.sum(0) * x, (x**3).sum() + m.cos().sum()),
    "first_only": lambda lib: lambda x, m: x.exp(),
}
SCALAR_ONE = {
    "cubic": lambda lib: lambda x: (x**3).sum(),
    "logsumexp": lambda lib: lambda x: x.exp().sum().log(),
    "linear": lambda lib: lambda x: x.sum() * 2,
}
SCALAR_TWO = {
    "bilinear": lambda lib: lambda x, m: (m @ x).pow(2).sum(),
    "first_only": lambda lib: lambda x, m: (x**4).sum(),
}


def _same(ours, theirs, check_requires_grad=True):
    """Same nesting of tuples (or lists) and tensors with equal values."""
    if isinstance(theirs, (tuple, list)):
        assert type(ours) is type(theirs) and len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            _same(o, t, check_requires_grad)
        return
    assert isinstance(ours, mindtorch.Tensor) and isinstance(theirs, torch.Tensor)
    assert tuple(ours.shape) == tuple(theirs.shape) and str(ours.dtype)[-7:] == str(theirs.dtype)[-7:]
    assert not check_requires_grad or ours.requires_grad == theirs.requires_grad
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-10, atol=1e-12)


def _call(lib, name, fn_table, key, tupled, **kwargs):
    fn = fn_table[key](lib)
    inputs = _inputs(lib, tupled)
    return getattr(lib.autograd.functional, name)(fn, inputs, **kwargs)


def _v_like(lib, template):
    if isinstance(template, tuple):
        return tuple(_v_like(lib, t) for t in template)
    return lib.linspace(-1, 2, template.numel(), dtype=lib.float64).reshape(template.shape)


SWEEP = [(k, False) for k in ONE] + [(k, True) for k in TWO]


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("key,tupled", SWEEP)
def test_jacobian(key, tupled, create_graph):
    table = TWO if tupled else ONE
    _same(
        _call(mindtorch, "jacobian", table, key, tupled, create_graph=create_graph),
        _call(torch, "jacobian", table, key, tupled, create_graph=create_graph),
    )


@pytest.mark.parametrize("key,tupled", SWEEP)
def test_jacobian_vectorize_and_forward_mode_accepted(key, tupled):
    table = TWO if tupled else ONE
    for kwargs in (dict(vectorize=True), dict(vectorize=True, strategy="forward-mode")):
        _same(
            _call(mindtorch, "jacobian", table, key, tupled, **kwargs),
            _call(torch, "jacobian", table, key, tupled, **kwargs),
        )


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("name", ["vjp", "jvp"])
@pytest.mark.parametrize("key,tupled", SWEEP)
def test_vjp_jvp(name, key, tupled, create_graph):
    table = TWO if tupled else ONE

    def run(lib):
        fn, inputs = table[key](lib), _inputs(lib, tupled)
        template = fn(*inputs) if tupled else fn(inputs)
        v = _v_like(lib, template if name == "vjp" else inputs)
        return getattr(lib.autograd.functional, name)(fn, inputs, v, create_graph=create_graph)

    _same(run(mindtorch), run(torch))


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("name", ["hessian", "vhp", "hvp"])
@pytest.mark.parametrize("key,tupled", [(k, False) for k in SCALAR_ONE] + [(k, True) for k in SCALAR_TWO])
def test_second_order(name, key, tupled, create_graph):
    table = SCALAR_TWO if tupled else SCALAR_ONE

    def run(lib):
        fn, inputs = table[key](lib), _inputs(lib, tupled)
        F = lib.autograd.functional
        if name == "hessian":
            return F.hessian(fn, inputs, create_graph=create_graph)
        return getattr(F, name)(fn, inputs, _v_like(lib, inputs), create_graph=create_graph)

    _same(run(mindtorch), run(torch))


def test_hessian_outer_forward_mode_with_vectorize():
    """The same values and nesting; PyTorch's forward-over-reverse result keeps a graph, ours is detached
    as every other create_graph=False result."""
    run = lambda lib: lib.autograd.functional.hessian(
        SCALAR_TWO["bilinear"](lib), _inputs(lib, True), vectorize=True, outer_jacobian_strategy="forward-mode"
    )
    _same(run(mindtorch), run(torch), check_requires_grad=False)


def test_v_may_be_omitted_for_single_elements():
    for lib in (mindtorch, torch):
        x = lib.tensor([2.0], dtype=lib.float64)
        F = lib.autograd.functional
        assert F.vjp(lambda x: x**3, x)[1].item() == 12.0
        assert F.jvp(lambda x: x**3, x)[1].item() == 12.0
        assert F.vhp(lambda x: (x**3).sum(), x)[1].item() == 12.0
        assert F.hvp(lambda x: (x**3).sum(), x)[1].item() == 12.0


def test_inputs_keep_no_grad_and_results_are_detached():
    x = mindtorch.tensor([1.0, 2.0], dtype=mindtorch.float64, requires_grad=True)
    out, vjp = mindtorch.autograd.functional.vjp(
        lambda t: t * x.detach(), x, mindtorch.ones(2, dtype=mindtorch.float64)
    )
    assert x.grad is None and not out.requires_grad and not vjp.requires_grad


def test_create_graph_results_are_differentiable():
    F = mindtorch.autograd.functional
    x = mindtorch.tensor([0.3, -0.7, 1.1], dtype=mindtorch.float64, requires_grad=True)
    f = lambda t: t.sin() * t.sum()
    assert mindtorch.autograd.gradcheck(lambda t: F.jacobian(f, t, create_graph=True), (x,))
    assert mindtorch.autograd.gradcheck(lambda t: F.hessian(lambda u: (u.exp() * u).sum(), t, create_graph=True), (x,))
    v = mindtorch.tensor([1.0, 2.0, -1.0], dtype=mindtorch.float64)
    assert mindtorch.autograd.gradcheck(lambda t: F.jvp(f, t, v, create_graph=True)[1], (x,))
    assert mindtorch.autograd.gradcheck(lambda t: F.vjp(f, t, v, create_graph=True)[1], (x,))
    assert mindtorch.autograd.gradcheck(lambda t: F.hvp(lambda u: (u**4).sum(), t, v, create_graph=True)[1], (x,))
    assert mindtorch.autograd.gradcheck(lambda t: F.vhp(lambda u: (u**4).sum(), t, v, create_graph=True)[1], (x,))


def test_create_graph_gradients_match_pytorch():
    def run(lib):
        x = lib.tensor([0.3, -0.7, 1.1], dtype=lib.float64, requires_grad=True)
        jac = lib.autograd.functional.jacobian(lambda t: t.sin() * t.sum(), x, create_graph=True)
        (jac**2).sum().backward()
        return x.grad

    np.testing.assert_allclose(run(mindtorch).numpy(), run(torch).numpy(), rtol=1e-12)


def _x(lib, n=3):
    return lib.arange(1.0, n + 1, dtype=lib.float64)


ERRORS = {
    "inputs_list": lambda lib: lib.autograd.functional.jacobian(lambda x: x, [_x(lib)]),
    "inputs_number": lambda lib: lib.autograd.functional.vjp(lambda x: x, 3.0),
    "inputs_tuple_entry": lambda lib: lib.autograd.functional.jvp(lambda x, y: x, (_x(lib), 2), (_x(lib), _x(lib))),
    "output_not_tensor": lambda lib: lib.autograd.functional.jacobian(lambda x: x.tolist(), _x(lib)),
    "vjp_v_none": lambda lib: lib.autograd.functional.vjp(lambda x: x, _x(lib)),
    "jvp_v_none": lambda lib: lib.autograd.functional.jvp(lambda x: x, _x(lib)),
    "vhp_v_none": lambda lib: lib.autograd.functional.vhp(lambda x: x.sum(), _x(lib)),
    "hvp_v_none": lambda lib: lib.autograd.functional.hvp(lambda x: x.sum(), _x(lib)),
    "v_length": lambda lib: lib.autograd.functional.vjp(lambda x: (x, x), _x(lib), (_x(lib),)),
    "v_single": lambda lib: lib.autograd.functional.vjp(lambda x: x, _x(lib), (_x(lib), _x(lib))),
    "v_size": lambda lib: lib.autograd.functional.jvp(lambda x: x, _x(lib), _x(lib, 4)),
    "v_size_entry": lambda lib: lib.autograd.functional.jvp(lambda x, y: x, (_x(lib), _x(lib)), (_x(lib), _x(lib, 2))),
    "hessian_tuple_out": lambda lib: lib.autograd.functional.hessian(lambda x: (x.sum(),), _x(lib)),
    "hessian_many": lambda lib: lib.autograd.functional.hessian(lambda x: x**2, _x(lib)),
    "vhp_many": lambda lib: lib.autograd.functional.vhp(lambda x: x**2, _x(lib), _x(lib)),
    "hvp_tuple_out": lambda lib: lib.autograd.functional.hvp(lambda x: (x.sum(),), _x(lib), _x(lib)),
    "strategy": lambda lib: lib.autograd.functional.jacobian(lambda x: x, _x(lib), strategy="sideways"),
    "hessian_strategy": lambda lib: lib.autograd.functional.hessian(
        lambda x: x.sum(), _x(lib), outer_jacobian_strategy="up"
    ),
    "forward_create_graph": lambda lib: lib.autograd.functional.jacobian(
        lambda x: x, _x(lib), create_graph=True, strategy="forward-mode"
    ),
    "forward_strict": lambda lib: lib.autograd.functional.jacobian(
        lambda x: x, _x(lib), strict=True, strategy="forward-mode", vectorize=True
    ),
    "forward_loop": lambda lib: lib.autograd.functional.jacobian(lambda x: x, _x(lib), strategy="forward-mode"),
    "vectorize_strict": lambda lib: lib.autograd.functional.jacobian(lambda x: x, _x(lib), strict=True, vectorize=True),
    "empty_output": lambda lib: lib.autograd.functional.jacobian(lambda x: x[:0], _x(lib)),
    # strict mode
    "strict_output_constant": lambda lib: lib.autograd.functional.vjp(
        lambda x: lib.ones(3, dtype=lib.float64), _x(lib), _x(lib), strict=True
    ),
    "strict_vjp_unused": lambda lib: lib.autograd.functional.vjp(
        lambda x, y: x * 2, (_x(lib), _x(lib)), _x(lib), strict=True
    ),
    "strict_jacobian_unused": lambda lib: lib.autograd.functional.jacobian(
        lambda x, y: x * 2, (_x(lib), _x(lib)), strict=True
    ),
    "strict_jvp_unused": lambda lib: lib.autograd.functional.jvp(
        lambda x, y: x * 2, (_x(lib), _x(lib)), (_x(lib), _x(lib)), strict=True
    ),
    "strict_hessian_linear": lambda lib: lib.autograd.functional.hessian(lambda x: x.sum() * 2, _x(lib), strict=True),
    "strict_vhp_linear": lambda lib: lib.autograd.functional.vhp(lambda x: x.sum() * 2, _x(lib), _x(lib), strict=True),
    "strict_hvp_linear": lambda lib: lib.autograd.functional.hvp(lambda x: x.sum() * 2, _x(lib), _x(lib), strict=True),
    "strict_vhp_unused": lambda lib: lib.autograd.functional.vhp(
        lambda x, y: (x**3).sum(), (_x(lib), _x(lib)), (_x(lib), _x(lib)), strict=True
    ),
    "strict_jacobian_create_graph": lambda lib: lib.autograd.functional.jacobian(
        lambda x: x * 2, _x(lib), strict=True, create_graph=True
    ),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_match(case):
    raises_alike(ERRORS[case])


@pytest.mark.parametrize("case", ["strict_ok_jacobian", "strict_ok_hvp"])
def test_strict_mode_accepts_dependent_functions(case):
    def run(lib):
        F, x = lib.autograd.functional, _x(lib)
        if case == "strict_ok_jacobian":
            return F.jacobian(lambda t: t.exp(), x, strict=True, create_graph=True)
        return F.hvp(lambda t: (t**3).sum(), x, x, strict=True)

    _same(run(mindtorch), run(torch))


def test_module_paths():
    import mindtorch.autograd.functional as F

    assert sorted(F.__all__) == sorted(torch.autograd.functional.__all__)
    assert mindtorch.autograd.functional is F
