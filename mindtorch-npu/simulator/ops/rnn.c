/* libopapi, the recurrent operators: aclnnLSTM (ops-nn rnn/dynamic_rnn), aclnnLstmBackward (ops-nn
 * rnn/single_layer_lstm_grad), aclnnGRU (rnn/gru) and aclnnGRUBackward (rnn/gru_grad), by their docs' formulas. The
 * gates are PyTorch's: weight_ih / weight_hh rows and the biases are i, f, g (the docs' j), o blocks of hidden_size
 * each for the LSTM, r, z, n for the GRU (torch_npu hands nn.LSTM's and nn.GRU's parameters over as they are). The docs' layouts: without batchSizes, input is (T, B, I) or, batchFirst, (B, T, I); with batchSizes it is
 * (T * B, I) laid out as (T, B, I), step t holding batchSizes[t] valid rows, the others skipped (their state is kept,
 * their outputs are 0; the GRU docs do not support batchSizes yet, so the GRU operators refuse it). The per-step
 * activations (LSTM: iOut, jOut, fOut, oOut, hOut, cOut, tanhCOut; GRU: rOut, zOut, nOut, hnOut = W_hn h + b_hn,
 * hOut) are (T, B, H) and are what the backward reads back.
 *
 * The simulator runs one layer in one direction (numLayers = 1, bidirectional = false): the docs allow more, a
 * call asking for more is refused by name. dropout is not applied (the forward doc: 当前不支持该功能); outputMask
 * is read for its length only (the backward doc: 暂未支持). */
#include "ops_internal.h"

/* the operands, one slot each in the executor's tensor-list views (lt); the forward writes S_I..S_CY, the backward
 * reads S_X..S_TC and S_DY..S_DC and writes S_DX.. */
enum { S_X, S_WIH, S_WHH, S_BIH, S_BHH, S_H0, S_C0, S_BS, S_I, S_G, S_F, S_O, S_H, S_C, S_TC, S_Y, S_HY, S_CY,
       S_DY, S_DH, S_DC, S_DX, S_DHP, S_DCP, S_DWIH, S_DWHH, S_DBIH, S_DBHH, N_SLOTS };
/* the lists of args.lists, in the order api.c gives them */
enum { L_PARAMS, L_HX, L_I, L_G, L_F, L_O, L_H, L_C, L_TC, L_DPARAMS };
/* the GRU's per-step activations take the first five step slots */
enum { S_R = S_I, S_Z, S_N, S_HN, S_GH };
/* ip: 0 read mask, 1 write mask (bit per slot), 2 T, 3 B, 4 input size, 5 hidden size, 6 batchFirst, 7 packed */
#define SLOT(k) ((int64_t)1 << (k))

typedef struct { const op_def *d; args *a; aclOpExecutor *e; int dt, gru; } lstm_ctx;
/* the table rows' KIND: which cell an operator runs */
enum { CELL_LSTM, CELL_GRU };

static int gates(const lstm_ctx *c) { return c->gru ? 3 : 4; }

static aclnnStatus take(lstm_ctx *c, int slot, const aclTensor *t, const char *what, int n, const int64_t *shape,
                        int write) {
    const op_def *d = c->d;
    aclnnStatus rc = check_tensor(d, t, what, 8);
    if (rc) return rc;
    if (slot != S_BS && t->dtype != c->dt)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: %s dtype %s differs from input's %s (the doc: one dtype "
            "for every FLOAT16/FLOAT32 operand)", d->name, what, dtname(t->dtype), dtname(c->dt));
    if ((rc = check_shape(d, t, n, shape, what))) return rc;
    snap(&c->e->lt[slot], t);
    c->e->ip[write ? 1 : 0] |= SLOT(slot);
    return 0;
}

/* list `k` of args.lists as `n` tensors (NULL: absent) */
static aclnnStatus list_of(lstm_ctx *c, int k, const char *what, uint64_t n, const aclTensor *const **out) {
    uint64_t m = 0;
    const void *l = c->a->lists[k];
    *out = l ? aclsim_tensor_list(l, &m) : NULL;
    if (!l) BAD(ACLNN_ERR_PARAM_NULLPTR, "aclnn%sGetWorkspaceSize: %s is NULL", c->d->name, what);
    if (!*out) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: %s is not a live aclTensorList", c->d->name, what);
    if (m != n)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: %s holds %llu tensors, expected %llu", c->d->name, what,
            (unsigned long long)m, (unsigned long long)n);
    return 0;
}

/* params (or dparamsOut): [weight_ih, weight_hh(, bias_ih, bias_hh)] of one layer in one direction */
static aclnnStatus take_params(lstm_ctx *c, int k, int first, const char *what, int has_bias, int64_t in, int64_t h,
                               int write) {
    const aclTensor *const *p;
    aclnnStatus rc = list_of(c, k, what, has_bias ? 4 : 2, &p);
    if (rc) return rc;
    int64_t g = gates(c), wih[2] = {g * h, in}, whh[2] = {g * h, h}, b[1] = {g * h};
    if ((rc = take(c, first, p[0], what, 2, wih, write)) || (rc = take(c, first + 1, p[1], what, 2, whh, write)))
        return rc;
    if (has_bias && ((rc = take(c, first + 2, p[2], what, 1, b, write)) || (rc = take(c, first + 3, p[3], what, 1, b, write))))
        return rc;
    return 0;
}

/* the per-step activations (LSTM: i, g, f, o, h, c, tanh(c); GRU: r, z, n, hn, h): one (T, B, H) tensor per list */
static aclnnStatus take_steps(lstm_ctx *c, const int64_t *tbh, int write) {
    static const char *const names[2][2][7] = {
        {{"i", "g", "f", "o", "h", "c", "tanhc"}, {"iOut", "jOut", "fOut", "oOut", "hOut", "cOut", "tanhCOut"}},
        {{"r", "z", "n", "h_n", "h"}, {"rOut", "zOut", "nOut", "hnOut", "hOut"}}};
    for (int k = 0; k < (c->gru ? 5 : 7); k++) {
        const aclTensor *const *l;
        const char *what = names[c->gru][write][k];
        aclnnStatus rc = list_of(c, L_I + k, what, 1, &l);
        if (rc || (rc = take(c, S_I + k, l[0], what, 3, tbh, write))) return rc;
    }
    return 0;
}

/* input and batchSizes: T, B and the input size into ip[2..4] */
static aclnnStatus take_input(lstm_ctx *c, const aclTensor *x, const aclTensor *bs, int batch_first) {
    const op_def *d = c->d;
    aclnnStatus rc = check_tensor(d, x, "input", 3);
    if (rc) return rc;
    c->dt = x->dtype;
    int64_t T, B;
    if (bs && c->gru)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: batchSizes is not supported yet (the doc)", d->name);
    if (bs) {
        if ((rc = check_tensor(d, bs, d->flags & F_LOG ? "batchSizesOptional" : "batchSizes", 1))) return rc;
        if (bs->dtype != ACL_INT64 || bs->ndim != 1 || x->ndim != 2 || !bs->dims[0] || x->dims[0] % bs->dims[0])
            BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: with batchSizes, input must be (time_step * "
                "batch_size, input_size) and batchSizes a non-empty INT64 (time_step,)", d->name);
        T = bs->dims[0], B = x->dims[0] / T;
        snap(&c->e->lt[S_BS], bs);
        c->e->ip[0] |= SLOT(S_BS);
    } else {
        if (x->ndim != 3) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: input must be 3-d", d->name);
        T = x->dims[batch_first ? 1 : 0], B = x->dims[batch_first ? 0 : 1];
    }
    snap(&c->e->lt[S_X], x);
    c->e->ip[0] |= SLOT(S_X);
    c->e->ip[2] = T, c->e->ip[3] = B, c->e->ip[4] = x->dims[x->ndim - 1], c->e->ip[7] = bs != NULL;
    c->e->ip[6] = batch_first && !bs;
    return 0;
}

/* the (T, B, n) shape of a sequence operand: (B, T, n) batchFirst, (T * B, n) with batchSizes */
static int seq_shape(const aclOpExecutor *e, int64_t n, int64_t *s) {
    int64_t T = e->ip[2], B = e->ip[3];
    if (e->ip[7]) { s[0] = T * B, s[1] = n; return 2; }
    s[0] = e->ip[6] ? B : T, s[1] = e->ip[6] ? T : B, s[2] = n;
    return 3;
}

static aclnnStatus v_layout(lstm_ctx *c) {
    const args *a = c->a;
    if (a->i[1] != 1 || a->i[3])
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: numLayers %lld, bidirectional %d: the simulator runs "
            "one layer in one direction", c->d->name, (long long)a->i[1], (int)a->i[3]);
    return 0;
}

/* hx: absent (NULL or empty: zeros) or [h0, c0] of (1, B, H) */
static aclnnStatus take_hx(lstm_ctx *c, const int64_t *state) {
    uint64_t m = 0;
    const void *l = c->a->lists[L_HX];
    if (!l) return 0;
    const aclTensor *const *hx = aclsim_tensor_list(l, &m);
    if (!hx) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: hx is not a live aclTensorList", c->d->name);
    if (!m) return 0;
    if (m != 2) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: hx holds %llu tensors, expected 2", c->d->name,
                    (unsigned long long)m);
    aclnnStatus rc = take(c, S_H0, hx[0], "hx", 3, state, 0);
    return rc ? rc : take(c, S_C0, hx[1], "hx", 3, state, 0);
}

/* the GRU's hx: absent (forward: zeros) or (1, B, H) */
static aclnnStatus take_gru_hx(lstm_ctx *c, const aclTensor *hx, const int64_t *state, int required) {
    if (!hx && !required) return 0;
    return take(c, S_H0, hx, "hx", 3, state, 0);
}

/* params' weight_hh gives the hidden size (ip[5]) */
static aclnnStatus hidden_size(lstm_ctx *c) {
    const aclTensor *const *p;
    aclnnStatus rc = list_of(c, L_PARAMS, "params", c->a->i[0] ? 4 : 2, &p);
    if (rc || (rc = check_tensor(c->d, p[1], "params", 2))) return rc;
    if (p[1]->ndim != 2) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: weight_hh must be 2-d", c->d->name);
    c->e->ip[5] = p[1]->dims[1];
    return 0;
}

/* LSTM x = {input, batchSizes, output, hy, cy}; GRU x = {input, batchSizes, output, hy, -, hx} */
static aclnnStatus v_lstm_fwd(lstm_ctx *c) {
    args *a = c->a;
    aclOpExecutor *e = c->e;
    aclnnStatus rc;
    if ((rc = v_layout(c)) || (rc = take_input(c, a->x[0], a->x[1], (int)a->i[4])) || (rc = hidden_size(c))) return rc;
    int64_t H = e->ip[5], seq[3], state[3] = {1, e->ip[3], H}, tbh[3] = {e->ip[2], e->ip[3], H};
    if ((rc = take_params(c, L_PARAMS, S_WIH, "params", (int)a->i[0], e->ip[4], H, 0)) ||
        (rc = c->gru ? take_gru_hx(c, a->x[5], state, 0) : take_hx(c, state)))
        return rc;
    seq_shape(e, H, seq);
    /* output is (T, B, H) with batchSizes too (the doc) */
    if ((rc = take(c, S_Y, a->x[2], "output", 3, e->ip[7] ? tbh : seq, 1)) ||
        (rc = take(c, S_HY, a->x[3], "hy", 3, state, 1)) || (!c->gru && (rc = take(c, S_CY, a->x[4], "cy", 3, state, 1))))
        return rc;
    return a->i[2] ? take_steps(c, tbh, 1) : 0; /* train = false: no per-step outputs */
}

/* LSTM x = {input, batchSizesOptional, dy, dh, dc, dxOut, dhPrevOut, dcPrevOut}; GRU the same without dc and
 * dcPrevOut, x[8] hx */
static aclnnStatus v_lstm_bwd(lstm_ctx *c) {
    args *a = c->a;
    aclOpExecutor *e = c->e;
    aclnnStatus rc;
    if ((rc = v_layout(c)) || (rc = take_input(c, a->x[0], a->x[1], (int)a->i[4])) || (rc = hidden_size(c))) return rc;
    int64_t H = e->ip[5], seq[3], xs[3], state[3] = {1, e->ip[3], H}, tbh[3] = {e->ip[2], e->ip[3], H};
    int n = seq_shape(e, H, seq);
    seq_shape(e, e->ip[4], xs);
    uint64_t masked = 0;
    if (a->mask && (!aclsim_bool_array(a->mask, &masked) || masked != 4))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: outputMask must be an aclBoolArray of 4", c->d->name);
    if ((rc = take_params(c, L_PARAMS, S_WIH, "params", (int)a->i[0], e->ip[4], H, 0)) ||
        (rc = c->gru ? take_gru_hx(c, a->x[8], state, 1) : take_hx(c, state)) ||
        (rc = take(c, S_DY, a->x[2], "dy", n, seq, 0)) || (rc = take(c, S_DH, a->x[3], "dh", 3, state, 0)) ||
        (!c->gru && (rc = take(c, S_DC, a->x[4], "dc", 3, state, 0))) || (rc = take_steps(c, tbh, 0)) ||
        (rc = take(c, S_DX, a->x[5], "dxOut", n, xs, 1)) || (rc = take(c, S_DHP, a->x[6], "dhPrevOut", 3, state, 1)) ||
        (!c->gru && (rc = take(c, S_DCP, a->x[7], "dcPrevOut", 3, state, 1))) ||
        (rc = take_params(c, L_DPARAMS, S_DWIH, "dparamsOut", (int)a->i[0], e->ip[4], H, 1)))
        return rc;
    return 0;
}

aclnnStatus v_lstm(const op_def *d, args *a, aclOpExecutor *e) {
    e->lt = calloc(N_SLOTS, sizeof *e->lt);
    e->nlt = N_SLOTS;
    lstm_ctx c = {d, a, e, ACL_FLOAT, KIND_OF(d->flags) == CELL_GRU};
    aclnnStatus rc = d->flags & F_LOG ? v_lstm_bwd(&c) : v_lstm_fwd(&c);
    e->ct = c.dt;
    e->ip[8] = c.gru;
    return rc;
}

/* ---------------------------------------------------------------- the kernel */
static double sigm(double v) { return 1 / (1 + exp(-v)); }

/* row of (t, b) in a sequence operand of the layout ip[6] / ip[7] say */
static int64_t seq_row(const aclOpExecutor *e, int64_t t, int64_t b) {
    return e->ip[6] ? b * e->ip[2] + t : t * e->ip[3] + b;
}

/* how many rows step t holds: batchSizes[t], or B */
static int64_t valid(const aclOpExecutor *e, double *const *x, int64_t t) {
    return e->ip[7] ? (int64_t)x[S_BS][t] : e->ip[3];
}

static void lstm_forward(const aclOpExecutor *e, double **x) {
    int64_t T = e->ip[2], B = e->ip[3], I = e->ip[4], H = e->ip[5];
    double *h = calloc((size_t)nz(B * H), sizeof *h), *c = calloc((size_t)nz(B * H), sizeof *c);
    double *gate = malloc(sizeof *gate * (size_t)nz(4 * H));
    if (x[S_H0]) memcpy(h, x[S_H0], sizeof *h * (size_t)(B * H)), memcpy(c, x[S_C0], sizeof *c * (size_t)(B * H));
    for (int64_t t = 0; t < T; t++) {
        int64_t n = valid(e, x, t);
        for (int64_t b = 0; b < n; b++) {
            const double *xt = x[S_X] + seq_row(e, t, b) * I;
            double *hb = h + b * H, *cb = c + b * H;
            for (int64_t r = 0; r < 4 * H; r++) {
                double s = (x[S_BIH] ? x[S_BIH][r] + x[S_BHH][r] : 0);
                for (int64_t k = 0; k < I; k++) s += x[S_WIH][r * I + k] * xt[k];
                for (int64_t k = 0; k < H; k++) s += x[S_WHH][r * H + k] * hb[k];
                gate[r] = r >= 2 * H && r < 3 * H ? tanh(s) : sigm(s);
            }
            int64_t at = (t * B + b) * H, y = seq_row(e, t, b) * H;
            for (int64_t k = 0; k < H; k++) {
                double i = gate[k], f = gate[H + k], g = gate[2 * H + k], o = gate[3 * H + k];
                cb[k] = f * cb[k] + i * g;
                double tc = tanh(cb[k]);
                hb[k] = o * tc;
                x[S_Y][y + k] = hb[k];
                if (x[S_I]) {
                    x[S_I][at + k] = i, x[S_G][at + k] = g, x[S_F][at + k] = f, x[S_O][at + k] = o;
                    x[S_H][at + k] = hb[k], x[S_C][at + k] = cb[k], x[S_TC][at + k] = tc;
                }
            }
        }
    }
    memcpy(x[S_HY], h, sizeof *h * (size_t)(B * H));
    memcpy(x[S_CY], c, sizeof *c * (size_t)(B * H));
    free(h), free(c), free(gate);
}

/* one step's share of the gradients from its gate gradients, `gates` blocks of H: the input side's (d_in) into dx
 * (W_ih^T d_in), dW_ih and db_ih, the hidden side's (d_hid) into dW_hh (against h_prev; none at a zero initial
 * state), db_hh and dh (+= W_hh^T d_hid) */
static void step_gradients(const aclOpExecutor *e, double **x, int64_t gates, int64_t row, const double *hp,
                           const double *d_in, const double *d_hid, double *dh) {
    int64_t I = e->ip[4], H = e->ip[5];
    const double *xt = x[S_X] + row * I;
    double *dx = x[S_DX] + row * I;
    for (int64_t k = 0; k < I; k++) dx[k] = 0;
    for (int64_t r = 0; r < gates * H; r++) {
        for (int64_t k = 0; k < I; k++) dx[k] += d_in[r] * x[S_WIH][r * I + k], x[S_DWIH][r * I + k] += d_in[r] * xt[k];
        for (int64_t k = 0; k < H; k++) {
            dh[k] += d_hid[r] * x[S_WHH][r * H + k];
            if (hp) x[S_DWHH][r * H + k] += d_hid[r] * hp[k];
        }
        if (x[S_DBIH]) x[S_DBIH][r] += d_in[r], x[S_DBHH][r] += d_hid[r];
    }
}

static void lstm_backward(const aclOpExecutor *e, double **x) {
    int64_t T = e->ip[2], B = e->ip[3], H = e->ip[5];
    double *dh = x[S_DHP], *dc = x[S_DCP], *dg = malloc(sizeof *dg * (size_t)nz(4 * H));
    memcpy(dh, x[S_DH], sizeof *dh * (size_t)(B * H));
    memcpy(dc, x[S_DC], sizeof *dc * (size_t)(B * H));
    for (int64_t t = T - 1; t >= 0; t--) {
        int64_t n = valid(e, x, t);
        for (int64_t b = 0; b < n; b++) {
            int64_t at = (t * B + b) * H, prev = ((t - 1) * B + b) * H, row = seq_row(e, t, b);
            const double *hp = t ? x[S_H] + prev : x[S_H0] ? x[S_H0] + b * H : NULL;
            const double *cp = t ? x[S_C] + prev : x[S_C0] ? x[S_C0] + b * H : NULL;
            double *dhb = dh + b * H, *dcb = dc + b * H;
            for (int64_t k = 0; k < H; k++) {
                double i = x[S_I][at + k], g = x[S_G][at + k], f = x[S_F][at + k], o = x[S_O][at + k];
                double tc = x[S_TC][at + k], dht = dhb[k] + x[S_DY][row * H + k];
                double dct = dht * o * (1 - tc * tc) + dcb[k];
                dg[k] = dct * g * i * (1 - i);
                dg[H + k] = dct * (cp ? cp[k] : 0) * f * (1 - f);
                dg[2 * H + k] = dct * i * (1 - g * g);
                dg[3 * H + k] = dht * tc * o * (1 - o);
                dcb[k] = dct * f;
            }
            for (int64_t k = 0; k < H; k++) dhb[k] = 0;
            step_gradients(e, x, 4, row, hp, dg, dg, dhb);
        }
    }
    free(dg);
}

/* r, z, n = sigma, sigma, tanh of the input projection plus (for n: r times) the hidden one, h = n + z (h - n) */
static void gru_forward(const aclOpExecutor *e, double **x) {
    int64_t T = e->ip[2], B = e->ip[3], I = e->ip[4], H = e->ip[5];
    double *h = calloc((size_t)nz(B * H), sizeof *h), *gi = malloc(sizeof *gi * (size_t)nz(3 * H));
    double *gh = malloc(sizeof *gh * (size_t)nz(3 * H));
    if (x[S_H0]) memcpy(h, x[S_H0], sizeof *h * (size_t)(B * H));
    for (int64_t t = 0; t < T; t++)
        for (int64_t b = 0; b < B; b++) {
            const double *xt = x[S_X] + seq_row(e, t, b) * I;
            double *hb = h + b * H;
            for (int64_t r = 0; r < 3 * H; r++) {
                gi[r] = x[S_BIH] ? x[S_BIH][r] : 0, gh[r] = x[S_BHH] ? x[S_BHH][r] : 0;
                for (int64_t k = 0; k < I; k++) gi[r] += x[S_WIH][r * I + k] * xt[k];
                for (int64_t k = 0; k < H; k++) gh[r] += x[S_WHH][r * H + k] * hb[k];
            }
            int64_t at = (t * B + b) * H, y = seq_row(e, t, b) * H;
            for (int64_t k = 0; k < H; k++) {
                double r = sigm(gi[k] + gh[k]), z = sigm(gi[H + k] + gh[H + k]);
                double n = tanh(gi[2 * H + k] + r * gh[2 * H + k]);
                hb[k] = n + z * (hb[k] - n);
                x[S_Y][y + k] = hb[k];
                if (x[S_R]) {
                    x[S_R][at + k] = r, x[S_Z][at + k] = z, x[S_N][at + k] = n, x[S_HN][at + k] = gh[2 * H + k];
                    x[S_GH][at + k] = hb[k];
                }
            }
        }
    memcpy(x[S_HY], h, sizeof *h * (size_t)(B * H));
    free(h), free(gi), free(gh);
}

/* aclnnGRUBackward.md's formulas: dz = dh (h_prev - n) z (1 - z), dn = dh (1 - z) (1 - n^2), dr = dn hn r (1 - r);
 * the input side takes (dr, dz, dn), the hidden side (dr, dz, dn r); dh_prev = W_hh^T (hidden side) + dh z */
static void gru_backward(const aclOpExecutor *e, double **x) {
    int64_t T = e->ip[2], B = e->ip[3], H = e->ip[5];
    double *dh = x[S_DHP], *di = malloc(sizeof *di * (size_t)nz(3 * H)), *dhh = malloc(sizeof *dhh * (size_t)nz(3 * H));
    memcpy(dh, x[S_DH], sizeof *dh * (size_t)(B * H));
    for (int64_t t = T - 1; t >= 0; t--)
        for (int64_t b = 0; b < B; b++) {
            int64_t at = (t * B + b) * H, row = seq_row(e, t, b);
            const double *hp = t ? x[S_GH] + ((t - 1) * B + b) * H : x[S_H0] ? x[S_H0] + b * H : NULL;
            double *dhb = dh + b * H;
            for (int64_t k = 0; k < H; k++) {
                double r = x[S_R][at + k], z = x[S_Z][at + k], n = x[S_N][at + k], hn = x[S_HN][at + k];
                double d = dhb[k] + x[S_DY][row * H + k], prev = hp ? hp[k] : 0;
                double dn = d * (1 - z) * (1 - n * n);
                di[k] = dn * hn * r * (1 - r), di[H + k] = d * (prev - n) * z * (1 - z), di[2 * H + k] = dn;
                dhh[k] = di[k], dhh[H + k] = di[H + k], dhh[2 * H + k] = dn * r;
                dhb[k] = d * z;
            }
            step_gradients(e, x, 3, row, hp, di, dhh, dhb);
        }
    free(di), free(dhh);
}

/* batchSizes as the docs ask: non-increasing, positive, at most B, the first B (read at launch: they are device data) */
static int check_batch_sizes(const aclOpExecutor *e, double *const *x, const char *op, char *msg, size_t len) {
    for (int64_t t = 0; e->ip[7] && t < e->ip[2]; t++) {
        double v = x[S_BS][t];
        if (v < 1 || v > (double)e->ip[3] || (t && v > x[S_BS][t - 1]) || (!t && v != (double)e->ip[3])) {
            snprintf(msg, len, "aclnn%s: batchSizes must be positive, non-increasing, at most and first equal to the batch %lld",
                     op, (long long)e->ip[3]);
            return ACL_ERROR_RT_AICORE_EXCEPTION;
        }
    }
    return 0;
}

int k_lstm(aclOpExecutor *e, int dev, char *ws, char *msg, size_t len) {
    (void)ws;
    const op_def *d = e->def;
    char *base[N_SLOTS] = {0};
    double *x[N_SLOTS] = {0};
    int rc = 0;
    for (int j = 0; j < N_SLOTS && !rc; j++) {
        const tview *v = &e->lt[j];
        if (!v->src) continue;
        if ((rc = map_view(v, dev, &base[j], d->name, j, msg, len))) break;
        x[j] = calloc((size_t)nz(numel(v)), sizeof(double));
        if (!x[j]) { snprintf(msg, len, "aclnn%s: out of host memory", d->name); rc = ACL_ERROR_RT_MEMORY_ALLOCATION; break; }
        if (e->ip[0] >> j & 1) walk(v, base[j], x[j], 0);
    }
    if (!rc) rc = check_batch_sizes(e, x, d->name, msg, len);
    if (!rc) {
        void (*run)(const aclOpExecutor *, double **) =
            e->ip[8] ? (d->flags & F_LOG ? gru_backward : gru_forward) : (d->flags & F_LOG ? lstm_backward : lstm_forward);
        run(e, x);
        for (int j = 0; j < N_SLOTS; j++)
            if (e->ip[1] >> j & 1 && base[j]) walk(&e->lt[j], base[j], x[j], 1);
    }
    for (int j = 0; j < N_SLOTS; j++) free(x[j]);
    return rc;
}
