"""Argument forms PyTorch's parser accepts, generated over the op table: NumPy's axis= / keepdims= for
every op with a dim / keepdim parameter, and sizes given as a list followed by more positionals
(`x.split([1, 3], 1)`) or packed as varargs (`x.view(2, 6)`)."""

import inspect

import numpy as np
import pytest
from helpers import torch_or_skip

torch = torch_or_skip()

import mindtorch as mt  # noqa: E402
from mindtorch.ops import BY_NAME  # noqa: E402


def _ops_with(param):
    names = set()
    for name, ops in BY_NAME.items():
        if name.startswith("_") or name.endswith("_"):
            continue
        if any(any(p.name == param for p in op.params) for op in ops) and hasattr(torch, name) and hasattr(mt, name):
            names.add(name)
    return sorted(names)


X = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)


def _outcome(fn):
    """("raises", class name), or the result's arrays (a tuple for multiple outputs)."""
    try:
        r = fn()
    except Exception as exc:
        return ("raises", type(exc).__name__)
    if isinstance(r, (tuple, list)):
        return ("values",) + tuple(np.asarray(t.detach().float().numpy()) for t in r)
    return ("values", np.asarray(r.detach().float().numpy()))


def _raised(r):
    return r[0] == "raises"


def _same(a, b):
    if _raised(a) or _raised(b):
        return a == b
    return len(a) == len(b) and all(
        np.shape(x) == np.shape(y) and np.allclose(x, y, rtol=1e-5, atol=1e-6, equal_nan=True)
        for x, y in zip(a[1:], b[1:])
    )


@pytest.mark.parametrize("name", _ops_with("dim"))
def test_axis_and_keepdims_are_accepted_like_pytorch(name):
    for kw in ({"axis": 1}, {"axis": 0, "keepdims": True}):
        m = _outcome(lambda: getattr(mt, name)(mt.tensor(X), **kw))
        t = _outcome(lambda: getattr(torch, name)(torch.tensor(X), **kw))
        if _raised(t) and m != t:
            # PyTorch refuses this call for this op (a required argument is missing, a list is expected):
            # so must we, with the same class
            assert _raised(m), (name, kw, m, t)
            continue
        assert _same(m, t), (name, kw, m, t)


def test_python_bound_ops_are_those_pytorch_binds_in_python():
    """The ops taking no NumPy spellings are exactly those with a dim whose torch function is Python code."""
    from mindtorch.ops.codegen import PYTHON_BOUND

    assert {n for n in _ops_with("dim") if inspect.isfunction(getattr(torch, n))} == PYTHON_BOUND


@pytest.mark.parametrize(
    "call",
    [
        "x.split([1, 3], 1)",
        "x.split([1, 3], dim=1)",
        "L.split(x, [2, 1], 0)",
        "x.split(2, 1)",
        "x.view(4, 3)",
        "x.view([2, 6])",
        "x.reshape(6, 2)",
        "x.reshape((12,))",
        "x.permute(1, 0)",
        "x.permute([1, 0])",
        "x.repeat(2, 1)",
        "x.repeat([1, 2])",
        "x.expand(2, 3, 4)",
        "x.expand([2, 3, 4])",
        "x.flip(0)",
        "x.flip([0, 1])",
        "x.tile(2)",
        "x.tile([2, 1])",
        "x.sum((0, 1))",
        "x.mean([0])",
        "x.amax(dim=(0, 1))",
        "x.std((1,), keepdim=True)",
        "x.squeeze(0)",
        "x.unsqueeze(-1)",
        "x.transpose(0, 1)",
        "x.narrow(1, 1, 2)",
        "x.chunk(2, 1)",
        "x.tensor_split(3, 1)",
        "x.tensor_split([1, 2], 1)",
        "x.roll(1, 1)",
        "x.roll([1, 1], [0, 1])",
        "x.logsumexp(dim=-1)",
        "x.logsumexp(1, keepdim=True)",
        "x.view(size=(4, 3))",
        "x.permute(dims=(1, 0))",
        "x.view()",
        "x.view(4, 3, size=(4, 3))",
        "L.block_diag()",
        "x.repeat(repeats=(1, 2))",
    ],
)
def test_overload_forms(call):
    m = _outcome(lambda: eval(call, {"x": mt.tensor(X).reshape(3, 4), "L": mt}))
    t = _outcome(lambda: eval(call, {"x": torch.tensor(X).reshape(3, 4), "L": torch}))
    assert _same(m, t), (call, m, t)


BOOL_FOR_INT = [
    "x.sum(True)",
    "x.size(True)",
    "x.stride(True)",
    "x.view(True)",
    "x.transpose(True, 0)",
    "x.narrow(0, True, 1)",
    "x.unsqueeze(True)",
    "L.full((True, 2), 1.0)",
    "x.flip(True)",
    "L.ones(True)",
    "x.mean(True)",
    "x.topk(True)",
    "x.new_zeros(True)",
    "x.squeeze(True)",
    "L.cumsum(x, True)",
    "x.roll(True)",
    "L.randint(True, (2,))",
    "L.std(x, False)",
    "x.var(True)",
    "x.std(0, False)",
]


@pytest.mark.parametrize("expr", BOOL_FOR_INT)
def test_a_bool_is_no_int_to_the_parser(expr):
    """PyTorch's parser refuses a bool where it wants an int; where an overload takes a bool (std/var's
    unbiased), that overload is chosen."""
    results = []
    for lib in (torch, mt):
        try:
            r = eval(expr, {"x": lib.arange(6.0).reshape(2, 3), "L": lib})
            results.append(("ok", tuple(r.shape), r.tolist()))
        except Exception as exc:  # the class is what is compared
            results.append((type(exc).__name__,))
    assert results[0] == results[1]
