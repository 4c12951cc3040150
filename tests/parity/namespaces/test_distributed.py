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


def _p2p_cases(lib):
    d = lib.distributed
    return {
        "op not isend or irecv": lambda: d.P2POp(d.send, lib.ones(1), 1),
        "tensor not a tensor": lambda: d.P2POp(d.isend, [1.0], 1),
        "no default group": lambda: d.P2POp(d.isend, lib.ones(1), 1),
        "list of other things": lambda: d.batch_isend_irecv(["send"]),
        "not a list": lambda: d.batch_isend_irecv("send"),
        "empty list": lambda: d.batch_isend_irecv([]),
    }


@pytest.mark.parametrize("case", sorted(_p2p_cases(mt)))
def test_p2p_op_and_batch_checks_as_pytorch(case):
    def outcome(lib):
        try:
            _p2p_cases(lib)[case]()
        except Exception as e:
            return type(e).__name__, str(e).split("\n")[0]
        return None

    assert outcome(mt) == outcome(torch)
    assert mt.distributed.P2POp.__name__ in mt.distributed.__all__ and "batch_isend_irecv" in mt.distributed.__all__
