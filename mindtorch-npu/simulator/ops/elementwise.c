/* libopapi, elementwise operators: the element functions, their validators (binary, unary, ternary, clamp, where,
 * cast / copy / fill / zero) and the one strided elementwise kernel. */
#include "ops_internal.h"

val e_add(const val *x, const val *p, int isf) { /* self + alpha * other; bool: OR via the != 0 store */
    val r;
    if (isf) r.f = x[0].f + p[0].f * x[1].f; else r.i = (int64_t)((uint64_t)x[0].i + (uint64_t)p[0].i * (uint64_t)x[1].i);
    return r;
}
val e_mul(const val *x, const val *p, int isf) {
    (void)p;
    val r;
    if (isf) r.f = x[0].f * x[1].f; else r.i = (int64_t)((uint64_t)x[0].i * (uint64_t)x[1].i);
    return r;
}
val e_id(const val *x, const val *p, int isf) { (void)p; (void)isf; return x[0]; }

/* unary element functions: float domain (double) and, where the op keeps integers, int64 domain */
#define UF(N, FEXPR, IEXPR)                                                                                  \
    val e_##N(const val *x, const val *p, int isf) {                                                \
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
    val e_##N(const val *x, const val *p, int isf) {                                                \
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
double fmaxn(double a, double b) { return a != a || b != b ? NAN : a > b ? a : b; }
double fminn(double a, double b) { return a != a || b != b ? NAN : a < b ? a : b; }
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
val e_lshift(const val *x, const val *p, int isf) {
    (void)isf;
    val r;
    r.i = x[1].i < 0 || x[1].i >= p[1].i ? 0 : (int64_t)((uint64_t)x[0].i << x[1].i);
    return r;
}
val e_rshift(const val *x, const val *p, int isf) {
    (void)isf;
    val r;
    r.i = x[1].i < 0 || x[1].i >= p[1].i ? (x[0].i < 0 ? -1 : 0) : x[0].i >> x[1].i;
    return r;
}
val e_isclose(const val *x, const val *p, int isf) { /* p: rtol, atol, equal_nan (p[0] is alpha's slot) */
    (void)isf;
    double a = x[0].f, b = x[1].f;
    val r;
    r.f = a == b || (p[3].i && a != a && b != b) || (isfinite(a) && isfinite(b) && fabs(a - b) <= p[2].f + p[1].f * fabs(b));
    return r;
}
val e_sub(const val *x, const val *p, int isf) { /* self - alpha * other */
    val r;
    if (isf) r.f = x[0].f - p[0].f * x[1].f; else r.i = (int64_t)((uint64_t)x[0].i - (uint64_t)p[0].i * (uint64_t)x[1].i);
    return r;
}
val e_divmod(const val *x, const val *p, int isf) { /* mode 0 true, 1 trunc, 2 floor division */
    val r;
    if (isf) {
        double q = x[0].f / x[1].f;
        if (p[1].i == ACL_FLOAT) q = (float)q; /* RealDiv in FLOAT (div_float_compute) */
        r.f = p[0].i == 1 ? trunc(q) : p[0].i == 2 ? floor(q) : q;
    } else { /* a device does not trap: x / 0 gives 0 here; INT64_MIN / -1 wraps */
        int64_t a = x[0].i, b = x[1].i;
        if (!b) r.i = 0;
        else if (b == -1) r.i = (int64_t)(0 - (uint64_t)a);
        else r.i = a / b - (p[0].i == 2 && (a % b) && ((a < 0) != (b < 0)));
    }
    return r;
}
val e_gelu2(const val *x, const val *p, int isf) {
    (void)isf;
    double a = x[0].f;
    val r;
    r.f = p[0].i ? 0.5 * a * (1.0 + tanh(0.79788456080286535588 * (a + 0.044715 * a * a * a)))
                 : 0.5 * a * (1.0 + erf(a * 0.70710678118654752440));
    return r;
}
/* GeluBackwardV2: x[0] gradOutput, x[1] self; p[0].i the approximate mode (0 "none", 1 "tanh") */
val e_gelu_bwd(const val *x, const val *p, int isf) {
    (void)isf;
    double g = x[0].f, a = x[1].f;
    val r;
    if (p[0].i) { /* d/da of 0.5 a (1 + tanh(k (a + c a^3))) */
        double k = 0.79788456080286535588, c = 0.044715, t = tanh(k * (a + c * a * a * a));
        r.f = g * (0.5 * (1.0 + t) + 0.5 * a * (1.0 - t * t) * k * (1.0 + 3.0 * c * a * a));
    } else { /* Phi(a) + a phi(a) */
        r.f = g * (0.5 * (1.0 + erf(a * 0.70710678118654752440)) + a * 0.39894228040143267794 * exp(-0.5 * a * a));
    }
    return r;
}
/* SiluBackward: x[0] gradOutput, x[1] self; gradOutput s (1 + self (1 - s)) with s = sigmoid(self) */
val e_silu_bwd(const val *x, const val *p, int isf) {
    (void)p, (void)isf;
    double g = x[0].f, a = x[1].f, s = 1.0 / (1.0 + exp(-a));
    val r;
    r.f = g * s * (1.0 + a * (1.0 - s));
    return r;
}
val e_roundd(const val *x, const val *p, int isf) { /* PyTorch: scale by 10^|d|, round half even, unscale */
    if (!isf) return x[0];
    double a = x[0].f, ten = pow(10.0, (double)(p[0].i < 0 ? -p[0].i : p[0].i));
    val r;
    r.f = p[0].i >= 0 ? nearbyint(a * ten) / ten : nearbyint(a / ten) * ten;
    return r;
}
val e_lerp(const val *x, const val *p, int isf) { /* two forms keep both endpoints exact, as PyTorch */
    (void)p; (void)isf;
    double s = x[0].f, e = x[1].f, w = x[2].f;
    val r;
    r.f = fabs(w) < 0.5 ? s + w * (e - s) : e - (e - s) * (1 - w);
    return r;
}
val e_addcmul(const val *x, const val *p, int isf) {
    val r;
    if (isf) r.f = x[0].f + p[0].f * x[1].f * x[2].f;
    else r.i = (int64_t)((uint64_t)x[0].i + (uint64_t)p[0].i * (uint64_t)x[1].i * (uint64_t)x[2].i);
    return r;
}
val e_addcdiv(const val *x, const val *p, int isf) {
    (void)isf;
    val r;
    r.f = x[0].f + p[0].f * (x[1].f / x[2].f);
    return r;
}
/* clamp: p[0] min, p[1] max, p[2].i / p[3].i whether each is given; NaN propagates (as PyTorch) */
val e_clamp(const val *x, const val *p, int isf) {
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
val e_clamp_t(const val *x, const val *p, int isf) { /* ClampTensor: x[1] min, x[2] max */
    val q[4] = {x[1], x[2], {.i = 1}, {.i = 1}};
    (void)p;
    return e_clamp(x, q, isf);
}
val e_clamp_min_t(const val *x, const val *p, int isf) {
    val q[4] = {x[1], x[1], {.i = 1}, {.i = 0}};
    (void)p;
    return e_clamp(x, q, isf);
}
val e_clamp_max_t(const val *x, const val *p, int isf) {
    val q[4] = {x[1], x[1], {.i = 0}, {.i = 1}};
    (void)p;
    return e_clamp(x, q, isf);
}
/* unary ops with parameters p[0..2] (floats): leaky relu, softplus, nan_to_num */
val e_leaky(const val *x, const val *p, int isf) {
    (void)isf;
    val r;
    r.f = x[0].f > 0 ? x[0].f : x[0].f * p[0].f;
    return r;
}
val e_elu(const val *x, const val *p, int isf) { /* p: alpha, scale, inputScale */
    (void)isf;
    val r;
    r.f = x[0].f > 0 ? p[1].f * x[0].f : p[1].f * p[0].f * expm1(x[0].f * p[2].f);
    return r;
}
val e_softplus(const val *x, const val *p, int isf) { /* x if beta * x > threshold, else log1p(exp(beta x)) / beta */
    (void)isf;
    val r;
    double z = x[0].f * p[0].f;
    r.f = z > p[1].f ? x[0].f : log1p(exp(z)) / p[0].f;
    return r;
}
val e_nan2num(const val *x, const val *p, int isf) {
    val r = x[0];
    if (!isf) return r;
    if (r.f != r.f) r.f = p[0].f;
    else if (isinf(r.f)) r.f = r.f > 0 ? p[1].f : p[2].f;
    return r;
}
val e_where(const val *x, const val *p, int isf) {
    (void)p;
    return (isf ? x[0].f != 0 : x[0].i != 0) ? x[1] : x[2];
}

int k_elementwise(aclOpExecutor *e, int dev, char *ws, char *msg, size_t len) {
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

/* ---------------------------------------------------------------- validators */
/* aclnnDivMod / DivMods off Ascend950 (ops-math math/div/op_api/aclnn_div.cpp, CompatibleInferDivModeDtype):
 * true and trunc division of anything but FLOAT, FLOAT16, BFLOAT16 and BOOL run as FLOAT (cast, RealDiv, Trunc,
 * cast back), except INT32 by INT32 on the 910B-class parts; floor division keeps the promoted dtype */
static int div_float_compute(int ct, int64_t mode, int self_dt, int other_dt) {
    if (mode == 2 || chip_family() == FAM_950) return 0;
    if (ct == ACL_FLOAT || ct == ACL_FLOAT16 || ct == ACL_BF16 || ct == ACL_BOOL) return 0;
    return !(chip_family() == FAM_910B && self_dt == ACL_INT32 && other_dt == ACL_INT32);
}

/* `out` (named `what` in the message) has the broadcast shape of a and b, or a's own shape when b is NULL */
static aclnnStatus check_broadcast_out(const op_def *d, const aclTensor *a, const aclTensor *b, const aclTensor *out,
                                       const char *what) {
    int64_t bs[SIM_MAXDIM];
    int nb = b ? bshape((int)a->ndim, a->dims, (int)b->ndim, b->dims, bs) : (int)a->ndim;
    if (!b) memcpy(bs, a->dims, sizeof(int64_t) * a->ndim);
    char s1[256], s2[256];
    if (nb < 0) {
        shape_str(s1, sizeof s1, (int)a->ndim, a->dims);
        shape_str(s2, sizeof s2, (int)b->ndim, b->dims);
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: shapes %s and %s cannot broadcast", d->name, s1, s2);
    }
    if (!same_shape(out, nb, bs)) {
        shape_str(s1, sizeof s1, (int)out->ndim, out->dims);
        shape_str(s2, sizeof s2, nb, bs);
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: %s shape %s is not the broadcast shape %s", d->name, what,
            s1, s2);
    }
    return 0;
}

aclnnStatus v_binary(const op_def *d, args *a, aclOpExecutor *e) {
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
    if ((rc = check_dtype(d, ct, d->inplace ? "selfRef" : "self"))) return rc; /* the promoted dtype */
    if (!(d->flags & F_BOOL) && !can_cast(ct, out->dtype))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: result dtype %s cannot be cast to %s %s", nm, dtname(ct),
            d->inplace ? "selfRef" : "out", dtname(out->dtype));
    if (d->has_alpha) {
        int adt = a->s[1]->dtype;
        if (!can_cast(adt, ct) || (adt == ACL_BOOL && ct != ACL_BOOL))
            BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: alpha of dtype %s cannot be converted to %s", nm,
                dtname(adt), dtname(ct));
    }
    if ((rc = check_broadcast_out(d, self, scalar_other ? NULL : other, out, d->inplace ? "selfRef" : "out"))) return rc;
    if ((d->flags & F_MODE) && div_float_compute(ct, a->i[0], self->dtype, scalar_other ? -1 : other->dtype))
        ct = ACL_FLOAT;
    KEEP(e, ct, out, self, scalar_other ? NULL : other);
    if (scalar_other) keep_scalar(e, 2, a->s[0]);
    if (d->has_alpha) e->p[0] = to_domain(a->s[1]->dtype, a->s[1]->raw, ct);
    if (d->flags & F_MODE) e->p[0].i = a->i[0], e->p[1].i = ct;
    if (d->flags & F_CLOSE) { e->p[1].f = a->f[0]; e->p[2].f = a->f[1]; e->p[3].i = a->i[0]; }
    return 0;
}

/* Cast(self, dtype, out): self's shape, out's dtype; values convert from self's domain (float -> int truncates) */
aclnnStatus v_cast(const op_def *d, args *a, aclOpExecutor *e) {
    const aclTensor *out = a->t[0], *src = a->t[1];
    aclnnStatus rc;
    if ((rc = check_tensor(d, out, "out", 8)) || (rc = check_tensor(d, src, "self", 8))) return rc;
    if (a->i[0] != out->dtype)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: dtype %s differs from out dtype %s", d->name,
            dtname((int)a->i[0]), dtname(out->dtype));
    if (!same_shape(out, (int)src->ndim, src->dims)) {
        char s1[256], s2[256];
        shape_str(s1, sizeof s1, (int)src->ndim, src->dims);
        shape_str(s2, sizeof s2, (int)out->ndim, out->dims);
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: self shape %s differs from out shape %s", d->name, s1, s2);
    }
    KEEP(e, src->dtype, out, src);
    return 0;
}

/* InplaceCopy(selfRef, src): src broadcasts to selfRef */
aclnnStatus v_copy(const op_def *d, args *a, aclOpExecutor *e) {
    const aclTensor *out = a->t[0], *src = a->t[1];
    aclnnStatus rc;
    if ((rc = check_tensor(d, out, "selfRef", 8)) || (rc = check_tensor(d, src, "src", 8))) return rc;
    int64_t bs[SIM_MAXDIM];
    int nb = bshape((int)out->ndim, out->dims, (int)src->ndim, src->dims, bs);
    if (nb < 0 || !same_shape(out, nb, bs)) {
        char s1[256], s2[256];
        shape_str(s1, sizeof s1, (int)src->ndim, src->dims);
        shape_str(s2, sizeof s2, (int)out->ndim, out->dims);
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: src shape %s cannot broadcast to selfRef shape %s",
            d->name, s1, s2);
    }
    KEEP(e, src->dtype, out, src);
    return 0;
}

/* InplaceFillScalar(selfRef, value) */
aclnnStatus v_fill(const op_def *d, args *a, aclOpExecutor *e) {
    aclnnStatus rc;
    if ((rc = check_tensor(d, a->t[0], "selfRef", 8)) || (rc = check_scalar(d, a->s[0], "value"))) return rc;
    KEEP(e, a->s[0]->dtype, a->t[0], NULL);
    keep_scalar(e, 1, a->s[0]);
    return 0;
}

/* InplaceZero(selfRef) */
aclnnStatus v_zero(const op_def *d, args *a, aclOpExecutor *e) {
    aclnnStatus rc;
    if ((rc = check_tensor(d, a->t[0], "selfRef", 8))) return rc;
    int64_t zero = 0;
    KEEP(e, ACL_INT64, a->t[0], NULL);
    snap_const(&e->t[1], ACL_INT64, &zero);
    return 0;
}

/* the ops' own rules (their rows' `check`) */
/* GeluV2: approximate is 0 (erf) or 1 (tanh) */
aclnnStatus check_approximate(const op_def *d, args *a, aclOpExecutor *e) {
    (void)e;
    if (a->i[0] < 0 || a->i[0] > 1)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: approximate %lld is not 0 or 1", d->name, (long long)a->i[0]);
    return 0;
}

/* GeluBackwardV2(gradOutput, self, approximate, gradInput), with the checks of ops-nn gelu_grad_v2's op_api in
 * its order: NULL pointers; gradOutput's and self's dtypes in the doc's table, their promoted dtype gradInput's;
 * the broadcast shape gradInput's; approximate "none" or "tanh" */
aclnnStatus v_gelu_backward(const op_def *d, args *a, aclOpExecutor *e) {
    const aclTensor *out = a->t[0], *g = a->t[1], *x = a->t[2];
    aclnnStatus rc;
    if (!g || !x || !out || !a->str)
        BAD(ACLNN_ERR_PARAM_NULLPTR, "aclnn%sGetWorkspaceSize: gradOutput, self, approximate or gradInput is NULL", d->name);
    if ((rc = check_tensor(d, g, "gradOutput", 8)) || (rc = check_tensor(d, x, "self", 8)) ||
        (rc = check_tensor(d, out, "gradInput", 8)))
        return rc;
    int ct = promote(g->dtype, x->dtype);
    if ((rc = check_dtype(d, ct, "self"))) return rc;
    if (out->dtype != ct)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: promoted dtype %s of gradOutput and self is not gradInput's %s",
            d->name, dtname(ct), dtname(out->dtype));
    if ((rc = check_broadcast_out(d, g, x, out, "gradInput"))) return rc;
    int mode = !strcmp(a->str, "none") ? 0 : !strcmp(a->str, "tanh") ? 1 : -1;
    if (mode < 0)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: approximate only supports none or tanh, but got %s", d->name,
            a->str);
    KEEP(e, ct, out, g, x);
    e->p[0].i = mode;
    return 0;
}

/* SiluBackward(gradOutput, self, gradInput), with the checks of ops-nn silu_grad's op_api in its order: NULL
 * pointers; the three dtypes in the doc's table (BFLOAT16 only where the chip has it); the three dtypes equal, but on
 * Ascend950 (regbase, which mixes precisions) a gradOutput and self of different dtypes want a FLOAT gradInput; at
 * most 8 dims; off Ascend950 the three shapes equal, on it the broadcast of gradOutput and self gradInput's shape.
 * An empty input ends the checks (nothing to compute). */
aclnnStatus v_silu_backward(const op_def *d, args *a, aclOpExecutor *e) {
    const aclTensor *out = a->t[0], *g = a->t[1], *x = a->t[2];
    aclnnStatus rc;
    if (!g || !x || !out) BAD(ACLNN_ERR_PARAM_NULLPTR, "aclnn%sGetWorkspaceSize: gradOutput, self or gradInput is NULL", d->name);
    if ((rc = check_tensor(d, g, "gradOutput", 8)) || (rc = check_tensor(d, x, "self", 8)) ||
        (rc = check_tensor(d, out, "gradInput", 8)))
        return rc;
    int regbase = chip_family() == FAM_950;
    if (regbase && g->dtype != x->dtype) {
        if (out->dtype != ACL_FLOAT)
            BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: gradOutput %s and self %s mix precisions, gradInput %s is not FLOAT",
                d->name, dtname(g->dtype), dtname(x->dtype), dtname(out->dtype));
    } else if (g->dtype != out->dtype || x->dtype != out->dtype) {
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: gradOutput %s, self %s and gradInput %s dtypes differ", d->name,
            dtname(g->dtype), dtname(x->dtype), dtname(out->dtype));
    }
    if (!regbase) {
        if (!same_shape(g, (int)out->ndim, out->dims) || !same_shape(x, (int)out->ndim, out->dims))
            BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: gradOutput, self and gradInput shapes differ", d->name);
    } else if ((rc = check_broadcast_out(d, g, x, out, "gradInput"))) {
        return rc;
    }
    KEEP(e, out->dtype, out, g, x);
    return 0;
}

/* shifts: the count's range is the computation dtype's width, p[1] */
aclnnStatus set_shift_width(const op_def *d, args *a, aclOpExecutor *e) {
    (void)d, (void)a;
    e->p[1].i = 8 * dt_size(e->ct);
    return 0;
}


/* unary math: out (or selfRef) = fn(self), same shape; F_FLOAT ops compute integers as FLOAT */
aclnnStatus v_unary_math(const op_def *d, args *a, aclOpExecutor *e) {
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
    KEEP(e, ct, out, self);
    e->p[0].i = a->i[0];
    return 0;
}

/* scalar op tensor (PowScalarTensor): out has the tensor's shape; the scalar only lifts the category */
aclnnStatus v_scalar_tensor(const op_def *d, args *a, aclOpExecutor *e) {
    const aclTensor *t = a->t[2], *out = a->t[0];
    aclnnStatus rc;
    if ((rc = check_scalar(d, a->s[0], "self")) || (rc = check_tensor(d, t, "exponent", 8)) ||
        (rc = check_tensor(d, out, "out", 8)))
        return rc;
    int ct = promote_scalar(t->dtype, a->s[0]->dtype);
    if ((rc = check_dtype(d, ct, "exponent"))) return rc;
    if (!can_cast(ct, out->dtype))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: result dtype %s into out %s is not supported", d->name,
            dtname(ct), dtname(out->dtype));
    if (!same_shape(out, (int)t->ndim, t->dims))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: out shape differs from exponent shape", d->name);
    KEEP(e, ct, out, NULL, t);
    keep_scalar(e, 1, a->s[0]);
    return 0;
}

/* out = condition ? self : other, all three broadcast to out */
aclnnStatus v_where(const op_def *d, args *a, aclOpExecutor *e) {
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
    KEEP(e, ct, out, cond, self, other);
    return 0;
}

/* InplaceMaskedFillScalar(selfRef, mask, value): mask BOOL, broadcast to selfRef */
aclnnStatus v_masked_fill(const op_def *d, args *a, aclOpExecutor *e) {
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
    KEEP(e, self->dtype, self, mask, NULL, self);
    keep_scalar(e, 2, a->s[0]);
    return 0;
}

/* t[0] out (selfRef), t[1] self, t[2] tensor1/end, t[3] tensor2/weight (or s[0], a scalar weight); s[1] value */
aclnnStatus v_ternary(const op_def *d, args *a, aclOpExecutor *e) {
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
    if ((rc = check_dtype(d, ct, d->inplace ? "selfRef" : "self"))) return rc;
    if (!can_cast(ct, out->dtype))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: result dtype %s into %s is not supported", d->name,
            dtname(ct), dtname(out->dtype));
    int64_t s1[SIM_MAXDIM], s2[SIM_MAXDIM];
    int n = bshape((int)self->ndim, self->dims, (int)t1->ndim, t1->dims, s1);
    if (sw) { memcpy(s2, s1, sizeof s1); }
    else if (n >= 0) n = bshape(n, s1, (int)t2->ndim, t2->dims, s2);
    if (n < 0 || !same_shape(out, n, s2))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: operands do not broadcast to %s", d->name,
            d->inplace ? "selfRef" : "out");
    KEEP(e, ct, out, self, t1, sw ? NULL : t2);
    if (sw) keep_scalar(e, 3, a->s[0]);
    if (d->has_alpha) e->p[0] = to_domain(a->s[1]->dtype, a->s[1]->raw, ct);
    return 0;
}

/* Clamp / ClampMin / ClampMax (flags: 1 min given, 2 max given); a bound the op takes may not be NULL */
aclnnStatus v_clamp(const op_def *d, args *a, aclOpExecutor *e) {
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
    KEEP(e, ct, out, self);
    if (lo) e->p[0] = to_domain(lo->dtype, lo->raw, ct);
    if (hi) e->p[1] = to_domain(hi->dtype, hi->raw, ct);
    e->p[2].i = lo != NULL;
    e->p[3].i = hi != NULL;
    return 0;
}

/* unary with parameters: scalars s[0], s[1] (LeakyRelu, Softplus) or floats f[0..2] (F_MODE: NanToNum) */
aclnnStatus v_unary_p(const op_def *d, args *a, aclOpExecutor *e) {
    const aclTensor *self = d->inplace ? a->t[0] : a->t[1], *out = a->t[0];
    aclnnStatus rc;
    if ((rc = check_tensor(d, self, d->inplace ? "selfRef" : "self", 8)) || (!d->inplace && (rc = check_tensor(d, out, "out", 8))))
        return rc;
    if (!same_shape(out, (int)self->ndim, self->dims) || !can_cast(self->dtype, out->dtype))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: out must have self's shape and hold its dtype", d->name);
    for (int k = 0; k < 3; k++) e->p[k].f = a->f[k];
    if (!(d->flags & F_MODE))
        for (int k = 0; k < d->arity; k++) {
            if (!a->s[k]) BAD(ACLNN_ERR_PARAM_NULLPTR, "aclnn%sGetWorkspaceSize: a parameter is NULL", d->name);
            if ((rc = check_scalar(d, a->s[k], "parameter"))) return rc;
            e->p[k].f = ldf(a->s[k]->dtype, (const char *)a->s[k]->raw);
        }
    KEEP(e, self->dtype, out, self);
    return 0;
}
