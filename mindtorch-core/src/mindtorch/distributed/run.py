"""A torchrun-like launcher on the MPI engine's own launcher:

    python -m mindtorch.distributed.run --nproc-per-node N script.py [args...]

starts N processes with mpiexec; each sets RANK, WORLD_SIZE, LOCAL_RANK (and LOCAL_WORLD_SIZE)
from the MPI launcher's environment and runs the script as __main__. An uncaught exception in
one process aborts the whole job (MPI_Abort), so the others fail instead of waiting for it.
"""

import argparse
import os
import runpy
import shutil
import sys
import traceback

# rank variables of the MPI launchers (Open MPI, then MPICH / Intel MPI's PMI)
_RANK_VARS = {
    "RANK": ("OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"),
    "WORLD_SIZE": ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE"),
    "LOCAL_RANK": ("OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID"),
    "LOCAL_WORLD_SIZE": ("OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"),
}


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
    import subprocess

    try:
        out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return False
    return "Open MPI" in out or "OpenRTE" in out


def set_rank_env():
    for var, sources in _RANK_VARS.items():
        for src in sources:
            if src in os.environ:
                os.environ.setdefault(var, os.environ[src])
                break
    os.environ.setdefault("LOCAL_RANK", os.environ.get("RANK", "0"))


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


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--worker"]:
        return _worker(argv[1:])
    p = argparse.ArgumentParser(
        prog="python -m mindtorch.distributed.run", description="start N processes of a training script through mpiexec"
    )
    p.add_argument("--nproc-per-node", "--nproc_per_node", type=int, default=1)
    p.add_argument("--mpiexec-args", default="", help="extra arguments for mpiexec, as one string")
    p.add_argument("-m", "--module", action="store_true", help="run the target as a module (python -m)")
    p.add_argument("script")
    p.add_argument("args", nargs=argparse.REMAINDER)
    a = p.parse_args(argv)
    if a.nproc_per_node < 1:
        p.error("--nproc-per-node must be at least 1")
    target = ["-m", a.script] if a.module else [a.script]
    cmd = mpiexec_command(a.nproc_per_node, a.mpiexec_args.split()) + [
        sys.executable,
        "-m",
        "mindtorch.distributed.run",
        "--worker",
        *target,
        *a.args,
    ]
    sys.stdout.flush()
    os.execv(cmd[0], cmd)


if __name__ == "__main__":
    main()
