"""Compile the fused kernels (kernels.c) into shared libraries loaded by ctypes.

    python -m mindtorch_cpu.native.build [OUTDIR]      (default: next to this file)

The wheel build runs this through mindtorch-cpu's hatch hook; a source checkout installed in
editable mode gets the libraries beside the source. x86_64 gets three builds, a baseline one and
ones for x86-64-v3 (AVX2 + FMA) and x86-64-v4 (AVX-512), picked at load time by the CPU's
features. Without a compiler nothing is built and the backend runs its NumPy kernels. The compiler is $CC or ``cc``.
"""

import os
import platform
import shlex
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "kernels.c"
# -fno-trapping-math / -fno-math-errno only let comparisons and selects vectorise; results are
# unchanged (no -ffast-math: NaN and infinity behave as IEEE says)
FLAGS = [
    "-O3",
    "-fPIC",
    "-shared",
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


def build(outdir=HERE, quiet=False):
    """Build every variant into outdir; returns the paths built (empty when there is no compiler)."""
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    cc = shlex.split(os.environ.get("CC") or "cc")
    built = []
    for name, extra in variants():
        # built under a temporary name and renamed: a process that has the old library mapped keeps it
        tmp = out / f".{name}.{os.getpid()}.tmp"
        cmd = [*cc, *FLAGS, *extra, "-o", str(tmp), str(SOURCE), "-lm"]
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
