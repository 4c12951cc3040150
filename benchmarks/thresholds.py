"""Measure where each cpu kernel family should change path, by element count.

    python benchmarks/thresholds.py [--family NAME] [--max-log2 N] [--repeat N]

Every family in mindtorch_cpu.sizes.THRESHOLDS is timed on each of its paths over element counts
8, 32, 128, ... : NumPy (one thread), the compiled kernel on one thread, and the compiled kernel
split across two threads on its own pool (matmul: BLAS on one and on two threads).
Each figure is the kernel itself (the backend's function for the op, called with a ready output
description). The one-thread paths are compared in process CPU time (min of repeats of an autoranged
loop); the split is compared in wall time (the point of threads) against the best one-thread path,
each as its fastest single call (the cost when the machine let it run: robust to other load).

A crossover is the smallest size from which the path wins at every larger size measured:
`native` where the compiled kernel becomes no slower than NumPy (0: at every size), `split` where
two threads become faster than one: measured in wall time (which needs an idle second core), and
modelled from the split's fixed CPU cost (see crossovers()). The script prints them beside the
table's current values; the table in mindtorch_cpu/sizes.py records what was measured.
"""

import argparse
import sys
import time

import mindtorch as mt
from mindtorch.ops.registry import OPS
from mindtorch_cpu import native, sizes
from mindtorch_cpu.parallel import parallel_for
from mindtorch_cpu.sizes import NEVER, Crossover


def _kernel(name):
    return OPS[name].kernels["cpu"]


def _rows(n):
    """A (rows, d) shape of n elements with rows of up to 256."""
    d = min(n, 256)
    return (n // d, d)


def softmax_case(n):
    x = mt.randn(*_rows(n))
    y = x.softmax(-1)
    k = _kernel("softmax")
    return lambda: k(y, x, -1)


def softmax_backward_case(n):
    x = mt.randn(*_rows(n))
    y, g = x.softmax(-1), mt.randn(*_rows(n))
    k = _kernel("_softmax_backward_data")
    return lambda: k(g, g, y, -1)


def layer_norm_case(n):
    shape = _rows(n)
    x, w, b = mt.randn(*shape), mt.randn(shape[1]), mt.randn(shape[1])
    outs = mt.native_layer_norm(x, shape[1:], w, b, 1e-5)
    k = _kernel("native_layer_norm")
    return lambda: k(outs, x, shape[1:], w, b, 1e-5)


def layer_norm_backward_case(n):
    shape = _rows(n)
    x, w, b, g = mt.randn(*shape), mt.randn(shape[1]), mt.randn(shape[1]), mt.randn(*shape)
    _, mean, rstd = mt.native_layer_norm(x, shape[1:], w, b, 1e-5)
    k = _kernel("native_layer_norm_backward")
    return lambda: k((x, w, b), g, x, shape[1:], mean, rstd, w, b)


def gelu_case(n):
    x = mt.randn(n)
    k = _kernel("gelu")
    return lambda: k(x, x, "none")


def gelu_backward_case(n):
    x, g = mt.randn(n), mt.randn(n)
    k = _kernel("gelu_backward")
    return lambda: k(x, g, x, "none")


def relu_case(n):
    x = mt.randn(n)
    k = _kernel("relu")
    return lambda: k(x, x)


def cross_entropy_backward_case(n):
    rows, d = _rows(n)
    x = mt.randn(rows, d)
    logp = x.log_softmax(1)
    tgt = mt.randint(0, d, (rows,))
    g, total = mt.tensor(1.0), mt.tensor(float(rows))
    k = _kernel("_cross_entropy_backward")
    return lambda: k(x, g, logp, tgt, None, 1, -100, total)


def elementwise_case(n):
    a, b = mt.randn(n), mt.randn(n)
    k = _kernel("mul")
    return lambda: k(a, a, b)


def matmul_case(n):
    """A square matrix product of about n multiply-adds (the "split" path: OpenBLAS threads it)."""
    side = max(2, round(n ** (1 / 3)))
    a, b = mt.randn(side, side), mt.randn(side, side)
    y = a @ b
    k = _kernel("matmul")
    return lambda: k(y, a, b)


def conv2d_case(n):
    """A 3x3 convolution of 8 channels to 8 over 8x8 images (padding 1), forward and both gradients, of
    about n multiply-adds each (one image at least)."""
    image_macs = 8 * 8 * 9 * 8 * 8
    x, w = mt.randn(max(1, n // image_macs), 8, 8, 8), mt.randn(8, 8, 3, 3)
    y = mt.nn.functional.conv2d(x, w, padding=1)
    g = mt.randn(*y.shape)
    fwd, gi, gw = (_kernel(k) for k in ("_conv2d", "_conv2d_backward_input", "_conv2d_backward_weight"))
    geo = ((1, 1), (1, 1, 1, 1), (1, 1), 1)

    def run():
        fwd(y, x, w, None, *geo)
        gi(x, g, w, tuple(x.shape), *geo)
        gw(w, g, x, tuple(w.shape), *geo)

    return run


CASES = {
    "softmax": [softmax_case, softmax_backward_case],
    "layer_norm": [layer_norm_case],
    "layer_norm_backward": [layer_norm_backward_case],
    "gelu": [gelu_case, gelu_backward_case],
    "relu": [relu_case],
    "cross_entropy_backward": [cross_entropy_backward_case],
    "elementwise": [elementwise_case],
    "matmul": [matmul_case],
    "conv2d": [conv2d_case],
}
NO_COMPILED = ("matmul",)  # families with only BLAS's kernel

PATHS = {  # path -> (thresholds forcing it, threads)
    "numpy": (Crossover(NEVER, NEVER), 1),
    "compiled": (Crossover(0, NEVER), 1),
    "split": (Crossover(0, 2), 2),
}
NUMPY_SPLIT = (Crossover(NEVER, 2), 2)  # the split path of a family without a compiled kernel


def best_time(fn, clock, repeat, min_time):
    number = 1
    while True:
        t0 = clock()
        for _ in range(number):
            fn()
        if clock() - t0 >= min_time:
            break
        number *= 4
    best = None
    for _ in range(repeat):
        t0 = clock()
        for _ in range(number):
            fn()
        t = (clock() - t0) / number
        best = t if best is None else min(best, t)
    return best


def min_call(fn, budget):
    """The fastest single call in `budget` seconds of calls, wall clock: the cost when nothing else
    held the cores (on a loaded machine a loop's average mostly measures the other processes)."""
    clock = time.perf_counter
    best = None
    end = clock() + budget
    calls = 0
    while calls < 5 or clock() < end:
        t0 = clock()
        fn()
        t = clock() - t0
        best = t if best is None else min(best, t)
        calls += 1
    return best


def measure(family, make, size, repeat, min_time):
    """{path: (cpu seconds per call, fastest call's wall seconds)} for one workload at one size."""
    compiled = family not in NO_COMPILED and native.LIB is not None
    saved = sizes.THRESHOLDS[family]
    out = {}
    try:
        for path, (cross, threads) in PATHS.items():
            if path != "numpy" and not compiled:
                if path == "compiled":
                    continue
                cross, threads = NUMPY_SPLIT
            sizes.THRESHOLDS[family] = cross
            mt.set_num_threads(threads)
            fn = make(size)
            fn()
            cpu = best_time(fn, time.process_time, repeat, min_time)
            wall = min_call(fn, repeat * min_time)
            out[path] = (cpu, wall)
    finally:
        sizes.THRESHOLDS[family] = saved
        mt.set_num_threads(1)
    return out


def first_win(sizes_, wins):
    """The smallest size from which `wins` holds at every larger size (NEVER if it never does)."""
    at = NEVER
    for s, w in zip(reversed(sizes_), reversed(wins)):
        if not w:
            break
        at = s
    return 0 if at == sizes_[0] else at


def pool_handoff(budget=1.0):
    """Fixed wall cost of splitting an op across two threads, as {"python": ..., "native": ...}: on the
    Python pool (NumPy passes), a two-block region of empty tasks against the same run inline; on the
    compiled kernels' own pool, an 8-element kernel call on two threads against one. Each is its
    fastest call (a worker's wake-up included)."""
    import numpy as np

    x = np.zeros(8, np.float32)
    y = np.empty_like(x)
    mt.set_num_threads(2)
    try:
        split = min_call(lambda: parallel_for(2, _noop, grain=1), budget)
        inline = min_call(lambda: _noop(0, 2), budget)
        two = min_call(lambda: native.relu(y, x, 2), budget) if native.LIB is not None else 0.0
        one = min_call(lambda: native.relu(y, x, 1), budget) if native.LIB is not None else 0.0
    finally:
        mt.set_num_threads(1)
    return {"python": max(split - inline, 0.0), "native": max(two - one, 0.0)}


def _noop(lo, hi):
    return None


def crossovers(table, handoff):
    """(native, split measured, split modelled) from {size: {path: (cpu, wall)}} and the handoff of the
    pool the family's split runs on.

    The measured split needs a free core for the second thread; on a loaded machine it never wins, so
    a model stands beside it: the split pays off once half the work (the one-thread CPU time less its
    value at the smallest size, the per-call cost that stays on the caller: argument checks, the
    result's wrapping, the compiled call itself) exceeds the pool's fixed handoff cost (pool_handoff)."""
    ns = sorted(table)
    native_at = NEVER
    if all("compiled" in table[s] for s in ns):
        native_at = first_win(ns, [table[s]["compiled"][0] <= table[s]["numpy"][0] for s in ns])
    one_cpu = [min(v[0] for k, v in table[s].items() if k != "split") for s in ns]
    one_wall = [min(v[1] for k, v in table[s].items() if k != "split") for s in ns]
    measured = first_win(ns, [table[s]["split"][1] < w for s, w in zip(ns, one_wall)])
    modelled = first_win(ns, [(c - one_cpu[0]) / 2 > handoff for c in one_cpu])
    return native_at, measured, modelled


def fmt_size(v):
    return "never" if v >= NEVER else str(v)


def measure_family(fam, sizes_, args):
    """{size: {path: (cpu, wall)}}, summed over the family's workloads."""
    table = {}
    for s in sizes_:
        row = {}
        for make in CASES[fam]:
            for path, (cpu, wall) in measure(fam, make, s, args.repeat, args.min_time).items():
                c0, w0 = row.get(path, (0.0, 0.0))
                row[path] = (c0 + cpu, w0 + wall)
        table[s] = row
    return table


def print_table(fam, table):
    print(f"{fam}  ({', '.join(m.__name__[:-5] for m in CASES[fam])})")
    print(f"{'elements':>10s} {'numpy cpu':>10s} {'compiled cpu':>13s} {'split wall':>11s} {'1-thread wall':>14s}")
    for s in sorted(table):
        r = table[s]
        one_wall = min(v[1] for k, v in r.items() if k != "split")
        comp = f"{r['compiled'][0] * 1e6:13.2f}" if "compiled" in r else f"{'-':>13s}"
        print(f"{s:10d} {r['numpy'][0] * 1e6:10.2f} {comp} {r['split'][1] * 1e6:11.2f} {one_wall * 1e6:14.2f}")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--family", action="append", help="only this family (repeatable)")
    p.add_argument("--max-log2", type=int, default=21, help="largest size measured, as a power of two")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--min-time", type=float, default=0.02, help="seconds per timing loop")
    args = p.parse_args(argv)
    families = args.family or list(CASES)
    sizes_ = [1 << k for k in range(3, args.max_log2 + 1, 2)]
    print(f"compiled kernels: {native.VARIANT or 'not built'}; sizes {sizes_[0]}..{sizes_[-1]} elements")
    print("times in us per call (wall: the fastest call; a crossover is refined by the power of two below it)\n")
    handoffs = pool_handoff()
    print(
        f"handoff (two threads, fastest call): Python pool {handoffs['python'] * 1e6:.1f} us, "
        f"compiled kernels' pool {handoffs['native'] * 1e6:.2f} us\n"
    )
    result = {}
    for fam in families:
        compiled = fam not in NO_COMPILED and native.LIB is not None
        handoff = handoffs["native" if compiled else "python"]
        table = measure_family(fam, sizes_, args)
        between = {c // 2 for c in crossovers(table, handoff) if sizes_[0] < c < NEVER} - set(table)
        table.update(measure_family(fam, sorted(between), args))
        print_table(fam, table)
        nat, spl, model = result[fam] = crossovers(table, handoff)
        cur = sizes.THRESHOLDS[fam]
        print(
            f"crossover: native {fmt_size(nat)}, split {fmt_size(spl)} measured, {fmt_size(model)} modelled"
            f"   (table: native {fmt_size(cur.native)}, split {fmt_size(cur.split)})\n"
        )
    print("family                   native   split measured   split modelled")
    for fam, (nat, spl, model) in result.items():
        print(f"{fam:24s} {fmt_size(nat):>8s} {fmt_size(spl):>16s} {fmt_size(model):>16s}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
