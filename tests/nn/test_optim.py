"""Optimizers, schedulers and grad clipping: behaviour and hand-computed updates (no PyTorch)."""

import math

import mindtorch as torch
import mindtorch.nn as nn
import mindtorch.optim as optim
import numpy as np
import pytest


def _param(values):
    return nn.Parameter(torch.tensor(values))


def test_sgd_momentum_by_hand():
    p = _param([1.0, 2.0])
    opt = optim.SGD([p], lr=0.1, momentum=0.9)
    for _ in range(2):
        p.grad = torch.tensor([1.0, -1.0])
        opt.step()
    # buf1 = g, buf2 = 0.9 g + g = 1.9 g; p = p0 - 0.1 (g + 1.9 g)
    assert p.tolist() == pytest.approx([1.0 - 0.29, 2.0 + 0.29])


def test_adam_first_step_is_lr_sign():
    p = _param([1.0, -1.0, 0.5])
    opt = optim.Adam([p], lr=0.01)
    p.grad = torch.tensor([3.0, -0.2, 0.0])
    opt.step()
    assert p.tolist() == pytest.approx([0.99, -0.99, 0.5], abs=1e-6)
    st = opt.state[p]
    assert list(st) == ["step", "exp_avg", "exp_avg_sq"] and st["step"].item() == 1.0
    assert st["step"].dtype is torch.float32 and st["step"].dim() == 0


def test_adamw_decoupled_weight_decay():
    p = _param([1.0])
    opt = optim.AdamW([p], lr=0.1, weight_decay=0.5)
    p.grad = torch.tensor([0.0])
    opt.step()
    assert p.item() == pytest.approx(1.0 * (1 - 0.1 * 0.5))


def test_param_groups_and_errors():
    a, b = _param([1.0]), _param([2.0])
    opt = optim.SGD([{"params": [a]}, {"params": b, "lr": 0.5}], lr=0.1, momentum=0.9)
    assert opt.param_groups[0]["lr"] == 0.1 and opt.param_groups[1]["lr"] == 0.5
    assert opt.param_groups[1]["params"] == [b]
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter group"):
        opt.add_param_group({"params": [a]})
    with pytest.raises(ValueError, match="optimizer got an empty parameter list"):
        optim.SGD([], lr=0.1)
    with pytest.raises(TypeError, match="params argument given to the optimizer should be an iterable"):
        optim.SGD(a, lr=0.1)
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        optim.Adam([a], lr=-1)
    with pytest.raises(ValueError, match="Invalid beta parameter at index 0: 1.0"):
        optim.Adam([a], betas=(1.0, 0.9))
    with pytest.raises(ValueError, match="Nesterov momentum requires a momentum and zero dampening"):
        optim.SGD([a], lr=0.1, nesterov=True)
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        optim.SGD([a * 2], lr=0.1)
    assert repr(optim.Adam([a])).startswith("Adam (\nParameter Group 0\n    amsgrad: False\n    betas: (0.9, 0.999)")


def test_state_dict_layout_and_round_trip():
    torch.manual_seed(0)
    model = nn.Linear(3, 2)
    opt = optim.Adam(model.parameters(), lr=0.01, amsgrad=True)
    for _ in range(3):
        opt.zero_grad()
        model(torch.randn(4, 3)).pow(2).sum().backward()
        opt.step()
    sd = opt.state_dict()
    assert sorted(sd) == ["param_groups", "state"] and list(sd["state"]) == [0, 1]
    assert sd["param_groups"][0]["params"] == [0, 1]
    assert sorted(sd["state"][0]) == ["exp_avg", "exp_avg_sq", "max_exp_avg_sq", "step"]
    model2 = nn.Linear(3, 2)
    model2.load_state_dict(model.state_dict())
    opt2 = optim.Adam(model2.parameters(), lr=0.5)
    opt2.load_state_dict(sd)
    assert opt2.param_groups[0]["lr"] == 0.01 and opt2.param_groups[0]["params"][0] is model2.weight
    x = torch.randn(4, 3)
    for m, o in ((model, opt), (model2, opt2)):
        o.zero_grad()
        m(x).pow(2).sum().backward()
        o.step()
    assert model.weight.tolist() == model2.weight.tolist()
    with pytest.raises(ValueError, match="different number of parameter groups"):
        optim.Adam([{"params": [model2.weight]}, {"params": [model2.bias]}]).load_state_dict(sd)


def test_zero_grad_and_closure():
    p = _param([1.0])
    opt = optim.SGD([p], lr=0.1)
    loss = opt.step(lambda: (p * p).sum().backward() or (p * p).sum())
    assert loss.item() == 1.0 and p.item() == pytest.approx(0.8)
    opt.zero_grad(set_to_none=False)
    assert p.grad.item() == 0.0
    opt.zero_grad()
    assert p.grad is None


def _reference(name, p, steps, sign):
    """The documented update rules (PyTorch's optimizer docs), in float64, for loss sign*|p|^2."""
    p = np.array(p, dtype=np.float64)
    m = v = buf = ga = acc = np.zeros_like(p)
    for t in range(1, steps + 1):
        g = sign * 2 * p
        if name == "SGD":  # lr=0.1, maximize
            p = p - 0.1 * -g
        elif name == "Adam":  # lr=0.1, weight_decay=0.1 (L2), maximize
            g = -g + 0.1 * p
            m, v = 0.9 * m + 0.1 * g, 0.999 * v + 0.001 * g * g
            p = p - 0.1 * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-8)
        elif name == "RMSprop":  # lr=0.1, alpha=0.99, momentum=0.5, centered
            v, ga = 0.99 * v + 0.01 * g * g, 0.99 * ga + 0.01 * g
            buf = 0.5 * buf + g / (np.sqrt(v - ga * ga) + 1e-8)
            p = p - 0.1 * buf
        elif name == "Adagrad":  # lr=0.1, lr_decay=0.01
            acc = acc + g * g
            p = p - 0.1 / (1 + (t - 1) * 0.01) * g / (np.sqrt(acc) + 1e-10)
    return p


@pytest.mark.parametrize(
    "cls,kw",
    [
        (optim.RMSprop, dict(momentum=0.5, centered=True)),
        (optim.Adagrad, dict(lr_decay=0.01)),
        (optim.SGD, dict(lr=0.1, maximize=True)),
        (optim.Adam, dict(weight_decay=0.1, maximize=True)),
    ],
)
def test_optimizers_match_reference_updates(cls, kw):
    p = _param([3.0, -2.0])
    opt = cls([p], **({"lr": 0.1} | kw))
    sign = -1 if kw.get("maximize") else 1
    done = 0
    for steps in (1, 30):  # the first update alone, then the trajectory
        for _ in range(steps - done):
            opt.zero_grad()
            (sign * (p * p).sum()).backward()
            opt.step()
        done = steps
        np.testing.assert_allclose(
            p.detach().numpy(), _reference(cls.__name__, [3.0, -2.0], steps, sign), rtol=2e-4, atol=1e-5
        )


def test_schedulers():
    p = _param([1.0])
    opt = optim.SGD([p], lr=1.0)
    s = optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    lrs = []
    for _ in range(5):
        opt.step()
        s.step()
        lrs.append(s.get_last_lr()[0])
    assert lrs == [1.0, 0.5, 0.5, 0.25, 0.25]
    sd = s.state_dict()
    assert sd["last_epoch"] == 5 and "optimizer" not in sd and sd["base_lrs"] == [1.0]
    opt = optim.SGD([p], lr=1.0)
    s = optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4)
    vals = []
    for _ in range(4):
        s.step()
        vals.append(opt.param_groups[0]["lr"])
    assert vals == pytest.approx([0.5 * (1 + math.cos(math.pi * e / 4)) for e in range(1, 5)])
    opt = optim.SGD([p], lr=1.0)
    s = optim.lr_scheduler.LambdaLR(opt, lambda e: 0.1 * e)
    s.step()
    assert opt.param_groups[0]["lr"] == pytest.approx(0.1) and s.state_dict()["lr_lambdas"] == [None]
    opt = optim.SGD([p], lr=1.0, momentum=0.9)
    s = optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=10)
    assert opt.param_groups[0]["lr"] == pytest.approx(1.0 / 25) and opt.param_groups[0]["momentum"] == 0.95
    for _ in range(10):
        s.step() if s.last_epoch < 9 else None
    with pytest.raises(ValueError, match="Tried to step 11 times"):
        s.step()
        s.step()
    opt = optim.SGD([p], lr=1.0)
    s = optim.lr_scheduler.MultiStepLR(opt, milestones=[1, 3], gamma=0.1)
    s.step()
    assert opt.param_groups[0]["lr"] == pytest.approx(0.1)
    opt = optim.SGD([p], lr=1.0)
    optim.lr_scheduler.LinearLR(opt, start_factor=0.5, total_iters=2)
    assert opt.param_groups[0]["lr"] == 0.5


def test_clip_grad():
    a, b = _param([0.0, 0.0]), _param([0.0])
    a.grad, b.grad = torch.tensor([3.0, 0.0]), torch.tensor([4.0])
    total = nn.utils.clip_grad_norm_([a, b], max_norm=1.0)
    assert total.item() == pytest.approx(5.0)
    assert a.grad.tolist() == pytest.approx([0.6, 0.0], rel=1e-5) and b.grad.item() == pytest.approx(0.8, rel=1e-5)
    a.grad = torch.tensor([float("inf"), 0.0])
    with pytest.raises(RuntimeError, match="non-finite"):
        nn.utils.clip_grad_norm_([a], 1.0, error_if_nonfinite=True)
    a.grad = torch.tensor([3.0, -5.0])
    nn.utils.clip_grad_value_([a], 1.0)
    assert a.grad.tolist() == [1.0, -1.0]
    assert nn.utils.clip_grad_norm_([a], 1.0, norm_type=float("inf")).item() == 1.0
