"""The "gloo" backend (mindtorch's socket engine) and the torchrun-like launcher: workers started as
plain processes meet through a store (env://, tcp://, file://, store=) and run the same checks as the
mpi engine; the launcher sets torchrun's environment, ends the workers when one fails and forwards its
status; a script written for PyTorch runs unchanged under `mindtorch.run -m torch.distributed.run`."""

import os
import shutil
import socket
import subprocess
import sys
import time
from datetime import timedelta

import mindtorch as torch
import mindtorch.distributed as dist
import numpy as np
import pytest
from mpi_helpers import WORKERS, expect_ok

LAUNCH = [sys.executable, "-m", "mindtorch.distributed.run"]
_TORCHRUN_VARS = ("RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")


def _env():
    """This process's environment without a launcher's variables (the tests may run under one)."""
    return {k: v for k, v in os.environ.items() if k not in _TORCHRUN_VARS and not k.startswith("TORCHELASTIC")}


def launch(script, n, *args, flags=(), timeout=90):
    cmd = [*LAUNCH, "--no-mpiexec", "--nproc-per-node", str(n), *flags, str(WORKERS / script), *map(str, args)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=_env())


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_every_collective_on_the_socket_engine():
    expect_ok(launch("collectives.py", 3, "gloo"), 3, "collectives ok")


@pytest.mark.parametrize("script, marker", [("errors.py", "errors ok"), ("p2p.py", "p2p ok")])
def test_errors_and_point_to_point_on_the_socket_engine(script, marker):
    expect_ok(launch(script, 2, "gloo"), 2, marker)


def test_stores_object_collectives_subgroups_meshes():
    expect_ok(launch("gloo_api.py", 2), 2, "gloo api ok")


def test_two_nodes_meet_at_the_master():
    """--nnodes 2: one launcher per node (both on this host), global ranks node_rank * nproc + local."""
    port = _free_port()
    flags = ["--no-mpiexec", "--nnodes", "2", "--nproc-per-node", "1", "--master-port", str(port)]
    script = [str(WORKERS / "collectives.py"), "gloo"]
    nodes = [
        subprocess.Popen(
            [*LAUNCH, *flags, "--node-rank", str(r), *script],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=_env(),
        )
        for r in range(2)
    ]
    outs = [p.communicate(timeout=90) for p in nodes]
    for r, (p, (out, err)) in enumerate(zip(nodes, outs)):
        assert p.returncode == 0, out + err
        assert f"collectives ok rank {r} of 2" in out, out + err


@pytest.mark.parametrize("how", ["tcp", "file", "store"])
def test_explicit_rendezvous(how, tmp_path):
    where = str(tmp_path / "store") if how == "file" else f"127.0.0.1:{_free_port()}"
    procs = [
        subprocess.Popen(
            [sys.executable, str(WORKERS / "init_methods.py"), how, where, str(r), "2"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=_env(),
        )
        for r in range(2)
    ]
    for r, p in enumerate(procs):
        out, err = p.communicate(timeout=60)
        assert p.returncode == 0, out + err
        assert f"{how} ok rank {r} of 2" in out


def test_a_failing_worker_ends_the_job_with_its_status():
    t0 = time.monotonic()
    proc = launch("gloo_fails.py", 2, "exit")
    assert proc.returncode == 7, proc.stdout + proc.stderr
    assert "not reached" not in proc.stdout
    assert time.monotonic() - t0 < 45


def test_a_peer_that_leaves_fails_the_waiting_rank():
    """Without a launcher to end it, the rank waiting for a peer that exited raises DistBackendError."""
    t0 = time.monotonic()
    port = _free_port()
    procs = [
        subprocess.Popen(
            [sys.executable, str(WORKERS / "gloo_fails.py"), "exit"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=dict(_env(), RANK=str(r), WORLD_SIZE="2", MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port)),
        )
        for r in range(2)
    ]
    (out0, err0), (_, _) = (p.communicate(timeout=60) for p in procs)
    assert procs[1].returncode == 7 and procs[0].returncode != 0
    assert "DistBackendError" in err0 and "rank 1 exited while the others waited" in err0, err0
    assert "not reached" not in out0
    assert time.monotonic() - t0 < 45


def test_the_launcher_ends_the_workers_still_running():
    t0 = time.monotonic()
    proc = launch("gloo_fails.py", 2, "hang")
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "not reached" not in proc.stdout
    assert time.monotonic() - t0 < 45  # the sleeping rank was ended, not waited for


def test_max_restarts_restarts_the_workers():
    assert launch("gloo_fails.py", 2, "once").returncode == 5
    expect_ok(launch("gloo_fails.py", 2, "once", flags=["--max-restarts", "1"]), 2, "restarted ok")


def _params(out):
    line = next(ln for ln in out.splitlines() if ln.startswith("params "))
    return np.array([float(v) for v in line.split()[1:]])


RUNNER = [sys.executable, "-m", "mindtorch.run"]
DDP_SCRIPT = str(WORKERS / "torchrun_ddp.py")


@pytest.fixture(scope="module")
def one_process_params():
    one = subprocess.run([*RUNNER, DDP_SCRIPT, "8"], capture_output=True, text=True, timeout=120, env=_env())
    assert one.returncode == 0, one.stdout + one.stderr
    return _params(one.stdout)


@pytest.mark.parametrize("start", ["mpiexec", "processes"])
def test_a_pytorch_ddp_script_runs_unchanged_and_matches_one_process(start, one_process_params):
    """DDP + DistributedSampler + gloo/env:// on 2 workers train the parameters one process trains on
    the whole batch."""
    if start == "mpiexec" and shutil.which("mpiexec") is None:
        pytest.skip("needs mpiexec")
    flags = ["--no-mpiexec"] if start == "processes" else []
    two = subprocess.run(
        [*RUNNER, "-m", "torch.distributed.run", *flags, "--nproc-per-node", "2", DDP_SCRIPT, "8"],
        capture_output=True,
        text=True,
        timeout=120,
        env=_env(),
    )
    assert two.returncode == 0, two.stdout + two.stderr
    np.testing.assert_allclose(_params(two.stdout), one_process_params, rtol=1e-5, atol=1e-6)


def test_the_console_script_is_the_launcher():
    exe = os.path.join(os.path.dirname(sys.executable), "mindtorchrun")
    if not os.path.exists(exe):
        pytest.skip("mindtorchrun is not installed next to this interpreter")
    proc = subprocess.run([exe, "--help"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "--nproc-per-node" in proc.stdout and "--max-restarts" in proc.stdout


# --------------------------------------------------------------------------- one process


@pytest.fixture
def world_of_one():
    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1, timeout=timedelta(seconds=10))
    yield
    dist.destroy_process_group()


def test_a_world_of_one_through_a_store(world_of_one):
    assert (dist.get_rank(), dist.get_world_size(), dist.get_backend()) == (0, 1, "gloo")
    t = torch.arange(4.0)
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0]
    objs = [None]
    dist.all_gather_object(objs, {"k": 1})
    assert objs == [{"k": 1}]
    lst = [1, "a"]
    dist.broadcast_object_list(lst)
    assert lst == [1, "a"]
    out = [torch.zeros(2)]
    dist.all_to_all(out, [torch.ones(2)])
    assert out[0].tolist() == [1.0, 1.0]
    assert dist.get_pg_count() == 1
    mesh = dist.init_device_mesh("cpu", (1,), mesh_dim_names=("dp",))
    assert mesh.get_group("dp") is dist.group.WORLD and mesh["dp"].get_local_rank() == 0
    with pytest.raises(RuntimeError, match="mesh_shape"):
        dist.init_device_mesh("cpu", (1,), mesh_dim_names=("a", "b"))
    dist.breakpoint(rank=1)  # another rank's breakpoint: this one only waits in the barrier
    dist.breakpoint(skip=1)  # the first pass through a call site is skipped


def test_collectives_in_the_profiler(world_of_one):
    from mindtorch.profiler import profile

    t = torch.ones(3)
    with profile() as prof:
        dist.all_reduce(t)
        with dist.record_comm("grads (layer 1)"):
            dist.broadcast(t, src=0)
    names = [e.name for e in prof.events()]
    assert "gloo:all_reduce" in names and "grads (layer 1)" in names, names
    assert "gloo:broadcast" not in names


def test_per_device_backend_names():
    """PyTorch's "cpu:gloo,cuda:nccl": the cpu entry serves (mindtorch has no cuda)."""
    dist.init_process_group("cpu:gloo,cuda:nccl", store=dist.HashStore(), rank=0, world_size=1)
    try:
        assert dist.get_backend() == "gloo"
    finally:
        dist.destroy_process_group()
    with pytest.raises(ValueError, match="no backend for device cpu"):
        dist.init_process_group("cuda:nccl", store=dist.HashStore(), rank=0, world_size=1)


def test_env_rendezvous_needs_torchruns_variables(monkeypatch):
    for var in (*_TORCHRUN_VARS, "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(ValueError, match="env:// rendezvous: environment variable RANK expected"):
        dist.init_process_group("gloo")
    monkeypatch.setenv("RANK", "0")
    monkeypatch.setenv("WORLD_SIZE", "1")
    with pytest.raises(ValueError, match="environment variable MASTER_ADDR expected, but not set"):
        dist.init_process_group("gloo", init_method="env://")
    with pytest.raises(AssertionError, match="Cannot specify both init_method and store"):
        dist.init_process_group("gloo", init_method="env://", store=dist.HashStore())
    assert not dist.is_initialized()
