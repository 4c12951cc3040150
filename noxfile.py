"""One session per backend, plus plugin loading, parity with PyTorch, lint, benchmarks and the demo.

    nox -s cpu meta plugins parity transformers npu distributed lint build   the test suite (what .ci/run runs)
    nox -s demo                                 train a small GPT on the CPU
    nox -s bench                                benchmarks side by side with NumPy and PyTorch
    nox -s build                                wheels and sdists of every distribution into dist/

Every session builds the wheels of the distributions it needs fresh, out of the source tree,
and installs those into its own virtualenv, so the tests see exactly what users get.
"""

import os
import shutil
from pathlib import Path

import nox

ROOT = Path(__file__).parent
CORE, CPU, META, NPU = "./mindtorch-core", "./mindtorch-cpu", "./mindtorch-meta", "./mindtorch-npu"
TORCH = "torch==2.13.0"

nox.options.sessions = ["cpu", "meta", "plugins", "parity", "transformers", "npu", "distributed", "lint", "build"]
nox.options.error_on_missing_interpreters = True


def _present(session, *dirs):
    """The session's test directories, every one required: a tree that lost one fails (before installing)
    instead of running what is left."""
    missing = [d for d in dirs if not (ROOT / d).is_dir()]
    if missing:
        session.error(f"missing test directories: {', '.join(missing)}")
    return list(dirs)


# the least number of tests each session must pass: a session that silently collects or runs
# fewer (skips, a missing directory, a broken conftest) fails instead of going green
MIN_PASSED = {
    "cpu": 900,
    "meta": 500,
    "plugins": 85,
    "parity": 3100,
    "transformers": 3,
    "npu": 300,
    "distributed": 48,
    "lint": 16,
}


def _pytest(session, *dirs, extra=(), least=None):
    """Run pytest on the directories that exist and check the minimum number of passed tests (`least`,
    by default the session's)."""
    present = _present(session, *dirs)
    report = Path(session.create_tmp()) / "junit.xml"
    session.run(
        "pytest", "-q", "-rfEs", "-p", "no:cacheprovider", f"--junitxml={report}", *present, *extra, *session.posargs
    )
    if session.posargs:  # a hand-picked selection: no minimum
        return
    import xml.etree.ElementTree as ET

    suites = ET.parse(report).getroot()
    suites = [suites] if suites.tag == "testsuite" else list(suites)
    total = sum(int(s.get("tests", 0)) for s in suites)
    not_passed = sum(int(s.get(k, 0)) for s in suites for k in ("failures", "errors", "skipped"))
    passed = total - not_passed
    least = MIN_PASSED.get(session.name, 1) if least is None else least
    session.log(f"{session.name}: {passed} tests passed (at least {least} expected)")
    if passed < least:
        session.error(f"{session.name}: only {passed} tests passed, at least {least} expected")


def _dists():
    """Every distribution directory in the repository ("./mindtorch-core", ...), core first."""
    found = sorted(f"./{p.parent.name}" for p in ROOT.glob("mindtorch-*/pyproject.toml"))
    return sorted(found, key=lambda d: d != CORE)


def _fresh_dir(session, name):
    out = Path(session.create_tmp()) / name
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    return out


def _install(session, *dists):
    """Build the wheels of these distribution directories and install them (with their dependencies).

    The build backend writes nothing into the source tree, and the wheels go to this session's
    temp dir, so a module deleted from the source can never reach the tests.
    """
    out = _fresh_dir(session, "wheels")
    session.run("python", "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(out), *dists)
    wheels = sorted(str(w) for w in out.glob("*.whl"))
    # a reused virtualenv may hold the same version built from an older tree: replace it
    session.install("--force-reinstall", "--no-deps", *wheels)
    session.install(*wheels)


# what the cpu session runs a second time with the compiled kernels reached through ctypes
CTYPES_SUBSET = ("tests/cpu/test_native_kernels.py", "tests/cpu/test_native_pool.py", "tests/nn/test_functional.py")


@nox.session
def cpu(session):
    """The CPU backend: kernels, autograd and nn on the CPU, DataLoader workers and shared memory under
    faults (tests/data), and its conformance report.

    meta comes too: device-mismatch tests pair cpu tensors with meta ones. Loading cpu
    alone is covered by the plugins session (MINDTORCH_BACKENDS=cpu).
    """
    _present(session, "tests/cpu", "tests/autograd", "tests/nn", "tests/data")
    _install(session, CORE, CPU, META)
    session.install("pytest", "tqdm")  # tqdm: the demo's terminal progress bar is tested here
    session.env["MINDTORCH_CPU_REQUIRE_NATIVE"] = "1"  # the wheel's compiled kernels must load, not fall back
    session.env["MINDTORCH_REQUIRE_ACCEL"] = "1"  # and core's accelerator (mindtorch._accel)
    _pytest(session, "tests/cpu", "tests/autograd", "tests/nn", "tests/data")
    # the compiled kernels again through ctypes, the entry of builds that found no Python.h
    ctypes_env = {"MINDTORCH_CPU_NATIVE_ENTRY": "ctypes"}
    session.run("pytest", "-q", "-p", "no:cacheprovider", *CTYPES_SUBSET, *session.posargs, env=ctypes_env)
    _conformance(session, "cpu")
    # the Python versions of what the accelerator replaces: autograd and the ops whose results it builds
    session.env["MINDTORCH_NO_ACCEL"] = "1"
    _pytest(session, "tests/autograd", extra=ACCEL_OFF_TESTS, least=MIN_PASSED_ACCEL_OFF)
    del session.env["MINDTORCH_NO_ACCEL"]


# what the cpu session runs a second time with MINDTORCH_NO_ACCEL=1 (besides tests/autograd)
ACCEL_OFF_TESTS = [
    "tests/cpu/test_accelerator.py",
    "tests/cpu/test_cat_paths.py",
    "tests/cpu/test_lazy_storage.py",
    "tests/cpu/test_pointwise.py",
    "tests/cpu/test_reduction.py",
    "tests/cpu/test_views.py",
    "tests/cpu/test_view_strides_paths.py",
]
MIN_PASSED_ACCEL_OFF = 700


def _conformance(session, device):
    """The conformance report in the log, ending in its summary line (its tests ran in pytest already)."""
    session.env["MINDTORCH_CONFORMANCE_DIR"] = session.create_tmp()
    session.run("python", "-m", "mindtorch.testing.conformance", "--device", device, "--strict")


@nox.session
def meta(session):
    """The meta backend (test data is built on the CPU), and its conformance report."""
    _present(session, "tests/meta")
    _install(session, CORE, META, CPU)
    session.install("pytest")
    _pytest(session, "tests/meta")
    _conformance(session, "meta")


@nox.session
def plugins(session):
    """Discovery (third-party, broken, incompatible and duplicate plugins, selection by env var), the
    public surface rule, contract fixes, host fallback, the conformance kit and the scaffold."""
    _present(session, "tests/plugins")
    _install(session, CORE, CPU, META)
    session.install("pytest", "setuptools")
    # each fixture goes to its own directory; a test puts only the ones it wants on PYTHONPATH
    fixtures = ROOT / "tests" / "plugins" / "fixtures"
    target = Path(session.create_tmp()) / "plugin-fixtures"
    for fx in sorted(p for p in fixtures.iterdir() if (p / "pyproject.toml").is_file()):
        # built from a copy: setuptools would leave build/ state in the source tree
        src = Path(session.create_tmp()) / "fixture-src" / fx.name
        shutil.rmtree(src, ignore_errors=True)
        shutil.copytree(fx, src, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
        session.run(
            "python",
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--upgrade",
            "--target",
            str(target / fx.name),
            str(src),
        )
    session.env["MINDTORCH_TEST_PLUGIN_DIR"] = str(target)
    _pytest(session, "tests/plugins")


@nox.session
def parity(session):
    """Values, gradients, optimizer updates and the bad-input sweep against PyTorch. PyTorch is
    required: the session fails when it cannot be installed, and no parity test may skip for it."""
    _present(session, "tests/parity")
    _install(session, CORE, CPU, META)
    session.install("pytest", TORCH)
    session.env["MINDTORCH_REQUIRE_TORCH"] = "1"
    session.env["MINDTORCH_CPU_REQUIRE_NATIVE"] = "1"
    _pytest(session, "tests/parity")
    # the Python shape rules and NumPy kernels that compiled paths stand in for, against PyTorch too
    python_paths = {"MINDTORCH_NO_ACCEL": "1", "MINDTORCH_CPU_NATIVE_ENTRY": "ctypes"}
    session.run("pytest", "-q", "-p", "no:cacheprovider", *PYTHON_PATH_PARITY, *session.posargs, env=python_paths)


# what the parity session runs a second time without core's accelerator or the cpu backend's entry
PYTHON_PATH_PARITY = ("tests/parity/ops/test_joining.py",)


TRANSFORMERS = "transformers==5.23.0"


@nox.session
def transformers(session):
    """Hugging Face transformers' modeling code (tiny GPT-2, BERT, LLaMA from configs) under
    `python -m mindtorch.run`, against the same programs on real PyTorch."""
    _present(session, "tests/transformers")
    _install(session, CORE, CPU)
    session.install("pytest", TORCH, TRANSFORMERS)
    _pytest(session, "tests/transformers")


@nox.session
def npu(session):
    """The Ascend backend against the ACL simulator, which tests/npu/conftest.py builds with the
    system C compiler (`python mindtorch-npu/simulator/build.py DIR` builds it by hand); the same
    conftest fails the session when its tests leave anything alive in the simulator. transformers: its tiny
    GPT-2, BERT and LLaMA run on the npu against the cpu (tests/npu/test_hf_tiny_models_npu.py)."""
    _install(session, CORE, CPU, NPU)
    session.install("pytest", TORCH, TRANSFORMERS)  # torch: the rounding oracle of some simulator tests
    session.env["ACLSIM_BUILD_DIR"] = str(Path(session.create_tmp()) / "aclsim")
    session.env["MINDTORCH_NPU_REQUIRE_NATIVE"] = "1"  # the wheel's compiled host path must load, not fall back
    _pytest(session, "tests/npu")
    # the Python versions of what the compiled host path replaces
    session.env["MINDTORCH_NPU_NO_NATIVE"] = "1"
    _pytest(session, extra=NPU_NATIVE_OFF_TESTS, least=MIN_PASSED_NPU_NATIVE_OFF)
    del session.env["MINDTORCH_NPU_NO_NATIVE"]
    _npu_chip_matrix(session)


# what the npu session runs a second time with MINDTORCH_NPU_NO_NATIVE=1
NPU_NATIVE_OFF_TESTS = [
    "tests/npu/test_allocator.py",
    "tests/npu/test_allocator_layout.py",
    "tests/npu/test_allocator_native.py",
    "tests/npu/test_native_launch.py",
    "tests/npu/test_launch_plans.py",
    "tests/npu/test_training.py",
]
MIN_PASSED_NPU_NATIVE_OFF = 80


def _npu_chip_matrix(session):
    """The conformance kit on every claimed chip (the whole kit takes seconds on the simulator). An op or
    check failing is a bug; what the chip's documentation omits must be the backend's own clear error, and is
    listed as unsupported. Ends in a per-chip coverage table."""
    import json

    facts = "import json; from mindtorch_npu import chip_coverage as c; print(json.dumps([c.CLAIMED_CHIPS, c.LACKS_PATTERN]))"
    chips, lacks = json.loads(session.run("python", "-c", facts, silent=True))
    build = session.env["ACLSIM_BUILD_DIR"]
    out = _fresh_dir(session, "chips")
    session.env["MINDTORCH_CONFORMANCE_DIR"] = str(out)
    # and Ascend910B1 as newer CANN packages lay it out: version 8.5, one operator library per family
    split = Path(session.create_tmp()) / "aclsim-split"
    session.run("python", "mindtorch-npu/simulator/build.py", "--split-opapi", str(split))
    runs = [(soc, soc, build, "8.0") for soc in chips] + [("Ascend910B1 (CANN 8.5)", "Ascend910B1", str(split), "8.5")]
    rows, failed = [], []
    for label, soc, lib_dir, version in runs:
        env = {
            "ACLSIM_SOC_NAME": soc,
            "MINDTORCH_NPU_LIB_DIR": lib_dir,
            "ACLSIM_CANN_VERSION": version,
            "ACLSIM_DEVICE_COUNT": "2",
            # the kit compares float32 with the cpu: convolutions in float32, not torch_npu's default HF32
            "MINDTORCH_NPU_ALLOW_CONV_HF32": "0",
        }
        report = out / f"{soc}-{version}.json"
        # every structural check (more_copies: the chip's own error for the wide unsigned integers and complex
        # numbers it cannot hold is listed as unsupported); on the ops' own samples: in every dtype the npu
        # declares what its operators lack, but the sweep still finds float16 rounding and a few kernels that
        # disagree with the cpu (run without --no-dtypes to list them)
        argv = ["--device", "npu", "--unsupported", lacks, "--no-dtypes"]
        argv += ["--json", str(report)]
        session.run("python", "-m", "mindtorch.testing.conformance", *argv, env=env, success_codes=[0, 1])
        data = json.loads(report.read_text())
        ops = [r["status"] for r in data["ops"].values()]
        checks = [c["status"] for c in data["checks"].values()]
        row = [label] + [ops.count(s) for s in ("conformant", "failing", "missing", "unsupported")]
        lacking = f" ({checks.count('unsupported')} unsupported)" if "unsupported" in checks else ""
        rows.append(row + [f"{checks.count('passed')}/{len(checks)}{lacking}", f"{data['seconds']:.1f}s"])
        if not data["ok"]:
            failed.append(label)
    head = ("chip", "conformant", "failing", "missing", "unsupported", "checks", "time")
    session.log("npu conformance per chip:")
    for row in [head, *rows]:
        session.log("  " + "".join(f"{str(c):<{24 if k in (0, 5) else 16}}" for k, c in enumerate(row)))
    if failed:
        session.error(f"npu conformance fails on {', '.join(failed)}")


def _system_mpi(session):
    """Open MPI from the system's package registry (mpi4py builds against it); apt-get as root."""
    if shutil.which("mpiexec") and shutil.which("mpicc"):
        return
    if shutil.which("apt-get") and hasattr(os, "geteuid") and os.geteuid() == 0:
        session.run("apt-get", "update", "-qq", external=True)
        session.run("apt-get", "install", "-y", "-qq", "openmpi-bin", "libopenmpi-dev", external=True)
    else:
        session.error("mindtorch.distributed needs MPI: install openmpi-bin and libopenmpi-dev (or MPICH)")


@nox.session
def distributed(session):
    """mindtorch.distributed with 2 and 3 processes: MPI for cpu tensors and HCCL for npu tensors (the ACL
    simulator's libhccl, compiled by the tests): collectives, DDP, failures. Open MPI runs as root with
    --allow-run-as-root and on few cores with --oversubscribe (the helpers add both)."""
    _present(session, "tests/distributed")
    _system_mpi(session)
    _install(session, CORE, CPU, META, NPU)  # meta: a tensor on a device without a distributed backend
    session.install("pytest", "mpi4py")
    _pytest(session, "tests/distributed")


@nox.session
def lint(session):
    """ruff (rules and formatting), mypy over the plugin contract, the op table's core and dispatch
    (mypy.ini), the distributions agreeing on version, core range, license and metadata, and the
    layering and tool tests."""
    session.install("ruff==0.17.6", "mypy==2.4.1", "numpy", "pluggy", "pytest", "tomli; python_version < '3.11'")
    session.run("ruff", "check", "--output-format", "concise", ".")
    session.run("ruff", "format", "--check", ".")
    session.run("mypy")
    session.run("python", "tools/dists.py", "check")
    _pytest(session, "tests/tools")


@nox.session
def build(session):
    """Wheels and sdists of every distribution into dist/, checked with twine and installed into a clean venv."""
    session.install("build", "twine", "tomli; python_version < '3.11'")
    out = _fresh_dir(session, "dist")
    for d in _dists():
        # sdist first, then the wheel built from that sdist: a file the sdist lacks fails here
        session.run("python", "-m", "build", "--outdir", str(out), d, silent=True)
    artifacts = sorted(str(f) for f in out.iterdir())
    session.run("twine", "check", "--strict", *artifacts)
    session.run("python", "tools/dists.py", "artifacts", str(out))
    # a clean virtualenv with the wheels alone gives a working mindtorch
    venv = Path(session.create_tmp()) / "clean-venv"
    shutil.rmtree(venv, ignore_errors=True)
    session.run("python", "-m", "venv", str(venv))
    py = str(venv / ("Scripts" if os.name == "nt" else "bin") / "python")
    session.run(py, "-m", "pip", "install", "--quiet", *(a for a in artifacts if a.endswith(".whl")), external=True)
    session.run(py, "-m", "mindtorch", external=True)
    session.run(
        py,
        "-c",
        "import mindtorch as t; x = t.ones(3, requires_grad=True); (x * 2).sum().backward(); "
        "assert x.grad.tolist() == [2.0, 2.0, 2.0]; print('clean venv: mindtorch works')",
        external=True,
    )
    dist = ROOT / "dist"
    dist.mkdir(exist_ok=True)
    for old in dist.glob("mindtorch_*"):
        old.unlink()
    for a in artifacts:
        shutil.copy(a, dist)
    session.log(f"{len(artifacts)} artifacts in {dist}")


@nox.session
def bench(session):
    """Benchmarks printed side by side with NumPy and (when installable) PyTorch, with the SPEC targets."""
    _install(session, CORE, CPU, META)
    try:
        session.install(TORCH)
    except nox.command.CommandFailed:
        session.log("PyTorch not installable: the torch column will read n/a")
    session.run("python", "benchmarks/run.py", *session.posargs)


@nox.session
def demo(session):
    """The main job: train a small GPT on the CPU."""
    script = ROOT / "examples" / "train_gpt.py"
    _install(session, CORE, CPU)
    session.install("tqdm")
    try:  # optional: the loss curve as a PNG
        session.install("matplotlib")
    except nox.command.CommandFailed:
        session.log("matplotlib not installable: the demo runs without drawing its loss curve")
    session.run("python", os.path.relpath(script, ROOT), *session.posargs)
