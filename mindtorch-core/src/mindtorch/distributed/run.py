"""A launcher with torchrun's flags (torch.distributed.run; the console script `mindtorchrun`):

    python -m mindtorch.distributed.run --nproc-per-node N [--nnodes M --node-rank R
        --master-addr HOST --master-port PORT] script.py [args...]

starts N workers of the script on this node with torchrun's environment (RANK, LOCAL_RANK,
WORLD_SIZE, LOCAL_WORLD_SIZE, GROUP_RANK, MASTER_ADDR, MASTER_PORT, TORCHELASTIC_RUN_ID, ...). A
worker that fails ends the others and the launcher exits with its status (after --max-restarts
restarts of the whole set, as torchrun).

On one node, where an MPI launcher is installed, the workers are started by mpiexec, so both the mpi
backend and env:// rendezvous ("gloo") work in them; an uncaught exception in one ends the job
(MPI_Abort). Across nodes, or with --no-mpiexec, the workers are plain processes this launcher
watches: the "gloo" backend (sockets) serves them. Under `python -m mindtorch.run -m
torch.distributed.run`, the workers run with `torch` meaning mindtorch too.
"""

import argparse
import os
import runpy
import shutil
import signal
import socket
import subprocess
import sys
import time
import traceback
import uuid

# rank variables of the MPI launchers (Open MPI, then MPICH / Intel MPI's PMI)
_RANK_VARS = {
    "RANK": ("OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"),
    "WORLD_SIZE": ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE"),
    "LOCAL_RANK": ("OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID"),
    "LOCAL_WORLD_SIZE": ("OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"),
}
_GRACE = 5.0  # seconds the other workers get to end after a failure, before they are killed


def mpiexec_command(n, extra=()):
    """The mpiexec prefix for n local processes. Open MPI needs --allow-run-as-root as root and
    --oversubscribe for more processes than cores (containers); other MPIs take neither."""
    exe = shutil.which("mpiexec") or shutil.which("mpirun")
    if exe is None:
        raise RuntimeError("mpiexec not found: install an MPI (for instance apt-get install openmpi-bin)")
    cmd = [exe, "-n", str(n)]
    if _is_open_mpi(exe):
        cmd += ["--oversubscribe"]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            cmd += ["--allow-run-as-root"]
    return cmd + list(extra)


def _is_open_mpi(exe):
    try:
        out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return False
    return "Open MPI" in out or "OpenRTE" in out


def set_rank_env():
    """A worker started by an MPI launcher takes its ranks from the launcher's variables."""
    for var, sources in _RANK_VARS.items():
        for src in sources:
            if src in os.environ:
                os.environ.setdefault(var, os.environ[src])
                break
    os.environ.setdefault("LOCAL_RANK", os.environ.get("RANK", "0"))
    os.environ.setdefault("ROLE_RANK", os.environ.get("RANK", "0"))


def _worker(argv):
    set_rank_env()
    if argv and argv[0] == "-m":
        target, run = argv[1], runpy.run_module
        sys.argv = [target] + argv[2:]
    else:
        target, run = argv[0], runpy.run_path
        sys.argv = list(argv)
    try:
        run(target, run_name="__main__")
    except SystemExit as e:
        if e.code not in (None, 0):
            _abort(e.code if isinstance(e.code, int) else 1)
        raise
    except BaseException:
        traceback.print_exc()
        sys.stderr.flush()
        _abort(1)


def _abort(code):
    """End every process of the job: a peer blocked in a collective would otherwise wait forever."""
    sys.stdout.flush()
    sys.stderr.flush()
    if "mpi4py.MPI" in sys.modules or os.environ.get("RANK") is not None:
        try:
            from mpi4py import MPI

            MPI.COMM_WORLD.Abort(code)
        except ImportError:
            pass
    os._exit(code)


# --------------------------------------------------------------------------- arguments


def _parser():
    p = argparse.ArgumentParser(
        prog="python -m mindtorch.distributed.run",
        description="start the workers of a training script with torchrun's environment",
    )
    add = p.add_argument
    add("--nnodes", default="1", help="number of nodes, or MIN:MAX with MIN == MAX")
    add("--nproc-per-node", "--nproc_per_node", default="1", help="workers per node: a number, auto or cpu")
    add("--node-rank", "--node_rank", type=int, default=0)
    add("--master-addr", "--master_addr", default="127.0.0.1")
    add("--master-port", "--master_port", type=int, default=None)
    add("--rdzv-backend", "--rdzv_backend", default="static", help="static or c10d (the master serves the store)")
    add("--rdzv-endpoint", "--rdzv_endpoint", default="", help="HOST:PORT of the store (instead of --master-*)")
    add("--rdzv-id", "--rdzv_id", default=None, help="the job id (TORCHELASTIC_RUN_ID)")
    add("--rdzv-conf", "--rdzv_conf", default="", help="accepted; the static rendezvous takes no options")
    add("--standalone", action="store_true", help="one node, a free local port for the store")
    add("--max-restarts", "--max_restarts", type=int, default=0)
    add("--monitor-interval", "--monitor_interval", type=float, default=0.1)
    add("--role", default="default")
    add("--start-method", "--start_method", default="spawn", choices=["spawn", "fork", "forkserver"])
    add("--local-addr", "--local_addr", default=None)
    add("--no-python", "--no_python", action="store_true", help="run the script as an executable")
    add("--run-path", "--run_path", action="store_true", help="accepted: scripts run by path already")
    add("--no-mpiexec", action="store_true", help="start plain processes even where mpiexec is installed")
    add("--mpiexec-args", default="", help="extra arguments for mpiexec, as one string")
    add("-m", "--module", action="store_true", help="run the target as a module (python -m)")
    add("script")
    add("args", nargs=argparse.REMAINDER)
    return p


def _count(text, what, p):
    if text in ("auto", "cpu"):
        return os.cpu_count() or 1
    lo, _, hi = str(text).partition(":")
    try:
        lo, hi = int(lo), int(hi or lo)
    except ValueError:
        p.error(f"--{what} takes a number, got {text!r}")
    if lo != hi:
        p.error(f"--{what} {text}: elastic ranges are not supported; give a fixed number")
    if lo < 1:
        p.error(f"--{what} must be at least 1")
    return lo


def _free_port():
    with socket.socket() as s:
        s.bind(("", 0))
        return s.getsockname()[1]


class _Job:
    """The launch of this node's workers: their shared environment and command."""

    def __init__(self, a, p):
        self.nnodes = 1 if a.standalone else _count(a.nnodes, "nnodes", p)
        self.nproc = _count(a.nproc_per_node, "nproc-per-node", p)
        if not 0 <= a.node_rank < self.nnodes:
            p.error(f"--node-rank {a.node_rank} is not in [0, {self.nnodes})")
        addr, port = a.master_addr, a.master_port
        if a.rdzv_endpoint and not a.standalone:
            addr, _, port_text = a.rdzv_endpoint.rpartition(":")
            addr, port = (addr or a.rdzv_endpoint), int(port_text) if port_text.isdigit() else port
        if a.standalone:
            addr, port = "127.0.0.1", _free_port()
        if port is None:
            if self.nnodes > 1:
                p.error("--master-port (or --rdzv-endpoint HOST:PORT) is needed across nodes")
            port = 29500 if not _port_taken(29500) else _free_port()
        self.a, self.node_rank, self.world = a, a.node_rank, self.nnodes * self.nproc
        self.env = {
            "MASTER_ADDR": addr,
            "MASTER_PORT": str(port),
            "WORLD_SIZE": str(self.world),
            "LOCAL_WORLD_SIZE": str(self.nproc),
            "GROUP_RANK": str(a.node_rank),
            "GROUP_WORLD_SIZE": str(self.nnodes),
            "ROLE_NAME": a.role,
            "ROLE_WORLD_SIZE": str(self.world),
            "TORCHELASTIC_RUN_ID": a.rdzv_id or ("none" if not a.standalone else uuid.uuid4().hex),
            "TORCHELASTIC_MAX_RESTARTS": str(a.max_restarts),
            "TORCHELASTIC_USE_AGENT_STORE": "False",
        }
        if self.nproc > 1 and "OMP_NUM_THREADS" not in os.environ:
            self.env["OMP_NUM_THREADS"] = "1"  # as torchrun: the workers share the node's cores
        self.use_mpiexec = self.nnodes == 1 and not a.no_mpiexec and bool(shutil.which("mpiexec"))

    def target(self):
        """The worker's command after the interpreter: the script or module and its arguments."""
        a = self.a
        return (["-m", a.script] if a.module else [a.script]) + list(a.args)

    def python(self):
        """The interpreter, through mindtorch.run when `torch` means mindtorch in this launcher."""
        aliased = getattr(sys.modules.get("torch"), "__name__", "") == "mindtorch"
        return [sys.executable] + (["-m", "mindtorch.run"] if aliased else [])

    def rank_env(self, local_rank):
        rank = self.node_rank * self.nproc + local_rank
        return {"LOCAL_RANK": str(local_rank), "RANK": str(rank), "ROLE_RANK": str(rank)}


def _port_taken(port):
    with socket.socket() as s:
        try:
            s.bind(("", port))
        except OSError:
            return True
    return False


# --------------------------------------------------------------------------- running the workers


def _run_mpiexec(job, restart):
    """This node's workers under mpiexec (one node): their status, mpiexec's."""
    a = job.a
    if a.no_python:
        inner = [a.script, *a.args]
    else:
        inner = [*job.python(), "-m", "mindtorch.distributed.run", "--worker", *job.target()]
    cmd = mpiexec_command(job.nproc, a.mpiexec_args.split()) + inner
    env = dict(os.environ, **job.env, TORCHELASTIC_RESTART_COUNT=str(restart))
    for var in ("RANK", "LOCAL_RANK", "ROLE_RANK"):
        env.pop(var, None)  # each worker takes its own from the MPI launcher
    return _watch([subprocess.Popen(cmd, env=env)], a.monitor_interval)


def _run_plain(job, restart):
    """This node's workers as plain processes: the first failure's status (the others ended), or 0."""
    a = job.a
    cmd = [a.script, *a.args] if a.no_python else [*job.python(), *job.target()]
    procs = []
    for local in range(job.nproc):
        env = dict(os.environ, **job.env, **job.rank_env(local), TORCHELASTIC_RESTART_COUNT=str(restart))
        procs.append(subprocess.Popen(cmd, env=env))
    return _watch(procs, a.monitor_interval)


def _watch(procs, interval):
    """Wait for every process; on the first failure end the others (SIGTERM, then SIGKILL after a grace
    period) and return its status. A signal to the launcher ends the workers the same way."""

    def forward(signum, frame):
        _end(procs)
        sys.exit(128 + signum)

    previous = {s: signal.signal(s, forward) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        while True:
            codes = [p.poll() for p in procs]
            failed = [c for c in codes if c not in (None, 0)]
            if failed:
                _end(procs)
                return _status(failed[0])
            if all(c == 0 for c in codes):
                return 0
            time.sleep(interval)
    finally:
        for s, h in previous.items():
            signal.signal(s, h)


def _status(code):
    """A worker's exit status as a shell reports it (128 + N for a worker ended by signal N)."""
    return code if code >= 0 else 128 - code


def _end(procs):
    for p in procs:
        if p.poll() is None:
            p.terminate()
    deadline = time.monotonic() + _GRACE
    for p in procs:
        try:
            p.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--worker"]:
        return _worker(argv[1:])
    p = _parser()
    a = p.parse_args(argv)
    job = _Job(a, p)
    run = _run_mpiexec if job.use_mpiexec else _run_plain
    sys.stdout.flush()
    for restart in range(a.max_restarts + 1):
        code = run(job, restart)
        if code == 0:
            break
        if restart < a.max_restarts:
            print(
                f"[mindtorch.distributed.run] a worker failed (status {code}); restarting the workers", file=sys.stderr
            )
    sys.exit(code)


if __name__ == "__main__":
    main()
