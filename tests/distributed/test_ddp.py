import subprocess
import sys

import pytest
from mpi_helpers import WORKERS, expect_ok, mpiexec, requires_mpi

pytestmark = requires_mpi


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("model", ["mlp", "gpt"])
def test_ddp_equals_single_process_on_the_concatenated_batch(model, n):
    """20 steps of SGD with momentum, parameters compared after every step; then no_sync accumulation."""
    expect_ok(mpiexec("ddp.py", n, model), n, f"ddp {model} cpu ok")


@pytest.mark.parametrize("n", [2, 3])
def test_ddp_unused_parameters_state_dict_and_sampler(n):
    expect_ok(mpiexec("ddp_unused.py", n), n, "ddp unused ok")


@pytest.mark.parametrize("n", [2, 3])
def test_launcher_sets_the_torchrun_environment(n):
    cmd = [
        sys.executable,
        "-m",
        "mindtorch.distributed.run",
        "--nproc-per-node",
        str(n),
        str(WORKERS / "launched.py"),
        "--lr",
        "0.5",
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    expect_ok(proc, n, "launched ok")


def test_ddp_needs_an_initialized_group():
    import mindtorch as torch
    from mindtorch.nn.parallel import DistributedDataParallel

    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        DistributedDataParallel(torch.nn.Linear(2, 2))
