"""find_unused_parameters: a branch that only some ranks use; without the flag, PyTorch's error."""

import mindtorch as torch
import mindtorch.distributed as dist
import mindtorch.nn as nn
import numpy as np
from mindtorch.nn.parallel import DistributedDataParallel as DDP
from mindtorch.utils.data.distributed import DistributedSampler

dist.init_process_group("mpi")
R, N = dist.get_rank(), dist.get_world_size()


class Branchy(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b, self.never = nn.Linear(4, 4), nn.Linear(4, 4), nn.Linear(4, 4)

    def forward(self, x, use_b):
        h = self.a(x)
        return self.b(h) if use_b else h


torch.manual_seed(0)
m = Branchy()
ddp = DDP(m, find_unused_parameters=True, bucket_cap_mb=0.00005)
x = torch.ones(2, 4) * (R + 1)
for _it in range(2):
    ddp.zero_grad()
    ddp(x, use_b=(R == 0)).sum().backward()  # b is used on rank 0 only
    # reference: the average of every rank's gradient, a rank that skipped b contributing zeros
    torch.manual_seed(0)
    grads = []
    for r in range(N):
        ref = Branchy()
        ref(torch.ones(2, 4) * (r + 1), use_b=(r == 0)).sum().backward()
        grads.append(
            {
                n: (p.grad.numpy() if p.grad is not None else np.zeros(tuple(p.shape), np.float32))
                for n, p in ref.named_parameters()
            }
        )
    for n, p in m.named_parameters():
        want = sum(g[n] for g in grads) / N
        if n.startswith("never"):
            assert p.grad is None, n  # used by no rank: no gradient, as in PyTorch
        else:
            assert np.allclose(p.grad.numpy(), want, rtol=1e-5, atol=1e-6), (n, p.grad.numpy(), want)

# without find_unused_parameters the reduction never finishes: the next forward says so
torch.manual_seed(0)
plain = DDP(Branchy())
plain(x, use_b=True).sum().backward()  # `never` has no gradient: its bucket never completes
try:
    plain(x, use_b=True)
except RuntimeError as e:
    assert "Expected to have finished reduction in the prior iteration" in str(e)
else:
    raise AssertionError("no error for an unfinished reduction")

# state_dict without the wrapper's prefix, load_state_dict taking either form
sd = ddp.state_dict()
assert list(sd) == list(m.state_dict()) and not any(k.startswith("module.") for k in sd)
ddp.load_state_dict({"module." + k: v * 0 for k, v in sd.items()})
assert all(float(p.abs().sum()) == 0 for p in m.parameters())
ddp.load_state_dict(sd)

# DistributedSampler from the default group: the ranks' shares partition the padded index list
s = DistributedSampler(list(range(10)), shuffle=True, seed=3)
s.set_epoch(2)
mine = torch.tensor(list(s))
everyone = [torch.zeros_like(mine) for _ in range(N)]
dist.all_gather(everyone, mine)
got = sorted(sum((e.tolist() for e in everyone), []))
assert len(got) == len(s) * N and set(got) == set(range(10)), got

dist.destroy_process_group()
print(f"ddp unused ok rank {R} of {N}")
