"""ctypes prototypes, one table per CANN header they follow.

Every (name, restype, argtypes) row is transcribed from the public header named above its table;
`bind` attaches them to a loaded library. Two-phase ACLNN operators share one shape: phase 1
`aclnnXxxGetWorkspaceSize(<op args>..., uint64_t* workspaceSize, aclOpExecutor** executor)`, phase 2
`aclnnXxx(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream)`,
so an op row lists only its own arguments.
"""

import ctypes
from ctypes import (
    POINTER,
    c_bool,
    c_char_p,
    c_double,
    c_float,
    c_int,
    c_int8,
    c_int32,
    c_int64,
    c_size_t,
    c_uint32,
    c_uint64,
    c_void_p,
)

from .types import (
    HcclComm,
    HcclDataType,
    HcclReduceOp,
    HcclResult,
    HcclRootInfo,
    aclDataType,
    aclError,
    aclFormat,
    aclmdlRI,
    aclmdlRICaptureMode,
    aclmdlRICaptureStatus,
    aclnnStatus,
    aclrtEvent,
    aclrtEventRecordedStatus,
    aclrtMemAttr,
    aclrtMemcpyKind,
    aclrtMemMallocPolicy,
    aclrtStream,
    aclrtStreamStatus,
    handle,
    int64_p,
    size_p,
    uint64_p,
)

# libascendcl.so -- hicann/runtime include/external/acl/acl_rt.h and acl_base_rt.h (aclrtGetSocName)
RUNTIME = [
    ("aclInit", aclError, [c_char_p]),
    ("aclFinalize", aclError, []),
    ("aclGetRecentErrMsg", c_char_p, []),
    ("aclrtGetSocName", c_char_p, []),
    ("aclrtSetDevice", aclError, [c_int32]),
    ("aclrtResetDevice", aclError, [c_int32]),
    ("aclrtGetDevice", aclError, [POINTER(c_int32)]),
    ("aclrtGetDeviceCount", aclError, [POINTER(c_uint32)]),
    ("aclrtCreateStream", aclError, [POINTER(aclrtStream)]),
    ("aclrtDestroyStream", aclError, [aclrtStream]),
    ("aclrtSynchronizeStream", aclError, [aclrtStream]),
    ("aclrtSynchronizeDevice", aclError, []),
    ("aclrtStreamQuery", aclError, [aclrtStream, POINTER(aclrtStreamStatus)]),
    ("aclrtCreateEvent", aclError, [POINTER(aclrtEvent)]),
    ("aclrtCreateEventWithFlag", aclError, [POINTER(aclrtEvent), c_uint32]),
    ("aclrtDestroyEvent", aclError, [aclrtEvent]),
    ("aclrtRecordEvent", aclError, [aclrtEvent, aclrtStream]),
    ("aclrtResetEvent", aclError, [aclrtEvent, aclrtStream]),
    ("aclrtStreamWaitEvent", aclError, [aclrtStream, aclrtEvent]),
    ("aclrtSynchronizeEvent", aclError, [aclrtEvent]),
    ("aclrtQueryEventStatus", aclError, [aclrtEvent, POINTER(aclrtEventRecordedStatus)]),
    ("aclrtEventElapsedTime", aclError, [POINTER(c_float), aclrtEvent, aclrtEvent]),
    ("aclrtMalloc", aclError, [POINTER(c_void_p), c_size_t, aclrtMemMallocPolicy]),
    ("aclrtFree", aclError, [c_void_p]),
    ("aclrtMallocHost", aclError, [POINTER(c_void_p), c_size_t]),
    ("aclrtFreeHost", aclError, [c_void_p]),
    ("aclrtMemcpy", aclError, [c_void_p, c_size_t, c_void_p, c_size_t, aclrtMemcpyKind]),
    ("aclrtMemcpyAsync", aclError, [c_void_p, c_size_t, c_void_p, c_size_t, aclrtMemcpyKind, aclrtStream]),
    ("aclrtMemset", aclError, [c_void_p, c_size_t, c_int32, c_size_t]),
    ("aclrtMemsetAsync", aclError, [c_void_p, c_size_t, c_int32, c_size_t, aclrtStream]),
    ("aclrtGetMemInfo", aclError, [aclrtMemAttr, size_p, size_p]),
]

# libascendcl.so, stream capture into model run instances -- hicann/runtime include/external/acl/acl_rt.h
# (aclmdlRICaptureBegin ... aclmdlRIDestroy); optional: CANN releases without ACL Graph lack them
MODEL_RI = [
    ("aclmdlRICaptureBegin", aclError, [aclrtStream, aclmdlRICaptureMode]),
    ("aclmdlRICaptureGetInfo", aclError, [aclrtStream, POINTER(aclmdlRICaptureStatus), POINTER(aclmdlRI)]),
    ("aclmdlRICaptureEnd", aclError, [aclrtStream, POINTER(aclmdlRI)]),
    ("aclmdlRICaptureThreadExchangeMode", aclError, [POINTER(aclmdlRICaptureMode)]),
    ("aclmdlRIExecuteAsync", aclError, [aclmdlRI, aclrtStream]),
    ("aclmdlRIDestroy", aclError, [aclmdlRI]),
    ("aclmdlRIDebugJsonPrint", aclError, [aclmdlRI, c_char_p, c_uint32]),
]

# libnnopbase.so -- hicann/opbase include/nnopbase/aclnn/acl_meta.h and aclnn_base.h
NNOPBASE = [
    ("aclnnInit", aclnnStatus, [c_char_p]),
    ("aclnnFinalize", aclnnStatus, []),
    (
        "aclCreateTensor",
        handle,
        [int64_p, c_uint64, aclDataType, int64_p, c_int64, aclFormat, int64_p, c_uint64, c_void_p],
    ),
    ("aclCreateScalar", handle, [c_void_p, aclDataType]),
    ("aclCreateIntArray", handle, [int64_p, c_uint64]),
    ("aclCreateFloatArray", handle, [POINTER(c_float), c_uint64]),
    ("aclCreateBoolArray", handle, [POINTER(ctypes.c_bool), c_uint64]),
    ("aclCreateTensorList", handle, [POINTER(handle), c_uint64]),
    ("aclCreateScalarList", handle, [POINTER(handle), c_uint64]),
    ("aclDestroyTensor", aclnnStatus, [handle]),
    ("aclGetViewShape", aclnnStatus, [handle, POINTER(int64_p), POINTER(c_uint64)]),
    ("aclDestroyScalar", aclnnStatus, [handle]),
    ("aclDestroyIntArray", aclnnStatus, [handle]),
    ("aclDestroyFloatArray", aclnnStatus, [handle]),
    ("aclDestroyBoolArray", aclnnStatus, [handle]),
    ("aclDestroyTensorList", aclnnStatus, [handle]),
    ("aclDestroyScalarList", aclnnStatus, [handle]),
    ("aclSetAclOpExecutorRepeatable", aclnnStatus, [handle]),
    ("aclDestroyAclOpExecutor", aclnnStatus, [handle]),
    ("aclSetTensorAddr", aclnnStatus, [handle, c_size_t, handle, c_void_p]),
]

# libopapi.so -- each op's own arguments, from its header in hicann/ops-math and hicann/ops-nn
T, S, ARR, BARR, TL, I8 = handle, handle, handle, handle, handle, c_int8  # aclTensor*, aclScalar*, aclIntArray*,
# aclBoolArray*, aclTensorList*, int8_t
OPS = {
    # ops-math math/add/op_api/aclnn_add.h
    "Add": [T, T, S, T],
    "Adds": [T, S, S, T],
    "InplaceAdd": [T, T, S],
    "InplaceAdds": [T, S, S],
    # ops-math math/mul/op_api/aclnn_mul.h
    "Mul": [T, T, T],
    "Muls": [T, S, T],
    "InplaceMul": [T, T],
    "InplaceMuls": [T, S],
    # ops-math math/cast/op_api/aclnn_cast.h
    "Cast": [T, aclDataType, T],
    # ops-math conversion/view_copy/op_api/aclnn_copy.h
    "InplaceCopy": [T, T],
    # ops-math conversion/fill/op_api/aclnn_fill_scalar.h, math/zero_op/op_api/aclnn_zero.h
    "InplaceFillScalar": [T, S],
    "InplaceZero": [T],
    # ops-nn matmul/mat_mul_v3/op_host/op_api/aclnn_matmul.h, aclnn_mm.h; batch_mat_mul_v3/.../aclnn_batch_matmul.h
    "Matmul": [T, T, T, I8],
    "Mm": [T, T, T, I8],
    "BatchMatMul": [T, T, T, I8],
    # ops-nn matmul/mv/op_host/op_api/aclnn_mv.h; ops-math math/dot/op_api/aclnn_dot.h
    "Mv": [T, T, T, I8],
    "Dot": [T, T, T],
}
# unary `(self, out)` with `InplaceXxx(selfRef)` beside it; the header of each, under ops-math math/ unless noted
UNARY_HEADERS = {
    "Exp": "exp/op_api/aclnn_exp.h",
    "Exp2": "pow/op_api/aclnn_exp2.h",
    "Expm1": "expm1/op_api/aclnn_expm1.h",
    "Log": "log/op_api/aclnn_log.h",
    "Log2": "log/op_api/aclnn_log2.h",
    "Log10": "log/op_api/aclnn_log10.h",
    "Log1p": "log1p/op_api/aclnn_log1p.h",
    "Sqrt": "sqrt/op_api/aclnn_sqrt.h",
    "Rsqrt": "rsqrt/op_api/aclnn_rsqrt.h",
    "Sin": "sin/op_api/aclnn_sin.h",
    "Cos": "cos/op_api/aclnn_cos.h",
    "Tan": "tan/op_api/aclnn_tan.h",
    "Asin": "asin/op_api/aclnn_asin.h",
    "Acos": "acos/op_api/aclnn_acos.h",
    "Atan": "atan/op_api/aclnn_atan.h",
    "Sinh": "sinh/op_api/aclnn_sinh.h",
    "Cosh": "cosh/op_api/aclnn_cosh.h",
    "Tanh": "tanh/op_api/aclnn_tanh.h",
    "Erf": "erf/op_api/aclnn_erf.h",
    "Reciprocal": "reciprocal/op_api/aclnn_reciprocal.h",
    "Neg": "neg/op_api/aclnn_neg.h",
    "Floor": "floor/op_api/aclnn_floor.h",
    "Ceil": "ceil/op_api/aclnn_ceil.h",
    "Round": "round/op_api/aclnn_round.h",
    "Trunc": "trunc/op_api/aclnn_trunc.h",
    "Frac": "sub/op_api/aclnn_frac.h",
    "LogicalNot": "logical_not/op_api/aclnn_logical_not.h",
    "Sigmoid": "ops-nn activation/sigmoid/op_api/aclnn_sigmoid.h",
    "Relu": "ops-nn activation/relu/op_api/aclnn_relu.h",
    "Acosh": "acosh/op_api/aclnn_acosh.h",
    "Asinh": "asinh/op_api/aclnn_asinh.h",
    "Atanh": "atanh/op_api/aclnn_atanh.h",
    "Erfc": "erfc/op_api/aclnn_erfc.h",
    "Mish": "ops-nn activation/mish/op_api/aclnn_mish.h",
    "Erfinv": "ops-nn activation/erfinv/op_api/aclnn_erfinv.h",
}
# unary `(self, out)` only: their headers declare no in-place form
UNARY_ONLY_HEADERS = {
    "Abs": "abs/op_api/aclnn_abs.h",
    "Sign": "sign/op_api/aclnn_sign.h",
    "Gelu": "ops-nn activation/gelu/op_api/aclnn_gelu.h",
    "Silu": "ops-nn activation/swish/op_api/aclnn_silu.h",
    "Signbit": "signbit/op_api/aclnn_signbit.h",
    "Lgamma": "lgamma/op_host/op_api/aclnn_lgamma.h",
    "Digamma": "digamma/op_host/op_api/aclnn_digamma.h",
}
for _n in UNARY_HEADERS:
    OPS[_n], OPS["Inplace" + _n] = [T, T], [T]
for _n in UNARY_ONLY_HEADERS:
    OPS[_n] = [T, T]
# comparisons, ops-math math/{equal,not_equal,less,less_equal,greater,greater_equal}/op_api/aclnn_{eq,ne,lt,le,gt,ge}
# _tensor.h and _scalar.h: XxTensor(self, other, out), XxScalar(self, other, out) and their in-place forms
for _n in ("Eq", "Ne", "Lt", "Le", "Gt", "Ge"):
    OPS[_n + "Tensor"], OPS["Inplace" + _n + "Tensor"] = [T, T, T], [T, T]
    OPS[_n + "Scalar"], OPS["Inplace" + _n + "Scalar"] = [T, S, T], [T, S]
OPS.update(
    {
        # ops-math math/sub/op_api/aclnn_sub.h
        "Sub": [T, T, S, T],
        "Subs": [T, S, S, T],
        "InplaceSub": [T, T, S],
        "InplaceSubs": [T, S, S],
        # ops-math math/div/op_api/aclnn_div.h
        "Div": [T, T, T],
        "Divs": [T, S, T],
        "InplaceDiv": [T, T],
        "InplaceDivs": [T, S],
        "DivMod": [T, T, c_int, T],
        "DivMods": [T, S, c_int, T],
        "InplaceDivMod": [T, T, c_int],
        "InplaceDivMods": [T, S, c_int],
        # ops-math math/pow/op_api/aclnn_pow_tensor_tensor.h, aclnn_pow.h
        "PowTensorTensor": [T, T, T],
        "InplacePowTensorTensor": [T, T],
        "PowTensorScalar": [T, S, T],
        "InplacePowTensorScalar": [T, S],
        "PowScalarTensor": [S, T, T],
        # ops-math math/round/op_api/aclnn_round.h; ops-nn activation/gelu_v2/op_api/aclnn_gelu_v2.h
        "RoundDecimals": [T, c_int64, T],
        "InplaceRoundDecimals": [T, c_int64],
        "GeluV2": [T, c_int64, T],
        # ops-math math/atan2/op_api/aclnn_atan2.h
        "Atan2": [T, T, T],
        "InplaceAtan2": [T, T],
        # ops-math math/maximum/op_api/aclnn_maximum.h, math/minimum/op_api/aclnn_minimum.h
        "Maximum": [T, T, T],
        "Minimum": [T, T, T],
        # ops-math math/logical_and/op_api/aclnn_logical_and.h, logical_or/.../aclnn_logical_or.h,
        # not_equal/op_api/aclnn_logical_xor.h
        "LogicalAnd": [T, T, T],
        "InplaceLogicalAnd": [T, T],
        "LogicalOr": [T, T, T],
        "InplaceLogicalOr": [T, T],
        "LogicalXor": [T, T, T],
        # ops-math math/select/op_api/aclnn_s_where.h
        "SWhere": [T, T, T, T],
        # ops-math math/reduce_sum/op_api/aclnn_reduce_sum.h, reduce_mean/op_api/aclnn_mean.h,
        # reduce_max/op_api/aclnn_amax.h, reduce_min/op_api/aclnn_amin.h
        "ReduceSum": [T, ARR, c_bool, aclDataType, T],
        "Mean": [T, ARR, c_bool, aclDataType, T],
        "Amax": [T, ARR, c_bool, T],
        "Amin": [T, ARR, c_bool, T],
        # ops-nn activation/softmax_v2/op_api/aclnn_softmax.h, activation/log_softmax_v2/op_api/aclnn_logsoftmax.h
        "Softmax": [T, c_int64, T],
        "LogSoftmax": [T, c_int64, T],
        # ops-nn activation/softmax_grad/op_api/aclnn_softmax_backward.h,
        # activation/log_softmax_grad/op_api/aclnn_logsoftmax_backward.h: (gradOutput, output, dim, out)
        "SoftmaxBackward": [T, T, c_int64, T],
        "LogSoftmaxBackward": [T, T, c_int64, T],
        # ops-nn activation/gelu_grad_v2/op_api/aclnn_gelu_backward_v2.h: (gradOutput, self, approximate, gradInput)
        "GeluBackwardV2": [T, T, c_char_p, T],
        # ops-nn activation/silu_grad/op_api/aclnn_silu_backward.h: (gradOutput, self, gradInput)
        "SiluBackward": [T, T, T],
        # ops-math math/cumsum/op_api/aclnn_cumsum.h; math/arg_max_v2/op_api/aclnn_argmax.h, arg_min/.../aclnn_argmin.h
        "Cumsum": [T, c_int64, aclDataType, T],
        "ArgMax": [T, c_int64, c_bool, T],
        "ArgMin": [T, c_int64, c_bool, T],
        # ops-math math/arg_max_with_value/op_api/aclnn_max_dim.h, arg_min_with_value/op_api/aclnn_min_dim.h
        "MaxDim": [T, c_int64, c_bool, T, T],
        "MinDim": [T, c_int64, c_bool, T, T],
        # ops-nn index/gather_elements_v2/op_host/op_api/aclnn_gather.h, index/scatter_elements_v2/op_api/aclnn_scatter.h,
        # aclnn_scatter_add.h
        "Gather": [T, c_int64, T, T],
        "Scatter": [T, c_int64, T, T, c_int64, T],
        "ScatterValue": [T, c_int64, T, S, c_int64, T],
        "InplaceScatter": [T, c_int64, T, T, c_int64],
        "InplaceScatterValue": [T, c_int64, T, S, c_int64],
        "ScatterAdd": [T, c_int64, T, T, T],
        # ops-math math/sort/op_api/aclnn_sort.h; ops-nn index/gather_elements/op_api/aclnn_topk.h
        "Sort": [T, c_bool, c_int64, c_bool, T, T],
        "Topk": [T, c_int64, c_int64, c_bool, c_bool, T, T],
        # ops-nn index/gather_v2/op_api/aclnn_index_select.h, index/embedding/op_api/aclnn_embedding.h
        "IndexSelect": [T, c_int64, T, T],
        "Embedding": [T, T, T],
        # ops-math conversion/masked_fill/op_api/aclnn_masked_fill_scalar.h
        "InplaceMaskedFillScalar": [T, T, S],
        # ops-math random/dsa_random_uniform/op_host/op_api/aclnn_uniform.h, aclnn_random.h;
        # random/dsa_random_normal/op_host/op_api/aclnn_normal.h; random/dsa_gen_bit_mask/op_host/op_api/aclnn_bernoulli.h
        "InplaceUniform": [T, c_double, c_double, c_uint64, c_uint64],
        "InplaceNormal": [T, c_float, c_float, c_int64, c_int64],
        "InplaceRandom": [T, c_int64, c_int64, c_int64, c_int64],
        "InplaceBernoulli": [T, S, c_int64, c_int64],
        "InplaceBernoulliTensor": [T, T, c_int64, c_int64],
        # ops-math random/stateless_randperm/op_api/aclnn_randperm.h
        "Randperm": [c_int64, c_int64, c_int64, T],
        # ops-math random/stateless_sample_multinomial/op_api/aclnn_multinomial.h
        "Multinomial": [T, c_int64, c_bool, c_int64, c_int64, T],
        # ops-math math/lerp/op_api/aclnn_lerp_tensor.h, aclnn_lerp_scalar.h
        "Lerp": [T, T, T, T],
        "InplaceLerp": [T, T, T],
        "Lerps": [T, T, S, T],
        "InplaceLerps": [T, T, S],
        # ops-math math/addcmul/op_api/aclnn_addcmul.h, math/addcdiv/op_api/aclnn_addcdiv.h
        "Addcmul": [T, T, T, S, T],
        "InplaceAddcmul": [T, T, T, S],
        "Addcdiv": [T, T, T, S, T],
        "InplaceAddcdiv": [T, T, T, S],
        # ops-math conversion/clip_by_value_v2/op_api/aclnn_clamp.h
        "Clamp": [T, S, S, T],
        "ClampMin": [T, S, T],
        "ClampMax": [T, S, T],
        "InplaceClampMax": [T, S],
        "ClampTensor": [T, T, T, T],
        "ClampMinTensor": [T, T, T],
        "InplaceClampMinTensor": [T, T],
        "ClampMaxTensor": [T, T, T],
        "InplaceClampMaxTensor": [T, T],
        # ops-math conversion/tril/op_api/aclnn_tril.h, conversion/triu/op_api/aclnn_triu.h
        "Tril": [T, c_int64, T],
        "InplaceTril": [T, c_int64],
        "Triu": [T, c_int64, T],
        "InplaceTriu": [T, c_int64],
        # ops-math math/is_finite/.../aclnn_isfinite.h, is_pos_inf/.../aclnn_isposinf.h, is_neg_inf/.../aclnn_isneginf.h,
        # math/square/op_api/aclnn_square.h, math/bitwise_not/op_api/aclnn_bitwise_not.h
        "IsFinite": [T, T],
        "IsPosInf": [T, T],
        "IsNegInf": [T, T],
        "Square": [T, T],
        "BitwiseNot": [T, T],
        # ops-math math/bitwise_{and,or,xor}/op_api/aclnn_bitwise_{and,or,xor}_tensor.h
        "BitwiseAndTensor": [T, T, T],
        "InplaceBitwiseAndTensor": [T, T],
        "BitwiseOrTensor": [T, T, T],
        "InplaceBitwiseOrTensor": [T, T],
        "BitwiseXorTensor": [T, T, T],
        "InplaceBitwiseXorTensor": [T, T],
        # ops-math math/floor_mod/op_api/aclnn_remainder.h, math/mod/op_api/aclnn_fmod_tensor.h, aclnn_fmod_scalar.h
        "RemainderTensorTensor": [T, T, T],
        "InplaceRemainderTensorTensor": [T, T],
        "RemainderTensorScalar": [T, S, T],
        "InplaceRemainderTensorScalar": [T, S],
        "FmodTensor": [T, T, T],
        "InplaceFmodTensor": [T, T],
        "FmodScalar": [T, S, T],
        "InplaceFmodScalar": [T, S],
        # ops-math math/reduce_all/op_api/aclnn_all.h, math/reduce_any/op_api/aclnn_any.h
        "All": [T, ARR, c_bool, T],
        "Any": [T, ARR, c_bool, T],
        # ops-nn activation/leaky_relu/op_api/aclnn_leaky_relu.h, activation/softplus_v2/op_api/aclnn_softplus.h;
        # ops-math math/nan_to_num/op_api/aclnn_nan_to_num.h, conversion/clip_by_value_v2/op_api/aclnn_hardtanh.h
        "LeakyRelu": [T, S, T],
        "InplaceLeakyRelu": [T, S],
        "Softplus": [T, S, S, T],
        "Elu": [T, S, S, S, T],
        "InplaceElu": [T, S, S, S],  # ops-nn activation/elu/op_api/aclnn_elu.h
        "NanToNum": [T, c_float, c_float, c_float, T],
        "InplaceNanToNum": [T, c_float, c_float, c_float],
        "Hardtanh": [T, S, S, T],
        "InplaceHardtanh": [T, S, S],
        # ops-math math/eye/op_api/aclnn_eye.h, math/lin_space/op_api/aclnn_linspace.h; ops-nn index/reverse_v2/.../aclnn_flip.h
        "Eye": [c_int64, c_int64, T],
        "Linspace": [S, S, c_int64, T],
        "Flip": [T, ARR, T],
        # ops-math math/range/op_api/aclnn_arange.h
        "Arange": [S, S, S, T],
        # ops-nn norm/layer_norm_v4/op_host/op_api/aclnn_layer_norm.h, norm/layer_norm_grad_v3/.../aclnn_layer_norm_backward.h
        "LayerNorm": [T, ARR, T, T, c_double, T, T, T],
        "LayerNormBackward": [T, T, ARR, T, T, T, T, BARR, T, T, T],
        # ops-nn index/embedding_dense_grad_v2/op_api/aclnn_embedding_dense_backward.h
        "EmbeddingDenseBackward": [T, T, c_uint64, c_uint64, c_bool, T],
        # ops-nn loss/nll_loss/op_api/aclnn_nll_loss.h, loss/nll_loss_grad/op_api/aclnn_nll_loss_backward.h
        "NLLLoss": [T, T, T, c_int64, c_int64, T, T],
        "NLLLossBackward": [T, T, T, T, c_int64, c_int64, T, T],
        # ops-nn conv/convolution_forward/op_host/op_api/aclnn_convolution.h,
        # conv/convolution_backward/op_api/aclnn_convolution_backward.h (BARR: aclBoolArray* outputMask)
        "Convolution": [T, T, T, ARR, ARR, ARR, c_bool, ARR, c_int64, T, I8],
        "ConvolutionBackward": [T, T, T, ARR, ARR, ARR, ARR, c_bool, ARR, c_int, BARR, I8, T, T, T],
        # ops-nn pooling/max_pool3d_with_argmax_v2/op_api/aclnn_max_pool2d_with_indices.h,
        # pooling/max_pool3d_grad_with_argmax/op_api/aclnn_max_pool2d_with_indices_backward.h
        "MaxPool2dWithIndices": [T, ARR, ARR, ARR, ARR, c_bool, T, T],
        "MaxPool2dWithIndicesBackward": [T, T, T, ARR, ARR, ARR, ARR, c_bool, T],
        # ops-nn pooling/avg_pool3_d/op_api/aclnn_avgpool2d.h, pooling/avg_pool3_d_grad/op_api/aclnn_avgpool2d_backward.h
        "AvgPool2d": [T, ARR, ARR, ARR, c_bool, c_bool, c_int64, I8, T],
        "AvgPool2dBackward": [T, T, ARR, ARR, ARR, c_bool, c_bool, c_int64, I8, T],
        # ops-nn pooling/adaptive_avg_pool2d/op_api/aclnn_adaptive_avg_pool2d.h, adaptive_avg_pool2d_grad/.../_backward.h
        "AdaptiveAvgPool2d": [T, ARR, T],
        "AdaptiveAvgPool2dBackward": [T, T, T],
        # ops-nn norm/batch_norm_v3/op_host/op_api/aclnn_batch_norm.h, norm/batch_norm_grad_v3/.../aclnn_batch_norm_backward.h
        "BatchNorm": [T, T, T, T, T, c_bool, c_double, c_double, T, T, T],
        "BatchNormBackward": [T, T, T, T, T, T, T, c_bool, c_double, BARR, T, T, T],
        # ops-transformer attention/flash_attention_score/op_host/op_api/aclnn_flash_attention_score.h and
        # flash_attention_score_grad/op_host/op_api/aclnn_flash_attention_score_grad.h: (query, key, value, pse,
        # dropMask, paddingMask, attenMask, prefix, scale, keepProb, preTokens, nextTokens, headNum, inputLayout,
        # innerPrecise, sparseMode, outputs...)
        "FlashAttentionScore": [T] * 7
        + [ARR, c_double, c_double, c_int64, c_int64, c_int64, c_char_p]
        + [c_int64, c_int64, T, T, T, T],
        "FlashAttentionScoreGrad": [T] * 12
        + [ARR, c_double, c_double, c_int64, c_int64, c_int64, c_char_p]
        + [c_int64, c_int64, T, T, T, T],
        # ops-transformer gmm/grouped_matmul/op_host/op_api/aclnn_grouped_matmul_v4.h: (x, weight, bias, scale,
        # offset, antiquantScale, antiquantOffset, perTokenScale lists, groupList, activationInput,
        # activationQuantScale, activationQuantOffset lists, splitItem, groupType, groupListType, actType, out,
        # activationFeatureOut, dynQuantScaleOut lists)
        "GroupedMatmulV4": [TL] * 8 + [T] + [TL] * 3 + [c_int64] * 4 + [TL] * 3,
        # ops-nn norm/group_norm/op_host/op_api/aclnn_group_norm.h, norm/group_norm_grad/.../aclnn_group_norm_backward.h
        "GroupNorm": [T, T, T, c_int64, c_int64, c_int64, c_int64, c_double, T, T, T],
        "GroupNormBackward": [T, T, T, T, T, c_int64, c_int64, c_int64, c_int64, BARR, T, T, T],
        # ops-nn norm/rms_norm/docs/aclnnRmsNorm.md, norm/rms_norm_grad/docs/aclnnRmsNormGrad.md,
        # activation/swi_glu/docs/aclnnSwiGlu.md, activation/swi_glu_grad/docs/aclnnSwiGluGrad.md (the docs'
        # 函数原型: ops-nn ships no header for these)
        "RmsNorm": [T, T, c_double, T, T],
        "RmsNormGrad": [T, T, T, T, T, T],
        "SwiGlu": [T, c_int64, T],
        "SwiGluGrad": [T, T, c_int64, T],
        # ops-transformer posembedding/rotary_position_embedding/op_host/op_api/aclnn_rotary_position_embedding.h;
        # posembedding/rotary_position_embedding_grad/docs/aclnnRotaryPositionEmbeddingGrad.md (no header)
        "RotaryPositionEmbedding": [T, T, T, c_int64, T],
        "RotaryPositionEmbeddingGrad": [T, T, T, T, c_int64, T, T, T],
        # ops-math math/reduce_prod/op_api/aclnn_prod.h, math/reduce_log_sum_exp/op_api/aclnn_logsumexp.h
        "Prod": [T, aclDataType, T],
        "ProdDim": [T, c_int64, c_bool, aclDataType, T],
        "LogSumExp": [T, ARR, c_bool, T],
        # ops-math math/reduce_var/op_api/aclnn_var.h, math/reduce_std_v2/op_api/aclnn_std.h;
        # ops-nn norm/lp_norm_v2/op_api/aclnn_linalg_vector_norm.h
        "VarCorrection": [T, ARR, c_int64, c_bool, T],
        "Std": [T, ARR, c_int64, c_bool, T],
        "LinalgVectorNorm": [T, S, ARR, c_bool, aclDataType, T],
        # ops-math math/cumprod/op_api/aclnn_cumprod.h, math/cummax/op_api/aclnn_cummax.h, math/cummin/op_api/aclnn_cummin.h
        "Cumprod": [T, S, aclDataType, T],
        "Cummax": [T, c_int64, T, T],
        "Cummin": [T, c_int64, T, T],
        # ops-math math/log_add_exp/op_api/aclnn_logaddexp.h, aclnn_logaddexp2.h; math/gcd/op_api/aclnn_gcd.h;
        # math/is_close/op_api/aclnn_isclose.h
        "LogAddExp": [T, T, T],
        "LogAddExp2": [T, T, T],
        "Gcd": [T, T, T],
        "IsClose": [T, T, c_double, c_double, c_bool, T],
        # ops-nn index/index/op_api/aclnn_index.h, index/index_put_v2/op_api/aclnn_index_put_impl.h (TL: aclTensorList*),
        # index/inplace_scatter_add/op_host/op_api/aclnn_index_add.h, index/scatter_update/op_api/aclnn_index_copy.h,
        # index/non_zero/op_api/aclnn_nonzero.h; ops-math math/tile/op_api/aclnn_repeat.h, conversion/roll/op_api/aclnn_roll.h
        "Index": [T, TL, T],
        "IndexPutImpl": [T, TL, T, c_bool, c_bool],
        "IndexAdd": [T, c_int64, T, T, S, T],
        "InplaceIndexCopy": [T, c_int64, T, T],
        "Nonzero": [T, T],
        "Repeat": [T, ARR, T],
        "Roll": [T, ARR, ARR, T],
        # ops-nn foreach/foreach_{mul,div,add}_scalar/op_host/op_api/aclnn_foreach_{mul,div,add}_scalar_v2.h,
        # foreach_sqrt/.../aclnn_foreach_sqrt.h, foreach_lerp_scalar/.../aclnn_foreach_lerp_scalar.h,
        # foreach_addcmul_scalar/.../aclnn_foreach_addcmul_scalar_v2.h, foreach_addcdiv_scalar/.../_v2.h
        "ForeachMulScalarV2": [TL, S, TL],
        "ForeachDivScalarV2": [TL, S, TL],
        "ForeachAddScalarV2": [TL, S, TL],
        "ForeachSqrt": [TL, TL],
        "ForeachLerpScalar": [TL, TL, S, TL],
        "ForeachAddcmulScalarV2": [TL, TL, TL, S, TL],
        "ForeachAddcdivScalarV2": [TL, TL, TL, S, TL],
        # loss scaling, prototypes from their docs (no op_api header is published): ops-nn
        # foreach/foreach_non_finite_check_and_unscale/docs/aclnnForeachNonFiniteCheckAndUnscale.md,
        # ops-math math/amp_update_scale/docs/aclnnAmpUpdateScale.md
        "ForeachNonFiniteCheckAndUnscale": [TL, T, T],
        "AmpUpdateScale": [T, T, T, c_double, c_double, c_int64, T, T],
        # ops-math math/left_shift/op_api/aclnn_left_shift.h, math/right_shift/op_api/aclnn_right_shift.h,
        # math/search_sorted/op_api/aclnn_searchsorted.h, math/bincount/op_api/aclnn_bincount.h
        "LeftShift": [T, T, T],
        "LeftShifts": [T, S, T],
        "RightShift": [T, T, T],
        "SearchSorted": [T, T, c_bool, c_bool, T, T],
        "Bincount": [T, T, c_int64, T],
        # ops-nn index/scatter_elements_v2/op_api/aclnn_scatter_reduce.h
        "ScatterReduce": [T, c_int64, T, T, c_int64, c_bool, T],
        "InplaceScatterReduce": [T, c_int64, T, T, c_int64, c_bool],
        # ops-math math/cholesky/op_api/aclnn_linalg_cholesky.h, math/slogdet/op_host/op_api/aclnn_slogdet.h,
        # math/qr/op_api/aclnn_linalg_qr.h, math/triangular_solve/op_host/op_api/aclnn_triangular_solve.h
        "LinalgCholesky": [T, c_bool, T],
        "Slogdet": [T, T, T],
        "LinalgQr": [T, c_int64, T, T],
        "TriangularSolve": [T, T, c_bool, c_bool, c_bool, T, T],
        "Svd": [T, c_bool, c_bool, T, T, T],  # ops-math math/svd/op_host/op_api/aclnn_svd.h
        # ops-nn rnn/dynamic_rnn/op_api/aclnn_lstm.h (input, params, hx, batchSizes, hasBias, numLayers, dropout,
        # train, bidirectional, batchFirst, output, hy, cy, iOut, jOut, fOut, oOut, hOut, cOut, tanhCOut);
        # rnn/single_layer_lstm_grad/op_api/aclnn_lstm_backward.h (input, hx, params, dy, dh, dc, i, g, f, o, h, c,
        # tanhc, batchSizesOptional, hasBias, numLayers, dropout, train, bidirectional, batchFirst, outputMask,
        # dxOut, dhPrevOut, dcPrevOut, dparamsOut)
        "LSTM": [T, TL, TL, T, c_bool, c_int64, c_double, c_bool, c_bool, c_bool, T, T, T] + [TL] * 7,
        "LstmBackward": [T, TL, TL, T, T, T]
        + [TL] * 7
        + [T, c_bool, c_int64, c_double, c_bool, c_bool, c_bool]
        + [BARR, T, T, T, TL],
        # ops-nn rnn/gru/op_api/aclnn_gru.h (input, params, hx, batchSizes, hasBias, numLayers, dropout, train,
        # bidirection, batchFirst, output, hy, rOut, zOut, nOut, hnOut, hOut); rnn/gru_grad/op_api/aclnn_gru_backward.h
        # (input, params, hx, dy, dh, r, z, n, hn, h, batchSizes, hasBias, numLayers, bidirection, batchFirst, dxOut,
        # dhPrevOut, dparamsOut)
        "GRU": [T, TL, T, T, c_bool, c_int64, c_double, c_bool, c_bool, c_bool, T, T] + [TL] * 5,
        "GRUBackward": [T, TL, T, T, T] + [TL] * 5 + [T, c_bool, c_int64, c_bool, c_bool, T, T, TL],
    }
)
PHASE1_TAIL = [uint64_p, POINTER(handle)]
PHASE2 = [c_void_p, c_uint64, handle, aclrtStream]


class Bound:
    """A library's functions with their prototypes attached; missing symbols are listed, not fatal."""

    def __init__(self, lib, table):
        self.lib = lib
        self.missing = []
        for name, restype, argtypes in table:
            try:
                fn = getattr(lib, name)
            except AttributeError:
                self.missing.append(name)
                continue
            fn.restype, fn.argtypes = restype, argtypes
            setattr(self, name, fn)


# libhccl.so -- Ascend/pytorch third_party/hccl/inc/hccl/hccl.h (types: hccl_types.h)
HCCL = [
    ("HcclGetErrorString", c_char_p, [HcclResult]),
    ("HcclGetRootInfo", HcclResult, [POINTER(HcclRootInfo)]),
    ("HcclCommInitRootInfo", HcclResult, [c_uint32, POINTER(HcclRootInfo), c_uint32, POINTER(HcclComm)]),
    ("HcclCommDestroy", HcclResult, [HcclComm]),
    ("HcclGetRankSize", HcclResult, [HcclComm, POINTER(c_uint32)]),
    ("HcclGetRankId", HcclResult, [HcclComm, POINTER(c_uint32)]),
    ("HcclGetCommAsyncError", HcclResult, [HcclComm, POINTER(HcclResult)]),
    ("HcclAllReduce", HcclResult, [c_void_p, c_void_p, c_uint64, HcclDataType, HcclReduceOp, HcclComm, aclrtStream]),
    ("HcclBroadcast", HcclResult, [c_void_p, c_uint64, HcclDataType, c_uint32, HcclComm, aclrtStream]),
    (
        "HcclReduce",
        HcclResult,
        [c_void_p, c_void_p, c_uint64, HcclDataType, HcclReduceOp, c_uint32, HcclComm, aclrtStream],
    ),
    ("HcclAllGather", HcclResult, [c_void_p, c_void_p, c_uint64, HcclDataType, HcclComm, aclrtStream]),
    (
        "HcclReduceScatter",
        HcclResult,
        [c_void_p, c_void_p, c_uint64, HcclDataType, HcclReduceOp, HcclComm, aclrtStream],
    ),
    ("HcclScatter", HcclResult, [c_void_p, c_void_p, c_uint64, HcclDataType, c_uint32, HcclComm, aclrtStream]),
    ("HcclSend", HcclResult, [c_void_p, c_uint64, HcclDataType, c_uint32, HcclComm, aclrtStream]),
    ("HcclRecv", HcclResult, [c_void_p, c_uint64, HcclDataType, c_uint32, HcclComm, aclrtStream]),
    ("HcclBarrier", HcclResult, [HcclComm, aclrtStream]),
]


def bind(lib, table):
    return Bound(lib, table)


def bind_op(lib, name):
    """(phase-1 function, phase-2 function) of aclnn<name>, or None when the library lacks it."""
    args = OPS[name]
    try:
        first, second = getattr(lib, f"aclnn{name}GetWorkspaceSize"), getattr(lib, f"aclnn{name}")
    except AttributeError:
        return None
    first.restype, first.argtypes = aclnnStatus, args + PHASE1_TAIL
    second.restype, second.argtypes = aclnnStatus, PHASE2
    return first, second
