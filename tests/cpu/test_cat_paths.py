"""cat's and stack's compiled paths against the Python versions they stand in for, over a generated
sweep: core's compiled shape rule (mindtorch._accel.cat_meta) against
ops.indexing.PYTHON_TWINS["cat_meta"], and the cpu backend's compiled kernels (native entry's mt_cat,
mt_stack) against its NumPy kernels, which they call for whatever is not their common case. The cpu session runs this file a second time with
MINDTORCH_NO_ACCEL=1 (the Python shape rule alone, checked by the behaviour tests at the end)."""

import itertools
import os
from functools import partial

import mindtorch
import numpy as np
import pytest
from mindtorch._accel_load import ACCEL
from mindtorch.ops import indexing as OI
from mindtorch.ops.meta import TensorMeta
from mindtorch_cpu.allocator import ALLOCATOR
from mindtorch_cpu.convert import TO_NP, wrap
from mindtorch_cpu.kernels import indexing as KI
from mindtorch_cpu.native import ENTRY

PY_META = OI.PYTHON_TWINS["cat_meta"]
ACCEL_REQUIRED = os.environ.get("MINDTORCH_REQUIRE_ACCEL") == "1" and os.environ.get("MINDTORCH_NO_ACCEL") != "1"
ENTRY_REQUIRED = (
    os.environ.get("MINDTORCH_CPU_REQUIRE_NATIVE") == "1" and os.environ.get("MINDTORCH_CPU_NATIVE_ENTRY") != "ctypes"
)
needs_accel = pytest.mark.skipif(ACCEL is None, reason="core's accelerator is not in use")
needs_entry = pytest.mark.skipif(
    getattr(ENTRY, "mt_cat", None) is None, reason="the cpu backend's compiled entry is not in use"
)


def _op(name="cat"):
    from mindtorch.ops.registry import BY_NAME

    return BY_NAME[name][0]


def _t(shape, dtype=mindtorch.float32, seed=0):
    n = int(np.prod(shape))
    return mindtorch.tensor(((np.arange(n) * 7 + seed) % 5).reshape(shape).astype(np.float32)).to(dtype)


def test_compiled_paths_are_in_use_where_required():
    op = _op()
    if ACCEL_REQUIRED:
        assert OI.cat_meta is ACCEL.cat_meta and op.meta is ACCEL.cat_meta
    elif os.environ.get("MINDTORCH_NO_ACCEL") == "1":
        assert op.meta is PY_META
    stack = _op("stack")
    if ENTRY_REQUIRED:
        k = op.kernels["cpu"]
        assert isinstance(k, partial) and k.func is ENTRY.mt_cat and k.args[0] is KI.cat
        k = stack.kernels["cpu"]
        assert isinstance(k, partial) and k.func is ENTRY.mt_stack and k.args[0] is KI.stack
    elif os.environ.get("MINDTORCH_CPU_NATIVE_ENTRY") == "ctypes":
        assert op.kernels["cpu"] is KI.cat and stack.kernels["cpu"] is KI.stack
    if not (ACCEL_REQUIRED or ENTRY_REQUIRED):
        pytest.skip("the install does not say what was built")


# --- the sweep: (label, tensors, dim) ------------------------------------------------------------
def _inputs():
    f32, i64, f64, b = mindtorch.float32, mindtorch.int64, mindtorch.float64, mindtorch.bool
    bases = [(4,), (2, 3), (2, 1, 3), (1, 2, 2, 2)]
    for base, n in itertools.product(bases, (1, 2, 3, 9)):
        r = len(base)
        for dim in range(-r - 1, r + 1):  # one out of range each side
            d = dim % r
            sizes = [base[d] if i == 0 else i % 3 for i in range(n)]  # a 0 among them from 3 on
            ts = [_t(base[:d] + (k,) + base[d + 1 :], seed=i) for i, k in enumerate(sizes)]
            yield f"{base}-n{n}-dim{dim}", ts, dim
    for dt in TO_NP:
        yield f"dtype-{dt}", [_t((2, 2), dt), _t((1, 2), dt, 1)], 0
    yield "promote", [_t((2, 2), i64), _t((2, 2), f32)], 1
    yield "promote-bool", [_t((2,), b), _t((2,), f64)], 0
    yield "legacy-empty-first", [mindtorch.zeros(0), _t((2, 3))], 1
    yield "legacy-empty-later", [_t((2, 3)), mindtorch.zeros(0)], 0
    yield "legacy-empty-1d", [_t((3,)), mindtorch.zeros(0)], 0
    yield "legacy-empty-only", [mindtorch.zeros(0), mindtorch.zeros(0)], 3
    yield "zero-dim", [mindtorch.tensor(1.0), mindtorch.tensor(2.0)], 0
    yield "zero-dim-later", [_t((2,)), mindtorch.tensor(2.0)], 0
    yield "ranks", [_t((2, 3)), _t((2, 3, 1))], 0
    yield "sizes", [_t((2, 3)), _t((2, 4))], 0
    yield "empty-list", [], 0
    yield "transposed", [_t((3, 2)).t(), _t((2, 3))], 0
    yield "stepped", [_t((2, 6))[:, ::2], _t((2, 3))], 1
    yield "offset", [_t((4, 3))[1:3], _t((2, 3))], -1
    yield "expanded", [_t((1, 3)).expand(2, 3), _t((2, 3))], 0
    yield "large", [_t((300, 100)), _t((300, 100), seed=1)], 1
    yield "beyond-lazy-limit", [_t((300, 200)), _t((300, 200), seed=1)], 0
    yield "many", [_t((1, 2), seed=i) for i in range(40)], 0
    yield "subclass", [mindtorch.nn.Parameter(_t((2,))), _t((2,))], 0


INPUTS = list(_inputs())
IDS = [label for label, _, _ in INPUTS]


def _outcome(fn, *args, **kwargs):
    try:
        return "ok", fn(*args, **kwargs)
    except Exception as e:
        return "raised", (type(e), str(e))


@needs_accel
@pytest.mark.parametrize("label,tensors,dim", INPUTS, ids=IDS)
def test_compiled_shape_rule_matches_the_python_one(label, tensors, dim):
    for ts in (tuple(tensors), list(tensors)):
        py, c = _outcome(PY_META, ts, dim), _outcome(ACCEL.cat_meta, ts, dim)
        assert py[0] == c[0], (label, py, c)
        if py[0] == "ok":
            assert type(c[1]) is TensorMeta and (c[1].shape, c[1].dtype) == (py[1].shape, py[1].dtype)
            assert type(c[1].shape) is tuple and all(type(s) is int for s in c[1].shape)
        else:
            assert py[1] == c[1]
    if dim == 0:  # the default dim and keywords too
        assert _outcome(ACCEL.cat_meta, tuple(tensors))[0] == _outcome(PY_META, tuple(tensors))[0]
        assert _outcome(ACCEL.cat_meta, tuple(tensors), dim=0)[0] == _outcome(PY_META, tuple(tensors), dim=0)[0]


@needs_accel
def test_compiled_shape_rule_hands_odd_arguments_to_the_python_one():
    a = _t((2, 3))
    for args in [((a, a), 1.0), ((a, a), True), ((a, a), 2**70), ((a, object()), 0), ("ab", 0), ((a,), 0, 1)]:
        py, c = _outcome(PY_META, *args), _outcome(ACCEL.cat_meta, *args)
        assert py[0] == c[0], args
        assert py[1] == c[1] if py[0] == "raised" else (py[1].shape, py[1].dtype) == (c[1].shape, c[1].dtype)
    with pytest.raises(TypeError):
        ACCEL.cat_meta()


class _Spy:
    """A NumPy kernel, counting the calls the compiled kernel hands it."""

    def __init__(self, kernel=KI.cat):
        self.calls, self.kernel = 0, kernel

    def __call__(self, m, tensors, dim=0):
        self.calls += 1
        return self.kernel(m, tensors, dim)


def _fields(t):
    return (t.shape, t.dtype, t.stride(), t.device, t.requires_grad, t.tolist())


def _common(tensors, dim, m):
    """Whether the compiled kernel may take these: every host array present, C-contiguous, of the
    result's rank and its host type, the result non-0-dim."""
    want = TO_NP[m.dtype]
    for t in tensors:
        a = t._np
        if a is None or a.dtype is not want or not a.flags.c_contiguous or a.ndim != len(m.shape):
            return False
    return len(m.shape) > 0


@needs_entry
@pytest.mark.parametrize("label,tensors,dim", INPUTS, ids=IDS)
def test_compiled_kernel_matches_the_numpy_one(label, tensors, dim):
    m = _outcome(PY_META, tuple(tensors), dim)
    if m[0] != "ok":
        pytest.skip("the shape rule refuses these: no kernel runs")
    m = m[1]
    spy = _Spy()
    fast = partial(ENTRY.mt_cat, spy, wrap, TO_NP, np.empty)
    common = _common(tensors, dim, m)
    before = len(ALLOCATOR.lazy), ALLOCATOR.in_use
    r_c, r_py = fast(m, tuple(tensors), dim), KI.cat(m, tuple(tensors), dim)
    assert spy.calls == (0 if common else 1), label
    assert _fields(r_c) == _fields(r_py) and type(r_c) is mindtorch.Tensor
    assert r_c._np is not None and r_c._np.flags.c_contiguous and r_c._np.dtype is TO_NP[m.dtype]
    if r_py._st is None:  # a small result is counted lazily, as the NumPy kernel's is
        assert r_c._st is None and id(r_c._np) in ALLOCATOR.lazy
    else:
        assert r_c._st is not None and ALLOCATOR.in_use > before[1]
    for t in tensors:  # the inputs are left as they were
        assert not np.shares_memory(r_c._np, t._np) if t._np is not None else True


@needs_entry
def test_compiled_kernel_checks_what_it_copies():
    """A shape rule's result that does not fit the arrays never reaches the copies."""
    a, b = _t((2, 3)), _t((2, 3), seed=1)
    spy = _Spy()
    fast = partial(ENTRY.mt_cat, spy, wrap, TO_NP, np.empty)
    for shape in [(5, 3), (4, 4), (4,), (2, 6, 1)]:  # each handed on to the NumPy kernel
        m = TensorMeta(shape, mindtorch.float32)
        assert _fields(fast(m, (a, b), 0)) == _fields(KI.cat(m, (a, b), 0))
    assert spy.calls == 4
    m = TensorMeta((4, 3), mindtorch.float32)
    assert _fields(fast(m, (a, b), 0)) == _fields(KI.cat(m, (a, b), 0)) and spy.calls == 4
    assert _fields(fast(m, [a, b], 0)) == _fields(KI.cat(m, (a, b), 0)) and spy.calls == 5  # a list: handed on
    with pytest.raises(TypeError):
        ENTRY.mt_cat(spy, wrap, TO_NP)


@needs_entry
def test_compiled_kernel_passes_errors_on():
    def broken_wrap(a, dtype):
        raise MemoryError("no room")

    a = _t((2, 3))
    fast = partial(ENTRY.mt_cat, KI.cat, broken_wrap, TO_NP, np.empty)
    with pytest.raises(MemoryError):
        fast(TensorMeta((4, 3), mindtorch.float32), (a, a), 0)


def _stack_inputs():
    f32, i64 = mindtorch.float32, mindtorch.int64
    for shape, n in itertools.product([(), (3,), (2, 3), (2, 1, 2)], (1, 2, 9)):
        for dim in range(-len(shape) - 1, len(shape) + 1):
            yield f"{shape}-n{n}-dim{dim}", [_t(shape, seed=i) for i in range(n)], dim
    for dt in TO_NP:
        yield f"dtype-{dt}", [_t((2, 2), dt), _t((2, 2), dt, 1)], 1
    yield "promote", [_t((2, 2), i64), _t((2, 2), f32)], 0
    yield "transposed", [_t((3, 2)).t(), _t((2, 3))], 2
    yield "stepped", [_t((2, 6))[:, ::2], _t((2, 3))], 1
    yield "offset", [_t((4, 3))[1:3], _t((2, 3))], -1
    yield "large", [_t((300, 100)), _t((300, 100), seed=1)], 1
    yield "many", [_t((2,), seed=i) for i in range(40)], 1


STACK_INPUTS = list(_stack_inputs())


@needs_entry
@pytest.mark.parametrize("label,tensors,dim", STACK_INPUTS, ids=[c[0] for c in STACK_INPUTS])
def test_compiled_stack_kernel_matches_the_numpy_one(label, tensors, dim):
    m = OI._stack_meta(tuple(tensors), dim)
    spy = _Spy(KI.stack)
    fast = partial(ENTRY.mt_stack, spy, wrap, TO_NP, np.empty)
    want = TO_NP[m.dtype]
    common = all(t._np is not None and t._np.dtype is want and t._np.flags.c_contiguous for t in tensors)
    r_c, r_py = fast(m, tuple(tensors), dim), KI.stack(m, tuple(tensors), dim)
    assert spy.calls == (0 if common else 1), label
    assert _fields(r_c) == _fields(r_py) and type(r_c) is mindtorch.Tensor
    assert r_c._np.flags.c_contiguous and r_c._np.dtype is want


@needs_entry
def test_compiled_stack_kernel_checks_what_it_copies():
    a, b = _t((2, 3)), _t((2, 3), seed=1)
    spy = _Spy(KI.stack)
    fast = partial(ENTRY.mt_stack, spy, wrap, TO_NP, np.empty)
    for shape in [(3, 2, 3), (2, 2, 2), (2, 6), (2, 2, 3, 1)]:  # each handed on to the NumPy kernel
        m = TensorMeta(shape, mindtorch.float32)
        try:
            want = _fields(KI.stack(m, (a, b), 0))
        except ValueError:  # a rank NumPy's stack cannot give
            want = None
        got = _outcome(fast, m, (a, b), 0)
        assert got[1][0] is ValueError if want is None else _fields(got[1]) == want
    assert spy.calls == 4


# --- behaviour on either path ------------------------------------------------------------------------
def test_cat_results_own_their_memory_and_count_in_the_allocator():
    a, b = _t((2, 3)), _t((1, 3), seed=1)
    r = mindtorch.cat([a, b])
    assert r.tolist() == a.tolist() + b.tolist() and r.is_contiguous()
    assert r._st is None and id(r._np) in ALLOCATOR.lazy  # small: counted lazily
    big = mindtorch.cat([_t((300, 200)), _t((300, 200))])  # beyond the lazy limit: a Storage
    assert big._st is not None and big._st.nbytes == 2 * 300 * 200 * 4
    r.add_(1)
    assert a.tolist() == _t((2, 3)).tolist()


def test_cat_reads_the_current_values_of_views():
    base = _t((4, 3))
    v = base[1:3]
    first = mindtorch.cat([v, v]).tolist()
    base.add_(10)
    assert mindtorch.cat([v, v]).tolist() == [[x + 10 for x in row] for row in first]


def test_cat_records_for_autograd_and_not_under_no_grad():
    a = _t((2, 3)).requires_grad_()
    r = mindtorch.cat([a, _t((2, 3))], 1)
    assert r.requires_grad and r.grad_fn.name() == "CatBackward0"
    r.sum().backward()
    assert a.grad.tolist() == [[1.0] * 3] * 2
    with mindtorch.no_grad():
        assert mindtorch.cat([a, a]).grad_fn is None
