"""blas.serial: OpenBLAS kept to its caller's thread inside a region, its thread count restored after."""

import threading

import numpy as np
import pytest
from mindtorch_cpu import blas


@pytest.fixture
def controls():
    with blas.serial:  # looks the controls up
        pass
    if not blas.serial.controls:
        pytest.skip("NumPy's BLAS is not an OpenBLAS this process can reach")
    setter, getter = blas.serial.controls
    before = getter()
    setter(3)
    yield setter, getter
    setter(before)


def test_one_thread_inside_restored_after(controls):
    _, getter = controls
    with blas.serial:
        assert getter() == 1
        with blas.serial:  # nested regions keep the setting
            assert getter() == 1
        assert getter() == 1
    assert getter() == 3


def test_restored_after_an_error(controls):
    _, getter = controls
    with pytest.raises(ZeroDivisionError), blas.serial:
        1 / 0  # noqa: B018
    assert getter() == 3


def test_overlapping_regions_of_two_threads(controls):
    _, getter = controls
    entered, release = threading.Event(), threading.Event()

    def other():
        with blas.serial:
            entered.set()
            release.wait(10)

    t = threading.Thread(target=other)
    t.start()
    entered.wait(10)
    with blas.serial:
        assert getter() == 1
    assert getter() == 1  # the other thread's region is still open
    release.set()
    t.join()
    assert getter() == 3


def test_a_wide_call_gets_the_pools_threads_then_one(controls, two_threads, monkeypatch):
    _, getter = controls
    monkeypatch.setattr(blas.THREADS, "idle", False)  # as in a new process: the count is still 3
    assert blas.THREADS.wide(getter, (), {}) == 2
    assert getter() == 1  # held to one thread outside regions once the module made a call
    with blas.serial:  # a serial region keeps its calls on one thread
        assert blas.THREADS.wide(getter, (), {}) == 1
    assert getter() == 1


def test_a_wide_call_from_the_pool_stays_on_its_thread(controls, two_threads, monkeypatch):
    from mindtorch_cpu.parallel import parallel_for

    _, getter = controls
    monkeypatch.setattr(blas.THREADS, "idle", True)  # leaves the fixture's count alone
    outside = getter()  # 3 (the fixture's), not the pool's 2
    seen = parallel_for(2, lambda lo, hi: blas.THREADS.wide(getter, (), {}), grain=1)
    assert seen == [outside] * len(seen)


@pytest.mark.parametrize("shape", [(4, 4, 4), (64, 32, 16), (3, 64, 64, 64), (300, 300, 1)])
def test_matmul_goes_wide_by_multiply_adds(controls, two_threads, monkeypatch, shape):
    from mindtorch_cpu import sizes

    *batch, m, k, n = (1, *shape) if len(shape) == 3 else shape
    a = np.random.default_rng(0).standard_normal((*batch, m, k)).astype(np.float32)
    b = np.random.default_rng(1).standard_normal((k, n)).astype(np.float32)
    macs = a.size * n
    wide = []
    real = blas.THREADS.wide
    monkeypatch.setattr(blas.THREADS, "wide", lambda f, args, kw: wide.append(1) or real(f, args, kw))
    for split, expect in ((macs, True), (macs + 1, False)):
        monkeypatch.setitem(sizes.THRESHOLDS, "matmul", sizes.Crossover(sizes.NEVER, split))
        wide.clear()
        out = blas.matmul(a, b)
        np.testing.assert_allclose(out, np.matmul(a, b), rtol=1e-5, atol=1e-4)
        assert bool(wide) == (expect and macs >= blas.SERIAL_FROM)
