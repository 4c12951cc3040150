/* libopapi, neural-network operators: NLLLoss, LayerNorm, EmbeddingDenseBackward and the NCHW operators (convolution,
 * pooling, batch and group norm), on dense double copies. */
#include "ops_internal.h"

/* NLLLoss forward (loss, total weight) and backward (zeros but -w[t] * g at each row's target) */
int k_nll(aclOpExecutor *e, int dev, char *ws, char *msg, size_t len) {
    (void)ws;
    const op_def *d = e->def;
    const tview *o = &e->t[0], *x = &e->t[1], *t = &e->t[2], *w = &e->t[3];
    char *ob, *xb, *tb, *wb;
    int rc;
    if ((rc = map_view(o, dev, &ob, d->name, 0, msg, len)) || (rc = map_view(x, dev, &xb, d->name, 1, msg, len)) ||
        (rc = map_view(t, dev, &tb, d->name, 2, msg, len)) || (rc = map_view(w, dev, &wb, d->name, 3, msg, len)))
        return rc;
    const tview *twv = &e->t[4], *gv = &e->t[5]; /* totalWeight; the backward's gradOutput */
    int bwd = d->flags & F_LOG;
    char *twb, *gb = NULL;
    if ((rc = map_view(twv, dev, &twb, d->name, 4, msg, len)) || (bwd && (rc = map_view(gv, dev, &gb, d->name, 5, msg, len))))
        return rc;
    int twdt = twv->dt, gdt = gv->dt;
    char *twp = twb + twv->off * dt_size(twdt), *gp = gb ? gb + gv->off * dt_size(gdt) : NULL;
    int64_t red = e->ip[0], ign = e->ip[1], n = e->ip[2], c = e->ip[3], gst = bwd && gv->nd ? gv->st[0] : 0;
    int ex = dt_size(x->dt), et = dt_size(t->dt), ew = dt_size(w->dt), eo = dt_size(o->dt);
    int64_t xr = x->nd == 2 ? x->st[0] : 0, xc = x->st[x->nd - 1], tr = t->nd ? t->st[0] : 0;
    double total = 0, sum = 0;
    for (int64_t r = 0; r < n; r++) {
        int64_t k = ldi(t->dt, tb + (t->off + r * tr) * et);
        if (k != ign && (k < 0 || k >= c)) {
            snprintf(msg, len, "aclnn%s: target %lld is out of bounds for %lld classes", d->name, (long long)k, (long long)c);
            return ACL_ERROR_RT_AICORE_EXCEPTION;
        }
        double wk = k == ign ? 0.0 : ldf(w->dt, wb + (w->off + k * w->st[0]) * ew);
        total += wk;
        if (!bwd) {
            double loss = k == ign ? 0.0 : -wk * ldf(x->dt, xb + (x->off + r * xr + k * xc) * ex);
            sum += loss;
            if (!red) stf(o->dt, ob + (o->off + r * (o->nd ? o->st[0] : 0)) * eo, loss);
        }
    }
    if (!bwd) {
        if (red) stf(o->dt, ob + o->off * eo, red == 1 ? sum / total : sum);
        stf(twdt, twp, total);
        return 0;
    }
    double tw = ldf(twdt, twp);
    int64_t orow = o->nd == 2 ? o->st[0] : 0, ocol = o->st[o->nd - 1];
    for (int64_t r = 0; r < n; r++) {
        int64_t k = ldi(t->dt, tb + (t->off + r * tr) * et);
        for (int64_t j = 0; j < c; j++) stf(o->dt, ob + (o->off + r * orow + j * ocol) * eo, 0.0);
        if (k == ign) continue;
        double wk = ldf(w->dt, wb + (w->off + k * w->st[0]) * ew);
        double g = ldf(gdt, gp + (red ? 0 : r * gst) * dt_size(gdt));
        stf(o->dt, ob + (o->off + r * orow + k * ocol) * eo, red == 1 ? (tw != 0 ? -wk * g / tw : 0.0) : -wk * g);
    }
    return 0;
}

/* element r*cols + c of a view whose last k dims are dense: row r steps through the outer dims */
static int64_t row_off(const tview *v, int k, int64_t r) {
    int64_t off = v->off;
    for (int i = v->nd - k - 1; i >= 0; i--) { off += (r % v->dims[i]) * v->st[i]; r /= v->dims[i]; }
    return off;
}

int k_layer_norm(aclOpExecutor *e, int dev, char *ws, char *msg, size_t len) {
    (void)ws;
    const op_def *d = e->def;
    char *b[8] = {0};
    int rc;
    for (int j = 0; j < 8; j++)
        if (e->t[j].data && (rc = map_view(&e->t[j], dev, &b[j], d->name, j, msg, len))) return rc;
    int k = (int)e->ip[0];
    int64_t rows = e->ip[1], cols = e->ip[2];
    const tview *t = e->t;
#define AT(j, r, c) (b[j] + (row_off(&t[j], k, (r)) + (c)) * dt_size(t[j].dt))
#define PAR(j, c) (b[j] + (t[j].off + (c) * (t[j].nd ? t[j].st[t[j].nd - 1] : 0)) * dt_size(t[j].dt))
#define STAT(j, r) (b[j] + row_off(&t[j], 0, (r)) * dt_size(t[j].dt))
    if (!(d->flags & F_LOG)) { /* x: input, weight, bias, out, mean, rstd */
        for (int64_t r = 0; r < rows; r++) {
            double m = 0, v = 0;
            for (int64_t c = 0; c < cols; c++) m += ldf(t[0].dt, AT(0, r, c));
            m /= (double)cols;
            for (int64_t c = 0; c < cols; c++) { double z = ldf(t[0].dt, AT(0, r, c)) - m; v += z * z; }
            double rs = 1.0 / sqrt(v / (double)cols + e->p[0].f);
            for (int64_t c = 0; c < cols; c++) {
                double y = (ldf(t[0].dt, AT(0, r, c)) - m) * rs;
                if (b[1]) y *= ldf(t[1].dt, PAR(1, c));
                if (b[2]) y += ldf(t[2].dt, PAR(2, c));
                stf(t[3].dt, AT(3, r, c), y);
            }
            if (b[4]) stf(t[4].dt, STAT(4, r), m);
            if (b[5]) stf(t[5].dt, STAT(5, r), rs);
        }
        return 0;
    }
    /* x: gradOut, input, mean, rstd, weight, gradInput, gradWeight, gradBias */
    double *gw = calloc((size_t)cols, sizeof *gw), *gb = calloc((size_t)cols, sizeof *gb);
    for (int64_t r = 0; r < rows; r++) {
        double m = ldf(t[2].dt, STAT(2, r)), rs = ldf(t[3].dt, STAT(3, r)), s1 = 0, s2 = 0;
        for (int64_t c = 0; c < cols; c++) {
            double g = ldf(t[0].dt, AT(0, r, c)), xh = (ldf(t[1].dt, AT(1, r, c)) - m) * rs;
            double gx = b[4] ? g * ldf(t[4].dt, PAR(4, c)) : g;
            s1 += gx;
            s2 += gx * xh;
            gw[c] += g * xh;
            gb[c] += g;
        }
        s1 /= (double)cols;
        s2 /= (double)cols;
        if (b[5])
            for (int64_t c = 0; c < cols; c++) {
                double g = ldf(t[0].dt, AT(0, r, c)), xh = (ldf(t[1].dt, AT(1, r, c)) - m) * rs;
                double gx = b[4] ? g * ldf(t[4].dt, PAR(4, c)) : g;
                stf(t[5].dt, AT(5, r, c), rs * (gx - s1 - xh * s2));
            }
    }
    for (int64_t c = 0; c < cols; c++) {
        if (b[6]) stf(t[6].dt, PAR(6, c), gw[c]);
        if (b[7]) stf(t[7].dt, PAR(7, c), gb[c]);
    }
    free(gw);
    free(gb);
#undef AT
#undef PAR
#undef STAT
    return 0;
}

int k_embed_bwd(aclOpExecutor *e, int dev, char *ws, char *msg, size_t len) {
    (void)ws;
    const tview *o = &e->t[0], *g = &e->t[1], *ix = &e->t[2];
    char *ob, *gb, *ib;
    int rc;
    if ((rc = map_view(o, dev, &ob, "EmbeddingDenseBackward", 0, msg, len)) ||
        (rc = map_view(g, dev, &gb, "EmbeddingDenseBackward", 1, msg, len)) ||
        (rc = map_view(ix, dev, &ib, "EmbeddingDenseBackward", 2, msg, len)))
        return rc;
    int64_t nw = e->ip[0], pad = e->ip[1], n = e->ip[2], dd = e->ip[3];
    double *acc = calloc((size_t)(nw * dd), sizeof *acc);
    int64_t *cnt = calloc((size_t)nw, sizeof *cnt);
    for (int64_t i = 0; i < n; i++) {
        int64_t k = ldi(ix->dt, ib + (ix->off + i) * dt_size(ix->dt));
        if (k < 0 || k >= nw) {
            free(acc); free(cnt);
            snprintf(msg, len, "aclnnEmbeddingDenseBackward: index %lld is out of range", (long long)k);
            return ACL_ERROR_RT_AICORE_EXCEPTION;
        }
        cnt[k]++;
    }
    for (int64_t i = 0; i < n; i++) {
        int64_t k = ldi(ix->dt, ib + (ix->off + i) * dt_size(ix->dt));
        if (k == pad) continue;
        double sc = e->p[0].i ? 1.0 / (double)cnt[k] : 1.0;
        for (int64_t c = 0; c < dd; c++) acc[k * dd + c] += sc * ldf(g->dt, gb + (g->off + i * dd + c) * dt_size(g->dt));
    }
    for (int64_t r = 0; r < nw; r++)
        for (int64_t c = 0; c < dd; c++) stf(o->dt, ob + (o->off + r * o->st[0] + c * o->st[1]) * dt_size(o->dt), acc[r * dd + c]);
    free(acc);
    free(cnt);
    return 0;
}

/* t: out, self, target; x: weight, totalWeight, gradOutput (backward). A 1-D self is one row. */
aclnnStatus v_nll(const op_def *d, args *a, aclOpExecutor *e) {
    const aclTensor *out = a->t[0], *self = a->t[1], *target = a->t[2], *weight = a->x[0], *tw = a->x[1], *g = a->x[2];
    int bwd = d->flags & F_LOG;
    aclnnStatus rc;
    if ((rc = check_tensor(d, self, "self", 2)) || (rc = check_tensor(d, weight, "weight", 1)) ||
        (rc = check_tensor(d, out, bwd ? "out" : "out", 2)) || (rc = check_tensor(d, tw, "totalWeight", 1)))
        return rc;
    if (bwd && (rc = check_tensor(d, g, "gradOutput", 1))) return rc;
    if (!target) BAD(ACLNN_ERR_PARAM_NULLPTR, "aclnn%sGetWorkspaceSize: target is NULL", d->name);
    if (!aclsim_check_tensor(target) || (target->dtype != ACL_INT64 && target->dtype != ACL_UINT8 && target->dtype != ACL_INT32))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: target must be an INT64, INT32 or UINT8 tensor", d->name);
    if (self->ndim < 1) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: self must be 1-D or 2-D", d->name);
    int64_t n = self->ndim == 2 ? self->dims[0] : 1, c = self->dims[self->ndim - 1];
    int64_t red = a->i[0];
    if (red < 0 || red > 2) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: reduction %lld is not 0, 1 or 2", d->name, (long long)red);
    if ((int64_t)(target->ndim ? target->dims[0] : 1) != n || target->ndim != self->ndim - 1)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: target shape does not match self's batch", d->name);
    if (weight->ndim != 1 || weight->dims[0] != c)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: weight must be [C] with C = %lld", d->name, (long long)c);
    if (bwd ? !same_shape(out, (int)self->ndim, self->dims)
            : (red ? out->ndim != 0 : (int)out->ndim != (int)self->ndim - 1 || (out->ndim && out->dims[0] != n)))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: out shape is not the result shape", d->name);
    /* every tensor operand is a view, so aclSetTensorAddr reaches each of them */
    KEEP(e, self->dtype, out, self, target, weight, tw, bwd ? g : NULL);
    e->ip[0] = red;
    e->ip[1] = a->i[1];
    e->ip[2] = n;
    e->ip[3] = c;
    return 0;
}

/* the normalized block (last k dims) must be dense, rows may stride: this simulator is stricter than CANN */
int dense_tail(const aclTensor *t, int k) {
    int64_t acc = 1;
    for (int i = (int)t->ndim - 1; i >= (int)t->ndim - k; i--) {
        if (t->dims[i] != 1 && t->strides[i] != acc) return 0;
        acc *= t->dims[i];
    }
    return 1;
}

/* forward x: {input, weight, bias, out, mean, rstd}; backward x: {gradOut, input, mean, rstd, weight, gradInput,
 * gradWeight, gradBias, bias}; normalized shape in arr, eps in f[0]; t[] holds the same views in that order (the
 * backward reads no bias, but keeps it as an operand: aclSetTensorAddr may name it) */
aclnnStatus v_layer_norm(const op_def *d, args *a, aclOpExecutor *e) {
    int bwd = d->flags & F_LOG;
    const aclTensor *in = a->x[bwd ? 1 : 0];
    aclnnStatus rc;
    if ((rc = check_tensor(d, in, "input", 8))) return rc;
    uint64_t k;
    const int64_t *ns = a->arr ? aclsim_int_array(a->arr, &k) : NULL;
    if (!ns) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: normalizedShape is not a live aclIntArray", d->name);
    if (!k || k > in->ndim) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: normalizedShape has %llu dims", d->name, (unsigned long long)k);
    int64_t cols = 1, rows = 1;
    for (uint64_t i = 0; i < k; i++) {
        if (ns[i] != in->dims[in->ndim - k + i])
            BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: normalizedShape does not match input's last dims", d->name);
        cols *= ns[i];
    }
    for (uint32_t i = 0; i < in->ndim - k; i++) rows *= in->dims[i];
    for (int j = 0; j < 9; j++) {
        const aclTensor *t = a->x[j];
        if (!t) continue;
        if ((rc = check_tensor(d, t, "operand", 8))) return rc;
        int64_t n = 1;
        for (uint32_t i = 0; i < t->ndim; i++) n *= t->dims[i];
        int stat = bwd ? (j == 2 || j == 3) : (j == 4 || j == 5),
            param = bwd ? (j == 4 || j == 6 || j == 7 || j == 8) : (j == 1 || j == 2);
        int64_t want = stat ? rows : param ? cols : rows * cols;
        if (n != want) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: operand %d has %lld elements, expected %lld",
                           d->name, j, (long long)n, (long long)want);
        if (!stat && !param && !dense_tail(t, (int)k))
            BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: operand %d's normalized dims are not dense", d->name, j);
    }
    if (!a->x[bwd ? 5 : 3] && !bwd) BAD(ACLNN_ERR_PARAM_NULLPTR, "aclnnLayerNormGetWorkspaceSize: out is NULL");
    keep(e, in->dtype, 9, a->x);
    e->ip[0] = (int64_t)k;
    e->ip[1] = rows;
    e->ip[2] = cols;
    e->p[0].f = a->f[0];
    return 0;
}

/* EmbeddingDenseBackward(grad [..., D], indices, numWeights, paddingIdx, scaleGradByFreq, out [numWeights, D]) */
aclnnStatus v_embed_bwd(const op_def *d, args *a, aclOpExecutor *e) {
    const aclTensor *g = a->t[1], *ix = a->t[2], *out = a->t[0];
    aclnnStatus rc;
    if ((rc = check_tensor(d, g, "grad", 8)) || (rc = check_tensor(d, out, "out", 2))) return rc;
    if (!ix || !aclsim_check_tensor(ix) || (ix->dtype != ACL_INT64 && ix->dtype != ACL_INT32))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnnEmbeddingDenseBackwardGetWorkspaceSize: indices must be an INT64/INT32 tensor");
    int64_t dd = g->ndim ? g->dims[g->ndim - 1] : 1, n = 1, gn = 1;
    for (uint32_t i = 0; i < ix->ndim; i++) n *= ix->dims[i];
    for (uint32_t i = 0; i < g->ndim; i++) gn *= g->dims[i];
    if (out->ndim != 2 || out->dims[0] != a->i[0] || out->dims[1] != dd || gn != n * dd || !dense_tail(g, (int)g->ndim))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnnEmbeddingDenseBackwardGetWorkspaceSize: grad, indices and out do not agree");
    if (!dense_tail(ix, (int)ix->ndim) || !dense_tail(out, 2))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnnEmbeddingDenseBackwardGetWorkspaceSize: operands must be contiguous");
    KEEP(e, out->dtype, out, g, ix);
    e->ip[0] = a->i[0];
    e->ip[1] = a->i[1];
    e->ip[2] = n;
    e->ip[3] = dd;
    e->p[0].i = a->seed; /* scaleGradByFreq */
    return 0;
}

/* the direct convolution Y = X (*) W (X [N, C, H, W], W [O, C/g, kh, kw], Y [N, O, Ho, Wo]) in one of three
 * directions: 0 computes Y, 1 accumulates dX from Y (dY), 2 accumulates dW from Y (dY) and X. A transposed
 * convolution is the same relation with its input in Y's place and its output in X's. */
static void conv_loop(int mode, double *X, double *Wt, double *Y, const int64_t *xs, const int64_t *wsh,
                      const int64_t *ys, const int64_t *ip) {
    int64_t N = xs[0], C = xs[1], H = xs[2], Wd = xs[3], O = wsh[0], cg = wsh[1], kh = wsh[2], kw = wsh[3];
    int64_t Ho = ys[2], Wo = ys[3], og = O / ip[6];
    for (int64_t n = 0; n < N; n++)
        for (int64_t o = 0; o < O; o++)
            for (int64_t oh = 0; oh < Ho; oh++)
                for (int64_t ow = 0; ow < Wo; ow++) {
                    int64_t yi = ((n * O + o) * Ho + oh) * Wo + ow;
                    double acc = 0, dy = mode ? Y[yi] : 0;
                    for (int64_t c = 0; c < cg; c++) {
                        int64_t ci = (o / og) * cg + c;
                        for (int64_t i = 0; i < kh; i++) {
                            int64_t ih = oh * ip[0] - ip[2] + i * ip[4];
                            if (ih < 0 || ih >= H) continue;
                            for (int64_t j = 0; j < kw; j++) {
                                int64_t iw = ow * ip[1] - ip[3] + j * ip[5];
                                if (iw < 0 || iw >= Wd) continue;
                                int64_t xi = ((n * C + ci) * H + ih) * Wd + iw, wi = ((o * cg + c) * kh + i) * kw + j;
                                if (mode == 0) acc += X[xi] * Wt[wi];
                                else if (mode == 1) X[xi] += dy * Wt[wi];
                                else Wt[wi] += dy * X[xi];
                            }
                        }
                    }
                    if (mode == 0) Y[yi] = acc;
                }
}

/* per-channel sums of a [N, C, S...] array (bias gradients) */
static void channel_sums(const double *g, const tview *v, double *out) {
    int64_t N = v->dims[0], C = v->dims[1], S = numel(v) / nz(N * C);
    for (int64_t n = 0; n < N; n++)
        for (int64_t c = 0; c < C; c++)
            for (int64_t s = 0; s < S; s++) out[c] += g[(n * C + c) * S + s];
}

/* The cube's operand precision for a convolution's cubeMathType (ops-nn conv docs, aclnnConvolution.md's
 * constraints; matmul/common cube_util.cpp CheckCubeMathType): KEEP_DTYPE (0) and USE_HF32 (3) need a chip whose
 * cube computes FLOAT (910B-class, Ascend950), where ALLOW_FP32_DOWN_PRECISION (1) and USE_HF32 turn FLOAT
 * operands into HFLOAT32 (*mode 1); USE_FP16 (2) refuses BFLOAT16. Elsewhere (1) and (2) compute FLOAT in
 * FLOAT16: not modelled, those operands stay exact (*mode 0). */
aclnnStatus cube_precision(const op_def *d, int dt, int cube, int64_t *mode) {
    int fp32_cube = chip_family() == FAM_910B || chip_family() == FAM_950;
    if (cube < 0 || cube > 3) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: cubeMathType %d", d->name, cube);
    if ((cube == 0 || cube == 3) && !fp32_cube && (dt == ACL_FLOAT || dt == ACL_BF16))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: the soc version does not support bf16 / fp32 for calculations, "
            "please change the setting of cubeMathType or the Dtype of input tensor.", d->name);
    if (cube == 2 && dt == ACL_BF16)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: cubeMathType USE_FP16 does not take BFLOAT16", d->name);
    *mode = dt == ACL_FLOAT && (cube == 3 || (cube == 1 && fp32_cube));
    return 0;
}

/* a dense operand in HFLOAT32 when cube_precision said so */
static void cube_round(double *x, int64_t n, int64_t hf32) {
    if (!x || !hf32) return;
    for (int64_t k = 0; k < n; k++) x[k] = to_hf32(x[k]);
}

/* Convolution: t = {output, input, weight, bias}; ConvolutionBackward: t = {gradInput, gradOutput, input, weight,
 * gradWeight, gradBias}; ip: stride h/w, padding h/w, dilation h/w, groups, transposed, HFLOAT32 operands */
int run_conv(aclOpExecutor *e, double **x, char *msg, size_t len) {
    (void)msg, (void)len;
    const tview *t = e->t;
    int tr = (int)e->ip[7];
    int last = ((const op_def *)e->def)->flags & F_LOG ? 3 : 2; /* the cube's operands, not the bias */
    for (int j = 1; j <= last; j++) /* input and weight (backward: gradOutput, input, weight) */
        cube_round(x[j], numel(&t[j]), e->ip[8]);
    if (!(((const op_def *)e->def)->flags & F_LOG)) {
        if (tr) conv_loop(1, x[0], x[2], x[1], t[0].dims, t[2].dims, t[1].dims, e->ip);
        else conv_loop(0, x[1], x[2], x[0], t[1].dims, t[2].dims, t[0].dims, e->ip);
        if (x[3]) {
            int64_t N = t[0].dims[0], C = t[0].dims[1], S = numel(&t[0]) / nz(N * C);
            for (int64_t k = 0; k < N * C * S; k++) x[0][k] += x[3][(k / S) % C];
        }
        return 0;
    }
    /* direct relation: X = input, Y = gradOutput; transposed: X = gradOutput, Y = input */
    double *X = tr ? x[1] : x[2], *Y = tr ? x[2] : x[1];
    const int64_t *xs = tr ? t[1].dims : t[2].dims, *ys = tr ? t[2].dims : t[1].dims;
    if (x[0]) conv_loop(tr ? 0 : 1, tr ? X : x[0], x[3], tr ? x[0] : Y, xs, t[3].dims, ys, e->ip);
    if (x[4]) conv_loop(2, X, x[4], Y, xs, t[3].dims, ys, e->ip);
    if (x[5]) channel_sums(x[1], &t[1], x[5]);
    return 0;
}

/* pooling windows over planes of [.., H, W]; ip: kernel h/w, stride h/w, padding h/w, dilation h/w, ceil,
 * countIncludePad, divisorOverride. Max: t = {out, self, indices} / backward {gradInput, gradOutput, self,
 * indices}; average: t = {out, self} / backward {gradInput, gradOutput, self} */
int run_pool(aclOpExecutor *e, double **x, char *msg, size_t len) {
    (void)msg, (void)len;
    const int64_t *ip = e->ip;
    int bwd = ((const op_def *)e->def)->flags & F_LOG, avg = ((const op_def *)e->def)->flags & F_MODE;
    const tview *in = &e->t[bwd ? 2 : 1], *ov = &e->t[bwd ? 1 : 0];
    int64_t H = in->dims[in->nd - 2], W = in->dims[in->nd - 1], Ho = ov->dims[ov->nd - 2], Wo = ov->dims[ov->nd - 1];
    int64_t planes = numel(in) / (H * W);
    double *X = x[bwd ? 2 : 1], *Y = x[bwd ? 1 : 0], *dX = x[0], *I = x[bwd ? 3 : 2];
    for (int64_t pl = 0; pl < planes; pl++)
        for (int64_t oh = 0; oh < Ho; oh++)
            for (int64_t ow = 0; ow < Wo; ow++) {
                int64_t yi = (pl * Ho + oh) * Wo + ow, h0 = oh * ip[2] - ip[4], w0 = ow * ip[3] - ip[5];
                const double *xp = X ? X + pl * H * W : NULL;
                if (!avg) {
                    if (bwd) { dX[pl * H * W + (int64_t)I[yi]] += Y[yi]; continue; }
                    double best = -INFINITY;
                    int64_t bi = -1;
                    for (int64_t i = 0; i < ip[0]; i++) {
                        int64_t ih = h0 + i * ip[6];
                        if (ih < 0 || ih >= H) continue;
                        for (int64_t j = 0; j < ip[1]; j++) {
                            int64_t iw = w0 + j * ip[7];
                            if (iw < 0 || iw >= W) continue;
                            double v = xp[ih * W + iw];
                            if (bi < 0) bi = ih * W + iw;
                            if (v > best || v != v) { best = v; bi = ih * W + iw; }
                        }
                    }
                    Y[yi] = best;
                    I[yi] = (double)bi;
                    continue;
                }
                int64_t h1 = h0 + ip[0] < H + ip[4] ? h0 + ip[0] : H + ip[4], w1 = w0 + ip[1] < W + ip[5] ? w0 + ip[1] : W + ip[5];
                int64_t pool = (h1 - h0) * (w1 - w0);
                h0 = h0 < 0 ? 0 : h0; w0 = w0 < 0 ? 0 : w0; h1 = h1 > H ? H : h1; w1 = w1 > W ? W : w1;
                if (h0 >= h1 || w0 >= w1) { if (!bwd) Y[yi] = 0; continue; }
                double div = ip[10] ? (double)ip[10] : ip[9] ? (double)pool : (double)((h1 - h0) * (w1 - w0)), s = 0;
                for (int64_t ih = h0; ih < h1; ih++)
                    for (int64_t iw = w0; iw < w1; iw++) {
                        if (bwd) dX[pl * H * W + ih * W + iw] += Y[yi] / div;
                        else s += xp[ih * W + iw];
                    }
                if (!bwd) Y[yi] = s / div;
            }
    return 0;
}

/* AdaptiveAvgPool2d: t = {out, self}; backward: t = {out (gradInput), gradOutput, self} */
int run_adaptive(aclOpExecutor *e, double **x, char *msg, size_t len) {
    (void)msg, (void)len;
    int bwd = ((const op_def *)e->def)->flags & F_LOG;
    const tview *in = &e->t[bwd ? 2 : 1], *ov = &e->t[bwd ? 1 : 0];
    int64_t H = in->dims[in->nd - 2], W = in->dims[in->nd - 1], Ho = ov->dims[ov->nd - 2], Wo = ov->dims[ov->nd - 1];
    int64_t planes = numel(in) / nz(H * W);
    double *Y = x[bwd ? 1 : 0];
    for (int64_t pl = 0; pl < planes; pl++)
        for (int64_t oh = 0; oh < Ho; oh++)
            for (int64_t ow = 0; ow < Wo; ow++) {
                int64_t h0 = oh * H / Ho, h1 = ((oh + 1) * H + Ho - 1) / Ho, w0 = ow * W / Wo, w1 = ((ow + 1) * W + Wo - 1) / Wo;
                double cnt = (double)((h1 - h0) * (w1 - w0)), s = 0;
                int64_t yi = (pl * Ho + oh) * Wo + ow;
                for (int64_t ih = h0; ih < h1; ih++)
                    for (int64_t iw = w0; iw < w1; iw++) {
                        if (bwd) x[0][(pl * H + ih) * W + iw] += Y[yi] / cnt;
                        else s += x[1][(pl * H + ih) * W + iw];
                    }
                if (!bwd) Y[yi] = s / cnt;
            }
    return 0;
}

/* BatchNorm: t = {output, input, weight, bias, runningMean, runningVar, saveMean, saveInvstd}, ip[0] training,
 * p[0] momentum, p[1] eps. Backward: t = {gradInput, gradOut, input, weight, runningMean, runningVar, saveMean,
 * saveInvstd, gradWeight, gradBias} */
int run_batch_norm(aclOpExecutor *e, double **x, char *msg, size_t len) {
    (void)msg, (void)len;
    const tview *in = &e->t[(((const op_def *)e->def)->flags & F_LOG) ? 2 : 1];
    int64_t N = in->dims[0], C = in->dims[1], S = numel(in) / nz(N * C), cnt = N * S;
    double eps = e->p[1].f;
    for (int64_t c = 0; c < C; c++) {
        double mean, invstd, w = 1, b = 0;
        if (((const op_def *)e->def)->flags & F_LOG) {
            double *g = x[1], *X = x[2];
            if (x[3]) w = x[3][c];
            if (e->ip[0]) { mean = x[6][c]; invstd = x[7][c]; }
            else { mean = x[4][c]; invstd = 1.0 / sqrt(x[5][c] + eps); }
            double sg = 0, sgx = 0;
            for (int64_t n = 0; n < N; n++)
                for (int64_t s = 0; s < S; s++) {
                    int64_t k = (n * C + c) * S + s;
                    sg += g[k];
                    sgx += g[k] * (X[k] - mean) * invstd;
                }
            if (x[8]) x[8][c] = sgx;
            if (x[9]) x[9][c] = sg;
            if (x[0])
                for (int64_t n = 0; n < N; n++)
                    for (int64_t s = 0; s < S; s++) {
                        int64_t k = (n * C + c) * S + s;
                        double xh = (X[k] - mean) * invstd;
                        x[0][k] = e->ip[0] ? w * invstd * (g[k] - sg / (double)cnt - xh * sgx / (double)cnt) : g[k] * w * invstd;
                    }
            continue;
        }
        double *X = x[1];
        if (x[2]) w = x[2][c];
        if (x[3]) b = x[3][c];
        if (e->ip[0]) {
            double s = 0, v = 0;
            for (int64_t n = 0; n < N; n++)
                for (int64_t k = 0; k < S; k++) s += X[(n * C + c) * S + k];
            mean = cnt ? s / (double)cnt : NAN;
            for (int64_t n = 0; n < N; n++)
                for (int64_t k = 0; k < S; k++) { double z = X[(n * C + c) * S + k] - mean; v += z * z; }
            invstd = 1.0 / sqrt(v / (double)cnt + eps);
            double m = e->p[0].f;
            if (x[4]) x[4][c] = (1 - m) * x[4][c] + m * mean;
            if (x[5]) x[5][c] = (1 - m) * x[5][c] + m * (cnt > 1 ? v / (double)(cnt - 1) : NAN);
            if (x[6]) x[6][c] = mean;
            if (x[7]) x[7][c] = invstd;
        } else {
            mean = x[4][c];
            invstd = 1.0 / sqrt(x[5][c] + eps);
        }
        for (int64_t n = 0; n < N; n++)
            for (int64_t k = 0; k < S; k++) {
                int64_t i = (n * C + c) * S + k;
                x[0][i] = (X[i] - mean) * invstd * w + b;
            }
    }
    return 0;
}

/* GroupNorm: t = {out, self, gamma, beta, meanOut, rstdOut}; backward: t = {gradInput, gradOut, input, mean, rstd,
 * gamma, gradGamma, gradBeta}; ip: N, C, HxW, group; p[0] eps */
int run_group_norm(aclOpExecutor *e, double **x, char *msg, size_t len) {
    (void)msg, (void)len;
    int64_t N = e->ip[0], C = e->ip[1], HW = e->ip[2], G = e->ip[3], cpg = C / G, D = cpg * HW;
    int bwd = ((const op_def *)e->def)->flags & F_LOG;
    for (int64_t n = 0; n < N; n++)
        for (int64_t g = 0; g < G; g++) {
            int64_t base = (n * C + g * cpg) * HW;
            if (!bwd) {
                double *X = x[1] + base, m = 0, v = 0;
                for (int64_t k = 0; k < D; k++) m += X[k];
                m /= (double)D;
                for (int64_t k = 0; k < D; k++) v += (X[k] - m) * (X[k] - m);
                double rs = 1.0 / sqrt(v / (double)D + e->p[0].f);
                for (int64_t k = 0; k < D; k++) {
                    int64_t c = g * cpg + k / HW;
                    x[0][base + k] = (X[k] - m) * rs * (x[2] ? x[2][c] : 1) + (x[3] ? x[3][c] : 0);
                }
                if (x[4]) x[4][n * G + g] = m;
                if (x[5]) x[5][n * G + g] = rs;
                continue;
            }
            double *dy = x[1] + base, *X = x[2] + base, m = x[3][n * G + g], rs = x[4][n * G + g], s1 = 0, s2 = 0;
            for (int64_t k = 0; k < D; k++) {
                int64_t c = g * cpg + k / HW;
                double xh = (X[k] - m) * rs, gx = dy[k] * (x[5] ? x[5][c] : 1);
                s1 += gx;
                s2 += gx * xh;
                if (x[6]) x[6][c] += dy[k] * xh;
                if (x[7]) x[7][c] += dy[k];
            }
            if (x[0])
                for (int64_t k = 0; k < D; k++) {
                    int64_t c = g * cpg + k / HW;
                    double xh = (X[k] - m) * rs, gx = dy[k] * (x[5] ? x[5][c] : 1);
                    x[0][base + k] = rs * (gx - s1 / (double)D - xh * s2 / (double)D);
                }
        }
    return 0;
}

/* ---- the NCHW operators' validators */
/* an aclIntArray of one of the lengths in `lens` (bit n: n values) into out[0..1] (one value serves both);
 * returns the length, or -1 */
int pair(const void *arr, int64_t *out, unsigned lens) {
    uint64_t n;
    const int64_t *v = arr ? aclsim_int_array(arr, &n) : NULL;
    if (!v || n > 2 || !(lens >> n & 1)) return -1;
    if (n) { out[0] = v[0]; out[1] = v[n - 1]; }
    return (int)n;
}

/* Convolution x = {output, input, weight, bias}; ConvolutionBackward x = {gradInput, gradOutput, input, weight,
 * gradWeight, gradBias}; ia = {stride, padding, dilation, outputPadding}; i = {transposed, groups}; the
 * simulator computes 2-d convolutions (4-d NCHW operands) with one padding per spatial dim */
aclnnStatus v_conv(const op_def *d, args *a, aclOpExecutor *e) {
    int bwd = d->flags & F_LOG, tr = a->i[0] != 0;
    const aclTensor *in = a->x[bwd ? 2 : 1], *w = a->x[bwd ? 3 : 2], *y = a->x[bwd ? 1 : 0];
    aclnnStatus rc;
    if ((rc = check_tensor(d, in, "input", 8)) || (rc = check_same(d, w, in, "weight")) ||
        (rc = check_same(d, y, in, bwd ? "gradOutput" : "output")))
        return rc;
    if (in->ndim != 4 || w->ndim != 4 || y->ndim != 4)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: the simulator computes 2-d convolutions: input, weight and output must be 4-d (NCHW)", d->name);
    /* x, filter and y NCHW (conv/convolution_forward aclnn_convolution.cpp FormatChecker; the backward checker) */
    if ((rc = check_layout(d, in, "x")) || (rc = check_layout(d, w, "filter")) || (rc = check_layout(d, y, bwd ? "gradOutput" : "y")))
        return rc;
    int64_t st[2], pd[2], dl[2], op[2] = {0, 0}, g = a->i[1];
    if (pair(a->ia[0], st, 4) < 0 || pair(a->ia[1], pd, 4) < 0 || pair(a->ia[2], dl, 4) < 0 ||
        (a->ia[3] && pair(a->ia[3], op, 4) < 0))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: stride, padding, dilation and outputPadding must hold 2 values", d->name);
    if (st[0] <= 0 || st[1] <= 0 || dl[0] <= 0 || dl[1] <= 0 || pd[0] < 0 || pd[1] < 0)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: stride and dilation must be > 0, padding >= 0", d->name);
    if (tr ? (op[0] < 0 || op[1] < 0 || (op[0] >= st[0] && op[0] >= dl[0]) || (op[1] >= st[1] && op[1] >= dl[1])) : (op[0] || op[1]))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: outputPadding is out of range", d->name);
    if (g < 1 || g > 65535) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: groups %lld is not in [1, 65535]", d->name, (long long)g);
    /* the direct relation's X (conv input) and Y (conv output): transposed swaps them */
    const aclTensor *X = tr ? y : in, *Y = tr ? in : y;
    if (X->dims[1] != w->dims[1] * g || w->dims[0] % g || Y->dims[1] != w->dims[0])
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: channels of input (%lld), weight [%lld, %lld] and groups %lld do not agree",
            d->name, (long long)in->dims[1], (long long)w->dims[0], (long long)w->dims[1], (long long)g);
    int64_t ys[4] = {in->dims[0], tr ? w->dims[1] * g : w->dims[0], 0, 0};
    for (int k = 0; k < 2; k++) {
        int64_t eff = dl[k] * (w->dims[2 + k] - 1) + 1;
        ys[2 + k] = tr ? (in->dims[2 + k] - 1) * st[k] - 2 * pd[k] + eff + op[k] : (in->dims[2 + k] + 2 * pd[k] - eff) / st[k] + 1;
        if (!tr && in->dims[2 + k] + 2 * pd[k] < eff)
            BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: the padded input is smaller than the dilated kernel", d->name);
    }
    if ((rc = check_shape(d, y, 4, ys, bwd ? "gradOutput" : "output"))) return rc;
    int64_t cshape[1] = {ys[1]};
    if (!bwd) {
        if (a->x[3] && ((rc = check_same(d, a->x[3], in, "bias")) || (rc = check_shape(d, a->x[3], 1, cshape, "bias")))) return rc;
        snap_all(e, a->x, 4, 0xE, 0x1);
    } else {
        uint64_t nm;
        const bool *m = a->mask ? aclsim_bool_array(a->mask, &nm) : NULL;
        if (!m || nm != 3) BAD(ACLNN_ERR_PARAM_INVALID, "aclnnConvolutionBackwardGetWorkspaceSize: outputMask must be an aclBoolArray of 3");
        const aclTensor *outs[3] = {a->x[0], a->x[4], a->x[5]}, *like[3] = {in, w, NULL};
        static const char *names[3] = {"gradInput", "gradWeight", "gradBias"};
        for (int k = 0; k < 3; k++) {
            if (!m[k]) { a->x[k ? k + 3 : 0] = NULL; continue; }
            if ((rc = check_same(d, outs[k], in, names[k]))) return rc;
            if ((rc = like[k] ? check_shape(d, outs[k], 4, like[k]->dims, names[k]) : check_shape(d, outs[k], 1, cshape, names[k]))) return rc;
        }
        snap_all(e, a->x, 6, 0xE, 0x31);
    }
    e->ct = in->dtype;
    int64_t ip[9] = {st[0], st[1], pd[0], pd[1], dl[0], dl[1], g, tr, 0};
    if ((rc = cube_precision(d, in->dtype, (int)a->i[2], &ip[8]))) return rc;
    memcpy(e->ip, ip, sizeof ip);
    return 0;
}

/* pooling: x = {out, self, indices} (max), {out, self} (avg); backward x = {gradInput, gradOutput, self, indices};
 * ia = {kernel, stride, padding, dilation}; i = {ceilMode, countIncludePad}; seed: divisorOverride */
aclnnStatus v_pool(const op_def *d, args *a, aclOpExecutor *e) {
    int bwd = d->flags & F_LOG, avg = d->flags & F_MODE;
    const aclTensor *self = a->x[bwd ? 2 : 1], *o = a->x[bwd ? 1 : 0], *ix = avg ? NULL : a->x[bwd ? 3 : 2], *gi = a->x[0];
    aclnnStatus rc;
    if ((rc = check_tensor(d, self, "self", 4)) || (rc = check_same(d, o, self, bwd ? "gradOutput" : "out")) ||
        (bwd && (rc = check_same(d, gi, self, "gradInput"))))
        return rc;
    if (self->ndim < 3) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: self must be 3-d or 4-d", d->name);
    /* average pooling: self, out (and gradInput) NCHW when 4-d, NCL when 3-d (pooling/avg_pool3_d CheckFormat) */
    if (avg && ((rc = check_layout(d, self, "self")) || (rc = check_layout(d, o, bwd ? "gradOutput" : "out")) ||
                (bwd && (rc = check_layout(d, gi, "gradInput")))))
        return rc;
    if (ix && (!aclsim_check_tensor(ix) || (ix->dtype != ACL_INT64 && ix->dtype != ACL_INT32)))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: indices must be an INT32 or INT64 tensor", d->name);
    int64_t k[2], s[2], p[2], dl[2] = {1, 1};
    if (pair(a->ia[0], k, 6) < 0 || pair(a->ia[2], p, 6) < 0 || (!avg && pair(a->ia[3], dl, 6) < 0))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: kernelSize, padding and dilation must hold 1 or 2 values", d->name);
    /* max pooling on 910B-class parts (Atlas A2 / A3): dilation 1 only; the backward takes FLOAT self and
     * gradOutput and INT32 indices (docs/aclnnMaxPool2dWithIndices.md, aclnnMaxPool2dWithIndicesBackward.md) */
    if (!avg && chip_family() == FAM_910B) {
        if (dl[0] != 1 || dl[1] != 1)
            BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: dilation must be 1 on %s, got [%lld, %lld]", d->name,
                aclrtGetSocName(), (long long)dl[0], (long long)dl[1]);
        if (bwd && self->dtype != ACL_FLOAT)
            BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: self dtype %s is not supported on %s, should be FLOAT",
                d->name, dtname(self->dtype), aclrtGetSocName());
        if (bwd && ix->dtype != ACL_INT32)
            BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: indices dtype %s is not supported on %s, should be INT32",
                d->name, dtname(ix->dtype), aclrtGetSocName());
    }
    int ns = pair(a->ia[1], s, 7);
    if (ns < 0) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: stride must hold 0, 1 or 2 values", d->name);
    if (!ns) { s[0] = k[0]; s[1] = k[1]; }
    if (k[0] <= 0 || k[1] <= 0 || s[0] <= 0 || s[1] <= 0 || dl[0] <= 0 || dl[1] <= 0 || p[0] < 0 || p[1] < 0 ||
        p[0] > k[0] / 2 || p[1] > k[1] / 2)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: kernel, stride, dilation must be > 0 and padding in [0, kernel / 2]", d->name);
    int nd = (int)self->ndim;
    int64_t shape[4];
    memcpy(shape, self->dims, sizeof(int64_t) * (size_t)nd);
    for (int q = 0; q < 2; q++) {
        int64_t n = self->dims[nd - 2 + q], num = n + 2 * p[q] - dl[q] * (k[q] - 1) - 1;
        int64_t out = (a->i[0] ? (num + s[q] - 1) / s[q] : num / s[q]) + 1;
        if (a->i[0] && (out - 1) * s[q] >= n + p[q]) out--;
        if (num < 0 || out <= 0) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: the output would be empty", d->name);
        shape[nd - 2 + q] = out;
    }
    if ((rc = check_shape(d, o, nd, shape, bwd ? "gradOutput" : "out")) || (ix && (rc = check_shape(d, ix, nd, shape, "indices"))) ||
        (bwd && (rc = check_shape(d, gi, nd, self->dims, "gradInput"))))
        return rc;
    if (!bwd) snap_all(e, a->x, avg ? 2 : 3, 0x2, avg ? 0x1 : 0x5);
    else snap_all(e, a->x, avg ? 3 : 4, avg ? 0x2 : 0xA, 0x1);
    e->ct = self->dtype;
    int64_t ip[11] = {k[0], k[1], s[0], s[1], p[0], p[1], dl[0], dl[1], a->i[0], a->i[1], (int64_t)a->seed};
    memcpy(e->ip, ip, sizeof ip);
    return 0;
}

/* AdaptiveAvgPool2d x = {out, self}, outputSize in arr; backward x = {out, gradOutput, self} */
aclnnStatus v_adaptive(const op_def *d, args *a, aclOpExecutor *e) {
    int bwd = d->flags & F_LOG;
    const aclTensor *self = a->x[bwd ? 2 : 1], *o = a->x[bwd ? 1 : 0];
    aclnnStatus rc;
    if ((rc = check_tensor(d, self, "self", 4)) || (rc = check_same(d, o, self, bwd ? "gradOutput" : "out")) ||
        (bwd && (rc = check_same(d, a->x[0], self, "out"))))
        return rc;
    int nd = (int)self->ndim;
    if (nd < 3 || (int)o->ndim != nd) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: self must be 3-d or 4-d", d->name);
    /* self and out NCHW when 4-d, NCL when 3-d (pooling/adaptive_avg_pool2d CheckFormat) */
    if (!bwd && ((rc = check_layout(d, self, "self")) || (rc = check_layout(d, o, "out")))) return rc;
    int64_t shape[4], os[2];
    memcpy(shape, self->dims, sizeof(int64_t) * (size_t)nd);
    if (!bwd) {
        if (pair(a->arr, os, 4) < 0) BAD(ACLNN_ERR_PARAM_INVALID, "aclnnAdaptiveAvgPool2dGetWorkspaceSize: outputSize must hold 2 values");
        shape[nd - 2] = os[0];
        shape[nd - 1] = os[1];
    } else {
        shape[nd - 2] = o->dims[nd - 2];
        shape[nd - 1] = o->dims[nd - 1];
        if ((rc = check_shape(d, a->x[0], nd, self->dims, "out"))) return rc;
    }
    if (shape[nd - 2] <= 0 || shape[nd - 1] <= 0 || self->dims[nd - 2] <= 0 || self->dims[nd - 1] <= 0)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: spatial sizes must be positive", d->name);
    if ((rc = check_shape(d, o, nd, shape, bwd ? "gradOutput" : "out"))) return rc;
    if (bwd) snap_all(e, a->x, 3, 0x2, 0x1);
    else snap_all(e, a->x, 2, 0x2, 0x1);
    e->ct = self->dtype;
    return 0;
}

/* per-channel operand: 1-d with C elements, the input's dtype (NULL allowed when optional) */
static aclnnStatus check_channel(const op_def *d, const aclTensor *t, int64_t c, const char *what, int optional) {
    if (!t) {
        if (optional) return 0;
        BAD(ACLNN_ERR_PARAM_NULLPTR, "aclnn%sGetWorkspaceSize: %s is NULL", d->name, what);
    }
    aclnnStatus rc = check_tensor(d, t, what, 1);
    if (rc) return rc;
    return check_shape(d, t, 1, &c, what);
}

/* BatchNorm x = {output, input, weight, bias, runningMean, runningVar, saveMean, saveInvstd}, i[0] training,
 * f = {momentum, eps}; backward x = {gradInput, gradOut, input, weight, runningMean, runningVar, saveMean,
 * saveInvstd, gradWeight, gradBias}, outputMask */
aclnnStatus v_batch_norm(const op_def *d, args *a, aclOpExecutor *e) {
    int bwd = d->flags & F_LOG, tr = a->i[0] != 0;
    const aclTensor *in = a->x[bwd ? 2 : 1], *g = a->x[bwd ? 1 : 0];
    aclnnStatus rc;
    if ((rc = check_tensor(d, in, "input", 8)) || (rc = check_same(d, g, in, bwd ? "gradOut" : "output"))) return rc;
    if (in->ndim < 2) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: input must have 2 to 8 dims", d->name);
    if ((rc = check_shape(d, g, (int)in->ndim, in->dims, bwd ? "gradOut" : "output"))) return rc;
    int64_t c = in->dims[1];
    static const char *fwd_names[8] = {0, 0, "weight", "bias", "runningMean", "runningVar", "saveMean", "saveInvstd"};
    static const char *bwd_names[10] = {0, 0, 0, "weight", "runningMean", "runningVar", "saveMean", "saveInvstd", "gradWeight", "gradBias"};
    if (!bwd) {
        for (int j = 2; j < 8; j++)
            if ((rc = check_channel(d, a->x[j], c, fwd_names[j], j < 4 || (tr && j < 6) || (!tr && j >= 6)))) return rc;
        e->p[0].f = a->f[0];
        e->p[1].f = a->f[1];
        /* training reads the running stats to update them and writes the saved ones; inference only reads them */
        snap_all(e, a->x, 8, 0x3E, tr ? 0xF1 : 0x01);
    } else {
        uint64_t nm;
        const bool *m = a->mask ? aclsim_bool_array(a->mask, &nm) : NULL;
        if (!m || nm != 3) BAD(ACLNN_ERR_PARAM_INVALID, "aclnnBatchNormBackwardGetWorkspaceSize: outputMask must be an aclBoolArray of 3");
        if (!m[0]) a->x[0] = NULL;
        if (!m[1]) a->x[8] = NULL;
        if (!m[2]) a->x[9] = NULL;
        if (m[0] && ((rc = check_same(d, a->x[0], in, "gradInput")) || (rc = check_shape(d, a->x[0], (int)in->ndim, in->dims, "gradInput")))) return rc;
        for (int j = 3; j < 10; j++)
            if ((rc = check_channel(d, a->x[j], c, bwd_names[j], j == 3 || (tr ? (j == 4 || j == 5) : (j == 6 || j == 7)) || (j >= 8 && !m[j - 7]))))
                return rc;
        e->p[1].f = a->f[1];
        snap_all(e, a->x, 10, 0xFE, 0x301);
    }
    e->ip[0] = tr;
    e->ct = in->dtype;
    return 0;
}

/* GroupNorm x = {out, self, gamma, beta, meanOut, rstdOut}; backward x = {gradInput, gradOut, input, mean, rstd,
 * gamma, gradGamma, gradBeta}, outputMask; i = {N, C}, ia-less: HxW in seed, group in offset; f[0] eps */
aclnnStatus v_group_norm(const op_def *d, args *a, aclOpExecutor *e) {
    int bwd = d->flags & F_LOG;
    const aclTensor *in = a->x[bwd ? 2 : 1], *o = a->x[bwd ? 1 : 0];
    int64_t N = a->i[0], C = a->i[1], HW = (int64_t)a->seed, G = (int64_t)a->offset;
    aclnnStatus rc;
    if ((rc = check_tensor(d, in, bwd ? "input" : "self", 8)) || (rc = check_same(d, o, in, bwd ? "gradOut" : "out"))) return rc;
    int64_t n = 1;
    for (uint32_t i = 0; i < in->ndim; i++) n *= in->dims[i];
    if (in->ndim < 2 || G <= 0 || N < 0 || C <= 0 || HW < 0 || C % G || N != in->dims[0] || C != in->dims[1] || n != N * C * HW)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: N, C, HxW and group do not describe the input", d->name);
    if ((rc = check_shape(d, o, (int)in->ndim, in->dims, bwd ? "gradOut" : "out"))) return rc;
    int64_t stat[2] = {N, G};
    if (!bwd) {
        if (a->f[0] <= 0) BAD(ACLNN_ERR_PARAM_INVALID, "aclnnGroupNormGetWorkspaceSize: eps must be > 0");
        if ((rc = check_channel(d, a->x[2], C, "gamma", 1)) || (rc = check_channel(d, a->x[3], C, "beta", 1))) return rc;
        for (int j = 4; j < 6; j++)
            if ((rc = check_same(d, a->x[j], in, j == 4 ? "meanOut" : "rstdOut")) || (rc = check_shape(d, a->x[j], 2, stat, "meanOut/rstdOut"))) return rc;
        e->p[0].f = a->f[0];
        snap_all(e, a->x, 6, 0xE, 0x31);
    } else {
        uint64_t nm;
        const bool *m = a->mask ? aclsim_bool_array(a->mask, &nm) : NULL;
        if (!m || nm != 3) BAD(ACLNN_ERR_PARAM_INVALID, "aclnnGroupNormBackwardGetWorkspaceSize: outputMask must be an aclBoolArray of 3");
        if (!m[0]) a->x[0] = NULL;
        if (!m[1]) a->x[6] = NULL;
        if (!m[2]) a->x[7] = NULL;
        for (int j = 3; j < 5; j++)
            if ((rc = check_same(d, a->x[j], in, "mean/rstd")) || (rc = check_shape(d, a->x[j], 2, stat, "mean/rstd"))) return rc;
        if (m[0] && ((rc = check_same(d, a->x[0], in, "gradInput")) || (rc = check_shape(d, a->x[0], (int)in->ndim, in->dims, "gradInput")))) return rc;
        if ((rc = check_channel(d, a->x[5], C, "gamma", 1)) || (rc = check_channel(d, a->x[6], C, "gradGammaOut", !m[1])) ||
            (rc = check_channel(d, a->x[7], C, "gradBetaOut", !m[2])))
            return rc;
        snap_all(e, a->x, 8, 0x3E, 0xC1);
    }
    int64_t ip[4] = {N, C, HW, G};
    memcpy(e->ip, ip, sizeof ip);
    e->ct = in->dtype;
    return 0;
}
