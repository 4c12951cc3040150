"""Pinned host memory: a cached pool of page-locked blocks (torch_npu's CachingHostAllocator, in small).

Blocks come from aclrtMallocHost in power-of-two sizes and go back to the pool, not to the driver: a block
some queued copy reads is reused only once an event recorded after that copy has completed, because the
device reads it when the stream reaches the copy, not when the copy was queued. Non-blocking uploads of
pageable (NumPy) memory are staged through such a block; tensors pinned with `pin_memory()` own one, and an
upload from them records its event on the block the same way. `empty_cache` gives the idle blocks back.
"""

import ctypes
import threading
import weakref

import numpy as np
from mindtorch.plugins import Storage

MIN_BLOCK = 512
MAX_CACHED = 256 << 20  # idle bytes kept; a block freed beyond this goes back to the driver


def block_size(nbytes):
    size = MIN_BLOCK
    while size < nbytes:
        size <<= 1
    return size


class PinnedStaging:
    def __init__(self, runtime):
        self.rt = runtime
        self.pending = []  # (event, pointer): a queued copy reads the block until the event completes
        self.released = {}  # pointer -> size: let go by its user, idle once no pending copy reads it
        self.idle = {}  # size -> [pointer]
        self.idle_bytes = 0
        self.owned = {}  # pointer -> size: blocks under a pinned tensor's buffer
        self._lock = threading.RLock()  # a pinned buffer's finalizer may run inside a locked section (gc)

    # -- blocks -------------------------------------------------------------------------------------------
    def allocate(self, nbytes):
        """(pointer, size) of a pinned block of at least `nbytes`: an idle one of its size when there is one."""
        size = block_size(nbytes)
        with self._lock:
            stack = self.idle.get(size)
            if not stack:
                self._poll_locked()
                stack = self.idle.get(size)
            if stack:
                self.idle_bytes -= size
                return stack.pop(), size
        return self.rt.malloc_host(size), size

    def record(self, ptr, stream, device):
        """A copy just queued on `stream` reads block `ptr`: record an event after it; the block is reused only
        once the event has completed."""
        rt = self.rt
        event = rt.new_event(device)
        try:
            rt.record_event(event, stream)
        except BaseException:
            rt.destroy_event(event)
            rt.synchronize_stream(device, stream)
            raise
        with self._lock:
            self.pending.append((event, ptr))

    def release(self, ptr, size):
        """The block's user is done with it: idle now, or once the copies reading it have completed."""
        with self._lock:
            self.released[ptr] = size
            self._poll_locked()

    def _poll_locked(self):
        if self.pending:
            keep = []
            for event, ptr in self.pending:
                if self.rt.event_done(event):
                    self.rt.destroy_event(event)
                else:
                    keep.append((event, ptr))
            self.pending = keep
        if self.released:
            busy = {ptr for _, ptr in self.pending}
            for ptr in [p for p in self.released if p not in busy]:
                self._to_idle(ptr, self.released.pop(ptr))

    def _to_idle(self, ptr, size):  # caller holds the lock
        if self.idle_bytes + size > MAX_CACHED:
            self.rt.free_host(ptr)
            return
        self.idle.setdefault(size, []).append(ptr)
        self.idle_bytes += size

    # -- staged uploads ---------------------------------------------------------------------------------
    def upload(self, dst_ptr, array, stream, device):
        """A non-blocking upload of pageable memory: staged through a pinned block, which goes back to the
        pool behind the copy."""
        nbytes = array.nbytes
        pinned, size = self.allocate(nbytes)
        try:
            ctypes.memmove(pinned, array.ctypes.data, nbytes)
            self.copy_from(dst_ptr, pinned, nbytes, stream, device, pinned)
        finally:
            self.release(pinned, size)

    def copy_from(self, dst_ptr, src, nbytes, stream, device, block):
        """Queue a host-to-device copy from `src`, inside pinned block `block`, the block's reuse ordered after
        the copy."""
        self.rt.memcpy_async(dst_ptr, src, nbytes, 1, stream)  # ACL_MEMCPY_HOST_TO_DEVICE
        self.record(block, stream, device)

    # -- completion ---------------------------------------------------------------------------------------
    def poll(self):
        """Blocks whose copies have completed become idle."""
        with self._lock:
            self._poll_locked()

    def drain(self):
        """Wait for every queued copy, then give every idle block back to the driver."""
        with self._lock:
            pending = list(self.pending)
        for event, _ in pending:
            self.rt.sync_event(event)
        self.empty_cache()

    def empty_cache(self):
        """Give the idle blocks back to the driver (a block a copy still reads stays until it completes)."""
        with self._lock:
            self._poll_locked()
            idle, self.idle, self.idle_bytes = self.idle, {}, 0
        for stack in idle.values():
            for ptr in stack:
                self.rt.free_host(ptr)

    def __len__(self):
        return len(self.pending)

    # -- pinned tensors -----------------------------------------------------------------------------------
    def host_buffer(self, nbytes):
        """A NumPy byte array over a pinned block, the block owned by the array: it goes back to the pool when
        the array and every view of it are gone (and the copies reading it have completed)."""
        ptr, size = self.allocate(max(nbytes, 1))
        array = np.frombuffer((ctypes.c_uint8 * size).from_address(ptr), np.uint8, count=nbytes)
        with self._lock:
            self.owned[ptr] = size
        weakref.finalize(array, self._disown, ptr, size)
        return array

    def _disown(self, ptr, size):
        with self._lock:
            self.owned.pop(ptr, None)
        self.release(ptr, size)

    def block_of(self, addr, nbytes):
        """The pinned block holding host range [addr, addr + nbytes) of a live pinned buffer, or None."""
        with self._lock:
            for ptr, size in self.owned.items():
                if ptr <= addr and addr + nbytes <= ptr + size:
                    return ptr
        return None


class PinnedHostAllocator:
    """Page-locked host storages for the cpu device (Tensor.pin_memory, DataLoader(pin_memory=True)): NumPy
    buffers over blocks of the pool, so the cpu kernels read and write them like any host storage, and a
    non-blocking upload from one queues its copy straight from the block."""

    pinned = True

    def __init__(self, staging):
        self.staging = staging

    def allocate(self, nbytes, device):
        return Storage(device, nbytes, self.staging.host_buffer(nbytes), self)

    def free(self, storage):
        pass  # the block follows its buffer's life (views of it may outlive the storage)

    def data_ptr(self, storage):
        return storage.data.ctypes.data
