"""blas.serial: OpenBLAS kept to its caller's thread inside a region, its thread count restored after."""

import threading

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
