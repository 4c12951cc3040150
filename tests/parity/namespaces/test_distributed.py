"""Names Hugging Face code imports, against PyTorch: flex_attention (computed densely), pytree key paths,
distribution constraints, DTensor placement records, and the truthful refusals for DTensor / FSDP."""
import numpy as np
import pytest

from helpers import torch_or_skip, assert_same

torch = torch_or_skip()

import mindtorch as mt  # noqa: E402


def causal(b, h, q, kv):
    return q >= kv


def sliding(b, h, q, kv):
    return (q - kv).abs() <= 2


def rel_bias(score, b, h, q, kv):
    return score + (q - kv) * 0.1 + h


@pytest.mark.parametrize("mask_mod,score_mod,gqa", [(causal, None, False), (sliding, rel_bias, False),
                                                    (None, rel_bias, False), (causal, None, True)])
def test_flex_attention_matches_pytorch(mask_mod, score_mod, gqa):
    rng = np.random.default_rng(0)
    B, H, L, S, E = 2, 4, 6, 6, 8
    q = rng.standard_normal((B, H, L, E)).astype(np.float32)
    k = rng.standard_normal((B, 2 if gqa else H, S, E)).astype(np.float32)
    v = rng.standard_normal((B, 2 if gqa else H, S, E)).astype(np.float32)

    def run(lib, grad):
        fa = __import__(f"{lib.__name__}.nn.attention.flex_attention", fromlist=["x"])
        bm = None if mask_mod is None else fa.create_block_mask(mask_mod, B, H, L, S, device="cpu")
        qt = lib.tensor(q).requires_grad_(grad)
        out = fa.flex_attention(qt, lib.tensor(k), lib.tensor(v), score_mod=score_mod, block_mask=bm,
                                enable_gqa=gqa)
        return out, qt

    (mo, mq), (to, _) = run(mt, True), run(torch, False)  # PyTorch's CPU flex_attention has no backward
    assert_same(mo, to, rtol=1e-4, atol=1e-5)
    if mask_mod is causal and score_mod is None:  # the gradient equals causal SDPA's
        mo.sum().backward()
        tq = torch.tensor(q).requires_grad_()
        kk, vv = torch.tensor(k), torch.tensor(v)
        if gqa:
            kk, vv = kk.repeat_interleave(2, 1), vv.repeat_interleave(2, 1)
        torch.nn.functional.scaled_dot_product_attention(tq, kk, vv, is_causal=True).sum().backward()
        assert_same(mq.grad, tq.grad, rtol=1e-4, atol=1e-5)


def test_block_mask_dense_form():
    from mindtorch.nn.attention.flex_attention import create_block_mask, create_mask
    from torch.nn.attention.flex_attention import create_mask as tcreate_mask
    m = create_mask(sliding, 1, 2, 5, 7)
    assert m.dtype == mt.bool and tuple(m.shape) == (1, 2, 5, 7)
    assert (m.numpy() == tcreate_mask(sliding, 1, 2, 5, 7, device="cpu").numpy()).all()
    assert tuple(create_block_mask(causal, None, None, 4, 4).to_dense().shape) == (1, 1, 4, 4)


def test_pytree_key_entries():
    import mindtorch.utils._pytree as mp
    import torch.utils._pytree as tp
    for cls in ("MappingKey", "SequenceKey", "GetAttrKey"):
        m, t = getattr(mp, cls)("a" if cls != "SequenceKey" else 3), getattr(tp, cls)("a" if cls != "SequenceKey" else 3)
        assert str(m) == str(t)
    kv, ctx = mp._dict_flatten_with_keys({"x": 1, "y": 2})
    tkv, tctx = tp._dict_flatten_with_keys({"x": 1, "y": 2})
    assert [(str(k), v) for k, v in kv] == [(str(k), v) for k, v in tkv] and ctx == tctx
    assert mp._dict_unflatten([1, 2], ["x", "y"]) == tp._dict_unflatten([1, 2], ["x", "y"])


CONSTRAINT_CASES = [
    ("real", [1.0, float("nan"), float("inf")]), ("positive", [1.0, 0.0, -1.0]), ("nonnegative", [0.0, -1e-9]),
    ("unit_interval", [0.0, 0.5, 1.0, 1.5]), ("boolean", [0.0, 1.0, 0.5]), ("simplex", [[0.2, 0.8], [0.5, 0.6]]),
    ("nonnegative_integer", [0.0, 2.0, 1.5, -1.0]), ("positive_definite", [[[2.0, 0.5], [0.5, 1.0]],
                                                                             [[1.0, 2.0], [2.0, 1.0]]]),
    ("lower_cholesky", [[[1.0, 0.0], [3.0, 2.0]], [[1.0, 1.0], [0.0, 1.0]]]), ("real_vector", [[1.0, float("nan")]]),
]


@pytest.mark.parametrize("name,value", CONSTRAINT_CASES, ids=[c for c, _ in CONSTRAINT_CASES])
def test_constraints_check_like_pytorch(name, value):
    import torch.distributions.constraints as tc
    from mindtorch.distributions import constraints as mc
    m = getattr(mc, name).check(mt.tensor(value))
    t = getattr(tc, name).check(torch.tensor(value))
    assert m.tolist() == t.tolist()
    assert getattr(mc, name).event_dim == getattr(tc, name).event_dim


def test_parametrised_constraints():
    import torch.distributions.constraints as tc
    from mindtorch.distributions import constraints as mc
    x = [0.0, 1.0, 2.5, 3.0]
    for mk, tk in ((mc.interval(1.0, 3.0), tc.interval(1.0, 3.0)), (mc.greater_than(1.0), tc.greater_than(1.0)),
                   (mc.integer_interval(0, 2), tc.integer_interval(0, 2)),
                   (mc.half_open_interval(0.0, 3.0), tc.half_open_interval(0.0, 3.0))):
        assert mk.check(mt.tensor(x)).tolist() == tk.check(torch.tensor(x)).tolist()
    assert mc.is_dependent(mc.dependent) and tc.is_dependent(tc.dependent)


def test_placements_and_refusals():
    from mindtorch.distributed import tensor as mdt
    from torch.distributed import tensor as tdt
    for m, t in ((mdt.Shard(1), tdt.Shard(1)), (mdt.Replicate(), tdt.Replicate())):
        assert (m.is_shard(), m.is_replicate(), repr(m)) == (t.is_shard(), t.is_replicate(), repr(t))
    assert mdt.Shard(0) != mdt.Shard(1) and mdt.Shard(0) == mdt.Shard(0)
    assert not isinstance(mt.ones(2), mdt.DTensor)
    with pytest.raises(NotImplementedError, match="DTensor"):
        mdt.distribute_tensor(mt.ones(2), None, None)
    from mindtorch.distributed.fsdp import FullyShardedDataParallel, MixedPrecisionPolicy
    with pytest.raises(NotImplementedError, match="DistributedDataParallel"):
        FullyShardedDataParallel(mt.nn.Linear(2, 2))
    assert MixedPrecisionPolicy(param_dtype=mt.bfloat16).param_dtype is mt.bfloat16
    from mindtorch._dynamo._trace_wrapped_higher_order_op import TransformGetItemToIndex
    with TransformGetItemToIndex():
        assert mt.arange(5)[mt.tensor([1, 3])].tolist() == [1, 3]
