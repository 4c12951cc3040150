"""The optional compiled accelerator (mindtorch._accel) against the Python functions it replaces
(mindtorch._tensor.PYTHON_TWINS, the reference), over a generated sweep of host arrays; and that
it is in use where the install says it was built (MINDTORCH_REQUIRE_ACCEL=1, set by the nox
sessions, which also run a subset of the suite with MINDTORCH_NO_ACCEL=1)."""

import gc
import itertools
import os
import sys
import weakref

import mindtorch
import mindtorch._tensor as T
import numpy as np
import pytest
from mindtorch._accel_load import ACCEL
from mindtorch_cpu.allocator import LAZY_MAX
from mindtorch_cpu.convert import TO_NP

REQUIRED = os.environ.get("MINDTORCH_REQUIRE_ACCEL") == "1" and os.environ.get("MINDTORCH_NO_ACCEL") != "1"
CPU = mindtorch.device("cpu")
SLOTS = ("_st", "_shape", "_stride", "_offset", "dtype", "device", "_np", "_requires_grad", "_grad_fn", "_version")

needs_accel = pytest.mark.skipif(
    ACCEL is None, reason="the accelerator is not in use (not built, or MINDTORCH_NO_ACCEL=1)"
)


def test_accelerator_is_in_use_where_required():
    if not REQUIRED:
        pytest.skip("the install does not say the accelerator was built")
    assert ACCEL is not None, "mindtorch._accel did not load"
    assert T.make_lazy_tensor is ACCEL.make_lazy_tensor
    assert T.make_tensor is ACCEL.make_tensor
    assert T.host_result is ACCEL.host_result
    assert mindtorch.plugins.host_result is ACCEL.host_result


def test_switched_off_by_the_environment():
    if os.environ.get("MINDTORCH_NO_ACCEL") != "1":
        pytest.skip("runs in the MINDTORCH_NO_ACCEL=1 pass")
    assert ACCEL is None
    assert T.host_result is T.PYTHON_TWINS["host_result"]
    assert T.make_lazy_tensor is T.PYTHON_TWINS["make_lazy_tensor"]
    assert T.make_tensor is T.PYTHON_TWINS["make_tensor"]


def _arrays():
    """(label, array) pairs: each dtype, shapes with 0/1/many dims and sizes 0 and 1, dense and
    strided layouts, sizes either side of the lazy limit, and things that are not plain ndarrays."""
    shapes = [(), (0,), (1,), (8,), (2, 3), (1, 4, 1), (3, 0, 2), (2, 1, 3, 1)]
    for (dt, npdt), shape in itertools.product(TO_NP.items(), shapes):
        if npdt is not None:
            yield f"{dt}-{shape}", np.zeros(shape, npdt)
    base = np.arange(24, dtype=np.float32).reshape(4, 6)
    yield "transposed", base.T
    yield "fortran", np.asfortranarray(base)
    yield "strided", base[:, ::2]
    yield "offset-row", base[1:]
    yield "readonly", np.frombuffer(b"\0" * 32, np.float32)
    yield "at-limit", np.zeros(LAZY_MAX // 4, np.float32)
    yield "below-limit", np.zeros(LAZY_MAX // 4 - 1, np.float32)
    yield "scalar", np.float32(1.5)
    yield "subclass", np.zeros(4, np.float32).view(np.matrix)
    yield "big-endian", np.zeros(4, ">f4")
    yield "list", [1.0, 2.0]


ARRAYS = list(_arrays())
DTYPES = [None, mindtorch.float32, mindtorch.int64, mindtorch.bool]


def _fields(t):
    return {s: getattr(t, s) for s in SLOTS}


class _Allocator:
    """An allocator's lazy-table side: the table, the size that asks for a sweep, the sweeps made."""

    def __init__(self, sweep_at=4096):
        self.lazy, self.sweep_at, self.sweeps = {}, sweep_at, 0

    def sweep(self):
        self.sweeps += 1


def _general(a, dtype):
    return ("general", a, dtype)


def _results(fn, a, dtype, sweep_at=4096):
    alloc = _Allocator(sweep_at)
    args = (CPU, alloc, LAZY_MAX, TO_NP, _general, a) + (() if dtype is None else (dtype,))
    return fn(*args), alloc


@needs_accel
@pytest.mark.parametrize("label,a", ARRAYS, ids=[label for label, _ in ARRAYS])
def test_host_result_matches_the_python_version(label, a):
    py = T.PYTHON_TWINS["host_result"]
    for dtype in DTYPES + [T.D.float64, T.D.uint8]:
        own = np.dtype(a.dtype) if hasattr(a, "dtype") else None
        want = dtype if dtype is not None else next((d for d, v in TO_NP.items() if v == own), None)
        for d, sweep_at in itertools.product({dtype, want}, (0, 4096)):
            (r_py, a_py), (r_c, a_c) = _results(py, a, d, sweep_at), _results(ACCEL.host_result, a, d, sweep_at)
            assert a_py.lazy.keys() == a_c.lazy.keys() and a_py.sweeps == a_c.sweeps, (label, d)
            assert [r() for r in a_py.lazy.values()] == [r() for r in a_c.lazy.values()]
            if isinstance(r_py, tuple):
                assert r_c[0] == "general" and r_c[1] is a and r_c[2] is d, (label, d)
                assert not a_c.lazy
            else:
                assert _fields(r_py) == _fields(r_c)
                assert r_c._np is a and type(r_c) is mindtorch.Tensor
                assert r_c._base is None and r_c.__dict__ == {}
                assert a_c.sweeps == (sweep_at == 0)


@needs_accel
def test_host_result_passes_errors_on():
    class Broken(_Allocator):
        def sweep(self):
            raise MemoryError("sweep failed")

    a = np.zeros(4, np.float32)
    for fn in (T.PYTHON_TWINS["host_result"], ACCEL.host_result):
        with pytest.raises(MemoryError):
            fn(CPU, Broken(0), LAZY_MAX, TO_NP, _general, a, mindtorch.float32)
        with pytest.raises(AttributeError):
            fn(CPU, object(), LAZY_MAX, TO_NP, _general, a, mindtorch.float32)
    with pytest.raises(TypeError):
        ACCEL.host_result(CPU, _Allocator(), LAZY_MAX, TO_NP, _general)


@needs_accel
def test_make_lazy_tensor_matches_the_python_version():
    a = np.arange(6, dtype=np.float64).reshape(2, 3)
    args = (a, (2, 3), (3, 1), mindtorch.float64, CPU)
    t_py, t_c = T.PYTHON_TWINS["make_lazy_tensor"](*args), ACCEL.make_lazy_tensor(*args)
    assert _fields(t_py) == _fields(t_c)
    assert mindtorch.equal(t_py, t_c)
    with pytest.raises(TypeError):
        ACCEL.make_lazy_tensor(a, (2, 3))


@needs_accel
def test_host_result_keeps_reference_counts():
    a = np.zeros(8, np.float32)
    alloc = _Allocator()
    counts = [sys.getrefcount(x) for x in (a, CPU, mindtorch.float32, alloc, _general)]
    for _ in range(1000):
        t = ACCEL.host_result(CPU, alloc, LAZY_MAX, TO_NP, _general, a, mindtorch.float32)
        u = ACCEL.make_lazy_tensor(a, t._shape, t._stride, t.dtype, t.device)
        g = ACCEL.host_result(CPU, alloc, LAZY_MAX, TO_NP, _general, a.T[::2], mindtorch.float32)
        del t, u, g
    alloc.lazy.clear()
    assert [sys.getrefcount(x) for x in (a, CPU, mindtorch.float32, alloc, _general)] == counts


@needs_accel
def test_results_are_collected_in_cycles():
    t = ACCEL.host_result(CPU, _Allocator(), LAZY_MAX, TO_NP, _general, np.zeros(4, np.float32), mindtorch.float32)
    t.me = t  # a cycle through the instance dict
    dead = weakref.ref(t)
    del t
    gc.collect()
    assert dead() is None


def test_results_made_in_inference_mode_are_inference_tensors():
    a = mindtorch.ones(8)
    with mindtorch.inference_mode():
        inside = a * a
        lazy = T.make_lazy_tensor(np.zeros(2, np.float32), (2,), (1,), mindtorch.float32, CPU)
    after = a * a
    assert inside.is_inference() and lazy.is_inference()
    assert not after.is_inference()


def _inputs():
    """Tensors autograd saves: leaves with and without a version counter yet, a non-leaf, a second
    output of a node, a view, a Parameter, one bumped by an in-place op."""
    leaf = mindtorch.randn(3, requires_grad=True)
    yield "fresh-leaf", leaf
    yield "no-grad", mindtorch.randn(3)
    yield "non-leaf", leaf * 2
    yield "second-output", mindtorch.randn(4, requires_grad=True).split(2)[1]
    yield "view", (leaf * 1)[1:]
    yield "parameter", mindtorch.nn.Parameter(mindtorch.randn(2))
    bumped = mindtorch.randn(3)
    bumped.add_(1)
    yield "bumped", bumped


INPUTS = list(_inputs())
SAVED_SLOTS = ("tensor", "version", "counter", "fn", "output_nr", "unpack_hook")


@needs_accel
@pytest.mark.parametrize("label,t", INPUTS, ids=[label for label, _ in INPUTS])
def test_saved_input_matches_the_python_version(label, t):
    from mindtorch.autograd import graph

    had_counter = t._version is not None
    s_c = ACCEL.saved_input(t)
    assert t._version is not None  # saving gives the tensor its counter, once
    counter = t._version
    s_py = graph.PYTHON_TWINS["saved_input"](t)
    assert t._version is counter
    assert type(s_c) is graph.SavedTensor
    assert {k: getattr(s_py, k) for k in SAVED_SLOTS} == {k: getattr(s_c, k) for k in SAVED_SLOTS}
    assert s_c.counter is counter and (had_counter or s_c.version == 0)
    assert not hasattr(s_c, "layout")
    with pytest.raises(TypeError):
        ACCEL.saved_input(np.zeros(2))


@needs_accel
def test_saved_input_keeps_reference_counts():
    t = mindtorch.randn(3, requires_grad=True) * 2
    ACCEL.saved_input(t)
    parts = (t, t._version, t._grad_fn, t._version.value)
    counts = [sys.getrefcount(x) for x in parts]
    for _ in range(1000):
        ACCEL.saved_input(t)
    assert [sys.getrefcount(x) for x in parts] == counts


def test_a_saved_input_modified_in_place_fails_backward_on_both_paths():
    x = mindtorch.randn(3, requires_grad=True)
    y = x * 1
    z = y * y  # saves y twice
    y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


@needs_accel
def test_make_tensor_builds_what_the_python_version_builds():
    assert T.make_tensor is ACCEL.make_tensor and mindtorch.plugins.make_tensor is ACCEL.make_tensor
    src = mindtorch.arange(6.0)
    st = src._storage
    for cls in (T.Tensor, mindtorch.nn.Parameter, mindtorch.nn.Buffer):
        for args in ((st, (2, 3), (3, 1), 0), (st, (2,), (2,), 1), (st, (), (), 5)):
            want = T.PYTHON_TWINS["make_tensor"](*args, mindtorch.float32, CPU, cls)
            for got in (
                ACCEL.make_tensor(*args, mindtorch.float32, CPU, cls),
                ACCEL.make_tensor(*args, mindtorch.float32, CPU, cls=cls),
            ):
                assert type(got) is cls and _fields(got) == _fields(want) and got._base is None
                assert got._st is st and vars(got) == vars(want)
            assert got.tolist() == want.tolist()  # (reading caches a host array in _np)
    with mindtorch.inference_mode():  # tensors made meanwhile are marked, as the Python version marks them
        assert ACCEL.make_tensor(st, (6,), (1,), 0, mindtorch.float32, CPU).is_inference()
    assert not ACCEL.make_tensor(st, (6,), (1,), 0, mindtorch.float32, CPU).is_inference()
    for bad in ((st, (6,), (1,), 0, mindtorch.float32), (st, (6,), (1,), 0, mindtorch.float32, CPU, int)):
        with pytest.raises(TypeError):
            ACCEL.make_tensor(*bad)
    with pytest.raises(TypeError):
        ACCEL.make_tensor(st, (6,), (1,), 0, mindtorch.float32, CPU, klass=T.Tensor)


def _storage_classes():
    """A Storage-like subclass of each base: the compiled StorageBase and its Python reference."""
    import mindtorch._storage as S

    bases = [S.PYTHON_TWINS["StorageBase"]] + ([ACCEL.StorageBase] if ACCEL is not None else [])
    return [type(f"On{b.__name__}", (b,), {"__slots__": ()}) for b in bases]


@pytest.mark.parametrize("cls", _storage_classes(), ids=lambda c: c.__name__)
def test_a_storage_base_stores_frees_once_and_reports_errors_as_del_does(cls):
    import mindtorch._storage as S

    freed = []

    class Allocator:
        def free(self, st):
            freed.append((st.nbytes, st.data))

    alloc = Allocator()
    st = cls(CPU, 48, "block", alloc)
    assert (st.device, st.nbytes, st.data, st._allocator) == (CPU, 48, "block", alloc)
    assert type(st.nbytes) is S._ByteCount and st.nbytes() == 48
    ref = weakref.ref(st)
    del st
    assert freed == [(48, "block")] and ref() is None
    kw = cls(device=CPU, nbytes=8, data=None, allocator=None)  # no allocator: nothing to give back
    del kw
    cycle = cls(CPU, 16, [], alloc)
    cycle.data.append(cycle)  # found by the collector, freed once
    del cycle
    gc.collect()
    assert len(freed) == 2 and freed[1][0] == 16

    class Failing:
        def free(self, st):
            raise ValueError("the block is gone")

    seen = []
    hook, sys.unraisablehook = sys.unraisablehook, seen.append
    try:
        bad = cls(CPU, 4, None, Failing())
        del bad  # the error is reported, not raised, as from __del__
    finally:
        sys.unraisablehook = hook
    assert len(seen) == 1 and isinstance(seen[0].exc_value, ValueError)
    with pytest.raises(TypeError):
        cls(CPU, 4, None)
    with pytest.raises(ValueError):  # nbytes goes through int()
        cls(CPU, "four", None, None)


@needs_accel
def test_storage_is_built_on_the_compiled_base():
    import mindtorch._storage as S

    assert S.Storage.__mro__[1] is ACCEL.StorageBase
    assert "__del__" not in vars(S.Storage)  # the compiled finalizer frees, with no Python frame
