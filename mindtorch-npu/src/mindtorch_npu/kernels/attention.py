"""Scaled dot-product attention through ops-transformer's fused operators: aclnnFlashAttentionScore forward and
aclnnFlashAttentionScoreGrad backward, one launch each, memory O(S) (no L x S probabilities are kept).

Arguments the fused operators do not fit run core's composite (the matmul / softmax chain), each for the reason
named in `_unfused`: a chip whose product the operators' docs do not list as supported, a dtype their docs omit
(float64), more than 4 dims, an empty dim, a head dim beyond the docs' 768 or a value head dim above the query's,
a float mask (added to the scores; the operators take only a boolean "masked out" mask) and a boolean mask of a
shape the docs do not list ([B, N, L, S], [B, 1, L, S], [1, 1, L, S] or [L, S]).

Key and value with fewer heads than query (grouped-query attention) reach the operators as they are: headNum is
query's, and the docs' Nq / Nkv ratio makes each key head serve its group (the Grad sums over it). Dropout
comes as core's bool keep mask, packed into the operators' dropMask (one bit per score, row-major B, N, Sq,
Skv, bit i in byte i // 8 at position i % 8) with keepProb = 1 - dropout_p.
"""

from mindtorch.plugins import OPS, dtypes as D, kernel_table

from .. import chips, optable
from ..aclnn import DType, IntArray, launch, scalar_for
from ..copy import empty
from ._common import contiguous, fill, is_contiguous, numel, view

KERNELS, kernel = kernel_table()

FORWARD, BACKWARD = "FlashAttentionScore", "FlashAttentionScoreGrad"
LAYOUT = b"BNSD"  # every operand is viewed as [B, N, S, D]
NO_BAND = 2147483647  # preTokens / nextTokens that leave every score in (torch_npu's defaults)
LEFT_UP_CAUSAL = 2  # sparseMode: causal from the top-left corner, as PyTorch's is_causal
CAUSAL_MASK = 2048  # that mode takes the compressed [2048, 2048] upper-triangular mask
EXPLICIT_CAUSAL_LIMIT = CAUSAL_MASK * CAUSAL_MASK  # below it an [L, S] causal mask (mode 0) takes less memory
MAX_HEAD_DIM, MAX_HEADS = 768, 256  # the docs' D and N ranges
STAT_LANES = 8  # softmaxMax / softmaxSum are [B, N, L, 8]


def _documented(op, dtype):
    """The op's doc lists this chip's product as supported and `dtype` for its query there."""
    names = optable.dtypes(op, chips.product(), "query")
    return chips.has_op(op) and names is not None and chips.DOC_NAMES.get(dtype) in names


def _mask_fits(mask, q, k):
    """A boolean [L, S] mask behind up to two leading dims of 1, B or N (what _atten_mask hands the operator)."""
    if mask.dtype is not D.bool_ or len(mask._shape) > 4:
        return False  # a float mask is added to the scores: the operators have no such input
    b, n = _as4(q)._shape[:2]
    shape = (1,) * (4 - len(mask._shape)) + tuple(mask._shape)
    return shape[2:] == (q._shape[-2], k._shape[-2]) and shape[0] in (1, b) and shape[1] in (1, n)


def _unfused(op, q, k, v, mask):
    """Why these arguments take the composite, or None when the fused operator takes them."""
    if not _documented(op, q.dtype):
        return f"aclnn{op} is not documented for {q.dtype} on product {chips.product()}"
    if not 2 <= len(q._shape) <= 4 or not numel(q) or not numel(k):
        return "the operator takes 2 to 4 dims of non-empty operands"
    if _as4(q)._shape[1] > MAX_HEADS:
        return "more heads than the doc's 256"
    if q._shape[-1] > MAX_HEAD_DIM or v._shape[-1] > k._shape[-1]:
        return "a head dim beyond the doc's (qD == kD >= vD, D <= 768)"
    if mask is not None and not _mask_fits(mask, q, k):
        return "a float mask, or a boolean mask of a shape the doc does not list"
    return None


def _as4(t):
    """t viewed as [B, N, S, D] (leading dims of size 1 added)."""
    pad = 4 - len(t._shape)
    if not pad:
        return t
    outer = t._shape[0] * t._stride[0] if t._shape else 1
    return view(t, (1,) * pad + tuple(t._shape), (outer,) * pad + tuple(t._stride))


def _atten_mask(mask, q, k, is_causal):
    """(attenMask, sparseMode): the doc's mask is True where a score is left out, PyTorch's where it is kept.
    Causal: sparse mode 2 with the compressed mask, or mode 0 with an explicit [L, S] one where that is smaller."""
    if is_causal:
        L, S = q._shape[-2], k._shape[-2]
        explicit = L * S < EXPLICIT_CAUSAL_LIMIT
        causal = fill(empty((L, S) if explicit else (CAUSAL_MASK, CAUSAL_MASK), D.bool_, q.device), True)
        launch("InplaceTriu", causal, 1)
        return causal, 0 if explicit else LEFT_UP_CAUSAL
    if mask is None:
        return None, 0
    out = empty(mask._shape, D.bool_, mask.device)
    launch("LogicalNot", mask, out)
    listed = len(out._shape) == 2 or (len(out._shape) == 4 and not (out._shape[0] == 1 and out._shape[1] != 1))
    if listed:
        return out, 0
    # [L, S] behind leading ones, or [1, N, L, S]: the doc lists [L, S] and [B, N, L, S] (B repeated by stride 0)
    m4 = _as4(out)
    if m4._shape[0] == m4._shape[1] == 1:
        return view(m4, m4._shape[-2:], m4._stride[-2:]), 0
    return view(m4, (_as4(q)._shape[0],) + tuple(m4._shape[1:]), (0,) + tuple(m4._stride[1:])), 0


def _attributes(scale, heads, sparse, keep_prob=1.0):
    """(prefix, scaleValue, keepProb, preTokens, nextTokens, headNum, inputLayout, innerPrecise, sparseMode)"""
    return (None, float(scale), float(keep_prob), NO_BAND, NO_BAND, int(heads), LAYOUT, 0, sparse)


def drop_bits(keep):
    """A bool keep mask as the operators' dropMask: uint8, bit i % 8 of byte i // 8 keeps score i (row-major)."""
    total = numel(keep)
    nbytes = -(-total // 8)
    flat = view(keep if is_contiguous(keep) else contiguous(keep), (total,), (1,))
    bits = empty((nbytes, 8), D.uint8, keep.device)
    if total % 8:  # the last byte's unused bits stay clear
        fill(bits, 0)
    launch("Cast", flat, DType(D.uint8), view(bits, (total,), (1,)))
    for j in range(1, 8):  # each lane weighted by its bit's value, then the eight lanes summed
        lane = view(bits, (nbytes,), (8,), bits._offset + j)
        launch("Muls", lane, scalar_for(1 << j, D.uint8), lane)
    packed = empty((nbytes,), D.uint8, keep.device)
    launch("ReduceSum", bits, IntArray([1]), False, DType(D.uint8), packed)
    return packed


def _dropout(dropout_mask, dropout_p):
    """(dropMask, keepProb) of core's keep mask, or (None, 1) without dropout."""
    if dropout_mask is None:
        return None, 1.0
    return drop_bits(dropout_mask), 1.0 - float(dropout_p)


@kernel("_scaled_dot_product_attention")
def sdpa(m, q, k, v, mask, is_causal, scale, dropout_mask=None, dropout_p=0.0):
    if _unfused(FORWARD, q, k, v, None if is_causal else mask):
        op = OPS["_scaled_dot_product_attention"]
        return op.composite(q, k, v, mask, is_causal, scale, dropout_mask, dropout_p)
    q4, k4, v4 = _as4(q), _as4(k), _as4(v)
    b, n, L = q4._shape[:3]
    atten, sparse = _atten_mask(mask, q, k, is_causal)
    drop, keep_prob = _dropout(dropout_mask, dropout_p)
    out = empty(m[0].shape, m[0].dtype, q.device)
    stats = [empty((b, n, L, STAT_LANES), D.float32, q.device) for _ in range(2)]
    attrs = _attributes(scale, n, sparse, keep_prob)
    launch(FORWARD, q4, k4, v4, None, drop, None, atten, *attrs, *stats, None, _as4(out))
    # logsumexp = max + log(sum), from lane 0 of each row's statistics
    lane = [view(s, (b, n, L), (n * L * STAT_LANES, L * STAT_LANES, STAT_LANES)) for s in stats]
    lse = empty(m[1].shape, m[1].dtype, q.device)
    logs = empty((b, n, L), D.float32, q.device)
    launch("Log", lane[1], logs)
    launch("Add", lane[0], logs, scalar_for(1, D.float32), _as3(lse, b, n, L))
    return out, lse


def _as3(t, b, n, L):
    return view(t, (b, n, L), (n * L, L, 1))


@kernel("_scaled_dot_product_attention_backward")
def sdpa_backward(m, g, q, k, v, mask, is_causal, out, lse, scale, dropout_mask=None, dropout_p=0.0):
    if _unfused(BACKWARD, q, k, v, None if is_causal else mask) or lse.dtype is not D.float32:
        op = OPS["_scaled_dot_product_attention_backward"]
        return op.composite(g, q, k, v, mask, is_causal, out, lse, scale, dropout_mask, dropout_p)
    q4, k4, v4 = _as4(q), _as4(k), _as4(v)
    b, n, L = q4._shape[:3]
    atten, sparse = _atten_mask(mask, q, k, is_causal)
    drop, keep_prob = _dropout(dropout_mask, dropout_p)
    # the operator's softmax is exp(score - max) / sum: max = logsumexp (repeated over the lanes), sum = 1
    lse3 = _as3(lse if is_contiguous(lse) else contiguous(lse), b, n, L)
    smax = view(lse3, (b, n, L, STAT_LANES), lse3._stride + (0,))
    one = fill(empty((1,), D.float32, q.device), 1)
    ssum = view(one, (b, n, L, STAT_LANES), (0, 0, 0, 0))
    grads = tuple(empty(mm.shape, mm.dtype, q.device) for mm in m)
    ins = (q4, k4, v4, _as4(g), None, drop, None, atten, smax, ssum, None, _as4(out))
    launch(BACKWARD, *ins, *_attributes(scale, n, sparse, keep_prob), *(_as4(t) for t in grads), None)
    return grads
