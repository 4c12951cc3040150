"""The process-wide NPU objects: the runtime, the caching allocator, the pinned staging area."""

from .allocator import KERNEL_PAD, CachingAllocator
from .runtime import Runtime
from .staging import PinnedHostAllocator, PinnedStaging


class NPUAllocator(CachingAllocator):
    def record_stream(self, storage, stream):
        """Accepts a mindtorch.npu.Stream (Tensor.record_stream's argument) or a raw handle."""
        super().record_stream(storage, stream.handle() if hasattr(stream, "handle") else stream)


RUNTIME = Runtime()
ALLOCATOR = NPUAllocator(RUNTIME, pad=KERNEL_PAD)
STAGING = PinnedStaging(RUNTIME)
HOST_ALLOCATOR = PinnedHostAllocator(STAGING)  # page-locked cpu storages (Tensor.pin_memory)


def before_shutdown():
    """At exit, before aclFinalize: finish queued work, then hand cached and staged memory back (index checks
    still unread at exit are dropped: there is no caller left to raise to)."""
    from .kernels._common import BOUNDS

    BOUNDS.discard()
    for index in sorted(RUNTIME._opened):
        RUNTIME.synchronize(index)
    STAGING.drain()
    from .aclnn import CACHE

    CACHE.clear()
    ALLOCATOR.empty_cache()
    from .streams import destroy_user_streams

    destroy_user_streams()
