"""A training script as written for PyTorch on a CPU cluster, run unchanged: under torchrun it trains
with DDP over "gloo" (env://) and a DistributedSampler; alone it trains in one process on the whole
batch. argv[1] is the global batch size; rank 0 prints the trained parameters."""

import os
import sys

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

distributed = "WORLD_SIZE" in os.environ
if distributed:
    dist.init_process_group("gloo", init_method="env://")
rank = dist.get_rank() if distributed else 0
world = dist.get_world_size() if distributed else 1
global_batch = int(sys.argv[1])

g = torch.Generator().manual_seed(0)
x = torch.randn(64, 6, generator=g)
y = (x @ torch.randn(6, 1, generator=g)).squeeze(1) + 0.1 * torch.randn(64, generator=g)
data = TensorDataset(x, y)
# one replica alone sees the same shuffled order the replicas share between them
sampler = DistributedSampler(data, num_replicas=world, rank=rank, shuffle=True, seed=3)
loader = DataLoader(data, batch_size=global_batch // world, sampler=sampler)

torch.manual_seed(1)
model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 1))
if distributed:
    model = DDP(model)
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
for epoch in range(2):
    sampler.set_epoch(epoch)
    for xb, yb in loader:
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(xb).squeeze(1), yb)
        loss.backward()
        opt.step()
if rank == 0:
    flat = torch.cat([p.detach().reshape(-1) for p in model.parameters()])
    print("params", " ".join(f"{v:.8e}" for v in flat.tolist()))
if distributed:
    dist.destroy_process_group()
