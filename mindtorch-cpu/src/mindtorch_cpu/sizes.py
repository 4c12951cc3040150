"""Where each kernel family changes path, by the op's element count.

Three paths run a float32 op: NumPy's ufuncs (several passes, ~1 us per call of fixed cost), the
compiled kernel (one pass, ~2 us of ctypes call), and the compiled kernel split across the thread
pool (a task handoff costs ~12 us). The thresholds below are measured, not guessed:
benchmarks/thresholds.py times every family on each path over element counts from 8 to 4M
(through the public op, so the op's own cost is common to all paths) and prints the crossovers.

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

# Measured with `benchmarks/thresholds.py` (torch-free; process CPU time for the one-thread paths,
# wall time for the split, min of 5 repeats; 2-core x86-64-v3 machine).
THRESHOLDS = {
    "softmax": Crossover(native=0, split=1 << 17),  # softmax / log_softmax, forward and backward
    "layer_norm": Crossover(native=0, split=1 << 17),  # layer norm and RMS norm, forward
    "layer_norm_backward": Crossover(native=0, split=1 << 17),
    "gelu": Crossover(native=0, split=1 << 17),  # forward and backward, exact and tanh
    "relu": Crossover(native=1 << 15, split=1 << 17),  # relu and threshold_backward
    "cross_entropy_backward": Crossover(native=0, split=1 << 17),
    "elementwise": Crossover(native=NEVER, split=1 << 17),  # NumPy ufuncs (add, mul, ...)
}


def crossover(family):
    return THRESHOLDS[family]
