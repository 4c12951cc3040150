"""Where each kernel family changes path, by the op's element count.

Three paths run a float32 op: NumPy's ufuncs (several passes, ~1 us of fixed cost each), the
compiled kernel (one pass, ~1-2 us of ctypes call), and the compiled kernel split across the thread
pool (a task handoff costs ~9 us at best). The thresholds below are measured, not guessed:
benchmarks/thresholds.py times every family's kernels on each path over element counts from 8 to 2M
and prints the crossovers.

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

# Measured with benchmarks/thresholds.py on a 2-core x86-64-v3 machine (AVX2 kernels), NumPy 2.4: the
# one-thread paths in process CPU time, min of 5 loops; `native` is where the compiled kernel's CPU time
# first stays at or below NumPy's. That machine was shared (load 5-12), so two threads never won in wall
# time there; `split` is the script's model instead: the first size at which half the one-thread CPU
# time exceeds the pool's handoff (8.6 us, the fastest two-thread call of an empty region). At the
# smallest sizes (8-128 elements) the one-thread costs were, in us: softmax+backward 9 compiled / 23
# NumPy, layer norm 14 / 22, its backward 16 / 36, gelu+backward 12 / 46, relu 4.3 / 3.3, cross-entropy
# backward 12.4 / 13.0, mul 2.7 (NumPy).
THRESHOLDS = {
    "softmax": Crossover(native=0, split=1 << 14),  # softmax / log_softmax, forward and backward
    "layer_norm": Crossover(native=0, split=1 << 14),  # layer norm and RMS norm, forward
    "layer_norm_backward": Crossover(native=0, split=1 << 12),
    "gelu": Crossover(native=0, split=1 << 12),  # forward and backward, exact and tanh
    "relu": Crossover(native=1 << 12, split=1 << 17),  # relu and threshold_backward
    "cross_entropy_backward": Crossover(native=0, split=1 << 13),
    "elementwise": Crossover(native=NEVER, split=1 << 16),  # NumPy ufuncs over same-shaped operands
}
