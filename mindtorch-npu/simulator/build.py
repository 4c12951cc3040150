"""Build the ACL simulator: libascendcl.so, libnnopbase.so, libopapi.so and libhccl.so into one directory.

    python mindtorch-npu/simulator/build.py [--split-opapi] OUTDIR

Importable too: ``build(outdir, split_opapi=False) -> Path``. Rebuilds only when the sources, the compiler,
the flags or the layout changed (a hash stamp in OUTDIR). The compiler is $CC or ``cc``.

``--split-opapi`` lays the operators out as newer CANN packages do: no libopapi.so, but one library per
operator family (``libopapi_math.so``, ``libopapi_nn.so``), each exporting only its family's entry points.
"""

import fnmatch
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
# the split layout: the nn family's entry points (by name pattern) go to libopapi_nn.so, the rest to
# libopapi_math.so; both are built from the same sources and export only their own
NN_FAMILY = (
    "Convolution*",
    "MaxPool*",
    "AvgPool*",
    "AdaptiveAvgPool*",
    "BatchNorm*",
    "GroupNorm*",
    "LayerNorm*",
    "NLLLoss*",
    "Embedding*",
    "Softmax*",
    "LogSoftmax*",
    "Gelu*",
    "Silu*",
    "Relu*",
    "LeakyRelu*",
    "InplaceLeakyRelu*",
    "Softplus*",
    "Mish*",
    "Elu*",
    "InplaceElu*",
    "Hardtanh*",
    "InplaceHardtanh*",
)
SPLIT_OPAPI = {"libopapi_math.so": False, "libopapi_nn.so": True}  # library -> holds the nn family


def _version_script(out, name, nn, names):
    """A linker version script exporting, of the aclnn entry points `names`, the nn family's or the rest."""
    mine = sorted(n for n in names if any(fnmatch.fnmatchcase(n, f"aclnn{p}") for p in NN_FAMILY) == nn)
    path = out / f".{name}.map"
    path.write_text("{ global: " + " ".join(f"{n};" for n in mine) + " local: *; };\n")
    return path


def _entry_points(library):
    """The aclnn functions a built library exports (nm -D)."""
    proc = subprocess.run(["nm", "-D", "--defined-only", str(library)], capture_output=True, text=True, check=True)
    return {line.split()[-1] for line in proc.stdout.splitlines() if line.split()[-1].startswith("aclnn")}


def _compiler():
    return shlex.split(os.environ.get("CC") or "cc")


def source_digest(split_opapi=False):
    """Hash of the sources, compiler, flags and layout: a build directory named after it is never stale."""
    return _digest(_compiler(), split_opapi)


def _libraries(split_opapi):
    """library -> (sources, sibling libraries, nn family or None when it exports everything)"""
    libs = {name: (src, deps, None) for name, (src, deps) in LIBS.items()}
    if split_opapi:
        src, deps, _ = libs.pop("libopapi.so")
        hccl = libs.pop("libhccl.so")
        libs.update({name: (src, deps, nn) for name, nn in SPLIT_OPAPI.items()})
        libs["libhccl.so"] = hccl
    return libs


def _digest(cc, split_opapi=False):
    h = hashlib.sha256()
    h.update(repr((cc, FLAGS, LIBS, split_opapi, NN_FAMILY if split_opapi else None)).encode())
    for src in sorted(HERE.rglob("*.[ch]")):
        h.update(src.relative_to(HERE).as_posix().encode())
        h.update(src.read_bytes())
    return h.hexdigest()


def build(outdir, *, force=False, quiet=True, split_opapi=False):
    """Compile the libraries into ``outdir`` (created if needed) unless they are up to date."""
    out = Path(outdir).resolve()
    out.mkdir(parents=True, exist_ok=True)
    cc = _compiler()
    digest = _digest(cc, split_opapi)
    libs = _libraries(split_opapi)
    stamp = out / STAMP
    if not force and stamp.exists() and stamp.read_text() == digest and all((out / n).exists() for n in libs):
        return out
    names = None
    for name, (sources, deps, nn) in libs.items():  # dependency order: ascendcl first
        exports = []
        if nn is not None:
            if names is None:  # the whole operator library once, to list its entry points
                _link(cc, out, "libopapi.so", sources, deps, [], quiet)
                names = _entry_points(out / "libopapi.so")
                os.unlink(out / "libopapi.so")
            exports = [f"-Wl,--version-script={_version_script(out, name, nn, names)}"]
        _link(cc, out, name, sources, deps, exports, quiet)
    stamp.write_text(digest)
    return out


def _link(cc, out, name, sources, deps, exports, quiet):
    """Compile `sources` into out/name, linked against the sibling libraries `deps`."""
    # build under a temporary name and rename, so a process that has the old library loaded is unaffected
    fd, tmp = tempfile.mkstemp(prefix=name + ".", dir=out)
    os.close(fd)
    cmd = [
        *cc,
        *FLAGS,
        "-o",
        tmp,
        *(str(HERE / s) for s in sources),
        *exports,
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


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    split = "--split-opapi" in argv
    argv = [a for a in argv if a != "--split-opapi"]
    if len(argv) != 1:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    out = build(argv[0], force=True, quiet=False, split_opapi=split)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
