"""Compile the optional accelerator (_accel.c) into the extension module mindtorch._accel.

    python -m mindtorch._accel_build [OUTDIR]      (default: next to this file, for a source checkout)

mindtorch-core's wheel build runs this through its hatch hook. Without a C compiler or Python's
headers nothing is built and mindtorch runs the Python versions of the same functions. The
compiler is $CC or ``cc``.
"""

import os
import shlex
import subprocess
import sys
import sysconfig
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "_accel.c"
FLAGS = ["-O2", "-fPIC", "-shared", "-std=gnu11", "-fvisibility=hidden", "-Wall", "-Wextra", "-Wno-unused-parameter"]


def target_name():
    """The extension's file name for this interpreter (e.g. _accel.cpython-311-x86_64-linux-gnu.so)."""
    return "_accel" + (sysconfig.get_config_var("EXT_SUFFIX") or ".so")


def build(outdir=HERE, quiet=False):
    """Build the extension into outdir; returns the paths built (empty when it cannot be built)."""
    include = sysconfig.get_paths().get("include")
    if not include or not (Path(include) / "Python.h").is_file():
        print("mindtorch: accelerator not built (no Python.h); the Python versions will be used", file=sys.stderr)
        return []
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    name = target_name()
    # built under a temporary name and renamed: a process that has the old module mapped keeps it
    tmp = out / f".{name}.{os.getpid()}.tmp"
    cmd = [*shlex.split(os.environ.get("CC") or "cc"), *FLAGS, f"-I{include}", "-o", str(tmp), str(SOURCE)]
    try:
        subprocess.run(cmd, check=True, capture_output=quiet)
    except (OSError, subprocess.CalledProcessError) as e:
        print(
            f"mindtorch: accelerator not built ({' '.join(cmd)}: {e}); the Python versions will be used",
            file=sys.stderr,
        )
        tmp.unlink(missing_ok=True)
        return []
    os.replace(tmp, out / name)
    return [out / name]


if __name__ == "__main__":
    for p in build(sys.argv[1] if len(sys.argv) > 1 else HERE):
        print(p)
