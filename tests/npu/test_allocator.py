"""The npu caching allocator against a fake driver (pure Python, no simulator).

Expected values are worked out by hand from PyTorch's CUDA caching allocator rules
(c10/cuda/CUDACachingAllocator.cpp) and torch_npu's out-of-memory message.
"""

import gc
import threading

import pytest
from mindtorch.plugins import OutOfMemoryError, Storage, device
from mindtorch_npu.allocator import Block, CachingAllocator, format_size

KiB, MiB, GiB = 1 << 10, 1 << 20, 1 << 30
SEG_SMALL, SEG_LARGE = 2 * MiB, 20 * MiB


class FakeEvent:
    def __init__(self, dev):
        self.device, self.stream, self.done, self.destroyed = dev, None, False, False


class FakeDriver:
    """Tracks live raw allocations; malloc returns 0 beyond `capacity` bytes per device."""

    def __init__(self, capacity=64 * GiB, ndev=2):
        self.capacity = capacity
        self.ndev = ndev
        self.live = {}  # (device, ptr) -> nbytes
        self.mallocs, self.frees, self.results = [], [], []
        self.next_addr = {d: 0x10000000 * (d + 1) for d in range(ndev)}
        self.device = 0
        self.streams = {}
        self.events = []
        self.fail_with = None  # an exception malloc raises once
        self.on_malloc = None  # hook run inside malloc (a GC-run __del__, say)
        self.event_fail = None  # an exception new_event raises once

    def used(self, dev):
        return sum(n for (d, _), n in self.live.items() if d == dev)

    def current_device(self):
        return self.device

    def current_stream(self, dev):
        return self.streams.get(dev, 0)

    def malloc(self, dev, nbytes):
        if not 0 <= dev < self.ndev:
            raise RuntimeError(f"aclrtMalloc: invalid device {dev}")
        if self.on_malloc is not None:
            hook, self.on_malloc = self.on_malloc, None
            hook()
        if self.fail_with is not None:
            exc, self.fail_with = self.fail_with, None
            raise exc
        self.mallocs.append((dev, nbytes))
        if self.used(dev) + nbytes > self.capacity:
            self.results.append(0)
            return 0
        ptr = self.next_addr[dev]
        self.results.append(ptr)
        self.next_addr[dev] += nbytes + 4096  # a gap: segments are never contiguous
        self.live[(dev, ptr)] = nbytes
        return ptr

    def free(self, dev, ptr):
        del self.live[(dev, ptr)]
        self.frees.append((dev, ptr))

    def mem_info(self, dev):
        return self.capacity - self.used(dev), self.capacity

    def new_event(self, dev):
        if self.event_fail is not None:
            exc, self.event_fail = self.event_fail, None
            raise exc
        ev = FakeEvent(dev)
        self.events.append(ev)
        return ev

    def record_event(self, ev, stream):
        ev.stream = stream

    def event_done(self, ev):
        assert not ev.destroyed
        return ev.done

    def sync_event(self, ev):
        ev.done = True

    def destroy_event(self, ev):
        assert not ev.destroyed
        ev.destroyed = True

    def synchronize(self, dev):
        for ev in self.events:
            if ev.device == dev:
                ev.done = True

    def complete(self, stream):
        for ev in self.events:
            if ev.stream == stream:
                ev.done = True

    def live_events(self):
        return [ev for ev in self.events if not ev.destroyed]


@pytest.fixture
def drv():
    return FakeDriver()


@pytest.fixture
def alloc(drv):
    a = CachingAllocator(drv)
    yield a
    gc.collect()
    a.empty_cache()
    assert drv.live == {}, "segments leaked"
    assert drv.live_events() == []


NPU0 = device("npu", 0)
KINDS = ("all", "small_pool", "large_pool")
CORE = (
    "allocation",
    "allocated_bytes",
    "active",
    "active_bytes",
    "requested_bytes",
    "inactive_split",
    "inactive_split_bytes",
    "segment",
    "reserved_bytes",
)


def zero_stats():
    out = {f"{n}.{k}.{f}": 0 for n in CORE for k in KINDS for f in ("current", "peak", "allocated", "freed")}
    for n in ("oversize_allocations", "oversize_segments"):
        out.update({f"{n}.{f}": 0 for f in ("current", "peak", "allocated", "freed")})
    out.update(
        max_split_size=-1,
        num_alloc_retries=0,
        num_ooms=0,
        num_oom_rejections=0,
        num_sync_all_streams=0,
        num_device_alloc=0,
        num_device_free=0,
    )
    return out


def put(d, name, kind, current, peak, allocated, freed, also_all=True):
    for k in (kind, "all") if also_all else (kind,):
        d.update(
            {
                f"{name}.{k}.current": current,
                f"{name}.{k}.peak": peak,
                f"{name}.{k}.allocated": allocated,
                f"{name}.{k}.freed": freed,
            }
        )


def assert_stats(a, expected, dev=0):
    got = dict(a.memory_stats(dev))
    assert set(got) == set(expected)
    diff = {k: (got[k], expected[k]) for k in expected if got[k] != expected[k]}
    assert diff == {}


# ---- rounding and pools -----------------------------------------------------------------------
@pytest.mark.parametrize(
    "nbytes, size, segment, kind",
    [
        (1, 512, SEG_SMALL, "small_pool"),
        (512, 512, SEG_SMALL, "small_pool"),
        (513, 1024, SEG_SMALL, "small_pool"),
        (MiB, MiB, SEG_SMALL, "small_pool"),
        (MiB + 1, MiB + 512, SEG_LARGE, "large_pool"),
        (10 * MiB - 513, 10 * MiB - 512, SEG_LARGE, "large_pool"),
        (10 * MiB - 1, 10 * MiB, 10 * MiB, "large_pool"),
        (11 * MiB + 1, 12 * MiB, 12 * MiB, "large_pool"),  # 1 MiB - 512 left: no split
        (12 * MiB + 1, 12 * MiB + 512, 14 * MiB, "large_pool"),  # 2 MiB - 512 left: split
    ],
)
def test_rounding_and_pool_selection(alloc, drv, nbytes, size, segment, kind):
    st = alloc.allocate(nbytes, NPU0)
    assert drv.mallocs == [(0, segment)]
    assert st.data == next(iter(drv.live))[1] and alloc.data_ptr(st) == st.data
    stats = alloc.memory_stats(0)
    assert stats[f"allocated_bytes.{kind}.current"] == stats["allocated_bytes.all.current"] == size
    assert stats[f"requested_bytes.{kind}.current"] == nbytes
    assert stats[f"reserved_bytes.{kind}.current"] == segment
    other = "large_pool" if kind == "small_pool" else "small_pool"
    assert stats[f"reserved_bytes.{other}.current"] == 0
    assert alloc.bytes_in_use(0) == size and alloc.bytes_reserved(0) == segment
    del st
    assert alloc.bytes_in_use(0) == 0 and alloc.bytes_reserved(0) == segment  # cached


def test_small_requests_share_one_segment_in_address_order(alloc, drv):
    a, b, c = (alloc.allocate(n, NPU0) for n in (1000, 1000, 3000))
    base = a.data
    assert (b.data, c.data) == (base + 1024, base + 2048)
    assert len(drv.mallocs) == 1
    del a, b, c


def test_large_split_threshold(alloc, drv):
    # remainder of exactly 1 MiB is not split off in the large pool; 1 MiB + 512 is
    whole = alloc.malloc(19 * MiB, 0, 0)
    assert whole.size == SEG_LARGE
    split = alloc.malloc(19 * MiB - 512, 0, 0)
    assert split.size == 19 * MiB - 512
    stats = alloc.memory_stats(0)
    assert stats["inactive_split.large_pool.current"] == 1
    assert stats["inactive_split_bytes.large_pool.current"] == MiB + 512
    assert stats["requested_bytes.large_pool.current"] == 38 * MiB - 512
    alloc.free_block(whole)
    alloc.free_block(split)


# ---- split, merge and exact statistics -------------------------------------------------------
def test_split_merge_exact_stats(alloc, drv):
    R = SEG_SMALL
    a = alloc.allocate(1000, NPU0)
    b = alloc.allocate(1000, NPU0)
    c = alloc.allocate(3000, NPU0)
    mid = zero_stats()
    put(mid, "allocation", "small_pool", 3, 3, 3, 0)
    put(mid, "active", "small_pool", 3, 3, 3, 0)
    put(mid, "allocated_bytes", "small_pool", 5120, 5120, 5120, 0)
    put(mid, "active_bytes", "small_pool", 5120, 5120, 5120, 0)
    put(mid, "requested_bytes", "small_pool", 5000, 5000, 5000, 0)
    put(mid, "segment", "small_pool", 1, 1, 1, 0)
    put(mid, "reserved_bytes", "small_pool", R, R, R, 0)
    # first split creates the remainder; the next two shrink it
    put(mid, "inactive_split", "small_pool", 1, 1, 1, 0)
    put(mid, "inactive_split_bytes", "small_pool", R - 5120, R - 1024, R - 1024, 4096)
    mid["num_device_alloc"] = 1
    assert_stats(alloc, mid)

    del b  # between two live blocks: no merge, one more inactive split block
    del a  # merges with b: net +1024 inactive bytes, count unchanged
    stats = alloc.memory_stats(0)
    assert stats["inactive_split.all.current"] == 2
    assert stats["inactive_split_bytes.all.current"] == R - 3072
    del c  # merges both sides: the segment is whole again
    end = zero_stats()
    for name, n in (("allocation", 3), ("active", 3)):
        put(end, name, "small_pool", 0, 3, n, n)
    for name, n in (("allocated_bytes", 5120), ("active_bytes", 5120)):
        put(end, name, "small_pool", 0, 5120, n, n)
    put(end, "requested_bytes", "small_pool", 0, 5000, 5000, 5000)
    put(end, "segment", "small_pool", 1, 1, 1, 0)
    put(end, "reserved_bytes", "small_pool", R, R, R, 0)
    put(end, "inactive_split", "small_pool", 0, 2, 2, 2)
    put(end, "inactive_split_bytes", "small_pool", 0, R - 1024, R + 1024, R + 1024)
    end["num_device_alloc"] = 1
    assert_stats(alloc, end)
    [seg] = alloc.memory_snapshot()
    assert [(blk["size"], blk["state"]) for blk in seg["blocks"]] == [(R, "inactive")]

    alloc.empty_cache()
    final = dict(end)
    put(final, "segment", "small_pool", 0, 1, 1, 1)
    put(final, "reserved_bytes", "small_pool", 0, R, R, R)
    final.update(num_device_free=1, num_sync_all_streams=1)
    assert_stats(alloc, final)
    assert drv.live == {}


def test_best_fit_picks_smallest_sufficient_block(alloc, drv):
    a = alloc.allocate(4096, NPU0)
    x = alloc.allocate(512, NPU0)
    b = alloc.allocate(8192, NPU0)
    y = alloc.allocate(512, NPU0)
    pa, pb = a.data, b.data
    del a, b  # both stay apart: their neighbours are live
    c = alloc.allocate(3000, NPU0)  # 3072 -> the 4096 block, split
    assert c.data == pa
    d = alloc.allocate(6000, NPU0)  # 6144 -> the 8192 block, split
    assert d.data == pb
    e = alloc.allocate(1024, NPU0)  # exact: the 1024 left of the 4096 block
    assert e.data == pa + 3072
    assert len(drv.mallocs) == 1
    del c, d, e, x, y


def test_same_size_reuses_the_freed_block(alloc, drv):
    keep = alloc.allocate(512, NPU0)
    st = alloc.allocate(4096, NPU0)
    guard = alloc.allocate(512, NPU0)
    p = st.data
    del st
    for _ in range(3):
        st = alloc.allocate(4096, NPU0)  # an exact hit on a split block, each time
        assert st.data == p
        del st
    assert len(drv.mallocs) == 1
    R = SEG_SMALL
    want = zero_stats()
    for name in ("allocation", "active"):
        put(want, name, "small_pool", 2, 3, 6, 4)
    for name in ("allocated_bytes", "active_bytes", "requested_bytes"):
        put(want, name, "small_pool", 1024, 5120, 17408, 16384)
    put(want, "segment", "small_pool", 1, 1, 1, 0)
    put(want, "reserved_bytes", "small_pool", R, R, R, 0)
    put(want, "inactive_split", "small_pool", 2, 2, 5, 3)
    put(want, "inactive_split_bytes", "small_pool", R - 1024, R - 512, R - 512 + 16384, 16896)
    want["num_device_alloc"] = 1
    assert_stats(alloc, want)
    del keep, guard


# ---- deferred merging, exact fits and stable addresses ---------------------------------------------
def test_free_neighbours_count_as_one_block(alloc, drv):
    # pieces freed next to each other are one inactive block to the statistics and the snapshot, whenever
    # they are merged; the merged block keeps the requested size of the piece freed last, as PyTorch's merge
    R = SEG_SMALL
    a, b, c, d = (alloc.allocate(n, NPU0) for n in (300, 400, 450, 500))
    base = a.data
    del b
    del c
    stats = alloc.memory_stats(0)
    assert stats["inactive_split.small_pool.current"] == 2  # b + c, and the tail
    assert stats["inactive_split_bytes.small_pool.current"] == R - 2048 + 1024
    assert stats["inactive_split.small_pool.peak"] == 2
    [seg] = alloc.memory_snapshot()
    assert [(blk["address"] - base, blk["size"], blk["state"]) for blk in seg["blocks"]] == [
        (0, 512, "active_allocated"),
        (512, 1024, "inactive"),
        (1536, 512, "active_allocated"),
        (2048, R - 2048, "inactive"),
    ]
    assert seg["blocks"][1]["requested_size"] == 450
    del a, d
    stats = alloc.memory_stats(0)
    assert stats["inactive_split.small_pool.current"] == stats["inactive_split_bytes.small_pool.current"] == 0
    [seg] = alloc.memory_snapshot()
    assert [(blk["size"], blk["state"]) for blk in seg["blocks"]] == [(R, "inactive")]


def test_a_request_no_free_piece_fits_merges_them_first(alloc, drv):
    pieces = [alloc.allocate(512, NPU0) for _ in range(4)]
    guard = [alloc.allocate(n, NPU0) for n in (MiB, MiB - 4 * 512)]  # the segment is full
    base = pieces[0].data
    pieces.clear()  # four free 512-byte pieces, side by side
    st = alloc.allocate(2048, NPU0)
    assert st.data == base and len(drv.mallocs) == 1
    stats = alloc.memory_stats(0)
    assert stats["inactive_split.all.current"] == 0 and stats["segment.all.current"] == 1
    del st, guard


def test_empty_cache_returns_a_segment_of_unmerged_free_pieces(alloc, drv):
    a, b, c = (alloc.allocate(512, NPU0) for _ in range(3))
    del b, a, c
    assert alloc.memory_stats(0)["inactive_split.all.current"] == 0
    alloc.empty_cache()
    assert drv.live == {} and alloc.memory_stats(0)["segment.all.current"] == 0


def test_an_exact_fit_takes_no_split_or_merge(alloc, drv, monkeypatch):
    import mindtorch_npu.allocator as module

    made = []

    class Counted(Block):
        __slots__ = ()

        def __init__(self, *args):
            made.append(args)
            super().__init__(*args)

    monkeypatch.setattr(module, "Block", Counted)
    keep = alloc.allocate(512, NPU0)
    for n in (32, 4096, 100_000):  # each frees next to the segment's free tail
        alloc.allocate(n, NPU0)
        alloc.free_block(alloc.malloc(n, 0, 0))
    made.clear()
    coalesce = module._Pool.coalesce
    merges = []
    monkeypatch.setattr(module._Pool, "coalesce", lambda pool: (merges.append(pool), coalesce(pool)))
    for _ in range(5):
        for n in (32, 4096, 100_000):
            alloc.allocate(n, NPU0)
            alloc.free_block(alloc.malloc(n, 0, 0))
    assert made == [] and merges == []
    del keep


@pytest.mark.parametrize("seed", range(12))
def test_the_same_requests_get_the_same_addresses_step_after_step(alloc, drv, seed):
    # a training step's pattern: persistent tensors, then each step the same requests, freed in an order
    # of their own (not the reverse of allocation). The choice among free blocks depends on which are free,
    # not on the order they were freed in, and merges wait for a request nothing fits: after a step or two
    # the layout repeats.
    import random

    rng = random.Random(seed)
    sizes = [512, 1024, 3000, 4096, 70_000, MiB]
    persistent = [alloc.allocate(rng.choice(sizes), NPU0) for _ in range(rng.randrange(1, 6))]
    program, live = [], []
    for i in range(200):
        if live and rng.random() < 0.45:
            program.append(("free", live.pop(rng.randrange(len(live)))))
        else:
            program.append(("alloc", i, rng.choice(sizes)))
            live.append(i)
    program += [("free", i) for i in rng.sample(live, len(live))]

    def step():
        held, addresses = {}, []
        for op in program:
            if op[0] == "alloc":
                held[op[1]] = alloc.allocate(op[2], NPU0)
                addresses.append(held[op[1]].data)
            else:
                del held[op[1]]
        return addresses

    steps = [step() for _ in range(6)]
    assert steps[3:] == [steps[3]] * 3
    check_invariants(alloc, drv)
    del persistent


# ---- streams ------------------------------------------------------------------------------------
def test_blocks_are_reused_only_on_their_stream(alloc, drv):
    st = alloc.allocate(4096, NPU0)
    p0 = st.data
    del st
    drv.streams[0] = 7
    st = alloc.allocate(4096, NPU0)  # stream 7 cannot use stream 0's cached block
    assert len(drv.mallocs) == 2 and st.data != p0
    p7 = st.data
    del st
    w = alloc.malloc(4096, 0, 7)
    assert w.ptr == p7 and w.stream == 7
    alloc.free_block(w)
    drv.streams[0] = 0
    st = alloc.allocate(4096, NPU0)
    assert st.data == p0 and len(drv.mallocs) == 2
    del st
    segs = alloc.memory_snapshot()
    assert sorted(s["stream"] for s in segs) == [0, 7]


def test_record_stream_delays_reuse_until_the_event_completes(alloc, drv):
    x = alloc.allocate(512, NPU0)
    p = x.data
    alloc.record_stream(x, 5)
    del x
    [ev] = drv.events
    assert ev.stream == 5 and not ev.done
    stats = alloc.memory_stats(0)
    assert stats["allocation.all.current"] == 0 and stats["allocated_bytes.all.current"] == 0
    assert stats["active.all.current"] == 1 and stats["active_bytes.all.current"] == 512
    assert stats["requested_bytes.all.current"] == 512
    [seg] = alloc.memory_snapshot()
    assert seg["blocks"][0]["state"] == "active_pending_free"

    y = alloc.allocate(512, NPU0)  # the event is pending: x is not reused
    assert y.data != p
    stats = alloc.memory_stats(0)
    assert stats["active.all.current"] == 2 and stats["active.all.peak"] == 2
    assert stats["allocation.all.peak"] == 1
    drv.complete(5)
    z = alloc.allocate(512, NPU0)  # polled on this allocation: x is back
    assert z.data == p
    assert ev.destroyed and drv.live_events() == []
    stats = alloc.memory_stats(0)
    assert stats["active.all.current"] == 2 and stats["active.all.freed"] == 1
    assert stats["active_bytes.all.freed"] == 512 and stats["requested_bytes.all.freed"] == 512
    assert stats["allocation.all.freed"] == 1 and stats["allocation.all.allocated"] == 3
    del y, z


def test_record_stream_on_the_allocation_stream_is_a_no_op(alloc, drv):
    x = alloc.allocate(512, NPU0)
    alloc.record_stream(x, 0)
    p = x.data
    del x
    assert drv.events == []
    x = alloc.allocate(512, NPU0)
    assert x.data == p
    del x


def test_pending_block_does_not_merge_until_released(alloc, drv):
    a = alloc.allocate(512, NPU0)
    b = alloc.allocate(512, NPU0)
    alloc.record_stream(b, 3)
    del b  # pending
    del a  # its next neighbour is pending: no merge
    stats = alloc.memory_stats(0)
    assert stats["inactive_split.all.current"] == 2  # a, and the tail
    drv.complete(3)
    alloc.synchronize(0)  # drains completed events: the segment is whole
    stats = alloc.memory_stats(0)
    assert stats["inactive_split.all.current"] == 0 and stats["active.all.current"] == 0
    [seg] = alloc.memory_snapshot()
    assert len(seg["blocks"]) == 1


def test_empty_cache_waits_for_pending_events(alloc, drv):
    x = alloc.allocate(512, NPU0)
    alloc.record_stream(x, 3)
    alloc.record_stream(x, 4)
    del x
    assert len(drv.live_events()) == 2
    alloc.empty_cache()
    assert drv.live == {} and drv.live_events() == []
    stats = alloc.memory_stats(0)
    assert stats["num_sync_all_streams"] == 1 and stats["active.all.current"] == 0
    assert stats["segment.all.current"] == 0


def test_event_failure_on_free_leaves_the_block_allocated(alloc, drv):
    x = alloc.allocate(512, NPU0)
    alloc.record_stream(x, 4)
    alloc.record_stream(x, 5)
    before = dict(alloc.memory_stats(0))
    drv.event_fail = RuntimeError("aclrtCreateEvent failed")
    with pytest.raises(RuntimeError, match="aclrtCreateEvent"):
        alloc.free(x)
    assert dict(alloc.memory_stats(0)) == before and drv.live_events() == []
    del x  # the storage's own free now succeeds
    gc.collect()  # (the raised exception's frames formed a cycle)
    assert len(drv.live_events()) == 2
    assert alloc.memory_stats(0)["active.all.current"] == 1


def test_reset_accumulated_while_pending(alloc, drv):
    x = alloc.allocate(512, NPU0)
    alloc.record_stream(x, 5)
    del x
    alloc.reset_accumulated_memory_stats(0)
    drv.complete(5)
    y = alloc.allocate(512, NPU0)
    stats = alloc.memory_stats(0)
    assert (stats["allocation.all.allocated"], stats["allocation.all.freed"]) == (1, 0)
    assert (stats["active.all.allocated"], stats["active.all.freed"]) == (1, 1)
    assert (stats["active_bytes.all.allocated"], stats["active_bytes.all.freed"]) == (512, 512)
    assert stats["active.all.current"] == 1
    del y


# ---- empty_cache ----------------------------------------------------------------------------------
def test_empty_cache_releases_whole_free_segments_only(alloc, drv):
    small = alloc.allocate(1000, NPU0)
    big = alloc.allocate(20 * MiB, NPU0)
    spare = alloc.allocate(3 * MiB, NPU0)
    del big, spare
    assert len(drv.live) == 3
    alloc.empty_cache()
    assert list(drv.live.values()) == [SEG_SMALL]  # the segment with a live block stays
    stats = alloc.memory_stats(0)
    assert stats["segment.all.current"] == 1 and stats["reserved_bytes.all.current"] == SEG_SMALL
    assert stats["segment.large_pool.freed"] == 2 and stats["num_device_free"] == 2
    assert small.data in {p for _, p in drv.live}
    del small
    alloc.empty_cache()
    assert drv.live == {}


# ---- out of memory -------------------------------------------------------------------------------
def test_oom_frees_the_cache_and_retries(drv):
    drv.capacity = 21 * MiB
    a = CachingAllocator(drv)
    big = a.allocate(20 * MiB, NPU0)
    del big  # cached, not returned
    st = a.allocate(1000, NPU0)  # needs a 2 MiB segment: only after the retry
    stats = a.memory_stats(0)
    assert stats["num_alloc_retries"] == 1 and stats["num_ooms"] == 0
    assert stats["num_device_free"] == 1 and stats["num_sync_all_streams"] == 1
    assert stats["reserved_bytes.all.current"] == SEG_SMALL
    assert list(drv.live.values()) == [SEG_SMALL]
    del st
    a.empty_cache()
    assert drv.live == {}


def test_oom_retry_waits_for_pending_blocks_of_that_device_only(drv):
    drv.capacity = 21 * MiB
    a = CachingAllocator(drv)
    other = a.allocate(20 * MiB, device("npu", 1))
    del other  # cached on device 1: an OOM on device 0 keeps it
    x = a.allocate(20 * MiB, NPU0)
    a.record_stream(x, 5)
    del x  # waits for an event on stream 5
    [ev] = drv.events
    st = a.allocate(1000, NPU0)  # no room: sync the event, release x's segment, retry
    assert ev.done and ev.destroyed
    stats = a.memory_stats(0)
    assert stats["num_alloc_retries"] == 1 and stats["num_sync_all_streams"] == 1
    assert stats["segment.large_pool.current"] == 0 and stats["active.all.current"] == 1
    assert a.memory_stats(1)["segment.large_pool.current"] == 1
    assert sorted(drv.live.values()) == [SEG_SMALL, SEG_LARGE]
    del st
    a.empty_cache()
    assert drv.live == {}


def test_oom_raises_torch_npu_message_and_leaves_stats(drv):
    drv.capacity = 4 * MiB
    a = CachingAllocator(drv)
    keep = a.allocate(1000, NPU0)
    before = dict(a.memory_stats(0))
    with pytest.raises(OutOfMemoryError) as info:
        a.allocate(3 * MiB, NPU0)
    assert str(info.value) == (
        "NPU out of memory. Tried to allocate 20.00 MiB (NPU 0; 4.00 MiB total capacity; "
        "1024 bytes already allocated; 1024 bytes current active; 2.00 MiB free; "
        "2.00 MiB reserved in total by PyTorch)"
    )
    assert isinstance(info.value, RuntimeError)
    after = dict(a.memory_stats(0))
    # the retry synchronized pending events once; nothing else moved
    before.update(num_ooms=1, num_alloc_retries=1, num_sync_all_streams=1)
    assert after == before
    assert drv.mallocs == [(0, SEG_SMALL), (0, SEG_LARGE), (0, SEG_LARGE)]
    with pytest.raises(OutOfMemoryError):
        a.malloc(3 * MiB, 0, 0)
    assert a.memory_stats(0)["num_ooms"] == 2
    del keep
    a.empty_cache()
    assert drv.live == {}


def test_driver_error_propagates_without_retry(alloc, drv):
    before = dict(alloc.memory_stats(0))
    drv.fail_with = RuntimeError("aclrtMalloc failed: 507899")
    with pytest.raises(RuntimeError, match="507899"):
        alloc.allocate(4096, NPU0)
    assert dict(alloc.memory_stats(0)) == before
    st = alloc.allocate(4096, NPU0)  # and the allocator still works
    del st


# ---- raw blocks -----------------------------------------------------------------------------------
def test_workspace_blocks(alloc, drv):
    w = alloc.malloc(5000, 0, 0)
    assert isinstance(w, Block) and w.size == 5120 and w.device == 0
    st = alloc.allocate(5000, NPU0)
    assert st.data == w.ptr + 5120  # same pool as storages
    stats = alloc.memory_stats(0)
    assert stats["allocated_bytes.small_pool.current"] == 10240
    assert stats["requested_bytes.all.current"] == 10000
    alloc.free_block(w)
    before = dict(alloc.memory_stats(0))
    with pytest.raises(RuntimeError, match="invalid device pointer"):
        alloc.free_block(w)
    assert dict(alloc.memory_stats(0)) == before
    assert alloc.malloc(0, 0, 0) is None
    alloc.free_block(None)
    del st


# ---- devices, bad input ---------------------------------------------------------------------------
def test_devices_are_separate_and_default_to_current(alloc, drv):
    drv.device = 1
    st = alloc.allocate(4096, device("npu"))
    assert st.device == device("npu", 1)
    assert alloc.bytes_in_use() == 4096 and alloc.bytes_in_use(1) == 4096
    assert alloc.bytes_in_use("npu:1") == 4096 and alloc.bytes_in_use(device("npu", 1)) == 4096
    assert alloc.bytes_in_use(0) == 0 and alloc.memory_stats(0)["segment.all.current"] == 0
    drv.device = 0
    assert alloc.bytes_in_use() == 0
    del st


def test_zero_size_allocation(alloc, drv):
    st = alloc.allocate(0, NPU0)
    assert st.data == 0 and st.nbytes == 0 and alloc.data_ptr(st) == 0
    assert drv.mallocs == [] and dict(alloc.memory_stats(0)) == zero_stats()
    del st


def test_bad_input_raises_and_leaves_stats(alloc, drv):
    keep = alloc.allocate(4096, NPU0)
    before = dict(alloc.memory_stats(0))
    for bad in (-1, 2.5, "8", True):
        with pytest.raises(TypeError):
            alloc.allocate(bad, NPU0)
    with pytest.raises(TypeError):
        alloc.record_stream(keep, "stream")
    with pytest.raises(ValueError):
        alloc.memory_stats(device("cpu"))
    with pytest.raises(RuntimeError):
        alloc.allocate(4096, device("npu", 5))  # the driver rejects the device
    stranger = Storage(NPU0, 16, 0xDEAD000, None)
    with pytest.raises(RuntimeError, match="invalid device pointer"):
        alloc.free(stranger)
    with pytest.raises(RuntimeError, match="invalid device pointer"):
        alloc.record_stream(stranger, 3)
    assert dict(alloc.memory_stats(0)) == before
    del keep


# ---- peaks and resets -----------------------------------------------------------------------------
def test_reset_peak_and_accumulated(alloc, drv):
    a = alloc.allocate(4096, NPU0)
    b = alloc.allocate(2 * MiB, NPU0)
    del b
    stats = alloc.memory_stats(0)
    assert stats["allocated_bytes.all.peak"] == 4096 + 2 * MiB
    assert alloc.max_bytes_in_use(0) == 4096 + 2 * MiB
    assert alloc.max_bytes_reserved(0) == SEG_SMALL + SEG_LARGE
    alloc.reset_peak_memory_stats(0)
    stats = alloc.memory_stats(0)
    assert stats["allocated_bytes.all.peak"] == 4096 and stats["allocated_bytes.large_pool.peak"] == 0
    assert stats["inactive_split_bytes.large_pool.peak"] == 0  # the large segment is whole again
    alloc.reset_accumulated_memory_stats(0)
    stats = alloc.memory_stats(0)
    assert stats["allocation.all.allocated"] == 0 and stats["allocation.all.freed"] == 0
    assert stats["allocation.all.current"] == 1 and stats["segment.all.allocated"] == 0
    assert stats["num_device_alloc"] == 0
    del a
    stats = alloc.memory_stats(0)
    assert (stats["allocation.all.allocated"], stats["allocation.all.freed"]) == (0, 1)
    assert (stats["allocated_bytes.small_pool.allocated"], stats["allocated_bytes.small_pool.freed"]) == (0, 4096)


# ---- summary, snapshot -----------------------------------------------------------------------------
def test_memory_summary_renders(alloc, drv):
    st = alloc.allocate(5000, NPU0)
    text = alloc.memory_summary(0)
    lines = text.splitlines()
    assert all(len(line) == 77 for line in lines)
    assert lines[1] == "|" + " " * 18 + "PyTorch NPU memory summary, device ID 0" + " " * 18 + "|"
    assert "NPU OOMs: 0" in lines[3] and "npuMalloc retries: 0" in lines[3]
    assert "| Allocated memory      |   5120 B   |   5120 B   |   5120 B   |      0 B   |" in text
    assert "| NPU reserved memory   |   2048 KiB |   2048 KiB |   2048 KiB |      0 B   |" in text
    assert "|       from large pool |      0 B   |      0 B   |      0 B   |      0 B   |" in text
    assert "| Allocations           |       1    |       1    |       1    |       0    |" in text
    short = alloc.memory_summary(0, abbreviated=True)
    assert "from large pool" not in short and len(short.splitlines()) == len(lines) - 18
    del st


def test_memory_summary_matches_torch_layout(alloc, drv):
    torch_memory = pytest.importorskip("torch.cuda.memory")
    st = alloc.allocate(5000, NPU0)
    big = alloc.allocate(30 * MiB, NPU0)
    stats = alloc.memory_stats(0)
    saved = torch_memory.memory_stats
    torch_memory.memory_stats = lambda device=None: stats
    try:
        expected = torch_memory.memory_summary(0)
    finally:
        torch_memory.memory_stats = saved
    ours = alloc.memory_summary(0)
    mine, theirs = ours.splitlines(), expected.splitlines()
    assert [len(line) for line in mine] == [len(line) for line in theirs]
    wording = {"NPU reserved": "GPU reserved", "Oversize NPU": "Oversize GPU"}
    for m, t in zip(mine[6:], theirs[6:]):
        for a, b in wording.items():
            m = m.replace(a, b)
        assert m == t
    del st, big


def test_memory_snapshot_segments_and_blocks(alloc, drv):
    a = alloc.allocate(1000, NPU0)
    b = alloc.allocate(30 * MiB, NPU0)
    segs = alloc.memory_snapshot()
    assert [s["segment_type"] for s in segs] == ["small", "large"]
    small, large = segs
    assert small["address"] == a.data and small["total_size"] == SEG_SMALL
    assert small["allocated_size"] == 1024 and small["requested_size"] == 1000
    assert [(blk["size"], blk["state"]) for blk in small["blocks"]] == [
        (1024, "active_allocated"),
        (SEG_SMALL - 1024, "inactive"),
    ]
    assert large["total_size"] == 30 * MiB and large["blocks"][0]["state"] == "active_allocated"
    del a, b


def test_format_size():
    assert format_size(1024) == "1024 bytes"
    assert format_size(1025) == "1.00 KiB"
    assert format_size(MiB) == "1024.00 KiB"
    assert format_size(MiB + 1) == "1.00 MiB"
    assert format_size(int(1.5 * GiB)) == "1.50 GiB"


# ---- threads and re-entrance ------------------------------------------------------------------------
def test_free_from_inside_the_allocator_is_deferred(alloc, drv):
    victim = [alloc.allocate(4096, NPU0)]

    def collect():  # what a GC-run Storage.__del__ would do
        victim.pop()

    drv.on_malloc = collect
    st = alloc.allocate(3 * MiB, NPU0)  # malloc hook frees `victim` mid-allocation
    assert victim == []
    stats = alloc.memory_stats(0)
    assert stats["allocation.all.current"] == 1 and stats["allocated_bytes.small_pool.current"] == 0
    del st


def test_threads(alloc, drv):
    sizes = [512, 4096, 100_000, 3 * MiB, 700]
    errors = []

    def work(seed):
        try:
            held = []
            for i in range(300):
                held.append(alloc.allocate(sizes[(seed + i) % len(sizes)], NPU0))
                if len(held) > 3:
                    held.pop(0)
            held.clear()
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    stats = alloc.memory_stats(0)
    assert stats["allocation.all.current"] == 0 and stats["allocated_bytes.all.current"] == 0
    assert stats["allocation.all.allocated"] == stats["allocation.all.freed"] == 1200
    assert stats["inactive_split.all.current"] == 0


# ---- a random workload checked against the snapshot ----------------------------------------------
def check_invariants(a, drv, dev=0):
    stats = a.memory_stats(dev)
    segs = [s for s in a.memory_snapshot() if s["device"] == dev]
    assert sorted((s["address"], s["total_size"]) for s in segs) == sorted(
        (p, n) for (d, p), n in drv.live.items() if d == dev
    )
    want = {
        f"{n}.{k}": 0
        for n in (
            "allocated_bytes",
            "active_bytes",
            "requested_bytes",
            "allocation",
            "active",
            "inactive_split",
            "inactive_split_bytes",
            "segment",
            "reserved_bytes",
        )
        for k in ("small_pool", "large_pool")
    }
    for s in segs:
        kind = "small_pool" if s["segment_type"] == "small" else "large_pool"
        want[f"segment.{kind}"] += 1
        want[f"reserved_bytes.{kind}"] += s["total_size"]
        blocks = s["blocks"]
        for blk, nxt in zip(blocks, blocks[1:]):
            assert blk["address"] + blk["size"] == nxt["address"]
            assert not (blk["state"] == nxt["state"] == "inactive"), "free neighbours not merged"
        for blk in blocks:
            if blk["state"] == "active_allocated":
                want[f"allocation.{kind}"] += 1
                want[f"allocated_bytes.{kind}"] += blk["size"]
            if blk["state"] != "inactive":
                want[f"active.{kind}"] += 1
                want[f"active_bytes.{kind}"] += blk["size"]
                want[f"requested_bytes.{kind}"] += blk["requested_size"]
            elif len(blocks) > 1:
                want[f"inactive_split.{kind}"] += 1
                want[f"inactive_split_bytes.{kind}"] += blk["size"]
    for key, value in want.items():
        assert stats[key + ".current"] == value, key
    for name in CORE:
        for kind in KINDS:
            p = f"{name}.{kind}."
            if kind == "all":
                assert stats[p + "current"] == stats[f"{name}.small_pool.current"] + stats[f"{name}.large_pool.current"]
            assert stats[p + "peak"] >= stats[p + "current"] >= 0
            assert stats[p + "allocated"] - stats[p + "freed"] == stats[p + "current"], p


@pytest.mark.parametrize("seed", range(6))
def test_random_workload_keeps_stats_consistent(drv, seed):
    import random

    rng = random.Random(seed)
    drv.capacity = 96 * MiB
    a = CachingAllocator(drv)
    live = []
    sizes = [1, 500, 512, 4000, 70_000, MiB, MiB + 1, 3 * MiB, 9 * MiB, 12 * MiB + 1, 25 * MiB]
    seen = {}
    made = dropped = requested = ooms = 0
    for step in range(400):
        op = rng.random()
        drv.streams[0] = rng.choice([0, 0, 0, 3])
        if op < 0.45:
            n = rng.choice(sizes)
            try:
                live.append(a.allocate(n, NPU0))
                made += 1
                requested += n
            except OutOfMemoryError:
                ooms += 1
        elif op < 0.55 and live:
            a.record_stream(rng.choice(live), rng.choice([0, 5, 6]))
        elif op < 0.9 and live:
            live.pop(rng.randrange(len(live)))
            dropped += 1
        elif op < 0.95:
            drv.complete(rng.choice([5, 6]))
        else:
            a.empty_cache()
        stats = a.memory_stats(0)
        for key, value in stats.items():
            if key.endswith(".current"):
                name = key[: -len(".current")]
                seen[name] = max(seen.get(name, 0), value)
                if name.startswith("inactive_split"):  # may peak inside an operation
                    assert stats[name + ".peak"] >= seen[name], name
                else:
                    assert stats[name + ".peak"] == seen[name], name
        grown = [n for (_, n), ptr in zip(drv.mallocs, drv.results) if ptr]
        assert stats["num_device_alloc"] == stats["segment.all.allocated"] == len(grown)
        assert stats["reserved_bytes.all.allocated"] == sum(grown)
        assert stats["num_device_free"] == stats["segment.all.freed"] == len(drv.frees)
        assert (stats["allocation.all.allocated"], stats["allocation.all.freed"]) == (made, dropped)
        assert stats["requested_bytes.all.allocated"] == requested and stats["num_ooms"] == ooms
        if step % 20 == 0:
            check_invariants(a, drv)
    check_invariants(a, drv)
    live.clear()
    a.empty_cache()
    assert drv.live == {} and drv.live_events() == []
    check_invariants(a, drv)


def test_storages_freed_on_another_thread(alloc, drv):
    import queue

    handoff = queue.Queue(maxsize=8)

    def consumer():
        while True:
            st = handoff.get()
            if st is None:
                return
            del st  # Storage.__del__ runs on this thread

    t = threading.Thread(target=consumer)
    t.start()
    for i in range(2000):
        handoff.put(alloc.allocate((i % 7 + 1) * 1000, NPU0))
    handoff.put(None)
    t.join()
    stats = alloc.memory_stats(0)
    assert stats["allocation.all.current"] == 0 and stats["active_bytes.all.current"] == 0
    assert stats["allocation.all.allocated"] == stats["allocation.all.freed"] == 2000
    check_invariants(alloc, drv)
