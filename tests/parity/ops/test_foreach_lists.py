"""_foreach_norm and _foreach_mul / _foreach_mul_ vs PyTorch: every order and dtype form, the operand forms
(number, 0-dim tensor, list), version counters, gradients and PyTorch's errors; and the gradient clipping
built on them, foreach on, off and by default."""

from helpers import torch_or_skip

torch = torch_or_skip()

import itertools  # noqa: E402

import mindtorch  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from helpers import assert_same, check_grad, raises_alike, results_or_same_error  # noqa: E402

SHAPES = [(3, 4), (5,), (), (2, 1, 3)]
DTYPES = ["float32", "float64", "float16", "bfloat16"]
ORDS = [2, 1, 3, 0.5, 0, float("inf"), float("-inf"), -1]


def _tensors(lib, dtypes, shapes=SHAPES, seed=0):
    rng = np.random.default_rng(seed)
    return [
        lib.tensor(rng.standard_normal(s) * 3, dtype=getattr(lib, dt)) for s, dt in zip(shapes, itertools.cycle(dtypes))
    ]


@pytest.mark.parametrize("dtypes", [["float32"], ["float64"], ["float16"], ["bfloat16"], ["float32", "float64"]])
@pytest.mark.parametrize("ord", ORDS)
def test_foreach_norm_matches_torch(dtypes, ord):
    ours, theirs = results_or_same_error(lambda lib: lib._foreach_norm(_tensors(lib, dtypes), ord))
    if theirs is not None:
        assert isinstance(ours, tuple)
        assert_same(ours, theirs, rtol=1e-2 if dtypes[0] in ("float16", "bfloat16") else 1e-5)


@pytest.mark.parametrize(
    "src,dtype",
    list(
        itertools.product(
            ["float32", "float64", "float16", "complex64"], ["float64", "float32", "float16", "complex64", "complex128"]
        )
    ),
)
def test_foreach_norm_result_dtype(src, dtype):
    ours, theirs = results_or_same_error(
        lambda lib: lib._foreach_norm(_tensors(lib, [src]), 2, dtype=getattr(lib, dtype))
    )
    if theirs is not None:
        assert_same(ours, theirs, rtol=1e-3)


@pytest.mark.parametrize(
    "bad",
    [
        lambda lib: lib._foreach_norm([]),
        lambda lib: lib._foreach_norm([lib.tensor([1, 2])]),
        lambda lib: lib._foreach_norm([lib.tensor([1.0])], dtype=lib.int64),
        lambda lib: lib._foreach_norm([lib.ones(2), lib.zeros(0)], float("inf")),
        lambda lib: lib._foreach_mul_([], 2.0),
        lambda lib: lib._foreach_mul([lib.ones(2)], lib.ones(2)),
        lambda lib: lib._foreach_mul_([lib.ones(2)], [lib.ones(2), lib.ones(2)]),
        lambda lib: lib._foreach_mul_([lib.tensor([1, 2])], 2.5),
    ],
)
def test_bad_input_raises_alike(bad):
    # the same class and message
    raises_alike(bad)


def _operand(lib, form, dtypes):
    if form == "number":
        return 2.5
    if form == "int":
        return 3
    if form == "0-dim":
        return lib.tensor(0.25, dtype=lib.float64)
    return _tensors(lib, dtypes, seed=1)  # "list"


CASES = list(itertools.product(["number", "int", "0-dim", "list"], [["float32"], ["float64", "float32"], ["int64"]]))


@pytest.mark.parametrize("form,dtypes", CASES)
def test_foreach_mul_matches_torch(form, dtypes):
    ours, theirs = results_or_same_error(
        lambda lib: lib._foreach_mul(_tensors(lib, dtypes), _operand(lib, form, dtypes))
    )
    if theirs is not None:
        assert_same(ours, theirs)


@pytest.mark.parametrize("form,dtypes", CASES)
def test_foreach_mul_in_place_matches_torch(form, dtypes):
    def run(lib):
        ts = _tensors(lib, dtypes)
        views = [t.view(t.shape) for t in ts]  # the writes show through views of the tensors
        before = [t._version if lib is torch else 0 for t in ts]
        out = lib._foreach_mul_(ts, _operand(lib, form, dtypes))
        assert isinstance(out, list) and all(o is t for o, t in zip(out, ts))
        return ts, views, before

    ours, theirs = results_or_same_error(run)
    if theirs is not None:
        assert_same(ours[0], theirs[0])
        assert_same(ours[1], ours[0])


def test_foreach_mul_in_place_bumps_each_version_once_per_write():
    a, b = mindtorch.ones(3), mindtorch.ones(2)
    a.add_(1)  # versions start apart
    ta, tb = torch.ones(3), torch.ones(2)
    ta.add_(1)
    mindtorch._foreach_mul_([a, b, a], 2.0)
    torch._foreach_mul_([ta, tb, ta], 2.0)
    assert (a._version.value, b._version.value) == (ta._version, tb._version)
    assert_same(a, ta)


def _x(shape, seed):
    rng = np.random.default_rng(seed)
    return mindtorch.tensor(rng.uniform(0.2, 0.9, shape), dtype=mindtorch.float64, requires_grad=True)


@pytest.mark.parametrize("ord", [2, 1, 3, float("inf")])
def test_foreach_norm_gradcheck(ord):
    check_grad(lambda a, b: mindtorch._foreach_norm([a, b], ord), _x((3, 4), 0), _x((5,), 1))


@pytest.mark.parametrize("form", ["number", "0-dim", "list"])
def test_foreach_mul_gradcheck(form):
    other = {"number": 1.5, "0-dim": _x((), 2), "list": [_x((3, 4), 3), _x((5,), 4)]}[form]
    flat = other if isinstance(other, list) else [other] if form == "0-dim" else []

    def f(a, b, *rest):
        o = list(rest) if form == "list" else rest[0] if rest else other
        return mindtorch._foreach_mul([a, b], o)

    check_grad(f, _x((3, 4), 0), _x((5,), 1), *flat)


# -- clipping -----------------------------------------------------------------------------------------


def _model_grads(lib, dtypes=("float32",), scale=1.0):
    params = [lib.nn.Parameter(t) for t in _tensors(lib, list(dtypes))]
    for p, g in zip(params, _tensors(lib, list(dtypes), seed=5)):
        p.grad = g * scale
    return params


@pytest.mark.parametrize("foreach", [None, True, False])
@pytest.mark.parametrize("norm_type", [2.0, 1.0, float("inf"), 3])
@pytest.mark.parametrize("dtypes,scale", [(("float32",), 1.0), (("float32", "float64"), 1.0), (("float32",), 1e-3)])
def test_clip_grad_norm_matches_torch(foreach, norm_type, dtypes, scale):
    def run(lib):
        params = _model_grads(lib, dtypes, scale)
        total = lib.nn.utils.clip_grad_norm_(params, 1.0, norm_type, foreach=foreach)
        return total, [p.grad for p in params]

    ours, theirs = run(mindtorch), run(torch)
    assert_same(ours[0], theirs[0])
    assert_same(ours[1], theirs[1])


@pytest.mark.parametrize("foreach", [None, True, False])
def test_total_norm_then_clip_matches_torch(foreach):
    def run(lib):
        params = _model_grads(lib, ("float64",))
        total = lib.nn.utils.get_total_norm([p.grad for p in params], 2.0, foreach=foreach)
        lib.nn.utils.clip_grads_with_norm_(params, 0.5, total, foreach=foreach)
        return total, [p.grad for p in params]

    ours, theirs = run(mindtorch), run(torch)
    assert_same(ours, theirs)


def test_foreach_on_meta_is_refused_and_the_default_falls_back():
    def run(lib, foreach):
        return lib.nn.utils.get_total_norm([lib.ones(3, device="meta")], 2.0, foreach=foreach)

    raises_alike(lambda lib: run(lib, True))
    assert run(mindtorch, None).device.type == "meta" and run(mindtorch, False).shape == ()


@pytest.mark.parametrize("ord", [2, 1, float("inf")])
@pytest.mark.parametrize("dtype", DTYPES)
def test_foreach_norm_equals_vector_norm_exactly(ord, dtype):
    ts = _tensors(mindtorch, [dtype]) + [_tensors(mindtorch, [dtype])[0].t()]  # a strided one too
    for n, t in zip(mindtorch._foreach_norm(ts, ord), ts):
        assert n.dtype is t.dtype and n.item() == mindtorch.linalg.vector_norm(t, ord).item()


# -- the sweep: every public foreach op and overload PyTorch has, its arguments built from its schema ------

SWEPT = sorted(
    (name, overload)
    for name in dir(torch)
    if name.startswith("_foreach_") and not name.endswith("_")
    for overload in getattr(torch.ops.aten, name).overloads()
    if not overload.startswith("out") and not overload.endswith("out")
)
# no mindtorch form yet
NOT_YET = {"_foreach_max", "_foreach_powsum", "_foreach_clone", "_foreach_mm"}
SWEEP_DTYPES = [["float32"], ["float64"], ["int64"], ["bool"], ["float32", "float64", "int64"]]
SWEEP_SHAPES = [(4, 3), (5,), ()]


def _members(lib, dtypes, seed, n=3):
    """Positive values (every unary op's domain); the first member a transposed, non-contiguous view."""
    rng = np.random.default_rng(seed)
    out = []
    for s, dt in zip(SWEEP_SHAPES[:n], itertools.cycle(dtypes)):
        values = rng.integers(1, 4, s) if dt in ("int64", "bool") else rng.uniform(0.2, 0.9, s)
        out.append(lib.tensor(values, dtype=getattr(lib, dt)))
    if out and out[0].dim() == 2:
        out[0] = out[0].t()
    return out


def _schema_args(lib, name, overload, dtypes, scalar, n=3, operand_n=None):
    """The positional arguments of one overload, by its schema's types; operand_n != n mismatches the lists."""
    schema = getattr(getattr(torch.ops.aten, name), overload)._schema
    m = n if operand_n is None else operand_n
    args = []
    for k, a in enumerate(schema.arguments):
        if a.kwarg_only:
            break
        typ = str(a.type)
        if k == 0:
            args.append(scalar if typ.startswith("number") or typ == "Scalar" else _members(lib, dtypes, 0, n))
        elif typ == "List[Tensor]":
            args.append(_members(lib, dtypes, k, m))
        elif typ == "List[number]" or typ == "List[Scalar]":
            args.append([scalar + 0.5 * i for i in range(m)])
        elif typ == "Tensor":
            packed = a.name == "scalars"
            args.append(lib.tensor([0.5 + i for i in range(m)]) if packed else lib.tensor(scalar, dtype=lib.float64))
        elif typ in ("number", "Scalar"):
            args.append(scalar)
        elif typ == "bool":
            args.append(False)
    return args


def _sweep(name, overload, in_place, **kw):
    fn = name + "_" if in_place else name

    def run(lib):
        args = _schema_args(lib, name, overload, **kw)
        out = getattr(lib, fn)(*args)
        if in_place:
            assert isinstance(out, list) and all(o is t for o, t in zip(out, args[0]))
            return args[0]  # the tensors written
        assert isinstance(out, tuple)
        return list(out)

    return results_or_same_error(run)


def _sweep_cases():
    for name, overload in SWEPT:
        if name in NOT_YET:
            continue
        for dtypes in SWEEP_DTYPES:
            yield pytest.param(name, overload, dtypes, id=f"{name}-{overload}-{'-'.join(dtypes)}")


@pytest.mark.parametrize("name,overload,dtypes", list(_sweep_cases()))
@pytest.mark.parametrize("scalar", [2, 1.5])
def test_foreach_sweep_matches_torch(name, overload, dtypes, scalar):
    for in_place in (False, True):
        if in_place and (not hasattr(torch, name + "_") or overload == "ScalarAndTensor"):
            continue
        ours, theirs = _sweep(name, overload, in_place, dtypes=dtypes, scalar=scalar)
        if theirs is not None:
            assert_same(ours, theirs, rtol=1e-5)


@pytest.mark.parametrize("name,overload", [c for c in SWEPT if c[0] not in NOT_YET])
@pytest.mark.parametrize("n,operand_n", [(0, 0), (3, 2), (2, 3)])
def test_foreach_sweep_list_errors(name, overload, n, operand_n):
    # empty lists and operand lists of the wrong length: PyTorch's class and message
    args = _schema_args(torch, name, overload, ["float32"], 1.5, n, operand_n)
    if overload == "ScalarAndTensor" or (all(len(a) == n for a in args if isinstance(a, list)) and n):
        pytest.skip("no operand list to mismatch")
    for fn in {name, name + "_"} if hasattr(torch, name + "_") and overload != "ScalarAndTensor" else {name}:
        raises_alike(lambda lib: getattr(lib, fn)(*_schema_args(lib, name, overload, ["float32"], 1.5, n, operand_n)))


@pytest.mark.parametrize("name,overload", [c for c in SWEPT if c[0] not in NOT_YET and c[0] != "_foreach_zero"])
def test_foreach_sweep_gradcheck(name, overload):
    base = _schema_args(mindtorch, name, overload, ["float64"], 1.5)
    leaves = [x.requires_grad_() for a in base for x in (a if isinstance(a, list) else [a]) if _differentiable(a, x)]

    def f(*xs):
        it = iter(xs)
        args = [[next(it) for _ in a] if isinstance(a, list) and a and hasattr(a[0], "dim") else a for a in base]
        args = [next(it) if hasattr(a, "dim") and a.dim() == 0 and a.requires_grad else a for a in args]
        return getattr(mindtorch, name)(*args)

    if not leaves:
        pytest.skip("no differentiable operand")
    check_grad(f, *leaves)


def _differentiable(arg, x):
    return hasattr(x, "dim") and (isinstance(arg, list) or arg.dim() == 0)


def test_a_tensor_that_requires_grad_binds_as_no_number():
    # _foreach_add's number form comes first: a 0-dim tensor adds as a number unless its gradient is wanted
    raises_alike(lambda lib: lib.full((2,), lib.tensor(2.0, requires_grad=True)))
    for lib in (torch, mindtorch):
        x = lib.tensor(2.0, dtype=lib.float64, requires_grad=True)
        lib._foreach_add([lib.ones(2, dtype=lib.int64)], x)[0].sum().backward()
        assert x.grad.item() == 2
