"""torch_npu's fused functions (op-plugin's npu_rms_norm, npu_rotary_mul, npu_swiglu), with the signatures,
results and argument rules its documentation gives; differentiable."""

import mindtorch
import mindtorch.nn.functional as F

_HALF = (mindtorch.float16, mindtorch.bfloat16)


def npu_rms_norm(input, gamma, epsilon=1e-6):
    """(input / sqrt(mean(input**2 over gamma's dims) + epsilon) * gamma, rstd): the result in input's dtype,
    rstd in float32 with input's leading dims and size 1 over gamma's. A float16 / bfloat16 input may take a
    float32 gamma (computed in float32)."""
    if gamma.ndim > input.ndim or tuple(input.shape[input.ndim - gamma.ndim :]) != tuple(gamma.shape):
        raise RuntimeError(
            f"npu_rms_norm(): gamma of shape {tuple(gamma.shape)} must match the trailing dims of input "
            f"{tuple(input.shape)}"
        )
    x = input.float() if input.dtype in _HALF and gamma.dtype is mindtorch.float32 else input
    y, rstd = mindtorch.ops._rms_norm(x, tuple(gamma.shape), gamma, float(epsilon))
    return y.to(input.dtype), rstd


def _rotate(x, rotary_mode, rotate):
    if rotate is not None:
        return x @ rotate
    if rotary_mode == "half":
        x1, x2 = x.chunk(2, dim=-1)
        return mindtorch.cat((-x2, x1), dim=-1)
    x1, x2 = x[..., ::2], x[..., 1::2]
    return mindtorch.stack((-x2, x1), dim=-1).flatten(-2)


def npu_rotary_mul(input, r1, r2, rotary_mode="half", rotate=None):
    """Rotary position embedding: input * r1 + rotate(input) * r2, where rotate(x) is cat(-x2, x1) of x's
    halves ('half'), the pairs (x[::2], x[1::2]) turned to (-x[1::2], x[::2]) ('interleave'), or x @ rotate."""
    if rotary_mode not in ("half", "interleave"):
        raise RuntimeError(f"npu_rotary_mul(): rotary_mode must be 'half' or 'interleave', but got {rotary_mode!r}")
    if input.ndim not in (3, 4):
        raise RuntimeError(f"npu_rotary_mul(): input must have 3 or 4 dims, but got {input.ndim}")
    if input.shape[-1] % 2:
        raise RuntimeError(f"npu_rotary_mul(): the last dim of input must be even, but got {input.shape[-1]}")
    return (input * r1 + _rotate(input, rotary_mode, rotate) * r2).to(input.dtype)


def npu_swiglu(input, dim=-1):
    """swish(A) * B of input's two halves A, B along dim."""
    if input.ndim == 0:
        raise RuntimeError("npu_swiglu(): input must have at least 1 dim")
    d = dim + input.ndim if dim < 0 else dim
    if not 0 <= d < input.ndim:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-input.ndim}, {input.ndim - 1}], but got {dim})"
        )
    if input.shape[d] % 2:
        raise RuntimeError(f"npu_swiglu(): input's size {input.shape[d]} along dim {dim} must be even")
    a, b = input.chunk(2, dim=d)
    return F.silu(a) * b
