import collections.abc
import itertools
import multiprocessing
import multiprocessing.connection
import numbers
import threading
import time
import warnings
import weakref

import numpy as np

import mindtorch

from . import _channel, _worker
from ._worker import get_worker_info
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler

__all__ = ["DataLoader", "default_collate", "default_convert", "get_worker_info"]


def default_convert(data):
    if isinstance(data, np.ndarray) and data.dtype.kind not in "USO":
        return mindtorch.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return type(data)({k: default_convert(v) for k, v in data.items()})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, (list, tuple)):
        return type(data)(default_convert(d) for d in data)
    return data


def default_collate(batch):
    elem = batch[0]
    if isinstance(elem, mindtorch.Tensor):
        return mindtorch.stack(list(batch), 0)
    if isinstance(elem, np.ndarray):
        if elem.dtype.kind in "USO":
            raise TypeError(
                f"default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
                f"found {elem.dtype}"
            )
        return default_collate([mindtorch.as_tensor(b) for b in batch])
    if isinstance(elem, np.generic):
        return mindtorch.as_tensor(np.array(batch))
    if isinstance(elem, bool):
        return mindtorch.tensor(batch)
    if isinstance(elem, float):
        return mindtorch.tensor(batch, dtype=mindtorch.float64)
    if isinstance(elem, int):
        return mindtorch.tensor(batch)
    if isinstance(elem, numbers.Number):
        return mindtorch.tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        return type(elem)({key: default_collate([d[key] for d in batch]) for key in elem})
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(*(default_collate(samples) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        elem_size = len(next(it))
        if not all(len(e) == elem_size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        if isinstance(elem, tuple):
            return [default_collate(s) for s in transposed]
        return [default_collate(s) for s in transposed]
    raise TypeError(
        f"default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {type(elem)}"
    )


class DataLoader:
    def __init__(  # noqa: C901
        self,
        dataset,
        batch_size=1,
        shuffle=None,
        sampler=None,
        batch_sampler=None,
        num_workers=0,
        collate_fn=None,
        pin_memory=False,
        drop_last=False,
        timeout=0,
        worker_init_fn=None,
        multiprocessing_context=None,
        generator=None,
        *,
        prefetch_factor=None,
        persistent_workers=False,
        pin_memory_device="",
        in_order=True,
    ):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError(
                "prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 "
                "to enable multiprocessing, otherwise set prefetch_factor to None."
            )
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        self.dataset = dataset
        self.num_workers, self.prefetch_factor = num_workers, prefetch_factor
        self.persistent_workers, self.in_order = persistent_workers, in_order
        self.pin_memory, self.pin_memory_device = pin_memory, pin_memory_device
        self.timeout, self.worker_init_fn = timeout, worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.generator = generator
        self._iterator = None
        self._is_iterable = isinstance(dataset, IterableDataset)
        if self._is_iterable:
            if shuffle not in (None, False):
                raise ValueError(
                    f"DataLoader with IterableDataset: expected unspecified shuffle option, but got shuffle={shuffle}"
                )
            if sampler is not None:
                raise ValueError(
                    f"DataLoader with IterableDataset: expected unspecified sampler option, but got sampler={sampler}"
                )
            if batch_sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified batch_sampler option, but got "
                    f"batch_sampler={batch_sampler}"
                )
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last"
                )
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")
        if sampler is None and not self._is_iterable:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None and not self._is_iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size, self.drop_last = batch_size, drop_last
        self.sampler, self.batch_sampler = sampler, batch_sampler
        if collate_fn is None:
            collate_fn = default_collate if (batch_size is not None or batch_sampler is not None) else default_convert
        self.collate_fn = collate_fn

    def _fetch(self, indices):
        ds = self.dataset
        if hasattr(ds, "__getitems__"):
            items = ds.__getitems__(indices)
        else:
            items = [ds[i] for i in indices]
        return self.collate_fn(items)

    @property
    def multiprocessing_context(self):
        return self._mp_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, ctx):
        if ctx is not None:
            if self.num_workers == 0:
                raise ValueError(
                    "multiprocessing_context can only be used with multi-process loading (num_workers "
                    f"> 0), but got num_workers={self.num_workers}"
                )
            if isinstance(ctx, str):
                methods = multiprocessing.get_all_start_methods()
                if ctx not in methods:
                    raise ValueError(
                        f"multiprocessing_context option should specify a valid start method in "
                        f"{methods!r}, but got multiprocessing_context={ctx!r}"
                    )
                ctx = multiprocessing.get_context(ctx)
            elif not isinstance(ctx, multiprocessing.context.BaseContext):
                raise TypeError(
                    f"multiprocessing_context option should be a valid context object or a string "
                    f"specifying the start method, but got multiprocessing_context={ctx}"
                )
        self._mp_context = ctx

    def _pin(self, batch):
        if not self.pin_memory:
            return batch
        if not mindtorch.accelerator.is_available():
            return batch  # warned once per iterator
        return _map_tensors(batch, lambda t: t.pin_memory())

    def _single_process_iter(self):
        if self._is_iterable:
            it = iter(self.dataset)
            if self.batch_size is None:
                for x in it:
                    yield self._pin(self.collate_fn(x))
                return
            batch = []
            for x in it:
                batch.append(x)
                if len(batch) == self.batch_size:
                    yield self._pin(self.collate_fn(batch))
                    batch = []
            if batch and not self.drop_last:
                yield self._pin(self.collate_fn(batch))
            return
        if self.batch_sampler is not None:
            for indices in self.batch_sampler:
                yield self._pin(self._fetch(indices))
        else:
            for i in self.sampler:
                yield self._pin(self.collate_fn(self.dataset[i]))

    def __iter__(self):
        if self.pin_memory and not mindtorch.accelerator.is_available():
            warnings.warn(
                "'pin_memory' argument is set as true but no accelerator is found, then device pinned "
                "memory won't be used.",
                UserWarning,
                stacklevel=2,
            )
        if self.num_workers == 0:
            return self._single_process_iter()
        if self.persistent_workers:
            if self._iterator is None or self._iterator.closed:
                self._iterator = _MultiProcessingIter(self)
            else:
                self._iterator.reset()
            return self._iterator
        return _MultiProcessingIter(self)

    def __len__(self):
        if self._is_iterable:
            n = len(self.dataset)
            if self.batch_size is not None:
                return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
            return n
        if self.batch_sampler is not None:
            return len(self.batch_sampler)
        return len(self.sampler)


def _map_tensors(obj, fn):
    """fn applied to every tensor of a batch, its containers kept."""
    if isinstance(obj, mindtorch.Tensor):
        return fn(obj)
    return _worker.map_children(obj, lambda v: _map_tensors(v, fn))


class _MapFetcher:
    """What a worker does with a task of a map-style dataset: the batch (or sample) at those indices."""

    def __init__(self, dataset, collate_fn, auto_batch):
        self.dataset, self.collate_fn, self.auto_batch = dataset, collate_fn, auto_batch

    def __call__(self, index):
        ds = self.dataset
        if not self.auto_batch:
            return self.collate_fn(ds[index])
        items = ds.__getitems__(index) if hasattr(ds, "__getitems__") else [ds[i] for i in index]
        return self.collate_fn(items)


class _IterFetcher:
    """What a worker does for an iterable dataset: the next batch of its own copy (StopIteration at the end)."""

    def __init__(self, collate_fn, batch_size, drop_last):
        self.collate_fn, self.batch_size, self.drop_last = collate_fn, batch_size, drop_last

    def __call__(self, it):
        if self.batch_size is None:
            return self.collate_fn(next(it))
        batch = list(itertools.islice(it, self.batch_size))
        if not batch or (self.drop_last and len(batch) < self.batch_size):
            raise StopIteration
        return self.collate_fn(batch)


class _DatasetKind:
    """The two kinds of dataset a loader reads, and the fetcher that turns an index (or a batch of indices)
    into data for each: `create_fetcher(kind, dataset, auto_collation, collate_fn, drop_last).fetch(index)`."""

    Map = 0
    Iterable = 1

    @staticmethod
    def create_fetcher(kind, dataset, auto_collation, collate_fn, drop_last):
        return _Fetcher(kind, dataset, auto_collation, collate_fn, drop_last)


class _Fetcher:
    def __init__(self, kind, dataset, auto_collation, collate_fn, drop_last):
        self.dataset, self.auto_collation, self.collate_fn, self.drop_last = (
            dataset,
            auto_collation,
            collate_fn,
            drop_last,
        )
        self._map = _MapFetcher(dataset, collate_fn, auto_collation) if kind == _DatasetKind.Map else None
        self._it = iter(dataset) if kind == _DatasetKind.Iterable else None

    def fetch(self, possibly_batched_index):
        if self._map is not None:
            return self._map(possibly_batched_index)
        if not self.auto_collation:
            return self.collate_fn(next(self._it))
        want = len(possibly_batched_index)
        batch = list(itertools.islice(self._it, want))
        if not batch or (self.drop_last and len(batch) < want):
            raise StopIteration
        return self.collate_fn(batch)


class _MultiProcessingIter:
    """Batches from `num_workers` worker processes, in sampler order (or as they come with in_order=False).

    Each worker has an index queue and a result channel; at most prefetch_factor tasks per worker are
    outstanding. Results come back as (epoch, idx, data) and are reordered here. A worker's exception
    is re-raised with its traceback; a worker that dies or a wait longer than `timeout` raises
    RuntimeError. Shutdown never reads again: it closes the channels (a worker blocked writing gets a
    broken pipe), tells the workers to stop, waits a bounded time and terminates what is left.
    """

    _poll = 1.0  # seconds between liveness checks while waiting

    def __init__(self, loader):
        self.loader = loader
        n = self.num_workers = loader.num_workers
        ctx = loader.multiprocessing_context or multiprocessing.get_context()
        iterable = loader._is_iterable
        fetch = (
            _IterFetcher(loader.collate_fn, loader.batch_size, loader.drop_last)
            if iterable
            else _MapFetcher(loader.dataset, loader.collate_fn, loader.batch_sampler is not None)
        )
        base_seed = int(mindtorch.empty((), dtype=mindtorch.int64).random_(generator=loader.generator).item())
        self.index_queues = [ctx.Queue() for _ in range(n)]
        pipes = [ctx.Pipe(duplex=True) for _ in range(n)]  # socket pairs: descriptors travel too
        self.readers = [r for r, _ in pipes]
        self.done = ctx.Event()
        self.closed = False
        self.workers = []
        # runs once: on shutdown, when the iterator is collected (before its connections' own
        # finalizers, which would close their descriptors first) or at interpreter exit
        self._finalizer = weakref.finalize(self, _shut_down, self.done, self.readers, self.index_queues, self.workers)
        forked = ctx.get_start_method() == "fork"
        for w in range(n):
            # a forked worker inherits every end made so far: it keeps only its own write end
            inherited = [c.fileno() for pair in pipes for c in pair if c is not pipes[w][1]]
            p = ctx.Process(
                target=_worker.worker_loop,
                daemon=True,
                args=(
                    loader.dataset,
                    self.index_queues[w],
                    pipes[w][1],
                    self.done,
                    fetch,
                    base_seed + w,
                    loader.worker_init_fn,
                    w,
                    n,
                    iterable,
                    inherited if forked else (),
                ),
            )
            p.start()
            self.workers.append(p)
        for _, wr in pipes:  # the workers alone write: a dead one is an end of file here
            wr.close()
        self.epoch = -1
        self.reset(first=True)

    def reset(self, first=False):
        """A new epoch over the same workers (persistent_workers); the first epoch on construction."""
        self.epoch += 1
        loader = self.loader
        self.sampler_iter = (
            itertools.count()
            if loader._is_iterable
            else iter(loader.batch_sampler if loader.batch_sampler is not None else loader.sampler)
        )
        self.active = [True] * self.num_workers
        self.next_worker = itertools.cycle(range(self.num_workers))
        self.send_idx = self.rcvd_idx = 0
        self.tasks = {}  # idx -> worker id, for tasks sent and not yet yielded
        self.arrived = {}  # idx -> data that came early
        if not first:
            for w in range(self.num_workers):
                self.index_queues[w].put((self.epoch, None, _worker.Resume()))
            acks = 0
            while acks < self.num_workers:
                epoch, _, data = self._get()
                acks += epoch == self.epoch and isinstance(data, _worker.Resume)
        for _ in range(loader.prefetch_factor * self.num_workers):
            self._send()

    def _send(self):
        if not any(self.active):
            return
        try:
            task = next(self.sampler_iter)
        except StopIteration:
            return
        for _ in range(self.num_workers):
            w = next(self.next_worker)
            if self.active[w]:
                break
        self.index_queues[w].put((self.epoch, self.send_idx, task))
        self.tasks[self.send_idx] = w
        self.send_idx += 1

    def __iter__(self):
        return self

    def __next__(self):
        while True:
            # results of exhausted workers' last tasks never come
            while (
                self.rcvd_idx < self.send_idx
                and self.rcvd_idx not in self.arrived
                and (self.rcvd_idx not in self.tasks or not self.active[self.tasks[self.rcvd_idx]])
            ):
                self.tasks.pop(self.rcvd_idx, None)
                self.rcvd_idx += 1
            if self.rcvd_idx in self.arrived:
                return self._deliver(self.rcvd_idx, self.arrived.pop(self.rcvd_idx))
            if not self.tasks:
                if not self.loader.persistent_workers:
                    self.shutdown()
                raise StopIteration
            epoch, idx, data = self._get()
            if epoch is None:  # the worker failed before its loop (worker_init_fn)
                self.shutdown()
                data.reraise()
            if epoch != self.epoch:  # left over from an epoch abandoned early
                continue
            if isinstance(data, _worker.WorkerDone):
                self.active[data.worker_id] = False
                self.tasks.pop(idx, None)
                continue
            if idx == self.rcvd_idx or not self.loader.in_order:
                return self._deliver(idx, data)
            self.arrived[idx] = data

    def _deliver(self, idx, data):
        self.tasks.pop(idx, None)
        if idx == self.rcvd_idx:
            self.rcvd_idx += 1
        self._send()
        if isinstance(data, _worker.ExceptionWrapper):
            if not self.loader.persistent_workers:
                self.shutdown()
            data.reraise()
        return self.loader._pin(data)

    def _get(self):
        """The next (epoch, idx, data) from any worker; raises when one died or `timeout` passed."""
        timeout = self.loader.timeout
        deadline = time.monotonic() + timeout if timeout else None
        while True:
            wait = self._poll if deadline is None else min(self._poll, max(deadline - time.monotonic(), 0))
            for r in multiprocessing.connection.wait(self.readers, wait):
                try:
                    return _channel.recv(r)
                except EOFError:  # the worker died before its message was whole
                    self._fail_dead(force=self.workers[self.readers.index(r)].pid)
            self._fail_dead()
            if deadline is not None and time.monotonic() >= deadline:
                self.shutdown()
                raise RuntimeError(f"DataLoader timed out after {timeout} seconds")

    def _fail_dead(self, force=None):
        """Raise PyTorch's error when a worker exited (or `force`, the pid of one whose pipe broke)."""
        dead = [p.pid for p in self.workers if p.exitcode is not None]
        if force is not None and force not in dead:
            self.workers[[p.pid for p in self.workers].index(force)].join(_JOIN)
            dead.append(force)
        if dead:
            self.shutdown()
            raise RuntimeError(f"DataLoader worker (pid(s) {', '.join(map(str, dead))}) exited unexpectedly")

    def __len__(self):
        return len(self.loader)

    def shutdown(self):
        self.closed = True
        self.arrived = {}
        self._finalizer()


_JOIN = 1.0  # seconds shutdown gives the workers, together, to exit by themselves


def _shut_down(done, readers, index_queues, workers):
    """Stop a loader's workers without reading again: close the channels (a worker blocked writing gets
    a broken pipe), tell the workers to stop, wait a bounded time, terminate what is left."""
    done.set()
    for r in readers:
        r.close()
    for q in index_queues:
        try:
            q.put(None)
        except (OSError, ValueError):
            pass
    deadline = time.monotonic() + _JOIN
    for p in workers:
        p.join(max(deadline - time.monotonic(), 0))
    for p in workers:
        if p.exitcode is None:
            p.terminate()
    for p in workers:
        p.join(_JOIN)
        if p.exitcode is None:
            p.kill()
            p.join()
    for q in index_queues:  # its few small messages fit the pipe: the feeder ends at once
        q.close()
        if threading.current_thread() is not getattr(q, "_thread", None):  # collection may run in a feeder
            q.join_thread()
