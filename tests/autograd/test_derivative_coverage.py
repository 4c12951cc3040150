"""Every differentiable op in the table has a derivative formula, and the formulas pass gradcheck."""

import mindtorch as torch
import numpy as np
from mindtorch.autograd import gradcheck
from mindtorch.ops import special as special_ops
from mindtorch.ops.registry import OPS

# Ops that legitimately have no derivative (PyTorch treats them as non-differentiable:
# integer/bool results, indices, or sampling). The in-place form `name_` is covered too.
NON_DIFFERENTIABLE = {
    # comparisons and predicates: bool results
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "greater",
    "greater_equal",
    "less",
    "less_equal",
    "not_equal",
    "isclose",
    "isfinite",
    "isinf",
    "isnan",
    "isneginf",
    "isposinf",
    "isreal",
    "signbit",
    "equal",
    "logical_and",
    "logical_or",
    "logical_xor",
    "logical_not",
    "all",
    "any",
    # integer-only arithmetic
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "bitwise_not",
    "bitwise_left_shift",
    "bitwise_right_shift",
    "gcd",
    "lcm",
    # floating-point bit manipulation: PyTorch defines no derivative
    "nextafter",
    "_frexp",
    # indices and counts
    "argmax",
    "argmin",
    "argwhere",
    "argsort",
    "nonzero",
    "count_nonzero",
    "searchsorted",
    "bucketize",
    "_bincount",
    "bincount",
    "_unique",
    "unique",
    "unique_consecutive",
    "histc",
    # sampling (random draws have no gradient w.r.t. their parameters in PyTorch)
    "multinomial",
    "bernoulli",
    "poisson",
    "normal",
    "uniform_",
    "normal_",
    "random_",
    "exponential_",
    "geometric_",
    "log_normal_",
    "cauchy_",
    "randint_like",
    "rand_like",
    "randn_like",
    # in-place renormalisation of an embedding table under no_grad
    "_embedding_renorm_",
    # special functions whose results PyTorch does not make require grad: the polynomials, and the Bessel and
    # Airy functions but for the four with a gradient
    *(f"special_{n}" for n in special_ops.POLYNOMIALS),
    *(set(special_ops.UNARY) - {"special_erfcx", "special_i0e", "special_i1", "special_i1e"}),
}

# Differentiable in PyTorch but no formula yet: each entry is a bug to fix (kept visible here so that
# this test still fails for any *new* op without a formula).
KNOWN_MISSING = {
    "linalg_svdvals",
    # PyTorch 2.13 declares these differentiable but raises "not implemented" in backward too
    "linalg_ldl_factor_ex",
    "linalg_ldl_solve",
}


def _needs_formula(op):
    if not op.tensor_params or op.view_fn is not None or op.composite is not None:
        return False
    base = op.name[:-1] if op.name.endswith("_") and not op.name.startswith("_") else op.name
    return op.name not in NON_DIFFERENTIABLE and base not in NON_DIFFERENTIABLE


def test_every_differentiable_op_has_a_derivative():
    missing = sorted(
        q for q, op in OPS.items() if _needs_formula(op) and op.derivative is None and op.name not in KNOWN_MISSING
    )
    assert not missing, f"ops without a derivative formula (add grad=... or list them above): {missing}"


def test_allow_list_detects_a_new_op():
    # the rule itself must flag a differentiable-looking op without a formula
    class Fake:
        name = "brand_new_op"
        tensor_params = (0,)
        view_fn = None
        composite = None
        derivative = None

    assert _needs_formula(Fake)
    Fake.name = "eq_"
    assert not _needs_formula(Fake)


def _x(shape=(2, 3), lo=0.2, hi=0.8, seed=0):
    rng = np.random.default_rng(seed)
    return torch.tensor(rng.uniform(lo, hi, shape), dtype=torch.float64).requires_grad_()


def _v(values):
    return torch.tensor(np.asarray(values, dtype=np.float64), dtype=torch.float64).requires_grad_()


def _i(values):
    """A fixed int64 index tensor (not differentiable, never perturbed)."""
    return torch.tensor(values, dtype=torch.int64)


def _gen():
    g = torch.Generator()
    g.manual_seed(1234)
    return g


_DISTINCT = [[0.3, 0.9, 0.1], [0.7, 0.2, 0.5]]
_DISTINCT_NOISE = np.array([0.0, 0.013, 0.027, 0.041, 0.002, 0.033, 0.019, 0.008, 0.046]).reshape(1, 1, 3, 3)
_MASK = torch.tensor([[True, False, True], [False, False, True]])
# stride, padding (top, bottom, left, right), dilation, groups
_CONV = ([2, 1], [1, 0, 0, 1], [1, 2], 2)
# kernel, stride, padding, ceil_mode, count_include_pad, divisor_override
_AVG = ([2, 2], [1, 1], [1, 1], False, False, None)


# Explicit samples: op qualname -> (fn, inputs). Ops not listed get an automatic sample when all their
# required parameters are tensors (unary: one (2,3) input in (0.2, 0.8); binary: two).
def _pieces(parts, *keep):
    """The kept pieces of a split, scaled apart so a gradient routed to the wrong piece shows."""
    return tuple(parts[k] * (k + 1) for k in keep)


SAMPLES = {
    # fused gelu kernels: both forms, on both sides of zero (the float64 path must be exact)
    "gelu": lambda: (lambda a: (torch.gelu(a), torch.gelu(a, approximate="tanh")), (_x(lo=-2.5, hi=2.5),)),
    "gelu_backward": lambda: (
        lambda g, a: (torch.ops.gelu_backward(g, a), torch.ops.gelu_backward(g, a, approximate="tanh")),
        (_x(seed=1), _x(lo=-2.5, hi=2.5)),
    ),
    # relu's gradient: linear in grad_output, the mask from self (values kept away from the threshold)
    "threshold_backward": lambda: (
        lambda g, x: (torch.ops.threshold_backward(g, x.detach(), 0), torch.ops.threshold_backward(g, x.detach(), 0.5)),
        (_x(seed=1), _x(lo=-1.0, hi=0.4)),
    ),
    # fused attention: causal, boolean and additive masks, L != S, grouped heads, dropout
    "_scaled_dot_product_attention": lambda: (
        lambda q, k, v: (
            torch.ops._scaled_dot_product_attention(q, k, v, None, True, 0.7)[0],
            torch.ops._scaled_dot_product_attention(q, k, v, _i([[1, 0, 1]]).bool(), False, 0.5)[0],
            torch.ops._scaled_dot_product_attention(q[:, :2], k, v, _v([[0.1, -0.4, 0.2]]).detach(), False, 1.0)[0],
            torch.ops._scaled_dot_product_attention(q, k[:1], v[:1], None, False, 0.6)[0],
            torch.ops._scaled_dot_product_attention(
                q, k, v, None, False, 0.6, _i([[1, 0, 1]] * 6).bool().view(2, 3, 3), 0.25
            )[0],
        ),
        (_x((2, 3, 4), lo=-1, hi=1), _x((2, 3, 4), lo=-1, hi=1, seed=1), _x((2, 3, 5), seed=2)),
    ),
    # fused recurrent layer: LSTM with projection (packed, reversed), GRU (packed), tanh RNN without biases
    "_rnn_layer": lambda: (
        lambda x, h, c, wi, wh, bi, bh, wr: (
            *torch.ops._rnn_layer(x, h, c, wi, wh, bi, bh, wr, [3, 2, 1], "LSTM", True)[:3],
            *torch.ops._rnn_layer(x, h, None, wi[:6], wh[:6], bi[:6], bh[:6], None, [3, 2, 1], "GRU", False)[:2],
            *torch.ops._rnn_layer(x, h, None, wi[:2], wh[:2], None, None, None, [3, 3], "RNN_TANH", False)[:2],
        ),
        (
            _x((6, 2), lo=-1, hi=1),
            _x((3, 2), lo=-1, hi=1, seed=1),
            _x((3, 3), lo=-1, hi=1, seed=2),
            _x((12, 2), lo=-1, hi=1, seed=3),
            _x((12, 2), lo=-1, hi=1, seed=4),
            _x((12,), lo=-1, hi=1, seed=5),
            _x((12,), lo=-1, hi=1, seed=6),
            _x((2, 3), lo=-1, hi=1, seed=7),
        ),
    ),
    # fused cross entropy: mean with an ignored target, sum with class weights, none
    "_cross_entropy": lambda: (
        lambda x: (
            torch.ops._cross_entropy(x, _i([2, 0, -100, 1]), None, 1, -100)[0],
            torch.ops._cross_entropy(x, _i([2, 0, 1, 1]), _v([0.5, 2.0, 1.0]).detach(), 2, -100)[0],
            torch.ops._cross_entropy(x, _i([2, 0, 1, 1]), None, 0, -100)[0],
        ),
        (_x((4, 3), lo=-1, hi=1),),
    ),
    # fused softmax derivatives, along either dim (y stands for a softmax / log_softmax output)
    "_softmax_backward_data": lambda: (
        lambda g, y: (torch.ops._softmax_backward_data(g, y, 1), torch.ops._softmax_backward_data(g, y, 0)),
        (_x(seed=1), _x()),
    ),
    "_log_softmax_backward_data": lambda: (
        lambda g, y: (torch.ops._log_softmax_backward_data(g, y, 1), torch.ops._log_softmax_backward_data(g, y, 0)),
        (_x(seed=1), _x(lo=-2.0, hi=-0.2)),
    ),
    # one `sum` op covers the full and the per-dimension reduction
    "sum": lambda: (lambda a: (a.sum(), torch.sum(a, 1)), (_x(),)),
    "clone": lambda: (lambda a: a.clone(), (_x(),)),
    "_to_copy": lambda: (lambda a: torch.ops._to_copy(a, dtype=torch.float64), (_x(),)),
    "view": lambda: (lambda a: a.view(3, 2), (_x(),)),
    "transpose": lambda: (lambda a: a.transpose(0, 1), (_x(),)),
    "t": lambda: (lambda a: a.t(), (_x(),)),
    "permute": lambda: (lambda a: a.permute(1, 0), (_x(),)),
    "expand": lambda: (lambda a: a.expand(2, 2, 3), (_x(),)),
    "squeeze": lambda: (lambda a: a.squeeze(), (_x((2, 1, 3)),)),
    "squeeze.dims": lambda: (lambda a: a.squeeze(1), (_x((2, 1, 3)),)),
    "unsqueeze": lambda: (lambda a: a.unsqueeze(1), (_x(),)),
    "select.int": lambda: (lambda a: a.select(1, 2), (_x(),)),
    "narrow": lambda: (lambda a: a.narrow(1, 1, 2), (_x(),)),
    "diagonal": lambda: (lambda a: a.diagonal(), (_x((3, 3)),)),
    "unfold": lambda: (lambda a: a.unfold(1, 2, 1), (_x(),)),
    "alias": lambda: (lambda a: torch.ops.alias(a), (_x(),)),
    "as_strided": lambda: (lambda a: a.as_strided((2, 2), stride=(3, 1), storage_offset=1), (_x(),)),
    "acosh": lambda: (torch.acosh, (_x(lo=1.5, hi=2.5),)),
    "arccosh": lambda: (torch.arccosh, (_x(lo=1.5, hi=2.5),)),
    "clamp": lambda: (lambda a: torch.clamp(a, 0.3, 0.7), (_x(),)),
    "clip": lambda: (lambda a: torch.clip(a, 0.3, 0.7), (_x(),)),
    "clamp.Tensor": lambda: (lambda a, lo: torch.clamp(a, lo), (_x(), _x((3,), seed=1))),
    "clip.Tensor": lambda: (lambda a, lo: torch.clip(a, lo), (_x(), _x((3,), seed=1))),
    "bmm": lambda: (torch.bmm, (_x((2, 2, 3)), _x((2, 3, 2), seed=1))),
    "mm": lambda: (torch.mm, (_x(), _x((3, 2), seed=1))),
    "matmul": lambda: (torch.matmul, (_x(), _x((3, 2), seed=1))),
    "mv": lambda: (torch.mv, (_x(), _x((3,), seed=1))),
    "dot": lambda: (torch.dot, (_x((3,)), _x((3,), seed=1))),
    "roll": lambda: (lambda a: torch.roll(a, 1, 1), (_x(),)),
    "embedding": lambda: (lambda w: torch.embedding(w, torch.tensor([[0, 2], [1, 1]])), (_x((3, 2)),)),
    "add": lambda: (lambda a, b: torch.add(a, b, alpha=2.0), (_x(), _x((3,), seed=1))),
    "sub": lambda: (lambda a, b: torch.sub(a, b, alpha=0.5), (_x(), _x((3,), seed=1))),
    # --- pointwise --------------------------------------------------------------------------------
    "addcdiv": lambda: (
        lambda a, b, c: torch.addcdiv(a, b, c, value=0.5),
        (_x(), _x((3,), seed=1), _x((2, 1), seed=2)),
    ),
    "addcmul": lambda: (
        lambda a, b, c: torch.addcmul(a, b, c, value=-1.5),
        (_x(), _x((3,), seed=1), _x((2, 1), seed=2)),
    ),
    # values kept well away from the kink at 0.5
    "clamp_max": lambda: (lambda a: torch.clamp_max(a, 0.5), (_v([[0.2, 0.7, 0.4], [0.9, 0.3, 0.6]]),)),
    "clamp_min": lambda: (lambda a: torch.clamp_min(a, 0.5), (_v([[0.2, 0.7, 0.4], [0.9, 0.3, 0.6]]),)),
    "lerp": lambda: (torch.lerp, (_x(), _x((3,), seed=1), _x(seed=2))),
    "where": lambda: (lambda a, b: torch.where(_MASK, a, b), (_x(), _x((3,), seed=1))),
    # --- reductions and scans ---------------------------------------------------------------------
    # a zero in the second row exercises the zero branch of the cumprod derivative
    "cumprod": lambda: (lambda a: torch.cumprod(a, 1), (_v([[0.5, 0.3, 0.7], [0.4, 0.0, 0.6]]),)),
    "cumsum": lambda: (lambda a: torch.cumsum(a, 0), (_x(),)),
    "log_softmax": lambda: (lambda a: torch.log_softmax(a, 1), (_x(),)),
    "softmax": lambda: (lambda a: torch.softmax(a, 0), (_x(),)),
    "logsumexp": lambda: (lambda a: torch.logsumexp(a, [1]), (_x(),)),
    # distinct values: no ties in max/min/sort/topk
    "_max_dim": lambda: (lambda a: torch.ops._max_dim(a, 1, True), (_v(_DISTINCT),)),
    "_min_dim": lambda: (lambda a: torch.ops._min_dim(a, 0), (_v(_DISTINCT),)),
    "_sort": lambda: (lambda a: torch.ops._sort(a, 1, True), (_v(_DISTINCT),)),
    "_topk": lambda: (lambda a: torch.ops._topk(a, 2, 1, False), (_v(_DISTINCT),)),
    # --- indexing (index tensors are int64 constants, never perturbed) ------------------------------
    # the splits: some pieces unused, so the backward fills their gradients with zeros before the one cat
    "split": lambda: (lambda a: _pieces(torch.split(a, 2, 1), 0, 2), (_x((3, 5)),)),
    "split.sizes": lambda: (lambda a: _pieces(torch.split(a, [1, 3, 1], -1), 1), (_x((3, 5)),)),
    "split_with_sizes": lambda: (lambda a: _pieces(torch.split_with_sizes(a, [2, 1], 0), 0), (_x((3, 5)),)),
    "unsafe_split": lambda: (lambda a: _pieces(torch.unsafe_split(a, 2, 0), 1), (_x((3, 5)),)),
    "unsafe_split_with_sizes": lambda: (
        lambda a: _pieces(torch.unsafe_split_with_sizes(a, [4, 1], 1), 1),
        (_x((3, 5)),),
    ),
    "chunk": lambda: (lambda a: _pieces(torch.chunk(a, 3, 1), 2), (_x((3, 5)),)),
    "unsafe_chunk": lambda: (lambda a: _pieces(torch.unsafe_chunk(a, 2, 0), 0, 1), (_x((3, 5)),)),
    "unbind": lambda: (lambda a: _pieces(torch.unbind(a, 1), 0, 3), (_x((3, 5)),)),
    "cat": lambda: (lambda a, b: torch.cat([a, b], 1), (_x(), _x((2, 2), seed=1))),
    "stack": lambda: (lambda a, b: torch.stack([a, b], 1), (_x(), _x(seed=1))),
    "flip": lambda: (lambda a: torch.flip(a, [0, 1]), (_x(),)),
    "repeat": lambda: (lambda a: a.repeat(2, 1, 2), (_x(),)),
    "gather": lambda: (lambda a: torch.gather(a, 1, _i([[0, 0], [2, 1]])), (_x(),)),
    "index.Tensor": lambda: (lambda a: torch.ops.index(a, [None, _i([2, 0, 2])]), (_x(),)),
    "index_add": lambda: (
        lambda a, s: torch.index_add(a, 0, _i([0, 2, 0]), s, alpha=2.0),
        (_x((3, 2)), _x((3, 2), seed=1)),
    ),
    "index_copy": lambda: (lambda a, s: torch.index_copy(a, 0, _i([2, 0]), s), (_x((3, 2)), _x((2, 2), seed=1))),
    "index_fill.int_Scalar": lambda: (lambda a: torch.index_fill(a, 1, _i([0, 2]), 0.5), (_x(),)),
    "index_fill.int_Tensor": lambda: (lambda a, v: torch.index_fill(a, 1, _i([0, 2]), v), (_x(), _x(()))),
    # accumulate with a repeated index, and overwrite with distinct ones
    "index_put": lambda: (
        lambda a, v: (
            torch.index_put(a, (_i([0, 2, 0]),), v, accumulate=True),
            torch.index_put(a, (_i([2, 1]),), v[:2], accumulate=False),
        ),
        (_x((3, 2)), _x((3, 2), seed=1)),
    ),
    "index_select": lambda: (lambda a: torch.index_select(a, 1, _i([2, 0, 2])), (_x(),)),
    "masked_fill.Scalar": lambda: (lambda a: torch.masked_fill(a, _MASK, 0.5), (_x(),)),
    "masked_fill.Tensor": lambda: (lambda a, v: torch.masked_fill(a, _MASK, v), (_x(), _x(()))),
    # scatter without a reduction: distinct targets per row (duplicates are order-dependent)
    "scatter.src": lambda: (lambda a, s: torch.scatter(a, 1, _i([[2, 0], [1, 2]]), s), (_x(), _x((2, 2), seed=1))),
    "scatter.value": lambda: (lambda a: torch.scatter(a, 1, _i([[2, 0], [1, 2]]), 0.5), (_x(),)),
    "scatter_add": lambda: (lambda a, s: torch.scatter_add(a, 1, _i([[2, 2], [0, 1]]), s), (_x(), _x((2, 2), seed=1))),
    "slice.Tensor": lambda: (lambda a: torch.ops.slice(a, 1, 0, 3, 2), (_x(),)),
    # --- random ops: the generator is re-seeded inside, so every evaluation draws the same noise -----
    "normal.Tensor_Tensor": lambda: (
        lambda m, s: torch.normal(m, s, generator=_gen()),
        (_x(), _x(lo=0.5, hi=1.5, seed=1)),
    ),
    "normal.Tensor_float": lambda: (lambda m: torch.normal(m, 0.5, generator=_gen()), (_x(),)),
    "normal.float_Tensor": lambda: (lambda s: torch.normal(0.3, s, generator=_gen()), (_x(lo=0.5, hi=1.5),)),
    # the draw is piecewise constant in p: zero gradient (as in PyTorch)
    "bernoulli": lambda: (lambda p: torch.bernoulli(p, generator=_gen()), (_x(),)),
    "bernoulli.p": lambda: (lambda a: torch.bernoulli(a, 0.5, generator=_gen()), (_x(),)),
    # --- nn (private ops through the OpNamespace); only the differentiable output is checked --------
    "_conv2d": lambda: (
        lambda x, w, b: torch.ops._conv2d(x, w, b, *_CONV),
        (_x((1, 2, 4, 5)), _x((2, 1, 2, 2), seed=1), _x((2,), seed=2)),
    ),
    "_conv2d_backward_input": lambda: (
        lambda g, w: torch.ops._conv2d_backward_input(g, w, [1, 2, 4, 5], *_CONV),
        (_x((1, 2, 2, 4)), _x((2, 1, 2, 2), seed=1)),
    ),
    "_conv2d_backward_weight": lambda: (
        lambda g, x: torch.ops._conv2d_backward_weight(g, x, [2, 1, 2, 2], *_CONV),
        (_x((1, 2, 2, 4)), _x((1, 2, 4, 5), seed=1)),
    ),
    "_max_pool2d_with_indices": lambda: (
        lambda a: torch.ops._max_pool2d_with_indices(a, [2, 2], [1, 1], [0, 0], [1, 1], False),
        (_v(np.arange(9.0).reshape(1, 1, 3, 3)[..., ::-1] * 0.1 + _DISTINCT_NOISE),),
    ),
    "_avg_pool2d": lambda: (lambda a: torch.ops._avg_pool2d(a, *_AVG), (_x((1, 1, 3, 3)),)),
    "_avg_pool2d_backward": lambda: (
        lambda g: torch.ops._avg_pool2d_backward(g, _x((1, 1, 3, 3)).detach(), *_AVG),
        (_x((1, 1, 4, 4)),),
    ),
    "_adaptive_avg_pool2d": lambda: (lambda a: torch.ops._adaptive_avg_pool2d(a, [2, 3]), (_x((1, 1, 3, 4)),)),
    "_adaptive_avg_pool2d_backward": lambda: (
        lambda g: torch.ops._adaptive_avg_pool2d_backward(g, _x((1, 1, 3, 4)).detach()),
        (_x((1, 1, 2, 3)),),
    ),
    "_upsample2d": lambda: (
        lambda a: (
            torch.ops._upsample2d(a, [3, 4], "bilinear", False, None, None),
            torch.ops._upsample2d(a, [3, 4], "bilinear", True, None, None),
            torch.ops._upsample2d(a, [3, 4], "nearest", False, None, None),
            torch.ops._upsample2d(a, [3, 4], "bilinear", False, 1.5, 2.0),
        ),
        (_x((1, 1, 2, 2)),),
    ),
    "_upsample2d_backward": lambda: (
        lambda g: (
            torch.ops._upsample2d_backward(g, [1, 1, 2, 2], "bilinear", False, None, None),
            torch.ops._upsample2d_backward(g, [1, 1, 2, 2], "nearest", False, None, None),
            torch.ops._upsample2d_backward(g, [1, 1, 2, 2], "bilinear", False, 1.5, 2.0),
        ),
        (_x((1, 1, 3, 4)),),
    ),
    "native_layer_norm": lambda: (
        lambda x, w, b: torch.ops.native_layer_norm(x, [3], w, b, 1e-5)[0],
        (_x(), _x((3,), seed=1), _x((3,), seed=2)),
    ),
    "_rms_norm": lambda: (lambda x, w: torch.ops._rms_norm(x, [3], w, 1e-5)[0], (_x(), _x((3,), seed=1))),
    # r1 broadcast over the batch, r2 over the heads: the gradients are summed back to their shapes
    "_rotary_mul": lambda: (
        lambda x, r1, r2: (
            torch.ops._rotary_mul(x, r1, r2, "half"),
            torch.ops._rotary_mul(x, r1, r2, "interleave"),
        ),
        (_x((2, 3, 4)), _x((1, 3, 4), seed=1), _x((2, 1, 4), seed=2)),
    ),
    "_swiglu": lambda: (
        lambda x: (torch.ops._swiglu(x), torch.ops._swiglu(x, 0)),
        (_x((4, 6), lo=-2, hi=2),),
    ),
    # an empty group, and rows past the last group's end
    "_grouped_matmul": lambda: (
        lambda x, w: torch.ops._grouped_matmul(x, w, _i([2, 2, 5])),
        (_x((6, 3)), _x((3, 3, 4), seed=1)),
    ),
    "_grouped_matmul_backward": lambda: (
        lambda g, x, w: torch.ops._grouped_matmul_backward(g, x, w, _i([2, 2, 5])),
        (_x((6, 4), seed=2), _x((6, 3)), _x((3, 3, 4), seed=1)),
    ),
    "_rotary_mul_backward": lambda: (
        lambda g, x, r1, r2: (
            *torch.ops._rotary_mul_backward(g, x, r1, r2, "half"),
            *torch.ops._rotary_mul_backward(g, x, r1, r2, "interleave"),
        ),
        (_x((2, 3, 4), seed=3), _x((2, 3, 4)), _x((1, 3, 4), seed=1), _x((2, 1, 4), seed=2)),
    ),
    "_swiglu_backward": lambda: (
        lambda g, x: (torch.ops._swiglu_backward(g, x, -1), torch.ops._swiglu_backward(g.mT, x.mT, 0)),
        (_x((4, 3), seed=1), _x((4, 6), lo=-2, hi=2)),
    ),
    "_group_norm": lambda: (
        lambda x, w, b: torch.ops._group_norm(x, w, b, 2, 1e-5)[0],
        (_x((2, 4, 2)), _x((4,), seed=1), _x((4,), seed=2)),
    ),
    # training mode (batch statistics) and eval mode (running statistics)
    "_batch_norm": lambda: (
        lambda x, w, b: (
            torch.ops._batch_norm(x, w, b, None, None, True, 0.1, 1e-5)[0],
            torch.ops._batch_norm(x, w, b, _x((2,)).detach(), _x((2,), lo=0.5, hi=1.5).detach(), False, 0.1, 1e-5)[0],
        ),
        (_x((3, 2, 2)), _x((2,), seed=1), _x((2,), seed=2)),
    ),
    "polygamma": lambda: (lambda a: (torch.polygamma(1, a), torch.polygamma(2, a)), (_x(lo=0.5, hi=2.0),)),
    # --- matrix functions: well-conditioned inputs; symmetric ones built inside for cholesky / eigh ---
    "linalg_inv": lambda: (lambda a: torch.ops.linalg_inv(a + 3 * torch.eye(3, dtype=a.dtype)), (_x((2, 3, 3)),)),
    "linalg_slogdet": lambda: (
        lambda a: torch.ops.linalg_slogdet(a + 3 * torch.eye(3, dtype=a.dtype))[1],
        (_x((2, 3, 3)),),
    ),
    "linalg_solve": lambda: (
        lambda a, b: torch.ops.linalg_solve(a + 3 * torch.eye(3, dtype=a.dtype), b),
        (_x((2, 3, 3)), _x((3, 2), seed=1)),
    ),
    "linalg_cholesky": lambda: (
        lambda a: (
            torch.ops.linalg_cholesky(a @ a.mT + 3 * torch.eye(3, dtype=a.dtype)),
            torch.ops.linalg_cholesky(a @ a.mT + 3 * torch.eye(3, dtype=a.dtype), upper=True),
        ),
        (_x((3, 3)),),
    ),
    # eigenvectors up to sign: fix each column's sign by its first entry
    "linalg_eigh": lambda: (
        lambda a: (lambda r: (r[0], r[1] * r[1][..., :1, :].sign()))(
            torch.ops.linalg_eigh(a + a.mT + torch.diag(torch.tensor([0.0, 1.0, 2.5], dtype=a.dtype)))
        ),
        (_x((3, 3)),),
    ),
    # --- complex views and Fourier transforms: complex inputs built from real leaves, complex outputs seen
    # --- as (real, imag) pairs, so the check covers both parts
    "view_as_real": lambda: (lambda re, im: torch.view_as_real(torch.complex(re, im)) * 1, (_x(), _x(seed=1))),
    "view_as_complex": lambda: (lambda a: torch.view_as_real(torch.view_as_complex(a * 1) ** 2), (_x((3, 2)),)),
    "_fft_c2c": lambda: (
        lambda re, im: (
            torch.view_as_real(torch._fft_c2c(torch.complex(re, im), [1], 0, True)),
            torch.view_as_real(torch._fft_c2c(torch.complex(re, im), [0, 1], 1, False)),
        ),
        (_x((3, 4)), _x((3, 4), seed=1)),
    ),
    "_fft_r2c": lambda: (
        lambda a: (
            torch.view_as_real(torch._fft_r2c(a, [1], 0, True)),
            torch.view_as_real(torch._fft_r2c(a, [0, 1], 2, False)),
        ),
        (_x((3, 5)),),
    ),
    "_fft_c2r": lambda: (
        lambda re, im: (
            torch._fft_c2r(torch.complex(re, im), [1], 2, 6),
            torch._fft_c2r(torch.complex(re, im), [0, 1], 0, 7),
        ),
        (_x((3, 4)), _x((3, 4), seed=1)),
    ),
    # a gradient of both signs, and a wide range of values (the log-space backward must not overflow)
    "logcumsumexp": lambda: (lambda a: (torch.logcumsumexp(a * 40, 1), torch.logcumsumexp(a, 0)), (_x((3, 4)),)),
    # every reduction, with and without self; values kept away from zero (prod) and from ties (amax/amin)
    "scatter_reduce.two": lambda: (
        lambda a, s: tuple(
            torch.scatter_reduce(a, 1, _i([[0, 1, 0, 2], [2, 2, 1, 0]]), s, r, include_self=inc)
            for r in ("sum", "prod", "mean", "amax", "amin")
            for inc in (True, False)
        ),
        (_x((2, 3)), _x((2, 4), seed=1)),
    ),
    # PyTorch differentiates the incomplete gamma functions in x only (the shape argument raises there too)
    "igamma": lambda: (lambda x: torch.igamma(_x(lo=0.5, hi=2.0).detach(), x), (_x(lo=0.3, hi=3.0, seed=1),)),
    "igammac": lambda: (lambda x: torch.igammac(_x(lo=0.5, hi=2.0).detach(), x), (_x(lo=0.3, hi=3.0, seed=1),)),
    # QR of a tall, a square and a wide matrix; R's diagonal is kept positive by LAPACK's convention here
    "linalg_qr": lambda: (
        lambda a, w: (*torch.ops.linalg_qr(a), *torch.ops.linalg_qr(a[:3]), *torch.ops.linalg_qr(w)),
        (_x((4, 3)), _x((2, 4), seed=1)),
    ),
    # the singular vectors only up to sign: functions of them that a sign flip leaves alone
    "linalg_svd": lambda: (
        lambda a: (lambda r: (r[1], r[0] * r[0], r[2] * r[2], r[0] @ r[2]))(torch.ops.linalg_svd(a, False)),
        (_x((4, 3)),),
    ),
    # least squares: tall (normal equations) and wide (minimum norm) systems
    "linalg_lstsq": lambda: (
        lambda a, b: (torch.ops.linalg_lstsq(a, b)[0], torch.ops.linalg_lstsq(a.mT, b[:3])[0]),
        (_x((4, 3)), _x((4, 2), seed=1)),
    ),
    # eigenvalues and |eigenvector| entries: gauge-invariant, distinct eigenvalues keep them smooth
    "linalg_eig": lambda: (
        lambda a: (lambda r: (torch.view_as_real(r[0]), r[1].abs() ** 2))(
            torch.ops.linalg_eig(a + torch.diag(torch.tensor([1.0, 3.0, 5.0], dtype=a.dtype)))
        ),
        (_x((3, 3)),),
    ),
    "linalg_solve_triangular": lambda: (
        lambda a, b: (
            torch.linalg.solve_triangular(a + 3 * torch.eye(3, dtype=a.dtype), b, upper=True),
            torch.linalg.solve_triangular(a + 3 * torch.eye(3, dtype=a.dtype), b.mT, upper=False, left=False),
        ),
        (_x((3, 3)), _x((3, 2), seed=1)),
    ),
    "special_erfcx": lambda: (torch.special.erfcx, (_x(lo=-2.0, hi=3.0),)),
    "special_i0e": lambda: (torch.special.i0e, (_x(lo=-3.0, hi=3.0),)),
    "special_i1": lambda: (torch.special.i1, (_x(lo=-3.0, hi=3.0),)),
    "special_i1e": lambda: (torch.special.i1e, (_x(lo=-3.0, hi=3.0),)),
    # zeta is differentiable in q only, as in PyTorch
    "special_zeta": lambda: (
        lambda q: torch.special.zeta(torch.tensor([2.5, 3.0, 4.0], dtype=q.dtype), q),
        (_x((3,), lo=0.5, hi=2.0),),
    ),
    "_nll_loss": lambda: (
        lambda a: (
            torch.ops._nll_loss(a, _i([0, 3, 1]), _x((4,)).detach(), 1, 3)[0],
            torch.ops._nll_loss(a, _i([0, 3, 1]), None, 0, -100)[0],
        ),
        (_x((3, 4)),),
    ),
}


def _auto_sample(op):
    req = [p for p in op.params if not p.has_default]
    if not req or any(p.base != "Tensor" or p.type.startswith("Tensor[") for p in req) or len(req) > 2:
        return None
    fn = getattr(torch, op.name, None)
    if fn is None:
        return None
    return fn, tuple(_x(seed=k) for k in range(len(req)))


# Differentiable ops deliberately not gradchecked, with the reason. Their derivative formula raises on
# purpose, so there is nothing to check numerically.
EXCLUDED = {
    "floor_divide": "PyTorch does not implement its derivative either (formula raises on purpose)",
    "geqrf": "PyTorch does not implement its derivative either (formula raises on purpose)",
    # random draws: the derivative is defined as zero (as in PyTorch); finite differences of fresh samples
    # measure the noise, not a derivative
    "poisson": "random sampling (zero derivative by definition)",
    "binomial": "random sampling (zero derivative by definition)",
    # Double backward of these backward ops is not implemented yet (formula is `not_implemented(...)`).
    # PyTorch does support it (all are linear in grad_out), so each entry is a known gap, not a choice.
    "_max_pool2d_backward": "double backward not implemented (raises)",
    "_embedding_backward": "double backward not implemented (raises)",
    "_nll_loss_backward": "double backward not implemented (raises)",
    "native_layer_norm_backward": "double backward not implemented (raises)",
    "_rms_norm_backward": "double backward not implemented (raises)",
    "_batch_norm_backward": "double backward not implemented (raises)",
    "_scaled_dot_product_attention_backward": "double backward not implemented (raises)",
    "_cross_entropy_backward": "double backward not implemented (raises)",
    "_group_norm_backward": "double backward not implemented (raises)",
}

# Ops whose gradcheck currently fails (a real bug each), with the reason. Empty: keep it that way.
KNOWN_FAILING = {}


def _differentiable_ops():
    return sorted(q for q, op in OPS.items() if op.derivative is not None and not op.inplace)


def _ops_in_graph(out):
    """The ops recorded in the autograd graph behind `out` (a tensor or a tuple of tensors)."""
    outs = out if isinstance(out, (tuple, list)) else (out,)
    stack = [o.grad_fn for o in outs if isinstance(o, torch.Tensor) and o.grad_fn is not None]
    seen, found = set(), set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if getattr(node, "op", None) is not None:
            found.add(node.op)
        stack.extend(nf[0] for nf in node.next_functions)
    return found


def test_gradcheck_sweep(capsys):
    checked, failed, no_sample = [], [], []
    for q in _differentiable_ops():
        if q in EXCLUDED or q in KNOWN_FAILING:
            continue
        op = OPS[q]
        sample = SAMPLES[q]() if q in SAMPLES else _auto_sample(op)
        if sample is None:
            no_sample.append(q)
            continue
        fn, inputs = sample
        try:
            # the sample must really go through the op it stands for
            if op not in _ops_in_graph(fn(*inputs)):
                failed.append((q, "sample does not record this op in the autograd graph"))
                continue
            ok = gradcheck(fn, inputs, raise_exception=False)
        except Exception as e:
            ok = f"{type(e).__name__}: {e}"[:200]
        (checked if ok is True else failed).append((q, ok))
    total = len(_differentiable_ops())
    with capsys.disabled():
        print(
            f"\ngradcheck sweep: {len(checked)}/{total} differentiable ops checked; "
            f"excluded {len(EXCLUDED)}, known failing {len(KNOWN_FAILING)}; "
            f"no sample for {len(no_sample)}: {no_sample}"
        )
    assert not failed, f"gradcheck failed: {failed}"
    assert not no_sample, f"differentiable ops without a gradcheck sample (add one to SAMPLES): {no_sample}"
    assert len(checked) + len(EXCLUDED) + len(KNOWN_FAILING) == total


def test_exclusion_lists_are_current():
    # stale entries (renamed or removed ops, or ops that lost their formula) must not linger
    diff = set(_differentiable_ops())
    assert not (set(EXCLUDED) | set(KNOWN_FAILING) | set(SAMPLES)) - diff
