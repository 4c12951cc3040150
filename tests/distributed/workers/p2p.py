"""batch_isend_irecv as PyTorch documents it: a ring exchange with the receives listed before the sends
(the order must not deadlock), two messages to one peer matched in order, a subgroup addressed by group
ranks, and the checks PyTorch makes on the list. argv[1] is the engine: mpi (cpu tensors, the default) or
hccl (npu tensors, which HCCL queues in order on a stream)."""

import os
import sys

import mindtorch as torch
import mindtorch.distributed as dist
from checks import raises

ENGINE = sys.argv[1] if len(sys.argv) > 1 else "mpi"
DEV = "npu" if ENGINE == "hccl" else "cpu"
if ENGINE == "hccl":
    torch.npu.set_device(int(os.environ.get("OMPI_COMM_WORLD_RANK", "0")) % torch.npu.device_count())
dist.init_process_group(ENGINE)
R, N = dist.get_rank(), dist.get_world_size()
nxt, prv = (R + 1) % N, (R - 1) % N

# the ring: receive from the previous rank, send to the next, receives first in the list
got = torch.zeros(3, device=DEV)
ops = [dist.P2POp(dist.irecv, got, prv), dist.P2POp(dist.isend, torch.full((3,), float(R), device=DEV), nxt)]
works = dist.batch_isend_irecv(ops)
assert len(works) == 2
for w in works:
    w.wait()
assert got.cpu().tolist() == [float(prv)] * 3, got
assert ops[0].peer == prv and ops[0].group_peer == prv and ops[1].peer == nxt

# two messages to the same peer arrive in the order sent
a, b = torch.zeros(2, dtype=torch.int64, device=DEV), torch.zeros(2, dtype=torch.int64, device=DEV)
ops = [
    dist.P2POp(dist.isend, torch.tensor([R, 1], device=DEV), nxt),
    dist.P2POp(dist.isend, torch.tensor([R, 2], device=DEV), nxt),
    dist.P2POp(dist.irecv, a, prv),
    dist.P2POp(dist.irecv, b, prv),
]
for w in dist.batch_isend_irecv(ops):
    w.wait()
assert a.cpu().tolist() == [prv, 1] and b.cpu().tolist() == [prv, 2], (a, b)

# a subgroup of the last two ranks, peers named by group rank
members = [N - 2, N - 1]
sub = dist.new_group(members)
if R in members:
    me = members.index(R)
    other = 1 - me
    out = torch.zeros(1, device=DEV)
    ops = [dist.P2POp(dist.isend, torch.tensor([10.0 + R], device=DEV), group=sub, group_peer=other)]
    ops.append(dist.P2POp(dist.irecv, out, group=sub, group_peer=other))
    assert ops[0].peer == members[other]
    for w in dist.batch_isend_irecv(ops):
        w.wait()
    assert out.cpu().tolist() == [10.0 + members[other]], out
    raises(
        ValueError,
        dist.batch_isend_irecv,
        [ops[0], dist.P2POp(dist.isend, torch.ones(1, device=DEV), nxt)],
        match="same group",
    )

# the list's checks, before anything is sent
raises(
    ValueError, dist.batch_isend_irecv, [dist.P2POp(dist.isend, torch.ones(1, device=DEV), nxt), "send"], match="P2POp"
)
raises(ValueError, dist.batch_isend_irecv, (dist.P2POp(dist.isend, torch.ones(1, device=DEV), nxt),), match="P2POp")
raises(ValueError, dist.P2POp, dist.isend, torch.ones(1, device=DEV), N)
dist.barrier()
print(f"p2p ok rank {R} of {N}", flush=True)
dist.destroy_process_group()
