"""mindtorch.cpu (the cpu backend's device module) answers as torch.cpu does."""

import warnings

import pytest
from helpers import torch_or_skip

torch = torch_or_skip()

import mindtorch as mt  # noqa: E402


def test_public_names_present():
    wanted = {n for n in dir(torch.cpu) if not n.startswith("_") and callable(getattr(torch.cpu, n))}
    wanted -= {"AbstractContextManager", "Any", "Mapping", "MappingProxyType", "lru_cache"}  # typing/stdlib
    assert wanted <= set(dir(mt.cpu)), wanted - set(dir(mt.cpu))
    assert mt.get_device_module("cpu") is mt.cpu
    acc = mt.accelerator.current_accelerator()  # the current accelerator's module, else the cpu's
    assert mt.get_device_module() is (mt.cpu if acc is None else getattr(mt, acc.type))


def test_answers_match():
    for name in ("is_available", "is_initialized", "device_count", "current_device"):
        assert getattr(mt.cpu, name)() == getattr(torch.cpu, name)()
    for lib in (mt, torch):
        lib.cpu.synchronize()
        lib.cpu.synchronize("cpu")
        lib.cpu.set_device("cpu")


def test_streams_and_events_are_ordering_no_ops():
    for lib in (mt, torch):
        s = lib.cpu.Stream()
        default = lib.cpu.current_stream()
        with lib.cpu.stream(s):
            assert lib.cpu.current_stream() is s
            e = lib.cpu.Event()
            e.record()
            assert e.query() is True
            e.synchronize()
            s.wait_stream(default)
        assert lib.cpu.current_stream() is default


def test_capabilities_agree_on_what_both_report():
    m, t = mt.cpu.get_capabilities(), torch.cpu.get_capabilities()
    assert m["architecture"] == t["architecture"] and m["num_logical_cores"] == t["num_logical_cores"]
    if m["architecture"] == "x86_64":  # the long-standing ISA flags, reported alike by CPUID and the kernel
        flags = ["sse", "sse2", "ssse3", "sse4_1", "sse4_2", "avx", "avx2", "fma3", "f16c", "popcnt"]
        assert {k: m[k] for k in flags} == {k: t[k] for k in flags}


def test_deprecated_cpu_amp_spelling_warns():
    for lib in (mt, torch):
        with pytest.warns(FutureWarning, match=r"torch.cpu.amp.autocast\(args...\)` is deprecated"):
            ctx = lib.cpu.amp.autocast(enabled=False)
        with ctx, warnings.catch_warnings():
            warnings.simplefilter("error")
            (lib.ones(2) * 2).sum()
