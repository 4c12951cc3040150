"""Pinned host memory with an npu present: Tensor.pin_memory(), DataLoader(pin_memory=True), and the cached pool
of page-locked blocks behind them and behind non-blocking uploads (a block is reused only after the copies that
read it have completed)."""

import gc

import mindtorch as torch
import numpy as np
import pytest
from mindtorch.utils.data import DataLoader, TensorDataset
from npu_helpers import live, pause, resume


@pytest.fixture()
def empty_pool():
    torch.npu.synchronize()
    gc.collect()
    torch.npu.empty_cache()
    yield live("host_allocations")
    torch.npu.synchronize()
    gc.collect()
    torch.npu.empty_cache()


def test_pin_memory_copies_into_page_locked_memory(empty_pool):
    x = torch.arange(12.0).reshape(3, 4).t()
    p = x.pin_memory()
    assert p.is_pinned() and not x.is_pinned() and p.device.type == "cpu"
    np.testing.assert_array_equal(p.numpy(), x.numpy())
    assert p.pin_memory() is p
    assert live("host_allocations") == empty_pool + 1
    w = torch.ones(2, requires_grad=True)
    (w.pin_memory() * 3).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [3.0, 3.0])
    with pytest.raises(RuntimeError, match="only dense CPU tensors can be pinned"):
        torch.ones(2, device="npu").pin_memory()


def test_an_upload_from_a_pinned_tensor_copies_in_place_and_holds_the_block(empty_pool):
    from mindtorch_npu.state import STAGING

    src = torch.arange(256.0).pin_memory()
    base = live("host_allocations")
    stream = torch.npu.Stream("npu:0")
    pause(stream.npu_stream)
    try:
        with torch.npu.stream(stream):
            n = src.to("npu:0", non_blocking=True)
        assert live("host_allocations") == base  # no staging block: the copy reads the pinned tensor itself
        assert len(STAGING) == 1  # the copy's event, holding the block
        del src
        gc.collect()
        other = torch.zeros(256).pin_memory()  # the freed block is still read by the queued copy: not handed out
        assert live("host_allocations") == base + 1
    finally:
        resume(stream.npu_stream)
    stream.synchronize()
    np.testing.assert_array_equal(n.cpu().numpy(), np.arange(256.0))
    del other
    gc.collect()
    again = torch.zeros(256).pin_memory()  # copies done, both blocks idle: one is reused
    assert live("host_allocations") == base + 1 and again.is_pinned()


def test_staged_uploads_reuse_pooled_blocks(empty_pool):
    outs = [torch.from_numpy(np.full(1000, float(i), np.float32)).to("npu", non_blocking=True) for i in range(20)]
    torch.npu.synchronize()
    for i in range(20):  # each staged upload queued before the previous ones completed may take a new block ...
        outs.append(torch.from_numpy(np.full(1000, float(i), np.float32)).to("npu", non_blocking=True))
        torch.npu.synchronize()  # ... but once they complete, the blocks are idle and reused
    assert live("host_allocations") <= empty_pool + 20
    for i, t in enumerate(outs):
        np.testing.assert_array_equal(t.cpu().numpy(), np.full(1000, float(i % 20), np.float32))


def test_dataloader_pins_batches(empty_pool):
    data = TensorDataset(torch.arange(8.0), torch.arange(8))
    batches = list(DataLoader(data, batch_size=4, pin_memory=True))
    assert all(t.is_pinned() for b in batches for t in b)
    np.testing.assert_array_equal(batches[1][0].numpy(), [4.0, 5.0, 6.0, 7.0])
    moved = [b[0].to("npu", non_blocking=True) for b in batches]
    np.testing.assert_array_equal(moved[0].cpu().numpy(), [0.0, 1.0, 2.0, 3.0])
