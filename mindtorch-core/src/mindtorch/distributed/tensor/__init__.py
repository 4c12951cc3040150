"""torch.distributed.tensor's names, for programs that ask about DTensors.

mindtorch has no distributed tensors: no value is ever a DTensor (isinstance checks answer False), and
making one (DTensor.from_local, distribute_tensor) raises NotImplementedError naming what to use instead.
"""

from .placement_types import Partial, Placement, Replicate, Shard

__all__ = ["DTensor", "Placement", "Shard", "Replicate", "Partial", "distribute_tensor", "distribute_module"]

_NO_DTENSOR = (
    "distributed tensors (DTensor) are not supported by mindtorch; use DistributedDataParallel and "
    "the collectives of mindtorch.distributed"
)


class DTensor:
    """Never instantiated: mindtorch has no distributed tensors."""

    def __new__(cls, *args, **kwargs):
        raise NotImplementedError(_NO_DTENSOR)

    @classmethod
    def from_local(cls, *args, **kwargs):
        raise NotImplementedError(_NO_DTENSOR)


def distribute_tensor(*args, **kwargs):
    raise NotImplementedError(_NO_DTENSOR)


def distribute_module(*args, **kwargs):
    raise NotImplementedError(_NO_DTENSOR)
