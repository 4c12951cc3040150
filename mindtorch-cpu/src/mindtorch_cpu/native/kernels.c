/* Fused float32 kernels of the CPU backend, called through ctypes on C-contiguous blocks.
 *
 * Each function works on one block (a range of elements or of rows); the Python side shares the
 * blocks out across its thread pool (ctypes releases the GIL during the call). Everything here is
 * branch-free in the inner loops so the compiler vectorises it; on x86_64 each hot function is
 * also compiled for AVX2+FMA and picked at load time (target_clones), so one build runs anywhere.
 * No -ffast-math: NaN and infinity propagate as in PyTorch. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "pool.c"

#if 0
#define MT_HOT __attribute__((target_clones("arch=haswell", "default")))
#else
#define MT_HOT
#endif
#define MT_API __attribute__((visibility("default")))

static inline __attribute__((always_inline)) float bits_to_float(int32_t b) { float f; memcpy(&f, &b, 4); return f; }
static inline __attribute__((always_inline)) int32_t float_to_bits(float f) { int32_t b; memcpy(&b, &f, 4); return b; }

/* exp(x) in float32 within ~1 ulp: x = n ln2 + r (two-part ln2), e^r by a degree-6 polynomial on
 * |r| <= ln2/2, times 2^n built in two halves so results down to the denormals and up to inf are right. */
static inline __attribute__((always_inline)) float mt_expf(float x) {
    const float magic = 12582912.0f; /* 1.5 * 2^23: adding it rounds to an integer in the low bits */
    float xc = x < -104.0f ? -104.0f : x;
    xc = xc > 89.0f ? 89.0f : xc;
    float t = xc * 1.44269504088896341f + magic;
    float n = t - magic;
    int32_t ni = float_to_bits(t) - float_to_bits(magic);
    float r = xc - n * 0.693359375f;
    r = r - n * -2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * r * r + r + 1.0f;
    int32_t h = ni >> 1;
    return p * bits_to_float((h + 127) << 23) * bits_to_float((ni - h + 127) << 23);  /* a nan stays nan */
}

/* sigmoid(2u) = (1 + tanh u) / 2, with e = exp(-2u): the tanh GELU is written in these, so nothing
 * cancels where tanh u is near -1 */
static inline __attribute__((always_inline)) float half_one_plus_tanh(float u, float *e) {
    *e = mt_expf(-2.0f * u);
    return 1.0f / (1.0f + *e);
}

/* ---- elementwise ---------------------------------------------------------------------------- */
/* Each elementwise block takes (a, b, y, n, s): its operands (b unused by a unary one), its result and a
 * scalar; ew_run shares the elements out across the pool. */
typedef void (*ew_fn)(const float *restrict a, const float *restrict b, float *restrict y, i64 n, float s);
#define EW(name) \
    static MT_HOT void name(const float *restrict x, const float *restrict b, float *restrict y, i64 n, float s)
#define EW2(name) \
    static MT_HOT void name(const float *restrict g, const float *restrict x, float *restrict y, i64 n, float s)

EW(exp_blk) {
    (void)b, (void)s;
    for (i64 i = 0; i < n; i++) y[i] = mt_expf(x[i]);
}

/* relu keeps a NaN and -0.0 (as NumPy's maximum(x, 0) and PyTorch's kernel do) */
EW(relu_blk) {
    (void)b, (void)s;
    for (i64 i = 0; i < n; i++) y[i] = x[i] < 0.0f ? 0.0f : x[i];
}

/* the gradient of relu / threshold: 0 where x <= threshold, else g (a NaN in x passes g) */
EW2(threshold_backward_blk) {
    for (i64 i = 0; i < n; i++) y[i] = x[i] <= s ? 0.0f : g[i]; /* s: the threshold */
}

/* Phi(-|x|) by Abramowitz-Stegun 7.1.26 (absolute error <= 1.5e-7), also returning exp(-x^2/2). */
#define AS_P (0.3275911f * 0.70710678118654752f)
static inline __attribute__((always_inline)) float phi_tail(float ax, float *e) {
    float t = 1.0f / (1.0f + AS_P * ax);
    float p = 0.5f * 1.061405429f;
    p = p * t + 0.5f * -1.453152027f;
    p = p * t + 0.5f * 1.421413741f;
    p = p * t + 0.5f * -0.284496736f;
    p = p * t + 0.5f * 0.254829592f;
    *e = mt_expf(-0.5f * ax * ax);
    return p * t * *e;
}

EW(gelu_blk) {
    (void)b, (void)s;
    for (i64 i = 0; i < n; i++) {
        float v = x[i], a = fabsf(v), e;
        float h = phi_tail(a, &e);
        y[i] = 0.5f * v + a * (0.5f - h);  /* x Phi(x) */
    }
}

EW2(gelu_backward_blk) {
    (void)s;
    for (i64 i = 0; i < n; i++) {
        float v = x[i], e;
        float h = phi_tail(fabsf(v), &e);
        float q = 0.5f - h;
        float cdf = 0.5f + (v < 0.0f ? -q : q);
        y[i] = g[i] * (cdf + v * e * 0.39894228040143268f);
    }
}

#define GELU_K 0.79788456080286536f /* sqrt(2/pi) */
EW(gelu_tanh_blk) {
    (void)b, (void)s;
    for (i64 i = 0; i < n; i++) {
        float v = x[i], e;
        y[i] = v * half_one_plus_tanh(GELU_K * (v + 0.044715f * v * v * v), &e);
    }
}

/* d/dx [x (1 + tanh u) / 2] = s + x (1 - tanh^2 u) u' / 2, with 1 - tanh^2 u = 4 e s^2; e is capped so
 * e s stays finite (it tends to 1), and an infinite x gives nan as PyTorch's kernel does */
EW2(gelu_tanh_backward_blk) {
    (void)s;
    for (i64 i = 0; i < n; i++) {
        float v = x[i], e;
        float s = half_one_plus_tanh(GELU_K * (v + 0.044715f * v * v * v), &e);
        e = e > 1e38f ? 1e38f : e;
        float dinner = GELU_K * (1.0f + 3.0f * 0.044715f * v * v);
        float d = g[i] * (s + (e * s) * s * (2.0f * v * dinner));
        y[i] = v - v == 0.0f ? d : NAN;
    }
}

/* ---- row reductions: explicit 8-float vectors (GCC/clang vector extension; two SSE registers on a
 * baseline build, one AVX register on x86-64-v3), since float sums only vectorise by themselves under
 * -ffast-math; partial sums are added in double at the end -------------------------------------- */
typedef float v8f __attribute__((vector_size(32)));
typedef int32_t v8i __attribute__((vector_size(32)));
#define V 8

static inline __attribute__((always_inline)) v8f load8(const float *p) { v8f v; memcpy(&v, p, sizeof v); return v; }

static inline __attribute__((always_inline)) double hsum(v8f v) {
    double r = 0.0;
    for (int j = 0; j < V; j++) r += v[j];
    return r;
}

/* max of a row; a NaN anywhere makes it NaN */
static inline __attribute__((always_inline)) float row_max(const float *x, i64 d) {
    v8f m = {-INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY}, m1 = m;
    i64 i = 0;
    for (; i + 2 * V <= d; i += 2 * V) {  /* two running maxima: independent chains */
        v8f v = load8(x + i), v1 = load8(x + i + V);
        v8i take = (v > m) | (v != v), take1 = (v1 > m1) | (v1 != v1);
        m = (v8f)(((v8i)v & take) | ((v8i)m & ~take));
        m1 = (v8f)(((v8i)v1 & take1) | ((v8i)m1 & ~take1));
    }
    for (; i + V <= d; i += V) {
        v8f v = load8(x + i);
        v8i take = (v > m) | (v != v);
        m = (v8f)(((v8i)v & take) | ((v8i)m & ~take));
    }
    {
        v8i take = (m1 > m) | (m1 != m1);
        m = (v8f)(((v8i)m1 & take) | ((v8i)m & ~take));
    }
    float r = -INFINITY;
    for (int j = 0; j < V; j++) r = m[j] > r || m[j] != m[j] ? m[j] : r;
    for (; i < d; i++) r = x[i] > r || x[i] != x[i] ? x[i] : r;
    return r;
}

/* float partial sums over chunks of at most CHUNK elements, added in double: the float error stays
 * that of a short sum however long the row */
#define CHUNK 2048
static inline __attribute__((always_inline)) double row_sum(const float *x, i64 d) {
    double r = 0.0;
    i64 i = 0;
    while (i + 4 * V <= d) {  /* four accumulators: one would wait on the add's latency */
        i64 end = i + CHUNK < d ? i + CHUNK : d;
        v8f s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0};
        for (; i + 4 * V <= end; i += 4 * V) {
            s0 += load8(x + i);
            s1 += load8(x + i + V);
            s2 += load8(x + i + 2 * V);
            s3 += load8(x + i + 3 * V);
        }
        r += hsum((s0 + s1) + (s2 + s3));
    }
    for (; i < d; i++) r += x[i];
    return r;
}

static inline __attribute__((always_inline)) double row_dot(const float *x, const float *y, i64 d) {
    v8f s0 = {0}, s1 = {0};
    i64 i = 0;
    for (; i + 2 * V <= d; i += 2 * V) {
        s0 += load8(x + i) * load8(y + i);
        s1 += load8(x + i + V) * load8(y + i + V);
    }
    double r = hsum(s0 + s1);
    for (; i < d; i++) r += (double)x[i] * y[i];
    return r;
}

/* sum of (x - c)^2 (two accumulators: one would wait on the add's latency) */
static inline __attribute__((always_inline)) double row_sq_dev(const float *x, float c, i64 d) {
    v8f s0 = {0}, s1 = {0};
    i64 i = 0;
    for (; i + 2 * V <= d; i += 2 * V) {
        v8f t0 = load8(x + i) - c, t1 = load8(x + i + V) - c;
        s0 += t0 * t0;
        s1 += t1 * t1;
    }
    double r = hsum(s0 + s1);
    for (; i < d; i++) r += (double)(x[i] - c) * (x[i] - c);
    return r;
}

/* e^(x - max) into y, returning the row's sum */
static inline __attribute__((always_inline)) double exp_shifted(const float *x, float *y, i64 d, float mx) {
    for (i64 i = 0; i < d; i++) y[i] = mt_expf(x[i] - mx);
    return row_sum(y, d);
}

/* softmax (log = 0) or log_softmax (log = 1) of `rows` rows of length d; y may alias x */
static MT_HOT void softmax_rows(const float *x, float *y, i64 rows, i64 d, int log) {
    for (i64 r = 0; r < rows; r++) {
        const float *xr = x + r * d;
        float *yr = y + r * d;
        float mx = row_max(xr, d);
        /* no special case for an infinite or nan max: the shift then makes nans, as PyTorch's does */
        if (log) {  /* y holds e^(x - max) until it is overwritten with the result */
            float shift = mx + logf((float)exp_shifted(xr, yr, d, mx));
            for (i64 k = 0; k < d; k++) yr[k] = xr[k] - shift;
        } else {
            float inv = (float)(1.0 / exp_shifted(xr, yr, d, mx));
            for (i64 k = 0; k < d; k++) yr[k] *= inv;
        }
    }
}

/* gradient of softmax (y = softmax): (g - <g, y>) * y; of log_softmax (y = log_softmax): g - e^y sum(g) */
static MT_HOT void softmax_backward_rows(const float *g, const float *y, float *dx, i64 rows, i64 d, int log) {
    for (i64 r = 0; r < rows; r++) {
        const float *gr = g + r * d, *yr = y + r * d;
        float *o = dx + r * d;
        if (log) {
            float s = (float)row_sum(gr, d);
            for (i64 k = 0; k < d; k++) o[k] = gr[k] - mt_expf(yr[k]) * s;
        } else {
            float s = (float)row_dot(gr, yr, d);
            for (i64 k = 0; k < d; k++) o[k] = (gr[k] - s) * yr[k];
        }
    }
}

/* ---- layer norm (center = 1) and RMS norm (center = 0) over rows of length d ------------------- */
static MT_HOT void norm_rows(const float *restrict x, const float *restrict w, const float *restrict b,
                               float *restrict y, float *restrict mean, float *restrict rstd,
                               i64 rows, i64 d, float eps, int center) {
    for (i64 r = 0; r < rows; r++) {
        const float *xr = x + r * d;
        float *yr = y + r * d;
        float mu = center ? (float)(row_sum(xr, d) / (double)d) : 0.0f;
        double var = row_sq_dev(xr, mu, d);
        float rs = 1.0f / sqrtf((float)(var / (double)d) + eps);
        if (center) mean[r] = mu;
        rstd[r] = rs;
        if (w && b)
            for (i64 k = 0; k < d; k++) yr[k] = (xr[k] - mu) * rs * w[k] + b[k];
        else if (w)
            for (i64 k = 0; k < d; k++) yr[k] = (xr[k] - mu) * rs * w[k];
        else if (b)
            for (i64 k = 0; k < d; k++) yr[k] = (xr[k] - mu) * rs + b[k];
        else
            for (i64 k = 0; k < d; k++) yr[k] = (xr[k] - mu) * rs;
    }
}

/* dx for each row; dw += g * xhat and db += g summed over this block's rows (caller zeroes both).
 * gx = g * w; dx = (gx - xhat <gx, xhat>/d - center * sum(gx)/d) * rstd. tmp holds 2 d floats. One pass
 * makes xhat, gx, the dw / db sums and both row sums (explicit vectors: the sums would not vectorise by
 * themselves), a second makes dx. The gradient g is `gperiod` rows of d repeated over the rows (a
 * broadcast gradient is read as it is, not copied out to every row); the block starts at row r0 of it. */
static MT_HOT void norm_backward_rows(const float *restrict g, i64 gperiod, i64 r0, const float *restrict x,
                                        const float *restrict mean, const float *restrict rstd,
                                        const float *restrict w, float *restrict dx,
                                        float *restrict dw, float *restrict db, float *restrict tmp,
                                        i64 rows, i64 d, int center) {
    float *restrict xhat = tmp, *restrict gx = tmp + d;
    for (i64 r = 0; r < rows; r++) {
        const float *restrict gr = g + ((r0 + r) % gperiod) * d, *restrict xr = x + r * d;
        float *restrict o = dx + r * d;
        float mu = center ? mean[r] : 0.0f, rs = rstd[r];
        /* xhat, the weight and bias sums, g * w, and the row sums <gx, xhat> and sum(gx) in one pass */
        v8f s0 = {0}, s1 = {0};
        i64 k = 0;
        for (; k + V <= d; k += V) {
            v8f gv = load8(gr + k), xh = (load8(xr + k) - mu) * rs;
            v8f gw = w ? gv * load8(w + k) : gv;
            v8f dwv = load8(dw + k) + gv * xh, dbv = load8(db + k) + gv;
            memcpy(xhat + k, &xh, sizeof xh);
            memcpy(gx + k, &gw, sizeof gw);
            memcpy(dw + k, &dwv, sizeof dwv);
            memcpy(db + k, &dbv, sizeof dbv);
            s0 += gw * xh;
            s1 += gw;
        }
        double t1 = hsum(s0), t2 = hsum(s1);
        for (; k < d; k++) {
            float xh = (xr[k] - mu) * rs, gw = w ? gr[k] * w[k] : gr[k];
            xhat[k] = xh;
            gx[k] = gw;
            dw[k] += gr[k] * xh;
            db[k] += gr[k];
            t1 += (double)gw * xh;
            t2 += gw;
        }
        float a = (float)(t1 / (double)d), c = center ? (float)(t2 / (double)d) : 0.0f;
        for (k = 0; k < d; k++) o[k] = (gx[k] - xhat[k] * a - c) * rs;
    }
}

/* ---- negative log-likelihood of rows of log-probabilities (d classes) ------------------------------
 * sums[0] += -w_t logp[r, t] and sums[1] += w_t over the rows whose target t is not ignore_index (w_t =
 * weight[t], or 1 without a weight); losses (when given) gets each row's -w_t logp[r, t], 0 for an ignored
 * row. Returns the first row whose target is out of range (and not ignored), sums then left as they
 * were; else -1. */
MT_API i64 mt_nll_f32(const float *restrict logp, const int64_t *restrict target, const float *restrict weight,
                      float *restrict losses, double *restrict sums, i64 rows, i64 d, i64 ignore_index) {
    double loss = 0.0, total = 0.0;
    for (i64 r = 0; r < rows; r++) {
        i64 t = target[r];
        if (t == ignore_index) {
            if (losses) losses[r] = 0.0f;
            continue;
        }
        if (t < 0 || t >= d) return r;
        float w = weight ? weight[t] : 1.0f;
        float v = -logp[r * d + t] * w;
        if (losses) losses[r] = v;
        loss += v;
        total += w;
    }
    sums[0] += loss;
    sums[1] += total;
    return -1;
}

/* cross entropy of logits x (rows, d): their log_softmax into logp, then mt_nll_f32 of it */
MT_API void mt_softmax_f32(const float *x, float *y, i64 rows, i64 d, int log, int threads);

MT_API i64 mt_cross_entropy_f32(const float *restrict x, const int64_t *restrict target,
                                const float *restrict weight, float *restrict logp, float *restrict losses,
                                double *restrict sums, i64 rows, i64 d, i64 ignore_index, int threads) {
    mt_softmax_f32(x, logp, rows, d, 1, threads);
    return mt_nll_f32(logp, target, weight, losses, sums, rows, d, ignore_index);
}

/* ---- cross entropy backward from log-probabilities: coef_i * (softmax - one_hot(t_i)) ------------ */
static MT_HOT void cross_entropy_backward_rows(const float *restrict logp, const float *restrict coef,
                                                 const int64_t *restrict target, float *restrict dx,
                                                 i64 rows, i64 d) {
    for (i64 r = 0; r < rows; r++) {
        const float *lr = logp + r * d;
        float *o = dx + r * d;
        float c = coef[r];
        for (i64 k = 0; k < d; k++) o[k] = mt_expf(lr[k]) * c;
        o[target[r]] -= c;
    }
}

/* ---- max pooling over planes (N*C of them) of h x w: the first maximum of a window wins, a NaN
 * always does (as PyTorch); indices are flat positions within the plane --------------------------- */
static inline void pool_take(float v, i64 at, float *best, i64 *bi) {
    int take = (v > *best) | (v != v); /* branch-free: random data mispredicts */
    *best = take ? v : *best;
    *bi = take ? at : *bi;
}

/* 2x2 windows at stride 2, all inside the plane (the common CNN pooling): the four taps unrolled */
static void max_pool2x2_f32(const float *restrict x, float *restrict y, int64_t *restrict idx, i64 planes,
                            i64 h, i64 w, i64 ho, i64 wo) {
    for (i64 p = 0; p < planes; p++) {
        const float *xp = x + p * h * w;
        for (i64 oh = 0; oh < ho; oh++) {
            i64 r0 = 2 * oh * w, r1 = r0 + w;
            float *yr = y + (p * ho + oh) * wo;
            int64_t *ir = idx + (p * ho + oh) * wo;
            for (i64 ow = 0; ow < wo; ow++) {
                i64 c = 2 * ow;
                float best = -INFINITY;
                i64 bi = r0 + c;
                pool_take(xp[r0 + c], r0 + c, &best, &bi);
                pool_take(xp[r0 + c + 1], r0 + c + 1, &best, &bi);
                pool_take(xp[r1 + c], r1 + c, &best, &bi);
                pool_take(xp[r1 + c + 1], r1 + c + 1, &best, &bi);
                yr[ow] = best;
                ir[ow] = bi;
            }
        }
    }
}

MT_API void mt_max_pool2d_f32(const float *restrict x, float *restrict y, int64_t *restrict idx,
                              i64 planes, i64 h, i64 w, i64 ho, i64 wo, i64 kh, i64 kw,
                              i64 sh, i64 sw, i64 ph, i64 pw, i64 dh, i64 dw) {
    if (kh == 2 && kw == 2 && sh == 2 && sw == 2 && ph == 0 && pw == 0 && dh == 1 && dw == 1 && 2 * ho <= h &&
        2 * wo <= w) {
        max_pool2x2_f32(x, y, idx, planes, h, w, ho, wo);
        return;
    }
    /* the taps of each output column that fall inside the plane, worked out once per call */
    i64 cols[2 * wo];
    for (i64 ow = 0; ow < wo; ow++) {
        i64 w0 = ow * sw - pw, j0 = 0, j1 = kw;
        while (j0 < kw && w0 + j0 * dw < 0) j0++;
        while (j1 > j0 && w0 + (j1 - 1) * dw >= w) j1--;
        cols[2 * ow] = j0;
        cols[2 * ow + 1] = j1;
    }
    for (i64 p = 0; p < planes; p++) {
        const float *xp = x + p * h * w;
        float *yp = y + p * ho * wo;
        int64_t *ip = idx + p * ho * wo;
        for (i64 oh = 0; oh < ho; oh++) {
            i64 h0 = oh * sh - ph;
            i64 i0 = 0, i1 = kh;  /* taps inside the plane */
            while (i0 < kh && h0 + i0 * dh < 0) i0++;
            while (i1 > i0 && h0 + (i1 - 1) * dh >= h) i1--;
            for (i64 ow = 0; ow < wo; ow++) {
                i64 w0 = ow * sw - pw, j0 = cols[2 * ow], j1 = cols[2 * ow + 1];
                float best = -INFINITY;
                i64 bi = (h0 + i0 * dh) * w + (w0 + j0 * dw);
                for (i64 i = i0; i < i1; i++) {
                    const float *row = xp + (h0 + i * dh) * w + w0;
                    i64 at0 = (h0 + i * dh) * w + w0;
                    for (i64 j = j0; j < j1; j++) {
                        pool_take(row[j * dw], at0 + j * dw, &best, &bi);
                    }
                }
                yp[oh * wo + ow] = best;
                ip[oh * wo + ow] = bi;
            }
        }
    }
}

/* gradient of max pooling: each output's gradient added at its input position (dx zeroed here) */
MT_API void mt_max_pool2d_backward_f32(const float *restrict g, const int64_t *restrict idx, float *restrict dx,
                                       i64 planes, i64 hw, i64 out_hw) {
    memset(dx, 0, (size_t)(planes * hw) * sizeof(float));
    for (i64 p = 0; p < planes; p++) {
        const float *gp = g + p * out_hw;
        const int64_t *ip = idx + p * out_hw;
        float *dp = dx + p * hw;
        for (i64 k = 0; k < out_hw; k++) dp[ip[k]] += gp[k];
    }
}

/* the outputs ow in [lo, hi) whose tap ow * sw + off lies inside a row of w inputs */
static inline void tap_range(i64 off, i64 sw, i64 w, i64 wo, i64 *lo, i64 *hi) {
    i64 a = off < 0 ? (-off + sw - 1) / sw : 0;
    i64 b = w - 1 - off < 0 ? 0 : (w - 1 - off) / sw + 1;
    if (a > wo) a = wo;
    if (b > wo) b = wo;
    if (b < a) b = a;
    *lo = a;
    *hi = b;
}

/* ---- convolution's unfold (im2col) and fold (col2im) for `images` images of c x h x w -----------
 * cols of one image: (c * kh * kw) rows of ho * wo, zero where a tap falls in the padding */
MT_API void mt_im2col_f32(const float *restrict x, float *restrict cols, i64 images, i64 c, i64 h, i64 w,
                          i64 ho, i64 wo, i64 kh, i64 kw, i64 sh, i64 sw, i64 ph, i64 pw, i64 dh, i64 dw) {
    i64 L = ho * wo;
    for (i64 n = 0; n < images; n++) {
        const float *xn = x + n * c * h * w;
        float *cn = cols + n * c * kh * kw * L;
        for (i64 ch = 0; ch < c; ch++)
            for (i64 i = 0; i < kh; i++)
                for (i64 j = 0; j < kw; j++) {
                    float *row = cn + ((ch * kh + i) * kw + j) * L;
                    for (i64 oh = 0; oh < ho; oh++) {
                        i64 ih = oh * sh - ph + i * dh;
                        float *o = row + oh * wo;
                        if (ih < 0 || ih >= h) {
                            memset(o, 0, (size_t)wo * sizeof(float));
                            continue;
                        }
                        const float *src = xn + (ch * h + ih) * w;
                        i64 off = j * dw - pw, lo, hi;  /* iw = ow * sw + off */
                        tap_range(off, sw, w, wo, &lo, &hi);
                        for (i64 ow = 0; ow < lo; ow++) o[ow] = 0.0f;
                        if (sw == 1) {  /* rows are short (a feature map's width): a loop beats memcpy */
                            const float *sp = src + off;
                            for (i64 ow = lo; ow < hi; ow++) o[ow] = sp[ow];
                        } else
                            for (i64 ow = lo; ow < hi; ow++) o[ow] = src[ow * sw + off];
                        for (i64 ow = hi; ow < wo; ow++) o[ow] = 0.0f;
                    }
                }
    }
}

/* the adjoint of mt_im2col_f32: each column entry added back at its input position (dx zeroed here) */
MT_API void mt_col2im_f32(const float *restrict cols, float *restrict dx, i64 images, i64 c, i64 h, i64 w,
                          i64 ho, i64 wo, i64 kh, i64 kw, i64 sh, i64 sw, i64 ph, i64 pw, i64 dh, i64 dw) {
    i64 L = ho * wo;
    memset(dx, 0, (size_t)(images * c * h * w) * sizeof(float));
    for (i64 n = 0; n < images; n++) {
        float *dn = dx + n * c * h * w;
        const float *cn = cols + n * c * kh * kw * L;
        for (i64 ch = 0; ch < c; ch++)
            for (i64 i = 0; i < kh; i++)
                for (i64 j = 0; j < kw; j++) {
                    const float *row = cn + ((ch * kh + i) * kw + j) * L;
                    for (i64 oh = 0; oh < ho; oh++) {
                        i64 ih = oh * sh - ph + i * dh;
                        if (ih < 0 || ih >= h) continue;
                        float *dst = dn + (ch * h + ih) * w;
                        const float *src = row + oh * wo;
                        i64 off = j * dw - pw, lo, hi;
                        tap_range(off, sw, w, wo, &lo, &hi);
                        for (i64 ow = lo; ow < hi; ow++) dst[ow * sw + off] += src[ow];
                    }
                }
    }
}

/* ---- the exported kernels: each shares its work out across the pool (pool.c) on up to `threads`
 * threads; a kernel always gives the same result for the same `threads` --------------------------- */
typedef struct {
    ew_fn f;
    const float *a, *b;
    float *y;
    float s;
} ew_ctx;

static void ew_chunk(const void *c, int k, i64 lo, i64 hi) {
    (void)k;
    const ew_ctx *e = c;
    e->f(e->a ? e->a + lo : NULL, e->b ? e->b + lo : NULL, e->y + lo, hi - lo, e->s);
}

static void ew_run(ew_fn f, const float *a, const float *b, float *y, i64 n, float s, int threads) {
    ew_ctx c = {f, a, b, y, s};
    pool_run(ew_chunk, &c, n, threads);
}

MT_API void mt_exp_f32(const float *x, float *y, i64 n, int threads) { ew_run(exp_blk, x, NULL, y, n, 0, threads); }
MT_API void mt_relu_f32(const float *x, float *y, i64 n, int threads) { ew_run(relu_blk, x, NULL, y, n, 0, threads); }
MT_API void mt_threshold_backward_f32(const float *g, const float *x, float *y, i64 n, float threshold, int threads) {
    ew_run(threshold_backward_blk, g, x, y, n, threshold, threads);
}
MT_API void mt_gelu_f32(const float *x, float *y, i64 n, int threads) { ew_run(gelu_blk, x, NULL, y, n, 0, threads); }
MT_API void mt_gelu_backward_f32(const float *g, const float *x, float *y, i64 n, int threads) {
    ew_run(gelu_backward_blk, g, x, y, n, 0, threads);
}
MT_API void mt_gelu_tanh_f32(const float *x, float *y, i64 n, int threads) {
    ew_run(gelu_tanh_blk, x, NULL, y, n, 0, threads);
}
MT_API void mt_gelu_tanh_backward_f32(const float *g, const float *x, float *y, i64 n, int threads) {
    ew_run(gelu_tanh_backward_blk, g, x, y, n, 0, threads);
}

/* a OP b for float32 operands of n elements, either of which may be one number (passed as s, its
 * array NULL): results as NumPy's float32 loops give them (one IEEE operation per element) */
#define BINARY(name, OP)                                                                                  \
    static MT_HOT void name##_vv(const float *restrict a, const float *restrict b, float *restrict y, i64 n, \
                                 float s) {                                                               \
        (void)s;                                                                                          \
        for (i64 i = 0; i < n; i++) y[i] = a[i] OP b[i];                                                  \
    }                                                                                                     \
    static MT_HOT void name##_vs(const float *restrict a, const float *restrict b, float *restrict y, i64 n, \
                                 float s) {                                                               \
        (void)b;                                                                                          \
        for (i64 i = 0; i < n; i++) y[i] = a[i] OP s;                                                     \
    }                                                                                                     \
    static MT_HOT void name##_sv(const float *restrict a, const float *restrict b, float *restrict y, i64 n, \
                                 float s) {                                                               \
        (void)a;                                                                                          \
        for (i64 i = 0; i < n; i++) y[i] = s OP b[i];                                                     \
    }
BINARY(add, +)
BINARY(sub, -)
BINARY(mul, *)
BINARY(div, /)

/* op: 0 add, 1 subtract, 2 multiply, 3 divide; a or b NULL: that operand is the number s */
MT_API void mt_binary_f32(const float *a, const float *b, float *y, i64 n, int op, float s, int threads) {
    static const ew_fn fns[4][3] = {
        {add_vv, add_vs, add_sv}, {sub_vv, sub_vs, sub_sv}, {mul_vv, mul_vs, mul_sv}, {div_vv, div_vs, div_sv}};
    if (op < 0 || op > 3 || (!a && !b)) return;
    ew_run(fns[op][a && b ? 0 : a ? 1 : 2], a, b, y, n, s, threads);
}

/* ---- row kernels: chunks of whole rows ---------------------------------------------------------- */
/* A row kernel's operands by role: rows of d read (x, and g where there are two), rows written (y), one
 * value per row read (row_in: a mean, a coefficient or a logsumexp; rstd) or written (row_out, rstd_out),
 * vectors of d (w, b; b is the attention bias, `period` rows of d repeated over the rows, as is the norm
 * backward's g), and one number (eps, or attention's scale) */
typedef struct {
    const float *x, *g, *w, *b, *row_in, *rstd;
    float *y, *row_out, *rstd_out, *part; /* part: per-chunk weight / bias gradient sums (norm backward) */
    const int64_t *target;
    i64 d, period;
    float eps;
    int flag;
} rows_ctx;

static void softmax_chunk(const void *c, int k, i64 lo, i64 hi) {
    (void)k;
    const rows_ctx *r = c;
    softmax_rows(r->x + lo * r->d, r->y + lo * r->d, hi - lo, r->d, r->flag);
}

MT_API void mt_softmax_f32(const float *x, float *y, i64 rows, i64 d, int log, int threads) {
    rows_ctx c = {.x = x, .y = y, .d = d, .flag = log};
    pool_run(softmax_chunk, &c, rows, threads);
}

static void softmax_backward_chunk(const void *c, int k, i64 lo, i64 hi) {
    (void)k;
    const rows_ctx *r = c;
    softmax_backward_rows(r->g + lo * r->d, r->x + lo * r->d, r->y + lo * r->d, hi - lo, r->d, r->flag);
}

MT_API void mt_softmax_backward_f32(const float *g, const float *y, float *dx, i64 rows, i64 d, int log,
                                    int threads) {
    rows_ctx c = {.g = g, .x = y, .y = dx, .d = d, .flag = log}; /* x: the forward's result, read */
    pool_run(softmax_backward_chunk, &c, rows, threads);
}

static void norm_chunk(const void *c, int k, i64 lo, i64 hi) {
    (void)k;
    const rows_ctx *r = c;
    norm_rows(r->x + lo * r->d, r->w, r->b, r->y + lo * r->d, r->flag ? r->row_out + lo : NULL, r->rstd_out + lo,
              hi - lo, r->d, r->eps, r->flag);
}

MT_API void mt_norm_f32(const float *x, const float *w, const float *b, float *y, float *mean, float *rstd, i64 rows,
                        i64 d, float eps, int center, int threads) {
    rows_ctx c = {.x = x, .w = w, .b = b, .y = y, .row_out = mean, .rstd_out = rstd, .d = d, .eps = eps,
                  .flag = center};
    pool_run(norm_chunk, &c, rows, threads);
}

/* each chunk sums its rows' weight and bias gradients into its own 2 d floats of r->part (then added
 * in chunk order), and uses 2 d more of it as the kernel's scratch */
static void norm_backward_chunk(const void *c, int k, i64 lo, i64 hi) {
    const rows_ctx *r = c;
    float *own = r->part + (i64)k * 4 * r->d;
    norm_backward_rows(r->g, r->period, lo, r->x + lo * r->d, r->flag ? r->row_in + lo : NULL, r->rstd + lo, r->w,
                       r->y + lo * r->d, own, own + r->d, own + 2 * r->d, hi - lo, r->d, r->flag);
}

/* dx of the rows, and dw / db (the caller zeroes both) += the weight and bias gradients; g is `gperiod`
 * rows of d repeated over the rows (rows for a dense gradient, 1 for one row broadcast); returns -1
 * when its scratch could not be allocated (nothing written then), else 0 */
MT_API i64 mt_norm_backward_f32(const float *g, const float *x, const float *mean, const float *rstd, const float *w,
                                float *dx, float *dw, float *db, i64 rows, i64 d, i64 gperiod, int center,
                                int threads) {
    int nchunks = pool_chunks(rows, threads);
    float *part = calloc((size_t)nchunks * 4 * (size_t)d, sizeof(float));
    if (!part) return -1;
    rows_ctx c = {.g = g, .x = x, .row_in = mean, .rstd = rstd, .w = w, .y = dx, .part = part, .d = d,
                  .period = gperiod > 0 ? gperiod : rows, .flag = center};
    pool_run(norm_backward_chunk, &c, rows, threads);
    for (int k = 0; k < nchunks; k++) {
        const float *own = part + (i64)k * 4 * d;
        for (i64 j = 0; j < d; j++) {
            dw[j] += own[j];
            db[j] += own[d + j];
        }
    }
    free(part);
    return 0;
}

static void cross_entropy_backward_chunk(const void *c, int k, i64 lo, i64 hi) {
    (void)k;
    const rows_ctx *r = c;
    cross_entropy_backward_rows(r->x + lo * r->d, r->row_in + lo, r->target + lo, r->y + lo * r->d, hi - lo, r->d);
}

MT_API void mt_cross_entropy_backward_f32(const float *logp, const float *coef, const int64_t *target, float *dx,
                                          i64 rows, i64 d, int threads) {
    rows_ctx c = {.x = logp, .row_in = coef, .target = target, .y = dx, .d = d};
    pool_run(cross_entropy_backward_chunk, &c, rows, threads);
}

static void sum_rows_chunk(const void *c, int k, i64 lo, i64 hi) {
    (void)k;
    const rows_ctx *r = c;
    for (i64 i = lo; i < hi; i++) r->y[i] = (float)row_sum(r->x + i * r->d, r->d);
}

/* y[r] = the sum of row r of x (rows of d) */
MT_API void mt_sum_rows_f32(const float *x, float *y, i64 rows, i64 d, int threads) {
    rows_ctx c = {.x = x, .y = y, .d = d};
    pool_run(sum_rows_chunk, &c, rows, threads);
}

/* ---- attention: rows of scores x = scale * s + bias (bias: `period` rows of d, repeated over the rows,
 * or NULL), in place ---------------------------------------------------------------------------------- */
static inline __attribute__((always_inline)) void attn_logits(float *x, const float *b, float scale, i64 d) {
    if (b)
        for (i64 k = 0; k < d; k++) x[k] = x[k] * scale + b[k];
    else
        for (i64 k = 0; k < d; k++) x[k] *= scale;
}

/* forward: softmax(x) into the row, lse[row] = logsumexp(x) (a row with no finite logit: NaN, as the
 * shift by an infinite max makes it in PyTorch's) */
static void attn_softmax_chunk(const void *c, int k, i64 lo, i64 hi) {
    (void)k;
    const rows_ctx *r = c;
    for (i64 i = lo; i < hi; i++) {
        float *x = r->y + i * r->d;
        attn_logits(x, r->b ? r->b + (i % r->period) * r->d : NULL, r->eps, r->d);
        float mx = row_max(x, r->d);
        double sum = exp_shifted(x, x, r->d, mx);
        float inv = (float)(1.0 / sum);
        for (i64 j = 0; j < r->d; j++) x[j] *= inv;
        r->row_out[i] = mx + logf((float)sum);
    }
}

MT_API void mt_attn_softmax_f32(float *s, const float *bias, float *lse, i64 rows, i64 d, i64 period, float scale,
                                int threads) {
    rows_ctx c = {.y = s, .b = bias, .row_out = lse, .d = d, .period = period > 0 ? period : 1, .eps = scale};
    pool_run(attn_softmax_chunk, &c, rows, threads);
}

/* backward: the probabilities again from the scores and the forward's lse, p = e^(x - lse), each row
 * divided by its sum (a rounding of lse would otherwise scale the whole row) */
static void attn_probs_chunk(const void *c, int k, i64 lo, i64 hi) {
    (void)k;
    const rows_ctx *r = c;
    for (i64 i = lo; i < hi; i++) {
        float *x = r->y + i * r->d;
        attn_logits(x, r->b ? r->b + (i % r->period) * r->d : NULL, r->eps, r->d);
        float shift = r->row_in[i];
        for (i64 j = 0; j < r->d; j++) x[j] = mt_expf(x[j] - shift);
        float sum = (float)row_sum(x, r->d);
        for (i64 j = 0; j < r->d; j++) x[j] /= sum;
    }
}

MT_API void mt_attn_probs_f32(float *s, const float *bias, const float *lse, i64 rows, i64 d, i64 period, float scale,
                              int threads) {
    rows_ctx c = {.y = s, .b = bias, .row_in = lse, .d = d, .period = period > 0 ? period : 1, .eps = scale};
    pool_run(attn_probs_chunk, &c, rows, threads);
}

/* ---- Adam / AdamW, one parameter: the single-tensor update's float32 steps in its order, each rounded
 * as NumPy rounds it (no multiply-add fused: results equal that update's bit for bit) ----------------- */
#if defined(__clang__)
#define MT_EXACT
#define MT_EXACT_BODY _Pragma("clang fp contract(off)")
#else
#define MT_EXACT __attribute__((optimize("fp-contract=off")))
#define MT_EXACT_BODY
#endif

typedef struct {
    float *p, *ea, *es, *mx;
    const float *g;
    /* the update's numbers, each as float32: lerp weight (or 1 - it), 1 - beta2, beta2, weight decay or
     * the decoupled decay factor, sqrt(1 - beta2^step), eps, -step size */
    float w1, v2, beta2, wd, bc2, eps, ss;
    int flags;
} adam_ctx;

enum { ADAM_MAXIMIZE = 1, ADAM_DECAY = 2, ADAM_DECOUPLED = 4, ADAM_AMSGRAD = 8, ADAM_LERP_FROM_END = 16,
       ADAM_V2_SCALES = 32, ADAM_SS_SCALES = 64 };

/* a block at a time, each step one loop over the block (the flags tested once per block, so every
 * loop vectorises); the block's gradient, after maximize and weight decay, is kept in gb */
enum { ADAM_BLOCK = 512 };

static MT_EXACT void adam_block(const adam_ctx *a, i64 lo, i64 n, float *restrict gb) {
    MT_EXACT_BODY
    const int f = a->flags;
    float *restrict p = a->p + lo, *restrict ea = a->ea + lo, *restrict es = a->es + lo;
    const float *restrict g = a->g + lo;
    const float w1 = a->w1, v2 = a->v2, beta2 = a->beta2, wd = a->wd, bc2 = a->bc2, eps = a->eps, ss = a->ss;
    if (f & ADAM_MAXIMIZE)
        for (i64 i = 0; i < n; i++) gb[i] = -g[i];
    else
        memcpy(gb, g, (size_t)n * sizeof(float));
    if ((f & ADAM_DECAY) && (f & ADAM_DECOUPLED))
        for (i64 i = 0; i < n; i++) p[i] *= wd;
    else if (f & ADAM_DECAY)
        for (i64 i = 0; i < n; i++) gb[i] = gb[i] + p[i] * wd;
    if (f & ADAM_LERP_FROM_END)
        for (i64 i = 0; i < n; i++) ea[i] = gb[i] - (gb[i] - ea[i]) * w1;
    else
        for (i64 i = 0; i < n; i++) ea[i] += (gb[i] - ea[i]) * w1;
    if (f & ADAM_V2_SCALES)
        for (i64 i = 0; i < n; i++) es[i] = es[i] * beta2 + gb[i] * gb[i] * v2;
    else
        for (i64 i = 0; i < n; i++) es[i] = es[i] * beta2 + gb[i] * gb[i];
    const float *den_of = es;
    if (f & ADAM_AMSGRAD) {
        float *restrict mx = a->mx + lo;
        for (i64 i = 0; i < n; i++) {
            float m = mx[i], e = es[i];
            m = (m != m || m >= e) ? m : e; /* NumPy's maximum: a NaN on either side wins */
            mx[i] = e != e ? e : m;
        }
        den_of = mx;
    }
    for (i64 i = 0; i < n; i++) gb[i] = sqrtf(den_of[i]) / bc2 + eps; /* gb now holds the denominators */
    if (f & ADAM_SS_SCALES)
        for (i64 i = 0; i < n; i++) p[i] += ea[i] / gb[i] * ss;
    else
        for (i64 i = 0; i < n; i++) p[i] += ea[i] / gb[i];
}

static void adam_chunk(const void *c, int k, i64 lo, i64 hi) {
    (void)k;
    float gb[ADAM_BLOCK];
    for (i64 i = lo; i < hi; i += ADAM_BLOCK) adam_block(c, i, hi - i < ADAM_BLOCK ? hi - i : ADAM_BLOCK, gb);
}

MT_API void mt_adam_f32(float *p, const float *g, float *ea, float *es, float *mx, i64 n, float w1, float v2,
                        float beta2, float wd, float bc2, float eps, float ss, int flags, int threads) {
    adam_ctx c = {p, ea, es, mx, g, w1, v2, beta2, wd, bc2, eps, ss, flags};
    pool_run(adam_chunk, &c, n, threads);
}

#include "conv.c" /* convolution as tiled products: needs pool_run and tap_range */
