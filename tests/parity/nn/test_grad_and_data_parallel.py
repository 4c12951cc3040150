"""torch.nn.grad (convolution gradients) and nn.DataParallel as PyTorch runs them on a CPU-only host."""

import numpy as np
import pytest
from helpers import assert_same, torch_or_skip

torch = torch_or_skip()

import mindtorch as mt  # noqa: E402

CONVS = [
    (1, (2, 4, 9), (6, 2, 3), dict(stride=2, padding=1, groups=2)),
    (2, (2, 4, 7, 8), (6, 4, 3, 2), dict(stride=(2, 1), padding=1, dilation=(1, 2))),
    (2, (1, 3, 5, 5), (3, 1, 3, 3), dict(groups=3)),
    (3, (1, 2, 5, 5, 4), (3, 2, 2, 3, 2), dict(padding=(1, 0, 1))),
]


@pytest.mark.parametrize("n,xs,ws,kw", CONVS)
def test_conv_grad_functions_match(n, xs, ws, kw):
    rng = np.random.default_rng(n)
    x, w = rng.standard_normal(xs).astype(np.float32), rng.standard_normal(ws).astype(np.float32)
    out = getattr(torch.nn.functional, f"conv{n}d")(torch.tensor(x), torch.tensor(w), **kw)
    g = rng.standard_normal(tuple(out.shape)).astype(np.float32)
    for lib_fn, args in ((f"conv{n}d_input", (xs, w, g)), (f"conv{n}d_weight", (x, ws, g))):

        def call(lib):
            conv = lambda a: lib.tensor(a) if isinstance(a, np.ndarray) else a
            return getattr(lib.nn.grad, lib_fn)(*(conv(a) for a in args), **kw)

        m, t = call(mt), call(torch)
        assert not m.requires_grad
        assert_same(m, t, rtol=1e-5, atol=1e-5)


def test_conv_grad_rejects_a_wrong_grad_shape():
    with pytest.raises(RuntimeError):
        mt.nn.grad.conv2d_input((1, 2, 5, 5), mt.ones(3, 2, 3, 3), mt.ones(1, 3, 4, 4))


def test_data_parallel_without_accelerator_is_the_module():
    def run(lib):
        lib.manual_seed(0)
        inner = lib.nn.Linear(3, 2)
        with lib.no_grad():
            inner.weight.copy_(lib.tensor(np.arange(6, dtype=np.float32).reshape(2, 3) / 10))
            inner.bias.fill_(0.5)
        dp = lib.nn.DataParallel(inner)
        y = dp(lib.ones(4, 3))
        y.sum().backward()
        return dp, y, inner.weight.grad

    (md, my, mg), (td, ty, tg) = run(mt), run(torch)
    assert md.device_ids == td.device_ids == []
    assert list(md.state_dict()) == list(td.state_dict()) == ["module.weight", "module.bias"]
    assert repr(md) == repr(td)
    assert_same(my, ty)
    assert_same(mg, tg)
    assert mt.nn.DataParallel is mt.nn.parallel.DataParallel
    for lib, mod in ((mt, md.module), (torch, td.module)):
        with pytest.raises(RuntimeError, match="device type could not be determined"):
            lib.nn.parallel.data_parallel(mod, lib.ones(2, 3))


@pytest.mark.parametrize(
    "kwargs",
    [
        None,
        {},
        {"dtype": "D", "device": "cpu"},
        {"factory_kwargs": {"dtype": "D"}},
        {"factory_kwargs": {"memory_format": 1}, "device": "cpu"},
        {"dtype": "D", "factory_kwargs": {"dtype": "D"}},
        {"bogus": 1},
    ],
)
def test_factory_kwargs(kwargs):
    def run(lib):
        try:
            return lib.nn.factory_kwargs(kwargs)
        except TypeError as exc:
            return ("TypeError", str(exc))

    assert run(mt) == run(torch)


def test_common_types_names():
    import mindtorch.nn.common_types as mc
    import torch.nn.common_types as tc

    assert {n for n in dir(tc) if n.startswith("_size") or n.startswith("_ratio")} <= set(dir(mc))
