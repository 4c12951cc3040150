"""Runs last (pytest orders files by name): after the whole npu session, nothing is left behind."""
import gc

import mindtorch as torch
from npu_helpers import live_counts


def test_nothing_leaked():
    gc.collect()
    for i in range(torch.npu.device_count()):
        torch.npu.synchronize(i)
    torch.npu.empty_cache()
    counts = live_counts()
    assert counts == {k: 0 for k in counts}, counts
