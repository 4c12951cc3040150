/* libopapi, random operators, counter based: the uniform / normal / integer / Bernoulli fills, Randperm, Multinomial. */
#include "ops_internal.h"

/* a counter-based generator: 64 random bits of (seed, counter), splitmix64 finalisers over both */
static uint64_t mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static uint64_t bits64(uint64_t seed, uint64_t ctr) { return mix(mix(seed + 0x9e3779b97f4a7c15ull) ^ (ctr * 0xd1b54a32d192ed03ull)); }
double unit(uint64_t seed, uint64_t ctr) { return (double)(bits64(seed, ctr) >> 11) * 0x1.0p-53; } /* [0, 1) */

int k_random(aclOpExecutor *e, int dev, char *ws, char *msg, size_t len) {
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
            char tmp[8] = {0};
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

int k_multinomial(aclOpExecutor *e, int dev, char *ws, char *msg, size_t len) {
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
                    sort_keyed(buf, (size_t)c, 0, 0);
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

/* random fills of selfRef: ip[0] seed, ip[1] offset; p[0], p[1] the range / mean, std / probability */
aclnnStatus v_random(const op_def *d, args *a, aclOpExecutor *e) {
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
    } else {
        if ((rc = check_scalar(d, a->s[0], "prob"))) return rc;
        double p = ldf(a->s[0]->dtype, (const char *)a->s[0]->raw);
        if (!(p >= 0 && p <= 1)) BAD(ACLNN_ERR_PARAM_INVALID, "aclnnInplaceBernoulliGetWorkspaceSize: prob %g is not in [0, 1]", p);
        e->p[0].f = p;
    }
    /* InplaceBernoulliTensor also keeps its probabilities */
    keep(e, self->dtype, (d->flags & RND_BERNOULLI) && (d->flags & F_MODE) ? 2 : 1, (const aclTensor *const[]){self, a->t[1]});
    e->ip[0] = (int64_t)a->seed;
    e->ip[1] = (int64_t)a->offset;
    return 0;
}

aclnnStatus v_multinomial(const op_def *d, args *a, aclOpExecutor *e) {
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
    KEEP(e, ACL_DOUBLE, out, self);
    e->ip[0] = (int64_t)a->seed;
    e->ip[1] = (int64_t)a->offset;
    e->ip[2] = n;
    e->ip[3] = a->i[1];
    return 0;
}
