"""The hccl backend: npu tensors through HCCL (the ACL simulator's libhccl), 2 and 3 processes."""

import os
import subprocess
import sys
import time

import pytest
from mpi_helpers import WORKERS, expect_ok, mpiexec, requires_mpi, requires_npu, simulator_env

pytestmark = [requires_mpi, requires_npu]


@pytest.mark.parametrize("n", [2, 3])
def test_every_collective_against_numpy(n):
    expect_ok(mpiexec("hccl_collectives.py", n, timeout=180, env=simulator_env()), n, "hccl collectives ok")


def test_collectives_with_the_root_info_through_a_store():
    """Workers started as plain processes (no MPI launcher): HCCL's root info travels over the socket
    transport the processes formed through torchrun's env:// rendezvous."""
    cmd = [sys.executable, "-m", "mindtorch.distributed.run", "--no-mpiexec", "--nproc-per-node", "2"]
    env = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")}
    proc = subprocess.run(
        [*cmd, str(WORKERS / "hccl_collectives.py")],
        capture_output=True,
        text=True,
        timeout=180,
        env=dict(env, **simulator_env()),
    )
    expect_ok(proc, 2, "hccl collectives ok")


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("model", ["mlp", "gpt"])
def test_ddp_on_npu_equals_single_process(model, n):
    """DDP over hccl on the simulated npu: 20 SGD steps equal one process on the concatenated batch."""
    expect_ok(mpiexec("ddp.py", n, model, "npu", timeout=300, env=simulator_env()), n, f"ddp {model} npu ok")


@pytest.mark.parametrize("n", [2, 3])
def test_dying_rank_fails_the_others_with_a_clear_error(n):
    """The survivors' next synchronisation raises, naming the rank that left, well before any timeout."""
    t0 = time.monotonic()
    proc = mpiexec("hccl_dies.py", n, timeout=120, env=dict(simulator_env(), ACLSIM_HCCL_TIMEOUT="60"))
    assert proc.returncode != 0
    assert time.monotonic() - t0 < 45, "the failure was not detected promptly"
    assert "not reached" not in proc.stdout
    assert (
        f"rank {n - 1} (pid" in proc.stdout + proc.stderr
        and "exited while the others waited" in proc.stdout + proc.stderr
    ), proc.stdout + proc.stderr


def test_peer_that_never_arrives_times_out():
    proc = mpiexec("hccl_dies.py", 2, "hang", timeout=120, env=dict(simulator_env(), ACLSIM_HCCL_TIMEOUT="3"))
    assert proc.returncode != 0 and "not reached" not in proc.stdout
    assert "timed out after 3 s" in proc.stdout + proc.stderr, proc.stdout + proc.stderr


@pytest.mark.parametrize("n", [2, 3])
def test_batch_isend_irecv_on_npu(n):
    """Receives listed before sends: the engine queues them in order, so the sends must start first."""
    env = dict(simulator_env(), ACLSIM_HCCL_TIMEOUT="20")
    expect_ok(mpiexec("p2p.py", n, "hccl", timeout=120, env=env), n, "p2p ok")
