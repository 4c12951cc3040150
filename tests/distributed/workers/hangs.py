"""A peer that stays alive but never joins: the waiting rank's timeout ends the job."""

import time
from datetime import timedelta

import mindtorch as torch
import mindtorch.distributed as dist

dist.init_process_group("mpi", timeout=timedelta(seconds=3))
if dist.get_rank() == 0:
    dist.all_reduce(torch.ones(4))
else:
    time.sleep(60)
