"""The CPU allocator's free pool keeps only blocks it made, and hands one out only when nothing uses it."""

import mindtorch
import numpy as np
from mindtorch_cpu.allocator import ALLOCATOR, POOL_MIN, dense


def _cached(a):
    return any(b is a for b in ALLOCATOR._cached)


def test_only_blocks_the_pool_made_are_kept():
    # the pool tells its own blocks by identity (held weakly), never by an id a dead block left behind
    mine = ALLOCATOR.empty((POOL_MIN,), np.uint8)
    ALLOCATOR.release(mine)
    assert _cached(mine.base)
    other = np.full(POOL_MIN, 7, np.uint8)
    ALLOCATOR.release(other)
    assert not _cached(other)
    del mine
    assert np.all(other == 7)


def test_released_temporary_is_reused_only_after_its_last_view_dies():
    n = POOL_MIN // 4
    tmp = ALLOCATOR.empty((n,), np.float32)
    view = tmp[1:]
    ALLOCATOR.release(tmp)
    del tmp
    fresh = ALLOCATOR.empty((n,), np.float32)
    assert not np.shares_memory(fresh, view)  # still viewed: not handed out
    del view, fresh
    again = ALLOCATOR.empty((n,), np.float32)
    ALLOCATOR.release(again)


def test_dense_copies_only_what_is_not_c_contiguous_float():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    assert dense(a) is a
    t = dense(a.T)
    assert t.flags.c_contiguous and np.array_equal(t, a.T)
    b = dense(np.broadcast_to(np.float32(2), (4, 5)), np.float32)
    assert b.shape == (4, 5) and np.all(b == 2)
    assert dense(a, np.float64).dtype == np.float64


def test_results_survive_heavy_pool_reuse():
    # many same-sized results and temporaries in flight: every kept result keeps its values
    rng = np.random.default_rng(0)
    xs = [rng.standard_normal((300, 512)).astype(np.float32) for _ in range(4)]
    kept = []
    for i in range(40):
        x = mindtorch.tensor(xs[i % 4]).requires_grad_()
        y = mindtorch.nn.functional.layer_norm(x.t().t(), (512,))
        y.backward(mindtorch.ones_like(y).expand(300, 512))
        kept.append((i % 4, y.detach(), x.grad))
    ref = {}
    for k, y, g in kept:
        if k in ref:
            np.testing.assert_array_equal(y.numpy(), ref[k][0])
            np.testing.assert_array_equal(g.numpy(), ref[k][1])
        else:
            ref[k] = (y.numpy().copy(), g.numpy().copy())
