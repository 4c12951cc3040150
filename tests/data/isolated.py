"""Run a script as a separate process tree and count what it leaves behind.

Every run has a hard timeout, so a hang fails the test that asked for it instead of the suite. The
leak check counts three things after the run:
- files left in /dev/shm: when the machine allows it (root with mount namespaces) the run gets a
  private, empty /dev/shm, so every file there is the run's; otherwise new /dev/shm entries named
  mindtorch* are counted;
- processes still alive that carry the run's marker in their environment (workers, pools,
  trackers: children inherit it);
- the script reports its own open descriptors itself (see FD_PROBE).
"""

import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field

MARKER = "MINDTORCH_ISOLATED_RUN"
SUMMARY = []  # lines for the session's summary (conftest prints them even when every test passes)

# prepended to a script: `fds()` is the number of this process's open descriptors
FD_PROBE = "import os as _os\ndef fds():\n    return len(_os.listdir('/proc/self/fd'))\n"

_MOUNT = "mount -t tmpfs -o size=256m tmpfs /dev/shm"
# runs the command with its own empty /dev/shm and reports, on stderr, how many files it left there
# (after up to 5 s for a cleanup that comes after it, such as the resource tracker's)
_IN_PRIVATE_SHM = (
    _MOUNT + ' || exit 97; "$@"; rc=$?; for i in $(seq 50); do [ -z "$(ls -A /dev/shm)" ] && break; sleep 0.1; done; '
    'echo "shm-left $(ls -A /dev/shm | wc -l)" >&2; exit $rc'
)


def _private_shm_prefix():
    """The argv prefix that runs a command with its own empty /dev/shm, or None when not allowed."""
    if not shutil.which("unshare") or not os.path.isdir("/dev/shm"):
        return None
    prefix = ["unshare", "-m", "--propagation", "private", "sh", "-c"]
    try:
        probe = subprocess.run([*prefix, _MOUNT], capture_output=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return [*prefix, _IN_PRIVATE_SHM, "sh"] if probe.returncode == 0 else None


_PREFIX = []


def private_shm():
    """Whether runs get a private /dev/shm on this machine."""
    if not _PREFIX:
        _PREFIX.append(_private_shm_prefix())
    return _PREFIX[0] is not None


def _shm_names():
    try:
        return {n for n in os.listdir("/dev/shm") if n.startswith("mindtorch")}
    except OSError:
        return set()


def _marked_pids(tag):
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = f.read()
        except OSError:
            continue
        if f"{MARKER}={tag}".encode() in env:
            found.append(int(pid))
    return found


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool
    shm_files: int
    processes: int
    lines: dict = field(default_factory=dict)  # "key value" lines the script printed

    def value(self, key, cast=int):
        return cast(self.lines[key])


def run(source, *args, timeout=60, grace=5.0, env=None):
    """Run `source` (a Python script, FD_PROBE prepended) with `args`; kill its whole tree past `timeout`."""
    import tempfile

    tag = uuid.uuid4().hex
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "case.py")
        with open(script, "w") as f:
            f.write(FD_PROBE + source)
        cmd = [sys.executable, script, *map(str, args)]
        private = private_shm()
        if private:
            cmd = _PREFIX[0] + cmd
        before = set() if private else _shm_names()
        full_env = {**os.environ, **(env or {}), MARKER: tag}
        start = time.monotonic()
        proc = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=full_env, start_new_session=True
        )
        timed_out = False
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill_marked(tag)
            out, err = proc.communicate()
        seconds = time.monotonic() - start
    deadline = time.monotonic() + grace  # orphans get a moment to notice and exit
    while _marked_pids(tag) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = _marked_pids(tag)
    _kill_marked(tag)
    if private:
        shm = 0
        for line in err.splitlines():
            if line.startswith("shm-left "):
                shm = int(line.split()[1])
    else:
        shm = len(_shm_names() - before)
    lines = {}
    for line in out.splitlines():
        key, _, rest = line.partition(" ")
        lines[key] = rest
    return Run(proc.returncode, out, err, seconds, timed_out, shm, len(left), lines)


def _kill_marked(tag):
    for pid in _marked_pids(tag):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
