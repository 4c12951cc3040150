"""The last rank dies (os._exit or an exception) while the others are in a collective."""

import os
import sys

import mindtorch as torch
import mindtorch.distributed as dist

how = sys.argv[1]
dist.init_process_group("mpi")
R, N = dist.get_rank(), dist.get_world_size()
dist.all_reduce(torch.ones(4))
if R == N - 1:
    if how == "exit":
        os._exit(3)
    raise RuntimeError("worker failure on purpose")
dist.all_reduce(torch.ones(4))  # never completes: the last rank is gone
print("not reached", flush=True)
