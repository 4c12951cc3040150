"""Optimizers and schedulers against PyTorch: identical trajectories and state_dict layout."""

import numpy as np
import pytest
from helpers import assert_same, torch_or_skip

torch = torch_or_skip()

import mindtorch as mt  # noqa: E402


def _trajectory(lib, cls, kw, steps=8, sched=None, groups=False):
    rng = np.random.default_rng(0)
    ps = [lib.nn.Parameter(lib.tensor(rng.standard_normal(s).astype(np.float32))) for s in ((4, 3), (3,), (2, 2))]
    params = [{"params": ps[:2]}, {"params": ps[2:], "lr": 0.05, "weight_decay": 0.0}] if groups else ps
    opt = getattr(lib.optim, cls)(params, **kw)
    s = getattr(lib.optim.lr_scheduler, sched[0])(opt, **sched[1]) if sched else None
    lrs = []
    for _ in range(steps):
        for p in ps:
            p.grad = lib.tensor(rng.standard_normal(tuple(p.shape)).astype(np.float32))
        opt.step()
        if s is not None:
            s.step()
            lrs.append(s.get_last_lr())
    return ps, opt, lrs, s


OPTS = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.2, weight_decay=0.01)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, maximize=True)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, weight_decay=0.1, amsgrad=True, maximize=True)),
    ("AdamW", dict(lr=0.01)),
    ("AdamW", dict(lr=0.01, amsgrad=True, betas=(0.8, 0.9), weight_decay=0.3)),
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, momentum=0.9, centered=True, weight_decay=0.1)),
    ("Adagrad", dict(lr=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.1, initial_accumulator_value=0.2, weight_decay=0.05)),
]


@pytest.mark.parametrize("cls,kw", OPTS, ids=[f"{c}-{i}" for i, (c, _) in enumerate(OPTS)])
def test_optimizer_matches(cls, kw):
    for groups in (False, True):
        mps, mopt, _, _ = _trajectory(mt, cls, kw, groups=groups)
        tps, topt, _, _ = _trajectory(torch, cls, kw, groups=groups)
        for a, b in zip(mps, tps):
            assert_same(a, b, rtol=1e-5, atol=1e-6)
        msd, tsd = mopt.state_dict(), topt.state_dict()
        assert msd["param_groups"] == tsd["param_groups"]
        assert list(msd["state"]) == list(tsd["state"])
        for k in tsd["state"]:
            assert list(msd["state"][k]) == list(tsd["state"][k])
            for name in tsd["state"][k]:
                assert_same(msd["state"][k][name], tsd["state"][k][name], rtol=1e-5, atol=1e-6)


SCHEDS = [
    ("StepLR", dict(step_size=3, gamma=0.5)),
    ("MultiStepLR", dict(milestones=[2, 5, 5], gamma=0.3)),
    ("LambdaLR", dict(lr_lambda=lambda e: 1 / (e + 1))),
    ("CosineAnnealingLR", dict(T_max=4, eta_min=0.01)),
    ("LinearLR", dict(start_factor=0.2, total_iters=5)),
    ("ExponentialLR", dict(gamma=0.9)),
    ("OneCycleLR", dict(max_lr=0.5, total_steps=12)),
    ("OneCycleLR", dict(max_lr=[0.5, 0.2], total_steps=12, three_phase=True, anneal_strategy="linear")),
]


def _close(a, b):
    """Equal up to float rounding, through nested lists, tuples and dicts (OneCycleLR phases)."""
    if isinstance(b, dict):
        return isinstance(a, dict) and a.keys() == b.keys() and all(_close(a[k], b[k]) for k in b)
    if isinstance(b, (list, tuple)):
        return isinstance(a, (list, tuple)) and len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if isinstance(b, float):
        return a == pytest.approx(b)
    return a == b


@pytest.mark.parametrize("name,kw", SCHEDS, ids=[f"{c}-{i}" for i, (c, _) in enumerate(SCHEDS)])
def test_scheduler_matches(name, kw):
    for cls, okw in (("SGD", dict(lr=0.1, momentum=0.9)), ("Adam", dict(lr=0.1))):
        _, mopt, mlrs, ms = _trajectory(mt, cls, okw, steps=11, sched=(name, kw), groups=True)
        _, topt, tlrs, ts = _trajectory(torch, cls, okw, steps=11, sched=(name, kw), groups=True)
        np.testing.assert_allclose(mlrs, tlrs, rtol=1e-12)
        assert mopt.param_groups[0].keys() == topt.param_groups[0].keys()
        for mg, tg in zip(mopt.param_groups, topt.param_groups):
            for k, v in tg.items():
                if k != "params":
                    assert mg[k] == (pytest.approx(v) if isinstance(v, (float, tuple)) else v), k
        msd, tsd = ms.state_dict(), ts.state_dict()
        assert set(msd) == set(tsd)
        for k in tsd:
            if isinstance(tsd[k], (int, float, list)) and k != "lr_lambdas":
                assert _close(msd[k], tsd[k]), k


def test_clip_grad_norm_matches():
    rng = np.random.default_rng(3)
    gs = [rng.standard_normal(s).astype(np.float32) * 3 for s in ((5, 4), (7,))]
    for norm_type in (2.0, 1.0, float("inf")):
        mps = [mt.nn.Parameter(mt.zeros(g.shape)) for g in gs]
        tps = [torch.nn.Parameter(torch.zeros(g.shape)) for g in gs]
        for mp, tp, g in zip(mps, tps, gs):
            mp.grad, tp.grad = mt.tensor(g), torch.tensor(g)
        mn = mt.nn.utils.clip_grad_norm_(mps, 1.5, norm_type=norm_type)
        tn = torch.nn.utils.clip_grad_norm_(tps, 1.5, norm_type=norm_type)
        assert_same(mn, tn, rtol=1e-5)
        for mp, tp in zip(mps, tps):
            assert_same(mp.grad, tp.grad, rtol=1e-5, atol=1e-6)


def test_mlp_adam_training_matches():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((32, 20)).astype(np.float32)
    y = rng.integers(0, 5, size=32)

    def run(lib):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(20, 16), lib.nn.ReLU(), lib.nn.Linear(16, 5))
        with lib.no_grad():
            for i, p in enumerate(model.parameters()):
                p.copy_(lib.tensor(np.random.default_rng(i).standard_normal(tuple(p.shape)).astype(np.float32) * 0.2))
        opt = lib.optim.Adam(model.parameters(), lr=0.01)
        losses = []
        for _ in range(10):
            opt.zero_grad()
            loss = lib.nn.functional.cross_entropy(model(lib.tensor(x)), lib.tensor(y))
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return losses, [p.detach().numpy() for p in model.parameters()]

    ml, mp = run(mt)
    tl, tp = run(torch)
    np.testing.assert_allclose(ml, tl, rtol=1e-5)
    for a, b in zip(mp, tp):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
