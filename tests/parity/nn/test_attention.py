"""mindtorch.nn.attention (SDPBackend, sdpa_kernel) against torch.nn.attention (issue 12 item 8)."""
from helpers import torch_or_skip

torch = torch_or_skip()

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch.nn.attention as ta  # noqa: E402

import mindtorch  # noqa: E402
import mindtorch.nn.attention as ma  # noqa: E402


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
        sel = [getattr(att.SDPBackend, c) for c in choice] if isinstance(choice, list) else \
            getattr(att.SDPBackend, choice)
        with att.sdpa_kernel(sel):
            out.append(lib.nn.functional.scaled_dot_product_attention(lib.tensor(q), lib.tensor(k), lib.tensor(v),
                                                                      is_causal=True).numpy())
    np.testing.assert_allclose(out[0], out[1], rtol=1e-5, atol=1e-6)


def test_nested_selection_is_restored():
    with ma.sdpa_kernel(ma.SDPBackend.MATH):
        with ma.sdpa_kernel([ma.SDPBackend.FLASH_ATTENTION]):
            assert ma._current() == {ma.SDPBackend.FLASH_ATTENTION}
        assert ma._current() == {ma.SDPBackend.MATH}
    assert mindtorch.nn.attention is ma
