"""conv2d's three gradients against PyTorch's: computed together from one dense copy of the incoming
gradient, whether it arrives broadcast (a sum or mean loss), transposed or dense; over which inputs want
a gradient, groups, strides, no bias, and double backward. And the sums over leading and trailing axes
at once (the bias gradient's (0, 2, 3)) that the cpu backend does as row sums."""

import mindtorch
import numpy as np
import pytest
from helpers import torch_or_skip

torch = torch_or_skip()


def _v(shape, seed):
    return np.random.default_rng(seed).standard_normal(shape)


LOSSES = {
    "sum": lambda y: y.sum(),
    "mean": lambda y: y.mean(),
    "transposed": lambda y: (y.permute(0, 2, 3, 1) * y.permute(0, 2, 3, 1).detach()).sum(),
    "dense": lambda y: (y * y.detach()).sum(),
}


@pytest.mark.parametrize("loss", list(LOSSES))
@pytest.mark.parametrize(
    "needs, bias, groups, stride",
    [
        ((True, True, True), True, 1, 1),
        ((False, True, True), True, 1, 1),
        ((True, False, False), True, 1, 2),
        ((True, True, False), False, 1, 1),
        ((True, True, True), True, 2, 1),
    ],
    ids=repr,
)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gradients_match_pytorch(loss, needs, bias, groups, stride, dtype):
    res = []
    for lib in (mindtorch, torch):
        dt = getattr(lib, dtype)
        x = lib.tensor(_v((3, 4, 9, 9), 0), dtype=dt).requires_grad_(needs[0])
        w = lib.tensor(_v((6, 4 // groups, 3, 3), 1), dtype=dt).requires_grad_(needs[1])
        b = lib.tensor(_v((6,), 2), dtype=dt).requires_grad_(needs[2]) if bias else None
        y = lib.nn.functional.conv2d(x, w, b, stride=stride, padding=1, groups=groups)
        LOSSES[loss](y).backward()
        res.append([None if t is None or t.grad is None else t.grad.double().numpy() for t in (x, w, b)])
    tol = 1e-4 if dtype == "float32" else 1e-10
    for a, c in zip(*res):
        assert (a is None) == (c is None)
        if a is not None:
            np.testing.assert_allclose(a, c, rtol=tol, atol=tol)


def test_double_backward_matches_pytorch():
    res = []
    for lib in (mindtorch, torch):
        x = lib.tensor(_v((2, 3, 6, 6), 0), requires_grad=True)
        w = lib.tensor(_v((4, 3, 3, 3), 1), requires_grad=True)
        b = lib.tensor(_v((4,), 2), requires_grad=True)
        y = lib.nn.functional.conv2d(x, w, b, padding=1).tanh().sum()
        gx, gw, gb = lib.autograd.grad(y, (x, w, b), create_graph=True)
        (gx.square().sum() + gw.sin().sum() + gb.square().sum()).backward()
        res.append([t.grad.numpy() for t in (x, w, b)])
    for a, c in zip(*res):
        np.testing.assert_allclose(a, c, rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("dims", [(0, 2, 3), (0, 3), (0, 1, 3), (0, 2), (0, 1, 2), (1, 2, 3), (1, 3)], ids=repr)
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_sums_over_leading_and_trailing_axes_match_pytorch(dims, keepdim, dtype, layout):
    got = []
    for lib in (mindtorch, torch):
        t = lib.tensor(_v((8, 6, 16, 16), 3), dtype=getattr(lib, dtype))
        if layout == "transposed":
            t = t.transpose(1, 3)
        r = t.sum(dims, keepdim=keepdim)
        got.append((tuple(r.shape), r.double().numpy()))
    assert got[0][0] == got[1][0]
    np.testing.assert_allclose(got[0][1], got[1][1], rtol=1e-5 if dtype == "float32" else 1e-12, atol=1e-4)
