"""Compile the fused kernels (kernels.c) into shared libraries loaded by ctypes.

    python -m mindtorch_cpu.native.build [OUTDIR]      (default: next to this file)

The wheel build runs this through mindtorch-cpu's hatch hook; a source checkout installed in
editable mode gets the libraries beside the source. x86_64 gets three builds, a baseline one and
ones for x86-64-v3 (AVX2 + FMA) and x86-64-v4 (AVX-512), picked at load time by the CPU's
features. Without a compiler nothing is built and the backend runs its NumPy kernels. The compiler is $CC or ``cc``.

Where this interpreter's Python.h is found, each library is entry.c (which includes kernels.c): the
same file is then also an extension module of this Python, a cheaper entry to the same kernels than
ctypes. Without Python.h it is kernels.c alone, loaded through ctypes only.
"""

import os
import platform
import shlex
import subprocess
import sys
import sysconfig
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "kernels.c"
ENTRY = HERE / "entry.c"  # kernels.c plus its CPython entry
# -fno-trapping-math / -fno-math-errno only let comparisons and selects vectorise; results are
# unchanged (no -ffast-math: NaN and infinity behave as IEEE says)
FLAGS = [
    "-O3",
    "-fPIC",
    "-shared",
    "-pthread",  # pool.c: the kernels' own worker threads
    "-std=gnu11",
    "-fvisibility=hidden",
    "-fno-trapping-math",
    "-fno-math-errno",
    "-Wall",
    "-Wextra",
    "-Wno-psabi",
]


def variants():
    """(library file name, extra flags) for this machine's architecture, best first."""
    if platform.machine().lower() in ("x86_64", "amd64"):
        return [
            ("_kernels_x86_64_v4.so", ["-march=x86-64-v4"]),
            ("_kernels_x86_64_v3.so", ["-march=x86-64-v3"]),
            ("_kernels.so", []),
        ]
    return [("_kernels.so", [])]


def python_include():
    """The directory of this interpreter's Python.h, or None (then the libraries carry no extension entry)."""
    include = sysconfig.get_paths().get("include")
    return include if include and (Path(include) / "Python.h").is_file() else None


def _command(cc, name, extra, out, include):
    if include is None:
        return [*cc, *FLAGS, *extra, "-o", str(out), str(SOURCE), "-lm"]
    module = ["-I", include, f"-DMT_MODULE={name.split('.')[0]}"]
    return [*cc, *FLAGS, *extra, *module, "-o", str(out), str(ENTRY), "-lm"]


def build(outdir=HERE, quiet=False):
    """Build every variant into outdir; returns the paths built (empty when there is no compiler)."""
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    cc = shlex.split(os.environ.get("CC") or "cc")
    built = []
    include = python_include()
    for name, extra in variants():
        # built under a temporary name and renamed: a process that has the old library mapped keeps it
        tmp = out / f".{name}.{os.getpid()}.tmp"
        cmd = _command(cc, name, extra, tmp, include)
        try:
            subprocess.run(cmd, check=True, capture_output=quiet)
        except (OSError, subprocess.CalledProcessError) as e:
            print(
                f"mindtorch-cpu: fused kernels not built ({' '.join(cmd)}: {e}); the NumPy kernels will be used",
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
