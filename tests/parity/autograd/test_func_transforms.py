"""torch.func's jvp, linearize, functionalize, stack_module_state, replace_all_batch_norm_modules_ and
debug_unwrap against PyTorch's: the same values (jvp over a sweep of functions, tuple outputs, several
primals, has_aux), gradients through jvp, and PyTorch's errors."""

import mindtorch
import numpy as np
import pytest
from helpers import raises_alike, torch_or_skip

torch = torch_or_skip()

FUNCS = {
    "sin_mul": lambda lib, x, y: x.sin() * y,
    "matmul": lambda lib, x, y: x.reshape(2, 3) @ y.reshape(3, 2),
    "softmax": lambda lib, x, y: lib.softmax(x * y, dim=0),
    "tuple": lambda lib, x, y: (x.exp().sum(), lib.tanh(x - y)),
    "pow_cat": lambda lib, x, y: lib.cat([x.pow(3), y.abs().sqrt() * x]),
    "y_only": lambda lib, x, y: y.cos(),
}


def _inputs(lib, requires_grad=False):
    x = lib.tensor([0.3, -0.2, 0.9, 1.4, -1.1, 0.5], dtype=lib.float64, requires_grad=requires_grad)
    y = lib.tensor([1.2, 0.7, -0.4, 0.1, 0.8, -0.6], dtype=lib.float64, requires_grad=requires_grad)
    tx = lib.tensor([1.0, 0.5, -0.3, 0.2, 0.0, 2.0], dtype=lib.float64)
    ty = lib.tensor([-0.7, 0.1, 0.4, 1.5, -0.2, 0.3], dtype=lib.float64)
    return x, y, tx, ty


def _np(v):
    if isinstance(v, (list, tuple)):
        return [_np(e) for e in v]
    return v.detach().numpy() if hasattr(v, "detach") else v


def _close(a, b):
    for p, q in zip(a if isinstance(a, list) else [a], b if isinstance(b, list) else [b]):
        if isinstance(p, list):
            _close(p, q)
        else:
            np.testing.assert_allclose(p, q, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", list(FUNCS))
def test_jvp_and_linearize(name):
    def run(lib):
        x, y, tx, ty = _inputs(lib)
        f = FUNCS[name]
        out, tangent = lib.func.jvp(lambda a, b: f(lib, a, b), (x, y), (tx, ty))
        lin_out, jvp_fn = lib.func.linearize(lambda a, b: f(lib, a, b), x, y)
        return [out, tangent, lin_out, jvp_fn(tx, ty), jvp_fn(ty, tx)]

    _close(_np(run(mindtorch)), _np(run(torch)))


def test_jvp_has_aux_and_nested_primals():
    def run(lib):
        x, y, tx, ty = _inputs(lib)
        out, t, aux = lib.func.jvp(
            lambda p: ((p["a"] * p["b"][0]).sum(), p["a"] + 1),
            ({"a": x, "b": [y]},),
            ({"a": tx, "b": [ty]},),
            has_aux=True,
        )
        return [out, t, aux]

    _close(_np(run(mindtorch)), _np(run(torch)))


def test_gradient_through_jvp():
    def run(lib):
        x, y, tx, ty = _inputs(lib, requires_grad=True)
        _, t = lib.func.jvp(lambda a: (a.sin() * a).exp(), (x,), (tx,))
        t.sum().backward()
        g = lib.func.grad(lambda a: lib.func.jvp(lambda b: b.tanh() * y.detach(), (a,), (ty,))[1].sum())(x.detach())
        return [x.grad, g]

    _close(_np(run(mindtorch)), _np(run(torch)))


ERRORS = {
    "primals_not_tuple": lambda lib, x, t: lib.func.jvp(lambda a: a, x, (t,)),
    "empty": lambda lib, x, t: lib.func.jvp(lambda: x, (), ()),
    "non_tensor_primal": lambda lib, x, t: lib.func.jvp(lambda a: a, (1.0,), (1.0,)),
    "non_tensor_output": lambda lib, x, t: lib.func.jvp(lambda a: 3, (x,), (t,)),
    "aux_not_pair": lambda lib, x, t: lib.func.jvp(lambda a: a, (x,), (t,), has_aux=True),
    "linearize_shape": lambda lib, x, t: lib.func.linearize(lambda a: a.sin(), x)[1](t[:2]),
    "linearize_dtype": lambda lib, x, t: lib.func.linearize(lambda a: a.sin(), x)[1](t.float()),
    "functionalize_mode": lambda lib, x, t: lib.func.functionalize(lambda a: a, remove="views"),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_errors(case):
    raises_alike(lambda lib: ERRORS[case](lib, *_inputs(lib)[::2]))


def test_errors_of_structure_class_only():
    """The messages print the pytree structures, which each library prints its own way."""
    for lib in (mindtorch, torch):
        x = _inputs(lib)[0]
        with pytest.raises(RuntimeError, match="same argspec"):
            lib.func.linearize(lambda a: a.sin(), x)[1](x, x)
        with pytest.raises(RuntimeError, match="same python structure"):
            lib.func.jvp(lambda a, b: a, (x, x), (x,))


@pytest.mark.parametrize("remove", ["mutations", "mutations_and_views"])
def test_functionalize_keeps_values_and_input_mutations(remove):
    def f(lib, a):
        b = a.clone()
        b.view(-1)[1:3].mul_(2)
        a.add_(1)
        return b * a

    def run(lib):
        x = _inputs(lib)[0]
        out = lib.func.functionalize(lambda a: f(lib, a), remove=remove)(x)
        return [out, x]

    _close(_np(run(mindtorch)), _np(run(torch)))


def _models(lib, n=3, requires_grad=True):
    lib.manual_seed(0)
    models = [lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.BatchNorm1d(2)) for _ in range(n)]
    for k, m in enumerate(models):
        with lib.no_grad():
            for j, p in enumerate(m.parameters()):
                p.copy_(lib.arange(p.numel(), dtype=p.dtype).reshape(p.shape) * 0.1 * (k + 1) - j)
                p.requires_grad_(requires_grad)
    return models


def test_stack_module_state():
    def run(lib):
        params, buffers = lib.func.stack_module_state(_models(lib))
        flags = [(k, p.requires_grad, p.is_leaf) for k, p in params.items()]
        return [sorted(params), sorted(buffers), list(params.values()), list(buffers.values()), flags]

    ours, theirs = run(mindtorch), run(torch)
    assert ours[0] == theirs[0] and ours[1] == theirs[1] and ours[4] == theirs[4]
    _close(_np(ours[2] + ours[3]), _np(theirs[2] + theirs[3]))


STACK_ERRORS = {
    "empty": lambda lib: lib.func.stack_module_state([]),
    "modes": lambda lib: lib.func.stack_module_state([_models(lib)[0], _models(lib)[1].eval()]),
    "classes": lambda lib: lib.func.stack_module_state([lib.nn.Linear(2, 2), lib.nn.Bilinear(2, 2, 2)]),
    "requires_grad": lambda lib: lib.func.stack_module_state(_models(lib, 1) + _models(lib, 1, False)),
}


@pytest.mark.parametrize("case", list(STACK_ERRORS))
def test_stack_module_state_errors(case):
    raises_alike(STACK_ERRORS[case])


def test_replace_all_batch_norm_modules_():
    def run(lib):
        model = _models(lib, 1)[0]
        model.append(lib.nn.Sequential(lib.nn.BatchNorm1d(2, track_running_stats=False)))
        root = lib.func.replace_all_batch_norm_modules_(model)
        x = lib.tensor([[0.5, -1.0, 2.0], [1.5, 0.2, -0.3], [0.0, 0.4, 0.9]], dtype=lib.float32)
        bns = [m for m in root.modules() if isinstance(m, lib.nn.BatchNorm1d)]
        state = [(m.running_mean, m.running_var, m.num_batches_tracked, m.track_running_stats) for m in bns]
        return [root is model, state, root.eval()(x)]

    ours, theirs = run(mindtorch), run(torch)
    assert ours[:2] == theirs[:2]
    np.testing.assert_allclose(_np(ours[2]), _np(theirs[2]), rtol=1e-5)


def test_debug_unwrap_of_plain_tensors():
    for lib in (mindtorch, torch):
        x = _inputs(lib)[0]
        assert lib.func.debug_unwrap(x) is x and lib.func.debug_unwrap(x, recurse=False) is x
