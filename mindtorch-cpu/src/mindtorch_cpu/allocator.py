"""The CPU allocator: host memory from NumPy, with byte accounting and a free pool.

Large blocks (kernel outputs of at least POOL_MIN bytes made through `empty`) are kept when their
storage dies and handed out again for the same size: a fresh 4 MB block costs ~500 page faults,
12-20% of a 1024x1024 float32 add (benchmarks/run.py). A freed block is only reused once nothing
references it any more (a NumPy view handed to the user keeps it out of the pool).
"""

import sys
import weakref

import numpy as np
from mindtorch.plugins import Storage

from . import shared

POOL_MIN = 1 << 18  # smaller blocks come from malloc's own free lists
POOL_MAX_BYTES = 128 << 20  # cached bytes kept at most
POOL_MAX_BLOCKS = 32
LAZY_MAX = POOL_MIN  # kernel results below this many bytes get their Storage on first use (convert.wrap)


class CPUAllocator:
    """Bytes in use: those of the storages alive (`in_use`) plus those of the small kernel results
    whose storage was never asked for, counted while their array lives (tracked by weak reference,
    swept when the table doubles and whenever the count is read)."""

    def __init__(self):
        self.lazy = {}  # id(array) -> weak reference to it, for results without a storage yet
        self.sweep_at = 4096
        self.in_use = 0
        self.peak = 0
        self._cached = []  # freed pool blocks, oldest first (references held here)
        self._cached_bytes = 0
        # the blocks this pool made, by id, held weakly: an entry goes when its block dies, so a new array
        # that happens to get a dead block's id is never taken for one of ours
        self._ours = weakref.WeakValueDictionary()
        self._shm = {}  # id(shared array) -> its shared.Segment
        self._mapped = weakref.WeakValueDictionary()  # Segment.key -> the live Storage mapping it

    def allocate(self, nbytes, device):
        try:
            buf = np.empty(nbytes, np.uint8)
        except (MemoryError, ValueError):  # PyTorch reports a failed host allocation as a RuntimeError
            raise RuntimeError(
                f"DefaultCPUAllocator: not enough memory: you tried to allocate {nbytes} bytes."
            ) from None
        self.in_use += nbytes
        if self.in_use > self.peak:
            self.peak = self.in_use
        return Storage(device, nbytes, buf, self)

    def empty(self, shape, dtype):
        """An uninitialised C-contiguous array for a kernel's result, from the pool when large."""
        dtype = np.dtype(dtype)
        n = dtype.itemsize
        for s in shape:
            n *= s
        if n < POOL_MIN:
            return np.empty(shape, dtype)
        cached = self._cached
        for i in range(len(cached) - 1, -1, -1):
            buf = cached[i]
            # 3 references: the list, `buf` and getrefcount's argument: no array views it any more
            if buf.nbytes == n and sys.getrefcount(buf) == 3:
                del cached[i]
                self._cached_bytes -= n
                return buf.view(dtype).reshape(shape)
        buf = np.empty(n, np.uint8)
        self._ours[id(buf)] = buf
        return buf.view(dtype).reshape(shape)

    # -- shared memory (Tensor.share_memory_, mindtorch.multiprocessing) ------------------------------
    # A shared block is mapped MAP_SHARED, so forked children see it. With the "file_descriptor"
    # strategy it has no name at all (an anonymous memory file): nothing can be left behind in
    # /dev/shm, and it travels to other processes as a descriptor (SCM_RIGHTS through
    # multiprocessing's DupFd), which keeps the memory alive while a message carrying it is in
    # flight. With "file_system" it is a named file in /dev/shm, removed by its creator when its
    # storage dies and registered with multiprocessing's resource tracker, which removes it if the
    # creator dies first.
    def share(self, storage, strategy="file_descriptor"):
        n = int(storage.nbytes)
        seg = shared.create(max(n, 1), named=strategy == "file_system")
        block = np.frombuffer(seg.mm, np.uint8, count=n)
        if n:
            block[...] = np.ascontiguousarray(storage.data).view(np.uint8).reshape(-1)[:n]
        self._shm[id(block)] = seg
        storage.data = block

    def is_shared(self, storage):
        return id(storage.data) in self._shm

    def shared_handle(self, storage):
        """What another process needs to map this storage's shared block (picklable by multiprocessing)."""
        return self._shm[id(storage.data)].handle(int(storage.nbytes))

    def from_shared_handle(self, handle, device):
        """The storage of a block another process shared: the same Storage for a block already mapped
        here, so tensors sent apart that share memory still do."""
        seg, n = shared.attach(handle)
        known = self._mapped.get(seg.key)
        if known is not None:
            seg.close()
            return known
        self.in_use += n
        block = np.frombuffer(seg.mm, np.uint8, count=n)
        self._shm[id(block)] = seg
        st = Storage(device, n, block, self)
        self._mapped[seg.key] = st
        return st

    def free(self, storage):
        n = storage.nbytes
        self.in_use -= n
        if n < POOL_MIN and not self._shm:  # the common small block: nothing to keep or unlink
            return
        data = storage.data
        seg = self._shm.pop(id(data), None)
        if seg is not None:
            seg.close()
            return
        if data is None or n < POOL_MIN:
            return
        self._cache(data.base if isinstance(data, np.ndarray) else None)

    def release(self, a):
        """Give a kernel's temporary (an array from `empty`) back to the pool now rather than to NumPy:
        a 19 MB convolution unfold otherwise costs ~5000 page faults every step. It is handed out
        again only once nothing views it."""
        if a is not None and a.nbytes >= POOL_MIN:
            buf = a.base if a.base is not None else a
            if not any(b is buf for b in self._cached):
                self._cache(buf)

    def _cache(self, buf):
        if buf is None or self._ours.get(id(buf)) is not buf:
            return
        self._cached.append(buf)
        self._cached_bytes += buf.nbytes
        while self._cached_bytes > POOL_MAX_BYTES or len(self._cached) > POOL_MAX_BLOCKS:
            old = self._cached.pop(0)
            self._cached_bytes -= old.nbytes
            self._ours.pop(id(old), None)

    def empty_cache(self):
        for buf in self._cached:
            self._ours.pop(id(buf), None)
        self._cached.clear()
        self._cached_bytes = 0

    def adopt(self, a, device):
        """The Storage of a small result (convert.wrap keeps it in `lazy`): from now on its bytes
        are the storage's."""
        r = self.lazy.get(id(a))
        if r is not None and r() is a:
            del self.lazy[id(a)]
        n = a.nbytes
        self.in_use += n
        return Storage(device, n, a, self)

    def _lazy_bytes(self):
        total, dead = 0, []
        for k, r in self.lazy.items():
            a = r()
            if a is None:
                dead.append(k)
            else:
                total += a.nbytes
        for k in dead:
            del self.lazy[k]
        return total

    def sweep(self):
        """Drop the dead entries of `lazy`; the next sweep comes when it has doubled."""
        self._lazy_bytes()
        self.sweep_at = max(4096, 2 * len(self.lazy))

    def bytes_in_use(self, device=None):
        return self.in_use + self._lazy_bytes()

    def max_bytes_in_use(self, device=None):
        return max(self.peak, self.bytes_in_use())

    def data_ptr(self, storage):
        return storage.data.__array_interface__["data"][0] if storage.data is not None else 0


ALLOCATOR = CPUAllocator()


def dense(a, dtype=None):
    """`a` as a C-contiguous array of `dtype`: itself when it already is one, else a copy from the pool
    (a broadcast gradient, a transposed view), which the kernel gives back with ALLOCATOR.release."""
    dt = a.dtype if dtype is None else np.dtype(dtype)
    if a.dtype == dt and a.flags.c_contiguous:
        return a
    out = ALLOCATOR.empty(a.shape, dt)
    np.copyto(out, a, casting="unsafe")
    return out
