"""NPU tests run against the ACL simulator (mindtorch-npu/simulator), built once per pytest run.

The libraries go to $ACLSIM_BUILD_DIR, or to a temp directory named after the sources' hash (so concurrent
runs of different checkouts never share a stale build). MINDTORCH_NPU_LIB_DIR points the backend at them
before any test imports it. There is no Ascend hardware here: tests marked `hardware` are skipped.
On an Ascend host, MINDTORCH_NPU_TEST_HARDWARE=1 runs the `hardware` tests against the CANN the
environment points at (and skips the simulator's own tests).

After the whole session, nothing the tests made may still be alive in the simulator: a session whose tests
leave an allocation, stream, event, tensor descriptor, ... behind fails (pytest_sessionfinish below).
"""

import ctypes
import gc
import importlib.util
import os
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_BUILD = ROOT / "mindtorch-npu" / "simulator" / "build.py"
_LIBS = ("libascendcl.so", "libnnopbase.so", "libopapi.so")
_state = {}


def _builder():
    spec = importlib.util.spec_from_file_location("aclsim_build", _BUILD)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def build_simulator():
    """Build (if needed) and return the simulator's directory; idempotent within a process."""
    if "dir" not in _state:
        b = _builder()
        out = os.environ.get("ACLSIM_BUILD_DIR") or os.path.join(
            tempfile.gettempdir(), f"aclsim-{os.getuid()}-{b.source_digest()[:16]}"
        )
        _state["dir"] = b.build(out)
    return _state["dir"]


def on_hardware():
    return os.environ.get("MINDTORCH_NPU_TEST_HARDWARE", "") == "1"


def pytest_configure(config):
    config.addinivalue_line("markers", "hardware: needs a real Ascend NPU (skipped on the simulator)")
    if on_hardware():
        return
    d = build_simulator()
    os.environ["MINDTORCH_NPU_LIB_DIR"] = str(d)
    os.environ.setdefault("ACLSIM_DEVICE_COUNT", "2")
    # float32 convolutions are compared with the CPU's exact values: HFLOAT32 operands (torch_npu's default,
    # tests/npu/test_hf32.py) are switched off for the tests and the processes they start
    os.environ.setdefault("MINDTORCH_NPU_ALLOW_CONV_HF32", "0")


def pytest_collection_modifyitems(config, items):
    if on_hardware():
        skip = pytest.mark.skip(reason="a simulator test (MINDTORCH_NPU_TEST_HARDWARE=1 runs hardware tests only)")
        hit = lambda item: "hardware" not in item.keywords
    else:
        skip = pytest.mark.skip(reason="needs Ascend hardware; only the simulator is available")
        hit = lambda item: "hardware" in item.keywords
    for item in items:
        if hit(item):
            item.add_marker(skip)


def load_sim():
    """The three simulator libraries as ctypes.CDLLs (RTLD_GLOBAL), in order ascendcl, nnopbase, opapi."""
    d = build_simulator()
    return tuple(ctypes.CDLL(str(d / name), mode=ctypes.RTLD_GLOBAL) for name in _LIBS)


@pytest.fixture(scope="session")
def aclsim_dir():
    return build_simulator()


@pytest.fixture(scope="session")
def sim_libs():
    """load_sim() as a fixture: (ascendcl, nnopbase, opapi)."""
    return load_sim()


def leaked():
    """What the simulator still holds once every device is synchronized and the allocator's cache emptied:
    {counter: live count} for the nonzero counters; empty when this process never started the runtime."""
    state = sys.modules.get("mindtorch_npu.state")
    if on_hardware() or state is None or state.RUNTIME.state != "ready":
        return {}
    import mindtorch as torch
    from npu_helpers import live_counts

    gc.collect()
    from mindtorch_npu.kernels._common import BOUNDS

    BOUNDS.discard()  # index checks a failed test left unread are not leaks
    for i in range(torch.npu.device_count()):
        torch.npu.synchronize(i)
    torch.npu.empty_cache()
    return {k: n for k, n in live_counts().items() if n}


def pytest_sessionfinish(session, exitstatus):
    """Fail the run (exit status 1) when the tests left anything alive in the simulator, naming what."""
    if session.config.option.collectonly or not session.testscollected:
        return
    leaks = leaked()
    if not leaks:
        return
    session.exitstatus = pytest.ExitCode.TESTS_FAILED
    message = "npu leak check: still alive in the simulator after the session: " + ", ".join(
        f"{k}={n}" for k, n in leaks.items()
    )
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.ensure_newline()
        reporter.write_sep("=", "npu leak check failed", red=True)
        reporter.write_line(message)
    else:
        sys.stderr.write(message + "\n")
