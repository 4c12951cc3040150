"""The session-finish leak check of conftest.py: a pytest session whose test leaves a tensor alive on the
device exits with status 1 and names the leaked counters; the same session freeing its tensor passes."""

import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

KEEPS_A_TENSOR = """
import mindtorch as torch

KEPT = []


def test_keeps_a_tensor_alive():
    KEPT.append(torch.ones(16, device="npu"))
"""

FREES_ITS_TENSOR = """
import mindtorch as torch


def test_frees_its_tensor():
    assert torch.ones(16, device="npu").sum().item() == 16
"""


def _session(tmp_path, source):
    """A pytest session in a fresh interpreter, with this folder's conftest.py as its plugin."""
    (tmp_path / "test_inner.py").write_text(source)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]))
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "conftest", "test_inner.py"]
    return subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)


def test_a_session_that_leaks_fails_and_names_the_leak(tmp_path):
    r = _session(tmp_path, KEEPS_A_TENSOR)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "1 passed" in r.stdout and "npu leak check" in r.stdout, r.stdout
    assert "device_allocations=1" in r.stdout, r.stdout


def test_a_session_that_frees_everything_passes(tmp_path):
    r = _session(tmp_path, FREES_ITS_TENSOR)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "npu leak check" not in r.stdout, r.stdout
