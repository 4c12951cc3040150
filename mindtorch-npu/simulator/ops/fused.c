/* libopapi, the fused transformer operators: RmsNorm / RmsNormGrad and SwiGlu / SwiGluGrad (ops-nn norm/, activation/),
 * RotaryPositionEmbedding / RotaryPositionEmbeddingGrad (ops-transformer posembedding/). Each computes what its doc's
 * formula says on dense double copies (k_dense) and refuses what its doc's parameter table and constraints refuse. */
#include "ops_internal.h"

static int64_t prod(const int64_t *dims, int from, int to) {
    int64_t n = 1;
    for (int i = from; i < to; i++) n *= dims[i];
    return n;
}

static int64_t count(const aclTensor *t) { return prod(t->dims, 0, (int)t->ndim); }

/* `t` has x's dtype, or (half-precision x, a product other than Atlas inference) FLOAT: the docs' dtype tables of gamma */
static aclnnStatus check_gamma_dtype(const op_def *d, const aclTensor *t, const aclTensor *x, const char *what) {
    int half = x->dtype == ACL_FLOAT16 || x->dtype == ACL_BF16;
    if (t->dtype == x->dtype || (half && t->dtype == ACL_FLOAT && chip_family() != FAM_310P)) return 0;
    BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: %s dtype %s does not go with x dtype %s", d->name, what,
        dtname(t->dtype), dtname(x->dtype));
}

static aclnnStatus check_dtype_of(const op_def *d, const aclTensor *t, const aclTensor *like, const char *what) {
    if (t->dtype == like->dtype) return 0;
    BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: %s dtype %s differs from %s", d->name, what,
        dtname(t->dtype), dtname(like->dtype));
}

/* Atlas inference parts: the tail axis of these operands must hold at least 32 bytes */
static aclnnStatus check_tail_bytes(const op_def *d, const aclTensor *t, const char *what) {
    if (chip_family() != FAM_310P || !t->ndim || t->dims[t->ndim - 1] * dt_size(t->dtype) >= 32) return 0;
    BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: %s's tail axis is shorter than 32 bytes", d->name, what);
}

/* ---------------------------------------------------------------- RmsNorm, RmsNormGrad */
/* RmsNorm x = {yOut, x, gamma, rstdOut}, f[0] epsilon; RmsNormGrad x = {dxOut, dy, x, rstd, gamma, dgammaOut}.
 * ip[0] rows, ip[1] the normalized elements of a row (gamma's) */
static aclnnStatus v_rms_norm_fwd(const op_def *d, args *a, aclOpExecutor *e) {
    const aclTensor *y = a->x[0], *x = a->x[1], *g = a->x[2], *r = a->x[3];
    aclnnStatus rc;
    if ((rc = check_tensor(d, x, "x", 8)) || (rc = check_tensor(d, g, "gamma", 8)) || (rc = check_tensor(d, y, "yOut", 8)) ||
        (rc = check_tensor(d, r, "rstdOut", 8)))
        return rc;
    int nd = (int)x->ndim, k = (int)g->ndim;
    if (nd < 1 || k < 1 || k > nd || !same_shape(g, k, x->dims + nd - k) || !count(g))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnnRmsNormGetWorkspaceSize: gamma must be x's last dims (and not empty)");
    if ((rc = check_gamma_dtype(d, g, x, "gamma")) || (rc = check_dtype_of(d, y, x, "yOut")) ||
        (rc = check_shape(d, y, nd, x->dims, "yOut")) || (rc = check_tail_bytes(d, x, "x")) || (rc = check_tail_bytes(d, g, "gamma")))
        return rc;
    int64_t stat[SIM_MAXDIM];
    for (int i = 0; i < nd; i++) stat[i] = i < nd - k ? x->dims[i] : 1;
    if ((rc = check_shape(d, r, nd, stat, "rstdOut"))) return rc;
    e->ip[0] = prod(x->dims, 0, nd - k);
    e->ip[1] = count(g);
    e->p[0].f = a->f[0];
    snap_all(e, a->x, 4, 0x6, 0x9);
    e->ct = x->dtype;
    return 0;
}

static aclnnStatus v_rms_norm_bwd(const op_def *d, args *a, aclOpExecutor *e) {
    const aclTensor *dx = a->x[0], *dy = a->x[1], *x = a->x[2], *r = a->x[3], *g = a->x[4], *dg = a->x[5];
    aclnnStatus rc;
    if ((rc = check_tensor(d, dy, "dy", 8)) || (rc = check_tensor(d, x, "x", 8)) || (rc = check_tensor(d, r, "rstd", 7)) ||
        (rc = check_tensor(d, g, "gamma", 7)) || (rc = check_tensor(d, dx, "dxOut", 8)) || (rc = check_tensor(d, dg, "dgammaOut", 7)))
        return rc;
    int nd = (int)x->ndim, n = (int)r->ndim;
    if (nd < 2 || n < 1 || n >= nd || !same_shape(r, n, x->dims) || !same_shape(g, nd - n, x->dims + n))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnnRmsNormGradGetWorkspaceSize: rstd must be x's leading dims and gamma the rest");
    if ((rc = check_dtype_of(d, dy, x, "dy")) || (rc = check_dtype_of(d, dx, x, "dxOut")) ||
        (rc = check_gamma_dtype(d, g, x, "gamma")) || (rc = check_shape(d, dy, nd, x->dims, "dy")) ||
        (rc = check_shape(d, dx, nd, x->dims, "dxOut")) || (rc = check_shape(d, dg, (int)g->ndim, g->dims, "dgammaOut")) ||
        (rc = check_tail_bytes(d, x, "x")) || (rc = check_tail_bytes(d, dy, "dy")) || (rc = check_tail_bytes(d, g, "gamma")))
        return rc;
    e->ip[0] = count(r);
    e->ip[1] = count(g);
    snap_all(e, a->x, 6, 0x1E, 0x21);
    e->ct = x->dtype;
    return 0;
}

aclnnStatus v_rms_norm(const op_def *d, args *a, aclOpExecutor *e) {
    return d->flags & F_LOG ? v_rms_norm_bwd(d, a, e) : v_rms_norm_fwd(d, a, e);
}

int run_rms_norm(aclOpExecutor *e, double **x, char *msg, size_t len) {
    (void)msg, (void)len;
    int64_t rows = e->ip[0], n = e->ip[1];
    if (!(((const op_def *)e->def)->flags & F_LOG)) {
        for (int64_t r = 0; r < rows; r++) {
            const double *X = x[1] + r * n;
            double s = 0;
            for (int64_t k = 0; k < n; k++) s += X[k] * X[k];
            double rs = 1.0 / sqrt(s / (double)n + e->p[0].f);
            for (int64_t k = 0; k < n; k++) x[0][r * n + k] = X[k] * rs * x[2][k];
            x[3][r] = rs;
        }
        return 0;
    }
    for (int64_t k = 0; k < n; k++) x[5][k] = 0;
    for (int64_t r = 0; r < rows; r++) {
        const double *dy = x[1] + r * n, *X = x[2] + r * n, rs = x[3][r];
        double m = 0;
        for (int64_t k = 0; k < n; k++) m += dy[k] * x[4][k] * X[k] * rs;
        m /= (double)n;
        for (int64_t k = 0; k < n; k++) {
            x[0][r * n + k] = (dy[k] * x[4][k] - X[k] * rs * m) * rs;
            x[5][k] += dy[k] * X[k] * rs;
        }
    }
    return 0;
}

/* ---------------------------------------------------------------- SwiGlu, SwiGluGrad */
/* SwiGlu x = {out, x}, i[0] dim; SwiGluGrad x = {out, yGrad, x}, i[0] dim. ip = {outer, half of the split dim, inner} */
aclnnStatus v_swiglu(const op_def *d, args *a, aclOpExecutor *e) {
    int bwd = d->flags & F_LOG;
    const aclTensor *out = a->x[0], *x = a->x[bwd ? 2 : 1], *yg = bwd ? a->x[1] : NULL;
    aclnnStatus rc;
    if ((rc = check_tensor(d, x, "x", 8)) || (rc = check_tensor(d, out, "out", 8)) || (bwd && (rc = check_tensor(d, yg, "yGrad", 8))))
        return rc;
    int nd = (int)x->ndim;
    int64_t dim = a->i[0];
    if (nd < 1 || dim < -nd || dim >= nd)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: dim %lld is out of range for a %d-d x", d->name, (long long)dim, nd);
    int k = (int)(dim < 0 ? dim + nd : dim);
    if (x->dims[k] % 2)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: x's dim %d has odd size %lld", d->name, k, (long long)x->dims[k]);
    if ((bwd || chip_family() == FAM_310P) && !count(x))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: x is empty", d->name);
    int64_t halfd[SIM_MAXDIM];
    memcpy(halfd, x->dims, sizeof(int64_t) * (size_t)nd);
    halfd[k] /= 2;
    if ((rc = check_dtype_of(d, out, x, "out")) || (rc = check_shape(d, out, nd, bwd ? x->dims : halfd, "out"))) return rc;
    if (bwd && ((rc = check_dtype_of(d, yg, x, "yGrad")) || (rc = check_shape(d, yg, nd, halfd, "yGrad")))) return rc;
    e->ip[0] = prod(x->dims, 0, k);
    e->ip[1] = halfd[k];
    e->ip[2] = prod(x->dims, k + 1, nd);
    snap_all(e, a->x, bwd ? 3 : 2, bwd ? 0x6 : 0x2, 0x1);
    e->ct = x->dtype;
    return 0;
}

int run_swiglu(aclOpExecutor *e, double **x, char *msg, size_t len) {
    (void)msg, (void)len;
    int bwd = ((const op_def *)e->def)->flags & F_LOG;
    int64_t outer = e->ip[0], h = e->ip[1], inner = e->ip[2];
    const double *X = x[bwd ? 2 : 1];
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < h; i++)
            for (int64_t j = 0; j < inner; j++) {
                int64_t ia = (o * 2 * h + i) * inner + j, ib = ia + h * inner, io = (o * h + i) * inner + j;
                double A = X[ia], B = X[ib], s = 1.0 / (1.0 + exp(-A));
                if (!bwd) {
                    x[0][io] = A * s * B;
                    continue;
                }
                double g = x[1][io];
                x[0][ia] = g * (s + s * (1 - s) * A) * B;
                x[0][ib] = g * s * A;
            }
    return 0;
}

/* ---------------------------------------------------------------- RotaryPositionEmbedding(Grad) */
/* the cos / sin shapes the Atlas A2 / A3 parts take for a 4-d x (d0, d1, d2, D), per layout: BNSD 11SD B1SD BNSD,
 * BSND 1S1D BS1D BSND, SBND S11D SB1D SBND in half mode; 11SD, 1S1D, S11D in interleave mode. keep[] says which of
 * x's first three dims a pattern keeps; b / n the dims of B and N in that layout */
static const struct { char keep[3]; int b, n, interleave; } ROPE_LAYOUTS[] = {
    {{0, 0, 1}, 0, 1, 1}, {{1, 0, 1}, 0, 1, 0}, {{1, 1, 1}, 0, 1, 0}, /* BNSD */
    {{0, 1, 0}, 0, 2, 1}, {{1, 1, 0}, 0, 2, 0}, {{1, 1, 1}, 0, 2, 0}, /* BSND */
    {{1, 0, 0}, 1, 2, 1}, {{1, 1, 0}, 1, 2, 0}, {{1, 1, 1}, 1, 2, 0}, /* SBND */
};

/* whether (cos shape, mode) is one of the doc's layouts whose B and N limits x keeps; `grads`: the backward computes
 * dcos / dsin (half mode then needs B * N <= 1024) */
static int rope_layout_ok(const aclTensor *x, const aclTensor *c, int64_t mode, int grads) {
    for (size_t l = 0; l < sizeof ROPE_LAYOUTS / sizeof ROPE_LAYOUTS[0]; l++) {
        int fits = 1;
        for (int i = 0; i < 3; i++) fits &= c->dims[i] == (ROPE_LAYOUTS[l].keep[i] ? x->dims[i] : 1);
        if (!fits || (mode == 1 && !ROPE_LAYOUTS[l].interleave)) continue;
        int64_t b = x->dims[ROPE_LAYOUTS[l].b], n = x->dims[ROPE_LAYOUTS[l].n];
        if (mode == 1 ? b * n < 1000 : b < 1000 && n < 1000 && (!grads || b * n <= 1024)) return 1;
    }
    return 0;
}

/* RotaryPositionEmbedding x = {out, x, cos, sin}; Grad x = {dxOut, dy, cos, sin, xOptional, dcosOut, dsinOut};
 * i[0] mode. ip[0..3] x's dims, ip[4..6] cos's first three */
aclnnStatus v_rope(const op_def *d, args *a, aclOpExecutor *e) {
    int bwd = d->flags & F_LOG;
    const aclTensor *x = a->x[1], *c = a->x[2], *s = a->x[3], *out = a->x[0], *xo = bwd ? a->x[4] : NULL;
    const char *xn = bwd ? "dy" : "x", *on = bwd ? "dxOut" : "out";
    aclnnStatus rc;
    if ((rc = check_tensor(d, x, xn, 4)) || (rc = check_tensor(d, c, "cos", 4)) || (rc = check_tensor(d, s, "sin", 4)) ||
        (rc = check_tensor(d, out, on, 4)) || (xo && (rc = check_tensor(d, xo, "xOptional", 4))))
        return rc;
    if (bwd && ((rc = check_tensor(d, a->x[5], "dcosOut", 4)) || (rc = check_tensor(d, a->x[6], "dsinOut", 4)))) return rc;
    if ((rc = check_dtype_of(d, c, x, "cos")) || (rc = check_dtype_of(d, s, x, "sin")) || (rc = check_dtype_of(d, out, x, on)) ||
        (xo && (rc = check_dtype_of(d, xo, x, "xOptional"))))
        return rc;
    if (bwd && ((rc = check_dtype_of(d, a->x[5], x, "dcosOut")) || (rc = check_dtype_of(d, a->x[6], x, "dsinOut")))) return rc;
    if (x->ndim != 4 || c->ndim != 4)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: %s, cos and sin must be 4-d", d->name, xn);
    int64_t mode = a->i[0];
    if ((rc = check_shape(d, out, 4, x->dims, on)) || (xo && (rc = check_shape(d, xo, 4, x->dims, "xOptional"))) ||
        (rc = check_shape(d, s, 4, c->dims, "sin")))
        return rc;
    if (bwd && ((rc = check_shape(d, a->x[5], 4, c->dims, "dcosOut")) || (rc = check_shape(d, a->x[6], 4, c->dims, "dsinOut"))))
        return rc;
    if (mode != 0 && mode != 1)
        BAD(ACLNN_ERR_INNER_TILING_ERROR, "aclnn%sGetWorkspaceSize: mode %lld is not 0 (half) or 1 (interleave) on %s",
            d->name, (long long)mode, aclrtGetSocName());
    int64_t D = x->dims[3];
    if (count(x) && (c->dims[3] != D || D >= 896 || D % 2 || !rope_layout_ok(x, c, mode, xo != NULL)))
        BAD(ACLNN_ERR_INNER_TILING_ERROR, "aclnn%sGetWorkspaceSize: %s, cos and sin shapes are not a layout mode %lld takes "
            "(D even and < 896; cos / sin 11SD, B1SD or BNSD for BNSD and their BSND / SBND forms; B, N limits)",
            d->name, xn, (long long)mode);
    for (int i = 0; i < 4; i++) e->ip[i] = x->dims[i];
    for (int i = 0; i < 3; i++) e->ip[4 + i] = c->dims[i];
    e->ip[7] = mode;
    if (bwd) snap_all(e, a->x, 7, xo ? 0x1E : 0x0E, xo ? 0x61 : 0x01);
    else snap_all(e, a->x, 4, 0xE, 0x1);
    e->ct = x->dtype;
    return 0;
}

/* the rotation of element k of a row of D: x_rotate[k] = sign * row[partner] */
static void rotation(int64_t k, int64_t D, int interleave, int64_t *partner, double *sign) {
    if (interleave) {
        *partner = k ^ 1;
        *sign = k % 2 ? 1.0 : -1.0;
    } else {
        *partner = k < D / 2 ? k + D / 2 : k - D / 2;
        *sign = k < D / 2 ? -1.0 : 1.0;
    }
}

int run_rope(aclOpExecutor *e, double **x, char *msg, size_t len) {
    (void)msg, (void)len;
    int bwd = ((const op_def *)e->def)->flags & F_LOG, il = e->ip[7] == 1;
    int64_t d0 = e->ip[0], d1 = e->ip[1], d2 = e->ip[2], D = e->ip[3], c0 = e->ip[4], c1 = e->ip[5], c2 = e->ip[6];
    if (bwd && x[5])
        for (int64_t i = 0; i < c0 * c1 * c2 * D; i++) x[5][i] = x[6][i] = 0;
    for (int64_t i0 = 0; i0 < d0; i0++)
        for (int64_t i1 = 0; i1 < d1; i1++)
            for (int64_t i2 = 0; i2 < d2; i2++) {
                int64_t row = ((i0 * d1 + i1) * d2 + i2) * D;
                int64_t crow = (((c0 > 1 ? i0 : 0) * c1 + (c1 > 1 ? i1 : 0)) * c2 + (c2 > 1 ? i2 : 0)) * D;
                const double *X = x[1] + row, *C = x[2] + crow, *S = x[3] + crow;
                for (int64_t k = 0; k < D; k++) {
                    int64_t p;
                    double sg;
                    rotation(k, D, il, &p, &sg);
                    if (!bwd) {
                        x[0][row + k] = X[k] * C[k] + sg * X[p] * S[k];
                        continue;
                    }
                    /* dx = dy cos + R^T (dy sin), R^T = -R */
                    x[0][row + k] = X[k] * C[k] - sg * X[p] * S[p];
                    if (x[4]) {
                        x[5][crow + k] += X[k] * x[4][row + k];
                        x[6][crow + k] += X[k] * sg * x[4][row + p];
                    }
                }
            }
    return 0;
}
