"""torch.npu.conv.allow_hf32 (True by default) and torch.npu.matmul.allow_hf32 (False), as torch_npu has them:
the cubeMathType they give, and the simulator's HFLOAT32 operands (11 mantissa bits) where the docs apply it."""

import mindtorch as torch
import mindtorch.nn.functional as F
import numpy as np
import pytest
from mindtorch_npu import precision
from npu_helpers import run_python


def _hf32(a):
    """float32 values rounded to 11 mantissa bits, to nearest even (the simulator's HFLOAT32)."""
    u = np.asarray(a, np.float32).view(np.uint32).astype(np.uint64)
    u = ((u + 0x7FF + ((u >> 12) & 1)) & ~np.uint64(0xFFF)).astype(np.uint32)
    return u.view(np.float32)


@pytest.fixture()
def switches():
    saved = precision.conv.allow_hf32, precision.matmul.allow_hf32
    yield torch.npu
    precision.conv.allow_hf32, precision.matmul.allow_hf32 = saved


def _operands(seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((2, 3, 6, 6)).astype(np.float32) * (1 + 1e-3 * rng.standard_normal((2, 3, 6, 6)))
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    return x.astype(np.float32), w


def test_defaults_are_torch_npu_s():
    # the tests run with MINDTORCH_NPU_ALLOW_CONV_HF32=0 (conftest.py): a process without it has the defaults
    res = run_python(
        """
        import mindtorch as torch
        from mindtorch_npu import precision
        print(torch.npu.conv.allow_hf32, torch.npu.matmul.allow_hf32, precision.conv_cube_math_type())
        """,
        drop=("MINDTORCH_NPU_ALLOW_CONV_HF32",),
    )
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.split() == ["True", "False", "3"]  # USE_HF32 on Ascend910B1


def test_switches_and_their_types(switches):
    switches.conv.allow_hf32 = True
    with pytest.raises(TypeError, match="allow_hf32 must be a bool"):
        switches.conv.allow_hf32 = 1
    switches.matmul.allow_hf32 = True
    assert switches.matmul.allow_hf32 is True
    # Ascend910B1 (the tests' chip): USE_HF32 for convolutions, KEEP_DTYPE without the switch
    assert precision.conv_cube_math_type() == precision.USE_HF32
    switches.conv.allow_hf32 = False
    assert precision.conv_cube_math_type() == precision.KEEP_DTYPE


def test_conv_takes_hf32_operands_unless_switched_off(switches):
    switches.conv.allow_hf32 = True
    x, w = _operands(0)
    exact = F.conv2d(torch.from_numpy(x.astype(np.float64)), torch.from_numpy(w.astype(np.float64))).numpy()
    hf32 = F.conv2d(torch.from_numpy(_hf32(x).astype(np.float64)), torch.from_numpy(_hf32(w).astype(np.float64)))
    xn, wn = torch.from_numpy(x).to("npu"), torch.from_numpy(w).to("npu")
    on = F.conv2d(xn, wn).cpu().numpy()
    np.testing.assert_allclose(on, hf32.numpy(), rtol=1e-5, atol=1e-5)
    assert np.abs(on - exact).max() > 1e-4  # the switch is visible
    switches.conv.allow_hf32 = False
    off = F.conv2d(xn, wn).cpu().numpy()
    np.testing.assert_allclose(off, exact, rtol=1e-5, atol=1e-5)


def test_matmul_takes_hf32_operands_only_when_switched_on(switches):
    a, b = _operands(1)[0].reshape(12, 18), _operands(2)[0].reshape(18, 12)
    exact = a.astype(np.float64) @ b.astype(np.float64)
    an, bn = torch.from_numpy(a).to("npu"), torch.from_numpy(b).to("npu")
    np.testing.assert_allclose((an @ bn).cpu().numpy(), exact, rtol=1e-5, atol=1e-5)
    switches.matmul.allow_hf32 = True
    on = (an @ bn).cpu().numpy()
    np.testing.assert_allclose(on, _hf32(a).astype(np.float64) @ _hf32(b).astype(np.float64), rtol=1e-5, atol=1e-5)
    assert np.abs(on - exact).max() > 1e-4
    h = torch.from_numpy(a).half().to("npu")  # HFLOAT32 concerns float32 operands only
    np.testing.assert_allclose(
        (h @ h.t()).cpu().float().numpy(), (h.cpu().float() @ h.cpu().float().t()).numpy(), rtol=1e-2
    )


def test_chips_without_a_float32_cube_get_torch_npu_s_values():
    # before Ascend910B1 float32 may go down to float16: ALLOW_FP32_DOWN_PRECISION with the switch, USE_FP16
    # without; the simulator refuses USE_HF32 for FLOAT there, as ops-nn's cube_util does
    res = run_python(
        """
        import ctypes, mindtorch as torch
        from mindtorch_npu import precision
        from mindtorch_npu.aclnn import device_launch, IntArray
        precision.conv.allow_hf32 = True
        print(precision.conv_cube_math_type())
        precision.conv.allow_hf32 = False
        print(precision.conv_cube_math_type())
        x, w = torch.ones(1, 1, 3, 3, device="npu"), torch.ones(1, 1, 3, 3, device="npu")
        out = torch.empty(1, 1, 1, 1, device="npu")
        args = (x, w, None, IntArray((1, 1)), IntArray((0, 0)), IntArray((1, 1)), False, IntArray((0, 0)), 1, out)
        try:
            device_launch("Convolution", *args, 3)
        except RuntimeError as e:
            print("refused", "161002" in str(e))
        device_launch("Convolution", *args, 1)
        print(float(out.cpu().reshape(-1)[0]))
        """,
        {"ACLSIM_SOC_NAME": "Ascend310P3"},
    )
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.split() == ["1", "2", "refused", "True", "9.0"]
