"""DDP over N processes equals one process training on the concatenated batch (argv[1]: mlp | gpt;
argv[2]: cpu over mpi (default) | npu over hccl, the simulated device)."""

import sys
from pathlib import Path

import mindtorch as torch
import mindtorch.distributed as dist
import mindtorch.nn as nn
import mindtorch.nn.functional as F
import numpy as np
from mindtorch.nn.parallel import DistributedDataParallel as DDP

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "examples"))
from train_gpt import GPT

which = sys.argv[1]
DEVICE = sys.argv[2] if len(sys.argv) > 2 else "cpu"
if DEVICE == "npu":
    import os

    rank = int(os.environ.get("OMPI_COMM_WORLD_RANK", os.environ.get("PMI_RANK", "0")))
    torch.npu.set_device(rank % torch.npu.device_count())
    DEVICE = f"npu:{rank % torch.npu.device_count()}"
dist.init_process_group("hccl" if DEVICE.startswith("npu") else "mpi")
R, N = dist.get_rank(), dist.get_world_size()
STEPS, B = 20, 4


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2, self.fc3 = nn.Linear(8, 32), nn.Linear(32, 32), nn.Linear(32, 3)
        self.register_buffer("scale", torch.ones(1))

    def forward(self, x):
        return self.fc3(torch.tanh(self.fc2(torch.relu(self.fc1(x))))) * self.scale


def build(seed):
    torch.manual_seed(seed)
    if which == "mlp":
        return MLP().to(DEVICE)
    return GPT(vocab_size=17, block_size=8, n_layer=2, n_head=2, n_embd=16, dropout=0.0).to(DEVICE)


def batch(step):
    """The global batch of a step: N*B rows; rank r trains on rows r*B:(r+1)*B."""
    rng = np.random.default_rng(step)
    if which == "mlp":
        x = rng.standard_normal((N * B, 8)).astype(np.float32)
        y = rng.integers(0, 3, N * B)
    else:
        x = rng.integers(0, 17, (N * B, 8))
        y = rng.integers(0, 17, (N * B, 8))
    return torch.from_numpy(x).to(DEVICE), torch.from_numpy(y).to(DEVICE)


def loss_of(model, x, y):
    if which == "mlp":
        return F.cross_entropy(model(x), y)
    return model(x, y)[1]


def optimizer(model):
    # SGD, not Adam: the attention's key bias has a zero gradient up to rounding, which Adam's
    # normalisation would blow up to a full learning-rate step on either side
    return torch.optim.SGD(model.parameters(), lr=0.1 if which == "mlp" else 0.5, momentum=0.9)


def close(a, b, what):
    a, b = a.detach().cpu().numpy(), b.detach().cpu().numpy()
    assert np.allclose(a, b, rtol=2e-5, atol=2e-6), (what, float(np.abs(a - b).max()))


# each rank initialises differently: DDP's construction broadcasts rank 0's parameters
local = build(seed=R)
ddp = DDP(local, bucket_cap_mb=0.0002)  # tiny buckets: several all-reduces in flight during backward
assert ddp.module is local and len(ddp._buckets) > 2
ref = build(seed=0)
for (n, p), (m, q) in zip(local.state_dict().items(), ref.state_dict().items()):
    assert n == m
    close(p, q, f"broadcast {n}")
assert list(ddp.state_dict()) == list(ref.state_dict())

opt, ref_opt = optimizer(ddp), optimizer(ref)
for step in range(STEPS):
    x, y = batch(step)
    opt.zero_grad()
    loss_of(ddp, x[R * B : (R + 1) * B], y[R * B : (R + 1) * B]).backward()
    opt.step()
    ref_opt.zero_grad()
    loss_of(ref, x, y).backward()
    ref_opt.step()
    for (n, p), q in zip(local.named_parameters(), ref.parameters()):
        close(p, q, f"step {step} {n}")

# no_sync: K local accumulations, then one synced backward, equal one process over all K global batches
K = 3
opt.zero_grad()
ref_opt.zero_grad()
for k in range(K):
    x, y = batch(100 + k)
    if k < K - 1:
        with ddp.no_sync():
            loss_of(ddp, x[R * B : (R + 1) * B], y[R * B : (R + 1) * B]).backward()
        if k == 0 and N > 1:  # really not synchronised yet: ranks hold different gradients
            g = next(local.parameters()).grad.clone()
            gathered = [torch.zeros_like(g) for _ in range(N)]
            dist.all_gather(gathered, g)
            assert not all(np.allclose(gathered[0].cpu().numpy(), o.cpu().numpy()) for o in gathered[1:])
    else:
        loss_of(ddp, x[R * B : (R + 1) * B], y[R * B : (R + 1) * B]).backward()
    loss_of(ref, x, y).backward()
for (n, p), q in zip(local.named_parameters(), ref.parameters()):
    close(p.grad, q.grad, f"no_sync grad {n}")
dist.destroy_process_group()
print(f"ddp {which} {DEVICE.split(':')[0]} ok rank {R} of {N}")
