"""The npu caching device allocator, in the spirit of PyTorch's CUDA caching allocator.

Device memory comes from the driver in segments (2 MiB for requests <= 1 MiB, 20 MiB for
requests < 10 MiB, the request rounded up to 2 MiB above that). Segments are split into blocks;
a freed block waits, per stream, for the next request of its size. `empty_cache` gives whole free
segments back to the driver. Statistics use PyTorch's names.

Merging is deferred. PyTorch merges a freed block with its free neighbours at once; here the freed
block goes back as it is, so the next request of its size takes it back with a heap pop and no split,
and a free is a heap push. To the statistics (inactive_split) and the snapshot, adjacent free blocks
are one block, as PyTorch's merge would have made them: the counters move by what the merge would
have changed, which needs only whether each neighbour is free and whether the segment still holds a
block in use (`_Segment.used`). A request takes a free block of its size, else the best fit among the
free blocks as they lie, else the smallest run of adjacent free blocks that holds it, merged for real,
else a new segment: the driver is asked for memory only when no merged block would hold the request,
as in PyTorch. Runs are also merged before whole segments go back to the driver, and for the snapshot.

The driver (the lead's ACL layer, or a fake in tests) offers: current_device(), malloc(device,
nbytes) -> address or 0 when the device is full, free(device, ptr), mem_info(device) -> (free,
total), current_stream(device), new_event(device), record_event(event, stream), event_done(event),
sync_event(event), destroy_event(event), synchronize(device).

Thread safety: pool mutation happens under a token (see CachingAllocator.__init__); a
Storage.__del__ that runs while the allocator is busy, on any thread, is queued, not lost.

Among free blocks of one size the lowest address is taken, as PyTorch's ordered set does. The
choice depends only on which blocks are free, not on the order they were freed in, so a training step
that makes the same requests step after step gets the same addresses back, and launch plans keep
their descriptors' addresses. Rounding, pools, split thresholds, per-stream reuse, record_stream
events, retry on out-of-memory and the statistics follow PyTorch's rules; max_split_size and
expandable segments are not implemented (max_split_size reads -1, oversize stats stay 0).

The common case (an exact-size free block at the top of its heap on allocate/malloc; a block back onto a heap
of its size on free/free_block; no record_stream events outstanding) runs in C when native/alloc.c is built
(mindtorch_npu.native._alloc): it mirrors the methods here, which stay the reference and run everything else.
Such an allocator keeps its counters in the module's Hot, _Hot's attributes as C integers, so the C path adds to
them in place. MINDTORCH_NPU_NO_NATIVE=1, or CachingAllocator(..., native=False), keeps the Python versions
throughout, _Hot included.

Graph pools (NPU graphs): while a stream captures, its allocations come from a private pool of the
graph (or shared between graphs by a pool id); a block of that pool goes back to it when freed, so
eager code never reuses memory a captured graph replays into, and the pool's segments go back to the
driver only once no graph uses it (at the next empty_cache).
"""

import operator
import time
from bisect import bisect_left, insort
from collections import OrderedDict, deque
from heapq import heapify, heappop, heappush

from mindtorch.plugins import OutOfMemoryError, Storage, device as _device

from .native import load as _load_native

_native = _load_native("alloc")  # the common case of allocate/free/malloc/free_block in C, or None

MIN_BLOCK_SIZE = 512  # every request is rounded up to a multiple of this
# kernels may touch 32 bytes past a tensor's end (acl docs, aclrtMalloc: ALIGN_UP(len, 32) + 32), so each
# block carries 32 bytes beyond its request, as torch_npu's round_size adds them
KERNEL_PAD = 32
SMALL_SIZE = 1 << 20  # largest request served by the small pool
SMALL_BUFFER = 2 << 20  # small-pool segment size
LARGE_BUFFER = 20 << 20  # large-pool segment size for requests below MIN_LARGE_ALLOC
MIN_LARGE_ALLOC = 10 << 20
ROUND_LARGE = 2 << 20  # larger requests get a segment of their size rounded to this

# Block.state: in a pool / handed out / waiting for events / merged into a neighbour (gone)
_FREE, _ALLOCATED, _PENDING, _MERGED = 0, 1, 2, 3
DEFERRED_LIMIT = 4096  # freed pieces with a free neighbour a pool notes before it tidies the list


def round_size(nbytes, pad=KERNEL_PAD):
    """The block size a request of `nbytes` gets on the npu: the request and its pad, in MIN_BLOCK_SIZE units
    (PyTorch's rounding when `pad` is 0)."""
    return max(MIN_BLOCK_SIZE, (nbytes + pad + MIN_BLOCK_SIZE - 1) & -MIN_BLOCK_SIZE)


def allocation_size(size):
    """The segment size the driver is asked for when no cached block fits a rounded `size`."""
    if size <= SMALL_SIZE:
        return SMALL_BUFFER
    if size < MIN_LARGE_ALLOC:
        return LARGE_BUFFER
    return (size + ROUND_LARGE - 1) // ROUND_LARGE * ROUND_LARGE


def format_size(nbytes):
    """PyTorch's format_size: bytes up to 1 KiB, then KiB/MiB/GiB with two decimals."""
    if nbytes <= 1024:
        return f"{nbytes} bytes"
    if nbytes <= 1048576:
        return f"{nbytes / 1024.0:.2f} KiB"
    if nbytes <= 1073741824:
        return f"{nbytes / 1048576.0:.2f} MiB"
    return f"{nbytes / 1073741824.0:.2f} GiB"


class _Segment:
    """One driver allocation: its size, and how many of its blocks are in use (allocated or waiting for
    events). With none in use, the whole segment is one free block, however many pieces it is in."""

    __slots__ = ("size", "used")

    def __init__(self, size):
        self.size = size
        self.used = 0


class Block:
    """A piece of a segment. `prev`/`next` link the blocks of one segment in address order."""

    __slots__ = (
        "ptr",
        "size",
        "requested",
        "stream",
        "pool",
        "seg",
        "prev",
        "next",
        "state",
        "event_count",
        "stream_uses",
    )

    def __init__(self, ptr, size, stream, pool, seg):
        self.ptr = ptr
        self.size = size
        self.requested = 0
        self.stream = stream
        self.pool = pool
        self.seg = seg
        self.prev = None
        self.next = None
        self.state = _FREE
        self.event_count = 0
        self.stream_uses = None

    @property
    def device(self):
        return self.pool.dev.index

    @property
    def allocated(self):
        return self.state == _ALLOCATED

    def __repr__(self):
        state = ("free", "allocated", "pending", "merged")[self.state]
        return f"Block(ptr={self.ptr:#x}, size={self.size}, stream={self.stream}, {state})"


class _Pool:
    """Free blocks of one device, stream and pool kind: per size a heap of (address, block), plus the
    sorted sizes.

    Sizes whose heap ran empty keep their key, so the common "same size again" pattern never
    touches the sorted list; the best-fit scan skips empty heaps and compacts when they pile up.
    `deferred` lists, oldest first, the freed blocks that had a free neighbour: the merges not done yet.
    """

    __slots__ = ("dev", "stream", "small", "kind", "hot", "other", "all", "sizes", "keys", "deferred")

    def __init__(self, dev, stream, small):
        self.dev = dev
        self.stream = stream
        self.small = small
        self.kind = 1 if small else 2
        self.hot = dev.hot[self.kind]  # counters of this pool kind
        self.other = dev.hot[3 - self.kind]  # of the other kind
        self.all = dev.hot[0]  # peaks over both kinds
        self.sizes = {}
        self.keys = []
        self.deferred = []

    def push(self, block):
        # a size seen for the first time also goes into the sorted keys
        stack = self.sizes.get(block.size)
        if stack is None:
            self.sizes[block.size] = stack = []
            insort(self.keys, block.size)
        heappush(stack, (block.ptr, block))

    def remove(self, block):
        stack = self.sizes[block.size]
        stack.remove((block.ptr, block))
        heapify(stack)

    def best_fit(self, size):
        keys, sizes = self.keys, self.sizes
        i = bisect_left(keys, size)
        n = len(keys)
        skipped = 0
        while i < n:
            stack = sizes[keys[i]]
            if stack:
                if skipped > 32:
                    self.compact()
                return heappop(stack)[1]
            i += 1
            skipped += 1
        if skipped > 32:
            self.compact()
        return None

    def compact(self):
        self.sizes = {k: v for k, v in self.sizes.items() if v}
        self.keys = sorted(self.sizes)

    def blocks(self):
        return [b for stack in self.sizes.values() for _, b in stack]

    def defer(self, block):
        """Note a freed `block` that has a free neighbour. When the list is long, only each block's last
        entry is kept, and only while it is still free beside a free neighbour."""
        deferred = self.deferred
        deferred.append(block)
        if len(deferred) > DEFERRED_LIMIT:
            kept = {b: None for b in reversed(deferred) if b.state == _FREE and _beside_free(b)}
            self.deferred = list(reversed(kept))

    def runs(self):
        """(size, address, the piece freed last) of each run of two or more adjacent free blocks. The
        piece freed last absorbs its run when merged, so the merged block keeps that piece's requested
        size, as PyTorch's merge at free time leaves it."""
        seen = set()
        out = []
        for block in reversed(self.deferred):
            if block.state != _FREE or not _beside_free(block):
                continue  # reused since, absorbed, or its neighbours are in use again
            head = block
            while head.prev is not None and head.prev.state == _FREE:
                head = head.prev
            if head not in seen:
                seen.add(head)
                b, total = head, 0
                while b is not None and b.state == _FREE:
                    total += b.size
                    b = b.next
                out.append((total, head.ptr, block))
        return out

    def merge_fitting(self, size):
        """Merge the smallest run of adjacent free blocks (lowest address first) that holds `size` bytes,
        taken out of the pool; None when none does. Other runs stay as they lie."""
        fits = [run for run in self.runs() if run[0] >= size]
        if not fits:
            return None
        _, _, block = min(fits, key=lambda run: run[:2])
        for piece in _run_of(block):
            self.remove(piece)
        _absorb(block)
        return block

    def coalesce(self):
        """Merge every run of adjacent free blocks into one block."""
        runs = self.runs()
        self.deferred = []
        stale = set()
        for _, _, block in runs:
            stale.update(piece.size for piece in _run_of(block))
            _absorb(block)
        sizes = self.sizes
        for size in stale:  # drop absorbed blocks, and the absorbers' entries under their old size
            stack = sizes[size]
            stack[:] = [e for e in stack if e[1].state == _FREE and e[1].size == size]
            heapify(stack)
        for _, _, block in runs:
            self.push(block)


def _run_of(block):
    """The free blocks adjacent to free `block` on either side, and itself, in address order."""
    head = block
    while head.prev is not None and head.prev.state == _FREE:
        head = head.prev
    out = []
    while head is not None and head.state == _FREE:
        out.append(head)
        head = head.next
    return out


def _absorb(block):
    """Merge the free neighbours of free `block` into it; they are gone (_MERGED)."""
    prev = block.prev
    while prev is not None and prev.state == _FREE:
        prev.state = _MERGED
        block.ptr = prev.ptr
        block.size += prev.size
        prev = prev.prev
    block.prev = prev
    if prev is not None:
        prev.next = block
    nxt = block.next
    while nxt is not None and nxt.state == _FREE:
        nxt.state = _MERGED
        block.size += nxt.size
        nxt = nxt.next
    block.next = nxt
    if nxt is not None:
        nxt.prev = block


def _beside_free(block):
    prev, nxt = block.prev, block.next
    return (prev is not None and prev.state == _FREE) or (nxt is not None and nxt.state == _FREE)


class _Hot:
    """Counters of one pool kind (or of all) that change on every allocation and free.

    Only allocation-level values are kept on the hot path: count n, bytes b, requested bytes r
    of the allocated blocks, their peaks, and (per kind) the cumulative frees. PyTorch's
    active/requested stats differ from them only by blocks waiting for record_stream events
    (q*), so they are derived: peaks reached while such blocks exist are tracked in x*, and
    qi/qo count what entered/left that waiting state since the last accumulated reset.
    inactive_split (s*) is kept the same way: current, peaks, cumulative decreases.
    """

    __slots__ = (
        "n",
        "b",
        "r",
        "pn",
        "pb",
        "pr",
        "fn",
        "fb",
        "fr",
        "n0",
        "b0",
        "r0",
        "qn",
        "qb",
        "qr",
        "xn",
        "xb",
        "xr",
        "qi",
        "qo",
        "sn",
        "sb",
        "spn",
        "spb",
        "sfn",
        "sfb",
        "sn0",
        "sb0",
    )

    def __init__(self):
        for name in self.__slots__:
            setattr(self, name, 0)
        self.qi = [0, 0, 0]
        self.qo = [0, 0, 0]


# the compiled allocator's counters are C integers (native/alloc.c's Hot: these attributes as int64 fields, as
# PyTorch's Stat keeps them), which its common case updates with no int objects made; this class is the reference
PYTHON_TWINS = {"_Hot": _Hot}


class _Stat:
    """One PyTorch Stat (current, peak, allocated, freed) for the rarely changing counters."""

    __slots__ = ("current", "peak", "allocated", "freed")

    def __init__(self):
        self.current = self.peak = self.allocated = self.freed = 0

    def increase(self, amount):
        self.current += amount
        if self.current > self.peak:
            self.peak = self.current
        self.allocated += amount

    def decrease(self, amount):
        self.current -= amount
        self.freed += amount


class _Device:
    """Everything the allocator keeps for one device index."""

    __slots__ = (
        "index",
        "device",
        "hot",
        "segment",
        "reserved",
        "pools",
        "active",
        "events",
        "num_alloc_retries",
        "num_ooms",
        "num_sync_all_streams",
        "num_device_alloc",
        "num_device_free",
        "graph_pools",
    )

    def __init__(self, index, hot=_Hot):
        self.index = index
        self.device = _device("npu", index)
        self.hot = (hot(), hot(), hot())  # all, small_pool, large_pool
        self.segment = (_Stat(), _Stat(), _Stat())
        self.reserved = (_Stat(), _Stat(), _Stat())
        self.pools = {}  # stream -> (small _Pool, large _Pool)
        self.active = {}  # ptr -> allocated Block
        self.events = {}  # stream -> deque[(event, Block)]
        self.num_alloc_retries = 0
        self.num_ooms = 0
        self.num_sync_all_streams = 0
        self.num_device_alloc = 0
        self.num_device_free = 0
        self.graph_pools = {}  # pool id -> _GraphPool

    def pools_for(self, stream):
        pair = self.pools.get(stream)
        if pair is None:
            pair = self.pools[stream] = (_Pool(self, stream, True), _Pool(self, stream, False))
        return pair

    def free_pools(self):
        pairs = {id(pair): pair for pair in self.pools.values()}  # a capturing stream's pair is a graph pool's too
        for gp in self.graph_pools.values():
            pairs.setdefault(id(gp.pair), gp.pair)
        return [pool for pair in pairs.values() for pool in pair]

    def free_blocks(self):
        return [b for pool in self.free_pools() for b in pool.blocks()]

    def pool_id(self, pool):
        """The graph pool id a pool belongs to, (0, 0) for a stream's own pools (PyTorch's segment_pool_id)."""
        return next((pid for pid, gp in self.graph_pools.items() if pool in gp.pair), (0, 0))

    def pending_blocks(self):
        seen = {}
        for queue in self.events.values():
            for _, block in queue:
                seen[id(block)] = block
        return list(seen.values())


_KINDS = ("all", "small_pool", "large_pool")


class _GraphPool:
    """The private pools of NPU graphs sharing one pool id: small and large, as a stream's."""

    __slots__ = ("pair", "uses", "stashed")

    def __init__(self, dev, stream):
        self.pair = (_Pool(dev, stream, True), _Pool(dev, stream, False))
        self.uses = 0  # graphs holding the pool (capturing or captured)
        self.stashed = {}  # capturing stream -> its own pools, put back when the capture ends


class CachingAllocator:
    """mindtorch's allocator protocol for npu, plus PyTorch's caching-allocator extras."""

    def __init__(self, driver, pad=0, native=True):
        """`native=False` keeps the Python versions even when the compiled module is there (tests run both)."""
        self._driver = driver
        self._pad = pad  # bytes each block carries past its request
        self._current_stream = driver.current_stream  # bound once: it is on the hot path
        self._devices = {}
        # Mutual exclusion by a token: list.pop/append are atomic, and cost a fraction of a
        # threading.Lock round trip on the hot path. A free that finds the token taken (another
        # thread, or Storage.__del__ run by the garbage collector inside the allocator) is
        # queued and done by whoever holds or next takes the token.
        self._token = [True]
        self._deferred = []
        self._hot = _Hot  # the counters' type
        if (
            native
            and _native is not None
            and all(getattr(type(self), m) is getattr(CachingAllocator, m) for m in _NATIVE_MIRRORS)
        ):
            # the C versions shadow the methods on this instance; they run the methods below for all but the
            # common case, so the Python code stays the reference. They hold _token, _deferred, _devices,
            # _current_stream and _pad as they are now: those are never rebound
            fast = _native.Fast(self, Storage)
            for name in _NATIVE_METHODS:
                setattr(self, name, getattr(fast, name))
            self._hot = _native.Hot  # which the C versions update in place; they leave Python's _Hot to Python

    @property
    def native(self):
        """Whether this allocator's allocate/free/malloc/free_block run their common case in C."""
        return "allocate" in vars(self)

    # ---- devices -------------------------------------------------------------------------
    def _state(self, index):
        d = self._devices.get(index)
        if d is None:
            if type(index) is not int or index < 0:
                raise RuntimeError(f"invalid npu device index {index!r}")
            self._acquire()
            try:
                d = self._devices.get(index)
                if d is None:
                    d = self._devices[index] = _Device(index, self._hot)
            finally:
                self._release_token()
        return d

    def _index(self, device):
        """None -> current device; an int index; an npu device object or string."""
        if device is None:
            return self._driver.current_device()
        if isinstance(device, int) and not isinstance(device, bool):
            if device < 0:
                raise ValueError(f"Expected a non-negative npu device index, but got: {device}")
            return device
        if isinstance(device, str):
            device = _device(device)
        if isinstance(device, _device):
            if device.type != "npu":
                raise ValueError(f"Expected a npu device, but got: {device}")
            return self._driver.current_device() if device.index is None else device.index
        raise TypeError(f"expected a device, an int or None, but got {type(device).__name__}")

    # ---- the allocator protocol ------------------------------------------------------------
    def allocate(self, nbytes, device):
        index = device.index
        if index is None:
            index = self._driver.current_device()
        d = self._devices.get(index)
        if d is None:
            d = self._state(index)
        if type(nbytes) is not int:
            nbytes = _check_nbytes(nbytes)
        if nbytes <= 0:
            if nbytes < 0:
                raise TypeError(f"allocation size must be a non-negative integer, got {nbytes}")
            return Storage(d.device, 0, 0, self)
        stream = self._current_stream(index)
        token = self._token
        try:
            token.pop()
        except IndexError:
            self._acquire()
        try:
            block = self._malloc(d, nbytes, stream)
        finally:
            token.append(True)
        if self._deferred:
            self._drain()
        return Storage(d.device, nbytes, block.ptr, self)

    def free(self, storage):
        ptr = storage.data
        if not ptr:
            return
        token = self._token
        try:
            token.pop()
        except IndexError:
            self._deferred.append((storage.device.index, ptr))
            self._drain()
            return
        try:
            d = self._devices.get(storage.device.index)
            block = d.active.pop(ptr, None) if d is not None else None
            if block is None:
                raise RuntimeError(f"invalid device pointer: {ptr:#x}")
            try:
                self._release(d, block)
            except BaseException:
                d.active[ptr] = block  # the driver failed: still allocated
                raise
        finally:
            token.append(True)
        if self._deferred:
            self._drain()

    def data_ptr(self, storage):
        return storage.data or 0

    # ---- raw blocks (ACLNN workspaces, staging bookkeeping) -------------------------------
    def malloc(self, nbytes, device_index=None, stream=None):
        """A Block of at least `nbytes` on `stream` (default: the device's current stream),
        from the same pools and statistics as storages; None for 0 bytes."""
        d = self._devices.get(device_index) if type(device_index) is int else None
        if d is None:
            d = self._state(self._index(device_index))
        if type(nbytes) is not int:
            nbytes = _check_nbytes(nbytes)
        if nbytes <= 0:
            if nbytes < 0:
                raise TypeError(f"allocation size must be a non-negative integer, got {nbytes}")
            return None  # like PyTorch's raw_alloc(0): no block
        if stream is None:
            stream = self._current_stream(d.index)
        elif type(stream) is not int:
            raise TypeError(f"stream must be an int handle, got {type(stream).__name__}")
        token = self._token
        try:
            token.pop()
        except IndexError:
            self._acquire()
        try:
            return self._malloc(d, nbytes, stream)
        finally:
            token.append(True)
            if self._deferred:
                self._drain()

    def free_block(self, block):
        if block is None:
            return
        token = self._token
        try:
            token.pop()
        except IndexError:
            self._acquire()
        try:
            d = block.pool.dev
            if d.active.get(block.ptr) is not block:
                raise RuntimeError(f"invalid device pointer: {block.ptr:#x} (block not allocated)")
            del d.active[block.ptr]
            try:
                self._release(d, block)
            except BaseException:
                d.active[block.ptr] = block  # the driver failed: still allocated
                raise
        finally:
            token.append(True)
            if self._deferred:
                self._drain()

    def record_stream(self, storage, stream):
        """`storage` (or a Block) was used on `stream`: do not reuse it after free until the
        work queued on `stream` at free time has completed."""
        if type(stream) is not int:
            raise TypeError(f"stream must be an int handle, got {type(stream).__name__}")
        with self:
            if isinstance(storage, Block):
                block = storage
                if block.state != _ALLOCATED:
                    raise RuntimeError("record_stream on a block that is not allocated")
            else:
                if not storage.data:
                    return
                d = self._devices.get(storage.device.index)
                block = d.active.get(storage.data) if d is not None else None
                if block is None:
                    raise RuntimeError(f"invalid device pointer: {storage.data:#x}")
            if stream == block.stream:
                return  # uses on the allocation stream need no synchronization
            if block.stream_uses is None:
                block.stream_uses = {stream}
            else:
                block.stream_uses.add(stream)

    # ---- cache control ----------------------------------------------------------------------
    def empty_cache(self):
        """Wait for pending record_stream events, then return every whole free segment."""
        with self:
            for d in list(self._devices.values()):
                self._release_cached(d)

    def synchronize(self, device=None):
        """Synchronize the device, then recycle blocks whose events have completed."""
        index = self._index(device)
        self._driver.synchronize(index)
        with self:
            d = self._devices.get(index)
            if d is not None and d.events:
                self._process_events(d)

    # ---- graph pools -------------------------------------------------------------------------
    def begin_allocate_to_pool(self, device_index, pool_id, stream):
        """Until end_allocate_to_pool, allocations on `stream` (capturing) come from the private pool `pool_id`."""
        d = self._state(device_index)
        with self:
            gp = d.graph_pools.get(pool_id)
            if gp is None:
                gp = d.graph_pools[pool_id] = _GraphPool(d, stream)
            gp.uses += 1
            for pool in gp.pair:
                pool.stream = stream  # new segments' blocks carry the capturing stream
            gp.stashed[stream] = d.pools.get(stream)
            d.pools[stream] = gp.pair

    def end_allocate_to_pool(self, device_index, pool_id, stream):
        d = self._state(device_index)
        with self:
            own = d.graph_pools[pool_id].stashed.pop(stream)
            if own is None:
                del d.pools[stream]
            else:
                d.pools[stream] = own

    def release_pool(self, device_index, pool_id):
        """A graph using `pool_id` is gone; once none is left, empty_cache returns the pool's free segments."""
        d = self._state(device_index)
        with self:
            gp = d.graph_pools.get(pool_id)
            if gp is not None:
                gp.uses -= 1

    def _release_graph_pools(self, d):
        for pool_id, gp in list(d.graph_pools.items()):
            if gp.uses > 0:
                continue
            self._free_segments(d, gp.pair)
            if not any(pool.blocks() for pool in gp.pair) and not any(b.pool in gp.pair for b in d.active.values()):
                del d.graph_pools[pool_id]

    # ---- statistics -------------------------------------------------------------------------
    def bytes_in_use(self, device=None):
        d = self._devices.get(self._index(device))
        return d.hot[1].b + d.hot[2].b if d is not None else 0

    def max_bytes_in_use(self, device=None):
        d = self._devices.get(self._index(device))
        return d.hot[0].pb if d is not None else 0

    def bytes_reserved(self, device=None):
        d = self._devices.get(self._index(device))
        return d.reserved[0].current if d is not None else 0

    def max_bytes_reserved(self, device=None):
        d = self._devices.get(self._index(device))
        return d.reserved[0].peak if d is not None else 0

    def memory_stats(self, device=None):
        """PyTorch's flat memory_stats dict for one device, keys sorted."""
        index = self._index(device)
        with self:
            d = self._devices.get(index) or _Device(index, self._hot)
            out = {}
            hot = d.hot
            kinds = hot[1:]

            def put(name, values):
                for kind, (cur, peak, alloc, freed) in zip(_KINDS, values):
                    out[f"{name}.{kind}.current"] = cur
                    out[f"{name}.{kind}.peak"] = peak
                    out[f"{name}.{kind}.allocated"] = alloc
                    out[f"{name}.{kind}.freed"] = freed

            def derived(cur, peak, cumul_alloc, cumul_freed):
                # per kind, then "all": the sum of the kinds, with peaks of its own
                rows = [(cur(h), peak(h), cumul_alloc(h), cumul_freed(h)) for h in kinds]
                total = [x + y for x, y in zip(*rows)]
                total[1] = peak(hot[0])
                return [total] + rows

            put("allocation", derived(lambda h: h.n, lambda h: h.pn, lambda h: h.n - h.n0 + h.fn, lambda h: h.fn))
            put("allocated_bytes", derived(lambda h: h.b, lambda h: h.pb, lambda h: h.b - h.b0 + h.fb, lambda h: h.fb))
            put(
                "active",
                derived(
                    lambda h: h.n + h.qn,
                    lambda h: max(h.pn, h.xn),
                    lambda h: h.n - h.n0 + h.fn,
                    lambda h: h.fn - h.qi[0] + h.qo[0],
                ),
            )
            put(
                "active_bytes",
                derived(
                    lambda h: h.b + h.qb,
                    lambda h: max(h.pb, h.xb),
                    lambda h: h.b - h.b0 + h.fb,
                    lambda h: h.fb - h.qi[1] + h.qo[1],
                ),
            )
            put(
                "requested_bytes",
                derived(
                    lambda h: h.r + h.qr,
                    lambda h: max(h.pr, h.xr),
                    lambda h: h.r - h.r0 + h.fr,
                    lambda h: h.fr - h.qi[2] + h.qo[2],
                ),
            )
            put(
                "inactive_split",
                derived(lambda h: h.sn, lambda h: h.spn, lambda h: h.sn - h.sn0 + h.sfn, lambda h: h.sfn),
            )
            put(
                "inactive_split_bytes",
                derived(lambda h: h.sb, lambda h: h.spb, lambda h: h.sb - h.sb0 + h.sfb, lambda h: h.sfb),
            )
            put("segment", [(s.current, s.peak, s.allocated, s.freed) for s in d.segment])
            put("reserved_bytes", [(s.current, s.peak, s.allocated, s.freed) for s in d.reserved])
            for name in ("oversize_allocations", "oversize_segments"):
                for field in ("current", "peak", "allocated", "freed"):
                    out[f"{name}.{field}"] = 0
            out["max_split_size"] = -1
            out["num_alloc_retries"] = d.num_alloc_retries
            out["num_ooms"] = d.num_ooms
            out["num_oom_rejections"] = 0
            out["num_sync_all_streams"] = d.num_sync_all_streams
            out["num_device_alloc"] = d.num_device_alloc
            out["num_device_free"] = d.num_device_free
        return OrderedDict(sorted(out.items()))

    def reset_peak_memory_stats(self, device=None):
        with self:
            d = self._devices.get(self._index(device))
            if d is None:
                return
            a, small, large = d.hot
            for h in (small, large):
                h.pn, h.pb, h.pr = h.n, h.b, h.r
                h.xn, h.xb, h.xr = h.n + h.qn, h.b + h.qb, h.r + h.qr
                h.spn, h.spb = h.sn, h.sb
            a.pn, a.pb, a.pr = small.n + large.n, small.b + large.b, small.r + large.r
            a.xn, a.xb, a.xr = a.pn + a.qn, a.pb + a.qb, a.pr + a.qr
            a.spn, a.spb = small.sn + large.sn, small.sb + large.sb
            for s in d.segment + d.reserved:
                s.peak = s.current

    def reset_accumulated_memory_stats(self, device=None):
        with self:
            d = self._devices.get(self._index(device))
            if d is None:
                return
            for h in d.hot:
                h.n0, h.b0, h.r0 = h.n, h.b, h.r
                h.fn = h.fb = h.fr = 0
                h.qi, h.qo = [0, 0, 0], [0, 0, 0]
                h.sn0, h.sb0 = h.sn, h.sb
                h.sfn = h.sfb = 0
            for s in d.segment + d.reserved:
                s.allocated = s.freed = 0
            d.num_alloc_retries = d.num_ooms = d.num_sync_all_streams = 0
            d.num_device_alloc = d.num_device_free = 0

    def memory_snapshot(self):
        """Every segment of every device, by address, with its blocks (PyTorch's layout)."""
        with self:
            segments = []
            for d in self._devices.values():
                for pool in d.free_pools():
                    if pool.deferred:
                        pool.coalesce()
                blocks = d.free_blocks() + list(d.active.values()) + d.pending_blocks()
                for head in blocks:
                    if head.prev is not None:
                        continue
                    seg = {
                        "device": d.index,
                        "address": head.ptr,
                        "total_size": 0,
                        "allocated_size": 0,
                        "active_size": 0,
                        "requested_size": 0,
                        "stream": head.stream,
                        "segment_type": "small" if head.pool.small else "large",
                        "segment_pool_id": d.pool_id(head.pool),
                        "is_expandable": False,
                        "frames": [],
                        "blocks": [],
                    }
                    b = head
                    while b is not None:
                        active = b.state != _FREE or bool(b.stream_uses)
                        state = (
                            "active_allocated"
                            if b.state == _ALLOCATED
                            else "active_pending_free"
                            if active
                            else "inactive"
                        )
                        seg["blocks"].append(
                            {
                                "address": b.ptr,
                                "size": b.size,
                                "requested_size": b.requested,
                                "state": state,
                                "frames": [],
                            }
                        )
                        seg["total_size"] += b.size
                        if b.state == _ALLOCATED:
                            seg["allocated_size"] += b.size
                        if active:
                            seg["active_size"] += b.size
                            seg["requested_size"] += b.requested
                        b = b.next
                    segments.append(seg)
            segments.sort(key=lambda s: (s["device"], s["address"]))
            return segments

    def memory_summary(self, device=None, abbreviated=False):
        """A table like torch.cuda.memory_summary, with torch_npu's wording."""
        index = self._index(device)
        stats = self.memory_stats(index)
        return _render_summary(stats, index, abbreviated)

    # ---- internals (caller holds the lock) ------------------------------------------------
    def __enter__(self):
        self._acquire()
        return self

    def __exit__(self, *exc):
        self._release_token()
        return False

    def _acquire(self):
        # the token is taken: wait for it (the holder may be in a driver call without the GIL).
        # Only frees may come back in on the holder's own thread; they never wait (see free).
        token = self._token
        delay = 0.0
        while True:
            try:
                token.pop()
                return
            except IndexError:
                time.sleep(delay)
                delay = min(delay * 2 or 1e-6, 1e-3)

    def _release_token(self):
        self._token.append(True)
        if self._deferred:
            self._drain()

    def _drain(self):
        # frees queued while the token was taken; whoever holds the token next does them
        token = self._token
        while self._deferred:
            try:
                token.pop()
            except IndexError:
                return
            try:
                while self._deferred:
                    index, ptr = self._deferred.pop()
                    d = self._devices.get(index)
                    block = d.active.pop(ptr, None) if d is not None else None
                    if block is not None:
                        self._release(d, block)
            finally:
                token.append(True)

    def _malloc(self, d, nbytes, stream):
        if d.events:
            self._process_events(d)
        size = (nbytes + self._pad + MIN_BLOCK_SIZE - 1) & -MIN_BLOCK_SIZE  # round_size, inlined
        pair = d.pools.get(stream) or d.pools_for(stream)
        pool = pair[0] if size <= SMALL_SIZE else pair[1]
        stack = pool.sizes.get(size)
        # an exact fit (the common case) is a heap pop: nothing to split
        block = heappop(stack)[1] if stack else self._carve(d, pool, size)
        block.state = _ALLOCATED
        block.requested = nbytes
        d.active[block.ptr] = block
        k = pool.hot
        s = block.size
        seg = block.seg
        used = seg.used
        seg.used = used + 1
        prev = block.prev
        nxt = block.next
        if prev is not None or nxt is not None:
            # the block leaves a free run of a split segment: what PyTorch's split would change
            free_sides = (prev is not None and prev.state == _FREE) + (nxt is not None and nxt.state == _FREE)
            if not used:
                self._inactive_split(pool, free_sides, seg.size - s)  # the segment was whole
            else:  # the run loses the block: fewer inactive bytes, and a run more (or less) by its sides
                k.sb -= s
                k.sfb += s
                if free_sides == 0:
                    k.sn -= 1
                    k.sfn += 1
                elif free_sides == 2:
                    self._inactive_split(pool, 1, 0)
        # per kind current and peak; "all" keeps only peaks (its current is the sum of kinds)
        o = pool.other
        a = pool.all
        k.n = n = k.n + 1
        if n > k.pn:
            k.pn = n
        n += o.n
        if n > a.pn:
            a.pn = n
        k.b = v = k.b + s
        if v > k.pb:
            k.pb = v
        v += o.b
        if v > a.pb:
            a.pb = v
        k.r = v = k.r + nbytes
        if v > k.pr:
            k.pr = v
        v += o.r
        if v > a.pr:
            a.pr = v
        if a.qn:
            self._pending_peaks(k, o, a)
        return block

    @staticmethod
    def _pending_peaks(k, o, a):
        # active = allocated + waiting for events: its peaks move only while blocks wait
        k.xn = max(k.xn, k.n + k.qn)
        k.xb = max(k.xb, k.b + k.qb)
        k.xr = max(k.xr, k.r + k.qr)
        a.xn = max(a.xn, k.n + o.n + a.qn)
        a.xb = max(a.xb, k.b + o.b + a.qb)
        a.xr = max(a.xr, k.r + o.r + a.qr)

    @staticmethod
    def _inactive_split(pool, dn, db):
        """Net change of the inactive split blocks of a pool kind (PyTorch's increase or
        decrease of inactive_split / inactive_split_bytes)."""
        k, o, a = pool.hot, pool.other, pool.all
        if dn > 0:
            k.sn = n = k.sn + dn
            if n > k.spn:
                k.spn = n
            n += o.sn
            if n > a.spn:
                a.spn = n
        elif dn < 0:
            k.sn += dn
            k.sfn -= dn
        if db > 0:
            k.sb = v = k.sb + db
            if v > k.spb:
                k.spb = v
            v += o.sb
            if v > a.spb:
                a.spb = v
        elif db < 0:
            k.sb += db
            k.sfb -= db

    def _carve(self, d, pool, size):
        """A free block for a rounded `size` no free block fits exactly: the best fit among the free
        blocks as they lie, else among them merged, else a new segment; split if it is larger."""
        block = pool.best_fit(size)
        if block is None and pool.deferred:
            block = pool.merge_fitting(size)
        if block is None:
            block = self._new_segment(d, pool, size)
        return self._split(pool, block, size)

    @staticmethod
    def _split(pool, block, size):
        """The front `size` bytes of a free `block` taken from its pool (PyTorch's alloc_found_block,
        less the statistics, which _malloc counts)."""
        remaining = block.size - size
        if remaining >= MIN_BLOCK_SIZE if pool.small else remaining > SMALL_SIZE:
            front = Block(block.ptr, size, block.stream, pool, block.seg)
            front.prev = prev = block.prev
            if prev is not None:
                prev.next = front
            front.next = block
            block.prev = front
            block.ptr += size
            block.size = remaining
            pool.push(block)
            return front
        return block

    def _release(self, d, block):
        """The caller is done with `block` (PyTorch's free)."""
        if block.stream_uses:
            self._insert_events(d, block)  # first: it is the step that may fail
        pool = block.pool
        k = pool.hot
        s = block.size
        r = block.requested
        k.n -= 1
        k.b -= s
        k.r -= r
        k.fn += 1
        k.fb += s
        k.fr += r
        if block.state != _PENDING:
            self._put_back(pool, block)

    def _put_back(self, pool, block):
        """A block no longer in use goes back to its pool unmerged; the statistics move as PyTorch's
        merge with its free neighbours would move them (free_block)."""
        block.state = _FREE
        s = block.size
        stack = pool.sizes.get(s)
        if stack is None:
            pool.push(block)
        else:
            heappush(stack, (block.ptr, block))
        seg = block.seg
        seg.used = used = seg.used - 1
        prev = block.prev
        nxt = block.next
        if prev is None and nxt is None:
            return  # a whole segment
        free_sides = (prev is not None and prev.state == _FREE) + (nxt is not None and nxt.state == _FREE)
        if free_sides:
            deferred = pool.deferred
            if not deferred or deferred[-1] is not block:  # freed again with nothing merged meanwhile
                pool.defer(block)
        if not used:
            self._inactive_split(pool, -free_sides, s - seg.size)  # the segment is whole again
        elif free_sides == 1:  # a free run grows by the block (a run more with no free side, one less with two)
            k = pool.hot
            k.sb = v = k.sb + s
            if v > k.spb:
                k.spb = v
            a = pool.all
            v += pool.other.sb
            if v > a.spb:
                a.spb = v
        else:
            self._inactive_split(pool, 1 - free_sides, s)

    def _new_segment(self, d, pool, size):
        """A fresh segment from the driver; on out-of-memory, empty this device's cache and
        retry once (PyTorch's alloc_block / release_cached_blocks)."""
        nbytes = allocation_size(size)
        driver = self._driver
        ptr = driver.malloc(d.index, nbytes)
        if not ptr:
            self._release_cached(d)
            d.num_alloc_retries += 1
            ptr = driver.malloc(d.index, nbytes)
            if not ptr:
                d.num_ooms += 1
                free, total = driver.mem_info(d.index)
                allocated = d.hot[1].b + d.hot[2].b
                raise OutOfMemoryError(
                    f"NPU out of memory. Tried to allocate {format_size(nbytes)} (NPU {d.index}; "
                    f"{format_size(total)} total capacity; {format_size(allocated)} already allocated; "
                    f"{format_size(allocated + d.hot[0].qb)} current active; {format_size(free)} free; "
                    f"{format_size(d.reserved[0].current)} reserved in total by PyTorch)"
                )
        d.num_device_alloc += 1
        for i in (0, pool.kind):
            d.segment[i].increase(1)
            d.reserved[i].increase(nbytes)
        return Block(ptr, nbytes, pool.stream, pool, _Segment(nbytes))

    def _release_cached(self, d):
        # aclrtFree frees at once, without waiting for work still queued on the block (acl docs): the device
        # drains first, as torch_npu's emptyCache and out-of-memory retry do
        self._driver.synchronize(d.index)
        self._sync_events(d)
        for pair in list(d.pools.values()):
            self._free_segments(d, pair)
        if d.graph_pools:
            self._release_graph_pools(d)

    def _free_segments(self, d, pair):
        """Give the whole free segments of a (small, large) pool pair back to the driver."""
        for pool in (pair[1], pair[0]):  # large pool first, as PyTorch
            if pool.deferred:
                pool.coalesce()
            for block in pool.blocks():
                if block.prev is None and block.next is None:
                    self._driver.free(d.index, block.ptr)
                    pool.remove(block)
                    d.num_device_free += 1
                    for i in (0, pool.kind):
                        d.segment[i].decrease(1)
                        d.reserved[i].decrease(block.size)
            pool.compact()

    def _insert_events(self, d, block):
        """Record an event on every stream the block was used on; the block waits for them.
        A driver failure leaves the block allocated, as it was."""
        driver = self._driver
        recorded = []
        try:
            for stream in sorted(block.stream_uses):
                event = driver.new_event(d.index)
                recorded.append((stream, event))
                driver.record_event(event, stream)
        except BaseException:
            for _, event in recorded:
                driver.destroy_event(event)
            raise
        for stream, event in recorded:
            queue = d.events.get(stream)
            if queue is None:
                queue = d.events[stream] = deque()
            queue.append((event, block))
        block.event_count = len(recorded)
        block.stream_uses = None
        block.state = _PENDING
        s, r = block.size, block.requested
        for h in (block.pool.hot, d.hot[0]):
            h.qn += 1
            h.qb += s
            h.qr += r
            h.qi[0] += 1
            h.qi[1] += s
            h.qi[2] += r

    def _unpend(self, d, block):
        s, r = block.size, block.requested
        for h in (block.pool.hot, d.hot[0]):
            h.qn -= 1
            h.qb -= s
            h.qr -= r
            h.qo[0] += 1
            h.qo[1] += s
            h.qo[2] += r
        self._put_back(block.pool, block)

    def _process_events(self, d):
        driver = self._driver
        for stream in list(d.events):
            queue = d.events[stream]
            while queue:
                event, block = queue[0]
                if not driver.event_done(event):
                    break
                queue.popleft()
                driver.destroy_event(event)
                block.event_count -= 1
                if block.event_count == 0:
                    self._unpend(d, block)
            if not queue:
                del d.events[stream]

    def _sync_events(self, d):
        d.num_sync_all_streams += 1
        driver = self._driver
        while d.events:
            stream, queue = next(iter(d.events.items()))
            while queue:
                event, block = queue[0]
                driver.sync_event(event)
                queue.popleft()
                driver.destroy_event(event)
                block.event_count -= 1
                if block.event_count == 0:
                    self._unpend(d, block)
            del d.events[stream]


_NATIVE_METHODS = ("allocate", "free", "malloc", "free_block")
# what the C versions mirror: a subclass that overrides any of these keeps the Python versions
_NATIVE_MIRRORS = (*_NATIVE_METHODS, "_malloc", "_release", "_put_back", "_inactive_split", "_pending_peaks")


def _bind(native):
    """Tell a compiled module where this module's classes keep their slots, and the Python versions."""
    fallbacks = tuple(getattr(CachingAllocator, name) for name in _NATIVE_METHODS)
    native.setup(
        Block,
        _Segment,
        _Pool,
        _Device,
        _device,
        heappop,
        heappush,
        SMALL_SIZE,
        MIN_BLOCK_SIZE,
        DEFERRED_LIMIT,
        fallbacks,
    )


if _native is not None:
    _bind(_native)


def _check_nbytes(nbytes):
    if isinstance(nbytes, bool):
        raise TypeError("allocation size must be an integer, got bool")
    try:
        return operator.index(nbytes)
    except TypeError:
        raise TypeError(f"allocation size must be an integer, got {type(nbytes).__name__}") from None


# ---- memory_summary --------------------------------------------------------------------------
def _summary_size(sz, pref_sz):
    prefixes = ["B  ", "KiB", "MiB", "GiB", "TiB", "PiB"]
    prefix = prefixes[0]
    for new_prefix in prefixes[1:]:
        if pref_sz < 768 * 1024:
            break
        prefix = new_prefix
        sz //= 1024
        pref_sz /= 1024
    return f"{sz:6d} {prefix}"


def _summary_count(cnt, pref_cnt):
    prefixes = [" ", "K", "M"]
    prefix = prefixes[0]
    for new_prefix in prefixes[1:]:
        if pref_cnt < 750 * 1000:
            break
        prefix = new_prefix
        cnt //= 1000
        pref_cnt /= 1000
    return f"{cnt:7d} {prefix} "


_SUMMARY_METRICS = (
    ("allocated_bytes", "Allocated memory", _summary_size),
    ("active_bytes", "Active memory", _summary_size),
    ("requested_bytes", "Requested memory", _summary_size),
    ("reserved_bytes", "NPU reserved memory", _summary_size),
    ("inactive_split_bytes", "Non-releasable memory", _summary_size),
    ("allocation", "Allocations", _summary_count),
    ("active", "Active allocs", _summary_count),
    ("segment", "NPU reserved segments", _summary_count),
    ("inactive_split", "Non-releasable allocs", _summary_count),
)


def _render_summary(stats, index, abbreviated):
    rule, thick = "-" * 75, "=" * 75
    lines = [
        thick,
        f" {'':16} PyTorch NPU memory summary, device ID {index:<18d} ",
        rule,
        f"  {'':9} NPU OOMs: {stats['num_ooms']:<13d} | {'':6} npuMalloc retries: {stats['num_alloc_retries']:<9d}  ",
        thick,
        "        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  ",
    ]
    fields = ("current", "peak", "allocated", "freed")
    for key, name, fmt in _SUMMARY_METRICS:
        lines.append(rule)
        rows = [("all", name)]
        if not abbreviated:
            rows += [("large_pool", "      from large pool"), ("small_pool", "      from small pool")]
        pref = [stats[f"{key}.all.{f}"] for f in fields]
        for kind, label in rows:
            cells = " | ".join(fmt(stats[f"{key}.{kind}.{f}"], p) for f, p in zip(fields, pref))
            lines.append(f" {label:<21} | {cells} ")
    for key, name in (("oversize_allocations", "Oversize allocations"), ("oversize_segments", "Oversize NPU segments")):
        lines.append(rule)
        cells = " | ".join(_summary_count(stats[f"{key}.{f}"], stats[f"{key}.{f}"]) for f in fields)
        lines.append(f" {name:<21} | {cells} ")
    lines.append(thick)
    return "|" + "|\n|".join(lines) + "|\n"
