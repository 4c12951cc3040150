"""Train a small character-level GPT on examples/data/tiny_stories.txt with mindtorch.

    python examples/train_gpt.py [--steps 600] [--device cpu] [--manual-attn] [--plot PNG]

Plain PyTorch-style code: only the import line differs from a PyTorch script. Progress is a
tqdm bar on a terminal and a line every ~5% of the steps in a log; the loss curve goes to a
PNG when matplotlib is installed.
"""

import argparse
import math
import os
import sys
import time

import mindtorch as torch
import mindtorch.nn as nn
import mindtorch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))


class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd, n_head, block_size, dropout, manual):
        super().__init__()
        self.n_head, self.dropout, self.manual = n_head, dropout, manual
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)
        self.resid_drop = nn.Dropout(dropout)
        # causal mask as a non-persistent buffer (only used by the manual path)
        self.register_buffer(
            "mask",
            torch.tril(torch.ones(block_size, block_size, dtype=torch.bool)).view(1, 1, block_size, block_size),
            persistent=False,
        )

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.c_attn(x).split(C, dim=2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        if self.manual:
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
            att = att.masked_fill(~self.mask[:, :, :T, :T], float("-inf"))
            att = F.dropout(F.softmax(att, dim=-1), self.dropout, self.training)
            y = att @ v
        else:
            y = F.scaled_dot_product_attention(
                q, k, v, dropout_p=self.dropout if self.training else 0.0, is_causal=True
            )
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.resid_drop(self.c_proj(y))


class Block(nn.Module):
    def __init__(self, n_embd, n_head, block_size, dropout, manual):
        super().__init__()
        self.ln_1 = nn.LayerNorm(n_embd)
        self.attn = CausalSelfAttention(n_embd, n_head, block_size, dropout, manual)
        self.ln_2 = nn.LayerNorm(n_embd)
        self.mlp = nn.Sequential(
            nn.Linear(n_embd, 4 * n_embd), nn.GELU(), nn.Linear(4 * n_embd, n_embd), nn.Dropout(dropout)
        )

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, vocab_size, block_size=64, n_layer=2, n_head=4, n_embd=64, dropout=0.1, manual=False):
        super().__init__()
        self.block_size = block_size
        self.wte = nn.Embedding(vocab_size, n_embd)
        self.wpe = nn.Embedding(block_size, n_embd)
        self.drop = nn.Dropout(dropout)
        self.blocks = nn.ModuleList([Block(n_embd, n_head, block_size, dropout, manual) for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(n_embd)
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)
        self.lm_head.weight = self.wte.weight  # weight tying
        self.apply(self._init_weights)

    def _init_weights(self, m):
        if isinstance(m, nn.Linear):
            nn.init.normal_(m.weight, mean=0.0, std=0.02)
            if m.bias is not None:
                nn.init.zeros_(m.bias)
        elif isinstance(m, nn.Embedding):
            nn.init.normal_(m.weight, mean=0.0, std=0.02)

    def forward(self, idx, targets=None):
        B, T = idx.shape
        pos = torch.arange(T, device=idx.device)
        x = self.drop(self.wte(idx) + self.wpe(pos))
        for block in self.blocks:
            x = block(x)
        logits = self.lm_head(self.ln_f(x))
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
        return logits, loss

    def configure_optimizers(self, lr, weight_decay):
        params = {n: p for n, p in self.named_parameters() if p.requires_grad}
        decay = [p for n, p in params.items() if p.dim() >= 2]
        no_decay = [p for n, p in params.items() if p.dim() < 2]
        groups = [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]
        return torch.optim.AdamW(groups, lr=lr, betas=(0.9, 0.99))

    @torch.no_grad()
    def generate(self, idx, max_new_tokens, temperature=1.0, top_k=None, generator=None):
        for _ in range(max_new_tokens):
            cond = idx if idx.size(1) <= self.block_size else idx[:, -self.block_size :]
            logits, _ = self(cond)
            logits = logits[:, -1, :] / temperature
            if top_k is not None:
                v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
                logits[logits < v[:, [-1]]] = -float("Inf")
            probs = F.softmax(logits, dim=-1)
            nxt = torch.multinomial(probs, num_samples=1, generator=generator)
            idx = torch.cat((idx, nxt), dim=1)
        return idx


class Progress:
    """A tqdm bar on a terminal; on a log (pipe, file, CI) a plain line every `total // lines` steps."""

    def __init__(self, total, desc="train", stream=None, lines=20):
        self.total, self.desc, self.stream = total, desc, stream or sys.stderr
        self.every = max(1, total // lines)
        self.t0 = time.time()
        try:
            from tqdm import tqdm
        except ImportError:  # the demo session installs it; without it, log lines only
            tqdm = None
        self.tqdm = tqdm
        tty = getattr(self.stream, "isatty", lambda: False)()
        self.bar = tqdm(total=total, desc=desc, unit="step", file=self.stream) if tqdm and tty else None

    def update(self, step, **stats):
        if self.bar is not None:
            self.bar.set_postfix(stats, refresh=False)
            self.bar.update(1)
        elif step % self.every == 0 or step == self.total:
            post = ", ".join(f"{k}={v}" for k, v in stats.items())
            elapsed = time.time() - self.t0
            if self.tqdm is not None:
                line = self.tqdm.format_meter(
                    step, self.total, elapsed, ascii=True, unit="step", prefix=self.desc, postfix=post
                )
            else:
                line = f"{self.desc}: step {step}/{self.total} [{elapsed:.0f}s, {post}]"
            self.stream.write(line + "\n")
            self.stream.flush()

    def close(self):
        if self.bar is not None:
            self.bar.close()


def plot_curve(losses, path):
    """The training loss per step as a PNG; returns why not when matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib is not installed (pip install matplotlib)"
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(range(1, len(losses) + 1), losses, lw=1)
    ax.set(xlabel="step", ylabel="train loss (nats/char)", title="mindtorch: small GPT on tiny_stories")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return None


def unigram_entropy(data, vocab_size):
    counts = torch.bincount(data, minlength=vocab_size).double()
    p = counts[counts > 0] / counts.sum()
    return float(-(p * p.log()).sum())


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=os.path.join(HERE, "data", "tiny_stories.txt"))
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--steps", type=int, default=600)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--block-size", type=int, default=64)
    ap.add_argument("--n-layer", type=int, default=2)
    ap.add_argument("--n-head", type=int, default=4)
    ap.add_argument("--n-embd", type=int, default=64)
    ap.add_argument("--dropout", type=float, default=0.1)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--eval-iters", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1337)
    ap.add_argument("--manual-attn", action="store_true", help="masked_fill + softmax instead of SDPA")
    ap.add_argument("--checkpoint", default=os.path.join(HERE, "out", "gpt_ckpt.pt"))
    ap.add_argument("--sample-tokens", type=int, default=200)
    ap.add_argument(
        "--plot",
        default=os.path.join(HERE, "out", "loss_curve.png"),
        help="where to write the loss curve (needs matplotlib); '' for none",
    )
    args = ap.parse_args(argv)

    torch.manual_seed(args.seed)
    device = torch.device(args.device)
    with open(args.data) as f:
        text = f.read()
    chars = sorted(set(text))
    stoi = {c: i for i, c in enumerate(chars)}
    vocab_size = len(chars)
    data = torch.tensor([stoi[c] for c in text], dtype=torch.long)
    n = int(0.9 * len(data))
    train_data, val_data = data[:n], data[n:]
    print(f"corpus: {len(text)} chars, vocab {vocab_size}, train {len(train_data)}, val {len(val_data)}")

    gen = torch.Generator().manual_seed(args.seed)

    def get_batch(split, g=gen):
        d = train_data if split == "train" else val_data
        ix = torch.randint(len(d) - args.block_size - 1, (args.batch_size,), generator=g)
        x = torch.stack([d[i : i + args.block_size] for i in ix.tolist()])
        y = torch.stack([d[i + 1 : i + 1 + args.block_size] for i in ix.tolist()])
        return x.to(device), y.to(device)

    model = GPT(vocab_size, args.block_size, args.n_layer, args.n_head, args.n_embd, args.dropout, args.manual_attn).to(
        device
    )
    n_params = sum(p.numel() for p in model.parameters())  # tied weight counted once
    print(f"model: {n_params} parameters on {device}")
    optimizer = model.configure_optimizers(args.lr, weight_decay=0.1)
    warmup = max(1, args.steps // 10)
    sched = torch.optim.lr_scheduler.LambdaLR(
        optimizer,
        lambda s: min(1.0, (s + 1) / warmup) * 0.5 * (1 + math.cos(math.pi * min(s, args.steps) / args.steps)),
    )

    @torch.no_grad()
    def estimate_loss(m):
        m.eval()
        out = {}
        g = torch.Generator().manual_seed(args.seed + 1)  # same held-out batches on every call
        for split in ("train", "val"):
            losses = [m(*get_batch(split, g))[1].item() for _ in range(args.eval_iters)]
            out[split] = sum(losses) / len(losses)
        m.train()
        return out

    model.train()
    curve = []
    progress = Progress(args.steps)
    for step in range(1, args.steps + 1):
        x, y = get_batch("train")
        _, loss = model(x, y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        sched.step()
        curve.append(loss.item())
        progress.update(step, loss=f"{curve[-1]:.4f}", lr=f"{sched.get_last_lr()[0]:.2e}")
    progress.close()
    if args.plot:
        why_not = plot_curve(curve, args.plot)
        print(f"loss curve: {args.plot}" if why_not is None else f"loss curve not drawn: {why_not}")

    losses = estimate_loss(model)
    h_unigram = unigram_entropy(val_data, vocab_size)
    print(f"train loss {losses['train']:.4f}  val loss {losses['val']:.4f} nats/char")
    print(f"unigram (character frequency) entropy of the val text: {h_unigram:.4f} nats/char")

    # checkpoint round trip
    os.makedirs(os.path.dirname(os.path.abspath(args.checkpoint)), exist_ok=True)
    torch.save(
        {
            "model": model.state_dict(),
            "optimizer": optimizer.state_dict(),
            "scheduler": sched.state_dict(),
            "chars": "".join(chars),
            "args": vars(args),
        },
        args.checkpoint,
    )
    ckpt = torch.load(args.checkpoint, map_location=device)
    restored = GPT(
        vocab_size, args.block_size, args.n_layer, args.n_head, args.n_embd, args.dropout, args.manual_attn
    ).to(device)
    print("checkpoint:", args.checkpoint, restored.load_state_dict(ckpt["model"]))
    restored_opt = restored.configure_optimizers(args.lr, weight_decay=0.1)
    restored_opt.load_state_dict(ckpt["optimizer"])
    val_restored = estimate_loss(restored)["val"]
    print(f"restored model val loss {val_restored:.4f} (same batches as above)")

    ctx = torch.tensor([[stoi[c] for c in "Once upon a time"]], dtype=torch.long, device=device)
    out = restored.generate(
        ctx, args.sample_tokens, temperature=0.8, top_k=10, generator=torch.Generator().manual_seed(args.seed)
    )
    print("sample:\n" + "".join(chars[i] for i in out[0].tolist()))
    ok = losses["val"] < h_unigram
    print("val loss below unigram entropy:", ok)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
