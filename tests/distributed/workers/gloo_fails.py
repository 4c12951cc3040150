"""A worker failing under the launcher (plain processes, gloo), argv[1] says how:
exit   rank 1 exits with status 7 while rank 0 waits for it in a collective
hang   rank 0 exits with status 3 while rank 1 sleeps, outside any collective
once   every rank exits with status 5 on the first start, and succeeds when restarted"""

import os
import sys
import time

how = sys.argv[1]
if how == "once":
    if os.environ["TORCHELASTIC_RESTART_COUNT"] == "0":
        sys.exit(5)
    print(f"restarted ok rank {os.environ['RANK']} of {os.environ['WORLD_SIZE']}")
    sys.exit(0)

import mindtorch as torch  # noqa: E402
import mindtorch.distributed as dist  # noqa: E402

dist.init_process_group("gloo")
R = dist.get_rank()
dist.all_reduce(torch.ones(2))
if how == "exit":
    if R == 1:
        sys.exit(7)
    dist.all_reduce(torch.ones(2))  # fails: rank 1 is gone
else:
    if R == 0:
        sys.exit(3)
    time.sleep(120)
print("not reached", flush=True)
