"""The compiled launch path (mindtorch_npu/native/launch.c) against its Python reference in aclnn.py: the same key
for every call a workload makes, and _run's plain repeat (and every way out of it) on a phase 2 of the test's own.
Skipped where the module is not built; the npu session requires it (MINDTORCH_NPU_REQUIRE_NATIVE=1) and runs
the launch tests again without it (MINDTORCH_NPU_NO_NATIVE=1)."""

import ctypes
import gc
import os

import mindtorch as torch
import mindtorch.nn.functional as F
import mindtorch_npu.aclnn as aclnn
import numpy as np
import pytest
from mindtorch.plugins import dtypes as D
from mindtorch_npu.acl import types as A
from mindtorch_npu.copy import empty

NATIVE = aclnn._NATIVE


def test_the_module_loads_where_required():
    if os.environ.get("MINDTORCH_NPU_NO_NATIVE") == "1":
        assert NATIVE is None
    elif os.environ.get("MINDTORCH_NPU_REQUIRE_NATIVE") == "1":
        assert NATIVE is not None


needs_native = pytest.mark.skipif(NATIVE is None, reason="mindtorch_npu.native._launch is not built or disabled")


def _workload():
    """Forward and backward of a small model, an optimizer step, reductions, casts, indexing, scalars of every kind
    (zero and NaN among them), aliased arguments and tensor lists."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(6, 5), torch.nn.LayerNorm(5), torch.nn.GELU(), torch.nn.Linear(5, 3))
    model = model.to("npu")
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2, foreach=True)
    x, y = torch.randn(4, 6).to("npu"), torch.tensor([0, 2, 1, 2]).to("npu")
    for _ in range(2):
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    a = torch.randn(3, 4).to("npu")
    a + a, a * 0.0, a - float("nan"), a.t() @ a, a.sum(1), a.amax(0), a.to(torch.float16), a[1:, ::2].exp()
    a.add_(1, alpha=2), a.clamp(-0.5, 0.5), torch.where(a > 0, a, 2.5), a.int() % 3, a[torch.tensor([2, 0]).to("npu")]
    torch.cat([a, a, a]), torch.stack([a, a]), a.masked_fill(a > 0, -1.0), a.cumsum(0), a.mul_(True)
    torch.npu.synchronize()


@needs_native
def test_the_compiled_key_is_the_python_key(monkeypatch):
    seen = []

    class Recording:  # the module, noting every call it is asked to launch
        @staticmethod
        def run(plans, name, args, device, phase2, tls):
            seen.append((name, args, device))
            return NATIVE.run(plans, name, args, device, phase2, tls)

    monkeypatch.setattr(aclnn, "_NATIVE", Recording)
    _workload()
    assert len(seen) > 80  # GELU's backward is one launch (aclnnGeluBackwardV2, a char* attribute among the kinds)
    kinds = set()
    for name, args, device in seen:
        want, got = aclnn._plan_key(name, args, device), NATIVE.plan_key(name, args, device)
        assert got == (False if want is None else want), name  # None: the Python version describes the call
        if got:
            assert [type(p) for p in got[0]] == [type(p) for p in want[0]], name  # 1 is not 1.0, nor True
        kinds.update(type(a).__name__ for a in args)
    want = {"Tensor", "Parameter", "Scalar", "IntArray", "DType", "BoolArray", "bool", "int", "list", "bytes"}
    assert want <= kinds, kinds


@needs_native
def test_aliased_and_listed_arguments_key_alike():
    a, b = torch.randn(5).to("npu"), torch.randn(5).to("npu")
    one = aclnn.scalar_for(1, D.float32)
    for args in (
        (a, a, one, a),
        (a, None, b, one, a, b"mean"),
        ([a, b, a], [b, b], 0.5),
        ((a,), a),
        ([a] * 40, [b] * 40, 2.0),
    ):
        assert NATIVE.plan_key("X", args, None) == aclnn._plan_key("X", args, None), args
    # zeros and NaNs keyed by their bits; numbers of other classes by value; -0.0 apart from 0.0
    scalars = [0.0, -0.0, float("nan"), 1.5, 3, True, 1j, complex(0.0, -0.0), complex("nan+1j"), np.float64(0.0)]
    for v in scalars:
        args = (
            (a, aclnn.Scalar(v, A.ACL_DOUBLE), v) if not isinstance(v, complex) else (a, aclnn.Scalar(v, A.ACL_DOUBLE))
        )
        if isinstance(v, np.floating):
            args = args[:2]
        assert NATIVE.plan_key("X", args, None) == aclnn._plan_key("X", args, None), v
    keys = {NATIVE.plan_key("X", (a, aclnn.Scalar(v)), None)[0] for v in (0.0, -0.0, float("nan"))}
    assert len(keys) == 3
    for odd in ((a, ctypes.c_void_p(1)), (a, np.float64(1.0)), (1, 2)):  # the Python version keys or describes them
        assert NATIVE.plan_key("X", odd, None) is False


# ---- _run's plain repeat, on a phase 2 of the test's own --------------------------------------------------

_PHASE2 = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.c_uint64, ctypes.c_void_p, ctypes.c_void_p)


class _Tls:
    bound = 0
    streams = None


class _Plans(aclnn.LaunchPlans):
    def __init__(self):
        super().__init__()
        self.given = []

    def give(self, key, plan):
        self.given.append(key)
        super().give(key, plan)


@pytest.fixture()
def phase2():
    calls, status = [], [0]

    def fn(ws, size, executor, stream):
        calls.append((ws, size, executor, stream))
        return status[0]

    c_fn = _PHASE2(fn)
    yield calls, status, ctypes.cast(c_fn, ctypes.c_void_p).value
    del c_fn


@needs_native
def test_the_plain_repeat_calls_phase_2_and_gives_the_plan_back(phase2):
    calls, status, address = phase2
    a = empty((4,), D.float32, torch.device("npu", 0))
    args = (a, a)
    key, addrs, device, _ = aclnn._plan_key("Neg", args, None)
    plans, tls = _Plans(), _Tls()
    plan = plans.plans[key] = aclnn.LaunchPlan(0x1234, 0, [], list(addrs), [])
    assert NATIVE.run(plans, "Neg", args, None, address, tls) is None
    assert calls == [(None, 0, 0x1234, None)] and plans.plans[key] is plan and plans.given == []
    tls.streams = {0: 0x77, 1: 0x88}
    assert NATIVE.run(plans, "Neg", args, None, address, tls) is None
    assert calls[-1] == (None, 0, 0x1234, 0x77)

    status[0] = 507011
    assert NATIVE.run(plans, "Neg", args, None, address, tls) == (plan, 507011)
    assert key not in plans.plans  # a failed plan is the caller's to destroy
    status[0] = 0

    for change in ("addrs", "bound"):  # each is the Python path's to finish, the plan taken out for it
        plans.plans[key] = plan
        plan.addrs, tls.bound = ([1] if change == "addrs" else list(addrs)), 0
        if change == "bound":
            tls.bound = None
        n = len(calls)
        assert NATIVE.run(plans, "Neg", args, None, address, tls) == (key, addrs, device, False, plan), change
        assert len(calls) == n and key not in plans.plans
    assert NATIVE.run(plans, "Neg", args, None, address, tls) == (key, addrs, device, False, None)


@needs_native
def test_a_workspace_comes_from_the_allocator_on_the_launch_stream(phase2):
    calls, status, address = phase2
    gc.collect()  # earlier tests' cycles, freed now rather than between the two readings of the stats
    torch.npu.synchronize()
    a = empty((4,), D.float32, torch.device("npu", 0))
    key, addrs, device, _ = aclnn._plan_key("Neg", (a, a), None)
    plans, tls = _Plans(), _Tls()
    plan = plans.plans[key] = aclnn.LaunchPlan(0x5, 3000, [], list(addrs), [])
    stream = torch.npu.Stream()
    tls.streams = {0: stream.handle()}
    before = torch.npu.memory_stats()
    assert NATIVE.run(plans, "Neg", (a, a), None, address, tls) is None
    ws, size, executor, on = calls[-1]
    assert ws and size == 3000 and executor == 0x5 and on == stream.handle() and plans.plans[key] is plan
    after = torch.npu.memory_stats()
    assert after["allocated_bytes.all.current"] == before["allocated_bytes.all.current"]
    assert after["allocation.all.allocated"] == before["allocation.all.allocated"] + 1  # taken and given back
    assert torch.npu.memory_snapshot()  # the block waits in the launch stream's pool
    status[0] = 507011
    assert NATIVE.run(plans, "Neg", (a, a), None, address, tls) == (plan, 507011)
    assert torch.npu.memory_stats()["allocated_bytes.all.current"] == before["allocated_bytes.all.current"]
    status[0] = 0
    plans.plans[key] = plan
    plan.size = 1 << 50  # more than the device holds: the allocator's error, the plan given back unlaunched
    n = len(calls)
    with pytest.raises(torch.OutOfMemoryError):
        NATIVE.run(plans, "Neg", (a, a), None, address, tls)
    assert len(calls) == n and plans.plans[key] is plan
    del stream
    torch.npu.synchronize()
    torch.npu.empty_cache()


@needs_native
def test_a_full_table_gives_the_plan_back_through_python(phase2):
    calls, _, address = phase2
    a = empty((4,), D.float32, torch.device("npu", 0))
    key, addrs, _, _ = aclnn._plan_key("Neg", (a, a), None)
    plans = _Plans()
    plans.plans = {i: object() for i in range(plans.LIMIT)}  # full: LaunchPlans.give retires a generation
    plain = plans.plans[key] = aclnn.LaunchPlan(0x1234, 0, [], list(addrs), [])
    assert NATIVE.run(plans, "Neg", (a, a), None, address, _Tls()) is None
    assert plans.given == [] and plans.plans[key] is plain  # the plain repeat never takes its plan out
    plan = plans.plans[key] = aclnn.LaunchPlan(0x1234, 512, [], list(addrs), [])  # a workspace: taken out
    assert NATIVE.run(plans, "Neg", (a, a), None, address, _Tls()) is None
    assert plans.given == [key] and len(calls) == 2 and plans.plans == {key: plan} and len(plans.old) == plans.LIMIT


@needs_native
def test_results_match_with_and_without_the_compiled_path(monkeypatch):
    x = torch.randn(64, 32)
    nx = x.to("npu")
    with_native = [(nx + nx).cpu(), (nx * 0.5).relu().cpu(), (nx @ nx.t()).sum(1).cpu()]
    monkeypatch.setattr(aclnn, "_NATIVE", None)
    without = [(nx + nx).cpu(), (nx * 0.5).relu().cpu(), (nx @ nx.t()).sum(1).cpu()]
    for w, wo in zip(with_native, without):
        assert torch.equal(w, wo)


@needs_native
def test_a_sibling_kept_for_the_addresses_swaps_places_with_the_plan(phase2):
    calls, _, address = phase2
    a, b = (empty((4,), D.float32, torch.device("npu", 0)) for _ in range(2))
    key, addrs, device, _ = aclnn._plan_key("Neg", (a, b), None)
    plans, tls = _Plans(), _Tls()
    plan = plans.plans[key] = aclnn.LaunchPlan(0x1, 0, [], [addrs[1], addrs[0]], [])
    other = aclnn.LaunchPlan(0x3, 0, [], [addrs[0], addrs[0]], [])
    sibling = aclnn.LaunchPlan(0x2, 0, [], list(addrs), [])
    plans.siblings[key] = [other, sibling]
    with plans.lock:  # another thread is choosing a sibling: the Python version waits for it
        assert NATIVE.run(plans, "Neg", (a, b), None, address, tls) == (key, addrs, device, False, plan)
    assert plans.siblings[key] == [other, sibling] and calls == []
    plans.plans[key] = plan
    assert NATIVE.run(plans, "Neg", (a, b), None, address, tls) is None
    assert calls == [(None, 0, 0x2, None)] and plans.plans[key] is sibling and plans.siblings[key] == [other, plan]
    tls.bound = None  # not bound: the Python version binds the device and launches the sibling it is given
    assert NATIVE.run(plans, "Neg", (a, b), None, address, tls) == (key, addrs, device, False, sibling)
    plans.siblings[key] = [other]
    plans.plans[key] = plan  # none kept for these addresses: the plan goes back to Python as it was
    assert NATIVE.run(plans, "Neg", (a, b), None, address, tls) == (key, addrs, device, False, plan)
    assert plans.siblings[key] == [other]


# ---- launch, current_stream, list keys and empty in C, each against its Python reference -------------------


class _Recorder:
    """Stand-ins for what launch reads (the gate, the plan table's switches, _go_on, _run), noting every call."""

    def __init__(self, monkeypatch, native, enabled=True, possible=True, taken=None):
        self.calls = []
        self.gated = {"Known": ("k0", "k1", "k-phase2")}
        self.plans = type("P", (), {"enabled": enabled})()
        self.tls = _Tls()
        self.runtime = type("R", (), {"plans_possible": possible, "_tls": self.tls})()
        rec = self

        class Native:
            @staticmethod
            def run(plans, name, args, device, phase2, tls):
                rec.calls.append(("run", name, args, device, phase2, plans is rec.plans, tls is rec.tls))
                return taken

        self.native = Native if native == "stub" else native
        for attr, value in (
            ("_gated", self.gated),
            ("_gate", self.gate),
            ("PLANS", self.plans),
            ("RUNTIME", self.runtime),
            ("_go_on", self.go_on),
            ("_run", self.run),
            ("_NATIVE", self.native),
        ):
            monkeypatch.setattr(aclnn, attr, value)

    def gate(self, name):
        self.calls.append(("gate", name))
        if name == "Missing":
            raise NotImplementedError("aclnnMissing: not on this chip")
        fns = self.gated[name] = (name, "fn1", "phase2-" + name)
        return fns

    def go_on(self, name, fns, args, device, gated, taken):
        self.calls.append(("go_on", name, fns, args, device, gated, taken))

    def run(self, name, fns, args, device, gated):
        self.calls.append(("_run", name, fns, args, device, gated))

    def launcher(self):
        return NATIVE.Launcher(
            aclnn.__dict__, NATIVE, self.gated, self.gate, self.plans, self.runtime, self.tls, self.go_on, self.run
        )


@needs_native
@pytest.mark.parametrize(
    "native, enabled, possible, taken",
    [
        ("stub", True, True, None),  # the plain repeat: nothing after run
        ("stub", True, True, (1, 2)),  # run hands the call back: _go_on goes on with it
        ("stub", True, True, False),
        ("stub", False, True, None),  # plans off: _run
        ("stub", True, False, None),
        (None, True, True, None),  # no compiled module: _run
    ],
)
def test_the_compiled_launch_makes_the_python_launch_s_calls(monkeypatch, native, enabled, possible, taken):
    seen = []
    for version in ("python", "compiled"):
        rec = _Recorder(monkeypatch, native, enabled, possible, taken)
        launch = aclnn.PYTHON_TWINS["launch"] if version == "python" else rec.launcher()
        assert launch("Known", 1, "two") is None
        assert launch("New", 3, device=1) is None  # gated on first use, then held
        assert launch("New") is None
        with pytest.raises(NotImplementedError, match="aclnnMissing"):
            launch("Missing", 4)
        seen.append(rec.calls)
    assert seen[0] == seen[1] and len(seen[0]) >= 5


@needs_native
def test_the_compiled_launch_refuses_what_the_python_launch_refuses(monkeypatch):
    rec = _Recorder(monkeypatch, "stub")
    launch = rec.launcher()
    for call in (lambda f: f(), lambda f: f("Known", stream=1), lambda f: f("Known", 1, device=0, other=2)):
        with pytest.raises(TypeError):
            call(aclnn.PYTHON_TWINS["launch"])
        with pytest.raises(TypeError):
            call(launch)


@needs_native
def test_launch_and_current_stream_are_compiled_where_built():
    assert type(aclnn.launch) is NATIVE.Launcher
    assert type(aclnn.RUNTIME.current_stream) is NATIVE.CurrentStream
    assert aclnn._LIST_KEY is NATIVE.list_key


@needs_native
def test_current_stream_reads_what_the_python_version_reads():
    class Tls:
        streams = None

    tls = Tls()
    runtime = type("R", (), {"_tls": tls})()

    def py(index):
        return type(aclnn.RUNTIME)._current_stream(runtime, index)

    c = NATIVE.CurrentStream(tls, py)
    for streams in (None, {}, {0: 77}, {1: 5, 0: 9}, {True: 3}):
        tls.streams = streams
        for index in (0, 1, 2):
            assert c(index) == py(index) and type(c(index)) is type(py(index))
    tls.streams = [("not", "a dict")]  # not what the runtime keeps: the Python version answers
    with pytest.raises(AttributeError):
        c(0)
    with pytest.raises(TypeError):
        c()


@needs_native
def test_the_compiled_list_key_is_the_python_list_key():
    dev = torch.device("npu", 0)
    base = torch.randn(6, 4).to(dev)
    members = [base, base[1:], base.t(), base[2], base.to(torch.float16), torch.zeros(()).to(dev)]
    for ts in (members, tuple(members), members[:1], []):
        assert NATIVE.list_key(ts) == aclnn._list_key(ts)
    assert NATIVE.list_key([base, 1.0]) is None and NATIVE.list_key("not a list") is None


@needs_native
def test_the_compiled_empty_builds_what_the_python_empty_builds():
    from mindtorch_npu import copy as C

    assert C.empty is not C.PYTHON_TWINS["empty"]
    dev = torch.device("npu", 1)
    for shape in ((), (0,), (3,), (2, 3), (4, 1, 5), [2, 2]):
        for dtype in (D.float32, D.float16, D.int64, D.bool_):
            want = C.PYTHON_TWINS["empty"](shape, dtype, dev)
            got = C.empty(shape, dtype, dev)
            assert (got._shape, got._stride, got._offset, got.dtype, got.device) == (
                want._shape,
                want._stride,
                want._offset,
                want.dtype,
                want.device,
            )
            assert got._storage.nbytes == want._storage.nbytes and got._storage.device == dev
    with pytest.raises(TypeError):
        C.empty((2,), D.float32)


def _compiled_kernels(kind):
    """The ops whose npu kernel is the compiled `kind` (Binary, Unary)."""
    from mindtorch.plugins import OPS

    if NATIVE is None:
        return []
    return sorted(name for name, op in OPS.items() if type(op.kernels.get("npu")) is getattr(NATIVE, kind))


@needs_native
@pytest.mark.parametrize("name", _compiled_kernels("Binary"))
def test_a_compiled_binary_kernel_gives_what_its_python_version_gives(name):
    """Every binary operator whose out-of-place kernel is compiled, over operand kinds, dtypes, broadcasting and
    alphas: the same values, dtype and shape (or the same error) from the C kernel and its .python reference."""
    from mindtorch.plugins import OPS

    op = OPS[name]
    k = op.kernels["npu"]
    dev = torch.device("npu", 0)
    g = np.random.default_rng(0)
    f32 = torch.tensor(g.uniform(0.5, 2.0, (3, 4)).astype(np.float32)).to(dev)
    row = torch.tensor(g.uniform(0.5, 2.0, (4,)).astype(np.float32)).to(dev)
    i32 = torch.tensor(g.integers(1, 5, (3, 4)).astype(np.int32)).to(dev)
    i64 = torch.tensor(g.integers(1, 5, (4,)).astype(np.int64)).to(dev)
    cases = [(f32, f32), (f32, row), (f32, i32), (f32, 2), (f32, 1.5), (f32.t(), f32.t())]
    cases += [(i32, i32), (i32, i64), (i64, i64), (i32, 3), (i32.t(), i32.t())]
    alphas = [(), (1,), (2,), (-1.5,), (True,)] if "alpha" in [p.name for p in op.params] else [()]
    checked = 0
    for (a, b), alpha in ((c, al) for c in cases for al in alphas):
        try:
            m = op.meta(a, b, *alpha)
        except Exception:  # the shape rule refuses the pair: no kernel call to compare
            continue
        results = []
        for fn in (k, k.python):
            try:
                r = fn(m, a, b, *alpha)
                results.append((r.cpu().tolist(), r.dtype, tuple(r.shape)))
            except Exception as exc:
                results.append((type(exc), str(exc)))
        assert results[0] == results[1], (name, a.dtype, b, alpha)
        checked += 1
    assert checked >= 5


@needs_native
@pytest.mark.parametrize("name", _compiled_kernels("Unary"))
def test_a_compiled_unary_kernel_gives_what_its_python_version_gives(name):
    """Every unary operator whose out-of-place kernel is compiled, over dtypes (some cast on the way in or out:
    those go to the Python version), layouts and a 0-dim input: the same values, dtype and shape, or error."""
    from mindtorch.plugins import OPS

    op = OPS[name]
    k = op.kernels["npu"]
    dev = torch.device("npu", 0)
    g = np.random.default_rng(1)
    base = g.uniform(0.1, 0.9, (3, 4))
    inputs = [torch.tensor(base.astype(dt)).to(dev) for dt in (np.float32, np.float16, np.float64)]
    inputs += [torch.tensor((base * 8).astype(np.int32)).to(dev), torch.tensor(0.5).to(dev), inputs[0].t()]
    checked = 0
    for a in inputs:
        try:
            m = op.meta(a)
        except Exception:
            continue
        results = []
        for _ in range(2):  # twice: the first call through the Python version fills the dtype table
            for fn in (k, k.python):
                try:
                    r = fn(m, a)
                    results.append((np.asarray(r.cpu().tolist()).tobytes(), r.dtype, tuple(r.shape)))
                except Exception as exc:
                    results.append((type(exc), str(exc)))
        assert results[0] == results[1] == results[2] == results[3], (name, a.dtype, tuple(a.shape))
        checked += 1
    assert checked >= 3
