from ._worker import WorkerInfo  # noqa: F401
from .dataloader import DataLoader, default_collate, default_convert, get_worker_info  # noqa: F401
from .dataset import ConcatDataset, Dataset, IterableDataset, Subset, TensorDataset, random_split  # noqa: F401
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler  # noqa: F401
