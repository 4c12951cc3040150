"""On a real Ascend NPU (MINDTORCH_NPU_TEST_HARDWARE=1): the same Python code the simulator tests drive."""

import mindtorch as torch
import numpy as np
import pytest

pytestmark = pytest.mark.hardware


def test_real_libraries_not_the_simulator():
    from mindtorch_npu.state import RUNTIME

    assert torch.npu.is_available()
    assert not hasattr(RUNTIME.libs.ascendcl, "aclsimLiveCount")
    assert RUNTIME.soc_name().startswith("Ascend")


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16], ids=str)
def test_kernels_match_cpu(dtype):
    g = np.random.default_rng(0)
    a = torch.tensor(g.standard_normal((16, 32)), dtype=torch.float32).to(dtype)
    b = torch.tensor(g.standard_normal((32, 8)), dtype=torch.float32).to(dtype)
    na, nb = a.to("npu"), b.to("npu")
    tol = 1e-2 if dtype is not torch.float32 else 1e-4
    for got, want in [((na + na) @ nb, (a + a) @ b), (na * 3 - na, a * 3 - a), (na.t().clone(), a.t().clone())]:
        np.testing.assert_allclose(got.cpu().float().numpy(), want.float().numpy(), rtol=tol, atol=tol)


def test_streams_events_memory():
    s = torch.npu.Stream()
    start, end = torch.npu.Event(enable_timing=True), torch.npu.Event(enable_timing=True)
    x = torch.ones(256, 256, device="npu")
    s.wait_stream(torch.npu.current_stream())
    with torch.npu.stream(s):
        start.record()
        y = x @ x
        end.record()
    end.synchronize()
    assert start.elapsed_time(end) >= 0
    with torch.npu.stream(s):
        assert float(y.cpu()[0, 0]) == 256.0
    assert torch.npu.memory_allocated() > 0 and torch.npu.memory_reserved() >= torch.npu.memory_allocated()
