"""torch.distributed names Hugging Face code imports, against PyTorch: DTensor placement records, the
truthful refusals for DTensor / FSDP, and dynamo's TransformGetItemToIndex."""

import pytest
from helpers import torch_or_skip

torch = torch_or_skip()

import mindtorch as mt  # noqa: E402


def test_placements_and_refusals():
    from mindtorch.distributed import tensor as mdt
    from torch.distributed import tensor as tdt

    for m, t in ((mdt.Shard(1), tdt.Shard(1)), (mdt.Replicate(), tdt.Replicate())):
        assert (m.is_shard(), m.is_replicate(), repr(m)) == (t.is_shard(), t.is_replicate(), repr(t))
    assert mdt.Shard(0) != mdt.Shard(1) and mdt.Shard(0) == mdt.Shard(0)
    assert not isinstance(mt.ones(2), mdt.DTensor)
    with pytest.raises(NotImplementedError, match="DTensor"):
        mdt.distribute_tensor(mt.ones(2), None, None)
    from mindtorch.distributed.fsdp import FullyShardedDataParallel, MixedPrecisionPolicy

    with pytest.raises(NotImplementedError, match="DistributedDataParallel"):
        FullyShardedDataParallel(mt.nn.Linear(2, 2))
    assert MixedPrecisionPolicy(param_dtype=mt.bfloat16).param_dtype is mt.bfloat16
    from mindtorch._dynamo._trace_wrapped_higher_order_op import TransformGetItemToIndex

    with TransformGetItemToIndex():
        assert mt.arange(5)[mt.tensor([1, 3])].tolist() == [1, 3]
