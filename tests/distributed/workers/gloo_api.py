"""The API beyond the tensor collectives, on the gloo backend under the launcher (plain processes, 2
ranks): torchrun's environment, stores across processes, object collectives, list forms, subgroups,
device meshes, monitored_barrier."""

import os
import time
from datetime import timedelta

import mindtorch as torch
import mindtorch.distributed as dist
import numpy as np
from checks import raises

for var in ("RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK", "ROLE_RANK", "MASTER_ADDR"):
    assert var in os.environ, var
assert dist.is_torchelastic_launched() and os.environ["TORCHELASTIC_RUN_ID"]
dist.init_process_group("gloo", init_method="env://")
R, N = dist.get_rank(), dist.get_world_size()
assert N == 2 and dist.get_backend() == "gloo" and dist.get_node_local_rank() == R
assert (int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])) == (R, N)

# a second client of the job's store (rank 0 serves it on MASTER_PORT)
store = dist.TCPStore(os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"]), timeout=timedelta(seconds=20))
store.set(f"from/{R}", f"hello {R}")
assert store.get(f"from/{1 - R}") == f"hello {1 - R}".encode()
assert store.add("counter", R + 1) in (R + 1, 3)
store.wait(["counter"])
pre = dist.PrefixStore("job", store)
pre.set("k", b"v")
assert store.get("job/k") == b"v"
dist.barrier()

# object collectives
objs = [None] * N
dist.all_gather_object(objs, {"rank": R, "data": list(range(R + 1))})
assert objs == [{"rank": k, "data": list(range(k + 1))} for k in range(N)], objs
gathered = [None] * N if R == 1 else None
dist.gather_object(("g", R), gathered, dst=1)
assert gathered == ([("g", 0), ("g", 1)] if R == 1 else None)
lst = ["x" * 100, {"a": 1}, 3] if R == 0 else [None, None, None]
dist.broadcast_object_list(lst, src=0)
assert lst == ["x" * 100, {"a": 1}, 3]
out = [None]
dist.scatter_object_list(out, [f"to {k}" * (k + 1) for k in range(N)] if R == 0 else None, src=0)
assert out == [f"to {R}" * (R + 1)]
if R == 0:
    dist.send_object_list([1, "two", [3]], dst=1)
else:
    got = [None, None, None]
    assert dist.recv_object_list(got) == 0 and got == [1, "two", [3]]

# list forms: rank r sends k+1+r rows to rank k
outs = [torch.zeros(R + 1 + k, 2) for k in range(N)]
dist.all_to_all(outs, [torch.full((k + 1 + R, 2), float(10 * R + k)) for k in range(N)])
for k in range(N):
    assert np.array_equal(outs[k].numpy(), np.full((R + 1 + k, 2), 10.0 * k + R)), (k, outs[k])
rs = torch.zeros(3)
dist.reduce_scatter(rs, [torch.full((3,), float(k + R)) for k in range(N)])
assert rs.tolist() == [float(2 * R + 1)] * 3
a, b = torch.ones(2) * (R + 1), torch.arange(3.0) * (R + 1)
dist.all_reduce_coalesced([a, b])
assert a.tolist() == [3.0, 3.0] and b.tolist() == [0.0, 3.0, 6.0]
lists = [[torch.zeros(2), torch.zeros(1)] for _ in range(N)]
dist.all_gather_coalesced(lists, [torch.full((2,), float(R)), torch.full((1,), float(-R))])
assert [[t.tolist() for t in ts] for ts in lists] == [[[0.0, 0.0], [0.0]], [[1.0, 1.0], [-1.0]]]
single = torch.zeros(2 * N)
dist.all_gather_single(single, torch.full((2,), float(R)))
assert single.tolist() == [0.0, 0.0, 1.0, 1.0]

# subgroups, ranks within them
mine, every = dist.new_subgroups(group_size=1)
assert len(every) == 2 and dist.get_process_group_ranks(mine) == [R] and dist.get_group_rank(mine, R) == 0
raises(ValueError, dist.get_group_rank, mine, 1 - R)
assert dist.get_group_rank(dist.group.WORLD, 1) == 1 and dist.group.WORLD is dist.GroupMember.WORLD
mine2, _ = dist.new_subgroups_by_enumeration([[1], [0]])
assert dist.get_process_group_ranks(mine2) == [R]
raises(ValueError, dist.new_subgroups_by_enumeration, [[0, 1], [1]])
raises(ValueError, dist.new_subgroups, group_size=3)
both = dist.split_group(split_ranks=[[0, 1]])
t = torch.ones(1)
dist.all_reduce(t, group=both)
assert t.item() == 2.0
assert dist.get_pg_count() == 1 + 2 + 2 + 1

# device meshes: (2, 1) -> dp is the world, tp each rank alone
mesh = dist.init_device_mesh("cpu", (2, 1), mesh_dim_names=("dp", "tp"))
assert mesh.shape == (2, 1) and mesh.ndim == 2 and mesh.get_coordinate() == (R, 0)
assert dist.get_process_group_ranks(mesh.get_group("dp")) == [0, 1]
assert dist.get_process_group_ranks(mesh.get_group("tp")) == [R]
assert mesh["dp"].size() == 2 and mesh["tp"].size() == 1 and mesh.get_local_rank("dp") == R
t = torch.ones(1) * (R + 1)
dist.all_reduce(t, group=mesh["dp"].get_group())
assert t.item() == 3.0
m1 = dist.init_device_mesh("cpu", (2,))
assert m1.get_group() is dist.group.WORLD and m1.mesh.tolist() == [0, 1]
raises(RuntimeError, dist.init_device_mesh, "cpu", (3,))
raises(NotImplementedError, dist.DeviceMesh, "cpu", [[[0, 1]]])
raises(RuntimeError, mesh.get_group)  # a 2-D mesh needs the dimension

# monitored_barrier: passes when both come; rank 0 names a rank that does not
dist.monitored_barrier(timeout=timedelta(seconds=20))
if R == 0:
    t0 = time.monotonic()
    raises(
        RuntimeError,
        dist.monitored_barrier,
        timeout=timedelta(seconds=0.5),
        match="Rank 1 failed to pass monitoredBarrier",
    )
    assert time.monotonic() - t0 < 5
dist.barrier()
dist.destroy_process_group()
print(f"gloo api ok rank {R} of {N}")
