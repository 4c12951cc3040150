"""Adadelta, Adamax, NAdam, RAdam, ASGD, Rprop and the optimizer hooks against PyTorch."""

import numpy as np
import pytest
from helpers import assert_same, torch_or_skip

torch = torch_or_skip()

import mindtorch as mt  # noqa: E402

OPTS = [
    ("Adadelta", {}),
    ("Adadelta", dict(lr=0.5, rho=0.8, eps=1e-5, weight_decay=0.1, maximize=True)),
    ("Adamax", {}),
    ("Adamax", dict(lr=0.01, betas=(0.8, 0.9), weight_decay=0.1, maximize=True)),
    ("NAdam", {}),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, momentum_decay=0.01)),
    ("NAdam", dict(weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
    ("RAdam", {}),
    ("RAdam", dict(lr=0.01, betas=(0.5, 0.6), weight_decay=0.1)),
    ("RAdam", dict(weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
    ("ASGD", {}),
    ("ASGD", dict(lr=0.05, lambd=0.01, alpha=0.5, t0=3, weight_decay=0.1)),
    ("ASGD", dict(t0=0, maximize=True)),
    ("Rprop", {}),
    ("Rprop", dict(lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-3, 0.1), maximize=True)),
    ("Adamax", dict(foreach=False)),
    ("NAdam", dict(foreach=True)),
    ("Rprop", dict(foreach=None)),
    ("Adafactor", {}),
    ("Adafactor", dict(lr=0.05, beta2_decay=-0.5, eps=(1e-20, 1e-2), d=2.0, weight_decay=0.1, maximize=True)),
]


def _trajectory(lib, cls, kw, steps=12, groups=False, same_grads=False):
    rng = np.random.default_rng(0)
    ps = [lib.nn.Parameter(lib.tensor(rng.standard_normal(s).astype(np.float32))) for s in ((4, 3), (3,), (2, 2))]
    params = [{"params": ps[:2]}, {"params": ps[2:], "lr": 0.05}] if groups else ps
    opt = getattr(lib.optim, cls)(params, **kw)
    for i in range(steps):
        for p in ps:
            g = rng.standard_normal(tuple(p.shape)).astype(np.float32)
            p.grad = lib.tensor(np.abs(g) if same_grads and i % 3 else g)  # Rprop: runs of equal signs
        opt.step()
    return ps, opt


@pytest.mark.parametrize("cls,kw", OPTS, ids=[f"{c}-{i}" for i, (c, _) in enumerate(OPTS)])
def test_optimizer_matches(cls, kw):
    for groups, same in ((False, False), (True, False), (False, True)):
        mps, mopt = _trajectory(mt, cls, kw, groups=groups, same_grads=same)
        tps, topt = _trajectory(torch, cls, kw, groups=groups, same_grads=same)
        for a, b in zip(mps, tps):
            assert_same(a, b, rtol=1e-5, atol=1e-6)
        msd, tsd = mopt.state_dict(), topt.state_dict()
        assert msd["param_groups"] == tsd["param_groups"]
        assert list(msd["state"]) == list(tsd["state"])
        for k in tsd["state"]:
            assert list(msd["state"][k]) == list(tsd["state"][k])
            for name in tsd["state"][k]:
                assert_same(msd["state"][k][name], tsd["state"][k][name], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("cls", ["Adadelta", "Adamax", "NAdam", "RAdam", "ASGD", "Rprop", "Adafactor"])
def test_state_dict_round_trip_continues_the_trajectory(cls):
    mps, mopt = _trajectory(mt, cls, {}, steps=4)
    tps, topt = _trajectory(torch, cls, {}, steps=4)
    sd = mopt.state_dict()
    fresh = getattr(mt.optim, cls)(mps)
    fresh.load_state_dict(sd)
    rng = np.random.default_rng(5)
    for _ in range(3):
        for a, b in zip(mps, tps):
            g = rng.standard_normal(tuple(a.shape)).astype(np.float32)
            a.grad, b.grad = mt.tensor(g), torch.tensor(g)
        fresh.step()
        topt.step()
    for a, b in zip(mps, tps):
        assert_same(a, b, rtol=1e-5, atol=1e-6)


BAD = [
    ("Adadelta", dict(lr=-1.0)),
    ("Adadelta", dict(rho=1.5)),
    ("Adamax", dict(betas=(1.0, 0.9))),
    ("NAdam", dict(momentum_decay=-1)),
    ("RAdam", dict(eps=-1.0)),
    ("ASGD", dict(weight_decay=-1)),
    ("Rprop", dict(etas=(1.5, 1.2))),
    ("Rprop", dict(lr=-0.1)),
    ("Adafactor", dict(beta2_decay=0.5)),
    ("Adafactor", dict(d=0.5)),
    ("Adafactor", dict(eps=(None, -1.0))),
    ("Muon", dict(momentum=-1.0)),
    ("Muon", dict(adjust_lr_fn="other")),
]


@pytest.mark.parametrize("cls,kw", BAD)
def test_invalid_arguments(cls, kw):
    with pytest.raises(ValueError) as th:
        getattr(torch.optim, cls)([torch.nn.Parameter(torch.ones(2))], **kw)
    with pytest.raises(ValueError) as m:
        getattr(mt.optim, cls)([mt.nn.Parameter(mt.ones(2))], **kw)
    assert str(m.value) == str(th.value)


def _muon_trajectory(lib, kw, steps=5):
    rng = np.random.default_rng(0)
    ps = [lib.nn.Parameter(lib.tensor(rng.standard_normal(s).astype(np.float32))) for s in ((6, 3), (3, 5))]
    opt = lib.optim.Muon(ps, **kw)
    for _ in range(steps):
        for p in ps:
            p.grad = lib.tensor(rng.standard_normal(tuple(p.shape)).astype(np.float32))
        opt.step()
    return ps, opt


@pytest.mark.parametrize(
    "kw",
    [
        {},
        dict(lr=0.02, nesterov=False, weight_decay=0.0, adjust_lr_fn="match_rms_adamw"),
        dict(ns_steps=3, momentum=0.5, adjust_lr_fn="original"),
    ],
)
def test_muon_matches(kw):
    """Muon orthogonalizes in bfloat16: parameters agree to bfloat16 rounding of the step."""
    (mps, mopt), (tps, topt) = _muon_trajectory(mt, kw), _muon_trajectory(torch, kw)
    for a, b in zip(mps, tps):
        assert_same(a, b, rtol=2e-3, atol=2e-4)
    for k in topt.state_dict()["state"]:
        assert_same(
            mopt.state_dict()["state"][k]["momentum_buffer"],
            topt.state_dict()["state"][k]["momentum_buffer"],
            rtol=1e-5,
            atol=1e-6,
        )


def test_muon_refuses_non_matrix_parameters():
    for lib in (mt, torch):
        with pytest.raises(ValueError, match="Muon only supports 2D parameters"):
            lib.optim.Muon([lib.nn.Parameter(lib.ones(3))])


def _hook_log(lib, cls="SGD"):
    import importlib

    glob = importlib.import_module(lib.__name__ + ".optim.optimizer")
    log = []
    p = lib.nn.Parameter(lib.ones(2))
    opt = getattr(lib.optim, cls)([p], lr=0.1)
    handles = [
        opt.register_step_pre_hook(lambda o, a, k: log.append(("pre", o is opt, a[0] is opt, a[1:], k))),
        opt.register_step_post_hook(lambda o, a, k: log.append(("post", o is opt, a[0] is opt, a[1:], k))),
        glob.register_optimizer_step_pre_hook(lambda o, a, k: log.append(("gpre",))),
        glob.register_optimizer_step_post_hook(lambda o, a, k: log.append(("gpost",))),
        opt.register_state_dict_pre_hook(lambda o: log.append(("sd_pre",))),
        opt.register_state_dict_post_hook(lambda o, sd: log.append(("sd_post", sorted(sd))) or dict(sd, extra=1)),
        opt.register_load_state_dict_pre_hook(
            lambda o, sd: log.append(("lsd_pre", sorted(sd))) or {k: v for k, v in sd.items() if k != "extra"}
        ),
        opt.register_load_state_dict_post_hook(lambda o: log.append(("lsd_post",))),
    ]
    p.grad = lib.ones(2)
    opt.step()
    sd = opt.state_dict()
    log.append(("keys", sorted(sd)))
    opt.load_state_dict(sd)
    for h in handles:
        h.remove()
    opt.step()
    sd = opt.state_dict()
    log.append(("keys", sorted(sd)))
    return log, p.detach().tolist()


@pytest.mark.parametrize("cls", ["SGD", "Adam", "AdamW", "NAdam", "Rprop"])
def test_hooks_run_in_pytorch_order(cls):
    assert _hook_log(mt, cls) == _hook_log(torch, cls)


def test_pre_hook_can_replace_arguments_and_subclass_hooks_run_per_level():
    seen = []
    for lib in (mt, torch):
        calls = []

        class Mine(lib.optim.SGD):
            def step(self, closure=None):
                calls.append("mine")
                return super().step(closure)

        p = lib.nn.Parameter(lib.ones(2))
        opt = Mine([p], lr=0.1)
        opt.register_step_pre_hook(lambda o, a, k: calls.append("pre") or ((o,), {"closure": lambda: 7.0}))
        p.grad = lib.ones(2)
        assert opt.step() == 7.0
        seen.append(calls)
    assert seen[0] == seen[1] == ["pre", "mine", "pre"]  # PyTorch wraps each class's step


SCHEDS = [
    ("PolynomialLR", dict(total_iters=6, power=2.0)),
    ("PolynomialLR", {}),
    ("CosineAnnealingWarmRestarts", dict(T_0=3)),
    ("CosineAnnealingWarmRestarts", dict(T_0=2, T_mult=2, eta_min=0.01)),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=3)),
    ("CyclicLR", dict(base_lr=[0.01, 0.02], max_lr=0.1, step_size_up=2, step_size_down=4, mode="triangular2")),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=2, mode="exp_range", gamma=0.9)),
    (
        "CyclicLR",
        dict(
            base_lr=0.01,
            max_lr=0.1,
            step_size_up=2,
            scale_fn=lambda x: 0.5**x,
            scale_mode="iterations",
            cycle_momentum=False,
        ),
    ),
]


def _sched_run(lib, opt_cls, okw, name, kw, steps=14):
    ps = [lib.nn.Parameter(lib.ones(2)), lib.nn.Parameter(lib.ones(3))]
    opt = getattr(lib.optim, opt_cls)([{"params": ps[:1]}, {"params": ps[1:], "lr": 0.05}], **okw)
    s = getattr(lib.optim.lr_scheduler, name)(opt, **kw)
    lrs, moms = [], []
    for _ in range(steps):
        for p in ps:
            p.grad = lib.ones_like(p)
        opt.step()
        s.step()
        lrs.append(s.get_last_lr())
        moms.append([g.get("momentum", g.get("betas")) for g in opt.param_groups])
    return lrs, moms, opt, s


@pytest.mark.parametrize("name,kw", SCHEDS, ids=[f"{c}-{i}" for i, (c, _) in enumerate(SCHEDS)])
def test_scheduler_matches(name, kw):
    for opt_cls, okw in (("SGD", dict(lr=0.1, momentum=0.9)), ("Adam", dict(lr=0.1))):
        mlrs, mmoms, mopt, ms = _sched_run(mt, opt_cls, okw, name, kw)
        tlrs, tmoms, topt, ts = _sched_run(torch, opt_cls, okw, name, kw)
        np.testing.assert_allclose(mlrs, tlrs, rtol=1e-12)
        assert mmoms == tmoms or np.allclose(np.array(mmoms, dtype=float), np.array(tmoms, dtype=float))
        assert mopt.param_groups[0].keys() == topt.param_groups[0].keys()
        msd, tsd = ms.state_dict(), ts.state_dict()
        assert set(msd) - {"_get_lr_called_within_step", "_is_initial"} == set(tsd) - {
            "_get_lr_called_within_step",
            "_is_initial",
        }


def test_cosine_warm_restarts_with_epochs():
    res = []
    for lib in (mt, torch):
        opt = lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], lr=0.1)
        s = lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2)
        out = []
        for e in (0.5, 1, 2.5, 7, 3):
            s.step(e)
            out.append(s.get_last_lr()[0])
        res.append(out)
    np.testing.assert_allclose(res[0], res[1], rtol=1e-12)


def test_chained_scheduler():
    res = []
    for lib in (mt, torch):
        opt = lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], lr=1.0)
        sch = lib.optim.lr_scheduler
        s = sch.ChainedScheduler([sch.ConstantLR(opt, factor=0.1, total_iters=2), sch.ExponentialLR(opt, gamma=0.9)])
        assert isinstance(s, sch.LRScheduler)
        out = []
        for _ in range(5):
            opt.step()
            s.step()
            out.append(s.get_last_lr()[0])
        sd = s.state_dict()
        assert len(sd["_schedulers"]) == 2
        res.append(out)
    np.testing.assert_allclose(res[0], res[1], rtol=1e-12)


@pytest.mark.parametrize(
    "name,kw",
    [
        ("CosineAnnealingWarmRestarts", dict(T_0=0)),
        ("CosineAnnealingWarmRestarts", dict(T_0=2, T_mult=0)),
        ("CyclicLR", dict(base_lr=0.1, max_lr=1.0, mode="bad")),
        ("CyclicLR", dict(base_lr=[0.1, 0.2], max_lr=1.0)),
        ("CyclicLR", dict(base_lr=0.1, max_lr=1.0)),
    ],
)
def test_scheduler_errors(name, kw):
    msgs = []
    for lib in (mt, torch):
        opt = lib.optim.Adagrad([lib.nn.Parameter(lib.ones(1))], lr=0.1)
        with pytest.raises(ValueError) as info:
            getattr(lib.optim.lr_scheduler, name)(opt, **kw)
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1]


# short runs: near the optimum the 1e-9 tolerances compare rounding noise, and a branch may flip either way
@pytest.mark.parametrize(
    "kw",
    [
        dict(max_iter=6),
        dict(lr=0.5, max_iter=5, history_size=3),
        dict(max_iter=1),
        dict(lr=0.1, max_iter=30, max_eval=10, tolerance_change=1e-3),
    ],
)
def test_lbfgs_matches(kw):
    # float64: L-BFGS amplifies float32 rounding differences of dot products, and the test is of the algorithm
    rng = np.random.default_rng(2)
    x = rng.standard_normal((16, 5))
    y = rng.standard_normal((16, 2))
    w0 = rng.standard_normal((2, 5)) * 0.1

    def run(lib):
        model = lib.nn.Linear(5, 2).double()
        with lib.no_grad():
            model.weight.copy_(lib.tensor(w0))
            model.bias.zero_()
        opt = lib.optim.LBFGS(model.parameters(), **kw)
        X, Y = lib.tensor(x), lib.tensor(y)
        losses = []

        def closure():
            opt.zero_grad()
            loss = ((lib.tanh(model(X)) - Y) ** 2).mean()
            loss.backward()
            return loss

        for _ in range(4):
            losses.append(float(opt.step(closure)))
        st = opt.state[model.weight]
        return losses, [p.detach().numpy().copy() for p in model.parameters()], st["func_evals"], st["n_iter"]

    ml, mp, mfe, mni = run(mt)
    tl, tp, tfe, tni = run(torch)
    np.testing.assert_allclose(ml, tl, rtol=1e-10)
    for a, b in zip(mp, tp):
        np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-10)
    assert (mfe, mni) == (tfe, tni)


def test_lbfgs_rejects_groups_and_unknown_line_search():
    for lib in (mt, torch):
        a, b = lib.nn.Parameter(lib.ones(2)), lib.nn.Parameter(lib.ones(2))
        with pytest.raises(ValueError, match="per-parameter options"):
            lib.optim.LBFGS([{"params": [a]}, {"params": [b]}])
        opt = lib.optim.LBFGS([a], line_search_fn="backtracking")

        def closure():
            opt.zero_grad()
            loss = (a * a).sum()
            loss.backward()
            return loss

        with pytest.raises(RuntimeError, match="only 'strong_wolfe'"):
            opt.step(closure)
