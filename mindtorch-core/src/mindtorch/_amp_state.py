"""Autocast's shared state, in a module that imports nothing of mindtorch (dispatch and the generated functions read it on
every op): which devices autocast is on for (device type -> dtype) and which ops have a cast policy.
mindtorch.amp.autocast_mode owns the context manager and the casting."""

from typing import Any

ACTIVE: dict = {}

# op-table names (and the nn.functional functions that are not ops) by policy, as PyTorch's CPU lists; the
# convolutions (and prelu) are in the low-precision list of every device's policy
CONVOLUTIONS = {
    "_conv2d",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
    "prelu",
}
LOWER = CONVOLUTIONS | {
    "mm",
    "matmul",
    "bmm",
    "addmm",
    "baddbmm",
    "linear",
    "_scaled_dot_product_attention",
    "scaled_dot_product_attention",
    "bilinear",
    "addbmm",
    "linalg_vecdot",
    "einsum",
}
FP32 = {
    "cdist",
    "prod",
    "quantile",
    "nanquantile",
    "cumprod",
    "linalg_cholesky",
    "linalg_inv",
    "linalg_slogdet",
    "linalg_solve",
    "linalg_eigh",
    "linalg_qr",
    "linalg_svd",
    "linalg_lstsq",
    "linalg_svdvals",
    "_cross_entropy",
    "_nll_loss",
    "mse_loss",
    "l1_loss",
    "smooth_l1_loss",
    "huber_loss",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "cross_entropy",
    "nll_loss",
    "kl_div",
    "poisson_nll_loss",
    "hinge_embedding_loss",
    "margin_ranking_loss",
    "soft_margin_loss",
    "triplet_margin_loss",
    "multi_margin_loss",
    "multilabel_margin_loss",
    "multilabel_soft_margin_loss",
    "cosine_embedding_loss",
    "ctc_loss",
    "gaussian_nll_loss",
}
PROMOTE = {"cat", "stack"}

# torch_npu's npu policy (its AutocastPrivateUse1 registrations, PyTorch's CUDA lists): op-table names and
# the nn.functional functions that are not ops
NPU_LOWER = CONVOLUTIONS | {
    "addmm",
    "addmv",
    "addr",
    "matmul",
    "einsum",
    "mm",
    "mv",
    "linear",
    "addbmm",
    "baddbmm",
    "bmm",
    "chain_matmul",
    "_scaled_dot_product_attention",
    "scaled_dot_product_attention",
}
NPU_FP32 = {
    "acos",
    "asin",
    "cosh",
    "erfinv",
    "exp",
    "expm1",
    "log",
    "log10",
    "log2",
    "log1p",
    "reciprocal",
    "rsqrt",
    "sinh",
    "tan",
    "pow",
    "softplus",
    "layer_norm",
    "native_layer_norm",
    "group_norm",
    "frobenius_norm",
    "nuclear_norm",
    "cosine_similarity",
    "poisson_nll_loss",
    "cosine_embedding_loss",
    "nll_loss",
    "_nll_loss",
    "_cross_entropy",
    "cross_entropy",
    "hinge_embedding_loss",
    "kl_div",
    "l1_loss",
    "smooth_l1_loss",
    "huber_loss",
    "mse_loss",
    "margin_ranking_loss",
    "multilabel_margin_loss",
    "soft_margin_loss",
    "triplet_margin_loss",
    "multi_margin_loss",
    "binary_cross_entropy_with_logits",
    "dist",
    "pdist",
    "cdist",
    "renorm",
    "logsumexp",
}
# ops with a dtype argument: a float16 / bfloat16 / float32 first input runs with dtype=float32 unless the
# caller gives one (the inputs keep their dtype)
NPU_FP32_DTYPE = {"prod", "softmax", "log_softmax", "cumprod", "cumsum", "linalg_vector_norm", "sum", "norm"}
NPU_PROMOTE = {"addcdiv", "addcmul", "atan2", "bilinear", "cross", "dot", "index_put", "tensordot", "scatter_add"}
NPU_BANNED = {"binary_cross_entropy"}


class Policy:
    """One device type's autocast lists."""

    def __init__(self, lower, fp32, promote, fp32_dtype=frozenset(), banned=frozenset()):
        self.lower, self.fp32, self.promote = lower, fp32, promote
        self.fp32_dtype, self.banned = fp32_dtype, banned
        self.ops = lower | fp32 | promote | fp32_dtype | banned


CPU_POLICY = Policy(LOWER, FP32, PROMOTE)
NPU_POLICY = Policy(NPU_LOWER, NPU_FP32, NPU_PROMOTE, NPU_FP32_DTYPE, NPU_BANNED)
# device type -> its policy; a device type not named here takes the CPU lists
POLICIES = {"npu": NPU_POLICY}
POLICY_OPS = CPU_POLICY.ops | NPU_POLICY.ops


def cast_args(name: str, args: Any, op: Any = None) -> Any:
    """(op name, args, the op when args are its positional arguments) -> args cast by the policy.
    mindtorch.amp.autocast_mode replaces this with the real one when it loads, which is before ACTIVE
    can be non-empty (dispatch, below amp, calls it through here)."""
    return args
