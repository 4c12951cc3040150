"""mindtorch.amp.GradScaler and the disabled autocast against PyTorch's CPU build."""

from helpers import torch_or_skip

torch = torch_or_skip()

import warnings  # noqa: E402

import mindtorch  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402


def _train(lib, grads, **kw):
    p = lib.nn.Parameter(lib.ones(3))
    opt = lib.optim.SGD([p], lr=0.1)
    scaler = lib.amp.GradScaler("cpu", **kw)
    log = []
    for g in grads:
        opt.zero_grad()
        loss = (p * lib.tensor(g)).sum()
        scaled = scaler.scale(loss)
        scaled.backward()
        if len(log) % 2:
            scaler.unscale_(opt)
        log.append((float(scaled), scaler.step(opt), p.detach().tolist()))
        scaler.update()
        log.append((scaler.get_scale(), scaler.state_dict()))
    return log


GRADS = [
    np.array(v, dtype=np.float32)
    for v in ([1, 2, 3], [np.inf, 1, 1], [0.5, 0.5, 0.5], [np.nan, 0, 0], [1e-3, 1, 2], [2, 2, 2], [1, 1, 1])
]


@pytest.mark.parametrize(
    "kw",
    [
        {},
        dict(init_scale=4.0, growth_interval=2),
        dict(init_scale=1e4, growth_factor=3.0, backoff_factor=0.25, growth_interval=1),
        dict(enabled=False),
    ],
)
def test_grad_scaler_trajectory(kw):
    mt, th = _train(mindtorch, GRADS, **kw), _train(torch, GRADS, **kw)
    assert len(mt) == len(th)
    for a, b in zip(mt, th):
        if isinstance(b[1], dict) or len(b) == 2:
            assert a == b
        else:
            assert a[1] == b[1]
            np.testing.assert_allclose([a[0]] + a[2], [b[0]] + b[2], rtol=1e-6)


def test_grad_scaler_errors_and_state_dict():
    for lib in (mindtorch, torch):
        p = lib.nn.Parameter(lib.ones(2))
        opt = lib.optim.SGD([p], lr=0.1)
        s = lib.amp.GradScaler("cpu")
        s.scale((p * p).sum()).backward()
        s.unscale_(opt)
        with pytest.raises(RuntimeError, match="already been called"):
            s.unscale_(opt)
        s.step(opt)
        s.update()
        t = lib.amp.GradScaler("cpu")
        t.load_state_dict(s.state_dict())
        assert t.get_scale() == s.get_scale()
        with pytest.raises(RuntimeError, match="Closure"):
            s.step(opt, closure=lambda: 0)
        with pytest.raises(AssertionError):
            lib.amp.GradScaler("cpu", growth_factor=0.5)


def test_cuda_spellings_disable_themselves_without_cuda():
    for lib in (mindtorch, torch):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            s = lib.cuda.amp.GradScaler()
            s2 = lib.amp.GradScaler("cuda")
        assert not s.is_enabled() and not s2.is_enabled() and s.get_scale() == 1.0
        assert any("CUDA is not available" in str(x.message) for x in w)
        p = lib.nn.Parameter(lib.ones(2))
        opt = lib.optim.SGD([p], lr=0.5)
        loss = s.scale((p * p).sum())
        loss.backward()
        s.step(opt)
        s.update()
        assert p.detach().tolist() == [0.0, 0.0]


@pytest.mark.parametrize("args", [("cuda",), ("cpu",), ("cuda", None, True)])
def test_disabled_autocast_runs_the_code_unchanged(args):
    for lib in (mindtorch, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ctx = lib.autocast(args[0], enabled=False) if len(args) == 1 else lib.autocast(args[0], enabled=True)
        x = lib.ones(2, 2)
        with ctx:
            y = x @ x
        assert str(y.dtype).endswith("float32") and not lib.is_autocast_enabled()
