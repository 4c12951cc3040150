/* libopapi.so: the ACLNN operators. One table (OPS) says, per op, its argument signature (which selects the
 * shared validator), its supported dtypes and its element function; kernels run on the stream's worker over
 * strided views, converting through double (floating) or int64 (integer, bool) like PyTorch. */
#include "aclsim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- dtype conversion */
#include "half.h"

#define LD(T) ({ T v_; memcpy(&v_, p, sizeof v_); v_; })
static double ldf(int dt, const char *p) {
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

static int64_t f2i(double v) { /* truncation toward zero; NaN -> 0, saturating at the int64 range */
    if (v != v) return 0;
    if (v >= 9.2233720368547758e18) return INT64_MAX;
    if (v <= -9.2233720368547758e18) return INT64_MIN;
    return (int64_t)v;
}

static int64_t ldi(int dt, const char *p) {
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
static void sti(int dt, char *p, int64_t v) {
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

static void stf(int dt, char *p, double v) {
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
enum { SIG_BINARY, SIG_BINARY_SCALAR, SIG_CAST, SIG_COPY, SIG_FILL, SIG_ZERO, SIG_MATMUL, SIG_MM, SIG_BMM, SIG_UNARY,
       SIG_WHERE, SIG_REDUCE, SIG_SOFTMAX, SIG_SCALAR_TENSOR,
       SIG_INDEX, SIG_MASKED_FILL, SIG_RANDOM, SIG_NLL, SIG_TERNARY, SIG_ARANGE, SIG_LAYER_NORM, SIG_EMBED_BWD,
       SIG_CLAMP, SIG_TRI, SIG_SORT, SIG_ELEMENTS, SIG_MULTINOMIAL, SIG_MV, SIG_DOT, SIG_UNARY_P,
       SIG_FILLS, SIG_FLIP, SIG_CONV, SIG_POOL, SIG_ADAPTIVE, SIG_BATCH_NORM, SIG_GROUP_NORM, SIG_STATS, SIG_SCAN, SIG_INDEX_LIST, SIG_INDEX_DIM, SIG_NONZERO, SIG_REPEAT, SIG_FOREACH, SIG_SEARCH, SIG_BINCOUNT, SIG_SCATTER_REDUCE, SIG_LINALG, SIG_SVD };
/* flags: F_FLOAT an integer/bool computation dtype becomes FLOAT (exp, div, ...); F_BOOL the result is a truth
 * value, stored into any out dtype (comparisons, logical ops); R_* the reduction an op performs */
enum { F_FLOAT = 1, F_BOOL = 2, R_SUM = 4, R_MEAN = 8, R_MAX = 16, R_MIN = 32, F_LOG = 64, F_MODE = 128, L_CUMSUM = 256,
       L_ARG = 512, F_EMBED = 1024, L_VALUES = 32768, R_ALL = 65536, R_ANY = 131072, RND_UNIFORM = 2048, RND_NORMAL = 4096, RND_INT = 8192, RND_BERNOULLI = 16384, F_CLOSE = 262144, RND_PERM = 524288 };
enum { S_PROD, S_LSE, S_VAR, S_STD, S_NORM }; /* SIG_STATS: which statistic, in flags bits 20-22 */
enum { LA_CHOLESKY, LA_SLOGDET, LA_QR, LA_TRISOLVE }; /* SIG_LINALG: which operator, likewise */
#define KIND(k) ((k) << 20)
/* SIG_SOFTMAX covers every op along one dim's lines: softmax (F_LOG: log-softmax), L_CUMSUM, L_ARG|R_MAX/R_MIN */
/* F_MODE: an int attribute (DivMod's rounding mode 0..2; GeluV2's approximate 0..1; RoundDecimals' decimals)
 * reaches the element function as p[0].i */
typedef val (*elem_fn)(const val *x, const val *p, int isf);
typedef struct op_def {
    const char *name;
    int sig;
    int inplace;      /* the output is selfRef */
    int has_alpha;
    uint32_t dtypes;  /* bit (1 << aclDataType) per supported dtype (910B-class chips, per the op's doc) */
    elem_fn fn;       /* element function, for elementwise signatures */
    int flags;
} op_def;

#define B(d) (1u << (d))
#define ALL10 (B(ACL_FLOAT) | B(ACL_FLOAT16) | B(ACL_BF16) | B(ACL_DOUBLE) | B(ACL_INT8) | B(ACL_UINT8) | \
               B(ACL_INT16) | B(ACL_INT32) | B(ACL_INT64) | B(ACL_BOOL))
#define MMTYPES (B(ACL_FLOAT) | B(ACL_FLOAT16) | B(ACL_BF16))
#define FLOATS (MMTYPES | B(ACL_DOUBLE))
#define SIGNED (FLOATS | B(ACL_INT8) | B(ACL_INT16) | B(ACL_INT32) | B(ACL_INT64))

static val e_add(const val *x, const val *p, int isf) { /* self + alpha * other; bool: OR via the != 0 store */
    val r;
    if (isf) r.f = x[0].f + p[0].f * x[1].f; else r.i = (int64_t)((uint64_t)x[0].i + (uint64_t)p[0].i * (uint64_t)x[1].i);
    return r;
}
static val e_mul(const val *x, const val *p, int isf) {
    (void)p;
    val r;
    if (isf) r.f = x[0].f * x[1].f; else r.i = (int64_t)((uint64_t)x[0].i * (uint64_t)x[1].i);
    return r;
}
static val e_id(const val *x, const val *p, int isf) { (void)p; (void)isf; return x[0]; }

/* unary element functions: float domain (double) and, where the op keeps integers, int64 domain */
#define UF(N, FEXPR, IEXPR)                                                                                  \
    static val e_##N(const val *x, const val *p, int isf) {                                                \
        (void)p;                                                                                            \
        val r;                                                                                              \
        if (isf) { double a = x[0].f; (void)a; r.f = (FEXPR); } else { int64_t a = x[0].i; (void)a; r.i = (IEXPR); }        \
        return r;                                                                                           \
    }
static double sigm(double a) { return 1.0 / (1.0 + exp(-a)); }
static double sgnf(double a) { return a > 0 ? 1.0 : a < 0 ? -1.0 : a; }  /* keeps NaN and -0.0 */
UF(exp, exp(a), 0) UF(exp2, exp2(a), 0) UF(expm1, expm1(a), 0) UF(log, log(a), 0) UF(log2, log2(a), 0)
UF(log10, log10(a), 0) UF(log1p, log1p(a), 0) UF(sqrt, sqrt(a), 0) UF(rsqrt, 1.0 / sqrt(a), 0)
UF(sin, sin(a), 0) UF(cos, cos(a), 0) UF(tan, tan(a), 0) UF(asin, asin(a), 0) UF(acos, acos(a), 0)
UF(atan, atan(a), 0) UF(sinh, sinh(a), 0) UF(cosh, cosh(a), 0) UF(tanh, tanh(a), 0) UF(erf, erf(a), 0)
UF(sigmoid, sigm(a), 0) UF(silu, a * sigm(a), 0) UF(gelu, 0.5 * a * (1.0 + erf(a * 0.70710678118654752440)), 0)
UF(reciprocal, 1.0 / a, 0)
UF(neg, -a, (int64_t)(0 - (uint64_t)a)) UF(abs, fabs(a), a < 0 ? (int64_t)(0 - (uint64_t)a) : a)
UF(relu, a > 0 ? a : (a != a ? a : 0.0), a > 0 ? a : 0) UF(sign, sgnf(a), (a > 0) - (a < 0))
UF(floor, floor(a), a) UF(ceil, ceil(a), a) UF(round, nearbyint(a), a) UF(trunc, trunc(a), a)
UF(frac, a - trunc(a), 0) UF(lnot, a == 0, a == 0)
UF(acosh, acosh(a), 0) UF(asinh, asinh(a), 0) UF(atanh, atanh(a), 0) UF(erfc, erfc(a), 0)
UF(mish, a * tanh(a * 1.0 > 20 ? a : log1p(exp(a))), 0) UF(signbit, signbit(a) != 0, a < 0)
UF(isfinite, isfinite(a), 1) UF(isposinf, isinf(a) && a > 0, 0) UF(isneginf, isinf(a) && a < 0, 0)
UF(square, a * a, (int64_t)((uint64_t)a * (uint64_t)a)) UF(bnot, 0, ~a)
static double erfinv_d(double y) { /* a closed-form first guess refined by Newton steps on erfc (on erf near 0) */
    if (y != y || y < -1 || y > 1) return NAN;
    double a = fabs(y), c = 1 - a;
    if (a == 1) return copysign(INFINITY, y);
    double l = log(c * (1 + a)), t = 2 / (3.14159265358979323846 * 0.147) + l / 2;
    double x = sqrt(sqrt(t * t - l / 0.147) - t);
    for (int i = 0; i < 4; i++) {
        double slope = 1.12837916709551257390 * exp(-x * x); /* d erf / dx */
        if (slope == 0) break;
        x += a > 0.5 ? (erfc(x) - c) / slope : (a - erf(x)) / slope;
    }
    return copysign(x, y);
}
static double digamma_d(double x) { /* reflection below 0, recurrence up to 6, then the asymptotic series */
    if (x == 0) return copysign(INFINITY, -x);
    if (x < 0) return x == floor(x) ? NAN : digamma_d(1 - x) - 3.14159265358979323846 / tan(3.14159265358979323846 * x);
    double r = 0;
    for (; x < 6; x += 1) r -= 1 / x;
    double f = 1 / (x * x);
    return r + log(x) - 0.5 / x - f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f * (1.0 / 132)))));
}
UF(erfinv, erfinv_d(a), 0) UF(lgamma, lgamma(a), 0) UF(digamma, digamma_d(a), 0)

/* binary element functions over (x[0] self, x[1] other) */
#define BF(N, FEXPR, IEXPR)                                                                                  \
    static val e_##N(const val *x, const val *p, int isf) {                                                \
        (void)p;                                                                                            \
        val r;                                                                                              \
        if (isf) { double a = x[0].f, b = x[1].f; (void)a; (void)b; r.f = (FEXPR); } else { int64_t a = x[0].i, b = x[1].i; (void)a; (void)b; r.i = (IEXPR); } \
        return r;                                                                                           \
    }
static int64_t ipow(int64_t a, int64_t b) { /* negative exponents: 1/a truncated, as PyTorch */
    if (b < 0) return a == 1 ? 1 : a == -1 ? ((b & 1) ? -1 : 1) : 0;
    uint64_t r = 1, x = (uint64_t)a;
    for (; b; b >>= 1, x *= x) if (b & 1) r *= x;
    return (int64_t)r;
}
static double fmaxn(double a, double b) { return a != a || b != b ? NAN : a > b ? a : b; }
static double fminn(double a, double b) { return a != a || b != b ? NAN : a < b ? a : b; }
BF(div, a / b, 0) BF(pow, pow(a, b), ipow(a, b)) BF(atan2, atan2(a, b), 0)
BF(max, fmaxn(a, b), a > b ? a : b) BF(min, fminn(a, b), a < b ? a : b)
BF(eq, a == b, a == b) BF(ne, a != b, a != b) BF(lt, a < b, a < b) BF(le, a <= b, a <= b)
BF(gt, a > b, a > b) BF(ge, a >= b, a >= b)
BF(land, a != 0 && b != 0, a != 0 && b != 0) BF(lor, a != 0 || b != 0, a != 0 || b != 0)
BF(lxor, (a != 0) != (b != 0), (a != 0) != (b != 0))
/* remainder: the sign of the divisor (Python's %); fmod: the sign of the dividend; integer x % 0 gives 0 here */
BF(rem, b != 0 && fmod(a, b) != 0 && ((fmod(a, b) < 0) != (b < 0)) ? fmod(a, b) + b : (b != 0 ? fmod(a, b) : NAN),
   b == 0 ? 0 : b == -1 ? 0 : ((a % b) != 0 && ((a % b) < 0) != (b < 0)) ? a % b + b : a % b)
BF(fmodf, fmod(a, b), b == 0 || b == -1 ? 0 : a % b)
BF(band, 0, a & b) BF(bor, 0, a | b) BF(bxor, 0, a ^ b)
static double lae(double a, double b, double (*ex)(double), double ln) { /* log(e^a + e^b), in base e or 2 */
    if (a == b && isinf(a)) return a;
    double m = a > b ? a : b, d = fabs(a - b);
    return a != a || b != b ? NAN : m + log1p(ex(-d)) / ln;
}
static int64_t igcd(int64_t a, int64_t b) {
    uint64_t x = a < 0 ? 0 - (uint64_t)a : (uint64_t)a, y = b < 0 ? 0 - (uint64_t)b : (uint64_t)b;
    while (y) { uint64_t t = x % y; x = y; y = t; }
    return (int64_t)x;
}
BF(logaddexp, lae(a, b, exp, 1.0), 0) BF(logaddexp2, lae(a, b, exp2, 0.69314718055994530942), 0)
BF(gcd, 0, igcd(a, b))
/* shifts by the computation dtype's width p[1].i: out-of-range counts give 0 (left) or the sign (right), as PyTorch */
static val e_lshift(const val *x, const val *p, int isf) {
    (void)isf;
    val r;
    r.i = x[1].i < 0 || x[1].i >= p[1].i ? 0 : (int64_t)((uint64_t)x[0].i << x[1].i);
    return r;
}
static val e_rshift(const val *x, const val *p, int isf) {
    (void)isf;
    val r;
    r.i = x[1].i < 0 || x[1].i >= p[1].i ? (x[0].i < 0 ? -1 : 0) : x[0].i >> x[1].i;
    return r;
}
static val e_isclose(const val *x, const val *p, int isf) { /* p: rtol, atol, equal_nan (p[0] is alpha's slot) */
    (void)isf;
    double a = x[0].f, b = x[1].f;
    val r;
    r.f = a == b || (p[3].i && a != a && b != b) || (isfinite(a) && isfinite(b) && fabs(a - b) <= p[2].f + p[1].f * fabs(b));
    return r;
}
static val e_sub(const val *x, const val *p, int isf) { /* self - alpha * other */
    val r;
    if (isf) r.f = x[0].f - p[0].f * x[1].f; else r.i = (int64_t)((uint64_t)x[0].i - (uint64_t)p[0].i * (uint64_t)x[1].i);
    return r;
}
static val e_divmod(const val *x, const val *p, int isf) { /* mode 0 true, 1 trunc, 2 floor division */
    val r;
    if (isf) {
        double q = x[0].f / x[1].f;
        r.f = p[0].i == 1 ? trunc(q) : p[0].i == 2 ? floor(q) : q;
    } else { /* a device does not trap: x / 0 gives 0 here; INT64_MIN / -1 wraps */
        int64_t a = x[0].i, b = x[1].i;
        if (!b) r.i = 0;
        else if (b == -1) r.i = (int64_t)(0 - (uint64_t)a);
        else r.i = a / b - (p[0].i == 2 && (a % b) && ((a < 0) != (b < 0)));
    }
    return r;
}
static val e_gelu2(const val *x, const val *p, int isf) {
    (void)isf;
    double a = x[0].f;
    val r;
    r.f = p[0].i ? 0.5 * a * (1.0 + tanh(0.79788456080286535588 * (a + 0.044715 * a * a * a)))
                 : 0.5 * a * (1.0 + erf(a * 0.70710678118654752440));
    return r;
}
static val e_roundd(const val *x, const val *p, int isf) { /* PyTorch: scale by 10^|d|, round half even, unscale */
    if (!isf) return x[0];
    double a = x[0].f, ten = pow(10.0, (double)(p[0].i < 0 ? -p[0].i : p[0].i));
    val r;
    r.f = p[0].i >= 0 ? nearbyint(a * ten) / ten : nearbyint(a / ten) * ten;
    return r;
}
static val e_lerp(const val *x, const val *p, int isf) { /* two forms keep both endpoints exact, as PyTorch */
    (void)p; (void)isf;
    double s = x[0].f, e = x[1].f, w = x[2].f;
    val r;
    r.f = fabs(w) < 0.5 ? s + w * (e - s) : e - (e - s) * (1 - w);
    return r;
}
static val e_addcmul(const val *x, const val *p, int isf) {
    val r;
    if (isf) r.f = x[0].f + p[0].f * x[1].f * x[2].f;
    else r.i = (int64_t)((uint64_t)x[0].i + (uint64_t)p[0].i * (uint64_t)x[1].i * (uint64_t)x[2].i);
    return r;
}
static val e_addcdiv(const val *x, const val *p, int isf) {
    (void)isf;
    val r;
    r.f = x[0].f + p[0].f * (x[1].f / x[2].f);
    return r;
}
/* clamp: p[0] min, p[1] max, p[2].i / p[3].i whether each is given; NaN propagates (as PyTorch) */
static val e_clamp(const val *x, const val *p, int isf) {
    val r = x[0];
    if (isf) {
        if (r.f != r.f) return r;
        if (p[2].i && (p[0].f != p[0].f || r.f < p[0].f)) r.f = p[0].f;
        if (p[3].i && (p[1].f != p[1].f || r.f > p[1].f)) r.f = p[1].f;
    } else {
        if (p[2].i && r.i < p[0].i) r.i = p[0].i;
        if (p[3].i && r.i > p[1].i) r.i = p[1].i;
    }
    return r;
}
static val e_clamp_t(const val *x, const val *p, int isf) { /* ClampTensor: x[1] min, x[2] max */
    val q[4] = {x[1], x[2], {.i = 1}, {.i = 1}};
    (void)p;
    return e_clamp(x, q, isf);
}
static val e_clamp_min_t(const val *x, const val *p, int isf) {
    val q[4] = {x[1], x[1], {.i = 1}, {.i = 0}};
    (void)p;
    return e_clamp(x, q, isf);
}
static val e_clamp_max_t(const val *x, const val *p, int isf) {
    val q[4] = {x[1], x[1], {.i = 0}, {.i = 1}};
    (void)p;
    return e_clamp(x, q, isf);
}
/* unary ops with parameters p[0..2] (floats): leaky relu, softplus, nan_to_num */
static val e_leaky(const val *x, const val *p, int isf) {
    (void)isf;
    val r;
    r.f = x[0].f > 0 ? x[0].f : x[0].f * p[0].f;
    return r;
}
static val e_elu(const val *x, const val *p, int isf) { /* p: alpha, scale, inputScale */
    (void)isf;
    val r;
    r.f = x[0].f > 0 ? p[1].f * x[0].f : p[1].f * p[0].f * expm1(x[0].f * p[2].f);
    return r;
}
static val e_softplus(const val *x, const val *p, int isf) { /* x if beta * x > threshold, else log1p(exp(beta x)) / beta */
    (void)isf;
    val r;
    double z = x[0].f * p[0].f;
    r.f = z > p[1].f ? x[0].f : log1p(exp(z)) / p[0].f;
    return r;
}
static val e_nan2num(const val *x, const val *p, int isf) {
    val r = x[0];
    if (!isf) return r;
    if (r.f != r.f) r.f = p[0].f;
    else if (isinf(r.f)) r.f = r.f > 0 ? p[1].f : p[2].f;
    return r;
}
static val e_where(const val *x, const val *p, int isf) {
    (void)p;
    return (isf ? x[0].f != 0 : x[0].i != 0) ? x[1] : x[2];
}

static const op_def OPS[] = {
    {"Add", SIG_BINARY, 0, 1, ALL10, e_add, 0},
    {"Adds", SIG_BINARY_SCALAR, 0, 1, ALL10, e_add, 0},
    {"InplaceAdd", SIG_BINARY, 1, 1, ALL10, e_add, 0},
    {"InplaceAdds", SIG_BINARY_SCALAR, 1, 1, ALL10, e_add, 0},
    {"Mul", SIG_BINARY, 0, 0, ALL10, e_mul, 0},
    {"Muls", SIG_BINARY_SCALAR, 0, 0, ALL10, e_mul, 0},
    {"InplaceMul", SIG_BINARY, 1, 0, ALL10, e_mul, 0},
    {"InplaceMuls", SIG_BINARY_SCALAR, 1, 0, ALL10, e_mul, 0},
    {"Cast", SIG_CAST, 0, 0, ALL10, e_id, 0},
    {"InplaceCopy", SIG_COPY, 1, 0, ALL10, e_id, 0},
    {"InplaceFillScalar", SIG_FILL, 1, 0, ALL10, e_id, 0},
    {"InplaceZero", SIG_ZERO, 1, 0, ALL10, e_id, 0},
    {"Matmul", SIG_MATMUL, 0, 0, MMTYPES, NULL, 0},
    {"Mm", SIG_MM, 0, 0, MMTYPES, NULL, 0},
    {"BatchMatMul", SIG_BMM, 0, 0, MMTYPES, NULL, 0},
    {"Mv", SIG_MV, 0, 0, MMTYPES, NULL, 0}, {"Dot", SIG_DOT, 0, 0, MMTYPES, NULL, 0},
    /* unary: {name, SIG_UNARY, inplace, 0, dtypes, fn, flags}; F_FLOAT ops take integers as FLOAT */
#define UN(N, FN, DT, FL) {N, SIG_UNARY, 0, 0, DT, FN, FL}, {"Inplace" N, SIG_UNARY, 1, 0, DT, FN, FL}
    /* dtype sets: the `self` row of each op's doc (docs/aclnnXxx.md), 910B-class parts */
    UN("Exp", e_exp, FLOATS | B(ACL_INT64) | B(ACL_BOOL), F_FLOAT), UN("Exp2", e_exp2, ALL10, F_FLOAT),
    UN("Expm1", e_expm1, MMTYPES | B(ACL_INT64) | B(ACL_BOOL), F_FLOAT),
    UN("Log", e_log, ALL10, F_FLOAT), UN("Log2", e_log2, ALL10, F_FLOAT), UN("Log10", e_log10, ALL10, F_FLOAT),
    UN("Log1p", e_log1p, ALL10, F_FLOAT), UN("Sqrt", e_sqrt, ALL10, F_FLOAT), UN("Rsqrt", e_rsqrt, ALL10, F_FLOAT),
    UN("Sin", e_sin, ALL10, F_FLOAT), UN("Cos", e_cos, ALL10, F_FLOAT), UN("Tan", e_tan, ALL10, F_FLOAT),
    UN("Asin", e_asin, ALL10 & ~B(ACL_BF16), F_FLOAT), UN("Acos", e_acos, ALL10 & ~B(ACL_BF16), F_FLOAT),
    UN("Atan", e_atan, ALL10, F_FLOAT), UN("Sinh", e_sinh, ALL10, F_FLOAT),
    UN("Cosh", e_cosh, B(ACL_FLOAT) | B(ACL_FLOAT16) | B(ACL_DOUBLE), F_FLOAT),
    UN("Tanh", e_tanh, ALL10 & ~B(ACL_DOUBLE), F_FLOAT),
    UN("Erf", e_erf, B(ACL_FLOAT) | B(ACL_FLOAT16) | B(ACL_DOUBLE) | B(ACL_INT64) | B(ACL_BOOL), F_FLOAT),
    UN("Sigmoid", e_sigmoid, MMTYPES, F_FLOAT), UN("Reciprocal", e_reciprocal, ALL10, F_FLOAT),
    {"Gelu", SIG_UNARY, 0, 0, MMTYPES, e_gelu, 0}, {"Silu", SIG_UNARY, 0, 0, MMTYPES, e_silu, 0},
    UN("Neg", e_neg, FLOATS | B(ACL_INT8) | B(ACL_INT32) | B(ACL_INT64), 0),
    UN("Relu", e_relu, MMTYPES | B(ACL_INT8) | B(ACL_INT32) | B(ACL_INT64), 0),
    {"Abs", SIG_UNARY, 0, 0, ALL10, e_abs, 0},
    {"Sign", SIG_UNARY, 0, 0, SIGNED | B(ACL_UINT8) | B(ACL_BOOL), e_sign, 0},
    UN("Floor", e_floor, (SIGNED | B(ACL_UINT8)) & ~B(ACL_BF16), 0), UN("Ceil", e_ceil, FLOATS, 0),
    UN("Round", e_round, FLOATS | B(ACL_INT32) | B(ACL_INT64), 0), UN("Trunc", e_trunc, SIGNED | B(ACL_UINT8), 0),
    UN("Frac", e_frac, MMTYPES, 0), UN("LogicalNot", e_lnot, ALL10, F_BOOL),
    UN("Acosh", e_acosh, ALL10, F_FLOAT), UN("Asinh", e_asinh, ALL10, F_FLOAT), UN("Atanh", e_atanh, ALL10, F_FLOAT),
    UN("Erfc", e_erfc, ALL10, F_FLOAT), UN("Mish", e_mish, MMTYPES, 0),
    {"Signbit", SIG_UNARY, 0, 0, ALL10, e_signbit, F_BOOL},
    {"IsFinite", SIG_UNARY, 0, 0, ALL10, e_isfinite, F_BOOL}, {"IsPosInf", SIG_UNARY, 0, 0, ALL10, e_isposinf, F_BOOL},
    {"IsNegInf", SIG_UNARY, 0, 0, ALL10, e_isneginf, F_BOOL}, {"Square", SIG_UNARY, 0, 0, ALL10 & ~B(ACL_BOOL), e_square, 0},
    {"BitwiseNot", SIG_UNARY, 0, 0, ALL10 & ~FLOATS, e_bnot, 0},
#undef UN
    /* binary: tensor and scalar forms (and their in-place forms where the header has them) */
    {"Sub", SIG_BINARY, 0, 1, ALL10 & ~B(ACL_BOOL), e_sub, 0}, {"Subs", SIG_BINARY_SCALAR, 0, 1, ALL10 & ~B(ACL_BOOL), e_sub, 0},
    {"InplaceSub", SIG_BINARY, 1, 1, ALL10 & ~B(ACL_BOOL), e_sub, 0},
    {"InplaceSubs", SIG_BINARY_SCALAR, 1, 1, ALL10 & ~B(ACL_BOOL), e_sub, 0},
    {"Div", SIG_BINARY, 0, 0, ALL10, e_div, F_FLOAT}, {"Divs", SIG_BINARY_SCALAR, 0, 0, ALL10, e_div, F_FLOAT},
    {"InplaceDiv", SIG_BINARY, 1, 0, ALL10, e_div, F_FLOAT}, {"InplaceDivs", SIG_BINARY_SCALAR, 1, 0, ALL10, e_div, F_FLOAT},
    {"PowTensorTensor", SIG_BINARY, 0, 0, ALL10 & ~B(ACL_BOOL), e_pow, 0},
    {"InplacePowTensorTensor", SIG_BINARY, 1, 0, ALL10 & ~B(ACL_BOOL), e_pow, 0},
    {"PowTensorScalar", SIG_BINARY_SCALAR, 0, 0, ALL10 & ~B(ACL_BOOL), e_pow, 0},
    {"InplacePowTensorScalar", SIG_BINARY_SCALAR, 1, 0, ALL10 & ~B(ACL_BOOL), e_pow, 0},
    {"Atan2", SIG_BINARY, 0, 0, ALL10, e_atan2, F_FLOAT}, {"InplaceAtan2", SIG_BINARY, 1, 0, ALL10, e_atan2, F_FLOAT},
    {"Maximum", SIG_BINARY, 0, 0, ALL10, e_max, 0}, {"Minimum", SIG_BINARY, 0, 0, ALL10, e_min, 0},
#define CMP(N, FN) {N "Tensor", SIG_BINARY, 0, 0, ALL10, FN, F_BOOL}, {N "Scalar", SIG_BINARY_SCALAR, 0, 0, ALL10, FN, F_BOOL}, \
                   {"Inplace" N "Tensor", SIG_BINARY, 1, 0, ALL10, FN, F_BOOL},                                       \
                   {"Inplace" N "Scalar", SIG_BINARY_SCALAR, 1, 0, ALL10, FN, F_BOOL}
    CMP("Eq", e_eq), CMP("Ne", e_ne), CMP("Lt", e_lt), CMP("Le", e_le), CMP("Gt", e_gt), CMP("Ge", e_ge),
#undef CMP
    {"LogicalAnd", SIG_BINARY, 0, 0, ALL10, e_land, F_BOOL}, {"InplaceLogicalAnd", SIG_BINARY, 1, 0, ALL10, e_land, F_BOOL},
    {"LogicalOr", SIG_BINARY, 0, 0, ALL10, e_lor, F_BOOL}, {"InplaceLogicalOr", SIG_BINARY, 1, 0, ALL10, e_lor, F_BOOL},
    {"LogicalXor", SIG_BINARY, 0, 0, ALL10, e_lxor, F_BOOL},
    {"SWhere", SIG_WHERE, 0, 0, ALL10, e_where, 0},
#define BIT(N, FN) {N "Tensor", SIG_BINARY, 0, 0, ALL10 & ~FLOATS, FN, 0}, {"Inplace" N "Tensor", SIG_BINARY, 1, 0, ALL10 & ~FLOATS, FN, 0}
    BIT("BitwiseAnd", e_band), BIT("BitwiseOr", e_bor), BIT("BitwiseXor", e_bxor),
#undef BIT
    /* clamp: scalar bounds (either may be NULL, not both), tensor bounds */
    {"Clamp", SIG_CLAMP, 0, 0, ALL10 & ~B(ACL_BOOL), e_clamp, 3}, {"ClampMin", SIG_CLAMP, 0, 0, ALL10 & ~B(ACL_BOOL), e_clamp, 1},
    {"ClampMax", SIG_CLAMP, 0, 0, ALL10 & ~B(ACL_BOOL), e_clamp, 2}, {"InplaceClampMax", SIG_CLAMP, 1, 0, ALL10 & ~B(ACL_BOOL), e_clamp, 2},
    {"ClampTensor", SIG_TERNARY, 0, 0, ALL10 & ~B(ACL_BOOL), e_clamp_t, 0},
    {"ClampMinTensor", SIG_BINARY, 0, 0, ALL10 & ~B(ACL_BOOL), e_clamp_min_t, 0},
    {"InplaceClampMinTensor", SIG_BINARY, 1, 0, ALL10 & ~B(ACL_BOOL), e_clamp_min_t, 0},
    {"ClampMaxTensor", SIG_BINARY, 0, 0, ALL10 & ~B(ACL_BOOL), e_clamp_max_t, 0},
    {"InplaceClampMaxTensor", SIG_BINARY, 1, 0, ALL10 & ~B(ACL_BOOL), e_clamp_max_t, 0},
    /* Sort(self, stable, dim, descending, values, indices), Topk(self, k, dim, largest, sorted, values, indices):
     * stable by value, NaN above every number (as PyTorch); F_MODE marks Topk */
    {"Sort", SIG_SORT, 0, 0, ALL10, NULL, 0}, {"Topk", SIG_SORT, 0, 0, ALL10 & ~B(ACL_BOOL), NULL, F_MODE},
    /* Gather(self, dim, index, out); Scatter / ScatterValue (reduce 0 replace, 1 add, 2 multiply), in-place forms,
     * ScatterAdd: out is self with src (or value) written at index along dim. F_MODE: a scatter; F_FLOAT: value */
    {"Gather", SIG_ELEMENTS, 0, 0, ALL10, NULL, 0},
    {"Scatter", SIG_ELEMENTS, 0, 0, ALL10, NULL, F_MODE}, {"InplaceScatter", SIG_ELEMENTS, 1, 0, ALL10, NULL, F_MODE},
    {"ScatterValue", SIG_ELEMENTS, 0, 0, ALL10, NULL, F_MODE | F_FLOAT},
    {"InplaceScatterValue", SIG_ELEMENTS, 1, 0, ALL10, NULL, F_MODE | F_FLOAT},
    {"ScatterAdd", SIG_ELEMENTS, 0, 0, ALL10, NULL, F_MODE},
    /* Tril / Triu over the last two dims (flags 1: Triu) */
    {"Tril", SIG_TRI, 0, 0, ALL10, NULL, 0}, {"InplaceTril", SIG_TRI, 1, 0, ALL10, NULL, 0},
    {"Triu", SIG_TRI, 0, 0, ALL10, NULL, 1}, {"InplaceTriu", SIG_TRI, 1, 0, ALL10, NULL, 1},
    {"DivMod", SIG_BINARY, 0, 0, ALL10, e_divmod, F_MODE}, {"DivMods", SIG_BINARY_SCALAR, 0, 0, ALL10, e_divmod, F_MODE},
    {"InplaceDivMod", SIG_BINARY, 1, 0, ALL10, e_divmod, F_MODE},
    {"InplaceDivMods", SIG_BINARY_SCALAR, 1, 0, ALL10, e_divmod, F_MODE},
    {"PowScalarTensor", SIG_SCALAR_TENSOR, 0, 0, ALL10 & ~B(ACL_BOOL), e_pow, 0},
    {"GeluV2", SIG_UNARY, 0, 0, MMTYPES, e_gelu2, F_MODE},
    {"RoundDecimals", SIG_UNARY, 0, 0, FLOATS | B(ACL_INT32) | B(ACL_INT64), e_roundd, F_MODE},
    {"InplaceRoundDecimals", SIG_UNARY, 1, 0, FLOATS | B(ACL_INT32) | B(ACL_INT64), e_roundd, F_MODE},
    /* reductions over an aclIntArray of dims (empty: all dims) */
    {"ReduceSum", SIG_REDUCE, 0, 0, ALL10, NULL, R_SUM}, {"Mean", SIG_REDUCE, 0, 0, FLOATS, NULL, R_MEAN},
    {"Amax", SIG_REDUCE, 0, 0, ALL10, NULL, R_MAX}, {"Amin", SIG_REDUCE, 0, 0, ALL10, NULL, R_MIN},
    {"All", SIG_REDUCE, 0, 0, ALL10, NULL, R_ALL}, {"Any", SIG_REDUCE, 0, 0, ALL10, NULL, R_ANY},
    {"RemainderTensorTensor", SIG_BINARY, 0, 0, ALL10 & ~B(ACL_BOOL), e_rem, 0},
    {"InplaceRemainderTensorTensor", SIG_BINARY, 1, 0, ALL10 & ~B(ACL_BOOL), e_rem, 0},
    {"RemainderTensorScalar", SIG_BINARY_SCALAR, 0, 0, ALL10 & ~B(ACL_BOOL), e_rem, 0},
    {"InplaceRemainderTensorScalar", SIG_BINARY_SCALAR, 1, 0, ALL10 & ~B(ACL_BOOL), e_rem, 0},
    {"FmodTensor", SIG_BINARY, 0, 0, ALL10 & ~B(ACL_BOOL), e_fmodf, 0},
    {"InplaceFmodTensor", SIG_BINARY, 1, 0, ALL10 & ~B(ACL_BOOL), e_fmodf, 0},
    {"FmodScalar", SIG_BINARY_SCALAR, 0, 0, ALL10 & ~B(ACL_BOOL), e_fmodf, 0},
    {"InplaceFmodScalar", SIG_BINARY_SCALAR, 1, 0, ALL10 & ~B(ACL_BOOL), e_fmodf, 0},
    {"Softmax", SIG_SOFTMAX, 0, 0, FLOATS, NULL, 0}, {"LogSoftmax", SIG_SOFTMAX, 0, 0, FLOATS, NULL, F_LOG},
    {"Cumsum", SIG_SOFTMAX, 0, 0, ALL10, NULL, L_CUMSUM},
    {"ArgMax", SIG_SOFTMAX, 0, 0, ALL10 & ~B(ACL_BOOL), NULL, L_ARG | R_MAX},
    {"ArgMin", SIG_SOFTMAX, 0, 0, ALL10 & ~B(ACL_BOOL), NULL, L_ARG | R_MIN},
    /* MaxDim / MinDim: ArgMax / ArgMin that also write the extreme values (out, indices) */
    {"MaxDim", SIG_SOFTMAX, 0, 0, ALL10, NULL, L_ARG | R_MAX | L_VALUES},
    {"MinDim", SIG_SOFTMAX, 0, 0, ALL10, NULL, L_ARG | R_MIN | L_VALUES},
    /* index ops: out = self.shape[:dim] + index.shape + self.shape[dim+1:] (Embedding: dim 0) */
    {"IndexSelect", SIG_INDEX, 0, 0, ALL10, NULL, 0}, {"Embedding", SIG_INDEX, 0, 0, ALL10, NULL, F_EMBED},
    {"InplaceMaskedFillScalar", SIG_MASKED_FILL, 1, 0, ALL10, e_where, 0},
    /* random: counter-based, element i of the view in row-major order draws from (seed, offset + i) */
    {"InplaceUniform", SIG_RANDOM, 1, 0, FLOATS, NULL, RND_UNIFORM},
    /* NLLLoss(self [N, C] or [C], target, weight [C], reduction, ignoreIndex, out, totalWeightOut) and its backward
     * (F_LOG marks the backward: gradOutput, self, target, weight, reduction, ignoreIndex, totalWeight, out) */
    /* ternary elementwise: (self, tensor1, tensor2-or-weight[, value]); Lerps' weight is a scalar (F_MODE) */
    {"Lerp", SIG_TERNARY, 0, 0, FLOATS, e_lerp, 0}, {"InplaceLerp", SIG_TERNARY, 1, 0, FLOATS, e_lerp, 0},
    {"Lerps", SIG_TERNARY, 0, 0, FLOATS, e_lerp, F_MODE}, {"InplaceLerps", SIG_TERNARY, 1, 0, FLOATS, e_lerp, F_MODE},
    {"Addcmul", SIG_TERNARY, 0, 1, ALL10 & ~B(ACL_BOOL), e_addcmul, 0},
    {"InplaceAddcmul", SIG_TERNARY, 1, 1, ALL10 & ~B(ACL_BOOL), e_addcmul, 0},
    {"Addcdiv", SIG_TERNARY, 0, 1, FLOATS, e_addcdiv, 0}, {"InplaceAddcdiv", SIG_TERNARY, 1, 1, FLOATS, e_addcdiv, 0},
    {"Arange", SIG_ARANGE, 0, 0, ALL10 & ~B(ACL_BOOL), NULL, 0},
    /* factories over out: Eye(n, m, out) (flags 0), Linspace(start, end, steps, out) (flags 1) */
    {"Eye", SIG_FILLS, 0, 0, ALL10, NULL, 0}, {"Linspace", SIG_FILLS, 0, 0, ALL10 & ~B(ACL_BOOL), NULL, 1},
    {"Flip", SIG_FLIP, 0, 0, ALL10, NULL, 0},
    /* unary with scalar / float parameters */
    {"LeakyRelu", SIG_UNARY_P, 0, 0, FLOATS, e_leaky, 0}, {"InplaceLeakyRelu", SIG_UNARY_P, 1, 0, FLOATS, e_leaky, 0},
    {"Softplus", SIG_UNARY_P, 0, 0, FLOATS, e_softplus, 0},
    {"Elu", SIG_UNARY_P, 0, 0, MMTYPES, e_elu, 0}, {"InplaceElu", SIG_UNARY_P, 1, 0, MMTYPES, e_elu, 0},
    {"NanToNum", SIG_UNARY_P, 0, 0, ALL10, e_nan2num, F_MODE}, {"InplaceNanToNum", SIG_UNARY_P, 1, 0, ALL10, e_nan2num, F_MODE},
    {"Hardtanh", SIG_CLAMP, 0, 0, ALL10 & ~B(ACL_BOOL), e_clamp, 3},
    {"InplaceHardtanh", SIG_CLAMP, 1, 0, ALL10 & ~B(ACL_BOOL), e_clamp, 3},
    /* LayerNorm(input, normalizedShape, weight?, bias?, eps, out, meanOut?, rstdOut?); F_LOG marks the backward */
    {"LayerNorm", SIG_LAYER_NORM, 0, 0, FLOATS, NULL, 0}, {"LayerNormBackward", SIG_LAYER_NORM, 0, 0, FLOATS, NULL, F_LOG},
    {"EmbeddingDenseBackward", SIG_EMBED_BWD, 0, 0, FLOATS, NULL, 0},
    {"NLLLoss", SIG_NLL, 0, 0, MMTYPES, NULL, 0}, {"NLLLossBackward", SIG_NLL, 0, 0, MMTYPES, NULL, F_LOG},
    {"InplaceNormal", SIG_RANDOM, 1, 0, FLOATS, NULL, RND_NORMAL},
    {"InplaceRandom", SIG_RANDOM, 1, 0, ALL10 & ~B(ACL_BOOL), NULL, RND_INT},
    {"InplaceBernoulli", SIG_RANDOM, 1, 0, ALL10, NULL, RND_BERNOULLI},
    {"InplaceBernoulliTensor", SIG_RANDOM, 1, 0, ALL10, NULL, RND_BERNOULLI | F_MODE},
    /* Randperm(n, seed, offset, out): Fisher-Yates, swap i draws from (seed, offset + i) */
    {"Randperm", SIG_RANDOM, 0, 0, ALL10 & ~B(ACL_BOOL), NULL, RND_PERM},
    /* Multinomial(self [C] or [N, C] weights, numsamples, replacement, seed, offset, out INT64): row r, draw s uses
     * counter offset + r * numsamples + s (with replacement) or offset + r * C + j (exponential race, without) */
    {"Multinomial", SIG_MULTINOMIAL, 0, 0, FLOATS, NULL, 0},
    /* NCHW operators (ops-nn conv/, pooling/, norm/): F_LOG marks a backward, F_MODE average pooling */
    {"Convolution", SIG_CONV, 0, 0, MMTYPES, NULL, 0},
    {"ConvolutionBackward", SIG_CONV, 0, 0, MMTYPES, NULL, F_LOG},
    {"MaxPool2dWithIndices", SIG_POOL, 0, 0, MMTYPES, NULL, 0},
    {"MaxPool2dWithIndicesBackward", SIG_POOL, 0, 0, MMTYPES, NULL, F_LOG},
    {"AvgPool2d", SIG_POOL, 0, 0, MMTYPES, NULL, F_MODE},
    {"AvgPool2dBackward", SIG_POOL, 0, 0, MMTYPES, NULL, F_MODE | F_LOG},
    {"AdaptiveAvgPool2d", SIG_ADAPTIVE, 0, 0, MMTYPES, NULL, 0},
    {"AdaptiveAvgPool2dBackward", SIG_ADAPTIVE, 0, 0, MMTYPES, NULL, F_LOG},
    {"BatchNorm", SIG_BATCH_NORM, 0, 0, MMTYPES, NULL, 0},
    {"BatchNormBackward", SIG_BATCH_NORM, 0, 0, MMTYPES, NULL, F_LOG},
    {"GroupNorm", SIG_GROUP_NORM, 0, 0, MMTYPES, NULL, 0},
    {"GroupNormBackward", SIG_GROUP_NORM, 0, 0, MMTYPES, NULL, F_LOG},
    /* statistics over an aclIntArray of dims (Prod: all dims; ProdDim: one) and scans along one dim */
    {"Prod", SIG_STATS, 0, 0, ALL10, NULL, KIND(S_PROD)}, {"ProdDim", SIG_STATS, 0, 0, ALL10, NULL, KIND(S_PROD)},
    {"LogSumExp", SIG_STATS, 0, 0, ALL10 & ~B(ACL_DOUBLE), NULL, KIND(S_LSE)},
    {"VarCorrection", SIG_STATS, 0, 0, MMTYPES, NULL, KIND(S_VAR)}, {"Std", SIG_STATS, 0, 0, MMTYPES, NULL, KIND(S_STD)},
    {"LinalgVectorNorm", SIG_STATS, 0, 0, MMTYPES, NULL, KIND(S_NORM)},
    {"Cumprod", SIG_SCAN, 0, 0, ALL10, NULL, F_MODE}, {"Cummax", SIG_SCAN, 0, 0, ALL10, NULL, R_MAX},
    {"Cummin", SIG_SCAN, 0, 0, ALL10, NULL, R_MIN},
    /* element moves (ops-nn index/, ops-math conversion/roll, math/tile): F_MODE marks IndexPutImpl, IndexAdd, Roll;
     * advanced indexing takes INT32 / INT64 index tensors here (the doc also lists BOOL masks) */
    {"Index", SIG_INDEX_LIST, 0, 0, ALL10, NULL, 0}, {"IndexPutImpl", SIG_INDEX_LIST, 1, 0, ALL10, NULL, F_MODE},
    {"IndexAdd", SIG_INDEX_DIM, 0, 0, ALL10, NULL, F_MODE}, {"InplaceIndexCopy", SIG_INDEX_DIM, 1, 0, ALL10, NULL, 0},
    {"Nonzero", SIG_NONZERO, 0, 0, ALL10, NULL, 0},
    {"Repeat", SIG_REPEAT, 0, 0, ALL10, NULL, 0}, {"Roll", SIG_REPEAT, 0, 0, ALL10, NULL, F_MODE},
    /* foreach (ops-nn foreach/): one elementwise function over every tensor of the lists; F_MODE: the scalar is
     * the function's last operand (Mul, Div, Add, Lerp), otherwise its parameter p[0] (Addcmul, Addcdiv) */
    {"ForeachMulScalarV2", SIG_FOREACH, 0, 0, MMTYPES, e_mul, F_MODE}, {"ForeachDivScalarV2", SIG_FOREACH, 0, 0, MMTYPES, e_div, F_MODE},
    {"ForeachAddScalarV2", SIG_FOREACH, 0, 0, MMTYPES, e_add, F_MODE}, {"ForeachSqrt", SIG_FOREACH, 0, 0, MMTYPES, e_sqrt, 0},
    {"ForeachLerpScalar", SIG_FOREACH, 0, 0, MMTYPES, e_lerp, F_MODE},
    {"ForeachAddcmulScalarV2", SIG_FOREACH, 0, 0, MMTYPES, e_addcmul, 0},
    {"ForeachAddcdivScalarV2", SIG_FOREACH, 0, 0, MMTYPES, e_addcdiv, 0},
    /* elementwise: ops-nn activation/erfinv, ops-math math/{lgamma,digamma,log_add_exp,gcd,is_close} */
    {"Erfinv", SIG_UNARY, 0, 0, FLOATS, e_erfinv, F_FLOAT}, {"InplaceErfinv", SIG_UNARY, 1, 0, FLOATS, e_erfinv, F_FLOAT},
    {"Lgamma", SIG_UNARY, 0, 0, B(ACL_FLOAT) | B(ACL_FLOAT16) | B(ACL_DOUBLE), e_lgamma, F_FLOAT},
    {"Digamma", SIG_UNARY, 0, 0, FLOATS, e_digamma, F_FLOAT},
    {"LogAddExp", SIG_BINARY, 0, 0, ALL10, e_logaddexp, F_FLOAT}, {"LogAddExp2", SIG_BINARY, 0, 0, ALL10, e_logaddexp2, F_FLOAT},
    {"Gcd", SIG_BINARY, 0, 0, ALL10 & ~FLOATS & ~B(ACL_BOOL), e_gcd, 0},
    {"LeftShift", SIG_BINARY, 0, 0, ALL10 & ~FLOATS & ~B(ACL_BOOL), e_lshift, 0},
    {"LeftShifts", SIG_BINARY_SCALAR, 0, 0, ALL10 & ~FLOATS & ~B(ACL_BOOL), e_lshift, 0},
    {"RightShift", SIG_BINARY, 0, 0, ALL10 & ~FLOATS & ~B(ACL_BOOL), e_rshift, 0},
    /* SearchSorted(sortedSequence, self, outInt32, right, sorter?, out); Bincount(self, weights?, minlength, out) */
    {"SearchSorted", SIG_SEARCH, 0, 0, (FLOATS & ~B(ACL_BF16)) | B(ACL_UINT8) | B(ACL_INT8) | B(ACL_INT16) | B(ACL_INT32) | B(ACL_INT64), NULL, 0},
    {"Bincount", SIG_BINCOUNT, 0, 0, ALL10, NULL, 0},
    /* ScatterReduce(self, dim, index, src, reduce, includeSelf, out): reduce 0 none, 1 add, 2 mul, 3 max, 4 min,
     * 5 mean (the header's values) */
    {"ScatterReduce", SIG_SCATTER_REDUCE, 0, 0, ALL10 & ~B(ACL_BOOL), NULL, 0},
    {"InplaceScatterReduce", SIG_SCATTER_REDUCE, 1, 0, ALL10 & ~B(ACL_BOOL), NULL, 0},
    /* linear algebra (ops-math math/cholesky, slogdet, qr, triangular_solve), the dtypes of each header */
    {"LinalgCholesky", SIG_LINALG, 0, 0, B(ACL_FLOAT) | B(ACL_BF16), NULL, KIND(LA_CHOLESKY)},
    {"Slogdet", SIG_LINALG, 0, 0, B(ACL_FLOAT) | B(ACL_DOUBLE), NULL, KIND(LA_SLOGDET)},
    {"LinalgQr", SIG_LINALG, 0, 0, B(ACL_FLOAT) | B(ACL_FLOAT16) | B(ACL_DOUBLE), NULL, KIND(LA_QR)},
    {"TriangularSolve", SIG_LINALG, 0, 0, B(ACL_FLOAT) | B(ACL_DOUBLE), NULL, KIND(LA_TRISOLVE)},
    {"Svd", SIG_SVD, 0, 0, B(ACL_FLOAT) | B(ACL_DOUBLE), NULL, 0}, /* math/svd: one-sided Jacobi here */
    {"IsClose", SIG_BINARY, 0, 0, ALL10, e_isclose, F_BOOL | F_FLOAT | F_CLOSE},
};

/* operators a chip family lacks: each op doc's product list (ops-nn docs/aclnnXxx.md) marks them unsupported on
 * the training series (910A class) or the inference series (310P) */
enum { A_910A = 1, A_310P = 2 };
const char *aclrtGetSocName(void);
static const struct { const char *op; int absent; } ABSENT[] = {
    {"Convolution", A_910A}, {"MaxPool2dWithIndices", A_910A | A_310P}, {"MaxPool2dWithIndicesBackward", A_910A | A_310P},
    {"BatchNormBackward", A_310P}, {"GroupNormBackward", A_310P},
};

static int chip_lacks(const char *op) {
    const char *soc = aclrtGetSocName();
    int fam = !soc ? 0 : !strncmp(soc, "Ascend310P", 10) ? A_310P
            : (!strncmp(soc, "Ascend910", 9) && strncmp(soc, "Ascend910B", 10) && strncmp(soc, "Ascend910_93", 12)) ? A_910A : 0;
    for (size_t i = 0; i < sizeof ABSENT / sizeof ABSENT[0]; i++)
        if (!strcmp(ABSENT[i].op, op)) return (ABSENT[i].absent & fam) != 0;
    return 0;
}

/* ---------------------------------------------------------------- dtype rules (PyTorch's) */
static int cat(int dt) { return dt == ACL_BOOL ? 0 : dt_is_float(dt) ? 2 : 1; }
static int promote(int a, int b) {
    if (a == b) return a;
    if (cat(a) != cat(b)) return cat(a) > cat(b) ? a : b;
    if (cat(a) == 2) {
        if ((a == ACL_FLOAT16 && b == ACL_BF16) || (a == ACL_BF16 && b == ACL_FLOAT16)) return ACL_FLOAT;
        return dt_size(a) >= dt_size(b) ? a : b;
    }
    if ((a == ACL_UINT8 && b == ACL_INT8) || (a == ACL_INT8 && b == ACL_UINT8)) return ACL_INT16;
    return dt_size(a) >= dt_size(b) ? a : b;
}
/* tensor op scalar: a scalar only lifts the category, to the default dtype of its category */
static int promote_scalar(int t, int s) {
    if (cat(s) <= cat(t)) return t;
    return cat(s) == 2 ? ACL_FLOAT : ACL_INT64;
}
static int can_cast(int from, int to) { return cat(to) >= cat(from); }

static const char *dtname(int dt) {
    switch (dt) {
    case ACL_FLOAT: return "FLOAT"; case ACL_FLOAT16: return "FLOAT16"; case ACL_BF16: return "BFLOAT16";
    case ACL_DOUBLE: return "DOUBLE"; case ACL_INT8: return "INT8"; case ACL_UINT8: return "UINT8";
    case ACL_INT16: return "INT16"; case ACL_INT32: return "INT32"; case ACL_INT64: return "INT64";
    case ACL_BOOL: return "BOOL";
    }
    return "unsupported";
}

/* ---------------------------------------------------------------- validation helpers */
typedef struct {
    const aclTensor *t[4]; /* t[0] output (selfRef for in-place ops), t[1] self, t[2] other, t[3] condition */
    const aclScalar *s[3]; /* s[0] other/value, s[1] alpha (Elu: alpha, scale, inputScale) */
    int64_t i[4];
    const void *arr;       /* aclIntArray (reduction dims) */
    const aclTensor *x[12]; /* further tensors (NLLLoss: weight, totalWeight, gradOutput; norms and convolution: all) */
    const void *ia[4];      /* further aclIntArrays (convolution and pooling: kernel, stride, padding, dilation) */
    const void *mask;       /* aclBoolArray outputMask of the backward operators */
    const void *list;       /* aclTensorList (Index, IndexPutImpl: the index tensors) */
    const void *lists[4];   /* the foreach operators' aclTensorLists: inputs x1..x3, then out */
    double f[3];           /* double / float attributes (random ranges, nan_to_num's replacements) */
    uint64_t seed, offset;
} args;

#define BAD(code, ...) do { aclsim_set_err(__VA_ARGS__); return (code); } while (0)

static int fmt_plain(int f) {
    return f == ACL_FORMAT_ND || f == ACL_FORMAT_NCHW || f == ACL_FORMAT_NHWC || f == ACL_FORMAT_HWCN ||
           f == ACL_FORMAT_NDHWC || f == ACL_FORMAT_NCDHW || f == ACL_FORMAT_NC || f == ACL_FORMAT_NCL;
}

/* the chip the simulator is (ACLSIM_SOC_NAME): BFLOAT16 only on 910B-class parts (910B, 910_93), as the docs say */
static int chip_has_bf16(void) {
    const char *soc = aclrtGetSocName();
    return !soc || !strncmp(soc, "Ascend910B", 10) || !strncmp(soc, "Ascend910_93", 12);
}

static aclnnStatus check_tensor(const op_def *d, const aclTensor *t, const char *what, int maxdim) {
    if (!t) BAD(ACLNN_ERR_PARAM_NULLPTR, "aclnn%sGetWorkspaceSize: %s is NULL", d->name, what);
    if (!aclsim_check_tensor(t)) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: %s is not a live aclTensor", d->name, what);
    if (!(d->dtypes & B(t->dtype)))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: %s dtype %s is not supported", d->name, what, dtname(t->dtype));
    if (t->dtype == ACL_BF16 && !chip_has_bf16())
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: %s dtype BFLOAT16 is not supported on %s", d->name, what,
            aclrtGetSocName());
    if (!fmt_plain(t->format))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: %s format %d is not ND", d->name, what, t->format);
    if ((int)t->ndim > maxdim)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: %s has %u dims, at most %d are supported", d->name, what,
            t->ndim, maxdim);
    return 0;
}

static aclnnStatus check_scalar(const op_def *d, const aclScalar *s, const char *what) {
    if (!s) BAD(ACLNN_ERR_PARAM_NULLPTR, "aclnn%sGetWorkspaceSize: %s is NULL", d->name, what);
    if (!aclsim_check_scalar(s)) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: %s is not a live aclScalar", d->name, what);
    return 0;
}

/* broadcast two shapes (right-aligned); -1 if they do not broadcast */
static int bshape(int na, const int64_t *a, int nb, const int64_t *b, int64_t *out) {
    int n = na > nb ? na : nb;
    for (int i = 0; i < n; i++) {
        int64_t x = i < n - na ? 1 : a[i - (n - na)], y = i < n - nb ? 1 : b[i - (n - nb)];
        if (x != y && x != 1 && y != 1) return -1;
        out[i] = x == 1 ? y : x;
    }
    return n;
}

static int same_shape(const aclTensor *t, int n, const int64_t *s) {
    if ((int)t->ndim != n) return 0;
    for (int i = 0; i < n; i++)
        if (t->dims[i] != s[i]) return 0;
    return 1;
}

static void shape_str(char *buf, size_t len, int n, const int64_t *s) {
    size_t k = (size_t)snprintf(buf, len, "[");
    for (int i = 0; i < n && k < len; i++) k += (size_t)snprintf(buf + k, len - k, i ? ", %lld" : "%lld", (long long)s[i]);
    if (k < len) snprintf(buf + k, len - k, "]");
}

static void snap(tview *v, const aclTensor *t) {
    memset(v, 0, sizeof *v);
    v->dt = t->dtype;
    v->nd = (int)t->ndim;
    memcpy(v->dims, t->dims, sizeof v->dims);
    memcpy(v->st, t->strides, sizeof v->st);
    v->off = t->offset;
    v->data = t->data;
}

static void snap_const(tview *v, int dt, const void *raw) {
    memset(v, 0, sizeof *v);
    v->dt = dt;
    v->is_const = 1;
    memcpy(v->cbuf, raw, (size_t)dt_size(dt));
}

static val to_domain(int dt, const void *raw, int ct) {
    val v;
    if (dt_is_float(ct)) v.f = ldf(dt, raw); else v.i = ldi(dt, raw);
    return v;
}

static int64_t numel(const tview *v) {
    int64_t n = 1;
    for (int i = 0; i < v->nd; i++) n *= v->dims[i];
    return n;
}

static int contiguous(const tview *v) {
    int64_t acc = 1;
    for (int i = v->nd - 1; i >= 0; i--) {
        if (v->dims[i] != 1 && v->st[i] != acc) return 0;
        acc *= v->dims[i];
    }
    return 1;
}

/* ---------------------------------------------------------------- kernels (run on the stream's worker) */
/* host address of a view's storage element 0, after checking its whole extent is one live allocation */
static int map_view(const tview *v, int dev, char **base, const char *op, int idx, char *msg, size_t len) {
    if (v->is_const) { *base = (char *)v->cbuf; return 0; }
    *base = NULL;
    if (numel(v) == 0) return 0;
    int64_t hi = v->off, es = dt_size(v->dt);
    for (int i = 0; i < v->nd; i++) hi += (v->dims[i] - 1) * v->st[i];
    char *h = aclsim_dev2host((char *)v->data + v->off * es, (uint64_t)((hi - v->off + 1) * es), dev);
    if (!h) {
        snprintf(msg, len, "aclnn%s: operand %d (device address %p, elements %lld..%lld) is not inside a live "
                 "allocation on device %d", op, idx, v->data, (long long)v->off, (long long)hi, dev);
        return ACL_ERROR_RT_AICORE_EXCEPTION;
    }
    *base = h - v->off * es;
    return 0;
}

typedef struct { char *p; int64_t st[SIM_MAXDIM]; int dt; } opnd;

/* operand o over an iteration space of nd dims: right-aligned, broadcast dims get stride 0 */
static void bind(opnd *o, const tview *v, char *base, int nd) {
    int es = dt_size(v->dt);
    o->dt = v->dt;
    o->p = base ? base + v->off * es : NULL;
    if (v->is_const) o->p = base;
    for (int i = 0; i < nd; i++) {
        int j = i - (nd - v->nd);
        o->st[i] = (j < 0 || v->dims[j] == 1) ? 0 : v->st[j] * es;
    }
}

/* out = fn(inputs...) over out's shape, computing in the domain of ct */
static void ew_loop(int nd, const int64_t *shape, int n, opnd *o, elem_fn fn, const val *p, int ct) {
    int64_t total = 1, idx[SIM_MAXDIM] = {0};
    for (int i = 0; i < nd; i++) total *= shape[i];
    int isf = dt_is_float(ct), recast = o[0].dt != ct;
    for (int64_t c = 0; c < total; c++) {
        val x[3];
        for (int k = 1; k < n; k++) {
            if (isf) x[k - 1].f = ldf(o[k].dt, o[k].p); else x[k - 1].i = ldi(o[k].dt, o[k].p);
        }
        val r = fn(x, p, isf);
        if (recast) { /* the result is a value of the computation dtype first, then cast to out's (as PyTorch) */
            char tmp[8];
            if (isf) { stf(ct, tmp, r.f); r.f = ldf(ct, tmp); } else { sti(ct, tmp, r.i); r.i = ldi(ct, tmp); }
        }
        if (isf) stf(o[0].dt, o[0].p, r.f); else sti(o[0].dt, o[0].p, r.i);
        for (int ax = nd - 1; ax >= 0; ax--) {
            for (int k = 0; k < n; k++) o[k].p += o[k].st[ax];
            if (++idx[ax] < shape[ax]) break;
            for (int k = 0; k < n; k++) o[k].p -= o[k].st[ax] * shape[ax];
            idx[ax] = 0;
        }
    }
}

static int k_elementwise(aclOpExecutor *e, int dev, char *ws, char *msg, size_t len) {
    (void)ws;
    const op_def *d = e->def;
    opnd o[4];
    for (int k = 0; k < e->nt; k++) {
        char *base;
        int rc = map_view(&e->t[k], dev, &base, d->name, k, msg, len);
        if (rc) return rc;
        bind(&o[k], &e->t[k], base, e->t[0].nd);
    }
    if (numel(&e->t[0])) ew_loop(e->t[0].nd, e->t[0].dims, e->nt, o, d->fn, e->p, e->ct);
    return 0;
}

/* matmul over broadcast batches; operands flagged in ip[1] were packed contiguous into the workspace */
static int k_matmul(aclOpExecutor *e, int dev, char *ws, char *msg, size_t len) {
    const op_def *d = e->def;
    tview v[3];
    char *base[3];
    memcpy(v, e->t, sizeof v);
    for (int k = 0; k < 3; k++) {
        int rc = map_view(&v[k], dev, &base[k], d->name, k, msg, len);
        if (rc) return rc;
    }
    if (!numel(&v[0])) return 0;
    char *wsh = NULL;
    if (e->ws_size) {
        wsh = aclsim_dev2host(ws, e->ws_size, dev);
        if (!wsh) {
            snprintf(msg, len, "aclnn%s: workspace %p is no longer a live allocation", d->name, (void *)ws);
            return ACL_ERROR_RT_AICORE_EXCEPTION;
        }
    }
    for (int k = 1; k < 3; k++) {
        if (!(e->ip[1] & (1 << k))) continue;
        tview packed = v[k]; /* same dims, contiguous strides, in the workspace */
        int64_t acc = 1;
        for (int i = packed.nd - 1; i >= 0; i--) { packed.st[i] = acc; acc *= packed.dims[i]; }
        packed.off = 0;
        opnd o[2];
        bind(&o[0], &packed, wsh, packed.nd);
        bind(&o[1], &v[k], base[k], packed.nd);
        ew_loop(packed.nd, packed.dims, 2, o, e_id, NULL, v[k].dt);
        v[k] = packed;
        base[k] = wsh;
        wsh += (acc * dt_size(packed.dt) + 511) / 512 * 512;
    }
    /* as 2-D: a 1-D self is [1, k], a 1-D mat2 is [k, 1] */
    const tview *a = &v[1], *b = &v[2], *out = &v[0];
    int a1 = a->nd == 1, b1 = b->nd == 1;
    int64_t m = a1 ? 1 : a->dims[a->nd - 2], kk = a->dims[a->nd - 1], n = b1 ? 1 : b->dims[b->nd - 1];
    int64_t as_m = a1 ? 0 : a->st[a->nd - 2], as_k = a->st[a->nd - 1];
    int64_t bs_k = b1 ? b->st[0] : b->st[b->nd - 2], bs_n = b1 ? 0 : b->st[b->nd - 1];
    int onb = out->nd - (a1 ? 0 : 1) - (b1 ? 0 : 1); /* batch dims of out */
    int64_t os_m = a1 ? 0 : out->st[onb], os_n = b1 ? 0 : out->st[out->nd - 1];
    int anb = a->nd - (a1 ? 1 : 2), bnb = b->nd - (b1 ? 1 : 2);
    int ea = dt_size(a->dt), eb = dt_size(b->dt), eo = dt_size(out->dt);
    int64_t batches = 1, idx[SIM_MAXDIM] = {0};
    for (int i = 0; i < onb; i++) batches *= out->dims[i];
    for (int64_t bt = 0; bt < batches; bt++) {
        int64_t ao = a->off, bo = b->off, oo = out->off;
        for (int i = 0; i < onb; i++) {
            int ja = i - (onb - anb), jb = i - (onb - bnb);
            if (ja >= 0 && a->dims[ja] != 1) ao += idx[i] * a->st[ja];
            if (jb >= 0 && b->dims[jb] != 1) bo += idx[i] * b->st[jb];
            oo += idx[i] * out->st[i];
        }
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) {
                float acc = 0.0f; /* fp16/bf16/fp32 all accumulate in float32 */
                for (int64_t p = 0; p < kk; p++)
                    acc += (float)ldf(a->dt, base[1] + (ao + i * as_m + p * as_k) * ea) *
                           (float)ldf(b->dt, base[2] + (bo + p * bs_k + j * bs_n) * eb);
                stf(out->dt, base[0] + (oo + i * os_m + j * os_n) * eo, acc);
            }
        for (int ax = onb - 1; ax >= 0; ax--) {
            if (++idx[ax] < out->dims[ax]) break;
            idx[ax] = 0;
        }
    }
    return 0;
}


/* element offsets of a row-major counter over `nd` dims: advance idx and the offsets of k views */
static void step(int nd, const int64_t *shape, int64_t *idx, int k, int64_t *off, int64_t st[][SIM_MAXDIM]) {
    for (int ax = nd - 1; ax >= 0; ax--) {
        for (int j = 0; j < k; j++) off[j] += st[j][ax];
        if (++idx[ax] < shape[ax]) return;
        for (int j = 0; j < k; j++) off[j] -= st[j][ax] * shape[ax];
        idx[ax] = 0;
    }
}

/* the offset (from `off`, in elements) of every element of an nd-dim iteration over `dims` with strides `st`, in
 * row-major order (malloc'd) */
static int64_t *strided_offsets(int nd, const int64_t *dims, const int64_t *st, int64_t off) {
    int64_t n = 1, idx[SIM_MAXDIM] = {0}, s[1][SIM_MAXDIM], o[1] = {off};
    for (int i = 0; i < nd; i++) n *= dims[i];
    memcpy(s[0], st, sizeof(int64_t) * (size_t)nd);
    int64_t *r = malloc((size_t)(n ? n : 1) * sizeof *r);
    for (int64_t k = 0; k < n; k++) {
        r[k] = o[0];
        step(nd, dims, idx, 1, o, s);
    }
    return r;
}

/* element offsets (from the storage base) of view v broadcast right-aligned to dims[nd], in row-major order */
static int64_t *offsets(const tview *v, int nd, const int64_t *dims) {
    int64_t st[SIM_MAXDIM];
    for (int i = 0; i < nd; i++) {
        int j = i - (nd - v->nd);
        st[i] = (j < 0 || v->dims[j] == 1) ? 0 : v->st[j];
    }
    return strided_offsets(nd, dims, st, v->off);
}

/* reduction: self's elements accumulate into a host buffer indexed by out's row-major position */
static int k_reduce(aclOpExecutor *e, int dev, char *ws, char *msg, size_t len) {
    (void)ws;
    const op_def *d = e->def;
    const tview *o = &e->t[0], *x = &e->t[1];
    char *ob, *xb;
    int rc;
    if ((rc = map_view(o, dev, &ob, d->name, 0, msg, len)) || (rc = map_view(x, dev, &xb, d->name, 1, msg, len))) return rc;
    int64_t on = numel(o), xn = numel(x), mask = e->ip[0], cnt = 1;
    if (!on) return 0;
    int isf = dt_is_float(e->ct) || (d->flags & R_MEAN);
    val *acc = calloc((size_t)on, sizeof *acc);
    char *seen = calloc((size_t)on, 1);
    /* out position strides over self's dims (0 on reduced dims) */
    int64_t ost[2][SIM_MAXDIM], idx[SIM_MAXDIM] = {0}, off[2] = {x->off, 0}, run = 1;
    for (int i = x->nd - 1; i >= 0; i--) {
        ost[0][i] = x->st[i];
        if (mask >> i & 1) { ost[1][i] = 0; cnt *= x->dims[i]; }
        else { ost[1][i] = run; run *= x->dims[i]; }
    }
    int es = dt_size(x->dt);
    for (int64_t c = 0; c < xn; c++) {
        const char *p = xb + off[0] * es;
        val v, *r = &acc[off[1]];
        if (isf) v.f = ldf(x->dt, p); else v.i = ldi(x->dt, p);
        if (d->flags & (R_ALL | R_ANY)) { /* over truth values: all is a min, any a max */
            int64_t t = dt_is_float(x->dt) ? ldf(x->dt, p) != 0 : ldi(x->dt, p) != 0;
            r->i = !seen[off[1]] ? t : (d->flags & R_ALL) ? (r->i && t) : (r->i || t);
            seen[off[1]] = 1;
            step(x->nd, x->dims, idx, 2, off, ost);
            continue;
        }
        if (!seen[off[1]] && (d->flags & (R_MAX | R_MIN))) *r = v;
        else if (d->flags & (R_SUM | R_MEAN)) { if (isf) r->f += v.f; else r->i = (int64_t)((uint64_t)r->i + (uint64_t)v.i); }
        else if (isf) r->f = (d->flags & R_MAX) ? fmaxn(r->f, v.f) : fminn(r->f, v.f);
        else r->i = (d->flags & R_MAX) ? (v.i > r->i ? v.i : r->i) : (v.i < r->i ? v.i : r->i);
        seen[off[1]] = 1;
        step(x->nd, x->dims, idx, 2, off, ost);
    }
    int64_t oidx[SIM_MAXDIM] = {0}, ooff[1] = {o->off}, ost2[1][SIM_MAXDIM];
    memcpy(ost2[0], o->st, sizeof ost2[0]);
    int eo = dt_size(o->dt);
    for (int64_t c = 0; c < on; c++) {
        if (d->flags & R_MEAN) acc[c].f /= (double)cnt;
        if ((d->flags & R_ALL) && !seen[c]) acc[c].i = 1; /* all() of nothing is true */
        if (isf) stf(o->dt, ob + ooff[0] * eo, acc[c].f); else sti(o->dt, ob + ooff[0] * eo, acc[c].i);
        step(o->nd, o->dims, oidx, 1, ooff, ost2);
    }
    free(acc);
    free(seen);
    return 0;
}

/* along ip[0], line by line: softmax / log-softmax (max-shifted, in double), cumsum, argmax / argmin (first
 * extreme; NaN counts as the extreme, as PyTorch) */
static int k_softmax(aclOpExecutor *e, int dev, char *ws, char *msg, size_t len) {
    (void)ws;
    const op_def *d = e->def;
    const tview *o = &e->t[0], *x = &e->t[1];
    char *ob, *xb;
    int rc;
    if ((rc = map_view(o, dev, &ob, d->name, 0, msg, len)) || (rc = map_view(x, dev, &xb, d->name, 1, msg, len))) return rc;
    char *vb = NULL;
    const tview *vv = &e->t[2];
    if ((d->flags & L_VALUES) && (rc = map_view(vv, dev, &vb, d->name, 2, msg, len))) return rc;
    if (!numel(o)) return 0;
    int ax = (int)e->ip[0];
    int64_t L = ax < 0 ? 1 : x->dims[ax], xs = ax < 0 ? 0 : x->st[ax], os = ax < 0 ? 0 : o->st[ax];
    int64_t shape[SIM_MAXDIM], st[3][SIM_MAXDIM], idx[SIM_MAXDIM] = {0}, off[3] = {x->off, o->off, vv->off}, lines = 1;
    for (int i = 0; i < x->nd; i++) {
        shape[i] = i == ax ? 1 : x->dims[i];
        st[0][i] = x->st[i];
        st[1][i] = o->st[i];
        st[2][i] = vb ? vv->st[i] : 0;
        lines *= shape[i];
    }
    int ex = dt_size(x->dt), eo = dt_size(o->dt), isf = dt_is_float(e->ct);
#define XF(k) ldf(x->dt, xb + (off[0] + (k) * xs) * ex)
#define XI(k) ldi(x->dt, xb + (off[0] + (k) * xs) * ex)
    for (int64_t c = 0; c < lines; c++) {
        if (d->flags & L_ARG) {
            int64_t best = 0;
            for (int64_t k = 1; k < L; k++) {
                if (isf) {
                    double v = XF(k), b = XF(best);
                    if (b != b) break;
                    if (v != v || ((d->flags & R_MAX) ? v > b : v < b)) best = k;
                } else {
                    int64_t v = XI(k), b = XI(best);
                    if ((d->flags & R_MAX) ? v > b : v < b) best = k;
                }
            }
            sti(o->dt, ob + off[1] * eo, best);
            if (vb) memcpy(vb + off[2] * ex, xb + (off[0] + best * xs) * ex, (size_t)ex);
        } else if (d->flags & L_CUMSUM) {
            double sf = 0;
            int64_t si = 0;
            for (int64_t k = 0; k < L; k++) {
                if (isf) { sf += XF(k); stf(o->dt, ob + (off[1] + k * os) * eo, sf); }
                else { si = (int64_t)((uint64_t)si + (uint64_t)XI(k)); sti(o->dt, ob + (off[1] + k * os) * eo, si); }
            }
        } else {
            double m = -INFINITY, sum = 0;
            for (int64_t k = 0; k < L; k++) { double v = XF(k); if (v > m || v != v) m = v; }
            for (int64_t k = 0; k < L; k++) sum += exp(XF(k) - m);
            for (int64_t k = 0; k < L; k++) {
                double z = XF(k) - m;
                stf(o->dt, ob + (off[1] + k * os) * eo, (d->flags & F_LOG) ? z - log(sum) : exp(z) / sum);
            }
        }
        step(x->nd, shape, idx, 3, off, st);
    }
#undef XF
#undef XI
    return 0;
}

/* index_select / embedding: each out element reads self at the index's value on dim ip[0] */
static int k_index(aclOpExecutor *e, int dev, char *ws, char *msg, size_t len) {
    (void)ws;
    const op_def *d = e->def;
    const tview *o = &e->t[0], *x = &e->t[1], *ix = &e->t[2];
    char *ob, *xb, *ib;
    int rc;
    if ((rc = map_view(o, dev, &ob, d->name, 0, msg, len)) || (rc = map_view(x, dev, &xb, d->name, 1, msg, len)) ||
        (rc = map_view(ix, dev, &ib, d->name, 2, msg, len)))
        return rc;
    int64_t total = numel(o), idx[SIM_MAXDIM] = {0};
    int ax = (int)e->ip[0], ind_nd = (int)e->ip[1], rank = (int)e->ip[2];
    int64_t size = rank ? x->dims[ax] : 1, es = dt_size(x->dt), ei = dt_size(ix->dt);
    for (int64_t c = 0; c < total; c++) {
        int64_t io = ix->off, xo = x->off, oo = o->off;
        for (int i = 0; i < ind_nd && ix->nd; i++) io += idx[ax + i] * ix->st[i];
        int64_t v = ldi(ix->dt, ib + io * ei);
        if (v < -size || v >= size) {
            snprintf(msg, len, "aclnn%s: index %lld is out of bounds for dim %d of size %lld", d->name, (long long)v, ax,
                     (long long)size);
            return ACL_ERROR_RT_AICORE_EXCEPTION;
        }
        if (v < 0) v += size;
        for (int i = 0; i < ax; i++) xo += idx[i] * x->st[i];
        if (rank) xo += v * x->st[ax];
        for (int i = ax + 1; i < rank; i++) xo += idx[i - 1 + ind_nd] * x->st[i];
        for (int i = 0; i < o->nd; i++) oo += idx[i] * o->st[i];
        memcpy(ob + oo * es, xb + xo * es, (size_t)es);
        for (int i = o->nd - 1; i >= 0; i--) {
            if (++idx[i] < o->dims[i]) break;
            idx[i] = 0;
        }
    }
    return 0;
}

/* a counter-based generator: 64 random bits of (seed, counter), splitmix64 finalisers over both */
static uint64_t mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static uint64_t bits64(uint64_t seed, uint64_t ctr) { return mix(mix(seed + 0x9e3779b97f4a7c15ull) ^ (ctr * 0xd1b54a32d192ed03ull)); }
static double unit(uint64_t seed, uint64_t ctr) { return (double)(bits64(seed, ctr) >> 11) * 0x1.0p-53; } /* [0, 1) */

static int k_random(aclOpExecutor *e, int dev, char *ws, char *msg, size_t len) {
    (void)ws;
    const op_def *d = e->def;
    const tview *o = &e->t[0];
    char *ob;
    int rc;
    if ((rc = map_view(o, dev, &ob, d->name, 0, msg, len))) return rc;
    int64_t total = numel(o), idx[SIM_MAXDIM] = {0}, off[1] = {o->off}, st[1][SIM_MAXDIM];
    memcpy(st[0], o->st, sizeof st[0]);
    uint64_t seed = (uint64_t)e->ip[0], base = (uint64_t)e->ip[1];
    int eo = dt_size(o->dt);
    if (d->flags & RND_PERM) { /* contiguous out (checked): 0..n-1, then Fisher-Yates from the top */
        int64_t n = total, *v = malloc((size_t)(n ? n : 1) * sizeof *v);
        for (int64_t i = 0; i < n; i++) v[i] = i;
        for (int64_t i = n - 1; i > 0; i--) {
            int64_t j = (int64_t)(bits64(seed, base + (uint64_t)i) % (uint64_t)(i + 1)), t = v[i];
            v[i] = v[j];
            v[j] = t;
        }
        for (int64_t i = 0; i < n; i++) sti(o->dt, ob + (o->off + i * (o->nd ? o->st[0] : 0)) * eo, v[i]);
        free(v);
        return 0;
    }
    char *pb = NULL;
    int64_t *po = NULL;
    if (e->nt > 1) { /* per-element probabilities, broadcast to self */
        if ((rc = map_view(&e->t[1], dev, &pb, d->name, 1, msg, len))) return rc;
        po = offsets(&e->t[1], o->nd, o->dims);
    }
    for (int64_t c = 0; c < total; c++) {
        char *p = ob + off[0] * eo;
        uint64_t ctr = base + (uint64_t)c;
        if (d->flags & RND_UNIFORM) {
            double lo = e->p[0].f, hi = e->p[1].f, v = lo + (hi - lo) * unit(seed, ctr);
            char tmp[8];
            stf(o->dt, tmp, v);
            if (ldf(o->dt, tmp) >= hi && hi > lo) v = lo; /* rounding up to `to` stays inside [from, to) */
            stf(o->dt, p, v);
        } else if (d->flags & RND_NORMAL) { /* Box-Muller over two streams at the same counter */
            double u1 = 1.0 - unit(seed, ctr), u2 = unit(seed ^ 0x5851f42d4c957f2dull, ctr);
            stf(o->dt, p, e->p[0].f + e->p[1].f * sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
        } else if (d->flags & RND_INT) {
            uint64_t range = (uint64_t)(e->p[1].i - e->p[0].i);
            sti(o->dt, p, e->p[0].i + (int64_t)(bits64(seed, ctr) % range));
        } else {
            double prob = po ? ldf(e->t[1].dt, pb + po[c] * dt_size(e->t[1].dt)) : e->p[0].f;
            sti(o->dt, p, unit(seed, ctr) < prob);
        }
        step(o->nd, o->dims, idx, 1, off, st);
    }
    free(po);
    return 0;
}

/* NLLLoss forward (loss, total weight) and backward (zeros but -w[t] * g at each row's target) */
static int k_nll(aclOpExecutor *e, int dev, char *ws, char *msg, size_t len) {
    (void)ws;
    const op_def *d = e->def;
    const tview *o = &e->t[0], *x = &e->t[1], *t = &e->t[2], *w = &e->t[3];
    char *ob, *xb, *tb, *wb;
    int rc;
    if ((rc = map_view(o, dev, &ob, d->name, 0, msg, len)) || (rc = map_view(x, dev, &xb, d->name, 1, msg, len)) ||
        (rc = map_view(t, dev, &tb, d->name, 2, msg, len)) || (rc = map_view(w, dev, &wb, d->name, 3, msg, len)))
        return rc;
    int twdt = (int)e->p[1].i, bwd = d->flags & F_LOG;
    char *twp = aclsim_dev2host((void *)(intptr_t)e->p[0].i, (uint64_t)dt_size(twdt), dev);
    char *gp = bwd ? aclsim_dev2host((void *)(intptr_t)e->p[2].i, 1, dev) : NULL;
    if (!twp || (bwd && !gp)) {
        snprintf(msg, len, "aclnn%s: totalWeight or gradOutput is not a live allocation", d->name);
        return ACL_ERROR_RT_AICORE_EXCEPTION;
    }
    int64_t red = e->ip[0], ign = e->ip[1], n = e->ip[2], c = e->ip[3], gst = e->p[3].i >> 8;
    int gdt = (int)(e->p[3].i & 0xff);
    int ex = dt_size(x->dt), et = dt_size(t->dt), ew = dt_size(w->dt), eo = dt_size(o->dt);
    int64_t xr = x->nd == 2 ? x->st[0] : 0, xc = x->st[x->nd - 1], tr = t->nd ? t->st[0] : 0;
    double total = 0, sum = 0;
    for (int64_t r = 0; r < n; r++) {
        int64_t k = ldi(t->dt, tb + (t->off + r * tr) * et);
        if (k != ign && (k < 0 || k >= c)) {
            snprintf(msg, len, "aclnn%s: target %lld is out of bounds for %lld classes", d->name, (long long)k, (long long)c);
            return ACL_ERROR_RT_AICORE_EXCEPTION;
        }
        double wk = k == ign ? 0.0 : ldf(w->dt, wb + (w->off + k * w->st[0]) * ew);
        total += wk;
        if (!bwd) {
            double loss = k == ign ? 0.0 : -wk * ldf(x->dt, xb + (x->off + r * xr + k * xc) * ex);
            sum += loss;
            if (!red) stf(o->dt, ob + (o->off + r * (o->nd ? o->st[0] : 0)) * eo, loss);
        }
    }
    if (!bwd) {
        if (red) stf(o->dt, ob + o->off * eo, red == 1 ? sum / total : sum);
        stf(twdt, twp, total);
        return 0;
    }
    double tw = ldf(twdt, twp);
    int64_t orow = o->nd == 2 ? o->st[0] : 0, ocol = o->st[o->nd - 1];
    for (int64_t r = 0; r < n; r++) {
        int64_t k = ldi(t->dt, tb + (t->off + r * tr) * et);
        for (int64_t j = 0; j < c; j++) stf(o->dt, ob + (o->off + r * orow + j * ocol) * eo, 0.0);
        if (k == ign) continue;
        double wk = ldf(w->dt, wb + (w->off + k * w->st[0]) * ew);
        double g = ldf(gdt, gp + (red ? 0 : r * gst) * dt_size(gdt));
        stf(o->dt, ob + (o->off + r * orow + k * ocol) * eo, red == 1 ? (tw != 0 ? -wk * g / tw : 0.0) : -wk * g);
    }
    return 0;
}

static int k_arange(aclOpExecutor *e, int dev, char *ws, char *msg, size_t len) {
    (void)ws;
    const tview *o = &e->t[0];
    char *ob;
    int rc;
    if ((rc = map_view(o, dev, &ob, "Arange", 0, msg, len))) return rc;
    int64_t n = numel(o), es = dt_size(o->dt);
    for (int64_t i = 0; i < n; i++) {
        char *p = ob + (o->off + i * (o->nd ? o->st[0] : 0)) * es;
        if (dt_is_float(e->ct)) stf(o->dt, p, e->p[0].f + (double)i * e->p[1].f);
        else sti(o->dt, p, (int64_t)((uint64_t)e->p[0].i + (uint64_t)i * (uint64_t)e->p[1].i));
    }
    return 0;
}

/* element r*cols + c of a view whose last k dims are dense: row r steps through the outer dims */
static int64_t row_off(const tview *v, int k, int64_t r) {
    int64_t off = v->off;
    for (int i = v->nd - k - 1; i >= 0; i--) { off += (r % v->dims[i]) * v->st[i]; r /= v->dims[i]; }
    return off;
}

static int k_layer_norm(aclOpExecutor *e, int dev, char *ws, char *msg, size_t len) {
    (void)ws;
    const op_def *d = e->def;
    char *b[8] = {0};
    int rc;
    for (int j = 0; j < 8; j++)
        if (e->t[j].data && (rc = map_view(&e->t[j], dev, &b[j], d->name, j, msg, len))) return rc;
    int k = (int)e->ip[0];
    int64_t rows = e->ip[1], cols = e->ip[2];
    const tview *t = e->t;
#define AT(j, r, c) (b[j] + (row_off(&t[j], k, (r)) + (c)) * dt_size(t[j].dt))
#define PAR(j, c) (b[j] + (t[j].off + (c) * (t[j].nd ? t[j].st[t[j].nd - 1] : 0)) * dt_size(t[j].dt))
#define STAT(j, r) (b[j] + row_off(&t[j], 0, (r)) * dt_size(t[j].dt))
    if (!(d->flags & F_LOG)) { /* x: input, weight, bias, out, mean, rstd */
        for (int64_t r = 0; r < rows; r++) {
            double m = 0, v = 0;
            for (int64_t c = 0; c < cols; c++) m += ldf(t[0].dt, AT(0, r, c));
            m /= (double)cols;
            for (int64_t c = 0; c < cols; c++) { double z = ldf(t[0].dt, AT(0, r, c)) - m; v += z * z; }
            double rs = 1.0 / sqrt(v / (double)cols + e->p[0].f);
            for (int64_t c = 0; c < cols; c++) {
                double y = (ldf(t[0].dt, AT(0, r, c)) - m) * rs;
                if (b[1]) y *= ldf(t[1].dt, PAR(1, c));
                if (b[2]) y += ldf(t[2].dt, PAR(2, c));
                stf(t[3].dt, AT(3, r, c), y);
            }
            if (b[4]) stf(t[4].dt, STAT(4, r), m);
            if (b[5]) stf(t[5].dt, STAT(5, r), rs);
        }
        return 0;
    }
    /* x: gradOut, input, mean, rstd, weight, gradInput, gradWeight, gradBias */
    double *gw = calloc((size_t)cols, sizeof *gw), *gb = calloc((size_t)cols, sizeof *gb);
    for (int64_t r = 0; r < rows; r++) {
        double m = ldf(t[2].dt, STAT(2, r)), rs = ldf(t[3].dt, STAT(3, r)), s1 = 0, s2 = 0;
        for (int64_t c = 0; c < cols; c++) {
            double g = ldf(t[0].dt, AT(0, r, c)), xh = (ldf(t[1].dt, AT(1, r, c)) - m) * rs;
            double gx = b[4] ? g * ldf(t[4].dt, PAR(4, c)) : g;
            s1 += gx;
            s2 += gx * xh;
            gw[c] += g * xh;
            gb[c] += g;
        }
        s1 /= (double)cols;
        s2 /= (double)cols;
        if (b[5])
            for (int64_t c = 0; c < cols; c++) {
                double g = ldf(t[0].dt, AT(0, r, c)), xh = (ldf(t[1].dt, AT(1, r, c)) - m) * rs;
                double gx = b[4] ? g * ldf(t[4].dt, PAR(4, c)) : g;
                stf(t[5].dt, AT(5, r, c), rs * (gx - s1 - xh * s2));
            }
    }
    for (int64_t c = 0; c < cols; c++) {
        if (b[6]) stf(t[6].dt, PAR(6, c), gw[c]);
        if (b[7]) stf(t[7].dt, PAR(7, c), gb[c]);
    }
    free(gw);
    free(gb);
#undef AT
#undef PAR
#undef STAT
    return 0;
}

static int k_embed_bwd(aclOpExecutor *e, int dev, char *ws, char *msg, size_t len) {
    (void)ws;
    const tview *o = &e->t[0], *g = &e->t[1], *ix = &e->t[2];
    char *ob, *gb, *ib;
    int rc;
    if ((rc = map_view(o, dev, &ob, "EmbeddingDenseBackward", 0, msg, len)) ||
        (rc = map_view(g, dev, &gb, "EmbeddingDenseBackward", 1, msg, len)) ||
        (rc = map_view(ix, dev, &ib, "EmbeddingDenseBackward", 2, msg, len)))
        return rc;
    int64_t nw = e->ip[0], pad = e->ip[1], n = e->ip[2], dd = e->ip[3];
    double *acc = calloc((size_t)(nw * dd), sizeof *acc);
    int64_t *cnt = calloc((size_t)nw, sizeof *cnt);
    for (int64_t i = 0; i < n; i++) {
        int64_t k = ldi(ix->dt, ib + (ix->off + i) * dt_size(ix->dt));
        if (k < 0 || k >= nw) {
            free(acc); free(cnt);
            snprintf(msg, len, "aclnnEmbeddingDenseBackward: index %lld is out of range", (long long)k);
            return ACL_ERROR_RT_AICORE_EXCEPTION;
        }
        cnt[k]++;
    }
    for (int64_t i = 0; i < n; i++) {
        int64_t k = ldi(ix->dt, ib + (ix->off + i) * dt_size(ix->dt));
        if (k == pad) continue;
        double sc = e->p[0].i ? 1.0 / (double)cnt[k] : 1.0;
        for (int64_t c = 0; c < dd; c++) acc[k * dd + c] += sc * ldf(g->dt, gb + (g->off + i * dd + c) * dt_size(g->dt));
    }
    for (int64_t r = 0; r < nw; r++)
        for (int64_t c = 0; c < dd; c++) stf(o->dt, ob + (o->off + r * o->st[0] + c * o->st[1]) * dt_size(o->dt), acc[r * dd + c]);
    free(acc);
    free(cnt);
    return 0;
}

/* tril / triu: keep (i, j) of the last two dims where j - i <= diag (tril) or >= diag (triu), else 0 */
static int k_tri(aclOpExecutor *e, int dev, char *ws, char *msg, size_t len) {
    (void)ws;
    const op_def *d = e->def;
    const tview *o = &e->t[0], *x = &e->t[1];
    char *ob, *xb;
    int rc;
    if ((rc = map_view(o, dev, &ob, d->name, 0, msg, len)) || (rc = map_view(x, dev, &xb, d->name, 1, msg, len))) return rc;
    int64_t total = numel(o), idx[SIM_MAXDIM] = {0}, off[2] = {o->off, x->off}, st[2][SIM_MAXDIM];
    memcpy(st[0], o->st, sizeof st[0]);
    memcpy(st[1], x->st, sizeof st[1]);
    int es = dt_size(o->dt), nd = o->nd;
    for (int64_t c = 0; c < total; c++) {
        int64_t diff = idx[nd - 1] - idx[nd - 2];
        int keep = d->flags ? diff >= e->ip[0] : diff <= e->ip[0];
        if (keep) memmove(ob + off[0] * es, xb + off[1] * es, (size_t)es);
        else memset(ob + off[0] * es, 0, (size_t)es);
        step(nd, o->dims, idx, 2, off, st);
    }
    return 0;
}

typedef struct { double v; int64_t i; } keyed;
static __thread int sort_desc;
static int key_cmp(const void *pa, const void *pb) { /* NaN is the largest; ties keep their order (stable) */
    const keyed *a = pa, *b = pb;
    int an = a->v != a->v, bn = b->v != b->v, c;
    if (an || bn) c = an - bn;
    else c = (a->v > b->v) - (a->v < b->v);
    if (sort_desc) c = -c;
    return c ? c : (a->i > b->i) - (a->i < b->i);
}

static int key_cmp_int(const void *pa, const void *pb) { /* the keys hold int64 bits */
    const keyed *a = pa, *b = pb;
    int64_t x, y;
    memcpy(&x, &a->v, 8);
    memcpy(&y, &b->v, 8);
    int c = (x > y) - (x < y);
    if (sort_desc) c = -c;
    return c ? c : (a->i > b->i) - (a->i < b->i);
}

static int k_sort(aclOpExecutor *e, int dev, char *ws, char *msg, size_t len) {
    (void)ws;
    const op_def *d = e->def;
    const tview *io = &e->t[0], *x = &e->t[1], *vo = &e->t[2];
    char *ib, *xb, *vb;
    int rc;
    if ((rc = map_view(io, dev, &ib, d->name, 0, msg, len)) || (rc = map_view(x, dev, &xb, d->name, 1, msg, len)) ||
        (rc = map_view(vo, dev, &vb, d->name, 2, msg, len)))
        return rc;
    if (!numel(x) || !e->ip[1]) return 0;
    int ax = (int)e->ip[0];
    int64_t L = ax < 0 ? 1 : x->dims[ax], k = e->ip[1];
    int64_t xs = ax < 0 ? 0 : x->st[ax], is = ax < 0 ? 0 : io->st[ax], vs = ax < 0 ? 0 : vo->st[ax];
    int64_t shape[SIM_MAXDIM], st[3][SIM_MAXDIM], idx[SIM_MAXDIM] = {0}, off[3] = {x->off, io->off, vo->off}, lines = 1;
    for (int i = 0; i < x->nd; i++) {
        shape[i] = i == ax ? 1 : x->dims[i];
        st[0][i] = x->st[i];
        st[1][i] = io->st[i];
        st[2][i] = vo->st[i];
        lines *= shape[i];
    }
    int ex = dt_size(x->dt), isf = dt_is_float(x->dt);
    keyed *buf = malloc((size_t)L * sizeof *buf);
    sort_desc = (int)e->ip[2];
    for (int64_t c = 0; c < lines; c++) {
        for (int64_t j = 0; j < L; j++) {
            const char *p = xb + (off[0] + j * xs) * ex;
            buf[j].v = isf ? ldf(x->dt, p) : (double)ldi(x->dt, p);
            buf[j].i = j;
        }
        if (!isf) { /* int64 beyond 2^53 would collide in double: compare exactly */
            for (int64_t j = 0; j < L; j++) { int64_t v = ldi(x->dt, xb + (off[0] + j * xs) * ex); memcpy(&buf[j].v, &v, 8); }
        }
        qsort(buf, (size_t)L, sizeof *buf, isf ? key_cmp : key_cmp_int);
        for (int64_t j = 0; j < k; j++) {
            memcpy(vb + (off[2] + j * vs) * ex, xb + (off[0] + buf[j].i * xs) * ex, (size_t)ex);
            sti(ACL_INT64, ib + (off[1] + j * is) * 8, buf[j].i);
        }
        step(x->nd, shape, idx, 3, off, st);
    }
    free(buf);
    return 0;
}

static int k_elements(aclOpExecutor *e, int dev, char *ws, char *msg, size_t len) {
    (void)ws;
    const op_def *d = e->def;
    const tview *o = &e->t[0], *x = &e->t[1], *ix = &e->t[2], *sv = &e->t[3];
    char *ob, *xb, *ib, *sb = NULL;
    int rc, scatter = (int)e->ip[2];
    if ((rc = map_view(o, dev, &ob, d->name, 0, msg, len)) || (rc = map_view(x, dev, &xb, d->name, 1, msg, len)) ||
        (rc = map_view(ix, dev, &ib, d->name, 2, msg, len)) || (scatter && (rc = map_view(sv, dev, &sb, d->name, 3, msg, len))))
        return rc;
    int ax = (int)e->ip[0], nd = ix->nd, es = dt_size(x->dt), ei = dt_size(ix->dt), isf = dt_is_float(x->dt);
    int64_t size = x->nd ? x->dims[ax] : 1;
    if (scatter && ob != xb) { /* out starts as a copy of self (in place, they are one view) */
        int64_t idx[SIM_MAXDIM] = {0}, off[2] = {o->off, x->off}, st[2][SIM_MAXDIM];
        memcpy(st[0], o->st, sizeof st[0]);
        memcpy(st[1], x->st, sizeof st[1]);
        for (int64_t c = 0, n = numel(o); c < n; c++) {
            memmove(ob + off[0] * es, xb + off[1] * es, (size_t)es);
            step(o->nd, o->dims, idx, 2, off, st);
        }
    }
    int64_t idx[SIM_MAXDIM] = {0}, total = numel(ix);
    for (int64_t c = 0; c < total; c++) {
        int64_t io = ix->off, so = sv->off, to = 0;
        for (int i = 0; i < nd; i++) { io += idx[i] * ix->st[i]; if (!sv->is_const) so += idx[i] * sv->st[i]; }
        int64_t v = ldi(ix->dt, ib + io * ei);
        if (v < 0 || v >= size) {
            snprintf(msg, len, "aclnn%s: index %lld is out of bounds for dim %d of size %lld", d->name, (long long)v, ax, (long long)size);
            return ACL_ERROR_RT_AICORE_EXCEPTION;
        }
        const tview *tv = scatter ? o : x;
        to = tv->off;
        for (int i = 0; i < tv->nd; i++) to += (i == ax ? v : idx[i]) * tv->st[i];
        if (!scatter) {
            int64_t oo = o->off;
            for (int i = 0; i < nd; i++) oo += idx[i] * o->st[i];
            memcpy(ob + oo * es, xb + to * es, (size_t)es);
        } else {
            char *dst = ob + to * es;
            const char *from = sv->is_const ? sb : sb + so * es;
            int sdt = sv->dt;
            if (e->ip[1] == 0) { if (isf) stf(o->dt, dst, ldf(sdt, from)); else sti(o->dt, dst, ldi(sdt, from)); }
            else if (isf) stf(o->dt, dst, e->ip[1] == 1 ? ldf(o->dt, dst) + ldf(sdt, from) : ldf(o->dt, dst) * ldf(sdt, from));
            else sti(o->dt, dst, e->ip[1] == 1 ? (int64_t)((uint64_t)ldi(o->dt, dst) + (uint64_t)ldi(sdt, from))
                                               : (int64_t)((uint64_t)ldi(o->dt, dst) * (uint64_t)ldi(sdt, from)));
        }
        for (int i = nd - 1; i >= 0; i--) {
            if (++idx[i] < ix->dims[i]) break;
            idx[i] = 0;
        }
    }
    return 0;
}

static int k_multinomial(aclOpExecutor *e, int dev, char *ws, char *msg, size_t len) {
    (void)ws;
    const tview *o = &e->t[0], *x = &e->t[1];
    char *ob, *xb;
    int rc;
    if ((rc = map_view(o, dev, &ob, "Multinomial", 0, msg, len)) || (rc = map_view(x, dev, &xb, "Multinomial", 1, msg, len))) return rc;
    int64_t rows = x->nd == 2 ? x->dims[0] : 1, c = x->dims[x->nd - 1], n = e->ip[2];
    int64_t xr = x->nd == 2 ? x->st[0] : 0, xc = x->st[x->nd - 1], orow = o->nd == 2 ? o->st[0] : 0, ocol = o->st[o->nd - 1];
    uint64_t seed = (uint64_t)e->ip[0], base = (uint64_t)e->ip[1];
    keyed *buf = malloc((size_t)c * sizeof *buf);
    double *cdf = malloc((size_t)c * sizeof *cdf);
    int es = dt_size(x->dt);
    sort_desc = 0;
    for (int64_t r = 0; r < rows; r++) {
        double total = 0;
        for (int64_t j = 0; j < c; j++) {
            double p = ldf(x->dt, xb + (x->off + r * xr + j * xc) * es);
            if (!(p >= 0) || isinf(p)) {
                free(buf); free(cdf);
                snprintf(msg, len, "aclnnMultinomial: probability tensor contains either inf, nan or element < 0");
                return ACL_ERROR_RT_AICORE_EXCEPTION;
            }
            total += p;
            cdf[j] = total;
        }
        if (!(total > 0)) {
            free(buf); free(cdf);
            snprintf(msg, len, "aclnnMultinomial: invalid multinomial distribution (sum of probabilities <= 0)");
            return ACL_ERROR_RT_AICORE_EXCEPTION;
        }
        for (int64_t s = 0; s < n; s++) {
            int64_t pick;
            if (e->ip[3]) {
                double u = unit(seed, base + (uint64_t)(r * n + s)) * total;
                int64_t lo = 0, hi = c - 1;
                while (lo < hi) { int64_t mid = (lo + hi) / 2; if (cdf[mid] > u) hi = mid; else lo = mid + 1; }
                while (lo > 0 && cdf[lo] == cdf[lo - 1]) lo--; /* never a zero-probability category */
                pick = lo;
            } else {
                if (s == 0) {
                    for (int64_t j = 0; j < c; j++) {
                        double p = ldf(x->dt, xb + (x->off + r * xr + j * xc) * es);
                        buf[j].v = p > 0 ? -log(1.0 - unit(seed, base + (uint64_t)(r * c + j))) / p : INFINITY;
                        buf[j].i = j;
                    }
                    qsort(buf, (size_t)c, sizeof *buf, key_cmp);
                }
                pick = buf[s].i;
            }
            sti(ACL_INT64, ob + (o->off + r * orow + s * ocol) * 8, pick);
        }
    }
    free(buf);
    free(cdf);
    return 0;
}

static int k_fills(aclOpExecutor *e, int dev, char *ws, char *msg, size_t len) {
    (void)ws;
    const op_def *d = e->def;
    const tview *o = &e->t[0];
    char *ob;
    int rc;
    if ((rc = map_view(o, dev, &ob, d->name, 0, msg, len))) return rc;
    int es = dt_size(o->dt);
    if (!d->flags) {
        for (int64_t i = 0; i < o->dims[0]; i++)
            for (int64_t j = 0; j < o->dims[1]; j++) sti(o->dt, ob + (o->off + i * o->st[0] + j * o->st[1]) * es, i == j);
        return 0;
    }
    int64_t n = o->dims[0];
    double a = e->p[0].f, b = e->p[1].f, st = n > 1 ? (b - a) / (double)(n - 1) : 0;
    for (int64_t i = 0; i < n; i++) /* from both ends, as PyTorch, so the last value is exactly `end` */
        stf(o->dt, ob + (o->off + i * o->st[0]) * es, (i < n / 2 || n == 1) ? a + (double)i * st : b - (double)(n - 1 - i) * st);
    return 0;
}

static int k_flip(aclOpExecutor *e, int dev, char *ws, char *msg, size_t len) {
    (void)ws;
    const tview *o = &e->t[0], *x = &e->t[1];
    char *ob, *xb;
    int rc;
    if ((rc = map_view(o, dev, &ob, "Flip", 0, msg, len)) || (rc = map_view(x, dev, &xb, "Flip", 1, msg, len))) return rc;
    int64_t total = numel(o), idx[SIM_MAXDIM] = {0}, mask = e->ip[0];
    int es = dt_size(o->dt);
    for (int64_t c = 0; c < total; c++) {
        int64_t oo = o->off, xo = x->off;
        for (int i = 0; i < o->nd; i++) {
            oo += idx[i] * o->st[i];
            xo += ((mask >> i & 1) ? x->dims[i] - 1 - idx[i] : idx[i]) * x->st[i];
        }
        memcpy(ob + oo * es, xb + xo * es, (size_t)es);
        for (int i = o->nd - 1; i >= 0; i--) {
            if (++idx[i] < o->dims[i]) break;
            idx[i] = 0;
        }
    }
    return 0;
}

/* ---------------------------------------------------------------- validators, one per signature */
static aclnnStatus v_binary(const op_def *d, args *a, aclOpExecutor *e) {
    const char *nm = d->name;
    const aclTensor *self = d->inplace ? a->t[0] : a->t[1], *out = a->t[0], *other = a->t[2];
    aclnnStatus rc;
    if ((rc = check_tensor(d, self, d->inplace ? "selfRef" : "self", 8))) return rc;
    int scalar_other = d->sig == SIG_BINARY_SCALAR;
    int odt;
    if (scalar_other) {
        if ((rc = check_scalar(d, a->s[0], "other"))) return rc;
        odt = a->s[0]->dtype;
    } else {
        if ((rc = check_tensor(d, other, "other", 8))) return rc;
        odt = other->dtype;
    }
    if (!d->inplace && (rc = check_tensor(d, out, "out", 8))) return rc;
    if (d->has_alpha && (rc = check_scalar(d, a->s[1], "alpha"))) return rc;
    int ct = scalar_other ? promote_scalar(self->dtype, odt) : promote(self->dtype, odt);
    if ((d->flags & F_MODE) && (a->i[0] < 0 || a->i[0] > 2))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: mode %lld is not 0, 1 or 2", nm, (long long)a->i[0]);
    if (((d->flags & F_FLOAT) || ((d->flags & F_MODE) && !a->i[0])) && !dt_is_float(ct)) ct = ACL_FLOAT;
    if (!(d->dtypes & B(ct))) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: promoted dtype %s is not supported", nm, dtname(ct));
    if (!(d->flags & F_BOOL) && !can_cast(ct, out->dtype))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: result dtype %s cannot be cast to %s %s", nm, dtname(ct),
            d->inplace ? "selfRef" : "out", dtname(out->dtype));
    if (d->has_alpha) {
        int adt = a->s[1]->dtype;
        if (!can_cast(adt, ct) || (adt == ACL_BOOL && ct != ACL_BOOL))
            BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: alpha of dtype %s cannot be converted to %s", nm,
                dtname(adt), dtname(ct));
    }
    int64_t bs[SIM_MAXDIM];
    int nb = scalar_other ? (int)self->ndim : bshape((int)self->ndim, self->dims, (int)other->ndim, other->dims, bs);
    if (scalar_other) memcpy(bs, self->dims, sizeof(int64_t) * self->ndim);
    char s1[256], s2[256];
    if (nb < 0) {
        shape_str(s1, sizeof s1, (int)self->ndim, self->dims);
        shape_str(s2, sizeof s2, (int)other->ndim, other->dims);
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: shapes %s and %s cannot broadcast", nm, s1, s2);
    }
    if (!same_shape(out, nb, bs)) {
        shape_str(s1, sizeof s1, (int)out->ndim, out->dims);
        shape_str(s2, sizeof s2, nb, bs);
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: %s shape %s is not the broadcast shape %s", nm,
            d->inplace ? "selfRef" : "out", s1, s2);
    }
    e->ct = ct;
    e->nt = 3;
    snap(&e->t[0], out);
    snap(&e->t[1], self);
    if (scalar_other) snap_const(&e->t[2], odt, a->s[0]->raw); else snap(&e->t[2], other);
    if (d->has_alpha) e->p[0] = to_domain(a->s[1]->dtype, a->s[1]->raw, ct);
    if (d->flags & F_MODE) e->p[0].i = a->i[0];
    if (d->flags & F_CLOSE) { e->p[1].f = a->f[0]; e->p[2].f = a->f[1]; e->p[3].i = a->i[0]; }
    if (d->fn == e_lshift || d->fn == e_rshift) e->p[1].i = 8 * dt_size(ct);
    return 0;
}

static aclnnStatus v_unary(const op_def *d, args *a, aclOpExecutor *e) { /* Cast, InplaceCopy, Fill, Zero */
    const aclTensor *out = a->t[0];
    aclnnStatus rc;
    if ((rc = check_tensor(d, out, d->inplace ? "selfRef" : "out", 8))) return rc;
    e->nt = 2;
    snap(&e->t[0], out);
    if (d->sig == SIG_ZERO) {
        int64_t zero = 0;
        snap_const(&e->t[1], ACL_INT64, &zero);
    } else if (d->sig == SIG_FILL) {
        if ((rc = check_scalar(d, a->s[0], "value"))) return rc;
        snap_const(&e->t[1], a->s[0]->dtype, a->s[0]->raw);
    } else {
        const aclTensor *src = a->t[1];
        if ((rc = check_tensor(d, src, d->sig == SIG_CAST ? "self" : "src", 8))) return rc;
        int64_t bs[SIM_MAXDIM];
        char s1[256], s2[256];
        if (d->sig == SIG_CAST) {
            if (a->i[0] != out->dtype)
                BAD(ACLNN_ERR_PARAM_INVALID, "aclnnCastGetWorkspaceSize: dtype %s differs from out dtype %s",
                    dtname((int)a->i[0]), dtname(out->dtype));
            if (!same_shape(out, (int)src->ndim, src->dims)) {
                shape_str(s1, sizeof s1, (int)src->ndim, src->dims);
                shape_str(s2, sizeof s2, (int)out->ndim, out->dims);
                BAD(ACLNN_ERR_PARAM_INVALID, "aclnnCastGetWorkspaceSize: self shape %s differs from out shape %s", s1, s2);
            }
        } else { /* copy_: src broadcasts to selfRef */
            int nb = bshape((int)out->ndim, out->dims, (int)src->ndim, src->dims, bs);
            if (nb < 0 || !same_shape(out, nb, bs)) {
                shape_str(s1, sizeof s1, (int)src->ndim, src->dims);
                shape_str(s2, sizeof s2, (int)out->ndim, out->dims);
                BAD(ACLNN_ERR_PARAM_INVALID, "aclnnInplaceCopyGetWorkspaceSize: src shape %s cannot broadcast to selfRef "
                    "shape %s", s1, s2);
            }
        }
        snap(&e->t[1], src);
    }
    e->ct = e->t[1].dt; /* convert from the source's domain: float -> int truncates */
    return 0;
}

static aclnnStatus v_matmul(const op_def *d, args *a, aclOpExecutor *e) {
    const char *nm = d->name;
    const aclTensor *self = a->t[1], *mat2 = a->t[2], *out = a->t[0];
    aclnnStatus rc;
    if ((rc = check_tensor(d, self, "self", 6)) || (rc = check_tensor(d, mat2, "mat2", 6)) ||
        (rc = check_tensor(d, out, "out", 6)))
        return rc;
    int na = (int)self->ndim, nb = (int)mat2->ndim;
    int want = d->sig == SIG_MM ? 2 : d->sig == SIG_BMM ? 3 : 0;
    if (want && (na != want || nb != want || (int)out->ndim != want))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: self, mat2 and out must be %d-D (got %d, %d, %u)", nm,
            want, na, nb, out->ndim);
    if ((d->sig == SIG_MV && (na != 2 || nb != 1)) || (d->sig == SIG_DOT && (na != 1 || nb != 1)))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: operands of %d and %d dims", nm, na, nb);
    if (na < 1 || nb < 1) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: self and mat2 need at least 1 dim", nm);
    int ct = promote(self->dtype, mat2->dtype);
    int8_t cube = (int8_t)a->i[0];
    if (cube < 0 || cube > 4 || (cube == 2 && ct == ACL_BF16) || (cube == 3 && ct != ACL_FLOAT))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: cubeMathType %d is not supported for %s", nm, cube, dtname(ct));
    int64_t ka = self->dims[na - 1], kb = nb == 1 ? mat2->dims[0] : mat2->dims[nb - 2];
    if (ka != kb)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: inner dims differ (self %lld, mat2 %lld)", nm,
            (long long)ka, (long long)kb);
    int64_t shape[SIM_MAXDIM];
    int anb = na > 2 ? na - 2 : 0, bnb = nb > 2 ? nb - 2 : 0;
    int n = bshape(anb, self->dims, bnb, mat2->dims, shape);
    if (n < 0 || (d->sig == SIG_BMM && self->dims[0] != mat2->dims[0]))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: batch dims do not match", nm);
    if (na > 1) shape[n++] = self->dims[na - 2];
    if (nb > 1) shape[n++] = mat2->dims[nb - 1];
    if (!same_shape(out, n, shape)) {
        char s1[256], s2[256];
        shape_str(s1, sizeof s1, (int)out->ndim, out->dims);
        shape_str(s2, sizeof s2, n, shape);
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: out shape %s, expected %s", nm, s1, s2);
    }
    e->ct = ct;
    e->nt = 3;
    e->ip[0] = cube;
    snap(&e->t[0], out);
    snap(&e->t[1], self);
    snap(&e->t[2], mat2);
    for (int k = 1; k < 3; k++) /* non-contiguous operands are packed into the workspace first */
        if (!contiguous(&e->t[k])) {
            e->ip[1] |= 1 << k;
            e->ws_size += (uint64_t)((numel(&e->t[k]) * dt_size(e->t[k].dt) + 511) / 512 * 512);
        }
    return 0;
}


/* unary math: out (or selfRef) = fn(self), same shape; F_FLOAT ops compute integers as FLOAT */
static aclnnStatus v_unary_math(const op_def *d, args *a, aclOpExecutor *e) {
    const aclTensor *self = d->inplace ? a->t[0] : a->t[1], *out = a->t[0];
    aclnnStatus rc;
    if ((rc = check_tensor(d, self, d->inplace ? "selfRef" : "self", 8))) return rc;
    if (!d->inplace && (rc = check_tensor(d, out, "out", 8))) return rc;
    int ct = (d->flags & F_FLOAT) && !dt_is_float(self->dtype) ? ACL_FLOAT : self->dtype;
    if (!(d->flags & F_BOOL) && !can_cast(ct, out->dtype))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: result dtype %s cannot be cast to %s %s", d->name,
            dtname(ct), d->inplace ? "selfRef" : "out", dtname(out->dtype));
    if (!same_shape(out, (int)self->ndim, self->dims)) {
        char s1[256], s2[256];
        shape_str(s1, sizeof s1, (int)self->ndim, self->dims);
        shape_str(s2, sizeof s2, (int)out->ndim, out->dims);
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: self shape %s differs from out shape %s", d->name, s1, s2);
    }
    if (d->fn == e_gelu2 && (a->i[0] < 0 || a->i[0] > 1))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnnGeluV2GetWorkspaceSize: approximate %lld is not 0 or 1", (long long)a->i[0]);
    e->ct = ct;
    e->nt = 2;
    e->p[0].i = a->i[0];
    snap(&e->t[0], out);
    snap(&e->t[1], self);
    return 0;
}

/* scalar op tensor (PowScalarTensor): out has the tensor's shape; the scalar only lifts the category */
static aclnnStatus v_scalar_tensor(const op_def *d, args *a, aclOpExecutor *e) {
    const aclTensor *t = a->t[2], *out = a->t[0];
    aclnnStatus rc;
    if ((rc = check_scalar(d, a->s[0], "self")) || (rc = check_tensor(d, t, "exponent", 8)) ||
        (rc = check_tensor(d, out, "out", 8)))
        return rc;
    int ct = promote_scalar(t->dtype, a->s[0]->dtype);
    if (!(d->dtypes & B(ct)) || !can_cast(ct, out->dtype))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: result dtype %s into out %s is not supported", d->name,
            dtname(ct), dtname(out->dtype));
    if (!same_shape(out, (int)t->ndim, t->dims))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: out shape differs from exponent shape", d->name);
    e->ct = ct;
    e->nt = 3;
    snap(&e->t[0], out);
    snap_const(&e->t[1], a->s[0]->dtype, a->s[0]->raw);
    snap(&e->t[2], t);
    return 0;
}

/* out = condition ? self : other, all three broadcast to out */
static aclnnStatus v_where(const op_def *d, args *a, aclOpExecutor *e) {
    const aclTensor *out = a->t[0], *cond = a->t[3], *self = a->t[1], *other = a->t[2];
    aclnnStatus rc;
    if ((rc = check_tensor(d, cond, "condition", 8)) || (rc = check_tensor(d, self, "self", 8)) ||
        (rc = check_tensor(d, other, "other", 8)) || (rc = check_tensor(d, out, "out", 8)))
        return rc;
    if (cond->dtype != ACL_BOOL && cond->dtype != ACL_UINT8)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnnSWhereGetWorkspaceSize: condition dtype %s is not BOOL or UINT8", dtname(cond->dtype));
    int ct = promote(self->dtype, other->dtype);
    if (!can_cast(ct, out->dtype))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnnSWhereGetWorkspaceSize: result dtype %s cannot be cast to out %s", dtname(ct),
            dtname(out->dtype));
    int64_t s1[SIM_MAXDIM], s2[SIM_MAXDIM];
    int n = bshape((int)self->ndim, self->dims, (int)other->ndim, other->dims, s1);
    if (n >= 0) n = bshape(n, s1, (int)cond->ndim, cond->dims, s2);
    if (n < 0 || !same_shape(out, n, s2))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnnSWhereGetWorkspaceSize: condition, self, other and out do not broadcast");
    e->ct = ct;
    e->nt = 4;
    snap(&e->t[0], out);
    snap(&e->t[1], cond);
    snap(&e->t[2], self);
    snap(&e->t[3], other);
    return 0;
}

/* reductions: ip[0] bit mask of reduced dims; ReduceSum/Mean take a dtype that must be out's */
/* the bit mask of the reduced dims of a rank-`rank` tensor: nd dims (negative ones wrap), none meaning all */
static aclnnStatus dims_mask(const op_def *d, const int64_t *dims, uint64_t nd, int rank, int64_t *mask) {
    *mask = 0;
    for (uint64_t i = 0; i < nd; i++) {
        int64_t k = dims[i];
        if (k < -(rank ? rank : 1) || k >= (rank ? rank : 1))
            BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: dim %lld is out of range for %d dims", d->name,
                (long long)k, rank);
        if (rank) *mask |= (int64_t)1 << (k < 0 ? k + rank : k);
    }
    if (!nd) *mask = rank ? ((int64_t)1 << rank) - 1 : 0;
    return 0;
}

static aclnnStatus v_reduce(const op_def *d, args *a, aclOpExecutor *e) {
    const aclTensor *self = a->t[1], *out = a->t[0];
    aclnnStatus rc;
    if ((rc = check_tensor(d, self, "self", 8)) || (rc = check_tensor(d, out, "out", 8))) return rc;
    if (!a->arr) BAD(ACLNN_ERR_PARAM_NULLPTR, "aclnn%sGetWorkspaceSize: dim is NULL", d->name);
    uint64_t nd;
    const int64_t *dims = aclsim_int_array(a->arr, &nd);
    if (!dims) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: dim is not a live aclIntArray", d->name);
    int rank = (int)self->ndim;
    int64_t mask;
    if ((rc = dims_mask(d, dims, nd, rank, &mask))) return rc;
    int keep = (int)a->i[0];
    int64_t shape[SIM_MAXDIM];
    int n = 0;
    for (int i = 0; i < rank; i++) {
        if (!(mask >> i & 1)) shape[n++] = self->dims[i];
        else if (keep) shape[n++] = 1;
        else if (!self->dims[i] && (d->flags & (R_MAX | R_MIN)))
            BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: reducing an empty dim %d", d->name, i);
        if ((mask >> i & 1) && !self->dims[i] && (d->flags & (R_MAX | R_MIN)))
            BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: reducing an empty dim %d", d->name, i);
    }
    if (!same_shape(out, n, shape)) {
        char s1[256], s2[256];
        shape_str(s1, sizeof s1, (int)out->ndim, out->dims);
        shape_str(s2, sizeof s2, n, shape);
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: out shape %s, expected %s", d->name, s1, s2);
    }
    int ct = self->dtype;
    if (d->flags & (R_SUM | R_MEAN)) {
        if (a->i[1] != out->dtype)
            BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: dtype %s differs from out dtype %s", d->name,
                dtname((int)a->i[1]), dtname(out->dtype));
        ct = out->dtype;
        if (!can_cast(self->dtype, ct) && !(d->flags & R_SUM))
            BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: cannot reduce %s into %s", d->name,
                dtname(self->dtype), dtname(ct));
    } else if (d->flags & (R_ALL | R_ANY)) {
        if (out->dtype != ACL_BOOL && out->dtype != ACL_UINT8)
            BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: out dtype %s is not BOOL or UINT8", d->name, dtname(out->dtype));
        ct = ACL_INT64;
    } else if (out->dtype != self->dtype) {
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: out dtype %s differs from self dtype %s", d->name,
            dtname(out->dtype), dtname(self->dtype));
    }
    e->ct = ct;
    e->nt = 2;
    e->ip[0] = mask;
    snap(&e->t[0], out);
    snap(&e->t[1], self);
    return 0;
}

/* ops along the lines of one dim (ip[0]): softmax, log-softmax, cumsum (out like self); argmax/argmin (out
 * INT64 without that dim, or with it as 1 under keepdim) */
static aclnnStatus v_softmax(const op_def *d, args *a, aclOpExecutor *e) {
    const aclTensor *self = a->t[1], *out = a->t[0];
    aclnnStatus rc;
    if ((rc = check_tensor(d, self, "self", 8))) return rc;
    if (!out) BAD(ACLNN_ERR_PARAM_NULLPTR, "aclnn%sGetWorkspaceSize: out is NULL", d->name);
    if (!aclsim_check_tensor(out)) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: out is not a live aclTensor", d->name);
    int rank = (int)self->ndim, r1 = rank ? rank : 1;
    int64_t dim = a->i[0];
    if (dim < -r1 || dim >= r1)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: dim %lld is out of range for %d dims", d->name,
            (long long)dim, rank);
    int ax = rank ? (int)(dim < 0 ? dim + rank : dim) : -1;
    int64_t shape[SIM_MAXDIM];
    int n = 0;
    for (int i = 0; i < rank; i++)
        if (!(d->flags & L_ARG) || i != ax) shape[n++] = self->dims[i];
        else if (a->i[1]) shape[n++] = 1;
    if (!same_shape(out, n, shape))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: out shape is not the result shape", d->name);
    const aclTensor *vals = a->t[2];
    if ((d->flags & L_VALUES) && ((rc = check_tensor(d, vals, "out", 8)) || vals->dtype != self->dtype ||
                                  !same_shape(vals, n, shape)))
        return rc ? rc : (aclsim_set_err("aclnn%sGetWorkspaceSize: out must have indices' shape and self's dtype", d->name),
                          ACLNN_ERR_PARAM_INVALID);
    if ((d->flags & L_ARG) && out->dtype != ACL_INT64 && out->dtype != ACL_INT32)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: out dtype %s is not INT64 or INT32", d->name, dtname(out->dtype));
    if ((d->flags & L_ARG) && ax >= 0 && !self->dims[ax])
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: dim %d is empty", d->name, ax);
    if ((d->flags & L_CUMSUM) && a->i[1] != out->dtype)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnnCumsumGetWorkspaceSize: dtype %s differs from out dtype %s",
            dtname((int)a->i[1]), dtname(out->dtype));
    if (!(d->flags & L_ARG) && !(d->dtypes & B(out->dtype)))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: out dtype %s is not supported", d->name, dtname(out->dtype));
    e->ct = (d->flags & L_ARG) ? self->dtype : out->dtype;
    e->nt = (d->flags & L_VALUES) ? 3 : 2;
    e->ip[0] = ax;
    snap(&e->t[0], out);
    snap(&e->t[1], self);
    if (d->flags & L_VALUES) snap(&e->t[2], vals);
    for (int j = 0; j < 3; j += 2) /* outputs viewed with the reduced dim back in, stride 0 */
        if ((d->flags & L_ARG) && ax >= 0 && !a->i[1] && (j == 0 || (d->flags & L_VALUES))) {
            tview *o = &e->t[j];
            for (int i = o->nd; i > ax; i--) { o->dims[i] = o->dims[i - 1]; o->st[i] = o->st[i - 1]; }
            o->dims[ax] = 1;
            o->st[ax] = 0;
            o->nd++;
        }
    return 0;
}

/* IndexSelect(self, dim, index, out) and Embedding(weight, indices, out): index INT32/INT64 */
static aclnnStatus v_index(const op_def *d, args *a, aclOpExecutor *e) {
    const aclTensor *self = a->t[1], *index = a->t[2], *out = a->t[0];
    aclnnStatus rc;
    if ((rc = check_tensor(d, self, "self", 8)) || (rc = check_tensor(d, out, "out", 8))) return rc;
    if (!index) BAD(ACLNN_ERR_PARAM_NULLPTR, "aclnn%sGetWorkspaceSize: index is NULL", d->name);
    if (!aclsim_check_tensor(index)) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: index is not a live aclTensor", d->name);
    if (index->dtype != ACL_INT64 && index->dtype != ACL_INT32)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: index dtype %s is not INT64 or INT32", d->name, dtname(index->dtype));
    int rank = (int)self->ndim;
    int64_t dim = (d->flags & F_EMBED) ? 0 : a->i[0];
    if ((d->flags & F_EMBED) && rank != 2) BAD(ACLNN_ERR_PARAM_INVALID, "aclnnEmbeddingGetWorkspaceSize: weight must be 2-D");
    if (!(d->flags & F_EMBED) && index->ndim > 1) BAD(ACLNN_ERR_PARAM_INVALID, "aclnnIndexSelectGetWorkspaceSize: index must be 0-D or 1-D");
    int r1 = rank ? rank : 1;
    if (dim < -r1 || dim >= r1)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: dim %lld is out of range", d->name, (long long)dim);
    int ax = rank ? (int)(dim < 0 ? dim + rank : dim) : 0;
    int64_t shape[SIM_MAXDIM];
    int n = 0;
    for (int i = 0; i < ax; i++) shape[n++] = self->dims[i];
    int ind_nd = (d->flags & F_EMBED) || index->ndim ? (int)index->ndim : (rank ? 1 : 0);
    if (ind_nd == (int)index->ndim) for (uint32_t i = 0; i < index->ndim; i++) shape[n++] = index->dims[i];
    else if (ind_nd) shape[n++] = 1;
    for (int i = ax + 1; i < rank; i++) shape[n++] = self->dims[i];
    if (n > SIM_MAXDIM || !same_shape(out, n, shape) || out->dtype != self->dtype)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: out is not the selected shape and self's dtype", d->name);
    e->nt = 3;
    e->ct = self->dtype;
    e->ip[0] = ax;
    e->ip[1] = ind_nd;
    e->ip[2] = rank;
    snap(&e->t[0], out);
    snap(&e->t[1], self);
    snap(&e->t[2], index);
    return 0;
}

/* InplaceMaskedFillScalar(selfRef, mask, value): mask BOOL, broadcast to selfRef */
static aclnnStatus v_masked_fill(const op_def *d, args *a, aclOpExecutor *e) {
    const aclTensor *self = a->t[0], *mask = a->t[2];
    aclnnStatus rc;
    if ((rc = check_tensor(d, self, "selfRef", 8)) || (rc = check_tensor(d, mask, "mask", 8)) ||
        (rc = check_scalar(d, a->s[0], "value")))
        return rc;
    if (mask->dtype != ACL_BOOL && mask->dtype != ACL_UINT8)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnnInplaceMaskedFillScalarGetWorkspaceSize: mask dtype %s is not BOOL", dtname(mask->dtype));
    int64_t bs[SIM_MAXDIM];
    int n = bshape((int)self->ndim, self->dims, (int)mask->ndim, mask->dims, bs);
    if (n < 0 || !same_shape(self, n, bs))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnnInplaceMaskedFillScalarGetWorkspaceSize: mask does not broadcast to selfRef");
    e->nt = 4;
    e->ct = self->dtype;
    snap(&e->t[0], self);
    snap(&e->t[1], mask);
    snap_const(&e->t[2], a->s[0]->dtype, a->s[0]->raw);
    snap(&e->t[3], self);
    return 0;
}

/* random fills of selfRef: ip[0] seed, ip[1] offset; p[0], p[1] the range / mean, std / probability */
static aclnnStatus v_random(const op_def *d, args *a, aclOpExecutor *e) {
    const aclTensor *self = a->t[0];
    aclnnStatus rc;
    if ((rc = check_tensor(d, self, "selfRef", 8))) return rc;
    if (d->flags & RND_UNIFORM) {
        if (!(a->f[0] <= a->f[1])) BAD(ACLNN_ERR_PARAM_INVALID, "aclnnInplaceUniformGetWorkspaceSize: from > to");
        e->p[0].f = a->f[0];
        e->p[1].f = a->f[1];
    } else if (d->flags & RND_NORMAL) {
        if (!(a->f[1] >= 0)) BAD(ACLNN_ERR_PARAM_INVALID, "aclnnInplaceNormalGetWorkspaceSize: std %g is negative", a->f[1]);
        e->p[0].f = a->f[0];
        e->p[1].f = a->f[1];
    } else if (d->flags & RND_INT) {
        if (a->i[0] >= a->i[1]) BAD(ACLNN_ERR_PARAM_INVALID, "aclnnInplaceRandomGetWorkspaceSize: from >= to");
        e->p[0].i = a->i[0];
        e->p[1].i = a->i[1];
    } else if (d->flags & RND_PERM) {
        if (a->i[0] < 0 || self->ndim != 1 || self->dims[0] != a->i[0] || (self->dims[0] > 1 && self->strides[0] != 1))
            BAD(ACLNN_ERR_PARAM_INVALID, "aclnnRandpermGetWorkspaceSize: out must be a contiguous 1-d tensor of n elements");
    } else if (d->flags & F_MODE) {
        const aclTensor *pt = a->t[1];
        int64_t bs[SIM_MAXDIM];
        if (!pt || !aclsim_check_tensor(pt) || !dt_is_float(pt->dtype))
            BAD(ACLNN_ERR_PARAM_INVALID, "aclnnInplaceBernoulliTensorGetWorkspaceSize: prob must be a floating aclTensor");
        if (bshape((int)self->ndim, self->dims, (int)pt->ndim, pt->dims, bs) != (int)self->ndim || !same_shape(self, (int)self->ndim, bs))
            BAD(ACLNN_ERR_PARAM_INVALID, "aclnnInplaceBernoulliTensorGetWorkspaceSize: prob does not broadcast to selfRef");
        snap(&e->t[1], pt);
    } else {
        if ((rc = check_scalar(d, a->s[0], "prob"))) return rc;
        double p = ldf(a->s[0]->dtype, (const char *)a->s[0]->raw);
        if (!(p >= 0 && p <= 1)) BAD(ACLNN_ERR_PARAM_INVALID, "aclnnInplaceBernoulliGetWorkspaceSize: prob %g is not in [0, 1]", p);
        e->p[0].f = p;
    }
    e->nt = (d->flags & RND_BERNOULLI) && (d->flags & F_MODE) ? 2 : 1;
    e->ct = self->dtype;
    e->ip[0] = (int64_t)a->seed;
    e->ip[1] = (int64_t)a->offset;
    snap(&e->t[0], self);
    return 0;
}

/* t: out, self, target; x: weight, totalWeight, gradOutput (backward). A 1-D self is one row. */
static aclnnStatus v_nll(const op_def *d, args *a, aclOpExecutor *e) {
    const aclTensor *out = a->t[0], *self = a->t[1], *target = a->t[2], *weight = a->x[0], *tw = a->x[1], *g = a->x[2];
    int bwd = d->flags & F_LOG;
    aclnnStatus rc;
    if ((rc = check_tensor(d, self, "self", 2)) || (rc = check_tensor(d, weight, "weight", 1)) ||
        (rc = check_tensor(d, out, bwd ? "out" : "out", 2)) || (rc = check_tensor(d, tw, "totalWeight", 1)))
        return rc;
    if (bwd && (rc = check_tensor(d, g, "gradOutput", 1))) return rc;
    if (!target) BAD(ACLNN_ERR_PARAM_NULLPTR, "aclnn%sGetWorkspaceSize: target is NULL", d->name);
    if (!aclsim_check_tensor(target) || (target->dtype != ACL_INT64 && target->dtype != ACL_UINT8 && target->dtype != ACL_INT32))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: target must be an INT64, INT32 or UINT8 tensor", d->name);
    if (self->ndim < 1) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: self must be 1-D or 2-D", d->name);
    int64_t n = self->ndim == 2 ? self->dims[0] : 1, c = self->dims[self->ndim - 1];
    int64_t red = a->i[0];
    if (red < 0 || red > 2) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: reduction %lld is not 0, 1 or 2", d->name, (long long)red);
    if ((int64_t)(target->ndim ? target->dims[0] : 1) != n || target->ndim != self->ndim - 1)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: target shape does not match self's batch", d->name);
    if (weight->ndim != 1 || weight->dims[0] != c)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: weight must be [C] with C = %lld", d->name, (long long)c);
    if (bwd ? !same_shape(out, (int)self->ndim, self->dims)
            : (red ? out->ndim != 0 : (int)out->ndim != (int)self->ndim - 1 || (out->ndim && out->dims[0] != n)))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: out shape is not the result shape", d->name);
    e->nt = 4;
    e->ct = self->dtype;
    e->ip[0] = red;
    e->ip[1] = a->i[1];
    e->ip[2] = n;
    e->ip[3] = c;
    snap(&e->t[0], out);
    snap(&e->t[1], self);
    snap(&e->t[2], target);
    snap(&e->t[3], weight);
    /* the executor holds 4 views: the backward's gradOutput and totalWeight ride in p[] as device addresses */
    e->p[0].i = (int64_t)(intptr_t)tw->data + tw->offset * dt_size(tw->dtype);
    e->p[1].i = tw->dtype;
    e->p[2].i = bwd ? (int64_t)(intptr_t)g->data + g->offset * dt_size(g->dtype) : 0;
    e->p[3].i = bwd ? (g->dtype | (int64_t)(g->ndim ? g->strides[0] : 0) << 8) : 0;
    return 0;
}

/* t[0] out (selfRef), t[1] self, t[2] tensor1/end, t[3] tensor2/weight (or s[0], a scalar weight); s[1] value */
static aclnnStatus v_ternary(const op_def *d, args *a, aclOpExecutor *e) {
    const aclTensor *out = a->t[0], *self = d->inplace ? a->t[0] : a->t[1], *t1 = a->t[2], *t2 = a->t[3];
    int sw = d->flags & F_MODE;
    aclnnStatus rc;
    if ((rc = check_tensor(d, self, d->inplace ? "selfRef" : "self", 8)) || (rc = check_tensor(d, t1, "tensor1", 8)) ||
        (!d->inplace && (rc = check_tensor(d, out, "out", 8))))
        return rc;
    if (sw ? (rc = check_scalar(d, a->s[0], "weight")) : (rc = check_tensor(d, t2, "tensor2", 8))) return rc;
    if (d->has_alpha && (rc = check_scalar(d, a->s[1], "value"))) return rc;
    int ct = promote(self->dtype, t1->dtype);
    if (!sw) ct = promote(ct, t2->dtype);
    if (!(d->dtypes & B(ct)) || !can_cast(ct, out->dtype))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: result dtype %s into %s is not supported", d->name,
            dtname(ct), dtname(out->dtype));
    int64_t s1[SIM_MAXDIM], s2[SIM_MAXDIM];
    int n = bshape((int)self->ndim, self->dims, (int)t1->ndim, t1->dims, s1);
    if (sw) { memcpy(s2, s1, sizeof s1); }
    else if (n >= 0) n = bshape(n, s1, (int)t2->ndim, t2->dims, s2);
    if (n < 0 || !same_shape(out, n, s2))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: operands do not broadcast to %s", d->name,
            d->inplace ? "selfRef" : "out");
    e->ct = ct;
    e->nt = 4;
    snap(&e->t[0], out);
    snap(&e->t[1], self);
    snap(&e->t[2], t1);
    if (sw) snap_const(&e->t[3], a->s[0]->dtype, a->s[0]->raw); else snap(&e->t[3], t2);
    if (d->has_alpha) e->p[0] = to_domain(a->s[1]->dtype, a->s[1]->raw, ct);
    return 0;
}

/* Arange(start, end, step, out): out[i] = start + i * step over out's length (the caller sizes out) */
static aclnnStatus v_arange(const op_def *d, args *a, aclOpExecutor *e) {
    const aclTensor *out = a->t[0];
    aclnnStatus rc;
    if ((rc = check_tensor(d, out, "out", 1)) || (rc = check_scalar(d, a->s[0], "start")) ||
        (rc = check_scalar(d, a->s[1], "step")))
        return rc;
    int ct = dt_is_float(out->dtype) ? ACL_DOUBLE : ACL_INT64;
    e->p[0] = to_domain(a->s[0]->dtype, a->s[0]->raw, ct);
    e->p[1] = to_domain(a->s[1]->dtype, a->s[1]->raw, ct);
    if (dt_is_float(ct) ? e->p[1].f == 0 : e->p[1].i == 0) BAD(ACLNN_ERR_PARAM_INVALID, "aclnnArangeGetWorkspaceSize: step is 0");
    e->nt = 1;
    e->ct = ct;
    snap(&e->t[0], out);
    return 0;
}

/* the normalized block (last k dims) must be dense, rows may stride: this simulator is stricter than CANN */
static int dense_tail(const aclTensor *t, int k) {
    int64_t acc = 1;
    for (int i = (int)t->ndim - 1; i >= (int)t->ndim - k; i--) {
        if (t->dims[i] != 1 && t->strides[i] != acc) return 0;
        acc *= t->dims[i];
    }
    return 1;
}

/* forward x: {input, weight, bias, out, mean, rstd}; backward x: {gradOut, input, mean, rstd, weight, gradInput,
 * gradWeight, gradBias}; normalized shape in arr, eps in f[0]; t[] holds the same views in that order */
static aclnnStatus v_layer_norm(const op_def *d, args *a, aclOpExecutor *e) {
    int bwd = d->flags & F_LOG;
    const aclTensor *in = a->x[bwd ? 1 : 0];
    aclnnStatus rc;
    if ((rc = check_tensor(d, in, "input", 8))) return rc;
    uint64_t k;
    const int64_t *ns = a->arr ? aclsim_int_array(a->arr, &k) : NULL;
    if (!ns) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: normalizedShape is not a live aclIntArray", d->name);
    if (!k || k > in->ndim) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: normalizedShape has %llu dims", d->name, (unsigned long long)k);
    int64_t cols = 1, rows = 1;
    for (uint64_t i = 0; i < k; i++) {
        if (ns[i] != in->dims[in->ndim - k + i])
            BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: normalizedShape does not match input's last dims", d->name);
        cols *= ns[i];
    }
    for (uint32_t i = 0; i < in->ndim - k; i++) rows *= in->dims[i];
    for (int j = 0; j < 8; j++) {
        const aclTensor *t = a->x[j];
        if (!t) { memset(&e->t[j], 0, sizeof e->t[j]); continue; }
        if ((rc = check_tensor(d, t, "operand", 8))) return rc;
        int64_t n = 1;
        for (uint32_t i = 0; i < t->ndim; i++) n *= t->dims[i];
        int stat = bwd ? (j == 2 || j == 3) : (j == 4 || j == 5), param = bwd ? (j == 4 || j == 6 || j == 7) : (j == 1 || j == 2);
        int64_t want = stat ? rows : param ? cols : rows * cols;
        if (n != want) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: operand %d has %lld elements, expected %lld",
                           d->name, j, (long long)n, (long long)want);
        if (!stat && !param && !dense_tail(t, (int)k))
            BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: operand %d's normalized dims are not dense", d->name, j);
        snap(&e->t[j], t);
    }
    if (!a->x[bwd ? 5 : 3] && !bwd) BAD(ACLNN_ERR_PARAM_NULLPTR, "aclnnLayerNormGetWorkspaceSize: out is NULL");
    e->nt = 8;
    e->ct = in->dtype;
    e->ip[0] = (int64_t)k;
    e->ip[1] = rows;
    e->ip[2] = cols;
    e->p[0].f = a->f[0];
    return 0;
}

/* EmbeddingDenseBackward(grad [..., D], indices, numWeights, paddingIdx, scaleGradByFreq, out [numWeights, D]) */
static aclnnStatus v_embed_bwd(const op_def *d, args *a, aclOpExecutor *e) {
    const aclTensor *g = a->t[1], *ix = a->t[2], *out = a->t[0];
    aclnnStatus rc;
    if ((rc = check_tensor(d, g, "grad", 8)) || (rc = check_tensor(d, out, "out", 2))) return rc;
    if (!ix || !aclsim_check_tensor(ix) || (ix->dtype != ACL_INT64 && ix->dtype != ACL_INT32))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnnEmbeddingDenseBackwardGetWorkspaceSize: indices must be an INT64/INT32 tensor");
    int64_t dd = g->ndim ? g->dims[g->ndim - 1] : 1, n = 1, gn = 1;
    for (uint32_t i = 0; i < ix->ndim; i++) n *= ix->dims[i];
    for (uint32_t i = 0; i < g->ndim; i++) gn *= g->dims[i];
    if (out->ndim != 2 || out->dims[0] != a->i[0] || out->dims[1] != dd || gn != n * dd || !dense_tail(g, (int)g->ndim))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnnEmbeddingDenseBackwardGetWorkspaceSize: grad, indices and out do not agree");
    if (!dense_tail(ix, (int)ix->ndim) || !dense_tail(out, 2))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnnEmbeddingDenseBackwardGetWorkspaceSize: operands must be contiguous");
    e->nt = 3;
    e->ct = out->dtype;
    e->ip[0] = a->i[0];
    e->ip[1] = a->i[1];
    e->ip[2] = n;
    e->ip[3] = dd;
    e->p[0].i = a->seed; /* scaleGradByFreq */
    snap(&e->t[0], out);
    snap(&e->t[1], g);
    snap(&e->t[2], ix);
    return 0;
}

/* Clamp / ClampMin / ClampMax (flags: 1 min given, 2 max given); a bound the op takes may not be NULL */
static aclnnStatus v_clamp(const op_def *d, args *a, aclOpExecutor *e) {
    const aclTensor *self = d->inplace ? a->t[0] : a->t[1], *out = a->t[0];
    aclnnStatus rc;
    if ((rc = check_tensor(d, self, d->inplace ? "selfRef" : "self", 8)) || (!d->inplace && (rc = check_tensor(d, out, "out", 8))))
        return rc;
    const aclScalar *lo = a->s[0], *hi = a->s[1];
    if (d->flags == 3 && !lo && !hi) BAD(ACLNN_ERR_PARAM_NULLPTR, "aclnnClampGetWorkspaceSize: min and max are both NULL");
    if ((d->flags == 1 && !lo) || (d->flags == 2 && !hi)) BAD(ACLNN_ERR_PARAM_NULLPTR, "aclnn%sGetWorkspaceSize: bound is NULL", d->name);
    if ((lo && (rc = check_scalar(d, lo, "min"))) || (hi && (rc = check_scalar(d, hi, "max")))) return rc;
    int ct = self->dtype;
    if (lo) ct = promote_scalar(ct, lo->dtype);
    if (hi) ct = promote_scalar(ct, hi->dtype);
    if (!can_cast(ct, out->dtype) || !same_shape(out, (int)self->ndim, self->dims))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: out must have self's shape and hold %s", d->name, dtname(ct));
    e->ct = ct;
    e->nt = 2;
    if (lo) e->p[0] = to_domain(lo->dtype, lo->raw, ct);
    if (hi) e->p[1] = to_domain(hi->dtype, hi->raw, ct);
    e->p[2].i = lo != NULL;
    e->p[3].i = hi != NULL;
    snap(&e->t[0], out);
    snap(&e->t[1], self);
    return 0;
}

static aclnnStatus v_tri(const op_def *d, args *a, aclOpExecutor *e) {
    const aclTensor *self = d->inplace ? a->t[0] : a->t[1], *out = a->t[0];
    aclnnStatus rc;
    if ((rc = check_tensor(d, self, d->inplace ? "selfRef" : "self", 8)) || (!d->inplace && (rc = check_tensor(d, out, "out", 8))))
        return rc;
    if (self->ndim < 2) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: self needs at least 2 dims", d->name);
    if (!same_shape(out, (int)self->ndim, self->dims) || out->dtype != self->dtype)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: out must have self's shape and dtype", d->name);
    e->ct = self->dtype;
    e->nt = 2;
    e->ip[0] = a->i[0];
    snap(&e->t[0], out);
    snap(&e->t[1], self);
    return 0;
}

/* t: indices, self, values; i: {dim, k}; ip: {axis, k, descending} */
static aclnnStatus v_sort(const op_def *d, args *a, aclOpExecutor *e) {
    const aclTensor *idx = a->t[0], *self = a->t[1], *vals = a->t[2];
    aclnnStatus rc;
    if ((rc = check_tensor(d, self, "self", 8)) || (rc = check_tensor(d, vals, "valuesOut", 8))) return rc;
    if (!idx || !aclsim_check_tensor(idx) || idx->dtype != ACL_INT64)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: indicesOut must be an INT64 tensor", d->name);
    int rank = (int)self->ndim, r1 = rank ? rank : 1;
    int64_t dim = a->i[0];
    if (dim < -r1 || dim >= r1) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: dim %lld is out of range", d->name, (long long)dim);
    int ax = rank ? (int)(dim < 0 ? dim + rank : dim) : -1;
    int64_t size = ax < 0 ? 1 : self->dims[ax], k = (d->flags & F_MODE) ? a->i[1] : size;
    if (k < 0 || k > size) BAD(ACLNN_ERR_PARAM_INVALID, "aclnnTopkGetWorkspaceSize: k %lld is not in [0, %lld]", (long long)k, (long long)size);
    int64_t shape[SIM_MAXDIM];
    for (int i = 0; i < rank; i++) shape[i] = i == ax ? k : self->dims[i];
    if (!same_shape(vals, rank, shape) || !same_shape(idx, rank, shape) || vals->dtype != self->dtype)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: valuesOut / indicesOut shape or dtype is wrong", d->name);
    e->nt = 3;
    e->ct = self->dtype;
    e->ip[0] = ax;
    e->ip[1] = k;
    e->ip[2] = a->seed; /* descending (Sort) / largest (Topk) */
    snap(&e->t[0], idx);
    snap(&e->t[1], self);
    snap(&e->t[2], vals);
    return 0;
}

/* t: out (selfRef), self, index, src (or the value as a constant); ip: {axis, reduce} */
static aclnnStatus v_elements(const op_def *d, args *a, aclOpExecutor *e) {
    const aclTensor *out = a->t[0], *self = d->inplace ? a->t[0] : a->t[1], *index = a->t[2], *src = a->t[3];
    int scatter = d->flags & F_MODE, value = d->flags & F_FLOAT;
    aclnnStatus rc;
    if ((rc = check_tensor(d, self, d->inplace ? "selfRef" : "self", 8)) || (!d->inplace && (rc = check_tensor(d, out, "out", 8))))
        return rc;
    if (!index || !aclsim_check_tensor(index) || (index->dtype != ACL_INT64 && index->dtype != ACL_INT32))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: index must be an INT64 or INT32 tensor", d->name);
    if (value ? (rc = check_scalar(d, a->s[0], "value")) : scatter ? (rc = check_tensor(d, src, "src", 8)) : 0) return rc;
    int rank = (int)self->ndim, r1 = rank ? rank : 1;
    int64_t dim = a->i[0];
    if (dim < -r1 || dim >= r1) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: dim %lld is out of range", d->name, (long long)dim);
    int ax = rank ? (int)(dim < 0 ? dim + rank : dim) : 0;
    if ((int)index->ndim != rank && !(rank == 0 && index->ndim <= 1))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: index must have self's rank", d->name);
    for (int i = 0; i < (int)index->ndim && rank; i++) {
        if (i != ax && index->dims[i] > self->dims[i])
            BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: index is larger than self in dim %d", d->name, i);
        if (scatter && !value && (src->ndim != index->ndim || index->dims[i] > src->dims[i]))
            BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: index is larger than src in dim %d", d->name, i);
    }
    if (scatter ? !same_shape(out, rank, self->dims) : !same_shape(out, (int)index->ndim, index->dims))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: out shape is wrong", d->name);
    if (out->dtype != self->dtype || (scatter && !value && src->dtype != self->dtype))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: self, src and out must share a dtype", d->name);
    int64_t reduce = !strcmp(d->name, "ScatterAdd") ? 1 : scatter ? a->i[1] : 0;
    if (reduce < 0 || reduce > 2) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: reduce %lld is not 0, 1 or 2", d->name, (long long)reduce);
    e->nt = 4;
    e->ct = self->dtype;
    e->ip[0] = ax;
    e->ip[1] = reduce;
    e->ip[2] = scatter;
    snap(&e->t[0], out);
    snap(&e->t[1], self);
    snap(&e->t[2], index);
    if (value) snap_const(&e->t[3], a->s[0]->dtype, a->s[0]->raw);
    else if (scatter) snap(&e->t[3], src);
    return 0;
}

static aclnnStatus v_multinomial(const op_def *d, args *a, aclOpExecutor *e) {
    const aclTensor *self = a->t[1], *out = a->t[0];
    aclnnStatus rc;
    if ((rc = check_tensor(d, self, "self", 2)) || !out || !aclsim_check_tensor(out))
        return rc ? rc : (aclsim_set_err("aclnnMultinomialGetWorkspaceSize: out is not a live aclTensor"), ACLNN_ERR_PARAM_INVALID);
    int64_t n = a->i[0], c = self->ndim ? self->dims[self->ndim - 1] : 0;
    if (self->ndim < 1 || n <= 0 || (!a->i[1] && n > c))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnnMultinomialGetWorkspaceSize: numsamples %lld does not fit %lld categories", (long long)n, (long long)c);
    int64_t shape[2] = {self->dims[0], n};
    if (out->dtype != ACL_INT64 || !same_shape(out, (int)self->ndim, self->ndim == 2 ? shape : shape + 1))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnnMultinomialGetWorkspaceSize: out must be INT64 of shape [..., numsamples]");
    e->nt = 2;
    e->ct = ACL_DOUBLE;
    e->ip[0] = (int64_t)a->seed;
    e->ip[1] = (int64_t)a->offset;
    e->ip[2] = n;
    e->ip[3] = a->i[1];
    snap(&e->t[0], out);
    snap(&e->t[1], self);
    return 0;
}

/* unary with parameters: scalars s[0], s[1] (LeakyRelu, Softplus) or floats f[0..2] (F_MODE: NanToNum) */
static aclnnStatus v_unary_p(const op_def *d, args *a, aclOpExecutor *e) {
    const aclTensor *self = d->inplace ? a->t[0] : a->t[1], *out = a->t[0];
    aclnnStatus rc;
    if ((rc = check_tensor(d, self, d->inplace ? "selfRef" : "self", 8)) || (!d->inplace && (rc = check_tensor(d, out, "out", 8))))
        return rc;
    if (!same_shape(out, (int)self->ndim, self->dims) || !can_cast(self->dtype, out->dtype))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: out must have self's shape and hold its dtype", d->name);
    for (int k = 0; k < 3; k++) e->p[k].f = a->f[k];
    if (!(d->flags & F_MODE))
        for (int k = 0; k < (d->fn == e_elu ? 3 : 2); k++) {
            if (!a->s[k] && (k == 0 || d->fn != e_leaky)) BAD(ACLNN_ERR_PARAM_NULLPTR, "aclnn%sGetWorkspaceSize: a parameter is NULL", d->name);
            if (a->s[k]) {
                if ((rc = check_scalar(d, a->s[k], "parameter"))) return rc;
                e->p[k].f = ldf(a->s[k]->dtype, (const char *)a->s[k]->raw);
            }
        }
    e->ct = self->dtype;
    e->nt = 2;
    snap(&e->t[0], out);
    snap(&e->t[1], self);
    return 0;
}

static aclnnStatus v_fills(const op_def *d, args *a, aclOpExecutor *e) {
    const aclTensor *out = a->t[0];
    aclnnStatus rc;
    if ((rc = check_tensor(d, out, "out", 2))) return rc;
    if (!d->flags) {
        if (out->ndim != 2 || out->dims[0] != a->i[0] || out->dims[1] != a->i[1])
            BAD(ACLNN_ERR_PARAM_INVALID, "aclnnEyeGetWorkspaceSize: out must be [n, m]");
    } else {
        if ((rc = check_scalar(d, a->s[0], "start")) || (rc = check_scalar(d, a->s[1], "end"))) return rc;
        if (out->ndim != 1 || out->dims[0] != a->i[0] || a->i[0] < 0)
            BAD(ACLNN_ERR_PARAM_INVALID, "aclnnLinspaceGetWorkspaceSize: out must be [steps]");
        e->p[0].f = ldf(a->s[0]->dtype, (const char *)a->s[0]->raw);
        e->p[1].f = ldf(a->s[1]->dtype, (const char *)a->s[1]->raw);
    }
    e->nt = 1;
    e->ct = out->dtype;
    snap(&e->t[0], out);
    return 0;
}

static aclnnStatus v_flip(const op_def *d, args *a, aclOpExecutor *e) {
    const aclTensor *self = a->t[1], *out = a->t[0];
    aclnnStatus rc;
    if ((rc = check_tensor(d, self, "self", 8)) || (rc = check_tensor(d, out, "out", 8))) return rc;
    uint64_t n;
    const int64_t *dims = a->arr ? aclsim_int_array(a->arr, &n) : NULL;
    if (!dims) BAD(ACLNN_ERR_PARAM_INVALID, "aclnnFlipGetWorkspaceSize: dims is not a live aclIntArray");
    int rank = (int)self->ndim;
    int64_t mask = 0;
    for (uint64_t i = 0; i < n; i++) {
        int64_t k = dims[i];
        if (k < -rank || k >= rank) BAD(ACLNN_ERR_PARAM_INVALID, "aclnnFlipGetWorkspaceSize: dim %lld is out of range", (long long)k);
        k = k < 0 ? k + rank : k;
        if (mask >> k & 1) BAD(ACLNN_ERR_PARAM_INVALID, "aclnnFlipGetWorkspaceSize: dim %lld appears twice", (long long)k);
        mask |= (int64_t)1 << k;
    }
    if (!same_shape(out, rank, self->dims) || out->dtype != self->dtype)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnnFlipGetWorkspaceSize: out must have self's shape and dtype");
    e->nt = 2;
    e->ct = self->dtype;
    e->ip[0] = mask;
    snap(&e->t[0], out);
    snap(&e->t[1], self);
    return 0;
}

/* ---------------------------------------------------------------- phase 1 and phase 2, shared */
/* ---------------------------------------------------------------- NCHW operators: convolution, pooling, norms */
/* They read every input view into a dense row-major double array, compute there, and store the outputs back
 * through their views: the strided walk and the dtype conversion live once, in `walk`. ip[14] / ip[15] say
 * which of t[0..11] are read / written. */
static int64_t nz(int64_t v) { return v ? v : 1; }

static void walk(const tview *v, char *base, double *x, int store) {
    int64_t n = numel(v), *off = strided_offsets(v->nd, v->dims, v->st, v->off);
    int es = dt_size(v->dt);
    for (int64_t c = 0; c < n; c++) {
        if (store) stf(v->dt, base + off[c] * es, x[c]); else x[c] = ldf(v->dt, base + off[c] * es);
    }
    free(off);
}

/* the direct convolution Y = X (*) W (X [N, C, H, W], W [O, C/g, kh, kw], Y [N, O, Ho, Wo]) in one of three
 * directions: 0 computes Y, 1 accumulates dX from Y (dY), 2 accumulates dW from Y (dY) and X. A transposed
 * convolution is the same relation with its input in Y's place and its output in X's. */
static void conv_loop(int mode, double *X, double *Wt, double *Y, const int64_t *xs, const int64_t *wsh,
                      const int64_t *ys, const int64_t *ip) {
    int64_t N = xs[0], C = xs[1], H = xs[2], Wd = xs[3], O = wsh[0], cg = wsh[1], kh = wsh[2], kw = wsh[3];
    int64_t Ho = ys[2], Wo = ys[3], og = O / ip[6];
    for (int64_t n = 0; n < N; n++)
        for (int64_t o = 0; o < O; o++)
            for (int64_t oh = 0; oh < Ho; oh++)
                for (int64_t ow = 0; ow < Wo; ow++) {
                    int64_t yi = ((n * O + o) * Ho + oh) * Wo + ow;
                    double acc = 0, dy = mode ? Y[yi] : 0;
                    for (int64_t c = 0; c < cg; c++) {
                        int64_t ci = (o / og) * cg + c;
                        for (int64_t i = 0; i < kh; i++) {
                            int64_t ih = oh * ip[0] - ip[2] + i * ip[4];
                            if (ih < 0 || ih >= H) continue;
                            for (int64_t j = 0; j < kw; j++) {
                                int64_t iw = ow * ip[1] - ip[3] + j * ip[5];
                                if (iw < 0 || iw >= Wd) continue;
                                int64_t xi = ((n * C + ci) * H + ih) * Wd + iw, wi = ((o * cg + c) * kh + i) * kw + j;
                                if (mode == 0) acc += X[xi] * Wt[wi];
                                else if (mode == 1) X[xi] += dy * Wt[wi];
                                else Wt[wi] += dy * X[xi];
                            }
                        }
                    }
                    if (mode == 0) Y[yi] = acc;
                }
}

/* per-channel sums of a [N, C, S...] array (bias gradients) */
static void channel_sums(const double *g, const tview *v, double *out) {
    int64_t N = v->dims[0], C = v->dims[1], S = numel(v) / nz(N * C);
    for (int64_t n = 0; n < N; n++)
        for (int64_t c = 0; c < C; c++)
            for (int64_t s = 0; s < S; s++) out[c] += g[(n * C + c) * S + s];
}

/* Convolution: t = {output, input, weight, bias}; ConvolutionBackward: t = {gradInput, gradOutput, input, weight,
 * gradWeight, gradBias}; ip: stride h/w, padding h/w, dilation h/w, groups, transposed */
static void run_conv(aclOpExecutor *e, double **x) {
    const tview *t = e->t;
    int tr = (int)e->ip[7];
    if (!(((const op_def *)e->def)->flags & F_LOG)) {
        if (tr) conv_loop(1, x[0], x[2], x[1], t[0].dims, t[2].dims, t[1].dims, e->ip);
        else conv_loop(0, x[1], x[2], x[0], t[1].dims, t[2].dims, t[0].dims, e->ip);
        if (x[3]) {
            int64_t N = t[0].dims[0], C = t[0].dims[1], S = numel(&t[0]) / nz(N * C);
            for (int64_t k = 0; k < N * C * S; k++) x[0][k] += x[3][(k / S) % C];
        }
        return;
    }
    /* direct relation: X = input, Y = gradOutput; transposed: X = gradOutput, Y = input */
    double *X = tr ? x[1] : x[2], *Y = tr ? x[2] : x[1];
    const int64_t *xs = tr ? t[1].dims : t[2].dims, *ys = tr ? t[2].dims : t[1].dims;
    if (x[0]) conv_loop(tr ? 0 : 1, tr ? X : x[0], x[3], tr ? x[0] : Y, xs, t[3].dims, ys, e->ip);
    if (x[4]) conv_loop(2, X, x[4], Y, xs, t[3].dims, ys, e->ip);
    if (x[5]) channel_sums(x[1], &t[1], x[5]);
}

/* pooling windows over planes of [.., H, W]; ip: kernel h/w, stride h/w, padding h/w, dilation h/w, ceil,
 * countIncludePad, divisorOverride. Max: t = {out, self, indices} / backward {gradInput, gradOutput, self,
 * indices}; average: t = {out, self} / backward {gradInput, gradOutput, self} */
static void run_pool(aclOpExecutor *e, double **x) {
    const int64_t *ip = e->ip;
    int bwd = ((const op_def *)e->def)->flags & F_LOG, avg = ((const op_def *)e->def)->flags & F_MODE;
    const tview *in = &e->t[bwd ? 2 : 1], *ov = &e->t[bwd ? 1 : 0];
    int64_t H = in->dims[in->nd - 2], W = in->dims[in->nd - 1], Ho = ov->dims[ov->nd - 2], Wo = ov->dims[ov->nd - 1];
    int64_t planes = numel(in) / (H * W);
    double *X = x[bwd ? 2 : 1], *Y = x[bwd ? 1 : 0], *dX = x[0], *I = x[bwd ? 3 : 2];
    for (int64_t pl = 0; pl < planes; pl++)
        for (int64_t oh = 0; oh < Ho; oh++)
            for (int64_t ow = 0; ow < Wo; ow++) {
                int64_t yi = (pl * Ho + oh) * Wo + ow, h0 = oh * ip[2] - ip[4], w0 = ow * ip[3] - ip[5];
                const double *xp = X ? X + pl * H * W : NULL;
                if (!avg) {
                    if (bwd) { dX[pl * H * W + (int64_t)I[yi]] += Y[yi]; continue; }
                    double best = -INFINITY;
                    int64_t bi = -1;
                    for (int64_t i = 0; i < ip[0]; i++) {
                        int64_t ih = h0 + i * ip[6];
                        if (ih < 0 || ih >= H) continue;
                        for (int64_t j = 0; j < ip[1]; j++) {
                            int64_t iw = w0 + j * ip[7];
                            if (iw < 0 || iw >= W) continue;
                            double v = xp[ih * W + iw];
                            if (bi < 0) bi = ih * W + iw;
                            if (v > best || v != v) { best = v; bi = ih * W + iw; }
                        }
                    }
                    Y[yi] = best;
                    I[yi] = (double)bi;
                    continue;
                }
                int64_t h1 = h0 + ip[0] < H + ip[4] ? h0 + ip[0] : H + ip[4], w1 = w0 + ip[1] < W + ip[5] ? w0 + ip[1] : W + ip[5];
                int64_t pool = (h1 - h0) * (w1 - w0);
                h0 = h0 < 0 ? 0 : h0; w0 = w0 < 0 ? 0 : w0; h1 = h1 > H ? H : h1; w1 = w1 > W ? W : w1;
                if (h0 >= h1 || w0 >= w1) { if (!bwd) Y[yi] = 0; continue; }
                double div = ip[10] ? (double)ip[10] : ip[9] ? (double)pool : (double)((h1 - h0) * (w1 - w0)), s = 0;
                for (int64_t ih = h0; ih < h1; ih++)
                    for (int64_t iw = w0; iw < w1; iw++) {
                        if (bwd) dX[pl * H * W + ih * W + iw] += Y[yi] / div;
                        else s += xp[ih * W + iw];
                    }
                if (!bwd) Y[yi] = s / div;
            }
}

/* AdaptiveAvgPool2d: t = {out, self}; backward: t = {out (gradInput), gradOutput, self} */
static void run_adaptive(aclOpExecutor *e, double **x) {
    int bwd = ((const op_def *)e->def)->flags & F_LOG;
    const tview *in = &e->t[bwd ? 2 : 1], *ov = &e->t[bwd ? 1 : 0];
    int64_t H = in->dims[in->nd - 2], W = in->dims[in->nd - 1], Ho = ov->dims[ov->nd - 2], Wo = ov->dims[ov->nd - 1];
    int64_t planes = numel(in) / nz(H * W);
    double *Y = x[bwd ? 1 : 0];
    for (int64_t pl = 0; pl < planes; pl++)
        for (int64_t oh = 0; oh < Ho; oh++)
            for (int64_t ow = 0; ow < Wo; ow++) {
                int64_t h0 = oh * H / Ho, h1 = ((oh + 1) * H + Ho - 1) / Ho, w0 = ow * W / Wo, w1 = ((ow + 1) * W + Wo - 1) / Wo;
                double cnt = (double)((h1 - h0) * (w1 - w0)), s = 0;
                int64_t yi = (pl * Ho + oh) * Wo + ow;
                for (int64_t ih = h0; ih < h1; ih++)
                    for (int64_t iw = w0; iw < w1; iw++) {
                        if (bwd) x[0][(pl * H + ih) * W + iw] += Y[yi] / cnt;
                        else s += x[1][(pl * H + ih) * W + iw];
                    }
                if (!bwd) Y[yi] = s / cnt;
            }
}

/* BatchNorm: t = {output, input, weight, bias, runningMean, runningVar, saveMean, saveInvstd}, ip[0] training,
 * p[0] momentum, p[1] eps. Backward: t = {gradInput, gradOut, input, weight, runningMean, runningVar, saveMean,
 * saveInvstd, gradWeight, gradBias} */
static void run_batch_norm(aclOpExecutor *e, double **x) {
    const tview *in = &e->t[(((const op_def *)e->def)->flags & F_LOG) ? 2 : 1];
    int64_t N = in->dims[0], C = in->dims[1], S = numel(in) / nz(N * C), cnt = N * S;
    double eps = e->p[1].f;
    for (int64_t c = 0; c < C; c++) {
        double mean, invstd, w = 1, b = 0;
        if (((const op_def *)e->def)->flags & F_LOG) {
            double *g = x[1], *X = x[2];
            if (x[3]) w = x[3][c];
            if (e->ip[0]) { mean = x[6][c]; invstd = x[7][c]; }
            else { mean = x[4][c]; invstd = 1.0 / sqrt(x[5][c] + eps); }
            double sg = 0, sgx = 0;
            for (int64_t n = 0; n < N; n++)
                for (int64_t s = 0; s < S; s++) {
                    int64_t k = (n * C + c) * S + s;
                    sg += g[k];
                    sgx += g[k] * (X[k] - mean) * invstd;
                }
            if (x[8]) x[8][c] = sgx;
            if (x[9]) x[9][c] = sg;
            if (x[0])
                for (int64_t n = 0; n < N; n++)
                    for (int64_t s = 0; s < S; s++) {
                        int64_t k = (n * C + c) * S + s;
                        double xh = (X[k] - mean) * invstd;
                        x[0][k] = e->ip[0] ? w * invstd * (g[k] - sg / (double)cnt - xh * sgx / (double)cnt) : g[k] * w * invstd;
                    }
            continue;
        }
        double *X = x[1];
        if (x[2]) w = x[2][c];
        if (x[3]) b = x[3][c];
        if (e->ip[0]) {
            double s = 0, v = 0;
            for (int64_t n = 0; n < N; n++)
                for (int64_t k = 0; k < S; k++) s += X[(n * C + c) * S + k];
            mean = cnt ? s / (double)cnt : NAN;
            for (int64_t n = 0; n < N; n++)
                for (int64_t k = 0; k < S; k++) { double z = X[(n * C + c) * S + k] - mean; v += z * z; }
            invstd = 1.0 / sqrt(v / (double)cnt + eps);
            double m = e->p[0].f;
            if (x[4]) x[4][c] = (1 - m) * x[4][c] + m * mean;
            if (x[5]) x[5][c] = (1 - m) * x[5][c] + m * (cnt > 1 ? v / (double)(cnt - 1) : NAN);
            if (x[6]) x[6][c] = mean;
            if (x[7]) x[7][c] = invstd;
        } else {
            mean = x[4][c];
            invstd = 1.0 / sqrt(x[5][c] + eps);
        }
        for (int64_t n = 0; n < N; n++)
            for (int64_t k = 0; k < S; k++) {
                int64_t i = (n * C + c) * S + k;
                x[0][i] = (X[i] - mean) * invstd * w + b;
            }
    }
}

/* GroupNorm: t = {out, self, gamma, beta, meanOut, rstdOut}; backward: t = {gradInput, gradOut, input, mean, rstd,
 * gamma, gradGamma, gradBeta}; ip: N, C, HxW, group; p[0] eps */
static void run_group_norm(aclOpExecutor *e, double **x) {
    int64_t N = e->ip[0], C = e->ip[1], HW = e->ip[2], G = e->ip[3], cpg = C / G, D = cpg * HW;
    int bwd = ((const op_def *)e->def)->flags & F_LOG;
    for (int64_t n = 0; n < N; n++)
        for (int64_t g = 0; g < G; g++) {
            int64_t base = (n * C + g * cpg) * HW;
            if (!bwd) {
                double *X = x[1] + base, m = 0, v = 0;
                for (int64_t k = 0; k < D; k++) m += X[k];
                m /= (double)D;
                for (int64_t k = 0; k < D; k++) v += (X[k] - m) * (X[k] - m);
                double rs = 1.0 / sqrt(v / (double)D + e->p[0].f);
                for (int64_t k = 0; k < D; k++) {
                    int64_t c = g * cpg + k / HW;
                    x[0][base + k] = (X[k] - m) * rs * (x[2] ? x[2][c] : 1) + (x[3] ? x[3][c] : 0);
                }
                if (x[4]) x[4][n * G + g] = m;
                if (x[5]) x[5][n * G + g] = rs;
                continue;
            }
            double *dy = x[1] + base, *X = x[2] + base, m = x[3][n * G + g], rs = x[4][n * G + g], s1 = 0, s2 = 0;
            for (int64_t k = 0; k < D; k++) {
                int64_t c = g * cpg + k / HW;
                double xh = (X[k] - m) * rs, gx = dy[k] * (x[5] ? x[5][c] : 1);
                s1 += gx;
                s2 += gx * xh;
                if (x[6]) x[6][c] += dy[k] * xh;
                if (x[7]) x[7][c] += dy[k];
            }
            if (x[0])
                for (int64_t k = 0; k < D; k++) {
                    int64_t c = g * cpg + k / HW;
                    double xh = (X[k] - m) * rs, gx = dy[k] * (x[5] ? x[5][c] : 1);
                    x[0][base + k] = rs * (gx - s1 / (double)D - xh * s2 / (double)D);
                }
        }
}

static void run_stats(aclOpExecutor *e, double **x);
static void run_scan(aclOpExecutor *e, double **x);
static void run_search(aclOpExecutor *e, double **x);
static int run_bincount(aclOpExecutor *e, double **x, char *msg, size_t len);
static int run_scatter_reduce(aclOpExecutor *e, double **x, char *msg, size_t len);
static void run_linalg(aclOpExecutor *e, double **x);
static void run_svd(aclOpExecutor *e, double **x);

static int k_dense(aclOpExecutor *e, int dev, char *ws, char *msg, size_t len) {
    (void)ws;
    const op_def *d = e->def;
    char *b[12] = {0};
    double *x[12] = {0};
    int rc = 0;
    for (int j = 0; j < 12 && !rc; j++) {
        if (!((e->ip[14] | e->ip[15]) >> j & 1)) continue;
        if ((rc = map_view(&e->t[j], dev, &b[j], d->name, j, msg, len))) break;
        x[j] = calloc((size_t)(numel(&e->t[j]) ? numel(&e->t[j]) : 1), sizeof(double));
        if (!x[j]) { snprintf(msg, len, "aclnn%s: out of host memory", d->name); rc = ACL_ERROR_RT_MEMORY_ALLOCATION; break; }
        if (e->ip[14] >> j & 1 && b[j]) walk(&e->t[j], b[j], x[j], 0);
    }
    if (!rc) {
        switch (d->sig) {
        case SIG_CONV: run_conv(e, x); break;
        case SIG_POOL: run_pool(e, x); break;
        case SIG_ADAPTIVE: run_adaptive(e, x); break;
        case SIG_BATCH_NORM: run_batch_norm(e, x); break;
        case SIG_STATS: run_stats(e, x); break;
        case SIG_SCAN: run_scan(e, x); break;
        case SIG_SEARCH: run_search(e, x); break;
        case SIG_BINCOUNT: rc = run_bincount(e, x, msg, len); break;
        case SIG_SCATTER_REDUCE: rc = run_scatter_reduce(e, x, msg, len); break;
        case SIG_LINALG: run_linalg(e, x); break;
        case SIG_SVD: run_svd(e, x); break;
        default: run_group_norm(e, x); break;
        }
        for (int j = 0; j < 12 && !rc; j++) /* a failed launch leaves its outputs untouched */
            if (e->ip[15] >> j & 1 && b[j]) walk(&e->t[j], b[j], x[j], 1);
    }
    for (int j = 0; j < 12; j++) free(x[j]);
    return rc;
}

/* ---- their validators */
/* an aclIntArray of one of the lengths in `lens` (bit n: n values) into out[0..1] (one value serves both);
 * returns the length, or -1 */
static int pair(const void *arr, int64_t *out, unsigned lens) {
    uint64_t n;
    const int64_t *v = arr ? aclsim_int_array(arr, &n) : NULL;
    if (!v || n > 2 || !(lens >> n & 1)) return -1;
    if (n) { out[0] = v[0]; out[1] = v[n - 1]; }
    return (int)n;
}

static aclnnStatus check_same(const op_def *d, const aclTensor *t, const aclTensor *like, const char *what) {
    aclnnStatus rc = check_tensor(d, t, what, 8);
    if (rc) return rc;
    if (t->dtype != like->dtype) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: %s dtype %s differs from %s", d->name, what, dtname(t->dtype), dtname(like->dtype));
    return 0;
}

static aclnnStatus check_shape(const op_def *d, const aclTensor *t, int n, const int64_t *s, const char *what) {
    if (same_shape(t, n, s)) return 0;
    char want[160], got[160];
    shape_str(want, sizeof want, n, s);
    shape_str(got, sizeof got, (int)t->ndim, t->dims);
    BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: %s has shape %s, expected %s", d->name, what, got, want);
}

/* snapshot x[0..n) into t[], marking which are read and which written */
static void snap_all(aclOpExecutor *e, const aclTensor *const *x, int n, unsigned reads, unsigned writes) {
    for (int j = 0; j < n; j++) {
        if (!x[j]) continue;
        snap(&e->t[j], x[j]);
        e->ip[14] |= (int64_t)(reads >> j & 1) << j;
        e->ip[15] |= (int64_t)(writes >> j & 1) << j;
    }
    e->nt = n;
}

/* Convolution x = {output, input, weight, bias}; ConvolutionBackward x = {gradInput, gradOutput, input, weight,
 * gradWeight, gradBias}; ia = {stride, padding, dilation, outputPadding}; i = {transposed, groups}; the
 * simulator computes 2-d convolutions (4-d NCHW operands) with one padding per spatial dim */
static aclnnStatus v_conv(const op_def *d, args *a, aclOpExecutor *e) {
    int bwd = d->flags & F_LOG, tr = a->i[0] != 0;
    const aclTensor *in = a->x[bwd ? 2 : 1], *w = a->x[bwd ? 3 : 2], *y = a->x[bwd ? 1 : 0];
    aclnnStatus rc;
    if ((rc = check_tensor(d, in, "input", 8)) || (rc = check_same(d, w, in, "weight")) ||
        (rc = check_same(d, y, in, bwd ? "gradOutput" : "output")))
        return rc;
    if (in->ndim != 4 || w->ndim != 4 || y->ndim != 4)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: the simulator computes 2-d convolutions: input, weight and output must be 4-d (NCHW)", d->name);
    int64_t st[2], pd[2], dl[2], op[2] = {0, 0}, g = a->i[1];
    if (pair(a->ia[0], st, 4) < 0 || pair(a->ia[1], pd, 4) < 0 || pair(a->ia[2], dl, 4) < 0 ||
        (a->ia[3] && pair(a->ia[3], op, 4) < 0))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: stride, padding, dilation and outputPadding must hold 2 values", d->name);
    if (st[0] <= 0 || st[1] <= 0 || dl[0] <= 0 || dl[1] <= 0 || pd[0] < 0 || pd[1] < 0)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: stride and dilation must be > 0, padding >= 0", d->name);
    if (tr ? (op[0] < 0 || op[1] < 0 || (op[0] >= st[0] && op[0] >= dl[0]) || (op[1] >= st[1] && op[1] >= dl[1])) : (op[0] || op[1]))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: outputPadding is out of range", d->name);
    if (g < 1 || g > 65535) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: groups %lld is not in [1, 65535]", d->name, (long long)g);
    /* the direct relation's X (conv input) and Y (conv output): transposed swaps them */
    const aclTensor *X = tr ? y : in, *Y = tr ? in : y;
    if (X->dims[1] != w->dims[1] * g || w->dims[0] % g || Y->dims[1] != w->dims[0])
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: channels of input (%lld), weight [%lld, %lld] and groups %lld do not agree",
            d->name, (long long)in->dims[1], (long long)w->dims[0], (long long)w->dims[1], (long long)g);
    int64_t ys[4] = {in->dims[0], tr ? w->dims[1] * g : w->dims[0], 0, 0};
    for (int k = 0; k < 2; k++) {
        int64_t eff = dl[k] * (w->dims[2 + k] - 1) + 1;
        ys[2 + k] = tr ? (in->dims[2 + k] - 1) * st[k] - 2 * pd[k] + eff + op[k] : (in->dims[2 + k] + 2 * pd[k] - eff) / st[k] + 1;
        if (!tr && in->dims[2 + k] + 2 * pd[k] < eff)
            BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: the padded input is smaller than the dilated kernel", d->name);
    }
    if ((rc = check_shape(d, y, 4, ys, bwd ? "gradOutput" : "output"))) return rc;
    int64_t cshape[1] = {ys[1]};
    if (!bwd) {
        if (a->x[3] && ((rc = check_same(d, a->x[3], in, "bias")) || (rc = check_shape(d, a->x[3], 1, cshape, "bias")))) return rc;
        snap_all(e, a->x, 4, 0xE, 0x1);
    } else {
        uint64_t nm;
        const bool *m = a->mask ? aclsim_bool_array(a->mask, &nm) : NULL;
        if (!m || nm != 3) BAD(ACLNN_ERR_PARAM_INVALID, "aclnnConvolutionBackwardGetWorkspaceSize: outputMask must be an aclBoolArray of 3");
        const aclTensor *outs[3] = {a->x[0], a->x[4], a->x[5]}, *like[3] = {in, w, NULL};
        static const char *names[3] = {"gradInput", "gradWeight", "gradBias"};
        for (int k = 0; k < 3; k++) {
            if (!m[k]) { a->x[k ? k + 3 : 0] = NULL; continue; }
            if ((rc = check_same(d, outs[k], in, names[k]))) return rc;
            if ((rc = like[k] ? check_shape(d, outs[k], 4, like[k]->dims, names[k]) : check_shape(d, outs[k], 1, cshape, names[k]))) return rc;
        }
        snap_all(e, a->x, 6, 0xE, 0x31);
    }
    e->ct = in->dtype;
    int64_t ip[8] = {st[0], st[1], pd[0], pd[1], dl[0], dl[1], g, tr};
    memcpy(e->ip, ip, sizeof ip);
    return 0;
}

/* pooling: x = {out, self, indices} (max), {out, self} (avg); backward x = {gradInput, gradOutput, self, indices};
 * ia = {kernel, stride, padding, dilation}; i = {ceilMode, countIncludePad}; seed: divisorOverride */
static aclnnStatus v_pool(const op_def *d, args *a, aclOpExecutor *e) {
    int bwd = d->flags & F_LOG, avg = d->flags & F_MODE;
    const aclTensor *self = a->x[bwd ? 2 : 1], *o = a->x[bwd ? 1 : 0], *ix = avg ? NULL : a->x[bwd ? 3 : 2], *gi = a->x[0];
    aclnnStatus rc;
    if ((rc = check_tensor(d, self, "self", 4)) || (rc = check_same(d, o, self, bwd ? "gradOutput" : "out")) ||
        (bwd && (rc = check_same(d, gi, self, "gradInput"))))
        return rc;
    if (self->ndim < 3) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: self must be 3-d or 4-d", d->name);
    if (ix && (!aclsim_check_tensor(ix) || (ix->dtype != ACL_INT64 && ix->dtype != ACL_INT32)))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: indices must be an INT32 or INT64 tensor", d->name);
    int64_t k[2], s[2], p[2], dl[2] = {1, 1};
    if (pair(a->ia[0], k, 6) < 0 || pair(a->ia[2], p, 6) < 0 || (!avg && pair(a->ia[3], dl, 6) < 0))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: kernelSize, padding and dilation must hold 1 or 2 values", d->name);
    int ns = pair(a->ia[1], s, 7);
    if (ns < 0) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: stride must hold 0, 1 or 2 values", d->name);
    if (!ns) { s[0] = k[0]; s[1] = k[1]; }
    if (k[0] <= 0 || k[1] <= 0 || s[0] <= 0 || s[1] <= 0 || dl[0] <= 0 || dl[1] <= 0 || p[0] < 0 || p[1] < 0 ||
        p[0] > k[0] / 2 || p[1] > k[1] / 2)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: kernel, stride, dilation must be > 0 and padding in [0, kernel / 2]", d->name);
    int nd = (int)self->ndim;
    int64_t shape[4];
    memcpy(shape, self->dims, sizeof(int64_t) * (size_t)nd);
    for (int q = 0; q < 2; q++) {
        int64_t n = self->dims[nd - 2 + q], num = n + 2 * p[q] - dl[q] * (k[q] - 1) - 1;
        int64_t out = (a->i[0] ? (num + s[q] - 1) / s[q] : num / s[q]) + 1;
        if (a->i[0] && (out - 1) * s[q] >= n + p[q]) out--;
        if (num < 0 || out <= 0) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: the output would be empty", d->name);
        shape[nd - 2 + q] = out;
    }
    if ((rc = check_shape(d, o, nd, shape, bwd ? "gradOutput" : "out")) || (ix && (rc = check_shape(d, ix, nd, shape, "indices"))) ||
        (bwd && (rc = check_shape(d, gi, nd, self->dims, "gradInput"))))
        return rc;
    if (!bwd) snap_all(e, a->x, avg ? 2 : 3, 0x2, avg ? 0x1 : 0x5);
    else snap_all(e, a->x, avg ? 3 : 4, avg ? 0x2 : 0xA, 0x1);
    e->ct = self->dtype;
    int64_t ip[11] = {k[0], k[1], s[0], s[1], p[0], p[1], dl[0], dl[1], a->i[0], a->i[1], (int64_t)a->seed};
    memcpy(e->ip, ip, sizeof ip);
    return 0;
}

/* AdaptiveAvgPool2d x = {out, self}, outputSize in arr; backward x = {out, gradOutput, self} */
static aclnnStatus v_adaptive(const op_def *d, args *a, aclOpExecutor *e) {
    int bwd = d->flags & F_LOG;
    const aclTensor *self = a->x[bwd ? 2 : 1], *o = a->x[bwd ? 1 : 0];
    aclnnStatus rc;
    if ((rc = check_tensor(d, self, "self", 4)) || (rc = check_same(d, o, self, bwd ? "gradOutput" : "out")) ||
        (bwd && (rc = check_same(d, a->x[0], self, "out"))))
        return rc;
    int nd = (int)self->ndim;
    if (nd < 3 || (int)o->ndim != nd) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: self must be 3-d or 4-d", d->name);
    int64_t shape[4], os[2];
    memcpy(shape, self->dims, sizeof(int64_t) * (size_t)nd);
    if (!bwd) {
        if (pair(a->arr, os, 4) < 0) BAD(ACLNN_ERR_PARAM_INVALID, "aclnnAdaptiveAvgPool2dGetWorkspaceSize: outputSize must hold 2 values");
        shape[nd - 2] = os[0];
        shape[nd - 1] = os[1];
    } else {
        shape[nd - 2] = o->dims[nd - 2];
        shape[nd - 1] = o->dims[nd - 1];
        if ((rc = check_shape(d, a->x[0], nd, self->dims, "out"))) return rc;
    }
    if (shape[nd - 2] <= 0 || shape[nd - 1] <= 0 || self->dims[nd - 2] <= 0 || self->dims[nd - 1] <= 0)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: spatial sizes must be positive", d->name);
    if ((rc = check_shape(d, o, nd, shape, bwd ? "gradOutput" : "out"))) return rc;
    if (bwd) snap_all(e, a->x, 3, 0x2, 0x1);
    else snap_all(e, a->x, 2, 0x2, 0x1);
    e->ct = self->dtype;
    return 0;
}

/* per-channel operand: 1-d with C elements, the input's dtype (NULL allowed when optional) */
static aclnnStatus check_channel(const op_def *d, const aclTensor *t, int64_t c, const char *what, int optional) {
    if (!t) {
        if (optional) return 0;
        BAD(ACLNN_ERR_PARAM_NULLPTR, "aclnn%sGetWorkspaceSize: %s is NULL", d->name, what);
    }
    aclnnStatus rc = check_tensor(d, t, what, 1);
    if (rc) return rc;
    return check_shape(d, t, 1, &c, what);
}

/* BatchNorm x = {output, input, weight, bias, runningMean, runningVar, saveMean, saveInvstd}, i[0] training,
 * f = {momentum, eps}; backward x = {gradInput, gradOut, input, weight, runningMean, runningVar, saveMean,
 * saveInvstd, gradWeight, gradBias}, outputMask */
static aclnnStatus v_batch_norm(const op_def *d, args *a, aclOpExecutor *e) {
    int bwd = d->flags & F_LOG, tr = a->i[0] != 0;
    const aclTensor *in = a->x[bwd ? 2 : 1], *g = a->x[bwd ? 1 : 0];
    aclnnStatus rc;
    if ((rc = check_tensor(d, in, "input", 8)) || (rc = check_same(d, g, in, bwd ? "gradOut" : "output"))) return rc;
    if (in->ndim < 2) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: input must have 2 to 8 dims", d->name);
    if ((rc = check_shape(d, g, (int)in->ndim, in->dims, bwd ? "gradOut" : "output"))) return rc;
    int64_t c = in->dims[1];
    static const char *fwd_names[8] = {0, 0, "weight", "bias", "runningMean", "runningVar", "saveMean", "saveInvstd"};
    static const char *bwd_names[10] = {0, 0, 0, "weight", "runningMean", "runningVar", "saveMean", "saveInvstd", "gradWeight", "gradBias"};
    if (!bwd) {
        for (int j = 2; j < 8; j++)
            if ((rc = check_channel(d, a->x[j], c, fwd_names[j], j < 4 || (tr && j < 6) || (!tr && j >= 6)))) return rc;
        e->p[0].f = a->f[0];
        e->p[1].f = a->f[1];
        /* training reads the running stats to update them and writes the saved ones; inference only reads them */
        snap_all(e, a->x, 8, 0x3E, tr ? 0xF1 : 0x01);
    } else {
        uint64_t nm;
        const bool *m = a->mask ? aclsim_bool_array(a->mask, &nm) : NULL;
        if (!m || nm != 3) BAD(ACLNN_ERR_PARAM_INVALID, "aclnnBatchNormBackwardGetWorkspaceSize: outputMask must be an aclBoolArray of 3");
        if (!m[0]) a->x[0] = NULL;
        if (!m[1]) a->x[8] = NULL;
        if (!m[2]) a->x[9] = NULL;
        if (m[0] && ((rc = check_same(d, a->x[0], in, "gradInput")) || (rc = check_shape(d, a->x[0], (int)in->ndim, in->dims, "gradInput")))) return rc;
        for (int j = 3; j < 10; j++)
            if ((rc = check_channel(d, a->x[j], c, bwd_names[j], j == 3 || (tr ? (j == 4 || j == 5) : (j == 6 || j == 7)) || (j >= 8 && !m[j - 7]))))
                return rc;
        e->p[1].f = a->f[1];
        snap_all(e, a->x, 10, 0xFE, 0x301);
    }
    e->ip[0] = tr;
    e->ct = in->dtype;
    return 0;
}

/* GroupNorm x = {out, self, gamma, beta, meanOut, rstdOut}; backward x = {gradInput, gradOut, input, mean, rstd,
 * gamma, gradGamma, gradBeta}, outputMask; i = {N, C}, ia-less: HxW in seed, group in offset; f[0] eps */
static aclnnStatus v_group_norm(const op_def *d, args *a, aclOpExecutor *e) {
    int bwd = d->flags & F_LOG;
    const aclTensor *in = a->x[bwd ? 2 : 1], *o = a->x[bwd ? 1 : 0];
    int64_t N = a->i[0], C = a->i[1], HW = (int64_t)a->seed, G = (int64_t)a->offset;
    aclnnStatus rc;
    if ((rc = check_tensor(d, in, bwd ? "input" : "self", 8)) || (rc = check_same(d, o, in, bwd ? "gradOut" : "out"))) return rc;
    int64_t n = 1;
    for (uint32_t i = 0; i < in->ndim; i++) n *= in->dims[i];
    if (in->ndim < 2 || G <= 0 || N < 0 || C <= 0 || HW < 0 || C % G || N != in->dims[0] || C != in->dims[1] || n != N * C * HW)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: N, C, HxW and group do not describe the input", d->name);
    if ((rc = check_shape(d, o, (int)in->ndim, in->dims, bwd ? "gradOut" : "out"))) return rc;
    int64_t stat[2] = {N, G};
    if (!bwd) {
        if (a->f[0] <= 0) BAD(ACLNN_ERR_PARAM_INVALID, "aclnnGroupNormGetWorkspaceSize: eps must be > 0");
        if ((rc = check_channel(d, a->x[2], C, "gamma", 1)) || (rc = check_channel(d, a->x[3], C, "beta", 1))) return rc;
        for (int j = 4; j < 6; j++)
            if ((rc = check_same(d, a->x[j], in, j == 4 ? "meanOut" : "rstdOut")) || (rc = check_shape(d, a->x[j], 2, stat, "meanOut/rstdOut"))) return rc;
        e->p[0].f = a->f[0];
        snap_all(e, a->x, 6, 0xE, 0x31);
    } else {
        uint64_t nm;
        const bool *m = a->mask ? aclsim_bool_array(a->mask, &nm) : NULL;
        if (!m || nm != 3) BAD(ACLNN_ERR_PARAM_INVALID, "aclnnGroupNormBackwardGetWorkspaceSize: outputMask must be an aclBoolArray of 3");
        if (!m[0]) a->x[0] = NULL;
        if (!m[1]) a->x[6] = NULL;
        if (!m[2]) a->x[7] = NULL;
        for (int j = 3; j < 5; j++)
            if ((rc = check_same(d, a->x[j], in, "mean/rstd")) || (rc = check_shape(d, a->x[j], 2, stat, "mean/rstd"))) return rc;
        if (m[0] && ((rc = check_same(d, a->x[0], in, "gradInput")) || (rc = check_shape(d, a->x[0], (int)in->ndim, in->dims, "gradInput")))) return rc;
        if ((rc = check_channel(d, a->x[5], C, "gamma", 1)) || (rc = check_channel(d, a->x[6], C, "gradGammaOut", !m[1])) ||
            (rc = check_channel(d, a->x[7], C, "gradBetaOut", !m[2])))
            return rc;
        snap_all(e, a->x, 8, 0x3E, 0xC1);
    }
    int64_t ip[4] = {N, C, HW, G};
    memcpy(e->ip, ip, sizeof ip);
    e->ct = in->dtype;
    return 0;
}


/* ---- reductions and scans on dense copies (the NCHW operators' load/store) */
/* position of every element of x (row-major) in the output of a reduction over the dims in `mask` */
static int64_t *reduce_map(const tview *x, int64_t mask) {
    int64_t ost[SIM_MAXDIM], run = 1;
    for (int i = x->nd - 1; i >= 0; i--) {
        ost[i] = (mask >> i & 1) ? 0 : run;
        if (!(mask >> i & 1)) run *= x->dims[i];
    }
    return strided_offsets(x->nd, x->dims, ost, 0);
}

/* t = {out, self}; ip[0] dim mask, ip[1] kind; p[0] correction,
 * p[1] the norm's order */
static void run_stats(aclOpExecutor *e, double **x) {
    const tview *xv = &e->t[1];
    int64_t n = numel(xv), on = numel(&e->t[0]), kind = e->ip[1], cnt = on ? n / on : 0;
    int64_t *map = reduce_map(xv, e->ip[0]);
    double *y = x[0], *m = calloc((size_t)(on ? on : 1), sizeof *m), ord = e->p[1].f;
    for (int64_t o = 0; o < on; o++) y[o] = kind == S_PROD ? 1 : (kind == S_LSE || (kind == S_NORM && isinf(ord))) ? (ord < 0 ? INFINITY : -INFINITY) : 0;
    for (int64_t k = 0; k < n; k++) { /* pass 1: product, maximum, sum (for the mean), or the norm's terms */
        double v = x[1][k], *r = &y[map[k]];
        switch (kind) {
        case S_PROD: *r *= v; break;
        case S_LSE: if (v > *r || v != v) *r = v; break;
        case S_VAR: case S_STD: m[map[k]] += v; break;
        default:
            v = fabs(v);
            if (isinf(ord)) { if ((ord > 0 ? v > *r : v < *r) || v != v) *r = v; }
            else if (ord == 0) *r += v != 0;
            else *r += pow(v, ord);
        }
    }
    if (kind == S_LSE || kind == S_VAR || kind == S_STD) {
        for (int64_t o = 0; o < on; o++) {
            m[o] = kind == S_LSE ? (isinf(y[o]) ? 0 : y[o]) : m[o] / (double)cnt;
            if (kind != S_LSE) y[o] = 0;
        }
        double *s = calloc((size_t)(on ? on : 1), sizeof *s);
        for (int64_t k = 0; k < n; k++) { /* pass 2: around the max / the mean */
            double z = x[1][k] - m[map[k]];
            if (kind == S_LSE) s[map[k]] += exp(z); else y[map[k]] += z * z;
        }
        for (int64_t o = 0; o < on; o++) {
            if (kind == S_LSE) { y[o] = isinf(y[o]) && y[o] > 0 ? y[o] : m[o] + log(s[o]); continue; }
            double dof = (double)cnt - e->p[0].f;
            y[o] = y[o] / (dof > 0 ? dof : 0);
            if (kind == S_STD) y[o] = sqrt(y[o]);
        }
        free(s);
    }
    if (kind == S_NORM && !isinf(ord) && ord != 0 && ord != 1)
        for (int64_t o = 0; o < on; o++) y[o] = pow(y[o], 1.0 / ord);
    free(m);
    free(map);
}

/* scans along ip[0]: t = {out (values), self, indices}; ip[1]: 0 product, 1 running max, 2 running min */
static void run_scan(aclOpExecutor *e, double **x) {
    const tview *xv = &e->t[1];
    int ax = (int)e->ip[0];
    int64_t len = xv->nd ? xv->dims[ax] : 1, inner = 1, n = numel(xv);
    for (int i = ax + 1; i < xv->nd; i++) inner *= xv->dims[i];
    for (int64_t base = 0; base < n; base++) {
        if ((base / inner) % len) continue; /* start of a line */
        double acc = 0;
        int64_t at = 0;
        for (int64_t j = 0; j < len; j++) {
            int64_t k = base + j * inner;
            double v = x[1][k];
            if (e->ip[1] == 0) acc = j ? acc * v : v;
            else if (!j || v != v || (acc == acc && (e->ip[1] == 1 ? v >= acc : v <= acc))) { acc = v; at = j; }
            x[0][k] = acc;
            if (x[2]) x[2][k] = (double)at;
        }
    }
}

/* x = {out, self}; arr: dims (empty: all), or a single dim in i[3] when i[2] says so (ProdDim), or all
 * dims (Prod); i[0] keepdim; f[0] correction; s[0] the norm's order; i[1] a dtype that must be out's (-1: none) */
static aclnnStatus v_stats(const op_def *d, args *a, aclOpExecutor *e) {
    const aclTensor *self = a->x[1], *out = a->x[0];
    aclnnStatus rc;
    if ((rc = check_tensor(d, self, "self", 8)) || (rc = check_tensor(d, out, "out", 8))) return rc;
    int rank = (int)self->ndim;
    int64_t mask;
    uint64_t nd = 0;
    const int64_t *dims = NULL, one = a->i[3];
    if (a->i[2] == 1) { dims = &one; nd = 1; }
    else if (a->i[2] == 0) {
        if (!a->arr || !(dims = aclsim_int_array(a->arr, &nd)))
            BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: dim is not a live aclIntArray", d->name);
    }
    if ((rc = dims_mask(d, dims, nd, rank, &mask))) return rc;
    int64_t shape[SIM_MAXDIM];
    int n = 0;
    for (int i = 0; i < rank; i++)
        if (!(mask >> i & 1)) shape[n++] = self->dims[i];
        else if (a->i[0]) shape[n++] = 1;
    if ((rc = check_shape(d, out, n, shape, "out"))) return rc;
    if (a->i[1] >= 0 && a->i[1] != out->dtype)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: dtype %s differs from out's %s", d->name, dtname((int)a->i[1]), dtname(out->dtype));
    int kind = d->flags >> 20 & 7;
    if (kind == S_NORM) {
        if ((rc = check_scalar(d, a->s[0], "ord"))) return rc;
        e->p[1].f = ldf(a->s[0]->dtype, (const char *)a->s[0]->raw);
    }
    snap_all(e, a->x, 2, 0x2, 0x1);
    e->ip[0] = mask;
    e->ip[1] = kind;
    e->p[0].f = a->f[0];
    e->ct = out->dtype;
    return 0;
}

/* Cumprod(input, dim scalar, dtype, out), Cummax / Cummin(self, dim, values, indices): x = {out, self, indices} */
static aclnnStatus v_scan(const op_def *d, args *a, aclOpExecutor *e) {
    const aclTensor *self = a->x[1], *out = a->x[0], *ix = a->x[2];
    aclnnStatus rc;
    if ((rc = check_tensor(d, self, "self", 8)) || (rc = check_tensor(d, out, "out", 8))) return rc;
    int rank = (int)self->ndim, r1 = rank ? rank : 1;
    int64_t dim = a->i[0];
    if (d->flags & F_MODE) { /* Cumprod: the dim arrives as an aclScalar */
        if ((rc = check_scalar(d, a->s[0], "dim"))) return rc;
        dim = ldi(a->s[0]->dtype, (const char *)a->s[0]->raw);
        if (a->i[1] != out->dtype) BAD(ACLNN_ERR_PARAM_INVALID, "aclnnCumprodGetWorkspaceSize: dtype differs from out's");
    } else {
        if (!ix || !aclsim_check_tensor(ix) || ix->dtype != ACL_INT64)
            BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: indicesOut must be an INT64 tensor", d->name);
        if (out->dtype != self->dtype) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: valuesOut dtype differs from self's", d->name);
        if ((rc = check_shape(d, ix, rank, self->dims, "indicesOut"))) return rc;
    }
    if (dim < -r1 || dim >= r1) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: dim %lld is out of range", d->name, (long long)dim);
    if ((rc = check_shape(d, out, rank, self->dims, "out"))) return rc;
    snap_all(e, a->x, 3, 0x2, 0x5);
    e->ip[0] = rank ? (dim < 0 ? dim + rank : dim) : 0;
    e->ip[1] = (d->flags & F_MODE) ? 0 : (d->flags & R_MAX) ? 1 : 2;
    e->ct = out->dtype;
    return 0;
}


/* ---- operators that move elements: advanced indexing, index_add / copy, nonzero, repeat, roll */
/* dst element = src element (accumulate: +=), converting dtypes through the destination's domain */
static void put_elem(const tview *dv, char *db, int64_t doff, const tview *sv, const char *sb, int64_t soff, int acc) {
    int de = dt_size(dv->dt), se = dt_size(sv->dt);
    char *d = db + doff * de;
    const char *s = sb + soff * se;
    if (!acc && dv->dt == sv->dt) memcpy(d, s, (size_t)de);
    else if (dt_is_float(dv->dt)) stf(dv->dt, d, (acc ? ldf(dv->dt, d) : 0) + ldf(sv->dt, s));
    else sti(dv->dt, d, (int64_t)((uint64_t)(acc ? ldi(dv->dt, d) : 0) + (uint64_t)ldi(sv->dt, s)));
}

static int64_t row_major_index(const int64_t *idx, int nd, const int64_t *dims) {
    int64_t r = 0;
    for (int i = 0; i < nd; i++) r = r * dims[i] + idx[i];
    return r;
}

/* Index: t = {out, self, indices...}; IndexPutImpl (F_MODE): t = {selfRef, values, indices...}, ip[0] the number of
 * index tensors k, ip[1] accumulate. The index space is broadcast(indices) x self.dims[k:], row-major */
static int run_index_list(aclOpExecutor *e, char **b, char *msg, size_t len) {
    const tview *self = &e->t[(e->def && (((const op_def *)e->def)->flags & F_MODE)) ? 0 : 1];
    int put = (((const op_def *)e->def)->flags & F_MODE) != 0, k = (int)e->ip[0], nb = (int)e->ip[2], nd = 0;
    int64_t dims[SIM_MAXDIM] = {0}, rest = 1;
    for (int i = 0; i < nb; i++) dims[nd++] = e->ip[3 + i];
    for (int i = k; i < self->nd; i++) { dims[nd++] = self->dims[i]; rest *= self->dims[i]; }
    int64_t total = 1;
    for (int i = 0; i < nd; i++) total *= dims[i];
    int64_t *ix[8], *so = offsets(self, self->nd, self->dims), *vo = offsets(&e->t[put ? 1 : 0], nd, dims);
    for (int i = 0; i < k; i++) ix[i] = offsets(&e->t[2 + i], nb, dims);
    int rc = 0;
    for (int64_t j = 0; j < total && !rc; j++) {
        int64_t bi = rest ? j / rest : 0, src = 0;
        for (int i = 0; i < k; i++) {
            int64_t v = ldi(e->t[2 + i].dt, b[2 + i] + ix[i][bi] * dt_size(e->t[2 + i].dt)), n = self->dims[i];
            if (v < -n || v >= n) {
                snprintf(msg, len, "aclnn%s: index %lld is out of bounds for dimension %d with size %lld",
                         put ? "IndexPutImpl" : "Index", (long long)v, i, (long long)n);
                rc = ACL_ERROR_RT_AICORE_EXCEPTION;
                break;
            }
            src = src * n + (v < 0 ? v + n : v);
        }
        src = src * rest + (rest ? j % rest : 0);
        if (put) put_elem(self, b[0], so[src], &e->t[1], b[1], vo[j], (int)e->ip[1]);
        else put_elem(&e->t[0], b[0], vo[j], self, b[1], so[src], 0);
    }
    for (int i = 0; i < k; i++) free(ix[i]);
    free(so);
    free(vo);
    return rc;
}

/* IndexAdd (F_MODE, p[0] alpha) / InplaceIndexCopy: t = {out, self, index, source}, ip[0] dim; out starts as self */
static int run_index_dim(aclOpExecutor *e, char **b, char *msg, size_t len) {
    const op_def *d = e->def;
    const tview *out = &e->t[0];
    int ax = (int)e->ip[0];
    int64_t n = out->nd ? out->dims[ax] : 1, inner = 1;
    for (int i = ax + 1; i < out->nd; i++) inner *= out->dims[i];
    int64_t *oo = offsets(out, out->nd, out->dims), on = numel(out);
    if (b[1] != b[0] || e->t[1].off != out->off) { /* out-of-place: out = self first */
        int64_t *si = offsets(&e->t[1], out->nd, out->dims);
        for (int64_t j = 0; j < on; j++) put_elem(out, b[0], oo[j], &e->t[1], b[1], si[j], 0);
        free(si);
    }
    const tview *src = &e->t[3], *ix = &e->t[2];
    int64_t sn = numel(src), slen = src->nd ? src->dims[ax] : 1, *sof = offsets(src, src->nd, src->dims);
    int64_t *iof = offsets(ix, ix->nd, ix->dims);
    int rc = 0;
    double alpha = e->p[0].f;
    for (int64_t j = 0; j < sn && !rc; j++) {
        int64_t c = (j / inner) % slen, v = ldi(ix->dt, b[2] + iof[c] * dt_size(ix->dt));
        if (v < -n || v >= n) {
            snprintf(msg, len, "aclnn%s: index %lld is out of bounds for dimension %d with size %lld", d->name, (long long)v, ax, (long long)n);
            rc = ACL_ERROR_RT_AICORE_EXCEPTION;
            break;
        }
        int64_t dst = ((j / inner / slen) * n + (v < 0 ? v + n : v)) * inner + j % inner;
        if (!(d->flags & F_MODE)) put_elem(out, b[0], oo[dst], src, b[3], sof[j], 0);
        else if (dt_is_float(out->dt)) {
            char *p = b[0] + oo[dst] * dt_size(out->dt);
            stf(out->dt, p, ldf(out->dt, p) + alpha * ldf(src->dt, b[3] + sof[j] * dt_size(src->dt)));
        } else {
            char *p = b[0] + oo[dst] * dt_size(out->dt);
            sti(out->dt, p, (int64_t)((uint64_t)ldi(out->dt, p) + (uint64_t)e->p[0].i * (uint64_t)ldi(src->dt, b[3] + sof[j] * dt_size(src->dt))));
        }
    }
    free(oo);
    free(sof);
    free(iof);
    return rc;
}

/* Nonzero: t = {out [numel, ndim] INT64, self}: the first N rows get the coordinates of the N nonzero elements */
static int run_nonzero(aclOpExecutor *e, char **b) {
    const tview *x = &e->t[1], *o = &e->t[0];
    int64_t n = numel(x), idx[SIM_MAXDIM] = {0}, row = 0, *xo = offsets(x, x->nd, x->dims), *oo = offsets(o, o->nd, o->dims);
    int es = dt_size(x->dt);
    for (int64_t k = 0; k < n; k++) {
        const char *p = b[1] + xo[k] * es;
        if (dt_is_float(x->dt) ? ldf(x->dt, p) != 0 : ldi(x->dt, p) != 0) {
            for (int i = 0; i < x->nd; i++) sti(ACL_INT64, b[0] + oo[row * x->nd + i] * 8, idx[i]);
            row++;
        }
        step(x->nd, x->dims, idx, 0, NULL, NULL);
    }
    free(xo);
    free(oo);
    return 0;
}

/* Repeat (ip: self padded to out's rank with leading 1s) and Roll (F_MODE; ip[0..nd) shift per dim): t = {out, self} */
static int run_repeat_roll(aclOpExecutor *e, char **b) {
    const tview *o = &e->t[0], *x = &e->t[1];
    int nd = o->nd, roll = (((const op_def *)e->def)->flags & F_MODE) != 0;
    int64_t xd[SIM_MAXDIM], idx[SIM_MAXDIM] = {0}, si[SIM_MAXDIM], n = numel(o);
    for (int i = 0; i < nd; i++) xd[i] = i < nd - x->nd ? 1 : x->dims[i - (nd - x->nd)];
    int64_t *oo = offsets(o, nd, o->dims), *xo = offsets(x, x->nd, x->dims);
    for (int64_t j = 0; j < n; j++) {
        for (int i = 0; i < nd; i++) {
            int64_t s = roll ? (idx[i] - e->ip[i]) % xd[i] : idx[i] % xd[i];
            si[i] = s < 0 ? s + xd[i] : s;
        }
        put_elem(o, b[0], oo[j], x, b[1], xo[row_major_index(si, nd, xd)], 0);
        step(nd, o->dims, idx, 0, NULL, NULL);
    }
    free(oo);
    free(xo);
    return 0;
}

static int k_move(aclOpExecutor *e, int dev, char *ws, char *msg, size_t len) {
    (void)ws;
    const op_def *d = e->def;
    char *b[12] = {0};
    int rc;
    for (int j = 0; j < e->nt; j++)
        if ((rc = map_view(&e->t[j], dev, &b[j], d->name, j, msg, len))) return rc;
    if (!numel(&e->t[0]) && d->sig != SIG_INDEX_DIM) return 0;
    switch (d->sig) {
    case SIG_INDEX_LIST: return run_index_list(e, b, msg, len);
    case SIG_INDEX_DIM: return numel(&e->t[0]) ? run_index_dim(e, b, msg, len) : 0;
    case SIG_NONZERO: return run_nonzero(e, b);
    default: return run_repeat_roll(e, b);
    }
}

/* ---- their validators */
static aclnnStatus check_index(const op_def *d, const aclTensor *t, const char *what) {
    if (!t) BAD(ACLNN_ERR_PARAM_NULLPTR, "aclnn%sGetWorkspaceSize: %s is NULL", d->name, what);
    if (!aclsim_check_tensor(t) || (t->dtype != ACL_INT64 && t->dtype != ACL_INT32))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: %s must be an INT32 or INT64 aclTensor", d->name, what);
    return 0;
}

/* Index x = {out, self}; IndexPutImpl x = {selfRef, values}; the aclTensorList in `list`; i[0] accumulate */
static aclnnStatus v_index_list(const op_def *d, args *a, aclOpExecutor *e) {
    int put = (d->flags & F_MODE) != 0;
    const aclTensor *self = a->x[put ? 0 : 1], *o = a->x[put ? 1 : 0];
    aclnnStatus rc;
    if ((rc = check_tensor(d, self, put ? "selfRef" : "self", 8)) || (rc = check_same(d, o, self, put ? "values" : "out"))) return rc;
    uint64_t k;
    const aclTensor *const *ix = a->list ? aclsim_tensor_list(a->list, &k) : NULL;
    if (!ix) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: indices is not a live aclTensorList", d->name);
    if (!k || k > (self->ndim ? self->ndim : 1) || k > 8)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: %llu index tensors for %u dims", d->name, (unsigned long long)k, self->ndim);
    int64_t bs[SIM_MAXDIM];
    int nb = 0;
    for (uint64_t i = 0; i < k; i++) {
        if ((rc = check_index(d, ix[i], "an index tensor"))) return rc;
        int64_t t[SIM_MAXDIM];
        nb = i ? bshape(nb, bs, (int)ix[i]->ndim, ix[i]->dims, t) : (int)ix[i]->ndim;
        if (nb < 0) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: index tensors do not broadcast", d->name);
        memcpy(bs, i ? t : ix[i]->dims, sizeof(int64_t) * (size_t)nb);
    }
    int64_t shape[SIM_MAXDIM];
    int n = 0;
    for (int i = 0; i < nb; i++) shape[n++] = bs[i];
    for (int i = (int)k; i < (int)self->ndim; i++) shape[n++] = self->dims[i];
    if (n > SIM_MAXDIM || nb > 11) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: too many dims", d->name);
    if (put) {
        int64_t t[SIM_MAXDIM];
        if (bshape(n, shape, (int)o->ndim, o->dims, t) != n || memcmp(t, shape, sizeof(int64_t) * (size_t)n))
            BAD(ACLNN_ERR_PARAM_INVALID, "aclnnIndexPutImplGetWorkspaceSize: values do not broadcast to the indexed shape");
    } else if ((rc = check_shape(d, o, n, shape, "out"))) return rc;
    snap(&e->t[0], put ? self : o);
    snap(&e->t[1], put ? o : self);
    for (uint64_t i = 0; i < k; i++) snap(&e->t[2 + i], ix[i]);
    e->nt = 2 + (int)k;
    e->ip[0] = (int64_t)k;
    e->ip[1] = a->i[0];
    e->ip[2] = nb;
    memcpy(&e->ip[3], bs, sizeof(int64_t) * (size_t)nb);
    e->ct = self->dtype;
    return 0;
}

/* IndexAdd x = {out, self, index, source}, alpha s[0]; InplaceIndexCopy x = {selfRef, selfRef, index, source}; i[0] dim */
static aclnnStatus v_index_dim(const op_def *d, args *a, aclOpExecutor *e) {
    const aclTensor *out = a->x[0], *self = a->x[1] ? a->x[1] : a->x[0], *ix = a->x[2], *src = a->x[3];
    aclnnStatus rc;
    if ((rc = check_tensor(d, self, "self", 8)) || (rc = check_same(d, out, self, "out"))) return rc;
    int rank = (int)self->ndim, r1 = rank ? rank : 1;
    int64_t dim = a->i[0];
    if (dim < -r1 || dim >= r1) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: dim %lld is out of range", d->name, (long long)dim);
    int ax = rank ? (int)(dim < 0 ? dim + rank : dim) : 0;
    if ((rc = check_shape(d, out, rank, self->dims, "out"))) return rc;
    e->ip[0] = ax;
    e->ct = self->dtype;
    snap(&e->t[0], out);
    if ((rc = check_index(d, ix, "index")) || (rc = check_same(d, src, self, "source"))) return rc;
    int64_t nix = 1;
    for (uint32_t i = 0; i < ix->ndim; i++) nix *= ix->dims[i];
    if (ix->ndim > 1 || (int)src->ndim != rank || (rank && src->dims[ax] != nix))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: index must be 1-d with source.shape[dim] entries", d->name);
    for (int i = 0; i < rank; i++)
        if (i != ax && src->dims[i] != self->dims[i])
            BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: source and self differ outside dim", d->name);
    if (d->flags & F_MODE) {
        if ((rc = check_scalar(d, a->s[0], "alpha"))) return rc;
        e->p[0] = to_domain(a->s[0]->dtype, a->s[0]->raw, self->dtype);
    }
    snap(&e->t[1], self);
    snap(&e->t[2], ix);
    snap(&e->t[3], src);
    e->nt = 4;
    return 0;
}

/* Nonzero x = {out, self}: out is INT64 [numel(self), ndim(self)] */
static aclnnStatus v_nonzero(const op_def *d, args *a, aclOpExecutor *e) {
    const aclTensor *self = a->x[1], *out = a->x[0];
    aclnnStatus rc;
    if ((rc = check_tensor(d, self, "self", 8))) return rc;
    if (!out || !aclsim_check_tensor(out) || out->dtype != ACL_INT64)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnnNonzeroGetWorkspaceSize: out must be an INT64 aclTensor");
    int64_t n = 1;
    for (uint32_t i = 0; i < self->ndim; i++) n *= self->dims[i];
    int64_t shape[2] = {n, self->ndim};
    if ((rc = check_shape(d, out, 2, shape, "out"))) return rc;
    snap(&e->t[0], out);
    snap(&e->t[1], self);
    e->nt = 2;
    e->ct = ACL_INT64;
    return 0;
}

/* Repeat x = {out, self}, repeats in arr; Roll (F_MODE) x = {out, self}, shifts in arr, dims in ia[0] */
static aclnnStatus v_repeat_roll(const op_def *d, args *a, aclOpExecutor *e) {
    const aclTensor *self = a->x[1], *out = a->x[0];
    aclnnStatus rc;
    if ((rc = check_tensor(d, self, "self", 8)) || (rc = check_same(d, out, self, "out"))) return rc;
    uint64_t n, nd = 0;
    const int64_t *v = a->arr ? aclsim_int_array(a->arr, &n) : NULL, *dims = NULL;
    if (!v) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: %s is not a live aclIntArray", d->name, (d->flags & F_MODE) ? "shifts" : "repeats");
    int rank = (int)self->ndim;
    if (d->flags & F_MODE) {
        if (!a->ia[0] || !(dims = aclsim_int_array(a->ia[0], &nd)))
            BAD(ACLNN_ERR_PARAM_INVALID, "aclnnRollGetWorkspaceSize: dims is not a live aclIntArray");
        if (nd ? nd != n : n != 1) BAD(ACLNN_ERR_PARAM_INVALID, "aclnnRollGetWorkspaceSize: shifts and dims differ in length");
        if ((rc = check_shape(d, out, rank, self->dims, "out"))) return rc;
        memset(e->ip, 0, sizeof e->ip);
        if (!nd) { /* the flattened tensor rolls: shift the element index */
            if (!dense_tail(self, rank)) BAD(ACLNN_ERR_PARAM_INVALID, "aclnnRollGetWorkspaceSize: a flat roll needs a contiguous x");
        }
        for (uint64_t i = 0; i < nd; i++) {
            int64_t k = dims[i];
            if (k < -rank || k >= rank) BAD(ACLNN_ERR_PARAM_INVALID, "aclnnRollGetWorkspaceSize: dim %lld is out of range", (long long)k);
            e->ip[k < 0 ? k + rank : k] += v[i];
        }
        snap(&e->t[0], out);
        snap(&e->t[1], self);
        if (!nd) { /* as a 1-d roll of the contiguous storage */
            int64_t total = 1;
            for (int i = 0; i < rank; i++) total *= self->dims[i];
            e->t[0].nd = e->t[1].nd = 1;
            e->t[0].dims[0] = e->t[1].dims[0] = total;
            e->t[0].st[0] = e->t[1].st[0] = 1;
            e->ip[0] = v[0];
            if (!dense_tail(out, rank)) BAD(ACLNN_ERR_PARAM_INVALID, "aclnnRollGetWorkspaceSize: a flat roll needs a contiguous out");
        }
    } else {
        if ((int)n < rank) BAD(ACLNN_ERR_PARAM_INVALID, "aclnnRepeatGetWorkspaceSize: repeats has fewer values than self has dims");
        int64_t shape[SIM_MAXDIM];
        for (uint64_t i = 0; i < n; i++) {
            if (v[i] < 0) BAD(ACLNN_ERR_PARAM_INVALID, "aclnnRepeatGetWorkspaceSize: repeats must be >= 0");
            int j = (int)i - ((int)n - rank);
            shape[i] = v[i] * (j < 0 ? 1 : self->dims[j]);
        }
        if ((rc = check_shape(d, out, (int)n, shape, "out"))) return rc;
        snap(&e->t[0], out);
        snap(&e->t[1], self);
    }
    e->nt = 2;
    e->ct = self->dtype;
    return 0;
}


/* ---- foreach: lt holds, per list position, {out, x1[, x2[, x3]]}; the scalar (F_MODE) is t[0], a constant */
static int k_foreach(aclOpExecutor *e, int dev, char *ws, char *msg, size_t len) {
    (void)ws;
    const op_def *d = e->def;
    int per = (int)e->ip[0], with_scalar = (d->flags & F_MODE) != 0;
    for (int i = 0; i < e->nlt / per; i++) {
        const tview *v = &e->lt[i * per];
        opnd o[5];
        int rc;
        for (int k = 0; k < per; k++) {
            char *base;
            if ((rc = map_view(&v[k], dev, &base, d->name, i * per + k, msg, len))) return rc;
            bind(&o[k], &v[k], base, v[0].nd);
        }
        if (with_scalar) bind(&o[per], &e->t[0], (char *)e->t[0].cbuf, v[0].nd);
        if (numel(&v[0])) ew_loop(v[0].nd, v[0].dims, per + with_scalar, o, d->fn, e->p, e->ct);
    }
    return 0;
}

/* lists[0..n) inputs, lists[3] out (all of one length, shape per position, one floating dtype); s[0] the scalar */
static aclnnStatus v_foreach(const op_def *d, args *a, aclOpExecutor *e) {
    int nin = d->fn == e_addcmul || d->fn == e_addcdiv ? 3 : d->fn == e_lerp ? 2 : 1, per = nin + 1;
    const aclTensor *const *ls[4];
    uint64_t n = 0, m;
    for (int k = 0; k < per; k++) {
        const void *l = a->lists[k == nin ? 3 : k];
        if (!l || !(ls[k] = aclsim_tensor_list(l, &m))) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: a tensor list is not a live aclTensorList", d->name);
        if (k && m != n) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: the tensor lists differ in length", d->name);
        n = m;
    }
    if (d->fn != e_sqrt && d->fn != e_addcmul && d->fn != e_addcdiv && !a->s[0]) BAD(ACLNN_ERR_PARAM_NULLPTR, "aclnn%sGetWorkspaceSize: scalar is NULL", d->name);
    if (a->s[0] && !aclsim_check_scalar(a->s[0])) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: scalar is not a live aclScalar", d->name);
    e->lt = calloc((size_t)nz((int64_t)n * per), sizeof *e->lt);
    e->nlt = (int)(n * per);
    aclnnStatus rc;
    int dt = n ? ls[0][0]->dtype : ACL_FLOAT;
    for (uint64_t i = 0; i < n; i++)
        for (int k = 0; k < per; k++) {
            const aclTensor *t = ls[k][i];
            if ((rc = check_tensor(d, t, k == nin ? "out" : "x", 8)) || (rc = check_shape(d, t, (int)ls[0][i]->ndim, ls[0][i]->dims, "a list tensor")))
                return rc;  /* e->lt is freed by the caller's template cleanup */
            if (t->dtype != dt) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: the lists hold more than one dtype", d->name);
            snap(&e->lt[i * per + (k == nin ? 0 : k + 1)], t);
        }
    if (a->s[0]) {
        if (d->flags & F_MODE) snap_const(&e->t[0], a->s[0]->dtype, a->s[0]->raw);
        else e->p[0] = to_domain(a->s[0]->dtype, a->s[0]->raw, dt);
    }
    if (d->fn == e_add) e->p[0].f = 1; /* x + 1 * scalar */
    e->ip[0] = per;
    e->ct = dt;
    return 0;
}


/* SearchSorted: t = {out, sortedSequence, self, sorter?}; ip[0] right. Rows of the sequence's last dim pair
 * with rows of self (a 1-d sequence serves every element) */
static void run_search(aclOpExecutor *e, double **x) {
    const tview *seq = &e->t[1], *self = &e->t[2];
    int64_t n = seq->nd ? seq->dims[seq->nd - 1] : 1, rows = numel(seq) / nz(n), total = numel(self);
    int64_t k = seq->nd <= 1 ? total : total / nz(rows);
    for (int64_t i = 0; i < total; i++) {
        int64_t r = seq->nd <= 1 ? 0 : i / nz(k), lo = 0, hi = n;
        double v = x[2][i];
        while (lo < hi) {
            int64_t mid = (lo + hi) / 2, j = x[3] ? (int64_t)x[3][r * n + mid] : mid;
            double s = x[1][r * n + j];
            if (e->ip[0] ? s <= v : s < v) lo = mid + 1; else hi = mid;
        }
        x[0][i] = (double)lo;
    }
}

/* Bincount: t = {out, self, weights?}; a negative value fails the launch */
static int run_bincount(aclOpExecutor *e, double **x, char *msg, size_t len) {
    int64_t n = numel(&e->t[1]), m = numel(&e->t[0]);
    for (int64_t i = 0; i < n; i++) {
        int64_t v = (int64_t)x[1][i];
        if (v < 0 || v >= m) {
            snprintf(msg, len, "aclnnBincount: value %lld is negative or beyond out's %lld bins", (long long)v, (long long)m);
            return ACL_ERROR_RT_AICORE_EXCEPTION;
        }
        x[0][v] += x[2] ? x[2][i] : 1.0;
    }
    return 0;
}

static aclnnStatus v_search(const op_def *d, args *a, aclOpExecutor *e) {
    const aclTensor *seq = a->x[1], *self = a->x[2], *out = a->x[0], *sorter = a->x[3];
    aclnnStatus rc;
    if ((rc = check_tensor(d, seq, "sortedSequence", 8)) || (rc = check_tensor(d, self, "self", 8))) return rc;
    if (!out || !aclsim_check_tensor(out) || out->dtype != (a->i[0] ? ACL_INT32 : ACL_INT64))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnnSearchSortedGetWorkspaceSize: out must be %s", a->i[0] ? "INT32" : "INT64");
    if ((rc = check_shape(d, out, (int)self->ndim, self->dims, "out"))) return rc;
    if (seq->ndim > 1 && ((int)self->ndim != (int)seq->ndim || memcmp(seq->dims, self->dims, sizeof(int64_t) * (seq->ndim - 1))))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnnSearchSortedGetWorkspaceSize: sortedSequence and self differ in their leading dims");
    if (sorter && (!aclsim_check_tensor(sorter) || sorter->dtype != ACL_INT64 || (rc = check_shape(d, sorter, (int)seq->ndim, seq->dims, "sorter"))))
        return rc ? rc : (aclsim_set_err("aclnnSearchSortedGetWorkspaceSize: sorter must be INT64 with sortedSequence's shape"), ACLNN_ERR_PARAM_INVALID);
    snap_all(e, a->x, 4, 0xE, 0x1);
    e->ip[0] = a->i[1];
    e->ct = ACL_INT64;
    return 0;
}

static aclnnStatus v_bincount(const op_def *d, args *a, aclOpExecutor *e) {
    const aclTensor *self = a->x[1], *w = a->x[2], *out = a->x[0];
    aclnnStatus rc;
    if ((rc = check_tensor(d, self, "self", 1)) || (rc = check_tensor(d, out, "out", 1)) || (w && (rc = check_tensor(d, w, "weights", 1))))
        return rc;
    if (dt_is_float(self->dtype) || self->dtype == ACL_BOOL || self->ndim != 1 || out->ndim != 1 || out->dims[0] < a->i[0] ||
        (w && (w->ndim != 1 || w->dims[0] != self->dims[0])))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnnBincountGetWorkspaceSize: self and weights must be 1-d (self integral), out at least minlength long");
    if (out->dtype != ACL_INT32 && out->dtype != ACL_INT64 && out->dtype != ACL_FLOAT && out->dtype != ACL_DOUBLE)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnnBincountGetWorkspaceSize: out dtype %s is not INT32, INT64, FLOAT or DOUBLE", dtname(out->dtype));
    snap_all(e, a->x, 3, 0x6, 0x1);
    e->ct = out->dtype;
    return 0;
}


/* ScatterReduce: t = {out, self, index, src}; ip[0] dim, ip[1] reduce, ip[2] includeSelf. Index and src are
 * walked over the index's shape; a position's first contribution replaces self's value unless self is
 * included; mean divides by the contributions (self counting once when included); NaN wins max / min */
static int run_scatter_reduce(aclOpExecutor *e, double **x, char *msg, size_t len) {
    const tview *o = &e->t[0], *ix = &e->t[2], *src = &e->t[3];
    int ax = (int)e->ip[0], red = (int)e->ip[1], incl = (int)e->ip[2], nd = ix->nd;
    int64_t on = numel(o), n = numel(ix), idx[SIM_MAXDIM] = {0};
    int64_t *cnt = calloc((size_t)nz(on), sizeof *cnt);
    memcpy(x[0], x[1], sizeof(double) * (size_t)on);
    for (int64_t k = 0; k < n; k++) {
        int64_t dst = 0, s = 0;
        for (int i = 0; i < nd; i++) {
            int64_t c = i == ax ? (int64_t)x[2][k] : idx[i];
            if (c < -o->dims[i] || c >= o->dims[i]) {
                snprintf(msg, len, "aclnnScatterReduce: index %lld is out of bounds for dimension %d with size %lld",
                         (long long)c, i, (long long)o->dims[i]);
                free(cnt);
                return ACL_ERROR_RT_AICORE_EXCEPTION;
            }
            if (c < 0) c += o->dims[i];
            dst = dst * o->dims[i] + c;
            s = s * src->dims[i] + idx[i];
        }
        double v = x[3][s], *r = &x[0][dst];
        if (red && !incl && !cnt[dst]) *r = v;
        else if (red == 0) *r = v;
        else if (red == 1 || red == 5) *r += v;
        else if (red == 2) *r *= v;
        else if (v != v || (red == 3 ? v > *r : v < *r)) *r = v;
        cnt[dst]++;
        step(nd, ix->dims, idx, 0, NULL, NULL);
    }
    if (red == 5)
        for (int64_t p = 0; p < on; p++)
            if (cnt[p]) {
                double c = (double)(cnt[p] + (incl ? 1 : 0));
                x[0][p] = dt_is_float(o->dt) ? x[0][p] / c : floor(x[0][p] / c);
            }
    free(cnt);
    return 0;
}

static aclnnStatus v_scatter_reduce(const op_def *d, args *a, aclOpExecutor *e) {
    const aclTensor *self = a->x[1], *out = a->x[0], *ix = a->x[2], *src = a->x[3];
    aclnnStatus rc;
    if ((rc = check_tensor(d, self, "self", 8)) || (rc = check_same(d, out, self, "out")) || (rc = check_same(d, src, self, "src")))
        return rc;
    if (!ix || !aclsim_check_tensor(ix) || ix->dtype != ACL_INT64)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: index must be an INT64 tensor", d->name);
    int rank = (int)self->ndim, r1 = rank ? rank : 1;
    if (a->i[0] < -r1 || a->i[0] >= r1) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: dim is out of range", d->name);
    if (a->i[1] < 0 || a->i[1] > 5) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: reduce %lld is not 0..5", d->name, (long long)a->i[1]);
    int ax = rank ? (int)(a->i[0] < 0 ? a->i[0] + rank : a->i[0]) : 0;
    if ((int)ix->ndim != rank || (int)src->ndim != rank) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: index and src need self's rank", d->name);
    for (int i = 0; i < rank; i++)
        if (ix->dims[i] > src->dims[i] || (i != ax && ix->dims[i] > self->dims[i]))
            BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: index is larger than src or self in dim %d", d->name, i);
    if ((rc = check_shape(d, out, rank, self->dims, "out"))) return rc;
    snap_all(e, a->x, 4, 0xE, 0x1);
    e->ip[0] = ax;
    e->ip[1] = a->i[1];
    e->ip[2] = a->i[2];
    e->ct = self->dtype;
    return 0;
}


/* ---- linear algebra (ops-math math/cholesky, slogdet, qr, triangular_solve) on dense double copies, batched over
 * the leading dims; ip[3] selects the operator */

/* row-major index of batch `b` of `out_dims` in an operand whose batch dims broadcast to them */
static int64_t batch_of(int64_t b, int nb, const int64_t *out_dims, int nin, const int64_t *in_dims) {
    int64_t r = 0, stride = 1;
    for (int i = nb - 1; i >= 0; i--) {
        int64_t c = b % out_dims[i];
        b /= out_dims[i];
        int j = i - (nb - nin);
        if (j >= 0) {
            if (in_dims[j] != 1) r += c * stride;
            stride *= in_dims[j];
        }
    }
    return r;
}

static void run_linalg(aclOpExecutor *e, double **x) {
    const tview *in = &e->t[1];
    int64_t m = in->dims[in->nd - 2], n = in->dims[in->nd - 1], mats = numel(in) / nz(m * n);
    if (e->ip[3] == LA_CHOLESKY) { /* lower factor, or its transpose; a non-positive pivot poisons the rows after */
        for (int64_t b = 0; b < mats; b++) {
            double *a = x[1] + b * n * n, *l = x[0] + b * n * n;
            int64_t bad = n; /* the first non-positive pivot: rows from there on are NaN */
            for (int64_t j = 0; j < n && bad == n; j++) {
                double d = a[j * n + j];
                for (int64_t k = 0; k < j; k++) d -= l[j * n + k] * l[j * n + k];
                if (!(d > 0)) { bad = j; break; }
                l[j * n + j] = sqrt(d);
                for (int64_t i = j + 1; i < n; i++) {
                    double s = a[i * n + j];
                    for (int64_t k = 0; k < j; k++) s -= l[i * n + k] * l[j * n + k];
                    l[i * n + j] = s / l[j * n + j];
                }
            }
            for (int64_t i = bad * n; i < n * n; i++) l[i] = NAN;
            if (e->ip[0])
                for (int64_t i = 0; i < n; i++)
                    for (int64_t j = i + 1; j < n; j++) { l[i * n + j] = l[j * n + i]; l[j * n + i] = 0; }
        }
    } else if (e->ip[3] == LA_SLOGDET) { /* LU with partial pivoting: sign and log |det| (singular: 0, -inf) */
        double *w = malloc(sizeof(double) * (size_t)nz(n * n));
        for (int64_t b = 0; b < mats; b++) {
            memcpy(w, x[1] + b * n * n, sizeof(double) * (size_t)(n * n));
            double sign = 1, logabs = 0;
            for (int64_t c = 0; c < n; c++) {
                int64_t p = c;
                for (int64_t r = c + 1; r < n; r++) if (fabs(w[r * n + c]) > fabs(w[p * n + c])) p = r;
                if (w[p * n + c] == 0) { sign = 0; logabs = -INFINITY; break; }
                if (p != c) { for (int64_t k = 0; k < n; k++) { double t = w[c * n + k]; w[c * n + k] = w[p * n + k]; w[p * n + k] = t; } sign = -sign; }
                double piv = w[c * n + c];
                if (piv < 0) sign = -sign;
                logabs += log(fabs(piv));
                for (int64_t r = c + 1; r < n; r++) {
                    double f = w[r * n + c] / piv;
                    for (int64_t k = c; k < n; k++) w[r * n + k] -= f * w[c * n + k];
                }
            }
            x[0][b] = sign;
            x[2][b] = logabs;
        }
        free(w);
    } else if (e->ip[3] == LA_QR) { /* Householder reflections with LAPACK's sign convention (dgeqrf / dorgqr) */
        int64_t k = m < n ? m : n, qc = e->ip[0] ? m : k, rr = e->ip[0] ? m : k;
        double *r = malloc(sizeof(double) * (size_t)nz(m * n)), *q = malloc(sizeof(double) * (size_t)nz(m * m));
        double *v = malloc(sizeof(double) * (size_t)nz(m)), *tau = malloc(sizeof(double) * (size_t)nz(k));
        double *vs = malloc(sizeof(double) * (size_t)nz(m * k));
        for (int64_t b = 0; b < mats; b++) {
            memcpy(r, x[1] + b * m * n, sizeof(double) * (size_t)(m * n));
            for (int64_t j = 0; j < k; j++) {
                double alpha = r[j * n + j], xn = 0;
                for (int64_t i = j + 1; i < m; i++) xn += r[i * n + j] * r[i * n + j];
                for (int64_t i = 0; i < m; i++) v[i] = 0;
                tau[j] = 0;
                if (xn > 0) {
                    double beta = -copysign(sqrt(alpha * alpha + xn), alpha);
                    tau[j] = (beta - alpha) / beta;
                    v[j] = 1;
                    for (int64_t i = j + 1; i < m; i++) v[i] = r[i * n + j] / (alpha - beta);
                    for (int64_t c = j; c < n; c++) { /* R <- (I - tau v v^T) R */
                        double s = 0;
                        for (int64_t i = j; i < m; i++) s += v[i] * r[i * n + c];
                        for (int64_t i = j; i < m; i++) r[i * n + c] -= tau[j] * v[i] * s;
                    }
                    for (int64_t i = j + 1; i < m; i++) r[i * n + j] = 0;
                }
                for (int64_t i = 0; i < m; i++) vs[i * k + j] = v[i];
            }
            for (int64_t i = 0; i < m * m; i++) q[i] = 0;
            for (int64_t i = 0; i < m; i++) q[i * m + i] = 1;
            for (int64_t j = k - 1; j >= 0; j--) { /* Q = H1 ... Hk applied to the identity */
                if (tau[j] == 0) continue;
                for (int64_t c = 0; c < m; c++) {
                    double s = 0;
                    for (int64_t i = j; i < m; i++) s += vs[i * k + j] * q[i * m + c];
                    for (int64_t i = j; i < m; i++) q[i * m + c] -= tau[j] * vs[i * k + j] * s;
                }
            }
            for (int64_t i = 0; i < m; i++)
                for (int64_t c = 0; c < qc; c++) x[0][(b * m + i) * qc + c] = q[i * m + c];
            for (int64_t i = 0; i < rr; i++)
                for (int64_t c = 0; c < n; c++) x[2][(b * rr + i) * n + c] = i < m ? r[i * n + c] : 0;
        }
        free(r); free(q); free(v); free(tau); free(vs);
    } else { /* A X = B (or A^T X = B) with A triangular; t = {X, B, A, M}, batch dims broadcast */
        const tview *xo = &e->t[0], *bv = &e->t[1], *av = &e->t[2];
        int64_t nn = av->dims[av->nd - 1], kk = xo->dims[xo->nd - 1], nbat = numel(xo) / nz(nn * kk);
        int up = (int)e->ip[0], tr = (int)e->ip[1], unit = (int)e->ip[2], nb = xo->nd - 2;
        for (int64_t bi = 0; bi < nbat; bi++) {
            const double *A = x[2] + batch_of(bi, nb, xo->dims, av->nd - 2, av->dims) * nn * nn;
            const double *Bm = x[1] + batch_of(bi, nb, xo->dims, bv->nd - 2, bv->dims) * nn * kk;
            double *X = x[0] + bi * nn * kk, *M = x[3] ? x[3] + bi * nn * nn : NULL;
            /* the effective matrix is upper triangular iff (upper xor transpose) */
            int eff_up = up != tr;
            for (int64_t c = 0; c < kk; c++)
                for (int64_t s = 0; s < nn; s++) {
                    int64_t i = eff_up ? nn - 1 - s : s;
                    double acc = Bm[i * kk + c];
                    for (int64_t j = 0; j < nn; j++) {
                        if (eff_up ? j <= i : j >= i) continue;
                        double aij = tr ? A[j * nn + i] : A[i * nn + j];
                        acc -= aij * X[j * kk + c];
                    }
                    X[i * kk + c] = unit ? acc : acc / A[i * nn + i];
                }
            if (M)
                for (int64_t i = 0; i < nn; i++)
                    for (int64_t j = 0; j < nn; j++) M[i * nn + j] = (up ? j >= i : j <= i) ? A[i * nn + j] : 0;
        }
    }
}

/* LinalgCholesky x = {out, self}, i[0] upper; Slogdet x = {signOut, self, logOut}; LinalgQr x = {Q, self, R},
 * i[0] mode (0 reduced, 1 complete); TriangularSolve x = {xOut, self (b), A, mOut}, i = {upper, transpose, unit} */
static aclnnStatus v_linalg(const op_def *d, args *a, aclOpExecutor *e) {
    int kind = d->flags >> 20 & 7;
    const aclTensor *in = a->x[kind == LA_TRISOLVE ? 2 : 1];
    aclnnStatus rc;
    if ((rc = check_tensor(d, in, kind == LA_TRISOLVE ? "A" : "self", 8))) return rc;
    if (in->ndim < 2) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: self needs at least 2 dims", d->name);
    int nd = (int)in->ndim;
    int64_t m = in->dims[nd - 2], n = in->dims[nd - 1], shape[SIM_MAXDIM];
    if (kind != LA_QR && m != n) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: the last two dims must be equal", d->name);
    memcpy(shape, in->dims, sizeof(int64_t) * (size_t)nd);
    if (kind == LA_CHOLESKY) {
        if ((rc = check_same(d, a->x[0], in, "out")) || (rc = check_shape(d, a->x[0], nd, shape, "out"))) return rc;
        snap_all(e, a->x, 2, 0x2, 0x1);
    } else if (kind == LA_SLOGDET) {
        for (int j = 0; j < 3; j += 2)
            if ((rc = check_same(d, a->x[j], in, j ? "logOut" : "signOut")) || (rc = check_shape(d, a->x[j], nd - 2, shape, "signOut/logOut")))
                return rc;
        snap_all(e, a->x, 3, 0x2, 0x5);
    } else if (kind == LA_QR) {
        if (a->i[0] != 0 && a->i[0] != 1) BAD(ACLNN_ERR_PARAM_INVALID, "aclnnLinalgQrGetWorkspaceSize: mode %lld is not 0 or 1", (long long)a->i[0]);
        int64_t k = a->i[0] ? m : (m < n ? m : n);
        shape[nd - 1] = k;
        if ((rc = check_same(d, a->x[0], in, "Q")) || (rc = check_shape(d, a->x[0], nd, shape, "Q"))) return rc;
        shape[nd - 2] = k;
        shape[nd - 1] = n;
        if ((rc = check_same(d, a->x[2], in, "R")) || (rc = check_shape(d, a->x[2], nd, shape, "R"))) return rc;
        snap_all(e, a->x, 3, 0x2, 0x5);
    } else {
        const aclTensor *b = a->x[1];
        if ((rc = check_same(d, b, in, "self")) || b->ndim < 2 || b->dims[b->ndim - 2] != n)
            return rc ? rc : (aclsim_set_err("aclnnTriangularSolveGetWorkspaceSize: self must be [..., n, k] for A [..., n, n]"), ACLNN_ERR_PARAM_INVALID);
        if (a->i[2] && in->dtype != ACL_FLOAT) BAD(ACLNN_ERR_PARAM_INVALID, "aclnnTriangularSolveGetWorkspaceSize: unitriangular takes FLOAT only");
        int64_t bs[SIM_MAXDIM];
        int nb = bshape(nd - 2, in->dims, (int)b->ndim - 2, b->dims, bs);
        if (nb < 0) BAD(ACLNN_ERR_PARAM_INVALID, "aclnnTriangularSolveGetWorkspaceSize: the batch dims of A and self do not broadcast");
        bs[nb] = n;
        bs[nb + 1] = b->dims[b->ndim - 1];
        if ((rc = check_same(d, a->x[0], in, "xOut")) || (rc = check_shape(d, a->x[0], nb + 2, bs, "xOut"))) return rc;
        bs[nb + 1] = n;
        if (a->x[3] && ((rc = check_same(d, a->x[3], in, "mOut")) || (rc = check_shape(d, a->x[3], nb + 2, bs, "mOut")))) return rc;
        snap_all(e, a->x, 4, 0x6, 0x9);
        e->ip[1] = a->i[1];
        e->ip[2] = a->i[2];
    }
    e->ip[0] = a->i[0];
    e->ip[3] = kind;
    e->ct = in->dtype;
    return 0;
}


/* one-sided Jacobi SVD of a (m x n, m >= n) column-major-in-spirit work copy W (row-major m x n): W's columns
 * become U * sigma, V accumulates the rotations; sigma descending afterwards (column order permuted) */
static void jacobi_svd(double *w, double *v, double *sigma, int64_t m, int64_t n) {
    for (int64_t i = 0; i < n * n; i++) v[i] = 0;
    for (int64_t i = 0; i < n; i++) v[i * n + i] = 1;
    for (int sweep = 0; sweep < 80; sweep++) {
        int rotated = 0;
        for (int64_t p = 0; p < n; p++)
            for (int64_t q = p + 1; q < n; q++) {
                double al = 0, be = 0, ga = 0;
                for (int64_t i = 0; i < m; i++) {
                    al += w[i * n + p] * w[i * n + p];
                    be += w[i * n + q] * w[i * n + q];
                    ga += w[i * n + p] * w[i * n + q];
                }
                if (fabs(ga) <= 1e-15 * sqrt(al * be) || ga == 0) continue;
                rotated = 1;
                double zeta = (be - al) / (2 * ga), t = copysign(1.0, zeta) / (fabs(zeta) + sqrt(1 + zeta * zeta));
                double c = 1 / sqrt(1 + t * t), s = c * t;
                for (int64_t i = 0; i < m; i++) {
                    double a = w[i * n + p], b = w[i * n + q];
                    w[i * n + p] = c * a - s * b;
                    w[i * n + q] = s * a + c * b;
                }
                for (int64_t i = 0; i < n; i++) {
                    double a = v[i * n + p], b = v[i * n + q];
                    v[i * n + p] = c * a - s * b;
                    v[i * n + q] = s * a + c * b;
                }
            }
        if (!rotated) break;
    }
    for (int64_t j = 0; j < n; j++) {
        double s = 0;
        for (int64_t i = 0; i < m; i++) s += w[i * n + j] * w[i * n + j];
        sigma[j] = sqrt(s);
    }
    for (int64_t j = 0; j < n; j++) { /* selection sort, descending, carrying the columns */
        int64_t b = j;
        for (int64_t k = j + 1; k < n; k++) if (sigma[k] > sigma[b]) b = k;
        if (b == j) continue;
        double t = sigma[j]; sigma[j] = sigma[b]; sigma[b] = t;
        for (int64_t i = 0; i < m; i++) { t = w[i * n + j]; w[i * n + j] = w[i * n + b]; w[i * n + b] = t; }
        for (int64_t i = 0; i < n; i++) { t = v[i * n + j]; v[i * n + j] = v[i * n + b]; v[i * n + b] = t; }
    }
}

/* columns [from, cols) of the r x cols row-major q made orthonormal to the ones before (Gram-Schmidt over the
 * unit vectors): completes a basis, and replaces columns of zero singular values */
static void complete_basis(double *q, int64_t r, int64_t cols, int64_t from) {
    int64_t e = 0;
    for (int64_t j = from; j < cols; j++) {
        for (;;) {
            for (int64_t i = 0; i < r; i++) q[i * cols + j] = i == e % r ? 1 : 0;
            e++;
            for (int pass = 0; pass < 2; pass++)
                for (int64_t k = 0; k < j; k++) {
                    double d = 0;
                    for (int64_t i = 0; i < r; i++) d += q[i * cols + k] * q[i * cols + j];
                    for (int64_t i = 0; i < r; i++) q[i * cols + j] -= d * q[i * cols + k];
                }
            double nrm = 0;
            for (int64_t i = 0; i < r; i++) nrm += q[i * cols + j] * q[i * cols + j];
            if (nrm > 1e-6 || e > 2 * r) {
                nrm = sqrt(nrm);
                for (int64_t i = 0; i < r; i++) q[i * cols + j] /= nrm;
                break;
            }
        }
    }
}

/* Svd: t = {sigma, input, u, v}; ip[0] fullMatrices, ip[1] computeUV (false: u and v are zeros) */
static void run_svd(aclOpExecutor *e, double **x) {
    const tview *in = &e->t[1];
    int64_t m = in->dims[in->nd - 2], n = in->dims[in->nd - 1], k = m < n ? m : n, mats = numel(in) / nz(m * n);
    int tall = m >= n, full = (int)e->ip[0];
    int64_t r = tall ? m : n, c = tall ? n : m; /* the work matrix is r x c, r >= c */
    int64_t uc = full ? m : k, vc = full ? n : k;
    double *w = malloc(sizeof(double) * (size_t)nz(r * c)), *vv = malloc(sizeof(double) * (size_t)nz(c * c));
    double *sg = malloc(sizeof(double) * (size_t)nz(c));
    double *U = malloc(sizeof(double) * (size_t)nz(m * uc)), *V = malloc(sizeof(double) * (size_t)nz(n * vc));
    for (int64_t b = 0; b < mats; b++) {
        const double *a = x[1] + b * m * n;
        for (int64_t i = 0; i < r; i++)
            for (int64_t j = 0; j < c; j++) w[i * c + j] = tall ? a[i * n + j] : a[j * n + i];
        jacobi_svd(w, vv, sg, r, c);
        for (int64_t j = 0; j < k; j++) x[0][b * k + j] = sg[j];
        if (!e->ip[1]) continue;
        /* the work matrix's left vectors (w / sigma) and right vectors (vv): U and V, or V and U when wide */
        double *L = tall ? U : V, *R = tall ? V : U;
        int64_t lc = tall ? uc : vc, rc = tall ? vc : uc;
        for (int64_t i = 0; i < r; i++)
            for (int64_t j = 0; j < lc; j++) L[i * lc + j] = j < c && sg[j] > 0 ? w[i * c + j] / sg[j] : 0;
        for (int64_t i = 0; i < c; i++)
            for (int64_t j = 0; j < rc; j++) R[i * rc + j] = j < c ? vv[i * c + j] : 0;
        int64_t nz_sv = 0;
        while (nz_sv < c && sg[nz_sv] > 0) nz_sv++;
        complete_basis(L, r, lc, nz_sv < lc ? nz_sv : lc);
        complete_basis(R, c, rc, c < rc ? c : rc);
        memcpy(x[2] + b * m * uc, U, sizeof(double) * (size_t)(m * uc));
        memcpy(x[3] + b * n * vc, V, sizeof(double) * (size_t)(n * vc));
    }
    free(w); free(vv); free(sg); free(U); free(V);
}

static aclnnStatus v_svd(const op_def *d, args *a, aclOpExecutor *e) {
    const aclTensor *in = a->x[1];
    aclnnStatus rc;
    if ((rc = check_tensor(d, in, "input", 8))) return rc;
    int nd = (int)in->ndim;
    if (nd < 2) BAD(ACLNN_ERR_PARAM_INVALID, "aclnnSvdGetWorkspaceSize: input needs at least 2 dims");
    int64_t m = in->dims[nd - 2], n = in->dims[nd - 1], k = m < n ? m : n, shape[SIM_MAXDIM];
    memcpy(shape, in->dims, sizeof(int64_t) * (size_t)nd);
    shape[nd - 2] = k;
    if ((rc = check_same(d, a->x[0], in, "sigma")) || (rc = check_shape(d, a->x[0], nd - 1, shape, "sigma"))) return rc;
    shape[nd - 2] = m;
    shape[nd - 1] = a->i[0] ? m : k;
    if ((rc = check_same(d, a->x[2], in, "u")) || (rc = check_shape(d, a->x[2], nd, shape, "u"))) return rc;
    shape[nd - 2] = n;
    shape[nd - 1] = a->i[0] ? n : k;
    if ((rc = check_same(d, a->x[3], in, "v")) || (rc = check_shape(d, a->x[3], nd, shape, "v"))) return rc;
    snap_all(e, a->x, 4, 0x2, 0xD);
    e->ip[0] = a->i[0];
    e->ip[1] = a->i[1];
    e->ct = in->dtype;
    return 0;
}

static aclnnStatus prepare(const char *name, args *a, uint64_t *wsSize, aclOpExecutor **executor) {
    const op_def *d = NULL;
    for (size_t i = 0; i < sizeof OPS / sizeof OPS[0] && !d; i++)
        if (!strcmp(OPS[i].name, name)) d = &OPS[i];
    if (!wsSize || !executor) BAD(ACLNN_ERR_PARAM_NULLPTR, "aclnn%sGetWorkspaceSize: workspaceSize or executor is NULL", name);
    if (chip_lacks(name)) BAD(ACLNN_ERR_RUNTIME_ERROR, "aclnn%sGetWorkspaceSize: not supported on %s", name, aclrtGetSocName());
    aclOpExecutor tmp;
    memset(&tmp, 0, sizeof tmp);
    aclnnStatus rc;
    switch (d->sig) {
    case SIG_BINARY: case SIG_BINARY_SCALAR: rc = v_binary(d, a, &tmp); tmp.run = k_elementwise; break;
    case SIG_MATMUL: case SIG_MM: case SIG_BMM: case SIG_MV: case SIG_DOT: rc = v_matmul(d, a, &tmp); tmp.run = k_matmul; break;
    case SIG_UNARY: rc = v_unary_math(d, a, &tmp); tmp.run = k_elementwise; break;
    case SIG_WHERE: rc = v_where(d, a, &tmp); tmp.run = k_elementwise; break;
    case SIG_SCALAR_TENSOR: rc = v_scalar_tensor(d, a, &tmp); tmp.run = k_elementwise; break;
    case SIG_INDEX: rc = v_index(d, a, &tmp); tmp.run = k_index; break;
    case SIG_RANDOM: rc = v_random(d, a, &tmp); tmp.run = k_random; break;
    case SIG_NLL: rc = v_nll(d, a, &tmp); tmp.run = k_nll; break;
    case SIG_TERNARY: rc = v_ternary(d, a, &tmp); tmp.run = k_elementwise; break;
    case SIG_ARANGE: rc = v_arange(d, a, &tmp); tmp.run = k_arange; break;
    case SIG_CLAMP: rc = v_clamp(d, a, &tmp); tmp.run = k_elementwise; break;
    case SIG_TRI: rc = v_tri(d, a, &tmp); tmp.run = k_tri; break;
    case SIG_SORT: rc = v_sort(d, a, &tmp); tmp.run = k_sort; break;
    case SIG_ELEMENTS: rc = v_elements(d, a, &tmp); tmp.run = k_elements; break;
    case SIG_MULTINOMIAL: rc = v_multinomial(d, a, &tmp); tmp.run = k_multinomial; break;
    case SIG_UNARY_P: rc = v_unary_p(d, a, &tmp); tmp.run = k_elementwise; break;
    case SIG_FILLS: rc = v_fills(d, a, &tmp); tmp.run = k_fills; break;
    case SIG_FLIP: rc = v_flip(d, a, &tmp); tmp.run = k_flip; break;
    case SIG_LAYER_NORM: rc = v_layer_norm(d, a, &tmp); tmp.run = k_layer_norm; break;
    case SIG_EMBED_BWD: rc = v_embed_bwd(d, a, &tmp); tmp.run = k_embed_bwd; break;
    case SIG_MASKED_FILL: rc = v_masked_fill(d, a, &tmp); tmp.run = k_elementwise; break;
    case SIG_REDUCE: rc = v_reduce(d, a, &tmp); tmp.run = k_reduce; break;
    case SIG_CONV: rc = v_conv(d, a, &tmp); tmp.run = k_dense; break;
    case SIG_POOL: rc = v_pool(d, a, &tmp); tmp.run = k_dense; break;
    case SIG_ADAPTIVE: rc = v_adaptive(d, a, &tmp); tmp.run = k_dense; break;
    case SIG_BATCH_NORM: rc = v_batch_norm(d, a, &tmp); tmp.run = k_dense; break;
    case SIG_GROUP_NORM: rc = v_group_norm(d, a, &tmp); tmp.run = k_dense; break;
    case SIG_STATS: rc = v_stats(d, a, &tmp); tmp.run = k_dense; break;
    case SIG_SCAN: rc = v_scan(d, a, &tmp); tmp.run = k_dense; break;
    case SIG_INDEX_LIST: rc = v_index_list(d, a, &tmp); tmp.run = k_move; break;
    case SIG_INDEX_DIM: rc = v_index_dim(d, a, &tmp); tmp.run = k_move; break;
    case SIG_NONZERO: rc = v_nonzero(d, a, &tmp); tmp.run = k_move; break;
    case SIG_REPEAT: rc = v_repeat_roll(d, a, &tmp); tmp.run = k_move; break;
    case SIG_FOREACH: rc = v_foreach(d, a, &tmp); tmp.run = k_foreach; break;
    case SIG_SEARCH: rc = v_search(d, a, &tmp); tmp.run = k_dense; break;
    case SIG_BINCOUNT: rc = v_bincount(d, a, &tmp); tmp.run = k_dense; break;
    case SIG_SCATTER_REDUCE: rc = v_scatter_reduce(d, a, &tmp); tmp.run = k_dense; break;
    case SIG_LINALG: rc = v_linalg(d, a, &tmp); tmp.run = k_dense; break;
    case SIG_SVD: rc = v_svd(d, a, &tmp); tmp.run = k_dense; break;
    case SIG_SOFTMAX: rc = v_softmax(d, a, &tmp); tmp.run = k_softmax; break;
    default: rc = v_unary(d, a, &tmp); tmp.run = k_elementwise; break;
    }
    if (rc) { free(tmp.lt); return rc; }
    tmp.op = d->name;
    tmp.def = d;
    aclOpExecutor *e = aclsim_exec_new(&tmp);
    *wsSize = e->ws_size;
    *executor = e;
    return ACLNN_SUCCESS;
}

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
    PREP(ScatterAdd, .t = {out, self, index, src}, .i = {dim});
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
