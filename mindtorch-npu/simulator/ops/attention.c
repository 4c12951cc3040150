/* libopapi, fused attention (ops-transformer attention/flash_attention_score and flash_attention_score_grad):
 * phase 1 checks what the operators' docs constrain (layouts, head counts and GQA ratios, head dims, sparse
 * modes with their mask shapes and the prefix modes' prefixOptional, keepProb, dtypes per product through the
 * doc table); the kernels walk the keys in tiles
 * with an online softmax, so nothing of size Sq x Skv is ever held: the forward keeps each row's running max
 * and sum (written out as softmaxMax / softmaxSum, [B, N, Sq, 8]), the backward recomputes the probabilities
 * from them and takes each row's rowsum(dy * attentionIn) as the softmax's correction term. */
#include "ops_internal.h"

enum { LAYOUT_BSH, LAYOUT_SBH, LAYOUT_BSND, LAYOUT_BNSD };
/* the executor's views: forward and backward */
enum { FW_OUT, FW_Q, FW_K, FW_V, FW_DROP, FW_MASK, FW_MAX, FW_SUM, FW_N };
enum { BW_DQ, BW_Q, BW_K, BW_V, BW_DY, BW_DROP, BW_MASK, BW_MAX, BW_SUM, BW_OUT, BW_DK, BW_DV, BW_N };
/* the integer parameters (ip[]) */
enum { P_B, P_NQ, P_NKV, P_SQ, P_SKV, P_D, P_DV, P_LAYOUT, P_SPARSE, P_PRE, P_NEXT };
#define STATS_LANES 8 /* softmaxMax / softmaxSum repeat each row's value over 8 lanes (the docs' [B, N, Sq, 8]) */
#define KEY_TILE 64
#define COMPRESSED_MASK 2048 /* sparse modes 2-4 take the compressed [2048, 2048] lower-triangular mask */
#define PREFIX_MASK_ROWS 3072 /* sparse mode 6: that triangle over a [1024, 2048] block, [3072, 2048] in all */
#define PREFIX_MAX_BATCH 2048 /* the doc: with prefixOptional B is at most 2K */

typedef struct { int64_t b, s, n, d; } geom;

static int layout_code(const char *s) {
    static const char *const names[] = {"BSH", "SBH", "BSND", "BNSD"};
    for (int i = 0; i < 4; i++)
        if (!strcmp(s, names[i])) return i;
    return -1;
}

/* B, S, N, D of a query / key / value / dy operand; under BSH and SBH N is H / d (d: the head dim, or 0 to
 * take N = heads and d = H / heads). -1 when H does not split. */
static int geometry(const aclTensor *t, int layout, int64_t heads, int64_t d, geom *g) {
    const int64_t *x = t->dims;
    if (layout == LAYOUT_BSND) { *g = (geom){x[0], x[1], x[2], x[3]}; return 0; }
    if (layout == LAYOUT_BNSD) { *g = (geom){x[0], x[2], x[1], x[3]}; return 0; }
    int64_t b = layout == LAYOUT_BSH ? x[0] : x[1], s = layout == LAYOUT_BSH ? x[1] : x[0], h = x[2];
    int64_t n = d ? (d > 0 && h % d == 0 ? h / d : -1) : heads, dd = d ? d : (heads > 0 && h % heads == 0 ? h / heads : -1);
    if (n < 0 || dd < 0) return -1;
    *g = (geom){b, s, n, dd};
    return 0;
}

/* the dims a [B, S, N, D] operand has under the layout */
static int layout_dims(int layout, geom g, int64_t *out) {
    switch (layout) {
    case LAYOUT_BSH: out[0] = g.b, out[1] = g.s, out[2] = g.n * g.d; return 3;
    case LAYOUT_SBH: out[0] = g.s, out[1] = g.b, out[2] = g.n * g.d; return 3;
    case LAYOUT_BSND: out[0] = g.b, out[1] = g.s, out[2] = g.n, out[3] = g.d; return 4;
    default: out[0] = g.b, out[1] = g.n, out[2] = g.s, out[3] = g.d; return 4;
    }
}

/* the element offset of (b, n, s, k) in a view laid out as `layout` with head dim d */
static int64_t at(const tview *v, int layout, int64_t b, int64_t n, int64_t s, int64_t k, int64_t d) {
    const int64_t *st = v->st;
    switch (layout) {
    case LAYOUT_BSH: return v->off + b * st[0] + s * st[1] + (n * d + k) * st[2];
    case LAYOUT_SBH: return v->off + s * st[0] + b * st[1] + (n * d + k) * st[2];
    case LAYOUT_BSND: return v->off + b * st[0] + s * st[1] + n * st[2] + k * st[3];
    default: return v->off + b * st[0] + n * st[1] + s * st[2] + k * st[3];
    }
}

/* ---------------------------------------------------------------- phase 1 */
typedef struct { const aclTensor *out, *q, *k, *v, *dy, *drop, *mask, *max, *sum, *attn, *dk, *dv; } fa_args;

static aclnnStatus check_qkv(const op_def *d, const args *a, const fa_args *f, int layout, geom *gq, geom *gk, geom *gv) {
    int bwd = d->flags & F_LOG, rank = layout <= LAYOUT_SBH ? 3 : 4;
    const aclTensor *ops[] = {f->q, f->k, f->v, f->dy};
    const char *names[] = {"query", bwd ? "keyIn" : "key", "value", "dy"};
    for (int i = 0; i < (bwd ? 4 : 3); i++) {
        aclnnStatus rc = check_tensor(d, ops[i], names[i], 4);
        if (rc) return rc;
        if (ops[i]->dtype != f->q->dtype)
            BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: %s dtype %s differs from query's %s", d->name, names[i],
                dtname(ops[i]->dtype), dtname(f->q->dtype));
        if ((int)ops[i]->ndim != rank)
            BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: %s has %u dims, layout %s takes %d", d->name, names[i],
                ops[i]->ndim, a->str, rank);
    }
    int64_t heads = a->i[2];
    if (heads < 1 || heads > 256) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: headNum %lld is outside 1..256", d->name, (long long)heads);
    if (geometry(f->q, layout, heads, 0, gq))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: query's H %lld is not a multiple of headNum %lld", d->name,
            (long long)f->q->dims[2], (long long)heads);
    if (gq->n != heads)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: headNum %lld differs from query's N %lld", d->name,
            (long long)heads, (long long)gq->n);
    if (geometry(f->k, layout, 0, gq->d, gk))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: key's H is not a multiple of query's D %lld", d->name, (long long)gq->d);
    if (layout > LAYOUT_SBH) {
        geometry(f->v, layout, 0, 0, gv);
    } else { /* value's D: its H over key's N */
        gv->b = layout == LAYOUT_BSH ? f->v->dims[0] : f->v->dims[1], gv->s = layout == LAYOUT_BSH ? f->v->dims[1] : f->v->dims[0];
        gv->n = gk->n, gv->d = gk->n > 0 && f->v->dims[2] % gk->n == 0 ? f->v->dims[2] / gk->n : -1;
    }
    if (gk->d != gq->d || gv->d < 1 || gv->d > gk->d)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: head dims query %lld, key %lld, value %lld: the doc asks "
            "qD == kD && kD >= vD", d->name, (long long)gq->d, (long long)gk->d, (long long)gv->d);
    if (gq->b != gk->b || gk->b != gv->b)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: batch sizes %lld, %lld, %lld differ", d->name,
            (long long)gq->b, (long long)gk->b, (long long)gv->b);
    if (gk->s != gv->s || gk->n != gv->n)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: key and value differ in more than D", d->name);
    if (gk->n < 1 || gq->n % gk->n)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: query's N %lld is not a multiple of key's N %lld", d->name,
            (long long)gq->n, (long long)gk->n);
    if (gq->b < 1 || gq->s < 1 || gk->s < 1 || gq->d > 768 || gq->s > 1048576 || gk->s > 1048576)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: B %lld, Sq %lld, Skv %lld, D %lld outside the doc's "
            "ranges (B >= 1, S 1..1M, D 1..768)", d->name, (long long)gq->b, (long long)gq->s, (long long)gk->s, (long long)gq->d);
    return 0;
}

static aclnnStatus check_mask(const op_def *d, const fa_args *f, int64_t mode, geom gq, geom gk) {
    if (!f->mask) return 0;
    aclnnStatus rc = check_tensor(d, f->mask, "attenMaskOptional", 4);
    if (rc) return rc;
    const int64_t *x = f->mask->dims;
    int nd = (int)f->mask->ndim;
    if (mode >= 2 && mode <= 4) {
        if (nd != 2 || x[0] != COMPRESSED_MASK || x[1] != COMPRESSED_MASK)
            BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: sparseMode %lld takes the compressed [2048, 2048] "
                "attenMaskOptional", d->name, (long long)mode);
        return 0;
    }
    if (mode == 6) {
        if (nd != 2 || x[0] != PREFIX_MASK_ROWS || x[1] != COMPRESSED_MASK)
            BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: sparseMode 6 takes the compressed [3072, 2048] "
                "attenMaskOptional", d->name);
        return 0;
    }
    if (mode == 5) { /* the doc: BNSS or B1SS */
        if (nd != 4 || x[0] != gq.b || (x[1] != gq.n && x[1] != 1) || x[2] != gq.s || x[3] != gk.s)
            BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: sparseMode 5 takes attenMaskOptional as [B,N,Sq,Skv] "
                "or [B,1,Sq,Skv]", d->name);
        return 0;
    }
    int ok = nd == 2 ? x[0] == gq.s && x[1] == gk.s
           : nd == 4 && x[2] == gq.s && x[3] == gk.s && (x[0] == gq.b || x[0] == 1) && (x[1] == gq.n || x[1] == 1) &&
                 !(x[0] == 1 && x[1] != 1);
    if (!ok)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: attenMaskOptional must be [B,N,Sq,Skv], [B,1,Sq,Skv], "
            "[1,1,Sq,Skv] or [Sq,Skv]", d->name);
    return 0;
}

static aclnnStatus check_drop(const op_def *d, const fa_args *f, double keep, geom gq, geom gk) {
    if (!(keep > 0 && keep <= 1)) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: keepProb %g is outside (0, 1]", d->name, keep);
    if (!f->drop) {
        if (keep < 1) BAD(ACLNN_ERR_PARAM_NULLPTR, "aclnn%sGetWorkspaceSize: keepProb %g < 1 needs dropMaskOptional", d->name, keep);
        return 0;
    }
    aclnnStatus rc = check_tensor(d, f->drop, "dropMaskOptional", 1);
    if (rc) return rc;
    int64_t bits = gq.b * gq.n * gq.s * gk.s;
    if (f->drop->ndim != 1 || f->drop->dims[0] * 8 < bits)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: dropMaskOptional must be 1-d with a bit for each of the "
            "%lld scores", d->name, (long long)bits);
    return 0;
}

/* an output / input of `want`'s layout shape and query's dtype */
static aclnnStatus check_like(const op_def *d, const aclTensor *t, const char *what, int layout, geom want, int dt) {
    aclnnStatus rc = check_tensor(d, t, what, 4);
    if (rc) return rc;
    int64_t dims[4];
    rc = check_shape(d, t, layout_dims(layout, want, dims), dims, what);
    if (rc) return rc;
    if (t->dtype != dt) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: %s dtype %s differs from query's %s", d->name, what, dtname(t->dtype), dtname(dt));
    return 0;
}

static aclnnStatus check_stats(const op_def *d, const aclTensor *t, const char *what, geom gq) {
    aclnnStatus rc = check_tensor(d, t, what, 4);
    if (rc) return rc;
    if (t->dtype != ACL_FLOAT) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: %s must be FLOAT", d->name, what);
    return check_shape(d, t, 4, (const int64_t[]){gq.b, gq.n, gq.s, STATS_LANES}, what);
}

static aclnnStatus check_outputs(const op_def *d, const fa_args *f, int layout, geom gq, geom gk, geom gv) {
    int bwd = d->flags & F_LOG, dt = f->q->dtype;
    geom go = {gq.b, gq.s, gq.n, gv.d};
    aclnnStatus rc = check_stats(d, f->max, bwd ? "softmaxMaxOptional" : "softmaxMaxOut", gq);
    if (!rc) rc = check_stats(d, f->sum, bwd ? "softmaxSumOptional" : "softmaxSumOut", gq);
    if (!bwd) return rc ? rc : check_like(d, f->out, "attentionOutOut", layout, go, dt);
    if (!rc) rc = check_like(d, f->dy, "dy", layout, go, dt);
    if (!rc) rc = check_like(d, f->attn, "attentionInOptional", layout, go, dt);
    if (!rc) rc = check_like(d, f->out, "dqOut", layout, gq, dt);
    if (!rc) rc = check_like(d, f->dk, "dkOut", layout, gk, dt);
    if (!rc) rc = check_like(d, f->dv, "dvOut", layout, gv, dt);
    return rc;
}

static fa_args gather(const op_def *d, const args *a) {
    const aclTensor *const *x = a->x;
    if (d->flags & F_LOG)
        return (fa_args){.out = x[0], .q = x[1], .k = x[2], .v = x[3], .dy = x[4], .drop = x[6], .mask = x[8],
                         .max = x[9], .sum = x[10], .attn = x[12], .dk = x[13], .dv = x[14]};
    return (fa_args){.out = x[0], .q = x[1], .k = x[2], .v = x[3], .drop = x[5], .mask = x[7], .max = x[8], .sum = x[9]};
}

static aclnnStatus check_modes(const op_def *d, const args *a) {
    int bwd = d->flags & F_LOG;
    int64_t mode = a->i[4];
    const aclTensor *pse = a->x[bwd ? 5 : 4], *pad = a->x[bwd ? 7 : 6];
    if (mode < 0 || mode > (bwd ? 8 : 6))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: sparseMode %lld is not one of 0..%d", d->name, (long long)mode, bwd ? 8 : 6);
    if (mode >= 7) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: sparseMode %lld is for the varlen operators only", d->name, (long long)mode);
    if (pse || pad)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: %s is not simulated", d->name, pse ? "the pse input" : "paddingMaskOptional");
    return 0;
}

/* sparse modes 5 and 6 (prefix): prefixOptional holds each batch's N, the key columns every query row sees, in
 * [0, Skv] when Sq > Skv and [Skv - Sq, Skv] otherwise; B at most 2K. The values ride in the executor's list
 * slots as constants (e->lt[b], INT64). */
static aclnnStatus check_prefix(const op_def *d, const args *a, aclOpExecutor *e, geom gq, geom gk) {
    int64_t mode = a->i[4];
    if (mode != 5 && mode != 6) return 0;
    uint64_t n = 0;
    const int64_t *v = a->arr ? aclsim_int_array(a->arr, &n) : NULL;
    if (!v) BAD(ACLNN_ERR_PARAM_NULLPTR, "aclnn%sGetWorkspaceSize: sparseMode %lld needs prefixOptional", d->name, (long long)mode);
    if ((int64_t)n != gq.b || gq.b > PREFIX_MAX_BATCH)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: prefixOptional holds %llu values for B %lld (one per "
            "batch, B at most %d)", d->name, (unsigned long long)n, (long long)gq.b, PREFIX_MAX_BATCH);
    int64_t lo = gq.s > gk.s ? 0 : gk.s - gq.s;
    for (uint64_t b = 0; b < n; b++)
        if (v[b] < lo || v[b] > gk.s)
            BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: prefixOptional[%llu] = %lld is outside [%lld, %lld]",
                d->name, (unsigned long long)b, (long long)v[b], (long long)lo, (long long)gk.s);
    e->lt = calloc(n, sizeof *e->lt);
    if (!e->lt) BAD(ACLNN_ERR_INNER_NULLPTR, "aclnn%sGetWorkspaceSize: out of host memory", d->name);
    e->nlt = (int)n;
    for (uint64_t b = 0; b < n; b++) snap_const(&e->lt[b], ACL_INT64, &v[b]);
    return 0;
}

aclnnStatus v_flash(const op_def *d, args *a, aclOpExecutor *e) {
    int bwd = d->flags & F_LOG;
    if (doc_dtypes(d, "query") == OPT_UNSTATED) /* the doc's product list does not name this chip's product */
        BAD(ACLNN_ERR_RUNTIME_ERROR, "aclnn%sGetWorkspaceSize: not supported on %s", d->name, aclrtGetSocName());
    if (!a->str) BAD(ACLNN_ERR_PARAM_NULLPTR, "aclnn%sGetWorkspaceSize: inputLayout is NULL", d->name);
    int layout = layout_code(a->str);
    if (layout < 0) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: inputLayout %s is not one of BSH, SBH, BSND, BNSD", d->name, a->str);
    aclnnStatus rc = check_modes(d, a);
    if (rc) return rc;
    fa_args f = gather(d, a);
    geom gq, gk, gv;
    if ((rc = check_qkv(d, a, &f, layout, &gq, &gk, &gv))) return rc;
    if ((rc = check_mask(d, &f, a->i[4], gq, gk))) return rc;
    if ((rc = check_drop(d, &f, a->f[1], gq, gk))) return rc;
    if ((rc = check_outputs(d, &f, layout, gq, gk, gv))) return rc;
    if ((rc = check_prefix(d, a, e, gq, gk))) return rc;
    if (bwd) {
        const aclTensor *views[BW_N] = {f.out, f.q, f.k, f.v, f.dy, f.drop, f.mask, f.max, f.sum, f.attn, f.dk, f.dv};
        keep(e, f.q->dtype, BW_N, views);
    } else {
        const aclTensor *views[FW_N] = {f.out, f.q, f.k, f.v, f.drop, f.mask, f.max, f.sum};
        keep(e, f.q->dtype, FW_N, views);
    }
    int64_t ip[] = {gq.b, gq.n, gk.n, gq.s, gk.s, gq.d, gv.d, layout, a->i[4], a->i[0], a->i[1]};
    memcpy(e->ip, ip, sizeof ip);
    e->p[0].f = a->f[0], e->p[1].f = a->f[1];
    return 0;
}

/* ---------------------------------------------------------------- phase 2 */
typedef struct {
    const aclOpExecutor *e;
    char *base[BW_N];
    int bwd;
} fa_run;

static const tview *view_of(const fa_run *r, int fw, int bw) { return &r->e->t[r->bwd ? bw : fw]; }
static char *base_of(const fa_run *r, int fw, int bw) { return r->base[r->bwd ? bw : fw]; }

/* head (b, n) of a q/k/v-shaped operand as a dense [S, d] double array (or stored back from one) */
static void head_io(const tview *v, char *base, int layout, int64_t b, int64_t n, int64_t s, int64_t d, double *x, int store) {
    int es = dt_size(v->dt);
    for (int64_t i = 0; i < s; i++)
        for (int64_t k = 0; k < d; k++) {
            char *p = base + at(v, layout, b, n, i, k, d) * es;
            if (store) stf(v->dt, p, x[i * d + k]); else x[i * d + k] = ldf(v->dt, p);
        }
}

/* the score (i, j) of head n in batch b is left out: the sparse mode's rule, then the mask's value */
static int masked(const fa_run *r, int64_t b, int64_t n, int64_t i, int64_t j) {
    const tview *m = view_of(r, FW_MASK, BW_MASK);
    char *mb = base_of(r, FW_MASK, BW_MASK);
    if (!mb) return 0; /* no mask: every score counts, whatever the sparse mode (the doc) */
    const int64_t *ip = r->e->ip, pre = ip[P_PRE], next = ip[P_NEXT], shift = ip[P_SKV] - ip[P_SQ];
    switch (ip[P_SPARSE]) {
    case 2: return j > i;
    case 3: return j > i + shift;
    case 4: return j - i - shift > next || i + shift - j > pre;
    case 5: case 6: /* right-down causal, with each batch's first prefix columns seen by every row */
        return j > i + shift && j >= ldi(ACL_INT64, (const char *)r->e->lt[b].cbuf);
    case 0:
        if (j - i > next || i - j > pre) return 1;
        break;
    }
    int64_t off = m->off + i * m->st[m->nd - 2] + j * m->st[m->nd - 1];
    if (m->nd == 4) off += (m->dims[0] == 1 ? 0 : b * m->st[0]) + (m->dims[1] == 1 ? 0 : n * m->st[1]);
    return ldi(m->dt, mb + off * dt_size(m->dt)) != 0;
}

/* the dropout factor of score (i, j): 1 / keepProb where dropMask's bit keeps it, else 0 (1 without a mask) */
static double dropout(const fa_run *r, int64_t b, int64_t n, int64_t i, int64_t j) {
    char *db = base_of(r, FW_DROP, BW_DROP);
    if (!db) return 1;
    const tview *v = view_of(r, FW_DROP, BW_DROP);
    const int64_t *ip = r->e->ip;
    int64_t idx = ((b * ip[P_NQ] + n) * ip[P_SQ] + i) * ip[P_SKV] + j;
    int64_t byte = ldi(v->dt, db + (v->off + (idx >> 3) * v->st[0]) * dt_size(v->dt));
    return byte >> (idx & 7) & 1 ? 1.0 / r->e->p[1].f : 0.0;
}

static double dot(const double *a, const double *b, int64_t n) {
    double s = 0;
    for (int64_t k = 0; k < n; k++) s += a[k] * b[k];
    return s;
}

static void stats_io(const fa_run *r, int64_t b, int64_t n, int64_t i, double *mx, double *sm, int store) {
    const tview *tv[2] = {view_of(r, FW_MAX, BW_MAX), view_of(r, FW_SUM, BW_SUM)};
    char *bs[2] = {base_of(r, FW_MAX, BW_MAX), base_of(r, FW_SUM, BW_SUM)};
    double *val[2] = {mx, sm};
    for (int w = 0; w < 2; w++) {
        const tview *v = tv[w];
        int64_t off = v->off + b * v->st[0] + n * v->st[1] + i * v->st[2];
        if (!store) { *val[w] = ldf(v->dt, bs[w] + off * dt_size(v->dt)); continue; }
        for (int l = 0; l < STATS_LANES; l++) stf(v->dt, bs[w] + (off + l * v->st[3]) * dt_size(v->dt), *val[w]);
    }
}

/* one query row against every key, a tile of KEY_TILE keys at a time: out[dv] and the row's (max, sum) */
static void forward_row(const fa_run *r, int64_t b, int64_t n, int64_t i, const double *q, const double *k,
                        const double *v, double *out, double *mx, double *sm) {
    const int64_t *ip = r->e->ip, skv = ip[P_SKV], d = ip[P_D], dv = ip[P_DV];
    double scale = r->e->p[0].f, m = -INFINITY, l = 0, x[KEY_TILE];
    for (int64_t c = 0; c < dv; c++) out[c] = 0;
    for (int64_t j0 = 0; j0 < skv; j0 += KEY_TILE) {
        int64_t nj = skv - j0 < KEY_TILE ? skv - j0 : KEY_TILE;
        double top = -INFINITY;
        for (int64_t t = 0; t < nj; t++) {
            x[t] = masked(r, b, n, i, j0 + t) ? -INFINITY : scale * dot(q, k + (j0 + t) * d, d);
            if (x[t] > top) top = x[t];
        }
        if (top == -INFINITY) continue;
        if (top > m) { /* rescale what was summed under the old max */
            double c = exp(m - top);
            l *= c;
            for (int64_t e = 0; e < dv; e++) out[e] *= c;
            m = top;
        }
        for (int64_t t = 0; t < nj; t++) {
            if (x[t] == -INFINITY) continue;
            double p = exp(x[t] - m), w = p * dropout(r, b, n, i, j0 + t);
            l += p;
            if (w != 0)
                for (int64_t e = 0; e < dv; e++) out[e] += w * v[(j0 + t) * dv + e];
        }
    }
    for (int64_t e = 0; e < dv; e++) out[e] = l > 0 ? out[e] / l : 0; /* a row with every score masked out: 0 */
    *mx = m, *sm = l;
}

/* dq of one query row, adding into dk and dv: p recomputed from (max, sum), dS = p * (dp * drop - rowsum(dy * o)) */
static void backward_row(const fa_run *r, int64_t b, int64_t n, int64_t i, const double *q, const double *k,
                         const double *v, const double *dy, const double *o, double *dq, double *dk, double *dv) {
    const int64_t *ip = r->e->ip, skv = ip[P_SKV], d = ip[P_D], ndv = ip[P_DV];
    double scale = r->e->p[0].f, mx, sm;
    stats_io(r, b, n, i, &mx, &sm, 0);
    double corr = dot(dy, o, ndv);
    for (int64_t j = 0; j < skv; j++) {
        if (masked(r, b, n, i, j) || !(sm > 0)) continue;
        const double *kj = k + j * d, *vj = v + j * ndv;
        double p = exp(scale * dot(q, kj, d) - mx) / sm, z = dropout(r, b, n, i, j);
        double ds = p * (dot(dy, vj, ndv) * z - corr) * scale;
        for (int64_t e = 0; e < ndv; e++) dv[j * ndv + e] += p * z * dy[e];
        for (int64_t e = 0; e < d; e++) {
            dq[e] += ds * kj[e];
            dk[j * d + e] += ds * q[e];
        }
    }
}

/* the query heads of one key head (GQA: Nq / Nkv of them) in batch b */
static int run_group(const fa_run *r, int64_t b, int64_t g, double **buf) {
    const aclOpExecutor *e = r->e;
    const int64_t *ip = e->ip, sq = ip[P_SQ], skv = ip[P_SKV], d = ip[P_D], dv = ip[P_DV], per = ip[P_NQ] / ip[P_NKV];
    int layout = (int)ip[P_LAYOUT];
    double *q = buf[0], *k = buf[1], *v = buf[2], *out = buf[3], *dy = buf[4], *dk = buf[5], *dvv = buf[6];
    head_io(view_of(r, FW_K, BW_K), base_of(r, FW_K, BW_K), layout, b, g, skv, d, k, 0);
    head_io(view_of(r, FW_V, BW_V), base_of(r, FW_V, BW_V), layout, b, g, skv, dv, v, 0);
    if (r->bwd) memset(dk, 0, sizeof(double) * (size_t)(skv * d)), memset(dvv, 0, sizeof(double) * (size_t)(skv * dv));
    for (int64_t n = g * per; n < (g + 1) * per; n++) {
        head_io(view_of(r, FW_Q, BW_Q), base_of(r, FW_Q, BW_Q), layout, b, n, sq, d, q, 0);
        if (!r->bwd) {
            for (int64_t i = 0; i < sq; i++) {
                double mx, sm;
                forward_row(r, b, n, i, q + i * d, k, v, out + i * dv, &mx, &sm);
                stats_io(r, b, n, i, &mx, &sm, 1);
            }
            head_io(&e->t[FW_OUT], r->base[FW_OUT], layout, b, n, sq, dv, out, 1);
            continue;
        }
        head_io(&e->t[BW_DY], r->base[BW_DY], layout, b, n, sq, dv, dy, 0);
        head_io(&e->t[BW_OUT], r->base[BW_OUT], layout, b, n, sq, dv, out, 0);
        double *dq = buf[7];
        memset(dq, 0, sizeof(double) * (size_t)(sq * d));
        for (int64_t i = 0; i < sq; i++)
            backward_row(r, b, n, i, q + i * d, k, v, dy + i * dv, out + i * dv, dq + i * d, dk, dvv);
        head_io(&e->t[BW_DQ], r->base[BW_DQ], layout, b, n, sq, d, dq, 1);
    }
    if (r->bwd) {
        head_io(&e->t[BW_DK], r->base[BW_DK], layout, b, g, skv, d, dk, 1);
        head_io(&e->t[BW_DV], r->base[BW_DV], layout, b, g, skv, dv, dvv, 1);
    }
    return 0;
}

int k_flash(aclOpExecutor *e, int dev, char *ws, char *msg, size_t len) {
    (void)ws;
    const op_def *d = e->def;
    fa_run r = {.e = e, .bwd = d->flags & F_LOG};
    int nviews = r.bwd ? BW_N : FW_N, rc = 0;
    for (int j = 0; j < nviews && !rc; j++)
        if (e->t[j].data || e->t[j].is_const) rc = map_view(&e->t[j], dev, &r.base[j], d->name, j, msg, len);
    if (rc) return rc;
    const int64_t *ip = e->ip, sq = ip[P_SQ], skv = ip[P_SKV], hd = ip[P_D], dv = ip[P_DV];
    /* per head, O(S * D) host memory: [Sq, D] q and dq, [Skv, D] k and dk, [Skv, Dv] v and dv, [Sq, Dv] out, dy */
    size_t sizes[8] = {sq * hd, skv * hd, skv * dv, sq * dv, sq * dv, skv * hd, skv * dv, sq * hd};
    double *buf[8] = {0};
    for (int j = 0; j < 8 && !rc; j++)
        if (!(buf[j] = malloc(sizeof(double) * (sizes[j] ? sizes[j] : 1)))) {
            snprintf(msg, len, "aclnn%s: out of host memory", d->name);
            rc = ACL_ERROR_RT_MEMORY_ALLOCATION;
        }
    for (int64_t b = 0; b < ip[P_B] && !rc; b++)
        for (int64_t g = 0; g < ip[P_NKV] && !rc; g++) rc = run_group(&r, b, g, buf);
    for (int j = 0; j < 8; j++) free(buf[j]);
    return rc;
}
