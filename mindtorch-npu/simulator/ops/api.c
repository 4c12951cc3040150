/* libopapi, the exported entry points: aclnnXxxGetWorkspaceSize and aclnnXxx per operator (prototypes as in CANN's
 * op headers); each hands its arguments to prepare() or the shared launch. */
#include "ops_internal.h"

#define WS uint64_t *workspaceSize, aclOpExecutor **executor
#define LAUNCH(N)                                                                                            \
    EXPORT aclnnStatus aclnn##N(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream) { \
        return aclsim_exec_launch(#N, workspace, workspaceSize, executor, stream);                          \
    }
#define PREP(N, ...) do { args a_ = {__VA_ARGS__}; return prepare(#N, &a_, workspaceSize, executor); } while (0)

EXPORT aclnnStatus aclnnAddGetWorkspaceSize(const aclTensor *self, const aclTensor *other, const aclScalar *alpha,
                                            aclTensor *out, WS) { PREP(Add, .t = {out, self, other}, .s = {NULL, alpha}); }
EXPORT aclnnStatus aclnnAddsGetWorkspaceSize(const aclTensor *self, const aclScalar *other, const aclScalar *alpha,
                                             aclTensor *out, WS) { PREP(Adds, .t = {out, self, NULL}, .s = {other, alpha}); }
EXPORT aclnnStatus aclnnInplaceAddGetWorkspaceSize(const aclTensor *selfRef, const aclTensor *other,
                                                   const aclScalar *alpha, WS) {
    PREP(InplaceAdd, .t = {selfRef, selfRef, other}, .s = {NULL, alpha});
}
EXPORT aclnnStatus aclnnInplaceAddsGetWorkspaceSize(const aclTensor *selfRef, const aclScalar *other,
                                                    const aclScalar *alpha, WS) {
    PREP(InplaceAdds, .t = {selfRef, selfRef, NULL}, .s = {other, alpha});
}
EXPORT aclnnStatus aclnnMulGetWorkspaceSize(const aclTensor *self, const aclTensor *other, aclTensor *out, WS) {
    PREP(Mul, .t = {out, self, other});
}
EXPORT aclnnStatus aclnnMulsGetWorkspaceSize(const aclTensor *self, const aclScalar *other, aclTensor *out, WS) {
    PREP(Muls, .t = {out, self, NULL}, .s = {other});
}
EXPORT aclnnStatus aclnnInplaceMulGetWorkspaceSize(aclTensor *selfRef, const aclTensor *other, WS) {
    PREP(InplaceMul, .t = {selfRef, selfRef, other});
}
EXPORT aclnnStatus aclnnInplaceMulsGetWorkspaceSize(aclTensor *selfRef, const aclScalar *other, WS) {
    PREP(InplaceMuls, .t = {selfRef, selfRef, NULL}, .s = {other});
}
EXPORT aclnnStatus aclnnCastGetWorkspaceSize(const aclTensor *self, const int dtype, aclTensor *out, WS) {
    PREP(Cast, .t = {out, self}, .s = {NULL}, .i = {dtype});
}
EXPORT aclnnStatus aclnnInplaceCopyGetWorkspaceSize(aclTensor *selfRef, const aclTensor *src, WS) {
    PREP(InplaceCopy, .t = {selfRef, src});
}
EXPORT aclnnStatus aclnnInplaceFillScalarGetWorkspaceSize(aclTensor *selfRef, const aclScalar *value, WS) {
    PREP(InplaceFillScalar, .t = {selfRef}, .s = {value});
}
EXPORT aclnnStatus aclnnInplaceZeroGetWorkspaceSize(aclTensor *selfRef, WS) { PREP(InplaceZero, .t = {selfRef}); }
EXPORT aclnnStatus aclnnMatmulGetWorkspaceSize(const aclTensor *self, const aclTensor *mat2, aclTensor *out,
                                               int8_t cubeMathType, WS) {
    PREP(Matmul, .t = {out, self, mat2}, .s = {NULL}, .i = {cubeMathType});
}
EXPORT aclnnStatus aclnnMmGetWorkspaceSize(const aclTensor *self, const aclTensor *mat2, aclTensor *out,
                                           int8_t cubeMathType, WS) {
    PREP(Mm, .t = {out, self, mat2}, .s = {NULL}, .i = {cubeMathType});
}
EXPORT aclnnStatus aclnnBatchMatMulGetWorkspaceSize(const aclTensor *self, const aclTensor *mat2, aclTensor *out,
                                                    int8_t cubeMathType, WS) {
    PREP(BatchMatMul, .t = {out, self, mat2}, .s = {NULL}, .i = {cubeMathType});
}

LAUNCH(Add)
LAUNCH(Adds)
LAUNCH(InplaceAdd)
LAUNCH(InplaceAdds)
LAUNCH(Mul)
LAUNCH(Muls)
LAUNCH(InplaceMul)
LAUNCH(InplaceMuls)
LAUNCH(Cast)
LAUNCH(InplaceCopy)
LAUNCH(InplaceFillScalar)
LAUNCH(InplaceZero)
LAUNCH(Matmul)
LAUNCH(Mm)
LAUNCH(BatchMatMul)


/* the new ops' entry points, by argument shape (prototypes as in their headers) */
#define UNARY_API(N)                                                                                         \
    EXPORT aclnnStatus aclnn##N##GetWorkspaceSize(const aclTensor *self, aclTensor *out, WS) { PREP(N, .t = {out, self}); } \
    LAUNCH(N)
#define INPLACE_UNARY_API(N)                                                                                 \
    EXPORT aclnnStatus aclnnInplace##N##GetWorkspaceSize(aclTensor *selfRef, WS) { PREP(Inplace##N, .t = {selfRef, selfRef}); } \
    LAUNCH(Inplace##N)
#define UNARY_BOTH(N) UNARY_API(N) INPLACE_UNARY_API(N)
UNARY_BOTH(Exp) UNARY_BOTH(Exp2) UNARY_BOTH(Expm1) UNARY_BOTH(Log) UNARY_BOTH(Log2) UNARY_BOTH(Log10) UNARY_BOTH(Log1p)
UNARY_BOTH(Sqrt) UNARY_BOTH(Rsqrt) UNARY_BOTH(Sin) UNARY_BOTH(Cos) UNARY_BOTH(Tan) UNARY_BOTH(Asin) UNARY_BOTH(Acos)
UNARY_BOTH(Atan) UNARY_BOTH(Sinh) UNARY_BOTH(Cosh) UNARY_BOTH(Tanh) UNARY_BOTH(Erf) UNARY_BOTH(Sigmoid)
UNARY_BOTH(Reciprocal) UNARY_BOTH(Neg) UNARY_BOTH(Relu) UNARY_BOTH(Floor) UNARY_BOTH(Ceil) UNARY_BOTH(Round)
UNARY_BOTH(Trunc) UNARY_BOTH(Frac) UNARY_BOTH(LogicalNot)
UNARY_API(Gelu) UNARY_API(Silu) UNARY_API(Abs) UNARY_API(Sign)

#define BINARY_API(N)                                                                                        \
    EXPORT aclnnStatus aclnn##N##GetWorkspaceSize(const aclTensor *self, const aclTensor *other, aclTensor *out, WS) { \
        PREP(N, .t = {out, self, other});                                                                   \
    }                                                                                                       \
    LAUNCH(N)
#define INPLACE_BINARY_API(N)                                                                                \
    EXPORT aclnnStatus aclnnInplace##N##GetWorkspaceSize(aclTensor *selfRef, const aclTensor *other, WS) {  \
        PREP(Inplace##N, .t = {selfRef, selfRef, other});                                                   \
    }                                                                                                       \
    LAUNCH(Inplace##N)
#define SCALAR_API(N)                                                                                        \
    EXPORT aclnnStatus aclnn##N##GetWorkspaceSize(const aclTensor *self, const aclScalar *other, aclTensor *out, WS) { \
        PREP(N, .t = {out, self}, .s = {other});                                                            \
    }                                                                                                       \
    LAUNCH(N)
#define INPLACE_SCALAR_API(N)                                                                                \
    EXPORT aclnnStatus aclnnInplace##N##GetWorkspaceSize(aclTensor *selfRef, const aclScalar *other, WS) {  \
        PREP(Inplace##N, .t = {selfRef, selfRef}, .s = {other});                                            \
    }                                                                                                       \
    LAUNCH(Inplace##N)
#define CMP_API(N) BINARY_API(N##Tensor) INPLACE_BINARY_API(N##Tensor) SCALAR_API(N##Scalar) INPLACE_SCALAR_API(N##Scalar)
CMP_API(Eq) CMP_API(Ne) CMP_API(Lt) CMP_API(Le) CMP_API(Gt) CMP_API(Ge)
BINARY_API(Div) INPLACE_BINARY_API(Div) SCALAR_API(Divs) INPLACE_SCALAR_API(Divs)
BINARY_API(PowTensorTensor) INPLACE_BINARY_API(PowTensorTensor) SCALAR_API(PowTensorScalar)
INPLACE_SCALAR_API(PowTensorScalar) BINARY_API(Atan2) INPLACE_BINARY_API(Atan2)
BINARY_API(Maximum) BINARY_API(Minimum) BINARY_API(LogicalAnd) INPLACE_BINARY_API(LogicalAnd)
BINARY_API(LogicalOr) INPLACE_BINARY_API(LogicalOr) BINARY_API(LogicalXor)

EXPORT aclnnStatus aclnnSubGetWorkspaceSize(const aclTensor *self, const aclTensor *other, const aclScalar *alpha,
                                            aclTensor *out, WS) { PREP(Sub, .t = {out, self, other}, .s = {NULL, alpha}); }
EXPORT aclnnStatus aclnnSubsGetWorkspaceSize(const aclTensor *self, const aclScalar *other, const aclScalar *alpha,
                                             aclTensor *out, WS) { PREP(Subs, .t = {out, self, NULL}, .s = {other, alpha}); }
EXPORT aclnnStatus aclnnInplaceSubGetWorkspaceSize(aclTensor *selfRef, const aclTensor *other, const aclScalar *alpha, WS) {
    PREP(InplaceSub, .t = {selfRef, selfRef, other}, .s = {NULL, alpha});
}
EXPORT aclnnStatus aclnnInplaceSubsGetWorkspaceSize(aclTensor *selfRef, const aclScalar *other, const aclScalar *alpha, WS) {
    PREP(InplaceSubs, .t = {selfRef, selfRef, NULL}, .s = {other, alpha});
}
LAUNCH(Sub) LAUNCH(Subs) LAUNCH(InplaceSub) LAUNCH(InplaceSubs)
EXPORT aclnnStatus aclnnSWhereGetWorkspaceSize(const aclTensor *condition, const aclTensor *self, const aclTensor *other,
                                               aclTensor *out, WS) { PREP(SWhere, .t = {out, self, other, condition}); }
LAUNCH(SWhere)
EXPORT aclnnStatus aclnnReduceSumGetWorkspaceSize(const aclTensor *self, const void *dims, bool keepDims, int dtype,
                                                  aclTensor *out, WS) {
    PREP(ReduceSum, .t = {out, self}, .i = {keepDims, dtype}, .arr = dims);
}
EXPORT aclnnStatus aclnnMeanGetWorkspaceSize(const aclTensor *self, const void *dim, bool keepDim, int dtype,
                                             aclTensor *out, WS) {
    PREP(Mean, .t = {out, self}, .i = {keepDim, dtype}, .arr = dim);
}
EXPORT aclnnStatus aclnnAmaxGetWorkspaceSize(const aclTensor *self, const void *dim, bool keepDim, aclTensor *out, WS) {
    PREP(Amax, .t = {out, self}, .i = {keepDim}, .arr = dim);
}
EXPORT aclnnStatus aclnnAminGetWorkspaceSize(const aclTensor *self, const void *dim, bool keepDim, aclTensor *out, WS) {
    PREP(Amin, .t = {out, self}, .i = {keepDim}, .arr = dim);
}
LAUNCH(ReduceSum) LAUNCH(Mean) LAUNCH(Amax) LAUNCH(Amin)
EXPORT aclnnStatus aclnnSoftmaxGetWorkspaceSize(const aclTensor *self, int64_t dim, aclTensor *out, WS) {
    PREP(Softmax, .t = {out, self}, .i = {dim});
}
EXPORT aclnnStatus aclnnLogSoftmaxGetWorkspaceSize(const aclTensor *self, int64_t dim, aclTensor *out, WS) {
    PREP(LogSoftmax, .t = {out, self}, .i = {dim});
}
LAUNCH(Softmax) LAUNCH(LogSoftmax)
EXPORT aclnnStatus aclnnDivModGetWorkspaceSize(const aclTensor *self, const aclTensor *other, int mode, aclTensor *out, WS) {
    PREP(DivMod, .t = {out, self, other}, .i = {mode});
}
EXPORT aclnnStatus aclnnDivModsGetWorkspaceSize(const aclTensor *self, const aclScalar *other, int mode, aclTensor *out, WS) {
    PREP(DivMods, .t = {out, self}, .s = {other}, .i = {mode});
}
EXPORT aclnnStatus aclnnInplaceDivModGetWorkspaceSize(aclTensor *selfRef, const aclTensor *other, int mode, WS) {
    PREP(InplaceDivMod, .t = {selfRef, selfRef, other}, .i = {mode});
}
EXPORT aclnnStatus aclnnInplaceDivModsGetWorkspaceSize(aclTensor *selfRef, const aclScalar *other, int mode, WS) {
    PREP(InplaceDivMods, .t = {selfRef, selfRef}, .s = {other}, .i = {mode});
}
LAUNCH(DivMod) LAUNCH(DivMods) LAUNCH(InplaceDivMod) LAUNCH(InplaceDivMods)
EXPORT aclnnStatus aclnnPowScalarTensorGetWorkspaceSize(const aclScalar *self, const aclTensor *exponent,
                                                        const aclTensor *out, WS) {
    PREP(PowScalarTensor, .t = {out, NULL, exponent}, .s = {self});
}
LAUNCH(PowScalarTensor)
EXPORT aclnnStatus aclnnGeluV2GetWorkspaceSize(const aclTensor *x, int64_t approximate, aclTensor *y, WS) {
    PREP(GeluV2, .t = {y, x}, .i = {approximate});
}
EXPORT aclnnStatus aclnnRoundDecimalsGetWorkspaceSize(const aclTensor *self, int64_t decimals, aclTensor *out, WS) {
    PREP(RoundDecimals, .t = {out, self}, .i = {decimals});
}
EXPORT aclnnStatus aclnnInplaceRoundDecimalsGetWorkspaceSize(aclTensor *selfRef, int64_t decimals, WS) {
    PREP(InplaceRoundDecimals, .t = {selfRef, selfRef}, .i = {decimals});
}
LAUNCH(GeluV2) LAUNCH(RoundDecimals) LAUNCH(InplaceRoundDecimals)
EXPORT aclnnStatus aclnnCumsumGetWorkspaceSize(const aclTensor *self, int64_t dim, int dtype, aclTensor *out, WS) {
    PREP(Cumsum, .t = {out, self}, .i = {dim, dtype});
}
EXPORT aclnnStatus aclnnArgMaxGetWorkspaceSize(const aclTensor *self, int64_t dim, bool keepdim, aclTensor *out, WS) {
    PREP(ArgMax, .t = {out, self}, .i = {dim, keepdim});
}
EXPORT aclnnStatus aclnnArgMinGetWorkspaceSize(const aclTensor *self, int64_t dim, bool keepdim, aclTensor *out, WS) {
    PREP(ArgMin, .t = {out, self}, .i = {dim, keepdim});
}
EXPORT aclnnStatus aclnnIndexSelectGetWorkspaceSize(const aclTensor *self, int64_t dim, const aclTensor *index,
                                                    aclTensor *out, WS) {
    PREP(IndexSelect, .t = {out, self, index}, .i = {dim});
}
EXPORT aclnnStatus aclnnEmbeddingGetWorkspaceSize(const aclTensor *weight, const aclTensor *indices, const aclTensor *out,
                                                  WS) {
    PREP(Embedding, .t = {(aclTensor *)out, weight, indices});
}
EXPORT aclnnStatus aclnnInplaceMaskedFillScalarGetWorkspaceSize(aclTensor *selfRef, const aclTensor *mask,
                                                                const aclScalar *value, WS) {
    PREP(InplaceMaskedFillScalar, .t = {selfRef, NULL, mask}, .s = {value});
}
LAUNCH(Cumsum) LAUNCH(ArgMax) LAUNCH(ArgMin) LAUNCH(IndexSelect) LAUNCH(Embedding) LAUNCH(InplaceMaskedFillScalar)
EXPORT aclnnStatus aclnnInplaceUniformGetWorkspaceSize(const aclTensor *selfRef, double from, double to, uint64_t seed,
                                                       uint64_t offset, WS) {
    PREP(InplaceUniform, .t = {(aclTensor *)selfRef}, .f = {from, to}, .seed = seed, .offset = offset);
}
EXPORT aclnnStatus aclnnInplaceNormalGetWorkspaceSize(const aclTensor *selfRef, float mean, float std, int64_t seed,
                                                      int64_t offset, WS) {
    PREP(InplaceNormal, .t = {(aclTensor *)selfRef}, .f = {mean, std}, .seed = (uint64_t)seed, .offset = (uint64_t)offset);
}
EXPORT aclnnStatus aclnnInplaceRandomGetWorkspaceSize(const aclTensor *selfRef, int64_t from, int64_t to, int64_t seed,
                                                      int64_t offset, WS) {
    PREP(InplaceRandom, .t = {(aclTensor *)selfRef}, .i = {from, to}, .seed = (uint64_t)seed, .offset = (uint64_t)offset);
}
EXPORT aclnnStatus aclnnInplaceBernoulliGetWorkspaceSize(const aclTensor *selfRef, const aclScalar *prob, int64_t seed,
                                                         int64_t offset, WS) {
    PREP(InplaceBernoulli, .t = {(aclTensor *)selfRef}, .s = {prob}, .seed = (uint64_t)seed, .offset = (uint64_t)offset);
}
LAUNCH(InplaceUniform) LAUNCH(InplaceNormal) LAUNCH(InplaceRandom) LAUNCH(InplaceBernoulli)
EXPORT aclnnStatus aclnnNLLLossGetWorkspaceSize(const aclTensor *self, const aclTensor *target, const aclTensor *weight,
                                                int64_t reduction, int64_t ignoreIndex, aclTensor *out,
                                                aclTensor *totalWeightOut, WS) {
    PREP(NLLLoss, .t = {out, self, target}, .i = {reduction, ignoreIndex}, .x = {weight, totalWeightOut});
}
EXPORT aclnnStatus aclnnNLLLossBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *self,
                                                        const aclTensor *target, const aclTensor *weight,
                                                        int64_t reduction, int64_t ignoreIndex,
                                                        const aclTensor *totalWeight, aclTensor *out, WS) {
    PREP(NLLLossBackward, .t = {out, self, target}, .i = {reduction, ignoreIndex}, .x = {weight, totalWeight, gradOutput});
}
LAUNCH(NLLLoss) LAUNCH(NLLLossBackward)
EXPORT aclnnStatus aclnnLerpGetWorkspaceSize(const aclTensor *self, const aclTensor *end, const aclTensor *weight,
                                             aclTensor *out, WS) { PREP(Lerp, .t = {out, self, end, weight}); }
EXPORT aclnnStatus aclnnInplaceLerpGetWorkspaceSize(aclTensor *selfRef, const aclTensor *end, const aclTensor *weight, WS) {
    PREP(InplaceLerp, .t = {selfRef, selfRef, end, weight});
}
EXPORT aclnnStatus aclnnLerpsGetWorkspaceSize(const aclTensor *self, const aclTensor *end, const aclScalar *weight,
                                              aclTensor *out, WS) { PREP(Lerps, .t = {out, self, end}, .s = {weight}); }
EXPORT aclnnStatus aclnnInplaceLerpsGetWorkspaceSize(aclTensor *selfRef, const aclTensor *end, const aclScalar *weight, WS) {
    PREP(InplaceLerps, .t = {selfRef, selfRef, end}, .s = {weight});
}
EXPORT aclnnStatus aclnnAddcmulGetWorkspaceSize(const aclTensor *self, const aclTensor *tensor1, const aclTensor *tensor2,
                                                const aclScalar *value, aclTensor *out, WS) {
    PREP(Addcmul, .t = {out, self, tensor1, tensor2}, .s = {NULL, value});
}
EXPORT aclnnStatus aclnnInplaceAddcmulGetWorkspaceSize(const aclTensor *selfRef, const aclTensor *tensor1,
                                                       const aclTensor *tensor2, const aclScalar *value, WS) {
    PREP(InplaceAddcmul, .t = {(aclTensor *)selfRef, selfRef, tensor1, tensor2}, .s = {NULL, value});
}
EXPORT aclnnStatus aclnnAddcdivGetWorkspaceSize(const aclTensor *self, const aclTensor *tensor1, const aclTensor *tensor2,
                                                const aclScalar *value, const aclTensor *out, WS) {
    PREP(Addcdiv, .t = {(aclTensor *)out, self, tensor1, tensor2}, .s = {NULL, value});
}
EXPORT aclnnStatus aclnnInplaceAddcdivGetWorkspaceSize(const aclTensor *selfRef, const aclTensor *tensor1,
                                                       const aclTensor *tensor2, const aclScalar *value, WS) {
    PREP(InplaceAddcdiv, .t = {(aclTensor *)selfRef, selfRef, tensor1, tensor2}, .s = {NULL, value});
}
LAUNCH(Lerp) LAUNCH(InplaceLerp) LAUNCH(Lerps) LAUNCH(InplaceLerps) LAUNCH(Addcmul) LAUNCH(InplaceAddcmul)
LAUNCH(Addcdiv) LAUNCH(InplaceAddcdiv)
EXPORT aclnnStatus aclnnArangeGetWorkspaceSize(const aclScalar *start, const aclScalar *end, const aclScalar *step,
                                               aclTensor *out, WS) {
    (void)end; /* out's length already says how many values: the caller sized it from (start, end, step) */
    PREP(Arange, .t = {out}, .s = {start, step});
}
EXPORT aclnnStatus aclnnLayerNormGetWorkspaceSize(const aclTensor *input, const void *normalizedShape,
                                                  const aclTensor *weightOptional, const aclTensor *biasOptional,
                                                  double eps, aclTensor *out, aclTensor *meanOutOptional,
                                                  aclTensor *rstdOutOptional, WS) {
    PREP(LayerNorm, .arr = normalizedShape, .f = {eps},
         .x = {input, weightOptional, biasOptional, out, meanOutOptional, rstdOutOptional});
}
EXPORT aclnnStatus aclnnLayerNormBackwardGetWorkspaceSize(const aclTensor *gradOut, const aclTensor *input,
                                                          const void *normalizedShape, const aclTensor *mean,
                                                          const aclTensor *rstd, const aclTensor *weightOptional,
                                                          const aclTensor *biasOptional, const void *outputMask,
                                                          aclTensor *gradInputOut, aclTensor *gradWeightOut,
                                                          aclTensor *gradBiasOut, WS) {
    (void)biasOptional; (void)outputMask; /* which grads: the non-NULL outputs */
    PREP(LayerNormBackward, .arr = normalizedShape,
         .x = {gradOut, input, mean, rstd, weightOptional, gradInputOut, gradWeightOut, gradBiasOut});
}
EXPORT aclnnStatus aclnnEmbeddingDenseBackwardGetWorkspaceSize(const aclTensor *grad, const aclTensor *indices,
                                                               uint64_t numWeights, uint64_t paddingIdx,
                                                               bool scaleGradByFreq, const aclTensor *out, WS) {
    PREP(EmbeddingDenseBackward, .t = {(aclTensor *)out, grad, indices}, .i = {(int64_t)numWeights, (int64_t)paddingIdx},
         .seed = scaleGradByFreq);
}
LAUNCH(Arange) LAUNCH(LayerNorm) LAUNCH(LayerNormBackward) LAUNCH(EmbeddingDenseBackward)
UNARY_BOTH(Acosh) UNARY_BOTH(Asinh) UNARY_BOTH(Atanh) UNARY_BOTH(Erfc) UNARY_BOTH(Mish) UNARY_API(Signbit)
BINARY_API(RemainderTensorTensor) INPLACE_BINARY_API(RemainderTensorTensor) SCALAR_API(RemainderTensorScalar)
INPLACE_SCALAR_API(RemainderTensorScalar) BINARY_API(FmodTensor) INPLACE_BINARY_API(FmodTensor) SCALAR_API(FmodScalar)
INPLACE_SCALAR_API(FmodScalar)
EXPORT aclnnStatus aclnnAllGetWorkspaceSize(const aclTensor *self, const void *dim, bool keepdim, aclTensor *out, WS) {
    PREP(All, .t = {out, self}, .i = {keepdim}, .arr = dim);
}
EXPORT aclnnStatus aclnnAnyGetWorkspaceSize(const aclTensor *self, const void *dim, bool keepdim, aclTensor *out, WS) {
    PREP(Any, .t = {out, self}, .i = {keepdim}, .arr = dim);
}
LAUNCH(All) LAUNCH(Any)
UNARY_API(IsFinite) UNARY_API(IsPosInf) UNARY_API(IsNegInf) UNARY_API(Square) UNARY_API(BitwiseNot)
BINARY_API(BitwiseAndTensor) INPLACE_BINARY_API(BitwiseAndTensor) BINARY_API(BitwiseOrTensor)
INPLACE_BINARY_API(BitwiseOrTensor) BINARY_API(BitwiseXorTensor) INPLACE_BINARY_API(BitwiseXorTensor)
BINARY_API(ClampMinTensor) INPLACE_BINARY_API(ClampMinTensor) BINARY_API(ClampMaxTensor) INPLACE_BINARY_API(ClampMaxTensor)
EXPORT aclnnStatus aclnnClampTensorGetWorkspaceSize(const aclTensor *self, const aclTensor *clipValueMin,
                                                    const aclTensor *clipValueMax, aclTensor *out, WS) {
    PREP(ClampTensor, .t = {out, self, clipValueMin, clipValueMax});
}
EXPORT aclnnStatus aclnnClampGetWorkspaceSize(const aclTensor *self, const aclScalar *clipValueMin,
                                              const aclScalar *clipValueMax, aclTensor *out, WS) {
    PREP(Clamp, .t = {out, self}, .s = {clipValueMin, clipValueMax});
}
EXPORT aclnnStatus aclnnClampMinGetWorkspaceSize(const aclTensor *self, const aclScalar *clipValueMin, aclTensor *out, WS) {
    PREP(ClampMin, .t = {out, self}, .s = {clipValueMin, NULL});
}
EXPORT aclnnStatus aclnnClampMaxGetWorkspaceSize(const aclTensor *self, const aclScalar *clipValueMax, aclTensor *out, WS) {
    PREP(ClampMax, .t = {out, self}, .s = {NULL, clipValueMax});
}
EXPORT aclnnStatus aclnnInplaceClampMaxGetWorkspaceSize(const aclTensor *selfRef, const aclScalar *clipValueMax, WS) {
    PREP(InplaceClampMax, .t = {(aclTensor *)selfRef, selfRef}, .s = {NULL, clipValueMax});
}
LAUNCH(ClampTensor) LAUNCH(Clamp) LAUNCH(ClampMin) LAUNCH(ClampMax) LAUNCH(InplaceClampMax)
EXPORT aclnnStatus aclnnTrilGetWorkspaceSize(const aclTensor *self, int64_t diagonal, aclTensor *out, WS) {
    PREP(Tril, .t = {out, self}, .i = {diagonal});
}
EXPORT aclnnStatus aclnnInplaceTrilGetWorkspaceSize(const aclTensor *selfRef, int64_t diagonal, WS) {
    PREP(InplaceTril, .t = {(aclTensor *)selfRef, selfRef}, .i = {diagonal});
}
EXPORT aclnnStatus aclnnTriuGetWorkspaceSize(const aclTensor *self, int64_t diagonal, aclTensor *out, WS) {
    PREP(Triu, .t = {out, self}, .i = {diagonal});
}
EXPORT aclnnStatus aclnnInplaceTriuGetWorkspaceSize(aclTensor *selfRef, int64_t diagonal, WS) {
    PREP(InplaceTriu, .t = {selfRef, selfRef}, .i = {diagonal});
}
LAUNCH(Tril) LAUNCH(InplaceTril) LAUNCH(Triu) LAUNCH(InplaceTriu)
EXPORT aclnnStatus aclnnMaxDimGetWorkspaceSize(const aclTensor *self, int64_t dim, bool keepdim, aclTensor *out,
                                               aclTensor *indices, WS) {
    PREP(MaxDim, .t = {indices, self, out}, .i = {dim, keepdim});
}
EXPORT aclnnStatus aclnnMinDimGetWorkspaceSize(const aclTensor *self, int64_t dim, bool keepdim, aclTensor *out,
                                               aclTensor *indices, WS) {
    PREP(MinDim, .t = {indices, self, out}, .i = {dim, keepdim});
}
LAUNCH(MaxDim) LAUNCH(MinDim)
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
EXPORT aclnnStatus aclnnGatherGetWorkspaceSize(const aclTensor *self, const int64_t dim, const aclTensor *index,
                                               aclTensor *out, WS) { PREP(Gather, .t = {out, self, index}, .i = {dim}); }
EXPORT aclnnStatus aclnnScatterGetWorkspaceSize(const aclTensor *self, int64_t dim, const aclTensor *index,
                                                const aclTensor *src, int64_t reduce, aclTensor *out, WS) {
    PREP(Scatter, .t = {out, self, index, src}, .i = {dim, reduce});
}
EXPORT aclnnStatus aclnnScatterValueGetWorkspaceSize(const aclTensor *self, int64_t dim, const aclTensor *index,
                                                     const aclScalar *value, int64_t reduce, aclTensor *out, WS) {
    PREP(ScatterValue, .t = {out, self, index}, .s = {value}, .i = {dim, reduce});
}
EXPORT aclnnStatus aclnnInplaceScatterGetWorkspaceSize(aclTensor *selfRef, int64_t dim, const aclTensor *index,
                                                       const aclTensor *src, int64_t reduce, WS) {
    PREP(InplaceScatter, .t = {selfRef, selfRef, index, src}, .i = {dim, reduce});
}
EXPORT aclnnStatus aclnnInplaceScatterValueGetWorkspaceSize(aclTensor *selfRef, int64_t dim, const aclTensor *index,
                                                            const aclScalar *value, int64_t reduce, WS) {
    PREP(InplaceScatterValue, .t = {selfRef, selfRef, index}, .s = {value}, .i = {dim, reduce});
}
EXPORT aclnnStatus aclnnScatterAddGetWorkspaceSize(const aclTensor *self, int64_t dim, const aclTensor *index,
                                                   const aclTensor *src, aclTensor *out, WS) {
    PREP(ScatterAdd, .t = {out, self, index, src}, .i = {dim, 1}); /* reduce: add */
}
LAUNCH(Gather) LAUNCH(Scatter) LAUNCH(ScatterValue) LAUNCH(InplaceScatter) LAUNCH(InplaceScatterValue) LAUNCH(ScatterAdd)
EXPORT aclnnStatus aclnnMultinomialGetWorkspaceSize(const aclTensor *self, int64_t numsamples, bool replacement,
                                                    int64_t seed, int64_t offset, aclTensor *out, WS) {
    PREP(Multinomial, .t = {out, self}, .i = {numsamples, replacement}, .seed = (uint64_t)seed, .offset = (uint64_t)offset);
}
LAUNCH(Multinomial)
EXPORT aclnnStatus aclnnMvGetWorkspaceSize(const aclTensor *self, const aclTensor *vec, aclTensor *out, int8_t cubeMathType,
                                           WS) { PREP(Mv, .t = {out, self, vec}, .i = {cubeMathType}); }
EXPORT aclnnStatus aclnnDotGetWorkspaceSize(const aclTensor *self, const aclTensor *tensor, aclTensor *out, WS) {
    PREP(Dot, .t = {out, self, tensor}, .i = {0});
}
LAUNCH(Mv) LAUNCH(Dot)
EXPORT aclnnStatus aclnnLeakyReluGetWorkspaceSize(const aclTensor *self, const aclScalar *negativeSlope, aclTensor *out, WS) {
    PREP(LeakyRelu, .t = {out, self}, .s = {negativeSlope});
}
EXPORT aclnnStatus aclnnInplaceLeakyReluGetWorkspaceSize(aclTensor *selfRef, const aclScalar *negativeSlope, WS) {
    PREP(InplaceLeakyRelu, .t = {selfRef, selfRef}, .s = {negativeSlope});
}
EXPORT aclnnStatus aclnnSoftplusGetWorkspaceSize(const aclTensor *self, const aclScalar *beta, const aclScalar *threshold,
                                                 aclTensor *out, WS) {
    PREP(Softplus, .t = {out, self}, .s = {beta, threshold});
}
EXPORT aclnnStatus aclnnNanToNumGetWorkspaceSize(const aclTensor *self, float nan, float posinf, float neginf,
                                                 aclTensor *out, WS) {
    PREP(NanToNum, .t = {out, self}, .f = {nan, posinf, neginf});
}
EXPORT aclnnStatus aclnnInplaceNanToNumGetWorkspaceSize(aclTensor *selfRef, float nan, float posinf, float neginf, WS) {
    PREP(InplaceNanToNum, .t = {selfRef, selfRef}, .f = {nan, posinf, neginf});
}
EXPORT aclnnStatus aclnnHardtanhGetWorkspaceSize(const aclTensor *self, const aclScalar *clipValueMin,
                                                 const aclScalar *clipValueMax, aclTensor *out, WS) {
    PREP(Hardtanh, .t = {out, self}, .s = {clipValueMin, clipValueMax});
}
EXPORT aclnnStatus aclnnInplaceHardtanhGetWorkspaceSize(aclTensor *selfRef, const aclScalar *clipValueMin,
                                                        const aclScalar *clipValueMax, WS) {
    PREP(InplaceHardtanh, .t = {selfRef, selfRef}, .s = {clipValueMin, clipValueMax});
}
LAUNCH(LeakyRelu) LAUNCH(InplaceLeakyRelu) LAUNCH(Softplus) LAUNCH(NanToNum) LAUNCH(InplaceNanToNum) LAUNCH(Hardtanh)
LAUNCH(InplaceHardtanh)
EXPORT aclnnStatus aclnnEyeGetWorkspaceSize(int64_t n, int64_t m, aclTensor *out, WS) { PREP(Eye, .t = {out}, .i = {n, m}); }
EXPORT aclnnStatus aclnnLinspaceGetWorkspaceSize(const aclScalar *start, const aclScalar *end, int64_t steps, aclTensor *out,
                                                 WS) { PREP(Linspace, .t = {out}, .s = {start, end}, .i = {steps}); }
EXPORT aclnnStatus aclnnFlipGetWorkspaceSize(const aclTensor *self, const void *dims, aclTensor *out, WS) {
    PREP(Flip, .t = {out, self}, .arr = dims);
}
LAUNCH(Eye) LAUNCH(Linspace) LAUNCH(Flip)

/* the NCHW operators' entry points (ops-nn conv/, pooling/, norm/ headers) */
EXPORT aclnnStatus aclnnConvolutionGetWorkspaceSize(const aclTensor *input, const aclTensor *weight, const aclTensor *bias,
                                                    const void *stride, const void *padding, const void *dilation,
                                                    bool transposed, const void *outputPadding, const int64_t groups,
                                                    aclTensor *output, int8_t cubeMathType, WS) {
    if (cubeMathType < 0 || cubeMathType > 3) BAD(ACLNN_ERR_PARAM_INVALID, "aclnnConvolutionGetWorkspaceSize: cubeMathType %d", cubeMathType);
    PREP(Convolution, .x = {output, input, weight, bias}, .ia = {stride, padding, dilation, outputPadding}, .i = {transposed, groups});
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
         .ia = {stride, padding, dilation, outputPadding}, .i = {transposed, groups}, .mask = outputMask);
}
EXPORT aclnnStatus aclnnMaxPool2dWithIndicesGetWorkspaceSize(const aclTensor *self, const void *kernelSize, const void *stride,
                                                             const void *padding, const void *dilation, bool ceilMode,
                                                             aclTensor *out, aclTensor *indices, WS) {
    PREP(MaxPool2dWithIndices, .x = {out, self, indices}, .ia = {kernelSize, stride, padding, dilation}, .i = {ceilMode});
}
EXPORT aclnnStatus aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *self,
                                                                     const aclTensor *indices, const void *kernelSize,
                                                                     const void *stride, const void *padding,
                                                                     const void *dilation, bool ceilMode,
                                                                     aclTensor *gradInput, WS) {
    PREP(MaxPool2dWithIndicesBackward, .x = {gradInput, gradOutput, self, indices},
         .ia = {kernelSize, stride, padding, dilation}, .i = {ceilMode});
}
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
EXPORT aclnnStatus aclnnAdaptiveAvgPool2dGetWorkspaceSize(const aclTensor *self, const void *outputSize, aclTensor *out, WS) {
    PREP(AdaptiveAvgPool2d, .x = {out, self}, .arr = outputSize);
}
EXPORT aclnnStatus aclnnAdaptiveAvgPool2dBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *self,
                                                                  aclTensor *out, WS) {
    PREP(AdaptiveAvgPool2dBackward, .x = {out, gradOutput, self});
}
EXPORT aclnnStatus aclnnBatchNormGetWorkspaceSize(const aclTensor *input, const aclTensor *weight, const aclTensor *bias,
                                                  aclTensor *runningMean, aclTensor *runningVar, bool training,
                                                  double momentum, double eps, aclTensor *output, aclTensor *saveMean,
                                                  aclTensor *saveInvstd, WS) {
    PREP(BatchNorm, .x = {output, input, weight, bias, runningMean, runningVar, saveMean, saveInvstd}, .i = {training},
         .f = {momentum, eps});
}
EXPORT aclnnStatus aclnnBatchNormBackwardGetWorkspaceSize(const aclTensor *gradOut, const aclTensor *input,
                                                          const aclTensor *weight, const aclTensor *runningMean,
                                                          const aclTensor *runningVar, const aclTensor *saveMean,
                                                          const aclTensor *saveInvstd, bool training, double eps,
                                                          const void *outputMask, aclTensor *gradInput,
                                                          aclTensor *gradWeight, aclTensor *gradBias, WS) {
    PREP(BatchNormBackward, .x = {gradInput, gradOut, input, weight, runningMean, runningVar, saveMean, saveInvstd,
                                  gradWeight, gradBias}, .i = {training}, .f = {0, eps}, .mask = outputMask);
}
EXPORT aclnnStatus aclnnGroupNormGetWorkspaceSize(const aclTensor *self, const aclTensor *gamma, const aclTensor *beta,
                                                  int64_t N, int64_t C, int64_t HxW, int64_t group, double eps,
                                                  aclTensor *out, aclTensor *meanOut, aclTensor *rstdOut, WS) {
    PREP(GroupNorm, .x = {out, self, gamma, beta, meanOut, rstdOut}, .i = {N, C}, .seed = (uint64_t)HxW,
         .offset = (uint64_t)group, .f = {eps});
}
EXPORT aclnnStatus aclnnGroupNormBackwardGetWorkspaceSize(const aclTensor *gradOut, const aclTensor *input,
                                                          const aclTensor *mean, const aclTensor *rstd,
                                                          const aclTensor *gamma, int64_t N, int64_t C, int64_t HxW,
                                                          int64_t group, const void *outputMask, aclTensor *gradInput,
                                                          aclTensor *gradGammaOut, aclTensor *gradBetaOut, WS) {
    PREP(GroupNormBackward, .x = {gradInput, gradOut, input, mean, rstd, gamma, gradGammaOut, gradBetaOut}, .i = {N, C},
         .seed = (uint64_t)HxW, .offset = (uint64_t)group, .mask = outputMask);
}
LAUNCH(Convolution) LAUNCH(ConvolutionBackward) LAUNCH(MaxPool2dWithIndices) LAUNCH(MaxPool2dWithIndicesBackward)
LAUNCH(AvgPool2d) LAUNCH(AvgPool2dBackward) LAUNCH(AdaptiveAvgPool2d) LAUNCH(AdaptiveAvgPool2dBackward)
LAUNCH(BatchNorm) LAUNCH(BatchNormBackward) LAUNCH(GroupNorm) LAUNCH(GroupNormBackward)

/* statistics, scans and the new elementwise operators (ops-math math/, ops-nn norm/ and activation/ headers) */
EXPORT aclnnStatus aclnnProdGetWorkspaceSize(const aclTensor *self, const int dtype, aclTensor *out, WS) {
    PREP(Prod, .x = {out, self}, .i = {0, dtype, 2});
}
EXPORT aclnnStatus aclnnProdDimGetWorkspaceSize(const aclTensor *self, int64_t dim, bool keepDim, const int dtype, aclTensor *out, WS) {
    PREP(ProdDim, .x = {out, self}, .i = {keepDim, dtype, 1, dim});
}
EXPORT aclnnStatus aclnnLogSumExpGetWorkspaceSize(const aclTensor *self, const void *dim, bool keepDim, aclTensor *out, WS) {
    PREP(LogSumExp, .x = {out, self}, .arr = dim, .i = {keepDim, -1, 0});
}
EXPORT aclnnStatus aclnnVarCorrectionGetWorkspaceSize(const aclTensor *self, const void *dim, int64_t correction, bool keepdim,
                                                      aclTensor *out, WS) {
    PREP(VarCorrection, .x = {out, self}, .arr = dim, .i = {keepdim, -1, 0}, .f = {(double)correction});
}
EXPORT aclnnStatus aclnnStdGetWorkspaceSize(const aclTensor *self, const void *dim, const int64_t correction, bool keepdim,
                                            aclTensor *out, WS) {
    PREP(Std, .x = {out, self}, .arr = dim, .i = {keepdim, -1, 0}, .f = {(double)correction});
}
EXPORT aclnnStatus aclnnLinalgVectorNormGetWorkspaceSize(const aclTensor *self, const aclScalar *ord, const void *dims,
                                                         bool keepDims, const int dtype, aclTensor *out, WS) {
    PREP(LinalgVectorNorm, .x = {out, self}, .s = {ord}, .arr = dims, .i = {keepDims, dtype, 0});
}
EXPORT aclnnStatus aclnnCumprodGetWorkspaceSize(const aclTensor *input, const aclScalar *dim, const int dtype, aclTensor *out, WS) {
    PREP(Cumprod, .x = {out, input}, .s = {dim}, .i = {0, dtype});
}
EXPORT aclnnStatus aclnnCummaxGetWorkspaceSize(const aclTensor *self, int64_t dim, aclTensor *valuesOut, aclTensor *indicesOut, WS) {
    PREP(Cummax, .x = {valuesOut, self, indicesOut}, .i = {dim});
}
EXPORT aclnnStatus aclnnCumminGetWorkspaceSize(const aclTensor *self, int64_t dim, aclTensor *valuesOut, aclTensor *indicesOut, WS) {
    PREP(Cummin, .x = {valuesOut, self, indicesOut}, .i = {dim});
}
LAUNCH(Prod) LAUNCH(ProdDim) LAUNCH(LogSumExp) LAUNCH(VarCorrection) LAUNCH(Std) LAUNCH(LinalgVectorNorm) LAUNCH(Cumprod) LAUNCH(Cummax) LAUNCH(Cummin)
UNARY_BOTH(Erfinv) UNARY_API(Lgamma) UNARY_API(Digamma)
BINARY_API(LogAddExp) BINARY_API(LogAddExp2) BINARY_API(Gcd)
EXPORT aclnnStatus aclnnIsCloseGetWorkspaceSize(const aclTensor *self, const aclTensor *other, double rtol, double atol,
                                                bool equalNan, aclTensor *out, WS) {
    PREP(IsClose, .t = {out, self, other}, .f = {rtol, atol}, .i = {equalNan});
}
LAUNCH(IsClose)

/* the element-moving operators' entry points (ops-nn index/ headers; ops-math conversion/roll, math/tile) */
EXPORT aclnnStatus aclnnIndexGetWorkspaceSize(const aclTensor *self, const void *indices, aclTensor *out, WS) {
    PREP(Index, .x = {out, self}, .list = indices);
}
EXPORT aclnnStatus aclnnIndexPutImplGetWorkspaceSize(aclTensor *selfRef, const void *indices, const aclTensor *values,
                                                     const bool accumulate, const bool unsafe, WS) {
    (void)unsafe; /* out-of-range indices always fail the launch here */
    PREP(IndexPutImpl, .x = {selfRef, values}, .list = indices, .i = {accumulate});
}
EXPORT aclnnStatus aclnnIndexAddGetWorkspaceSize(const aclTensor *self, const int64_t dim, const aclTensor *index,
                                                 const aclTensor *source, const aclScalar *alpha, aclTensor *out, WS) {
    PREP(IndexAdd, .x = {out, self, index, source}, .i = {dim}, .s = {alpha});
}
EXPORT aclnnStatus aclnnInplaceIndexCopyGetWorkspaceSize(aclTensor *selfRef, int64_t dim, const aclTensor *index,
                                                         const aclTensor *source, WS) {
    PREP(InplaceIndexCopy, .x = {selfRef, selfRef, index, source}, .i = {dim});
}
EXPORT aclnnStatus aclnnNonzeroGetWorkspaceSize(const aclTensor *self, aclTensor *out, WS) { PREP(Nonzero, .x = {out, self}); }
EXPORT aclnnStatus aclnnRepeatGetWorkspaceSize(const aclTensor *self, const void *repeats, aclTensor *out, WS) {
    PREP(Repeat, .x = {out, self}, .arr = repeats);
}
EXPORT aclnnStatus aclnnRollGetWorkspaceSize(const aclTensor *x, const void *shifts, const void *dims, aclTensor *out, WS) {
    PREP(Roll, .x = {out, x}, .arr = shifts, .ia = {dims});
}
LAUNCH(Index) LAUNCH(IndexPutImpl) LAUNCH(IndexAdd) LAUNCH(InplaceIndexCopy) LAUNCH(Nonzero)
LAUNCH(Repeat) LAUNCH(Roll)

/* Elu (ops-nn activation/elu), tensor-probability Bernoulli (random/dsa_gen_bit_mask), Randperm (random/stateless_randperm) */
EXPORT aclnnStatus aclnnEluGetWorkspaceSize(const aclTensor *self, const aclScalar *alpha, const aclScalar *scale,
                                            const aclScalar *inputScale, aclTensor *out, WS) {
    PREP(Elu, .t = {out, self}, .s = {alpha, scale, inputScale});
}
EXPORT aclnnStatus aclnnInplaceEluGetWorkspaceSize(aclTensor *selfRef, const aclScalar *alpha, const aclScalar *scale,
                                                   const aclScalar *inputScale, WS) {
    PREP(InplaceElu, .t = {selfRef, selfRef}, .s = {alpha, scale, inputScale});
}
EXPORT aclnnStatus aclnnInplaceBernoulliTensorGetWorkspaceSize(const aclTensor *selfRef, const aclTensor *prob, int64_t seed,
                                                               int64_t offset, WS) {
    PREP(InplaceBernoulliTensor, .t = {(aclTensor *)selfRef, prob}, .seed = (uint64_t)seed, .offset = (uint64_t)offset);
}
EXPORT aclnnStatus aclnnRandpermGetWorkspaceSize(int64_t n, int64_t seed, int64_t offset, aclTensor *out, WS) {
    PREP(Randperm, .t = {out}, .i = {n}, .seed = (uint64_t)seed, .offset = (uint64_t)offset);
}
LAUNCH(Elu) LAUNCH(InplaceElu) LAUNCH(InplaceBernoulliTensor) LAUNCH(Randperm)

/* the foreach operators (ops-nn foreach/, one directory per operator) */
#define FOREACH_SCALAR_API(N)                                                                                \
    EXPORT aclnnStatus aclnn##N##GetWorkspaceSize(const void *x, const aclScalar *scalar, void *out, WS) {   \
        PREP(N, .lists = {x, NULL, NULL, out}, .s = {scalar});                                               \
    }                                                                                                       \
    LAUNCH(N)
FOREACH_SCALAR_API(ForeachMulScalarV2) FOREACH_SCALAR_API(ForeachDivScalarV2) FOREACH_SCALAR_API(ForeachAddScalarV2)
EXPORT aclnnStatus aclnnForeachSqrtGetWorkspaceSize(const void *x, void *out, WS) { PREP(ForeachSqrt, .lists = {x, NULL, NULL, out}); }
EXPORT aclnnStatus aclnnForeachLerpScalarGetWorkspaceSize(const void *x1, const void *x2, const aclScalar *weight, void *out, WS) {
    PREP(ForeachLerpScalar, .lists = {x1, x2, NULL, out}, .s = {weight});
}
EXPORT aclnnStatus aclnnForeachAddcmulScalarV2GetWorkspaceSize(const void *x1, const void *x2, const void *x3,
                                                               const aclScalar *scalar, void *out, WS) {
    PREP(ForeachAddcmulScalarV2, .lists = {x1, x2, x3, out}, .s = {scalar});
}
EXPORT aclnnStatus aclnnForeachAddcdivScalarV2GetWorkspaceSize(const void *x1, const void *x2, const void *x3,
                                                               const aclScalar *scalar, void *out, WS) {
    PREP(ForeachAddcdivScalarV2, .lists = {x1, x2, x3, out}, .s = {scalar});
}
LAUNCH(ForeachSqrt) LAUNCH(ForeachLerpScalar) LAUNCH(ForeachAddcmulScalarV2) LAUNCH(ForeachAddcdivScalarV2)

/* shifts (ops-math math/left_shift, math/right_shift), SearchSorted (math/search_sorted), Bincount (math/bincount) */
BINARY_API(LeftShift) SCALAR_API(LeftShifts) BINARY_API(RightShift)
EXPORT aclnnStatus aclnnSearchSortedGetWorkspaceSize(const aclTensor *sortedSequence, const aclTensor *self, bool outInt32,
                                                     bool right, const aclTensor *sorter, aclTensor *out, WS) {
    PREP(SearchSorted, .x = {out, sortedSequence, self, sorter}, .i = {outInt32, right});
}
EXPORT aclnnStatus aclnnBincountGetWorkspaceSize(const aclTensor *self, const aclTensor *weights, int64_t minlength,
                                                 aclTensor *out, WS) {
    PREP(Bincount, .x = {out, self, weights}, .i = {minlength});
}
LAUNCH(SearchSorted) LAUNCH(Bincount)

/* ops-nn index/scatter_elements_v2/op_api/aclnn_scatter_reduce.h */
EXPORT aclnnStatus aclnnScatterReduceGetWorkspaceSize(const aclTensor *self, int64_t dim, const aclTensor *index,
                                                      const aclTensor *src, int64_t reduce, bool includeSelf,
                                                      aclTensor *out, WS) {
    PREP(ScatterReduce, .x = {out, self, index, src}, .i = {dim, reduce, includeSelf});
}
EXPORT aclnnStatus aclnnInplaceScatterReduceGetWorkspaceSize(aclTensor *selfRef, int64_t dim, const aclTensor *index,
                                                             const aclTensor *src, int64_t reduce, bool includeSelf, WS) {
    PREP(InplaceScatterReduce, .x = {selfRef, selfRef, index, src}, .i = {dim, reduce, includeSelf});
}
LAUNCH(ScatterReduce) LAUNCH(InplaceScatterReduce)

/* ops-math math/cholesky/op_api/aclnn_linalg_cholesky.h, math/slogdet/op_host/op_api/aclnn_slogdet.h,
 * math/qr/op_api/aclnn_linalg_qr.h, math/triangular_solve/op_host/op_api/aclnn_triangular_solve.h */
EXPORT aclnnStatus aclnnLinalgCholeskyGetWorkspaceSize(const aclTensor *self, bool upper, aclTensor *out, WS) {
    PREP(LinalgCholesky, .x = {out, self}, .i = {upper});
}
EXPORT aclnnStatus aclnnSlogdetGetWorkspaceSize(const aclTensor *self, aclTensor *signOut, aclTensor *logOut, WS) {
    PREP(Slogdet, .x = {signOut, self, logOut});
}
EXPORT aclnnStatus aclnnLinalgQrGetWorkspaceSize(const aclTensor *self, int64_t mode, aclTensor *Q, aclTensor *R, WS) {
    PREP(LinalgQr, .x = {Q, self, R}, .i = {mode});
}
EXPORT aclnnStatus aclnnTriangularSolveGetWorkspaceSize(const aclTensor *self, const aclTensor *A, bool upper, bool transpose,
                                                        bool unitriangular, aclTensor *xOut, aclTensor *mOut, WS) {
    PREP(TriangularSolve, .x = {xOut, self, A, mOut}, .i = {upper, transpose, unitriangular});
}
LAUNCH(LinalgCholesky) LAUNCH(Slogdet) LAUNCH(LinalgQr) LAUNCH(TriangularSolve)

/* ops-math math/svd/op_host/op_api/aclnn_svd.h */
EXPORT aclnnStatus aclnnSvdGetWorkspaceSize(const aclTensor *input, const bool fullMatrices, const bool computeUV,
                                            aclTensor *sigma, aclTensor *u, aclTensor *v, WS) {
    PREP(Svd, .x = {sigma, input, u, v}, .i = {fullMatrices, computeUV});
}
LAUNCH(Svd)
