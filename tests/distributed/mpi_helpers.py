"""Run worker scripts under the MPI engine's launcher and check every process's outcome.

Open MPI refuses root without --allow-run-as-root and refuses more processes than cores
without --oversubscribe (containers, CI); mindtorch.distributed.run adds both the same way.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

WORKERS = Path(__file__).parent / "workers"


def _have_mpi():
    if shutil.which("mpiexec") is None:
        return False
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return False
    return True


requires_mpi = pytest.mark.skipif(
    not _have_mpi(), reason="needs mpiexec and mpi4py (the distributed session installs them)"
)


def simulator_env():
    """Environment for workers on the simulated npu: the ACL simulator (with libhccl) built once, two
    devices per process."""
    import importlib.util
    import tempfile

    build_py = Path(__file__).resolve().parents[2] / "mindtorch-npu" / "simulator" / "build.py"
    spec = importlib.util.spec_from_file_location("aclsim_build", build_py)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out = os.environ.get("ACLSIM_BUILD_DIR") or os.path.join(
        tempfile.gettempdir(), f"aclsim-{os.getuid()}-{mod.source_digest()[:16]}"
    )
    return {"MINDTORCH_NPU_LIB_DIR": str(mod.build(out)), "ACLSIM_DEVICE_COUNT": "2"}


def _have_npu():
    try:
        import mindtorch_npu  # noqa: F401
    except ImportError:
        return False
    return True


requires_npu = pytest.mark.skipif(not _have_npu(), reason="needs mindtorch-npu (the distributed session installs it)")


def mpiexec(script, n, *args, timeout=60, env=None):
    """Run workers/<script> on n processes; returns the CompletedProcess (stdout and stderr as text, `pid`
    the launcher's). A job still running at the timeout is ended, nothing of it left, then TimeoutExpired."""
    from mindtorch.distributed.run import mpiexec_command

    cmd = mpiexec_command(n) + [sys.executable, str(WORKERS / script), *map(str, args)]
    full_env = dict(os.environ, **(env or {}))
    kw = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, "text": True, "env": full_env}
    with subprocess.Popen(cmd, start_new_session=True, **kw) as p:
        try:
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _end(p)
            raise
    done = subprocess.CompletedProcess(cmd, p.returncode, out, err)
    done.pid = p.pid
    return done


def _end(p):
    """End a hung job: mpiexec, asked first, signals its ranks and removes its session files; whatever
    is left of the job's session is then killed."""
    import signal

    p.terminate()
    try:
        p.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        pass
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    p.communicate()


def expect_ok(proc, n, marker):
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for r in range(n):
        assert f"{marker} rank {r} of {n}" in proc.stdout, proc.stdout + proc.stderr
