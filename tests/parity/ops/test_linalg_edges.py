"""mindtorch.linalg at its edges against torch.linalg: gradients through singular values (svdvals and the
norms built on them), empty and NaN matrices, the info of the *_ex variants, and derivatives at singular
points."""

import numpy as np
import pytest
from helpers import assert_same, torch_or_skip

torch = torch_or_skip()

import mindtorch as mt  # noqa: E402

SINGULAR_VALUE_LOSSES = {
    "svdvals": lambda L, a: L.linalg.svdvals(a),
    "matrix_norm_2": lambda L, a: L.linalg.matrix_norm(a, 2),
    "matrix_norm_-2": lambda L, a: L.linalg.matrix_norm(a, -2),
    "matrix_norm_nuc": lambda L, a: L.linalg.matrix_norm(a, "nuc"),
    "matrix_norm_nuc_dims": lambda L, a: L.linalg.matrix_norm(a, "nuc", dim=(0, -1), keepdim=True),
    "norm_2": lambda L, a: L.linalg.norm(a, 2, dim=(-2, -1)),
    "norm_nuc": lambda L, a: L.linalg.norm(a, "nuc", dim=(-2, -1)),
    "tensor_norm_nuc": lambda L, a: L.norm(a, p="nuc", dim=(-2, -1)),
    "nuclear_norm": lambda L, a: L.nuclear_norm(a[0]),
}


@pytest.mark.parametrize("shape", [(2, 4, 3), (2, 3, 5)])
@pytest.mark.parametrize("name", sorted(SINGULAR_VALUE_LOSSES))
def test_singular_value_gradients_match(name, shape):
    a = np.random.default_rng(3).standard_normal(shape)
    fn = SINGULAR_VALUE_LOSSES[name]
    grads = []
    for lib in (mt, torch):
        x = lib.tensor(a, requires_grad=True)
        y = fn(lib, x)
        assert y.grad_fn is not None
        w = lib.tensor(np.random.default_rng(5).standard_normal(tuple(y.shape)))
        (y * w).sum().backward()
        grads.append(x.grad)
    assert_same(*grads, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 3, 4)])
def test_svdvals_gradcheck(shape):
    a = mt.tensor(np.random.default_rng(11).standard_normal(shape), requires_grad=True)
    assert mt.autograd.gradcheck(lambda x: mt.linalg.svdvals(x), (a,))
    assert mt.autograd.gradcheck(lambda x: mt.linalg.matrix_norm(x, "nuc"), (a,))


def test_nuclear_norm_regulariser_reaches_the_weight():
    w = mt.tensor(np.random.default_rng(2).standard_normal((3, 3)), requires_grad=True)
    tw = torch.tensor(w.detach().numpy(), requires_grad=True)
    (w.sum() + 0.1 * mt.linalg.matrix_norm(w, "nuc")).backward()
    (tw.sum() + 0.1 * torch.linalg.matrix_norm(tw, "nuc")).backward()
    assert_same(w.grad, tw.grad, rtol=1e-8, atol=1e-10)


def test_svdvals_gradient_of_a_complex_matrix_matches():
    rng = np.random.default_rng(8)
    a = rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))
    grads = []
    for lib in (mt, torch):
        x = lib.tensor(a, requires_grad=True)
        (lib.linalg.svdvals(x) * lib.tensor([1.0, -2.0, 0.5], dtype=lib.float64)).sum().backward()
        grads.append(x.grad)
    assert_same(*grads, rtol=1e-8, atol=1e-10)
