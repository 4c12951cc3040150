"""mindtorch-npu: Huawei Ascend NPUs through CANN (ACL runtime + ACLNN operators) over ctypes.

Nothing here touches CANN at import: the libraries are found and initialised on first use, so
`import mindtorch` works on machines without CANN and `mindtorch.npu.is_available()` is False there.
"""

import os

from mindtorch.plugins import Backend

__version__ = "0.1.0"


class NPUBackend(Backend):
    device_type = "npu"

    def allocator(self):
        from .state import ALLOCATOR

        return ALLOCATOR

    def copy_routines(self):
        from .copy import COPY

        return COPY

    def kernels(self):
        from .kernels import KERNELS

        return dict(KERNELS)

    def host_fallback(self):
        """Never silent: ops without an npu kernel run on the CPU only when the user opts in with
        MINDTORCH_NPU_CPU_FALLBACK=1 (core then warns once per op and coverage counts them)."""
        return os.environ.get("MINDTORCH_NPU_CPU_FALLBACK", "").strip().lower() in ("1", "true", "yes")

    def is_available(self):
        from .state import RUNTIME

        return RUNTIME.available()

    def device_count(self):
        from . import module

        return module.device_count()

    def synchronize(self, index):
        from . import module

        module.synchronize(index)
        return True

    def generator(self, index):
        from .generator import NPUGenerator

        return NPUGenerator(index)

    def timing_event(self, index):
        from .streams import TimingEvent

        return TimingEvent(index)

    def device_module(self):
        from . import module

        return module

    def distributed_backends(self):
        def hccl(comm, timeout):
            from .hccl import HcclEngine

            return HcclEngine(comm, timeout)

        return {"hccl": hccl}


backend = NPUBackend()
