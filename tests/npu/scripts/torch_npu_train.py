"""A training script as an Ascend user writes it for torch_npu: import torch_npu, model.npu(), autocast on
npu in bfloat16, GradScaler("npu"), the fused npu_rms_norm / npu_rotary_mul / npu_swiglu, torch.npu's
synchronize and memory counters. It trains the same block on the cpu (the fused functions' own formulas,
autocast("cpu")) and on npu, and prints both runs as JSON."""

import json
import sys

import torch
import torch_npu

D, S, HEADS = 16, 8, 2


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.gamma = torch.nn.Parameter(torch.ones(D))
        self.up = torch.nn.Linear(D, 4 * D)
        self.down = torch.nn.Linear(2 * D, D)

    def forward(self, x, cos, sin):
        if x.device.type == "npu":
            h, _ = torch_npu.npu_rms_norm(x, self.gamma, epsilon=1e-6)
            q = torch_npu.npu_rotary_mul(h.view(-1, S, HEADS, D // HEADS), cos, sin)
            g = torch_npu.npu_swiglu(self.up(q.reshape(-1, S, D)), dim=-1)
        else:
            h = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.gamma
            q4 = h.view(-1, S, HEADS, D // HEADS)
            q = q4 * cos + rotate_half(q4) * sin
            a, b = self.up(q.reshape(-1, S, D)).chunk(2, dim=-1)
            g = torch.nn.functional.silu(a) * b
        return x + self.down(g)


def train(device):
    torch.manual_seed(0)
    model = Block()
    x = torch.randn(4, S, D)
    target = torch.randn(4, S, D)
    angles = torch.arange(S).float()[:, None] * torch.linspace(0.1, 1.0, D // HEADS)[None]
    cos, sin = angles.cos()[None, :, None, :], angles.sin()[None, :, None, :]
    if device == "npu":
        model = model.npu()
        x, target, cos, sin = x.npu(), target.npu(), cos.npu(), sin.npu()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    scaler = torch.amp.GradScaler(device)
    losses = []
    for _ in range(5):
        opt.zero_grad()
        with torch.autocast(device, dtype=torch.bfloat16):
            out = model(x, cos, sin)
            loss = torch.nn.functional.mse_loss(out.float(), target)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        losses.append(loss.item())
    if device == "npu":
        torch.npu.synchronize()
    params = [p.detach().cpu().float().reshape(-1).tolist() for p in model.parameters()]
    return {"losses": losses, "params": params, "scale": scaler.get_scale()}


if __name__ == "__main__":
    result = {d: train(d) for d in ("cpu", "npu")}
    result["npu"]["max_memory_allocated"] = torch.npu.max_memory_allocated()
    result["torch_is"] = torch.__name__
    json.dump(result, sys.stdout)
