/* libopapi, indexing and element moves: IndexSelect, Embedding, Gather / Scatter, Index / IndexPutImpl, IndexAdd,
 * IndexCopy, ScatterReduce, Nonzero, Repeat, Roll, Flip, Tril / Triu. */
#include "ops_internal.h"

/* An out-of-range index is unsupported (CANN's docs for these operators): the device does not report it, it
 * reads or writes some other element. Here it lands at the index modulo the size, so a caller that does not
 * check its indices gets plausible-looking wrong values, never a clean error. -1: nothing to land on. */
static int64_t stray(int64_t v, int64_t n) { return n > 0 ? ((v % n) + n) % n : -1; }

/* index_select / embedding: each out element reads self at the index's value on dim ip[0] */
int k_index(aclOpExecutor *e, int dev, char *ws, char *msg, size_t len) {
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
        if (v < -size || v >= size) v = stray(v, size);
        else if (v < 0) v += size;
        for (int i = 0; i < ax; i++) xo += idx[i] * x->st[i];
        if (rank) xo += v * x->st[ax];
        for (int i = ax + 1; i < rank; i++) xo += idx[i - 1 + ind_nd] * x->st[i];
        for (int i = 0; i < o->nd; i++) oo += idx[i] * o->st[i];
        if (v >= 0) memcpy(ob + oo * es, xb + xo * es, (size_t)es);
        for (int i = o->nd - 1; i >= 0; i--) {
            if (++idx[i] < o->dims[i]) break;
            idx[i] = 0;
        }
    }
    return 0;
}

/* tril / triu: keep (i, j) of the last two dims where j - i <= diag (tril) or >= diag (triu), else 0 */
int k_tri(aclOpExecutor *e, int dev, char *ws, char *msg, size_t len) {
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

int k_elements(aclOpExecutor *e, int dev, char *ws, char *msg, size_t len) {
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
        if (v < 0 || v >= size) v = stray(v, size);
        const tview *tv = scatter ? o : x;
        to = tv->off;
        for (int i = 0; i < tv->nd; i++) to += (i == ax ? v : idx[i]) * tv->st[i];
        if (v < 0) {
        } else if (!scatter) {
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

int k_flip(aclOpExecutor *e, int dev, char *ws, char *msg, size_t len) {
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

/* IndexSelect(self, dim, index, out) and Embedding(weight, indices, out): index INT32/INT64 */
aclnnStatus v_index(const op_def *d, args *a, aclOpExecutor *e) {
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
    KEEP(e, self->dtype, out, self, index);
    e->ip[0] = ax;
    e->ip[1] = ind_nd;
    e->ip[2] = rank;
    return 0;
}

aclnnStatus v_tri(const op_def *d, args *a, aclOpExecutor *e) {
    const aclTensor *self = d->inplace ? a->t[0] : a->t[1], *out = a->t[0];
    aclnnStatus rc;
    if ((rc = check_tensor(d, self, d->inplace ? "selfRef" : "self", 8)) || (!d->inplace && (rc = check_tensor(d, out, "out", 8))))
        return rc;
    if (self->ndim < 2) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: self needs at least 2 dims", d->name);
    if (!same_shape(out, (int)self->ndim, self->dims) || out->dtype != self->dtype)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: out must have self's shape and dtype", d->name);
    KEEP(e, self->dtype, out, self);
    e->ip[0] = a->i[0];
    return 0;
}

/* t: out (selfRef), self, index, src (or the value as a constant); ip: {axis, reduce} */
aclnnStatus v_elements(const op_def *d, args *a, aclOpExecutor *e) {
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
    int64_t reduce = scatter ? a->i[1] : 0;
    if (reduce < 0 || reduce > 2) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: reduce %lld is not 0, 1 or 2", d->name, (long long)reduce);
    KEEP(e, self->dtype, out, self, index, scatter && !value ? src : NULL);
    if (value) keep_scalar(e, 3, a->s[0]);
    e->ip[0] = ax;
    e->ip[1] = reduce;
    e->ip[2] = scatter;
    return 0;
}

aclnnStatus v_flip(const op_def *d, args *a, aclOpExecutor *e) {
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
    KEEP(e, self->dtype, out, self);
    e->ip[0] = mask;
    return 0;
}

/* Index: t = {out, self, indices...}; IndexPutImpl (F_MODE): t = {selfRef, values, indices...}, ip[0] the number of
 * index tensors k, ip[1] accumulate. The index space is broadcast(indices) x self.dims[k:], row-major */
static int run_index_list(aclOpExecutor *e, char **b, char *msg, size_t len) {
    (void)msg;
    (void)len;
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
        int lost = 0;
        for (int i = 0; i < k; i++) {
            int64_t v = ldi(e->t[2 + i].dt, b[2 + i] + ix[i][bi] * dt_size(e->t[2 + i].dt)), n = self->dims[i];
            if (v < -n || v >= n) lost |= (v = stray(v, n)) < 0;
            src = src * n + (v < 0 ? v + n : v);
        }
        if (lost) continue;
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
    (void)msg;
    (void)len;
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
        if (v < -n || v >= n) v = stray(v, n);
        if (v < -n) continue; /* a zero-size dim: nothing to land on */
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
    /* as CANN's NonZero (OP_OUTSHAPE), the out descriptor's view becomes [N, ndim] once the kernel ran; the caller
     * reads it back (aclGetViewShape) after synchronizing, as torch_npu does. A descriptor destroyed meanwhile is
     * left alone. */
    aclTensor *desc = (aclTensor *)(intptr_t)e->p[0].i;
    if (desc && aclsim_check_tensor(desc)) {
        desc->dims[0] = row;
        desc->strides[0] = x->nd;
        desc->strides[1] = 1;
    }
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

int k_move(aclOpExecutor *e, int dev, char *ws, char *msg, size_t len) {
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

/* ---- the element moves' validators */
static aclnnStatus check_index(const op_def *d, const aclTensor *t, const char *what) {
    if (!t) BAD(ACLNN_ERR_PARAM_NULLPTR, "aclnn%sGetWorkspaceSize: %s is NULL", d->name, what);
    if (!aclsim_check_tensor(t) || (t->dtype != ACL_INT64 && t->dtype != ACL_INT32))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: %s must be an INT32 or INT64 aclTensor", d->name, what);
    return 0;
}

/* Index x = {out, self}; IndexPutImpl x = {selfRef, values}; the aclTensorList in `list`; i[0] accumulate */
aclnnStatus v_index_list(const op_def *d, args *a, aclOpExecutor *e) {
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
    const aclTensor *views[12] = {put ? self : o, put ? o : self};
    memcpy(views + 2, ix, sizeof *ix * (size_t)k);
    keep(e, self->dtype, 2 + (int)k, views);
    e->ip[0] = (int64_t)k;
    e->ip[1] = a->i[0];
    e->ip[2] = nb;
    memcpy(&e->ip[3], bs, sizeof(int64_t) * (size_t)nb);
    return 0;
}

/* IndexAdd x = {out, self, index, source}, alpha s[0]; InplaceIndexCopy x = {selfRef, selfRef, index, source}; i[0] dim */
aclnnStatus v_index_dim(const op_def *d, args *a, aclOpExecutor *e) {
    const aclTensor *out = a->x[0], *self = a->x[1] ? a->x[1] : a->x[0], *ix = a->x[2], *src = a->x[3];
    aclnnStatus rc;
    if ((rc = check_tensor(d, self, "self", 8)) || (rc = check_same(d, out, self, "out"))) return rc;
    int rank = (int)self->ndim, r1 = rank ? rank : 1;
    int64_t dim = a->i[0];
    if (dim < -r1 || dim >= r1) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: dim %lld is out of range", d->name, (long long)dim);
    int ax = rank ? (int)(dim < 0 ? dim + rank : dim) : 0;
    if ((rc = check_shape(d, out, rank, self->dims, "out"))) return rc;
    e->ip[0] = ax;
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
    KEEP(e, self->dtype, out, self, ix, src);
    return 0;
}

/* Nonzero x = {out, self}: out is INT64 [numel(self), ndim(self)] */
aclnnStatus v_nonzero(const op_def *d, args *a, aclOpExecutor *e) {
    const aclTensor *self = a->x[1], *out = a->x[0];
    aclnnStatus rc;
    if ((rc = check_tensor(d, self, "self", 8))) return rc;
    if (!out || !aclsim_check_tensor(out) || out->dtype != ACL_INT64)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnnNonzeroGetWorkspaceSize: out must be an INT64 aclTensor");
    int64_t n = 1;
    for (uint32_t i = 0; i < self->ndim; i++) n *= self->dims[i];
    int64_t shape[2] = {n, self->ndim};
    if ((rc = check_shape(d, out, 2, shape, "out"))) return rc;
    e->p[0].i = (int64_t)(intptr_t)out; /* the kernel rewrites this descriptor's view shape */
    KEEP(e, ACL_INT64, out, self);
    return 0;
}

/* Repeat x = {out, self}, repeats in arr; Roll (F_MODE) x = {out, self}, shifts in arr, dims in ia[0] */
aclnnStatus v_repeat_roll(const op_def *d, args *a, aclOpExecutor *e) {
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
        KEEP(e, self->dtype, out, self);
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
        KEEP(e, self->dtype, out, self);
    }
    return 0;
}


/* ScatterReduce: t = {out, self, index, src}; ip[0] dim, ip[1] reduce, ip[2] includeSelf. Index and src are
 * walked over the index's shape; a position's first contribution replaces self's value unless self is
 * included; mean divides by the contributions (self counting once when included); NaN wins max / min */
int run_scatter_reduce(aclOpExecutor *e, double **x, char *msg, size_t len) {
    const tview *o = &e->t[0], *ix = &e->t[2], *src = &e->t[3];
    int ax = (int)e->ip[0], red = (int)e->ip[1], incl = (int)e->ip[2], nd = ix->nd;
    int64_t on = numel(o), n = numel(ix), idx[SIM_MAXDIM] = {0};
    int64_t *cnt = calloc((size_t)nz(on), sizeof *cnt);
    (void)msg;
    (void)len;
    memcpy(x[0], x[1], sizeof(double) * (size_t)on);
    for (int64_t k = 0; k < n; k++) {
        int64_t dst = 0, s = 0;
        int lost = 0;
        for (int i = 0; i < nd; i++) {
            int64_t c = i == ax ? (int64_t)x[2][k] : idx[i];
            if (c < -o->dims[i] || c >= o->dims[i]) lost |= (c = stray(c, o->dims[i])) < 0;
            else if (c < 0) c += o->dims[i];
            dst = dst * o->dims[i] + c;
            s = s * src->dims[i] + idx[i];
        }
        if (lost) {
            step(nd, ix->dims, idx, 0, NULL, NULL);
            continue;
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

aclnnStatus v_scatter_reduce(const op_def *d, args *a, aclOpExecutor *e) {
    const aclTensor *self = a->x[1], *out = a->x[0], *ix = a->x[2], *src = a->x[3];
    aclnnStatus rc;
    if ((rc = check_tensor(d, self, "self", 8)) || (rc = check_same(d, out, self, "out")) || (rc = check_same(d, src, self, "src")))
        return rc;
    if (!ix || !aclsim_check_tensor(ix) || ix->dtype != ACL_INT64)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: index must be an INT64 tensor", d->name);
    int rank = (int)self->ndim, r1 = rank ? rank : 1;
    if (a->i[0] < -r1 || a->i[0] >= r1) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: dim is out of range", d->name);
    if (a->i[1] < 0 || a->i[1] > 5) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: reduce %lld is not 0..5", d->name, (long long)a->i[1]);
    /* Atlas A2 / A3 take one combination only: FLOAT32, reduce 1 (add), includeSelf true; the rest is a
     * parameter error (docs/aclnnScatterReduce&aclnnInplaceScatterReduce.md, the product note) */
    if (chip_family() == FAM_910B && (self->dtype != ACL_FLOAT || a->i[1] != 1 || !a->i[2]))
        BAD(ACLNN_ERR_PARAM_INVALID,
            "aclnn%sGetWorkspaceSize: %s takes only FLOAT32 with reduce 1 (add) and includeSelf true, got %s, "
            "reduce %lld, includeSelf %s", d->name, aclrtGetSocName(), dtname(self->dtype), (long long)a->i[1],
            a->i[2] ? "true" : "false");
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
