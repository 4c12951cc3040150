/* libopapi, linear algebra: matmul family (Matmul, Mm, BatchMatMul, Mv, Dot), Cholesky, Slogdet, QR,
 * TriangularSolve, SVD. */
#include "ops_internal.h"

/* matmul over broadcast batches; operands flagged in ip[1] were packed contiguous into the workspace */
int k_matmul(aclOpExecutor *e, int dev, char *ws, char *msg, size_t len) {
    const op_def *d = e->def;
    tview v[3];
    char *base[3];
    memcpy(v, e->t, sizeof v);
    for (int k = 0; k < 3; k++) {
        int rc = map_view(&v[k], dev, &base[k], d->name, k, msg, len);
        if (rc) return rc;
    }
    if (!numel(&v[0])) return 0;
    char *wsh = NULL;
    if (e->ws_size) {
        wsh = aclsim_dev2host(ws, e->ws_size, dev);
        if (!wsh) {
            snprintf(msg, len, "aclnn%s: workspace %p is no longer a live allocation", d->name, (void *)ws);
            return ACL_ERROR_RT_AICORE_EXCEPTION;
        }
    }
    for (int k = 1; k < 3; k++) {
        if (!(e->ip[1] & (1 << k))) continue;
        tview packed = v[k]; /* same dims, contiguous strides, in the workspace */
        int64_t acc = 1;
        for (int i = packed.nd - 1; i >= 0; i--) { packed.st[i] = acc; acc *= packed.dims[i]; }
        packed.off = 0;
        opnd o[2];
        bind(&o[0], &packed, wsh, packed.nd);
        bind(&o[1], &v[k], base[k], packed.nd);
        ew_loop(packed.nd, packed.dims, 2, o, e_id, NULL, v[k].dt);
        v[k] = packed;
        base[k] = wsh;
        wsh += (acc * dt_size(packed.dt) + 511) / 512 * 512;
    }
    /* as 2-D: a 1-D self is [1, k], a 1-D mat2 is [k, 1] */
    const tview *a = &v[1], *b = &v[2], *out = &v[0];
    int a1 = a->nd == 1, b1 = b->nd == 1;
    int64_t m = a1 ? 1 : a->dims[a->nd - 2], kk = a->dims[a->nd - 1], n = b1 ? 1 : b->dims[b->nd - 1];
    int64_t as_m = a1 ? 0 : a->st[a->nd - 2], as_k = a->st[a->nd - 1];
    int64_t bs_k = b1 ? b->st[0] : b->st[b->nd - 2], bs_n = b1 ? 0 : b->st[b->nd - 1];
    int onb = out->nd - (a1 ? 0 : 1) - (b1 ? 0 : 1); /* batch dims of out */
    int64_t os_m = a1 ? 0 : out->st[onb], os_n = b1 ? 0 : out->st[out->nd - 1];
    int anb = a->nd - (a1 ? 1 : 2), bnb = b->nd - (b1 ? 1 : 2);
    int ea = dt_size(a->dt), eb = dt_size(b->dt), eo = dt_size(out->dt);
    int64_t batches = 1, idx[SIM_MAXDIM] = {0};
    for (int i = 0; i < onb; i++) batches *= out->dims[i];
    /* FLOAT operands in HFLOAT32 for USE_HF32, and for ALLOW_FP32_DOWN_PRECISION on a float32 cube (ops-nn matmul
     * docs); ip[2] holds the cube kind the validator found */
    int hf32 = e->ct == ACL_FLOAT && (e->ip[0] == 3 || (e->ip[0] == 1 && e->ip[2]));
    for (int64_t bt = 0; bt < batches; bt++) {
        int64_t ao = a->off, bo = b->off, oo = out->off;
        for (int i = 0; i < onb; i++) {
            int ja = i - (onb - anb), jb = i - (onb - bnb);
            if (ja >= 0 && a->dims[ja] != 1) ao += idx[i] * a->st[ja];
            if (jb >= 0 && b->dims[jb] != 1) bo += idx[i] * b->st[jb];
            oo += idx[i] * out->st[i];
        }
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) {
                float acc = 0.0f; /* fp16/bf16/fp32 all accumulate in float32 */
                for (int64_t p = 0; p < kk; p++) {
                    double x = ldf(a->dt, base[1] + (ao + i * as_m + p * as_k) * ea);
                    double y = ldf(b->dt, base[2] + (bo + p * bs_k + j * bs_n) * eb);
                    if (hf32) x = to_hf32(x), y = to_hf32(y);
                    acc += (float)x * (float)y;
                }
                stf(out->dt, base[0] + (oo + i * os_m + j * os_n) * eo, acc);
            }
        for (int ax = onb - 1; ax >= 0; ax--) {
            if (++idx[ax] < out->dims[ax]) break;
            idx[ax] = 0;
        }
    }
    return 0;
}

aclnnStatus v_matmul(const op_def *d, args *a, aclOpExecutor *e) {
    const char *nm = d->name;
    const aclTensor *self = a->t[1], *mat2 = a->t[2], *out = a->t[0];
    aclnnStatus rc;
    if ((rc = check_tensor(d, self, "self", 6)) || (rc = check_tensor(d, mat2, "mat2", 6)) ||
        (rc = check_tensor(d, out, "out", 6)))
        return rc;
    int na = (int)self->ndim, nb = (int)mat2->ndim;
    int kind = KIND_OF(d->flags), want = kind == MM_2D ? 2 : kind == MM_BATCH ? 3 : 0;
    if (want && (na != want || nb != want || (int)out->ndim != want))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: self, mat2 and out must be %d-D (got %d, %d, %u)", nm,
            want, na, nb, out->ndim);
    if ((kind == MM_MV && (na != 2 || nb != 1)) || (kind == MM_DOT && (na != 1 || nb != 1)))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: operands of %d and %d dims", nm, na, nb);
    if (na < 1 || nb < 1) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: self and mat2 need at least 1 dim", nm);
    int ct = promote(self->dtype, mat2->dtype);
    int8_t cube = (int8_t)a->i[0];
    if (cube < 0 || cube > 4 || (cube == 2 && ct == ACL_BF16) || (cube == 3 && ct != ACL_FLOAT))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: cubeMathType %d is not supported for %s", nm, cube, dtname(ct));
    /* ops-nn matmul/common cube_util: only 910B-class parts and Ascend950 compute float32 / bfloat16 on the cube;
     * elsewhere KEEP_DTYPE, USE_HF32 and USE_FP32_ADD refuse FLOAT (aclnnDot has no cubeMathType: not a cube op) */
    int fp32_cube = chip_family() == FAM_910B || chip_family() == FAM_950;
    if (!fp32_cube && kind != MM_DOT && ((ct == ACL_FLOAT && (cube == 0 || cube >= 3)) || ct == ACL_BF16))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: The soc version does not support bf16 / fp32 for calculations, "
            "please change the setting of cubeMathType or the Dtype of input tensor.", nm);
    int64_t ka = self->dims[na - 1], kb = nb == 1 ? mat2->dims[0] : mat2->dims[nb - 2];
    if (ka != kb)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: inner dims differ (self %lld, mat2 %lld)", nm,
            (long long)ka, (long long)kb);
    int64_t shape[SIM_MAXDIM];
    int anb = na > 2 ? na - 2 : 0, bnb = nb > 2 ? nb - 2 : 0;
    int n = bshape(anb, self->dims, bnb, mat2->dims, shape);
    if (n < 0 || (kind == MM_BATCH && self->dims[0] != mat2->dims[0]))
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: batch dims do not match", nm);
    if (na > 1) shape[n++] = self->dims[na - 2];
    if (nb > 1) shape[n++] = mat2->dims[nb - 1];
    if (!same_shape(out, n, shape)) {
        char s1[256], s2[256];
        shape_str(s1, sizeof s1, (int)out->ndim, out->dims);
        shape_str(s2, sizeof s2, n, shape);
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: out shape %s, expected %s", nm, s1, s2);
    }
    KEEP(e, ct, out, self, mat2);
    e->ip[0] = cube;
    e->ip[2] = fp32_cube;
    for (int k = 1; k < 3; k++) /* non-contiguous operands are packed into the workspace first */
        if (!contiguous(&e->t[k])) {
            e->ip[1] |= 1 << k;
            e->ws_size += (uint64_t)((numel(&e->t[k]) * dt_size(e->t[k].dt) + 511) / 512 * 512);
        }
    return 0;
}


/* ---- linear algebra (ops-math math/cholesky, slogdet, qr, triangular_solve) on dense double copies, batched over
 * the leading dims; ip[3] selects the operator */

/* row-major index of batch `b` of `out_dims` in an operand whose batch dims broadcast to them */
static int64_t batch_of(int64_t b, int nb, const int64_t *out_dims, int nin, const int64_t *in_dims) {
    int64_t r = 0, stride = 1;
    for (int i = nb - 1; i >= 0; i--) {
        int64_t c = b % out_dims[i];
        b /= out_dims[i];
        int j = i - (nb - nin);
        if (j >= 0) {
            if (in_dims[j] != 1) r += c * stride;
            stride *= in_dims[j];
        }
    }
    return r;
}

int run_linalg(aclOpExecutor *e, double **x, char *msg, size_t len) {
    (void)msg, (void)len;
    const tview *in = &e->t[1];
    int64_t m = in->dims[in->nd - 2], n = in->dims[in->nd - 1], mats = numel(in) / nz(m * n);
    if (e->ip[3] == LA_CHOLESKY) { /* lower factor, or its transpose; a non-positive pivot poisons the rows after */
        for (int64_t b = 0; b < mats; b++) {
            double *a = x[1] + b * n * n, *l = x[0] + b * n * n;
            int64_t bad = n; /* the first non-positive pivot: rows from there on are NaN */
            for (int64_t j = 0; j < n && bad == n; j++) {
                double d = a[j * n + j];
                for (int64_t k = 0; k < j; k++) d -= l[j * n + k] * l[j * n + k];
                if (!(d > 0)) { bad = j; break; }
                l[j * n + j] = sqrt(d);
                for (int64_t i = j + 1; i < n; i++) {
                    double s = a[i * n + j];
                    for (int64_t k = 0; k < j; k++) s -= l[i * n + k] * l[j * n + k];
                    l[i * n + j] = s / l[j * n + j];
                }
            }
            for (int64_t i = bad * n; i < n * n; i++) l[i] = NAN;
            if (e->ip[0])
                for (int64_t i = 0; i < n; i++)
                    for (int64_t j = i + 1; j < n; j++) { l[i * n + j] = l[j * n + i]; l[j * n + i] = 0; }
        }
    } else if (e->ip[3] == LA_SLOGDET) { /* LU with partial pivoting: sign and log |det| (singular: 0, -inf) */
        double *w = malloc(sizeof(double) * (size_t)nz(n * n));
        for (int64_t b = 0; b < mats; b++) {
            memcpy(w, x[1] + b * n * n, sizeof(double) * (size_t)(n * n));
            double sign = 1, logabs = 0;
            for (int64_t c = 0; c < n; c++) {
                int64_t p = c;
                for (int64_t r = c + 1; r < n; r++) if (fabs(w[r * n + c]) > fabs(w[p * n + c])) p = r;
                if (w[p * n + c] == 0) { sign = 0; logabs = -INFINITY; break; }
                if (p != c) { for (int64_t k = 0; k < n; k++) { double t = w[c * n + k]; w[c * n + k] = w[p * n + k]; w[p * n + k] = t; } sign = -sign; }
                double piv = w[c * n + c];
                if (piv < 0) sign = -sign;
                logabs += log(fabs(piv));
                for (int64_t r = c + 1; r < n; r++) {
                    double f = w[r * n + c] / piv;
                    for (int64_t k = c; k < n; k++) w[r * n + k] -= f * w[c * n + k];
                }
            }
            x[0][b] = sign;
            x[2][b] = logabs;
        }
        free(w);
    } else if (e->ip[3] == LA_QR) { /* Householder reflections with LAPACK's sign convention (dgeqrf / dorgqr) */
        int64_t k = m < n ? m : n, qc = e->ip[0] ? m : k, rr = e->ip[0] ? m : k;
        double *r = malloc(sizeof(double) * (size_t)nz(m * n)), *q = malloc(sizeof(double) * (size_t)nz(m * m));
        double *v = malloc(sizeof(double) * (size_t)nz(m)), *tau = malloc(sizeof(double) * (size_t)nz(k));
        double *vs = malloc(sizeof(double) * (size_t)nz(m * k));
        for (int64_t b = 0; b < mats; b++) {
            memcpy(r, x[1] + b * m * n, sizeof(double) * (size_t)(m * n));
            for (int64_t j = 0; j < k; j++) {
                double alpha = r[j * n + j], xn = 0;
                for (int64_t i = j + 1; i < m; i++) xn += r[i * n + j] * r[i * n + j];
                for (int64_t i = 0; i < m; i++) v[i] = 0;
                tau[j] = 0;
                if (xn > 0) {
                    double beta = -copysign(sqrt(alpha * alpha + xn), alpha);
                    tau[j] = (beta - alpha) / beta;
                    v[j] = 1;
                    for (int64_t i = j + 1; i < m; i++) v[i] = r[i * n + j] / (alpha - beta);
                    for (int64_t c = j; c < n; c++) { /* R <- (I - tau v v^T) R */
                        double s = 0;
                        for (int64_t i = j; i < m; i++) s += v[i] * r[i * n + c];
                        for (int64_t i = j; i < m; i++) r[i * n + c] -= tau[j] * v[i] * s;
                    }
                    for (int64_t i = j + 1; i < m; i++) r[i * n + j] = 0;
                }
                for (int64_t i = 0; i < m; i++) vs[i * k + j] = v[i];
            }
            for (int64_t i = 0; i < m * m; i++) q[i] = 0;
            for (int64_t i = 0; i < m; i++) q[i * m + i] = 1;
            for (int64_t j = k - 1; j >= 0; j--) { /* Q = H1 ... Hk applied to the identity */
                if (tau[j] == 0) continue;
                for (int64_t c = 0; c < m; c++) {
                    double s = 0;
                    for (int64_t i = j; i < m; i++) s += vs[i * k + j] * q[i * m + c];
                    for (int64_t i = j; i < m; i++) q[i * m + c] -= tau[j] * vs[i * k + j] * s;
                }
            }
            for (int64_t i = 0; i < m; i++)
                for (int64_t c = 0; c < qc; c++) x[0][(b * m + i) * qc + c] = q[i * m + c];
            for (int64_t i = 0; i < rr; i++)
                for (int64_t c = 0; c < n; c++) x[2][(b * rr + i) * n + c] = i < m ? r[i * n + c] : 0;
        }
        free(r); free(q); free(v); free(tau); free(vs);
    } else { /* A X = B (or A^T X = B) with A triangular; t = {X, B, A, M}, batch dims broadcast */
        const tview *xo = &e->t[0], *bv = &e->t[1], *av = &e->t[2];
        int64_t nn = av->dims[av->nd - 1], kk = xo->dims[xo->nd - 1], nbat = numel(xo) / nz(nn * kk);
        int up = (int)e->ip[0], tr = (int)e->ip[1], unit = (int)e->ip[2], nb = xo->nd - 2;
        for (int64_t bi = 0; bi < nbat; bi++) {
            const double *A = x[2] + batch_of(bi, nb, xo->dims, av->nd - 2, av->dims) * nn * nn;
            const double *Bm = x[1] + batch_of(bi, nb, xo->dims, bv->nd - 2, bv->dims) * nn * kk;
            double *X = x[0] + bi * nn * kk, *M = x[3] ? x[3] + bi * nn * nn : NULL;
            /* the effective matrix is upper triangular iff (upper xor transpose) */
            int eff_up = up != tr;
            for (int64_t c = 0; c < kk; c++)
                for (int64_t s = 0; s < nn; s++) {
                    int64_t i = eff_up ? nn - 1 - s : s;
                    double acc = Bm[i * kk + c];
                    for (int64_t j = 0; j < nn; j++) {
                        if (eff_up ? j <= i : j >= i) continue;
                        double aij = tr ? A[j * nn + i] : A[i * nn + j];
                        acc -= aij * X[j * kk + c];
                    }
                    X[i * kk + c] = unit ? acc : acc / A[i * nn + i];
                }
            if (M)
                for (int64_t i = 0; i < nn; i++)
                    for (int64_t j = 0; j < nn; j++) M[i * nn + j] = (up ? j >= i : j <= i) ? A[i * nn + j] : 0;
        }
    }
    return 0;
}

/* LinalgCholesky x = {out, self}, i[0] upper; Slogdet x = {signOut, self, logOut}; LinalgQr x = {Q, self, R},
 * i[0] mode (0 reduced, 1 complete); TriangularSolve x = {xOut, self (b), A, mOut}, i = {upper, transpose, unit} */
aclnnStatus v_linalg(const op_def *d, args *a, aclOpExecutor *e) {
    int kind = KIND_OF(d->flags);
    const aclTensor *in = a->x[kind == LA_TRISOLVE ? 2 : 1];
    aclnnStatus rc;
    if ((rc = check_tensor(d, in, kind == LA_TRISOLVE ? "A" : "self", 8))) return rc;
    if (in->ndim < 2) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: self needs at least 2 dims", d->name);
    int nd = (int)in->ndim;
    int64_t m = in->dims[nd - 2], n = in->dims[nd - 1], shape[SIM_MAXDIM];
    if (kind != LA_QR && m != n) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: the last two dims must be equal", d->name);
    memcpy(shape, in->dims, sizeof(int64_t) * (size_t)nd);
    if (kind == LA_CHOLESKY) {
        if ((rc = check_same(d, a->x[0], in, "out")) || (rc = check_shape(d, a->x[0], nd, shape, "out"))) return rc;
        snap_all(e, a->x, 2, 0x2, 0x1);
    } else if (kind == LA_SLOGDET) {
        for (int j = 0; j < 3; j += 2)
            if ((rc = check_same(d, a->x[j], in, j ? "logOut" : "signOut")) || (rc = check_shape(d, a->x[j], nd - 2, shape, "signOut/logOut")))
                return rc;
        snap_all(e, a->x, 3, 0x2, 0x5);
    } else if (kind == LA_QR) {
        if (a->i[0] != 0 && a->i[0] != 1) BAD(ACLNN_ERR_PARAM_INVALID, "aclnnLinalgQrGetWorkspaceSize: mode %lld is not 0 or 1", (long long)a->i[0]);
        int64_t k = a->i[0] ? m : (m < n ? m : n);
        shape[nd - 1] = k;
        if ((rc = check_same(d, a->x[0], in, "Q")) || (rc = check_shape(d, a->x[0], nd, shape, "Q"))) return rc;
        shape[nd - 2] = k;
        shape[nd - 1] = n;
        if ((rc = check_same(d, a->x[2], in, "R")) || (rc = check_shape(d, a->x[2], nd, shape, "R"))) return rc;
        snap_all(e, a->x, 3, 0x2, 0x5);
    } else {
        const aclTensor *b = a->x[1];
        if ((rc = check_same(d, b, in, "self")) || b->ndim < 2 || b->dims[b->ndim - 2] != n)
            return rc ? rc : (aclsim_set_err("aclnnTriangularSolveGetWorkspaceSize: self must be [..., n, k] for A [..., n, n]"), ACLNN_ERR_PARAM_INVALID);
        if (a->i[2] && in->dtype != ACL_FLOAT) BAD(ACLNN_ERR_PARAM_INVALID, "aclnnTriangularSolveGetWorkspaceSize: unitriangular takes FLOAT only");
        int64_t bs[SIM_MAXDIM];
        int nb = bshape(nd - 2, in->dims, (int)b->ndim - 2, b->dims, bs);
        if (nb < 0) BAD(ACLNN_ERR_PARAM_INVALID, "aclnnTriangularSolveGetWorkspaceSize: the batch dims of A and self do not broadcast");
        bs[nb] = n;
        bs[nb + 1] = b->dims[b->ndim - 1];
        if ((rc = check_same(d, a->x[0], in, "xOut")) || (rc = check_shape(d, a->x[0], nb + 2, bs, "xOut"))) return rc;
        bs[nb + 1] = n;
        if (a->x[3] && ((rc = check_same(d, a->x[3], in, "mOut")) || (rc = check_shape(d, a->x[3], nb + 2, bs, "mOut")))) return rc;
        snap_all(e, a->x, 4, 0x6, 0x9);
        e->ip[1] = a->i[1];
        e->ip[2] = a->i[2];
    }
    e->ip[0] = a->i[0];
    e->ip[3] = kind;
    e->ct = in->dtype;
    return 0;
}


/* one-sided Jacobi SVD of a (m x n, m >= n) column-major-in-spirit work copy W (row-major m x n): W's columns
 * become U * sigma, V accumulates the rotations; sigma descending afterwards (column order permuted) */
static void jacobi_svd(double *w, double *v, double *sigma, int64_t m, int64_t n) {
    for (int64_t i = 0; i < n * n; i++) v[i] = 0;
    for (int64_t i = 0; i < n; i++) v[i * n + i] = 1;
    for (int sweep = 0; sweep < 80; sweep++) {
        int rotated = 0;
        for (int64_t p = 0; p < n; p++)
            for (int64_t q = p + 1; q < n; q++) {
                double al = 0, be = 0, ga = 0;
                for (int64_t i = 0; i < m; i++) {
                    al += w[i * n + p] * w[i * n + p];
                    be += w[i * n + q] * w[i * n + q];
                    ga += w[i * n + p] * w[i * n + q];
                }
                if (fabs(ga) <= 1e-15 * sqrt(al * be) || ga == 0) continue;
                rotated = 1;
                double zeta = (be - al) / (2 * ga), t = copysign(1.0, zeta) / (fabs(zeta) + sqrt(1 + zeta * zeta));
                double c = 1 / sqrt(1 + t * t), s = c * t;
                for (int64_t i = 0; i < m; i++) {
                    double a = w[i * n + p], b = w[i * n + q];
                    w[i * n + p] = c * a - s * b;
                    w[i * n + q] = s * a + c * b;
                }
                for (int64_t i = 0; i < n; i++) {
                    double a = v[i * n + p], b = v[i * n + q];
                    v[i * n + p] = c * a - s * b;
                    v[i * n + q] = s * a + c * b;
                }
            }
        if (!rotated) break;
    }
    for (int64_t j = 0; j < n; j++) {
        double s = 0;
        for (int64_t i = 0; i < m; i++) s += w[i * n + j] * w[i * n + j];
        sigma[j] = sqrt(s);
    }
    for (int64_t j = 0; j < n; j++) { /* selection sort, descending, carrying the columns */
        int64_t b = j;
        for (int64_t k = j + 1; k < n; k++) if (sigma[k] > sigma[b]) b = k;
        if (b == j) continue;
        double t = sigma[j]; sigma[j] = sigma[b]; sigma[b] = t;
        for (int64_t i = 0; i < m; i++) { t = w[i * n + j]; w[i * n + j] = w[i * n + b]; w[i * n + b] = t; }
        for (int64_t i = 0; i < n; i++) { t = v[i * n + j]; v[i * n + j] = v[i * n + b]; v[i * n + b] = t; }
    }
}

/* columns [from, cols) of the r x cols row-major q made orthonormal to the ones before (Gram-Schmidt over the
 * unit vectors): completes a basis, and replaces columns of zero singular values */
static void complete_basis(double *q, int64_t r, int64_t cols, int64_t from) {
    int64_t e = 0;
    for (int64_t j = from; j < cols; j++) {
        for (;;) {
            for (int64_t i = 0; i < r; i++) q[i * cols + j] = i == e % r ? 1 : 0;
            e++;
            for (int pass = 0; pass < 2; pass++)
                for (int64_t k = 0; k < j; k++) {
                    double d = 0;
                    for (int64_t i = 0; i < r; i++) d += q[i * cols + k] * q[i * cols + j];
                    for (int64_t i = 0; i < r; i++) q[i * cols + j] -= d * q[i * cols + k];
                }
            double nrm = 0;
            for (int64_t i = 0; i < r; i++) nrm += q[i * cols + j] * q[i * cols + j];
            if (nrm > 1e-6 || e > 2 * r) {
                nrm = sqrt(nrm);
                for (int64_t i = 0; i < r; i++) q[i * cols + j] /= nrm;
                break;
            }
        }
    }
}

/* Svd: t = {sigma, input, u, v}; ip[0] fullMatrices, ip[1] computeUV (false: u and v are zeros) */
int run_svd(aclOpExecutor *e, double **x, char *msg, size_t len) {
    (void)msg, (void)len;
    const tview *in = &e->t[1];
    int64_t m = in->dims[in->nd - 2], n = in->dims[in->nd - 1], k = m < n ? m : n, mats = numel(in) / nz(m * n);
    int tall = m >= n, full = (int)e->ip[0];
    int64_t r = tall ? m : n, c = tall ? n : m; /* the work matrix is r x c, r >= c */
    int64_t uc = full ? m : k, vc = full ? n : k;
    double *w = malloc(sizeof(double) * (size_t)nz(r * c)), *vv = malloc(sizeof(double) * (size_t)nz(c * c));
    double *sg = malloc(sizeof(double) * (size_t)nz(c));
    double *U = malloc(sizeof(double) * (size_t)nz(m * uc)), *V = malloc(sizeof(double) * (size_t)nz(n * vc));
    for (int64_t b = 0; b < mats; b++) {
        const double *a = x[1] + b * m * n;
        for (int64_t i = 0; i < r; i++)
            for (int64_t j = 0; j < c; j++) w[i * c + j] = tall ? a[i * n + j] : a[j * n + i];
        jacobi_svd(w, vv, sg, r, c);
        for (int64_t j = 0; j < k; j++) x[0][b * k + j] = sg[j];
        if (!e->ip[1]) continue;
        /* the work matrix's left vectors (w / sigma) and right vectors (vv): U and V, or V and U when wide */
        double *L = tall ? U : V, *R = tall ? V : U;
        int64_t lc = tall ? uc : vc, rc = tall ? vc : uc;
        for (int64_t i = 0; i < r; i++)
            for (int64_t j = 0; j < lc; j++) L[i * lc + j] = j < c && sg[j] > 0 ? w[i * c + j] / sg[j] : 0;
        for (int64_t i = 0; i < c; i++)
            for (int64_t j = 0; j < rc; j++) R[i * rc + j] = j < c ? vv[i * c + j] : 0;
        int64_t nz_sv = 0;
        while (nz_sv < c && sg[nz_sv] > 0) nz_sv++;
        complete_basis(L, r, lc, nz_sv < lc ? nz_sv : lc);
        complete_basis(R, c, rc, c < rc ? c : rc);
        memcpy(x[2] + b * m * uc, U, sizeof(double) * (size_t)(m * uc));
        memcpy(x[3] + b * n * vc, V, sizeof(double) * (size_t)(n * vc));
    }
    free(w); free(vv); free(sg); free(U); free(V);
    return 0;
}

aclnnStatus v_svd(const op_def *d, args *a, aclOpExecutor *e) {
    const aclTensor *in = a->x[1];
    aclnnStatus rc;
    if ((rc = check_tensor(d, in, "input", 8))) return rc;
    int nd = (int)in->ndim;
    if (nd < 2) BAD(ACLNN_ERR_PARAM_INVALID, "aclnnSvdGetWorkspaceSize: input needs at least 2 dims");
    int64_t m = in->dims[nd - 2], n = in->dims[nd - 1], k = m < n ? m : n, shape[SIM_MAXDIM];
    memcpy(shape, in->dims, sizeof(int64_t) * (size_t)nd);
    shape[nd - 2] = k;
    if ((rc = check_same(d, a->x[0], in, "sigma")) || (rc = check_shape(d, a->x[0], nd - 1, shape, "sigma"))) return rc;
    shape[nd - 2] = m;
    shape[nd - 1] = a->i[0] ? m : k;
    if ((rc = check_same(d, a->x[2], in, "u")) || (rc = check_shape(d, a->x[2], nd, shape, "u"))) return rc;
    shape[nd - 2] = n;
    shape[nd - 1] = a->i[0] ? n : k;
    if ((rc = check_same(d, a->x[3], in, "v")) || (rc = check_shape(d, a->x[3], nd, shape, "v"))) return rc;
    snap_all(e, a->x, 4, 0x2, 0xD);
    e->ip[0] = a->i[0];
    e->ip[1] = a->i[1];
    e->ct = in->dtype;
    return 0;
}
