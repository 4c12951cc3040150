"""Where each kernel family changes path, by the op's element count.

Three paths run a float32 op: NumPy's ufuncs (several passes, ~1 us of fixed cost each), the
compiled kernel (one pass, a few hundred ns of call), and the compiled kernel split across threads.
The thresholds below are measured, not guessed: benchmarks/thresholds.py times every family's
kernels on each path over element counts from 8 to 2M and prints the crossovers. The `split` values
were measured when the compiled kernels were split on the Python thread pool (a handoff of ~9 us at
best); their own pool (native/pool.c) hands a chunk to an awake worker in well under 1 us, so they
are conservative for it.

`native`: at this many elements and above, the compiled kernel runs (0: it is always the cheaper
one); below, NumPy. `split`: at this many elements and above, the op is shared out across the
thread pool (when it has more than one thread); below, it runs in one call on the caller's thread.
Families without a compiled kernel only have `split`.
"""

from typing import NamedTuple


class Crossover(NamedTuple):
    native: int
    split: int


NEVER = 1 << 62  # a threshold no op reaches

# Measured with benchmarks/thresholds.py on a 2-core x86-64-v4 machine (AVX-512 kernels), NumPy 2.4: the
# one-thread paths in process CPU time, min of 5 loops; `native` is where the compiled kernel's CPU time
# first stays at or below NumPy's. The softmax, layer norm and gelu rows were re-measured with
#     python benchmarks/thresholds.py --family softmax --family layer_norm --family layer_norm_backward \
#         --family gelu --family cross_entropy_backward
# four times on that machine while it was shared (load 6-12), so two threads never won in wall time below
# 1M elements; `split` is the script's model: the first size at which half the work (the one-thread CPU
# time above its value at 8 elements, the per-call cost that stays on the caller) exceeds the pool's
# handoff (8.8-9.3 us, the fastest two-thread call of an empty region). The values are the last run's;
# over the four the modelled split moved within a factor of 2-4 (softmax 32K in every run, layer norm
# 64K-128K, its backward 32K-128K, gelu 16K-32K, cross-entropy backward 64K-128K), and the compiled
# kernel won from 8 elements up in every run but one (cross-entropy backward, a tie within 0.4 us at
# 512-4096). The per-call CPU cost at 8-128 elements, in us: softmax+backward 8 compiled / 24-34 NumPy,
# layer norm 8-9 / 24-33, its backward 11-16 / 41-53, gelu+backward 11-14 / 48-73, cross-entropy
# backward 12-21 / 20-26. relu and elementwise are the earlier AVX2 measurement: relu 4.3 / 3.3, mul 2.7
# (NumPy).
THRESHOLDS = {
    "softmax": Crossover(native=0, split=1 << 15),  # softmax / log_softmax, forward and backward
    "layer_norm": Crossover(native=0, split=1 << 17),  # layer norm and RMS norm, forward
    "layer_norm_backward": Crossover(native=0, split=1 << 16),
    "gelu": Crossover(native=0, split=1 << 14),  # forward and backward, exact and tanh
    "relu": Crossover(native=1 << 12, split=1 << 17),  # relu and threshold_backward
    "cross_entropy_backward": Crossover(native=0, split=1 << 16),
    # float32 add / sub / mul / div (compiled) and the other NumPy ufuncs over same-shaped operands; the
    # compiled kernel wins only by its threads, so it starts where the split does
    "elementwise": Crossover(native=1 << 16, split=1 << 16),
    # multiply-adds of a matrix product from which OpenBLAS runs it on the pool's threads (blas.matmul).
    # `python benchmarks/thresholds.py --family matmul --max-log2 25 --repeat 3` on that machine (load 5),
    # square products, fastest call one thread / two: 1M 26 / 25 us, 2M 46 / 33 us, 32M 677 / 507 us (at
    # 8M-16M the second core was taken: 44 ms). Two threads first win at 2M; the table takes twice that,
    # as each threaded call leaves OpenBLAS's worker spinning beside the pool for a tenth of a second.
    "matmul": Crossover(native=NEVER, split=1 << 22),
    # float32 conv2d, groups of 1 (native/conv.c), by multiply-adds of one op. `python benchmarks/thresholds.py
    # --family conv2d --max-log2 23` on that machine (load 3.6), a 3x3 8->8 convolution of 8x8 images,
    # forward and both gradients: the compiled kernels beat NumPy's unfold + BLAS at every size (45 against
    # 78 us of CPU time for one image, 1.1 against 3.8 ms at 8M); two threads tied with one at 128K (53 /
    # 52 us) and won at 512K (86 / 99 us): the split is the power of two between.
    "conv2d": Crossover(native=0, split=1 << 18),
}
