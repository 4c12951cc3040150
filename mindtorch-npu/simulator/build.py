"""Build the ACL simulator: libascendcl.so, libnnopbase.so, libopapi.so and libhccl.so into one directory.

    python mindtorch-npu/simulator/build.py OUTDIR

Importable too: ``build(outdir) -> Path``. Rebuilds only when the sources, the compiler or the flags
changed (a hash stamp in OUTDIR). The compiler is $CC or ``cc``.
"""

import hashlib
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
FLAGS = ["-O2", "-fPIC", "-pthread", "-shared", "-std=gnu11", "-Wall", "-Wextra", "-fvisibility=hidden"]
# libopapi's sources: the operator families of ops/ around their shared core (ops/ops_internal.h)
OPS_SOURCES = sorted(f"ops/{p.name}" for p in (HERE / "ops").glob("*.c"))
# library -> (sources, sibling libraries it links against)
LIBS = {
    "libascendcl.so": (["runtime.c"], []),
    "libnnopbase.so": (["nnopbase.c"], ["ascendcl"]),
    "libopapi.so": (OPS_SOURCES, ["nnopbase", "ascendcl"]),
    "libhccl.so": (["hccl.c"], ["ascendcl"]),
}
STAMP = ".aclsim-build-stamp"


def _compiler():
    return shlex.split(os.environ.get("CC") or "cc")


def source_digest():
    """Hash of the sources, compiler and flags: a build directory named after it is never stale."""
    return _digest(_compiler())


def _digest(cc):
    h = hashlib.sha256()
    h.update(repr((cc, FLAGS, LIBS)).encode())
    for src in sorted(HERE.rglob("*.[ch]")):
        h.update(src.relative_to(HERE).as_posix().encode())
        h.update(src.read_bytes())
    return h.hexdigest()


def build(outdir, *, force=False, quiet=True):
    """Compile the three libraries into ``outdir`` (created if needed) unless they are up to date."""
    out = Path(outdir).resolve()
    out.mkdir(parents=True, exist_ok=True)
    cc = _compiler()
    digest = _digest(cc)
    stamp = out / STAMP
    if not force and stamp.exists() and stamp.read_text() == digest and all((out / n).exists() for n in LIBS):
        return out
    for name, (sources, deps) in LIBS.items():  # dependency order: ascendcl first
        # build under a temporary name and rename, so a process that has the old library loaded is unaffected
        fd, tmp = tempfile.mkstemp(prefix=name + ".", dir=out)
        os.close(fd)
        cmd = [
            *cc,
            *FLAGS,
            "-o",
            tmp,
            *(str(HERE / s) for s in sources),
            f"-L{out}",
            *(f"-l{d}" for d in deps),
            "-Wl,-rpath,$ORIGIN",
            "-lm",
        ]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True)
        except OSError as exc:  # no compiler at all
            os.unlink(tmp)
            raise RuntimeError(f"building the ACL simulator needs a C compiler ($CC or `cc`): {exc}") from exc
        if proc.returncode != 0 or (proc.stderr.strip() and not quiet):
            sys.stderr.write(proc.stderr)
        if proc.returncode != 0:
            os.unlink(tmp)
            raise RuntimeError(f"building the ACL simulator failed: {' '.join(cmd)}\n{proc.stderr}")
        os.replace(tmp, out / name)
    stamp.write_text(digest)
    return out


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    out = build(argv[0], force=True, quiet=False)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
