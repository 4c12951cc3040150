"""BLAS and LAPACK calls that a fork can wait for.

OpenBLAS's at-fork handler shuts its thread pool down, and waits for it: when another thread is inside
a BLAS call at that moment, os.fork never returns (plain NumPy hangs the same way). Every kernel's
BLAS or LAPACK call goes through this module, which counts the calls in flight; a fork (a DataLoader
starting its workers, say) waits until none is, and holds new ones back until it is done. Calls to
NumPy made outside mindtorch are not counted.
"""

import os
import threading

import numpy as np


class _Gate:
    """The number of BLAS calls in flight; while a fork is pending none may start."""

    __slots__ = ("lock", "cond", "busy", "forking")

    def __init__(self):
        self.lock = threading.Lock()
        self.cond = threading.Condition(self.lock)
        self.busy = 0
        self.forking = False

    def __enter__(self):
        with self.lock:
            while self.forking:
                self.cond.wait()
            self.busy += 1

    def __exit__(self, *exc):
        with self.lock:
            self.busy -= 1
            if self.forking and not self.busy:
                self.cond.notify_all()

    def before_fork(self):
        # waits on the condition: with a sleep-and-poll loop instead, the call in flight was seen to
        # stay stuck inside OpenBLAS
        with self.lock:
            self.forking = True
            while self.busy:
                self.cond.wait()

    def after_fork_in_parent(self):
        with self.lock:
            self.forking = False
            self.cond.notify_all()


GATE = _Gate()
# the child has none of the parent's other threads: a fresh gate
os.register_at_fork(before=GATE.before_fork, after_in_parent=GATE.after_fork_in_parent, after_in_child=GATE.__init__)


class _Gated:
    """A module whose functions run inside the gate (its classes and constants as they are)."""

    def __init__(self, module):
        self._module = module

    def __getattr__(self, name):
        f = getattr(self._module, name)
        if not callable(f) or isinstance(f, type):
            return f

        def gated(*args, **kwargs):
            with GATE:
                return f(*args, **kwargs)

        setattr(self, name, gated)
        return gated


linalg = _Gated(np.linalg)
_np = _Gated(np)
matmul = _np.matmul
tensordot = _np.tensordot
