"""torch.Stream / torch.Event over the npu backend's streams and events."""

import mindtorch as torch
import numpy as np
from npu_helpers import pause, resume


def test_a_generic_stream_wraps_an_npu_stream():
    s = torch.Stream("npu:0")
    assert (s.device_type, s.device_index, str(s.device)) == (20, 0, "npu:0")
    assert s.stream_id != 0 and s.query()
    assert s == s and s != torch.Stream("npu:0")
    assert repr(s).startswith("torch.Stream device_type=npu, device_index=0, stream_id=")
    default = torch.Stream()  # the current accelerator's current device
    assert str(default.device) == "npu:0"


def test_work_queued_on_a_paused_stream_is_seen_by_query_and_events():
    s = torch.Stream("npu:0")
    x = torch.arange(8.0, device="npu:0")
    torch.npu.synchronize()  # x was made on the default stream: nothing else orders it before s
    pause(s.stream_id)
    try:
        with s:
            assert torch.npu.current_stream().npu_stream == s.stream_id
            y = x * 2
            done = s.record_event()
        assert not s.query() and not done.query()
    finally:
        resume(s.stream_id)
    done.synchronize()
    assert done.query() and s.query()
    np.testing.assert_array_equal(y.cpu().numpy(), np.arange(8.0) * 2)
    assert torch.npu.current_stream().npu_stream != s.stream_id  # the context restored the stream


def test_one_stream_waits_for_another():
    producer, consumer = torch.Stream("npu:0"), torch.Stream("npu:0")
    x = torch.ones(4, device="npu:0")
    torch.npu.synchronize()  # made on the default stream, read on the producer's
    pause(producer.stream_id)
    try:
        with producer:
            y = x + 1
        consumer.wait_stream(producer)
        with consumer:
            z = y * 3
        marker = consumer.record_event()
        assert not marker.query()  # the consumer is held behind the paused producer
    finally:
        resume(producer.stream_id)
    consumer.synchronize()
    np.testing.assert_array_equal(z.cpu().numpy(), np.full(4, 6.0))


def test_timed_events_measure_and_untimed_ones_refuse():
    start, end = torch.Event("npu:0", enable_timing=True), torch.Event("npu:0", enable_timing=True)
    s = torch.Stream("npu:0")
    start.record(s)
    with s:
        torch.ones(64, device="npu:0").sum()
    end.record(s)
    end.synchronize()
    assert start.elapsed_time(end) >= 0.0
    assert start.event_id != 0 and repr(start).startswith("torch.Event device_type=npu, device_index=0, event_flag=1")
    plain = torch.Event("npu:0")
    plain.record()  # on the current stream
    plain.wait(s)
    plain.synchronize()
    try:
        plain.elapsed_time(end)
    except ValueError as exc:
        assert "enable_timing=True" in str(exc)
    else:
        raise AssertionError("elapsed_time of an untimed event must raise")
