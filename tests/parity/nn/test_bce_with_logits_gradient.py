"""binary_cross_entropy_with_logits: its gradient against PyTorch's over logits that include 0 and large
magnitudes, with and without pos_weight."""

import numpy as np
import pytest
from helpers import assert_same, torch_or_skip

torch = torch_or_skip()

import mindtorch  # noqa: E402

LOGITS = np.array([-800.0, -30.0, -2.0, -1e-8, 0.0, 0.0, 1e-8, 0.5, 3.0, 40.0, 800.0])
TARGETS = np.array([0.0, 0.2, 1.0, 0.6, 0.6, 0.0, 1.0, 0.3, 0.0, 1.0, 0.5])


@pytest.mark.parametrize("pos_weight", [None, [2.0]])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_values_and_gradients(pos_weight, dtype):
    def run(lib):
        x = lib.tensor(LOGITS.astype(dtype), requires_grad=True)
        t = lib.tensor(TARGETS.astype(dtype), requires_grad=True)
        pw = None if pos_weight is None else lib.tensor(np.array(pos_weight, dtype=dtype))
        loss = lib.nn.functional.binary_cross_entropy_with_logits(x, t, pos_weight=pw, reduction="none")
        loss.sum().backward()
        return loss, x.grad, t.grad

    for ours, theirs in zip(run(mindtorch), run(torch)):
        assert_same(ours.detach(), theirs.detach(), rtol=1e-6, atol=1e-6)
