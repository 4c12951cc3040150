"""mindtorch.distributed: PyTorch's collective API over mindtorch's engines.

cpu tensors go through mindtorch's own engine, over TCP sockets when the processes meet through a
store (torchrun's env://, tcp://, file://, or a Store) or over MPI (mpi4py) inside an MPI launch; npu
tensors through HCCL. PyTorch's "gloo" backend name selects that cpu engine (it is not the Gloo
library). The API lives in distributed_c10d, as in PyTorch; the engines' contract in _engine, the
transports in _mpi and _sockets, the stores in _store. mpi4py is imported (which initialises MPI) only
when an MPI group is made.
"""

from ._debug import breakpoint
from ._objects import *  # noqa: F403
from ._objects import __all__ as _objects_all
from ._store import *  # noqa: F403
from ._store import __all__ as _store_all
from .device_mesh import DeviceMesh, init_device_mesh
from .distributed_c10d import *  # noqa: F403
from .distributed_c10d import __all__ as _c10d_all, get_global_rank  # noqa: F401
from .rendezvous import register_rendezvous_handler, rendezvous

__all__ = [
    *_c10d_all,
    *_objects_all,
    *_store_all,
    "DeviceMesh",
    "init_device_mesh",
    "rendezvous",
    "register_rendezvous_handler",
    "breakpoint",
]
