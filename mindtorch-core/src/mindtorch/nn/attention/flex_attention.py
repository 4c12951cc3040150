"""flex_attention with a mask_mod / score_mod, computed densely (torch.nn.attention.flex_attention).

PyTorch compiles these into a block-sparse kernel; mindtorch evaluates the mask function once over
broadcast index tensors into a dense boolean mask (kept in the BlockMask) and the score function over
the full score matrix, then runs ordinary attention. Results are the same; memory is O(L * S).
"""

from dataclasses import dataclass

import mindtorch

__all__ = [
    "BlockMask",
    "create_block_mask",
    "create_mask",
    "flex_attention",
    "noop_mask",
    "and_masks",
    "or_masks",
    "AuxRequest",
    "AuxOutput",
]

_DEFAULT_SPARSE_BLOCK_SIZE = 128


def noop_mask(batch, head, token_q, token_kv):
    return mindtorch.ones_like(token_q, dtype=mindtorch.bool)


def and_masks(*mask_mods):
    def mask(b, h, q, kv):
        out = mask_mods[0](b, h, q, kv)
        for m in mask_mods[1:]:
            out = out & m(b, h, q, kv)
        return out

    return mask


def or_masks(*mask_mods):
    def mask(b, h, q, kv):
        out = mask_mods[0](b, h, q, kv)
        for m in mask_mods[1:]:
            out = out | m(b, h, q, kv)
        return out

    return mask


def _indices(B, H, Q, KV, device):
    ar = lambda n: mindtorch.arange(n, device=device)
    return ar(B).view(B, 1, 1, 1), ar(H).view(1, H, 1, 1), ar(Q).view(1, 1, Q, 1), ar(KV).view(1, 1, 1, KV)


def create_mask(mod_fn, B, H, Q_LEN, KV_LEN, device="cpu"):
    """The dense (B, H, Q_LEN, KV_LEN) boolean mask of a mask_mod (B or H None: size 1)."""
    B, H = B or 1, H or 1
    b, h, q, kv = _indices(B, H, Q_LEN, KV_LEN, device)
    m = mod_fn(b, h, q, kv)
    return mindtorch.broadcast_to(m.to(mindtorch.bool), (B, H, Q_LEN, KV_LEN))


class BlockMask:
    """Which (query, key) pairs may attend: here the dense mask plus the mask_mod it came from."""

    def __init__(self, dense, mask_mod, seq_lengths, BLOCK_SIZE=_DEFAULT_SPARSE_BLOCK_SIZE):
        self._dense, self.mask_mod, self.seq_lengths = dense, mask_mod, tuple(seq_lengths)
        self.BLOCK_SIZE = BLOCK_SIZE if isinstance(BLOCK_SIZE, tuple) else (BLOCK_SIZE, BLOCK_SIZE)

    @property
    def shape(self):
        return tuple(self._dense.shape)

    def to_dense(self):
        return self._dense

    def sparsity(self):
        return 100.0 * (1.0 - self._dense.float().mean().item())

    def to(self, device):
        return BlockMask(self._dense.to(device), self.mask_mod, self.seq_lengths, self.BLOCK_SIZE)

    def __repr__(self):
        return f"BlockMask(shape={self.shape}, sparsity={self.sparsity():.2f}%)"


def create_block_mask(
    mask_mod, B, H, Q_LEN, KV_LEN, device="cpu", BLOCK_SIZE=_DEFAULT_SPARSE_BLOCK_SIZE, _compile=False
):
    return BlockMask(create_mask(mask_mod, B, H, Q_LEN, KV_LEN, device), mask_mod, (Q_LEN, KV_LEN), BLOCK_SIZE)


@dataclass(frozen=True)
class AuxRequest:
    lse: bool = False
    max_scores: bool = False


@dataclass
class AuxOutput:
    lse: object = None
    max_scores: object = None


def flex_attention(
    query,
    key,
    value,
    score_mod=None,
    block_mask=None,
    scale=None,
    enable_gqa=False,
    return_lse=False,
    kernel_options=None,
    *,
    return_aux=None,
):
    """softmax(score_mod(q k^T * scale)) v over the pairs block_mask allows; fully masked rows give 0."""
    B, Hq, L, E = query.shape
    Hkv, S = key.shape[1], key.shape[2]
    if Hq != Hkv:
        if not enable_gqa or Hq % Hkv:
            raise ValueError(
                f"Expect query and key/value to have the same number of heads but got Hq={Hq} and "
                f"Hkv={Hkv}. Try setting enable_gqa=True for GQA."
            )
        key = key.repeat_interleave(Hq // Hkv, dim=1)
        value = value.repeat_interleave(Hq // Hkv, dim=1)
    scale = 1.0 / (E**0.5) if scale is None else scale
    scores = mindtorch.matmul(query, key.transpose(-2, -1)) * scale
    if score_mod is not None:
        scores = score_mod(scores, *_indices(B, Hq, L, S, query.device))
    if block_mask is not None:
        scores = scores.masked_fill(~block_mask.to_dense(), float("-inf"))
    lse = mindtorch.logsumexp(scores.float(), dim=-1)
    weights = mindtorch.exp(scores.float() - lse.unsqueeze(-1)).nan_to_num(0.0).to(query.dtype)
    out = mindtorch.matmul(weights, value)
    if return_aux is not None:
        return out, AuxOutput(
            lse=lse if return_aux.lse else None, max_scores=scores.amax(-1) if return_aux.max_scores else None
        )
    return (out, lse) if return_lse else out
