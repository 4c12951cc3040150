"""Errors raised as PyTorch raises them, and no state changed by a refused call (argv[1]: the backend,
mpi by default)."""

import sys

import mindtorch as torch
import mindtorch.distributed as dist
import numpy as np
from checks import raises

BACKEND = sys.argv[1] if len(sys.argv) > 1 else "mpi"
dist.init_process_group(BACKEND)
R, N = dist.get_rank(), dist.get_world_size()
raises(ValueError, dist.init_process_group, BACKEND, match="twice")
assert dist.get_backend() == BACKEND

x = torch.arange(6, dtype=torch.float32)
keep = x.numpy().copy()
raises(
    RuntimeError,
    dist.all_reduce,
    torch.ones(2, device="meta"),
    match="No backend type associated with device type meta",
)
raises(TypeError, dist.all_reduce, np.ones(3))
raises(RuntimeError, dist.all_reduce, torch.arange(3), op=dist.ReduceOp.AVG)
raises(ValueError, dist.all_reduce, x, op="median")
raises(ValueError, dist.all_gather_into_tensor, torch.zeros(N * 6 + 1), x, match="world_size times")
raises(TypeError, dist.all_gather_into_tensor, torch.zeros(N * 6, dtype=torch.float64), x)
raises(ValueError, dist.reduce_scatter_tensor, torch.zeros(7), torch.zeros(N * 6))
raises(ValueError, dist.all_gather, [torch.zeros(6)] * (N + 1), x)
raises(ValueError, dist.all_gather, [torch.zeros(5)] * N, x)
raises(ValueError, dist.all_to_all_single, torch.zeros(N * 2 + 1), torch.zeros(N * 2 + 1))
raises(ValueError, dist.broadcast, x, src=N)
raises(ValueError, dist.send, x, dst=R)
raises(ValueError, dist.gather, x, None, dst=R)  # the destination needs gather_list
assert np.array_equal(x.numpy(), keep)
raises(TypeError, dist.new_group, [0], timeout=5)

# a collective writes in place: a tensor saved for backward and then reduced makes backward fail, as in PyTorch
w = torch.ones(3, requires_grad=True)
y = w * 1
z = (y * y).sum()
v = y._version_value
dist.all_reduce(y)
assert y._version_value == v + 1
raises(RuntimeError, z.backward, match="modified by an inplace operation")
dist.barrier()
dist.destroy_process_group()
raises(ValueError, dist.get_rank, match="has not been initialized")
print(f"errors ok rank {R} of {N}")
