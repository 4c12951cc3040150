"""silu_backward runs as one ACLNN operator (aclnnSiluBackward, ops-nn activation/silu_grad): results match the
cpu backend's, what the operator does not take still runs core's composite, errors stay PyTorch's, a LLaMA-style
MLP's backward calls no composite, and the simulator refuses what the op_api refuses."""

from pathlib import Path

import mindtorch as torch
import mindtorch.nn.functional as F
import numpy as np
import pytest
from mindtorch.plugins import OPS
from npu_helpers import both, close


@pytest.fixture
def composites(monkeypatch):
    """One entry per npu silu_backward call that fell back to core's composite."""
    fell_back = []
    composite = OPS["silu_backward"].composite

    def run(g, x):
        if x.device.type == "npu":
            fell_back.append((g.dtype, x.dtype, tuple(g.shape), tuple(x.shape)))
        return composite(g, x)

    monkeypatch.setattr(OPS["silu_backward"], "composite", run)
    return fell_back


sb = torch.ops.silu_backward


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("gshape, xshape", [((4, 7, 5), (4, 7, 5)), ((5,), (4, 7, 5)), ((4, 1, 5), (4, 7, 5))])
def test_silu_backward_matches_cpu(dtype, gshape, xshape, composites):
    torch.manual_seed(0)
    g, x = torch.randn(*gshape).to(dtype), (torch.randn(*xshape) * 4).to(dtype)
    want, got = both(sb, g, x)
    close(got, want)
    assert composites == []


def test_special_values(composites):
    x = torch.tensor([0.0, -0.0, 20.0, -20.0, 100.0, -100.0, float("inf"), -float("inf"), float("nan")])
    want, got = both(sb, torch.linspace(-2, 2, 9), x)
    np.testing.assert_array_equal(np.isnan(got.cpu().numpy()), np.isnan(want.numpy()))
    close(got, want)
    assert composites == []


def test_non_contiguous_zero_dim_and_empty(composites):
    torch.manual_seed(1)
    g, x = torch.randn(8, 6), torch.randn(6, 8)
    want, got = both(lambda g, x: sb(g.t()[::2], x[::2]), g, x)
    close(got, want)
    want, got = both(lambda g, x: sb(g[:, 0], x.t()[:, 1]), g, x)  # strided 1-d views
    close(got, want)
    want, got = both(sb, torch.tensor(0.7), torch.tensor(-1.3))
    close(got, want)
    for gs, xs in (((0, 4), (0, 4)), ((4,), (0, 4)), ((3, 0), (3, 0))):
        want, got = both(sb, torch.randn(*gs), torch.randn(*xs))
        close(got, want)
    assert composites == []


def test_what_the_operator_does_not_take_runs_the_composite(composites):
    torch.manual_seed(2)
    cases = [
        (torch.randn(3, 4).half(), torch.randn(3, 4)),  # mixed dtypes (the operator wants them equal)
        (torch.randn(3, 4), torch.randn(4)),  # self broadcasts up to the gradient
    ]
    for g, x in cases:
        want, got = both(sb, g, x)
        close(got, want)
    assert [c[:2] for c in composites] == [(torch.float16, torch.float32), (torch.float32,) * 2]


@pytest.mark.parametrize(
    "make",
    [
        lambda: (torch.ones(3, dtype=torch.int32),) * 2,
        lambda: (torch.ones(3, dtype=torch.bool),) * 2,
        lambda: (torch.ones(2, 4), torch.ones(3, 4)),
    ],
)
def test_bad_arguments_keep_cpus_error(make, composites):
    tensors = make()
    with pytest.raises(Exception) as want:
        sb(*tensors)
    with pytest.raises(type(want.value)) as got:
        sb(*(t.to("npu") for t in tensors))
    assert str(got.value) == str(want.value)
    assert composites == []


# --- autograd: a LLaMA-style MLP's backward runs the operator ---------------------------------------------------


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_a_llama_mlp_backward_calls_no_silu_composite(dtype, composites):
    """RMS norm, then down(silu(gate(h)) * up(h)) (LLaMA's MLP written without the fused SwiGLU)."""
    torch.manual_seed(3)
    x0 = torch.randn(2, 5, 8)
    ws = [torch.randn(16, 8) * 0.3, torch.randn(16, 8) * 0.3, torch.randn(8, 16) * 0.3, torch.rand(8) + 0.5]

    def grads(device):
        x = x0.to(device=device, dtype=dtype).detach().requires_grad_()
        wg, wu, wd, norm_w = (w.to(device=device, dtype=dtype).detach().requires_grad_() for w in ws)
        h = F.rms_norm(x, (8,), norm_w)
        y = F.linear(F.silu(F.linear(h, wg)) * F.linear(h, wu), wd)
        (y * y).mean().backward()
        return [t.grad for t in (x, wg, wu, wd, norm_w)]

    want = grads("cpu")
    composites.clear()
    got = grads("npu")
    assert composites == []
    tol = 2e-5 if dtype is torch.float32 else 3e-2
    for a, b in zip(got, want):
        np.testing.assert_allclose(a.cpu().float().numpy(), b.float().numpy(), rtol=tol, atol=tol)


def test_double_backward_through_silu_on_npu(composites):
    torch.manual_seed(4)
    x0 = torch.randn(3, 4)

    def second(device):
        x = x0.to(device).detach().requires_grad_()
        (d1,) = torch.autograd.grad(F.silu(x).sum(), x, create_graph=True)
        (d2,) = torch.autograd.grad((d1 * d1).sum(), x)
        return d1.detach(), d2

    for a, b in zip(second("npu"), second("cpu")):
        close(a, b)
    assert composites == []


# --- the simulator refuses what the op_api refuses ---------------------------------------------------------------


def _silu(g=((3, 4), torch.float32), x=((3, 4), torch.float32), out=((3, 4), torch.float32), null_out=False):
    from mindtorch_npu.state import RUNTIME
    from test_cann_constraints import ND, _phase1, _sim_tensor

    hs = [_sim_tensor(*spec, ND) for spec in (g, x, out)]
    try:
        return _phase1("SiluBackward", hs[0][0], hs[1][0], None if null_out else hs[2][0])
    finally:
        for h, _ in hs:
            RUNTIME.nn.aclDestroyTensor(h)


OK, NULLPTR, INVALID = 0, 161001, 161002


def test_the_simulator_takes_silu_backward_as_its_op_api_does():
    f32, f16, bf16, i32, f64 = torch.float32, torch.float16, torch.bfloat16, torch.int32, torch.float64
    assert _silu() == OK
    for dt in (f16, bf16):
        assert _silu(g=((3, 4), dt), x=((3, 4), dt), out=((3, 4), dt)) == OK
    assert _silu(null_out=True) == NULLPTR
    assert _silu(g=((3, 4), f64), x=((3, 4), f64), out=((3, 4), f64)) == INVALID  # the doc lists no DOUBLE
    assert _silu(g=((3, 4), i32), x=((3, 4), i32), out=((3, 4), i32)) == INVALID
    # off Ascend950 the three dtypes and shapes are equal: no mixed precision, no broadcasting
    assert _silu(g=((3, 4), f16)) == INVALID
    assert _silu(out=((3, 4), f16)) == INVALID
    assert _silu(g=((1, 4), f32)) == INVALID
    assert _silu(out=((4, 3), f32)) == INVALID
    assert _silu(g=((1,) * 9, f32), x=((1,) * 9, f32), out=((1,) * 9, f32)) == INVALID  # at most 8 dims
    assert _silu(g=((), f32), x=((), f32), out=((), f32)) == OK  # the op_api checks only the upper bound
    # an empty input passes the checks, then has nothing to compute
    assert _silu(g=((0, 4), f32), x=((0, 4), f32), out=((0, 4), f32)) == OK


def _in_subprocess(soc, body):
    from npu_helpers import run_python

    res = run_python(
        f"""
        import sys
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        import mindtorch as torch
        from mindtorch_npu.state import RUNTIME
        from test_silu_backward import _silu
        RUNTIME.ensure()
        f32, f16, bf16 = torch.float32, torch.float16, torch.bfloat16
        {body}
        """,
        {"ACLSIM_SOC_NAME": soc},
    )
    assert res.returncode == 0, res.stderr[-2000:]
    return res.stdout.split()


def test_on_ascend950_mixed_precision_and_broadcasting_are_taken():
    """silu_grad's op_api mixes precisions (into a FLOAT gradInput) and broadcasts only on regbase parts."""
    got = _in_subprocess(
        "Ascend950PR",
        "print(_silu(g=((3, 4), f16)), _silu(g=((3, 4), bf16), x=((3, 4), f16)), _silu(g=((3, 4), f16), "
        "out=((3, 4), f16)), _silu(g=((1, 4), f32)), _silu(g=((3, 1), f32), x=((1, 4), f32)), _silu(g=((2, 4), f32)))",
    )
    assert got == [str(OK), str(OK), str(INVALID), str(OK), str(OK), str(INVALID)]


def test_bfloat16_only_where_the_doc_lists_it():
    got = _in_subprocess("Ascend910A", "print(_silu(g=((3, 4), bf16), x=((3, 4), bf16), out=((3, 4), bf16)), _silu())")
    assert got == [str(INVALID), str(OK)]
