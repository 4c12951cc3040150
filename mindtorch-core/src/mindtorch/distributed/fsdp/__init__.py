"""torch.distributed.fsdp's names. mindtorch does not shard parameters (FSDP): wrapping a model raises
NotImplementedError pointing at DistributedDataParallel; the policy records are plain data, as in PyTorch."""

from dataclasses import dataclass

__all__ = ["FullyShardedDataParallel", "fully_shard", "CPUOffloadPolicy", "MixedPrecisionPolicy", "OffloadPolicy"]

_NO_FSDP = (
    "fully sharded data parallel (FSDP) is not supported by mindtorch; use torch.nn.parallel.DistributedDataParallel"
)


class FullyShardedDataParallel:
    def __init__(self, *args, **kwargs):
        raise NotImplementedError(_NO_FSDP)


def fully_shard(*args, **kwargs):
    raise NotImplementedError(_NO_FSDP)


@dataclass
class OffloadPolicy:
    pass


@dataclass
class CPUOffloadPolicy(OffloadPolicy):
    pin_memory: bool = True


@dataclass
class MixedPrecisionPolicy:
    param_dtype: object = None
    reduce_dtype: object = None
    output_dtype: object = None
    cast_forward_inputs: bool = True
