"""The compiled kernels' own thread pool (mindtorch_cpu/native/pool.c): a kernel's result does not
depend on how many threads ran it or on who ran which chunk, callers on several threads at once each
get their own result, and a forked child starts its own workers."""

import os
import signal
import threading

import numpy as np
import pytest
from mindtorch_cpu import native

pytestmark = pytest.mark.skipif(
    native.LIB is None and os.environ.get("MINDTORCH_CPU_REQUIRE_NATIVE") != "1",
    reason="the compiled kernels were not built (no C compiler at install)",
)

RNG = np.random.default_rng(3)
X = RNG.standard_normal((257, 515)).astype(np.float32)  # rows and columns that do not split evenly
Y = RNG.standard_normal(X.shape).astype(np.float32)
W = RNG.standard_normal(X.shape[1]).astype(np.float32)


def _norm_backward(threads):
    d = X.shape[1]
    mean, rstd = np.empty(X.shape[0], np.float32), np.empty(X.shape[0], np.float32)
    native.norm(np.empty_like(X), X, W, W, mean, rstd, 1e-5, True, threads=threads)
    dx, dw, db = np.empty_like(X), np.zeros(d, np.float32), np.zeros(d, np.float32)
    native.norm_backward(dx, Y, X, mean, rstd, W, dw, db, True, threads=threads)
    return dx, dw, db


def _attn(fn, threads, lse=None):
    s = X.copy()
    out = np.empty(X.shape[0], np.float32) if lse is None else lse
    fn(s, W[:5].reshape(5, 1) * W[None, :], out, 0.125, threads)  # a 5-row bias repeated over the rows
    return (s, out)


def _one(fn):
    out = np.empty_like(X)
    fn(out)
    return (out,)


# every kernel that takes a thread count: name -> threads -> its outputs
KERNELS = {
    "exp": lambda k: _one(lambda o: native.exp(o, X, k)),
    "relu": lambda k: _one(lambda o: native.relu(o, X, k)),
    "threshold_backward": lambda k: _one(lambda o: native.threshold_backward(o, Y, X, 0.25, k)),
    "gelu": lambda k: _one(lambda o: native.gelu(o, X, False, k)),
    "gelu_tanh_backward": lambda k: _one(lambda o: native.gelu_backward(o, Y, X, True, k)),
    "add": lambda k: _one(lambda o: native.binary(o, X, Y, native.BINARY_OPS["add"], k)),
    "number_minus": lambda k: _one(lambda o: native.binary(o, 1.5, Y, native.BINARY_OPS["sub"], k)),
    "divide_by_number": lambda k: _one(lambda o: native.binary(o, X, np.float32(7.0), native.BINARY_OPS["div"], k)),
    "softmax": lambda k: _one(lambda o: native.softmax(o, X, threads=k)),
    "log_softmax_backward": lambda k: _one(lambda o: native.softmax_backward(o, Y, X, log=True, threads=k)),
    "layer_norm_backward": _norm_backward,
    "attn_softmax": lambda k: _attn(native.attn_softmax, k),
    "attn_probs": lambda k: _attn(native.attn_probs, k, lse=np.linspace(-1, 3, X.shape[0], dtype=np.float32)),
    "sum_rows": lambda k: (lambda o: (native.sum_rows(o, X, k), o)[1:])(np.empty(X.shape[0], np.float32)),
}


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_result_is_the_same_on_any_number_of_threads(name):
    # rows and elements are independent, so every thread count gives the bits of one thread; only the
    # layer norm's weight and bias sums are added per chunk, in chunk order
    one = KERNELS[name](1)
    for threads in (2, 3, 7, 64):
        for _ in range(3):
            got = KERNELS[name](threads)
            for a, b in zip(got, one):
                if name == "layer_norm_backward" and a.ndim == 1:
                    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-4)
                else:
                    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("period", [1, 3, 255])
@pytest.mark.parametrize("center", [True, False])
def test_norm_backward_reads_a_repeated_gradient_as_its_rows_repeated(period, center):
    # g of `period` rows stands for those rows repeated over x's 255 rows: the bits of the dense copy
    x = np.ascontiguousarray(X[:255])
    rows, d = x.shape
    mean, rstd = np.empty(rows, np.float32), np.empty(rows, np.float32)
    native.norm(np.empty_like(x), x, W, None, mean, rstd, 1e-5, center, threads=1)
    g = np.ascontiguousarray(Y[:period])
    full = np.ascontiguousarray(np.tile(g, (rows // period, 1)))
    for threads in (1, 2, 7):
        got, want = [], []
        for gg, out in ((g, got), (full, want)):
            dx, dw, db = np.empty_like(x), np.zeros(d, np.float32), np.zeros(d, np.float32)
            native.norm_backward(dx, gg, x, mean if center else None, rstd, W, dw, db, center, threads=threads)
            out.extend((dx, dw, db))
        for a, b in zip(got, want):
            np.testing.assert_array_equal(a, b)


def test_binary_kernel_is_numpys_float32_arithmetic():
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, 3e38, -3e38], np.float32)
    a = np.concatenate([specials.repeat(len(specials)), X.ravel()[:1000]])
    b = np.concatenate([np.tile(specials, len(specials)), Y.ravel()[:1000]])
    for name, uf in (("add", np.add), ("sub", np.subtract), ("mul", np.multiply), ("div", np.divide)):
        for x, y in ((a, b), (a, 0.1), (0.1, b), (a, np.float32(0.0)), (np.float32(-0.0), b)):
            out = np.empty(a.shape, np.float32)
            native.binary(out, x, y, native.BINARY_OPS[name], 2)
            with np.errstate(all="ignore"):
                want = uf(x, y, dtype=np.float32)
            np.testing.assert_array_equal(out, want, err_msg=f"{name}({type(x)}, {type(y)})")


def test_callers_on_several_threads_each_get_their_own_result():
    # one region runs at a time: a caller that finds the pool busy runs its chunks itself
    want = {k: np.exp(X * np.float32(k)) for k in range(6)}
    errors = []

    def call(k):
        x = X * np.float32(k)
        for _ in range(40):
            out = np.empty_like(x)
            native.exp(out, x, 2)
            if not np.allclose(out, want[k], rtol=2e-7, atol=0, equal_nan=True):
                errors.append(k)

    workers = [threading.Thread(target=call, args=(k,)) for k in range(6)]
    for t in workers:
        t.start()
    for t in workers:
        t.join()
    assert errors == []


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")
def test_a_forked_child_runs_parallel_kernels():
    out = np.empty_like(X)
    native.binary(out, X, Y, native.BINARY_OPS["mul"], 2)  # the parent's workers exist now
    pid = os.fork()
    if pid == 0:  # the child: a hang (a worker it does not have) is killed by the alarm
        signal.alarm(20)
        child = np.empty_like(X)
        native.binary(child, X, Y, native.BINARY_OPS["mul"], 2)
        os._exit(0 if np.array_equal(child, X * Y) else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
