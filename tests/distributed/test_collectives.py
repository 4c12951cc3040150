import subprocess
import sys
import time

import mindtorch as torch
import mindtorch.distributed as dist
import pytest
from mpi_helpers import WORKERS, expect_ok, mpiexec, requires_mpi

pytestmark = requires_mpi


@pytest.mark.parametrize("n", [2, 3])
def test_every_collective_against_numpy(n):
    expect_ok(mpiexec("collectives.py", n), n, "collectives ok")


@pytest.mark.parametrize("n", [2, 3])
def test_errors_as_pytorch(n):
    expect_ok(mpiexec("errors.py", n), n, "errors ok")


def test_uninitialized_default_group_raises_value_error():
    assert not dist.is_initialized()
    for fn, args in [
        (dist.get_rank, ()),
        (dist.get_world_size, ()),
        (dist.all_reduce, (torch.ones(2),)),
        (dist.barrier, ()),
        (dist.new_group, ([0],)),
    ]:
        with pytest.raises(ValueError, match="Default process group has not been initialized"):
            fn(*args)


def test_init_rejects_unknown_backend():
    with pytest.raises(ValueError, match="Invalid backend"):
        dist.init_process_group("nccl")
    assert not dist.is_initialized()


@pytest.mark.parametrize("how", ["exit", "raise"])
@pytest.mark.parametrize("n", [2, 3])
def test_dying_process_fails_the_others_quickly(n, how):
    """A rank that exits or raises mid-training ends the job with a non-zero status, no hang."""
    t0 = time.monotonic()
    cmd = [sys.executable, "-m", "mindtorch.distributed.run", "--nproc-per-node", str(n), str(WORKERS / "dies.py"), how]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=90)
    assert proc.returncode != 0
    assert time.monotonic() - t0 < 60
    assert "not reached" not in proc.stdout
    if how == "raise":
        assert "worker failure on purpose" in proc.stderr


def test_dying_process_under_plain_mpiexec():
    t0 = time.monotonic()
    proc = mpiexec("dies.py", 2, "exit", timeout=90)
    assert proc.returncode != 0 and "not reached" not in proc.stdout
    assert time.monotonic() - t0 < 60


def test_peer_that_never_joins_times_out():
    t0 = time.monotonic()
    cmd = [sys.executable, "-m", "mindtorch.distributed.run", "--nproc-per-node", "2", str(WORKERS / "hangs.py")]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=90)
    assert proc.returncode != 0
    assert "did not complete within 3 s" in proc.stderr
    assert time.monotonic() - t0 < 30


@pytest.mark.parametrize("n", [2, 3])
def test_batch_isend_irecv(n):
    expect_ok(mpiexec("p2p.py", n), n, "p2p ok")
