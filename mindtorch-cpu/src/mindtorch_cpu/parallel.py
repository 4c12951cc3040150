"""Intra-op parallelism, sized by torch.set_num_threads. The compiled kernels share their work out
on their own pool (native/pool.c: threads that never take the GIL and spin between ops, so handing
a block over costs a few us even where waking a thread costs tens); the caller only says how many
threads a kernel may use (threads_for). NumPy passes are split into blocks run on a pool of Python
threads here, since NumPy releases the GIL inside its loops."""

import contextvars
import os
import threading

import numpy as np
from mindtorch.plugins import get_num_threads

from . import native
from .allocator import ALLOCATOR, POOL_MIN
from .sizes import THRESHOLDS

# Elements per task below which an op is not split: twice PyTorch's grain (32k), since handing a task
# to a Python thread costs more than to an OpenMP one. Not tuned on an idle machine (the shared machine
# this was written on never was one); benchmarks/run.py is where to retune it.
GRAIN = 1 << 16

_local = threading.local()


class _Worker:
    """A thread that runs one task at a time, handed over through two locks (a round trip costs
    ~12 us here, a ThreadPoolExecutor's ~60 us: the handoff decides which ops are worth splitting)."""

    def __init__(self):
        self.start, self.done = threading.Lock(), threading.Lock()
        self.start.acquire()
        self.done.acquire()
        self.task = self.result = self.error = None
        threading.Thread(target=self._loop, name="mindtorch-cpu", daemon=True).start()

    def _loop(self):
        while True:
            self.start.acquire()
            task = self.task
            if task is None:  # retired
                return
            try:
                self.result = task()
            except BaseException as e:  # handed back to the caller
                self.error = e
            # drop the task before waiting: its closure holds views of the caller's arrays, which
            # would otherwise keep a pooled block (and a gradient buffer) from counting as unshared
            self.task = task = None
            self.done.release()

    def submit(self, task):
        self.task, self.result, self.error = task, None, None
        self.start.release()

    def wait(self):
        self.done.acquire()
        if self.error is not None:
            err, self.error = self.error, None
            raise err
        return self.result

    def retire(self):
        self.task = None
        self.start.release()


_pool = []  # workers (the calling thread is the pool's first member)
_busy = threading.Lock()  # one parallel region at a time; a second caller thread runs inline


def _workers(n):
    """At least n workers (a region uses the first ones it needs)."""
    if len(_pool) < n:
        for w in _pool:
            w.retire()
        _pool[:] = [_Worker() for _ in range(n)]
    return _pool


def _after_fork():  # a forked child has none of the parent's threads
    global _busy
    _pool.clear()
    _busy = threading.Lock()


os.register_at_fork(after_in_child=_after_fork)


def blocks(n, grain=GRAIN, cost=1):
    """Split range(n) (items of `cost` elements each) into at most get_num_threads() blocks."""
    nt = get_num_threads()
    k = min(nt, (n * cost) // grain, n)
    if k <= 1 or in_region():
        return [(0, n)]
    step = -(-n // k)
    return [(lo, min(n, lo + step)) for lo in range(0, n, step)]


def in_region():
    """True on a thread running a block of a parallel region (work started there stays on it)."""
    return getattr(_local, "inside", False)


def _run(fn, lo, hi):
    _local.inside = True  # nested parallel regions run inline
    try:
        return fn(lo, hi)
    finally:
        _local.inside = False


def parallel_for(n, fn, grain=GRAIN, cost=1):
    """fn(lo, hi) over blocks of range(n); the caller's thread takes the first block."""
    parts = blocks(n, grain, cost)
    if len(parts) == 1 or not _busy.acquire(blocking=False):
        return [fn(0, n)]
    try:
        workers = _workers(len(parts) - 1)
        # each task runs in a copy of the caller's context: NumPy's error state (quiet()) lives there
        for w, (lo, hi) in zip(workers, parts[1:]):
            w.submit(lambda lo=lo, hi=hi, run=contextvars.copy_context().run: run(_run, fn, lo, hi))  # noqa: B008  (one copy per task, on purpose)
        try:
            first = _run(fn, *parts[0])
        finally:
            rest = []
            error = None
            for w in workers[: len(parts) - 1]:
                try:
                    rest.append(w.wait())
                except BaseException as e:
                    error = error or e
        if error is not None:
            raise error
        return [first] + rest
    finally:
        _busy.release()


# Elements per cache block of a fused elementwise kernel: its few float32 temporaries stay in L2.
BLOCK = 1 << 14


def _share(block, total, grain=GRAIN):
    """A block no bigger than each thread's share of a splittable op, so no thread is left idle."""
    nt = get_num_threads()
    if nt > 1 and total >= 2 * grain:
        return max(1, min(block, -(-total // nt)))
    return block


def elementwise(fn, out, *inputs, scratch=0, block=BLOCK, grain=GRAIN):
    """Run fn(out_block, *input_blocks, *scratch_buffers) over cache-sized blocks of flat,
    C-contiguous arrays, the blocks shared out across the pool (ops of at least 2 * grain elements)."""
    o = out.reshape(-1)
    ins = [a.reshape(-1) for a in inputs]
    n = o.size
    block = _share(block, n, grain)
    nblocks = -(-n // block)

    def run(b0, b1):
        bufs = [np.empty(min(block, n), o.dtype) for _ in range(scratch)]
        for b in range(b0, b1):
            lo = b * block
            hi = min(n, lo + block)
            k = hi - lo
            fn(o[lo:hi], *[a[lo:hi] for a in ins], *[s[:k] for s in bufs])

    parallel_for(nblocks, run, grain, cost=block)
    return out


def threads_for(n, split):
    """Threads a compiled kernel over n elements may use: the pool's size from `split` elements up
    (unless the caller is itself a block of a parallel region), else one."""
    if n < split or in_region():
        return 1
    return get_num_threads()


def split_rows(fn, nrows, rowlen, split):
    """fn(lo, hi) over all rows in one call on this thread when the op has fewer than `split` elements
    (a small op pays no pool machinery), else over row blocks shared out across the pool."""
    if nrows * rowlen < split:
        fn(0, nrows)
    else:
        row_blocks(fn, nrows, rowlen, 4 * BLOCK, max(1, split // 2))


def row_blocks(fn, nrows, rowlen, block=4 * BLOCK, grain=GRAIN):
    """fn(lo, hi) over blocks of whole rows (about `block` elements each), shared out across the pool
    when there are at least 2 * grain elements."""
    per = max(1, _share(block, nrows * rowlen, grain) // max(rowlen, 1))
    nb = -(-nrows // per)

    def run(b0, b1):
        for b in range(b0, b1):
            fn(b * per, min(nrows, (b + 1) * per))

    parallel_for(nb, run, grain, cost=per * rowlen)


# ufuncs with a compiled float32 kernel (faster than NumPy's loop: see benchmarks/run.py), by their
# number of operands
_NATIVE_UNARY = {np.exp: native.exp}
_NATIVE_BINARY = {np.add: 0, np.subtract: 1, np.multiply: 2, np.divide: 3}


def ufunc(uf, dt, x, y=None):
    """uf(x[, y], dtype=dt): the result from the allocator's pool, split across the thread pool, when the
    operands are large; a small op pays two size checks over the plain call."""
    n = x.size if x.__class__ is np.ndarray else 0
    if y is None:
        if n * dt.itemsize < POOL_MIN:
            return uf(x, dtype=dt)
        return _ufunc_big(uf, dt, (x,))
    if y.__class__ is np.ndarray and y.size > n:
        n = y.size
    if n * dt.itemsize < POOL_MIN:
        return uf(x, y, dtype=dt)
    return _ufunc_big(uf, dt, (x, y))


def _ufunc_big(uf, dt, xs):
    """Same-shaped C-contiguous operands (Python scalars and 0-d arrays ride along) get a pooled result,
    split across the thread pool; anything else is one plain call."""
    shape = None
    for x in xs:
        if x.__class__ is np.ndarray and x.ndim:
            if shape is None:
                shape = x.shape
            elif x.shape != shape:
                return uf(*xs, dtype=dt)
            if not x.flags.c_contiguous:
                return uf(*xs, dtype=dt)
    if shape is None:
        return uf(*xs, dtype=dt)
    out = ALLOCATOR.empty(shape, dt)
    split = THRESHOLDS["elementwise"].split
    if dt == native.F32 and native.usable(*(x for x in xs if x.__class__ is np.ndarray and x.ndim)):
        if len(xs) == 1 and uf in _NATIVE_UNARY:
            _NATIVE_UNARY[uf](out, xs[0], threads_for(out.size, split))
            return out
        op = _NATIVE_BINARY.get(uf) if len(xs) == 2 else None
        if op is not None and out.size >= THRESHOLDS["elementwise"].native and _real_numbers(xs):
            native.binary(out, *xs, op, threads_for(out.size, split))
            return out
    if out.size < split or get_num_threads() < 2 or in_region():
        return uf(*xs, out=out, dtype=dt)
    o = out.reshape(-1)
    flat = [x.reshape(-1) if x.__class__ is np.ndarray and x.ndim else x for x in xs]

    def run(lo, hi):
        uf(*[f[lo:hi] if f.__class__ is np.ndarray and f.ndim else f for f in flat], out=o[lo:hi], dtype=dt)

    parallel_for(o.size, run, max(1, split // 2))
    return out


def _real_numbers(xs):
    """True when every operand that is not an array of the result's shape is a real number (a Python
    one or a 0-d array), which the compiled kernel then takes rounded to float32, as NumPy's float32
    loop does."""
    for x in xs:
        if x.__class__ is np.ndarray:
            if x.ndim == 0 and x.dtype.kind not in "biuf":
                return False
        elif x.__class__ is not float and x.__class__ is not int and x.__class__ is not bool:
            return False
    return True
