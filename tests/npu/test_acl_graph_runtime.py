"""The simulator's ACL Graph (aclmdlRI*) against CANN's documented rules (hicann/runtime docs/zh/api_ref
15_model_running_instance__management.md and FAQ "ACL Graph捕获过程中任务提交限制"): a capturing stream records
its tasks instead of running them, a model run instance replays them, and what the docs forbid while capturing
fails with the documented code (the sync-type refusals also invalidate the capture)."""

import ctypes
import json
import threading

import mindtorch as torch
import numpy as np
import pytest
from mindtorch_npu.acl import types as A
from mindtorch_npu.copy import address
from mindtorch_npu.runtime import AclRuntimeError
from npu_helpers import live, pause, resume, run_python

GLOBAL, THREAD_LOCAL, RELAXED = (
    A.ACL_MODEL_RI_CAPTURE_MODE_GLOBAL,
    A.ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL,
    A.ACL_MODEL_RI_CAPTURE_MODE_RELAXED,
)
BLOCK_ASYNC, INVALIDATED = 107041, 507903


def _rt():
    from mindtorch_npu.state import RUNTIME

    return RUNTIME.ensure()


def _code(fn, *args):
    with pytest.raises(AclRuntimeError) as info:
        fn(*args)
    return info.value.code


@pytest.fixture
def cap():
    """A side stream of npu:0 and a helper that begins a capture on it."""
    rt = _rt()
    rt.set_device(0)
    s = torch.npu.Stream(device=0)
    models = []

    def begin(mode=GLOBAL):
        rt.synchronize(0)  # tensors made on the default stream are ready before s replays into them
        rt.capture_begin(0, s.handle(), mode)

    def end():
        m = rt.capture_end(0, s.handle())
        models.append(m)
        return m

    begin.end, begin.stream, begin.rt = end, s, rt
    yield begin
    if rt.capture_info(0, s.handle())[0] != A.ACL_MODEL_RI_CAPTURE_STATUS_NONE:
        try:
            rt.capture_end(0, s.handle())
        except AclRuntimeError:
            pass
    for m in models:
        rt.destroy_model(m)
    s.synchronize()
    s.destroy()


def test_captured_tasks_do_not_run_and_every_execution_runs_them(cap):
    rt, s = cap.rt, cap.stream
    x = torch.zeros(5, device="npu:0")
    before = live("model_ris")
    cap()
    status, model = rt.capture_info(0, s.handle())
    assert status == A.ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE and model
    with torch.npu.stream(s):
        x.add_(1)  # a kernel launch
        x.mul_(2)
    assert cap.end() == model
    assert live("model_ris") == before + 1
    s.synchronize()
    assert x.cpu().tolist() == [0.0] * 5  # recorded, not run
    for _ in range(3):
        rt.execute_model(0, model, s.handle())
    s.synchronize()
    assert x.cpu().tolist() == [14.0] * 5  # ((0+1)*2+1)*2+1)*2
    rt.execute_model(0, model, 0)  # any stream of the device, the default one included
    torch.npu.synchronize()
    assert x.cpu().tolist() == [30.0] * 5


def test_destroy_releases_the_model_and_its_tasks(cap):
    rt, s = cap.rt, cap.stream
    from mindtorch_npu.aclnn import CACHE  # launch plans keep executors of their own

    x = torch.ones(4, device="npu:0")
    CACHE.clear()
    models, executors = live("model_ris"), live("executors")
    cap()
    with torch.npu.stream(s):
        x.add_(1)
    m = rt.capture_end(0, s.handle())
    assert live("executors") > executors  # the recorded launch keeps its executor
    rt.execute_model(0, m, s.handle())
    rt.destroy_model(m)  # waits for the queued execution
    CACHE.clear()
    assert (live("model_ris"), live("executors")) == (models, executors)
    assert x.cpu().tolist() == [2.0] * 4
    assert _code(rt.execute_model, 0, m, s.handle()) == 107017  # ACL_ERROR_RT_INVALID_HANDLE
    assert _code(rt.destroy_model, m) == 107017


@pytest.mark.parametrize(
    "illegal",
    [
        lambda rt, s: rt.synchronize_stream(0, s.handle()),
        lambda rt, s: rt.stream_done(0, s.handle()),
        lambda rt, s: rt.synchronize(0),
    ],
    ids=["synchronize stream", "query stream", "synchronize device"],
)
def test_synchronizing_or_querying_while_capturing_fails_and_invalidates_the_capture(cap, illegal):
    rt, s = cap.rt, cap.stream
    models = live("model_ris")
    cap()
    assert _code(illegal, rt, s) == BLOCK_ASYNC
    assert rt.capture_info(0, s.handle())[0] == A.ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED
    assert _code(rt.capture_end, 0, s.handle()) == INVALIDATED
    assert rt.capture_info(0, s.handle()) == (A.ACL_MODEL_RI_CAPTURE_STATUS_NONE, None)
    assert live("model_ris") == models  # the invalidated model is gone


def test_events_recorded_into_a_capture_cannot_be_waited_on_from_the_host(cap):
    rt, s = cap.rt, cap.stream
    for illegal in (torch.npu.Event.synchronize, torch.npu.Event.query):
        e = torch.npu.Event()
        cap()
        e.record(s)
        assert _code(illegal, e) == BLOCK_ASYNC
        assert _code(rt.capture_end, 0, s.handle()) == INVALIDATED


def test_event_record_and_wait_inside_a_capture_are_replayed(cap):
    rt, s = cap.rt, cap.stream
    x = torch.zeros(3, device="npu:0")
    e = torch.npu.Event()
    cap()
    with torch.npu.stream(s):
        x.add_(1)
        e.record(s)
        s.wait_event(e)
    m = cap.end()
    data = json.loads(_dump(rt, m))
    assert [t["type"] for t in data["tasks"]] == ["KERNEL", "EVENT_RECORD", "EVENT_WAIT"]
    assert e.query()  # after the capture a captured record is no record
    rt.execute_model(0, m, s.handle())
    e.synchronize()  # the replayed record
    assert x.cpu().tolist() == [1.0] * 3


def _dump(rt, model):
    import tempfile

    with tempfile.NamedTemporaryFile("r", suffix=".json") as f:
        rt.dump_model(model, f.name)
        return f.read()


def test_a_stream_cannot_join_a_capture_through_an_event(cap):
    s = cap.stream
    other = torch.npu.Stream(device=0)
    e = torch.npu.Event()
    cap()
    e.record(s)
    assert _code(other.wait_event, e) == 107024  # ACL_ERROR_RT_CAPTURE_DEPENDENCY
    cap.end()
    other.destroy()


def test_a_capturing_stream_cannot_wait_for_work_pending_outside_the_capture(cap):
    s = cap.stream
    other = torch.npu.Stream(device=0)
    done, pending = torch.npu.Event(), torch.npu.Event()
    cap()
    done.record(other)
    other.synchronize()
    s.wait_event(done)  # completed before: nothing to wait for, nothing recorded
    pause(other.handle())
    pending.record(other)
    try:
        assert _code(s.wait_event, pending) == 107024  # ACL_ERROR_RT_CAPTURE_DEPENDENCY
    finally:
        resume(other.handle())
    m = cap.end()
    assert json.loads(_dump(cap.rt, m))["tasks"] == []
    other.synchronize()
    other.destroy()


@pytest.mark.parametrize("mode", [GLOBAL, THREAD_LOCAL, RELAXED])
def test_synchronous_copies_follow_the_capture_mode(cap, mode):
    rt = cap.rt
    x = torch.zeros(4, device="npu:0")
    host = np.arange(4, dtype=np.float32)
    copy = lambda: rt.memcpy(address(x), host.ctypes.data, 16, A.ACL_MEMCPY_HOST_TO_DEVICE)
    memset = lambda: rt.check("aclrtMemset", rt.rt.aclrtMemset(address(x), 16, 0, 16))
    cap(mode)
    if mode == RELAXED:
        copy()  # allowed: done once, now
    else:
        assert _code(copy) == BLOCK_ASYNC and _code(memset) == BLOCK_ASYNC
        old = rt.exchange_capture_mode(RELAXED)  # this thread may call them once it is relaxed
        copy()
        assert rt.exchange_capture_mode(old) == RELAXED
    results = {}

    def other_thread(thread_mode):
        rt.use(0)
        prev = rt.exchange_capture_mode(thread_mode)
        try:
            memset()
            results[thread_mode] = 0
        except AclRuntimeError as exc:
            results[thread_mode] = exc.code
        finally:
            rt.exchange_capture_mode(prev)

    for thread_mode in (GLOBAL, THREAD_LOCAL):
        t = threading.Thread(target=other_thread, args=(thread_mode,))
        t.start()
        t.join()
    # GLOBAL forbids every thread still in global mode; THREAD_LOCAL and RELAXED leave other threads alone
    assert results == {GLOBAL: BLOCK_ASYNC if mode == GLOBAL else 0, THREAD_LOCAL: 0}
    cap.end()


def test_capture_misuse_is_refused_with_the_documented_codes(cap):
    rt, s = cap.rt, cap.stream
    assert _code(rt.capture_begin, 0, 0, GLOBAL) == 107000  # the default stream cannot be captured
    assert _code(rt.capture_begin, 0, s.handle(), 7) == 100000  # not an aclmdlRICaptureMode
    assert _code(rt.capture_end, 0, s.handle()) == 107029  # ACL_ERROR_RT_STREAM_NOT_CAPTURED
    cap()
    assert _code(rt.capture_begin, 0, s.handle(), GLOBAL) == 107027  # ACL_ERROR_RT_STREAM_CAPTURED
    model = rt.capture_info(0, s.handle())[1]
    assert _code(rt.execute_model, 0, model, 0) == 107026  # ACL_ERROR_RT_MODEL_CAPTURED
    assert _code(rt.destroy_model, model) == 107026
    assert _code(rt.destroy_stream, 0, s.handle()) == 107027
    ended = {}

    def end_elsewhere():
        try:
            rt.capture_end(0, s.handle())
        except AclRuntimeError as exc:
            ended["code"] = exc.code

    t = threading.Thread(target=end_elsewhere)
    t.start()
    t.join()
    assert ended == {"code": 107038}  # ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD
    done = cap.end()
    other = torch.npu.Stream(device=0)
    rt.capture_begin(0, other.handle(), GLOBAL)
    assert _code(rt.execute_model, 0, done, other.handle()) == 107027  # a capturing stream cannot execute
    rt.destroy_model(rt.capture_end(0, other.handle()))
    other.destroy()


def test_a_relaxed_capture_may_end_on_another_thread(cap):
    rt, s = cap.rt, cap.stream
    cap(RELAXED)
    out = {}
    t = threading.Thread(target=lambda: out.setdefault("model", rt.capture_end(0, s.handle())))
    t.start()
    t.join()
    assert out["model"]
    rt.destroy_model(out["model"])


def test_pinned_uploads_are_captured_and_read_at_each_execution(cap):
    rt, s = cap.rt, cap.stream
    x = torch.zeros(4, device="npu:0")
    pinned = torch.zeros(4).pin_memory()
    cap()
    rt.memcpy_async(address(x), pinned.data_ptr(), 16, A.ACL_MEMCPY_HOST_TO_DEVICE, s.handle())
    m = cap.end()
    for value in (1.0, 5.0):
        pinned.fill_(value)
        rt.execute_model(0, m, s.handle())
        s.synchronize()
        assert x.cpu().tolist() == [value] * 4


def test_capture_is_refused_where_the_docs_list_it_unsupported_and_pageable_copies_are_unsafe():
    code = """
        import mindtorch as torch
        import numpy as np
        from mindtorch_npu.acl import types as A
        from mindtorch_npu.copy import address
        from mindtorch_npu.runtime import AclRuntimeError
        from mindtorch_npu.state import RUNTIME as rt
        s = torch.npu.Stream(device=0)
        try:
            rt.capture_begin(0, s.handle(), 0)
        except AclRuntimeError as exc:
            print("begin", exc.code)
            raise SystemExit
        x = torch.zeros(4, device="npu:0")
        host = np.ones(4, np.float32)
        try:
            rt.memcpy_async(address(x), host.ctypes.data, 16, A.ACL_MEMCPY_HOST_TO_DEVICE, s.handle())
        except AclRuntimeError as exc:
            print("pageable", exc.code)
        rt.destroy_model(rt.capture_end(0, s.handle()))
    """
    training = run_python(code, {"ACLSIM_SOC_NAME": "Ascend910A"})
    assert training.stdout.split() == ["begin", "207000"], training.stderr  # ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    pageable = run_python(code, {"ACLSIM_CANN_VERSION": "8.5"})
    assert pageable.stdout.split() == ["pageable", str(BLOCK_ASYNC)], pageable.stderr


def test_capture_mode_exchange_checks_its_argument():
    rt = _rt()
    assert _code(rt.exchange_capture_mode, 5) == 100000
    assert rt.exchange_capture_mode(RELAXED) == GLOBAL  # a thread starts in global mode
    assert rt.exchange_capture_mode(GLOBAL) == RELAXED
    assert ctypes.sizeof(A.aclmdlRI) == ctypes.sizeof(ctypes.c_void_p)
