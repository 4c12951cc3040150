"""Mutation check: inject small bugs one at a time into a copy of the source tree and make sure
the test suite catches each one.

    python tools/mutation_check.py            # every mutation; exit 1 if any survives
    python tools/mutation_check.py --list     # the mutations and the tests that must catch them

Each mutation is (name, file, text, replacement, tests). The copy goes first on PYTHONPATH, so the
installed (editable or wheel) distributions' entry points import the mutated modules.
"""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = {"mindtorch-core": "mindtorch", "mindtorch-cpu": "mindtorch_cpu", "mindtorch-meta": "mindtorch_meta"}

MUTATIONS = [
    (
        "cpu binary kernel broadcasts the other operand wrongly",
        "mindtorch-cpu/src/mindtorch_cpu/kernels/pointwise.py",
        "        x, y = _o(a, dt, d), _o(b, dt, d, opmath)\n        with quiet():\n            if _small(x) and _small(y):\n",
        "        x, y = _o(a, dt, d), _o(b, dt, d, opmath)\n"
        "        y = y if np.shape(y) == np.shape(x) else np.flip(y, -1) if np.ndim(y) else y\n"
        "        with quiet():\n            if _small(x) and _small(y):\n",
        ["tests/parity/ops/test_pointwise.py"],
    ),
    (
        "meta reduction shape rule drops keepdim",
        "mindtorch-core/src/mindtorch/ops/reduction.py",
        "        return tuple(1 if i in dims else s for i, s in enumerate(shape))",
        "        return tuple(s for i, s in enumerate(shape) if i not in dims)",
        ["tests/meta"],
    ),
    (
        "checkpoint geometry is not validated",
        "mindtorch-core/src/mindtorch/serialization.py",
        "    if needed > numel:",
        "    if False:",
        ["tests/nn/test_checkpoint_corpus.py"],
    ),
    (
        "float16 cumsum accumulates in float16",
        "mindtorch-cpu/src/mindtorch_cpu/kernels/reduction.py",
        'acc = np.float32 if nd.name in ("float16", "bfloat16") else nd',
        "acc = nd",
        ["tests/parity/ops/test_reduction.py"],
    ),
    (
        "expand accepts negative sizes",
        "mindtorch-core/src/mindtorch/ops/shape.py",
        "        elif s < 0:\n",
        "        elif False:\n",
        ["tests/parity/ops/test_argument_checks.py"],
    ),
    (
        "tensor() wraps integer overflow silently",
        "mindtorch-core/src/mindtorch/_tensor_from_data.py",
        "    if vals.max() > info.max",
        "    if False and vals.max() > info.max",
        ["tests/parity/ops/test_argument_checks.py"],
    ),
    (
        "the weights-only allow-list admits builtins.range",
        "mindtorch-core/src/mindtorch/serialization.py",
        '        ("_codecs", "encode"): _codecs_encode,',
        '        ("_codecs", "encode"): _codecs_encode, ("builtins", "range"): range,\n'
        '        ("builtins", "set"): set,',
        ["tests/nn/test_checkpoint_corpus.py"],
    ),
]


def _copy_tree(dest):
    paths = []
    for dist, pkg in SRC.items():
        src = ROOT / dist / "src"
        shutil.copytree(src / pkg, dest / dist / pkg, ignore=shutil.ignore_patterns("__pycache__"))
        paths.append(str(dest / dist))
    return paths


def run_one(name, path, old, new, tests):
    with tempfile.TemporaryDirectory(prefix="mutation-") as tmp:
        tmp = Path(tmp)
        paths = _copy_tree(tmp)
        target = tmp / path.split("/", 1)[0] / path.split("/src/", 1)[1]
        text = target.read_text()
        if text.count(old) != 1:
            return "stale"  # the code moved on: the mutation must be rewritten, which is a failure too
        target.write_text(text.replace(old, new))
        env = dict(
            os.environ,
            PYTHONPATH=os.pathsep.join(paths + [os.environ.get("PYTHONPATH", "")]),
            MINDTORCH_REQUIRE_TORCH="1",
            PYTHONDONTWRITEBYTECODE="1",
        )
        res = subprocess.run(
            [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
        )
        return "caught" if res.returncode == 1 else "survived" if res.returncode == 0 else f"error rc={res.returncode}"


def main(argv):
    if "--list" in argv:
        for name, path, _, _, tests in MUTATIONS:
            print(f"{name}: {path} -> {' '.join(tests)}")
        return 0
    results = []
    for m in MUTATIONS:
        outcome = run_one(*m)
        results.append(outcome)
        print(f"{outcome:9} {m[0]}", flush=True)
    caught = results.count("caught")
    print(f"mutation check: {caught}/{len(results)} caught")
    return 0 if caught == len(results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
