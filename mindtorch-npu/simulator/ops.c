/* libopapi.so: the ACLNN operators. One table (OPS) says, per op, its argument signature (which selects the
 * shared validator), its supported dtypes and its element function; kernels run on the stream's worker over
 * strided views, converting through double (floating) or int64 (integer, bool) like PyTorch. */
#include "aclsim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- dtype conversion */
static float h2f(uint16_t h) {
    uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
    if (exp == 0x1f) bits = sign | 0x7f800000u | (man << 13);
    else if (exp) bits = sign | ((exp + 112) << 23) | (man << 13);
    else if (!man) bits = sign;
    else { /* subnormal: normalise */
        int e = -1;
        do { man <<= 1; e++; } while (!(man & 0x400));
        bits = sign | ((uint32_t)(112 - e) << 23) | ((man & 0x3ff) << 13);
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

static uint16_t f2h(float f) { /* round to nearest even */
    uint32_t x;
    memcpy(&x, &f, 4);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
    uint32_t ax = x & 0x7fffffffu;
    if (ax > 0x7f800000u) return sign | 0x7e00; /* NaN */
    if (ax >= 0x477ff000u) return sign | 0x7c00; /* rounds to >= 65520: inf */
    if (ax < 0x38800000u) { /* result is subnormal or zero: value / 2^-24 rounded */
        float a;
        memcpy(&a, &ax, 4);
        return sign | (uint16_t)nearbyintf(a * 16777216.0f);
    }
    uint32_t r = ax + 0x0fffu + ((ax >> 13) & 1u); /* round mantissa to 10 bits */
    return sign | (uint16_t)((r - 0x38000000u) >> 13);
}

static float b2f(uint16_t b) {
    uint32_t bits = (uint32_t)b << 16;
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

static uint16_t f2b(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40);
    return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

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
enum { SIG_BINARY, SIG_BINARY_SCALAR, SIG_CAST, SIG_COPY, SIG_FILL, SIG_ZERO, SIG_MATMUL, SIG_MM, SIG_BMM };
typedef val (*elem_fn)(const val *x, const val *p, int isf);
typedef struct op_def {
    const char *name;
    int sig;
    int inplace;      /* the output is selfRef */
    int has_alpha;
    uint32_t dtypes;  /* bit (1 << aclDataType) per supported dtype (910B-class chips, per the op's doc) */
    elem_fn fn;       /* element function, for elementwise signatures */
} op_def;

#define B(d) (1u << (d))
#define ALL10 (B(ACL_FLOAT) | B(ACL_FLOAT16) | B(ACL_BF16) | B(ACL_DOUBLE) | B(ACL_INT8) | B(ACL_UINT8) | \
               B(ACL_INT16) | B(ACL_INT32) | B(ACL_INT64) | B(ACL_BOOL))
#define MMTYPES (B(ACL_FLOAT) | B(ACL_FLOAT16) | B(ACL_BF16))

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

static const op_def OPS[] = {
    {"Add", SIG_BINARY, 0, 1, ALL10, e_add},
    {"Adds", SIG_BINARY_SCALAR, 0, 1, ALL10, e_add},
    {"InplaceAdd", SIG_BINARY, 1, 1, ALL10, e_add},
    {"InplaceAdds", SIG_BINARY_SCALAR, 1, 1, ALL10, e_add},
    {"Mul", SIG_BINARY, 0, 0, ALL10, e_mul},
    {"Muls", SIG_BINARY_SCALAR, 0, 0, ALL10, e_mul},
    {"InplaceMul", SIG_BINARY, 1, 0, ALL10, e_mul},
    {"InplaceMuls", SIG_BINARY_SCALAR, 1, 0, ALL10, e_mul},
    {"Cast", SIG_CAST, 0, 0, ALL10, e_id},
    {"InplaceCopy", SIG_COPY, 1, 0, ALL10, e_id},
    {"InplaceFillScalar", SIG_FILL, 1, 0, ALL10, e_id},
    {"InplaceZero", SIG_ZERO, 1, 0, ALL10, e_id},
    {"Matmul", SIG_MATMUL, 0, 0, MMTYPES, NULL},
    {"Mm", SIG_MM, 0, 0, MMTYPES, NULL},
    {"BatchMatMul", SIG_BMM, 0, 0, MMTYPES, NULL},
};

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
    const aclTensor *t[3]; /* t[0] output (selfRef for in-place ops), t[1] self, t[2] other */
    const aclScalar *s[2]; /* s[0] other/value, s[1] alpha */
    int64_t i[2];
} args;

#define BAD(code, ...) do { aclsim_set_err(__VA_ARGS__); return (code); } while (0)

static int fmt_plain(int f) {
    return f == ACL_FORMAT_ND || f == ACL_FORMAT_NCHW || f == ACL_FORMAT_NHWC || f == ACL_FORMAT_HWCN ||
           f == ACL_FORMAT_NDHWC || f == ACL_FORMAT_NCDHW || f == ACL_FORMAT_NC || f == ACL_FORMAT_NCL;
}

static aclnnStatus check_tensor(const op_def *d, const aclTensor *t, const char *what, int maxdim) {
    if (!t) BAD(ACLNN_ERR_PARAM_NULLPTR, "aclnn%sGetWorkspaceSize: %s is NULL", d->name, what);
    if (!aclsim_check_tensor(t)) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: %s is not a live aclTensor", d->name, what);
    if (!(d->dtypes & B(t->dtype)))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: %s dtype %s is not supported", d->name, what, dtname(t->dtype));
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
    if (!(d->dtypes & B(ct))) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: promoted dtype %s is not supported", nm, dtname(ct));
    if (!can_cast(ct, out->dtype))
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

/* ---------------------------------------------------------------- phase 1 and phase 2, shared */
static aclnnStatus prepare(const char *name, args *a, uint64_t *wsSize, aclOpExecutor **executor) {
    const op_def *d = NULL;
    for (size_t i = 0; i < sizeof OPS / sizeof OPS[0] && !d; i++)
        if (!strcmp(OPS[i].name, name)) d = &OPS[i];
    if (!wsSize || !executor) BAD(ACLNN_ERR_PARAM_NULLPTR, "aclnn%sGetWorkspaceSize: workspaceSize or executor is NULL", name);
    aclOpExecutor tmp;
    memset(&tmp, 0, sizeof tmp);
    aclnnStatus rc;
    switch (d->sig) {
    case SIG_BINARY: case SIG_BINARY_SCALAR: rc = v_binary(d, a, &tmp); tmp.run = k_elementwise; break;
    case SIG_MATMUL: case SIG_MM: case SIG_BMM: rc = v_matmul(d, a, &tmp); tmp.run = k_matmul; break;
    default: rc = v_unary(d, a, &tmp); tmp.run = k_elementwise; break;
    }
    if (rc) return rc;
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
