"""mindtorch.profiler against PyTorch's: the schedule's action for every step over a sweep of its arguments,
the step loop's saves, the enums, and the table's columns and sort for the same program."""

import itertools
import warnings

from helpers import torch_or_skip

torch = torch_or_skip()

import mindtorch  # noqa: E402
import mindtorch.profiler as mprof  # noqa: E402
import pytest  # noqa: E402
import torch.profiler as tprof  # noqa: E402

SWEEP = list(itertools.product(range(3), range(3), range(1, 4), range(3), range(3), (0, 1)))


@pytest.mark.parametrize("wait,warmup,active,repeat,skip_first,skip_first_wait", SWEEP)
def test_schedule_actions_match(wait, warmup, active, repeat, skip_first, skip_first_wait):
    kw = dict(wait=wait, warmup=warmup, active=active, repeat=repeat, skip_first=skip_first)
    with warnings.catch_warnings(record=True) as wt:
        warnings.simplefilter("always")
        ours = mprof.schedule(**kw, skip_first_wait=skip_first_wait)
    with warnings.catch_warnings(record=True) as wp:
        warnings.simplefilter("always")
        theirs = tprof.schedule(**kw, skip_first_wait=skip_first_wait)
    assert [str(w.message) for w in wt] == [str(w.message) for w in wp]
    assert [ours(s).name for s in range(40)] == [theirs(s).name for s in range(40)]


@pytest.mark.parametrize(
    "kw",
    [dict(wait=-1, warmup=0, active=1), dict(wait=0, warmup=0, active=0), dict(wait=0, warmup=1, active=1, repeat=-1)],
)
def test_schedule_bad_arguments(kw):
    with pytest.raises(AssertionError) as theirs:
        tprof.schedule(**kw)
    with pytest.raises(AssertionError) as ours:
        mprof.schedule(**kw)
    assert str(ours.value) == str(theirs.value)


def _saves(lib, prof_mod, n, sched):
    seen = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with prof_mod.profile(
            activities=[prof_mod.ProfilerActivity.CPU], schedule=sched, on_trace_ready=lambda p: seen.append(p.step_num)
        ) as p:
            for _ in range(n):
                lib.ones(2).neg()
                p.step()
    return seen


@pytest.mark.parametrize("wait,warmup,active,repeat", [(1, 1, 2, 2), (0, 1, 1, 0), (2, 0, 1, 3), (0, 0, 3, 1)])
def test_on_trace_ready_fires_at_the_same_steps(wait, warmup, active, repeat):
    kw = dict(wait=wait, warmup=warmup, active=active, repeat=repeat)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = _saves(mindtorch, mprof, 10, mprof.schedule(**kw))
        theirs = _saves(torch, tprof, 10, tprof.schedule(**kw))
    assert ours == theirs


def test_enums_match():
    assert [(m.name, int(m.value)) for m in mprof.ProfilerActivity] == [
        (n, int(v)) for n, v in tprof.ProfilerActivity.__members__.items()
    ]
    assert [(m.name, m.value) for m in mprof.ProfilerAction] == [(m.name, m.value) for m in tprof.ProfilerAction]
    assert {n: int(v) for n, v in tprof.DeviceType.__members__.items()} == {
        m.name: int(m.value) for m in mprof.DeviceType
    }
    assert mprof.kineto_available() is False
    assert {a.name for a in mprof.supported_activities()} >= {a.name for a in tprof.supported_activities()}


def _program(lib, prof_mod, **kw):
    a = lib.ones(16, 16)
    with prof_mod.profile(activities=[prof_mod.ProfilerActivity.CPU], **kw) as p, prof_mod.record_function("block"):
        for _ in range(3):
            lib.mm(a, a)
        lib.neg(a)
        lib.sigmoid(a)
    return p


def _header(table):
    return [h.strip() for h in table.splitlines()[1].split("  ") if h.strip()]


@pytest.mark.parametrize(
    "kw,group",
    [
        ({}, False),
        ({"record_shapes": True}, True),
        ({"profile_memory": True}, False),
        ({"record_shapes": True, "profile_memory": True}, True),
    ],
)
def test_table_columns_match(kw, group):
    ours = _program(mindtorch, mprof, **kw).key_averages(group_by_input_shape=group).table(sort_by="count")
    theirs = _program(torch, tprof, **kw).key_averages(group_by_input_shape=group).table(sort_by="count")
    assert _header(ours) == _header(theirs)
    assert ours.splitlines()[-1].split(":")[0] == theirs.splitlines()[-1].split(":")[0]
    first_row = ours.splitlines()[3].split()
    assert first_row[0] == "aten::mm" and "3" in first_row


def test_counts_of_the_user_visible_ops_match():
    ours = {e.key: e.count for e in _program(mindtorch, mprof).key_averages()}
    theirs = {e.key: e.count for e in _program(torch, tprof).key_averages()}
    for name in ("block", "aten::mm", "aten::neg", "aten::sigmoid"):
        assert ours[name] == theirs[name]


def test_key_averages_fields_exist_as_pytorchs():
    ours = _program(mindtorch, mprof, profile_memory=True).key_averages()[0]
    theirs = _program(torch, tprof, profile_memory=True).key_averages()[0]
    for name in (
        "key",
        "count",
        "cpu_time_total",
        "self_cpu_time_total",
        "cpu_time",
        "device_time_total",
        "self_device_time_total",
        "cpu_memory_usage",
        "self_cpu_memory_usage",
        "input_shapes",
    ):
        assert hasattr(theirs, name) and hasattr(ours, name), name
