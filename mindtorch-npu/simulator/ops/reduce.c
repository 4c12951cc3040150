/* libopapi, reductions: sum / mean / amax / amin / all / any, the ops along one dim (softmax, cumsum, arg-extremes),
 * the statistics and scans on dense copies, bincount. */
#include "ops_internal.h"

/* reduction: self's elements accumulate into a host buffer indexed by out's row-major position */
int k_reduce(aclOpExecutor *e, int dev, char *ws, char *msg, size_t len) {
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
int k_softmax(aclOpExecutor *e, int dev, char *ws, char *msg, size_t len) {
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
    lines3 w;
    int64_t lines = lines_along(&w, ax, x, o, vb ? vv : NULL), *off = w.off;
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
        next_line(&w);
    }
#undef XF
#undef XI
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

aclnnStatus v_reduce(const op_def *d, args *a, aclOpExecutor *e) {
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
    int keepdim = (int)a->i[0];
    int64_t shape[SIM_MAXDIM];
    int n = 0;
    for (int i = 0; i < rank; i++) {
        if (!(mask >> i & 1)) shape[n++] = self->dims[i];
        else if (keepdim) shape[n++] = 1;
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
    KEEP(e, ct, out, self);
    e->ip[0] = mask;
    return 0;
}

/* ops along the lines of one dim (ip[0]): softmax, log-softmax, cumsum (out like self); argmax/argmin (out
 * INT64 without that dim, or with it as 1 under keepdim) */
aclnnStatus v_softmax(const op_def *d, args *a, aclOpExecutor *e) {
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
    if (!(d->flags & L_ARG) && (rc = check_dtype(d, out->dtype, "out"))) return rc;
    keep(e, (d->flags & L_ARG) ? self->dtype : out->dtype, (d->flags & L_VALUES) ? 3 : 2,
         (const aclTensor *const[]){out, self, vals});
    e->ip[0] = ax;
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

/* SoftmaxBackward / LogSoftmaxBackward(gradOutput, output, dim, out), with the checks of ops-nn softmax_grad's and
 * log_softmax_grad's op_api: NULL pointers; an empty gradOutput or output ends the checks (nothing to compute)
 * except on Ascend950 (regbase); gradOutput's and output's dtypes in the doc's table and equal, at most 8 dims,
 * the three shapes equal, dim in [-n, n) with n = max(rank, 1). The LogSoftmaxBackward doc takes 1 to 8 dims. */
static int has_no_elements(const aclTensor *t) {
    for (uint64_t i = 0; i < t->ndim; i++)
        if (!t->dims[i]) return 1;
    return 0;
}

aclnnStatus v_softmax_bwd(const op_def *d, args *a, aclOpExecutor *e) {
    const aclTensor *out = a->t[0], *g = a->t[1], *y = a->t[2];
    aclnnStatus rc;
    if (!g || !y || !out) BAD(ACLNN_ERR_PARAM_NULLPTR, "aclnn%sGetWorkspaceSize: gradOutput, output or out is NULL", d->name);
    if (!aclsim_check_tensor(g) || !aclsim_check_tensor(y) || !aclsim_check_tensor(out))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: gradOutput, output or out is not a live aclTensor", d->name);
    e->ip[0] = -2; /* nothing to compute */
    if ((has_no_elements(g) || has_no_elements(y)) && chip_family() != FAM_950) {
        KEEP(e, g->dtype, out, g, y);
        return 0;
    }
    if ((rc = check_tensor(d, g, "gradOutput", 8)) || (rc = check_tensor(d, y, "output", 8)) ||
        (rc = check_tensor(d, out, "out", 8)))
        return rc;
    if (g->dtype != y->dtype)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: output dtype %s is not gradOutput's %s", d->name,
            dtname(y->dtype), dtname(g->dtype));
    if ((d->flags & F_LOG) && !g->ndim)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: gradOutput has 0 dims, 1 to 8 are supported", d->name);
    if (!same_shape(y, (int)g->ndim, g->dims) || !same_shape(out, (int)g->ndim, g->dims))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: gradOutput, output and out shapes differ", d->name);
    int rank = (int)g->ndim, r1 = rank ? rank : 1;
    int64_t dim = a->i[0];
    if (dim < -r1 || dim >= r1)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: provided dim %lld not in the range of input size %d",
            d->name, (long long)dim, r1);
    KEEP(e, g->dtype, out, g, y);
    e->ip[0] = rank ? (dim < 0 ? dim + rank : dim) : -1;
    return 0;
}

/* along ip[0], line by line in double: softmax's out = y (g - sum(g y)), log-softmax's out = g - exp(y) sum(g) */
int k_softmax_bwd(aclOpExecutor *e, int dev, char *ws, char *msg, size_t len) {
    (void)ws;
    const op_def *d = e->def;
    const tview *o = &e->t[0], *g = &e->t[1], *y = &e->t[2];
    char *ob, *gb, *yb;
    int rc;
    if (e->ip[0] == -2 || !numel(o)) return 0;
    if ((rc = map_view(o, dev, &ob, d->name, 0, msg, len)) || (rc = map_view(g, dev, &gb, d->name, 1, msg, len)) ||
        (rc = map_view(y, dev, &yb, d->name, 2, msg, len)))
        return rc;
    int ax = (int)e->ip[0];
    int64_t L = ax < 0 ? 1 : g->dims[ax], gs = ax < 0 ? 0 : g->st[ax], ys = ax < 0 ? 0 : y->st[ax];
    int64_t os = ax < 0 ? 0 : o->st[ax];
    lines3 w;
    int64_t lines = lines_along(&w, ax, g, y, o), *off = w.off;
    int eg = dt_size(g->dt), ey = dt_size(y->dt), eo = dt_size(o->dt);
#define GF(k) ldf(g->dt, gb + (off[0] + (k) * gs) * eg)
#define YF(k) ldf(y->dt, yb + (off[1] + (k) * ys) * ey)
    for (int64_t c = 0; c < lines; c++) {
        double sum = 0;
        for (int64_t k = 0; k < L; k++) sum += (d->flags & F_LOG) ? GF(k) : GF(k) * YF(k);
        for (int64_t k = 0; k < L; k++) {
            double r = (d->flags & F_LOG) ? GF(k) - exp(YF(k)) * sum : YF(k) * (GF(k) - sum);
            stf(o->dt, ob + (off[2] + k * os) * eo, r);
        }
        next_line(&w);
    }
#undef GF
#undef YF
    return 0;
}

/* ---- statistics and scans on dense copies (the dense kernel's load / store) */
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
int run_stats(aclOpExecutor *e, double **x, char *msg, size_t len) {
    (void)msg, (void)len;
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
    return 0;
}

/* scans along ip[0]: t = {out (values), self, indices}; ip[1]: 0 product, 1 running max, 2 running min */
int run_scan(aclOpExecutor *e, double **x, char *msg, size_t msglen) {
    (void)msg, (void)msglen;
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
    return 0;
}

/* x = {out, self}; arr: dims (empty: all), or a single dim in i[3] when i[2] says so (ProdDim), or all
 * dims (Prod); i[0] keepdim; f[0] correction; s[0] the norm's order; i[1] a dtype that must be out's (-1: none) */
aclnnStatus v_stats(const op_def *d, args *a, aclOpExecutor *e) {
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
    int kind = KIND_OF(d->flags);
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
aclnnStatus v_scan(const op_def *d, args *a, aclOpExecutor *e) {
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

/* Bincount: t = {out, self, weights?}; a negative value fails the launch */
int run_bincount(aclOpExecutor *e, double **x, char *msg, size_t len) {
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

aclnnStatus v_bincount(const op_def *d, args *a, aclOpExecutor *e) {
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
