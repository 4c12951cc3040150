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
