"""DataLoader with worker processes against PyTorch's: order, sharding, seeds, errors, timeouts, persistent
workers, shutdown. Random streams differ between the libraries by design, so seeds are
compared by their rule (base seed from the loader's generator + worker id), not their values."""

import os
import time

import numpy as np
import pytest
from helpers import torch_or_skip

torch = torch_or_skip()

import mindtorch as mt  # noqa: E402
import mindtorch.utils.data as mud  # noqa: E402
import torch.utils.data as tud  # noqa: E402

LIBS = {"mt": (mt, mud), "torch": (torch, tud)}


def _lib(name):
    return LIBS[name]


class Squares:
    """A map-style dataset usable by both libraries (plain Python; tensors made by the given library)."""

    def __init__(self, lib, n=11, fail_at=None, sleep=0.0, die_at=None):
        self.lib, self.n, self.fail_at, self.sleep, self.die_at = lib, n, fail_at, sleep, die_at

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if i == self.fail_at:
            raise ValueError(f"bad sample {i}")
        if i == self.die_at:
            os._exit(7)
        time.sleep(self.sleep)
        torch_, data = _lib(self.lib)
        return torch_.tensor([float(i), float(i * i)]), i


class Shards:
    """An iterable dataset that splits its range among the workers with get_worker_info()."""

    def __init__(self, lib, start=0, end=13):
        self.lib, self.start, self.end = lib, start, end

    def __iter__(self):
        torch_, data = _lib(self.lib)
        info = data.get_worker_info()
        if info is None:
            return iter(range(self.start, self.end))
        per = -(-(self.end - self.start) // info.num_workers)
        lo = self.start + info.id * per
        return iter(range(lo, min(lo + per, self.end)))


def _iterable(lib, **kw):
    torch_, data = _lib(lib)
    base = type("ShardsDS", (Shards, data.IterableDataset), {})
    globals()[f"ShardsDS_{lib}"] = base  # picklable by name for spawn
    base.__qualname__ = base.__name__ = f"ShardsDS_{lib}"
    return base(lib, **kw)


def _batches(lib, ds, **kw):
    torch_, data = _lib(lib)
    out = []
    for b in data.DataLoader(ds, **kw):
        out.append(_plain(b))
    return out


def _plain(b):
    if isinstance(b, (list, tuple)):
        return [_plain(x) for x in b]
    return b.tolist() if hasattr(b, "tolist") else b


@pytest.mark.parametrize(
    "kw",
    [
        dict(batch_size=3, num_workers=2),
        dict(batch_size=4, num_workers=3, drop_last=True),
        dict(batch_size=None, num_workers=2),
        dict(batch_size=2, num_workers=2, prefetch_factor=1),
    ],
)
def test_map_style_batches_in_sampler_order(kw):
    assert _batches("mt", Squares("mt"), **kw) == _batches("torch", Squares("torch"), **kw)


@pytest.mark.parametrize(
    "kw",
    [
        dict(batch_size=2, num_workers=2),
        dict(batch_size=3, num_workers=3),
        dict(batch_size=2, num_workers=2, drop_last=True),
        dict(batch_size=None, num_workers=2),
    ],
)
def test_iterable_dataset_sharded_by_worker_info_interleaves_like_pytorch(kw):
    assert _batches("mt", _iterable("mt"), **kw) == _batches("torch", _iterable("torch"), **kw)


class Seeds:
    def __init__(self, lib):
        self.lib = lib

    def __len__(self):
        return 6

    def __getitem__(self, i):
        torch_, data = _lib(self.lib)
        info = data.get_worker_info()
        return [
            info.id,
            info.num_workers,
            info.seed,
            int(torch_.randint(0, 2**30, (1,)).item()),
            float(np.random.rand()),
            info.dataset is not None,
            os.getpid(),
        ]


def _seeds(gen_seed, workers=2):
    g = mt.Generator().manual_seed(gen_seed)
    return [r for b in mud.DataLoader(Seeds("mt"), batch_size=None, num_workers=workers, generator=g) for r in [b]]


def test_worker_seeds_follow_pytorchs_rule():
    rows = _seeds(5)
    base = rows[0][2] - rows[0][0]
    assert all(r[2] == base + r[0] for r in rows)  # seed = base seed + worker id
    assert {r[0] for r in rows} == {0, 1} and all(r[1] == 2 and r[5] for r in rows)
    assert [r[:6] for r in _seeds(5)] == [r[:6] for r in rows]  # the same generator seed: the same draws
    assert [r[2] for r in _seeds(6)] != [r[2] for r in rows]
    by_worker = {r[0]: r for r in rows}
    assert by_worker[0][3] != by_worker[1][3] and by_worker[0][4] != by_worker[1][4]  # each worker seeded apart
    assert mud.get_worker_info() is None and tud.get_worker_info() is None


def test_worker_init_fn_runs_in_each_worker_before_loading():
    class Tagged(mud.Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return mt.tensor([i, mud.get_worker_info().dataset.tag])

    def init(worker_id):
        mud.get_worker_info().dataset.tag = 100 + worker_id

    got = [b.tolist() for b in mud.DataLoader(Tagged(), batch_size=None, num_workers=2, worker_init_fn=init)]
    assert got == [[0, 100], [1, 101], [2, 100], [3, 101]]


def _error(lib, ds, **kw):
    torch_, data = _lib(lib)
    with pytest.raises(Exception) as info:
        for _ in data.DataLoader(ds, **kw):
            pass
    return type(info.value), str(info.value)


def test_worker_exception_is_reraised_with_the_workers_traceback():
    (mk, mmsg), (tk, tmsg) = (
        _error(lib, Squares(lib, fail_at=5), batch_size=2, num_workers=2) for lib in ("mt", "torch")
    )
    assert mk is tk is ValueError
    for msg in (mmsg, tmsg):
        assert msg.startswith("Caught ValueError in DataLoader worker process 0.\nOriginal Traceback")
        assert "bad sample 5" in msg and "__getitem__" in msg


def test_timeout_raises_like_pytorch():
    res = [_error(lib, Squares(lib, sleep=1.5), batch_size=2, num_workers=1, timeout=0.3) for lib in ("mt", "torch")]
    assert res[0] == res[1] == (RuntimeError, "DataLoader timed out after 0.3 seconds")


def test_a_worker_that_dies_is_reported():
    kinds_msgs = [_error(lib, Squares(lib, die_at=3), batch_size=1, num_workers=2) for lib in ("mt", "torch")]
    for kind, msg in kinds_msgs:
        assert (
            issubclass(kind, RuntimeError) and "exited unexpectedly" in msg and msg.startswith("DataLoader worker (pid")
        )


@pytest.mark.parametrize(
    "kw",
    [
        dict(num_workers=-1),
        dict(timeout=-1),
        dict(prefetch_factor=2),
        dict(persistent_workers=True),
        dict(num_workers=1, multiprocessing_context="nope"),
        dict(multiprocessing_context="spawn"),
    ],
)
def test_argument_errors_match(kw):
    errs = []
    for lib in ("mt", "torch"):
        torch_, data = _lib(lib)
        with pytest.raises(Exception) as info:
            data.DataLoader(Squares(lib), **kw)
        errs.append((type(info.value), str(info.value)))
    assert errs[0] == errs[1]


class Pids:
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return os.getpid()


def test_persistent_workers_survive_epochs():
    dl = mud.DataLoader(Pids(), batch_size=None, num_workers=2, persistent_workers=True)
    first, second = set(dl), set(dl)
    assert first == second and os.getpid() not in first and len(first) == 2
    transient = mud.DataLoader(Pids(), batch_size=None, num_workers=2)
    assert set(transient) != set(transient)


def test_breaking_early_leaves_no_processes_or_shared_memory():
    before = set(os.listdir("/dev/shm")) if os.path.isdir("/dev/shm") else set()
    dl = mud.DataLoader(Squares("mt", n=40), batch_size=2, num_workers=2, prefetch_factor=4)
    it = iter(dl)
    next(it)
    workers = list(it.workers)
    del it
    import gc

    gc.collect()
    deadline = time.monotonic() + 10
    while any(p.is_alive() for p in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(p.is_alive() for p in workers)
    if os.path.isdir("/dev/shm"):
        assert {f for f in set(os.listdir("/dev/shm")) - before if f.startswith("mindtorch-dl-")} == set()


def test_batches_arrive_in_shared_memory_and_stay_valid():
    batches = list(mud.DataLoader(Squares("mt", n=8), batch_size=4, num_workers=2))
    x, y = batches[1]
    assert x.tolist() == [[4.0, 16.0], [5.0, 25.0], [6.0, 36.0], [7.0, 49.0]] and y.tolist() == [4, 5, 6, 7]
    x.add_(1)  # writable, ordinary tensors
    assert x[0, 0].item() == 5.0


def test_out_of_order_delivery_keeps_every_batch():
    got = _batches("mt", Squares("mt", n=12), batch_size=2, num_workers=3, in_order=False)
    want = _batches("mt", Squares("mt", n=12), batch_size=2, num_workers=0)
    assert sorted(map(repr, got)) == sorted(map(repr, want))


def test_spawn_context_works():
    got = _batches("mt", Squares("mt", n=5), batch_size=2, num_workers=2, multiprocessing_context="spawn")
    assert got == _batches("torch", Squares("torch", n=5), batch_size=2, num_workers=0)


def test_pin_memory_without_an_accelerator_warns_like_pytorch():
    msgs = []
    for lib in ("mt", "torch"):
        torch_, data = _lib(lib)
        with pytest.warns(UserWarning) as rec:
            list(data.DataLoader(Squares(lib, n=2), batch_size=2, pin_memory=True))
        msgs.append({str(w.message) for w in rec})
    assert msgs[0] == msgs[1]
