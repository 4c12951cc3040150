"""_grouped_matmul on npu through aclnnGroupedMatmulV4: values and gradients against the cpu backend, one launch
of the operator for the forward and two for the backward (grad_x over weight's transposed view, grad_weight as
k-axis groups), the composite where the chip's product lacks it, and what the simulator refuses as the
operator's README (its aclnn doc is a stub) and op-plugin's calls allow."""

import json

import mindtorch as torch
import mindtorch_npu.kernels.grouped_matmul as gmm
import numpy as np
import pytest
from mindtorch_npu import chips
from mindtorch_npu.aclnn import launch
from mindtorch_npu.chip_coverage import CLAIMED_CHIPS
from mindtorch_npu.copy import empty
from mindtorch_npu.kernels._common import mT
from npu_helpers import run_python

TOL = {torch.float32: 2e-5, torch.float16: 2e-3, torch.bfloat16: 2e-2}


@pytest.fixture
def launched(monkeypatch):
    names = []
    monkeypatch.setattr(gmm, "launch", lambda name, *a, **k: (names.append(name), launch(name, *a, **k))[1])
    return names


def _run(device, x, w, ends, g, dtype):
    a = torch.tensor(x, dtype=dtype, device=device).requires_grad_()
    b = torch.tensor(w, dtype=dtype, device=device).requires_grad_()
    out = torch.ops._grouped_matmul(a, b, torch.tensor(ends, device=device))
    out.backward(torch.tensor(g, dtype=dtype, device=device))
    return [t.detach().float().cpu().numpy() for t in (out, a.grad, b.grad)]


GROUPS = {
    "even": [3, 6, 9, 12],
    "empty_and_tail": [2, 2, 7, 9],  # an expert without rows; rows 9.. belong to no expert (zero)
    "one_expert": [12],
    "all_in_last": [0, 0, 0, 12],
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16], ids=str)
@pytest.mark.parametrize("groups", sorted(GROUPS))
def test_values_and_grads_match_the_cpu_through_the_operator(groups, dtype, launched):
    rng = np.random.default_rng(len(groups))
    ends = GROUPS[groups]
    x, w, g = (rng.standard_normal(s).astype(np.float32) for s in ((12, 6), (len(ends), 6, 5), (12, 5)))
    want = _run("cpu", x, w, ends, g, dtype)
    got = _run("npu", x, w, ends, g, dtype)
    for p, q in zip(got, want):
        np.testing.assert_allclose(p, q, rtol=TOL[dtype], atol=TOL[dtype])
    assert launched == [gmm.OPERATOR] * 3


def test_grouped_mm_and_npu_grouped_matmul_take_the_operator(launched):
    import torch_npu

    x, w = torch.randn(6, 4, device="npu"), torch.randn(2, 4, 3, device="npu")
    counts = torch.tensor([2, 3], device="npu")
    out = torch_npu.npu_grouped_matmul([x], [w], group_list=counts, split_item=3, group_type=0, group_list_type=1)[0]
    ref = torch.nn.functional.grouped_mm(x.cpu(), w.cpu(), offs=torch.tensor([2, 5], dtype=torch.int32))
    np.testing.assert_allclose(out.cpu().numpy(), ref.numpy(), rtol=1e-5, atol=1e-5)
    assert gmm.OPERATOR in launched


def test_float64_takes_the_composite(launched):
    x, w = torch.randn(4, 3, dtype=torch.float64), torch.randn(2, 3, 2, dtype=torch.float64)
    ends = torch.tensor([1, 4])
    with pytest.raises(RuntimeError, match="float64"):  # the composite's matmul: the chip has none in float64
        torch.ops._grouped_matmul(x.to("npu"), w.to("npu"), ends.to("npu"))
    assert gmm.OPERATOR not in launched


# --- the simulator refuses what the README refuses -------------------------------------------------------------------
def _t(shape, dtype=torch.float32):
    return empty(tuple(shape), dtype, torch.device("npu:0"))


def _gl(n):
    return _t((n,), torch.int64)


def _call(x, w, gl, out, split=3, group_type=0, list_type=0, act=0, bias=None):
    return (x, w, bias, *[None] * 5, gl, None, None, None, split, group_type, list_type, act, out, None, None)


REFUSALS = [
    (lambda: _call([_t((4, 3)), _t((4, 3))], [_t((2, 3, 5))], _gl(2), [_t((4, 5))]), "one tensor per list"),
    (lambda: _call([_t((4, 3))], [_t((2, 3, 5))], _gl(2), [_t((4, 5))], bias=[_t((2, 5))]), "biasOptional"),
    (lambda: _call([_t((4, 3))], [_t((2, 3, 5))], _gl(2), [_t((4, 5))], act=1), "actType"),
    (lambda: _call([_t((4, 3))], [_t((2, 3, 5))], _gl(2), [_t((4, 5))], group_type=1), "groupType 1"),
    (lambda: _call([_t((4, 3))], [_t((3, 5))], None, [_t((4, 5))], group_type=-1), "groupType -1"),
    (lambda: _call([_t((4, 3))], [_t((2, 3, 5))], _gl(2), [_t((4, 5))], split=0), "splitItem 0"),
    (lambda: _call([_t((4, 3))], [_t((2, 3, 5))], None, [_t((4, 5))]), "groupListOptional"),
    (lambda: _call([_t((4, 3))], [_t((2, 3, 5))], _gl(3), [_t((4, 5))]), "one entry per group"),
    (lambda: _call([_t((4, 3))], [_t((2, 3, 5))], _gl(2), [_t((4, 5))], list_type=2), "groupListType 2"),
    (lambda: _call([_t((4, 3))], [_t((2, 4, 5))], _gl(2), [_t((4, 5))]), "K"),
    (lambda: _call([_t((4, 3))], [_t((2, 3, 5))], _gl(2), [_t((4, 6))]), "out"),
    (lambda: _call([mT(_t((3, 4)))], [_t((2, 3, 5))], _gl(2), [_t((4, 5))]), "x transposed"),
    (lambda: _call([_t((4, 3))], [_t((2, 3, 5), torch.float16)], _gl(2), [_t((4, 5))]), "one dtype"),
    (lambda: _call([_t((4, 3), torch.int8)], [_t((2, 3, 5), torch.int8)], _gl(2), [_t((4, 5))]), "quantized"),
    (lambda: _call([_t((1025, 1))], [_t((1025, 1, 1))], _gl(1025), [_t((1025, 1))]), "1024"),
    # groupType 2: x transposed, weight not, out [G, M, N]
    (lambda: _call([_t((4, 6))], [_t((6, 5))], _gl(2), [_t((2, 4, 5))], group_type=2), "takes x transposed"),
    (lambda: _call([mT(_t((6, 4)))], [mT(_t((5, 6)))], _gl(2), [_t((2, 4, 5))], group_type=2), "weight transposed"),
    (lambda: _call([mT(_t((6, 4)))], [_t((6, 5))], _gl(2), [_t((3, 4, 5))], group_type=2), "out"),
]


@pytest.mark.parametrize("args, says", REFUSALS, ids=[str(i) for i in range(len(REFUSALS))])
def test_the_simulator_refuses_what_the_readme_refuses(args, says):
    with pytest.raises(Exception, match="aclnnGroupedMatmulV4") as info:
        launch(gmm.OPERATOR, *args())
    assert says in str(info.value)


def test_the_simulator_takes_both_group_list_forms_and_leaves_uncovered_rows():
    rng = np.random.default_rng(4)
    x, w = rng.standard_normal((6, 3)).astype(np.float32), rng.standard_normal((2, 3, 2)).astype(np.float32)
    for list_type, given in ((0, [1, 4]), (1, [1, 3])):
        out = torch.full((6, 2), 7.0).to("npu")
        gl = torch.tensor(given, device="npu")
        launch(
            gmm.OPERATOR, *_call([torch.tensor(x).to("npu")], [torch.tensor(w).to("npu")], gl, [out], 2, 0, list_type)
        )
        got = out.cpu().numpy()
        np.testing.assert_allclose(got[:1], x[:1] @ w[0], rtol=1e-5)
        np.testing.assert_allclose(got[1:4], x[1:4] @ w[1], rtol=1e-5)
        assert (got[4:] == 7).all()


def test_a_group_list_past_the_rows_fails_the_launch():
    proc = run_python(
        """
        import mindtorch as torch
        x, w = torch.ones(4, 2, device="npu"), torch.ones(2, 2, 3, device="npu")
        torch.ops._grouped_matmul(x, w, torch.tensor([3, 5], device="npu"))
        torch.npu.synchronize()
        """,
        timeout=120,
    )
    assert proc.returncode != 0 and "group_list[1] = 5" in proc.stderr, proc.stderr[-2000:]


_CHIP_SCRIPT = """
import json
import mindtorch as torch
import mindtorch_npu.kernels.grouped_matmul as K
from mindtorch_npu.aclnn import launch
names = []
K.launch = lambda name, *a, **k: (names.append(name), launch(name, *a, **k))[1]
x, w = torch.randn(6, 4, dtype=torch.float16), torch.randn(2, 4, 3, dtype=torch.float16)
ends = torch.tensor([2, 5])
xn, wn = x.to("npu").requires_grad_(), w.to("npu").requires_grad_()
out = torch.ops._grouped_matmul(xn, wn, ends.to("npu"))
out.float().sum().backward()
want = torch.ops._grouped_matmul(x, w, ends)
print(json.dumps({"err": float((out.cpu() - want).abs().max()), "launched": sorted(set(names))}))
"""


@pytest.mark.parametrize("soc", CLAIMED_CHIPS)
def test_each_claimed_chip_runs_the_operator_where_its_product_has_it(soc):
    proc = run_python(_CHIP_SCRIPT, {"ACLSIM_SOC_NAME": soc}, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["err"] <= 1e-2, (soc, got)
    assert (gmm.OPERATOR in got["launched"]) == chips.supports(gmm.OPERATOR, torch.float16, soc), (soc, got)
