"""One session per backend, plus plugin loading, parity with PyTorch, lint, benchmarks and the demo.

    nox -s cpu meta plugins parity npu lint the test suite (what .ci/run runs)
    nox -s demo                             train a small GPT on the CPU
    nox -s bench                            benchmarks side by side with NumPy and PyTorch

Every session installs the distributions from this repository non-editable into its own
virtualenv, so the tests see exactly what `pip install` would give a user.
"""
import os
from pathlib import Path

import nox

ROOT = Path(__file__).parent
CORE, CPU, META, NPU = "./mindtorch-core", "./mindtorch-cpu", "./mindtorch-meta", "./mindtorch-npu"
TORCH = "torch==2.13.0"

nox.options.sessions = ["cpu", "meta", "plugins", "parity", "npu", "lint"]
nox.options.error_on_missing_interpreters = True


def _present(session, *dirs):
    """The test directories that exist; skip the session (before installing) when there are none."""
    present = [d for d in dirs if (ROOT / d).is_dir()]
    if not present:
        session.skip(f"no test directories yet: {', '.join(dirs)}")
    return present


def _pytest(session, *dirs, extra=()):
    """Run pytest on the directories that exist; an empty selection is not a failure."""
    present = _present(session, *dirs)
    # pytest exits 5 when a directory holds no tests yet; that is not an error for a session
    session.run("pytest", "-q", "-rfEs", "-p", "no:cacheprovider", *present, *extra, *session.posargs,
                success_codes=[0, 5])


def _install(session, *dists):
    # local paths: always rebuilt from the working tree, never editable
    session.install(*dists)


@nox.session
def cpu(session):
    """The CPU backend: kernels, autograd and nn on the CPU, and its conformance report.

    meta comes too: device-mismatch tests pair cpu tensors with meta ones. Loading cpu
    alone is covered by the plugins session (MINDTORCH_BACKENDS=cpu).
    """
    _present(session, "tests/cpu", "tests/autograd", "tests/nn")
    _install(session, CORE, CPU, META)
    session.install("pytest")
    _pytest(session, "tests/cpu", "tests/autograd", "tests/nn")
    _conformance(session, "cpu")


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
    if fixtures.is_dir():
        for fx in sorted(p for p in fixtures.iterdir() if (p / "pyproject.toml").is_file()):
            session.run("python", "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                        "--upgrade", "--target", str(target / fx.name), str(fx))
    session.env["MINDTORCH_TEST_PLUGIN_DIR"] = str(target)
    _pytest(session, "tests/plugins")


@nox.session
def parity(session):
    """Values, gradients and optimizer updates against PyTorch; skipped when torch cannot be installed."""
    _present(session, "tests/parity")
    _install(session, CORE, CPU, META)
    session.install("pytest")
    try:
        session.install(TORCH)
    except nox.command.CommandFailed:
        session.skip(f"{TORCH} could not be installed here")
    _pytest(session, "tests/parity")


@nox.session
def npu(session):
    """The Ascend backend against the ACL simulator, which tests/npu/conftest.py builds with the
    system C compiler (`python mindtorch-npu/simulator/build.py DIR` builds it by hand)."""
    _install(session, CORE, CPU, NPU)
    session.install("pytest", TORCH)  # torch: the rounding oracle of some simulator tests
    session.env["ACLSIM_BUILD_DIR"] = str(Path(session.create_tmp()) / "aclsim")
    _pytest(session, "tests/npu")


@nox.session
def lint(session):
    session.install("ruff")
    session.run("ruff", "check", "--output-format", "concise", ".")


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
    if not script.is_file():
        session.skip("examples/train_gpt.py is not in this tree yet")
    _install(session, CORE, CPU)
    session.run("python", os.path.relpath(script, ROOT), *session.posargs)
