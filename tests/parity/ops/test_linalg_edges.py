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


_NAN = float("nan")


def _outcome(lib, fn):
    try:
        out = fn(lib)
    except Exception as e:
        return type(e).__name__, None
    outs = out if isinstance(out, tuple) else (out,)
    return None, [np.asarray(o.detach().tolist(), dtype=float) for o in outs]


EDGES = {
    "svd_0x3": lambda L: tuple(L.linalg.svd(L.zeros(0, 3, dtype=L.float64))),
    "svd_3x0": lambda L: tuple(L.linalg.svd(L.zeros(3, 0, dtype=L.float64))),
    "svd_batched_2x0": lambda L: tuple(L.linalg.svd(L.zeros(2, 2, 0, dtype=L.float64))),
    "svd_0x3_reduced": lambda L: tuple(L.linalg.svd(L.zeros(0, 3, dtype=L.float64), full_matrices=False)),
    "cholesky_nan": lambda L: L.linalg.cholesky(L.tensor([[_NAN, 0.0], [0.0, 1.0]])),
    "cholesky_nan_below": lambda L: L.linalg.cholesky(L.tensor([[4.0, 0.0], [_NAN, 1.0]])),
    "cholesky_nan_batched": lambda L: L.linalg.cholesky(L.tensor([[[1.0, 0.0], [0.0, 1.0]], [[_NAN, 0], [0, 1.0]]])),
    "cholesky_ex_nan_info": lambda L: L.linalg.cholesky_ex(L.tensor([[_NAN, 0.0], [0.0, 1.0]])).info,
    "inv_nan": lambda L: L.linalg.inv(L.tensor([[_NAN, 0.0], [0.0, 1.0]])),
    "inv_nan_batched": lambda L: L.linalg.inv(L.tensor([[[_NAN, 0.0], [0.0, 1.0]], [[1.0, 0], [0, 2.0]]])),
    "solve_nan": lambda L: L.linalg.solve(L.tensor([[_NAN, 0.0], [0.0, 1.0]]), L.ones(2, 1)),
    "solve_nan_rhs": lambda L: L.linalg.solve(L.eye(2), L.tensor([[_NAN, 1.0], [1.0, 1.0]])),
    "inv_ex_nan": lambda L: L.linalg.inv_ex(L.tensor([[_NAN, 0.0], [0.0, 1.0]])).inverse,
    "matrix_rank_0x3": lambda L: L.linalg.matrix_rank(L.zeros(0, 3)),
    "matrix_rank_3x0": lambda L: L.linalg.matrix_rank(L.zeros(2, 3, 0)),
    "pinv_0x3": lambda L: L.linalg.pinv(L.zeros(0, 3)),
    "pinv_batched_3x0": lambda L: L.linalg.pinv(L.zeros(2, 3, 0)),
    "matrix_norm_2_0x3": lambda L: L.linalg.matrix_norm(L.zeros(0, 3), 2),
    "matrix_norm_2_batched": lambda L: L.linalg.matrix_norm(L.zeros(2, 0, 3), 2),
    "matrix_norm_-2_0x3": lambda L: L.linalg.matrix_norm(L.zeros(0, 3), -2),
    "matrix_norm_nuc_0x3": lambda L: L.linalg.matrix_norm(L.zeros(0, 3), "nuc"),
}


@pytest.mark.parametrize("name", sorted(EDGES))
def test_edge_inputs_match(name):
    (m_err, m_val), (t_err, t_val) = _outcome(mt, EDGES[name]), _outcome(torch, EDGES[name])
    assert m_err == t_err or (m_err, t_err) == ("LinAlgError", "_LinAlgError")
    if t_val is not None:
        assert len(m_val) == len(t_val)
        for x, y in zip(m_val, t_val):
            assert x.shape == y.shape
            np.testing.assert_allclose(x, y, rtol=1e-6, atol=1e-7, equal_nan=True)


SINGULAR = {
    "rank_deficient_2x2": [[1.0, 2.0], [2.0, 4.0]],
    "zero_3x3": [[0.0] * 3] * 3,
    "rank_one_3x3": [[1.0, 0, 0], [0, 0, 0], [0, 0, 0]],
    "batched_one_singular": [[[2.0, 1.0], [1.0, 3.0]], [[2.0, 1.0], [4.0, 2.0]]],
}


@pytest.mark.parametrize("name", sorted(SINGULAR))
def test_det_gradient_at_singular_matrices_matches(name):
    grads = []
    for lib in (mt, torch):
        a = lib.tensor(SINGULAR[name], dtype=lib.float64, requires_grad=True)
        lib.linalg.det(a).sum().backward()
        grads.append(a.grad)
    assert_same(*grads, rtol=1e-8, atol=1e-10)


EX_INPUTS = {
    "singular_2x2": [[1.0, 2.0], [2.0, 4.0]],
    "zero_3x3": [[0.0] * 3] * 3,
    "last_pivot_zero": [[1.0, 0, 0], [0, 1.0, 0], [0, 0, 0.0]],
    "indefinite_2x2": [[1.0, 2.0], [2.0, 1.0]],
    "negative_last": [[1.0, 0, 0], [0, 1.0, 0], [0, 0, -1.0]],
    "nan_first": [[_NAN, 0.0], [0.0, 1.0]],
    "batch_good_bad": [[[4.0, 1.0], [1.0, 3.0]], [[1.0, 2.0], [2.0, 1.0]], [[2.0, 0.0], [0.0, 0.0]]],
    "good": [[4.0, 1.0], [1.0, 3.0]],
}


@pytest.mark.parametrize("op", ["inv_ex", "cholesky_ex"])
@pytest.mark.parametrize("name", sorted(EX_INPUTS))
def test_ex_variants_report_info_per_matrix_as_pytorch(op, name):
    (m_res, m_info), (t_res, t_info) = (
        getattr(lib.linalg, op)(lib.tensor(EX_INPUTS[name], dtype=lib.float64)) for lib in (mt, torch)
    )
    assert m_info.tolist() == t_info.tolist() and str(m_info.dtype) == str(t_info.dtype)
    # where a matrix succeeds its result is PyTorch's; where it fails LAPACK leaves a partial result
    ok = (t_info == 0).numpy()
    np.testing.assert_allclose(m_res.numpy()[ok], t_res.numpy()[ok], rtol=1e-10, atol=1e-12)
    with pytest.raises(mt.linalg.LinAlgError) if (~ok).any() else _no_error():
        getattr(mt.linalg, op)(mt.tensor(EX_INPUTS[name], dtype=mt.float64), check_errors=True)


class _no_error:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
