/* libopapi, factories over out: Arange, Eye, Linspace. */
#include "ops_internal.h"

int k_arange(aclOpExecutor *e, int dev, char *ws, char *msg, size_t len) {
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

int k_fills(aclOpExecutor *e, int dev, char *ws, char *msg, size_t len) {
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

/* Arange(start, end, step, out): out[i] = start + i * step over out's length (the caller sizes out) */
aclnnStatus v_arange(const op_def *d, args *a, aclOpExecutor *e) {
    const aclTensor *out = a->t[0];
    aclnnStatus rc;
    if ((rc = check_tensor(d, out, "out", 1)) || (rc = check_scalar(d, a->s[0], "start")) ||
        (rc = check_scalar(d, a->s[1], "step")))
        return rc;
    int ct = dt_is_float(out->dtype) ? ACL_DOUBLE : ACL_INT64;
    e->p[0] = to_domain(a->s[0]->dtype, a->s[0]->raw, ct);
    e->p[1] = to_domain(a->s[1]->dtype, a->s[1]->raw, ct);
    if (dt_is_float(ct) ? e->p[1].f == 0 : e->p[1].i == 0) BAD(ACLNN_ERR_PARAM_INVALID, "aclnnArangeGetWorkspaceSize: step is 0");
    KEEP(e, ct, out);
    return 0;
}

aclnnStatus v_fills(const op_def *d, args *a, aclOpExecutor *e) {
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
    KEEP(e, out->dtype, out);
    return 0;
}
