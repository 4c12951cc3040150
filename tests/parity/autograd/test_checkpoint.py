"""mindtorch.utils.checkpoint against torch.utils.checkpoint."""

from helpers import torch_or_skip

torch = torch_or_skip()

import mindtorch  # noqa: E402
import mindtorch.utils.checkpoint  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from helpers import assert_same  # noqa: E402

RNG = np.random.default_rng(0)
W1 = RNG.standard_normal((6, 4)).astype(np.float32)
W2 = RNG.standard_normal((3, 6)).astype(np.float32)
X = RNG.standard_normal((5, 4)).astype(np.float32)


def _run(lib, how, use_reentrant):
    import importlib

    ckpt = importlib.import_module(lib.__name__ + ".utils.checkpoint")
    model = lib.nn.Sequential(lib.nn.Linear(4, 6), lib.nn.Tanh(), lib.nn.Linear(6, 3), lib.nn.GELU())
    with lib.no_grad():
        model[0].weight.copy_(lib.tensor(W1))
        model[2].weight.copy_(lib.tensor(W2))
        model[0].bias.fill_(0.1)
        model[2].bias.fill_(-0.2)
    x = lib.tensor(X, requires_grad=True)
    if how == "plain":
        y = model(x)
    elif how == "checkpoint":
        y = ckpt.checkpoint(lambda a, scale: model(a) * scale, x, 2.0, use_reentrant=use_reentrant) / 2.0
    else:
        y = ckpt.checkpoint_sequential(model, 2, x, use_reentrant=use_reentrant)
    (y * y).sum().backward()
    return y, x.grad, [p.grad for p in model.parameters()]


@pytest.mark.parametrize("how", ["checkpoint", "sequential"])
@pytest.mark.parametrize("use_reentrant", [True, False])
def test_checkpoint_matches_pytorch_and_plain(how, use_reentrant):
    mt = _run(mindtorch, how, use_reentrant)
    th = _run(torch, how, use_reentrant)
    plain = _run(mindtorch, "plain", use_reentrant)
    for a, b, c in zip(mt[:2], th[:2], plain[:2]):
        assert_same(a, b, rtol=1e-5, atol=1e-6)
        assert_same(a, c, rtol=1e-6, atol=1e-7)
    for a, b in zip(mt[2], th[2]):
        assert_same(a, b, rtol=1e-5, atol=1e-5)


def test_dropout_inside_is_replayed():
    def grads(use_ckpt):
        mindtorch.manual_seed(3)
        lin = mindtorch.nn.Linear(8, 8)
        drop = mindtorch.nn.Dropout(0.5)
        x = mindtorch.randn(4, 8, requires_grad=True)
        mindtorch.manual_seed(7)
        f = lambda a: drop(lin(a)).relu()
        y = mindtorch.utils.checkpoint.checkpoint(f, x, use_reentrant=True) if use_ckpt else f(x)
        mindtorch.randn(100)  # random draws between forward and backward must not change the replay
        y.sum().backward()
        return x.grad, lin.weight.grad

    for a, b in zip(grads(True), grads(False)):
        assert_same(a, b, rtol=0, atol=0)


def test_warns_without_use_reentrant():
    x = mindtorch.ones(2, requires_grad=True)
    with pytest.warns(UserWarning, match="use_reentrant"):
        mindtorch.utils.checkpoint.checkpoint(lambda a: a * 2, x)
