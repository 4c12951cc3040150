"""torch.autocast("npu") with torch_npu's op policy: the dtype each listed op returns under bfloat16 and float16
(lower precision -> the autocast dtype, float32 -> float32, the dtype-argument ops -> float32 unless a dtype is
given, promote -> the widest input), values against the same op on the CPU with the policy's casts made by
hand, bfloat16 refused on chips without it, and torch.npu.amp's forms."""

import mindtorch as torch
import mindtorch.nn.functional as F
import numpy as np
import pytest
from mindtorch import _amp_state as policy
from mindtorch.ops.registry import OPS
from npu_helpers import run_python

R = np.random.default_rng(0)
A, B, C = (R.uniform(0.5, 1.5, (4, 4)).astype(np.float32) for _ in range(3))
V = R.uniform(0.5, 1.5, 4).astype(np.float32)
IMG, K = R.standard_normal((1, 2, 5, 5)).astype(np.float32), R.standard_normal((3, 2, 3, 3)).astype(np.float32)
T = np.array([0, 1, 2, 3])

# op name -> (the call, its array operands); every call runs on float32 inputs unless its operands say so
CALLS = {
    "mm": (lambda a, b: torch.mm(a, b), (A, B)),
    "matmul": (lambda a, b: a @ b, (A, B)),
    "bmm": (lambda a, b: torch.bmm(a[None], b[None]), (A, B)),
    "addmm": (lambda v, a, b: torch.addmm(v, a, b), (V, A, B)),
    "addmv": (lambda v, a, w: torch.addmv(v, a, w), (V, A, V)),
    "mv": (lambda a, v: torch.mv(a, v), (A, V)),
    "baddbmm": (lambda a, b, c: torch.baddbmm(a[None], b[None], c[None]), (A, B, C)),
    "linear": (lambda a, b, v: F.linear(a, b, v), (A, B, V)),
    "conv2d": (lambda x, k: F.conv2d(x, k), (IMG, K)),
    "exp": (lambda a: a.exp(), (A,)),
    "log": (lambda a: a.log(), (A,)),
    "rsqrt": (lambda a: a.rsqrt(), (A,)),
    "reciprocal": (lambda a: a.reciprocal(), (A,)),
    "pow": (lambda a: a.pow(2), (A,)),
    "layer_norm": (lambda a: F.layer_norm(a, (4,)), (A,)),
    "mse_loss": (lambda a, b: F.mse_loss(a, b), (A, B)),
    "cross_entropy": (lambda a: F.cross_entropy(a, torch.tensor(T, device=a.device)), (A,)),
    "logsumexp": (lambda a: torch.logsumexp(a, 1), (A,)),
    "sum": (lambda a: a.sum(), (A,)),
    "softmax": (lambda a: torch.softmax(a, -1), (A,)),
    "log_softmax": (lambda a: F.log_softmax(a, -1), (A,)),
    "cumsum": (lambda a: a.cumsum(0), (A,)),
    "prod": (lambda a: a.prod(1), (A,)),
    "linalg_vector_norm": (lambda a: torch.linalg.vector_norm(a), (A,)),
    "addcmul": (lambda a, b, c: torch.addcmul(a, b, c), (A, B, C)),
    "addcdiv": (lambda a, b, c: torch.addcdiv(a, b, c), (A, B, C)),
    "atan2": (lambda a, b: torch.atan2(a, b), (A, B)),
    "dot": (lambda a, b: torch.dot(a, b), (V, V)),
    "relu": (lambda a: a.relu(), (A,)),
    "add": (lambda a, b: a + b, (A, B)),
}
# operands handed over in a low dtype (the float32 and dtype-argument rules act on them)
LOW_INPUTS = policy.NPU_FP32 | policy.NPU_FP32_DTYPE
# promote ops: the first operand low, the rest float32 (the result is float32)
MIXED = policy.NPU_PROMOTE


def _kind(name):
    for kind, names in (
        ("lower", policy.NPU_LOWER),
        ("fp32", policy.NPU_FP32 | policy.NPU_FP32_DTYPE),
        ("promote", policy.NPU_PROMOTE),
    ):
        if name in names:
            return kind
    return "none"


def _operands(name, low, device):
    arrays = CALLS[name][1]
    ts = [torch.tensor(a, device=device) for a in arrays]
    if name in LOW_INPUTS or (name in MIXED):
        ts[0] = ts[0].to(low)
    elif _kind(name) == "none":
        ts = [t.to(low) for t in ts]
    return ts


def _expected(name, low):
    return {"lower": low, "fp32": torch.float32, "promote": torch.float32}.get(_kind(name), low)


def _by_hand(name, low, ts):
    """The CPU result of the op on the inputs the policy casts to."""
    kind = _kind(name)
    if kind == "lower":
        ts = [t.to(low) for t in ts]
    elif kind in ("fp32", "promote"):
        ts = [t.float() for t in ts]
    return CALLS[name][0](*ts)


@pytest.mark.parametrize("low", ["bfloat16", "float16"])
@pytest.mark.parametrize("name", sorted(CALLS))
def test_each_listed_op_returns_the_policy_dtype(name, low):
    low = getattr(torch, low)
    ts = _operands(name, low, "npu")
    with torch.autocast("npu", dtype=low):
        got = CALLS[name][0](*ts)
    assert got.dtype is _expected(name, low), (name, got.dtype)
    want = _by_hand(name, low, [t.cpu() for t in ts])
    assert want.dtype is got.dtype
    tol = 3e-2 if got.dtype is not torch.float32 else 1e-4
    np.testing.assert_allclose(got.cpu().float().numpy(), want.float().numpy(), rtol=tol, atol=tol)


def test_an_explicit_dtype_wins_over_the_float32_rule():
    x = torch.tensor(A, device="npu").bfloat16()
    with torch.autocast("npu", dtype=torch.bfloat16):
        assert x.sum(dtype=torch.bfloat16).dtype is torch.bfloat16
        assert torch.softmax(x, -1, dtype=torch.float16).dtype is torch.float16
        assert x.double().sum().dtype is torch.float64  # float64 is left alone


def test_the_cpu_policy_is_unchanged_beside_an_npu_region():
    x = torch.tensor(A).bfloat16()
    with torch.autocast("cpu", dtype=torch.bfloat16), torch.autocast("npu", dtype=torch.bfloat16):
        assert x.exp().dtype is torch.bfloat16 and x.sum().dtype is torch.bfloat16
        assert torch.tensor(A, device="npu").bfloat16().exp().dtype is torch.float32


def test_binary_cross_entropy_is_refused_under_npu_autocast():
    p = torch.tensor(A / 2, device="npu")
    with torch.autocast("npu", dtype=torch.float16), pytest.raises(RuntimeError, match="unsafe to autocast"):
        F.binary_cross_entropy(p, p)
    assert F.binary_cross_entropy(p, p).dtype is torch.float32  # outside autocast it runs


def test_gradients_reach_float32_parameters_in_float32():
    w = torch.tensor(B, device="npu", requires_grad=True)
    with torch.autocast("npu", dtype=torch.bfloat16):
        y = (torch.tensor(A, device="npu") @ w).exp().sum()
    assert y.dtype is torch.float32
    y.backward()
    assert w.grad.dtype is torch.float32 and w.grad.device.type == "npu"


def test_every_policy_name_is_an_op_or_a_functional():
    names = policy.NPU_POLICY.ops
    unknown = sorted(n for n in names if n not in OPS and not hasattr(F, n) and not hasattr(torch, n))
    assert not unknown, unknown


def test_npu_amp_autocast_is_autocast_on_npu():
    x = torch.tensor(A, device="npu")
    with torch.npu.amp.autocast(dtype=torch.bfloat16):
        assert torch.npu.is_autocast_enabled() and torch.npu.get_autocast_dtype() is torch.bfloat16
        assert (x @ x).dtype is torch.bfloat16
    assert not torch.npu.is_autocast_enabled()
    with torch.npu.amp.autocast():  # float16 by default, as torch_npu's
        assert (x @ x).dtype is torch.float16


@pytest.mark.parametrize("soc,bf16", [("Ascend910A", False), ("Ascend310P3", False), ("Ascend910B1", True)])
def test_bfloat16_autocast_is_refused_on_chips_without_it(soc, bf16):
    res = run_python(
        """
        import mindtorch as torch
        print(torch.npu.is_bf16_supported(), torch.bfloat16 in torch.npu.get_amp_supported_dtype())
        with torch.autocast("npu", dtype=torch.float16):
            pass
        try:
            with torch.autocast("npu", dtype=torch.bfloat16):
                pass
            print("ran")
        except RuntimeError as exc:
            print(exc)
        """,
        {"ACLSIM_SOC_NAME": soc},
    )
    assert res.returncode == 0, res.stderr
    first, second = res.stdout.splitlines()
    assert first == f"{bf16} {bf16}"
    if bf16:
        assert second == "ran"
    else:
        assert second == f"Current NPU Device ({soc}) does not support bfloat16. Please switch dtype to float16."
