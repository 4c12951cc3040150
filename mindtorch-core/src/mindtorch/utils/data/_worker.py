"""DataLoader worker processes: the loop each worker runs, what it knows about itself, and how batches
come back to the main process.

Each worker sends its results on its own channel (_channel: a socket pair), pickled by
multiprocessing's ForkingPickler: a CPU tensor's storage goes into shared memory with no name and its
descriptor travels with the message, so the data is never copied through the socket and nothing can
be left in /dev/shm; other objects are pickled. The main process alone holds one end and the worker
alone the other: a worker that dies mid-message is an end of file, never a wait, and a worker writing
to a main process that stopped reading gets a broken pipe.
"""

import os
import queue
import random
import signal
import sys
import traceback
from dataclasses import dataclass

import numpy as np

from . import _channel

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


def _start(dataset, seed, init_fn, worker_id, num_workers, iterable):
    """Seeds, worker_init_fn and the dataset's iterator (for an iterable dataset)."""
    global _info
    import mindtorch
    import mindtorch.multiprocessing  # tensors pickle through shared memory

    mindtorch.set_num_threads(1)  # the parent's kernel threads are not in a forked child; one per worker
    random.seed(seed)
    mindtorch.manual_seed(seed)
    np.random.seed(_numpy_seed(seed))
    _info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
    if init_fn is not None:
        init_fn(worker_id)
    return iter(dataset) if iterable else None


def _send(conn, msg, worker_id):
    """Send one result; False when the main process stopped reading (it shut down or died)."""
    try:
        _channel.send(conn, msg)
    except (BrokenPipeError, ConnectionError, EOFError):
        return False
    except Exception:  # the result itself cannot be pickled: the error travels instead
        epoch, idx, data = msg
        error = ExceptionWrapper(f"in DataLoader worker process {worker_id}")
        if isinstance(data, ExceptionWrapper):  # an exception class pickle cannot name
            error.kind = RuntimeError
            error.msg = data.msg
        return _send(conn, (epoch, idx, error), worker_id)
    return True


def worker_loop(
    dataset, index_queue, result_conn, done_event, fetch, seed, init_fn, worker_id, num_workers, iterable, inherited=()
):
    """Runs in each worker: seeds, worker_init_fn, then fetch batches for (epoch, idx, task) messages until
    None, the done event or a main process gone; every result goes to result_conn as (epoch, idx, data).
    `inherited`: the descriptors of the other ends a forked worker holds and closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the main process's to handle
    for fd in inherited:
        try:
            os.close(fd)
        except OSError:
            pass
    try:
        it = _start(dataset, seed, init_fn, worker_id, num_workers, iterable)
    except Exception:
        _send(result_conn, (None, None, ExceptionWrapper(f"in DataLoader worker process {worker_id}")), worker_id)
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
        if msg is None or done_event.is_set():
            return
        epoch, idx, task = msg
        if isinstance(task, Resume):
            it, exhausted = (iter(dataset) if iterable else None), False
            if not _send(result_conn, (epoch, idx, task), worker_id):
                return
            continue
        if exhausted:
            continue
        try:
            data = fetch(it if iterable else task)
        except StopIteration:
            exhausted = True
            data = WorkerDone(worker_id)
        except Exception:
            data = ExceptionWrapper(f"in DataLoader worker process {worker_id}")
        if not _send(result_conn, (epoch, idx, data), worker_id):
            return
        del data  # the batch's shared blocks go once the main process has them
