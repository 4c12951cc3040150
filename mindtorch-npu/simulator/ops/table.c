/* libopapi, the operator table: one row per ACLNN operator (signature, in-place, alpha, element function, flags);
 * what each chip's product lacks and each parameter's dtypes and formats come from the operator docs
 * (optable_gen.h). */
#include "ops_internal.h"

#include <pthread.h>

/* a row: name, signature, in-place, alpha, element function, flags; OPX adds the arity and the op's own
 * check */
#define OP(name, sig, inplace, alpha, fn, flags) {name, sig, inplace, alpha, fn, flags, 0, NULL}
#define OPX(name, sig, inplace, alpha, fn, flags, arity, check) {name, sig, inplace, alpha, fn, flags, arity, check}
const op_def OPS[] = {
    OP("Add", SIG_BINARY, 0, 1, e_add, 0),
    OP("Adds", SIG_BINARY_SCALAR, 0, 1, e_add, 0),
    OP("InplaceAdd", SIG_BINARY, 1, 1, e_add, 0),
    OP("InplaceAdds", SIG_BINARY_SCALAR, 1, 1, e_add, 0),
    OP("Mul", SIG_BINARY, 0, 0, e_mul, 0),
    OP("Muls", SIG_BINARY_SCALAR, 0, 0, e_mul, 0),
    OP("InplaceMul", SIG_BINARY, 1, 0, e_mul, 0),
    OP("InplaceMuls", SIG_BINARY_SCALAR, 1, 0, e_mul, 0),
    OP("Cast", SIG_CAST, 0, 0, e_id, 0),
    OP("InplaceCopy", SIG_COPY, 1, 0, e_id, 0),
    OP("InplaceFillScalar", SIG_FILL, 1, 0, e_id, 0),
    OP("InplaceZero", SIG_ZERO, 1, 0, e_id, 0),
    OP("Matmul", SIG_MATMUL, 0, 0, NULL, 0),
    /* the rank rules of each (KIND): Matmul any, Mm 2-D, BatchMatMul 3-D with equal batch, Mv 2-D x 1-D, Dot 1-D */
    OP("Mm", SIG_MATMUL, 0, 0, NULL, KIND(MM_2D)),
    OP("BatchMatMul", SIG_MATMUL, 0, 0, NULL, KIND(MM_BATCH)),
    OP("Mv", SIG_MATMUL, 0, 0, NULL, KIND(MM_MV)), OP("Dot", SIG_MATMUL, 0, 0, NULL, KIND(MM_DOT)),
    /* unary: OP(name, SIG_UNARY, inplace, 0, fn, flags); F_FLOAT ops take integers as FLOAT */
#define UN(N, FN, FL) OP(N, SIG_UNARY, 0, 0, FN, FL), OP("Inplace" N, SIG_UNARY, 1, 0, FN, FL)
    UN("Exp", e_exp, F_FLOAT), UN("Exp2", e_exp2, F_FLOAT),
    UN("Expm1", e_expm1, F_FLOAT),
    UN("Log", e_log, F_FLOAT), UN("Log2", e_log2, F_FLOAT), UN("Log10", e_log10, F_FLOAT),
    UN("Log1p", e_log1p, F_FLOAT), UN("Sqrt", e_sqrt, F_FLOAT), UN("Rsqrt", e_rsqrt, F_FLOAT),
    UN("Sin", e_sin, F_FLOAT), UN("Cos", e_cos, F_FLOAT), UN("Tan", e_tan, F_FLOAT),
    UN("Asin", e_asin, F_FLOAT), UN("Acos", e_acos, F_FLOAT),
    UN("Atan", e_atan, F_FLOAT), UN("Sinh", e_sinh, F_FLOAT),
    UN("Cosh", e_cosh, F_FLOAT),
    UN("Tanh", e_tanh, F_FLOAT),
    UN("Erf", e_erf, F_FLOAT),
    UN("Sigmoid", e_sigmoid, F_FLOAT), UN("Reciprocal", e_reciprocal, F_FLOAT),
    OP("Gelu", SIG_UNARY, 0, 0, e_gelu, 0), OP("Silu", SIG_UNARY, 0, 0, e_silu, 0),
    UN("Neg", e_neg, 0),
    UN("Relu", e_relu, 0),
    OP("Abs", SIG_UNARY, 0, 0, e_abs, 0),
    OP("Sign", SIG_UNARY, 0, 0, e_sign, 0),
    UN("Floor", e_floor, 0), UN("Ceil", e_ceil, 0),
    UN("Round", e_round, 0), UN("Trunc", e_trunc, 0),
    UN("Frac", e_frac, 0), UN("LogicalNot", e_lnot, F_BOOL),
    UN("Acosh", e_acosh, F_FLOAT), UN("Asinh", e_asinh, F_FLOAT), UN("Atanh", e_atanh, F_FLOAT),
    UN("Erfc", e_erfc, F_FLOAT), UN("Mish", e_mish, 0),
    OP("Signbit", SIG_UNARY, 0, 0, e_signbit, F_BOOL),
    OP("IsFinite", SIG_UNARY, 0, 0, e_isfinite, F_BOOL), OP("IsPosInf", SIG_UNARY, 0, 0, e_isposinf, F_BOOL),
    OP("IsNegInf", SIG_UNARY, 0, 0, e_isneginf, F_BOOL), OP("Square", SIG_UNARY, 0, 0, e_square, 0),
    OP("BitwiseNot", SIG_UNARY, 0, 0, e_bnot, 0),
#undef UN
    /* binary: tensor and scalar forms (and their in-place forms where the header has them) */
    OP("Sub", SIG_BINARY, 0, 1, e_sub, 0), OP("Subs", SIG_BINARY_SCALAR, 0, 1, e_sub, 0),
    OP("InplaceSub", SIG_BINARY, 1, 1, e_sub, 0),
    OP("InplaceSubs", SIG_BINARY_SCALAR, 1, 1, e_sub, 0),
    OP("Div", SIG_BINARY, 0, 0, e_div, F_FLOAT), OP("Divs", SIG_BINARY_SCALAR, 0, 0, e_div, F_FLOAT),
    OP("InplaceDiv", SIG_BINARY, 1, 0, e_div, F_FLOAT), OP("InplaceDivs", SIG_BINARY_SCALAR, 1, 0, e_div, F_FLOAT),
    OP("PowTensorTensor", SIG_BINARY, 0, 0, e_pow, 0),
    OP("InplacePowTensorTensor", SIG_BINARY, 1, 0, e_pow, 0),
    OP("PowTensorScalar", SIG_BINARY_SCALAR, 0, 0, e_pow, 0),
    OP("InplacePowTensorScalar", SIG_BINARY_SCALAR, 1, 0, e_pow, 0),
    OP("Atan2", SIG_BINARY, 0, 0, e_atan2, F_FLOAT), OP("InplaceAtan2", SIG_BINARY, 1, 0, e_atan2, F_FLOAT),
    OP("Maximum", SIG_BINARY, 0, 0, e_max, 0), OP("Minimum", SIG_BINARY, 0, 0, e_min, 0),
#define CMP(N, FN) OP(N "Tensor", SIG_BINARY, 0, 0, FN, F_BOOL), OP(N "Scalar", SIG_BINARY_SCALAR, 0, 0, FN, F_BOOL), \
                   OP("Inplace" N "Tensor", SIG_BINARY, 1, 0, FN, F_BOOL),                                       \
                   OP("Inplace" N "Scalar", SIG_BINARY_SCALAR, 1, 0, FN, F_BOOL)
    CMP("Eq", e_eq), CMP("Ne", e_ne), CMP("Lt", e_lt), CMP("Le", e_le), CMP("Gt", e_gt), CMP("Ge", e_ge),
#undef CMP
    OP("LogicalAnd", SIG_BINARY, 0, 0, e_land, F_BOOL), OP("InplaceLogicalAnd", SIG_BINARY, 1, 0, e_land, F_BOOL),
    OP("LogicalOr", SIG_BINARY, 0, 0, e_lor, F_BOOL), OP("InplaceLogicalOr", SIG_BINARY, 1, 0, e_lor, F_BOOL),
    OP("LogicalXor", SIG_BINARY, 0, 0, e_lxor, F_BOOL),
    OP("SWhere", SIG_WHERE, 0, 0, e_where, 0),
#define BIT(N, FN) OP(N "Tensor", SIG_BINARY, 0, 0, FN, 0), OP("Inplace" N "Tensor", SIG_BINARY, 1, 0, FN, 0)
    BIT("BitwiseAnd", e_band), BIT("BitwiseOr", e_bor), BIT("BitwiseXor", e_bxor),
#undef BIT
    /* clamp: scalar bounds (either may be NULL, not both), tensor bounds */
    OP("Clamp", SIG_CLAMP, 0, 0, e_clamp, 3), OP("ClampMin", SIG_CLAMP, 0, 0, e_clamp, 1),
    OP("ClampMax", SIG_CLAMP, 0, 0, e_clamp, 2), OP("InplaceClampMax", SIG_CLAMP, 1, 0, e_clamp, 2),
    OP("ClampTensor", SIG_TERNARY, 0, 0, e_clamp_t, 0),
    OP("ClampMinTensor", SIG_BINARY, 0, 0, e_clamp_min_t, 0),
    OP("InplaceClampMinTensor", SIG_BINARY, 1, 0, e_clamp_min_t, 0),
    OP("ClampMaxTensor", SIG_BINARY, 0, 0, e_clamp_max_t, 0),
    OP("InplaceClampMaxTensor", SIG_BINARY, 1, 0, e_clamp_max_t, 0),
    /* Sort(self, stable, dim, descending, values, indices), Topk(self, k, dim, largest, sorted, values, indices):
     * stable by value, NaN above every number (as PyTorch); F_MODE marks Topk */
    OP("Sort", SIG_SORT, 0, 0, NULL, 0), OP("Topk", SIG_SORT, 0, 0, NULL, F_MODE),
    /* Gather(self, dim, index, out); Scatter / ScatterValue (reduce 0 replace, 1 add, 2 multiply), in-place forms,
     * ScatterAdd: out is self with src (or value) written at index along dim. F_MODE: a scatter; F_FLOAT: value */
    OP("Gather", SIG_ELEMENTS, 0, 0, NULL, 0),
    OP("Scatter", SIG_ELEMENTS, 0, 0, NULL, F_MODE), OP("InplaceScatter", SIG_ELEMENTS, 1, 0, NULL, F_MODE),
    OP("ScatterValue", SIG_ELEMENTS, 0, 0, NULL, F_MODE | F_FLOAT),
    OP("InplaceScatterValue", SIG_ELEMENTS, 1, 0, NULL, F_MODE | F_FLOAT),
    OP("ScatterAdd", SIG_ELEMENTS, 0, 0, NULL, F_MODE),
    /* Tril / Triu over the last two dims (flags 1: Triu) */
    OP("Tril", SIG_TRI, 0, 0, NULL, 0), OP("InplaceTril", SIG_TRI, 1, 0, NULL, 0),
    OP("Triu", SIG_TRI, 0, 0, NULL, 1), OP("InplaceTriu", SIG_TRI, 1, 0, NULL, 1),
    OP("DivMod", SIG_BINARY, 0, 0, e_divmod, F_MODE), OP("DivMods", SIG_BINARY_SCALAR, 0, 0, e_divmod, F_MODE),
    OP("InplaceDivMod", SIG_BINARY, 1, 0, e_divmod, F_MODE),
    OP("InplaceDivMods", SIG_BINARY_SCALAR, 1, 0, e_divmod, F_MODE),
    OP("PowScalarTensor", SIG_SCALAR_TENSOR, 0, 0, e_pow, 0),
    OPX("GeluV2", SIG_UNARY, 0, 0, e_gelu2, F_MODE, 0, check_approximate),
    OP("RoundDecimals", SIG_UNARY, 0, 0, e_roundd, F_MODE),
    OP("InplaceRoundDecimals", SIG_UNARY, 1, 0, e_roundd, F_MODE),
    /* reductions over an aclIntArray of dims (empty: all dims) */
    OP("ReduceSum", SIG_REDUCE, 0, 0, NULL, R_SUM), OP("Mean", SIG_REDUCE, 0, 0, NULL, R_MEAN),
    OP("Amax", SIG_REDUCE, 0, 0, NULL, R_MAX), OP("Amin", SIG_REDUCE, 0, 0, NULL, R_MIN),
    OP("All", SIG_REDUCE, 0, 0, NULL, R_ALL), OP("Any", SIG_REDUCE, 0, 0, NULL, R_ANY),
    OP("RemainderTensorTensor", SIG_BINARY, 0, 0, e_rem, 0),
    OP("InplaceRemainderTensorTensor", SIG_BINARY, 1, 0, e_rem, 0),
    OP("RemainderTensorScalar", SIG_BINARY_SCALAR, 0, 0, e_rem, 0),
    OP("InplaceRemainderTensorScalar", SIG_BINARY_SCALAR, 1, 0, e_rem, 0),
    OP("FmodTensor", SIG_BINARY, 0, 0, e_fmodf, 0),
    OP("InplaceFmodTensor", SIG_BINARY, 1, 0, e_fmodf, 0),
    OP("FmodScalar", SIG_BINARY_SCALAR, 0, 0, e_fmodf, 0),
    OP("InplaceFmodScalar", SIG_BINARY_SCALAR, 1, 0, e_fmodf, 0),
    OP("Softmax", SIG_SOFTMAX, 0, 0, NULL, 0), OP("LogSoftmax", SIG_SOFTMAX, 0, 0, NULL, F_LOG),
    /* their derivatives (ops-nn activation/softmax_grad, log_softmax_grad) and gelu's (activation/gelu_grad_v2) */
    OP("SoftmaxBackward", SIG_SOFTMAX_BWD, 0, 0, NULL, 0), OP("LogSoftmaxBackward", SIG_SOFTMAX_BWD, 0, 0, NULL, F_LOG),
    OP("GeluBackwardV2", SIG_GELU_BWD, 0, 0, e_gelu_bwd, 0),
    OP("SiluBackward", SIG_SILU_BWD, 0, 0, e_silu_bwd, 0), /* activation/silu_grad */
    OP("Cumsum", SIG_SOFTMAX, 0, 0, NULL, L_CUMSUM),
    OP("ArgMax", SIG_SOFTMAX, 0, 0, NULL, L_ARG | R_MAX),
    OP("ArgMin", SIG_SOFTMAX, 0, 0, NULL, L_ARG | R_MIN),
    /* MaxDim / MinDim: ArgMax / ArgMin that also write the extreme values (out, indices) */
    OP("MaxDim", SIG_SOFTMAX, 0, 0, NULL, L_ARG | R_MAX | L_VALUES),
    OP("MinDim", SIG_SOFTMAX, 0, 0, NULL, L_ARG | R_MIN | L_VALUES),
    /* index ops: out = self.shape[:dim] + index.shape + self.shape[dim+1:] (Embedding: dim 0) */
    OP("IndexSelect", SIG_INDEX, 0, 0, NULL, 0), OP("Embedding", SIG_INDEX, 0, 0, NULL, F_EMBED),
    OP("InplaceMaskedFillScalar", SIG_MASKED_FILL, 1, 0, e_where, 0),
    /* random: counter-based, element i of the view in row-major order draws from (seed, offset + i) */
    OP("InplaceUniform", SIG_RANDOM, 1, 0, NULL, RND_UNIFORM),
    /* NLLLoss(self [N, C] or [C], target, weight [C], reduction, ignoreIndex, out, totalWeightOut) and its backward
     * (F_LOG marks the backward: gradOutput, self, target, weight, reduction, ignoreIndex, totalWeight, out) */
    /* ternary elementwise: (self, tensor1, tensor2-or-weight[, value]); Lerps' weight is a scalar (F_MODE) */
    OP("Lerp", SIG_TERNARY, 0, 0, e_lerp, 0), OP("InplaceLerp", SIG_TERNARY, 1, 0, e_lerp, 0),
    OP("Lerps", SIG_TERNARY, 0, 0, e_lerp, F_MODE), OP("InplaceLerps", SIG_TERNARY, 1, 0, e_lerp, F_MODE),
    OP("Addcmul", SIG_TERNARY, 0, 1, e_addcmul, 0),
    OP("InplaceAddcmul", SIG_TERNARY, 1, 1, e_addcmul, 0),
    OP("Addcdiv", SIG_TERNARY, 0, 1, e_addcdiv, 0), OP("InplaceAddcdiv", SIG_TERNARY, 1, 1, e_addcdiv, 0),
    OP("Arange", SIG_ARANGE, 0, 0, NULL, 0),
    /* factories over out: Eye(n, m, out) (flags 0), Linspace(start, end, steps, out) (flags 1) */
    OP("Eye", SIG_FILLS, 0, 0, NULL, 0), OP("Linspace", SIG_FILLS, 0, 0, NULL, 1),
    OP("Flip", SIG_FLIP, 0, 0, NULL, 0),
    /* unary with scalar / float parameters */
    OPX("LeakyRelu", SIG_UNARY_P, 0, 0, e_leaky, 0, 1, NULL), OPX("InplaceLeakyRelu", SIG_UNARY_P, 1, 0, e_leaky, 0, 1, NULL),
    OPX("Softplus", SIG_UNARY_P, 0, 0, e_softplus, 0, 2, NULL),
    OPX("Elu", SIG_UNARY_P, 0, 0, e_elu, 0, 3, NULL), OPX("InplaceElu", SIG_UNARY_P, 1, 0, e_elu, 0, 3, NULL),
    OP("NanToNum", SIG_UNARY_P, 0, 0, e_nan2num, F_MODE), OP("InplaceNanToNum", SIG_UNARY_P, 1, 0, e_nan2num, F_MODE),
    OP("Hardtanh", SIG_CLAMP, 0, 0, e_clamp, 3),
    OP("InplaceHardtanh", SIG_CLAMP, 1, 0, e_clamp, 3),
    /* LayerNorm(input, normalizedShape, weight?, bias?, eps, out, meanOut?, rstdOut?); F_LOG marks the backward */
    OP("LayerNorm", SIG_LAYER_NORM, 0, 0, NULL, 0), OP("LayerNormBackward", SIG_LAYER_NORM, 0, 0, NULL, F_LOG),
    OP("EmbeddingDenseBackward", SIG_EMBED_BWD, 0, 0, NULL, 0),
    OP("NLLLoss", SIG_NLL, 0, 0, NULL, 0), OP("NLLLossBackward", SIG_NLL, 0, 0, NULL, F_LOG),
    OP("InplaceNormal", SIG_RANDOM, 1, 0, NULL, RND_NORMAL),
    OP("InplaceRandom", SIG_RANDOM, 1, 0, NULL, RND_INT),
    OP("InplaceBernoulli", SIG_RANDOM, 1, 0, NULL, RND_BERNOULLI),
    OP("InplaceBernoulliTensor", SIG_RANDOM, 1, 0, NULL, RND_BERNOULLI | F_MODE),
    /* Randperm(n, seed, offset, out): Fisher-Yates, swap i draws from (seed, offset + i) */
    OP("Randperm", SIG_RANDOM, 0, 0, NULL, RND_PERM),
    /* Multinomial(self [C] or [N, C] weights, numsamples, replacement, seed, offset, out INT64): row r, draw s uses
     * counter offset + r * numsamples + s (with replacement) or offset + r * C + j (exponential race, without) */
    OP("Multinomial", SIG_MULTINOMIAL, 0, 0, NULL, 0),
    /* NCHW operators (ops-nn conv/, pooling/, norm/): F_LOG marks a backward, F_MODE average pooling */
    OP("Convolution", SIG_CONV, 0, 0, NULL, 0),
    OP("ConvolutionBackward", SIG_CONV, 0, 0, NULL, F_LOG),
    OP("MaxPool2dWithIndices", SIG_POOL, 0, 0, NULL, 0),
    OP("MaxPool2dWithIndicesBackward", SIG_POOL, 0, 0, NULL, F_LOG),
    OP("AvgPool2d", SIG_POOL, 0, 0, NULL, F_MODE),
    OP("AvgPool2dBackward", SIG_POOL, 0, 0, NULL, F_MODE | F_LOG),
    OP("AdaptiveAvgPool2d", SIG_ADAPTIVE, 0, 0, NULL, 0),
    OP("AdaptiveAvgPool2dBackward", SIG_ADAPTIVE, 0, 0, NULL, F_LOG),
    OP("BatchNorm", SIG_BATCH_NORM, 0, 0, NULL, 0),
    OP("BatchNormBackward", SIG_BATCH_NORM, 0, 0, NULL, F_LOG),
    OP("GroupNorm", SIG_GROUP_NORM, 0, 0, NULL, 0),
    OP("GroupNormBackward", SIG_GROUP_NORM, 0, 0, NULL, F_LOG),
    /* statistics over an aclIntArray of dims (Prod: all dims; ProdDim: one) and scans along one dim */
    OP("Prod", SIG_STATS, 0, 0, NULL, KIND(S_PROD)), OP("ProdDim", SIG_STATS, 0, 0, NULL, KIND(S_PROD)),
    OP("LogSumExp", SIG_STATS, 0, 0, NULL, KIND(S_LSE)),
    OP("VarCorrection", SIG_STATS, 0, 0, NULL, KIND(S_VAR)), OP("Std", SIG_STATS, 0, 0, NULL, KIND(S_STD)),
    OP("LinalgVectorNorm", SIG_STATS, 0, 0, NULL, KIND(S_NORM)),
    OP("Cumprod", SIG_SCAN, 0, 0, NULL, F_MODE), OP("Cummax", SIG_SCAN, 0, 0, NULL, R_MAX),
    OP("Cummin", SIG_SCAN, 0, 0, NULL, R_MIN),
    /* element moves (ops-nn index/, ops-math conversion/roll, math/tile): F_MODE marks IndexPutImpl, IndexAdd, Roll;
     * advanced indexing takes INT32 / INT64 index tensors here (the doc also lists BOOL masks) */
    OP("Index", SIG_INDEX_LIST, 0, 0, NULL, 0), OP("IndexPutImpl", SIG_INDEX_LIST, 1, 0, NULL, F_MODE),
    OP("IndexAdd", SIG_INDEX_DIM, 0, 0, NULL, F_MODE), OP("InplaceIndexCopy", SIG_INDEX_DIM, 1, 0, NULL, 0),
    OP("Nonzero", SIG_NONZERO, 0, 0, NULL, 0),
    OP("Repeat", SIG_REPEAT, 0, 0, NULL, 0), OP("Roll", SIG_REPEAT, 0, 0, NULL, F_MODE),
    /* foreach (ops-nn foreach/): one elementwise function over every tensor of the lists; F_MODE: the scalar is
     * the function's last operand (Mul, Div, Add, Lerp), otherwise its parameter p[0] (Addcmul, Addcdiv) */
    OPX("ForeachMulScalarV2", SIG_FOREACH, 0, 0, e_mul, F_MODE, 1, NULL),
    OPX("ForeachDivScalarV2", SIG_FOREACH, 0, 0, e_div, F_MODE, 1, NULL),
    OPX("ForeachAddScalarV2", SIG_FOREACH, 0, 0, e_add, F_MODE, 1, set_unit_alpha),
    OPX("ForeachSqrt", SIG_FOREACH, 0, 0, e_sqrt, 0, 1, NULL),
    OPX("ForeachLerpScalar", SIG_FOREACH, 0, 0, e_lerp, F_MODE, 2, NULL),
    OPX("ForeachAddcmulScalarV2", SIG_FOREACH, 0, 0, e_addcmul, 0, 3, NULL),
    OPX("ForeachAddcdivScalarV2", SIG_FOREACH, 0, 0, e_addcdiv, 0, 3, NULL),
    /* loss scaling: ops-nn foreach/foreach_non_finite_check_and_unscale, ops-math math/amp_update_scale */
    OP("ForeachNonFiniteCheckAndUnscale", SIG_AMP_UNSCALE, 0, 0, NULL, 0),
    OP("AmpUpdateScale", SIG_AMP_UPDATE, 0, 0, NULL, 0),
    /* elementwise: ops-nn activation/erfinv, ops-math math/OP(lgamma,digamma,log_add_exp,gcd) */
    /* Erfinv: integers and bool compute as FLOAT */
    OP("Erfinv", SIG_UNARY, 0, 0, e_erfinv, F_FLOAT),
    OP("InplaceErfinv", SIG_UNARY, 1, 0, e_erfinv, F_FLOAT),
    OP("Lgamma", SIG_UNARY, 0, 0, e_lgamma, F_FLOAT),
    OP("Digamma", SIG_UNARY, 0, 0, e_digamma, F_FLOAT),
    OP("LogAddExp", SIG_BINARY, 0, 0, e_logaddexp, F_FLOAT), OP("LogAddExp2", SIG_BINARY, 0, 0, e_logaddexp2, F_FLOAT),
    OP("Gcd", SIG_BINARY, 0, 0, e_gcd, 0),
    OPX("LeftShift", SIG_BINARY, 0, 0, e_lshift, 0, 0, set_shift_width),
    OPX("LeftShifts", SIG_BINARY_SCALAR, 0, 0, e_lshift, 0, 0, set_shift_width),
    OPX("RightShift", SIG_BINARY, 0, 0, e_rshift, 0, 0, set_shift_width),
    /* SearchSorted(sortedSequence, self, outInt32, right, sorter?, out); Bincount(self, weights?, minlength, out) */
    OP("SearchSorted", SIG_SEARCH, 0, 0, NULL, 0),
    OP("Bincount", SIG_BINCOUNT, 0, 0, NULL, 0),
    /* ScatterReduce(self, dim, index, src, reduce, includeSelf, out): reduce 0 none, 1 add, 2 mul, 3 max, 4 min,
     * 5 mean (the header's values) */
    OP("ScatterReduce", SIG_SCATTER_REDUCE, 0, 0, NULL, 0),
    OP("InplaceScatterReduce", SIG_SCATTER_REDUCE, 1, 0, NULL, 0),
    /* linear algebra (ops-math math/cholesky, slogdet, qr, triangular_solve) */
    OP("LinalgCholesky", SIG_LINALG, 0, 0, NULL, KIND(LA_CHOLESKY)),
    OP("Slogdet", SIG_LINALG, 0, 0, NULL, KIND(LA_SLOGDET)),
    OP("LinalgQr", SIG_LINALG, 0, 0, NULL, KIND(LA_QR)),
    OP("TriangularSolve", SIG_LINALG, 0, 0, NULL, KIND(LA_TRISOLVE)),
    OP("Svd", SIG_SVD, 0, 0, NULL, 0), /* math/svd: one-sided Jacobi here */
    /* ops-transformer attention/flash_attention_score(_grad): fused attention, online softmax over the keys;
     * F_LOG marks the backward */
    OP("FlashAttentionScore", SIG_FLASH, 0, 0, NULL, 0), OP("FlashAttentionScoreGrad", SIG_FLASH, 0, 0, NULL, F_LOG),
    OP("IsClose", SIG_BINARY, 0, 0, e_isclose, F_BOOL | F_FLOAT | F_CLOSE),
    /* fused transformer operators (fused.c); F_LOG marks a backward */
    OP("RmsNorm", SIG_RMS_NORM, 0, 0, NULL, 0), OP("RmsNormGrad", SIG_RMS_NORM, 0, 0, NULL, F_LOG),
    OP("SwiGlu", SIG_SWIGLU, 0, 0, NULL, 0), OP("SwiGluGrad", SIG_SWIGLU, 0, 0, NULL, F_LOG),
    OP("RotaryPositionEmbedding", SIG_ROPE, 0, 0, NULL, 0),
    OP("RotaryPositionEmbeddingGrad", SIG_ROPE, 0, 0, NULL, F_LOG),
    /* ops-nn rnn/dynamic_rnn, single_layer_lstm_grad, gru, gru_grad (rnn.c); F_LOG marks a backward, KIND(1) the GRU */
    OP("LSTM", SIG_LSTM, 0, 0, NULL, 0), OP("LstmBackward", SIG_LSTM, 0, 0, NULL, F_LOG),
    OP("GRU", SIG_LSTM, 0, 0, NULL, KIND(1)), OP("GRUBackward", SIG_LSTM, 0, 0, NULL, F_LOG | KIND(1)),
    /* ops-transformer gmm/grouped_matmul: grouped (MoE expert) matmul (gmm.c) */
    OP("GroupedMatmulV4", SIG_GMM, 0, 0, NULL, 0),
};

/* the chip family of ACLSIM_SOC_NAME, by torch_npu's SoC table (NpuVariables.h): the legacy "Ascend910B" belongs
 * with the 910A parts (no BFLOAT16, no float32 cube); "Ascend910B<n>" and "Ascend910_93xx" are 910B-class;
 * "Ascend950*" is its own family. Other names count as 910B-class. */
int chip_family(void) {
    const char *soc = aclrtGetSocName();
    if (!soc) return FAM_910B;
    if (!strncmp(soc, "Ascend950", 9)) return FAM_950;
    if (!strncmp(soc, "Ascend310P", 10)) return FAM_310P;
    if (!strcmp(soc, "Ascend910B")) return FAM_910A;
    if (!strncmp(soc, "Ascend910B", 10) || !strncmp(soc, "Ascend910_93", 12)) return FAM_910B;
    if (!strncmp(soc, "Ascend910", 9)) return FAM_910A;
    return FAM_910B;
}

/* operators a chip lacks: those whose doc's product list marks the chip's product unsupported (OPTABLE_ABSENT,
 * generated from optable.json). Phase 1 fails with ACLNN_ERR_RUNTIME_ERROR there, except aclnnSquare, whose op_api
 * answers ACLNN_ERR_PARAM_INVALID off Ascend950 (ops-math math/square/op_api/aclnn_square.cpp). */
#include "optable_gen.h"

/* the status phase 1 of `op` fails with on this chip, 0 when the chip has it */
aclnnStatus chip_lacks(const char *op) {
    const char *soc = aclrtGetSocName();
    unsigned bit = soc && !strncmp(soc, "Ascend910_93", 12) ? B(OPTABLE_A3) : B(chip_family());
    for (size_t i = 0; i < sizeof OPTABLE_ABSENT / sizeof OPTABLE_ABSENT[0]; i++)
        if (!strcmp(OPTABLE_ABSENT[i].op, op))
            return !(OPTABLE_ABSENT[i].absent & bit) ? 0
                   : !strcmp(op, "Square")          ? ACLNN_ERR_PARAM_INVALID
                                                     : ACLNN_ERR_RUNTIME_ERROR;
    return 0;
}

/* simulator-only: the status phase 1 of `op` fails with on this chip because the chip lacks it (0: it has it).
 * Tests compare it with the backend's chip table. */
EXPORT int32_t aclsimOpAbsent(const char *op) { return op ? (int32_t)chip_lacks(op) : -1; }
const size_t N_OPS = sizeof OPS / sizeof OPS[0];

/* per signature: the phase-1 validator, the kernel, and for the dense kernel the computation on the dense copies */
const sig_def SIGS[SIG_COUNT] = {
    [SIG_BINARY] = {v_binary, k_elementwise}, [SIG_BINARY_SCALAR] = {v_binary, k_elementwise},
    [SIG_CAST] = {v_cast, k_elementwise}, [SIG_COPY] = {v_copy, k_elementwise},
    [SIG_FILL] = {v_fill, k_elementwise}, [SIG_ZERO] = {v_zero, k_elementwise},
    [SIG_UNARY] = {v_unary_math, k_elementwise}, [SIG_UNARY_P] = {v_unary_p, k_elementwise},
    [SIG_SCALAR_TENSOR] = {v_scalar_tensor, k_elementwise}, [SIG_TERNARY] = {v_ternary, k_elementwise},
    [SIG_WHERE] = {v_where, k_elementwise}, [SIG_CLAMP] = {v_clamp, k_elementwise},
    [SIG_MASKED_FILL] = {v_masked_fill, k_elementwise},
    [SIG_MATMUL] = {v_matmul, k_matmul},
    [SIG_REDUCE] = {v_reduce, k_reduce}, [SIG_SOFTMAX] = {v_softmax, k_softmax},
    [SIG_SOFTMAX_BWD] = {v_softmax_bwd, k_softmax_bwd}, [SIG_GELU_BWD] = {v_gelu_backward, k_elementwise},
    [SIG_SILU_BWD] = {v_silu_backward, k_elementwise},
    [SIG_STATS] = {v_stats, k_dense, run_stats}, [SIG_SCAN] = {v_scan, k_dense, run_scan},
    [SIG_BINCOUNT] = {v_bincount, k_dense, run_bincount},
    [SIG_SORT] = {v_sort, k_sort}, [SIG_SEARCH] = {v_search, k_dense, run_search},
    [SIG_INDEX] = {v_index, k_index}, [SIG_ELEMENTS] = {v_elements, k_elements},
    [SIG_INDEX_LIST] = {v_index_list, k_move}, [SIG_INDEX_DIM] = {v_index_dim, k_move},
    [SIG_NONZERO] = {v_nonzero, k_move}, [SIG_REPEAT] = {v_repeat_roll, k_move},
    [SIG_SCATTER_REDUCE] = {v_scatter_reduce, k_dense, run_scatter_reduce},
    [SIG_TRI] = {v_tri, k_tri}, [SIG_FLIP] = {v_flip, k_flip},
    [SIG_RANDOM] = {v_random, k_random}, [SIG_MULTINOMIAL] = {v_multinomial, k_multinomial},
    [SIG_ARANGE] = {v_arange, k_arange}, [SIG_FILLS] = {v_fills, k_fills},
    [SIG_NLL] = {v_nll, k_nll}, [SIG_LAYER_NORM] = {v_layer_norm, k_layer_norm}, [SIG_EMBED_BWD] = {v_embed_bwd, k_embed_bwd},
    [SIG_CONV] = {v_conv, k_dense, run_conv}, [SIG_POOL] = {v_pool, k_dense, run_pool},
    [SIG_ADAPTIVE] = {v_adaptive, k_dense, run_adaptive}, [SIG_BATCH_NORM] = {v_batch_norm, k_dense, run_batch_norm},
    [SIG_GROUP_NORM] = {v_group_norm, k_dense, run_group_norm},
    [SIG_FOREACH] = {v_foreach, k_foreach},
    [SIG_AMP_UNSCALE] = {v_amp_unscale, k_amp_unscale}, [SIG_AMP_UPDATE] = {v_amp_update, k_dense, run_amp_update},
    [SIG_LINALG] = {v_linalg, k_dense, run_linalg}, [SIG_SVD] = {v_svd, k_dense, run_svd},
    [SIG_RMS_NORM] = {v_rms_norm, k_dense, run_rms_norm}, [SIG_SWIGLU] = {v_swiglu, k_dense, run_swiglu},
    [SIG_ROPE] = {v_rope, k_dense, run_rope},
    [SIG_FLASH] = {v_flash, k_flash},
    [SIG_LSTM] = {v_lstm, k_lstm},
    [SIG_GMM] = {v_gmm, k_dense, run_gmm},
};

/* ---------------------------------------------------------------- the docs' parameters (optable_gen.h) */
/* the product slot of this chip in OPTABLE_PARAMS: its family, or OPTABLE_A3 for the Ascend910_93 parts */
static int product_slot(void) {
    const char *soc = aclrtGetSocName();
    return soc && !strncmp(soc, "Ascend910_93", 12) ? OPTABLE_A3 : chip_family();
}

static const optable_param *find_param(const char *op, const char *param) {
    for (size_t i = 0; i < sizeof OPTABLE_PARAMS / sizeof OPTABLE_PARAMS[0]; i++)
        if (!strcmp(OPTABLE_PARAMS[i].op, op) && !strcmp(OPTABLE_PARAMS[i].param, param)) return &OPTABLE_PARAMS[i];
    return NULL;
}

/* the doc's parameter the simulator's name `what` stands for: the same name, else for the operator's input
 * (self, selfRef) its data parameter and for its result (out) the doc's y or result; NULL when none */
static const optable_param *doc_param(const char *op, const char *what) {
    const optable_param *p = find_param(op, what);
    if (p) return p;
    if (!strcmp(what, "self") || !strcmp(what, "selfRef")) {
        for (size_t i = 0; i < sizeof OPTABLE_DATA / sizeof OPTABLE_DATA[0]; i++)
            if (!strcmp(OPTABLE_DATA[i].op, op)) return find_param(op, OPTABLE_DATA[i].param);
    } else if (!strcmp(what, "out")) {
        return (p = find_param(op, "y")) ? p : find_param(op, "result");
    }
    return NULL;
}

/* one lookup per (operator, name) a validator asks about, kept for the life of the library */
#define DOC_CACHE 1024
static struct { const char *op, *what; const optable_param *p; } doc_cache[DOC_CACHE];
static pthread_mutex_t doc_lock = PTHREAD_MUTEX_INITIALIZER;

static const optable_param *doc_param_cached(const char *op, const char *what) {
    unsigned h = 5381;
    for (const char *c = op; *c; c++) h = h * 33 + (unsigned char)*c;
    for (const char *c = what; *c; c++) h = h * 33 + (unsigned char)*c;
    const optable_param *p = NULL;
    int hit = 0;
    pthread_mutex_lock(&doc_lock);
    for (unsigned k = 0; k < DOC_CACHE; k++) {
        unsigned i = (h + k) % DOC_CACHE;
        if (!doc_cache[i].op) {
            doc_cache[i].op = op, doc_cache[i].what = what, doc_cache[i].p = p = doc_param(op, what);
            hit = 1;
            break;
        }
        if (!strcmp(doc_cache[i].op, op) && !strcmp(doc_cache[i].what, what)) {
            p = doc_cache[i].p, hit = 1;
            break;
        }
    }
    pthread_mutex_unlock(&doc_lock);
    return hit ? p : doc_param(op, what);
}

uint32_t doc_dtypes(const op_def *d, const char *what) {
    const optable_param *p = doc_param_cached(d->name, what);
    return p ? p->dtypes[product_slot()] : OPT_UNSTATED;
}

uint64_t doc_formats(const op_def *d, const char *what) {
    const optable_param *p = doc_param_cached(d->name, what);
    return p ? p->formats : 0;
}

/* simulator-only: the dtypes (bit d: aclDataType d) phase 1 lets the tensor the simulator names `param` of `op`
 * have on `product` (the docs' key: "910b", "A3", "910", "310p", "950"; NULL: this chip's), OPT_UNSTATED (as
 * uint32) where the doc states none; -1 for an unknown product. Tests compare it with the operator table. */
EXPORT int64_t aclsimOpDtypes(const char *op, const char *param, const char *product) {
    static const char *const keys[] = {"910b", "910", "310p", "950", "A3"};
    int slot = product ? -1 : product_slot();
    for (int k = 0; product && k < 5; k++)
        if (!strcmp(product, keys[k])) slot = k;
    if (!op || !param || slot < 0) return -1;
    const optable_param *p = doc_param(op, param);
    return p ? (int64_t)p->dtypes[slot] : (int64_t)OPT_UNSTATED;
}
