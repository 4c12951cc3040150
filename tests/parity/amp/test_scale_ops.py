"""The loss-scaling ops GradScaler builds on, against PyTorch's: _amp_foreach_non_finite_check_and_unscale_
(gradients unscaled in place, found_inf raised by any inf or NaN) and _amp_update_scale_ (back off, count,
grow, the overflow guard), swept over dtypes, shapes and where the non-finite values sit; their argument
checks; and GradScaler's edges that follow from them."""

from helpers import torch_or_skip

torch = torch_or_skip()

import itertools  # noqa: E402

import mindtorch  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

SHAPES = [(), (3,), (2, 3), (4, 1, 2)]
BAD = [None, np.inf, -np.inf, np.nan]


def _grads(lib, dtype, seed, bad):
    rng = np.random.default_rng(seed)
    out = []
    for i, shape in enumerate(SHAPES):
        a = (rng.standard_normal(shape) * 100).astype(np.float32)
        if bad is not None and i == seed % len(SHAPES) and a.size:
            a.reshape(-1)[seed % a.size] = bad
        out.append(lib.tensor(a).to(getattr(lib, dtype)))
    return out


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "float64"])
@pytest.mark.parametrize("bad,seed", list(itertools.product(BAD, range(3))))
@pytest.mark.parametrize("found0", [0.0, 1.0])
def test_non_finite_check_and_unscale_matches(dtype, bad, seed, found0):
    got = []
    for lib in (mindtorch, torch):
        grads = _grads(lib, dtype, seed, bad)
        found = lib.full((1,), found0)
        lib._amp_foreach_non_finite_check_and_unscale_(grads, found, lib.tensor([1 / 64.0]))
        got.append(([g.float().numpy() for g in grads], found.item()))
    (mg, mf), (tg, tf) = got
    assert mf == tf
    for a, b in zip(mg, tg):
        np.testing.assert_array_equal(a, b)


def _update_trajectory(lib, flags, growth_interval, init=4.0):
    scale = lib.full((1,), init)
    tracker = lib.zeros((1,), dtype=lib.int32)
    log = []
    for f in flags:
        out = lib._amp_update_scale_(scale, tracker, lib.tensor([f]), 2.0, 0.5, growth_interval)
        assert out is scale
        log.append((scale.item(), tracker.item()))
    return log


@pytest.mark.parametrize("interval", [1, 2, 3])
@pytest.mark.parametrize("pattern", range(8))
def test_update_scale_trajectory_matches(interval, pattern):
    flags = [float((pattern >> (i % 3)) & 1 and i % 2) for i in range(9)]
    assert _update_trajectory(mindtorch, flags, interval) == _update_trajectory(torch, flags, interval)


def test_update_scale_keeps_a_scale_whose_growth_would_overflow():
    for init in (3e38, 1e38):
        assert _update_trajectory(mindtorch, [0.0] * 3, 1, init) == _update_trajectory(torch, [0.0] * 3, 1, init)


def _raised(fn):
    try:
        fn()
    except Exception as exc:
        return type(exc).__name__, str(exc).splitlines()[0]
    return None


UNSCALE_BAD = {
    "found_inf_size": lambda L: ([L.ones(2)], L.zeros(2), L.ones(1)),
    "found_inf_dtype": lambda L: ([L.ones(2)], L.zeros(1, dtype=L.float64), L.ones(1)),
    "inv_scale_size": lambda L: ([L.ones(2)], L.zeros(1), L.ones(2)),
    "inv_scale_dtype": lambda L: ([L.ones(2)], L.zeros(1), L.ones(1, dtype=L.float64)),
    "int_grad": lambda L: ([L.ones(2, dtype=L.int32)], L.zeros(1), L.ones(1)),
}
UPDATE_BAD = {
    "tracker_dtype": lambda L: (L.ones(1), L.zeros(1), L.zeros(1), 2.0, 0.5, 2),
    "found_dtype": lambda L: (L.ones(1), L.zeros(1, dtype=L.int32), L.zeros(1, dtype=L.float64), 2.0, 0.5, 2),
    "scale_dtype": lambda L: (L.ones(1, dtype=L.float64), L.zeros(1, dtype=L.int32), L.zeros(1), 2.0, 0.5, 2),
    "scale_size": lambda L: (L.ones(2), L.zeros(1, dtype=L.int32), L.zeros(1), 2.0, 0.5, 2),
    "tracker_size": lambda L: (L.ones(1), L.zeros(2, dtype=L.int32), L.zeros(1), 2.0, 0.5, 2),
    "found_size": lambda L: (L.ones(1), L.zeros(1, dtype=L.int32), L.zeros(2), 2.0, 0.5, 2),
}


@pytest.mark.parametrize("case", sorted(UNSCALE_BAD))
def test_unscale_argument_errors_match(case):
    got = [
        _raised(lambda L=L: L._amp_foreach_non_finite_check_and_unscale_(*UNSCALE_BAD[case](L)))
        for L in (mindtorch, torch)
    ]
    assert got[0] == got[1] and got[0] is not None


@pytest.mark.parametrize("case", sorted(UPDATE_BAD))
def test_update_scale_argument_errors_match(case):
    got = [_raised(lambda L=L: L._amp_update_scale_(*UPDATE_BAD[case](L))) for L in (mindtorch, torch)]
    assert got[0] == got[1] and got[0] is not None


def _scaler_edges(lib):
    out = []
    s = lib.amp.GradScaler("cpu", init_scale=8.0)
    out.append((s.get_scale(), s.state_dict()))  # before any scale(): the initial values
    p = lib.nn.Parameter(lib.ones(2, dtype=lib.float16))
    opt = lib.optim.SGD([p], lr=0.1)
    s.scale((p.float() * 3).sum()).backward()
    out.append(_raised(lambda: s.unscale_(opt)))
    q = lib.nn.Parameter(lib.ones(2))
    opt2 = lib.optim.SGD([q], lr=0.1)
    out.append(_raised(lambda: s.step(opt2)))  # no gradient at all
    s.update(lib.tensor(2.0))
    out.append(s.get_scale())
    out.append(_raised(lambda: s.update(lib.tensor([1.0, 2.0]))))
    t = lib.amp.GradScaler("cpu")
    out.append(_raised(lambda: t.update()))
    return out


def test_grad_scaler_edges_match():
    assert _scaler_edges(mindtorch) == _scaler_edges(torch)
