"""Build the ACL simulator: libascendcl.so, libnnopbase.so, libopapi.so and libhccl.so into one directory.

    python mindtorch-npu/simulator/build.py [--split-opapi] OUTDIR

Importable too: ``build(outdir, split_opapi=False) -> Path``. Rebuilds only when the sources, the compiler,
the flags or the layout changed (a hash stamp in OUTDIR). The compiler is $CC or ``cc``.

``--split-opapi`` lays the operators out as newer CANN packages do: no libopapi.so, but one library per
operator family (``libopapi_math.so``, ``libopapi_nn.so``), each exporting only its family's entry points.
"""

import fcntl
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
    "RmsNorm*",
    "SwiGlu*",
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


# the operator table the backend reads too (tools/npu_optable.py makes it from CANN's operator docs)
OPTABLE = HERE.parent / "src" / "mindtorch_npu" / "optable.json"
GENERATED = "optable_gen.h"
# simulator family bit -> the docs' product key; A3 is the Ascend910_93 half of the 910B family (bit 4)
_FAMILY_PRODUCTS = (("FAM_910B", "910b"), ("FAM_910A", "910"), ("FAM_310P", "310p"), ("FAM_950", "950"), ("4", "A3"))


# aclDataType / aclFormat values (acl_base_rt.h) of the docs' names the simulator models
ACL_DTYPES = {
    "FLOAT": 0,
    "FLOAT16": 1,
    "INT8": 2,
    "INT32": 3,
    "UINT8": 4,
    "INT16": 6,
    "INT64": 9,
    "DOUBLE": 11,
    "BOOL": 12,
    "BFLOAT16": 27,
}
ACL_FORMATS = {"NCHW": 0, "NHWC": 1, "ND": 2, "HWCN": 16, "NDHWC": 27, "NCDHW": 30, "NC": 35, "NCL": 47}


def _optable():
    """mindtorch_npu/optable.py (stdlib only), loaded by path: its dtypes() applies the override table."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("aclsim_optable", OPTABLE.with_suffix(".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _param_rows(table, op):
    """One C initializer per parameter of `op`: its name, per product slot (the simulator's family bits, A3
    last) the dtype bits or OPT_UNSTATED, and its format bits (0: the doc names none)."""
    row = table.ops()[op]
    rows = []
    for param in row.get("params", []):
        masks = []
        for _, key in _FAMILY_PRODUCTS:
            names = table.dtypes(op, key, param)
            masks.append(
                "OPT_UNSTATED" if names is None else f"0x{sum(1 << ACL_DTYPES[n] for n in names if n in ACL_DTYPES):x}u"
            )
        fmts = {f for e in row.get("products", {}).values() for f in e.get("formats", {}).get(param, [])}
        fbits = sum(1 << ACL_FORMATS[f] for f in fmts if f in ACL_FORMATS)
        rows.append(f'    {{"{op}", "{param}", {{{", ".join(masks)}}}, 0x{fbits:x}ull}},')
    return rows


def optable_header():
    """The C header generated from optable.json: OPTABLE_ABSENT[] {op, family bits} (the operators each
    product lacks) and OPTABLE_PARAMS[] {op, param, dtype bits per product, format bits} in the docs'
    parameter order."""
    table = _optable()
    ops = table.ops()
    absent, params = [], []
    for op in sorted(ops):
        products = ops[op].get("products", {})
        bits = [f"B({fam})" for fam, key in _FAMILY_PRODUCTS if not products.get(key, {}).get("supported", True)]
        if bits:
            absent.append(f'    {{"{op}", {" | ".join(bits)}}},')
        params += _param_rows(table, op)
    data = [f'    {{"{op}", "{table.data_param(op)}"}},' for op in sorted(ops) if table.data_param(op)]
    return "\n".join(
        [
            "/* generated by simulator/build.py from mindtorch_npu/optable.json (CANN's operator docs) and the",
            " * override table of mindtorch_npu/optable.py; do not edit */",
            "#define OPTABLE_A3 4 /* the bit of the Ascend910_93 (Atlas A3) parts */",
            "static const struct { const char *op; unsigned absent; } OPTABLE_ABSENT[] = {",
            *absent,
            "};",
            "static const optable_param OPTABLE_PARAMS[] = {",
            *params,
            "};",
            "/* the parameter the backend's chip table speaks of (optable.data_param) */",
            "static const struct { const char *op, *param; } OPTABLE_DATA[] = {",
            *data,
            "};",
            "",
        ]
    )


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
    h.update(OPTABLE.read_bytes())
    h.update(OPTABLE.with_suffix(".py").read_bytes())
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
    # one build at a time per directory: test sessions running side by side share it
    with open(out / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not force and stamp.exists() and stamp.read_text() == digest and all((out / n).exists() for n in libs):
            return out
        (out / GENERATED).write_text(optable_header())
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
        f"-I{out}",  # optable_gen.h
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
