"""Grouped (MoE expert) matmul through ops-transformer's aclnnGroupedMatmulV4, in the form
torch_npu.npu_grouped_matmul's MoE callers use: one x, one weight and one output tensor, group_list the
cumulative row ends (groupListType 0), splitItem 3 (one output tensor).

Forward: groupType 0 (m-axis groups), y[rows of g] = x[rows of g] @ weight[g]. The backward is two more
launches of the same operator: grad_x with groupType 0 over weight's transposed view ([G, N, K], which the
README says is passed non-contiguous), grad_weight with groupType 2 (k-axis groups) of x's transposed view
times grad ([G, K, N]; an expert with no rows gets zeros). group_list stays on the device: no host sync.

Arguments the operator does not fit run core's composite: a chip whose product the README does not list, a
dtype outside its non-quantized rows (float64), an empty operand, more than 1024 groups, or a last dim of
65536 or more.
"""

from mindtorch.plugins import OPS, dtypes as D, kernel_table

from .. import chips
from ..aclnn import launch
from ..copy import empty
from ._common import dense, fill, mT, numel

KERNELS, kernel = kernel_table()

OPERATOR = "GroupedMatmulV4"
M_SPLIT, K_SPLIT = 0, 2  # groupType: the grouped axis
CUMULATIVE = 0  # groupListType: group_list holds each group's end
ONE_OUTPUT = 3  # splitItem: x and out are single tensors
MAX_GROUPS, MAX_LAST_DIM = 1024, 65536  # the README's limits
FLOATING = (D.float32, D.float16, D.bfloat16)  # the README's non-quantized rows


def _fits(x, weight):
    if x.dtype not in FLOATING or weight.dtype != x.dtype or not chips.supports(OPERATOR, x.dtype):
        return False
    if not numel(x) or not numel(weight):
        return False
    g, k, n = weight._shape
    return g <= MAX_GROUPS and k < MAX_LAST_DIM and n < MAX_LAST_DIM


def _grouped(x, weight, group_list, group_type, out):
    unused = (None,) * 6  # bias, scale, offset, antiquantScale, antiquantOffset, perTokenScale
    activation = (None,) * 3  # activationInput, activationQuantScale, activationQuantOffset
    attrs = (ONE_OUTPUT, group_type, CUMULATIVE, 0)  # splitItem, groupType, groupListType, actType (none)
    launch(OPERATOR, [x], [weight], *unused, group_list, *activation, *attrs, [out], None, None)
    return out


@kernel("_grouped_matmul")
def grouped_matmul(m, x, weight, group_list):
    if not _fits(x, weight):
        return OPS["_grouped_matmul"].composite(x, weight, group_list)
    out = fill(empty(m.shape, m.dtype, x.device), 0)  # rows past the last group are zero
    return _grouped(dense(x), weight, dense(group_list), M_SPLIT, out)


@kernel("_grouped_matmul_backward")
def grouped_matmul_backward(m, grad, x, weight, group_list):
    if not _fits(x, weight) or grad.dtype != x.dtype:
        return OPS["_grouped_matmul_backward"].composite(grad, x, weight, group_list)
    grad, x, ends = dense(grad), dense(x), dense(group_list)
    dx = fill(empty(m[0].shape, m[0].dtype, x.device), 0)
    _grouped(grad, mT(dense(weight)), ends, M_SPLIT, dx)
    dw = empty(m[1].shape, m[1].dtype, x.device)
    return dx, _grouped(mT(x), grad, ends, K_SPLIT, dw)
