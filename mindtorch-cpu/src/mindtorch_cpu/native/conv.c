/* Convolution (forward, input gradient, weight gradient) as register-tiled products (included by
 * kernels.c, after pool.c).
 *
 * A product C (M x N) = A (M x K) @ B (K x N) runs as tiles of CV_MR x CV_NR outputs kept in vector
 * registers over the whole of K: A packed as blocks of CV_MR rows ([K][CV_MR] each, zero past its
 * edge), B as K rows of CV_NR floats, so every tile step is two vector loads, CV_MR broadcasts and
 * 2 CV_MR fused multiply-adds. A general BLAS packs the same way but pays, per call, for shapes it
 * cannot know; a convolution's products have a small side (the channels) that these tiles fit.
 *
 * At stride 1 no columns are made: B's rows are read in place from a zero-padded copy of each image
 * (see cv_direct), the input gradient is that forward on the output's gradient, and the weight
 * gradient is dot products of the gradient's rows with the same padded rows. At other strides the
 * forward unfolds (im2col) one panel of CV_NR positions at a time, and the input gradient folds its
 * columns back (col2im) a panel at a time: no whole column matrix is ever stored.
 *
 * Geometry (cv_geo, passed as 15 int64): images, channels, height, width, out channels, out height,
 * out width, kernel height and width, strides, top and left padding, dilations. */
#include <stdlib.h>

#if defined(__AVX512F__)
#define CV_VW 16 /* floats per vector */
#define CV_MR 8  /* tile rows: 2 CV_MR accumulators + 3 working vectors fit the 32 registers */
#elif defined(__AVX__)
#define CV_VW 8
#define CV_MR 6 /* 12 accumulators of 16 registers */
#else
#define CV_VW 4
#define CV_MR 6
#endif
#define CV_NR (2 * CV_VW) /* tile columns */

typedef float cv_vec __attribute__((vector_size(CV_VW * sizeof(float))));

typedef struct {
    i64 n, c, h, w, o, ho, wo, kh, kw, sh, sw, ph, pw, dh, dw;
} cv_geo;

static inline i64 cv_min(i64 a, i64 b) { return a < b ? a : b; }

/* acc = the tile (CV_MR x CV_NR) of ap (k x CV_MR, packed) times k rows of CV_NR floats: row p at
 * base + koff[p], or with koff NULL at base + p * CV_NR (a packed panel) */
static inline __attribute__((always_inline)) void cv_tile(i64 k, const float *restrict ap,
                                                          const float *restrict base, const i64 *koff,
                                                          cv_vec acc[CV_MR][2]) {
#pragma GCC unroll 16
    for (int m = 0; m < CV_MR; m++) acc[m][0] = acc[m][1] = (cv_vec){0};
    for (i64 p = 0; p < k; p++, ap += CV_MR) {
        const float *bp = koff ? base + koff[p] : base + p * CV_NR;
        cv_vec b0, b1;
        memcpy(&b0, bp, sizeof b0);
        memcpy(&b1, bp + CV_VW, sizeof b1);
#pragma GCC unroll 16
        for (int m = 0; m < CV_MR; m++) {
            float a = ap[m];
            acc[m][0] += a * b0;
            acc[m][1] += a * b1;
        }
    }
}

/* c (rows x cols, row stride ldc) = acc's first rows and cols, plus c itself when `add`, plus bias[row]
 * when bias is not NULL (added after the sum, as a separate bias add rounds) */
static inline __attribute__((always_inline)) void cv_store(cv_vec acc[CV_MR][2], float *c, i64 ldc, i64 rows,
                                                           i64 cols, int add, const float *bias) {
    if (rows == CV_MR && cols == CV_NR) {
#pragma GCC unroll 16
        for (int m = 0; m < CV_MR; m++) {
            cv_vec v0 = acc[m][0], v1 = acc[m][1];
            float *cm = c + m * ldc;
            if (add) {
                cv_vec c0, c1;
                memcpy(&c0, cm, sizeof c0);
                memcpy(&c1, cm + CV_VW, sizeof c1);
                v0 += c0;
                v1 += c1;
            }
            if (bias) {
                v0 += bias[m];
                v1 += bias[m];
            }
            memcpy(cm, &v0, sizeof v0);
            memcpy(cm + CV_VW, &v1, sizeof v1);
        }
        return;
    }
    float t[CV_MR][CV_NR];
    memcpy(t, acc, sizeof t);
    for (i64 m = 0; m < rows; m++)
        for (i64 q = 0; q < cols; q++) {
            float v = t[m][q];
            if (add) v += c[m * ldc + q];
            if (bias) v += bias[m];
            c[m * ldc + q] = v;
        }
}

/* ap = the packed blocks of A (m x k), A[r][p] at a[r * rs + p * ps]: ceil(m / CV_MR) blocks of
 * [k][CV_MR], rows past m zero */
static void cv_pack_a(const float *a, i64 rs, i64 ps, i64 m, i64 k, float *restrict ap) {
    for (i64 r0 = 0; r0 < m; r0 += CV_MR, ap += k * CV_MR)
        for (i64 p = 0; p < k; p++)
            for (i64 r = 0; r < CV_MR; r++) ap[p * CV_MR + r] = r0 + r < m ? a[(r0 + r) * rs + p * ps] : 0.0f;
}

/* The unfolded columns of one image for the positions [p0, p0 + np): element (row kk = (ch, i, j),
 * position p0 + q) is written to (scatter = 0) or added from (scatter = 1) buf[kk * CV_NR + q].
 * Positions are walked as runs along one output row. */
static void cv_unfold(const cv_geo *g, const float *xn, float *dxn, i64 p0, i64 np, float *buf, int scatter) {
    for (i64 q = 0; q < np;) {
        i64 p = p0 + q, oy = p / g->wo, ox0 = p % g->wo, len = cv_min(np - q, g->wo - ox0);
        i64 kk = 0;
        for (i64 ch = 0; ch < g->c; ch++)
            for (i64 i = 0; i < g->kh; i++) {
                i64 ih = oy * g->sh - g->ph + i * g->dh;
                int inside = ih >= 0 && ih < g->h;
                i64 plane = (ch * g->h + ih) * g->w;
                for (i64 j = 0; j < g->kw; j++, kk++) {
                    float *row = buf + kk * CV_NR + q; /* row[ox - ox0]: position ox of the run */
                    i64 off = j * g->dw - g->pw, lo = 0, hi = 0; /* input column ox * sw + off */
                    if (inside) {
                        tap_range(off, g->sw, g->w, g->wo, &lo, &hi);
                        lo = lo < ox0 ? ox0 : lo > ox0 + len ? ox0 + len : lo; /* [lo, hi) within the run */
                        hi = hi > ox0 + len ? ox0 + len : hi;
                        if (hi < lo) hi = lo;
                    } else
                        lo = hi = ox0;
                    if (scatter) {
                        float *dst = dxn + plane + off;
                        for (i64 ox = lo; ox < hi; ox++) dst[ox * g->sw] += row[ox - ox0];
                        continue;
                    }
                    const float *src = xn + plane + off;
                    for (i64 ox = ox0; ox < lo; ox++) row[ox - ox0] = 0.0f;
                    for (i64 ox = lo; ox < hi; ox++) row[ox - ox0] = src[ox * g->sw];
                    for (i64 ox = hi; ox < ox0 + len; ox++) row[ox - ox0] = 0.0f;
                }
            }
        q += len;
    }
}

/* ---- forward: y (n, o, L) = w (o, K) @ unfold(x) + bias; units of the pool: (image, column panel) ---- */
typedef struct {
    const cv_geo *g;
    const float *x, *wp, *bias;
    float *y;
    i64 K, L, panels;
    int failed;
} cv_ctx;

static void cv_forward_chunk(const void *c, int k, i64 lo, i64 hi) {
    (void)k;
    cv_ctx *t = (cv_ctx *)c;
    const cv_geo *g = t->g;
    float *bp = malloc((size_t)(t->K * CV_NR) * sizeof(float));
    if (!bp) {
        t->failed = 1;
        return;
    }
    for (i64 u = lo; u < hi; u++) {
        i64 img = u / t->panels, p0 = (u % t->panels) * CV_NR, np = cv_min(CV_NR, t->L - p0);
        if (np < CV_NR) memset(bp, 0, (size_t)(t->K * CV_NR) * sizeof(float));
        cv_unfold(g, t->x + img * g->c * g->h * g->w, NULL, p0, np, bp, 0);
        float *yn = t->y + img * g->o * t->L + p0;
        for (i64 r0 = 0; r0 < g->o; r0 += CV_MR) {
            cv_vec acc[CV_MR][2];
            cv_tile(t->K, t->wp + r0 * t->K, bp, NULL, acc);
            cv_store(acc, yn + r0 * t->L, t->L, cv_min(CV_MR, g->o - r0), np, 0, t->bias ? t->bias + r0 : NULL);
        }
    }
    free(bp);
}

/* ---- forward at stride 1, without unfolding: each image is copied once into a zero-padded plane of
 * hp x wp (hp = ho + (kh - 1) dh, wp = wo + (kw - 1) dw), and the outputs are computed over positions
 * p = oy * wp + ox of that width. Then row kk = (ch, i, j) of the column matrix is the padded image
 * itself read from offset (ch * hp + i dh) * wp + j dw: a tile reads its B rows in place. The outputs
 * with ox >= wo are computed and dropped (a (kw - 1) dw / wp share of the work). ---- */
typedef struct {
    const cv_geo *g;
    const float *x, *wp, *bias;
    float *y, *xp; /* xp: the padded images, each of `plane` floats (zero slack included) */
    const i64 *koff;
    i64 K, hp, wpad, plane, panels;
} cv_direct_ctx;

/* the padded copy of images [lo, hi): x at row ph, column pw of the plane (either may be negative:
 * rows and columns outside the plane are dropped) */
static void cv_pad_chunk(const void *c, int k, i64 lo, i64 hi) {
    (void)k;
    const cv_direct_ctx *t = c;
    const cv_geo *g = t->g;
    for (i64 img = lo; img < hi; img++) {
        float *dst = t->xp + img * t->plane;
        const float *src = t->x + img * g->c * g->h * g->w;
        memset(dst, 0, (size_t)t->plane * sizeof(float));
        i64 x0 = g->pw < 0 ? -g->pw : 0, x1 = cv_min(g->w, t->wpad - g->pw);
        for (i64 ch = 0; ch < g->c; ch++)
            for (i64 r = 0; r < g->h; r++) {
                i64 pr = r + g->ph;
                if (pr < 0 || pr >= t->hp || x1 <= x0) continue;
                memcpy(dst + (ch * t->hp + pr) * t->wpad + g->pw + x0, src + (ch * g->h + r) * g->w + x0,
                       (size_t)(x1 - x0) * sizeof(float));
            }
    }
}

static void cv_direct_chunk(const void *c, int k, i64 lo, i64 hi) {
    (void)k;
    const cv_direct_ctx *t = c;
    const cv_geo *g = t->g;
    i64 L = g->ho * g->wo;
    for (i64 u = lo; u < hi; u++) {
        i64 img = u / t->panels, p0 = (u % t->panels) * CV_NR;
        const float *base = t->xp + img * t->plane + p0;
        float *yn = t->y + img * g->o * L;
        for (i64 r0 = 0; r0 < g->o; r0 += CV_MR) {
            cv_vec acc[CV_MR][2];
            float tile[CV_MR][CV_NR];
            i64 rows = cv_min(CV_MR, g->o - r0);
            cv_tile(t->K, t->wp + r0 * t->K, base, t->koff, acc);
            cv_store(acc, &tile[0][0], CV_NR, CV_MR, CV_NR, 0, NULL);
            /* the tile's positions, as runs along output rows */
            for (i64 q = 0; q < CV_NR;) {
                i64 p = p0 + q, oy = p / t->wpad, ox = p % t->wpad;
                i64 len = cv_min(CV_NR - q, t->wpad - ox);
                if (oy >= g->ho) break;
                i64 n = ox < g->wo ? cv_min(len, g->wo - ox) : 0;
                for (i64 m = 0; m < rows && n > 0; m++) {
                    float *dst = yn + (r0 + m) * L + oy * g->wo + ox;
                    const float *src = &tile[m][q];
                    if (t->bias)
                        for (i64 e = 0; e < n; e++) dst[e] = src[e] + t->bias[r0 + m];
                    else
                        memcpy(dst, src, (size_t)n * sizeof(float));
                }
                q += len;
            }
        }
    }
}

/* t's padded images of x (on the pool) and the column rows' offsets koff; -1 when there is no memory
 * for them. The plane's zero slack covers the reads past its rows: the forward's last panel, up to
 * CV_NR - 1 + (kw - 1) dw floats, and the weight gradient's flat rows, up to CV_VW - 1 + (kw - 1) dw. */
static i64 cv_padded(cv_direct_ctx *t, const cv_geo *g, const float *x, int threads) {
    i64 hp = g->ho + (g->kh - 1) * g->dh, wpad = g->wo + (g->kw - 1) * g->dw, K = g->c * g->kh * g->kw;
    i64 plane = g->c * hp * wpad + CV_NR + (g->kw - 1) * g->dw + wpad;
    float *xp = malloc((size_t)(g->n * plane) * sizeof(float));
    i64 *koff = malloc((size_t)K * sizeof(i64));
    if (!xp || !koff) {
        free(xp);
        free(koff);
        return -1;
    }
    for (i64 ch = 0, kk = 0; ch < g->c; ch++)
        for (i64 i = 0; i < g->kh; i++)
            for (i64 j = 0; j < g->kw; j++) koff[kk++] = (ch * hp + i * g->dh) * wpad + j * g->dw;
    *t = (cv_direct_ctx){.g = g, .x = x, .xp = xp, .koff = koff, .K = K, .hp = hp, .wpad = wpad, .plane = plane};
    pool_run(cv_pad_chunk, t, g->n, threads);
    return 0;
}

static void cv_padded_free(cv_direct_ctx *t) {
    free(t->xp);
    free((void *)t->koff);
}

static i64 cv_direct(const cv_geo *g, const float *x, const float *wp, const float *bias, float *y, int threads) {
    cv_direct_ctx t;
    if (cv_padded(&t, g, x, threads) < 0) return -1;
    t.wp = wp;
    t.bias = bias;
    t.y = y;
    t.panels = (g->ho * t.wpad + CV_NR - 1) / CV_NR;
    pool_run(cv_direct_chunk, &t, g->n * t.panels, threads);
    cv_padded_free(&t);
    return 0;
}

/* y (n, o, ho, wo) = x (n, c, h, w) convolved with w (o, c, kh, kw), plus bias (o, or NULL). The
 * padding is given by its top and left sizes; at stride 1 they may be negative (rows and columns cut
 * off). Returns -1 when scratch memory could not be had (y is then incomplete), else 0. */
MT_API i64 mt_conv2d_f32(const float *x, const float *w, const float *bias, float *y, const i64 *geo, int threads) {
    const cv_geo *g = (const cv_geo *)geo;
    i64 K = g->c * g->kh * g->kw, L = g->ho * g->wo;
    float *wp = malloc((size_t)(((g->o + CV_MR - 1) / CV_MR) * CV_MR * K) * sizeof(float));
    if (!wp) return -1;
    cv_pack_a(w, K, 1, g->o, K, wp);
    i64 status = 0;
    if (g->sh == 1 && g->sw == 1)
        status = cv_direct(g, x, wp, bias, y, threads);
    else {
        cv_ctx t = {.g = g, .x = x, .wp = wp, .bias = bias, .y = y, .K = K, .L = L, .panels = (L + CV_NR - 1) / CV_NR};
        pool_run(cv_forward_chunk, &t, g->n * t.panels, threads);
        status = t.failed ? -1 : 0;
    }
    free(wp);
    return status;
}

/* ---- input gradient: dx = fold(w.T (K, o) @ gy (o, L)), one column panel at a time; units: images ---- */
static void cv_input_chunk(const void *c, int k, i64 lo, i64 hi) {
    (void)k;
    cv_ctx *t = (cv_ctx *)c;
    const cv_geo *g = t->g;
    float *bp = malloc((size_t)((g->o + t->K) * CV_NR) * sizeof(float)), *cols = bp + g->o * CV_NR;
    if (!bp) {
        t->failed = 1;
        return;
    }
    for (i64 img = lo; img < hi; img++) {
        float *dxn = t->y + img * g->c * g->h * g->w;
        const float *gn = t->x + img * g->o * t->L;
        memset(dxn, 0, (size_t)(g->c * g->h * g->w) * sizeof(float));
        for (i64 p0 = 0; p0 < t->L; p0 += CV_NR) {
            i64 np = cv_min(CV_NR, t->L - p0);
            for (i64 r = 0; r < g->o; r++) {
                memcpy(bp + r * CV_NR, gn + r * t->L + p0, (size_t)np * sizeof(float));
                memset(bp + r * CV_NR + np, 0, (size_t)(CV_NR - np) * sizeof(float));
            }
            for (i64 r0 = 0; r0 < t->K; r0 += CV_MR) {
                cv_vec acc[CV_MR][2];
                cv_tile(g->o, t->wp + r0 * g->o, bp, NULL, acc);
                cv_store(acc, cols + r0 * CV_NR, CV_NR, cv_min(CV_MR, t->K - r0), CV_NR, 0, NULL);
            }
            cv_unfold(g, NULL, dxn, p0, np, cols, 1);
        }
    }
    free(bp);
}

/* dx (n, c, h, w) from gy (n, o, ho, wo) and w (o, c, kh, kw); -1 when scratch memory could not be had.
 * At stride 1 with at least a tile's rows of input channels that is the forward of gy with w's taps
 * flipped and its channels swapped (the padding becomes (kh - 1) dh - ph, possibly negative); else the
 * columns are made a panel at a time and folded back. */
MT_API i64 mt_conv2d_input_f32(const float *gy, const float *w, float *dx, const i64 *geo, int threads) {
    const cv_geo *g = (const cv_geo *)geo;
    i64 K = g->c * g->kh * g->kw, L = g->ho * g->wo, taps = g->kh * g->kw;
    if (g->sh == 1 && g->sw == 1 && g->c >= CV_MR) {
        float *wf = malloc((size_t)(g->o * K) * sizeof(float));
        if (!wf) return -1;
        for (i64 r = 0; r < g->o; r++)
            for (i64 ch = 0; ch < g->c; ch++)
                for (i64 t = 0; t < taps; t++) wf[(ch * g->o + r) * taps + taps - 1 - t] = w[(r * g->c + ch) * taps + t];
        cv_geo back = {g->n, g->o, g->ho, g->wo, g->c, g->h, g->w, g->kh, g->kw, 1, 1,
                       (g->kh - 1) * g->dh - g->ph, (g->kw - 1) * g->dw - g->pw, g->dh, g->dw};
        i64 status = mt_conv2d_f32(gy, wf, NULL, dx, (const i64 *)&back, threads);
        free(wf);
        return status;
    }
    float *wp = malloc((size_t)(((K + CV_MR - 1) / CV_MR) * CV_MR * g->o) * sizeof(float));
    if (!wp) return -1;
    cv_pack_a(w, 1, K, K, g->o, wp); /* A = w.T: row kk, column r at w[r * K + kk] */
    cv_ctx t = {.g = g, .x = gy, .wp = wp, .y = dx, .K = K, .L = L};
    pool_run(cv_input_chunk, &t, g->n, threads);
    free(wp);
    return t.failed ? -1 : 0;
}

/* ---- weight gradient at stride 1: dw[r][kk] = the sum over images and output positions (oy, ox) of
 * gy[r][oy][ox] * padded[koff[kk] + oy * wp + ox], as dot products along each output row (vectors
 * over ox, a short last vector filled with zeros), CV_WO rows of dw by CV_WK of its columns at a time;
 * units: images, each chunk summing into its own (o, K) part, the parts added in chunk order ---- */
#if defined(__AVX512F__)
#define CV_WO 4 /* 24 accumulators, 4 gradient vectors and the input's fit the 32 registers */
#define CV_WK 6
#else
#define CV_WO 3
#define CV_WK 3
#endif

typedef struct {
    cv_direct_ctx d;
    const float *gy;
    cv_vec *part; /* per chunk: o * K vectors of partial sums (added across only at the end) */
} cv_weight_ctx;

/* the first n (< CV_VW) floats at p, the rest zero */
static inline cv_vec cv_load_part(const float *p, i64 n) {
    float f[CV_VW] = {0};
    memcpy(f, p, (size_t)n * sizeof(float));
    cv_vec v;
    memcpy(&v, f, sizeof v);
    return v;
}

/* acc[m][j] += gv[m] * the vector at xr[j] + xo (or its first n floats, when n < CV_VW) */
static inline __attribute__((always_inline)) void cv_weight_step(cv_vec acc[CV_WO][CV_WK], const cv_vec gv[CV_WO],
                                                                 const float *const xr[CV_WK], i64 xo, i64 n) {
#pragma GCC unroll 32
    for (int j = 0; j < CV_WK; j++) {
        cv_vec xv;
        if (n == CV_VW)
            memcpy(&xv, xr[j] + xo, sizeof xv);
        else
            xv = cv_load_part(xr[j] + xo, n);
#pragma GCC unroll 32
        for (int m = 0; m < CV_WO; m++) acc[m][j] += gv[m] * xv;
    }
}

static inline __attribute__((always_inline)) float cv_hsum(cv_vec v) {
    float s = 0.0f;
    for (int e = 0; e < CV_VW; e++) s += v[e];
    return s;
}

/* One image's gradient rows for the weight gradient: `rows` (o rows of `ld` floats) and its padded input
 * `xp`. With `flat` the rows are laid out over the padded width (zero at ox >= wo and past the last
 * row): one run of whole vectors, the input read at the same positions; else they are the gradient
 * itself and each output row is a run of its own. */
typedef struct {
    const float *rows, *xp;
    i64 ld, flat;
} cv_weight_image;

/* part[r][kk] += the dot products' vectors for gradient rows r0 .. and columns kk0 .. over a group of
 * images (the partial sums stay in registers across the group) */
static void cv_weight_tile(const cv_direct_ctx *t, const cv_weight_image *im, i64 count, i64 r0, i64 kk0,
                           cv_vec *part) {
    const cv_geo *g = t->g;
    cv_vec acc[CV_WO][CV_WK];
#pragma GCC unroll 32
    for (int m = 0; m < CV_WO; m++)
#pragma GCC unroll 32
        for (int j = 0; j < CV_WK; j++) acc[m][j] = (cv_vec){0};
    for (i64 e = 0; e < count; e++) {
        const float *gr[CV_WO], *xr[CV_WK];
        for (int m = 0; m < CV_WO; m++) gr[m] = im[e].rows + (r0 + m < g->o ? r0 + m : r0) * im[e].ld; /* past o: repeats */
        for (int j = 0; j < CV_WK; j++) xr[j] = im[e].xp + t->koff[kk0 + j < t->K ? kk0 + j : kk0];
        cv_vec gv[CV_WO];
        i64 rows = im[e].flat ? 1 : g->ho, len = im[e].flat ? im[e].ld : g->wo;
        i64 full = len / CV_VW * CV_VW, tail = len - full;
        for (i64 oy = 0; oy < rows; oy++) /* whole vectors first: a short one in the loop spills acc */
            for (i64 ox = 0; ox < full; ox += CV_VW) {
#pragma GCC unroll 32
                for (int m = 0; m < CV_WO; m++) memcpy(&gv[m], gr[m] + oy * g->wo + ox, sizeof gv[m]);
                cv_weight_step(acc, gv, xr, oy * t->wpad + ox, CV_VW);
            }
        for (i64 oy = 0; tail && oy < rows; oy++) {
            for (int m = 0; m < CV_WO; m++) gv[m] = cv_load_part(gr[m] + oy * g->wo + full, tail);
            cv_weight_step(acc, gv, xr, oy * t->wpad + full, tail);
        }
    }
    for (i64 m = 0; m < CV_WO && r0 + m < g->o; m++)
        for (i64 j = 0; j < CV_WK && kk0 + j < t->K; j++) part[(r0 + m) * t->K + kk0 + j] += acc[m][j];
}

/* 1 when the n floats at p are all finite */
static int cv_finite(const float *p, i64 n) {
    cv_vec z = {0};
    i64 e = 0;
    for (; e + CV_VW <= n; e += CV_VW) {
        cv_vec v;
        memcpy(&v, p + e, sizeof v);
        z += v * 0.0f; /* NaN from an infinity or a NaN */
    }
    float s = cv_hsum(z);
    for (; e < n; e++) s += p[e] * 0.0f;
    return s == 0.0f;
}

enum { CV_GROUP = 8 }; /* images whose sums a tile keeps in registers */

/* The flat form reads, beside each output row, the input past the row's end (times a zero gradient):
 * taken only for an image whose padded plane is finite, where those products are zeros. */
static void cv_weight_chunk(const void *c, int k, i64 lo, i64 hi) {
    const cv_weight_ctx *wc = c;
    const cv_direct_ctx *t = &wc->d;
    const cv_geo *g = t->g;
    cv_vec *part = wc->part + (i64)k * g->o * t->K;
    i64 lq = (g->ho * t->wpad + CV_VW - 1) / CV_VW * CV_VW, L = g->ho * g->wo;
    /* rows of whole vectors keep their own form: the flat one would only add the padding's columns */
    float *gq = g->wo % CV_VW ? malloc((size_t)(CV_GROUP * g->o * lq) * sizeof(float)) : NULL;
    cv_weight_image im[CV_GROUP];
    for (i64 g0 = lo; g0 < hi; g0 += CV_GROUP) {
        i64 count = cv_min(CV_GROUP, hi - g0);
        for (i64 e = 0; e < count; e++) {
            const float *gn = wc->gy + (g0 + e) * g->o * L, *xp = t->xp + (g0 + e) * t->plane;
            im[e] = (cv_weight_image){.rows = gn, .xp = xp, .ld = L, .flat = 0};
            if (gq && cv_finite(xp, t->plane)) {
                float *own = gq + e * g->o * lq;
                memset(own, 0, (size_t)(g->o * lq) * sizeof(float));
                for (i64 r = 0; r < g->o; r++)
                    for (i64 oy = 0; oy < g->ho; oy++)
                        memcpy(own + r * lq + oy * t->wpad, gn + r * L + oy * g->wo, (size_t)g->wo * sizeof(float));
                im[e] = (cv_weight_image){.rows = own, .xp = xp, .ld = lq, .flat = 1};
            }
        }
        for (i64 r0 = 0; r0 < g->o; r0 += CV_WO)
            for (i64 kk0 = 0; kk0 < t->K; kk0 += CV_WK) cv_weight_tile(t, im, count, r0, kk0, part);
    }
    free(gq);
}

/* dw (o, c, kh, kw) from gy (n, o, ho, wo) and x (n, c, h, w), at stride 1 (the padding's top and left
 * sizes at least 0); -1 when scratch memory could not be had. Its partial sums take o * c * kh * kw
 * vectors per chunk (up to 4 a thread): the backend bounds that (native.WEIGHT_SUMS_BYTES). */
MT_API i64 mt_conv2d_weight_f32(const float *gy, const float *x, float *dw, const i64 *geo, int threads) {
    const cv_geo *g = (const cv_geo *)geo;
    i64 K = g->c * g->kh * g->kw;
    int nchunks = pool_chunks(g->n, threads);
    size_t part_bytes = (size_t)(nchunks * g->o * K) * sizeof(cv_vec); /* a multiple of the alignment */
    cv_vec *part = aligned_alloc(sizeof(cv_vec), part_bytes);
    cv_weight_ctx wc = {.gy = gy, .part = part};
    if (!part) return -1;
    if (cv_padded(&wc.d, g, x, threads) < 0) {
        free(part);
        return -1;
    }
    memset(part, 0, part_bytes);
    pool_run(cv_weight_chunk, &wc, g->n, threads);
    for (i64 e = 0; e < g->o * K; e++) {
        cv_vec s = part[e];
        for (int k = 1; k < nchunks; k++) s += part[k * g->o * K + e];
        dw[e] = cv_hsum(s);
    }
    free(part);
    cv_padded_free(&wc.d);
    return 0;
}
