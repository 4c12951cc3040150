"""mindtorch.nn.attention (SDPBackend, sdpa_kernel, flex_attention computed densely) against torch.nn.attention."""

from helpers import torch_or_skip

torch = torch_or_skip()

import mindtorch  # noqa: E402
import mindtorch.nn.attention as ma  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch.nn.attention as ta  # noqa: E402
from helpers import assert_same  # noqa: E402


def test_backend_enum():
    assert list(ma.SDPBackend.__members__) == list(ta.SDPBackend.__members__)
    for name in ta.SDPBackend.__members__:
        assert int(getattr(ma.SDPBackend, name)) == int(getattr(ta.SDPBackend, name))
        assert repr(getattr(ma.SDPBackend, name)) == repr(getattr(ta.SDPBackend, name))


@pytest.mark.parametrize("choice", ["MATH", "FLASH_ATTENTION", ["MATH", "EFFICIENT_ATTENTION"]])
def test_sdpa_kernel_leaves_results_unchanged(choice):
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((2, 3, 5, 4)).astype(np.float32) for _ in range(3))
    out = []
    for lib, att in ((mindtorch, ma), (torch, ta)):
        sel = (
            [getattr(att.SDPBackend, c) for c in choice]
            if isinstance(choice, list)
            else getattr(att.SDPBackend, choice)
        )
        with att.sdpa_kernel(sel):
            out.append(
                lib.nn.functional.scaled_dot_product_attention(
                    lib.tensor(q), lib.tensor(k), lib.tensor(v), is_causal=True
                ).numpy()
            )
    np.testing.assert_allclose(out[0], out[1], rtol=1e-5, atol=1e-6)


def test_nested_selection_is_restored():
    with ma.sdpa_kernel(ma.SDPBackend.MATH):
        with ma.sdpa_kernel([ma.SDPBackend.FLASH_ATTENTION]):
            assert ma._current() == {ma.SDPBackend.FLASH_ATTENTION}
        assert ma._current() == {ma.SDPBackend.MATH}
    assert mindtorch.nn.attention is ma


def causal(b, h, q, kv):
    return q >= kv


def sliding(b, h, q, kv):
    return (q - kv).abs() <= 2


def rel_bias(score, b, h, q, kv):
    return score + (q - kv) * 0.1 + h


@pytest.mark.parametrize(
    "mask_mod,score_mod,gqa",
    [(causal, None, False), (sliding, rel_bias, False), (None, rel_bias, False), (causal, None, True)],
)
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
        out = fa.flex_attention(qt, lib.tensor(k), lib.tensor(v), score_mod=score_mod, block_mask=bm, enable_gqa=gqa)
        return out, qt

    (mo, mq), (to, _) = run(mindtorch, True), run(torch, False)  # PyTorch's CPU flex_attention has no backward
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
    assert m.dtype == mindtorch.bool and tuple(m.shape) == (1, 2, 5, 7)
    assert (m.numpy() == tcreate_mask(sliding, 1, 2, 5, 7, device="cpu").numpy()).all()
    assert tuple(create_block_mask(causal, None, None, 4, 4).to_dense().shape) == (1, 1, 4, 4)
