"""The demo job's output: periodic lines in a log, a tqdm bar on a terminal, the curve as a PNG."""

import fcntl
import importlib.util
import os
import pty
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

DEMO = Path(__file__).resolve().parents[2] / "examples" / "train_gpt.py"
SMALL = [
    "--steps",
    "40",
    "--n-layer",
    "1",
    "--n-embd",
    "16",
    "--n-head",
    "2",
    "--block-size",
    "16",
    "--batch-size",
    "4",
    "--eval-iters",
    "1",
    "--sample-tokens",
    "2",
]

pytestmark = pytest.mark.skipif(not DEMO.is_file(), reason="examples/train_gpt.py not in this tree")


def _args(tmp_path, plot=""):
    return [sys.executable, str(DEMO), *SMALL, "--checkpoint", str(tmp_path / "ck.pt"), "--plot", plot]


def test_log_output_is_periodic_lines(tmp_path):
    r = subprocess.run(_args(tmp_path), capture_output=True, text=True, timeout=300)
    assert r.returncode in (0, 1), r.stderr  # 1: a 40-step model may not beat the unigram entropy
    log = r.stdout + r.stderr
    assert "\r" not in log
    progress = [ln for ln in r.stderr.splitlines() if ln.startswith("train")]
    assert 10 <= len(progress) <= 21, r.stderr  # a line every ~5% of the steps, not one per step
    assert "40/40" in progress[-1] and "loss=" in progress[-1]
    assert max(len(ln) for ln in log.splitlines()) < 200


@pytest.mark.skipif(importlib.util.find_spec("tqdm") is None, reason="tqdm not installed")
def test_terminal_gets_a_tqdm_bar(tmp_path):
    pid, fd = pty.fork()
    if pid == 0:  # the child: stdout and stderr are a 24x120 terminal
        fcntl.ioctl(1, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 120, 0, 0))
        os.execv(sys.executable, _args(tmp_path))
    out = b""
    while True:
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    os.waitpid(pid, 0)
    text = out.decode(errors="replace")
    assert "\r" in text and "40/40" in text and "step/s" in text, text[-2000:]
    # redrawn in place: far fewer lines than updates
    assert sum(ln.startswith("train") for ln in text.replace("\r\n", "\n").split("\n")) <= 2


def test_curve_png_or_a_reason(tmp_path):
    png = tmp_path / "curve.png"
    r = subprocess.run(_args(tmp_path, str(png)), capture_output=True, text=True, timeout=300)
    assert r.returncode in (0, 1), r.stderr
    if importlib.util.find_spec("matplotlib") is None:
        assert "loss curve not drawn: matplotlib is not installed" in r.stdout
        assert not png.exists()
    else:
        assert f"loss curve: {png}" in r.stdout
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
