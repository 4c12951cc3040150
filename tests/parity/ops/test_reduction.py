"""Reductions against PyTorch: values, shapes, dtypes, errors and gradients."""

from helpers import assert_same, to_torch, torch_or_skip

torch = torch_or_skip()

import mindtorch  # noqa: E402
import mindtorch as mt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

RNG = np.random.default_rng(0)


def both(arr, requires_grad=False):
    a = mt.tensor(arr)
    if requires_grad:
        a.requires_grad_(True)
    return a, to_torch(a)


def data(shape, dtype="float64"):
    if dtype == "bool":
        return RNG.random(shape) > 0.5
    if dtype.startswith(("int", "uint")):
        return RNG.integers(0, 5, size=shape).astype(dtype)
    return RNG.standard_normal(shape).astype(dtype)


CALLS = [
    ("sum", (), {}),
    ("sum", (1,), {}),
    ("sum", ((0, 2),), {"keepdim": True}),
    ("sum", (), {"dtype": "float64"}),
    ("prod", (), {}),
    ("prod", (1,), {"keepdim": True}),
    ("amax", ((0, 2),), {}),
    ("amin", (-1,), {"keepdim": True}),
    ("amax", (), {}),
    ("argmax", (), {}),
    ("argmin", (1,), {}),
    ("argmax", (), {"keepdim": True}),
    ("argmax", (2,), {"keepdim": True}),
    ("all", (), {}),
    ("any", (1,), {}),
    ("all", ((0, 1),), {"keepdim": True}),
    ("count_nonzero", (), {}),
    ("count_nonzero", ((0, 2),), {}),
    ("cumsum", (1,), {}),
    ("cumprod", (-1,), {}),
    ("cumsum", (0,), {"dtype": "float32"}),
    ("max", (), {}),
    ("min", (), {}),
]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "uint8", "bool"])
@pytest.mark.parametrize("name,args,kw", CALLS)
def test_reduction_values(name, args, kw, dtype):
    a, t = both(data((3, 4, 5), dtype))
    kw_m = {k: (getattr(mt, v) if k == "dtype" else v) for k, v in kw.items()}
    kw_t = {k: (getattr(torch, v) if k == "dtype" else v) for k, v in kw.items()}
    try:
        exp = getattr(t, name)(*args, **kw_t)
    except Exception as e:
        with pytest.raises(type(e)):
            getattr(a, name)(*args, **kw_m)
        return
    assert_same(getattr(a, name)(*args, **kw_m), exp, rtol=1e-4)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(
    "name,args,kw",
    [
        ("mean", (), {}),
        ("mean", ((0, 2),), {"keepdim": True}),
        ("var", (), {}),
        ("var", (1,), {}),
        ("var", (1, False), {}),
        ("var", (1, False, True), {}),
        ("std", (), {"unbiased": False}),
        ("std", (), {"dim": 0, "correction": 0, "keepdim": True}),
        ("var", ((0, 1),), {"correction": 2}),
        ("logsumexp", (1,), {}),
        ("logsumexp", ((0, 2),), {"keepdim": True}),
        ("softmax", (1,), {}),
        ("log_softmax", (-1,), {}),
        ("norm", (), {}),
        ("norm", (1,), {}),
        ("norm", (float("inf"), 1), {}),
        ("norm", ("fro", (0, 1)), {}),
        ("norm", (3, 2, True), {}),
    ],
)
def test_float_reductions(name, args, kw, dtype):
    a, t = both(data((3, 4, 5), dtype))
    assert_same(getattr(a, name)(*args, **kw), getattr(t, name)(*args, **kw), rtol=1e-4)


@pytest.mark.parametrize("fn", ["var_mean", "std_mean"])
@pytest.mark.parametrize("args,kw", [((), {}), ((1,), {}), ((1, False, True), {}), ((), {"dim": 0, "correction": 0})])
def test_var_mean(fn, args, kw):
    a, t = both(data((3, 4)))
    assert_same(getattr(mt, fn)(a, *args, **kw), getattr(torch, fn)(t, *args, **kw))


@pytest.mark.parametrize("name", ["max", "min"])
@pytest.mark.parametrize("dim,keepdim", [(0, False), (1, True), (-1, False)])
def test_max_dim_named_tuple(name, dim, keepdim):
    arr = RNG.integers(0, 3, size=(4, 5)).astype("float64")  # ties: first index wins
    a, t = both(arr)
    r, e = getattr(a, name)(dim, keepdim), getattr(t, name)(dim, keepdim)
    assert_same(r.values, e.values)
    assert_same(r.indices, e.indices)
    r2 = getattr(mt, name)(a, dim=dim, keepdim=keepdim)
    assert_same(tuple(r2), tuple(e))
    assert type(r).__name__ == name


@pytest.mark.parametrize(
    "call",
    [
        lambda m, x: m.empty(0).max(),
        lambda m, x: m.empty(0, 3).max(0),
        lambda m, x: m.empty(0, 3).amax(0),
        lambda m, x: m.empty(0).argmax(),
        lambda m, x: x.sum(3),
        lambda m, x: x.amax((0, 0)),
        lambda m, x: m.arange(3).mean(),
        lambda m, x: x.mean(dtype=m.int64),
        lambda m, x: m.arange(3).var(),
        lambda m, x: m.arange(3).softmax(0),
        lambda m, x: x.softmax(5),
        lambda m, x: m.arange(3).norm(),
        lambda m, x: x.max(2),
        lambda m, x: m.ones(()).sum(1),
        lambda m, x: m.tensor([1 + 2j, 3 - 1j]).argmax(),
        lambda m, x: m.tensor([1 + 2j, 3 - 1j]).argmin(0),
        lambda m, x: m.tensor([[1 + 2j]], dtype=m.complex128).argmax(1, keepdim=True),
        *(
            lambda m, x, f=f: f(m.tensor([1 + 2j, 3 - 1j]))
            for f in (
                lambda c: c.max(),
                lambda c: c.min(),
                lambda c: c.max(0),
                lambda c: c.min(0, True),
                lambda c: c.amax(),
                lambda c: c.amin(0),
            )
        ),
        lambda m, x: m.atan2(m.tensor([1 + 2j]), m.tensor([1.0])),
        lambda m, x: m.arctan2(m.tensor([1.0]), m.tensor([1j])),
        lambda m, x: m.tensor([1.0]).atan2_(m.tensor([1j])),
        *(
            lambda m, x, o=o, shape=shape, dim=dim: m.linalg.vector_norm(m.zeros(shape), o, dim=dim)
            for o in (float("inf"), -float("inf"), -1, -2.5)
            for shape, dim in (((0,), None), ((0, 3), None), ((0, 3), 0), ((2, 0), (0, 1)), ((0, 3), ()))
        ),
        lambda m, x: m.norm(m.zeros(0), float("inf")),
        lambda m, x: m.dist(m.zeros(0), m.zeros(0), float("inf")),
    ],
)
def test_errors_match(call):
    x = mt.ones(2, 3)
    with pytest.raises(Exception) as exp:
        call(torch, torch.ones(2, 3))
    with pytest.raises(type(exp.value)):
        call(mt, x)


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.empty(0).sum(),
        lambda m: m.empty(0).prod(),
        lambda m: m.empty(0, 3).max(1).values,
        lambda m: m.empty(0, 3).amax(1),
        lambda m: m.empty(0).all(),
        lambda m: m.empty(0).any(),
        lambda m: m.ones(()).sum(0),
        lambda m: m.ones(()).max(0).values,
        lambda m: m.ones(()).cumsum(0),
        lambda m: m.ones(()).argmax(0),
        lambda m: m.ones((), dtype=m.uint8).all(),
        *(
            lambda m, o=o: m.linalg.vector_norm(m.zeros(0, 3), o, dim=1)
            for o in (float("inf"), -float("inf"), -1, 0, 1, 2, 0.5)
        ),
        *(lambda m, o=o: m.linalg.vector_norm(m.zeros(0), o) for o in (0, 1, 2, 3, 0.5)),
    ],
)
def test_edge_cases(call):
    assert_same(call(mt), call(torch))


def _grad_pair(fn, arr):
    a, t = both(arr, requires_grad=True)
    fn(mt, a).sum().backward()
    fn(torch, t).sum().backward()
    assert_same(a.grad, t.grad, rtol=1e-6)


TIES = np.array([[1.0, 3.0, 3.0, 0.0], [2.0, 2.0, -1.0, 2.0], [0.5, 0.1, 0.2, 0.3]])


@pytest.mark.parametrize(
    "fn",
    [
        lambda m, x: x.sum(1) * m.arange(3.0, dtype=m.float64),
        lambda m, x: x.mean((0, 1)),
        lambda m, x: x.prod(1),
        lambda m, x: x.prod(),
        lambda m, x: x.amax(1),
        lambda m, x: x.amin(0, keepdim=True) * 2,
        lambda m, x: x.max(),
        lambda m, x: x.min(),
        lambda m, x: x.max(1).values * 3,
        lambda m, x: x.min(0, True)[0],
        lambda m, x: x.var(1),
        lambda m, x: x.std(),
        lambda m, x: x.std(0, correction=0),
        lambda m, x: x.logsumexp(1),
        lambda m, x: x.softmax(1) * m.arange(4.0, dtype=m.float64),
        lambda m, x: x.log_softmax(0) * m.arange(4.0, dtype=m.float64),
        lambda m, x: x.norm(),
        lambda m, x: x.norm(1, 1),
        lambda m, x: x.norm(float("inf"), 0),
        lambda m, x: x.norm(3, 1),
        lambda m, x: x.cumsum(1) * m.arange(4.0, dtype=m.float64),
        lambda m, x: x.cumprod(1),
    ],
)
def test_gradients_match(fn):
    _grad_pair(fn, TIES)


@pytest.mark.parametrize(
    "fn",
    [
        lambda m, x: x.prod(1),
        lambda m, x: x.prod(),
        lambda m, x: x.cumprod(1),
        lambda m, x: x.std(1),
        lambda m, x: x.norm(),
    ],
)
def test_gradients_with_zeros(fn):
    arr = np.array([[0.0, 2.0, 3.0], [0.0, 0.0, 1.5], [1.0, 1.0, 1.0]])
    _grad_pair(fn, arr if fn(torch, torch.ones(1, 1)).dim() >= 0 else arr)
    _grad_pair(fn, np.zeros((2, 3)))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("fn", ["cumsum", "cumprod"])
def test_16_bit_cumulative_ops_accumulate_in_float32(dtype, fn):
    vals = [1.0] * 4096 if fn == "cumsum" else [1.001] * 300
    mt = getattr(mindtorch.tensor(vals, dtype=getattr(mindtorch, dtype)), fn)(0)
    th = getattr(torch.tensor(vals, dtype=getattr(torch, dtype)), fn)(0)
    assert_same(mt, th)


# var/std's `unbiased` overloads: a positional bool is `unbiased`, never a dim, through every entry
UNBIASED_CALLS = [
    (entry, name, args)
    for entry in ("function", "method")
    for name in ("var", "std", "var_mean", "std_mean")
    for args in ((False,), (True,), (0, False), (1, True, True), ([0, 1], False))
    if not (entry == "method" and name.endswith("_mean"))
]


@pytest.mark.parametrize("entry,name,args", UNBIASED_CALLS)
def test_unbiased_overloads(entry, name, args):
    a, t = both(data((3, 4)))

    def call(lib, x):
        return getattr(x, name)(*args) if entry == "method" else getattr(lib, name)(x, *args)

    got, want = call(mt, a), call(torch, t)
    for g, w in zip(got, want) if isinstance(want, tuple) else ((got, want),):
        assert_same(g, w)


def test_bare_bool_is_no_dim_list():
    a, t = both(data((3, 4)))
    with pytest.raises(TypeError):
        torch.amax(t, True)
    with pytest.raises(TypeError):
        mt.amax(a, True)
