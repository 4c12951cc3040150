"""One process of a group made with an explicit rendezvous (not the launcher): argv is (how, where,
rank, world size); how is tcp (where: host:port), file (where: a path) or store (a TCPStore at
host:port, passed to init_process_group; then a ProcessGroupGloo on the same store)."""

import sys
from datetime import timedelta

import mindtorch as torch
import mindtorch.distributed as dist

how, where, R, N = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
if how == "store":
    host, port = where.rsplit(":", 1)
    store = dist.TCPStore(host, int(port), N, R == 0, timeout=timedelta(seconds=30))
    dist.init_process_group("gloo", store=store, rank=R, world_size=N)
else:
    url = f"tcp://{where}" if how == "tcp" else f"file://{where}"
    dist.init_process_group("gloo", init_method=url, rank=R, world_size=N, timeout=timedelta(seconds=30))
assert (dist.get_rank(), dist.get_world_size(), dist.get_backend()) == (R, N, "gloo")
t = torch.full((3,), float(R + 1))
dist.all_reduce(t)
assert t.tolist() == [N * (N + 1) / 2] * 3, t
if how == "store":
    pg = dist.ProcessGroupGloo(dist.PrefixStore("second", store), R, N)
    assert (pg.rank(), pg.size(), pg.name()) == (R, N, "gloo")
    u = torch.full((2,), float(R))
    dist.broadcast(u, src=1, group=pg)
    assert u.tolist() == [1.0, 1.0], u
dist.destroy_process_group()
print(f"{how} ok rank {R} of {N}")
