"""torch.linalg's LU, triangular, eig, LDL and Householder functions, matrix_exp and the tensor helpers
against PyTorch: values over generated shapes and dtypes, singular inputs, the errors (class and message),
gradcheck in float64 and gradients against PyTorch's."""

import itertools

from helpers import torch_or_skip

torch = torch_or_skip()

import mindtorch  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from helpers import assert_same, check_grad, raises_alike  # noqa: E402

RNG = np.random.default_rng(7)
SHAPES = [(3, 3), (2, 4, 4), (5, 3), (3, 5), (2, 1, 4, 2), (1, 1), (0, 0), (2, 0, 3)]
REAL = ["float32", "float64"]
ALL = REAL + ["complex64", "complex128"]
TOL = {"float32": 1e-4, "complex64": 1e-4, "float64": 1e-10, "complex128": 1e-10}


def _array(shape, dtype, rng=RNG):
    a = rng.standard_normal(shape)
    if dtype.startswith("complex"):
        a = a + 1j * rng.standard_normal(shape)
    return a.astype({"float32": np.float32, "float64": np.float64, "complex64": np.complex64}.get(dtype, a.dtype))


def _pair(a):
    return mindtorch.tensor(a), torch.tensor(a)


def _grads(fn, *arrays):
    """fn(lib, *tensors) backpropagated in both libraries: the gradients of every input."""
    ours = [mindtorch.tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    fn(mindtorch, *ours).backward()
    fn(torch, *theirs).backward()
    for o, t in zip(ours, theirs):
        assert_same(o.grad, t.grad, rtol=1e-7, atol=1e-9)


# --- LU ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape,dtype", itertools.product(SHAPES, ALL))
def test_lu_factor_and_lu(shape, dtype):
    ours, theirs = _pair(_array(shape, dtype))
    tol = TOL[dtype]
    a, b = mindtorch.linalg.lu_factor_ex(ours), torch.linalg.lu_factor_ex(theirs)
    assert_same(a.LU, b.LU, rtol=tol, atol=tol)
    assert_same(a.pivots, b.pivots)
    assert_same(a.info, b.info)
    assert_same(mindtorch.linalg.lu(ours), tuple(torch.linalg.lu(theirs)), rtol=tol, atol=tol)
    assert_same(mindtorch.lu_unpack(a.LU, a.pivots), tuple(torch.lu_unpack(b.LU, b.pivots)), rtol=tol, atol=tol)
    P, L, U = mindtorch.lu_unpack(a.LU, a.pivots, unpack_data=False)
    assert L.shape == U.shape == (0,) and P.shape == torch.lu_unpack(b.LU, b.pivots, unpack_data=False).P.shape
    assert_same(ours.lu(get_infos=True), theirs.lu(get_infos=True), rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", REAL)
def test_lu_singular_and_ties(dtype):
    cases = [
        [[1.0, 2.0], [2.0, 4.0]],
        [[0.0, 0.0], [0.0, 0.0]],
        [[1.0, 2.0, 3.0], [1.0, 2.0, 3.0], [-1.0, 0.0, 5.0]],
        [[[2.0, 1.0], [-2.0, 3.0]], [[0.0, 1.0], [0.0, 1.0]]],
    ]
    for case in cases:
        ours, theirs = _pair(np.array(case, dtype=dtype))
        assert_same(mindtorch.linalg.lu_factor_ex(ours), tuple(torch.linalg.lu_factor_ex(theirs)))
        raises_alike(lambda lib, c=case: lib.linalg.lu_factor(lib.tensor(c)))
        raises_alike(lambda lib, c=case: lib.linalg.lu_factor_ex(lib.tensor(c), check_errors=True))
        assert_same(
            mindtorch.linalg.solve_ex(ours, mindtorch.ones(ours.shape[:-1], dtype=ours.dtype)),
            tuple(torch.linalg.solve_ex(theirs, torch.ones(theirs.shape[:-1], dtype=theirs.dtype))),
        )


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.linalg.lu_factor(L.ones(3)),
        lambda L: L.linalg.lu_factor_ex(L.ones(3)),
        lambda L: L.linalg.lu(L.ones(2)),
        lambda L: L.linalg.lu_factor(L.ones(3, 3, dtype=L.int64)),
        lambda L: L.linalg.lu(L.ones(2, 2, dtype=L.int64)),
        lambda L: L.linalg.lu_factor(L.eye(3), pivot=False),
        lambda L: L.linalg.lu_solve(*L.linalg.lu_factor(L.eye(3)), L.ones(3)),
        lambda L: L.linalg.lu_solve(*L.linalg.lu_factor(L.eye(3)), L.ones(2, 2)),
        lambda L: L.linalg.lu_solve(*L.linalg.lu_factor(L.eye(3)), L.ones(3, 2), left=False),
        lambda L: L.linalg.solve_ex(L.ones(2, 3), L.ones(2)),
    ],
)
def test_lu_errors(call):
    raises_alike(call)


def test_solve_ex_singular_error():
    with pytest.raises(torch.linalg.LinAlgError) as theirs:
        torch.linalg.solve_ex(torch.tensor([[1.0, 2.0], [2.0, 4.0]]), torch.ones(2), check_errors=True)
    with pytest.raises(mindtorch.linalg.LinAlgError) as ours:
        mindtorch.linalg.solve_ex(mindtorch.tensor([[1.0, 2.0], [2.0, 4.0]]), mindtorch.ones(2), check_errors=True)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("left,adjoint", itertools.product([True, False], [True, False]))
@pytest.mark.parametrize("dtype", ALL)
def test_lu_solve(left, adjoint, dtype):
    A = _array((2, 4, 4), dtype)
    B = _array((2, 4, 3) if left else (2, 3, 4), dtype)
    (a, ta), (b, tb) = _pair(A), _pair(B)
    ours = mindtorch.linalg.lu_solve(*mindtorch.linalg.lu_factor(a), b, left=left, adjoint=adjoint)
    theirs = torch.linalg.lu_solve(*torch.linalg.lu_factor(ta), tb, left=left, adjoint=adjoint)
    assert_same(ours, theirs, rtol=TOL[dtype] * 10, atol=TOL[dtype] * 10)
    if left and not adjoint:
        assert_same(b.lu_solve(*a.lu()), tb.lu_solve(*ta.lu()), rtol=TOL[dtype] * 10, atol=TOL[dtype] * 10)
        assert_same(
            mindtorch.lu_solve(b, *a.lu()), torch.lu_solve(tb, *ta.lu()), rtol=TOL[dtype] * 10, atol=TOL[dtype] * 10
        )


@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 4), (2, 3, 3)])
def test_lu_gradients(shape):
    A = _array(shape, "float64")
    check_grad(lambda a: mindtorch.linalg.lu_factor(a).LU, mindtorch.tensor(A, requires_grad=True))
    check_grad(lambda a: mindtorch.linalg.lu(a).U, mindtorch.tensor(A, requires_grad=True))
    _grads(lambda L, a: L.linalg.lu(a).L.sin().sum() + L.linalg.lu(a).U.cos().sum(), A)
    _grads(lambda L, a: L.linalg.lu_factor_ex(a).LU.sin().sum(), A)
    if shape[-1] == shape[-2]:
        B = _array(shape[:-1] + (2,), "float64")
        _grads(lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b).sum(), A, B)
        _grads(lambda L, a, b: L.linalg.solve_ex(a, b).result.sum(), A, B)


# --- triangular solves ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "upper,left,unitriangular", list(itertools.product([True, False], [True, False], [True, False]))
)
@pytest.mark.parametrize("dtype", ALL)
def test_solve_triangular(upper, left, unitriangular, dtype):
    A = (_array((2, 1, 4, 4), dtype) + 4 * np.eye(4)).astype(_array((1,), dtype).dtype)
    B = _array((3, 4, 2) if left else (3, 2, 4), dtype)
    kw = dict(upper=upper, left=left, unitriangular=unitriangular)
    (a, ta), (b, tb) = _pair(A), _pair(B)
    assert_same(
        mindtorch.linalg.solve_triangular(a, b, **kw),
        torch.linalg.solve_triangular(ta, tb, **kw),
        rtol=TOL[dtype],
        atol=TOL[dtype],
    )
    if left:
        ours = mindtorch.triangular_solve(b, a, upper, False, unitriangular)
        theirs = torch.triangular_solve(tb, ta, upper, False, unitriangular)
        assert_same(tuple(ours), tuple(theirs), rtol=TOL[dtype], atol=TOL[dtype])
        ours = b.triangular_solve(a, upper, True, unitriangular)
        theirs = tb.triangular_solve(ta, upper, True, unitriangular)
        assert_same(tuple(ours), tuple(theirs), rtol=TOL[dtype], atol=TOL[dtype])


def test_solve_triangular_singular_and_dtypes():
    A = np.triu(np.ones((3, 3))) - np.eye(3)
    assert_same(
        mindtorch.linalg.solve_triangular(
            mindtorch.tensor(A), mindtorch.ones(3, 2, dtype=mindtorch.float64), upper=True
        ),
        torch.linalg.solve_triangular(torch.tensor(A), torch.ones(3, 2, dtype=torch.float64), upper=True),
    )
    for da, db in [("float32", "float64"), ("float64", "float32")]:
        assert_same(
            mindtorch.linalg.solve_triangular(
                mindtorch.eye(3, dtype=getattr(mindtorch, da)),
                mindtorch.ones(3, 2, dtype=getattr(mindtorch, db)),
                upper=True,
            ),
            torch.linalg.solve_triangular(
                torch.eye(3, dtype=getattr(torch, da)), torch.ones(3, 2, dtype=getattr(torch, db)), upper=True
            ),
        )


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.linalg.solve_triangular(L.ones(3, 3), L.ones(2, 2), upper=True),
        lambda L: L.linalg.solve_triangular(L.ones(3, 3), L.ones(3, 2), upper=True, left=False),
        lambda L: L.linalg.solve_triangular(L.ones(3, 3), L.ones(3), upper=True),
        lambda L: L.linalg.solve_triangular(L.ones(2, 3), L.ones(2, 2), upper=True),
        lambda L: L.linalg.solve_triangular(L.ones(3, 3, dtype=L.int64), L.ones(3, 2, dtype=L.int64), upper=True),
        lambda L: L.linalg.solve_triangular(L.ones(3, 3, dtype=L.float16), L.ones(3, 2, dtype=L.float16), upper=True),
        lambda L: L.triangular_solve(L.ones(3), L.eye(3)),
        lambda L: L.triangular_solve(L.ones(3, 2), L.eye(3, dtype=L.float64)),
    ],
)
def test_solve_triangular_errors(call):
    raises_alike(call)


@pytest.mark.parametrize("upper,left,unitriangular", [(True, True, False), (False, False, True), (True, False, False)])
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_solve_triangular_gradients(upper, left, unitriangular, dtype):
    A = _array((2, 3, 3), dtype) + 3 * np.eye(3)
    A = np.triu(A) if upper else np.tril(A)
    B = _array((3, 2) if left else (2, 3), dtype)
    kw = dict(upper=upper, left=left, unitriangular=unitriangular)
    a, b = mindtorch.tensor(A, requires_grad=True), mindtorch.tensor(B, requires_grad=True)
    check_grad(lambda a, b: mindtorch.linalg.solve_triangular(a, b, **kw), a, b)
    _grads(lambda L, a, b: L.linalg.solve_triangular(a, b, **kw).abs().sum(), A, B)


# --- eig ---------------------------------------------------------------------------------------------
def _phase_free(V):
    """Eigenvectors up to their phase: each column turned so its largest entry is real and positive."""
    V = V.numpy() if hasattr(V, "numpy") else V
    idx = np.abs(V).argmax(-2)[..., None, :]
    ph = np.take_along_axis(V, idx, -2)
    return V * (np.abs(ph) / np.where(ph == 0, 1, ph))


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (1, 1), (0, 0)])
@pytest.mark.parametrize("dtype", ALL)
def test_eig(shape, dtype):
    ours, theirs = _pair(_array(shape, dtype))
    w, V = mindtorch.linalg.eig(ours)
    tw, tV = torch.linalg.eig(theirs)
    assert_same(w, tw, rtol=TOL[dtype] * 10, atol=TOL[dtype] * 10)
    assert str(V.dtype).split(".")[-1] == str(tV.dtype).split(".")[-1]
    if V.numel():
        np.testing.assert_allclose(_phase_free(V), _phase_free(tV), rtol=TOL[dtype] * 100, atol=TOL[dtype] * 100)
    assert_same(
        mindtorch.linalg.eigvals(ours), torch.linalg.eigvals(theirs), rtol=TOL[dtype] * 10, atol=TOL[dtype] * 10
    )


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.linalg.eig(L.ones(2, 3)),
        lambda L: L.linalg.eig(L.ones(2, 2, dtype=L.int64)),
        lambda L: L.linalg.eig(L.ones(2, 2, dtype=L.float16)),
        lambda L: L.linalg.eigvals(L.ones(2)),
        lambda L: L.ones(2, 2).eig(),
        lambda L: L.ones(2, 2).symeig(),
        lambda L: L.ones(2, 2).lstsq(L.ones(2, 2)),
        lambda L: L.ones(2, 2).solve(L.ones(2, 2)),
    ],
)
def test_eig_errors_and_removed_methods(call):
    raises_alike(call)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_eig_gradients(dtype):
    A = _array((2, 4, 4), dtype)
    check_grad(lambda a: mindtorch.linalg.eigvals(a).abs(), mindtorch.tensor(A, requires_grad=True))
    check_grad(lambda a: mindtorch.linalg.eig(a).eigenvectors.abs(), mindtorch.tensor(A, requires_grad=True))
    _grads(
        lambda L, a: (L.linalg.eig(a).eigenvalues ** 2).real.sum() + (L.linalg.eig(a).eigenvectors.abs() ** 3).sum(), A
    )


# --- LDL ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("hermitian", [False, True])
@pytest.mark.parametrize("dtype", ALL)
def test_ldl(hermitian, dtype):
    M = _array((2, 4, 4), dtype)
    A = M + (np.conj(np.swapaxes(M, -1, -2)) if hermitian else np.swapaxes(M, -1, -2))
    (a, ta), (b, tb) = _pair(A), _pair(_array((2, 4, 3), dtype))
    ours = mindtorch.linalg.ldl_factor_ex(a, hermitian=hermitian)
    theirs = torch.linalg.ldl_factor_ex(ta, hermitian=hermitian)
    assert_same(ours, tuple(theirs), rtol=TOL[dtype] * 10, atol=TOL[dtype] * 10)
    assert_same(
        mindtorch.linalg.ldl_factor(a, hermitian=hermitian),
        tuple(torch.linalg.ldl_factor(ta, hermitian=hermitian)),
        rtol=TOL[dtype] * 10,
        atol=TOL[dtype] * 10,
    )
    assert_same(
        mindtorch.linalg.ldl_solve(ours.LD, ours.pivots, b, hermitian=hermitian),
        torch.linalg.ldl_solve(theirs.LD, theirs.pivots, tb, hermitian=hermitian),
        rtol=TOL[dtype] * 100,
        atol=TOL[dtype] * 100,
    )
    assert_same(
        mindtorch.linalg.ldl_factor_ex(mindtorch.tensor([[0.0, 1.0], [1.0, 0.0]])),
        tuple(torch.linalg.ldl_factor_ex(torch.tensor([[0.0, 1.0], [1.0, 0.0]]))),
    )
    assert_same(
        mindtorch.linalg.ldl_factor_ex(mindtorch.zeros(2, 2)), tuple(torch.linalg.ldl_factor_ex(torch.zeros(2, 2)))
    )


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.linalg.ldl_factor_ex(L.ones(2, 2, dtype=L.int64)),
        lambda L: L.linalg.ldl_factor_ex(L.ones(2)),
        lambda L: L.linalg.ldl_factor_ex(L.ones(3, 2)),
        lambda L: L.linalg.ldl_solve(*L.linalg.ldl_factor(L.eye(3)), L.ones(3)),
        lambda L: L.linalg.ldl_solve(*L.linalg.ldl_factor(L.eye(3)), L.ones(2, 2)),
    ],
)
def test_ldl_errors(call):
    raises_alike(call)


def test_ldl_and_geqrf_are_not_differentiable():
    for lib in (mindtorch, torch):
        a = lib.eye(3, dtype=lib.float64, requires_grad=True)
        with pytest.raises(NotImplementedError):
            lib.geqrf(a)[0].sum().backward()
    LD = mindtorch.linalg.ldl_factor(mindtorch.eye(3, requires_grad=True)).LD
    assert not LD.requires_grad


# --- Householder: geqrf, householder_product (orgqr), ormqr -----------------------------------------
@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (2, 5, 2), (3, 5), (0, 2)])
@pytest.mark.parametrize("dtype", ALL)
def test_geqrf_and_householder(shape, dtype):
    ours, theirs = _pair(_array(shape, dtype))
    tol = TOL[dtype] * 10
    a, tau = mindtorch.geqrf(ours)
    ta, ttau = torch.geqrf(theirs)
    assert_same((a, tau), (ta, ttau), rtol=tol, atol=tol)
    assert_same(ours.geqrf(), tuple(theirs.geqrf()), rtol=tol, atol=tol)
    if shape[-2] >= shape[-1]:
        assert_same(
            mindtorch.linalg.householder_product(a, tau), torch.linalg.householder_product(ta, ttau), rtol=tol, atol=tol
        )
        assert_same(a.orgqr(tau), ta.orgqr(ttau), rtol=tol, atol=tol)
        assert_same(mindtorch.orgqr(a, tau), torch.orgqr(ta, ttau), rtol=tol, atol=tol)
    m = shape[-2]
    for left, transpose in itertools.product([True, False], [True, False]):
        C = _array(shape[:-2] + ((m, 3) if left else (3, m)), dtype)
        (c, tc) = _pair(C)
        if tau.shape[-1] > min(C.shape[-2 if left else -1], shape[-1]):
            continue
        assert_same(
            mindtorch.ormqr(a, tau, c, left, transpose), torch.ormqr(ta, ttau, tc, left, transpose), rtol=tol, atol=tol
        )
        assert_same(a.ormqr(tau, c, left, transpose), ta.ormqr(ttau, tc, left, transpose), rtol=tol, atol=tol)


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.geqrf(L.ones(3)),
        lambda L: L.geqrf(L.ones(3, 2, dtype=L.int64)),
        lambda L: L.linalg.householder_product(L.ones(3, 2), L.ones(3)),
        lambda L: L.linalg.householder_product(L.ones(2, 3), L.ones(1)),
        lambda L: L.linalg.householder_product(L.ones(3), L.ones(2)),
        lambda L: L.linalg.householder_product(L.ones(3, 2), L.ones(2, dtype=L.float64)),
        lambda L: L.linalg.householder_product(L.ones(2, 3, 2), L.ones(3, 2)),
        lambda L: L.linalg.householder_product(L.ones(3, 2, dtype=L.int64), L.ones(2, dtype=L.int64)),
        lambda L: L.ormqr(L.ones(3, 2), L.ones(2), L.ones(4, 2)),
        lambda L: L.ormqr(L.ones(3, 2), L.ones(2), L.ones(3, 2), left=False),
        lambda L: L.ormqr(L.ones(3, 2), L.ones(3), L.ones(3, 3)),
        lambda L: L.ormqr(L.ones(2, 3, 2), L.ones(2, 2), L.ones(3, 3)),
        lambda L: L.ormqr(L.ones(3, 2), L.ones(2), L.ones(3, 3, dtype=L.float64)),
    ],
)
def test_householder_errors(call):
    raises_alike(call)


def test_householder_gradients():
    A, tau = _array((2, 4, 3), "float64"), _array((2, 2), "float64")
    check_grad(
        mindtorch.linalg.householder_product,
        mindtorch.tensor(A, requires_grad=True),
        mindtorch.tensor(tau, requires_grad=True),
    )
    _grads(lambda L, a, t: L.linalg.householder_product(a, t).sin().sum(), A, tau)
    tau3, C = _array((2, 3), "float64"), _array((2, 4, 2), "float64")
    _grads(lambda L, a, t, c: L.ormqr(a, t, c, True, True).sin().sum(), A, tau3, C)


# --- matrix_exp --------------------------------------------------------------------------------------
@pytest.mark.parametrize("scale", [1e-3, 1.0, 8.0, 20.0])
@pytest.mark.parametrize("dtype", ALL)
def test_matrix_exp(scale, dtype):
    A = scale * _array((3, 4, 4), dtype)
    A[1] *= 1e-3  # matrices of very different norms in one batch
    ours, theirs = _pair(A)
    exact = torch.linalg.matrix_exp(torch.tensor(A.astype(np.complex128 if "complex" in dtype else np.float64)))
    expected = torch.linalg.matrix_exp(theirs)
    res = mindtorch.linalg.matrix_exp(ours)
    assert_same(res, expected, rtol=1e9, atol=1e30)  # shape and dtype
    rel = np.abs(res.numpy() - exact.numpy()).max() / np.abs(exact.numpy()).max()
    assert rel < (1e-5 if dtype in ("float32", "complex64") else 1e-12)
    assert_same(ours.matrix_exp(), theirs.matrix_exp(), rtol=1e-4, atol=1e-4 * np.abs(exact.numpy()).max())
    assert_same(
        mindtorch.matrix_exp(ours), torch.matrix_exp(theirs), rtol=1e-4, atol=1e-4 * np.abs(exact.numpy()).max()
    )


def test_matrix_exp_edges_and_gradients():
    for A in (
        np.zeros((2, 2)),
        np.eye(3),
        np.zeros((0, 0)),
        np.zeros((2, 0, 0)),
        np.array([[np.inf, 0.0], [0.0, 1.0]]),
    ):
        assert_same(mindtorch.linalg.matrix_exp(mindtorch.tensor(A)), torch.linalg.matrix_exp(torch.tensor(A)))
    for bad in (
        lambda L: L.linalg.matrix_exp(L.ones(2, 2, dtype=L.int64)),
        lambda L: L.linalg.matrix_exp(L.ones(2, 3)),
        lambda L: L.linalg.matrix_exp(L.ones(2)),
    ):
        raises_alike(bad)
    A = _array((2, 3, 3), "float64")
    check_grad(mindtorch.linalg.matrix_exp, mindtorch.tensor(A, requires_grad=True))
    _grads(lambda L, a: L.linalg.matrix_exp(3 * a).sin().sum(), A)


# --- multi_dot, vander, diagonal, tensorinv, tensorsolve, cond --------------------------------------
@pytest.mark.parametrize(
    "shapes", [[(3,), (3, 4), (4,)], [(2, 3), (3, 4)], [(5, 2), (2, 6), (6, 3), (3, 1)], [(3,), (3,)], [(2, 3), (3,)]]
)
def test_multi_dot(shapes):
    arrays = [_array(s, "float64") for s in shapes]
    assert_same(
        mindtorch.linalg.multi_dot([mindtorch.tensor(a) for a in arrays]),
        torch.linalg.multi_dot([torch.tensor(a) for a in arrays]),
        rtol=1e-12,
    )
    _grads(lambda L, *ts: L.linalg.multi_dot(list(ts)).sum(), *arrays)


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.linalg.multi_dot([L.ones(2, 3)]),
        lambda L: L.linalg.multi_dot([L.ones(2, 3, 1), L.ones(1, 2)]),
        lambda L: L.linalg.multi_dot([L.ones(2, 3), L.ones(3, 2, 2)]),
        lambda L: L.linalg.multi_dot([L.ones(2, 3), L.ones(3), L.ones(2, 2)]),
        lambda L: L.linalg.multi_dot([L.ones(2, 3), L.ones(4, 2)]),
        lambda L: L.linalg.multi_dot([L.ones(2, 3), L.ones(3, 2, dtype=L.float64)]),
        lambda L: L.linalg.vander(L.tensor(2.0)),
        lambda L: L.linalg.vander(L.tensor([1, 2, 3]), N=1),
        lambda L: L.linalg.vander(L.tensor([True, False])),
        lambda L: L.linalg.tensorinv(L.ones(4, 6, 8, 3), ind=0),
        lambda L: L.linalg.tensorinv(L.ones(4, 6, 8, 4), ind=1),
        lambda L: L.linalg.tensorsolve(L.ones(2, 3, 6), L.ones(2, 2)),
        lambda L: L.linalg.cond(L.ones(2, 3), "fro"),
        lambda L: L.linalg.cond(L.eye(2), 3),
    ],
)
def test_helper_errors(call):
    raises_alike(call)


@pytest.mark.parametrize("dtype", ["int64", "int32", "float32", "float64", "complex128"])
@pytest.mark.parametrize("N", [None, 2, 5])
def test_vander(dtype, N):
    x = np.array([[1, -2, 3], [0, 2, 5]]).astype(dtype)
    ours, theirs = _pair(x)
    assert_same(mindtorch.linalg.vander(ours, N=N), torch.linalg.vander(theirs, N=N))
    if dtype == "float64":
        _grads(lambda L, t: L.linalg.vander(t, N=N).sum(), x)


def test_diagonal_tensorinv_tensorsolve():
    A = _array((2, 3, 4), "float64")
    for kw in ({}, {"offset": 1}, {"offset": -1, "dim1": 0, "dim2": 2}):
        assert_same(mindtorch.linalg.diagonal(mindtorch.tensor(A), **kw), torch.linalg.diagonal(torch.tensor(A), **kw))
    T = _array((4, 6, 8, 3), "float64")
    assert_same(
        mindtorch.linalg.tensorinv(mindtorch.tensor(T)), torch.linalg.tensorinv(torch.tensor(T)), rtol=1e-8, atol=1e-10
    )
    T1 = _array((6, 2, 3), "float64")
    assert_same(
        mindtorch.linalg.tensorinv(mindtorch.tensor(T1), ind=1),
        torch.linalg.tensorinv(torch.tensor(T1), ind=1),
        rtol=1e-8,
        atol=1e-10,
    )
    S, B = _array((2, 3, 6), "float64"), _array((2, 3), "float64")
    assert_same(
        mindtorch.linalg.tensorsolve(mindtorch.tensor(S), mindtorch.tensor(B)),
        torch.linalg.tensorsolve(torch.tensor(S), torch.tensor(B)),
        rtol=1e-8,
    )
    S2 = _array((6, 2, 3), "float64")
    assert_same(
        mindtorch.linalg.tensorsolve(mindtorch.tensor(S2), mindtorch.tensor(B), dims=(0,)),
        torch.linalg.tensorsolve(torch.tensor(S2), torch.tensor(B), dims=(0,)),
        rtol=1e-8,
    )
    _grads(lambda L, s, b: L.linalg.tensorsolve(s, b).sum(), S, B)


@pytest.mark.parametrize("p", [None, 2, -2, "fro", "nuc", 1, -1, float("inf"), -float("inf")])
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
def test_cond(p, dtype):
    A = _array((2, 3, 3), dtype)
    ours, theirs = _pair(A)
    assert_same(mindtorch.linalg.cond(ours, p), torch.linalg.cond(theirs, p), rtol=TOL[dtype] * 100)
    singular = np.array([[1.0, 2.0], [0.0, 0.0]], dtype=np.float64)
    if p not in (None, 2, -2):
        assert_same(mindtorch.linalg.cond(mindtorch.tensor(singular), p), torch.linalg.cond(torch.tensor(singular), p))
    if dtype == "float64":  # PyTorch's backward of the other orders trips over its own in-place write
        check_grad(lambda a: mindtorch.linalg.cond(a, p), mindtorch.tensor(A, requires_grad=True))
    if dtype == "float64" and p in (None, 2, -2):
        _grads(lambda L, a: L.linalg.cond(a, p).sum(), A)
    if p in (None, 2, -2):
        R = _array((2, 3), dtype)
        assert_same(
            mindtorch.linalg.cond(mindtorch.tensor(R), p), torch.linalg.cond(torch.tensor(R), p), rtol=TOL[dtype] * 100
        )
