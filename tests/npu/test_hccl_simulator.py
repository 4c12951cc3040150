"""The simulator's libhccl at the C ABI (hccl.h): HCCL's result codes for bad arguments, a one-rank
communicator computing in stream order, communicators counted and released, nothing left in /dev/shm.
Multi-process collectives are tested in tests/distributed (the `distributed` session)."""

import ctypes as C
import os

import mindtorch as torch
import numpy as np
import pytest
from npu_helpers import live

SUCCESS, E_PARA, E_PTR, E_NOT_SUPPORT = 0, 1, 2, 5
FP32, INT128 = 4, 12
SUM, BAD_OP = 0, 7


@pytest.fixture
def hccl():
    from mindtorch_npu.hccl import _hccl

    return _hccl()


@pytest.fixture
def comm(hccl):
    from mindtorch_npu.acl import types as A

    torch.npu.set_device(0)
    before = live("hccl_comms")
    root = A.HcclRootInfo()
    assert hccl.HcclGetRootInfo(C.byref(root)) == SUCCESS
    raw = C.string_at(C.addressof(root), C.sizeof(root))
    assert len(raw) == A.HCCL_ROOT_INFO_BYTES and raw[0] == 0  # binary: a NUL in the first byte
    h = A.HcclComm()
    assert hccl.HcclCommInitRootInfo(1, C.byref(root), 0, C.byref(h)) == SUCCESS
    assert live("hccl_comms") == before + 1
    yield h
    torch.npu.synchronize(0)
    assert hccl.HcclCommDestroy(h) == SUCCESS
    assert live("hccl_comms") == before
    assert hccl.HcclCommDestroy(h) == E_PARA  # a dead handle
    name = raw[32:].split(b"\0", 1)[0].decode()
    assert name.startswith("/aclsim-hccl-") and not os.path.exists("/dev/shm" + name)


_streams = []


@pytest.fixture(autouse=True, scope="module")
def _drop_stream():
    yield
    while _streams:
        _streams.pop().destroy()


def stream():
    """A created stream on device 0 (HCCL refuses the NULL default stream)."""
    if not _streams:
        torch.npu.set_device(0)
        _streams.append(torch.npu.Stream(device=0))
    return _streams[0].handle()


def test_rank_queries_and_error_strings(hccl, comm):
    n, r = C.c_uint32(), C.c_uint32()
    assert hccl.HcclGetRankSize(comm, C.byref(n)) == SUCCESS and n.value == 1
    assert hccl.HcclGetRankId(comm, C.byref(r)) == SUCCESS and r.value == 0
    assert hccl.HcclGetErrorString(E_PARA) == b"parameter error"
    assert hccl.HcclGetErrorString(9) == b"timeout"
    err = C.c_int(-1)
    assert hccl.HcclGetCommAsyncError(comm, C.byref(err)) == SUCCESS and err.value == 0


def test_one_rank_all_reduce_and_broadcast_in_stream_order(hccl, comm):
    x = torch.arange(6, dtype=torch.float32, device="npu:0")
    y = torch.empty(6, device="npu:0")
    stream()
    _streams[0].wait_stream(torch.npu.current_stream(0))  # the collectives follow the arange
    assert hccl.HcclAllReduce(x.data_ptr(), y.data_ptr(), 6, FP32, SUM, comm, stream()) == SUCCESS
    assert hccl.HcclBroadcast(y.data_ptr(), 6, FP32, 0, comm, stream()) == SUCCESS
    assert hccl.HcclBarrier(comm, stream()) == SUCCESS
    torch.npu.current_stream(0).wait_stream(_streams[0])
    np.testing.assert_array_equal(y.cpu().numpy(), np.arange(6, dtype=np.float32))


def test_bad_arguments_get_hccl_result_codes(hccl, comm):
    x = torch.ones(4, device="npu:0")
    p, s = x.data_ptr(), stream()
    assert hccl.HcclAllReduce(p, p, 4, INT128, SUM, comm, s) == E_NOT_SUPPORT
    assert hccl.HcclAllReduce(p, p, 4, FP32, BAD_OP, comm, s) == E_PARA
    assert hccl.HcclAllReduce(None, p, 4, FP32, SUM, comm, s) == E_PTR
    assert hccl.HcclAllReduce(p, p, 4, FP32, SUM, None, s) == E_PARA
    assert hccl.HcclBroadcast(p, 4, FP32, 3, comm, s) == E_PARA  # root outside the communicator
    assert hccl.HcclSend(p, 4, FP32, 0, comm, s) == E_PARA  # to itself
    if torch.npu.device_count() > 1:  # the stream of another device
        other = torch.npu.Stream(device=1)
        assert hccl.HcclAllReduce(p, p, 4, FP32, SUM, comm, other.handle()) == E_PARA
        other.destroy()
        torch.npu.set_device(0)
    np.testing.assert_array_equal(x.cpu().numpy(), np.ones(4, np.float32))  # nothing ran


def test_init_rejects_bad_root_info_and_ranks(hccl):
    from mindtorch_npu.acl import types as A

    torch.npu.set_device(0)
    before = live("hccl_comms")
    h = A.HcclComm()
    forged = A.HcclRootInfo()
    forged.internal = b"not a root info"
    assert hccl.HcclCommInitRootInfo(1, C.byref(forged), 0, C.byref(h)) == E_PARA
    root = A.HcclRootInfo()
    assert hccl.HcclGetRootInfo(C.byref(root)) == SUCCESS
    assert hccl.HcclCommInitRootInfo(2, C.byref(root), 2, C.byref(h)) == E_PARA  # rank >= nRanks
    assert hccl.HcclCommInitRootInfo(1, None, 0, C.byref(h)) == E_PTR
    assert hccl.HcclGetRootInfo(None) == E_PTR
    assert live("hccl_comms") == before
