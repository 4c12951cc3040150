"""matmul family and einsum on CPU without PyTorch: NumPy reference, gradcheck, no operand copies."""

import mindtorch as mt
import numpy as np
import pytest
from helpers import peak_bytes

RNG = np.random.default_rng(3)


def t(shape, rg=True, dtype=np.float64):
    return mt.tensor(RNG.standard_normal(shape).astype(dtype)).requires_grad_(rg)


@pytest.mark.parametrize(
    "sa,sb",
    [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((4, 2, 3), (3, 2)), ((3,), (2, 3, 4)), ((2, 1, 2, 3), (5, 3, 2))],
)
def test_matmul_values_and_gradcheck(sa, sb):
    a, b = t(sa), t(sb)
    np.testing.assert_allclose((a @ b).detach().numpy(), a.detach().numpy() @ b.detach().numpy())
    assert mt.autograd.gradcheck(mt.matmul, (a, b))


def test_integer_matmul_keeps_dtype():
    a = mt.tensor(np.arange(6, dtype=np.int32).reshape(2, 3))
    r = a @ a.t()
    assert r.dtype is mt.int32
    np.testing.assert_array_equal(r.numpy(), a.numpy() @ a.numpy().T)


def test_matmul_shape_errors():
    with pytest.raises(RuntimeError, match="cannot be multiplied"):
        mt.ones(2, 3) @ mt.ones(4, 5)
    with pytest.raises(RuntimeError, match="at least 1D"):
        mt.ones(()) @ mt.ones(3)
    with pytest.raises(RuntimeError, match="same dtype"):
        mt.mm(mt.ones(2, 2), mt.ones(2, 2, dtype=mt.float64))


@pytest.mark.parametrize(
    "fn,shapes",
    [
        (lambda a, b, c: mt.addmm(a, b, c, beta=0.5, alpha=2), [(4,), (2, 3), (3, 4)]),
        (lambda a, b, c: mt.baddbmm(a, b, c), [(2, 2, 4), (2, 2, 3), (2, 3, 4)]),
        (lambda a, b: mt.einsum("bij,bkj->bik", [a, b]), [(2, 3, 4), (2, 5, 4)]),
        (lambda a: mt.einsum("ii->i", [a]), [(3, 3)]),
        (lambda a, b: mt.outer(a, b), [(3,), (2,)]),
        (lambda a: mt.linalg.matrix_norm(a, 1), [(3, 4)]),
    ],
)
def test_gradcheck_products(fn, shapes):
    assert mt.autograd.gradcheck(fn, tuple(t(s) for s in shapes))


def test_einsum_matches_numpy():
    a, b, c = (t(s, rg=False) for s in [(2, 3), (3, 4), (4, 5)])
    r = mt.einsum("ij,jk,kl->il", [a, b, c])
    np.testing.assert_allclose(r.numpy(), np.einsum("ij,jk,kl->il", a.numpy(), b.numpy(), c.numpy()))


def test_matmul_and_sum_make_no_copies_of_their_inputs():
    a = t((256, 256), rg=False, dtype=np.float32)
    result = 256 * 256 * 4
    # the result's buffer and bookkeeping, never a copy of an operand (which would double the peak)
    assert peak_bytes(lambda: a @ a) < 1.25 * result
    assert peak_bytes(lambda: a.t() @ a) < 1.25 * result
    assert peak_bytes(lambda: a.sum(0)) < 0.1 * result
