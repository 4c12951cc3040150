"""The runtime under the tensors: streams, events, memory API, async copies, errors, no-CANN machines."""

import gc

import mindtorch as torch
import numpy as np
import pytest
from npu_helpers import live, pause, resume, run_python

MiB = 1 << 20


def rt():
    from mindtorch_npu.state import RUNTIME

    return RUNTIME


# -- streams and events ---------------------------------------------------------------------------


def test_stream_context_runs_work_on_that_stream():
    x = torch.ones(64, 64, device="npu")  # filled on the default stream
    s = torch.npu.Stream()
    assert torch.npu.current_stream() == torch.npu.default_stream()
    s.wait_stream(torch.npu.current_stream())  # without this, s could read x before it is filled
    pause(s.npu_stream)
    with torch.npu.stream(s):
        assert torch.npu.current_stream() == s
        y = x + x  # queued on s, which is paused
        assert not s.query()
    assert torch.npu.current_stream() == torch.npu.default_stream()
    resume(s.npu_stream)
    s.synchronize()
    assert s.query()
    with torch.npu.stream(s):
        assert float(y.cpu()[0, 0]) == 2.0


def test_events_order_streams_and_time():
    s1, s2 = torch.npu.Stream(), torch.npu.Stream()
    start, end = torch.npu.Event(enable_timing=True), torch.npu.Event(enable_timing=True)
    x = torch.ones(128, 128, device="npu")
    s1.wait_stream(torch.npu.current_stream())
    pause(s1.npu_stream)
    with torch.npu.stream(s1):
        start.record()
        y = x @ x
        end.record()
    assert not end.query()
    s2.wait_event(end)  # s2 may not run past this until s1 has
    resume(s1.npu_stream)
    end.synchronize()
    assert end.query() and start.elapsed_time(end) >= 0.0
    with torch.npu.stream(s2):
        assert float(y.cpu()[0, 0]) == 128.0
    with pytest.raises(RuntimeError, match="enable_timing"):
        torch.npu.Event().elapsed_time(end)


def test_destroyed_stream_is_an_error_not_the_default_stream():
    s = torch.npu.Stream()
    handle = s.npu_stream
    s.destroy()
    stats = torch.npu.memory_stats()
    with pytest.raises(RuntimeError, match="aclrtSynchronizeStream"):
        rt().synchronize_stream(0, handle)
    with pytest.raises(RuntimeError, match="destroyed"):
        s.synchronize()
    with pytest.raises(RuntimeError, match="destroyed"), torch.npu.stream(s):
        pass
    assert torch.npu.memory_stats() == stats


# -- memory ---------------------------------------------------------------------------------------


def test_memory_api_counts_rounded_blocks():
    torch.npu.synchronize()
    torch.npu.empty_cache()
    base = torch.npu.memory_allocated()
    t = torch.empty(1000, dtype=torch.float32, device="npu")  # 4000 B -> one 4096 B block
    assert torch.npu.memory_allocated() - base == 4096
    assert torch.npu.memory_reserved() >= 2 * MiB
    assert torch.npu.max_memory_allocated() >= torch.npu.memory_allocated()
    del t
    assert torch.npu.memory_allocated() == base
    reserved = torch.npu.memory_reserved()
    big = torch.empty((12 * MiB - 32) // 4, device="npu")  # >= 10 MiB with its 32-byte pad: a segment of its own
    assert torch.npu.memory_reserved() == reserved + 12 * MiB
    del big
    assert torch.npu.memory_reserved() == reserved + 12 * MiB  # cached, not returned
    torch.npu.empty_cache()
    assert torch.npu.memory_reserved() <= reserved
    torch.npu.reset_peak_memory_stats()
    assert torch.npu.max_memory_allocated() == torch.npu.memory_allocated()
    summary = torch.npu.memory_summary()
    assert "Allocated memory" in summary or "allocated" in summary.lower()
    free, total = torch.npu.mem_get_info()
    assert 0 < free <= total


def test_workspace_blocks_return_to_the_pool():
    a, b = torch.ones(32, 64, device="npu"), torch.ones(48, 64, device="npu")
    before = torch.npu.memory_allocated()
    c = a @ b.t()  # non-contiguous operand: the simulator asks for a workspace
    torch.npu.synchronize()
    from mindtorch_npu.allocator import round_size

    assert torch.npu.memory_allocated() - before == round_size(c.numel() * 4)  # the request, its pad, 512-rounded
    assert float(c.cpu()[0, 0]) == 64.0


def test_record_stream_defers_reuse():
    s = torch.npu.Stream()
    x = torch.ones(1 << 16, device="npu")  # allocated on the default stream
    s.wait_stream(torch.npu.current_stream())
    pause(s.npu_stream)
    with torch.npu.stream(s):
        y = x * 2  # s still has to read x
    x.record_stream(s)
    ptr = x.data_ptr()
    del x
    z = torch.empty(1 << 16, device="npu")  # same size, default stream
    assert z.data_ptr() != ptr  # x's block waits for s
    resume(s.npu_stream)
    s.synchronize()
    del z
    w1, w2 = torch.empty(1 << 16, device="npu"), torch.empty(1 << 16, device="npu")
    assert ptr in (w1.data_ptr(), w2.data_ptr())  # reusable once s has passed its event
    with torch.npu.stream(s):
        assert float(y.cpu()[0]) == 2.0


def test_device_pointer_after_free_is_an_error():
    p = rt().malloc(0, 4096)
    rt().free(0, p)
    stats = torch.npu.memory_stats()
    with pytest.raises(RuntimeError, match="aclrtFree"):
        rt().free(0, p)
    host = np.zeros(16, np.float32)
    with pytest.raises(RuntimeError, match="aclrtMemcpyAsync|aclrtSynchronizeStream"):
        rt().memcpy_async(host.ctypes.data, p, 64, 2, 0)
        rt().synchronize_stream(0, 0)
    assert torch.npu.memory_stats() == stats


# -- asynchronous host -> device copies -----------------------------------------------------------


@pytest.mark.parametrize("how", ["to", "copy_"])
def test_non_blocking_upload_reads_staged_copy_and_keeps_it_alive(how):
    from mindtorch_npu.state import STAGING

    torch.npu.synchronize()
    torch.npu.empty_cache()  # no idle pinned block from an earlier test
    hosts_before = live("host_allocations")
    src = np.arange(1024, dtype=np.float32)
    host = torch.from_numpy(src)  # shares src's memory
    dst = torch.zeros(1024, device="npu") if how == "copy_" else None
    torch.npu.synchronize()
    pause(None)  # the default stream of npu:0
    t = host.to("npu", non_blocking=True) if how == "to" else dst.copy_(host, non_blocking=True)
    src[:] = -1  # the caller may reuse its buffer at once
    assert len(STAGING) == 1 and live("host_allocations") == hosts_before + 1
    gc.collect()
    assert live("host_allocations") == hosts_before + 1  # still queued: the pinned buffer must live
    resume(None)
    torch.npu.synchronize()
    assert len(STAGING) == 0 and live("host_allocations") == hosts_before + 1  # idle in the pool, not freed
    np.testing.assert_array_equal(t.cpu().numpy(), np.arange(1024, dtype=np.float32))
    t2 = host.to("npu", non_blocking=True)  # the next upload of that size reuses the block
    assert live("host_allocations") == hosts_before + 1
    np.testing.assert_array_equal(t2.cpu().numpy(), np.full(1024, -1, np.float32))
    torch.npu.empty_cache()
    assert live("host_allocations") == hosts_before


# -- whole-process behaviours (fresh interpreters) ----------------------------------------------


def test_host_read_through_a_device_pointer_faults():
    res = run_python("""
        import ctypes, mindtorch as torch
        t = torch.ones(4, device="npu")
        torch.npu.synchronize()
        print("reading", flush=True)
        print(ctypes.c_float.from_address(t.data_ptr()).value)
    """)
    assert "reading" in res.stdout
    assert res.returncode < 0 and res.returncode in (-11, -7), (res.returncode, res.stderr[-500:])


def test_out_of_memory_retries_then_raises_torch_error():
    res = run_python(
        """
        import mindtorch as torch
        MiB = 1 << 20
        pad = 32                                             # every block carries 32 bytes past its request
        keep = torch.empty((20 * MiB - pad) // 4, device="npu")  # a 20 MiB segment
        cached = torch.empty((30 * MiB - pad) // 4, device="npu")
        del cached                                           # its 30 MiB segment stays cached
        assert torch.npu.memory_reserved() >= 50 * MiB
        big = torch.empty((36 * MiB - pad) // 4, device="npu")  # fits only once the cache is emptied
        stats = torch.npu.memory_stats()
        assert stats["num_alloc_retries"] == 1, stats["num_alloc_retries"]
        before = torch.npu.memory_allocated()
        try:
            torch.empty((200 * MiB - pad) // 4, device="npu")
        except torch.OutOfMemoryError as e:
            assert isinstance(e, RuntimeError)
            assert "NPU out of memory. Tried to allocate 200.00 MiB" in str(e), str(e)
        else:
            raise AssertionError("no OutOfMemoryError")
        assert torch.npu.memory_allocated() == before
        assert torch.npu.memory_stats()["num_ooms"] == 1
        print("ok")
    """,
        {"ACLSIM_DEVICE_MEMORY": str(64 * 1024 * 1024)},
    )
    assert res.returncode == 0 and "ok" in res.stdout, res.stderr[-2000:]


def test_without_cann_import_works_and_use_says_what_to_do():
    res = run_python(
        """
        import mindtorch as torch
        assert torch.npu.is_available() is False
        assert torch.npu.device_count() == 0
        try:
            torch.zeros(2).to("npu")
        except RuntimeError as e:
            print("ERR", e)
        torch.manual_seed(0)
        print(torch.npu.backend_info())
    """,
        env_update={"ASCEND_HOME_PATH": "/nonexistent/cann"},
        drop=("MINDTORCH_NPU_LIB_DIR", "ASCEND_TOOLKIT_HOME", "LD_LIBRARY_PATH"),
    )
    assert res.returncode == 0, res.stderr[-2000:]
    assert "ERR" in res.stdout and "set_env.sh" in res.stdout and "libascendcl.so" in res.stdout
    assert "/nonexistent/cann" in res.stdout


def test_acl_errors_carry_code_name_and_message():
    with pytest.raises(RuntimeError) as info:
        rt().free(0, 12345)
    msg = str(info.value)
    assert "aclrtFree failed with ACL error" in msg and "ACL_ERROR" in msg


def test_library_discovery_order(tmp_path):
    from mindtorch_npu.acl.libs import candidate_dirs, locate

    env = {"MINDTORCH_NPU_LIB_DIR": "/x", "ASCEND_HOME_PATH": "/cann", "LD_LIBRARY_PATH": "/a:/b"}
    dirs = [d for d, _ in candidate_dirs(env)]
    assert dirs[0] == "/x" and dirs[1] == "/cann/lib64" and dirs.index("/a") < dirs.index("/b")
    assert dirs[-1].startswith("/usr/local/Ascend/ascend-toolkit/latest")
    (tmp_path / "libascendcl.so").write_bytes(b"")
    found = locate({"LD_LIBRARY_PATH": str(tmp_path)})
    assert found["libascendcl.so"] == (str(tmp_path / "libascendcl.so"), "LD_LIBRARY_PATH")
    assert found["libopapi.so"][0] is None and str(tmp_path) in found["libopapi.so"][1]


def test_descriptors_are_cached_by_description_and_lists_own_their_tensors(monkeypatch):
    from mindtorch_npu.aclnn import CACHE, PLANS, IntArray, Scalar, launch

    monkeypatch.setattr(PLANS, "enabled", False)  # the path of calls no launch plan serves

    t1, t2 = torch.ones(3, device="npu"), torch.zeros(2, 2, device="npu")
    out = torch.empty((), device="npu")
    torch.npu.synchronize()
    before = {k: live(k) for k in ("tensors", "tensor_lists", "int_arrays", "scalars")}
    # a list, an int array and a scalar that is never cached (0.0: its sign must survive)
    launch("ForeachAddScalarV2", [t1, t2], Scalar(0.0), [t1, t2])
    launch("ReduceSum", t1, IntArray([0]), False, 0, out)  # 0: ACL_FLOAT, out's dtype
    assert live("scalars") == before["scalars"]  # the call's own scalar is gone
    assert live("tensor_lists") == before["tensor_lists"] + 1  # cached, with its own two tensors
    assert live("tensors") == before["tensors"] + 2 + 1  # ... and `out`'s descriptor
    assert live("int_arrays") == before["int_arrays"] + 1
    launch("ForeachAddScalarV2", [t1, t2], Scalar(0.0), [t1, t2])
    launch("ReduceSum", t1, IntArray([0]), False, 0, out)  # the same descriptions: nothing new
    assert live("tensor_lists") == before["tensor_lists"] + 1 and live("int_arrays") == before["int_arrays"] + 1
    torch.npu.synchronize()
    CACHE.clear()  # empty_cache's path: every descriptor destroyed
    assert all(live(k) == 0 for k in before), {k: live(k) for k in before}


def test_missing_op_names_op_and_device_unless_fallback_opted_in():
    # igamma has no ACLNN operator and no composite
    with pytest.raises(NotImplementedError, match="'igamma' on the 'npu' device"):
        torch.igamma(torch.ones(3, device="npu"), torch.ones(3, device="npu"))
    res = run_python(
        """
        import warnings, mindtorch as torch
        x = torch.tensor([0.5, 2.0]).to("npu")
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            y = torch.igamma(x, x)
            torch.igamma(x, x)
        assert y.device.type == "npu", y.device
        print(len([m for m in w if "igamma" in str(m.message)]), float(y.cpu()[0]))
    """,
        {"MINDTORCH_NPU_CPU_FALLBACK": "1"},
    )
    assert res.returncode == 0, res.stderr[-2000:]
    count, value = res.stdout.split()
    expect = float(torch.igamma(torch.tensor([0.5]), torch.tensor([0.5]))[0])
    assert count == "1" and float(value) == expect
