"""torch.* functions programs call that the table lacked: PyTorch's long-name aliases,
number-theory and floating-point kernels, products, statistics, order statistics and scatters; values,
dtypes, errors and gradients against PyTorch."""

from helpers import torch_or_skip

torch = torch_or_skip()

import warnings  # noqa: E402

import mindtorch  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from helpers import assert_same  # noqa: E402

RS = np.random.RandomState(3)
A = RS.randn(3, 4)
B = RS.randn(3, 4)
I = RS.randint(-20, 30, (3, 4))
J = RS.randint(1, 15, (3, 4))
V = RS.randn(4)
W = RS.randn(4)
M3 = RS.randn(3, 3)
BA = RS.randn(2, 3, 4)
BB = RS.randn(2, 4, 5)
C35 = RS.randn(3, 5)
LEAVES = []
NAN = np.array([[1.0, np.nan, 3.0, 2.0], [4.0, 2.0, 2.0, 7.0], [np.nan, np.nan, 1.0, 0.0]])


def t(L, x, dtype=None, grad=False):
    out = L.tensor(x, dtype=dtype)
    if grad:
        LEAVES.append(out.requires_grad_())
    return out


# name -> fn(L, grad) returning a tensor (or tuple); `grad` builds float64 leaves that require grad
CASES = {
    "multiply": lambda L, g: L.multiply(t(L, A, grad=g), t(L, B, grad=g)),
    "multiply_scalar": lambda L, g: L.multiply(t(L, A, grad=g), 3),
    "divide_floor": lambda L, g: L.divide(t(L, I), t(L, J), rounding_mode="floor"),
    "divide": lambda L, g: L.divide(t(L, A, grad=g), t(L, B, grad=g)),
    "true_divide_int": lambda L, g: L.true_divide(t(L, I), t(L, J)),
    "subtract": lambda L, g: L.subtract(t(L, A, grad=g), t(L, B, grad=g), alpha=2),
    "rsub": lambda L, g: L.rsub(t(L, A, grad=g), t(L, B, grad=g), alpha=3),
    "method_multiply_": lambda L, g: t(L, A).multiply_(2),
    "gcd": lambda L, g: L.gcd(t(L, I), t(L, J)),
    "lcm": lambda L, g: L.lcm(t(L, I), t(L, J)),
    "gcd_float": lambda L, g: L.gcd(t(L, A), t(L, B)),
    "hypot": lambda L, g: L.hypot(t(L, A, grad=g), t(L, B, grad=g)),
    "hypot_int": lambda L, g: L.hypot(t(L, I), t(L, J)),
    "logaddexp": lambda L, g: L.logaddexp(t(L, A * 50, grad=g), t(L, B, grad=g)),
    "logaddexp2": lambda L, g: L.logaddexp2(t(L, A, grad=g), t(L, B * 40, grad=g)),
    "copysign": lambda L, g: L.copysign(t(L, A, grad=g), t(L, B, grad=g)),
    "copysign_scalar": lambda L, g: L.copysign(t(L, I), -1.0),
    "nextafter": lambda L, g: L.nextafter(t(L, A), t(L, B)),
    "nextafter_half": lambda L, g: L.nextafter(t(L, A, L.bfloat16), t(L, B, L.bfloat16)).float(),
    "frexp": lambda L, g: tuple(L.frexp(t(L, A * 100))),
    "frexp_int": lambda L, g: L.frexp(t(L, I)),
    "deg2rad": lambda L, g: L.deg2rad(t(L, A, grad=g)),
    "rad2deg_int": lambda L, g: L.rad2deg(t(L, I)),
    "heaviside": lambda L, g: L.heaviside(t(L, np.round(A)), t(L, 0.5)),
    "heaviside_dtypes": lambda L, g: L.heaviside(t(L, A), t(L, I)),
    "ldexp": lambda L, g: L.ldexp(t(L, A, grad=g), t(L, J)),
    "xlogy": lambda L, g: L.xlogy(t(L, A, grad=g), t(L, np.abs(B), grad=g)),
    "sinc": lambda L, g: L.sinc(t(L, A, grad=g)),
    "hardshrink": lambda L, g: L.hardshrink(t(L, A, grad=g), 0.4),
    "fill": lambda L, g: L.fill(t(L, A), 2.5),
    "trace": lambda L, g: L.trace(t(L, M3, grad=g)),
    "trace_int": lambda L, g: L.trace(t(L, I)),
    "trace_3d": lambda L, g: L.trace(t(L, BA)),
    "kron": lambda L, g: L.kron(t(L, A, grad=g), t(L, M3, grad=g)),
    "kron_1d_3d": lambda L, g: L.kron(t(L, V, grad=g), t(L, BA, grad=g)),
    "inner": lambda L, g: L.inner(t(L, A, grad=g), t(L, B, grad=g)),
    "inner_scalar": lambda L, g: L.inner(t(L, A, grad=g), t(L, 2.0)),
    "inner_mismatch": lambda L, g: L.inner(t(L, A), t(L, M3)),
    "tensordot_int": lambda L, g: L.tensordot(t(L, BA, grad=g), t(L, BB.transpose(1, 0, 2), grad=g), 1),
    "tensordot_lists": lambda L, g: L.tensordot(t(L, BA, grad=g), t(L, BB, grad=g), ([0, 2], [0, 1])),
    "tensordot_mismatch": lambda L, g: L.tensordot(t(L, BA), t(L, BB), ([1], [1])),
    "vdot": lambda L, g: L.vdot(t(L, V, grad=g), t(L, W, grad=g)),
    "vdot_complex": lambda L, g: L.vdot(t(L, V + 1j * W), t(L, W - 2j * V)),
    "addr": lambda L, g: L.addr(t(L, A, grad=g), t(L, V[:3], grad=g), t(L, W, grad=g), beta=0.5, alpha=2),
    "addbmm": lambda L, g: L.addbmm(t(L, C35, grad=g), t(L, BA, grad=g), t(L, BB, grad=g)),
    "dist": lambda L, g: L.dist(t(L, A, grad=g), t(L, B, grad=g)),
    "dist_p1": lambda L, g: L.dist(t(L, A, grad=g), t(L, B, grad=g), 1),
    "cov": lambda L, g: L.cov(t(L, A, grad=g)),
    "cov_1d": lambda L, g: L.cov(t(L, V, grad=g)),
    "cov_weights": lambda L, g: L.cov(
        t(L, A, grad=g), correction=0, fweights=t(L, [1, 2, 1, 3]), aweights=t(L, [0.5, 1.0, 2.0, 1.0])
    ),
    "corrcoef": lambda L, g: L.corrcoef(t(L, A, grad=g)),
    "cartesian_prod": lambda L, g: L.cartesian_prod(t(L, V[:2], grad=g), t(L, W[:3], grad=g)),
    "combinations": lambda L, g: L.combinations(t(L, V, grad=g), 3),
    "combinations_repl": lambda L, g: L.combinations(t(L, V[:3], grad=g), 2, with_replacement=True),
    "diag_embed": lambda L, g: L.diag_embed(t(L, A, grad=g), 1, 0, 2),
    "diagflat": lambda L, g: L.diagflat(t(L, A, grad=g), -1),
    "vander": lambda L, g: L.vander(t(L, V, grad=g), 3),
    "vander_inc": lambda L, g: L.vander(t(L, J[0]), increasing=True),
    "trapezoid": lambda L, g: L.trapezoid(t(L, A, grad=g)),
    "trapezoid_x": lambda L, g: L.trapezoid(t(L, A, grad=g), t(L, np.cumsum(np.abs(V)))),
    "trapz_dx": lambda L, g: L.trapz(t(L, A, grad=g), dx=0.3, dim=0),
    "cumulative_trapezoid": lambda L, g: L.cumulative_trapezoid(t(L, A, grad=g), dim=0),
    "median": lambda L, g: L.median(t(L, A, grad=g)),
    "median_even": lambda L, g: L.median(t(L, V)),
    "median_dim": lambda L, g: tuple(L.median(t(L, A, grad=g), 1)),
    "median_nan": lambda L, g: L.median(t(L, NAN)),
    "median_nan_dim": lambda L, g: tuple(L.median(t(L, NAN), 1)),
    "nanmedian": lambda L, g: L.nanmedian(t(L, NAN)),
    "nanmedian_dim": lambda L, g: tuple(L.nanmedian(t(L, NAN), 1)),
    "median_int": lambda L, g: tuple(L.median(t(L, I), 0, keepdim=True)),
    "kthvalue": lambda L, g: tuple(L.kthvalue(t(L, A, grad=g), 2)),
    "kthvalue_dim0": lambda L, g: tuple(L.kthvalue(t(L, A, grad=g), 3, 0, True)),
    "kthvalue_range": lambda L, g: L.kthvalue(t(L, A), 9),
    "mode": lambda L, g: tuple(L.mode(t(L, [[1, 2, 2, 3, 3, 0], [5, 5, 1, 1, 1, 5]]))),
    "msort": lambda L, g: L.msort(t(L, A, grad=g)),
    "logcumsumexp": lambda L, g: L.logcumsumexp(t(L, A * 30, grad=g), 1),
    "logcumsumexp_inf": lambda L, g: L.logcumsumexp(t(L, [-np.inf, 0.0, -np.inf, 2.0]), 0),
    "histc": lambda L, g: L.histc(t(L, A), 5),
    "histc_range": lambda L, g: L.histc(t(L, A), 4, -1, 1),
    "histc_int": lambda L, g: L.histc(t(L, I)),
    "select_scatter": lambda L, g: L.select_scatter(t(L, A, grad=g), t(L, V, grad=g), 0, 1),
    "slice_scatter": lambda L, g: L.slice_scatter(t(L, A, grad=g), t(L, B[:, :2], grad=g), 1, 1, 4, 2),
    "diagonal_scatter": lambda L, g: L.diagonal_scatter(t(L, M3, grad=g), t(L, V[:3], grad=g)),
    "select_scatter_bad": lambda L, g: L.select_scatter(t(L, A), t(L, V[:3]), 0, 1),
    "masked_scatter": lambda L, g: L.masked_scatter(t(L, A, grad=g), t(L, A > 0), t(L, B, grad=g)),
    "put": lambda L, g: L.put(t(L, A, grad=g), t(L, [0, 5, 11]), t(L, V[:3], grad=g)),
    "put_accumulate": lambda L, g: L.put(t(L, A), t(L, [0, 0, 11]), t(L, V[:3]), accumulate=True),
    "split_with_sizes": lambda L, g: L.split_with_sizes(t(L, A), [1, 3], 1),
    "asarray": lambda L, g: L.asarray([[1, 2], [3, 4]], dtype=L.float64),
    "asarray_numpy": lambda L, g: L.asarray(A),
    # second batch
    "cross": lambda L, g: L.cross(t(L, BA[:, :3, :3], grad=g), t(L, BB[:, :3, :3], grad=g), dim=1),
    "cross_default_dim": lambda L, g: L.cross(t(L, M3, grad=g), t(L, M3.T.copy(), grad=g)),
    "linalg_cross": lambda L, g: L.linalg.cross(t(L, M3, grad=g), t(L, V[:3], grad=g)),
    "cross_bad": lambda L, g: L.linalg.cross(t(L, A), t(L, B)),
    "ravel": lambda L, g: L.ravel(t(L, A, grad=g).t()),
    "fliplr": lambda L, g: L.fliplr(t(L, A, grad=g)),
    "flipud": lambda L, g: L.flipud(t(L, V, grad=g)),
    "fliplr_1d": lambda L, g: L.fliplr(t(L, V)),
    "adjoint": lambda L, g: L.adjoint(t(L, BA, grad=g)),
    "adjoint_complex": lambda L, g: L.adjoint(t(L, A + 1j * B)),
    "chain_matmul": lambda L, g: L.chain_matmul(t(L, A, grad=g), t(L, B.T.copy(), grad=g), t(L, M3, grad=g)),
    "renorm": lambda L, g: L.renorm(t(L, A, grad=g), 2, 0, 1.5),
    "renorm_p1": lambda L, g: L.renorm(t(L, A, grad=g), 1, 1, 0.5),
    "nuclear_norm": lambda L, g: L.nuclear_norm(t(L, A)),
    "frobenius_norm": lambda L, g: L.frobenius_norm(t(L, BA, grad=g), [1, 2]),
    "gradient": lambda L, g: L.gradient(t(L, A, grad=g)),
    "gradient_dim_spacing": lambda L, g: L.gradient(t(L, A, grad=g), spacing=0.5, dim=1, edge_order=2),
    "gradient_coordinates": lambda L, g: L.gradient(t(L, V, grad=g), spacing=(t(L, np.cumsum(np.abs(W)) + 1),)),
    "unique_consecutive": lambda L, g: L.unique_consecutive(
        t(L, [1, 1, 2, 2, 3, 1, 1]), return_inverse=True, return_counts=True
    ),
    "unique_consecutive_dim": lambda L, g: L.unique_consecutive(
        t(L, [[1, 1, 2], [1, 1, 2], [0, 1, 2]]), dim=0, return_counts=True
    ),
    "unravel_index": lambda L, g: L.unravel_index(t(L, [0, 5, 7, 23]), (2, 3, 4)),
    "unravel_index_bad": lambda L, g: L.unravel_index(t(L, [24]), (2, 3, 4)),
    "histogram": lambda L, g: tuple(L.histogram(t(L, A), 5)),
    "histogram_range_weight": lambda L, g: tuple(
        L.histogram(t(L, A), 4, range=(-1.0, 1.0), weight=t(L, B), density=True)
    ),
    "histogram_edges": lambda L, g: tuple(L.histogram(t(L, A), t(L, [-2.0, 0.0, 0.5, 2.0]))),
    "hann_window": lambda L, g: L.hann_window(7),
    "hann_symmetric": lambda L, g: L.hann_window(6, False),
    "hamming_window": lambda L, g: L.hamming_window(8, dtype=L.float64),
    "blackman_window": lambda L, g: L.blackman_window(5, False, dtype=L.float64),
    "bartlett_window": lambda L, g: L.bartlett_window(9),
    "kaiser_window": lambda L, g: L.kaiser_window(10, True, 6.0, dtype=L.float64),
    "window_len1": lambda L, g: L.hamming_window(1),
    "window_int": lambda L, g: L.hann_window(4, dtype=L.int64),
    "view_copy": lambda L, g: L.view_copy(t(L, A, grad=g), (4, 3)),
    "permute_copy": lambda L, g: L.permute_copy(t(L, BA, grad=g), (2, 0, 1)),
    "split_copy": lambda L, g: L.split_copy(t(L, A, grad=g), 2, 1),
    "nonzero_static": lambda L, g: L.nonzero_static(t(L, I > 0), size=20),
    "nonzero_static_short": lambda L, g: L.nonzero_static(t(L, I > 0), size=2, fill_value=-5),
    "native_dropout_eval": lambda L, g: L.native_dropout(t(L, A), 0.5, False),
    "vmap": lambda L, g: L.vmap(lambda x, y: (x * y).sum(), in_dims=(0, None))(t(L, A, grad=g), t(L, V, grad=g)),
    "vmap_out_dims": lambda L, g: L.vmap(lambda x: (x, x * 2), out_dims=(0, 1))(t(L, A)),
    "func_grad": lambda L, g: L.func.grad(lambda x: (x.sin() * x).sum())(t(L, A)),
    "func_grad_and_value": lambda L, g: L.func.grad_and_value(lambda x, y: (x * y).sum(), argnums=(0, 1))(
        t(L, V), t(L, W)
    ),
    "functional_call": lambda L, g: _functional_call(L),
    "scatter_reduce_sum": lambda L, g: L.scatter_reduce(t(L, A, grad=g), 1, t(L, J % 4), t(L, B, grad=g), "sum"),
    "scatter_reduce_mean": lambda L, g: L.scatter_reduce(
        t(L, A, grad=g), 1, t(L, J % 4), t(L, B, grad=g), "mean", include_self=False
    ),
    "scatter_reduce_amax": lambda L, g: L.scatter_reduce(t(L, A, grad=g), 1, t(L, J % 4), t(L, B, grad=g), "amax"),
    "scatter_reduce_amin": lambda L, g: L.scatter_reduce(
        t(L, A, grad=g), 1, t(L, J % 4), t(L, B, grad=g), "amin", include_self=False
    ),
    "scatter_reduce_prod": lambda L, g: L.scatter_reduce(t(L, A, grad=g), 1, t(L, J % 4), t(L, B, grad=g), "prod"),
    "scatter_reduce_int_mean": lambda L, g: L.scatter_reduce(t(L, I), 1, t(L, J % 4), t(L, J), "mean"),
    "scatter_reduce_method_": lambda L, g: t(L, A).scatter_reduce_(0, t(L, J % 3), t(L, B), "amax"),
    "scatter_reduce_bad": lambda L, g: L.scatter_reduce(t(L, A), 1, t(L, J % 4), t(L, B), "max"),
}


def _functional_call(L):
    L.manual_seed(0)
    lin = L.nn.Linear(4, 2).double()
    params = {"weight": t(L, np.arange(8.0).reshape(2, 4) / 10), "bias": t(L, [0.5, -0.5])}
    out = L.func.functional_call(lin, params, (t(L, A),))
    return out, lin.weight.shape


def _outcome(L, name, grad=False):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return CASES[name](L, grad)
        except Exception as exc:
            return exc


@pytest.mark.parametrize("name", sorted(CASES))
def test_values(name):
    want, got = _outcome(torch, name), _outcome(mindtorch, name)
    if isinstance(want, Exception) or isinstance(got, Exception):
        assert type(got) is type(want), (got, want)
        return
    wide = [w for w in (want if isinstance(want, (tuple, list)) else (want,)) if hasattr(w, "dtype")]
    tight = all(w.dtype in (torch.float64, torch.complex128) or not w.is_floating_point() for w in wide)
    assert_same(got, want, rtol=1e-10 if tight else 3e-7, atol=1e-12 if tight else 1e-7)


def _leaves_grads(L, name):
    LEAVES.clear()
    out = _outcome(L, name, grad=True)
    if isinstance(out, Exception):
        return None
    outs = out if isinstance(out, (tuple, list)) else (out,)
    outs = [o for o in outs if hasattr(o, "requires_grad") and o.requires_grad]
    if not outs:
        return None
    leaves = list(LEAVES)
    loss = sum((o * L.tensor(np.cos(np.arange(o.numel())).reshape(tuple(o.shape)))).sum() for o in outs)
    return L.autograd.grad(loss, leaves)


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradients(name):
    try:
        want = _leaves_grads(torch, name)
    except RuntimeError as exc:  # vander: PyTorch's own backward trips over its in-place cumprod
        pytest.skip(f"PyTorch's backward fails: {exc}"[:120])
    if want is None:
        pytest.skip("no gradient in PyTorch")
    got = _leaves_grads(mindtorch, name)
    assert got is not None and len(got) == len(want)
    for g, w in zip(got, want):
        assert_same(g, w, rtol=1e-8, atol=1e-10)
