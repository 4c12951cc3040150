"""linear's gradients against PyTorch's: one linear_backward op computes all three (the cpu backend's
single kernel; its decomposition elsewhere and whenever a graph of the gradients is built), over input
ranks, bias shapes, which inputs require grad, dtypes, empty batches, non-contiguous gradients and
double backward. The kernel and the decomposition it stands in for are compared directly too."""

import mindtorch
import numpy as np
import pytest
from helpers import torch_or_skip

torch = torch_or_skip()


def _data(shape, dtype, seed):
    r = np.random.default_rng(seed)
    v = r.standard_normal(shape)
    if dtype in ("complex64", "complex128"):
        v = v + 1j * r.standard_normal(shape)
    return v.astype(dtype)


def _grads(lib, x_shape, out, bias_shape, needs, dtype, transpose_out=False):
    k = x_shape[-1] if x_shape else 1
    dt = getattr(lib, dtype)
    x = lib.tensor(_data(x_shape, dtype, 0), dtype=dt).requires_grad_(needs[0])
    w = lib.tensor(_data((out, k), dtype, 1), dtype=dt).requires_grad_(needs[1])
    b = None if bias_shape is None else lib.tensor(_data(bias_shape, dtype, 2), dtype=dt).requires_grad_(needs[2])
    y = lib.nn.functional.linear(x, w, b)
    if transpose_out and y.dim() >= 2:  # the gradient arrives non-contiguous
        y = y.transpose(0, -1)
    u = lib.tensor(_data(tuple(y.shape), dtype, 3), dtype=dt)
    (y * u).real.sum().backward() if dtype.startswith("complex") else (y * u).sum().backward()
    return [
        None
        if t is None or t.grad is None
        else t.grad.to(lib.complex128 if dtype.startswith("complex") else lib.float64).numpy()
        for t in (x, w, b)
    ]


CASES = [
    ((4,), 3, (3,)),
    ((2, 4), 3, (3,)),
    ((2, 5, 4), 3, (3,)),
    ((2, 2, 5, 4), 6, None),
    ((0, 4), 3, (3,)),
    ((2, 0, 4), 3, (3,)),
    ((2, 5, 4), 3, (1, 3)),
    ((2, 5, 4), 3, ()),
    ((2, 5, 4), 3, (1,)),
]


@pytest.mark.parametrize("x_shape, out, bias_shape", CASES, ids=repr)
@pytest.mark.parametrize(
    "needs", [(True, True, True), (True, False, False), (False, True, False), (False, False, True)], ids=repr
)
def test_gradients_match_pytorch(x_shape, out, bias_shape, needs):
    if bias_shape is None and needs == (False, False, True):
        pytest.skip("no bias to differentiate")
    ours = _grads(mindtorch, x_shape, out, bias_shape, needs, "float64")
    theirs = _grads(torch, x_shape, out, bias_shape, needs, "float64")
    for a, b in zip(ours, theirs):
        assert (a is None) == (b is None)
        if a is not None:
            assert a.shape == b.shape
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "complex64"])
@pytest.mark.parametrize("transpose_out", [False, True])
def test_gradients_match_pytorch_across_dtypes(dtype, transpose_out):
    if dtype == "bfloat16":
        pytest.importorskip("ml_dtypes")
    data_dtype = "float32" if dtype in ("float16", "bfloat16") else dtype
    tol = {"float32": 1e-5, "float64": 1e-12, "complex64": 1e-5}.get(dtype, 2e-2)

    def run(lib):
        dt = getattr(lib, dtype)
        x = lib.tensor(_data((3, 5, 4), data_dtype, 0)).to(dt).requires_grad_(True)
        w = lib.tensor(_data((6, 4), data_dtype, 1)).to(dt).requires_grad_(True)
        b = lib.tensor(_data((6,), data_dtype, 2)).to(dt).requires_grad_(True)
        y = lib.nn.functional.linear(x, w, b)
        y = y.transpose(0, 2) if transpose_out else y
        (y.real if dtype.startswith("complex") else y).float().square().sum().backward()
        wide = lib.complex128 if dtype.startswith("complex") else lib.float64
        return [t.grad.dtype for t in (x, w, b)], [t.grad.to(wide).numpy() for t in (x, w, b)]

    (od, ov), (td, tv) = run(mindtorch), run(torch)
    assert [str(d).split(".")[-1] for d in od] == [str(d).split(".")[-1] for d in td]
    for a, b in zip(ov, tv):
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol * max(1.0, np.abs(b).max()))


def test_double_backward_matches_pytorch():
    def run(lib):
        x = lib.tensor(_data((2, 5, 4), "float64", 0), requires_grad=True)
        w = lib.tensor(_data((3, 4), "float64", 1), requires_grad=True)
        b = lib.tensor(_data((3,), "float64", 2), requires_grad=True)
        y = lib.nn.functional.linear(x, w, b).tanh().sum()
        gx, gw, gb = lib.autograd.grad(y, (x, w, b), create_graph=True)
        assert gx.requires_grad and gw.requires_grad and gb.requires_grad
        (gx.square().sum() + gw.sin().sum() + gb.square().sum()).backward()
        return [t.grad.numpy() for t in (x, w, b)]

    for a, b in zip(run(mindtorch), run(torch)):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype", [mindtorch.float32, mindtorch.float64])
@pytest.mark.parametrize("mask", [(True, True, True), (True, False, True), (False, True, False), (False, False, False)])
@pytest.mark.parametrize("x_shape", [(4,), (7, 4), (2, 7, 4), (0, 4)], ids=repr)
def test_kernel_matches_the_decomposition(dtype, mask, x_shape):
    from mindtorch.ops.registry import OPS

    op = OPS["linear_backward"]
    x = mindtorch.tensor(_data(x_shape, "float64", 0)).to(dtype)
    w = mindtorch.tensor(_data((3, 4), "float64", 1)).to(dtype)
    g = mindtorch.tensor(_data(x_shape[:-1] + (3,), "float64", 2)).to(dtype)
    got = mindtorch.ops.linear_backward(x, g, w, list(mask))
    want = op.composite(x, g, w, list(mask))
    for a, b in zip(got, want):
        assert (a is None) == (b is None)
        if a is not None:
            assert a.shape == b.shape and a.dtype is b.dtype and a.is_contiguous()
            np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_linear_backward_records_through_its_decomposition_when_grad_is_on():
    x = mindtorch.randn(2, 4, requires_grad=True)
    w = mindtorch.randn(3, 4, requires_grad=True)
    g = mindtorch.randn(2, 3)
    gi, gw, gb = mindtorch.ops.linear_backward(x, g, w, [True, True, True])
    assert gi.requires_grad and gw.requires_grad and not gb.requires_grad
    gw.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.broadcast_to(g.numpy().sum(1, keepdims=True), (2, 4)), rtol=1e-6)
