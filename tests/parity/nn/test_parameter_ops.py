"""Ops on nn.Parameter against PyTorch: they take the same fast paths as on plain tensors (a Parameter
is the Tensor it holds), so results are plain Tensors with PyTorch's values and gradients and the graph a plain
leaf gets, views of a Parameter share it, and errors are PyTorch's. Other Tensor subclasses take dispatch's general path."""

import mindtorch
import numpy as np
import pytest
from helpers import torch_or_skip

torch = torch_or_skip()


def _params(lib, plain=False):
    g = np.random.default_rng(0)
    wrap = (lambda t: t.requires_grad_(True)) if plain else lib.nn.Parameter
    w = wrap(lib.tensor(g.standard_normal((3, 4)).astype(np.float32)))
    b = wrap(lib.tensor(g.standard_normal(3).astype(np.float32)))
    x = lib.tensor(g.standard_normal((2, 5, 4)).astype(np.float32), requires_grad=True)
    return x, w, b


CALLS = {
    "linear": lambda lib, x, w, b: lib.nn.functional.linear(x, w, b),
    "layer_norm": lambda lib, x, w, b: lib.nn.functional.layer_norm(x, (4,), w[0], w[1]),
    "embedding": lambda lib, x, w, b: lib.nn.functional.embedding(lib.tensor([[0, 2], [1, 1]]), w),
    "t": lambda lib, x, w, b: w.t(),
    "view": lambda lib, x, w, b: w.view(12),
    "mul": lambda lib, x, w, b: b * w.sum(1),
    "add_first": lambda lib, x, w, b: w + 1,
    "cat": lambda lib, x, w, b: lib.cat([w, w * 2]),
    "matmul": lambda lib, x, w, b: x @ w.t(),
}


def _grad_fns(t):
    out, seen, todo = [], set(), [t.grad_fn]
    while todo:
        g = todo.pop()
        if g is None or id(g) in seen:
            continue
        seen.add(id(g))
        out.append(g.name())
        todo += [n for n, _ in g.next_functions]
    return sorted(out)


@pytest.mark.parametrize("name", list(CALLS))
def test_ops_on_parameters_match_pytorch(name):
    res = {}
    for lib, plain in ((mindtorch, False), (torch, False), ("plain", True)):
        lib = mindtorch if lib == "plain" else lib
        x, w, b = _params(lib, plain)
        y = CALLS[name](lib, x, w, b)
        assert type(y) is lib.Tensor and y.requires_grad
        y.float().square().sum().backward()
        res["plain" if plain else lib] = (
            y.detach().numpy(),
            _grad_fns(y),
            [None if t.grad is None else t.grad.numpy() for t in (x, w, b)],
            (y._base is w) if name in ("t", "view") else None,
        )
    ours, theirs = res[mindtorch], res[torch]
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-5, atol=1e-6)
    assert ours[1] == res["plain"][1]  # the graph a Parameter gets is a plain leaf's
    for a, b in zip(ours[2], theirs[2]):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
    assert ours[3] == theirs[3]


def test_parameter_errors_match_pytorch():
    for lib in (mindtorch, torch):
        x, w, b = _params(lib)
        with pytest.raises(RuntimeError):
            lib.nn.functional.linear(x, w.t(), b)
        with pytest.raises(RuntimeError):
            lib.nn.functional.linear(x, w, b.double())


def test_no_grad_and_frozen_parameters():
    for lib in (mindtorch, torch):
        x, w, b = _params(lib)
        w.requires_grad_(False)
        y = lib.nn.functional.linear(x.detach(), w, b)
        assert y.requires_grad  # through b
        with lib.no_grad():
            z = lib.nn.functional.linear(x, w, b)
        assert not z.requires_grad and z.grad_fn is None


def test_other_subclasses_still_compute():
    class Sub(mindtorch.Tensor):
        pass

    x = mindtorch.arange(6.0).reshape(2, 3).as_subclass(Sub)
    y = mindtorch.nn.functional.linear(x, mindtorch.ones(4, 3), mindtorch.zeros(4))
    np.testing.assert_array_equal(y.numpy(), np.arange(6.0).reshape(2, 3).sum(1, keepdims=True).repeat(4, 1))
    assert type(x.t()) is mindtorch.Tensor
