"""torch.Stream / torch.Event on the host devices (and where no accelerator is), against PyTorch."""

import pytest
from helpers import torch_or_skip

torch = torch_or_skip()

import mindtorch as mt  # noqa: E402

CALLS = {
    "stream_repr": lambda lib: repr(lib.Stream("cpu")),
    "meta_stream_repr": lambda lib: repr(lib.Stream("meta")),
    "default_stream": lambda lib: repr(lib.Stream()),
    "stream_device": lambda lib: str(lib.Stream("cpu").device),
    "stream_fields": lambda lib: (lambda s: (s.device_type, s.device_index, s.stream_id))(lib.Stream("cpu")),
    "stream_query": lambda lib: lib.Stream("cpu").query(),
    "stream_synchronize": lambda lib: lib.Stream("cpu").synchronize(),
    "stream_eq": lambda lib: lib.Stream("cpu") == lib.Stream("cpu"),
    "stream_ne_meta": lambda lib: lib.Stream("cpu") == lib.Stream("meta"),
    "stream_hash_eq": lambda lib: hash(lib.Stream("cpu")) == hash(lib.Stream("cpu")),
    "stream_priority": lambda lib: repr(lib.Stream("cpu", priority=-1)),
    "stream_context": lambda lib: (lambda s: s.__enter__() is s)(lib.Stream("cpu")),
    "stream_wait_event": lambda lib: lib.Stream("cpu").wait_event(lib.Event("cpu")),
    "stream_wait_stream": lambda lib: lib.Stream("cpu").wait_stream(lib.Stream("cpu")),
    "stream_record_event": lambda lib: lib.Stream("cpu").record_event(),
    "stream_by_index": lambda lib: lib.Stream(0),
    "stream_cuda": lambda lib: lib.Stream("cuda"),
    "event_repr": lambda lib: repr(lib.Event("cpu")),
    "default_event": lambda lib: repr(lib.Event()),
    "timing_event_repr": lambda lib: repr(lib.Event("cpu", enable_timing=True)),
    "event_fields": lambda lib: (lambda e: (str(e.device), e.event_id))(lib.Event("cpu")),
    "event_query": lambda lib: lib.Event("cpu").query(),
    "event_synchronize": lambda lib: lib.Event("cpu").synchronize(),
    "event_wait": lambda lib: lib.Event("cpu").wait(),
    "event_record": lambda lib: lib.Event("cpu").record(),
    "event_record_on": lambda lib: lib.Event("cpu").record(lib.Stream("cpu")),
    "event_elapsed_untimed": lambda lib: lib.Event("cpu").elapsed_time(lib.Event("cpu")),
    "event_cuda": lambda lib: lib.Event("cuda"),
}


def _outcome(fn, lib):
    try:
        return "value", fn(lib)
    except Exception as exc:
        return "error", type(exc).__name__


@pytest.mark.parametrize("name", sorted(CALLS))
def test_stream_and_event_behave_like_torch(name):
    fn = CALLS[name]
    ours, theirs = _outcome(fn, mt), _outcome(fn, torch)
    assert ours == theirs


def test_elapsed_time_error_message():
    for lib in (mt, torch):
        with pytest.raises(ValueError, match="Both events must be created with argument 'enable_timing=True'"):
            lib.Event("cpu").elapsed_time(lib.Event("cpu", enable_timing=True))
