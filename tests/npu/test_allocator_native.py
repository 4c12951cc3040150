"""The caching allocator's compiled common case (mindtorch_npu/native/alloc.c) against its Python reference.

A generated sweep of allocate / free / malloc / free_block / record_stream / event completion / empty_cache /
peak and accumulated resets over sizes that split, merge and cross the pools, run by an allocator with the C
path and one without: after every step the addresses handed out, memory_stats(), the pools' heaps, deferred
lists and blocks agree, and memory_snapshot() every few steps (a snapshot merges free runs, so taking it at
every step would hide the unmerged layouts the C path must also handle). On a fake driver the two run in
lockstep; on the simulator one after the other, from the same free device memory.
"""

import gc
import importlib.util
import os
import random
import re
import shutil
import subprocess
from pathlib import Path

import mindtorch as torch
import pytest
from mindtorch.plugins import Storage, device
from mindtorch_npu import allocator as allocator_module, native
from mindtorch_npu.allocator import CachingAllocator
from mindtorch_npu.native import build
from mindtorch_npu.state import ALLOCATOR, RUNTIME
from test_allocator import FakeDriver

KiB, MiB = 1 << 10, 1 << 20
# below, at and above the 512-byte unit, the small pool's 1 MiB limit and the 10 MiB large-segment threshold
SIZES = [1, 8, 300, 480, 512, 1000, 2048, 4000, 64 * KiB, MiB - 100, MiB, MiB + 1, 3 * MiB, 12 * MiB]
SIDE = 7  # a second stream on the fake driver


def _compiled():
    return (Path(native.__file__).parent / build.module_name("alloc.c")).is_file()


needs_native = pytest.mark.skipif(allocator_module._native is None, reason="the compiled allocator is not loaded")


def test_the_compiled_allocator_loads_when_built():
    if os.environ.get("MINDTORCH_NPU_NO_NATIVE") == "1":
        assert allocator_module._native is None
        assert not ALLOCATOR.native
        return
    if os.environ.get("MINDTORCH_NPU_REQUIRE_NATIVE") == "1" or _compiled():
        assert allocator_module._native is not None
        assert ALLOCATOR.native
        assert type(ALLOCATOR.allocate).__name__ == "builtin_function_or_method"
    assert not CachingAllocator(FakeDriver(), native=False).native


def _ops(seed, n, devices, streams):
    """n steps, each a tuple naming what to do; indices into the live lists are taken modulo their length."""
    rng = random.Random(seed)
    # as many frees as requests, so the live set stays about the same size and freed blocks get reused
    kinds = ["alloc"] * 20 + ["free"] * 20 + ["malloc"] * 6 + ["free_block"] * 6 + ["record", "complete"] * 2
    kinds += ["sync", "stream", "empty", "peak", "accum", "graph"]
    out = []
    for _ in range(n):
        kind = rng.choice(kinds)
        # mostly a few small sizes, as a training step repeats them: exact fits, splits and merges
        size = rng.choice(SIZES) if rng.random() < 0.2 else rng.choice(SIZES[1:6])
        out.append((kind, size, rng.choice(devices), rng.choice(streams), rng.randrange(1 << 30)))
    return out


class Run:
    """One allocator under the steps; `observe` is what must match the other run."""

    def __init__(self, alloc, complete, side=SIDE):
        self.alloc = alloc
        self.complete = complete  # complete(stream): the stream's recorded events are done
        self.side = side  # the stream record_stream names when the step's stream is the default one
        self.storages = []
        self.blocks = []
        self.capturing = {}  # device -> (graph pool id, stream) while a capture allocates into a pool

    def step(self, op):
        """("ok", address or None), or the exception's class name and message."""
        try:
            return "ok", self._step(*op)
        except Exception as e:  # out of memory, say: both runs must raise the same
            return type(e).__name__, str(e)

    def _step(self, kind, size, dev, stream, pick):
        a = self.alloc
        if kind == "alloc":
            s = a.allocate(size, device("npu", dev))
            self.storages.append(s)
            return s.data
        if kind == "malloc":
            b = a.malloc(size, dev, None if stream == 0 else stream)
            self.blocks.append(b)
            return b.ptr
        if kind == "free" and self.storages:
            self.storages.pop(pick % len(self.storages))  # its __del__ frees it
        elif kind == "free_block" and self.blocks:
            a.free_block(self.blocks.pop(pick % len(self.blocks)))
        elif kind == "record" and self.storages:
            a.record_stream(self.storages[pick % len(self.storages)], stream or self.side)
        elif kind == "complete":
            self.complete(stream or self.side)
        elif kind == "sync":
            a.synchronize(dev)
        elif kind == "stream":
            a._driver.set_stream(dev, stream)
        elif kind == "empty":
            a.empty_cache()
        elif kind == "peak":
            a.reset_peak_memory_stats(dev)
        elif kind == "accum":
            a.reset_accumulated_memory_stats(dev)
        elif kind == "graph":  # a capture on the device's current stream begins (into one of two pools), or ends
            if dev in self.capturing:
                a.end_allocate_to_pool(dev, *self.capturing.pop(dev))
            else:
                self.capturing[dev] = (1, pick % 2), a._current_stream(dev)
                a.begin_allocate_to_pool(dev, *self.capturing[dev])
        return None

    def observe(self, devices, snapshot):
        a = self.alloc
        out = [a.memory_stats(dev) for dev in devices]
        for index, d in sorted(a._devices.items()):
            out.append((index, sorted((ptr, b.size, b.requested, b.state) for ptr, b in d.active.items())))
            for stream, pair in sorted(d.pools.items()):
                for pool in pair:
                    heaps = sorted(
                        (size, [(p, b.size, b.state) for p, b in stack]) for size, stack in pool.sizes.items()
                    )
                    out.append((stream, pool.small, pool.keys, heaps, [b.ptr for b in pool.deferred]))
        if snapshot:
            out.append(a.memory_snapshot())
        return out

    def close(self):
        self.storages.clear()
        for b in self.blocks:
            self.alloc.free_block(b)
        self.blocks.clear()
        for dev, (pool_id, stream) in self.capturing.items():
            self.alloc.end_allocate_to_pool(dev, pool_id, stream)
        self.capturing.clear()
        for dev, d in self.alloc._devices.items():
            for pool_id, gp in list(d.graph_pools.items()):
                for _ in range(gp.uses):  # every capture into it is a graph holding it
                    self.alloc.release_pool(dev, pool_id)
        self.alloc.empty_cache()


class SweepDriver(FakeDriver):
    def set_stream(self, dev, stream):
        self.streams[dev] = stream


def _lockstep(ops, pad, devices=(0, 1), snapshot_every=25):
    """Runs `ops` with and without the C path in lockstep, comparing as it goes (snapshots too, every so many
    steps); the share of requests the C path handed back to Python."""
    drivers = [SweepDriver(capacity=96 * MiB), SweepDriver(capacity=96 * MiB)]
    runs = [Run(CachingAllocator(drv, pad=pad, native=nat), drv.complete) for drv, nat in zip(drivers, (True, False))]
    assert runs[0].alloc.native and not runs[1].alloc.native
    slow = []  # the C path's fallbacks to Python
    python_malloc = runs[0].alloc._malloc
    runs[0].alloc._malloc = lambda *args: slow.append(1) or python_malloc(*args)
    for i, op in enumerate(ops):
        assert runs[0].step(op) == runs[1].step(op), (i, op)
        snapshot = i % snapshot_every == snapshot_every - 1
        assert runs[0].observe(devices, snapshot) == runs[1].observe(devices, snapshot), (i, op)
    assert drivers[0].mallocs == drivers[1].mallocs and drivers[0].frees == drivers[1].frees
    for run in runs:
        run.close()
    assert runs[0].observe(devices, True) == runs[1].observe(devices, True)
    return len(slow) / sum(op[0] in ("alloc", "malloc") for op in ops)


@needs_native
@pytest.mark.parametrize("pad", [0, 32])
@pytest.mark.parametrize("seed", range(6))
def test_sweep_on_a_fake_driver(seed, pad):
    # random steps reuse a free block of the size asked for less often than a training loop does: many carve
    assert 0 < _lockstep(_ops(seed, 600, [0, 1], [0, 0, 0, SIDE]), pad) < 1


@needs_native
@pytest.mark.parametrize("seed", range(3))
def test_a_repeated_step_runs_in_c(seed):
    """A step of requests and frees, repeated with a few record_stream uses and resets between: once warm,
    nearly every request is the common case, and both paths still agree throughout."""
    rng = random.Random(seed)
    sizes = [rng.choice(SIZES[:9]) for _ in range(12)]
    ops = []
    for rep in range(40):
        ops += [("alloc", size, 0, 0, 0) for size in sizes]
        ops += [("malloc", 4096, 0, 0, 0), ("free_block", 0, 0, 0, 0)]
        if rep % 10 == 5:  # a storage used on a side stream: freed, its block waits for the event
            ops.append(("record", 0, 0, SIDE, rng.randrange(99)))
        ops += [("free", 0, 0, 0, rng.randrange(1 << 30)) for _ in sizes]
        if rep % 10 == 5:
            ops.append(("complete", 0, 0, SIDE, 0))
        if rep % 10 == 9:
            ops.append((rng.choice(["peak", "accum"]), 0, 0, 0, 0))
    # a snapshot merges the free blocks, which the next step then splits again: one every ten steps
    assert _lockstep(ops, 32, devices=(0,), snapshot_every=len(ops) // 4 + 1) < 0.2


@needs_native
def test_a_free_run_by_the_garbage_collector_inside_the_compiled_path_is_queued():
    # a Storage.__del__ that runs while the C path holds the token must be queued and done on the way out
    drv = SweepDriver()
    a = CachingAllocator(drv)
    ref = CachingAllocator(SweepDriver(), native=False)
    kept = {}
    for alloc in (a, ref):
        keep = kept[alloc] = [alloc.allocate(512, device("npu", 0)) for _ in range(4)]
        victim = keep.pop(1)
        taken = alloc._token.pop()  # as if the allocator were busy: the free is queued
        del victim
        assert len(alloc._deferred) == 1
        alloc._token.append(taken)
        s = alloc.allocate(512, device("npu", 0))  # the common case; drains the queued free after it
        assert alloc._deferred == []
        keep.append(s)
    assert Run(a, None).observe([0], True) == Run(ref, None).observe([0], True)


@needs_native
def test_bad_arguments_take_the_python_errors():
    a = CachingAllocator(SweepDriver())
    dev = device("npu", 0)
    with pytest.raises(TypeError, match="got bool"):
        a.allocate(True, dev)
    with pytest.raises(TypeError, match="non-negative"):
        a.allocate(-1, dev)
    assert a.allocate(0, dev).data == 0
    s = a.allocate(512, dev)
    b = a.malloc(512, 0)
    with pytest.raises(TypeError, match="stream must be an int"):
        a.malloc(512, 0, 1.5)
    stranger = Storage(dev, 512, s.data + 4096, a)
    with pytest.raises(RuntimeError, match="invalid device pointer"):
        a.free(stranger)
    stranger._allocator = None  # not this allocator's: its __del__ must not free it again
    a.free_block(b)
    with pytest.raises(RuntimeError, match="not allocated"):
        a.free_block(b)
    assert a.malloc(512, device_index=0, stream=0).size == 512  # keywords: the Python version
    assert a.memory_stats(0)["allocation.all.current"] == 2


def _sim_stream(dev):
    return torch.npu.Stream(device=dev)


@needs_native
@pytest.mark.parametrize("seed", range(2))
def test_sweep_on_the_simulator(seed):
    """The same steps on the simulator's memory: the C-path allocator, then (the device memory it took handed
    back) the Python one. The simulator's aclrtMalloc is a deterministic best fit, so both get the same
    addresses. Events are waited for after each step: their completion on the simulator is asynchronous."""
    gc.collect()
    torch.npu.synchronize()
    side = _sim_stream(0)
    streams = [0, 0, 0, side.handle()]
    ops = _ops(seed, 300, [0], streams)

    class Driver:
        """The runtime, with current streams of its own (so the process's stay as they are)."""

        def __init__(self):
            self.streams = {}

        def __getattr__(self, name):
            return getattr(RUNTIME, name)

        def current_stream(self, dev):
            return self.streams.get(dev, 0)

        def set_stream(self, dev, stream):
            self.streams[dev] = stream

    traces = []
    try:
        for nat in (True, False):
            drv = Driver()
            alloc = CachingAllocator(drv, pad=32, native=nat)
            assert alloc.native == nat
            run = Run(alloc, lambda stream: RUNTIME.synchronize(0), side.handle())
            trace = []
            for i, op in enumerate(ops):
                trace.append(run.step(op))
                if alloc._devices.get(0) is not None and alloc._devices[0].events:
                    RUNTIME.synchronize(0)
                    alloc.synchronize(0)
                trace.append(run.observe([0], i % 11 == 10))
            run.close()
            trace.append(run.observe([0], True))
            traces.append(trace)
    finally:
        torch.npu.synchronize()
    assert len(traces[0]) == len(traces[1])
    for i, (x, y) in enumerate(zip(*traces)):
        assert x == y, (i // 2, ops[i // 2])


@needs_native
def test_a_storage_from_the_compiled_path_is_the_one_the_python_path_builds():
    dev = device("npu", 1)
    made = []
    for nat in (True, False):
        a = CachingAllocator(SweepDriver(), pad=32, native=nat)
        a.allocate(100, dev)  # freed at once: the next one is the common case
        s = a.allocate(100, dev)
        made.append((type(s), type(s.nbytes), s.nbytes, s.nbytes(), s.size(), s.data, s.device, s._allocator is a))
        del s
        assert a.memory_stats(1)["allocation.all.current"] == 0
    assert made[0] == made[1]


@needs_native
def test_a_subclass_that_overrides_what_the_c_path_mirrors_keeps_python():
    class Counting(CachingAllocator):
        def _release(self, d, block):
            return super()._release(d, block)

    class Streams(CachingAllocator):
        def record_stream(self, storage, stream):
            return super().record_stream(storage, stream)

    assert not Counting(SweepDriver()).native
    assert Streams(SweepDriver()).native


# ---- the counters: alloc.c's Hot against allocator._Hot --------------------------------------------------------
PY_HOT = allocator_module.PYTHON_TWINS["_Hot"]
COUNTERS = [name for name in PY_HOT.__slots__ if name not in ("qi", "qo")]


@needs_native
def test_the_compiled_counters_are_the_python_ones_as_int64():
    hot, ref = allocator_module._native.Hot(), PY_HOT()
    assert [getattr(hot, name) for name in PY_HOT.__slots__] == [getattr(ref, name) for name in PY_HOT.__slots__]
    assert hot.qi is not hot.qo
    # each counter has storage of its own: a value written to one reads back there and nowhere else
    for i, name in enumerate(COUNTERS):
        setattr(hot, name, -(i + 1) * 10**15)
    assert [getattr(hot, name) for name in COUNTERS] == [-(i + 1) * 10**15 for i in range(len(COUNTERS))]
    hot.sfb = (1 << 63) - 1
    with pytest.raises(OverflowError):
        hot.sfb = 1 << 63  # PyTorch's Stat is int64 too
    assert hot.sfb == (1 << 63) - 1
    with pytest.raises(TypeError):
        del hot.n
    with pytest.raises(TypeError):
        allocator_module._native.Hot(0)
    assert type(CachingAllocator(SweepDriver())._state(0).hot[1]) is allocator_module._native.Hot
    assert type(CachingAllocator(SweepDriver(), native=False)._state(0).hot[1]) is PY_HOT


def _stats_lockstep(allocs, ops, devices=(0, 1)):
    """Runs `ops` on each allocator (each on a driver of its own); memory_stats(), every key, agree after every
    step. The index of the first step where they do not, or None."""
    runs = [Run(a, a._driver.complete) for a in allocs]
    for i, op in enumerate(ops):
        results = [run.step(op) for run in runs]
        stats = [[run.alloc.memory_stats(dev) for dev in devices] for run in runs]
        if any(r != results[0] for r in results) or any(s != stats[0] for s in stats):
            return i
    for run in runs:
        run.close()
    stats = [[run.alloc.memory_stats(dev) for dev in devices] for run in runs]
    return None if all(s == stats[0] for s in stats) else len(ops)


def _three(pad=32):
    """The C path on Hot, the Python methods on Hot, the Python methods on _Hot (the reference)."""
    allocs = [CachingAllocator(SweepDriver(capacity=96 * MiB), pad=pad, native=nat) for nat in (True, False, False)]
    allocs[1]._hot = allocator_module._native.Hot
    return allocs


@needs_native
@pytest.mark.parametrize("seed", range(4))
def test_the_compiled_counters_agree_with_python_s_step_by_step(seed):
    allocs = _three()
    ops = _ops(100 + seed, 500, [0, 1], [0, 0, 0, SIDE])
    assert _stats_lockstep(allocs, ops) is None
    kinds = [[type(h) for h in a._state(0).hot] for a in allocs]
    assert kinds == [[allocator_module._native.Hot] * 3] * 2 + [[PY_HOT] * 3]


# what alloc.c's common case writes: exposed under a wrong name, each must show in memory_stats(). (It also reads
# qn, a gate behind the check for outstanding events that no sequence of steps can tell from that check)
WRITTEN = ["n", "b", "r", "pn", "pb", "pr", "fn", "fb", "fr", "sn", "sb", "spn", "spb", "sfn", "sfb"]


def _miswired(tmp_path, name, other):
    """alloc.c built with counters `name` and `other` swapped in its names table: the C path's `name` is what
    Python calls `other`, and the other way round (a mis-mapped member)."""
    here = Path(native.__file__).parent
    text = (here / "alloc.c").read_text()
    table = re.search(r"static const char \*H_NAMES\[NH\] = \{([^}]*)\};", text)
    names = re.findall(r'"(\w+)"', table.group(1))
    assert names == COUNTERS  # the C table is _Hot's order
    i, j = names.index(name), names.index(other)
    names[i], names[j] = names[j], names[i]
    out = tmp_path / f"{name}_{other}"
    out.mkdir()
    (out / "alloc.c").write_text(text[: table.start(1)] + ", ".join(f'"{n}"' for n in names) + text[table.end(1) :])
    shutil.copy(here / "slots.h", out)
    so = out / build.module_name("alloc.c")
    # unoptimised: it builds in a fraction of the time
    subprocess.run(build.command(out / "alloc.c", so, [f for f in build.FLAGS if f != "-O2"]), check=True)
    spec = importlib.util.spec_from_file_location("_alloc", so)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@needs_native
@pytest.mark.parametrize("name", WRITTEN)
def test_a_mis_mapped_counter_fails_the_lockstep(tmp_path, monkeypatch, name):
    # swapped with a counter the C path never touches; the same steps with the right build agree
    mutant = _miswired(tmp_path, name, "sb0")
    ops = _ops(7, 400, [0, 1], [0, 0, 0, SIDE])
    monkeypatch.setattr(allocator_module, "_native", mutant)
    allocator_module._bind(mutant)
    allocs = _three()
    assert type(allocs[0]._state(0).hot[0]) is mutant.Hot
    assert _stats_lockstep([allocs[0], allocs[2]], ops) is not None
    monkeypatch.undo()
    assert _stats_lockstep(_three(), ops) is None


@needs_native
def test_a_counter_past_int64_is_not_wrapped_by_the_c_path():
    a = CachingAllocator(SweepDriver())
    a.allocate(512, device("npu", 0))  # freed at once: the next one is the common case
    s = a.allocate(512, device("npu", 0))
    hot = a._state(0).hot[1]
    hot.fb = (1 << 63) - 1
    with pytest.raises(OverflowError):
        a.free(s)  # the C path hands the free to Python, whose store into an int64 fails
    assert hot.fb == (1 << 63) - 1
    s._allocator = None  # its __del__ must not free it again
