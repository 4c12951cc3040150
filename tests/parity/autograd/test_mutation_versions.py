"""Version counters after every in-place op of the table against PyTorch's: generated from the ops
whose schema marks an argument written (`Tensor(a!)`) and that PyTorch has as a Tensor method,
on each op's first conformance sample that runs."""

from helpers import torch_or_skip

torch = torch_or_skip()

import mindtorch  # noqa: E402
import pytest  # noqa: E402
from helpers import bound_args, runnable_sample, to_torch  # noqa: E402
from mindtorch.ops.registry import OPS  # noqa: E402

CASES = sorted(
    q
    for q, op in OPS.items()
    if op.inplace and any(p.writes for p in op.params) and hasattr(torch.Tensor, op.name) and "method" in op.variants
)


def _to_torch(x):
    if isinstance(x, mindtorch.Tensor):
        return to_torch(x.detach())
    if isinstance(x, (list, tuple)):
        return type(x)(_to_torch(v) for v in x)
    return x


def _versions(op, bound, lib_tensor):
    out = []
    for p in op.params:
        a = bound.get(p.name)
        for t in a if isinstance(a, (list, tuple)) else [a]:
            if isinstance(t, lib_tensor):
                out.append((p.name, t._version if lib_tensor is torch.Tensor else t._version_value))
    return out


def test_cases_cover_the_in_place_ops():
    assert len(CASES) > 100


@pytest.mark.parametrize("qualname", CASES)
def test_in_place_versions_match_pytorch(qualname):
    op = OPS[qualname]
    _, sample = runnable_sample(qualname, mindtorch.device("cpu"))
    targs, tkw = _to_torch(sample.args), _to_torch(sample.kwargs)
    tbound = dict(zip((p.name for p in op.params), targs))
    tbound.update(tkw)
    try:
        getattr(targs[0], op.name)(*targs[1:], **tkw)
    except (RuntimeError, TypeError, IndexError, ValueError) as exc:
        pytest.skip(f"PyTorch takes this sample differently: {type(exc).__name__}: {str(exc)[:80]}")
    bound = bound_args(op, sample)
    getattr(sample.args[0], op.name)(*sample.args[1:], **sample.kwargs)
    assert _versions(op, bound, mindtorch.Tensor) == _versions(op, tbound, torch.Tensor), repr(sample)
