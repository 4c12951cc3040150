"""Started by the launcher: the torchrun environment is there before any MPI call."""

import os
import sys

import mindtorch.distributed as dist

rank, size, local = (int(os.environ[v]) for v in ("RANK", "WORLD_SIZE", "LOCAL_RANK"))
dist.init_process_group()  # backend=None: mpi for cpu
assert (dist.get_rank(), dist.get_world_size(), local) == (rank, size, rank), (rank, size, local)
assert dist.get_backend() == "mpi"
assert sys.argv[1:] == ["--lr", "0.5"], sys.argv
dist.destroy_process_group()
print(f"launched ok rank {rank} of {size}")
