"""Every cpu kernel family on both sides of each of its size thresholds (mindtorch_cpu.sizes), against
PyTorch: the path below a threshold (NumPy, or one call on the caller's thread) and the one at it (the
compiled kernel, or the split across the thread pool) give the same dtypes, shapes, values, NaNs and
infinities, and the path does change there. The sizes come from the table, so a retuned threshold is
tested where it now is."""

import sys

from helpers import torch_or_skip

torch = torch_or_skip()

import mindtorch  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from helpers import assert_same  # noqa: E402
from mindtorch_cpu import blas, native, parallel  # noqa: E402
from mindtorch_cpu.sizes import NEVER, THRESHOLDS  # noqa: E402

ROW = 64  # row length of the row-wise families


SPECIALS = (np.nan, np.inf, -np.inf)


LIBS = (mindtorch, torch)


def _fwd_bwd(fn, *shapes, grad=True, specials=SPECIALS):
    """fn(lib, *leaves) on each of LIBS from the same float32 data (`specials` at the start of the
    first leaf's first row); the outputs, then each leaf's gradient of the output times a fixed random
    cotangent."""
    rng = np.random.default_rng(0)
    data = [(rng.standard_normal(s) * 3).astype(np.float32) for s in shapes]
    data[0].reshape(-1)[1 : 1 + len(specials)] = specials
    res = []
    for lib in LIBS:
        leaves = [lib.tensor(d).requires_grad_(grad) for d in data]
        out = fn(lib, *leaves)
        grads = ()
        if grad:
            g = lib.tensor(np.random.default_rng(1).standard_normal(tuple(out.shape)).astype(np.float32))
            grads = lib.autograd.grad(out, leaves, g)
        res.append((out, grads))
    return res


def _rows(n):
    return (n // ROW, ROW)


def softmax(n):
    return [
        _fwd_bwd(lambda lib, x: lib.nn.functional.softmax(x, -1), _rows(n)),
        _fwd_bwd(lambda lib, x: lib.nn.functional.log_softmax(x, -1), _rows(n)),
    ]


def layer_norm(n, grad=True):
    return [
        _fwd_bwd(
            lambda lib, x, w, b: lib.nn.functional.layer_norm(x, (ROW,), w, b), _rows(n), (ROW,), (ROW,), grad=grad
        )
    ]


def gelu(n):
    # no +inf: PyTorch's vectorised exact GELU gives NaN there, mindtorch inf (tests/cpu pins it)
    return [
        _fwd_bwd(lambda lib, x: lib.nn.functional.gelu(x, approximate=a), (n,), specials=(np.nan, -np.inf, -0.0))
        for a in ("none", "tanh")
    ]


def relu(n):
    return [_fwd_bwd(lambda lib, x: lib.nn.functional.relu(x), (n,))]


def cross_entropy(n):
    rows = n // ROW
    target = np.random.default_rng(2).integers(0, ROW, rows)

    def loss(lib, x):
        return lib.nn.functional.cross_entropy(x, lib.tensor(target), reduction="none")

    return [_fwd_bwd(loss, _rows(n))]


def elementwise(n):
    return [
        _fwd_bwd(lambda lib, a, b: a * b, (n,), (n,)),
        _fwd_bwd(lambda lib, a, b: a + b, (n,), (n,)),
    ]


MATMUL_INNER = 64  # a matmul workload's (rows, 64) @ (64, 64): 4096 multiply-adds a row


def matmul(n):
    rows = n // MATMUL_INNER**2
    return [_fwd_bwd(lambda lib, a, b: a @ b, (rows, MATMUL_INNER), (MATMUL_INNER, MATMUL_INNER))]


CONV_IMAGE = (8, 8, 8)  # channels, height, width of one image of a conv2d workload
CONV_MACS = CONV_IMAGE[0] ** 2 * 9 * CONV_IMAGE[1] * CONV_IMAGE[2]  # one image's 3x3 8->8 multiply-adds


def conv2d(n):
    # the weight scaled by 1/8 (exactly): sums of 72 products of size 9 cancel to float32 errors of 1e-4
    shapes = ((n // CONV_MACS, *CONV_IMAGE), (CONV_IMAGE[0], CONV_IMAGE[0], 3, 3), (CONV_IMAGE[0],))
    return [_fwd_bwd(lambda lib, x, w, b: lib.nn.functional.conv2d(x, w * 0.125, b, padding=1), *shapes)]


FAMILIES = {  # family -> (workloads, element granularity); each workload runs only that family's kernels
    "softmax": (softmax, ROW),
    "layer_norm": (lambda n: layer_norm(n, grad=False), ROW),
    "layer_norm_backward": (layer_norm, ROW),
    "gelu": (gelu, 1),
    "relu": (relu, 1),
    "cross_entropy_backward": (cross_entropy, ROW),
    "elementwise": (elementwise, 1),
    "matmul": (matmul, MATMUL_INNER**2),  # sizes in multiply-adds
    "conv2d": (conv2d, CONV_MACS),  # multiply-adds
}


def _cases():
    """(family, kind, size): one step below and at each finite, positive threshold."""
    out = []
    for fam, cross in THRESHOLDS.items():
        step = FAMILIES[fam][1]
        for kind, at in cross._asdict().items():
            if 0 < at < NEVER:
                at = -(-at // step) * step  # the first size of whole rows at or above the threshold
                out += [(fam, kind, at - step), (fam, kind, at)]
    return out


def test_every_family_is_covered():
    assert set(THRESHOLDS) == set(FAMILIES)


class _Counting:
    """The compiled kernels (through the entry in use), counting their calls."""

    def __init__(self, lib, seen):
        self._lib, self._seen = lib, seen

    def __getattr__(self, name):
        fn = getattr(self._lib, name)

        def counted(*args):
            self._seen["native"] += 1
            if name in native.THREADED and args[-1] > 1:  # shared out on the library's own pool
                self._seen["split"] += 1
            return fn(*args)

        return counted


@pytest.fixture
def paths(monkeypatch):
    """Which paths the kernels took: calls into the compiled library, regions split across threads
    (the Python pool's, the compiled kernels' own, or OpenBLAS's)."""
    seen = {"native": 0, "split": 0}
    real = parallel.blocks

    def blocks(*args, **kw):
        parts = real(*args, **kw)
        seen["split"] += len(parts) > 1
        return parts

    monkeypatch.setattr(parallel, "blocks", blocks)
    wide = blas.THREADS.wide

    def wide_call(*args):  # a call OpenBLAS runs on the pool's threads
        seen["split"] += 1
        return wide(*args)

    monkeypatch.setattr(blas.THREADS, "wide", wide_call)
    if native.LIB is not None:
        monkeypatch.setattr(native, "_K", _Counting(native._K, seen))
    return seen


@pytest.mark.parametrize("family, kind, size", _cases(), ids=lambda v: str(v))
def test_each_threshold_switches_the_path(family, kind, size, two_threads, paths, monkeypatch):
    if kind == "native" and native.LIB is None:
        pytest.skip("the compiled kernels were not built")
    monkeypatch.setattr(sys.modules[__name__], "LIBS", (mindtorch,))
    if kind == "split":  # a workload's other kernels (cross-entropy's log_softmax forward) stay on one thread
        for other, cross in THRESHOLDS.items():
            if other != family:
                monkeypatch.setitem(THRESHOLDS, other, cross._replace(split=NEVER))
    FAMILIES[family][0](size)
    at = getattr(THRESHOLDS[family], kind)
    assert (paths[kind] > 0) == (size >= at), (kind, paths)


@pytest.mark.parametrize("family, kind, size", _cases(), ids=lambda v: str(v))
def test_both_sides_of_each_threshold(family, kind, size, two_threads):
    for (om, gm), (ot, gt) in FAMILIES[family][0](size):
        assert_same(om, ot, rtol=1e-5, atol=1e-5)
        assert len(gm) == len(gt)
        for a, b in zip(gm, gt):
            assert_same(a, b, rtol=1e-4, atol=1e-4)


EMPTY_CASES = {
    "softmax": lambda L, x: L.nn.functional.softmax(x, -1),
    "log_softmax": lambda L, x: L.nn.functional.log_softmax(x, -1),
    "layer_norm": lambda L, x: L.nn.functional.layer_norm(x, x.shape[-1:]),
    "rms_norm": lambda L, x: L.nn.functional.rms_norm(x, x.shape[-1:]),
    "gelu": lambda L, x: L.nn.functional.gelu(x),
}


@pytest.mark.parametrize("shape", [(2, 0), (0, 4), (0,)])
@pytest.mark.parametrize("name", list(EMPTY_CASES))
def test_empty_inputs_take_no_compiled_path(name, shape):
    """Zero elements are below every threshold: a row kernel must not be called on rows of none."""
    got, want = [], []
    for lib, out in ((mindtorch, got), (torch, want)):
        x = lib.ones(shape, requires_grad=True)
        y = EMPTY_CASES[name](lib, x)
        y.sum().backward()
        out += [tuple(y.shape), tuple(x.grad.shape)]
    assert got == want
