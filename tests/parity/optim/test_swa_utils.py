"""optim.swa_utils against PyTorch: AveragedModel (SWA, EMA, buffers), SWALR's schedule, update_bn."""

import numpy as np
import pytest
from helpers import assert_same, torch_or_skip

torch = torch_or_skip()

import mindtorch as mt  # noqa: E402


def _net(lib, seed=0):
    rng = np.random.default_rng(seed)
    net = lib.nn.Sequential(lib.nn.Linear(4, 5), lib.nn.BatchNorm1d(5), lib.nn.ReLU(), lib.nn.Linear(5, 2))
    with lib.no_grad():
        for p in net.parameters():
            p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape)).astype(np.float32)))
    return net


def _train_and_average(lib, make_avg, steps=6):
    net = _net(lib)
    avg = make_avg(lib, net)
    opt = lib.optim.SGD(net.parameters(), lr=0.1)
    rng = np.random.default_rng(1)
    for _ in range(steps):
        x = lib.tensor(rng.standard_normal((8, 4)).astype(np.float32))
        net(x).pow(2).mean().backward()
        opt.step()
        opt.zero_grad()
        avg.update_parameters(net)
    return avg


AVERAGERS = {
    "swa": lambda lib, net: lib.optim.swa_utils.AveragedModel(net),
    "ema-multi": lambda lib, net: lib.optim.swa_utils.AveragedModel(
        net, multi_avg_fn=lib.optim.swa_utils.get_ema_multi_avg_fn(0.9)
    ),
    "ema-single": lambda lib, net: lib.optim.swa_utils.AveragedModel(
        net, avg_fn=lib.optim.swa_utils.get_ema_avg_fn(0.8)
    ),
    "swa-buffers": lambda lib, net: lib.optim.swa_utils.AveragedModel(net, use_buffers=True),
    "swa-single": lambda lib, net: lib.optim.swa_utils.AveragedModel(net, avg_fn=lib.optim.swa_utils.get_swa_avg_fn()),
}


@pytest.mark.parametrize("kind", list(AVERAGERS))
def test_averaged_model_matches(kind):
    m = _train_and_average(mt, AVERAGERS[kind])
    t = _train_and_average(torch, AVERAGERS[kind])
    msd, tsd = m.state_dict(), t.state_dict()
    assert list(msd) == list(tsd)
    for k in tsd:
        assert_same(msd[k], tsd[k], rtol=1e-5, atol=1e-6)
    x = np.random.default_rng(3).standard_normal((3, 4)).astype(np.float32)
    m.eval()
    t.eval()
    assert_same(m(mt.tensor(x)), t(torch.tensor(x)), rtol=1e-5, atol=1e-6)


def test_averaged_model_rejects_two_averaging_functions():
    su = mt.optim.swa_utils
    with pytest.raises(AssertionError):
        su.AveragedModel(_net(mt), avg_fn=su.get_swa_avg_fn(), multi_avg_fn=su.get_swa_multi_avg_fn())
    for lib in (mt, torch):
        with pytest.raises(ValueError, match="Invalid decay value"):
            lib.optim.swa_utils.get_ema_avg_fn(1.5)


@pytest.mark.parametrize("strategy,anneal", [("cos", 3), ("linear", 4), ("cos", 0)])
def test_swalr_schedule(strategy, anneal):
    def lrs(lib):
        p = lib.nn.Parameter(lib.zeros(2))
        q = lib.nn.Parameter(lib.zeros(2))
        opt = lib.optim.SGD([{"params": [p]}, {"params": [q], "lr": 0.3}], lr=1.0)
        sched = lib.optim.swa_utils.SWALR(opt, swa_lr=[0.05, 0.01], anneal_epochs=anneal, anneal_strategy=strategy)
        seen = [sched.get_last_lr()]
        for _ in range(7):
            opt.step()
            sched.step()
            seen.append(sched.get_last_lr())
        return seen

    np.testing.assert_allclose(lrs(mt), lrs(torch), rtol=1e-12)


def test_swalr_bad_arguments():
    for lib in (mt, torch):
        opt = lib.optim.SGD([lib.nn.Parameter(lib.zeros(1))], lr=0.1)
        with pytest.raises(ValueError, match="anneal_strategy"):
            lib.optim.swa_utils.SWALR(opt, 0.1, anneal_strategy="step")
        with pytest.raises(ValueError, match="anneal_epochs"):
            lib.optim.swa_utils.SWALR(opt, 0.1, anneal_epochs=-1)
        with pytest.raises(ValueError):
            lib.optim.swa_utils.SWALR(opt, [0.1, 0.2])


def test_update_bn_recomputes_running_stats():
    rng = np.random.default_rng(4)
    batches = [rng.standard_normal((6, 4)).astype(np.float32) for _ in range(3)]

    def stats(lib):
        net = _net(lib)
        net.eval()
        loader = [(lib.tensor(b), lib.zeros(6)) for b in batches]
        lib.optim.swa_utils.update_bn(loader, net)
        bn = net[1]
        return net.training, bn.momentum, bn.running_mean, bn.running_var, bn.num_batches_tracked

    m, t = stats(mt), stats(torch)
    assert m[:2] == t[:2] == (False, 0.1)
    for a, b in zip(m[2:], t[2:]):
        assert_same(a, b, rtol=1e-5, atol=1e-6)
