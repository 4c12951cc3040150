"""mindtorch.profiler on cpu: ops recorded at dispatch (counts, nesting, shapes, memory), record_function,
the schedule-driven step loop, the summary table, the Chrome trace, and a GPT training step profiled."""

import importlib.util
import json
import threading
from pathlib import Path

import mindtorch as torch
import pytest
from mindtorch import _profiling
from mindtorch.autograd import profiler as autograd_profiler
from mindtorch.profiler import (
    ExecutionTraceObserver,
    ProfilerAction,
    ProfilerActivity,
    kineto_available,
    profile,
    record_function,
    schedule,
    supported_activities,
    tensorboard_trace_handler,
)

ROOT = Path(__file__).resolve().parents[2]
HEADERS = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]


def _header(table):
    return [h.strip() for h in table.splitlines()[1].split("  ") if h.strip()]


def _rows(table):
    """{name: the row's cells} for the table's body."""
    lines = table.splitlines()
    sep = lines[0]
    body = lines[3 : lines.index(sep, 3)]
    return [[c.strip() for c in ln.split("  ") if c.strip()] for ln in body]


def test_the_switch_is_off_outside_a_profile():
    assert _profiling.ACTIVE == []
    with profile():
        assert len(_profiling.ACTIVE) == 1
    assert _profiling.ACTIVE == []


@pytest.mark.parametrize("n_add,n_mul", [(1, 0), (3, 2), (5, 7)])
def test_counts_match_the_ops_that_ran(n_add, n_mul):
    a, b = torch.randn(4, 4), torch.randn(4, 4)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for _ in range(n_add):
            a + b  # the operator's inline fast path
        for _ in range(n_mul):
            torch.mul(a, b)
    counts = {e.key: e.count for e in prof.key_averages()}
    assert counts == {k: v for k, v in {"aten::add": n_add, "aten::mul": n_mul}.items() if v}


def test_nothing_is_recorded_outside_the_profile():
    a = torch.ones(2)
    with profile() as prof:
        pass
    a + a
    assert len(prof.events()) == 0


def test_record_function_nests_ops_and_self_time_excludes_children():
    a = torch.randn(8, 8)
    with profile(record_shapes=True) as prof, record_function("outer"):
        with record_function("inner"):
            torch.mm(a, a)
        torch.relu(a)
    ev = {e.name: e for e in prof.events()}
    assert ev["inner"].cpu_parent is ev["outer"]
    assert ev["aten::mm"].cpu_parent is ev["inner"]
    assert ev["aten::relu"].cpu_parent is ev["outer"]
    assert [c.name for c in ev["outer"].cpu_children] == ["inner", "aten::relu"]
    outer = ev["outer"]
    assert outer.self_cpu_time_total == pytest.approx(
        outer.cpu_time_total - ev["inner"].cpu_time_total - ev["aten::relu"].cpu_time_total
    )
    assert ev["inner"].start_us <= ev["aten::mm"].start_us <= ev["aten::mm"].end_us <= ev["inner"].end_us
    assert ev["aten::mm"].input_shapes == [[8, 8], [8, 8]]


def test_ops_called_inside_ops_nest_under_them():
    # a composite op (no kernel of its own) runs its pieces through dispatch: they are its children
    from mindtorch.ops.registry import OPS

    name = next(
        n
        for n in ("logaddexp2", "hypot", "xlogy", "addcmul", "lerp")
        if n in OPS and OPS[n].composite is not None and OPS[n].kernels.get("cpu") is None
    )
    a = torch.rand(5) + 0.5
    with profile() as prof:
        getattr(torch, name)(a, a, a) if name in ("addcmul", "lerp") else getattr(torch, name)(a, a)
    top = [e for e in prof.events() if e.cpu_parent is None]
    assert [e.name for e in top] == [f"aten::{name}"]
    assert top[0].cpu_children, "the composite's pieces are recorded under it"
    assert all(c.name.startswith("aten::") for c in top[0].cpu_children)


def test_record_function_as_decorator_and_without_a_profiler():
    @record_function("my_fn")
    def f(x, depth):
        return f(x * 2, depth - 1) if depth else x

    f(torch.ones(2), 1)  # no profiler: nothing happens
    with profile() as prof:
        f(torch.ones(2), 2)
    spans = [e for e in prof.events() if e.name == "my_fn"]
    assert len(spans) == 3
    assert spans[1].cpu_parent is spans[0] and spans[2].cpu_parent is spans[1]
    assert all(e.is_user_annotation for e in spans)


def test_memory_per_op_from_the_allocator():
    a = torch.randn(256)
    with profile(profile_memory=True) as prof:
        b = a * 2  # a 1 KB result that stays alive
        del b
    (mul,) = [e for e in prof.events() if e.name == "aten::mul"]
    assert mul.cpu_memory_usage == 256 * 4
    assert mul.self_cpu_memory_usage == 256 * 4
    table = prof.key_averages().table()
    assert _header(table) == HEADERS + ["CPU Mem", "Self CPU Mem", "# of Calls"]
    assert "1.00 KB" in table


def test_backward_ops_are_recorded():
    w = torch.randn(3, 3, requires_grad=True)
    with profile() as prof:
        (w * w).sum().backward()
    ev = prof.events()
    names = [e.name for e in ev]
    assert names.count("aten::mul") >= 2  # the forward and the formula's product
    (node,) = [e for e in ev if e.name == "autograd::engine::evaluate_function: MulBackward0"]
    assert "aten::mul" in [c.name for c in node.cpu_children]
    assert "autograd::engine::evaluate_function: SumBackward0" in names


def test_table_header_sort_and_row_limit():
    a = torch.randn(64, 64)
    with profile(record_shapes=True) as prof:
        for _ in range(3):
            torch.mm(a, a)
        torch.neg(a)
        torch.abs(a)
    kav = prof.key_averages()
    table = kav.table(sort_by="cpu_time_total", row_limit=2)
    assert _header(table) == HEADERS + ["# of Calls"]
    rows = _rows(table)
    assert len(rows) == 2
    expect = sorted(kav, key=lambda e: e.cpu_time_total, reverse=True)[:2]
    assert [r[0] for r in rows] == [e.key for e in expect]
    assert table.rstrip().splitlines()[-1].startswith("Self CPU time total: ")
    by_count = _rows(kav.table(sort_by="count"))
    assert by_count[0][0] == "aten::mm" and by_count[0][-1] == "3"
    shapes = prof.key_averages(group_by_input_shape=True).table()
    assert _header(shapes)[-1] == "Input Shapes"


def test_chrome_trace_schema(tmp_path):
    a = torch.randn(4, 4)
    with profile(record_shapes=True, with_stack=True) as prof, record_function("region", "lr=0.1"):
        torch.mm(a, a).sum()
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())
    events = trace["traceEvents"]
    complete = [e for e in events if e["ph"] == "X"]
    assert [e["name"] for e in complete] == ["region", "aten::mm", "aten::sum"]
    for e in complete:  # the trace event format's complete event: these keys, numeric times in µs
        assert {"name", "ph", "ts", "dur", "pid", "tid", "cat", "args"} <= set(e)
        assert isinstance(e["ts"], (int, float)) and isinstance(e["dur"], (int, float)) and e["dur"] >= 0
        assert isinstance(e["pid"], int) and isinstance(e["tid"], int)
    assert complete[0]["cat"] == "user_annotation" and complete[1]["cat"] == "cpu_op"
    assert complete[0]["args"]["Record function args"] == "lr=0.1"
    assert complete[1]["args"]["Input Dims"] == [[4, 4], [4, 4]]
    stack = complete[1]["args"]["Call stack"].split(";")
    assert "test_profiler.py" in stack[0]  # innermost first: the line that called the op
    assert not any("autograd/profiler.py" in f or "mindtorch/dispatch.py" in f for f in stack)
    region, mm = complete[0], complete[1]
    assert region["ts"] <= mm["ts"] and mm["ts"] + mm["dur"] <= region["ts"] + region["dur"] + 1e-3
    assert all(e["ph"] in ("X", "M") for e in events)


def _run_steps(n, **kw):
    saved = []
    a = torch.ones(2)
    with profile(on_trace_ready=lambda p: saved.append([e.name for e in p.events()]), **kw) as prof:
        for i in range(n):
            for _ in range(i + 1):
                torch.neg(a)
            prof.step()
    return saved


def test_the_schedule_drives_recording_and_saving():
    saved = _run_steps(7, schedule=schedule(wait=1, warmup=1, active=2, repeat=1))
    # step 0 waits, step 1 warms up, steps 2-3 record, step 3 saves; nothing after
    assert len(saved) == 1
    assert saved[0].count("aten::neg") == 3 + 4
    assert [n for n in saved[0] if n.startswith("ProfilerStep")] == ["ProfilerStep#2", "ProfilerStep#3"]


def test_repeating_cycles_each_call_on_trace_ready(tmp_path):
    saved = _run_steps(8, schedule=schedule(wait=0, warmup=1, active=1, repeat=0))
    assert [s.count("aten::neg") for s in saved] == [2, 4, 6, 8]


def test_tensorboard_trace_handler_writes_a_trace_per_cycle(tmp_path):
    handler = tensorboard_trace_handler(str(tmp_path / "tb"), worker_name="w0")
    a = torch.ones(2)
    with profile(schedule=schedule(wait=0, warmup=1, active=1, repeat=2), on_trace_ready=handler) as prof:
        for _ in range(5):
            torch.neg(a)
            prof.step()
    files = sorted((tmp_path / "tb").iterdir())
    assert len(files) == 2 and all(f.name.startswith("w0.") and f.name.endswith(".pt.trace.json") for f in files)
    for f in files:
        assert any(e["name"] == "aten::neg" for e in json.loads(f.read_text())["traceEvents"])


def test_the_api_surface():
    assert kineto_available() is False
    assert supported_activities() >= {ProfilerActivity.CPU}
    assert ProfilerAction.RECORD_AND_SAVE.value == 3
    with pytest.raises(RuntimeError, match="ExecutionTraceObserver"):
        ExecutionTraceObserver()
    with pytest.raises(AssertionError, match="active=0"):
        schedule(wait=0, warmup=0, active=0)
    with pytest.raises(ValueError, match="DEVICE_STOPPED"):
        profile(schedule=lambda step: ProfilerAction.DEVICE_STOPPED)
    assert torch.autograd.profiler.record_function is record_function


def test_what_is_not_recorded_says_so():
    with pytest.warns(UserWarning, match="with_flops"), profile(with_flops=True):
        pass
    with pytest.warns(UserWarning, match="with_modules"), autograd_profiler.profile(with_modules=True):
        pass


def test_nested_profilers_are_refused():
    with profile(), pytest.raises(RuntimeError, match="already enabled"), profile():
        pass


def test_legacy_autograd_profile():
    a = torch.ones(3)
    with autograd_profiler.profile(record_shapes=True) as prof:
        a.exp()
    assert [e.name for e in prof.function_events] == ["aten::exp"]
    assert _header(prof.table()) == HEADERS + ["# of Calls", "Input Shapes"]
    with pytest.raises(RuntimeError, match="didn't finish"):
        autograd_profiler.profile().key_averages()


def test_ops_on_other_threads_carry_their_thread():
    a = torch.ones(3)
    tids = []
    with profile() as prof:
        t = threading.Thread(target=lambda: (tids.append(threading.get_native_id()), torch.neg(a)))
        t.start()
        t.join()
        torch.abs(a)
    by_name = {e.name: e for e in prof.events()}
    assert by_name["aten::neg"].thread == tids[0]
    assert by_name["aten::abs"].thread == threading.get_native_id()


def _gpt_module():
    spec = importlib.util.spec_from_file_location("train_gpt_for_profiling", ROOT / "examples" / "train_gpt.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_a_gpt_training_step_profiled(tmp_path, capsys):
    mod = _gpt_module()
    torch.manual_seed(0)
    model = mod.GPT(vocab_size=11, block_size=8, n_layer=1, n_head=2, n_embd=16, dropout=0.0)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    x = torch.randint(0, 11, (2, 8))
    y = torch.randint(0, 11, (2, 8))
    kw = dict(activities=[ProfilerActivity.CPU], record_shapes=True, profile_memory=True)
    with profile(**kw) as prof, record_function("train_step"):
        _, loss = model(x, y)
        loss.backward()
        opt.step()
        opt.zero_grad()
    table = prof.key_averages().table(sort_by="cpu_time_total", row_limit=10)
    print(table)
    assert _header(table) == HEADERS + ["CPU Mem", "Self CPU Mem", "# of Calls"]
    assert _rows(table)[0][0] == "train_step"
    names = {e.key for e in prof.key_averages()}
    assert {"aten::embedding", "aten::layer_norm"} <= names or "aten::linear" in names
    path = tmp_path / "gpt.json"
    prof.export_chrome_trace(str(path))
    events = json.loads(path.read_text())["traceEvents"]
    assert sum(e["ph"] == "X" for e in events) == len(prof.events()) > 50
    assert "train_step" in capsys.readouterr().out
