"""F.grid_sample on 5-D input (trilinear and nearest, every padding mode, both corner conventions):
values and gradients against PyTorch, gradcheck in float64, and PyTorch's errors."""

import itertools

import numpy as np
import pytest
from helpers import check_grad, raises_alike, torch_or_skip

torch = torch_or_skip()

import mindtorch as mt  # noqa: E402
import mindtorch.nn.functional as MF  # noqa: E402

TF = torch.nn.functional
CASES = list(itertools.product(["bilinear", "nearest"], ["zeros", "border", "reflection"], [False, True]))


def _data(seed, in_shape=(2, 3, 3, 4, 5), grid_shape=(2, 4, 2, 3, 3), spread=1.3):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(in_shape), rng.uniform(-spread, spread, grid_shape)


@pytest.mark.parametrize("mode,padding,align", CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_values_and_gradients_match_torch(mode, padding, align, dtype):
    x, g = _data(len(mode) + len(padding) + align)
    got = []
    for lib, F in ((mt, MF), (torch, TF)):
        xt = lib.tensor(x, dtype=getattr(lib, dtype), requires_grad=True)
        gt = lib.tensor(g, dtype=getattr(lib, dtype), requires_grad=True)
        out = F.grid_sample(xt, gt, mode=mode, padding_mode=padding, align_corners=align)
        (out * lib.arange(out.numel(), dtype=out.dtype).reshape(out.shape).cos()).sum().backward()
        got.append([out.detach().numpy(), xt.grad.numpy(), gt.grad.numpy()])
    tol = 1e-4 if dtype == "float32" else 1e-10
    for ours, theirs in zip(*got):
        np.testing.assert_allclose(ours, theirs, rtol=tol, atol=tol)


@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [False, True])
def test_trilinear_gradcheck(padding, align):
    x, g = _data(5, (1, 2, 2, 3, 3), (1, 2, 2, 1, 3), spread=0.9)
    xt = mt.tensor(x, requires_grad=True)
    gt = mt.tensor(g, requires_grad=True)
    check_grad(lambda a, b: MF.grid_sample(a, b, padding_mode=padding, align_corners=align), xt, gt)


def test_nearest_input_gradcheck():
    x, g = _data(6, (1, 2, 2, 3, 3), (1, 3, 2, 2, 3), spread=0.9)
    xt = mt.tensor(x, requires_grad=True)
    check_grad(lambda a: MF.grid_sample(a, mt.tensor(g), mode="nearest", align_corners=False), xt)


def test_default_align_corners_warns_like_torch():
    x, g = _data(7)
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        ours = MF.grid_sample(mt.tensor(x), mt.tensor(g))
    with pytest.warns(UserWarning):
        theirs = TF.grid_sample(torch.tensor(x), torch.tensor(g))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(
    "call",
    [
        lambda F, lib: F.grid_sample(
            lib.zeros(1, 2, 3, 4, 5), lib.zeros(1, 2, 3, 4, 3), "bicubic", align_corners=False
        ),
        lambda F, lib: F.grid_sample(lib.zeros(1, 2, 3, 4, 5), lib.zeros(1, 2, 3, 4, 2), align_corners=False),
        lambda F, lib: F.grid_sample(lib.zeros(1, 2, 3, 4, 5), lib.zeros(1, 2, 3), align_corners=False),
        lambda F, lib: F.grid_sample(lib.zeros(1, 2, 3, 4, 5), lib.zeros(2, 2, 3, 4, 3), align_corners=False),
        lambda F, lib: F.grid_sample(lib.zeros(1, 2, 3, 4, 5), lib.zeros(1, 2, 3, 4, 3), "area", align_corners=False),
        lambda F, lib: F.grid_sample(lib.zeros(1, 2, 3, 4, 5), lib.zeros(1, 2, 3, 4, 3), padding_mode="wrap"),
    ],
)
def test_errors_like_torch(call):
    raises_alike(lambda lib: call(MF if lib is mt else TF, lib))
