"""mindtorch benchmarks, side by side with NumPy and (when installed) PyTorch.

    python benchmarks/run.py [--repeat N] [--quick] [--threads N] [--only TEXT] [--breakdown ROW]
                             [--breakdown-only] [--cpu-time]

Each figure is the best of several repeats of a timeit loop (min-of-repeats is
the least noisy estimate of the cost itself). Each row carries its target ratio.
--threads N pins every library (mindtorch's pool, PyTorch, NumPy's BLAS) to N threads; --cpu-time
times with this process's CPU time instead of the wall clock. On a shared, busy machine
`--threads 1 --cpu-time` compares per-core cost, which other processes' load barely moves.
"""

import argparse
import math
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

import lstm_lm  # noqa: E402  (benchmarks/: the script's own directory)
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


def measure_extra(work, libs, repeat, min_time):
    """Seconds a recording row's op costs with grad beyond the same op without (RECORDING_BASE), for
    each library against its own op; both versions are timed in every repeat. Also returns the four
    figures per library, for the row's note."""
    base = RECORDING_BASE[work]
    keys = [(lib, tag) for lib in libs for tag in ("", " +grad")]

    def make(key):
        lib, with_grad = key
        fn = work(lib)  # None where the row does not apply: then neither is timed
        return fn if with_grad or fn is None else base(lib)

    res, why = measure_case(make, keys, repeat, min_time)
    extra, parts = {}, {}
    for lib in libs:
        off, on = res[(lib, "")], res[(lib, " +grad")]
        extra[lib] = None if off is None or on is None else on - off
        parts[lib] = (off, on)
    return extra, {lib: why[(lib, " +grad")] or why[(lib, "")] for lib in libs}, parts


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


def mul_small(lib):
    a, b = small(lib)
    return lambda: a * b


def relu_small(lib):
    a, _ = small(lib)
    if lib == "np":
        return lambda: np.maximum(a, 0)
    f = _fn(lib)
    return lambda: f.relu(a)


def reshape_copy_small(lib):
    """A reshape that has to copy: the transpose of a 4x2 tensor, flattened."""
    a, _ = small(lib)
    t = a.reshape(4, 2).T if lib == "np" else a.reshape(4, 2).t()
    return lambda: t.reshape(8)


def reshape_view_small(lib):
    a, _ = small(lib)
    return lambda: a.reshape(2, 4)


def slice13_small(lib):
    a, _ = small(lib)
    return lambda: a[1:3]


def cat_small(lib):
    a, b = small(lib)
    c = a * 2
    if lib == "np":
        return lambda: np.concatenate([a, b, c])
    m = mt if lib == "mt" else torch
    return lambda: m.cat([a, b, c])


def matmul_4x4(lib):
    a, b = big(lib, (4, 4))
    return lambda: a @ b


def _small_rows(lib):
    return big(lib, (4, 16))[0]


def _softmax_rows(lib, a):
    """Softmax along the rows of a 2-d operand (NumPy: the usual three passes)."""
    if lib == "np":

        def np_softmax():
            e = np.exp(a - a.max(axis=1, keepdims=True))
            e /= e.sum(axis=1, keepdims=True)
            return e

        return np_softmax
    return lambda: a.softmax(1)


def softmax_small(lib):
    return _softmax_rows(lib, _small_rows(lib))


def layer_norm_small(lib):
    if lib == "np":
        return None
    a, f = _small_rows(lib), _fn(lib)
    m = mt if lib == "mt" else torch
    w, b = m.ones(16), m.zeros(16)
    return lambda: f.layer_norm(a, (16,), w, b)


def gelu_small(lib):
    if lib == "np":
        return None
    a, f = _small_rows(lib), _fn(lib)
    return lambda: f.gelu(a)


def cross_entropy_small(lib):
    """A PyTorch-tutorial-sized loss: 8 samples, 10 classes."""
    if lib == "np":
        return None
    m = mt if lib == "mt" else torch
    m.manual_seed(0)
    x, t, f = m.randn(8, 10), m.randint(0, 10, (8,)), _fn(lib)
    return lambda: f.cross_entropy(x, t)


def add_grad(lib):
    if lib == "np":
        return None
    a, b = small(lib)
    a.requires_grad_(True)
    return lambda: a + b


def mul_grad(lib):
    """Both operands require grad, so the node saves both for backward."""
    if lib == "np":
        return None
    a, b = small(lib)
    a.requires_grad_(True)
    b.requires_grad_(True)
    return lambda: a * b


# the recording rows time the op with grad and without, and report the difference (the cost of
# recording it for autograd), each library against its own op without grad
RECORDING_BASE = {add_grad: add_small, mul_grad: mul_small}


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
    return _softmax_rows(lib, big(lib, (4096, 1024))[0])


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


class Step:
    """One training step in three phases: forward (returns the loss), backward, and the optimizer's
    update (gradient clipping included); a call runs them all after zeroing the gradients. The
    breakdown (--breakdown ROW) times the phases one by one."""

    def __init__(self, zero, forward, update):
        self.zero, self.forward, self.update = zero, forward, update

    def __call__(self):
        self.zero()
        self.forward().backward()
        self.update()


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
    return Step(opt.zero_grad, lambda: F.cross_entropy(model(x), y), opt.step)


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
    return Step(
        lambda: opt.zero_grad(set_to_none=True),
        lambda: F.cross_entropy(model(idx).view(-1, vocab), tgt.view(-1)),
        opt.step,
    )


def _char_batch(m, c):
    """Random inputs and targets of a char-level batch for a GPT config."""
    return tuple(m.randint(0, c["vocab_size"], (c["batch"], c["block_size"])) for _ in range(2))


def _clip_then_step(m, model, opt):
    """The update of nanoGPT's and minGPT's loops: gradients clipped to norm 1.0, then the step."""

    def update():
        m.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()

    return update


# nanoGPT's model and training loop, at the size of its small char-level runs (its GPTConfig fields)
NANOGPT = dict(vocab_size=65, block_size=64, n_layer=4, n_head=4, n_embd=128, batch=12)


def nanogpt_step(lib):
    """A nanoGPT-style step: pre-norm blocks with F.scaled_dot_product_attention (is_causal), a GELU
    MLP, tied embeddings, AdamW with decay on the matrices only, gradient clipping at 1.0."""
    if lib == "np":
        return None
    m = mt if lib == "mt" else torch
    nn, F = m.nn, m.nn.functional
    c = NANOGPT

    class LayerNorm(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.weight, self.bias = nn.Parameter(m.ones(n)), nn.Parameter(m.zeros(n))

        def forward(self, x):
            return F.layer_norm(x, self.weight.shape, self.weight, self.bias, 1e-5)

    class Attention(nn.Module):
        def __init__(self):
            super().__init__()
            self.c_attn = nn.Linear(c["n_embd"], 3 * c["n_embd"])
            self.c_proj = nn.Linear(c["n_embd"], c["n_embd"])

        def forward(self, x):
            b, t, e = x.size()
            q, k, v = self.c_attn(x).split(e, dim=2)
            h = c["n_head"]
            q, k, v = (z.view(b, t, h, e // h).transpose(1, 2) for z in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=True)
            return self.c_proj(y.transpose(1, 2).contiguous().view(b, t, e))

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1, self.attn, self.ln_2 = LayerNorm(c["n_embd"]), Attention(), LayerNorm(c["n_embd"])
            self.c_fc, self.gelu = nn.Linear(c["n_embd"], 4 * c["n_embd"]), nn.GELU()
            self.c_proj = nn.Linear(4 * c["n_embd"], c["n_embd"])

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.c_proj(self.gelu(self.c_fc(self.ln_2(x))))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte = nn.Embedding(c["vocab_size"], c["n_embd"])
            self.wpe = nn.Embedding(c["block_size"], c["n_embd"])
            self.h = nn.ModuleList([Block() for _ in range(c["n_layer"])])
            self.ln_f = LayerNorm(c["n_embd"])
            self.lm_head = nn.Linear(c["n_embd"], c["vocab_size"], bias=False)
            self.wte.weight = self.lm_head.weight

        def forward(self, idx, targets):
            pos = m.arange(0, idx.size(1), dtype=m.long)
            x = self.wte(idx) + self.wpe(pos)
            for block in self.h:
                x = block(x)
            logits = self.lm_head(self.ln_f(x))
            return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)

    m.manual_seed(0)
    model = GPT()
    params = [p for p in model.parameters() if p.requires_grad]
    groups = [
        {"params": [p for p in params if p.dim() >= 2], "weight_decay": 0.1},
        {"params": [p for p in params if p.dim() < 2], "weight_decay": 0.0},
    ]
    opt = m.optim.AdamW(groups, lr=1e-3, betas=(0.9, 0.95))
    x, y = _char_batch(m, c)

    return Step(lambda: opt.zero_grad(set_to_none=True), lambda: model(x, y), _clip_then_step(m, model, opt))


def _mingpt_groups(model, nn):
    """minGPT's parameter groups: Linear weights decay; biases, LayerNorm and Embedding weights do not."""
    decay, no_decay = set(), set()
    for mn, mod in model.named_modules():
        for pn, _ in mod.named_parameters():
            fpn = f"{mn}.{pn}" if mn else pn
            if pn.endswith("bias"):
                no_decay.add(fpn)
            elif pn.endswith("weight") and isinstance(mod, nn.Linear):
                decay.add(fpn)
            elif pn.endswith("weight") and isinstance(mod, (nn.LayerNorm, nn.Embedding)):
                no_decay.add(fpn)
    params = dict(model.named_parameters())
    return [
        {"params": [params[n] for n in sorted(decay)], "weight_decay": 0.1},
        {"params": [params[n] for n in sorted(no_decay)], "weight_decay": 0.0},
    ]


# minGPT's model and trainer at its 'gpt-nano' size, on a char-level batch
MINGPT = dict(vocab_size=65, block_size=32, n_layer=3, n_head=3, n_embd=48, pdrop=0.1, batch=16)


def mingpt_step(lib):
    """A minGPT-style step: attention written out (q @ k^T, masked_fill of a causal buffer, softmax,
    dropout), NewGELU as a tanh formula, AdamW with weight-decay groups by module type, clipping 1.0."""
    if lib == "np":
        return None
    m = mt if lib == "mt" else torch
    nn, F = m.nn, m.nn.functional
    c = MINGPT

    class NewGELU(nn.Module):
        def forward(self, x):
            return 0.5 * x * (1.0 + m.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * m.pow(x, 3.0))))

    class CausalSelfAttention(nn.Module):
        def __init__(self):
            super().__init__()
            e, bs = c["n_embd"], c["block_size"]
            self.c_attn, self.c_proj = nn.Linear(e, 3 * e), nn.Linear(e, e)
            self.attn_dropout, self.resid_dropout = nn.Dropout(c["pdrop"]), nn.Dropout(c["pdrop"])
            self.register_buffer("bias", m.tril(m.ones(bs, bs)).view(1, 1, bs, bs))

        def forward(self, x):
            b, t, e = x.size()
            h = c["n_head"]
            q, k, v = self.c_attn(x).split(e, dim=2)
            k = k.view(b, t, h, e // h).transpose(1, 2)
            q = q.view(b, t, h, e // h).transpose(1, 2)
            v = v.view(b, t, h, e // h).transpose(1, 2)
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
            att = att.masked_fill(self.bias[:, :, :t, :t] == 0, float("-inf"))
            att = self.attn_dropout(F.softmax(att, dim=-1))
            y = (att @ v).transpose(1, 2).contiguous().view(b, t, e)
            return self.resid_dropout(self.c_proj(y))

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            e = c["n_embd"]
            self.ln_1, self.attn, self.ln_2 = nn.LayerNorm(e), CausalSelfAttention(), nn.LayerNorm(e)
            self.mlp = nn.ModuleDict(
                dict(
                    c_fc=nn.Linear(e, 4 * e), c_proj=nn.Linear(4 * e, e), act=NewGELU(), dropout=nn.Dropout(c["pdrop"])
                )
            )
            mm = self.mlp
            self.mlpf = lambda x: mm.dropout(mm.c_proj(mm.act(mm.c_fc(x))))

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.mlpf(self.ln_2(x))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            e = c["n_embd"]
            self.transformer = nn.ModuleDict(
                dict(
                    wte=nn.Embedding(c["vocab_size"], e),
                    wpe=nn.Embedding(c["block_size"], e),
                    drop=nn.Dropout(c["pdrop"]),
                    h=nn.ModuleList([Block() for _ in range(c["n_layer"])]),
                    ln_f=nn.LayerNorm(e),
                )
            )
            self.lm_head = nn.Linear(e, c["vocab_size"], bias=False)

        def forward(self, idx, targets):
            t = idx.size(1)
            pos = m.arange(0, t, dtype=m.long).unsqueeze(0)
            tr = self.transformer
            x = tr.drop(tr.wte(idx) + tr.wpe(pos))
            for block in tr.h:
                x = block(x)
            logits = self.lm_head(tr.ln_f(x))
            return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)

    m.manual_seed(0)
    model = GPT()
    groups = _mingpt_groups(model, nn)
    opt = m.optim.AdamW(groups, lr=5e-4, betas=(0.9, 0.95))
    model.train()
    x, y = _char_batch(m, c)

    return Step(lambda: model.zero_grad(set_to_none=True), lambda: model(x, y), _clip_then_step(m, model, opt))


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
    return Step(opt.zero_grad, lambda: F.cross_entropy(model(x), y), opt.step)


def lstm_lm_step(lib):
    """One SGD step of a word-level LSTM language model (embedding, 2-layer LSTM 200 wide, linear decoder,
    vocab 10000, bptt 35, batch 20, gradient clipping), as PyTorch's examples/word_language_model."""
    return None if lib == "np" else lstm_lm.lstm_lm_step(mt if lib == "mt" else torch)


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


# ---- per-op breakdown of one step -----------------------------------------------------------------


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
    (("_conv2d", "_max_pool2d", "_avg_pool2d", "_adaptive_avg_pool2d"), "convolution / pooling"),
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


def _phases(step):
    """(names, functions) of a step's timed phases: a Step's three (the backward takes the forward's
    loss), or the whole call for any other workload."""
    if isinstance(step, Step):
        return ("forward", "backward", "optimizer"), (step.forward, lambda loss: loss.backward(), step.update)
    return ("step",), (lambda: step(),)


def _time_phases(step, timer, steps):
    """The best of `steps` runs: its per-phase seconds and the kernel times at the end of each phase."""
    names, fns = _phases(step)
    for _ in range(3):
        step()
    best, best_marks = None, []
    for _rep in range(steps):
        if isinstance(step, Step):
            step.zero()
        t, marks, carry = [CLOCK[0]()], [], None
        if timer is not None:
            timer.times = {}
            timer.__enter__()
        try:
            for i, fn in enumerate(fns):
                carry = fn(carry) if i == 1 else fn()
                t.append(CLOCK[0]())
                marks.append(dict(timer.times) if timer else {})
        finally:
            if timer is not None:
                timer.__exit__()
        phases = [t[i + 1] - t[i] for i in range(len(fns))]
        if best is None or sum(phases) < sum(best):
            best, best_marks = phases, marks
    return names, best, best_marks


def breakdown(row, steps=10):
    """Per-phase and per-op-family time of one step row (mindtorch), beside PyTorch's phase times."""
    work = next((w for name, w, *_ in CASES if row in name), None)
    if work is None:
        print(f"\nno row matches {row!r}")
        return
    name = next(n for n, w, *_ in CASES if w is work)
    res = {}
    for lib in ["mt"] + (["torch"] if torch is not None else []):
        step = work(lib)
        if step is None:
            continue
        res[lib] = _time_phases(step, KernelTimer() if lib == "mt" else None, steps)
    names, mt_phases, marks = res["mt"]
    total = sum(mt_phases)
    clock = "CPU" if CLOCK[0] is not timeit.default_timer else "wall"
    print(
        f"\n{name}: where the time goes (mindtorch, best of {steps} steps, {clock} time; kernel time by op "
        f"family, the rest is Python: dispatch, autograd, module and optimizer code)"
    )
    tph = res["torch"][1] if "torch" in res else None
    print("phase      mindtorch      torch    ratio")
    for i, n in enumerate(names):
        tv = f"{tph[i] * 1e3:8.2f} ms" if tph else "     n/a"
        r = f"{mt_phases[i] / tph[i]:6.2f}" if tph else "   n/a"
        print(f"{n:9s}  {mt_phases[i] * 1e3:7.2f} ms  {tv}  {r}")
    tt = f"{sum(tph) * 1e3:8.2f} ms" if tph else "     n/a"
    print(f"{'total':9s}  {total * 1e3:7.2f} ms  {tt}  {total / sum(tph) if tph else float('nan'):6.2f}")
    fam, ops = {}, {}
    for i, phase in enumerate(names):
        prev = marks[i - 1] if i else {}
        for op, v in marks[i].items():
            d = v - prev.get(op, 0.0)
            if d > 0:
                key = (family_of(op), phase)
                fam[key] = fam.get(key, 0.0) + d
                ops[op] = ops.get(op, 0.0) + d
    print(f"\n{'op family':24s}" + "".join(f"{n:>11s}" for n in names) + f"{'total':>11s}{'share':>8s}")
    families = {k[0] for k in fam}
    for f in sorted(families, key=lambda f: -sum(fam.get((f, n), 0) for n in names)):
        row_t = [fam.get((f, n), 0.0) for n in names]
        print(
            f"{f:24s}"
            + "".join(f"{v * 1e3:8.2f} ms" for v in row_t)
            + f"{sum(row_t) * 1e3:8.2f} ms{sum(row_t) / total:7.0%}"
        )
    py = [mt_phases[i] - sum(fam.get((f, n), 0) for f in families) for i, n in enumerate(names)]
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
    ("a + b, 8 elements", add_small, "us", "x_torch", 1.3),
    ("a * b, 8 elements", mul_small, "us", "x_torch", 1.3),
    ("relu(a), 8 elements", relu_small, "us", "x_torch", 1.3),
    ("a.sum(), 8 elements", sum_small, "us", "x_torch", 1.3),
    ("a.t() view, 2x4", view_small, "us", "x_torch", 1.5),
    ("a.reshape(2, 4) view, 8", reshape_view_small, "us", "x_torch", 1.5),
    ("a.t().reshape(8) copy, 4x2", reshape_copy_small, "us", "x_torch", 1.5),
    ("a[1:] view, 8", slice_small, "us", "x_torch", 1.5),
    ("a[1:3] view, 8", slice13_small, "us", "x_torch", 1.5),
    ("cat of 3, 8 elements each", cat_small, "us", "x_torch", 1.5),
    ("a @ b, 4x4 f32", matmul_4x4, "us", "x_torch", 1.3),
    ("softmax(dim=1), (4,16)", softmax_small, "us", "x_torch", 1.5),
    ("layer_norm, (4,16)", layer_norm_small, "us", "x_torch", 1.5),
    ("gelu, (4,16)", gelu_small, "us", "x_torch", 1.5),
    ("cross_entropy, (8,10)", cross_entropy_small, "us", "x_torch", 1.5),
    ("recording for autograd, extra per op: a + b, a requires grad", add_grad, "us", "x_torch_extra", 1.3),
    ("recording for autograd, extra per op: a * b, both require grad", mul_grad, "us", "x_torch_extra", 1.3),
    ("a + b, 1024x1024 f32", add_big, "ms", "x_torch", 1.3),
    ("a * b, 1024x1024 f32", mul_big, "ms", "x_torch", 1.3),
    ("a.exp(), 1024x1024", exp_big, "ms", "x_torch", 1.3),
    ("a.sum(dim=1), 1024x1024", sum_dim, "ms", "x_torch", 1.3),
    ("softmax(dim=1), 4096x1024", softmax_big, "ms", "x_torch", 1.3),
    ("gelu fwd (16,64,512)", gelu_fwd, "ms", "x_torch", 1.3),
    ("gelu fwd+bwd (16,64,512)", gelu_fb, "ms", "x_torch", 1.3),
    ("layer_norm fwd+bwd (16,64,512)", layer_norm_fb, "ms", "x_torch", 1.2),
    ("cross_entropy fwd+bwd (1024,256)", cross_entropy_fb, "ms", "x_torch", 1.3),
    ("conv2d fwd+bwd (32,16,32,32) 16->32 k3", conv2d_fb, "ms", "x_torch", 1.2),
    ("max_pool2d 2 fwd+bwd (32,32,32,32)", max_pool_fb, "ms", "x_torch", 1.3),
    ("a @ b, 512x512 f32", matmul, "ms", "x_torch", 1.0),
    ("a @ b, 1024x1024 f32", matmul_1024, "ms", "x_torch", 1.0),
    ("MLP Adam step 784-256-10 b128", mlp_step, "ms", "x_torch", 1.2),
    ("GPT AdamW step (2x128, 4 heads, ctx 64, b16)", gpt_step, "ms", "x_torch", 1.3),
    ("nanoGPT-style step (4x128, 4 heads, ctx 64, b12)", nanogpt_step, "ms", "x_torch", 1.1),
    ("minGPT-style step (gpt-nano 3x48, ctx 32, b16)", mingpt_step, "ms", "x_torch", 1.3),
    ("CNN Adam step (2 conv + fc, 32x32, b32)", cnn_step, "ms", "x_torch", 1.2),
    ("LSTM language-model SGD step (2x200, bptt 35, b20, vocab 10k)", lstm_lm_step, "ms", "x_torch", 1.5),
]
DEFAULT_BREAKDOWN = "GPT AdamW step"
IMPORT_LIMIT = 0.2  # seconds for `import mindtorch` with every backend installed
SCALE = {"us": 1e6, "ms": 1e3, "s": 1.0}
TARGET_TEXT = {
    "x_torch": "<= {:g}x torch",
    "x_numpy": "<= {:g}x numpy",
    "x_torch_extra": "<= {:g}x torch's extra",
    "abs_s": "<= {:g} s",
}


def fmt(v, unit):
    if v is None:
        return "n/a"
    v *= SCALE[unit]
    return f"{v:.3g} {unit}" if v < 100 else f"{v:.0f} {unit}"


def ratio(a, b):
    return "n/a" if a is None or b is None or b == 0 else f"{a / b:.2f}"


def verdict(kind, limit, mtv, npv, tv):
    if mtv is None:
        return "n/a"
    if kind == "x_torch":
        return "n/a" if tv is None else ("ok" if mtv <= limit * tv else "MISS")
    if kind == "x_numpy":
        return "n/a" if npv is None else ("ok" if mtv <= limit * npv else "MISS")
    if kind == "x_torch_extra":
        return "n/a" if tv is None else ("ok" if mtv <= limit * tv else "MISS")
    if kind == "abs_s":
        return "ok" if mtv <= limit else "MISS"
    return ""


def _recording_note(name, unit, parts):
    """The figures behind a recording row: each library's op without grad, then with."""
    shown = [
        f"{LIB_NAMES[lib]} {fmt(off, unit)} -> {fmt(on, unit)}"
        for lib, (off, on) in parts.items()
        if off is not None and on is not None
    ]
    return f"{name}: without grad -> with grad: " + ", ".join(shown)


LIB_NAMES = {"mt": "mindtorch", "np": "numpy", "torch": "torch"}


def main(argv=None):  # noqa: C901
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=5, help="repeats per figure (min is reported)")
    p.add_argument("--quick", action="store_true", help="shorter loops, for a smoke run")
    p.add_argument("--only", action="append", help="run only the rows whose name contains this text (repeatable)")
    p.add_argument(
        "--breakdown",
        action="append",
        metavar="ROW",
        help="print where the time goes in the step row whose name contains ROW (repeatable; default: the "
        "GPT AdamW step, after a full table)",
    )
    p.add_argument("--no-breakdown", action="store_true", help="skip the default breakdown")
    p.add_argument("--breakdown-only", action="store_true", help="only the breakdowns, no table")
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

    rows_to_break = args.breakdown or ([] if args.no_breakdown or args.only else [DEFAULT_BREAKDOWN])
    if args.breakdown_only:
        for row in rows_to_break or [DEFAULT_BREAKDOWN]:
            breakdown(row)
        return 0
    rows, notes = [], []
    for name, work, unit, kind, limit in CASES:
        if args.only and not any(o in name for o in args.only):
            continue
        if work in RECORDING_BASE:
            res, why, parts = measure_extra(work, libs, args.repeat, min_time)
            notes.append(_recording_note(name, unit, parts))
        else:
            res, why = measure_case(work, libs, args.repeat, min_time)
        if why["mt"]:
            notes.append(f"{name}: mindtorch n/a ({why['mt']})")
        rows.append(
            (
                name,
                unit,
                res.get("mt"),
                res.get("np"),
                res.get("torch"),
                TARGET_TEXT[kind].format(limit),
                verdict(kind, limit, res.get("mt"), res.get("np"), res.get("torch")),
            )
        )

    reps = max(3, args.repeat)
    if not args.only:
        imt, why = import_time("mindtorch", reps)
        if why:
            notes.append(f"import mindtorch: n/a ({why})")
        inp, _ = import_time("numpy", reps)
        itorch = import_time("torch", reps)[0] if torch is not None else NA
        rows.append(
            (
                "import (fresh process)",
                "s",
                imt,
                inp,
                itorch,
                TARGET_TEXT["abs_s"].format(IMPORT_LIMIT),
                verdict("abs_s", IMPORT_LIMIT, imt, 0, 0),
            )
        )

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
    for row in rows_to_break:
        breakdown(row)
    return 0


if __name__ == "__main__":
    sys.exit(main())
