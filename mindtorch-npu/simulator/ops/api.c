/* libopapi, the exported entry points: aclnnXxxGetWorkspaceSize and aclnnXxx per operator (prototypes as in CANN's
 * op headers). One API(...) line makes both: phase 1 gathers the arguments into an `args` block for prepare(),
 * the launch goes through the shared aclsim_exec_launch. */
#include "ops_internal.h"

#define WS uint64_t *workspaceSize, aclOpExecutor **executor
#define LAUNCH(N)                                                                                            \
    EXPORT aclnnStatus aclnn##N(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream) { \
        return aclsim_exec_launch(#N, workspace, workspaceSize, executor, stream);                          \
    }
#define PREP(N, ...) \
    do { static const op_def *row_; args a_ = {__VA_ARGS__}; return prepare(#N, &row_, &a_, workspaceSize, executor); } while (0)
/* API(Name, (the header's parameters..., WS), the args block's fields...) */
#define API(N, PARAMS, ...) EXPORT aclnnStatus aclnn##N##GetWorkspaceSize PARAMS { PREP(N, __VA_ARGS__); } LAUNCH(N)

API(Add, (const aclTensor *self, const aclTensor *other, const aclScalar *alpha, aclTensor *out, WS),
    .t = {out, self, other}, .s = {NULL, alpha})
API(Adds, (const aclTensor *self, const aclScalar *other, const aclScalar *alpha, aclTensor *out, WS),
    .t = {out, self, NULL}, .s = {other, alpha})
API(InplaceAdd, (const aclTensor *selfRef, const aclTensor *other, const aclScalar *alpha, WS),
    .t = {selfRef, selfRef, other}, .s = {NULL, alpha})
API(InplaceAdds, (const aclTensor *selfRef, const aclScalar *other, const aclScalar *alpha, WS),
    .t = {selfRef, selfRef, NULL}, .s = {other, alpha})
API(Mul, (const aclTensor *self, const aclTensor *other, aclTensor *out, WS), .t = {out, self, other})
API(Muls, (const aclTensor *self, const aclScalar *other, aclTensor *out, WS), .t = {out, self, NULL}, .s = {other})
API(InplaceMul, (aclTensor *selfRef, const aclTensor *other, WS), .t = {selfRef, selfRef, other})
API(InplaceMuls, (aclTensor *selfRef, const aclScalar *other, WS), .t = {selfRef, selfRef, NULL}, .s = {other})
API(Cast, (const aclTensor *self, const int dtype, aclTensor *out, WS), .t = {out, self}, .s = {NULL}, .i = {dtype})
API(InplaceCopy, (aclTensor *selfRef, const aclTensor *src, WS), .t = {selfRef, src})
API(InplaceFillScalar, (aclTensor *selfRef, const aclScalar *value, WS), .t = {selfRef}, .s = {value})
API(InplaceZero, (aclTensor *selfRef, WS), .t = {selfRef})
API(Matmul, (const aclTensor *self, const aclTensor *mat2, aclTensor *out, int8_t cubeMathType, WS),
    .t = {out, self, mat2}, .s = {NULL}, .i = {cubeMathType})
API(Mm, (const aclTensor *self, const aclTensor *mat2, aclTensor *out, int8_t cubeMathType, WS),
    .t = {out, self, mat2}, .s = {NULL}, .i = {cubeMathType})
API(BatchMatMul, (const aclTensor *self, const aclTensor *mat2, aclTensor *out, int8_t cubeMathType, WS),
    .t = {out, self, mat2}, .s = {NULL}, .i = {cubeMathType})

/* families of one argument shape */
#define UNARY_API(N) API(N, (const aclTensor *self, aclTensor *out, WS), .t = {out, self})
#define INPLACE_UNARY_API(N) API(Inplace##N, (aclTensor *selfRef, WS), .t = {selfRef, selfRef})
#define UNARY_BOTH(N) UNARY_API(N) INPLACE_UNARY_API(N)
UNARY_BOTH(Exp) UNARY_BOTH(Exp2) UNARY_BOTH(Expm1) UNARY_BOTH(Log) UNARY_BOTH(Log2) UNARY_BOTH(Log10) UNARY_BOTH(Log1p)
UNARY_BOTH(Sqrt) UNARY_BOTH(Rsqrt) UNARY_BOTH(Sin) UNARY_BOTH(Cos) UNARY_BOTH(Tan) UNARY_BOTH(Asin) UNARY_BOTH(Acos)
UNARY_BOTH(Atan) UNARY_BOTH(Sinh) UNARY_BOTH(Cosh) UNARY_BOTH(Tanh) UNARY_BOTH(Erf) UNARY_BOTH(Sigmoid)
UNARY_BOTH(Reciprocal) UNARY_BOTH(Neg) UNARY_BOTH(Relu) UNARY_BOTH(Floor) UNARY_BOTH(Ceil) UNARY_BOTH(Round)
UNARY_BOTH(Trunc) UNARY_BOTH(Frac) UNARY_BOTH(LogicalNot)
UNARY_API(Gelu) UNARY_API(Silu) UNARY_API(Abs) UNARY_API(Sign)

#define BINARY_API(N) API(N, (const aclTensor *self, const aclTensor *other, aclTensor *out, WS), .t = {out, self, other})
#define INPLACE_BINARY_API(N) \
    API(Inplace##N, (aclTensor *selfRef, const aclTensor *other, WS), .t = {selfRef, selfRef, other})
#define SCALAR_API(N) \
    API(N, (const aclTensor *self, const aclScalar *other, aclTensor *out, WS), .t = {out, self}, .s = {other})
#define INPLACE_SCALAR_API(N) \
    API(Inplace##N, (aclTensor *selfRef, const aclScalar *other, WS), .t = {selfRef, selfRef}, .s = {other})
#define CMP_API(N) BINARY_API(N##Tensor) INPLACE_BINARY_API(N##Tensor) SCALAR_API(N##Scalar) INPLACE_SCALAR_API(N##Scalar)
CMP_API(Eq) CMP_API(Ne) CMP_API(Lt) CMP_API(Le) CMP_API(Gt) CMP_API(Ge)
BINARY_API(Div) INPLACE_BINARY_API(Div) SCALAR_API(Divs) INPLACE_SCALAR_API(Divs)
BINARY_API(PowTensorTensor) INPLACE_BINARY_API(PowTensorTensor) SCALAR_API(PowTensorScalar)
INPLACE_SCALAR_API(PowTensorScalar) BINARY_API(Atan2) INPLACE_BINARY_API(Atan2)
BINARY_API(Maximum) BINARY_API(Minimum) BINARY_API(LogicalAnd) INPLACE_BINARY_API(LogicalAnd)
BINARY_API(LogicalOr) INPLACE_BINARY_API(LogicalOr) BINARY_API(LogicalXor)

API(Sub, (const aclTensor *self, const aclTensor *other, const aclScalar *alpha, aclTensor *out, WS),
    .t = {out, self, other}, .s = {NULL, alpha})
API(Subs, (const aclTensor *self, const aclScalar *other, const aclScalar *alpha, aclTensor *out, WS),
    .t = {out, self, NULL}, .s = {other, alpha})
API(InplaceSub, (aclTensor *selfRef, const aclTensor *other, const aclScalar *alpha, WS),
    .t = {selfRef, selfRef, other}, .s = {NULL, alpha})
API(InplaceSubs, (aclTensor *selfRef, const aclScalar *other, const aclScalar *alpha, WS),
    .t = {selfRef, selfRef, NULL}, .s = {other, alpha})

API(SWhere, (const aclTensor *condition, const aclTensor *self, const aclTensor *other, aclTensor *out, WS),
    .t = {out, self, other, condition})

API(ReduceSum, (const aclTensor *self, const void *dims, bool keepDims, int dtype, aclTensor *out, WS),
    .t = {out, self}, .i = {keepDims, dtype}, .arr = dims)
API(Mean, (const aclTensor *self, const void *dim, bool keepDim, int dtype, aclTensor *out, WS),
    .t = {out, self}, .i = {keepDim, dtype}, .arr = dim)
API(Amax, (const aclTensor *self, const void *dim, bool keepDim, aclTensor *out, WS),
    .t = {out, self}, .i = {keepDim}, .arr = dim)
API(Amin, (const aclTensor *self, const void *dim, bool keepDim, aclTensor *out, WS),
    .t = {out, self}, .i = {keepDim}, .arr = dim)

API(Softmax, (const aclTensor *self, int64_t dim, aclTensor *out, WS), .t = {out, self}, .i = {dim})
API(LogSoftmax, (const aclTensor *self, int64_t dim, aclTensor *out, WS), .t = {out, self}, .i = {dim})
API(SoftmaxBackward, (const aclTensor *gradOutput, const aclTensor *output, int64_t dim, aclTensor *out, WS),
    .t = {out, gradOutput, output}, .i = {dim})
API(LogSoftmaxBackward, (const aclTensor *gradOutput, const aclTensor *output, int64_t dim, aclTensor *out, WS),
    .t = {out, gradOutput, output}, .i = {dim})
API(GeluBackwardV2, (const aclTensor *gradOutput, const aclTensor *self, char *approximate, aclTensor *gradInput, WS),
    .t = {gradInput, gradOutput, self}, .str = approximate)
API(SiluBackward, (const aclTensor *gradOutput, const aclTensor *self, aclTensor *gradInput, WS),
    .t = {gradInput, gradOutput, self})

API(DivMod, (const aclTensor *self, const aclTensor *other, int mode, aclTensor *out, WS),
    .t = {out, self, other}, .i = {mode})
API(DivMods, (const aclTensor *self, const aclScalar *other, int mode, aclTensor *out, WS),
    .t = {out, self}, .s = {other}, .i = {mode})
API(InplaceDivMod, (aclTensor *selfRef, const aclTensor *other, int mode, WS),
    .t = {selfRef, selfRef, other}, .i = {mode})
API(InplaceDivMods, (aclTensor *selfRef, const aclScalar *other, int mode, WS),
    .t = {selfRef, selfRef}, .s = {other}, .i = {mode})

API(PowScalarTensor, (const aclScalar *self, const aclTensor *exponent, const aclTensor *out, WS),
    .t = {out, NULL, exponent}, .s = {self})

API(GeluV2, (const aclTensor *x, int64_t approximate, aclTensor *y, WS), .t = {y, x}, .i = {approximate})
API(RoundDecimals, (const aclTensor *self, int64_t decimals, aclTensor *out, WS), .t = {out, self}, .i = {decimals})
API(InplaceRoundDecimals, (aclTensor *selfRef, int64_t decimals, WS), .t = {selfRef, selfRef}, .i = {decimals})

API(Cumsum, (const aclTensor *self, int64_t dim, int dtype, aclTensor *out, WS), .t = {out, self}, .i = {dim, dtype})
API(ArgMax, (const aclTensor *self, int64_t dim, bool keepdim, aclTensor *out, WS),
    .t = {out, self}, .i = {dim, keepdim})
API(ArgMin, (const aclTensor *self, int64_t dim, bool keepdim, aclTensor *out, WS),
    .t = {out, self}, .i = {dim, keepdim})
API(IndexSelect, (const aclTensor *self, int64_t dim, const aclTensor *index, aclTensor *out, WS),
    .t = {out, self, index}, .i = {dim})
API(Embedding, (const aclTensor *weight, const aclTensor *indices, const aclTensor *out, WS),
    .t = {(aclTensor *)out, weight, indices})
API(InplaceMaskedFillScalar, (aclTensor *selfRef, const aclTensor *mask, const aclScalar *value, WS),
    .t = {selfRef, NULL, mask}, .s = {value})

API(InplaceUniform, (const aclTensor *selfRef, double from, double to, uint64_t seed, uint64_t offset, WS),
    .t = {(aclTensor *)selfRef}, .f = {from, to}, .seed = seed, .offset = offset)
API(InplaceNormal, (const aclTensor *selfRef, float mean, float std, int64_t seed, int64_t offset, WS),
    .t = {(aclTensor *)selfRef}, .f = {mean, std}, .seed = (uint64_t)seed, .offset = (uint64_t)offset)
API(InplaceRandom, (const aclTensor *selfRef, int64_t from, int64_t to, int64_t seed, int64_t offset, WS),
    .t = {(aclTensor *)selfRef}, .i = {from, to}, .seed = (uint64_t)seed, .offset = (uint64_t)offset)
API(InplaceBernoulli, (const aclTensor *selfRef, const aclScalar *prob, int64_t seed, int64_t offset, WS),
    .t = {(aclTensor *)selfRef}, .s = {prob}, .seed = (uint64_t)seed, .offset = (uint64_t)offset)

API(NLLLoss, (const aclTensor *self, const aclTensor *target, const aclTensor *weight, int64_t reduction,
    int64_t ignoreIndex, aclTensor *out, aclTensor *totalWeightOut, WS),
    .t = {out, self, target}, .i = {reduction, ignoreIndex}, .x = {weight, totalWeightOut})
API(NLLLossBackward, (const aclTensor *gradOutput, const aclTensor *self, const aclTensor *target,
    const aclTensor *weight, int64_t reduction, int64_t ignoreIndex, const aclTensor *totalWeight, aclTensor *out, WS),
    .t = {out, self, target}, .i = {reduction, ignoreIndex}, .x = {weight, totalWeight, gradOutput})

API(Lerp, (const aclTensor *self, const aclTensor *end, const aclTensor *weight, aclTensor *out, WS),
    .t = {out, self, end, weight})
API(InplaceLerp, (aclTensor *selfRef, const aclTensor *end, const aclTensor *weight, WS),
    .t = {selfRef, selfRef, end, weight})
API(Lerps, (const aclTensor *self, const aclTensor *end, const aclScalar *weight, aclTensor *out, WS),
    .t = {out, self, end}, .s = {weight})
API(InplaceLerps, (aclTensor *selfRef, const aclTensor *end, const aclScalar *weight, WS),
    .t = {selfRef, selfRef, end}, .s = {weight})
API(Addcmul, (const aclTensor *self, const aclTensor *tensor1, const aclTensor *tensor2, const aclScalar *value,
    aclTensor *out, WS),
    .t = {out, self, tensor1, tensor2}, .s = {NULL, value})
API(InplaceAddcmul, (const aclTensor *selfRef, const aclTensor *tensor1, const aclTensor *tensor2,
    const aclScalar *value, WS),
    .t = {(aclTensor *)selfRef, selfRef, tensor1, tensor2}, .s = {NULL, value})
API(Addcdiv, (const aclTensor *self, const aclTensor *tensor1, const aclTensor *tensor2, const aclScalar *value,
    const aclTensor *out, WS),
    .t = {(aclTensor *)out, self, tensor1, tensor2}, .s = {NULL, value})
API(InplaceAddcdiv, (const aclTensor *selfRef, const aclTensor *tensor1, const aclTensor *tensor2,
    const aclScalar *value, WS),
    .t = {(aclTensor *)selfRef, selfRef, tensor1, tensor2}, .s = {NULL, value})

EXPORT aclnnStatus aclnnArangeGetWorkspaceSize(const aclScalar *start, const aclScalar *end, const aclScalar *step,
                                               aclTensor *out, WS) {
    (void)end; /* out's length already says how many values: the caller sized it from (start, end, step) */
    PREP(Arange, .t = {out}, .s = {start, step});
}
API(LayerNorm, (const aclTensor *input, const void *normalizedShape, const aclTensor *weightOptional,
    const aclTensor *biasOptional, double eps, aclTensor *out, aclTensor *meanOutOptional, aclTensor *rstdOutOptional,
    WS),
    .arr = normalizedShape, .f = {eps}, .x = {input, weightOptional, biasOptional, out, meanOutOptional, rstdOutOptional})
EXPORT aclnnStatus aclnnLayerNormBackwardGetWorkspaceSize(const aclTensor *gradOut, const aclTensor *input,
                                                          const void *normalizedShape, const aclTensor *mean,
                                                          const aclTensor *rstd, const aclTensor *weightOptional,
                                                          const aclTensor *biasOptional, const void *outputMask,
                                                          aclTensor *gradInputOut, aclTensor *gradWeightOut,
                                                          aclTensor *gradBiasOut, WS) {
    (void)outputMask; /* which grads: the non-NULL outputs */
    PREP(LayerNormBackward, .arr = normalizedShape,
         .x = {gradOut, input, mean, rstd, weightOptional, gradInputOut, gradWeightOut, gradBiasOut, biasOptional});
}
API(EmbeddingDenseBackward, (const aclTensor *grad, const aclTensor *indices, uint64_t numWeights, uint64_t paddingIdx,
    bool scaleGradByFreq, const aclTensor *out, WS),
    .t = {(aclTensor *)out, grad, indices}, .i = {(int64_t)numWeights, (int64_t)paddingIdx}, .seed = scaleGradByFreq)
LAUNCH(Arange) LAUNCH(LayerNormBackward)
UNARY_BOTH(Acosh) UNARY_BOTH(Asinh) UNARY_BOTH(Atanh) UNARY_BOTH(Erfc) UNARY_BOTH(Mish) UNARY_API(Signbit)
BINARY_API(RemainderTensorTensor) INPLACE_BINARY_API(RemainderTensorTensor) SCALAR_API(RemainderTensorScalar)
INPLACE_SCALAR_API(RemainderTensorScalar) BINARY_API(FmodTensor) INPLACE_BINARY_API(FmodTensor) SCALAR_API(FmodScalar)
INPLACE_SCALAR_API(FmodScalar)
API(All, (const aclTensor *self, const void *dim, bool keepdim, aclTensor *out, WS),
    .t = {out, self}, .i = {keepdim}, .arr = dim)
API(Any, (const aclTensor *self, const void *dim, bool keepdim, aclTensor *out, WS),
    .t = {out, self}, .i = {keepdim}, .arr = dim)

UNARY_API(IsFinite) UNARY_API(IsPosInf) UNARY_API(IsNegInf) UNARY_API(Square) UNARY_API(BitwiseNot)
BINARY_API(BitwiseAndTensor) INPLACE_BINARY_API(BitwiseAndTensor) BINARY_API(BitwiseOrTensor)
INPLACE_BINARY_API(BitwiseOrTensor) BINARY_API(BitwiseXorTensor) INPLACE_BINARY_API(BitwiseXorTensor)
BINARY_API(ClampMinTensor) INPLACE_BINARY_API(ClampMinTensor) BINARY_API(ClampMaxTensor) INPLACE_BINARY_API(ClampMaxTensor)
API(ClampTensor, (const aclTensor *self, const aclTensor *clipValueMin, const aclTensor *clipValueMax, aclTensor *out,
    WS),
    .t = {out, self, clipValueMin, clipValueMax})
API(Clamp, (const aclTensor *self, const aclScalar *clipValueMin, const aclScalar *clipValueMax, aclTensor *out, WS),
    .t = {out, self}, .s = {clipValueMin, clipValueMax})
API(ClampMin, (const aclTensor *self, const aclScalar *clipValueMin, aclTensor *out, WS),
    .t = {out, self}, .s = {clipValueMin, NULL})
API(ClampMax, (const aclTensor *self, const aclScalar *clipValueMax, aclTensor *out, WS),
    .t = {out, self}, .s = {NULL, clipValueMax})
API(InplaceClampMax, (const aclTensor *selfRef, const aclScalar *clipValueMax, WS),
    .t = {(aclTensor *)selfRef, selfRef}, .s = {NULL, clipValueMax})

API(Tril, (const aclTensor *self, int64_t diagonal, aclTensor *out, WS), .t = {out, self}, .i = {diagonal})
API(InplaceTril, (const aclTensor *selfRef, int64_t diagonal, WS),
    .t = {(aclTensor *)selfRef, selfRef}, .i = {diagonal})
API(Triu, (const aclTensor *self, int64_t diagonal, aclTensor *out, WS), .t = {out, self}, .i = {diagonal})
API(InplaceTriu, (aclTensor *selfRef, int64_t diagonal, WS), .t = {selfRef, selfRef}, .i = {diagonal})

API(MaxDim, (const aclTensor *self, int64_t dim, bool keepdim, aclTensor *out, aclTensor *indices, WS),
    .t = {indices, self, out}, .i = {dim, keepdim})
API(MinDim, (const aclTensor *self, int64_t dim, bool keepdim, aclTensor *out, aclTensor *indices, WS),
    .t = {indices, self, out}, .i = {dim, keepdim})

EXPORT aclnnStatus aclnnSortGetWorkspaceSize(const aclTensor *self, bool stable, int64_t dim, bool descending,
                                             aclTensor *valuesOut, aclTensor *indicesOut, WS) {
    (void)stable; /* always stable here: a valid order for stable=false too */
    PREP(Sort, .t = {indicesOut, self, valuesOut}, .i = {dim}, .seed = descending);
}
EXPORT aclnnStatus aclnnTopkGetWorkspaceSize(const aclTensor *self, int64_t k, int64_t dim, bool largest, bool sorted,
                                             aclTensor *valuesOut, aclTensor *indicesOut, WS) {
    (void)sorted; /* always sorted here: a valid order for sorted=false too */
    PREP(Topk, .t = {indicesOut, self, valuesOut}, .i = {dim, k}, .seed = largest);
}
LAUNCH(Sort) LAUNCH(Topk)
API(Gather, (const aclTensor *self, const int64_t dim, const aclTensor *index, aclTensor *out, WS),
    .t = {out, self, index}, .i = {dim})
API(Scatter, (const aclTensor *self, int64_t dim, const aclTensor *index, const aclTensor *src, int64_t reduce,
    aclTensor *out, WS),
    .t = {out, self, index, src}, .i = {dim, reduce})
API(ScatterValue, (const aclTensor *self, int64_t dim, const aclTensor *index, const aclScalar *value, int64_t reduce,
    aclTensor *out, WS),
    .t = {out, self, index}, .s = {value}, .i = {dim, reduce})
API(InplaceScatter, (aclTensor *selfRef, int64_t dim, const aclTensor *index, const aclTensor *src, int64_t reduce, WS),
    .t = {selfRef, selfRef, index, src}, .i = {dim, reduce})
API(InplaceScatterValue, (aclTensor *selfRef, int64_t dim, const aclTensor *index, const aclScalar *value,
    int64_t reduce, WS),
    .t = {selfRef, selfRef, index}, .s = {value}, .i = {dim, reduce})
API(ScatterAdd, (const aclTensor *self, int64_t dim, const aclTensor *index, const aclTensor *src, aclTensor *out, WS),
    .t = {out, self, index, src}, .i = {dim, 1}) /* reduce: add */

API(Multinomial, (const aclTensor *self, int64_t numsamples, bool replacement, int64_t seed, int64_t offset,
    aclTensor *out, WS),
    .t = {out, self}, .i = {numsamples, replacement}, .seed = (uint64_t)seed, .offset = (uint64_t)offset)

API(Mv, (const aclTensor *self, const aclTensor *vec, aclTensor *out, int8_t cubeMathType, WS),
    .t = {out, self, vec}, .i = {cubeMathType})
API(Dot, (const aclTensor *self, const aclTensor *tensor, aclTensor *out, WS), .t = {out, self, tensor}, .i = {0})

API(LeakyRelu, (const aclTensor *self, const aclScalar *negativeSlope, aclTensor *out, WS),
    .t = {out, self}, .s = {negativeSlope})
API(InplaceLeakyRelu, (aclTensor *selfRef, const aclScalar *negativeSlope, WS),
    .t = {selfRef, selfRef}, .s = {negativeSlope})
API(Softplus, (const aclTensor *self, const aclScalar *beta, const aclScalar *threshold, aclTensor *out, WS),
    .t = {out, self}, .s = {beta, threshold})
API(NanToNum, (const aclTensor *self, float nan, float posinf, float neginf, aclTensor *out, WS),
    .t = {out, self}, .f = {nan, posinf, neginf})
API(InplaceNanToNum, (aclTensor *selfRef, float nan, float posinf, float neginf, WS),
    .t = {selfRef, selfRef}, .f = {nan, posinf, neginf})
API(Hardtanh, (const aclTensor *self, const aclScalar *clipValueMin, const aclScalar *clipValueMax, aclTensor *out, WS),
    .t = {out, self}, .s = {clipValueMin, clipValueMax})
API(InplaceHardtanh, (aclTensor *selfRef, const aclScalar *clipValueMin, const aclScalar *clipValueMax, WS),
    .t = {selfRef, selfRef}, .s = {clipValueMin, clipValueMax})

API(Eye, (int64_t n, int64_t m, aclTensor *out, WS), .t = {out}, .i = {n, m})
API(Linspace, (const aclScalar *start, const aclScalar *end, int64_t steps, aclTensor *out, WS),
    .t = {out}, .s = {start, end}, .i = {steps})
API(Flip, (const aclTensor *self, const void *dims, aclTensor *out, WS), .t = {out, self}, .arr = dims)

/* the NCHW operators' entry points (ops-nn conv/, pooling/, norm/ headers) */
EXPORT aclnnStatus aclnnConvolutionGetWorkspaceSize(const aclTensor *input, const aclTensor *weight, const aclTensor *bias,
                                                    const void *stride, const void *padding, const void *dilation,
                                                    bool transposed, const void *outputPadding, const int64_t groups,
                                                    aclTensor *output, int8_t cubeMathType, WS) {
    if (cubeMathType < 0 || cubeMathType > 3) BAD(ACLNN_ERR_PARAM_INVALID, "aclnnConvolutionGetWorkspaceSize: cubeMathType %d", cubeMathType);
    PREP(Convolution, .x = {output, input, weight, bias}, .ia = {stride, padding, dilation, outputPadding},
         .i = {transposed, groups, cubeMathType});
}
EXPORT aclnnStatus aclnnConvolutionBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *input,
                                                            const aclTensor *weight, const void *biasSizes,
                                                            const void *stride, const void *padding, const void *dilation,
                                                            bool transposed, const void *outputPadding, int groups,
                                                            const void *outputMask, int8_t cubeMathType,
                                                            aclTensor *gradInput, aclTensor *gradWeight, aclTensor *gradBias,
                                                            WS) {
    (void)biasSizes; /* gradBias's own shape says it */
    if (cubeMathType < 0 || cubeMathType > 3) BAD(ACLNN_ERR_PARAM_INVALID, "aclnnConvolutionBackwardGetWorkspaceSize: cubeMathType %d", cubeMathType);
    PREP(ConvolutionBackward, .x = {gradInput, gradOutput, input, weight, gradWeight, gradBias},
         .ia = {stride, padding, dilation, outputPadding}, .i = {transposed, groups, cubeMathType}, .mask = outputMask);
}
API(MaxPool2dWithIndices, (const aclTensor *self, const void *kernelSize, const void *stride, const void *padding,
    const void *dilation, bool ceilMode, aclTensor *out, aclTensor *indices, WS),
    .x = {out, self, indices}, .ia = {kernelSize, stride, padding, dilation}, .i = {ceilMode})
API(MaxPool2dWithIndicesBackward, (const aclTensor *gradOutput, const aclTensor *self, const aclTensor *indices,
    const void *kernelSize, const void *stride, const void *padding, const void *dilation, bool ceilMode,
    aclTensor *gradInput, WS),
    .x = {gradInput, gradOutput, self, indices}, .ia = {kernelSize, stride, padding, dilation}, .i = {ceilMode})
EXPORT aclnnStatus aclnnAvgPool2dGetWorkspaceSize(const aclTensor *self, const void *kernelSize, const void *strides,
                                                  const void *paddings, const bool ceilMode, const bool countIncludePad,
                                                  const int64_t divisorOverride, const int8_t cubeMathType, aclTensor *out,
                                                  WS) {
    (void)cubeMathType;
    PREP(AvgPool2d, .x = {out, self}, .ia = {kernelSize, strides, paddings}, .i = {ceilMode, countIncludePad},
         .seed = (uint64_t)divisorOverride);
}
EXPORT aclnnStatus aclnnAvgPool2dBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *self,
                                                          const void *kernelSize, const void *stride, const void *padding,
                                                          bool ceilMode, bool countIncludePad, int64_t divisorOverride,
                                                          int8_t cubeMathType, aclTensor *gradInput, WS) {
    (void)cubeMathType;
    PREP(AvgPool2dBackward, .x = {gradInput, gradOutput, self}, .ia = {kernelSize, stride, padding},
         .i = {ceilMode, countIncludePad}, .seed = (uint64_t)divisorOverride);
}
API(AdaptiveAvgPool2d, (const aclTensor *self, const void *outputSize, aclTensor *out, WS),
    .x = {out, self}, .arr = outputSize)
API(AdaptiveAvgPool2dBackward, (const aclTensor *gradOutput, const aclTensor *self, aclTensor *out, WS),
    .x = {out, gradOutput, self})
API(BatchNorm, (const aclTensor *input, const aclTensor *weight, const aclTensor *bias, aclTensor *runningMean,
    aclTensor *runningVar, bool training, double momentum, double eps, aclTensor *output, aclTensor *saveMean,
    aclTensor *saveInvstd, WS),
    .x = {output, input, weight, bias, runningMean, runningVar, saveMean, saveInvstd}, .i = {training}, .f = {momentum, eps})
API(BatchNormBackward, (const aclTensor *gradOut, const aclTensor *input, const aclTensor *weight,
    const aclTensor *runningMean, const aclTensor *runningVar, const aclTensor *saveMean, const aclTensor *saveInvstd,
    bool training, double eps, const void *outputMask, aclTensor *gradInput, aclTensor *gradWeight,
    aclTensor *gradBias, WS),
    .x = {gradInput, gradOut, input, weight, runningMean, runningVar, saveMean, saveInvstd, gradWeight, gradBias}, .i = {training}, .f = {0, eps}, .mask = outputMask)
API(GroupNorm, (const aclTensor *self, const aclTensor *gamma, const aclTensor *beta, int64_t N, int64_t C,
    int64_t HxW, int64_t group, double eps, aclTensor *out, aclTensor *meanOut, aclTensor *rstdOut, WS),
    .x = {out, self, gamma, beta, meanOut, rstdOut}, .i = {N, C}, .seed = (uint64_t)HxW, .offset = (uint64_t)group, .f = {eps})
API(GroupNormBackward, (const aclTensor *gradOut, const aclTensor *input, const aclTensor *mean, const aclTensor *rstd,
    const aclTensor *gamma, int64_t N, int64_t C, int64_t HxW, int64_t group, const void *outputMask,
    aclTensor *gradInput, aclTensor *gradGammaOut, aclTensor *gradBetaOut, WS),
    .x = {gradInput, gradOut, input, mean, rstd, gamma, gradGammaOut, gradBetaOut}, .i = {N, C}, .seed = (uint64_t)HxW, .offset = (uint64_t)group, .mask = outputMask)
LAUNCH(Convolution) LAUNCH(ConvolutionBackward)
LAUNCH(AvgPool2d) LAUNCH(AvgPool2dBackward)

/* statistics, scans and the new elementwise operators (ops-math math/, ops-nn norm/ and activation/ headers) */
API(Prod, (const aclTensor *self, const int dtype, aclTensor *out, WS), .x = {out, self}, .i = {0, dtype, 2})
API(ProdDim, (const aclTensor *self, int64_t dim, bool keepDim, const int dtype, aclTensor *out, WS),
    .x = {out, self}, .i = {keepDim, dtype, 1, dim})
API(LogSumExp, (const aclTensor *self, const void *dim, bool keepDim, aclTensor *out, WS),
    .x = {out, self}, .arr = dim, .i = {keepDim, -1, 0})
API(VarCorrection, (const aclTensor *self, const void *dim, int64_t correction, bool keepdim, aclTensor *out, WS),
    .x = {out, self}, .arr = dim, .i = {keepdim, -1, 0}, .f = {(double)correction})
API(Std, (const aclTensor *self, const void *dim, const int64_t correction, bool keepdim, aclTensor *out, WS),
    .x = {out, self}, .arr = dim, .i = {keepdim, -1, 0}, .f = {(double)correction})
API(LinalgVectorNorm, (const aclTensor *self, const aclScalar *ord, const void *dims, bool keepDims, const int dtype,
    aclTensor *out, WS),
    .x = {out, self}, .s = {ord}, .arr = dims, .i = {keepDims, dtype, 0})
API(Cumprod, (const aclTensor *input, const aclScalar *dim, const int dtype, aclTensor *out, WS),
    .x = {out, input}, .s = {dim}, .i = {0, dtype})
API(Cummax, (const aclTensor *self, int64_t dim, aclTensor *valuesOut, aclTensor *indicesOut, WS),
    .x = {valuesOut, self, indicesOut}, .i = {dim})
API(Cummin, (const aclTensor *self, int64_t dim, aclTensor *valuesOut, aclTensor *indicesOut, WS),
    .x = {valuesOut, self, indicesOut}, .i = {dim})

UNARY_BOTH(Erfinv) UNARY_API(Lgamma) UNARY_API(Digamma)
BINARY_API(LogAddExp) BINARY_API(LogAddExp2) BINARY_API(Gcd)
API(IsClose, (const aclTensor *self, const aclTensor *other, double rtol, double atol, bool equalNan, aclTensor *out,
    WS),
    .t = {out, self, other}, .f = {rtol, atol}, .i = {equalNan})

/* the element-moving operators' entry points (ops-nn index/ headers; ops-math conversion/roll, math/tile) */
API(Index, (const aclTensor *self, const void *indices, aclTensor *out, WS), .x = {out, self}, .list = indices)
EXPORT aclnnStatus aclnnIndexPutImplGetWorkspaceSize(aclTensor *selfRef, const void *indices, const aclTensor *values,
                                                     const bool accumulate, const bool unsafe, WS) {
    (void)unsafe; /* out-of-range indices always fail the launch here */
    PREP(IndexPutImpl, .x = {selfRef, values}, .list = indices, .i = {accumulate});
}
API(IndexAdd, (const aclTensor *self, const int64_t dim, const aclTensor *index, const aclTensor *source,
    const aclScalar *alpha, aclTensor *out, WS),
    .x = {out, self, index, source}, .i = {dim}, .s = {alpha})
API(InplaceIndexCopy, (aclTensor *selfRef, int64_t dim, const aclTensor *index, const aclTensor *source, WS),
    .x = {selfRef, selfRef, index, source}, .i = {dim})
API(Nonzero, (const aclTensor *self, aclTensor *out, WS), .x = {out, self})
API(Repeat, (const aclTensor *self, const void *repeats, aclTensor *out, WS), .x = {out, self}, .arr = repeats)
API(Roll, (const aclTensor *x, const void *shifts, const void *dims, aclTensor *out, WS),
    .x = {out, x}, .arr = shifts, .ia = {dims})
LAUNCH(IndexPutImpl)

/* Elu (ops-nn activation/elu), tensor-probability Bernoulli (random/dsa_gen_bit_mask), Randperm (random/stateless_randperm) */
API(Elu, (const aclTensor *self, const aclScalar *alpha, const aclScalar *scale, const aclScalar *inputScale,
    aclTensor *out, WS),
    .t = {out, self}, .s = {alpha, scale, inputScale})
API(InplaceElu, (aclTensor *selfRef, const aclScalar *alpha, const aclScalar *scale, const aclScalar *inputScale, WS),
    .t = {selfRef, selfRef}, .s = {alpha, scale, inputScale})
API(InplaceBernoulliTensor, (const aclTensor *selfRef, const aclTensor *prob, int64_t seed, int64_t offset, WS),
    .t = {(aclTensor *)selfRef, prob}, .seed = (uint64_t)seed, .offset = (uint64_t)offset)
API(Randperm, (int64_t n, int64_t seed, int64_t offset, aclTensor *out, WS),
    .t = {out}, .i = {n}, .seed = (uint64_t)seed, .offset = (uint64_t)offset)

/* the foreach operators (ops-nn foreach/, one directory per operator) */
#define FOREACH_SCALAR_API(N) \
    API(N, (const void *x, const aclScalar *scalar, void *out, WS), .lists = {x, NULL, NULL, out}, .s = {scalar})
FOREACH_SCALAR_API(ForeachMulScalarV2) FOREACH_SCALAR_API(ForeachDivScalarV2) FOREACH_SCALAR_API(ForeachAddScalarV2)
API(ForeachSqrt, (const void *x, void *out, WS), .lists = {x, NULL, NULL, out})
API(ForeachLerpScalar, (const void *x1, const void *x2, const aclScalar *weight, void *out, WS),
    .lists = {x1, x2, NULL, out}, .s = {weight})
API(ForeachAddcmulScalarV2, (const void *x1, const void *x2, const void *x3, const aclScalar *scalar, void *out, WS),
    .lists = {x1, x2, x3, out}, .s = {scalar})
API(ForeachAddcdivScalarV2, (const void *x1, const void *x2, const void *x3, const aclScalar *scalar, void *out, WS),
    .lists = {x1, x2, x3, out}, .s = {scalar})

/* loss scaling: ops-nn foreach/foreach_non_finite_check_and_unscale (docs/aclnnForeachNonFiniteCheckAndUnscale.md),
 * ops-math math/amp_update_scale (docs/aclnnAmpUpdateScale.md); their prototypes are the docs' */
API(ForeachNonFiniteCheckAndUnscale, (const void *scaledGrads, const aclTensor *foundInf, const aclTensor *invScale, WS),
    .lists = {scaledGrads}, .x = {foundInf, invScale})
API(AmpUpdateScale, (const aclTensor *currentScale, const aclTensor *growthTracker, const aclTensor *foundInf,
    double growthFactor, double backoffFactor, int64_t growthInterval, const aclTensor *updatedScale,
    const aclTensor *updatedGrowthTracker, WS),
    .x = {updatedScale, currentScale, growthTracker, foundInf, updatedGrowthTracker}, .f = {growthFactor, backoffFactor},
    .i = {growthInterval})

/* shifts (ops-math math/left_shift, math/right_shift), SearchSorted (math/search_sorted), Bincount (math/bincount) */
BINARY_API(LeftShift) SCALAR_API(LeftShifts) BINARY_API(RightShift)
API(SearchSorted, (const aclTensor *sortedSequence, const aclTensor *self, bool outInt32, bool right,
    const aclTensor *sorter, aclTensor *out, WS),
    .x = {out, sortedSequence, self, sorter}, .i = {outInt32, right})
API(Bincount, (const aclTensor *self, const aclTensor *weights, int64_t minlength, aclTensor *out, WS),
    .x = {out, self, weights}, .i = {minlength})

/* ops-nn index/scatter_elements_v2/op_api/aclnn_scatter_reduce.h */
API(ScatterReduce, (const aclTensor *self, int64_t dim, const aclTensor *index, const aclTensor *src, int64_t reduce,
    bool includeSelf, aclTensor *out, WS),
    .x = {out, self, index, src}, .i = {dim, reduce, includeSelf})
API(InplaceScatterReduce, (aclTensor *selfRef, int64_t dim, const aclTensor *index, const aclTensor *src,
    int64_t reduce, bool includeSelf, WS),
    .x = {selfRef, selfRef, index, src}, .i = {dim, reduce, includeSelf})

/* ops-math math/cholesky/op_api/aclnn_linalg_cholesky.h, math/slogdet/op_host/op_api/aclnn_slogdet.h,
 * math/qr/op_api/aclnn_linalg_qr.h, math/triangular_solve/op_host/op_api/aclnn_triangular_solve.h */
API(LinalgCholesky, (const aclTensor *self, bool upper, aclTensor *out, WS), .x = {out, self}, .i = {upper})
API(Slogdet, (const aclTensor *self, aclTensor *signOut, aclTensor *logOut, WS), .x = {signOut, self, logOut})
API(LinalgQr, (const aclTensor *self, int64_t mode, aclTensor *Q, aclTensor *R, WS), .x = {Q, self, R}, .i = {mode})
API(TriangularSolve, (const aclTensor *self, const aclTensor *A, bool upper, bool transpose, bool unitriangular,
    aclTensor *xOut, aclTensor *mOut, WS),
    .x = {xOut, self, A, mOut}, .i = {upper, transpose, unitriangular})

/* ops-math math/svd/op_host/op_api/aclnn_svd.h */
API(Svd, (const aclTensor *input, const bool fullMatrices, const bool computeUV, aclTensor *sigma, aclTensor *u,
    aclTensor *v, WS),
    .x = {sigma, input, u, v}, .i = {fullMatrices, computeUV})


/* the fused transformer operators: ops-nn norm/rms_norm, norm/rms_norm_grad, activation/swi_glu, activation/swi_glu_grad
 * (the prototypes of their docs), ops-transformer posembedding/rotary_position_embedding(_grad) */
API(RmsNorm, (const aclTensor *x, const aclTensor *gamma, double epsilon, const aclTensor *yOut, const aclTensor *rstdOut,
    WS),
    .x = {yOut, x, gamma, rstdOut}, .f = {epsilon})
API(RmsNormGrad, (const aclTensor *dy, const aclTensor *x, const aclTensor *rstd, const aclTensor *gamma,
    const aclTensor *dxOut, const aclTensor *dgammaOut, WS),
    .x = {dxOut, dy, x, rstd, gamma, dgammaOut})
API(SwiGlu, (const aclTensor *x, int64_t dim, const aclTensor *out, WS), .x = {out, x}, .i = {dim})
API(SwiGluGrad, (const aclTensor *yGrad, const aclTensor *x, int64_t dim, const aclTensor *out, WS),
    .x = {out, yGrad, x}, .i = {dim})
API(RotaryPositionEmbedding, (const aclTensor *x, const aclTensor *cos, const aclTensor *sin, int64_t mode, aclTensor *out,
    WS),
    .x = {out, x, cos, sin}, .i = {mode})
API(RotaryPositionEmbeddingGrad, (const aclTensor *dy, const aclTensor *cos, const aclTensor *sin,
    const aclTensor *xOptional, int64_t mode, const aclTensor *dxOut, const aclTensor *dcosOut, const aclTensor *dsinOut,
    WS),
    .x = {dxOut, dy, cos, sin, xOptional, dcosOut, dsinOut}, .i = {mode})

/* ops-transformer gmm/grouped_matmul/op_host/op_api/aclnn_grouped_matmul_v4.h */
API(GroupedMatmulV4, (const void *x, const void *weight, const void *biasOptional, const void *scaleOptional,
    const void *offsetOptional, const void *antiquantScaleOptional, const void *antiquantOffsetOptional,
    const void *perTokenScaleOptional, const aclTensor *groupListOptional, const void *activationInputOptional,
    const void *activationQuantScaleOptional, const void *activationQuantOffsetOptional, int64_t splitItem,
    int64_t groupType, int64_t groupListType, int64_t actType, void *out, void *activationFeatureOutOptional,
    void *dynQuantScaleOutOptional, WS),
    .lists = {x, weight, out}, .x = {groupListOptional}, .i = {splitItem, groupType, groupListType, actType},
    .opt = {biasOptional, scaleOptional, offsetOptional, antiquantScaleOptional, antiquantOffsetOptional,
            perTokenScaleOptional, activationInputOptional, activationQuantScaleOptional, activationQuantOffsetOptional,
            activationFeatureOutOptional, dynQuantScaleOutOptional})

/* ops-transformer attention/flash_attention_score/op_host/op_api/aclnn_flash_attention_score.h and
 * attention/flash_attention_score_grad/op_host/op_api/aclnn_flash_attention_score_grad.h */
API(FlashAttentionScore, (const aclTensor *query, const aclTensor *key, const aclTensor *value,
    const aclTensor *realShiftOptional, const aclTensor *dropMaskOptional, const aclTensor *paddingMaskOptional,
    const aclTensor *attenMaskOptional, const void *prefixOptional, double scaleValue, double keepProb,
    int64_t preTokens, int64_t nextTokens, int64_t headNum, char *inputLayout, int64_t innerPrecise,
    int64_t sparseMode, const aclTensor *softmaxMaxOut, const aclTensor *softmaxSumOut,
    const aclTensor *softmaxOutOut, const aclTensor *attentionOutOut, WS),
    .x = {attentionOutOut, query, key, value, realShiftOptional, dropMaskOptional, paddingMaskOptional,
          attenMaskOptional, softmaxMaxOut, softmaxSumOut, softmaxOutOut},
    .arr = prefixOptional, .f = {scaleValue, keepProb}, .str = inputLayout,
    .i = {preTokens, nextTokens, headNum, innerPrecise, sparseMode})
API(FlashAttentionScoreGrad, (const aclTensor *query, const aclTensor *keyIn, const aclTensor *value,
    const aclTensor *dy, const aclTensor *pseShiftOptional, const aclTensor *dropMaskOptional,
    const aclTensor *paddingMaskOptional, const aclTensor *attenMaskOptional, const aclTensor *softmaxMaxOptional,
    const aclTensor *softmaxSumOptional, const aclTensor *softmaxInOptional, const aclTensor *attentionInOptional,
    const void *prefixOptional, double scaleValue, double keepProb, int64_t preTokens, int64_t nextTokens,
    int64_t headNum, char *inputLayout, int64_t innerPrecise, int64_t sparseMode, const aclTensor *dqOut,
    const aclTensor *dkOut, const aclTensor *dvOut, const aclTensor *dpseOut, WS),
    .x = {dqOut, query, keyIn, value, dy, pseShiftOptional, dropMaskOptional, paddingMaskOptional,
          attenMaskOptional, softmaxMaxOptional, softmaxSumOptional, softmaxInOptional, attentionInOptional, dkOut,
          dvOut, dpseOut},
    .arr = prefixOptional, .f = {scaleValue, keepProb}, .str = inputLayout,
    .i = {preTokens, nextTokens, headNum, innerPrecise, sparseMode})

/* ops-nn rnn/dynamic_rnn/op_api/aclnn_lstm.h and rnn/single_layer_lstm_grad/op_api/aclnn_lstm_backward.h
 * (aclTensorList and aclBoolArray pointers as const void *, as the foreach entry points) */
API(LSTM, (const aclTensor *input, const void *params, const void *hx, const aclTensor *batchSizes,
    bool hasBias, int64_t numLayers, double dropout, bool train, bool bidirectional, bool batchFirst, aclTensor *output,
    aclTensor *hy, aclTensor *cy, void *iOut, void *jOut, void *fOut, void *oOut,
    void *hOut, void *cOut, void *tanhCOut, WS),
    .x = {input, batchSizes, output, hy, cy}, .lists = {params, hx, iOut, jOut, fOut, oOut, hOut, cOut, tanhCOut},
    .i = {hasBias, numLayers, train, bidirectional, batchFirst}, .f = {dropout})
API(LstmBackward, (const aclTensor *input, const void *hx, const void *params, const aclTensor *dy,
    const aclTensor *dh, const aclTensor *dc, const void *i, const void *g, const void *f,
    const void *o, const void *h, const void *c, const void *tanhc,
    const aclTensor *batchSizesOptional, bool hasBias, int64_t numLayers, double dropout, bool train,
    bool bidirectional, bool batchFirst, const void *outputMask, aclTensor *dxOut, aclTensor *dhPrevOut,
    aclTensor *dcPrevOut, void *dparamsOut, WS),
    .x = {input, batchSizesOptional, dy, dh, dc, dxOut, dhPrevOut, dcPrevOut},
    .lists = {params, hx, i, g, f, o, h, c, tanhc, dparamsOut},
    .i = {hasBias, numLayers, train, bidirectional, batchFirst}, .f = {dropout}, .mask = outputMask)
/* ops-nn rnn/gru/op_api/aclnn_gru.h and rnn/gru_grad/op_api/aclnn_gru_backward.h */
API(GRU, (const aclTensor *input, const void *params, const aclTensor *hx, const aclTensor *batchSizes, bool hasBias,
    int64_t numLayers, double dropout, bool train, bool bidirection, bool batchFirst, aclTensor *output, aclTensor *hy,
    void *rOut, void *zOut, void *nOut, void *hnOut, void *hOut, WS),
    .x = {input, batchSizes, output, hy, NULL, hx}, .lists = {params, NULL, rOut, zOut, nOut, hnOut, hOut},
    .i = {hasBias, numLayers, train, bidirection, batchFirst}, .f = {dropout})
API(GRUBackward, (const aclTensor *input, const void *params, const aclTensor *hx, const aclTensor *dy,
    const aclTensor *dh, const void *r, const void *z, const void *n, const void *hn, const void *h,
    const aclTensor *batchSizes, bool hasBias, int64_t numLayers, bool bidirection, bool batchFirst,
    aclTensor *dxOut, aclTensor *dhPrevOut, void *dparamsOut, WS),
    .x = {input, batchSizes, dy, dh, NULL, dxOut, dhPrevOut, NULL, hx},
    .lists = {params, NULL, r, z, n, hn, h, NULL, NULL, dparamsOut}, .i = {hasBias, numLayers, 1, bidirection, batchFirst})
