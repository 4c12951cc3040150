"""The profiler on npu (simulator): each op's device time comes from the backend's timing events, its
device memory from the npu allocator, and the trace has a row for the device's work."""

import json

import mindtorch as torch
from mindtorch.profiler import ProfilerActivity, profile, supported_activities


def test_npu_is_a_supported_activity():
    assert supported_activities() == {ProfilerActivity.CPU, ProfilerActivity.PrivateUse1}
    assert ProfilerActivity.NPU is ProfilerActivity.PrivateUse1


def test_npu_ops_get_device_time_memory_and_trace_rows(tmp_path):
    a = torch.randn(64, 64, device="npu")
    b = torch.randn(64, 64, device="npu")
    torch.npu.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.PrivateUse1], profile_memory=True) as prof:
        c = torch.mm(a, b)
        d = c + a
    del c
    npu_ops = {e.name: e for e in prof.events() if e.name in ("aten::mm", "aten::add")}
    assert set(npu_ops) == {"aten::mm", "aten::add"}
    for e in npu_ops.values():
        assert e.device_time_total > 0
        # the result's block from the npu allocator (its size rounded up as torch_npu's allocator rounds)
        assert 64 * 64 * 4 <= e.device_memory_usage < 64 * 64 * 4 + 1024
    table = prof.key_averages().table(sort_by="self_npu_time_total", row_limit=5)
    header = table.splitlines()[1].split("  ")
    header = [h.strip() for h in header if h.strip()]
    assert header[:9] == [
        "Name",
        "Self CPU %",
        "Self CPU",
        "CPU total %",
        "CPU total",
        "CPU time avg",
        "Self NPU",
        "Self NPU %",
        "NPU total",
    ]
    assert "NPU Mem" in header and "Self NPU Mem" in header
    assert "Self NPU time total:" in table
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    events = json.loads(path.read_text())["traceEvents"]
    kernels = [e for e in events if e.get("cat") == "kernel"]
    assert sorted(e["name"] for e in kernels) == ["aten::add", "aten::mm"]
    assert all(e["dur"] > 0 for e in kernels)
    assert d.shape == (64, 64)
