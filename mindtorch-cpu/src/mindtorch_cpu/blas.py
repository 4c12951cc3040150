"""BLAS and LAPACK calls that a fork can wait for.

OpenBLAS's at-fork handler shuts its thread pool down, and waits for it: when another thread is inside
a BLAS call at that moment, os.fork never returns (plain NumPy hangs the same way). Every kernel's
BLAS or LAPACK call goes through this module, which counts the calls in flight; a fork (a DataLoader
starting its workers, say) waits until none is, and holds new ones back until it is done. Calls to
NumPy made outside mindtorch are not counted.

`with serial:` keeps OpenBLAS on its caller's thread, for kernels that share their work out across
the backend's own thread pool.
"""

import ctypes
import os
import threading

import numpy as np


class _Gate:
    """The BLAS calls in flight (one entry each in `inflight`: list append and pop are atomic under the
    GIL, so the common path takes no lock); while a fork is pending none may start."""

    __slots__ = ("lock", "cond", "inflight", "forking")

    def __init__(self):
        self.lock = threading.Lock()
        self.cond = threading.Condition(self.lock)
        self.inflight = []
        self.forking = False

    def __enter__(self):
        self.inflight.append(None)
        if self.forking:
            self.hold()

    def __exit__(self, *exc):
        self.inflight.pop()
        if self.forking:
            self.leave()

    def hold(self):
        """A fork is pending: step out of the count until it is done."""
        self.inflight.pop()
        with self.lock:
            self.cond.notify_all()
            while self.forking:
                self.cond.wait()
            self.inflight.append(None)

    def leave(self):
        with self.lock:
            self.cond.notify_all()

    def before_fork(self):
        # waits on the condition: with a sleep-and-poll loop instead, the call in flight was seen to
        # stay stuck inside OpenBLAS. A call entering after the count is read sees `forking` and holds.
        with self.lock:
            self.forking = True
            while self.inflight:
                self.cond.wait()

    def after_fork_in_parent(self):
        with self.lock:
            self.forking = False
            self.cond.notify_all()

    def after_fork_in_child(self):
        """The child has none of the parent's other threads: nothing in flight, fresh locks (the list
        stays the same object: gated functions hold it)."""
        self.inflight.clear()
        self.lock = threading.Lock()
        self.cond = threading.Condition(self.lock)
        self.forking = False


GATE = _Gate()
os.register_at_fork(
    before=GATE.before_fork, after_in_parent=GATE.after_fork_in_parent, after_in_child=GATE.after_fork_in_child
)


class _Gated:
    """A module whose functions run inside the gate (its classes and constants as they are)."""

    def __init__(self, module):
        self._module = module

    def __getattr__(self, name):
        f = getattr(self._module, name)
        if not callable(f) or isinstance(f, type):
            return f
        gate, inflight = GATE, GATE.inflight

        def gated(*args, **kwargs):
            inflight.append(None)  # GATE.__enter__ and __exit__, inline: small matmuls pay for every call
            if gate.forking:
                gate.hold()
            try:
                return f(*args, **kwargs)
            finally:
                inflight.pop()
                if gate.forking:
                    gate.leave()

        setattr(self, name, gated)
        return gated


linalg = _Gated(np.linalg)
_np = _Gated(np)
matmul = _np.matmul
dot = _np.dot  # for two matrices: no ufunc dispatch, so a 4x4 product costs ~0.6 of matmul's time
tensordot = _np.tensordot


# --- OpenBLAS's own threads ---------------------------------------------------------------------------
# A kernel that shares its work out across the backend's pool runs one BLAS call per block on each pool
# thread; OpenBLAS threading those calls too would put two threads on each core, and its idle threads
# spin. Measured on a busy 2-core machine, a (32,16,32,32) 16->32 3x3 convolution's forward on two
# threads: 6.5 ms of CPU time (22-26 ms wall) with OpenBLAS kept to each caller's thread, 50-73 ms
# (190-230 ms wall) with the GEMMs left to OpenBLAS's threads.
_SETTERS = (  # (set, get) in the OpenBLAS builds NumPy ships (scipy-openblas) and in plain ones
    ("scipy_openblas_set_num_threads64_", "scipy_openblas_get_num_threads64_"),
    ("openblas_set_num_threads64_", "openblas_get_num_threads64_"),
    ("openblas_set_num_threads", "openblas_get_num_threads"),
)


def _openblas_controls():
    """OpenBLAS's (set, get) thread-count functions in the libraries this process loaded, or None
    (another BLAS, or no /proc)."""
    try:
        with open("/proc/self/maps") as f:
            paths = {p[5] for p in (line.split() for line in f) if len(p) > 5 and "openblas" in os.path.basename(p[5])}
    except OSError:
        return None
    for path in sorted(paths):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for set_name, get_name in _SETTERS:
            setter, getter = getattr(lib, set_name, None), getattr(lib, get_name, None)
            if setter is not None and getter is not None:
                setter.argtypes, setter.restype, getter.argtypes, getter.restype = (
                    [ctypes.c_int],
                    None,
                    [],
                    ctypes.c_int,
                )
                return setter, getter
    return None


class _Serial:
    """`with serial:` OpenBLAS runs each call on its caller's thread; nested and concurrent regions
    share one setting, restored when the last one ends."""

    def __init__(self):
        self.lock = threading.Lock()
        self.depth = 0
        self.saved = 1
        self.controls = False  # not looked up yet (None: there is nothing to control)

    def __enter__(self):
        with self.lock:
            if self.controls is False:
                self.controls = _openblas_controls()
            if self.depth == 0 and self.controls is not None:
                setter, getter = self.controls
                self.saved = getter()
                if self.saved > 1:
                    setter(1)
            self.depth += 1
        return self

    def __exit__(self, *exc):
        with self.lock:
            self.depth -= 1
            if self.depth == 0:
                self._restore()

    def _restore(self):
        if self.controls and self.saved > 1:
            self.controls[0](self.saved)

    def after_fork_in_child(self):
        # a region another thread had open at the fork never ends in the child
        self.lock = threading.Lock()
        if self.depth:
            self.depth = 0
            self._restore()


serial = _Serial()
os.register_at_fork(after_in_child=serial.after_fork_in_child)
