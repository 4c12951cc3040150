"""torch_npu's fused attention: `npu_fusion_attention` and `npu_fusion_attention_grad`, with torch_npu's
signatures and results, over ops-transformer's aclnnFlashAttentionScore and aclnnFlashAttentionScoreGrad.

The layouts are the operators' BSH, SBH, BSND and BNSD (TND and the actual_seq_* lengths belong to the varlen
operators, which are not bound). With keep_prob < 1 the dropout mask is one bit per score (B * N * Sq * Skv of
them, rounded up to 128 as torch_npu allocates it), drawn from (seed, offset): the device generator's when
seed is 0, so the backward regenerates the same mask from the seed, offset and numels the forward returns.
`npu_fusion_attention` is differentiable in query, key and value (its backward is npu_fusion_attention_grad).
"""

import mindtorch as torch
import numpy as np
from mindtorch.plugins import default_generator, generator_state
from mindtorch_npu.aclnn import IntArray, launch
from mindtorch_npu.copy import empty
from mindtorch_npu.kernels.attention import BACKWARD, FORWARD, NO_BAND, STAT_LANES

LAYOUTS = ("BSH", "SBH", "BSND", "BNSD")


def _geometry(query, key, value, head_num, layout):
    """(B, Sq, Skv, the attention output's shape) of the layout, as torch_npu infers them."""
    if layout not in LAYOUTS:
        if layout == "TND":
            raise NotImplementedError("npu_fusion_attention: input_layout 'TND' needs the varlen operator, not bound")
        raise RuntimeError(f"npu_fusion_attention: unsupported input_layout {layout!r}, expected one of {LAYOUTS}")
    if head_num <= 0:
        raise RuntimeError(f"head_num must > 0, but got {head_num}")
    qs, ks, vs = query.shape, key.shape, value.shape
    if layout in ("BSH", "SBH"):
        b, sq, skv = (qs[0], qs[1], ks[1]) if layout == "BSH" else (qs[1], qs[0], ks[0])
        d = qs[2] // head_num
        dv = vs[2] // (ks[2] // d) if d and ks[2] // d else d
        out = (b, sq, head_num * dv) if layout == "BSH" else (sq, b, head_num * dv)
        return b, sq, skv, out
    if layout == "BSND":
        return qs[0], qs[1], ks[1], (qs[0], qs[1], qs[2], vs[3])
    return qs[0], qs[2], ks[2], (qs[0], qs[1], qs[2], vs[3])


def _unsupported(**given):
    for name, value in given.items():
        if value is not None and value != "":
            raise NotImplementedError(f"npu_fusion_attention: {name} is not supported (the varlen operators)")


def _drop_mask(query, keep_prob, seed, offset, numels):
    """The dropout bits of (seed, offset): bit i keeps score i (row-major B, N, Sq, Skv) with keep_prob."""
    if keep_prob >= 1:
        return None
    length = (numels + 127) // 128 * 128 // 8
    draws = np.random.Generator(np.random.Philox(key=seed, counter=offset)).random(length * 8)
    bits = np.packbits(draws < keep_prob, bitorder="little")
    return torch.tensor(bits, dtype=torch.uint8, device=query.device)


def _draw(query, keep_prob, seed, offset, numels):
    """(seed, offset): the given ones, or with seed 0 and dropout the device generator's (advanced by numels)."""
    if keep_prob >= 1 or seed:
        return int(seed), int(offset)
    return generator_state(default_generator(query.device), query.device).advance(numels)


def _prefix(prefix):
    return None if prefix is None else IntArray(prefix)


def _attributes(cfg):
    return (
        _prefix(cfg["prefix"]),
        float(cfg["scale"]),
        float(cfg["keep_prob"]),
        int(cfg["pre_tockens"]),
        int(cfg["next_tockens"]),
        int(cfg["head_num"]),
        cfg["input_layout"].encode(),
        int(cfg["inner_precise"]),
        int(cfg["sparse_mode"]),
    )


def _forward(query, key, value, cfg):
    b, sq, _, out_shape = _geometry(query, key, value, cfg["head_num"], cfg["input_layout"])
    out = empty(out_shape, query.dtype, query.device)
    stats = [empty((b, cfg["head_num"], sq, STAT_LANES), torch.float32, query.device) for _ in range(2)]
    drop = cfg["drop_mask"]
    ins = (query, key, value, cfg["pse"], drop, cfg["padding_mask"], cfg["atten_mask"])
    launch(FORWARD, *ins, *_attributes(cfg), stats[0], stats[1], None, out)
    return out, stats[0], stats[1]


def _backward(query, key, value, dy, softmax_max, softmax_sum, attention_in, cfg):
    grads = [empty(t.shape, t.dtype, t.device) for t in (query, key, value)]
    dpse = None if cfg["pse"] is None else empty(cfg["pse"].shape, cfg["pse"].dtype, query.device)
    ins = (query, key, value, dy, cfg["pse"], cfg["drop_mask"], cfg["padding_mask"], cfg["atten_mask"])
    ins += (softmax_max, softmax_sum, cfg["softmax_in"], attention_in)
    launch(BACKWARD, *ins, *_attributes(cfg), *grads, dpse)
    return (*grads, dpse if dpse is not None else empty((0,), query.dtype, query.device))


class _FusionAttention(torch.autograd.Function):
    @staticmethod
    def forward(ctx, query, key, value, cfg):
        out, smax, ssum = _forward(query, key, value, cfg)
        ctx.save_for_backward(query, key, value, out, smax, ssum)
        ctx.cfg = cfg
        ctx.mark_non_differentiable(smax, ssum)
        return out, smax, ssum

    @staticmethod
    def backward(ctx, grad_out, grad_max, grad_sum):
        query, key, value, out, smax, ssum = ctx.saved_tensors
        cfg = dict(ctx.cfg, softmax_in=None)
        dq, dk, dv, _ = _backward(query, key, value, grad_out.contiguous(), smax, ssum, out, cfg)
        return dq, dk, dv, None


def _config(head_num, input_layout, pse, padding_mask, atten_mask, scale, keep_prob, pre, nxt, precise, prefix, mode):
    return {
        "head_num": int(head_num),
        "input_layout": input_layout,
        "pse": pse,
        "padding_mask": padding_mask,
        "atten_mask": atten_mask,
        "scale": scale,
        "keep_prob": keep_prob,
        "pre_tockens": pre,
        "next_tockens": nxt,
        "inner_precise": precise,
        "prefix": prefix,
        "sparse_mode": mode,
        "softmax_in": None,
        "drop_mask": None,
    }


def npu_fusion_attention(
    query,
    key,
    value,
    head_num,
    input_layout,
    pse=None,
    padding_mask=None,
    atten_mask=None,
    scale=1.0,
    keep_prob=1.0,
    pre_tockens=NO_BAND,
    next_tockens=NO_BAND,
    inner_precise=0,
    prefix=None,
    actual_seq_qlen=None,
    actual_seq_kvlen=None,
    sparse_mode=0,
    gen_mask_parallel=True,
    sync=False,
    softmax_layout="",
    sink=None,
    dropout_mask=None,
    seed=0,
    offset=0,
):
    """(attention_out, softmax_max, softmax_sum, softmax_out, seed, offset, numels): softmax_max / softmax_sum
    are the rows' [B, N, Sq, 8] float32 statistics, softmax_out is reserved (empty), (seed, offset, numels)
    name the dropout mask."""
    _unsupported(actual_seq_qlen=actual_seq_qlen, actual_seq_kvlen=actual_seq_kvlen, sink=sink)
    _unsupported(softmax_layout=softmax_layout)
    b, sq, skv, _ = _geometry(query, key, value, head_num, input_layout)
    numels = b * int(head_num) * sq * skv
    seed, offset = _draw(query, keep_prob, seed, offset, numels)
    cfg = _config(head_num, input_layout, pse, padding_mask, atten_mask, scale, keep_prob, pre_tockens,
                  next_tockens, inner_precise, prefix, sparse_mode)  # fmt: skip
    cfg["drop_mask"] = dropout_mask if dropout_mask is not None else _drop_mask(query, keep_prob, seed, offset, numels)
    out, smax, ssum = _FusionAttention.apply(query, key, value, cfg)
    return out, smax, ssum, empty((0,), query.dtype, query.device), seed, offset, numels


def npu_fusion_attention_grad(
    query,
    key,
    value,
    dy,
    head_num,
    input_layout,
    *,
    pse=None,
    padding_mask=None,
    atten_mask=None,
    softmax_max=None,
    softmax_sum=None,
    softmax_in=None,
    attention_in=None,
    scale_value=1.0,
    keep_prob=1.0,
    pre_tockens=NO_BAND,
    next_tockens=NO_BAND,
    inner_precise=0,
    seed=0,
    offset=0,
    numels=0,
    prefix=None,
    actual_seq_qlen=None,
    actual_seq_kvlen=None,
    sparse_mode=0,
    gen_mask_parallel=True,
    sync=False,
    softmax_layout="",
    sink=None,
):
    """(grad_query, grad_key, grad_value, grad_pse, grad_sink): the last two empty where there is no pse / sink.
    The dropout mask is regenerated from (seed, offset, numels) as npu_fusion_attention drew it."""
    _unsupported(actual_seq_qlen=actual_seq_qlen, actual_seq_kvlen=actual_seq_kvlen, sink=sink)
    _unsupported(softmax_layout=softmax_layout)
    _geometry(query, key, value, head_num, input_layout)
    cfg = _config(head_num, input_layout, pse, padding_mask, atten_mask, scale_value, keep_prob, pre_tockens,
                  next_tockens, inner_precise, prefix, sparse_mode)  # fmt: skip
    cfg["softmax_in"] = softmax_in
    cfg["drop_mask"] = _drop_mask(query, keep_prob, int(seed), int(offset), int(numels))
    with torch.no_grad():
        dq, dk, dv, dpse = _backward(query, key, value, dy, softmax_max, softmax_sum, attention_in, cfg)
    return dq, dk, dv, dpse, empty((0,), query.dtype, query.device)
