"""Bounded waits over MPI: starting MPI with a deadline, watching the peer processes while a rank
waits for them, and the agreement on a collective's arguments before its data moves.

MPI itself waits without limit: MPI_Init for a late peer, a collective for a peer that left (one that
returned from its script sits in MPI_Finalize, waiting for the others), and a collective whose ranks
disagree on the sizes reads past a buffer. Every wait of the mpi engine therefore polls a nonblocking
request; between polls it asks `PeerWatch` whether a peer is gone: one that announced its exit, or, on
this host, one whose process no longer runs (a peer on another host that dies ends the job through the
launcher).
"""

import ctypes
import os
import socket
import threading
import time
import zlib

import numpy as np

from ._engine import DistBackendError, DistStoreError

_EXIT_TAG = 1
_CHECK_EVERY = 0.01  # seconds between two looks at the peers while a wait polls
_SPIN = 4096  # polls before a waiting rank starts yielding its core
_GRACE = 0.2  # seconds a wait still polls after a peer left: its last messages may still arrive


def start_mpi(MPI, timeout):
    """MPI_Init_thread, given up after `timeout` seconds (None: no limit) with a DistStoreError.

    MPI_Init waits for every process of the job; mpi4py holds the GIL while it does, so the call is made
    through ctypes (which releases it) from a helper thread the caller can stop waiting for."""
    lib = _libmpi()
    if timeout is None or lib is None:
        MPI.Init_thread(MPI.THREAD_MULTIPLE)
        return
    provided, result = ctypes.c_int(), []

    def init():
        result.append(lib.MPI_Init_thread(None, None, MPI.THREAD_MULTIPLE, ctypes.byref(provided)))

    th = threading.Thread(target=init, name="mindtorch-mpi-init", daemon=True)
    th.start()
    th.join(timeout)
    if th.is_alive():
        raise DistStoreError(
            f"Timed out after {timeout:g} seconds waiting for the other processes of the job to start "
            f"(MPI_Init); a peer is late or was never started"
        )
    if result != [0]:
        raise DistBackendError(f"MPI_Init_thread failed with error code {result[0]}")


def _libmpi():
    """The MPI library mpi4py loaded (from the process's memory map), or None where that cannot be read."""
    try:
        with open("/proc/self/maps") as f:
            paths = sorted({ln.split()[-1] for ln in f if "/libmpi.so" in ln})
    except OSError:
        return None
    return ctypes.CDLL(paths[0]) if paths else None


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


class PeerWatch:
    """Which peers of the job are gone: exit notices on a communicator of its own, and the processes of
    the peers on this host."""

    def __init__(self, MPI, timeout):
        self.MPI = MPI
        self.comm = MPI.COMM_WORLD.Dup()
        self.rank, self.size = self.comm.Get_rank(), self.comm.Get_size()
        self.exited = {}  # rank -> pid, from the exit notices received
        self._buf, self._status = np.zeros(1, np.int64), MPI.Status()
        self._req = self.comm.Irecv(self._buf, source=MPI.ANY_SOURCE, tag=_EXIT_TAG)
        self.pids = {}
        me = (socket.gethostname(), os.getpid())
        everyone = np.zeros(self.size, np.int64)
        host = zlib.crc32(me[0].encode())
        mine = np.array([host << 32 | me[1]], np.int64)
        req = self.comm.Iallgather(mine, everyone)
        poll(req.Test, timeout, self, (), "init_process_group", DistStoreError)
        for r, v in enumerate(everyone.tolist()):
            if r != self.rank and v >> 32 == host:
                self.pids[r] = v & 0xFFFFFFFF

    def gone(self, ranks):
        """A sentence naming a member of `ranks` (global ranks) that left or died, or None."""
        while self._req is not None and self._req.Test(self._status):
            self.exited[self._status.Get_source()] = int(self._buf[0])
            self._req = self.comm.Irecv(self._buf, source=self.MPI.ANY_SOURCE, tag=_EXIT_TAG)
        for r in ranks:
            if r in self.exited:
                return f"rank {r} (pid {self.exited[r]}) exited while the others waited (rank {self.rank} among them)"
            pid = self.pids.get(r)
            if pid is not None and not _alive(pid):
                return f"rank {r} (pid {pid}) exited while the others waited: its process is gone"
        return None

    def announce_exit(self):
        """Tell every peer this process leaves (its script returned with the group still up), so a peer
        waiting for it in a collective fails instead of waiting for ever."""
        buf = np.array([os.getpid()], np.int64)
        reqs = [self.comm.Isend(buf, dest=r, tag=_EXIT_TAG) for r in range(self.size) if r != self.rank]
        deadline = time.monotonic() + 1.0  # small messages leave at once; never hold the exit up for long
        while reqs and not self.MPI.Request.Testall(reqs) and time.monotonic() < deadline:
            time.sleep(0.001)
        self.close()

    def close(self):
        if self._req is not None:
            self._req.Cancel()
            self._req.Wait()
            self._req = None
            self.comm.Free()


broken: list = []  # why a wait gave up on its peers: they are no longer in step with this process


def poll(test, limit, watch, ranks, what, error=DistBackendError):
    """Drive MPI progress until `test()`: an `error` after `limit` seconds (None: no limit), a
    DistBackendError naming the peer once a member of `ranks` is gone."""
    if test():
        return
    start = time.monotonic()
    deadline = None if limit is None else start + limit
    next_look, fail_at, reason, k = start + _CHECK_EVERY, None, None, 0
    while not test():
        k += 1
        if k > _SPIN:
            os.sched_yield()  # as MPI's own waits do when the cores are shared: the peer may need this one
        if k % 64:
            continue
        now = time.monotonic()
        if fail_at is not None and now > fail_at:
            broken.append(reason)
            raise DistBackendError(f"{what} failed: {reason}")
        if deadline is not None and now > deadline:
            broken.append("timeout")
            raise error(f"{what} did not complete within {limit:g} s (a peer process may have died or diverged)")
        if now >= next_look and fail_at is None and watch is not None:
            next_look = now + _CHECK_EVERY
            reason = watch.gone(ranks)
            if reason is not None:
                fail_at = now + _GRACE


# --------------------------------------------------------------------------- agreement

_fingerprints: dict = {}


def _fingerprint(what):
    h = _fingerprints.get(what)
    if h is None:
        h = _fingerprints[what] = zlib.crc32(what.encode()) << 20 | (len(what) & 0xFFFFF)
    return h


def agree(MPI, comm, what, limit, watch, ranks):
    """Raise a RuntimeError on every rank of `comm` unless all call the same collective with the same
    arguments (`what` describes them: the operation, dtype, shape, root). One small all-reduce: the
    largest fingerprint and the negated smallest, equal only when every rank sent the same."""
    h = _fingerprint(what)
    buf = np.array([h, -h], np.int64)
    req = comm.Iallreduce(MPI.IN_PLACE, buf, MPI.MAX)
    poll(req.Test, limit, watch, ranks, what.split("(", 1)[0])
    if buf[0] == -buf[1]:
        return
    raise RuntimeError(mismatch_message(comm.allgather(what), ranks))


def mismatch_message(everyone, ranks):
    """PyTorch's words for members that called different collectives: `everyone` holds each member's
    description, `ranks` their world ranks."""
    first = everyone[0]
    other = next(r for r, w in enumerate(everyone) if w != first)
    return (
        "Detected mismatch between collectives on ranks. "
        f"Rank {ranks[0] if ranks else 0} is running collective: {first}, "
        f"but Rank {ranks[other] if ranks else other} is running collective: {everyone[other]}"
    )
