"""mindtorch benchmarks, side by side with NumPy and (when installed) PyTorch.

    python benchmarks/run.py [--repeat N] [--quick]

Each figure is the best of several repeats of a timeit loop (min-of-repeats is
the least noisy estimate of the cost itself). Targets are SPEC §7's.
"""
import argparse
import os
import subprocess
import sys
import timeit

import numpy as np

try:
    import torch
except ImportError:  # the torch column then reads n/a
    torch = None

import mindtorch as mt

NA = None


def loop_size(fn, min_time):
    """Calls per timing loop so that one loop lasts at least `min_time` seconds."""
    timer = timeit.Timer(fn)
    number = 1
    while timer.timeit(number) < min_time:
        number *= 2 if number < 8 else 4
    return number


def measure_case(work, libs, repeat, min_time):
    """Seconds per call for each library (n/a: not applicable or failing, with the reason).

    The libraries are timed in turn within every repeat, so a busy machine slows all
    columns alike; each figure is the min over repeats.
    """
    fns, res, why = {}, {}, {}
    for lib in libs:
        res[lib], why[lib] = NA, ""
        try:
            fn = work(lib)
            if fn is not None:
                fn()
                fns[lib] = (fn, loop_size(fn, min_time))
        except Exception as exc:  # noqa: BLE001 - the table reports what is missing instead of stopping
            why[lib] = f"{type(exc).__name__}: {str(exc)[:60]}"
    for _ in range(repeat):
        for lib, (fn, number) in fns.items():
            t = timeit.Timer(fn).timeit(number) / number
            res[lib] = t if res[lib] is None else min(res[lib], t)
    return res, why


# ---- workloads -------------------------------------------------------------------------------------

def small(lib):
    if lib == "mt":
        return mt.randn(8), mt.randn(8)
    if lib == "np":
        r = np.random.default_rng(0)
        return r.standard_normal(8, dtype=np.float32), r.standard_normal(8, dtype=np.float32)
    return torch.randn(8), torch.randn(8)


def add_small(lib):
    a, b = small(lib)
    return lambda: a + b


def view_small(lib):
    a, _ = small(lib)
    a = a.reshape(2, 4)
    if lib == "np":
        return lambda: a.T
    return lambda: a.t()


def slice_small(lib):
    a, _ = small(lib)
    return lambda: a[1:]


def sum_small(lib):
    a, _ = small(lib)
    return lambda: a.sum()


def add_grad(lib):
    if lib == "np":
        return None
    a, b = small(lib)
    a.requires_grad_(True)
    return lambda: a + b


def big(lib, shape):
    if lib == "np":
        r = np.random.default_rng(0)
        return r.standard_normal(shape, dtype=np.float32), r.standard_normal(shape, dtype=np.float32)
    m = mt if lib == "mt" else torch
    return m.randn(*shape), m.randn(*shape)


def add_big(lib):
    a, b = big(lib, (1024, 1024))
    return lambda: a + b


def matmul(lib):
    a, b = big(lib, (512, 512))
    return lambda: a @ b


def mlp_step(lib):
    if lib == "np":
        return None
    m = mt if lib == "mt" else torch
    nn, optim = m.nn, m.optim
    F = nn.functional
    m.manual_seed(0)
    model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))
    opt = optim.Adam(model.parameters(), lr=1e-3)
    x = m.randn(128, 784)
    y = m.randint(0, 10, (128,))

    def step():
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
    return step


def gpt_step(lib):
    """One AdamW step of a small GPT (2 layers, 64 wide, 4 heads, context 32, batch 16, vocab 64)."""
    if lib == "np":
        return None
    m = mt if lib == "mt" else torch
    nn, F = m.nn, m.nn.functional
    vocab, width, heads, ctx, batch = 64, 64, 4, 32, 16

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(width), nn.LayerNorm(width)
            self.qkv, self.proj = nn.Linear(width, 3 * width), nn.Linear(width, width)
            self.fc, self.out = nn.Linear(width, 4 * width), nn.Linear(4 * width, width)

        def forward(self, x):
            b, t, c = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(c, dim=2)
            q, k, v = (z.view(b, t, heads, c // heads).transpose(1, 2) for z in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.proj(y.transpose(1, 2).contiguous().view(b, t, c))
            return x + self.out(F.gelu(self.fc(self.ln2(x))))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok, self.pos = nn.Embedding(vocab, width), nn.Embedding(ctx, width)
            self.blocks = nn.ModuleList([Block(), Block()])
            self.ln = nn.LayerNorm(width)
            self.head = nn.Linear(width, vocab, bias=False)
            self.head.weight = self.tok.weight  # weight tying

        def forward(self, idx):
            x = self.tok(idx) + self.pos(m.arange(idx.shape[1]))
            for blk in self.blocks:
                x = blk(x)
            return self.head(self.ln(x))

    m.manual_seed(0)
    model = GPT()
    opt = m.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.1)
    idx = m.randint(0, vocab, (batch, ctx))
    tgt = m.randint(0, vocab, (batch, ctx))

    def step():
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(idx).view(-1, vocab), tgt.view(-1))
        loss.backward()
        opt.step()
    return step


def lstm_step(lib):
    """One Adam step of a 2-layer LSTM language model (embedding 64, hidden 128, seq 32, batch 16)."""
    if lib == "np":
        return None
    m = mt if lib == "mt" else torch
    nn, F = m.nn, m.nn.functional
    m.manual_seed(0)
    emb, lstm, head = nn.Embedding(64, 64), nn.LSTM(64, 128, num_layers=2), nn.Linear(128, 64)
    params = [*emb.parameters(), *lstm.parameters(), *head.parameters()]
    opt = m.optim.Adam(params, lr=1e-3)
    idx, tgt = m.randint(0, 64, (32, 16)), m.randint(0, 64, (32, 16))

    def step():
        opt.zero_grad(set_to_none=True)
        out, _ = lstm(emb(idx))
        F.cross_entropy(head(out).view(-1, 64), tgt.view(-1)).backward()
        opt.step()
    return step


def transformer_step(lib):
    """One AdamW step of nn.TransformerEncoder (2 layers, d_model 64, 4 heads, ff 256, seq 32, batch 16)."""
    if lib == "np":
        return None
    m = mt if lib == "mt" else torch
    nn = m.nn
    m.manual_seed(0)
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(64, 4, 256, dropout=0.1, batch_first=True), 2,
                                enable_nested_tensor=False)
    opt = m.optim.AdamW(enc.parameters(), lr=1e-3)
    x = m.randn(16, 32, 64)
    mask = nn.Transformer.generate_square_subsequent_mask(32)

    def step():
        opt.zero_grad(set_to_none=True)
        enc(x, mask=mask).pow(2).mean().backward()
        opt.step()
    return step


def import_time(module, repeat):
    """Seconds to import `module` in a fresh interpreter (min of several; startup excluded)."""
    code = f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
    env = dict(os.environ)
    times = []
    for _ in range(repeat):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False)
        if out.returncode != 0:
            return NA, out.stderr.strip().splitlines()[-1][:60] if out.stderr.strip() else "failed"
        times.append(float(out.stdout.strip().splitlines()[-1]))
    return min(times), ""


# ---- table -----------------------------------------------------------------------------------------

# name, workload, unit, target kind, target value
CASES = [
    ("a + b, 8 elements", add_small, "us", "x_torch", 2.0),
    ("a.t() view, 2x4", view_small, "us", "x_torch", 2.0),
    ("a[1:] view, 8", slice_small, "us", "x_torch", 2.0),
    ("a.sum(), 8 elements", sum_small, "us", "x_torch", 2.0),
    ("a + b, a requires grad", add_grad, "us", "grad_overhead", 1e-6),
    ("a + b, 1024x1024 f32", add_big, "ms", "x_numpy", 1.0),
    ("a @ b, 512x512 f32", matmul, "ms", "x_numpy", 1.0),
    ("MLP Adam step 784-256-10 b128", mlp_step, "ms", "x_torch", 1.2),
    ("GPT AdamW step (2x64, ctx 32, b16)", gpt_step, "ms", "x_torch", 2.0),
    ("LSTM LM Adam step (2x128, seq 32, b16)", lstm_step, "ms", "info", None),
    ("TransformerEncoder step (2x64, seq 32, b16)", transformer_step, "ms", "info", None),
]
SCALE = {"us": 1e6, "ms": 1e3, "s": 1.0}
TARGET_TEXT = {"x_torch": "<= {:g}x torch", "x_numpy": "<= {:g}x numpy", "grad_overhead": "+<= 1 us over a + b",
               "abs_s": "< {:g} s", "info": "(no target yet)"}


def fmt(v, unit):
    if v is None:
        return "n/a"
    v *= SCALE[unit]
    return f"{v:.3g} {unit}" if v < 100 else f"{v:.0f} {unit}"


def ratio(a, b):
    return "n/a" if a is None or b is None or b == 0 else f"{a / b:.2f}"


def verdict(kind, limit, mtv, npv, tv, base_mt):
    if mtv is None:
        return "n/a"
    if kind == "x_torch":
        return "n/a" if tv is None else ("ok" if mtv <= limit * tv else "MISS")
    if kind == "x_numpy":
        return "n/a" if npv is None else ("ok" if mtv <= limit * npv else "MISS")
    if kind == "grad_overhead":
        return "n/a" if base_mt is None else ("ok" if mtv - base_mt <= limit else "MISS")
    if kind == "abs_s":
        return "ok" if mtv < limit else "MISS"
    return ""


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=5, help="repeats per figure (min is reported)")
    p.add_argument("--quick", action="store_true", help="shorter loops, for a smoke run")
    args = p.parse_args(argv)
    min_time = 0.05 if args.quick else 0.2

    libs = ["mt", "np"] + (["torch"] if torch is not None else [])
    if torch is not None:
        torch.set_grad_enabled(True)
    print(f"mindtorch {mt.__version__} (backends: {', '.join(mt.backends_installed()) or 'none'}), "
          f"numpy {np.__version__}, torch {torch.__version__ if torch is not None else 'not installed'}, "
          f"Python {sys.version.split()[0]}, {os.cpu_count()} cores")
    print(f"each figure: min of {args.repeat} repeats of an autoranged timeit loop\n")

    rows, notes = [], []
    base_mt = None
    for name, work, unit, kind, limit in CASES:
        res, why = measure_case(work, libs, args.repeat, min_time)
        if why["mt"]:
            notes.append(f"{name}: mindtorch n/a ({why['mt']})")
        if work is add_small:
            base_mt = res["mt"]
        rows.append((name, unit, res.get("mt"), res.get("np"), res.get("torch"),
                     TARGET_TEXT[kind].format(limit), verdict(kind, limit, res.get("mt"), res.get("np"),
                                                              res.get("torch"), base_mt)))

    reps = max(3, args.repeat)
    imt, why = import_time("mindtorch", reps)
    if why:
        notes.append(f"import mindtorch: n/a ({why})")
    inp, _ = import_time("numpy", reps)
    itorch = import_time("torch", reps)[0] if torch is not None else NA
    rows.append(("import (fresh process)", "s", imt, inp, itorch, "< 0.3 s", verdict("abs_s", 0.3, imt, 0, 0, 0)))

    head = ("benchmark", "mindtorch", "numpy", "torch", "mt/np", "mt/torch", "target", "")
    table = [head] + [(n, fmt(m, u), fmt(a, u), fmt(t, u), ratio(m, a), ratio(m, t), tgt, ok)
                      for n, u, m, a, t, tgt, ok in rows]
    widths = [max(len(r[i]) for r in table) for i in range(len(head))]
    for i, r in enumerate(table):
        print("  ".join(c.ljust(w) if j in (0, 6, 7) else c.rjust(w) for j, (c, w) in enumerate(zip(r, widths))))
        if i == 0:
            print("  ".join("-" * w for w in widths))
    if notes:
        print()
        for n in notes:
            print("note: " + n)
    summary = [r[-1] for r in rows]
    print(f"\ntargets met: {summary.count('ok')}, missed: {summary.count('MISS')}, n/a: {summary.count('n/a')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
