"""Launch plans (mindtorch_npu.aclnn.PLANS): phase 1 is kept per operator and argument geometry and reused with
refreshed addresses; a plan must never serve a call of another geometry."""

import mindtorch as torch
import numpy as np
import pytest
from mindtorch_npu.aclnn import PLANS, Scalar, launch
from npu_helpers import live_counts


def _close(got, want):
    np.testing.assert_allclose(got.cpu().numpy(), want.numpy(), rtol=1e-6, atol=1e-6)


@pytest.fixture()
def fresh_plans():
    torch.npu.synchronize()
    torch.npu.empty_cache()  # every plan destroyed: what a test makes is its own
    yield PLANS
    torch.npu.synchronize()
    torch.npu.empty_cache()


def test_one_stride_apart_never_shares_a_plan(fresh_plans):
    x, y = torch.randn(4, 4), torch.randn(4, 4)
    nx, ny = x.to("npu"), y.to("npu")
    for _ in range(2):  # the second round runs on the plans the first made
        _close(nx + ny, x + y)
        _close(nx + ny.t(), x + y.t())  # the same shapes, dtypes and addresses; one stride differs
        _close(nx[1:] + ny[:-1], x[1:] + y[:-1])  # the same strides; the offsets differ
        _close(nx[:, :2] + ny[:, 2:], x[:, :2] + y[:, 2:])
    assert len(fresh_plans.plans) >= 4


def test_a_plan_follows_new_addresses(fresh_plans):
    xs = [torch.randn(8) for _ in range(5)]
    ns = [x.to("npu") for x in xs]
    outs = [ns[i] * ns[i + 1] for i in range(4)]  # every result held: a new output address each call
    before = live_counts()["executors"]
    outs += [ns[i + 1] * ns[i] for i in range(4)]
    assert live_counts()["executors"] == before  # the key's plans served every call, refreshed
    for i in range(4):
        _close(outs[i], xs[i] * xs[i + 1])
        _close(outs[4 + i], xs[i + 1] * xs[i])


def test_a_key_keeps_a_plan_for_each_of_a_few_address_sets(fresh_plans, monkeypatch):
    # a training step's new gradients alternate between two places, and one geometry serves several layers:
    # each address set keeps a plan of its own, so repeating the calls refreshes none
    import mindtorch_npu.aclnn as aclnn

    refreshed, refresh = [], aclnn._refresh
    monkeypatch.setattr(aclnn, "_refresh", lambda plan, addrs: refreshed.append(addrs) or refresh(plan, addrs))
    for n in (PLANS.SIBLINGS + 1, PLANS.SIBLINGS + 2):
        pairs = [(torch.ones(8).to("npu"), torch.full((8,), 2.0).to("npu")) for _ in range(n)]
        refreshed.clear()
        for _ in range(3):  # the first round makes the plans, the others find them
            for a, b in pairs:
                a.mul_(b)
        for a, _ in pairs:
            _close(a, torch.full((8,), 8.0))
        # one address set more than the plans kept: cycling through them, each call refreshes the oldest plan
        assert len(refreshed) == (0 if n == PLANS.SIBLINGS + 1 else 3 * n), n


def test_deferred_checks_share_one_block_until_they_are_read():
    # reading ops check their indices at the next synchronization; the checks waiting take slots of one
    # block, so the step's allocations (and the launch plans' addresses) do not move with them
    import mindtorch.nn.functional as F

    w, i = torch.randn(10, 4).to("npu"), torch.tensor([1, 2, 9]).to("npu")
    torch.npu.synchronize()
    base = torch.npu.memory_allocated()
    F.embedding(i, w)
    first = torch.npu.memory_allocated()
    for _ in range(20):
        F.embedding(i, w)
    assert torch.npu.memory_allocated() == first > base
    torch.npu.synchronize()
    assert torch.npu.memory_allocated() == base


def test_aliased_arguments_get_their_own_plan(fresh_plans):
    x, y = torch.randn(6), torch.randn(6)
    nx, ny = x.to("npu"), y.to("npu")
    _close(nx * ny, x * y)
    _close(nx * nx, x * x)  # the same geometry, one storage twice
    a = nx.clone()
    a.mul_(a)
    _close(a, x * x)


def test_plans_are_destroyed_by_empty_cache(fresh_plans):
    n = torch.randn(3).to("npu")
    (n + n).sum()
    assert fresh_plans.plans
    torch.npu.synchronize()
    torch.npu.empty_cache()
    assert not fresh_plans.plans and not fresh_plans.old


def test_a_list_call_is_planned_when_it_repeats(fresh_plans):
    xs = [torch.randn(n) for n in (3, 5, 2)]
    ns = [x.to("npu") for x in xs]

    def planned():
        return [k for k in fresh_plans.plans if k[0] == "ForeachMulScalarV2"]

    launch("ForeachMulScalarV2", ns, Scalar(2.0), ns)
    assert not planned()  # a list call seen once is described: its scalar may never come again
    launch("ForeachMulScalarV2", ns, Scalar(3.0), ns)
    assert not planned()  # another scalar is another key
    launch("ForeachMulScalarV2", ns, Scalar(3.0), ns)
    assert len(planned()) == 1
    before = live_counts()["executors"]
    launch("ForeachMulScalarV2", ns, Scalar(3.0), ns)
    assert live_counts()["executors"] == before
    for x, n in zip(xs, ns):
        _close(n, x * 54)


def test_zero_and_nan_scalars_are_planned_apart(fresh_plans):
    n = torch.ones(4).to("npu")
    for _ in range(2):  # the second round runs on the plans the first made
        for v in (0.0, -0.0, float("nan"), 0.0, -0.0):
            n.fill_(v)
            got = n.cpu().numpy()
            want = np.full(4, v, np.float32)
            np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
            np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    assert len([k for k in fresh_plans.plans if k[0] == "InplaceFillScalar"]) == 3  # 0.0, -0.0 and NaN


def test_complex_scalars_are_keyed_by_their_bits():
    from mindtorch_npu.acl.types import ACL_COMPLEX128
    from mindtorch_npu.aclnn import _plan_key, scalar_for

    t = torch.ones(2).to("npu")
    values = (0j, complex(0.0, -0.0), complex(-0.0, 0.0), complex(float("nan"), 1.0), 1 + 2j)
    keys = {_plan_key("Muls", (t, Scalar(v, ACL_COMPLEX128), t), None)[0] for v in values}
    assert len(keys) == len(values)
    assert scalar_for(2, torch.complex64).value == 2 + 0j  # a number for a complex op is a complex aclScalar


def test_a_complex_value_reaches_the_chips_refusal_not_a_conversion_error():
    x = torch.ones(3, dtype=torch.complex64).to("npu")
    with pytest.raises(TypeError, match="complex64 is not supported on"):
        torch.addcmul(x, x, x, value=2 + 1j)
    with pytest.raises(TypeError, match="complex64 is not supported on"):
        torch._foreach_addcmul([x], [x], [x], torch.ones(1, dtype=torch.complex64).to("npu"))


def test_operators_with_auxiliary_tensors_keep_their_plans(fresh_plans):
    """A total weight, a gradient passed beside the operands, an unused bias: aclSetTensorAddr reaches every
    tensor operand, so these operators' plans follow new addresses instead of being refused."""
    import mindtorch.nn.functional as F

    before = set(fresh_plans.refused)
    on_cpu, on_npu = torch.nn.LayerNorm(6), torch.nn.LayerNorm(6).to("npu")
    for _ in range(3):  # fresh activations each round: the same plans at new addresses
        x, t = torch.randn(4, 6), torch.randint(0, 6, (4,))
        xc, xn = x.clone().requires_grad_(), x.to("npu").requires_grad_()
        lc = F.nll_loss(F.log_softmax(on_cpu(xc), -1), t)
        ln = F.nll_loss(F.log_softmax(on_npu(xn), -1), t.to("npu"))
        lc.backward()
        ln.backward()
        np.testing.assert_allclose(ln.detach().cpu().numpy(), lc.detach().numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(xn.grad.cpu().numpy(), xc.grad.numpy(), rtol=1e-5, atol=1e-6)
    names = {"NLLLoss", "NLLLossBackward", "LayerNormBackward"}
    assert not [k for k in fresh_plans.refused - before if k[0] in names]
    assert names <= {k[0] for k in fresh_plans.plans}
