"""The last rank leaves (exits, or idles outside the collective with argv[1] == "hang") while the others
all-reduce npu tensors over hccl; each survivor reports the error its synchronisation raises."""

import os
import sys
import time

import mindtorch as torch
import mindtorch.distributed as dist

rank = int(os.environ.get("OMPI_COMM_WORLD_RANK", os.environ.get("PMI_RANK", "0")))
torch.npu.set_device(rank % torch.npu.device_count())
dist.init_process_group("hccl")
R, N = dist.get_rank(), dist.get_world_size()
x = torch.ones(4, device="npu")
dist.all_reduce(x)
assert x.cpu().tolist() == [float(N)] * 4
if R == N - 1:
    if len(sys.argv) > 1 and sys.argv[1] == "hang":
        time.sleep(20)  # alive but never joins the next collective
    os._exit(3)
dist.all_reduce(x)  # the last rank never arrives
try:
    x.cpu()
    print("not reached", flush=True)
except RuntimeError as exc:
    print(f"rank {R} failed as expected: {exc}", flush=True)
    os._exit(4)
