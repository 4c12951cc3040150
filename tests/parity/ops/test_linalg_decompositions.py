"""mindtorch.linalg's decompositions, inverses and solvers against torch.linalg: values (batched, float32
and float64), gradients where PyTorch differentiates and mindtorch does, errors for singular /
non-positive-definite / non-square / integer input."""

import numpy as np
import pytest
from helpers import assert_same, torch_or_skip

torch = torch_or_skip()

import mindtorch as mt  # noqa: E402


def _spd(shape, seed=0):
    a = np.random.default_rng(seed).standard_normal(shape)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


def _gen(shape, seed=1):
    return np.random.default_rng(seed).standard_normal(shape) + 2 * np.eye(shape[-1], shape[-2]).T


CASES = {
    "inv": lambda L, a: L.linalg.inv(a),
    "inv_ex": lambda L, a: L.linalg.inv_ex(a).inverse,
    "det": lambda L, a: L.linalg.det(a),
    "slogdet": lambda L, a: tuple(L.linalg.slogdet(a)),
    "solve": lambda L, a: L.linalg.solve(a, a[..., :2] + 1),
    "solve_vector": lambda L, a: L.linalg.solve(a, a[..., 0] + 1),
    "solve_right": lambda L, a: L.linalg.solve(a, a[..., :2, :] + 1, left=False),
    "cholesky": lambda L, a: L.linalg.cholesky(a),
    "cholesky_upper": lambda L, a: L.linalg.cholesky(a, upper=True),
    "cholesky_ex": lambda L, a: tuple(L.linalg.cholesky_ex(a)),
    "eigvalsh": lambda L, a: L.linalg.eigvalsh(a),
    "eigh_U": lambda L, a: L.linalg.eigh(a, UPLO="U").eigenvalues,
    "matrix_power_3": lambda L, a: L.linalg.matrix_power(a, 3),
    "matrix_power_-2": lambda L, a: L.linalg.matrix_power(a, -2),
    "matrix_power_0": lambda L, a: L.linalg.matrix_power(a, 0),
    "matrix_rank": lambda L, a: L.linalg.matrix_rank(a),
    "pinv": lambda L, a: L.linalg.pinv(a),
    "qr_R_abs": lambda L, a: L.linalg.qr(a).R.abs(),
    "qr_r_mode": lambda L, a: L.linalg.qr(a, mode="r").R.abs(),
    "svd_S": lambda L, a: L.linalg.svd(a).S,
    "svd_recon": lambda L, a: (
        lambda r: r.U @ L.diag_embed(r.S) @ r.Vh if hasattr(L, "diag_embed") else (r.U * r.S.unsqueeze(-2)) @ r.Vh
    )(L.linalg.svd(a, full_matrices=False)),
    "lstsq": lambda L, a: L.linalg.lstsq(a, a[..., :1] + 1).solution,
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_values_match(name, dtype):
    for shape in ((4, 4), (2, 3, 3)):
        a = _spd(shape)
        m = CASES[name](mt, mt.tensor(a, dtype=getattr(mt, dtype)))
        t = CASES[name](torch, torch.tensor(a, dtype=getattr(torch, dtype)))
        tol = dict(rtol=2e-4, atol=2e-5) if dtype == "float32" else dict(rtol=1e-9, atol=1e-10)
        for x, y in zip(m if isinstance(m, tuple) else (m,), t if isinstance(t, tuple) else (t,)):
            assert str(x.dtype) == str(y.dtype).replace("torch.", "torch.")
            assert_same(x, y, **tol)


GRADS = {
    "inv": lambda L, a: L.linalg.inv(a),
    "det": lambda L, a: L.linalg.det(a),
    "slogdet": lambda L, a: L.linalg.slogdet(a).logabsdet,
    "solve": lambda L, a: L.linalg.solve(a, a[..., :2] * 2 + 1),
    "cholesky": lambda L, a: L.linalg.cholesky(a),
    "eigh": lambda L, a: (lambda r: r.eigenvalues.sum(-1) + (r.eigenvectors[..., 0, :] ** 2).sum(-1))(L.linalg.eigh(a)),
    "matrix_power": lambda L, a: L.linalg.matrix_power(a, -3),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_gradients_match(name):
    a = _spd((2, 3, 3), seed=4)
    ma, ta = mt.tensor(a).requires_grad_(), torch.tensor(a).requires_grad_()
    w = np.random.default_rng(9).standard_normal(tuple(GRADS[name](torch, torch.tensor(a)).shape))
    (GRADS[name](mt, ma) * mt.tensor(w)).sum().backward()
    (GRADS[name](torch, ta) * torch.tensor(w)).sum().backward()
    assert_same(ma.grad, ta.grad, rtol=1e-8, atol=1e-10)


def _error(lib, fn):
    with pytest.raises(Exception) as info:
        fn(lib)
    return info


@pytest.mark.parametrize(
    "fn",
    [
        lambda L: L.linalg.inv(L.zeros(3, 3)),
        lambda L: L.linalg.inv(L.tensor([[1.0, 2.0], [2.0, 4.0]])),
        lambda L: L.linalg.cholesky(L.tensor([[1.0, 2.0], [2.0, 1.0]])),
        lambda L: L.linalg.cholesky(-L.eye(3)),
        lambda L: L.linalg.inv(L.ones(2, 3)),
        lambda L: L.linalg.det(L.ones(3)),
        lambda L: L.linalg.inv(L.ones(2, 2, dtype=L.int64)),
        lambda L: L.linalg.eigh(L.eye(2), UPLO="X"),
        lambda L: L.linalg.qr(L.eye(2), mode="full"),
    ],
)
def test_errors_match(fn):
    m, t = _error(mt, fn), _error(torch, fn)
    assert isinstance(m.value, RuntimeError) and isinstance(t.value, RuntimeError)
    assert issubclass(type(m.value), mt.linalg.LinAlgError) == issubclass(type(t.value), torch.linalg.LinAlgError)
    assert str(m.value) == str(t.value)


def test_ex_variants_report_instead_of_raising():
    bad = mt.tensor([[1.0, 2.0], [2.0, 1.0]])
    L, info = mt.linalg.cholesky_ex(bad)
    assert info.item() != 0 and mt.isnan(L).all()
    with pytest.raises(mt.linalg.LinAlgError):
        mt.linalg.cholesky_ex(bad, check_errors=True)
    inv, info = mt.linalg.inv_ex(mt.zeros(2, 2))
    assert info.item() != 0


_R = np.random.RandomState(7)
QR_SVD_GRADS = {
    # losses a sign flip of a singular vector pair (or of a Q column with its R row) leaves alone
    "qr_tall": (lambda L, a: (lambda q, r: (q * q.detach().cos()).sum() + r.sin().sum())(*L.linalg.qr(a)), (4, 3)),
    "qr_square_complete": (
        lambda L, a: (lambda q, r: (q * 1.5).pow(3).sum() + (r * r).sum())(*L.linalg.qr(a, mode="complete")),
        (3, 3),
    ),
    "qr_wide": (lambda L, a: (lambda q, r: (q * q.detach().cos()).sum() + r.sin().sum())(*L.linalg.qr(a)), (3, 5)),
    "qr_batched": (lambda L, a: (lambda q, r: q.sum() + r.sum())(*L.linalg.qr(a)), (2, 5, 3)),
    "svd_reduced": (
        lambda L, a: (
            lambda u, s, vh: (u @ vh).sin().sum() + (s * s).sum() + (u * u).pow(2).sum() + (vh * vh).pow(3).sum()
        )(*L.linalg.svd(a, full_matrices=False)),
        (4, 3),
    ),
    "svd_wide": (
        lambda L, a: (lambda u, s, vh: (u * u).sum() + (vh * vh * 2).pow(2).sum() + s.sum())(*L.linalg.svd(a)),
        (3, 5),
    ),
    "svd_full_tall": (lambda L, a: (lambda u, s, vh: (u * u).sum() + s.pow(3).sum())(*L.linalg.svd(a)), (4, 3)),
    "lstsq_tall": (lambda L, a: L.linalg.lstsq(a, a[:, :2].cos()).solution.sin().sum(), (5, 3)),
    "lstsq_wide": (lambda L, a: L.linalg.lstsq(a, a[:, :2].cos()).solution.sin().sum(), (3, 5)),
    "lstsq_vector_rhs": (lambda L, a: L.linalg.lstsq(a, a[:, 0].exp()).solution.pow(2).sum(), (5, 3)),
    "svd_batched": (
        lambda L, a: (lambda u, s, vh: (u @ vh).sum() + s.sum())(*L.linalg.svd(a, full_matrices=False)),
        (2, 5, 3),
    ),
}


@pytest.mark.parametrize("name", sorted(QR_SVD_GRADS))
def test_qr_and_svd_gradients_match(name):
    loss, shape = QR_SVD_GRADS[name]
    a = _R.randn(*shape)
    grads = []
    for lib in (mt, torch):
        x = lib.tensor(a, requires_grad=True)
        loss(lib, x).backward()
        grads.append(x.grad)
    assert_same(*grads, rtol=1e-8, atol=1e-10)


def test_qr_backward_errors_as_pytorch():
    for lib in (mt, torch):
        x = lib.tensor(_R.randn(4, 3), requires_grad=True)
        q, r = lib.linalg.qr(x, mode="complete")
        with pytest.raises(RuntimeError, match="not differentiable when mode='complete'"):
            (q.sum() + r.sum()).backward()


LEGACY = {
    "inverse": lambda L, a: L.inverse(a),
    "det": lambda L, a: a.det(),
    "logdet": lambda L, a: L.logdet(a),
    "slogdet": lambda L, a: tuple(L.slogdet(a)),
    "matrix_power": lambda L, a: a.matrix_power(2),
    "pinverse": lambda L, a: L.pinverse(a),
    "svd_S": lambda L, a: L.svd(a).S,
    "svd_V_abs": lambda L, a: L.svd(a).V.abs(),
    "qr_R_abs": lambda L, a: L.qr(a).R.abs(),
    "cholesky_solve": lambda L, a: L.cholesky_solve(a[..., :2] + 1, L.linalg.cholesky(a)),
    "cholesky_inverse": lambda L, a: L.cholesky_inverse(L.linalg.cholesky(a)),
    "logdet_negative": lambda L, a: L.logdet(-a[..., :3, :3]),
}


@pytest.mark.parametrize("name", sorted(LEGACY))
def test_top_level_and_method_spellings(name):
    a = _spd((2, 4, 4), seed=7)
    m, t = LEGACY[name](mt, mt.tensor(a)), LEGACY[name](torch, torch.tensor(a))
    for x, y in zip(m if isinstance(m, tuple) else (m,), t if isinstance(t, tuple) else (t,)):
        assert_same(x, y, rtol=1e-8, atol=1e-10)
