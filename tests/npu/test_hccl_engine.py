"""The hccl engine against HCCL's documented rules, in one process (a one-rank communicator; the group's
MPI communicator is replaced by a stand-in that records what rank 0 broadcasts). Multi-process runs are
in tests/distributed."""

import threading

import mindtorch as torch
import numpy as np
import pytest
from npu_helpers import live

SUCCESS, E_PTR, E_NOT_SUPPORT = 0, 2, 5
FP32, INT16, UINT8, FP64, BF16 = 4, 1, 7, 10, 11
SUM, PROD = 0, 1


class OneRank:
    """The slice of an mpi4py communicator the engine uses, for a group of one."""

    def __init__(self, rank=0, size=1, receive=None):
        self.rank, self.size, self.receive, self.sent = rank, size, receive, []

    def Get_rank(self):
        return self.rank

    def Get_size(self):
        return self.size

    def bcast(self, obj, root=0):
        if self.rank == root:
            self.sent.append(obj)
            return obj
        return self.receive


@pytest.fixture
def engine():
    from mindtorch_npu.hccl import HcclEngine

    torch.npu.set_device(0)
    before = live("streams"), live("hccl_comms")
    eng = HcclEngine(OneRank())
    yield eng
    eng.destroy()
    assert (live("streams"), live("hccl_comms")) == before


@pytest.fixture
def hccl():
    from mindtorch_npu.hccl import _hccl

    return _hccl()


def test_collectives_refuse_the_null_stream(hccl, engine):
    # hccl src/ops/*/..._op.cc: CHK_PTR_NULL(stream) in every collective
    x = torch.ones(4, device="npu:0")
    p = x.data_ptr()
    assert hccl.HcclAllReduce(p, p, 4, FP32, SUM, engine.comm, None) == E_PTR
    assert hccl.HcclBroadcast(p, 4, FP32, 0, engine.comm, None) == E_PTR
    assert hccl.HcclBarrier(engine.comm, None) == E_PTR


def test_engine_runs_on_its_own_stream_in_order_with_the_current_one(engine):
    x = torch.arange(6, dtype=torch.float32, device="npu:0")
    x.mul_(2)  # queued on the current stream before the collective
    engine.all_reduce(x, "sum")
    x.add_(1)  # queued after it: sees its result
    engine.broadcast(x, 0)
    engine.barrier()
    np.testing.assert_array_equal(x.cpu().numpy(), np.arange(6, dtype=np.float32) * 2 + 1)
    assert engine.stream.handle() != torch.npu.current_stream(0).handle()


def test_root_info_travels_whole():
    from mindtorch_npu.acl import types as A
    from mindtorch_npu.hccl import HcclEngine

    torch.npu.set_device(0)
    comm = OneRank()
    eng = HcclEngine(comm)
    try:
        (raw,) = comm.sent
        assert len(raw) == A.HCCL_ROOT_INFO_BYTES and raw[0] == 0  # binary, NUL bytes inside
    finally:
        eng.destroy()


def test_a_short_root_info_is_refused_on_receipt():
    from mindtorch_npu.hccl import HcclEngine, HcclError

    torch.npu.set_device(0)
    with pytest.raises(HcclError, match="4108"):
        HcclEngine(OneRank(rank=1, size=2, receive=b"aclsim"))


def test_root_info_is_made_with_the_device_bound_on_that_thread():
    # hccl examples/02_collectives/01_allreduce/main.cc: aclrtSetDevice, then HcclGetRootInfo
    from mindtorch_npu.hccl import HcclEngine

    out = {}

    def fresh_thread():
        try:
            eng = HcclEngine(OneRank())
            eng.destroy()
            out["ok"] = True
        except Exception as e:  # reported to the test thread
            out["error"] = e

    t = threading.Thread(target=fresh_thread)
    t.start()
    t.join()
    assert out.get("ok"), out.get("error")


def test_simulator_refuses_what_hccl_does_not_reduce(hccl, engine):
    # hccl op_common.cc CheckDataType / CheckReduceOp and the docs' dataType lists for the 910B class
    s = engine.stream.handle()
    x = torch.ones(4, dtype=torch.int32, device="npu:0")
    p = x.data_ptr()
    assert hccl.HcclAllReduce(p, p, 4, UINT8, SUM, engine.comm, s) == E_NOT_SUPPORT
    assert hccl.HcclAllReduce(p, p, 2, FP64, SUM, engine.comm, s) == E_NOT_SUPPORT
    assert hccl.HcclAllReduce(p, p, 4, INT16, PROD, engine.comm, s) == E_NOT_SUPPORT
    assert hccl.HcclAllReduce(p, p, 4, BF16, PROD, engine.comm, s) == E_NOT_SUPPORT
    assert hccl.HcclBroadcast(p, 4, UINT8, 0, engine.comm, s) == SUCCESS  # moving uint8 is fine
    engine.stream.synchronize()


@pytest.mark.parametrize("dtype", [torch.bool, torch.uint8, torch.int16, torch.bfloat16])
@pytest.mark.parametrize("op", ["sum", "product", "max", "min"])
def test_engine_reduces_through_a_wider_dtype(engine, dtype, op):
    values = np.array([0, 1, 3, 2])
    x = torch.tensor(values.astype(bool) if dtype == torch.bool else values, dtype=dtype, device="npu:0")
    engine.all_reduce(x, op)
    assert x.dtype == dtype
    want = torch.tensor(values.astype(bool) if dtype == torch.bool else values, dtype=dtype)
    assert torch.equal(x.cpu(), want)  # one rank: the reduction is the identity


def test_float64_reductions_say_where_they_exist(engine):
    x = torch.ones(3, dtype=torch.float64, device="npu:0")
    with pytest.raises(RuntimeError, match="Ascend950"):
        engine.all_reduce(x, "sum")
    engine.broadcast(x, 0)  # moving float64 is supported
    engine.barrier()
    np.testing.assert_array_equal(x.cpu().numpy(), np.ones(3))
