"""Builds each fixture plugin into its own directory, once per run.

Plugins load when `mindtorch` is imported, so every scenario runs in a fresh
interpreter whose PYTHONPATH holds exactly the fixture directories it wants
visible (entry points are read from the *.dist-info found on sys.path).
MINDTORCH_TEST_PLUGIN_DIR may point at a directory prepared beforehand
(the nox session does this); otherwise they are built here with pip.
"""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
NAMES = ("toy", "broken", "oldapi", "dupcpu", "vault", "frozen", "exiter", "slow", "badalloc")


def install_fixture(name, target):
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--quiet",
        "--no-deps",
        "--no-build-isolation",
        "--disable-pip-version-check",
        "--target",
        str(target),
        str(FIXTURES / name),
    ]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:  # no setuptools here: let pip fetch the build backend
        cmd.remove("--no-build-isolation")
        subprocess.run(cmd, check=True)


@pytest.fixture(scope="session")
def plugin_dirs(tmp_path_factory):
    pre = os.environ.get("MINDTORCH_TEST_PLUGIN_DIR")
    if pre and all((Path(pre) / n).is_dir() for n in NAMES):
        return {n: Path(pre) / n for n in NAMES}
    root = tmp_path_factory.mktemp("plugins")
    for n in NAMES:
        install_fixture(n, root / n)
    return {n: root / n for n in NAMES}


class Run:
    def __init__(self, proc):
        self.returncode = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
        self.result = json.loads(lines[-1][7:]) if lines else None

    def __repr__(self):
        return f"<rc={self.returncode}\nstdout:\n{self.stdout}\nstderr:\n{self.stderr}>"


@pytest.fixture
def run_python(plugin_dirs):
    """run_python(code, plugins=(...), **env) -> Run; `emit(obj)` in code reports a JSON result."""

    def run(code, plugins=(), args=None, **env):
        e = {
            k: v
            for k, v in os.environ.items()
            if k not in ("MINDTORCH_BACKENDS", "MINDTORCH_STRICT_PLUGINS", "PYTHONPATH")
        }
        e.update({k: str(v) for k, v in env.items()})
        if plugins:
            e["PYTHONPATH"] = os.pathsep.join(str(plugin_dirs[p]) for p in plugins)
        prelude = "import json\ndef emit(obj):\n    print('RESULT ' + json.dumps(obj))\n"
        argv = [sys.executable] + (args if args is not None else ["-c", prelude + textwrap.dedent(code)])
        return Run(subprocess.run(argv, capture_output=True, text=True, env=e, timeout=120))

    return run
