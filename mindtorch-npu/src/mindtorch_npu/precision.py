"""The cube's float32 precision switches, as torch_npu has them: `torch.npu.conv.allow_hf32` (default True) and
`torch.npu.matmul.allow_hf32` (default False), and the aclnn cubeMathType each gives.

torch_npu (framework/utils/CalcuOpUtil.cpp GetCubeMathType, op-plugin ConvolutionKernelNpuOpApi.cpp and
utils/OpUtils.cpp) combines the switch with whether float32 may go down to float16 (chips before Ascend910B1):
  allow_hf32, fp32->fp16:  no, no -> KEEP_DTYPE (0); no, yes -> USE_FP16 (2);
                           yes, no -> USE_HF32 (3); yes, yes -> ALLOW_FP32_DOWN_PRECISION (1).
Convolutions take that value. Matmuls take it when allow_hf32 is set; otherwise they keep the value they had
(KEEP_DTYPE, or ALLOW_FP32_DOWN_PRECISION for float32 on chips without a float32 cube, where torch_npu would
pass USE_FP16).
"""

import os

from . import chips

KEEP_DTYPE, ALLOW_FP32_DOWN_PRECISION, USE_FP16, USE_HF32 = 0, 1, 2, 3
_BY_CODE = (KEEP_DTYPE, USE_FP16, USE_HF32, ALLOW_FP32_DOWN_PRECISION)  # (allow_hf32 << 1) | fp32_to_fp16


class _HF32Switch:
    """One `allow_hf32` flag (torch.npu.conv / torch.npu.matmul)."""

    def __init__(self, default):
        object.__setattr__(self, "_allow", default)

    @property
    def allow_hf32(self):
        return self._allow

    def __setattr__(self, name, value):
        if name != "allow_hf32":
            raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")
        if not isinstance(value, bool):
            raise TypeError(f"allow_hf32 must be a bool, but got {type(value).__name__}")
        object.__setattr__(self, "_allow", value)


def _default(name, value):
    """A switch's start value: torch_npu's default, or MINDTORCH_NPU_<NAME> = 0 / 1 (torch_npu's
    ALLOW_CONV_HF32 / ALLOW_MATMUL_HF32 options, for a process that wants it from the start)."""
    env = os.environ.get(f"MINDTORCH_NPU_{name}", "")
    return value if env == "" else env == "1"


conv = _HF32Switch(_default("ALLOW_CONV_HF32", True))
matmul = _HF32Switch(_default("ALLOW_MATMUL_HF32", False))

_fp32_to_fp16 = []


def _down_to_fp16():
    if not _fp32_to_fp16:
        _fp32_to_fp16.append(not chips.native_fp32_cube())
    return _fp32_to_fp16[0]


def conv_cube_math_type():
    """The cubeMathType torch_npu passes to aclnnConvolution and its backward."""
    return _BY_CODE[(conv.allow_hf32 << 1) | _down_to_fp16()]


def matmul_cube_math_type(dtype_is_float32):
    """The cubeMathType for the matmul family (see the module's note)."""
    if matmul.allow_hf32 and dtype_is_float32:  # HFLOAT32 concerns float32 operands only
        return _BY_CODE[2 | _down_to_fp16()]
    return ALLOW_FP32_DOWN_PRECISION if dtype_is_float32 and _down_to_fp16() else KEEP_DTYPE
