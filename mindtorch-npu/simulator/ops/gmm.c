/* libopapi, grouped matmul: aclnnGroupedMatmulV4 (ops-transformer gmm/grouped_matmul, prototype from
 * op_host/op_api/aclnn_grouped_matmul_v4.h). Its docs/aclnnGroupedMatmulV4.md is a stub pointing at the online
 * manual; what is checked here comes from the operator folder's README.md (product list, parameter table, the
 * 约束说明 tables of the non-quantized rows and of the group_type scenarios) and from how op-plugin calls it for
 * torch_npu.npu_grouped_matmul (GroupedMatmulKernelNpuOpApi.cpp: empty lists for the unused optional inputs,
 * splitItem 2/3 for one output tensor, groupListType 0 = cumulative ends, 1 = counts).
 *
 * Simulated: the non-quantized forms with one tensor in each of x, weight and out -
 *   groupType 0 (m-axis groups): x [M, K], weight [G, K, N] (or its transposed view [G, N, K]^T), out [M, N];
 *     group g's rows of x times weight[g]; rows past the last group are left as they are (the README asks only
 *     that the groups end within x's first dim);
 *   groupType 2 (k-axis groups): x [M, K] given transposed (the README: x must be transposed, weight must not
 *     be), weight [K, N], out [G, M, N]; group g's columns of x times its rows of weight (an empty group: 0).
 * Refused: a list with more or fewer than one tensor, bias / quantization / activation inputs and outputs, and
 * whatever the README's tables leave out (groupType -1 needs several tensors per list). */
#include "ops_internal.h"

#define GMM_MAX_GROUPS 1024 /* the README: group_list's first dim is at most 1024 (单单单) */
#define GMM_MAX_LAST 65536  /* the README: every tensor's last dim is below 65536 */
enum { G_OUT, G_X, G_W, G_LIST };
/* e->ip: groupType, groupListType, G, M, K, N (the logical dims; a transposed operand is walked as its view) */
enum { P_TYPE, P_LIST_TYPE, P_G, P_M, P_K, P_N };

/* a 2-D (or the last two dims of a 3-D) view whose last two dims are swapped in memory: the README's "transposed"
 * operand, which it says must be non-contiguous */
static int transposed(const aclTensor *t) {
    int n = (int)t->ndim;
    return n >= 2 && t->dims[n - 2] > 1 && t->strides[n - 2] == 1 && t->strides[n - 1] == t->dims[n - 2];
}

static aclnnStatus single(const op_def *d, const void *list, const char *what, const aclTensor **t) {
    uint64_t n = 0;
    const aclTensor *const *ts = list ? aclsim_tensor_list(list, &n) : NULL;
    if (!ts) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: %s is not a live aclTensorList", d->name, what);
    if (n != 1)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: %s holds %llu tensors; only one tensor per list is "
            "simulated", d->name, what, (unsigned long long)n);
    *t = ts[0];
    return check_tensor(d, ts[0], what, 6);
}

static aclnnStatus check_optional(const op_def *d, const args *a) {
    static const char *const names[] = {"biasOptional", "scaleOptional", "offsetOptional", "antiquantScaleOptional",
        "antiquantOffsetOptional", "perTokenScaleOptional", "activationInputOptional", "activationQuantScaleOptional",
        "activationQuantOffsetOptional", "activationFeatureOutOptional", "dynQuantScaleOutOptional"};
    for (int j = 0; j < 11; j++) {
        uint64_t n = 0;
        if (!a->opt[j]) continue;
        if (!aclsim_tensor_list(a->opt[j], &n))
            BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: %s is not a live aclTensorList", d->name, names[j]);
        if (n)
            BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: %s is not simulated (bias, quantization and "
                "activation fusion)", d->name, names[j]);
    }
    if (a->i[3])
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: actType %lld: the README computes activations only in "
            "the quantized forms", d->name, (long long)a->i[3]);
    return 0;
}

static aclnnStatus check_group_list(const op_def *d, const aclTensor *gl, int64_t groups, int64_t type) {
    if (!gl) BAD(ACLNN_ERR_PARAM_NULLPTR, "aclnn%sGetWorkspaceSize: groupListOptional is required for one x tensor", d->name);
    aclnnStatus rc = check_tensor(d, gl, "group_list", 1);
    if (rc) return rc;
    if (gl->ndim != 1 || gl->dims[0] != groups)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: group_list must be 1-d with one entry per group (%lld)",
            d->name, (long long)groups);
    if (groups < 1 || groups > GMM_MAX_GROUPS)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: %lld groups, the README allows 1..%d", d->name,
            (long long)groups, GMM_MAX_GROUPS);
    if (type != 0 && type != 1) /* 2 ([E, 2] index / size pairs) is the README's INT8 form only */
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: groupListType %lld is not 0 (cumulative) or 1 (counts) "
            "for these dtypes", d->name, (long long)type);
    return 0;
}

static aclnnStatus check_dtypes(const op_def *d, const aclTensor *x, const aclTensor *w, const aclTensor *y) {
    if (x->dtype != ACL_FLOAT && x->dtype != ACL_FLOAT16 && x->dtype != ACL_BF16)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: x dtype %s: the quantized forms are not simulated",
            d->name, dtname(x->dtype));
    if (w->dtype != x->dtype || y->dtype != x->dtype) /* the README's non-quantized rows: x, weight, out alike */
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: x %s, weight %s and out %s: the non-quantized forms "
            "take one dtype", d->name, dtname(x->dtype), dtname(w->dtype), dtname(y->dtype));
    if (x->dims[x->ndim - 1] >= GMM_MAX_LAST || w->dims[w->ndim - 1] >= GMM_MAX_LAST)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: the last dims of x and weight must be below %d",
            d->name, GMM_MAX_LAST);
    return 0;
}

/* groupType 0: x [M, K], weight [G, K, N], out [M, N] */
static aclnnStatus check_m_split(const op_def *d, const aclTensor *x, const aclTensor *w, const aclTensor *y, int64_t *ip) {
    if (x->ndim != 2 || w->ndim != 3 || y->ndim != 2)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: groupType 0 with single tensors takes a 2-d x, 3-d "
            "weight and 2-d out", d->name);
    if (transposed(x)) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: groupType 0 does not take x transposed", d->name);
    if (w->dims[1] != x->dims[1])
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: x's K %lld differs from weight's %lld", d->name,
            (long long)x->dims[1], (long long)w->dims[1]);
    int64_t want[2] = {x->dims[0], w->dims[2]};
    aclnnStatus rc = check_shape(d, y, 2, want, "out");
    if (rc) return rc;
    ip[P_G] = w->dims[0], ip[P_M] = x->dims[0], ip[P_K] = x->dims[1], ip[P_N] = w->dims[2];
    return 0;
}

/* groupType 2: x [M, K] transposed, weight [K, N] not, out [G, M, N] */
static aclnnStatus check_k_split(const op_def *d, const aclTensor *x, const aclTensor *w, const aclTensor *y,
                                 const aclTensor *gl, int64_t *ip) {
    if (x->ndim != 2 || w->ndim != 2 || y->ndim != 3)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: groupType 2 takes a 2-d x and weight and a 3-d out", d->name);
    if (!transposed(x) && x->dims[0] > 1)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: groupType 2 takes x transposed", d->name);
    if (transposed(w)) BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: groupType 2 does not take weight transposed", d->name);
    if (w->dims[0] != x->dims[1])
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: x's K %lld differs from weight's %lld", d->name,
            (long long)x->dims[1], (long long)w->dims[0]);
    int64_t groups = gl ? gl->dims[0] : 0, want[3] = {groups, x->dims[0], w->dims[1]};
    aclnnStatus rc = check_shape(d, y, 3, want, "out");
    if (rc) return rc;
    ip[P_G] = groups, ip[P_M] = x->dims[0], ip[P_K] = x->dims[1], ip[P_N] = w->dims[1];
    return 0;
}

aclnnStatus v_gmm(const op_def *d, args *a, aclOpExecutor *e) {
    const aclTensor *x, *w, *y, *gl = a->x[0];
    int64_t split = a->i[0], type = a->i[1], list_type = a->i[2];
    aclnnStatus rc;
    if ((rc = single(d, a->lists[0], "x", &x)) || (rc = single(d, a->lists[1], "weight", &w)) ||
        (rc = single(d, a->lists[2], "out", &y)) || (rc = check_optional(d, a)))
        return rc;
    if (type != -1 && type != 0 && type != 2)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: groupType %lld is not -1, 0 or 2", d->name, (long long)type);
    if (type == -1)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: groupType -1 takes several tensors per list, not "
            "simulated", d->name);
    if (split != 2 && split != 3)
        BAD(ACLNN_ERR_PARAM_INVALID, "aclnn%sGetWorkspaceSize: splitItem %lld: one tensor in x and out takes 2 or 3",
            d->name, (long long)split);
    if ((rc = check_dtypes(d, x, w, y))) return rc;
    int64_t *ip = e->ip;
    rc = type == 0 ? check_m_split(d, x, w, y, ip) : check_k_split(d, x, w, y, gl, ip);
    if (rc || (rc = check_group_list(d, gl, ip[P_G], list_type))) return rc;
    ip[P_TYPE] = type, ip[P_LIST_TYPE] = list_type;
    /* out is read too: the rows no group covers keep their values */
    const aclTensor *views[4] = {y, x, w, gl};
    snap_all(e, views, 4, 0xF, 0x1);
    e->ct = x->dtype;
    return 0;
}

/* the groups' [start, end) along the grouped axis of length `len` from group_list (cumulative ends or counts) */
static int group_bounds(const aclOpExecutor *e, const double *gl, int64_t len, int64_t *start, int64_t *end, char *msg,
                        size_t n) {
    int64_t at = 0;
    for (int64_t g = 0; g < e->ip[P_G]; g++) {
        int64_t v = (int64_t)gl[g], stop = e->ip[P_LIST_TYPE] ? at + v : v;
        if (v < 0 || stop < at || stop > len) {
            snprintf(msg, n, "aclnnGroupedMatmulV4: group_list[%lld] = %lld leaves the groups outside 0..%lld or out of "
                     "order", (long long)g, (long long)v, (long long)len);
            return ACL_ERROR_RT_AICORE_EXCEPTION;
        }
        start[g] = at, end[g] = stop, at = stop;
    }
    return 0;
}

int run_gmm(aclOpExecutor *e, double **x, char *msg, size_t len) {
    const int64_t *ip = e->ip, G = ip[P_G], M = ip[P_M], K = ip[P_K], N = ip[P_N];
    int64_t *start = malloc(sizeof(int64_t) * (size_t)G), *end = malloc(sizeof(int64_t) * (size_t)G);
    int rc = !start || !end ? ACL_ERROR_RT_MEMORY_ALLOCATION : 0;
    if (rc) snprintf(msg, len, "aclnnGroupedMatmulV4: out of host memory");
    if (!rc) rc = group_bounds(e, x[G_LIST], ip[P_TYPE] ? K : M, start, end, msg, len);
    const double *X = x[G_X], *W = x[G_W];
    double *Y = x[G_OUT];
    for (int64_t g = 0; g < G && !rc; g++) {
        if (ip[P_TYPE] == 0) { /* rows start..end of x times weight[g] */
            const double *wg = W + g * K * N;
            for (int64_t r = start[g]; r < end[g]; r++)
                for (int64_t c = 0; c < N; c++) {
                    double s = 0;
                    for (int64_t k = 0; k < K; k++) s += X[r * K + k] * wg[k * N + c];
                    Y[r * N + c] = s;
                }
            continue;
        }
        for (int64_t r = 0; r < M; r++) /* columns start..end of x times those rows of weight */
            for (int64_t c = 0; c < N; c++) {
                double s = 0;
                for (int64_t k = start[g]; k < end[g]; k++) s += X[r * K + k] * W[k * N + c];
                Y[(g * M + r) * N + c] = s;
            }
    }
    free(start), free(end);
    return rc;
}
