/* libopapi, the foreach operators over aclTensorLists. */
#include "ops_internal.h"

/* ---- foreach: lt holds, per list position, {out, x1[, x2[, x3]]}; the scalar (F_MODE) is t[0], a constant */
int k_foreach(aclOpExecutor *e, int dev, char *ws, char *msg, size_t len) {
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

enum { FOREACH_MAX_TENSORS = 256 };

/* lists[0..n) inputs, lists[3] out (all of one length, shape per position, one floating dtype); s[0] the scalar */
aclnnStatus v_foreach(const op_def *d, args *a, aclOpExecutor *e) {
    int nin = d->arity, per = nin + 1;
    const aclTensor *const *ls[4];
    uint64_t n = 0, m;
    for (int k = 0; k < per; k++) {
        const void *l = a->lists[k == nin ? 3 : k];
        if (!l || !(ls[k] = aclsim_tensor_list(l, &m))) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: a tensor list is not a live aclTensorList", d->name);
        if (k && m != n) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: the tensor lists differ in length", d->name);
        n = m;
    }
    /* the foreach tiling keeps one entry per tensor in a MAX_TENSOR_CONT (256) array (ops-nn foreach/foreach_utils
     * op_host/foreach_tiling_def.h): a longer list does not fit */
    if (n > FOREACH_MAX_TENSORS)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: a tensor list holds %llu tensors, at most %d are supported",
            d->name, (unsigned long long)n, FOREACH_MAX_TENSORS);
    if ((d->flags & F_MODE) && !a->s[0]) BAD(ACLNN_ERR_PARAM_NULLPTR, "aclnn%sGetWorkspaceSize: scalar is NULL", d->name);
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
        if (d->flags & F_MODE) keep_scalar(e, 0, a->s[0]);
        else e->p[0] = to_domain(a->s[0]->dtype, a->s[0]->raw, dt);
    }
    e->ip[0] = per;
    e->ct = dt;
    return 0;
}

/* ForeachAddScalarV2: x + 1 * scalar through the add element function's alpha */
aclnnStatus set_unit_alpha(const op_def *d, args *a, aclOpExecutor *e) {
    (void)d, (void)a;
    e->p[0].f = 1;
    return 0;
}

/* ---- loss scaling ---------------------------------------------------------------------------------------- */

/* a tensor the doc says holds exactly one element (foundInf, invScale) */
static aclnnStatus one_element(const op_def *d, const aclTensor *t, const char *what) {
    int64_t n = 1;
    for (unsigned i = 0; i < t->ndim; i++) n *= t->dims[i];
    if (n != 1) BAD(ACLNN_ERR_INNER_TILING_ERROR, "aclnn%sGetWorkspaceSize: %s holds %lld elements, it must hold one", d->name, what, (long long)n);
    return 0;
}

/* scaledGrads (lists[0], in place): one FLOAT/FLOAT16/BFLOAT16 dtype per the doc, no empty or non-contiguous
 * tensor, at most 256; foundInf (x[0], read and written) and invScale (x[1]) FLOAT with one element each. The
 * grads are kept in lt, foundInf in t[0], invScale in t[1]. */
aclnnStatus v_amp_unscale(const op_def *d, args *a, aclOpExecutor *e) {
    uint64_t n = 0;
    const aclTensor *const *ls = a->lists[0] ? aclsim_tensor_list(a->lists[0], &n) : NULL;
    if (!a->lists[0]) BAD(ACLNN_ERR_PARAM_NULLPTR, "aclnn%sGetWorkspaceSize: scaledGrads is NULL", d->name);
    if (!ls) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: scaledGrads is not a live aclTensorList", d->name);
    aclnnStatus rc;
    if ((rc = check_tensor(d, a->x[0], "foundInf", 8)) || (rc = check_tensor(d, a->x[1], "invScale", 8))) return rc;
    if (!dense_tail(a->x[0], (int)a->x[0]->ndim))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: foundInf must be contiguous", d->name);
    if (n > FOREACH_MAX_TENSORS)
        BAD(ACLNN_ERR_INNER_TILING_ERROR, "aclnn%sGetWorkspaceSize: scaledGrads holds %llu tensors, at most %d are supported",
            d->name, (unsigned long long)n, FOREACH_MAX_TENSORS);
    for (uint64_t i = 0; i < n; i++) {
        const aclTensor *t = ls[i];
        if ((rc = check_tensor(d, t, "scaledGrads", 8))) return rc;
        if (t->dtype != ls[0]->dtype)
            BAD(ACLNN_ERR_INNER_TILING_ERROR, "aclnn%sGetWorkspaceSize: scaledGrads holds more than one dtype", d->name);
        int64_t m = 1;
        for (unsigned k = 0; k < t->ndim; k++) m *= t->dims[k];
        if (!m) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: scaledGrads holds an empty tensor", d->name);
        if (!dense_tail(t, (int)t->ndim))
            BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: scaledGrads holds a non-contiguous tensor", d->name);
    }
    if ((rc = one_element(d, a->x[0], "foundInf")) || (rc = one_element(d, a->x[1], "invScale"))) return rc;
    e->lt = calloc((size_t)nz((int64_t)n), sizeof *e->lt);
    e->nlt = (int)n;
    for (uint64_t i = 0; i < n; i++) snap(&e->lt[i], ls[i]);
    snap_all(e, a->x, 2, 0x3, 0x1);
    e->ct = ACL_FLOAT;
    return 0;
}

int k_amp_unscale(aclOpExecutor *e, int dev, char *ws, char *msg, size_t len) {
    (void)ws;
    const op_def *d = e->def;
    char *fb, *ib;
    int rc;
    if ((rc = map_view(&e->t[0], dev, &fb, d->name, 0, msg, len)) || (rc = map_view(&e->t[1], dev, &ib, d->name, 1, msg, len)))
        return rc;
    char *fp = fb + e->t[0].off * 4, *ip = ib + e->t[1].off * 4;
    double inv = ldf(ACL_FLOAT, ip), found = ldf(ACL_FLOAT, fp);
    for (int i = 0; i < e->nlt; i++) {
        const tview *v = &e->lt[i];
        char *base;
        if ((rc = map_view(v, dev, &base, d->name, i + 2, msg, len))) return rc;
        int64_t item = dt_size(v->dt);
        char *p = base + v->off * item; /* contiguous (phase 1) */
        for (int64_t k = 0, m = numel(v); k < m; k++, p += item) {
            double x = ldf(v->dt, p);
            if (!isfinite(x)) found = 1.0;
            stf(v->dt, p, (float)(x * inv)); /* the product in float, as the kernel computes it */
        }
    }
    stf(ACL_FLOAT, fp, found);
    return 0;
}

/* x: {updatedScale, currentScale, growthTracker, foundInf, updatedGrowthTracker}; each of shape [1]; the scale,
 * foundInf and updatedScale of one FLOAT/FLOAT16/BFLOAT16 dtype, the trackers INT32 (the doc's tables);
 * growthInterval in [1, 2147483647] */
aclnnStatus v_amp_update(const op_def *d, args *a, aclOpExecutor *e) {
    static const char *const names[] = {"updatedScale", "currentScale", "growthTracker", "foundInf", "updatedGrowthTracker"};
    aclnnStatus rc;
    for (int j = 0; j < 5; j++)
        if ((rc = check_tensor(d, a->x[j], names[j], 8))) return rc;
    if (a->x[3]->dtype != a->x[1]->dtype || a->x[0]->dtype != a->x[1]->dtype)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: foundInf and updatedScale must have currentScale's dtype %s",
            d->name, dtname(a->x[1]->dtype));
    for (int j = 0; j < 5; j++)
        if (a->x[j]->ndim != 1 || a->x[j]->dims[0] != 1)
            BAD(ACLNN_ERR_INNER_TILING_ERROR, "aclnn%sGetWorkspaceSize: %s must have shape [1]", d->name, names[j]);
    if (a->i[0] < 1 || a->i[0] > 2147483647LL)
        BAD(ACLNN_ERR_INNER_TILING_ERROR, "aclnn%sGetWorkspaceSize: growthInterval %lld is outside [1, 2147483647]",
            d->name, (long long)a->i[0]);
    snap_all(e, a->x, 5, 0xE, 0x11);
    e->p[0].f = a->f[0], e->p[1].f = a->f[1];
    e->ip[0] = a->i[0];
    e->ct = a->x[1]->dtype;
    return 0;
}

/* a value as the scale's dtype holds it (the grown scale overflows there, not in double) */
static double in_dtype(int dt, double v) {
    char buf[8] = {0};
    stf(dt, buf, v);
    return ldf(dt, buf);
}

int run_amp_update(aclOpExecutor *e, double **x, char *msg, size_t len) {
    (void)msg, (void)len;
    double scale = x[1][0], tracker = x[2][0];
    int dt = e->ct;
    if (x[3][0] != 0) {
        x[0][0] = in_dtype(dt, scale * e->p[1].f);
        x[4][0] = 0;
        return 0;
    }
    double counted = tracker + 1, grown = in_dtype(dt, scale * e->p[0].f);
    if (counted == (double)e->ip[0]) {
        x[0][0] = isfinite(grown) ? grown : scale;
        x[4][0] = 0;
    } else {
        x[0][0] = scale;
        x[4][0] = counted;
    }
    return 0;
}
