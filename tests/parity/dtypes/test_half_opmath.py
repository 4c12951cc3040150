"""Half precision (float16, bfloat16) computes in float32 and rounds once, as PyTorch's cpu kernels do:
on random inputs the results are PyTorch's bit for bit (an intermediate rounded to half shows up as
one-ulp differences in a few percent of the elements). A reduction sums in its own order, so its float32
statistics may round one ulp apart."""

import numpy as np
import pytest
from helpers import torch_or_skip

torch = torch_or_skip()

import mindtorch as mt  # noqa: E402

R = np.random.default_rng(5)
ULP = {"float16": 2.0**-10, "bfloat16": 2.0**-7}
REDUCING = {"native_group_norm"}
CASES = {
    "lerp, tensor weight": ([(4, 5, 6), (5, 1), (6,)], 4.0, lambda L, x, y, w: L.lerp(x, y, w)),
    "lerp, scalar weight": ([(4, 5, 6), (5, 6)], 4.0, lambda L, x, y: L.lerp(x, y, 0.3)),
    "lerp_, tensor weight": ([(4, 5, 6), (4, 5, 6), (4, 5, 6)], 4.0, lambda L, x, y, w: x.clone().lerp_(y, w)),
    "lerp_, scalar weight": ([(4, 5, 6), (4, 5, 6)], 4.0, lambda L, x, y: x.clone().lerp_(y, 0.7)),
    "sinc": ([(7, 9)], 1.0, lambda L, x: L.sinc(x)),
    "native_group_norm": (
        [(3, 4, 5), (4,), (4,)],
        1.0,
        lambda L, x, g, b: L.native_group_norm(x, g, b, 3, 4, 5, 2, 1e-5),
    ),
}


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", list(CASES))
def test_half_precision_rounds_once_like_pytorch(name, dtype):
    shapes, scale, fn = CASES[name]
    arrays = [R.standard_normal(s).astype(np.float32) * scale for s in shapes]
    outs = []
    for L in (mt, torch):
        dt = getattr(L, dtype)
        r = fn(L, *[L.tensor(a).to(dt) for a in arrays])
        outs.append([(str(t.dtype).split(".")[-1], t.float().numpy()) for t in (r if isinstance(r, tuple) else (r,))])
    for (gd, got), (wd, want) in zip(*outs):
        assert gd == wd
        if name in REDUCING:
            np.testing.assert_allclose(got, want, rtol=ULP[dtype], atol=0)
        else:
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("groups", [1, 2])
@pytest.mark.parametrize("bias", [False, True])
def test_bfloat16_convolution_accumulates_in_float32_like_pytorch(bias, groups):
    x, w, b = (R.standard_normal(s).astype(np.float32) for s in [(2, 4, 6, 7), (4, 4 // groups, 3, 3), (4,)])
    g = R.standard_normal((2, 4, 3, 5)).astype(np.float32)
    outs = []
    for L in (mt, torch):
        X, W = (L.tensor(a).to(L.bfloat16).requires_grad_() for a in (x, w))
        B = L.tensor(b).to(L.bfloat16) if bias else None
        y = L.nn.functional.conv2d(X, W, B, stride=(2, 1), padding=1, dilation=(1, 2), groups=groups)
        y.backward(L.tensor(g).to(L.bfloat16))
        outs.append([t.detach().float().numpy() for t in (y, X.grad, W.grad)])
    for got, want in zip(*outs):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("groups", [1, 2])
@pytest.mark.parametrize("bias", [False, True])
def test_float16_convolution_forward_rounds_once_like_pytorch(bias, groups):
    # the forward sums in float32 and rounds once with the bias added; the backward rounds each GEMM to
    # float16 and adds the pieces in float16, as NumPy's float16 matmul does
    x, w, b = (R.standard_normal(s).astype(np.float16) for s in [(4, 4, 9, 11), (6, 4 // groups, 3, 3), (6,)])
    got, want = (
        L.nn.functional.conv2d(
            L.tensor(x),
            L.tensor(w),
            L.tensor(b) if bias else None,
            stride=(2, 1),
            padding=1,
            dilation=(1, 2),
            groups=groups,
        )
        .float()
        .numpy()
        for L in (mt, torch)
    )
    # summing in another order moves a rare element by one ulp; a float16 accumulation moves most of them
    assert np.mean(got == want) > 0.97
    np.testing.assert_allclose(got, want, rtol=ULP["float16"], atol=ULP["float16"])
