"""python -m mindtorch_npu.selftest [--json PATH|-]: the hardware checklist for a new Ascend host.

It reports the environment (each CANN library and where it was found, the CANN version when the toolkit says
it, the SoC and the device count), then runs one short program per operator family on the npu and compares
it with the cpu, and an HCCL all-reduce across two devices when there are two. Each item prints PASS, FAIL
(with the error) or SKIP (with the reason: what the chip's documentation omits, or fewer than two devices);
the exit status is 0 only when nothing failed. Every item runs on its own: a failure is recorded, the devices
are synchronized (clearing a sticky device error) and the next item runs.
"""

import argparse
import json
import os
import re
import sys
import threading
import time
from pathlib import Path

import numpy as np

PASS, FAIL, SKIP = "PASS", "FAIL", "SKIP"
CHECKS = []  # (name, fn): fn() returns a short detail, raises Skip, or raises on failure


class Skip(Exception):
    pass


def check(name):
    def register(fn):
        CHECKS.append((name, fn))
        return fn

    return register


# -- the environment ----------------------------------------------------------------------------------------

_VERSION_FILES = ("ascend_toolkit_install.info", "version.cfg", "version.info")


def cann_version(lib_paths=()):
    """The CANN version from the toolkit's install files (searched from the CANN environment variables and the
    libraries' directories upwards), or None."""
    roots = [os.environ.get(v) for v in ("ASCEND_TOOLKIT_HOME", "ASCEND_HOME_PATH", "ASCEND_OPP_PATH")]
    roots += [str(Path(p).parent) for p in lib_paths]
    for root in filter(None, roots):
        d = Path(root)
        for folder in (d, *list(d.parents)[:2]):  # lib64 -> the toolkit's version dir
            for name in _VERSION_FILES:
                for f in (folder / name, *folder.glob(f"*/{name}")):
                    found = _read_version(f)
                    if found:
                        return f"{found} ({f})"
    return None


def _read_version(path):
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return None
    m = re.search(r"^\s*(?:version|Version|runtime_running_version)\s*=\s*\[?([^\]:\s]+)", text, re.M)
    return m.group(1) if m else None


def environment():
    import mindtorch

    from .module import backend_info
    from .state import RUNTIME

    info = dict(backend_info())
    paths = [v.split(" [")[0] for k, v in info.items() if k.endswith(".so") and not v.startswith("missing")]
    info["CANN version"] = cann_version(paths) or "unknown (no version file found near the libraries)"
    info["devices"] = mindtorch.npu.device_count() if RUNTIME.available() else 0
    return info


# -- helpers ------------------------------------------------------------------------------------------------


def _torch():
    import mindtorch

    return mindtorch


def _close(got, want, what, rtol=1e-4, atol=1e-5):
    torch = _torch()
    if not isinstance(got, torch.Tensor) or got.device.type != "npu":
        raise AssertionError(f"{what}: expected an npu tensor, got {got!r:.80}")
    if tuple(got.shape) != tuple(want.shape) or got.dtype is not want.dtype:
        raise AssertionError(f"{what}: {tuple(got.shape)} {got.dtype}, expected {tuple(want.shape)} {want.dtype}")
    a, b = (t.detach().cpu() for t in (got, want))
    if want.dtype is torch.bfloat16:  # NumPy has no bfloat16: compared widened, on the host
        a, b = a.float(), b.float()
    a, b = a.numpy(), b.numpy()
    if not np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True):
        diff = np.nanmax(np.abs(a.astype(np.float64) - b.astype(np.float64))) if a.size else 0.0
        raise AssertionError(f"{what}: values differ from the cpu (max abs diff {diff:.3g})")


def _both(fn, *cpu_args):
    """fn on the cpu arguments and on their npu copies: (npu result, cpu result)."""
    return fn(*[a.to("npu") for a in cpu_args]), fn(*cpu_args)


def _compare(what, fn, *cpu_args, **tol):
    got, want = _both(fn, *cpu_args)
    for k, (g, w) in enumerate(zip(got, want) if isinstance(want, tuple) else [(got, want)]):
        _close(g, w, f"{what}[{k}]" if isinstance(want, tuple) else what, **tol)


def _rand(*shape, seed=0):
    torch = _torch()
    return torch.tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


# -- the checklist ------------------------------------------------------------------------------------------


@check("creation and copies")
def _creation():
    torch = _torch()
    from . import chips

    for dt in sorted(chips.chip_dtypes(), key=str):
        h = (torch.arange(12) % 3).to(dt).reshape(3, 4)
        d = h.to("npu")
        _close(d, h, f"host->device {dt}", 0, 0)
        _close(d.t().contiguous(), h.t().contiguous(), f"strided device copy {dt}", 0, 0)
    _close(torch.zeros(2, 3, device="npu"), torch.zeros(2, 3), "zeros")
    _close(torch.arange(0.0, 5.0, 0.5, device="npu"), torch.arange(0.0, 5.0, 0.5), "arange")
    n = torch.npu.device_count()
    if n > 1:
        x = _rand(5, 7)
        _close(x.to("npu:0").to("npu:1"), x, "npu:0 -> npu:1")
    return f"{len(chips.chip_dtypes())} dtypes both ways, {min(n, 2)} device(s)"


@check("pointwise")
def _pointwise():
    a, b = _rand(4, 5, seed=1), _rand(4, 5, seed=2)
    _compare("add/mul/div", lambda x, y: (x + y * 2) / (y.abs() + 1), a, b)
    _compare("exp/tanh/sigmoid", lambda x: x.exp() + x.tanh() + x.sigmoid(), a)
    _compare("where/compare", lambda x, y: _torch().where(x > y, x, y), a, b)
    return "add, mul, div, abs, exp, tanh, sigmoid, where"


@check("reductions")
def _reductions():
    a = _rand(6, 7, seed=3)
    _compare("sum/mean", lambda x: (x.sum(1), x.mean(0)), a)
    _compare("amax/argmax", lambda x: (x.amax(1), x.argmax(0)), a)
    _compare("std/cumsum", lambda x: (x.std(1), x.cumsum(0)), a)
    return "sum, mean, amax, argmax, std, cumsum"


@check("matmul")
def _matmul():
    _compare("mm", lambda x, y: x @ y, _rand(8, 16, seed=4), _rand(16, 5, seed=5), rtol=1e-3, atol=1e-4)
    _compare("bmm", lambda x, y: x @ y, _rand(3, 4, 6, seed=6), _rand(3, 6, 2, seed=7), rtol=1e-3, atol=1e-4)
    return "mm, bmm"


@check("indexing")
def _indexing():
    torch = _torch()
    a, idx = _rand(5, 4, seed=8), torch.tensor([4, 0, 2, 2])
    _compare("index_select/gather", lambda x, i: (x.index_select(0, i), x.gather(0, i.view(1, 4))), a, idx)
    _compare("advanced index", lambda x, i: x[i, 1:], a, idx)
    _compare("index_put_", lambda x, i: x.clone().index_put_((i,), torch.ones(4, device=x.device), True), a, idx)
    try:
        a.to("npu")[torch.tensor([5], device="npu")].cpu()  # a read's index is checked at the next sync
    except IndexError:
        pass
    else:
        raise AssertionError("an out-of-range index gave no IndexError")
    return "index_select, gather, x[idx], index_put_, bounds check"


@check("sorting")
def _sorting():
    a = _rand(4, 9, seed=9)
    _compare("sort", lambda x: tuple(x.sort(1)), a)
    _compare("topk", lambda x: tuple(x.topk(3, 1)), a)
    return "sort, topk"


@check("random")
def _random():
    torch = _torch()
    torch.npu.manual_seed(7)
    first = torch.rand(1000, device="npu").cpu()
    torch.npu.manual_seed(7)
    again = torch.rand(1000, device="npu").cpu()
    if not torch.equal(first, again):
        raise AssertionError("manual_seed does not reproduce rand")
    if not (float(first.min()) >= 0 and float(first.max()) < 1):
        raise AssertionError("rand left [0, 1)")
    m = float(torch.randn(4000, device="npu").mean())
    if abs(m) > 0.1:
        raise AssertionError(f"randn's mean is {m:.3f}")
    return "rand reproducible under manual_seed, in [0, 1); randn centred"


@check("nn: convolution")
def _conv():
    F = _torch().nn.functional
    from . import precision

    # HFLOAT32 operands (torch.npu.conv.allow_hf32, on by default) keep 11 mantissa bits, FLOAT16 ones (chips
    # before Ascend910B1) 10: 27-term sums of products of values near 1 then differ from the cpu's by ~1e-3
    exact = precision.conv_cube_math_type() == precision.KEEP_DTYPE
    tol = 1e-4 if exact else 1e-2
    _compare("conv2d", lambda x, w: F.conv2d(x, w, padding=1), _rand(2, 3, 6, 6, seed=10), _rand(4, 3, 3, 3), atol=tol)
    return "conv2d" + ("" if exact else " (operands of reduced precision)")


@check("nn: max pooling")
def _max_pool():
    _compare("max_pool2d", lambda x: _torch().nn.functional.max_pool2d(x, 2), _rand(2, 3, 6, 6, seed=11))
    return "max_pool2d"


@check("nn: average pooling")
def _avg_pool():
    _compare("avg_pool2d", lambda x: _torch().nn.functional.avg_pool2d(x, 2), _rand(2, 3, 6, 6, seed=12))
    return "avg_pool2d"


def _grads(fn, *cpu_args):
    """(npu gradients, cpu gradients) of sum(fn(*args)) with respect to every argument."""
    out = []
    for dev in ("npu", "cpu"):
        args = [a.detach().to(dev).requires_grad_(True) for a in cpu_args]
        fn(*args).sum().backward()
        out.append(tuple(a.grad for a in args))
    return out


@check("nn: normalization")
def _norms():
    torch = _torch()
    F = torch.nn.functional
    x, w, b = _rand(4, 3, 5, seed=13), torch.ones(3), torch.zeros(3)
    _compare("layer_norm", lambda x: F.layer_norm(x, (5,)), x)
    _compare("batch_norm", lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True), x, w, b)
    _compare("group_norm", lambda x: F.group_norm(x, 3), x)
    return "layer_norm, batch_norm, group_norm"


@check("nn: normalization backward")
def _norms_backward():
    F = _torch().nn.functional
    x = _rand(4, 3, 5, seed=13)
    got, want = _grads(lambda x: F.layer_norm(x, (5,)) * x, x)
    _close(got[0], want[0], "layer_norm backward", atol=1e-4)
    got, want = _grads(lambda x: F.batch_norm(x, None, None, training=True) * x, x)
    _close(got[0], want[0], "batch_norm backward", atol=1e-4)
    got, want = _grads(lambda x: F.group_norm(x, 3) * x, x)
    _close(got[0], want[0], "group_norm backward", atol=1e-4)
    return "layer_norm, batch_norm, group_norm"


@check("nn: embedding and losses")
def _losses():
    torch = _torch()
    F = torch.nn.functional
    w, idx, target = _rand(10, 4, seed=14), torch.tensor([[1, 9], [0, 3]]), torch.tensor([1, 0, 3])
    _compare("embedding", lambda w, i: F.embedding(i, w), w, idx)
    _compare("cross_entropy", lambda x, t: F.cross_entropy(x, t), _rand(3, 5, seed=15), target)
    _compare("mse_loss", lambda x, y: F.mse_loss(x, y), _rand(3, 5, seed=16), _rand(3, 5, seed=17))
    return "embedding, cross_entropy, mse_loss"


def _mlp_on(dev, seed, adamw_steps):
    """A seeded MLP's cross-entropy on `dev`: the parameters' gradients of one backward (adamw_steps=0), or
    the parameters after that many AdamW steps."""
    torch = _torch()
    torch.manual_seed(seed)
    model = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.Tanh(), torch.nn.Linear(16, 3)).to(dev)
    x, t = _rand(8, 6, seed=seed + 18).to(dev), torch.tensor([0, 1, 2, 0, 1, 2, 2, 1]).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    for _ in range(max(adamw_steps, 1)):
        opt.zero_grad()
        torch.nn.functional.cross_entropy(model(x), t).backward()
        if adamw_steps:
            opt.step()
    return [p.detach() if adamw_steps else p.grad for p in model.parameters()]


def _mlp_matches(seed, adamw_steps, what):
    got, want = _mlp_on("npu", seed, adamw_steps), _mlp_on("cpu", seed, adamw_steps)
    for k, (g, w) in enumerate(zip(got, want)):
        _close(g, w, f"{what} of parameter {k}", atol=1e-4)
    return len(want)


@check("autograd: MLP backward")
def _mlp_backward():
    return f"{_mlp_matches(0, 0, 'gradient')} parameter gradients match the cpu"


@check("training: AdamW step")
def _adamw():
    _mlp_matches(1, 2, "value after 2 AdamW steps")
    return "2 AdamW steps of an MLP match the cpu"


class _ThreadGroup:
    """The root-info exchange HcclEngine needs (rank, size, bcast), between threads of this process."""

    def __init__(self, rank, size, shared, barrier):
        self.rank, self.size, self.shared, self.barrier = rank, size, shared, barrier

    def Get_rank(self):  # mpi4py's names
        return self.rank

    def Get_size(self):
        return self.size

    def bcast(self, obj, root=0):
        if self.rank == root:
            self.shared["value"] = obj
        self.barrier.wait()
        value = self.shared["value"]
        self.barrier.wait()
        return value


@check("hccl: all_reduce on two devices")
def _hccl():
    torch = _torch()
    from .hccl import HcclEngine

    if torch.npu.device_count() < 2:
        raise Skip(f"needs two devices, {torch.npu.device_count()} present")
    for i in range(2):
        torch.zeros(1, device=f"npu:{i}")  # each device's runtime up before the threads
    shared, barrier, results = {}, threading.Barrier(2, timeout=60), {}

    def rank(r):
        try:
            torch.npu.set_device(r)
            engine = HcclEngine(_ThreadGroup(r, 2, shared, barrier), timeout=60)
            try:
                t = torch.ones(4, device=f"npu:{r}") * (r + 1)
                engine.all_reduce(t, "sum").wait()
                results[r] = t.cpu().numpy()
            finally:
                engine.destroy()
        except Exception as exc:
            results[r] = exc
            barrier.abort()

    threads = [threading.Thread(target=rank, args=(r,), daemon=True) for r in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(120)
    for r in range(2):
        got = results.get(r, TimeoutError(f"rank {r} did not finish"))
        if isinstance(got, Exception):
            raise got
        if not np.array_equal(got, np.full(4, 3.0, np.float32)):
            raise AssertionError(f"rank {r}: all_reduce gave {got}")
    return "2 ranks (threads), sum all_reduce"


# -- running ------------------------------------------------------------------------------------------------


def _resync():
    """After an item: every device synchronized (a sticky error is reported once and cleared), cache emptied."""
    torch = _torch()
    notes = []
    for i in range(torch.npu.device_count()):
        try:
            torch.npu.synchronize(i)
        except Exception as exc:
            notes.append(f"npu:{i} after the check: {type(exc).__name__}: {exc}")
    try:
        torch.npu.set_device(0)
        torch.npu.empty_cache()
    except Exception as exc:
        notes.append(f"empty_cache: {type(exc).__name__}: {exc}")
    return notes


def _chip_lacks(exc):
    from .chip_coverage import LACKS_PATTERN

    return isinstance(exc, (NotImplementedError, TypeError)) and re.search(LACKS_PATTERN, str(exc)) is not None


def run_one(name, fn):
    start = time.perf_counter()
    try:
        status, detail = PASS, fn()
    except Skip as s:
        status, detail = SKIP, str(s)
    except Exception as exc:
        text = f"{type(exc).__name__}: {exc}"
        status, detail = (SKIP, f"the chip lacks it (expected): {text}") if _chip_lacks(exc) else (FAIL, text)
    notes = _resync()
    if notes and status != FAIL:
        status, detail = FAIL, "; ".join(notes)
    elif notes:
        detail += "; " + "; ".join(notes)
    return {"name": name, "status": status, "detail": detail, "seconds": round(time.perf_counter() - start, 3)}


def run(checks=None):
    """The environment and every item's result, as a dict (what --json writes)."""
    import mindtorch

    start = time.perf_counter()
    env = environment()
    if not mindtorch.npu.is_available():
        items = [{"name": "npu available", "status": FAIL, "detail": env.get("status", "no device"), "seconds": 0}]
    else:
        items = [run_one(name, fn) for name, fn in (CHECKS if checks is None else checks)]
    counts = {s: sum(1 for i in items if i["status"] == s) for s in (PASS, FAIL, SKIP)}
    summary = (
        f"selftest on {env.get('soc', 'no npu')}: {counts[PASS]} passed, {counts[FAIL]} failed, "
        f"{counts[SKIP]} skipped of {len(items)}; {time.perf_counter() - start:.1f}s"
    )
    return {"environment": env, "checks": items, "summary": summary, "ok": counts[FAIL] == 0}


def text(report):
    lines = ["mindtorch-npu selftest", "environment:"]
    lines += [f"  {k}: {v}" for k, v in report["environment"].items()]
    lines.append("checks:")
    for item in report["checks"]:
        lines.append(f"  {item['status']}  {item['name']:<32} {item['detail']}".rstrip())
    lines.append(report["summary"])
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m mindtorch_npu.selftest", description=__doc__.split("\n")[0])
    p.add_argument("--json", metavar="PATH", help="also write the report as JSON ('-': JSON on stdout instead)")
    args = p.parse_args(argv)
    report = run()
    if args.json == "-":
        print(json.dumps(report, indent=1, default=str))
    else:
        print(text(report))
        if args.json:
            Path(args.json).write_text(json.dumps(report, indent=1, default=str))
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
