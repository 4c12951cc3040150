"""Pinned host staging for non-blocking host->device copies.

The host data is copied into page-locked memory from aclrtMallocHost and queued with
aclrtMemcpyAsync; the pinned buffer stays alive until an event recorded after the copy has
completed, because the device reads it when the stream reaches the copy, not when it was queued.
"""

import ctypes
import threading


class PinnedStaging:
    def __init__(self, runtime):
        self.rt = runtime
        self.pending = []  # (event, pinned pointer)
        self._lock = threading.Lock()

    def upload(self, dst_ptr, array, stream, device):
        rt = self.rt
        nbytes = array.nbytes
        pinned = rt.malloc_host(nbytes)
        try:
            ctypes.memmove(pinned, array.ctypes.data, nbytes)
            rt.memcpy_async(dst_ptr, pinned, nbytes, 1, stream)  # ACL_MEMCPY_HOST_TO_DEVICE
            event = rt.new_event(device)
        except BaseException:
            rt.synchronize_stream(device, stream)
            rt.free_host(pinned)
            raise
        rt.record_event(event, stream)
        with self._lock:
            self.pending.append((event, pinned))
        self.poll()

    def poll(self):
        """Free the buffers whose copies have completed."""
        with self._lock:
            if not self.pending:
                return
            keep = []
            for event, pinned in self.pending:
                if self.rt.event_done(event):
                    self.rt.destroy_event(event)
                    self.rt.free_host(pinned)
                else:
                    keep.append((event, pinned))
            self.pending = keep

    def drain(self):
        with self._lock:
            pending, self.pending = self.pending, []
        for event, pinned in pending:
            self.rt.sync_event(event)
            self.rt.destroy_event(event)
            self.rt.free_host(pinned)

    def __len__(self):
        return len(self.pending)
