/* libopapi, sorting and searching: Sort, Topk, SearchSorted. */
#include "ops_internal.h"

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

/* a stable sort of n keys, NaN above every number; `ints`: the keys hold int64 bits */
void sort_keyed(keyed *buf, size_t n, int desc, int ints) {
    sort_desc = desc;
    qsort(buf, n, sizeof *buf, ints ? key_cmp_int : key_cmp);
}

int k_sort(aclOpExecutor *e, int dev, char *ws, char *msg, size_t len) {
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
    lines3 w;
    int64_t lines = lines_along(&w, ax, x, io, vo), *off = w.off;
    int ex = dt_size(x->dt), isf = dt_is_float(x->dt);
    keyed *buf = malloc((size_t)L * sizeof *buf);
    for (int64_t c = 0; c < lines; c++) {
        for (int64_t j = 0; j < L; j++) {
            const char *p = xb + (off[0] + j * xs) * ex;
            buf[j].v = isf ? ldf(x->dt, p) : (double)ldi(x->dt, p);
            buf[j].i = j;
        }
        if (!isf) { /* int64 beyond 2^53 would collide in double: compare exactly */
            for (int64_t j = 0; j < L; j++) { int64_t v = ldi(x->dt, xb + (off[0] + j * xs) * ex); memcpy(&buf[j].v, &v, 8); }
        }
        sort_keyed(buf, (size_t)L, (int)e->ip[2], !isf);
        for (int64_t j = 0; j < k; j++) {
            memcpy(vb + (off[2] + j * vs) * ex, xb + (off[0] + buf[j].i * xs) * ex, (size_t)ex);
            sti(ACL_INT64, ib + (off[1] + j * is) * 8, buf[j].i);
        }
        next_line(&w);
    }
    free(buf);
    return 0;
}

/* t: indices, self, values; i: {dim, k}; ip: {axis, k, descending} */
aclnnStatus v_sort(const op_def *d, args *a, aclOpExecutor *e) {
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
    KEEP(e, self->dtype, idx, self, vals);
    e->ip[0] = ax;
    e->ip[1] = k;
    e->ip[2] = a->seed; /* descending (Sort) / largest (Topk) */
    return 0;
}


/* SearchSorted: t = {out, sortedSequence, self, sorter?}; ip[0] right. Rows of the sequence's last dim pair
 * with rows of self (a 1-d sequence serves every element) */
int run_search(aclOpExecutor *e, double **x, char *msg, size_t len) {
    (void)msg, (void)len;
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
    return 0;
}

aclnnStatus v_search(const op_def *d, args *a, aclOpExecutor *e) {
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
