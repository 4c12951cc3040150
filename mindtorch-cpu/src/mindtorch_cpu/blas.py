"""BLAS and LAPACK calls that a fork can wait for.

OpenBLAS's at-fork handler shuts its thread pool down, and waits for it: when another thread is inside
a BLAS call at that moment, os.fork never returns (plain NumPy hangs the same way). Every kernel's
BLAS or LAPACK call goes through this module, which counts the calls in flight; a fork (a DataLoader
starting its workers, say) waits until none is, and holds new ones back until it is done. Calls to
NumPy made outside mindtorch are not counted.

OpenBLAS runs on one thread except for calls big enough to gain from more (see THREADS below);
`with serial:` keeps it on its caller's thread, for kernels that share their work out across the
backend's own thread pool.
"""

import ctypes
import os
import threading

import numpy as np
from mindtorch.plugins import get_num_threads

from .parallel import in_region
from .sizes import THRESHOLDS


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
_INFLIGHT = GATE.inflight  # the same list for the process's life (a forked child clears it)
os.register_at_fork(
    before=GATE.before_fork, after_in_parent=GATE.after_fork_in_parent, after_in_child=GATE.after_fork_in_child
)


class _Gated:
    """A module whose functions run inside the gate (its classes and constants as they are); a call with
    large array arguments runs with OpenBLAS on the pool's threads (see THREADS)."""

    def __init__(self, module):
        self._module = module

    def __getattr__(self, name):
        f = getattr(self._module, name)
        if not callable(f) or isinstance(f, type):
            return f
        gate, inflight = GATE, GATE.inflight

        def gated(*args, **kwargs):
            inflight.append(None)  # GATE.__enter__ and __exit__, inline: small calls pay for every one
            if gate.forking:
                gate.hold()
            try:
                big = sum(a.size for a in args if a.__class__ is np.ndarray)
                if big < WIDE_ELEMENTS:
                    if big >= SERIAL_FROM and not THREADS.idle:
                        THREADS.make_idle()
                    return f(*args, **kwargs)
                return THREADS.wide(f, args, kwargs)
            finally:
                inflight.pop()
                if gate.forking:
                    gate.leave()

        setattr(self, name, gated)
        return gated


def _product(f, a, b, out):
    """f(a, b, out=out) (np.matmul or np.dot) inside the gate; OpenBLAS threads it only when it has at
    least THRESHOLDS["matmul"].split multiply-adds (a stacked product's count taken as a.size * b.size
    / k, an overestimate: OpenBLAS still keeps each small matrix product on one thread)."""
    inflight = GATE.inflight
    inflight.append(None)
    if GATE.forking:
        GATE.hold()
    try:
        shape = a.shape
        k = (shape[-1] if shape else 1) or 1
        work = a.size * b.size
        if work < SERIAL_FROM * k:  # OpenBLAS runs it on one thread anyway
            return f(a, b, out=out)
        if work < THRESHOLDS["matmul"].split * k:
            if not THREADS.idle:
                THREADS.make_idle()
            return f(a, b, out=out)
        return THREADS.wide(f, (a, b), {"out": out})
    finally:
        inflight.pop()
        if GATE.forking:
            GATE.leave()


def matmul(a, b, out=None):
    return _product(np.matmul, a, b, out)


def dot(a, b):
    """np.dot, for two matrices: no ufunc dispatch, so a 4x4 product costs ~0.6 of matmul's time. A
    product OpenBLAS keeps on one thread anyway only enters the gate (no call of _product's)."""
    if a.size * b.size >= SERIAL_FROM * (a.shape[1] or 1):
        return _product(np.dot, a, b, None)
    _INFLIGHT.append(None)
    if GATE.forking:
        GATE.hold()
    try:
        return np.dot(a, b)
    finally:
        _INFLIGHT.pop()
        if GATE.forking:
            GATE.leave()


linalg = _Gated(np.linalg)
_np = _Gated(np)
tensordot = _np.tensordot


# --- OpenBLAS's own threads ---------------------------------------------------------------------------
# After a threaded call OpenBLAS's worker threads spin (for 2^28 cycles, about a tenth of a second)
# before they sleep. Beside the backend's pool that is a third busy thread on two cores: a (32,16,32,32)
# 16->32 3x3 convolution's forward and backward, its loss `y.sum()` (a matrix-vector product that
# OpenBLAS threads from 9216 elements), took 37-40 ms of CPU time per step on two threads, one third of
# it OpenBLAS's spinning worker, against 19-23 ms with OpenBLAS held to one thread (a busy 2-core
# machine, wall times 60-130 ms against 60 ms). So this module holds OpenBLAS to one thread from its
# first call that OpenBLAS might thread, and gives it the pool's thread count (torch.set_num_threads)
# only for the duration of a call big enough to gain more than that costs: THRESHOLDS["matmul"].split
# multiply-adds for a matrix product, WIDE_ELEMENTS elements of array arguments for LAPACK and the rest.
# A call from the pool's own threads or inside `serial` stays on its thread. NumPy's own BLAS calls
# made outside mindtorch then run on one thread too.
SERIAL_FROM = 1 << 13  # multiply-adds (or elements) below which OpenBLAS never threads a call
WIDE_ELEMENTS = 1 << 16

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


class _Threads:
    """OpenBLAS's thread count. Outside any region it is what it was (one, once `make_idle` ran);
    inside a `serial` region one; inside a `wide` call the pool's size. Nested and concurrent regions
    share one setting; the count found when the first began is restored when the last ends."""

    def __init__(self):
        self.lock = threading.Lock()
        self.controls = False  # not looked up yet (None: there is nothing to control)
        self.serial = 0  # serial regions open
        self.wide_calls = 0  # wide calls in flight (never while a serial region is open)
        self.saved = 1
        self.idle = False  # held to one thread outside regions

    def _lookup(self):
        if self.controls is False:
            self.controls = _openblas_controls()
        return self.controls

    def _begin(self):
        """Under the lock, before the region's count goes up: remember the count outside regions."""
        if self.serial == 0 and self.wide_calls == 0 and self._lookup() is not None:
            self.saved = self.controls[1]()

    def _settle(self):
        """Under the lock: the count the open regions want, or the saved one when none is open."""
        if self.controls is None or self.controls is False:
            return
        setter, getter = self.controls
        if self.serial:
            want = 1
        elif self.wide_calls:
            want = get_num_threads()
        else:
            want = self.saved
        if getter() != want:
            setter(want)

    def make_idle(self):
        """Hold OpenBLAS to one thread outside regions (once: later calls see `idle`)."""
        with self.lock:
            if self._lookup() is not None:
                if self.serial == 0 and self.wide_calls == 0:
                    self.controls[0](1)
                self.saved = 1
            self.idle = True

    def __enter__(self):
        with self.lock:
            self._begin()
            self.serial += 1
            self._settle()
        return self

    def __exit__(self, *exc):
        with self.lock:
            self.serial -= 1
            self._settle()

    def wide(self, f, args, kwargs):
        """f(*args, **kwargs) with OpenBLAS on the pool's threads, unless the caller is one of the pool's
        threads or a serial region is open (there the call stays on its thread)."""
        if not self.idle:
            self.make_idle()
        with self.lock:
            go_wide = self.serial == 0 and not in_region() and get_num_threads() > 1
            if go_wide:
                self._begin()
                self.wide_calls += 1
                self._settle()
        if not go_wide:
            return f(*args, **kwargs)
        try:
            return f(*args, **kwargs)
        finally:
            with self.lock:
                self.wide_calls -= 1
                self._settle()

    def after_fork_in_child(self):
        # a region another thread had open at the fork never ends in the child
        self.lock = threading.Lock()
        if self.serial or self.wide_calls:
            self.serial = self.wide_calls = 0
            self._settle()


THREADS = _Threads()
serial = THREADS  # `with serial:` OpenBLAS runs each call on its caller's thread
os.register_at_fork(after_in_child=THREADS.after_fork_in_child)
