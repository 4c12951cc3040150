"""The backend against the ACL runtime's documented rules (hicann/runtime docs/zh/api_ref): freeing without
waiting, synchronous copies that wait for nothing, async copies that need page-locked memory before CANN 8.5,
error messages that reading clears, counted aclrtSetDevice, CANN 9's install prefix."""

import ctypes
import threading

import mindtorch as torch
import numpy as np
from npu_helpers import pause, resume, run_python


def _rt():
    from mindtorch_npu.state import RUNTIME

    return RUNTIME.ensure()


def _resume_later(stream, delay=0.2):
    t = threading.Timer(delay, resume, (stream.handle(),))
    t.start()
    return t


def test_empty_cache_waits_for_work_still_queued_on_a_cached_block():
    # aclrtFree frees at once, queued work or not: the allocator must drain before handing blocks back
    s = torch.npu.Stream(device=0)
    with torch.npu.stream(s):
        x = torch.empty(300_000, device="npu:0")  # a segment of its own, on s
        pause(s.handle())
        x.fill_(3.0)  # queued on the paused stream
        del x  # the block is cached, its fill still pending
    timer = _resume_later(s)
    torch.npu.empty_cache()  # must not free the segment under the queued fill
    timer.join()
    s.synchronize()  # a fill into freed memory would fail here (ACL_ERROR_RT_SYS_DMA)
    s.destroy()


def test_blocking_copies_follow_the_current_stream():
    # aclrtMemcpy waits for no stream: a blocking copy synchronizes the current stream first
    s = torch.npu.Stream(device=0)
    with torch.npu.stream(s):
        x = torch.zeros(64, device="npu:0")
        s.synchronize()
        pause(s.handle())
        x.fill_(5.0)  # queued, not run
        timer = _resume_later(s)
        got = x.cpu().numpy()  # must see the fill
        timer.join()
        y = torch.empty(64, device="npu:0")
        pause(s.handle())
        y.fill_(1.0)
        timer = _resume_later(s)
        y.copy_(torch.arange(64, dtype=torch.float32))  # the upload lands after the queued fill
        timer.join()
        back = y.cpu().numpy()
    np.testing.assert_array_equal(got, np.full(64, 5.0, np.float32))
    np.testing.assert_array_equal(back, np.arange(64, dtype=np.float32))
    s.destroy()


def test_pageable_copies_work_in_both_cann_modes():
    code = """
        import numpy as np, mindtorch as torch
        x = torch.tensor(np.arange(10, dtype=np.float32), device="npu:0")
        y = (x * 2).cpu().numpy()
        z = torch.empty(10, device="npu:0").copy_(torch.ones(10), non_blocking=True).cpu().numpy()
        assert (y == np.arange(10) * 2).all() and (z == 1).all()
        print("copies ok")
    """
    for version in ("8.0", "8.5"):
        proc = run_python(code, {"ACLSIM_CANN_VERSION": version})
        assert proc.returncode == 0 and "copies ok" in proc.stdout, (version, proc.stdout + proc.stderr)


def test_reading_the_error_message_clears_it():
    rt = _rt()
    try:
        rt.free(0, 12345)
    except RuntimeError as e:
        assert "aclrtFree" in str(e)
    else:
        raise AssertionError("freeing a bogus pointer succeeded")
    assert rt.rt.aclGetRecentErrMsg() is None  # the backend read it into the exception: nothing piles up


def test_exit_releases_every_device_once_whatever_the_set_count():
    # aclrtSetDevice is counted per call (every thread that binds a device adds one): the exit path uses
    # aclrtResetDeviceForce, after which a further forced reset is refused
    code = """
        import ctypes, threading, mindtorch as torch
        from mindtorch_npu.state import RUNTIME
        torch.ones(2, device="npu:0").cpu()
        t = threading.Thread(target=lambda: torch.ones(2, device="npu:0").cpu())
        t.start(); t.join()
        force = RUNTIME.libs.ascendcl.aclrtResetDeviceForce
        force.argtypes = [ctypes.c_int32]
        real = RUNTIME.rt.aclFinalize
        def finalize():
            print("second forced reset:", force(0))
            return real()
        RUNTIME.rt.aclFinalize = finalize
    """
    proc = run_python(code)
    assert proc.returncode == 0, proc.stderr
    assert "second forced reset: 107000" in proc.stdout, proc.stdout + proc.stderr


def test_cann_9_install_prefix_is_searched_before_the_toolkit_one():
    from mindtorch_npu.acl.libs import candidate_dirs

    dirs = [d for d, _ in candidate_dirs({})]
    assert dirs.index("/usr/local/Ascend/cann/lib64") < dirs.index("/usr/local/Ascend/ascend-toolkit/latest/lib64")


def test_recent_error_message_is_got_and_cleared_by_the_simulator():
    rt = _rt()
    lib = rt.libs.ascendcl
    lib.aclrtFree.argtypes = [ctypes.c_void_p]
    assert lib.aclrtFree(ctypes.c_void_p(12345)) != 0
    first = rt.rt.aclGetRecentErrMsg()
    assert first and b"aclrtFree" in first
    assert rt.rt.aclGetRecentErrMsg() is None


def test_a_kernel_overrunning_its_output_does_not_reach_the_next_block():
    # aclrtMalloc docs: sizes are ALIGN_UP(len, 32) + 32 because kernels may touch 32 bytes past the end; the
    # simulator writes there, so blocks split from one segment need the same pad
    s = torch.npu.Stream(device=0)
    with torch.npu.stream(s):  # fresh pools: the two blocks are neighbours in one segment
        a = torch.empty(128, device="npu:0")  # 512 bytes: exactly a block without the pad
        b = torch.empty(128, device="npu:0")
        b.copy_(torch.arange(128, dtype=torch.float32))
        a.fill_(1.0)
        got = b.cpu().numpy()
    np.testing.assert_array_equal(got, np.arange(128, dtype=np.float32))
    del a, b
    s.synchronize()
    s.destroy()


def test_operators_split_by_family_are_found():
    # newer CANN ships lib64/libopapi_{math,nn,...}.so and no libopapi.so; torch_npu searches them first
    import os
    import tempfile

    from conftest import _builder

    b = _builder()
    out = os.path.join(tempfile.gettempdir(), f"aclsim-split-{os.getuid()}-{b.source_digest(True)[:16]}")
    lib_dir = b.build(out, split_opapi=True)
    assert not (lib_dir / "libopapi.so").exists()
    proc = run_python(
        """
        import mindtorch as torch
        x = torch.arange(6, dtype=torch.float32, device="npu").reshape(2, 3)
        y = torch.softmax(x + 1, dim=1)                # Adds from libopapi_math, Softmax from libopapi_nn
        assert abs(float(y.sum().cpu()) - 2.0) < 1e-5
        print("split ok")
    """,
        {"MINDTORCH_NPU_LIB_DIR": str(lib_dir)},
    )
    assert proc.returncode == 0 and "split ok" in proc.stdout, proc.stdout + proc.stderr


def test_set_device_is_counted_and_resets_past_zero_are_refused():
    # acl docs (aclrtResetDevice, aclrtResetDeviceForce): each set adds one, each reset takes one; once the
    # count is zero the device is released and any further reset is an error
    code = """
        import ctypes as C, os
        sim = C.CDLL(os.path.join(os.environ["MINDTORCH_NPU_LIB_DIR"], "libascendcl.so"))
        assert sim.aclInit(None) == 0
        calls = [sim.aclrtSetDevice(1), sim.aclrtSetDevice(1), sim.aclrtResetDevice(1), sim.aclrtResetDevice(1),
                 sim.aclrtResetDevice(1), sim.aclrtResetDeviceForce(1),
                 sim.aclrtSetDevice(1), sim.aclrtSetDevice(1), sim.aclrtResetDeviceForce(1), sim.aclrtResetDeviceForce(1)]
        print(*calls)
    """
    proc = run_python(code)
    assert proc.stdout.split() == ["0", "0", "0", "0", "107000", "107000", "0", "0", "0", "107000"], (
        proc.stdout + proc.stderr
    )


def test_non_blocking_upload_into_an_unaligned_view():
    # CANN 8.0 docs (aclrtMemcpyAsync): source and destination 64-byte aligned; a view 4 bytes in is not
    from mindtorch_npu.copy import COPY

    x = torch.zeros(64, device="npu:0")
    COPY.copy_from_host(x[1:17], np.arange(16, dtype=np.float32), non_blocking=True)
    want = np.zeros(64, np.float32)
    want[1:17] = np.arange(16)
    np.testing.assert_array_equal(x.cpu().numpy(), want)
