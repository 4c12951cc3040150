/* libopapi's private header: what the files of ops/ share (the op table's types, the dtype conversions,
 * the phase-1 argument block, the executor core's helpers and each family's entry points for the table). */
#ifndef ACLSIM_OPS_INTERNAL_H
#define ACLSIM_OPS_INTERNAL_H
#include "../aclsim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- dtype conversion */
#include "../half.h"
#define LD(T) ({ T v_; memcpy(&v_, p, sizeof v_); v_; })
static inline double ldf(int dt, const char *p) {
    switch (dt) {
    case ACL_FLOAT: return LD(float);
    case ACL_FLOAT16: return h2f(LD(uint16_t));
    case ACL_BF16: return b2f(LD(uint16_t));
    case ACL_DOUBLE: return LD(double);
    case ACL_INT8: return LD(int8_t);
    case ACL_UINT8: return LD(uint8_t);
    case ACL_INT16: return LD(int16_t);
    case ACL_INT32: return LD(int32_t);
    case ACL_INT64: return (double)LD(int64_t);
    case ACL_BOOL: return LD(uint8_t) != 0;
    }
    return 0;
}

static inline int64_t f2i(double v) { /* truncation toward zero; NaN -> 0, saturating at the int64 range */
    if (v != v) return 0;
    if (v >= 9.2233720368547758e18) return INT64_MAX;
    if (v <= -9.2233720368547758e18) return INT64_MIN;
    return (int64_t)v;
}

static inline int64_t ldi(int dt, const char *p) {
    switch (dt) {
    case ACL_INT8: return LD(int8_t);
    case ACL_UINT8: return LD(uint8_t);
    case ACL_INT16: return LD(int16_t);
    case ACL_INT32: return LD(int32_t);
    case ACL_INT64: return LD(int64_t);
    case ACL_BOOL: return LD(uint8_t) != 0;
    default: return f2i(ldf(dt, p));
    }
}

#define ST(T, x) do { T v_ = (T)(x); memcpy(p, &v_, sizeof v_); } while (0)
static inline void sti(int dt, char *p, int64_t v) {
    switch (dt) {
    case ACL_INT8: ST(int8_t, v); break;
    case ACL_UINT8: ST(uint8_t, (uint64_t)v); break;
    case ACL_INT16: ST(int16_t, v); break;
    case ACL_INT32: ST(int32_t, v); break;
    case ACL_INT64: ST(int64_t, v); break;
    case ACL_BOOL: ST(uint8_t, v != 0); break;
    case ACL_FLOAT: ST(float, (float)v); break;
    case ACL_DOUBLE: ST(double, (double)v); break;
    case ACL_FLOAT16: ST(uint16_t, f2h((float)v)); break;
    case ACL_BF16: ST(uint16_t, f2b((float)v)); break;
    }
}

static inline void stf(int dt, char *p, double v) {
    switch (dt) {
    case ACL_FLOAT: ST(float, v); break;
    case ACL_DOUBLE: ST(double, v); break;
    case ACL_FLOAT16: ST(uint16_t, f2h((float)v)); break; /* through float, as PyTorch's float opmath does */
    case ACL_BF16: ST(uint16_t, f2b((float)v)); break;
    case ACL_BOOL: ST(uint8_t, v != 0); break;
    default: sti(dt, p, f2i(v)); break;
    }
}

/* ---------------------------------------------------------------- the op table */
enum { SIG_BINARY, SIG_BINARY_SCALAR, SIG_CAST, SIG_COPY, SIG_FILL, SIG_ZERO, SIG_MATMUL, SIG_UNARY,
       SIG_WHERE, SIG_REDUCE, SIG_SOFTMAX, SIG_SCALAR_TENSOR,
       SIG_INDEX, SIG_MASKED_FILL, SIG_RANDOM, SIG_NLL, SIG_TERNARY, SIG_ARANGE, SIG_LAYER_NORM, SIG_EMBED_BWD,
       SIG_CLAMP, SIG_TRI, SIG_SORT, SIG_ELEMENTS, SIG_MULTINOMIAL, SIG_UNARY_P,
       SIG_FILLS, SIG_FLIP, SIG_CONV, SIG_POOL, SIG_ADAPTIVE, SIG_BATCH_NORM, SIG_GROUP_NORM, SIG_STATS, SIG_SCAN, SIG_INDEX_LIST, SIG_INDEX_DIM, SIG_NONZERO, SIG_REPEAT, SIG_FOREACH, SIG_AMP_UNSCALE, SIG_AMP_UPDATE, SIG_SEARCH, SIG_BINCOUNT, SIG_SCATTER_REDUCE, SIG_LINALG, SIG_SVD,
       SIG_RMS_NORM, SIG_SWIGLU, SIG_ROPE, SIG_FLASH, SIG_LSTM, SIG_GMM, SIG_GELU_BWD, SIG_SOFTMAX_BWD, SIG_SILU_BWD,
       SIG_COUNT };
/* flags: F_FLOAT an integer/bool computation dtype becomes FLOAT (exp, div, ...); F_BOOL the result is a truth
 * value, stored into any out dtype (comparisons, logical ops); R_* the reduction an op performs */
enum { F_FLOAT = 1, F_BOOL = 2, R_SUM = 4, R_MEAN = 8, R_MAX = 16, R_MIN = 32, F_LOG = 64, F_MODE = 128, L_CUMSUM = 256,
       L_ARG = 512, F_EMBED = 1024, L_VALUES = 32768, R_ALL = 65536, R_ANY = 131072, RND_UNIFORM = 2048, RND_NORMAL = 4096, RND_INT = 8192, RND_BERNOULLI = 16384, F_CLOSE = 262144, RND_PERM = 524288 };
enum { S_PROD, S_LSE, S_VAR, S_STD, S_NORM }; /* SIG_STATS: which statistic, in flags bits 20-22 */
enum { LA_CHOLESKY, LA_SLOGDET, LA_QR, LA_TRISOLVE }; /* SIG_LINALG: which operator, likewise */
enum { MM_ANY, MM_2D, MM_BATCH, MM_MV, MM_DOT }; /* SIG_MATMUL: the operand ranks, likewise */
#define KIND(k) ((k) << 20)
#define KIND_OF(flags) ((flags) >> 20 & 7)
/* SIG_SOFTMAX covers every op along one dim's lines: softmax (F_LOG: log-softmax), L_CUMSUM, L_ARG|R_MAX/R_MIN */
/* F_MODE: an int attribute (DivMod's rounding mode 0..2; GeluV2's approximate 0..1; RoundDecimals' decimals)
 * reaches the element function as p[0].i */
typedef val elem_f(const val *x, const val *p, int isf);
typedef elem_f *elem_fn;
typedef struct op_def op_def;
typedef struct args args;
/* phase 1: validate the arguments and fill in the executor (its views, computation dtype, parameters) */
typedef aclnnStatus validate_fn(const op_def *d, args *a, aclOpExecutor *e);
/* phase 2 on the worker */
typedef int kernel_f(aclOpExecutor *e, int dev, char *ws, char *msg, size_t len);
/* the dense kernel's computation: x[j] holds t[j] as a dense row-major double array */
typedef int dense_fn(aclOpExecutor *e, double **x, char *msg, size_t len);
struct op_def {
    const char *name;
    int sig;
    int inplace;      /* the output is selfRef */
    int has_alpha;
    elem_fn fn;       /* element function, for elementwise signatures */
    int flags;
    int arity;        /* how many scalar parameters (unary with parameters) or input lists (foreach) it takes */
    validate_fn *check; /* the op's own rule, after its signature's validator (NULL: none) */
};
typedef struct { validate_fn *validate; kernel_f *kernel; dense_fn *dense; } sig_def;

#define B(d) (1u << (d))
#define ALL10 (B(ACL_FLOAT) | B(ACL_FLOAT16) | B(ACL_BF16) | B(ACL_DOUBLE) | B(ACL_INT8) | B(ACL_UINT8) | \
               B(ACL_INT16) | B(ACL_INT32) | B(ACL_INT64) | B(ACL_BOOL))
#define MMTYPES (B(ACL_FLOAT) | B(ACL_FLOAT16) | B(ACL_BF16))
#define FLOATS (MMTYPES | B(ACL_DOUBLE))
#define SIGNED (FLOATS | B(ACL_INT8) | B(ACL_INT16) | B(ACL_INT32) | B(ACL_INT64))

/* ---------------------------------------------------------------- validation helpers */
struct args {
    const aclTensor *t[4]; /* t[0] output (selfRef for in-place ops), t[1] self, t[2] other, t[3] condition */
    const aclScalar *s[3]; /* s[0] other/value, s[1] alpha (Elu: alpha, scale, inputScale) */
    int64_t i[6];          /* integer attributes (flash attention: preTokens, nextTokens, headNum, innerPrecise, sparseMode) */
    const void *arr;       /* aclIntArray (reduction dims) */
    const aclTensor *x[16]; /* further tensors (NLLLoss: weight, totalWeight, gradOutput; norms, convolution and
                             * flash attention: all) */
    const char *str;        /* a string attribute (flash attention's inputLayout) */
    const void *ia[4];      /* further aclIntArrays (convolution and pooling: kernel, stride, padding, dilation) */
    const void *mask;       /* aclBoolArray outputMask of the backward operators */
    const void *list;       /* aclTensorList (Index, IndexPutImpl: the index tensors) */
    const void *lists[10];  /* aclTensorLists: the foreach operators' inputs x1..x3, then out; the LSTM operators' */
    double f[3];           /* double / float attributes (random ranges, nan_to_num's replacements) */
    uint64_t seed, offset;
    const void *opt[11];    /* GroupedMatmul's optional aclTensorLists: bias, scale, offset, antiquantScale,
                             * antiquantOffset, perTokenScale, activationInput, activationQuantScale,
                             * activationQuantOffset, then the outputs activationFeatureOut, dynQuantScaleOut */
};

#define BAD(code, ...) do { aclsim_set_err(__VA_ARGS__); return (code); } while (0)

typedef struct { double v; int64_t i; } keyed; /* a sort key and its position */
typedef struct { char *p; int64_t st[SIM_MAXDIM]; int dt; } opnd; /* an operand of the elementwise walk */
const char *aclrtGetSocName(void);

extern const op_def OPS[];
extern const size_t N_OPS;
extern const sig_def SIGS[SIG_COUNT];

static inline void step(int nd, const int64_t *shape, int64_t *idx, int k, int64_t *off, int64_t st[][SIM_MAXDIM]) {
    for (int ax = nd - 1; ax >= 0; ax--) {
        for (int j = 0; j < k; j++) off[j] += st[j][ax];
        if (++idx[ax] < shape[ax]) return;
        for (int j = 0; j < k; j++) off[j] -= st[j][ax] * shape[ax];
        idx[ax] = 0;
    }
}

/* three views walked line by line along axis ax (< 0 for 0-dim views: one line of one element): the first
 * view's shape with ax collapsed to 1, each view's strides (0 for a missing one) and current start */
typedef struct {
    int nd;
    int64_t shape[SIM_MAXDIM], st[3][SIM_MAXDIM], idx[SIM_MAXDIM], off[3];
} lines3;

/* sets w up at the first line; returns how many lines there are */
static inline int64_t lines_along(lines3 *w, int ax, const tview *a, const tview *b, const tview *c) {
    const tview *v[3] = {a, b, c};
    int64_t lines = 1;
    w->nd = a->nd;
    for (int k = 0; k < 3; k++) w->off[k] = v[k] ? v[k]->off : 0;
    for (int i = 0; i < a->nd; i++) {
        w->shape[i] = i == ax ? 1 : a->dims[i];
        w->idx[i] = 0;
        for (int k = 0; k < 3; k++) w->st[k][i] = v[k] ? v[k]->st[i] : 0;
        lines *= w->shape[i];
    }
    return lines;
}

static inline void next_line(lines3 *w) { step(w->nd, w->shape, w->idx, 3, w->off, w->st); }

/* ---------------------------------------------------------------- table.c */
enum { FAM_910B, FAM_910A, FAM_310P, FAM_950 };
int chip_family(void);
aclnnStatus chip_lacks(const char *op);
/* a parameter of the operator docs (optable_gen.h): dtype bits per product slot (the FAM_* values, then the
 * Ascend910_93 parts), OPT_UNSTATED where the doc states none, and format bits (0: the doc names none) */
typedef struct { const char *op, *param; uint32_t dtypes[5]; uint64_t formats; } optable_param;
/* the dtypes (bit per aclDataType) and formats (bit per aclFormat) the op's doc allows the tensor the
 * simulator calls `what` on this chip; every one where the doc states none */
uint32_t doc_dtypes(const op_def *d, const char *what);
uint64_t doc_formats(const op_def *d, const char *what);
aclnnStatus check_dtype(const op_def *d, int dt, const char *what);
#define OPT_UNSTATED 0xffffffffu

/* the element functions (elementwise.c) the table rows name */
elem_f e_abs, e_acos, e_acosh, e_add, e_addcdiv, e_addcmul, e_asin, e_asinh, e_atan, e_atan2, e_atanh, e_band,
       e_bnot, e_bor, e_bxor, e_ceil, e_clamp, e_clamp_max_t, e_clamp_min_t, e_clamp_t, e_cos, e_cosh, e_digamma,
       e_div, e_divmod, e_elu, e_eq, e_erf, e_erfc, e_erfinv, e_exp, e_exp2, e_expm1, e_floor, e_fmodf, e_frac,
       e_gcd, e_ge, e_gelu, e_gelu2, e_gelu_bwd, e_silu_bwd, e_gt, e_id, e_isclose, e_isfinite, e_isneginf, e_isposinf, e_land, e_le,
       e_leaky, e_lerp, e_lgamma, e_lnot, e_log, e_log10, e_log1p, e_log2, e_logaddexp, e_logaddexp2, e_lor,
       e_lshift, e_lt, e_lxor, e_max, e_min, e_mish, e_mul, e_nan2num, e_ne, e_neg, e_pow, e_reciprocal, e_relu,
       e_rem, e_round, e_roundd, e_rshift, e_rsqrt, e_sigmoid, e_sign, e_signbit, e_silu, e_sin, e_sinh, e_softplus,
       e_sqrt, e_square, e_sub, e_tan, e_tanh, e_trunc, e_where;

/* ---------------------------------------------------------------- exec.c */
int promote(int a, int b);
int promote_scalar(int t, int s);
int can_cast(int from, int to);
const char *dtname(int dt);
aclnnStatus check_tensor(const op_def *d, const aclTensor *t, const char *what, int maxdim);
aclnnStatus check_layout(const op_def *d, const aclTensor *t, const char *what);
aclnnStatus check_scalar(const op_def *d, const aclScalar *s, const char *what);
int bshape(int na, const int64_t *a, int nb, const int64_t *b, int64_t *out);
int same_shape(const aclTensor *t, int n, const int64_t *s);
void shape_str(char *buf, size_t len, int n, const int64_t *s);
void snap(tview *v, const aclTensor *t);
void snap_const(tview *v, int dt, const void *raw);
val to_domain(int dt, const void *raw, int ct);
int64_t numel(const tview *v);
int contiguous(const tview *v);
int map_view(const tview *v, int dev, char **base, const char *op, int idx, char *msg, size_t len);
void bind(opnd *o, const tview *v, char *base, int nd);
void ew_loop(int nd, const int64_t *shape, int n, opnd *o, elem_fn fn, const val *p, int ct);
int64_t *strided_offsets(int nd, const int64_t *dims, const int64_t *st, int64_t off);
int64_t *offsets(const tview *v, int nd, const int64_t *dims);
int64_t nz(int64_t v);
aclnnStatus check_same(const op_def *d, const aclTensor *t, const aclTensor *like, const char *what);
aclnnStatus check_shape(const op_def *d, const aclTensor *t, int n, const int64_t *s, const char *what);
void snap_all(aclOpExecutor *e, const aclTensor *const *x, int n, unsigned reads, unsigned writes);
void keep(aclOpExecutor *e, int ct, int n, const aclTensor *const *x);
void keep_scalar(aclOpExecutor *e, int j, const aclScalar *s);
/* keep(e, ct, n, {views...}) with n counted */
#define KEEP(e, ct, ...) keep((e), (ct), (int)(sizeof((const aclTensor *[]){__VA_ARGS__}) / sizeof(const aclTensor *)), \
                              (const aclTensor *const[]){__VA_ARGS__})
void put_elem(const tview *dv, char *db, int64_t doff, const tview *sv, const char *sb, int64_t soff, int acc);
int64_t row_major_index(const int64_t *idx, int nd, const int64_t *dims);
kernel_f k_dense;
/* a view's elements to (store = 0) or from (store = 1) a dense row-major double array */
void walk(const tview *v, char *base, double *x, int store);
aclnnStatus cube_precision(const op_def *d, int dt, int cube, int64_t *mode);
double to_hf32(double v);
/* `row` caches the op's table row for its entry point (found by name on the first call) */
aclnnStatus prepare(const char *name, const op_def **row, args *a, uint64_t *wsSize, aclOpExecutor **executor);

/* ---------------------------------------------------------------- elementwise.c */
double fmaxn(double a, double b);
double fminn(double a, double b);
kernel_f k_elementwise;
validate_fn v_binary;
validate_fn v_cast, v_copy, v_fill, v_zero, check_approximate, set_shift_width;
validate_fn v_unary_math;
validate_fn v_gelu_backward, v_silu_backward;
validate_fn v_scalar_tensor;
validate_fn v_where;
validate_fn v_masked_fill;
validate_fn v_ternary;
validate_fn v_clamp;
validate_fn v_unary_p;

/* ---------------------------------------------------------------- reduce.c */
kernel_f k_reduce;
kernel_f k_softmax;
kernel_f k_softmax_bwd;
validate_fn v_reduce;
validate_fn v_softmax;
validate_fn v_softmax_bwd;
dense_fn run_stats;
dense_fn run_scan;
validate_fn v_stats;
validate_fn v_scan;
dense_fn run_bincount;
validate_fn v_bincount;

/* ---------------------------------------------------------------- foreach.c (loss scaling) */
kernel_f k_amp_unscale;
validate_fn v_amp_unscale;
dense_fn run_amp_update;
validate_fn v_amp_update;
/* ---------------------------------------------------------------- sort.c */
void sort_keyed(keyed *buf, size_t n, int desc, int ints);
kernel_f k_sort;
validate_fn v_sort;
dense_fn run_search;
validate_fn v_search;

/* ---------------------------------------------------------------- nn.c */
kernel_f k_nll;
kernel_f k_layer_norm;
kernel_f k_embed_bwd;
validate_fn v_nll;
int dense_tail(const aclTensor *t, int k);
validate_fn v_layer_norm;
validate_fn v_embed_bwd;
dense_fn run_conv;
dense_fn run_pool;
dense_fn run_adaptive;
dense_fn run_batch_norm;
dense_fn run_group_norm;
int pair(const void *arr, int64_t *out, unsigned lens);
validate_fn v_conv;
validate_fn v_pool;
validate_fn v_adaptive;
validate_fn v_batch_norm;
validate_fn v_group_norm;

/* ---------------------------------------------------------------- index.c */
kernel_f k_index;
kernel_f k_tri;
kernel_f k_elements;
kernel_f k_flip;
validate_fn v_index;
validate_fn v_tri;
validate_fn v_elements;
validate_fn v_flip;
kernel_f k_move;
validate_fn v_index_list;
validate_fn v_index_dim;
validate_fn v_nonzero;
validate_fn v_repeat_roll;
dense_fn run_scatter_reduce;
validate_fn v_scatter_reduce;

/* ---------------------------------------------------------------- random.c */
double unit(uint64_t seed, uint64_t ctr);
kernel_f k_random;
kernel_f k_multinomial;
validate_fn v_random;
validate_fn v_multinomial;

/* ---------------------------------------------------------------- factory.c */
kernel_f k_arange;
kernel_f k_fills;
validate_fn v_arange;
validate_fn v_fills;

/* ---------------------------------------------------------------- foreach.c */
kernel_f k_foreach;
validate_fn v_foreach, set_unit_alpha;

/* ---------------------------------------------------------------- attention.c */
kernel_f k_flash;
validate_fn v_flash;

/* ---------------------------------------------------------------- linalg.c */
kernel_f k_matmul;
validate_fn v_matmul;
dense_fn run_linalg;
validate_fn v_linalg;
dense_fn run_svd;
validate_fn v_svd;

/* ---------------------------------------------------------------- rnn.c */
kernel_f k_lstm;
validate_fn v_lstm;

/* ---------------------------------------------------------------- fused.c */
validate_fn v_rms_norm, v_swiglu, v_rope, v_gmm;
dense_fn run_rms_norm, run_swiglu, run_rope, run_gmm;

#endif
