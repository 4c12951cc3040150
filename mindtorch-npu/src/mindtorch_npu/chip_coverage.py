"""Which ops have no npu path on a chip: the ops whose kernels need an ACLNN operator the chip's family lacks
(chips.MISSING_OPS). The chip-matrix tests check this against what the conformance kit finds on each chip."""

from . import chips

# the chips the backend claims, one per family and SoC-name form (chips.family), each checked by the conformance kit
CLAIMED_CHIPS = ("Ascend910B1", "Ascend910_9392", "Ascend910A", "Ascend310P3", "Ascend950PR")
# the backend's own errors for what the chip's documentation omits, the conformance kit's `--unsupported` pattern:
# an operator the family lacks (chips.check_op), a dtype the chip cannot hold (check_chip_dtype, refusal), a dtype
# the operator's doc does not list on the chip's product (check_dtype), and one no dtype it takes holds without
# loss (compute_dtype)
LACKS_PATTERN = "|".join(
    (
        r"is not available on Ascend\S+ \(family",
        r"is not supported on Ascend\S+ \(family",
        r"not implemented for '\S+' on npu \(Ascend\S+\): aclnn\w+ supports",
        r"aclnn\w+ does not take \S+ on Ascend\S+ \(family \w+\) and no dtype it takes holds these values",
    )
)

# ACLNN operator -> the ops whose npu path needs it ("(backward)": the forward runs, its gradient does not)
NEEDS = {
    "Add": ("add",),  # aclnnAdd.md: not on the inference series (310P)
    "Convolution": ("_conv2d", "_conv2d_backward_input", "_conv2d_backward_weight"),
    "MaxPool2dWithIndices": ("_max_pool2d_with_indices",),
    "MaxPool2dWithIndicesBackward": ("_max_pool2d_backward",),
    "BatchNormBackward": ("_batch_norm (backward)", "_batch_norm_backward"),
    "GroupNormBackward": ("_group_norm (backward)", "_group_norm_backward"),
}


def ops_without_path(soc=None):
    """The ops (sorted) that raise NotImplementedError naming the chip on `soc` (default: this device's)."""
    lacking = chips.MISSING_OPS[chips.family(soc)]
    return sorted({op for acl, ops in NEEDS.items() if acl in lacking for op in ops})
