"""mindtorch.distributed: PyTorch's collective API over an existing engine.

cpu tensors go through MPI (mpi4py), npu tensors through HCCL. The API lives in distributed_c10d, as in
PyTorch; the engines' contract in _engine, the mpi engine in _mpi. mpi4py is imported (which initialises
MPI) only by init_process_group.
"""

from .distributed_c10d import *  # noqa: F403
from .distributed_c10d import __all__, get_global_rank  # noqa: F401
