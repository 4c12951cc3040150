from .dataset import Dataset, IterableDataset, TensorDataset, Subset, ConcatDataset, random_split  # noqa: F401
from .sampler import Sampler, SequentialSampler, RandomSampler, BatchSampler, SubsetRandomSampler  # noqa: F401
from .dataloader import DataLoader, default_collate, default_convert, get_worker_info  # noqa: F401
from ._worker import WorkerInfo  # noqa: F401,E402
