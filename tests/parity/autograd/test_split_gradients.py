"""The gradients of split / chunk / unbind vs PyTorch: every piece used, some unused (their gradient is
zeros), pieces reused, on views of a base written in place before the split."""

from helpers import torch_or_skip

torch = torch_or_skip()

import itertools  # noqa: E402

import mindtorch as mt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

SPLITS = [
    "x.split(2, {d})",
    "x.split([1, 2, 1], {d})",
    "L.split_with_sizes(x, [3, 1], {d})",
    "x.chunk(3, {d})",
    "x.chunk(4, {d})",
    "x.unbind({d})",
    "L.unsafe_split(x, 3, {d})",
    "L.unsafe_chunk(x, 2, {d})",
]


def _cases():
    for expr, d, keep in itertools.product(SPLITS, (0, 1, -1), ("all", "first", "last", "twice")):
        yield expr.format(d=d), keep


def _grad(lib, expr, keep, written):
    rng = np.random.default_rng(0)
    leaf = lib.tensor(rng.standard_normal((4, 4, 4)), dtype=lib.float64, requires_grad=True)
    x = leaf * 1
    if written:
        x.mul_(2)  # the base's version moves before the split
    parts = eval(expr, {"x": x, "L": lib})
    chosen = {"all": parts, "first": parts[:1], "last": parts[-1:], "twice": (parts[0], parts[0])}[keep]
    total = sum(((k + 1) * p * p).sum() for k, p in enumerate(chosen))
    total.backward()
    return leaf.grad.numpy()


@pytest.mark.parametrize("written", [False, True])
@pytest.mark.parametrize("expr,keep", list(_cases()))
def test_split_gradient_matches_torch(expr, keep, written):
    np.testing.assert_allclose(_grad(mt, expr, keep, written), _grad(torch, expr, keep, written), rtol=1e-12)


def test_split_backward_is_one_node():
    x = mt.randn(3, 6, requires_grad=True)
    q, k, v = (x * 1).split(2, 1)
    assert q.grad_fn is k.grad_fn is v.grad_fn
    assert q.grad_fn.name() == "SplitBackward0"
    assert [p._output_nr for p in (q, k, v)] == [0, 1, 2]


def test_empty_split_is_a_view_not_the_input():
    x = mt.zeros(0, 3, requires_grad=True)
    (piece,) = x.split(2)
    assert piece is not x and piece._base is x and x.grad_fn is None
