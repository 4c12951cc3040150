"""mindtorch benchmarks, side by side with NumPy and (when installed) PyTorch.

    python benchmarks/run.py [--repeat N] [--quick] [--threads N] [--only TEXT] [--breakdown-only]

Each figure is the best of several repeats of a timeit loop (min-of-repeats is
the least noisy estimate of the cost itself). Each row carries its target ratio.
--threads N pins every library (mindtorch's pool, PyTorch, NumPy's BLAS) to N threads; --cpu-time
times with this process's CPU time instead of the wall clock. On a shared, busy machine
`--threads 1 --cpu-time` compares per-core cost, which other processes' load barely moves.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import timeit


def _pin_threads(argv):
    # BLAS and OpenMP read these once, at import: set them before NumPy and PyTorch load
    for i, a in enumerate(argv):
        n = (
            a.split("=", 1)[1]
            if a.startswith("--threads=")
            else (argv[i + 1] if a == "--threads" and i + 1 < len(argv) else None)
        )
        if n:
            for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
                os.environ[var] = n


_pin_threads(sys.argv[1:])

import numpy as np  # noqa: E402

try:
    import torch
except ImportError:  # the torch column then reads n/a
    torch = None

import mindtorch as mt  # noqa: E402

NA = None
CLOCK = [timeit.default_timer]  # or time.process_time (--cpu-time)


def loop_size(fn, min_time):
    """Calls per timing loop so that one loop lasts at least `min_time` seconds."""
    timer = timeit.Timer(fn, timer=CLOCK[0])
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
        except Exception as exc:
            why[lib] = f"{type(exc).__name__}: {str(exc)[:60]}"
    for _ in range(repeat):
        for lib, (fn, number) in fns.items():
            t = timeit.Timer(fn, timer=CLOCK[0]).timeit(number) / number
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


def mul_big(lib):
    a, b = big(lib, (1024, 1024))
    return lambda: a * b


def exp_big(lib):
    a, _ = big(lib, (1024, 1024))
    if lib == "np":
        return lambda: np.exp(a)
    return lambda: a.exp()


def sum_dim(lib):
    a, _ = big(lib, (1024, 1024))
    if lib == "np":
        return lambda: a.sum(axis=1)
    return lambda: a.sum(dim=1)


def softmax_big(lib):
    a, _ = big(lib, (4096, 1024))
    if lib == "np":

        def np_softmax():
            e = np.exp(a - a.max(axis=1, keepdims=True))
            e /= e.sum(axis=1, keepdims=True)
            return e

        return np_softmax
    return lambda: a.softmax(1)


def _fn(lib):
    return (mt if lib == "mt" else torch).nn.functional


def gelu_fwd(lib):
    if lib == "np":
        return None
    a, _ = big(lib, (16, 64, 512))
    f = _fn(lib)
    return lambda: f.gelu(a)


def _fwd_bwd(lib, make, fwd):
    """forward + backward of `fwd` on leaves `make(lib)` (sum of the output as the loss)."""
    if lib == "np":
        return None
    m = mt if lib == "mt" else torch
    m.manual_seed(0)
    xs = make(lib)
    f = _fn(lib)

    def step():
        for x in xs:
            if x.requires_grad:
                x.grad = None
        fwd(f, *xs).sum().backward()

    return step


def _leaf(m, *shape):
    return m.randn(*shape).requires_grad_(True)


def gelu_fb(lib):
    return _fwd_bwd(lib, lambda lib: (_leaf(mt if lib == "mt" else torch, 16, 64, 512),), lambda f, x: f.gelu(x))


def layer_norm_fb(lib):
    def make(lib):
        m = mt if lib == "mt" else torch
        return _leaf(m, 16, 64, 512), _leaf(m, 512), _leaf(m, 512)

    return _fwd_bwd(lib, make, lambda f, x, w, b: f.layer_norm(x, (512,), w, b))


def cross_entropy_fb(lib):
    def make(lib):
        m = mt if lib == "mt" else torch
        m.manual_seed(0)
        return _leaf(m, 1024, 256), m.randint(0, 256, (1024,))

    return _fwd_bwd(lib, make, lambda f, x, t: f.cross_entropy(x, t))


def conv2d_fb(lib):
    def make(lib):
        m = mt if lib == "mt" else torch
        return _leaf(m, 32, 16, 32, 32), _leaf(m, 32, 16, 3, 3), _leaf(m, 32)

    return _fwd_bwd(lib, make, lambda f, x, w, b: f.conv2d(x, w, b, padding=1))


def max_pool_fb(lib):
    return _fwd_bwd(
        lib, lambda lib: (_leaf(mt if lib == "mt" else torch, 32, 32, 32, 32),), lambda f, x: f.max_pool2d(x, 2)
    )


def matmul(lib):
    a, b = big(lib, (512, 512))
    return lambda: a @ b


def matmul_1024(lib):
    a, b = big(lib, (1024, 1024))
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


GPT = dict(vocab=256, width=128, heads=4, ctx=64, batch=16, layers=2)


def gpt_step(lib):
    """One AdamW step of a small GPT (2 layers, 128 wide, 4 heads, context 64, batch 16, vocab 256)."""
    if lib == "np":
        return None
    m = mt if lib == "mt" else torch
    nn, F = m.nn, m.nn.functional
    vocab, width, heads, ctx, batch = (GPT[k] for k in ("vocab", "width", "heads", "ctx", "batch"))

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

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok, self.pos = nn.Embedding(vocab, width), nn.Embedding(ctx, width)
            self.blocks = nn.ModuleList([Block() for _ in range(GPT["layers"])])
            self.ln = nn.LayerNorm(width)
            self.head = nn.Linear(width, vocab, bias=False)
            self.head.weight = self.tok.weight  # weight tying

        def forward(self, idx):
            x = self.tok(idx) + self.pos(m.arange(idx.shape[1]))
            for blk in self.blocks:
                x = blk(x)
            return self.head(self.ln(x))

    m.manual_seed(0)
    model = Model()
    opt = m.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.1)
    idx = m.randint(0, vocab, (batch, ctx))
    tgt = m.randint(0, vocab, (batch, ctx))

    def step():
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(idx).view(-1, vocab), tgt.view(-1))
        loss.backward()
        opt.step()

    return step


def cnn_step(lib):
    """One Adam step of a small CNN: 2 conv (3->16->32, k3) + ReLU + max-pool, then fc, 32x32, batch 32."""
    if lib == "np":
        return None
    m = mt if lib == "mt" else torch
    nn, F = m.nn, m.nn.functional
    m.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(32 * 8 * 8, 10),
    )
    opt = m.optim.Adam(model.parameters(), lr=1e-3)
    x = m.randn(32, 3, 32, 32)
    y = m.randint(0, 10, (32,))

    def step():
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()

    return step


def lstm_lm_step(lib):
    """One SGD step of a word-level LSTM language model (embedding, 2-layer LSTM 200 wide, linear decoder,
    vocab 10000, bptt 35, batch 20, gradient clipping), as PyTorch's examples/word_language_model."""
    if lib == "np":
        return None
    m = mt if lib == "mt" else torch
    nn, F = m.nn, m.nn.functional
    vocab, width, bptt, batch = 10000, 200, 35, 20

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = nn.Embedding(vocab, width)
            self.rnn = nn.LSTM(width, width, 2, dropout=0.2)
            self.decoder = nn.Linear(width, vocab)
            self.drop = nn.Dropout(0.2)

        def forward(self, x, hidden):
            out, hidden = self.rnn(self.drop(self.encoder(x)), hidden)
            return self.decoder(self.drop(out)).view(-1, vocab), hidden

    m.manual_seed(0)
    model = Model()
    data = m.randint(0, vocab, (bptt, batch))
    tgt = m.randint(0, vocab, (bptt * batch,))
    hidden = [tuple(m.zeros(2, batch, width) for _ in range(2))]

    def step():
        h = tuple(t.detach() for t in hidden[0])  # truncated backpropagation through time
        model.zero_grad()
        out, hidden[0] = model(data, h)
        F.cross_entropy(out, tgt).backward()
        nn.utils.clip_grad_norm_(model.parameters(), 0.25)
        with m.no_grad():
            for p in model.parameters():
                p.add_(p.grad, alpha=-20.0)

    return step


def import_time(module, repeat):
    """Seconds to import `module` in a fresh interpreter (min of several; startup excluded), with its
    bytecode cached as after a pip install: a warm-up run fills a private cache (PYTHONPYCACHEPREFIX),
    even where PYTHONDONTWRITEBYTECODE would make every import compile its sources."""
    code = f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = _PYCACHE.name
    times = []
    for _ in range(repeat + 1):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False)
        if out.returncode != 0:
            return NA, out.stderr.strip().splitlines()[-1][:60] if out.stderr.strip() else "failed"
        times.append(float(out.stdout.strip().splitlines()[-1]))
    return min(times[1:]), ""


_PYCACHE = tempfile.TemporaryDirectory(prefix="mindtorch-bench-pycache-")


# ---- per-op breakdown of one GPT step -----------------------------------------------------------------


class KernelTimer:
    """Wraps every CPU kernel with a timer (outermost kernel only, so nested calls are not counted twice)."""

    def __init__(self):
        from mindtorch.ops.registry import OPS

        self.ops = [op for op in OPS.values() if "cpu" in op.kernels]
        self.saved = {}
        self.times = {}
        self.depth = 0

    def _wrap(self, name, fn):
        perf = CLOCK[0]
        times = self.times

        def timed(*args, **kw):
            if self.depth:
                return fn(*args, **kw)
            self.depth = 1
            t = perf()
            try:
                return fn(*args, **kw)
            finally:
                times[name] = times.get(name, 0.0) + perf() - t
                self.depth = 0

        return timed

    def __enter__(self):
        for op in self.ops:
            self.saved[op] = op.kernels["cpu"]
            op.kernels["cpu"] = self._wrap(op.qualname, op.kernels["cpu"])
        return self

    def __exit__(self, *exc):
        for op, k in self.saved.items():
            op.kernels["cpu"] = k


FAMILY = [  # op-name prefix -> family, first match wins
    (("gelu",), "gelu"),
    (("native_layer_norm", "_rms_norm"), "layer_norm"),
    (("softmax", "log_softmax", "_softmax", "_log_softmax", "_scaled_dot"), "softmax / attention"),
    (("_nll_loss", "_cross_entropy"), "nll / cross_entropy"),
    (("linear", "matmul", "bmm", "mm", "addmm"), "matmul"),
    (("embedding", "_embedding"), "embedding"),
    (("_foreach", "_fused"), "optimizer (foreach)"),
    (("masked_fill", "where", "tril", "ones", "zeros", "arange", "full", "empty", "fill_", "zero_"), "masks / fills"),
    (("copy_", "contiguous", "clone", "_to_copy", "cat", "stack"), "copies"),
    (("sum", "mean", "amax", "max", "min"), "reductions"),
]


def family_of(name):
    for prefixes, fam in FAMILY:
        if any(name == p or name.startswith(p + "_") or name.startswith(p + ".") for p in prefixes):
            return fam
    return "elementwise (other)"


def gpt_breakdown(steps=10):
    """Per-phase and per-op-family time of a GPT step (mindtorch), with PyTorch's phase times."""
    res = {}
    for lib in ["mt"] + (["torch"] if torch is not None else []):
        m = mt if lib == "mt" else torch
        step = gpt_step(lib)
        cells = step.__closure__
        env = {name: c.cell_contents for name, c in zip(step.__code__.co_freevars, cells)}
        model, opt, idx, tgt, F = env["model"], env["opt"], env["idx"], env["tgt"], m.nn.functional
        vocab = GPT["vocab"]
        for _ in range(3):
            step()
        best = None
        timer = KernelTimer() if lib == "mt" else None
        phase_ops = {}
        for _rep in range(steps):
            opt.zero_grad(set_to_none=True)
            t = [CLOCK[0]()]
            if timer is not None:
                timer.times = {}
                timer.__enter__()
            try:
                marks = []
                loss = F.cross_entropy(model(idx).view(-1, vocab), tgt.view(-1))
                t.append(CLOCK[0]())
                marks.append(dict(timer.times) if timer else {})
                loss.backward()
                t.append(CLOCK[0]())
                marks.append(dict(timer.times) if timer else {})
                opt.step()
                t.append(CLOCK[0]())
                marks.append(dict(timer.times) if timer else {})
            finally:
                if timer is not None:
                    timer.__exit__()
            phases = [t[i + 1] - t[i] for i in range(3)]
            if best is None or sum(phases) < sum(best):
                best = phases
                phase_ops = marks
        res[lib] = (best, phase_ops)
    mt_phases, marks = res["mt"]
    total = sum(mt_phases)
    print(
        f"\nGPT step breakdown (mindtorch, best of {steps} steps, {'CPU' if CLOCK[0] is not timeit.default_timer else 'wall'} time; kernel time by op family, "
        f"the rest is Python: dispatch, autograd, module and optimizer code)"
    )
    names = ("forward", "backward", "optimizer")
    tph = res.get("torch", (None,))[0]
    print("phase      mindtorch      torch    ratio")
    for i, n in enumerate(names):
        tv = f"{tph[i] * 1e3:8.2f} ms" if tph else "     n/a"
        r = f"{mt_phases[i] / tph[i]:6.2f}" if tph else "   n/a"
        print(f"{n:9s}  {mt_phases[i] * 1e3:7.2f} ms  {tv}  {r}")
    tt = f"{sum(tph) * 1e3:8.2f} ms" if tph else "     n/a"
    print(f"{'total':9s}  {total * 1e3:7.2f} ms  {tt}  {total / sum(tph) if tph else float('nan'):6.2f}")
    fam = {}
    ops = {}
    for i in range(3):
        prev = marks[i - 1] if i else {}
        for op, v in marks[i].items():
            d = v - prev.get(op, 0.0)
            if d > 0:
                key = (family_of(op), names[i])
                fam[key] = fam.get(key, 0.0) + d
                ops[op] = ops.get(op, 0.0) + d
    print(f"\n{'op family':24s}" + "".join(f"{n:>11s}" for n in names) + f"{'total':>11s}{'share':>8s}")
    kernel_total = 0.0
    for f in sorted({k[0] for k in fam}, key=lambda f: -sum(fam.get((f, n), 0) for n in names)):
        row = [fam.get((f, n), 0.0) for n in names]
        kernel_total += sum(row)
        print(
            f"{f:24s}" + "".join(f"{v * 1e3:8.2f} ms" for v in row) + f"{sum(row) * 1e3:8.2f} ms{sum(row) / total:7.0%}"
        )
    py = [mt_phases[i] - sum(fam.get((f, names[i]), 0) for f in {k[0] for k in fam}) for i in range(3)]
    print(
        f"{'Python (not in kernels)':24s}"
        + "".join(f"{v * 1e3:8.2f} ms" for v in py)
        + f"{sum(py) * 1e3:8.2f} ms{sum(py) / total:7.0%}"
    )
    top = sorted(ops.items(), key=lambda kv: -kv[1])[:12]
    print("top kernels: " + ", ".join(f"{k} {v * 1e3:.2f} ms" for k, v in top))


# ---- table -----------------------------------------------------------------------------------------

# name, workload, unit, target kind, target value
CASES = [
    ("a + b, 8 elements", add_small, "us", "x_torch", 1.8),
    ("a.t() view, 2x4", view_small, "us", "x_torch", 2.0),
    ("a[1:] view, 8", slice_small, "us", "x_torch", 2.0),
    ("a.sum(), 8 elements", sum_small, "us", "x_torch", 2.0),
    ("a + b, a requires grad", add_grad, "us", "grad_overhead", 1e-6),
    ("a + b, 1024x1024 f32", add_big, "ms", "x_torch", 1.3),
    ("a * b, 1024x1024 f32", mul_big, "ms", "x_torch", 1.3),
    ("a.exp(), 1024x1024", exp_big, "ms", "x_torch", 1.3),
    ("a.sum(dim=1), 1024x1024", sum_dim, "ms", "x_torch", 1.3),
    ("softmax(dim=1), 4096x1024", softmax_big, "ms", "x_torch", 1.3),
    ("gelu fwd (16,64,512)", gelu_fwd, "ms", "x_torch", 1.3),
    ("gelu fwd+bwd (16,64,512)", gelu_fb, "ms", "x_torch", 1.3),
    ("layer_norm fwd+bwd (16,64,512)", layer_norm_fb, "ms", "x_torch", 1.3),
    ("cross_entropy fwd+bwd (1024,256)", cross_entropy_fb, "ms", "x_torch", 1.3),
    ("conv2d fwd+bwd (32,16,32,32) 16->32 k3", conv2d_fb, "ms", "x_torch", 1.3),
    ("max_pool2d 2 fwd+bwd (32,32,32,32)", max_pool_fb, "ms", "x_torch", 1.3),
    ("a @ b, 512x512 f32", matmul, "ms", "x_torch", 1.0),
    ("a @ b, 1024x1024 f32", matmul_1024, "ms", "x_torch", 1.0),
    ("MLP Adam step 784-256-10 b128", mlp_step, "ms", "x_torch", 1.2),
    ("GPT AdamW step (2x128, 4 heads, ctx 64, b16)", gpt_step, "ms", "x_torch", 1.3),
    ("CNN Adam step (2 conv + fc, 32x32, b32)", cnn_step, "ms", "x_torch", 1.5),
    ("LSTM language-model SGD step (2x200, bptt 35, b20, vocab 10k)", lstm_lm_step, "ms", "x_torch", 1.5),
]
SCALE = {"us": 1e6, "ms": 1e3, "s": 1.0}
TARGET_TEXT = {
    "x_torch": "<= {:g}x torch",
    "x_numpy": "<= {:g}x numpy",
    "grad_overhead": "+<= 1 us over a + b",
    "abs_s": "< {:g} s",
}


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


def main(argv=None):  # noqa: C901
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=5, help="repeats per figure (min is reported)")
    p.add_argument("--quick", action="store_true", help="shorter loops, for a smoke run")
    p.add_argument("--only", help="run only the rows whose name contains this text")
    p.add_argument("--no-breakdown", action="store_true", help="skip the per-op breakdown of a GPT step")
    p.add_argument("--breakdown-only", action="store_true", help="only the per-op breakdown of a GPT step")
    p.add_argument("--threads", type=int, help="threads for every library (default: each library's own)")
    p.add_argument("--cpu-time", action="store_true", help="time with process CPU time (use with --threads 1)")
    args = p.parse_args(argv)
    if args.cpu_time:
        import time

        CLOCK[0] = time.process_time
    if args.threads:
        if hasattr(mt, "set_num_threads"):
            mt.set_num_threads(args.threads)
        if torch is not None:
            torch.set_num_threads(args.threads)
    min_time = 0.05 if args.quick else 0.2

    libs = ["mt", "np"] + (["torch"] if torch is not None else [])
    if torch is not None:
        torch.set_grad_enabled(True)
    print(
        f"mindtorch {mt.__version__} (backends: {', '.join(mt.backends_installed()) or 'none'}), "
        f"numpy {np.__version__}, torch {torch.__version__ if torch is not None else 'not installed'}, "
        f"Python {sys.version.split()[0]}, {os.cpu_count()} cores"
    )
    print(
        f"each figure: min of {args.repeat} repeats of an autoranged timeit loop; threads: "
        f"{args.threads or 'library defaults'}; clock: {'process CPU time' if args.cpu_time else 'wall'}; "
        f"load average {os.getloadavg()[0]:.1f}\n"
    )

    if args.breakdown_only:
        gpt_breakdown()
        return 0
    rows, notes = [], []
    base_mt = None
    for name, work, unit, kind, limit in CASES:
        if args.only and args.only not in name:
            continue
        res, why = measure_case(work, libs, args.repeat, min_time)
        if why["mt"]:
            notes.append(f"{name}: mindtorch n/a ({why['mt']})")
        if work is add_small:
            base_mt = res["mt"]
        rows.append(
            (
                name,
                unit,
                res.get("mt"),
                res.get("np"),
                res.get("torch"),
                TARGET_TEXT[kind].format(limit),
                verdict(kind, limit, res.get("mt"), res.get("np"), res.get("torch"), base_mt),
            )
        )

    reps = max(3, args.repeat)
    if not args.only:
        imt, why = import_time("mindtorch", reps)
        if why:
            notes.append(f"import mindtorch: n/a ({why})")
        inp, _ = import_time("numpy", reps)
        itorch = import_time("torch", reps)[0] if torch is not None else NA
        rows.append(("import (fresh process)", "s", imt, inp, itorch, "< 0.3 s", verdict("abs_s", 0.3, imt, 0, 0, 0)))

    head = ("benchmark", "mindtorch", "numpy", "torch", "mt/np", "mt/torch", "target", "")
    table = [head] + [
        (n, fmt(m, u), fmt(a, u), fmt(t, u), ratio(m, a), ratio(m, t), tgt, ok) for n, u, m, a, t, tgt, ok in rows
    ]
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
    if not (args.no_breakdown or args.only):
        gpt_breakdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
