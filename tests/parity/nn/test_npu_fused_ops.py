"""The fused ops torch_npu exposes (npu_rotary_mul, npu_swiglu, npu_grouped_matmul) against the same math
written with PyTorch's own ops, forward and backward, over the layouts and dtypes torch_npu documents."""

from helpers import torch_or_skip

torch = torch_or_skip()

import itertools  # noqa: E402

import mindtorch  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from helpers import assert_same, check_grad, to_torch  # noqa: E402

# half precision: the fused ops compute in float32 and round once, so compare with PyTorch in float32
TOL = {"float32": (1e-5, 1e-5), "float64": (1e-12, 1e-12), "float16": (2e-3, 2e-3), "bfloat16": (2e-2, 2e-2)}


def leaf(shape, dtype, lo=-2.0, hi=2.0, seed=0):
    a = np.random.default_rng(seed).uniform(lo, hi, shape)
    m = mindtorch.tensor(a, dtype=getattr(mindtorch, dtype)).requires_grad_()
    return m, to_torch(m).detach().float().requires_grad_() if dtype in ("float16", "bfloat16") else to_torch(m)


def backward_both(ym, yt, seed=9):
    g = np.random.default_rng(seed).standard_normal(tuple(yt.shape))
    ym.backward(mindtorch.tensor(g, dtype=ym.dtype))
    yt.backward(torch.tensor(g).to(yt.dtype))


def close(m, t, dtype, scale=1.0):
    rtol, atol = TOL[dtype]
    assert_same(m, t.to(getattr(torch, dtype)), rtol=rtol * scale, atol=atol * scale)


# --- rotary embedding ---------------------------------------------------------------------------
def torch_rotate(x, mode):
    if mode == "half":
        x1, x2 = torch.chunk(x, 2, dim=-1)
        return torch.cat((-x2, x1), dim=-1)
    return torch.stack((-x[..., 1::2], x[..., ::2]), dim=-1).reshape(x.shape)


# (x shape, r shape) per layout torch_npu's doc lists: BNSD, BSND, SBND, TND and their broadcast r's
B, N, S, D = 2, 3, 5, 8
LAYOUTS = [
    ((B, N, S, D), (1, 1, S, D)),
    ((B, N, S, D), (B, 1, S, D)),
    ((B, N, S, D), (B, N, S, D)),
    ((B, S, N, D), (1, S, 1, D)),
    ((B, S, N, D), (B, S, 1, D)),
    ((S, B, N, D), (S, 1, 1, D)),
    ((S, B, N, D), (S, B, 1, D)),
    ((7, N, D), (7, 1, D)),
    ((7, N, D), (7, N, D)),
]


@pytest.mark.parametrize("mode", ["half", "interleave"])
@pytest.mark.parametrize("xs, rs", LAYOUTS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_rotary_mul_matches_torch(mode, xs, rs, dtype):
    x, xt = leaf(xs, dtype, seed=1)
    r1, r1t = leaf(rs, dtype, lo=-1, hi=1, seed=2)
    r2, r2t = leaf(rs, dtype, lo=-1, hi=1, seed=3)
    ym = mindtorch.ops._rotary_mul(x, r1, r2, mode)
    yt = xt * r1t + torch_rotate(xt, mode) * r2t
    assert ym.dtype is x.dtype
    close(ym, yt, dtype)
    backward_both(ym, yt)
    reduced = max(np.prod(xs) // np.prod(rs), 1)  # the r gradients sum this many products
    close(x.grad, xt.grad, dtype)
    close(r1.grad, r1t.grad, dtype, scale=reduced)
    close(r2.grad, r2t.grad, dtype, scale=reduced)


def test_rotary_mul_mixed_dtypes_compute_in_the_input_dtype():
    x, xt = leaf((2, 4, 6), "float32", seed=1)
    r1, r2 = (mindtorch.tensor(np.random.default_rng(s).uniform(-1, 1, (4, 6))) for s in (2, 3))
    ym = mindtorch.ops._rotary_mul(x, r1, r2)
    r1t, r2t = to_torch(r1).float(), to_torch(r2).float()
    assert ym.dtype is mindtorch.float32
    assert_same(ym, xt * r1t + torch_rotate(xt, "half") * r2t)


@pytest.mark.parametrize("mode", ["half", "interleave"])
def test_rotary_mul_gradcheck(mode):
    x, _ = leaf((2, 3, 4), "float64", seed=1)
    r1, _ = leaf((3, 4), "float64", seed=2)
    r2, _ = leaf((2, 1, 4), "float64", seed=3)
    check_grad(lambda a, b, c: mindtorch.ops._rotary_mul(a, b, c, mode), x, r1, r2)
    g, _ = leaf((2, 3, 4), "float64", seed=4)
    check_grad(lambda gg: mindtorch.ops._rotary_mul_backward(gg, x, r1, r2, mode), g)


@pytest.mark.parametrize(
    "xs, r1s, r2s, mode",
    [
        ((2, 3, 8), (3, 8), (3, 8), "quarter"),  # not a mode
        ((2, 3, 7), (3, 7), (3, 7), "half"),  # odd last dim
        ((2, 3, 8), (2, 8), (3, 8), "half"),  # r1 does not broadcast to x
        ((2, 3, 8), (3, 8), (2, 2, 3, 8), "interleave"),  # r2 has more dims than x
    ],
)
def test_rotary_mul_refusals(xs, r1s, r2s, mode):
    x, r1, r2 = mindtorch.zeros(xs), mindtorch.zeros(r1s), mindtorch.zeros(r2s)
    with pytest.raises(RuntimeError):
        mindtorch.ops._rotary_mul(x, r1, r2, mode)


def test_rotary_mul_refuses_integers():
    with pytest.raises(RuntimeError, match="floating-point"):
        mindtorch.ops._rotary_mul(mindtorch.zeros(2, 4, dtype=mindtorch.int64), mindtorch.zeros(4), mindtorch.zeros(4))


# --- SwiGLU -------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape, dim", [((4, 10), -1), ((3, 6, 5), 1), ((4, 2, 3), 0), ((2, 3, 2, 16), -1)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_swiglu_matches_torch(shape, dim, dtype):
    x, xt = leaf(shape, dtype, lo=-4, hi=4, seed=1)
    ym = mindtorch.ops._swiglu(x, dim)
    a, b = xt.chunk(2, dim)
    yt = torch.nn.functional.silu(a) * b
    assert ym.dtype is x.dtype
    close(ym, yt, dtype)
    backward_both(ym, yt)
    close(x.grad, xt.grad, dtype, scale=4)


def test_swiglu_gradcheck_and_default_dim():
    x, _ = leaf((3, 4, 6), "float64", lo=-3, hi=3, seed=1)
    check_grad(lambda a: mindtorch.ops._swiglu(a), x)
    check_grad(lambda a: mindtorch.ops._swiglu(a, -2), x)
    g, _ = leaf((3, 4, 3), "float64", seed=2)
    check_grad(lambda gg: mindtorch.ops._swiglu_backward(gg, x, 2), g)
    assert mindtorch.ops._swiglu(x).shape == (3, 4, 3)


@pytest.mark.parametrize("shape, dim, exc", [((3, 5), -1, RuntimeError), ((4, 6), 2, IndexError)])
def test_swiglu_refusals(shape, dim, exc):
    with pytest.raises(exc):
        mindtorch.ops._swiglu(mindtorch.zeros(shape), dim)


# --- grouped matmul -----------------------------------------------------------------------------
def torch_grouped_matmul(x, w, ends):
    out, start = [], 0
    for g, end in enumerate(ends):
        out.append(x[start:end] @ w[g])
        start = end
    out.append(x.new_zeros((x.shape[0] - start, w.shape[2])))
    return torch.cat(out)


# every partition of 6 rows into 3 groups (empty groups included), and ends short of the last row
GROUPINGS = [list(c) for c in itertools.combinations_with_replacement(range(7), 3) if c[-1] in (4, 6)]


@pytest.mark.parametrize("ends", GROUPINGS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
def test_grouped_matmul_matches_torch(ends, dtype):
    x, xt = leaf((6, 5), dtype, seed=1)
    w, wt = leaf((3, 5, 4), dtype, seed=2)
    ym = mindtorch.ops._grouped_matmul(x, w, mindtorch.tensor(ends))
    yt = torch_grouped_matmul(xt, wt, ends)
    close(ym, yt, dtype, scale=4)
    backward_both(ym, yt)
    close(x.grad, xt.grad, dtype, scale=4)
    close(w.grad, wt.grad, dtype, scale=4)


def test_grouped_matmul_gradcheck():
    x, _ = leaf((6, 3), "float64", seed=1)
    w, _ = leaf((4, 3, 2), "float64", seed=2)
    ends = mindtorch.tensor([1, 1, 4, 5])
    check_grad(lambda a, b: mindtorch.ops._grouped_matmul(a, b, ends), x, w)


@pytest.mark.parametrize(
    "xs, ws, ends",
    [
        ((6, 3), (2, 3, 4), [4, 2]),  # decreasing
        ((6, 3), (2, 3, 4), [4, 7]),  # past the last row
        ((6, 3), (2, 3, 4), [-1, 4]),  # negative
        ((6, 3), (2, 4, 4), [3, 6]),  # K differs
        ((6, 3), (2, 3, 4), [6]),  # one end for two groups
        ((6, 3), (3, 4), [6]),  # 2-D weight
    ],
)
def test_grouped_matmul_refusals(xs, ws, ends):
    x, w = mindtorch.ones(xs), mindtorch.ones(ws)
    with pytest.raises(RuntimeError):
        mindtorch.ops._grouped_matmul(x, w, mindtorch.tensor(ends))


def test_grouped_matmul_refuses_int32_group_list():
    with pytest.raises(RuntimeError, match="int64"):
        mindtorch.ops._grouped_matmul(
            mindtorch.ones(4, 2), mindtorch.ones(1, 2, 2), mindtorch.tensor([4], dtype=mindtorch.int32)
        )
