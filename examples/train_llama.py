"""Train a small LLaMA-style decoder the way Ascend users write one: torch_npu's fused functions.

    python -m mindtorch.run examples/train_llama.py [--device npu] [--steps 50] [--amp bf16] [--out OUT.npz]

RMSNorm (`torch_npu.npu_rms_norm`), rotary embedding (`npu_rotary_mul`), SwiGLU (`npu_swiglu`) and
grouped-query attention (`npu_fusion_attention`, BSND layout, causal mask), AdamW, optional autocast. The
same script runs on cpu (attention through `F.scaled_dot_product_attention` there, the other functions
as their composites), which is how the tests compare the npu against the cpu. The runner makes `import torch` resolve to mindtorch.
"""

import argparse
import math
import os
import re

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch_npu

HERE = os.path.dirname(os.path.abspath(__file__))


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return torch_npu.npu_rms_norm(x, self.weight, epsilon=self.eps)[0]


def rotary_tables(seq, head_dim, base=10000.0, device="cpu"):
    inv = 1.0 / (base ** (torch.arange(0, head_dim, 2, dtype=torch.float32) / head_dim))
    freqs = torch.outer(torch.arange(seq, dtype=torch.float32), inv)
    emb = torch.cat([freqs, freqs], dim=-1)  # "half" layout: the two halves share a frequency
    return emb.cos()[None, :, None, :].to(device), emb.sin()[None, :, None, :].to(device)


def has_fusion_attention(device):
    """npu_fusion_attention's operator (aclnnFlashAttentionScore) is documented for the Atlas A2 / A3 training
    parts only (SoC names Ascend910B<n>..., Ascend910_93...): on other chips the script takes
    F.scaled_dot_product_attention, as on the cpu."""
    device = torch.device(device)
    return device.type == "npu" and re.match(r"Ascend910(B\d|_93)", torch.npu.get_device_name(device)) is not None


class Attention(nn.Module):
    def __init__(self, dim, n_head, n_kv_head):
        super().__init__()
        self.n_head, self.n_kv_head, self.head_dim = n_head, n_kv_head, dim // n_head
        self.wq = nn.Linear(dim, n_head * self.head_dim, bias=False)
        self.wk = nn.Linear(dim, n_kv_head * self.head_dim, bias=False)
        self.wv = nn.Linear(dim, n_kv_head * self.head_dim, bias=False)
        self.wo = nn.Linear(n_head * self.head_dim, dim, bias=False)

    def forward(self, x, cos, sin, mask):
        B, S, _ = x.shape
        q = self.wq(x).view(B, S, self.n_head, self.head_dim)
        k = self.wk(x).view(B, S, self.n_kv_head, self.head_dim)
        v = self.wv(x).view(B, S, self.n_kv_head, self.head_dim)
        q = torch_npu.npu_rotary_mul(q, cos[:, :S].to(q.dtype), sin[:, :S].to(q.dtype))
        k = torch_npu.npu_rotary_mul(k, cos[:, :S].to(k.dtype), sin[:, :S].to(k.dtype))
        scale = 1.0 / math.sqrt(self.head_dim)
        if has_fusion_attention(q.device):  # the fused kernel exists on some npus only, as in torch_npu
            out = torch_npu.npu_fusion_attention(
                q, k, v, self.n_head, "BSND", atten_mask=mask[:S, :S], scale=scale, keep_prob=1.0
            )[0]
        else:
            q, k, v = (t.transpose(1, 2) for t in (q, k, v))
            out = F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=scale, enable_gqa=True)
            out = out.transpose(1, 2)
        return self.wo(out.reshape(B, S, -1))


class FeedForward(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.w13 = nn.Linear(dim, 2 * hidden, bias=False)  # gate and up projections side by side
        self.w2 = nn.Linear(hidden, dim, bias=False)

    def forward(self, x):
        return self.w2(torch_npu.npu_swiglu(self.w13(x), dim=-1))


class Block(nn.Module):
    def __init__(self, dim, n_head, n_kv_head, hidden):
        super().__init__()
        self.attn_norm, self.ffn_norm = RMSNorm(dim), RMSNorm(dim)
        self.attn = Attention(dim, n_head, n_kv_head)
        self.ffn = FeedForward(dim, hidden)

    def forward(self, x, cos, sin, mask):
        x = x + self.attn(self.attn_norm(x), cos, sin, mask)
        return x + self.ffn(self.ffn_norm(x))


class Llama(nn.Module):
    def __init__(self, vocab, dim=64, n_layer=2, n_head=4, n_kv_head=2, hidden=128, max_seq=64):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.blocks = nn.ModuleList(Block(dim, n_head, n_kv_head, hidden) for _ in range(n_layer))
        self.norm = RMSNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)
        cos, sin = rotary_tables(max_seq, dim // n_head)
        self.register_buffer("cos", cos, persistent=False)
        self.register_buffer("sin", sin, persistent=False)
        # torch_npu's mask convention: True marks a position that may NOT be attended
        self.register_buffer("mask", torch.ones(max_seq, max_seq, dtype=torch.bool).triu(1), persistent=False)

    def forward(self, idx, targets=None):
        x = self.tok(idx)
        for block in self.blocks:
            x = block(x, self.cos, self.sin, self.mask)
        logits = self.head(self.norm(x))
        loss = None if targets is None else F.cross_entropy(logits.float().flatten(0, 1), targets.flatten())
        return logits, loss


def batches(data, block, batch, gen):
    while True:
        ix = torch.randint(len(data) - block - 1, (batch,), generator=gen)
        x = torch.stack([data[i : i + block] for i in ix.tolist()])
        y = torch.stack([data[i + 1 : i + block + 1] for i in ix.tolist()])
        yield x, y


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=os.path.join(HERE, "data", "tiny_stories.txt"))
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--batch-size", type=int, default=8)
    ap.add_argument("--block-size", type=int, default=32)
    ap.add_argument("--amp", choices=["off", "bf16", "fp16"], default="off")
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", help="save the loss curve and final parameters to this .npz")
    args = ap.parse_args(argv)

    torch.manual_seed(args.seed)
    with open(args.data, encoding="utf-8") as f:
        text = f.read()
    chars = sorted(set(text))
    data = torch.tensor([chars.index(c) for c in text[:20000]], dtype=torch.long)
    model = Llama(len(chars), max_seq=args.block_size).to(args.device)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.1)
    amp_dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(args.amp)
    scaler = torch.amp.GradScaler(args.device.split(":")[0], enabled=args.amp == "fp16")
    gen = torch.Generator().manual_seed(args.seed)
    losses = []
    for step, (x, y) in zip(range(args.steps), batches(data, args.block_size, args.batch_size, gen)):
        x, y = x.to(args.device), y.to(args.device)
        with torch.autocast(args.device.split(":")[0], dtype=amp_dtype or torch.float32, enabled=amp_dtype is not None):
            _, loss = model(x, y)
        opt.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        losses.append(loss.item())
        if step % max(1, args.steps // 10) == 0 or step == args.steps - 1:
            print(f"step {step:4d}  loss {losses[-1]:.4f}", flush=True)
    if args.out:
        import numpy as np

        params = {f"param.{n}": p.detach().float().cpu().numpy() for n, p in model.named_parameters()}
        device = str(next(model.parameters()).device)
        np.savez(args.out, loss=np.array(losses), device=np.array(device), **params)
    return losses


if __name__ == "__main__":
    main()
