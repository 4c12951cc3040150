"""The distributed fault sweep: every fault of workers/faults.py on every engine (mpi for cpu tensors,
hccl on the ACL simulator), 2 processes each, under a hard timeout. After each case nothing may be
left: no process of the case (found by a marker in its environment), no shared-memory segment of Open
MPI or of the simulator's HCCL in /dev/shm and no session directory of the case's mpiexec. The counts are printed at the end of the session."""

import os
import tempfile
import time
import uuid
from pathlib import Path

import pytest
from mpi_helpers import mpiexec, requires_mpi, simulator_env

pytestmark = requires_mpi

FAULTS = ("late", "exit", "kill", "hang", "count", "shape", "dtype")
ENGINES = ("mpi", "hccl")
CASES = [(e, f) for e in ENGINES for f in FAULTS]
MIN_CASES = 14  # the ratchet: the sweep never shrinks
SEGMENTS = ("vader_segment", "sm_segment", "aclsim-hccl")
TALLY = {"cases": 0, "passed": 0, "leaked files": 0, "leaked processes": 0}


def _segments():
    try:
        return {n for n in os.listdir("/dev/shm") if n.startswith(SEGMENTS)}
    except OSError:
        return set()


def _session_dirs(launcher_pid):
    """Open MPI's session directory of the launcher (removed when mpiexec ends the job itself)."""
    return [str(d) for d in Path(tempfile.gettempdir()).glob(f"ompi.*/pid.{launcher_pid}")]


def _processes_with(marker):
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            env = Path(f"/proc/{pid}/environ").read_bytes()
        except OSError:
            continue
        if marker in env:
            found.append(int(pid))
    return found


def _expect(fault, out, n):
    """What the case must show: (sentences every survivor prints, text the output must contain)."""
    gone = n - 1
    if fault == "late":
        return [f"rank {r} caught DistStoreError: Timed out after 4 seconds" for r in range(gone)], []
    if fault in ("exit",):
        return [f"rank {r} caught DistBackendError" for r in range(gone)], [
            f"rank {gone} (pid",
            "exited while the others waited",
        ]
    if fault == "kill":
        return [], [f"rank {gone}"]
    if fault == "hang":
        return [f"rank {r} caught DistBackendError" for r in range(gone)], ["did not complete within 4 s"]
    return [f"rank {r} caught RuntimeError: Detected mismatch between collectives on ranks" for r in range(n)], []


@pytest.mark.parametrize(("engine", "fault"), CASES)
def test_fault(engine, fault):
    if engine == "hccl":
        pytest.importorskip("mindtorch_npu")
    n = 2
    marker = uuid.uuid4().hex
    env = {"MINDTORCH_FAULT_CASE": marker, "TORCH_DISTRIBUTED_DEBUG": "DETAIL"}
    if engine == "hccl":
        env.update(simulator_env(), ACLSIM_HCCL_TIMEOUT="60")
    before = _segments()
    TALLY["cases"] += 1
    t0 = time.monotonic()
    proc = mpiexec("faults.py", n, engine, fault, timeout=60, env=env)
    took = time.monotonic() - t0
    time.sleep(0.5)  # the launcher's last children are reaped
    left_files = sorted(_segments() - before) + _session_dirs(proc.pid)
    left_procs = _processes_with(b"MINDTORCH_FAULT_CASE=" + marker.encode())
    TALLY["leaked files"] += len(left_files)
    TALLY["leaked processes"] += len(left_procs)
    out = proc.stdout + proc.stderr
    assert not left_files and not left_procs, (left_files, left_procs, out)
    lines, texts = _expect(fault, out, n)
    for text in lines + texts:
        assert text in out, out
    assert "no error" not in proc.stdout, out
    assert took < 30, f"{engine}/{fault} took {took:.0f} s: {out}"
    TALLY["passed"] += 1


def test_the_sweep_never_shrinks():
    assert len(CASES) >= MIN_CASES
    assert len(set(CASES)) == len(CASES)
