"""A classifier trainer written for torch in the shape of common training scripts: device picked with
torch.cuda checks, cudnn flags, a map-style Dataset read by a DataLoader with worker processes
(worker_init_fn, pin_memory when CUDA is there), SGD with momentum and OneCycleLR, a GradScaler that is
only enabled on CUDA, a checkpoint saved and loaded half way, evaluation with accuracy under no_grad.
Prints one loss per step; weights start from a NumPy seed so both libraries start from the same point."""

import argparse
import os
import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset, get_worker_info


class Blobs(Dataset):
    """Gaussian blobs: sample i is computed from i alone, so any worker produces the same sample."""

    def __init__(self, n, classes=3, dim=8):
        self.n, self.classes, self.dim = n, classes, dim

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        rng = np.random.default_rng(i)
        label = i % self.classes
        x = rng.standard_normal(self.dim).astype(np.float32) * 0.5 + label
        return torch.from_numpy(x), label


def worker_init_fn(worker_id):
    info = get_worker_info()
    assert info.id == worker_id and info.num_workers >= 1


class Net(nn.Module):
    def __init__(self, dim=8, hidden=32, classes=3):
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden)
        self.bn = nn.BatchNorm1d(hidden)
        self.fc2 = nn.Linear(hidden, classes)

    def forward(self, x):
        return self.fc2(F.relu(self.bn(self.fc1(x))))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    use_cuda = torch.cuda.is_available()
    device = torch.device("cuda" if use_cuda else "cpu")
    if use_cuda:
        torch.cuda.manual_seed_all(0)
    torch.backends.cudnn.benchmark = True
    torch.backends.cudnn.deterministic = False
    kwargs = {"num_workers": args.workers, "pin_memory": use_cuda, "worker_init_fn": worker_init_fn}
    train = DataLoader(Blobs(48), batch_size=12, shuffle=False, **kwargs)
    test = DataLoader(Blobs(24), batch_size=12, shuffle=False, **kwargs)
    model = Net().to(device)
    rng = np.random.default_rng(7)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.tensor(rng.standard_normal(tuple(p.shape)).astype(np.float32) * 0.3))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.2, total_steps=args.epochs * len(train))
    scaler = torch.amp.GradScaler("cuda", enabled=use_cuda)
    ckpt = os.path.join(tempfile.mkdtemp(), "ckpt.pt")
    for epoch in range(args.epochs):
        model.train()
        for x, y in train:
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            optimizer.zero_grad()
            with torch.autocast(device_type=device.type, enabled=use_cuda):
                loss = F.cross_entropy(model(x), y)
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
            scheduler.step()
            print(f"loss {loss.item():.8f}")
        torch.save(
            {
                "model": model.state_dict(),
                "optimizer": optimizer.state_dict(),
                "scheduler": scheduler.state_dict(),
                "epoch": epoch,
            },
            ckpt,
        )
        state = torch.load(ckpt, map_location=device)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        model.eval()
        correct = total = 0
        with torch.no_grad():
            for x, y in test:
                pred = model(x.to(device)).argmax(dim=1)
                correct += (pred == y.to(device)).sum().item()
                total += y.numel()
        print(f"accuracy {correct / total:.4f}")


if __name__ == "__main__":
    main()
