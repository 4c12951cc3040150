from .distributed import DistributedDataParallel  # noqa: F401
from .data_parallel import DataParallel, data_parallel  # noqa: F401
