"""DataLoader worker processes: the loop each worker runs, what it knows about itself, and how batches
come back to the main process.

A worker's batch travels through a file in /dev/shm (POSIX shared memory): the worker copies each CPU
tensor's data there once, the main process maps the file, unlinks it and wraps the mapping as the
tensor's storage, so the data is never pickled. Other objects (and tensors of dtypes NumPy cannot
hold) go through the queue's pickling.
"""

import mmap
import os
import queue
import random
import sys
import tempfile
import traceback
from dataclasses import dataclass

import numpy as np

_SHM_DIR = "/dev/shm"
_info = None  # this process's WorkerInfo, in a worker


@dataclass(frozen=True)
class WorkerInfo:
    id: int
    num_workers: int
    seed: int
    dataset: object


def get_worker_info():
    """In a DataLoader worker: its WorkerInfo (id, num_workers, seed, dataset); in the main process: None."""
    return _info


class ExceptionWrapper:
    """An exception raised in a worker, re-raised in the main process with the worker's traceback."""

    def __init__(self, where):
        kind, value, _ = sys.exc_info()
        self.kind = kind
        self.msg = f"Caught {kind.__name__} {where}.\nOriginal {''.join(traceback.format_exception(kind, value, value.__traceback__))}"

    def reraise(self):
        try:
            exc = self.kind(self.msg)
        except Exception:  # an exception class whose constructor wants other arguments
            exc = RuntimeError(self.msg)
        raise exc


@dataclass(frozen=True)
class WorkerDone:
    """An iterable dataset's copy in this worker is exhausted."""

    worker_id: int


@dataclass(frozen=True)
class Resume:
    """Persistent workers: a new epoch starts (iterable datasets restart their iterator)."""


@dataclass(frozen=True)
class SharedTensor:
    path: str
    shape: tuple
    dtype: str


def _shareable(t):
    import mindtorch

    return isinstance(t, mindtorch.Tensor) and t.device.type == "cpu" and str(t.dtype) in _NP_OF


_NP_OF = {
    "torch.float32": np.float32,
    "torch.float64": np.float64,
    "torch.float16": np.float16,
    "torch.int64": np.int64,
    "torch.int32": np.int32,
    "torch.int16": np.int16,
    "torch.int8": np.int8,
    "torch.uint8": np.uint8,
    "torch.bool": np.bool_,
    "torch.complex64": np.complex64,
    "torch.complex128": np.complex128,
}


def to_shared(obj):
    """`obj` with every CPU tensor moved into a /dev/shm file (one copy); structure kept."""
    import mindtorch

    if _shareable(obj):
        arr = np.ascontiguousarray(obj.detach().numpy())
        if arr.nbytes == 0 or not os.path.isdir(_SHM_DIR):
            return obj
        fd, path = tempfile.mkstemp(prefix="mindtorch-dl-", dir=_SHM_DIR)
        try:
            os.ftruncate(fd, arr.nbytes)
            with mmap.mmap(fd, arr.nbytes) as mm:
                np.frombuffer(mm, dtype=arr.dtype)[...] = arr.reshape(-1)
        finally:
            os.close(fd)
        return SharedTensor(path, tuple(arr.shape), str(obj.dtype))
    if isinstance(obj, mindtorch.Tensor):
        return obj
    return map_children(obj, to_shared)


def from_shared(obj):
    """The inverse of to_shared in the receiving process: tensors backed by the mapped files (unlinked)."""
    import mindtorch

    if isinstance(obj, SharedTensor):
        fd = os.open(obj.path, os.O_RDWR)
        try:
            size = os.fstat(fd).st_size
            mm = mmap.mmap(fd, size)
        finally:
            os.close(fd)
            os.unlink(obj.path)  # the mapping lives on; nothing stays in /dev/shm
        return mindtorch.from_numpy(np.frombuffer(mm, dtype=_NP_OF[obj.dtype]).reshape(obj.shape))
    if isinstance(obj, mindtorch.Tensor):
        return obj
    return map_children(obj, from_shared)


def discard(obj):
    """Unlink the files of a batch that will never be used (results left behind at shutdown)."""
    if isinstance(obj, SharedTensor):
        try:
            os.unlink(obj.path)
        except OSError:
            pass
    elif isinstance(obj, (list, tuple, dict)):
        map_children(obj, discard)


def map_children(obj, fn):
    """`obj` with fn applied to each child of a dict / namedtuple / list / tuple (other objects as they are)."""
    if isinstance(obj, dict):
        mapped = {k: fn(v) for k, v in obj.items()}
        try:
            return mapped if type(obj) is dict else type(obj)(mapped)
        except TypeError:
            return mapped
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*(fn(v) for v in obj))
    if isinstance(obj, (list, tuple)):
        return type(obj)(fn(v) for v in obj)
    return obj


def _numpy_seed(seed):
    # NumPy takes 32-bit seeds: fold the 64-bit worker seed
    return (seed ^ (seed >> 32)) & 0xFFFFFFFF


def worker_loop(dataset, index_queue, result_queue, done_event, fetch, seed, init_fn, worker_id, num_workers, iterable):
    """Runs in each worker: seeds, worker_init_fn, then fetch batches for (epoch, idx, task) messages until
    None or the done event; every result goes to result_queue as (epoch, idx, data)."""
    global _info
    import mindtorch

    try:
        mindtorch.set_num_threads(1)  # the parent's kernel threads are not in a forked child; one per worker
        random.seed(seed)
        mindtorch.manual_seed(seed)
        np.random.seed(_numpy_seed(seed))
        _info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
        if init_fn is not None:
            init_fn(worker_id)
        it = iter(dataset) if iterable else None
    except Exception:
        result_queue.put((None, None, ExceptionWrapper(f"in DataLoader worker process {worker_id}")))
        return
    exhausted = False
    parent = os.getppid()
    while True:
        try:
            msg = index_queue.get(timeout=0.5)
        except queue.Empty:
            if done_event.is_set() or os.getppid() != parent:  # shut down, or the main process is gone
                return
            continue
        if msg is None:
            return
        epoch, idx, task = msg
        if isinstance(task, Resume):
            it, exhausted = (iter(dataset) if iterable else None), False
            result_queue.put((epoch, idx, task))
            continue
        if exhausted:
            continue
        try:
            data = to_shared(fetch(it if iterable else task))
        except StopIteration:
            exhausted = True
            data = WorkerDone(worker_id)
        except Exception:
            data = ExceptionWrapper(f"in DataLoader worker process {worker_id}")
        result_queue.put((epoch, idx, data))
