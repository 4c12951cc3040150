"""Version counters on the npu: every op whose schema marks an argument written (`Tensor(a!)`)
moves each written tensor's version by one per call there too (core does it, not the backend)."""

import mindtorch as torch
import pytest
from helpers import version_moves
from mindtorch.ops.registry import OPS
from mindtorch.testing.conformance.runner import MISSING, coverage

WRITERS = sorted(q for q, op in OPS.items() if any(p.writes for p in op.params))


@pytest.mark.parametrize("qualname", WRITERS)
def test_versions_move_by_one_per_written_argument_on_npu(qualname):
    if coverage(OPS[qualname], "npu") == MISSING:
        pytest.skip(f"no {qualname} kernel on npu")
    moved, owed, sample = version_moves(qualname, torch.device("npu"))
    assert moved == owed, f"{qualname}{sample!r}"
