"""Autocast's shared state, in a module that imports nothing of mindtorch (dispatch and the generated functions read it on
every op): which devices autocast is on for (device type -> dtype) and which ops have a cast policy.
mindtorch.amp.autocast_mode owns the context manager and the casting."""

from typing import Any

ACTIVE: dict = {}

# op-table names (and the nn.functional functions that are not ops) by policy, as PyTorch's CPU lists
LOWER = {
    "mm",
    "matmul",
    "bmm",
    "addmm",
    "baddbmm",
    "linear",
    "_conv2d",
    "_scaled_dot_product_attention",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
    "prelu",
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
POLICY_OPS = LOWER | FP32 | PROMOTE


def cast_args(name: str, args: Any) -> Any:
    """(op name, args) -> args cast by the policy. mindtorch.amp.autocast_mode replaces this with the
    real one when it loads, which is before ACTIVE can be non-empty (dispatch, below amp, calls it
    through here)."""
    return args
