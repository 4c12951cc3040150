"""matmul family, einsum and norms against PyTorch: values, dtypes, errors, gradients."""

from helpers import assert_same, to_torch, torch_or_skip

torch = torch_or_skip()

import mindtorch as mt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

RNG = np.random.default_rng(1)


def pair(shape, dtype="float64", rg=False):
    arr = RNG.standard_normal(shape) if "float" in dtype else RNG.integers(-3, 4, size=shape)
    a = mt.tensor(arr.astype(dtype))
    if rg:
        a.requires_grad_(True)
    return a, to_torch(a)


SHAPES = [
    ((3,), (3,)),
    ((2, 3), (3,)),
    ((3,), (3, 4)),
    ((2, 3), (3, 4)),
    ((5, 2, 3), (3, 4)),
    ((3,), (5, 3, 4)),
    ((5, 2, 3), (3,)),
    ((5, 1, 2, 3), (4, 3, 2)),
    ((1, 2, 3), (6, 3, 2)),
    ((0, 3), (3, 2)),
    ((2, 0), (0, 3)),
]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32"])
@pytest.mark.parametrize("sa,sb", SHAPES)
def test_matmul_values(sa, sb, dtype):
    a, ta = pair(sa, dtype)
    b, tb = pair(sb, dtype)
    assert_same(a @ b, ta @ tb, rtol=1e-5, atol=1e-5)
    assert_same(mt.matmul(a, b), torch.matmul(ta, tb), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("sa,sb", [s for s in SHAPES if 0 not in s[0] + s[1]])
def test_matmul_grad(sa, sb):
    a, ta = pair(sa, rg=True)
    b, tb = pair(sb, rg=True)
    (a @ b).sum().backward() if (a @ b).dim() else (a @ b).backward()
    (ta @ tb).sum().backward()
    assert_same(a.grad, ta.grad)
    assert_same(b.grad, tb.grad)


def _product_or_error(a, b):
    try:
        return a @ b
    except RuntimeError as e:
        return e


@pytest.mark.parametrize("sa,sb", [((2, 3), (3, 4)), ((2, 0), (0, 3)), ((4, 4), (4, 4)), ((2, 3), (2, 3))])
@pytest.mark.parametrize("da,db", [("float32", "float64"), ("bool", "bool"), ("int64", "float32"), ("int32", "int32")])
def test_a_matrix_product_geometry_seen_before_keeps_its_rules(sa, sb, da, db):
    # a float32 product of these shapes first (its result rule is then remembered for the geometry),
    # then other dtypes on the same shapes: the same result or the same refusal as PyTorch
    for dtypes in (("float32", "float32"), (da, db), ("float32", "float32")):
        (a, ta), (b, tb) = pair(sa, dtypes[0]), pair(sb, dtypes[1])
        got, want = _product_or_error(a, b), _product_or_error(ta, tb)
        if isinstance(want, RuntimeError):
            assert isinstance(got, RuntimeError), dtypes
            assert str(got).split(" ")[:2] == str(want).split(" ")[:2]
        else:
            assert_same(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "fn",
    [
        lambda m, a: m.ones(3) @ m.ones(4),
        lambda m, a: m.ones(2, 3) @ m.ones(4, 5),
        lambda m, a: m.ones(2, 2, 3) @ m.ones(3, 2, 5),
        lambda m, a: m.ones(2, 3) @ m.ones(4),
        lambda m, a: m.ones(3) @ m.ones(4, 5),
        lambda m, a: m.ones(()) @ m.ones(4, 5),
        lambda m, a: m.mm(m.ones(3), m.ones(3, 3)),
        lambda m, a: m.mm(m.ones(2, 3), m.ones(4, 3)),
        lambda m, a: m.bmm(m.ones(2, 3), m.ones(4, 3)),
        lambda m, a: m.bmm(m.ones(2, 2, 3), m.ones(3, 3, 3)),
        lambda m, a: m.mv(m.ones(2, 3), m.ones(4)),
        lambda m, a: m.dot(m.ones(2, 3), m.ones(4)),
        lambda m, a: m.dot(m.ones(3), m.ones(3, dtype=m.float64)),
        lambda m, a: m.matmul(m.ones(3, 3), m.ones(3, 3, dtype=m.float64)),
        lambda m, a: m.matmul(m.ones(3, 3, dtype=m.bool), m.ones(3, 3, dtype=m.bool)),
        lambda m, a: m.addmm(m.ones(5), m.ones(2, 3), m.ones(3, 4)),
        lambda m, a: m.linalg.norm(m.ones(2, 2, 2), 2),
        lambda m, a: m.linalg.matrix_norm(m.ones(3)),
    ],
)
def test_errors_match(fn):
    with pytest.raises(Exception) as exp:
        fn(torch, None)
    with pytest.raises(type(exp.value)) as got:
        fn(mt, None)
    if isinstance(exp.value, RuntimeError):
        assert str(got.value).split(" ")[:2] == str(exp.value).split(" ")[:2]


@pytest.mark.parametrize(
    "name,shapes,kw",
    [
        ("mm", [(2, 3), (3, 4)], {}),
        ("bmm", [(2, 2, 3), (2, 3, 4)], {}),
        ("mv", [(2, 3), (3,)], {}),
        ("dot", [(3,), (3,)], {}),
        ("outer", [(3,), (4,)], {}),
        ("addmm", [(4,), (2, 3), (3, 4)], {"beta": 0.5, "alpha": 2}),
        ("addmm", [(2, 4), (2, 3), (3, 4)], {}),
        ("baddbmm", [(2, 2, 4), (2, 2, 3), (2, 3, 4)], {"beta": 2, "alpha": 0.5}),
        ("addmv", [(2,), (2, 3), (3,)], {"alpha": 3}),
    ],
)
def test_products_values_and_grads(name, shapes, kw):
    ms, ts = zip(*[pair(s, rg=True) for s in shapes])
    r, e = getattr(mt, name)(*ms, **kw), getattr(torch, name)(*ts, **kw)
    assert_same(r, e)
    r.sum().backward()
    e.sum().backward()
    for a, t in zip(ms, ts):
        assert_same(a.grad, t.grad)


def test_addmm_beta_zero_ignores_nan():
    inp = mt.ones(2, 2) * float("nan")
    r = mt.addmm(inp, mt.ones(2, 3), mt.ones(3, 2), beta=0)
    assert_same(r, torch.addmm(torch.full((2, 2), float("nan")), torch.ones(2, 3), torch.ones(3, 2), beta=0))


def test_outer_promotes():
    a = mt.arange(3, dtype=mt.int32)
    assert_same(mt.outer(a, mt.ones(2)), torch.outer(torch.arange(3, dtype=torch.int32), torch.ones(2)))


@pytest.mark.parametrize(
    "eq,shapes",
    [
        ("ij,jk->ik", [(2, 3), (3, 4)]),
        ("ij,jk", [(2, 3), (3, 4)]),
        ("bij,bjk->bik", [(2, 2, 3), (2, 3, 4)]),
        ("ii->i", [(3, 3)]),
        ("ii", [(3, 3)]),
        ("ij->ji", [(2, 3)]),
        ("ij->", [(2, 3)]),
        ("i,j->ij", [(2,), (3,)]),
        ("i,i->", [(3,), (3,)]),
        ("...ij,...jk->...ik", [(5, 2, 3), (1, 3, 4)]),
        ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
        ("bhqd,bhkd->bhqk", [(2, 2, 3, 4), (2, 2, 5, 4)]),
        ("ijk->kj", [(2, 3, 4)]),
        ("i...->...", [(2, 3, 4)]),
        ("iij->j", [(2, 2, 3)]),
        ("ab,cd->", [(2, 3), (4, 5)]),
    ],
)
def test_einsum(eq, shapes):
    ms, ts = zip(*[pair(s, rg=True) for s in shapes])
    r, e = mt.einsum(eq, list(ms)), torch.einsum(eq, *ts)
    assert_same(r, e)
    r.sum().backward() if r.dim() else r.backward()
    e.sum().backward()
    for a, t in zip(ms, ts):
        assert_same(a.grad, t.grad)


@pytest.mark.parametrize(
    "eq,shapes", [("ij,jk->ik", [(2, 3), (4, 4)]), ("ij->ik", [(2, 3)]), ("ijk->", [(2, 3)]), ("ij,jk->ik", [(2, 3)])]
)
def test_einsum_errors(eq, shapes):
    ms, ts = zip(*[pair(s) for s in shapes])
    with pytest.raises(RuntimeError):
        torch.einsum(eq, *ts)
    with pytest.raises(RuntimeError):
        mt.einsum(eq, list(ms))


@pytest.mark.parametrize(
    "args,kw",
    [
        ((), {}),
        ((3,), {}),
        ((float("inf"),), {}),
        ((-float("inf"),), {}),
        ((0,), {}),
        ((1,), {"dim": 1}),
        ((2, (0, 1)), {"keepdim": True}),
        ((0.5, -1), {}),
    ],
)
def test_vector_norm(args, kw):
    a, t = pair((3, 4), rg=True)
    r, e = mt.linalg.vector_norm(a, *args, **kw), torch.linalg.vector_norm(t, *args, **kw)
    assert_same(r, e)
    r.sum().backward()
    e.sum().backward()
    if t.grad is None:  # PyTorch: the 0-"norm" has no gradient
        assert a.grad is None or not a.grad.any()
    else:
        assert_same(a.grad, t.grad)


@pytest.mark.parametrize("ord", ["fro", "nuc", 1, -1, float("inf"), -float("inf"), 2, -2])
@pytest.mark.parametrize("shape,dim,keepdim", [((3, 4), (-2, -1), False), ((2, 3, 4), (0, 2), True)])
def test_matrix_norm(ord, shape, dim, keepdim):
    a, t = pair(shape)
    assert_same(mt.linalg.matrix_norm(a, ord, dim, keepdim), torch.linalg.matrix_norm(t, ord, dim, keepdim))


@pytest.mark.parametrize(
    "args,kw",
    [
        ((), {}),
        ((None, 1), {}),
        ((2,), {}),
        (("fro",), {}),
        (("nuc",), {}),
        ((float("inf"),), {}),
        ((None, (0, 1)), {"keepdim": True}),
        ((3, 0), {}),
    ],
)
def test_linalg_norm(args, kw):
    a, t = pair((3, 4))
    assert_same(mt.linalg.norm(a, *args, **kw), torch.linalg.norm(t, *args, **kw))


@pytest.mark.parametrize("ord", ["fro", 1, float("inf")])
def test_matrix_norm_grad(ord):
    a, t = pair((3, 4), rg=True)
    mt.linalg.matrix_norm(a, ord).backward()
    torch.linalg.matrix_norm(t, ord).backward()
    assert_same(a.grad, t.grad)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize(
    "op,shapes",
    [
        ("addmm", ((3, 4), (3, 5), (5, 4))),
        ("baddbmm", ((2, 3, 4), (2, 3, 5), (2, 5, 4))),
        ("addmv", ((3,), (3, 5), (5,))),
    ],
)
def test_add_product_rounds_once_in_half_precision(op, shapes, dtype):
    """PyTorch accumulates beta*self + alpha*(a@b) in float32 and rounds once; so must we (bit-equal)."""
    rng = np.random.default_rng(7)
    arrays = [(rng.standard_normal(s) * 8).astype(np.float32) for s in shapes]
    m = getattr(mt, op)(*(mt.tensor(a).to(getattr(mt, dtype)) for a in arrays), beta=-4.775, alpha=2.0315)
    t = getattr(torch, op)(*(torch.tensor(a).to(getattr(torch, dtype)) for a in arrays), beta=-4.775, alpha=2.0315)
    assert m.dtype == getattr(mt, dtype)
    if (op, dtype) == ("addmv", "float16"):  # PyTorch's float16 mv kernel accumulates its own way: 1 ulp
        np.testing.assert_allclose(m.float().numpy(), t.float().numpy(), rtol=2**-10)
    else:
        np.testing.assert_array_equal(m.float().numpy(), t.float().numpy())


ADD_PRODUCTS = {
    "addmm": lambda L, d: (L.full((5,), 3, dtype=d), L.ones(3, 4, dtype=d), L.ones(4, 5, dtype=d)),
    "baddbmm": lambda L, d: (L.full((3, 5), 3, dtype=d), L.ones(2, 3, 4, dtype=d), L.ones(2, 4, 5, dtype=d)),
    "addbmm": lambda L, d: (L.full((3, 5), 3, dtype=d), L.ones(2, 3, 4, dtype=d), L.ones(2, 4, 5, dtype=d)),
    "addr": lambda L, d: (L.full((3, 5), 3, dtype=d), L.ones(3, dtype=d), L.ones(5, dtype=d)),
    "addmv": lambda L, d: (L.full((3,), 3, dtype=d), L.ones(3, 5, dtype=d), L.ones(5, dtype=d)),
}
SCALES = [{}, {"beta": 0.5, "alpha": 2}, {"beta": 1.7, "alpha": 2.6}, {"beta": 0}, {"beta": True, "alpha": False}]


@pytest.mark.parametrize("kw", SCALES, ids=str)
@pytest.mark.parametrize("dt", ["int8", "int32", "int64", "uint8", "float32", "float64", "bool"])
@pytest.mark.parametrize("name", sorted(ADD_PRODUCTS))
def test_add_products_keep_the_dtype_and_scale_like_pytorch(name, dt, kw):
    """Integer results take beta/alpha truncated to their type (addr refuses floats and bools instead);
    bool addr is logical; addbmm sums its batch in the input's dtype."""
    outcomes = []
    for L in (torch, mt):
        try:
            r = getattr(L, name)(*ADD_PRODUCTS[name](L, getattr(L, dt)), **kw)
            outcomes.append((str(r.dtype).split(".")[-1], tuple(r.shape), r.double().numpy()))
        except Exception as exc:  # the class is what is compared
            outcomes.append((type(exc).__name__,))
    want, got = outcomes
    assert got[:2] == want[:2]
    if len(want) > 1:
        np.testing.assert_allclose(got[2], want[2], rtol=1e-6)
