import collections.abc
import numbers

import numpy as np

import mindtorch
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler

__all__ = ["DataLoader", "default_collate", "default_convert", "get_worker_info"]


def get_worker_info():
    return None


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
            raise TypeError(f"default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
                            f"found {elem.dtype}")
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
    raise TypeError(f"default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found "
                    f"{type(elem)}")


class DataLoader:
    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=None, persistent_workers=False,
                 pin_memory_device="", in_order=True):
        self.dataset = dataset
        self.num_workers = num_workers  # loading always happens in this process
        self.pin_memory, self.timeout, self.worker_init_fn = pin_memory, timeout, worker_init_fn
        self.generator = generator
        self._is_iterable = isinstance(dataset, IterableDataset)
        if self._is_iterable:
            if shuffle not in (None, False):
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, but got "
                                 f"shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler option, but got "
                                 f"sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified batch_sampler option, but got "
                                 f"batch_sampler={batch_sampler}")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and "
                                 "drop_last")
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

    def __iter__(self):
        if self._is_iterable:
            it = iter(self.dataset)
            if self.batch_size is None:
                for x in it:
                    yield self.collate_fn(x)
                return
            batch = []
            for x in it:
                batch.append(x)
                if len(batch) == self.batch_size:
                    yield self.collate_fn(batch)
                    batch = []
            if batch and not self.drop_last:
                yield self.collate_fn(batch)
            return
        if self.batch_sampler is not None:
            for indices in self.batch_sampler:
                yield self._fetch(indices)
        else:
            for i in self.sampler:
                yield self.collate_fn(self.dataset[i])

    def __len__(self):
        if self._is_iterable:
            n = len(self.dataset)
            if self.batch_size is not None:
                return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
            return n
        if self.batch_sampler is not None:
            return len(self.batch_sampler)
        return len(self.sampler)
