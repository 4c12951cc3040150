"""One fault of the distributed sweep: argv is (engine, fault). Every rank joins a first all_reduce, then
the last rank misbehaves (late: before the group exists) and the others report what their next
all_reduce raised:

    late    sleeps before init_process_group          the others: DistStoreError at the timeout
    exit    returns from the script (sys.exit(0))     the others: an error naming it
    kill    is killed (SIGKILL)                       the job ends, naming it
    hang    stays alive outside the collective        the others: the group's timeout
    count / shape / dtype   all-reduces a tensor of another element count / shape / dtype
                                                      every rank: a RuntimeError naming the mismatch
"""

import os
import signal
import sys
import time
from datetime import timedelta

import mindtorch as torch
import mindtorch.distributed as dist

engine, fault = sys.argv[1], sys.argv[2]
rank = int(os.environ.get("OMPI_COMM_WORLD_RANK", os.environ.get("PMI_RANK", "0")))
last = rank == int(os.environ.get("OMPI_COMM_WORLD_SIZE", os.environ.get("PMI_SIZE", "1"))) - 1
device = "cpu"
if engine == "hccl":
    torch.npu.set_device(rank % torch.npu.device_count())
    device = "npu"
if fault == "late" and last:
    time.sleep(30)
try:
    dist.init_process_group(engine, timeout=timedelta(seconds=4 if fault in ("late", "hang") else 60))
except dist.DistStoreError as e:
    print(f"rank {rank} caught DistStoreError: {e}", flush=True)
    sys.exit(4)
R, N = dist.get_rank(), dist.get_world_size()
x = torch.ones(4, device=device)
dist.all_reduce(x)
assert x.cpu().tolist() == [float(N)] * 4
if last:
    if fault == "exit":
        sys.exit(0)
    if fault == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    if fault == "hang":
        time.sleep(30)
        sys.exit(0)
    x = {
        "count": torch.ones(5, device=device),
        "shape": torch.ones(2, 2, device=device),
        "dtype": torch.ones(4, dtype=torch.int32, device=device),
    }.get(fault, x)
try:
    dist.all_reduce(x)
    x.cpu()  # a device engine's failure surfaces at the synchronisation
    print(f"rank {R} no error: {x.cpu().tolist()}", flush=True)
except RuntimeError as e:
    print(f"rank {R} caught {type(e).__name__}: {e}", flush=True)
    if fault in ("exit", "kill", "hang"):
        sys.exit(4)
dist.destroy_process_group()
