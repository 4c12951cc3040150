/* libopapi, the shared core: dtype rules, the phase-1 checks and view snapshots, the prepare step that makes an
 * executor, the strided walks (step, offsets, the dense load / store, the element mover) and the dense kernel. */
#include "ops_internal.h"

/* ---------------------------------------------------------------- dtype rules (PyTorch's) */
static int cat(int dt) { return dt == ACL_BOOL ? 0 : dt_is_float(dt) ? 2 : 1; }
int promote(int a, int b) {
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
int promote_scalar(int t, int s) {
    if (cat(s) <= cat(t)) return t;
    return cat(s) == 2 ? ACL_FLOAT : ACL_INT64;
}
int can_cast(int from, int to) { return cat(to) >= cat(from); }

const char *dtname(int dt) {
    switch (dt) {
    case ACL_FLOAT: return "FLOAT"; case ACL_FLOAT16: return "FLOAT16"; case ACL_BF16: return "BFLOAT16";
    case ACL_DOUBLE: return "DOUBLE"; case ACL_INT8: return "INT8"; case ACL_UINT8: return "UINT8";
    case ACL_INT16: return "INT16"; case ACL_INT32: return "INT32"; case ACL_INT64: return "INT64";
    case ACL_BOOL: return "BOOL";
    }
    return "unsupported";
}

static int fmt_plain(int f) {
    return f == ACL_FORMAT_ND || f == ACL_FORMAT_NCHW || f == ACL_FORMAT_NHWC || f == ACL_FORMAT_HWCN ||
           f == ACL_FORMAT_NDHWC || f == ACL_FORMAT_NCDHW || f == ACL_FORMAT_NC || f == ACL_FORMAT_NCL;
}

/* BFLOAT16 only on 910B-class parts and Ascend950, as the docs say (torch_npu: IsBF16Supported from Ascend910B1) */
static int chip_has_bf16(void) {
    int fam = chip_family();
    return fam == FAM_910B || fam == FAM_950;
}

static const char *fmtname(int f) {
    switch (f) {
    case ACL_FORMAT_NCHW: return "NCHW"; case ACL_FORMAT_NHWC: return "NHWC"; case ACL_FORMAT_ND: return "ND";
    case ACL_FORMAT_HWCN: return "HWCN"; case ACL_FORMAT_NDHWC: return "NDHWC"; case ACL_FORMAT_NCDHW: return "NCDHW";
    case ACL_FORMAT_NC: return "NC"; case ACL_FORMAT_NCL: return "NCL";
    }
    return "private";
}

/* `dt` is among the dtypes the op's doc lists for the tensor the simulator names `what` on this chip's product
 * (optable_gen.h), with the message CANN's op_api gives */
aclnnStatus check_dtype(const op_def *d, int dt, const char *what) {
    uint32_t ok = doc_dtypes(d, what);
    if (ok == OPT_UNSTATED || (dt < 32 && ok >> dt & 1)) return 0;
    char list[160];
    size_t k = 0;
    list[0] = 0;
    for (int b = 0; b < 32 && k < sizeof list; b++)
        if (ok >> b & 1) k += (size_t)snprintf(list + k, sizeof list - k, "%sDT_%s", k ? "," : "", dtname(b));
    BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: Tensor %s not implemented for DT_%s, should be in dtype support list [%s].",
        d->name, what, dtname(dt), list);
}

aclnnStatus check_tensor(const op_def *d, const aclTensor *t, const char *what, int maxdim) {
    if (!t) BAD(ACLNN_ERR_PARAM_NULLPTR, "aclnn%sGetWorkspaceSize: %s is NULL", d->name, what);
    if (!aclsim_check_tensor(t)) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: %s is not a live aclTensor", d->name, what);
    if (t->dtype == ACL_BF16 && !chip_has_bf16())
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: %s dtype BFLOAT16 is not supported on %s", d->name, what,
            aclrtGetSocName());
    aclnnStatus rc = check_dtype(d, t->dtype, what);
    if (rc) return rc;
    if (!fmt_plain(t->format))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: %s format %d is not ND", d->name, what, t->format);
    uint64_t fmts = doc_formats(d, what);
    /* a doc listing ND takes any plain format; one listing only NCHW-like formats takes only those */
    if (fmts && !(fmts >> ACL_FORMAT_ND & 1) && !(t->format < 64 && fmts >> t->format & 1))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: %s format %s is not supported", d->name, what,
            fmtname(t->format));
    if ((int)t->ndim > maxdim)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: %s has %u dims, at most %d are supported", d->name, what,
            t->ndim, maxdim);
    return 0;
}


/* the layout ops-nn's convolution, pooling and batch-norm operators read N, C and the spatial dims from: a 3-d
 * operand NCL, 4-d NCHW, 5-d NCDHW (torch_npu passes these by rank); ND is refused */
aclnnStatus check_layout(const op_def *d, const aclTensor *t, const char *what) {
    if (!t) return 0;
    int want = t->ndim == 3 ? ACL_FORMAT_NCL : t->ndim == 4 ? ACL_FORMAT_NCHW : t->ndim == 5 ? ACL_FORMAT_NCDHW : -1;
    if (t->format != want)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: %s format %s is invalid for a %u-d tensor, should be %s",
            d->name, what, fmtname(t->format), t->ndim, want < 0 ? "NCL, NCHW or NCDHW" : fmtname(want));
    return 0;
}

aclnnStatus check_scalar(const op_def *d, const aclScalar *s, const char *what) {
    if (!s) BAD(ACLNN_ERR_PARAM_NULLPTR, "aclnn%sGetWorkspaceSize: %s is NULL", d->name, what);
    if (!aclsim_check_scalar(s)) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: %s is not a live aclScalar", d->name, what);
    return 0;
}

/* broadcast two shapes (right-aligned); -1 if they do not broadcast */
int bshape(int na, const int64_t *a, int nb, const int64_t *b, int64_t *out) {
    int n = na > nb ? na : nb;
    for (int i = 0; i < n; i++) {
        int64_t x = i < n - na ? 1 : a[i - (n - na)], y = i < n - nb ? 1 : b[i - (n - nb)];
        if (x != y && x != 1 && y != 1) return -1;
        out[i] = x == 1 ? y : x;
    }
    return n;
}

int same_shape(const aclTensor *t, int n, const int64_t *s) {
    if ((int)t->ndim != n) return 0;
    for (int i = 0; i < n; i++)
        if (t->dims[i] != s[i]) return 0;
    return 1;
}

void shape_str(char *buf, size_t len, int n, const int64_t *s) {
    size_t k = (size_t)snprintf(buf, len, "[");
    for (int i = 0; i < n && k < len; i++) k += (size_t)snprintf(buf + k, len - k, i ? ", %lld" : "%lld", (long long)s[i]);
    if (k < len) snprintf(buf + k, len - k, "]");
}

void snap(tview *v, const aclTensor *t) {
    memset(v, 0, sizeof *v);
    v->dt = t->dtype;
    v->nd = (int)t->ndim;
    memcpy(v->dims, t->dims, sizeof v->dims);
    memcpy(v->st, t->strides, sizeof v->st);
    v->off = t->offset;
    v->data = t->data;
    v->src = t;
    v->snumel = t->sndim ? 1 : 0;
    for (uint32_t i = 0; i < t->sndim; i++) v->snumel *= t->sdims[i];
}

void snap_const(tview *v, int dt, const void *raw) {
    memset(v, 0, sizeof *v);
    v->dt = dt;
    v->is_const = 1;
    memcpy(v->cbuf, raw, (size_t)dt_size(dt));
}

val to_domain(int dt, const void *raw, int ct) {
    val v;
    if (dt_is_float(ct)) v.f = ldf(dt, raw); else v.i = ldi(dt, raw);
    return v;
}

int64_t numel(const tview *v) {
    int64_t n = 1;
    for (int i = 0; i < v->nd; i++) n *= v->dims[i];
    return n;
}

int contiguous(const tview *v) {
    int64_t acc = 1;
    for (int i = v->nd - 1; i >= 0; i--) {
        if (v->dims[i] != 1 && v->st[i] != acc) return 0;
        acc *= v->dims[i];
    }
    return 1;
}

/* ---------------------------------------------------------------- kernels' helpers (run on the stream's worker) */
/* host address of a view's storage element 0, after checking its whole extent is one live allocation */
int map_view(const tview *v, int dev, char **base, const char *op, int idx, char *msg, size_t len) {
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


/* operand o over an iteration space of nd dims: right-aligned, broadcast dims get stride 0 */
void bind(opnd *o, const tview *v, char *base, int nd) {
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
void ew_loop(int nd, const int64_t *shape, int n, opnd *o, elem_fn fn, const val *p, int ct) {
    int64_t total = 1, idx[SIM_MAXDIM] = {0};
    for (int i = 0; i < nd; i++) total *= shape[i];
    int isf = dt_is_float(ct), recast = o[0].dt != ct, narrow[8] = {0};
    for (int k = 1; k < n && k < 8; k++) /* DOUBLE or INT64 values computed in FLOAT lose their low bits */
        narrow[k] = ct == ACL_FLOAT && (o[k].dt == ACL_DOUBLE || o[k].dt == ACL_INT64 || o[k].dt == ACL_INT32);
    for (int64_t c = 0; c < total; c++) {
        val x[3];
        for (int k = 1; k < n; k++) {
            if (isf) x[k - 1].f = ldf(o[k].dt, o[k].p); else x[k - 1].i = ldi(o[k].dt, o[k].p);
            if (narrow[k]) { /* an operand cast to a narrower computation dtype first */
                char tmp[8] = {0};
                stf(ct, tmp, x[k - 1].f);
                x[k - 1].f = ldf(ct, tmp);
            }
        }
        val r = fn(x, p, isf);
        if (recast) { /* the result is a value of the computation dtype first, then cast to out's (as PyTorch) */
            char tmp[8] = {0};
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


/* element offsets of a row-major counter over `nd` dims: advance idx and the offsets of k views */


/* the offset (from `off`, in elements) of every element of an nd-dim iteration over `dims` with strides `st`, in
 * row-major order (malloc'd) */
int64_t *strided_offsets(int nd, const int64_t *dims, const int64_t *st, int64_t off) {
    int64_t n = 1, idx[SIM_MAXDIM] = {0}, s[1][SIM_MAXDIM], o[1] = {off};
    for (int i = 0; i < nd; i++) n *= dims[i];
    memcpy(s[0], st, sizeof(int64_t) * (size_t)nd);
    int64_t *r = malloc((size_t)(n ? n : 1) * sizeof *r);
    for (int64_t k = 0; k < n; k++) {
        r[k] = o[0];
        step(nd, dims, idx, 1, o, s);
    }
    return r;
}

/* element offsets (from the storage base) of view v broadcast right-aligned to dims[nd], in row-major order */
int64_t *offsets(const tview *v, int nd, const int64_t *dims) {
    int64_t st[SIM_MAXDIM];
    for (int i = 0; i < nd; i++) {
        int j = i - (nd - v->nd);
        st[i] = (j < 0 || v->dims[j] == 1) ? 0 : v->st[j];
    }
    return strided_offsets(nd, dims, st, v->off);
}

/* ---------------------------------------------------------------- the dense kernel */
/* The NCHW operators, statistics, scans, linear algebra...: they read every input view into a dense row-major
 * double array, compute there (their signature's `dense` function), and store the outputs back through their
 * views: the strided walk and the dtype conversion live once, in `walk`. ip[14] / ip[15] say which of t[0..11]
 * are read / written. */
int64_t nz(int64_t v) { return v ? v : 1; }

void walk(const tview *v, char *base, double *x, int store) {
    int64_t n = numel(v), *off = strided_offsets(v->nd, v->dims, v->st, v->off);
    int es = dt_size(v->dt);
    for (int64_t c = 0; c < n; c++) {
        if (store) stf(v->dt, base + off[c] * es, x[c]); else x[c] = ldf(v->dt, base + off[c] * es);
    }
    free(off);
}

int k_dense(aclOpExecutor *e, int dev, char *ws, char *msg, size_t len) {
    (void)ws;
    const op_def *d = e->def;
    char *b[12] = {0};
    double *x[12] = {0};
    int rc = 0;
    for (int j = 0; j < 12 && !rc; j++) {
        if (!((e->ip[14] | e->ip[15]) >> j & 1)) continue;
        if ((rc = map_view(&e->t[j], dev, &b[j], d->name, j, msg, len))) break;
        x[j] = calloc((size_t)(numel(&e->t[j]) ? numel(&e->t[j]) : 1), sizeof(double));
        if (!x[j]) { snprintf(msg, len, "aclnn%s: out of host memory", d->name); rc = ACL_ERROR_RT_MEMORY_ALLOCATION; break; }
        if (e->ip[14] >> j & 1 && b[j]) walk(&e->t[j], b[j], x[j], 0);
    }
    if (!rc) {
        rc = SIGS[d->sig].dense(e, x, msg, len);
        for (int j = 0; j < 12 && !rc; j++) /* a failed launch leaves its outputs untouched */
            if (e->ip[15] >> j & 1 && b[j]) walk(&e->t[j], b[j], x[j], 1);
    }
    for (int j = 0; j < 12; j++) free(x[j]);
    return rc;
}

aclnnStatus check_same(const op_def *d, const aclTensor *t, const aclTensor *like, const char *what) {
    aclnnStatus rc = check_tensor(d, t, what, 8);
    if (rc) return rc;
    if (t->dtype != like->dtype) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: %s dtype %s differs from %s", d->name, what, dtname(t->dtype), dtname(like->dtype));
    return 0;
}

aclnnStatus check_shape(const op_def *d, const aclTensor *t, int n, const int64_t *s, const char *what) {
    if (same_shape(t, n, s)) return 0;
    char want[160], got[160];
    shape_str(want, sizeof want, n, s);
    shape_str(got, sizeof got, (int)t->ndim, t->dims);
    BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: %s has shape %s, expected %s", d->name, what, got, want);
}

/* snapshot x[0..n) into t[], marking which are read and which written */
void snap_all(aclOpExecutor *e, const aclTensor *const *x, int n, unsigned reads, unsigned writes) {
    for (int j = 0; j < n; j++) {
        if (!x[j]) continue;
        snap(&e->t[j], x[j]);
        e->ip[14] |= (int64_t)(reads >> j & 1) << j;
        e->ip[15] |= (int64_t)(writes >> j & 1) << j;
    }
    e->nt = n;
}

/* the end of every validator: the executor keeps views of x[0..n) in t[0..n) (a NULL slot stays empty, or holds a
 * constant kept after) and computes in ct */
void keep(aclOpExecutor *e, int ct, int n, const aclTensor *const *x) {
    e->ct = ct;
    snap_all(e, x, n, 0, 0);
}

/* a scalar operand the executor holds itself, in slot j */
void keep_scalar(aclOpExecutor *e, int j, const aclScalar *s) { snap_const(&e->t[j], s->dtype, s->raw); }

/* a FLOAT value as the cube holds it in HFLOAT32: 11 explicit mantissa bits, rounded to nearest even (the docs
 * name the format without its layout; nn.c's cube_precision says when it applies) */
double to_hf32(double v) {
    float f = (float)v;
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    if ((u & 0x7f800000u) != 0x7f800000u) { /* finite: the 12 low mantissa bits go */
        u += 0x7ffu + ((u >> 12) & 1u);
        u &= ~0xfffu;
    }
    memcpy(&f, &u, sizeof f);
    return f;
}

/* ---------------------------------------------------------------- the element mover (index.c's operators) */
/* dst element = src element (accumulate: +=), converting dtypes through the destination's domain */
void put_elem(const tview *dv, char *db, int64_t doff, const tview *sv, const char *sb, int64_t soff, int acc) {
    int de = dt_size(dv->dt), se = dt_size(sv->dt);
    char *d = db + doff * de;
    const char *s = sb + soff * se;
    if (!acc && dv->dt == sv->dt) memcpy(d, s, (size_t)de);
    else if (dt_is_float(dv->dt)) stf(dv->dt, d, (acc ? ldf(dv->dt, d) : 0) + ldf(sv->dt, s));
    else sti(dv->dt, d, (int64_t)((uint64_t)(acc ? ldi(dv->dt, d) : 0) + (uint64_t)ldi(sv->dt, s)));
}

int64_t row_major_index(const int64_t *idx, int nd, const int64_t *dims) {
    int64_t r = 0;
    for (int i = 0; i < nd; i++) r = r * dims[i] + idx[i];
    return r;
}

/* ---------------------------------------------------------------- phase 1 */
static int seen_source(const aclTensor *const *seen, int n, const aclTensor *t) {
    for (int i = 0; i < n; i++)
        if (seen[i] == t) return 1;
    return 0;
}

/* how many distinct descriptors the executor's views came from (an in-place operator's selfRef counts once) */
static int count_sources(const aclOpExecutor *e) {
    int n = 0, cap = 12 + e->nlt;
    const aclTensor **seen = malloc(sizeof *seen * (size_t)cap);
    for (int j = 0; j < 12 + e->nlt; j++) {
        const tview *v = j < 12 ? &e->t[j] : &e->lt[j - 12];
        if (v->src && !seen_source(seen, n, v->src)) seen[n++] = v->src;
    }
    free(seen);
    return n;
}

/* every aclnnXxxGetWorkspaceSize: find the op's row, check the outputs' pointers and the chip, run its signature's
 * validator and its own check on a template executor, then register the executor */
aclnnStatus prepare(const char *name, const op_def **row, args *a, uint64_t *wsSize, aclOpExecutor **executor) {
    const op_def *d = *row;
    for (size_t i = 0; i < N_OPS && !d; i++)
        if (!strcmp(OPS[i].name, name)) *row = d = &OPS[i];
    if (!wsSize || !executor) BAD(ACLNN_ERR_PARAM_NULLPTR, "aclnn%sGetWorkspaceSize: workspaceSize or executor is NULL", name);
    aclnnStatus absent = chip_lacks(name);
    if (absent == ACLNN_ERR_PARAM_INVALID) BAD(absent, "aclnn%sGetWorkspaceSize: not implemented for %s", name, aclrtGetSocName());
    if (absent) BAD(absent, "aclnn%sGetWorkspaceSize: not supported on %s", name, aclrtGetSocName());
    aclOpExecutor tmp;
    memset(&tmp, 0, sizeof tmp);
    const sig_def *s = &SIGS[d->sig];
    aclnnStatus rc = s->validate(d, a, &tmp);
    if (!rc && d->check) rc = d->check(d, a, &tmp);
    if (rc) { free(tmp.lt); return rc; }
    tmp.run = s->kernel;
    tmp.op = d->name;
    tmp.def = d;
    tmp.ntensors = count_sources(&tmp);
    aclOpExecutor *e = aclsim_exec_new(&tmp);
    *wsSize = e->ws_size;
    *executor = e;
    return ACLNN_SUCCESS;
}
