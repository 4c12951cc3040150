"""Compile the host-path accelerators (every *.c in this folder) into extension modules.

    python -m mindtorch_npu.native.build [OUTDIR]      (default: next to this file)

`launch.c` becomes mindtorch_npu.native._launch, `alloc.c` mindtorch_npu.native._alloc, and so on. The wheel
build runs this through mindtorch-npu's hatch hook; a source checkout installed in editable mode gets the
modules beside the source. Without a C compiler or Python's headers nothing is built and the backend runs
the Python versions, which stay the reference. The compiler is $CC or ``cc``.
"""

import os
import shlex
import subprocess
import sys
import sysconfig
from pathlib import Path

HERE = Path(__file__).resolve().parent
FLAGS = ["-O2", "-fPIC", "-shared", "-std=gnu11", "-fvisibility=hidden", "-Wall", "-Wextra", "-Wno-unused-parameter"]


def sources():
    return sorted(HERE.glob("*.c"))


def module_name(source):
    """The extension file for `source` under this interpreter (launch.c -> _launch.cpython-311-x86_64-linux-gnu.so)."""
    return "_" + Path(source).stem + (sysconfig.get_config_var("EXT_SUFFIX") or ".so")


def command(src, dest, flags=FLAGS):
    """The compiler call that builds extension file `dest` from C source `src`."""
    include = sysconfig.get_paths().get("include")
    return [*shlex.split(os.environ.get("CC") or "cc"), *flags, f"-I{include}", "-o", str(dest), str(src)]


def build(outdir=HERE, quiet=False):
    """Build every module into outdir; returns the paths built (empty when they cannot be built)."""
    include = sysconfig.get_paths().get("include")
    if not include or not (Path(include) / "Python.h").is_file():
        print("mindtorch-npu: host accelerators not built (no Python.h); Python versions will run", file=sys.stderr)
        return []
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    built = []
    for src in sources():
        name = module_name(src)
        # built under a temporary name and renamed: a process that has the old module mapped keeps it
        tmp = out / f".{name}.{os.getpid()}.tmp"
        cmd = command(src, tmp)
        try:
            subprocess.run(cmd, check=True, capture_output=quiet)
        except (OSError, subprocess.CalledProcessError) as e:
            print(
                f"mindtorch-npu: {src.name} not built ({' '.join(cmd)}: {e}); its Python version will run",
                file=sys.stderr,
            )
            tmp.unlink(missing_ok=True)
            continue
        os.replace(tmp, out / name)
        built.append(out / name)
    return built


if __name__ == "__main__":
    for p in build(sys.argv[1] if len(sys.argv) > 1 else HERE):
        print(p)
