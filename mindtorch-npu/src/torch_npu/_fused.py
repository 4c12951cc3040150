"""torch_npu's fused functions (op-plugin's npu_rms_norm, npu_rotary_mul, npu_swiglu, npu_grouped_matmul) over
core's fused ops, with the signatures, results and argument rules its documentation gives; differentiable."""

import mindtorch

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


def npu_rotary_mul(input, r1, r2, rotary_mode="half", rotate=None):
    """Rotary position embedding: input * r1 + rotate(input) * r2, where rotate(x) is cat(-x2, x1) of x's
    halves ('half'), the pairs (x[::2], x[1::2]) turned to (-x[1::2], x[::2]) ('interleave'), or x @ rotate."""
    if input.ndim not in (3, 4):
        raise RuntimeError(f"npu_rotary_mul(): input must have 3 or 4 dims, but got {input.ndim}")
    if rotate is None:
        return mindtorch.ops._rotary_mul(input, r1, r2, rotary_mode)
    return (input * r1 + (input @ rotate) * r2).to(input.dtype)


def npu_swiglu(input, dim=-1):
    """swish(A) * B of input's two halves A, B along dim."""
    return mindtorch.ops._swiglu(input, dim)


# the npu_grouped_matmul arguments beyond x, weight and group_list: quantization, bias and activation fusions
_GMM_UNSUPPORTED = (
    "bias",
    "scale",
    "offset",
    "antiquant_scale",
    "antiquant_offset",
    "per_token_scale",
    "activation_input",
    "activation_quant_scale",
    "activation_quant_offset",
    "output_dtype",
    "tuning_config",
)


def npu_grouped_matmul(
    x, weight, *, group_list=None, split_item=0, group_type=None, group_list_type=0, act_type=0, **kw
):
    """The grouped matmul of MoE layers: x = [X (M, K)], weight = [W (G, K, N)], group_list an int64 tensor of
    the groups' row ends along M (group_list_type 0) or row counts (1), group_type 0; returns [Y (M, N)], the
    rows of group g multiplied by W[g]. The other forms (lists of several x or weights, K-axis groups,
    bias, quantization, activations) are an error naming what is not provided."""
    given = sorted(k for k, v in kw.items() if v is not None)
    unknown = [k for k in given if k not in _GMM_UNSUPPORTED]
    if unknown:
        raise TypeError(f"npu_grouped_matmul() got an unexpected keyword argument '{unknown[0]}'")
    if given or act_type:
        raise NotImplementedError(
            f"npu_grouped_matmul: {', '.join(given or ['act_type'])} is not provided by mindtorch-npu"
        )
    if not (isinstance(x, (list, tuple)) and len(x) == 1 and isinstance(weight, (list, tuple)) and len(weight) == 1):
        raise NotImplementedError("npu_grouped_matmul: mindtorch-npu provides one x (M, K) and one weight (G, K, N)")
    if group_type != 0 or not isinstance(group_list, mindtorch.Tensor) or group_list_type not in (0, 1):
        raise NotImplementedError(
            "npu_grouped_matmul: mindtorch-npu provides group_type=0 with a group_list tensor of row ends "
            "(group_list_type=0) or row counts (group_list_type=1)"
        )
    if split_item not in (0, 1, 2, 3):
        raise ValueError(f"npu_grouped_matmul: split_item must be 0, 1, 2 or 3, but got {split_item}")
    ends = group_list.cumsum(0) if group_list_type == 1 else group_list
    return [mindtorch.ops._grouped_matmul(x[0], weight[0], ends)]
