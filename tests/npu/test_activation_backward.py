"""gelu_backward, _softmax_backward_data and _log_softmax_backward_data run as one ACLNN operator each
(aclnnGeluBackwardV2, aclnnSoftmaxBackward, aclnnLogSoftmaxBackward): results match the cpu backend's, what the
operators do not take still runs core's composite, errors stay PyTorch's, and the simulator refuses what CANN's
op_api refuses (ops-nn activation/gelu_grad_v2, softmax_grad, log_softmax_grad)."""

import ctypes
from pathlib import Path

import mindtorch as torch
import mindtorch.nn.functional as F
import numpy as np
import pytest
from mindtorch.plugins import OPS
from npu_helpers import both, close

NAMES = ("gelu_backward", "_softmax_backward_data", "_log_softmax_backward_data")


@pytest.fixture
def composites(monkeypatch):
    """The names of the ops whose npu call fell back to core's composite."""
    fell_back = []

    def record(op, name):
        composite = op.composite

        def run(*a, **k):
            if a[1].device.type == "npu":
                fell_back.append(name)
            return composite(*a, **k)

        return run

    for name in NAMES:
        monkeypatch.setattr(OPS[name], "composite", record(OPS[name], name))
    return fell_back


def _probs(shape, dim, dtype, log=False):
    x = torch.randn(*shape) * 2
    return (x.log_softmax(dim) if log else x.softmax(dim)).to(dtype)


# --- results against the cpu backend ----------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_backward_matches_cpu(dtype, approximate, composites):
    torch.manual_seed(0)
    g, x = torch.randn(4, 7, 5).to(dtype), (torch.randn(4, 7, 5) * 3).to(dtype)
    want, got = both(lambda g, x: torch.ops.gelu_backward(g, x, approximate=approximate), g, x)
    close(got, want)
    assert composites == []


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("dim", [-1, 2, 1, 0, -2])
@pytest.mark.parametrize("log", [False, True])
def test_softmax_backward_pair_matches_cpu(dtype, dim, log, composites):
    torch.manual_seed(1)
    name = "_log_softmax_backward_data" if log else "_softmax_backward_data"
    g, y = torch.randn(3, 4, 6).to(dtype), _probs((3, 4, 6), dim, dtype, log)
    want, got = both(lambda g, y: getattr(torch.ops, name)(g, y, dim), g, y)
    close(got, want)
    assert composites == []


def test_non_contiguous_operands(composites):
    torch.manual_seed(2)
    g, x = torch.randn(6, 5), torch.randn(5, 6)
    for approximate in ("none", "tanh"):
        want, got = both(lambda g, x: torch.ops.gelu_backward(g[::2], x.t()[::2], approximate=approximate), g, x)
        close(got, want)
    y = torch.randn(5, 6).softmax(0)
    for name in NAMES[1:]:
        want, got = both(lambda g, y: getattr(torch.ops, name)(g.t(), y.t(), 1), g.t().contiguous(), y)
        close(got, want)
        want, got = both(lambda g, y: getattr(torch.ops, name)(g[:, 1:4], y[:, 1:4], 0), g, y.t().contiguous())
        close(got, want)
    assert composites == []


def test_gradient_broadcasting_into_self(composites):
    torch.manual_seed(3)
    want, got = both(lambda g, x: torch.ops.gelu_backward(g, x), torch.randn(3, 1, 4), torch.randn(3, 5, 4))
    close(got, want)
    want, got = both(lambda g, x: torch.ops.gelu_backward(g, x, approximate="tanh"), torch.randn(4), torch.randn(2, 4))
    close(got, want)
    assert composites == []


@pytest.mark.parametrize("shape", [(0, 4), (3, 0), (2, 0, 5)])
def test_empty_operands(shape, composites):
    g, x = torch.randn(*shape), torch.randn(*shape)
    for fn in (
        lambda g, x: torch.ops.gelu_backward(g, x),
        lambda g, x: torch.ops._softmax_backward_data(g, x, -1),
        lambda g, x: torch.ops._log_softmax_backward_data(g, x, 0),
    ):
        want, got = both(fn, g, x)
        close(got, want)
    assert composites == []


def test_zero_dim_operands(composites):
    g, x = torch.tensor(0.7), torch.tensor(-1.3)
    want, got = both(lambda g, x: torch.ops.gelu_backward(g, x, approximate="tanh"), g, x)
    close(got, want)
    # PyTorch's 0-dim values are the composite chain's (y (g - g y), g - exp(y) g); the cpu kernel gives 0
    pairs = (("_softmax_backward_data", x.exp(), 0), ("_log_softmax_backward_data", x, -1))
    for name, y, dim in pairs:
        close(getattr(torch.ops, name)(g.to("npu"), y.to("npu"), dim), OPS[name].composite(g, y, dim))
    assert composites == []


# --- what the operators do not take: core's composite, same results -------------------------------------


def test_what_the_operators_do_not_take_runs_the_composite(composites):
    torch.manual_seed(4)
    g64, x64 = torch.randn(3, 4, dtype=torch.float64), torch.randn(3, 4, dtype=torch.float64)
    want, got = both(lambda g, x: torch.ops.gelu_backward(g, x), g64, x64)  # the docs list no DOUBLE
    close(got, want)
    y64 = x64.softmax(1)
    want, got = both(lambda g, y: torch.ops._softmax_backward_data(g, y, 1), g64, y64)
    close(got, want)
    assert composites == ["gelu_backward", "_softmax_backward_data"]
    want, got = both(lambda g, y: torch.ops._log_softmax_backward_data(g, y, 0), g64, x64.log_softmax(0))
    close(got, want)
    assert composites == list(NAMES)


# --- PyTorch's errors, before anything launches --------------------------------------------------------------


def _error(fn, *tensors):
    with pytest.raises(Exception) as info:
        fn(*tensors)
    return type(info.value), str(info.value)


@pytest.mark.parametrize(
    "fn,make",
    [
        (lambda g, x: torch.ops.gelu_backward(g, x, approximate="exact"), lambda: (torch.ones(3), torch.ones(3))),
        (lambda g, x: torch.ops.gelu_backward(g, x), lambda: (torch.ones(3, dtype=torch.int32),) * 2),
        (lambda g, y: torch.ops._softmax_backward_data(g, y, 2), lambda: (torch.ones(2, 3), torch.ones(2, 3))),
        (lambda g, y: torch.ops._log_softmax_backward_data(g, y, -3), lambda: (torch.ones(2, 3), torch.ones(2, 3))),
        (lambda g, y: torch.ops._softmax_backward_data(g, y, 0), lambda: (torch.ones(3, dtype=torch.int64),) * 2),
    ],
)
def test_bad_arguments_keep_cpus_error(fn, make, composites):
    tensors = make()
    want = _error(fn, *tensors)
    assert _error(fn, *(t.to("npu") for t in tensors)) == want
    assert composites == []


# --- autograd: a training step's backward runs the operators ---------------------------------------------------


def test_a_gpt_steps_backward_calls_no_composite_for_the_three_ops(composites):
    from test_training import run

    cpu, _ = run("cpu", 3)
    composites.clear()
    npu, _ = run("npu", 3)
    assert composites == []
    np.testing.assert_allclose(npu, cpu, rtol=2e-5)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_activation_gradients_match_cpu(dtype, composites):
    torch.manual_seed(5)
    x0, w = torch.randn(4, 6), torch.randn(4, 6)

    def grads(device):
        x = x0.to(device=device, dtype=dtype).detach().requires_grad_()
        loss = (F.gelu(x, approximate="tanh") * w.to(device, dtype)).sum()
        loss = loss + (F.softmax(x, 1) * w.to(device, dtype)).sum() + (F.log_softmax(x, 0) * w.to(device, dtype)).sum()
        loss = loss + (F.gelu(x) * w.to(device, dtype)).sum()
        loss.backward()
        return x.grad

    want = grads("cpu")
    composites.clear()
    close(grads("npu"), want)
    assert composites == []


# --- the simulator refuses what the op_api refuses ---------------------------------------------------------------


def _tensor(shape, dtype=torch.float32):
    """A raw ND aclTensor descriptor over a live dense device tensor of `shape` (and the tensor)."""
    from test_cann_constraints import ND, _sim_tensor

    return _sim_tensor(shape, dtype, ND)


def _phase1(name, *args):
    from test_cann_constraints import _phase1 as phase1

    return phase1(name, *args)


def _gelu(g=((3, 4), torch.float32), x=((3, 4), torch.float32), out=((3, 4), torch.float32), approximate=b"none"):
    from mindtorch_npu.state import RUNTIME

    hs = [_tensor(*spec) for spec in (g, x, out)]
    try:
        return _phase1("GeluBackwardV2", hs[0][0], hs[1][0], approximate, hs[2][0])
    finally:
        for h, _ in hs:
            RUNTIME.nn.aclDestroyTensor(h)


def _softmax(name, dim, g=((2, 3, 4), torch.float32), y=None, out=None, null_out=False):
    from mindtorch_npu.state import RUNTIME

    hs = [_tensor(*spec) for spec in (g, y or g, out or g)]
    try:
        return _phase1(name, hs[0][0], hs[1][0], ctypes.c_int64(dim), None if null_out else hs[2][0])
    finally:
        for h, _ in hs:
            RUNTIME.nn.aclDestroyTensor(h)


OK, NULLPTR, INVALID = 0, 161001, 161002


def test_the_simulator_takes_gelu_backward_v2_as_its_op_api_does():
    f32, f16, i32, f64 = torch.float32, torch.float16, torch.int32, torch.float64
    assert _gelu() == OK
    assert _gelu(approximate=b"tanh") == OK
    assert _gelu(approximate=b"exact") == INVALID
    assert _gelu(approximate=None) == NULLPTR
    assert _gelu(g=((3, 4), f16), x=((3, 4), f32)) == OK  # promoted to FLOAT, gradInput's
    assert _gelu(g=((3, 4), f16), x=((3, 4), f32), out=((3, 4), f16)) == INVALID  # not the promoted dtype
    assert _gelu(g=((3, 4), i32), x=((3, 4), i32), out=((3, 4), i32)) == INVALID
    assert _gelu(g=((3, 4), f64), x=((3, 4), f64), out=((3, 4), f64)) == INVALID
    assert _gelu(g=((1, 4), f32)) == OK  # broadcasts into self
    assert _gelu(g=((3, 5), f32)) == INVALID
    assert _gelu(out=((4, 3), f32)) == INVALID
    assert _gelu(g=((0, 4), f32), x=((0, 4), f32), out=((0, 4), f32)) == OK


@pytest.mark.parametrize("name", ["SoftmaxBackward", "LogSoftmaxBackward"])
def test_the_simulator_takes_the_softmax_backward_pair_as_their_op_api_does(name):
    f32, f16, i32 = torch.float32, torch.float16, torch.int32
    for dim in (-3, -1, 0, 2):
        assert _softmax(name, dim) == OK
    assert _softmax(name, 3) == INVALID
    assert _softmax(name, -4) == INVALID
    assert _softmax(name, 0, y=((2, 3, 4), f16)) == INVALID  # output's dtype is gradOutput's
    assert _softmax(name, 0, g=((2, 3, 4), i32)) == INVALID
    assert _softmax(name, 0, y=((2, 4, 3), f32)) == INVALID
    assert _softmax(name, 0, out=((2, 3), f32)) == INVALID
    assert _softmax(name, 0, null_out=True) == NULLPTR
    assert _softmax(name, 0, g=((1,) * 9, f32)) == INVALID  # at most 8 dims
    # off Ascend950 an empty input ends the checks: nothing to compute
    assert _softmax(name, 5, g=((2, 0), f32), out=((3,), f16)) == OK
    # the LogSoftmaxBackward doc takes 1 to 8 dims; SoftmaxBackward 0 to 8, dim in [-1, 1) for 0 dims
    assert _softmax(name, 0, g=((), f32)) == (INVALID if name == "LogSoftmaxBackward" else OK)
    assert _softmax("SoftmaxBackward", -1, g=((), f32)) == OK
    assert _softmax("SoftmaxBackward", 1, g=((), f32)) == INVALID


def test_on_ascend950_an_empty_softmax_input_is_checked_too():
    """ops-nn's softmax_grad / log_softmax_grad op_api skip the checks of an empty input except on regbase parts."""
    from npu_helpers import run_python

    res = run_python(
        f"""
        import sys
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        import mindtorch as torch
        from mindtorch_npu.state import RUNTIME
        from test_activation_backward import _softmax
        RUNTIME.ensure()
        for name in ("SoftmaxBackward", "LogSoftmaxBackward"):
            print(_softmax(name, 5, g=((2, 0), torch.float32), out=((3,), torch.float16)),
                  _softmax(name, 1, g=((2, 0), torch.float32)))
        """,
        {"ACLSIM_SOC_NAME": "Ascend950PR"},
    )
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.split() == [str(INVALID), str(OK)] * 2
