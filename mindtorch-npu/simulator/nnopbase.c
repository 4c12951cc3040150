/* libnnopbase.so: aclTensor / aclScalar / arrays / lists (host-side descriptors, copied at creation)
 * and the aclOpExecutor life cycle (snapshot at phase 1, consumed by the launch unless repeatable). */
#include "aclsim.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define M_TENSOR 0x54454e53u
#define M_SCALAR 0x5343414cu
#define M_ARRAY 0x41525259u
#define M_TLIST 0x544c5354u
#define M_SLIST 0x534c5354u
#define M_DEAD 0xdeadbeefu

#define FAILN(code, ...) do { aclsim_set_err(__VA_ARGS__); return (code); } while (0)
#define FAILP(...) do { aclsim_set_err(__VA_ARGS__); return NULL; } while (0)

EXPORT aclnnStatus aclnnInit(const char *configPath) { (void)configPath; return ACLNN_SUCCESS; }
EXPORT aclnnStatus aclnnFinalize(void) { return ACLNN_SUCCESS; }

/* ---------------------------------------------------------------- tensors */
static int plain_dtype(int dt) { return dt_size(dt) != 0; }

EXPORT int aclsim_check_tensor(const aclTensor *t) { return t && t->magic == M_TENSOR; }
EXPORT int aclsim_check_scalar(const aclScalar *s) { return s && s->magic == M_SCALAR; }

EXPORT aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum, int dataType, const int64_t *stride,
                                  int64_t offset, int format, const int64_t *storageDims, uint64_t storageDimsNum,
                                  void *tensorData) {
    if (viewDimsNum > SIM_MAXDIM || storageDimsNum > SIM_MAXDIM)
        FAILP("aclCreateTensor: at most %d dims are supported", SIM_MAXDIM);
    if ((viewDimsNum && !viewDims) || (storageDimsNum && !storageDims))
        FAILP("aclCreateTensor: viewDims or storageDims is NULL");
    if (!plain_dtype(dataType)) FAILP("aclCreateTensor: unsupported aclDataType %d", dataType);
    if (offset < 0) FAILP("aclCreateTensor: offset %lld is negative", (long long)offset);
    aclTensor *t = calloc(1, sizeof *t);
    t->dtype = dataType;
    t->format = format;
    t->ndim = (uint32_t)viewDimsNum;
    t->sndim = (uint32_t)storageDimsNum;
    t->offset = offset;
    t->data = tensorData;
    int64_t numel = 1, extent = 0, snumel = 1;
    for (uint64_t i = 0; i < viewDimsNum; i++) {
        t->dims[i] = viewDims[i];
        if (viewDims[i] < 0) { free(t); FAILP("aclCreateTensor: view dim %llu is negative", (unsigned long long)i); }
        numel *= viewDims[i];
    }
    /* no strides given: contiguous row-major */
    for (int64_t i = (int64_t)viewDimsNum - 1, acc = 1; i >= 0; i--) {
        t->strides[i] = stride ? stride[i] : acc;
        acc *= viewDims[i] ? viewDims[i] : 1;
        if (t->strides[i] < 0) { free(t); FAILP("aclCreateTensor: stride %lld is negative", (long long)i); }
        extent += (viewDims[i] - 1) * t->strides[i];
    }
    for (uint64_t i = 0; i < storageDimsNum; i++) {
        if (storageDims[i] < 0) { free(t); FAILP("aclCreateTensor: storage dim %llu is negative", (unsigned long long)i); }
        t->sdims[i] = storageDims[i];
        snumel *= storageDims[i];
    }
    if (numel > 0 && offset + extent + 1 > snumel) {
        free(t);
        FAILP("aclCreateTensor: the view (offset %lld, last element %lld) exceeds the storage of %lld elements",
              (long long)offset, (long long)(offset + extent), (long long)snumel);
    }
    t->magic = M_TENSOR;
    aclsim_count(K_TENSORS, 1);
    return t;
}

EXPORT aclnnStatus aclDestroyTensor(const aclTensor *tensor) {
    if (!tensor) return ACLNN_SUCCESS; /* like delete nullptr */
    if (tensor->magic != M_TENSOR) FAILN(ACLNN_ERR_PARAM_INVALID, "aclDestroyTensor: %p is not a live aclTensor", (void *)tensor);
    ((aclTensor *)tensor)->magic = M_DEAD;
    free((void *)tensor);
    aclsim_count(K_TENSORS, -1);
    return ACLNN_SUCCESS;
}

static int64_t *dup_i64(const int64_t *v, uint64_t n) {
    int64_t *r = malloc((n ? n : 1) * sizeof *r);
    if (n) memcpy(r, v, n * sizeof *r);
    return r;
}

#define CHECK_T(fn)                                                                     \
    if (!tensor) FAILN(ACLNN_ERR_PARAM_NULLPTR, fn ": tensor is NULL");                 \
    if (tensor->magic != M_TENSOR) FAILN(ACLNN_ERR_PARAM_INVALID, fn ": not a live aclTensor");

/* the returned arrays are malloc'ed for the caller, who frees them (free()) */
EXPORT aclnnStatus aclGetViewShape(const aclTensor *tensor, int64_t **viewDims, uint64_t *viewDimsNum) {
    CHECK_T("aclGetViewShape");
    if (!viewDims || !viewDimsNum) FAILN(ACLNN_ERR_PARAM_NULLPTR, "aclGetViewShape: output pointer is NULL");
    *viewDims = dup_i64(tensor->dims, tensor->ndim);
    *viewDimsNum = tensor->ndim;
    return ACLNN_SUCCESS;
}
EXPORT aclnnStatus aclGetStorageShape(const aclTensor *tensor, int64_t **storageDims, uint64_t *storageDimsNum) {
    CHECK_T("aclGetStorageShape");
    if (!storageDims || !storageDimsNum) FAILN(ACLNN_ERR_PARAM_NULLPTR, "aclGetStorageShape: output pointer is NULL");
    *storageDims = dup_i64(tensor->sdims, tensor->sndim);
    *storageDimsNum = tensor->sndim;
    return ACLNN_SUCCESS;
}
EXPORT aclnnStatus aclGetViewStrides(const aclTensor *tensor, int64_t **stridesValue, uint64_t *stridesNum) {
    CHECK_T("aclGetViewStrides");
    if (!stridesValue || !stridesNum) FAILN(ACLNN_ERR_PARAM_NULLPTR, "aclGetViewStrides: output pointer is NULL");
    *stridesValue = dup_i64(tensor->strides, tensor->ndim);
    *stridesNum = tensor->ndim;
    return ACLNN_SUCCESS;
}
EXPORT aclnnStatus aclGetViewOffset(const aclTensor *tensor, int64_t *offset) {
    CHECK_T("aclGetViewOffset");
    if (!offset) FAILN(ACLNN_ERR_PARAM_NULLPTR, "aclGetViewOffset: offset is NULL");
    *offset = tensor->offset;
    return ACLNN_SUCCESS;
}
EXPORT aclnnStatus aclGetFormat(const aclTensor *tensor, int *format) {
    CHECK_T("aclGetFormat");
    if (!format) FAILN(ACLNN_ERR_PARAM_NULLPTR, "aclGetFormat: format is NULL");
    *format = tensor->format;
    return ACLNN_SUCCESS;
}
EXPORT aclnnStatus aclGetDataType(const aclTensor *tensor, int *dataType) {
    CHECK_T("aclGetDataType");
    if (!dataType) FAILN(ACLNN_ERR_PARAM_NULLPTR, "aclGetDataType: dataType is NULL");
    *dataType = tensor->dtype;
    return ACLNN_SUCCESS;
}

/* ---------------------------------------------------------------- scalars */
EXPORT aclScalar *aclCreateScalar(void *value, int dataType) {
    if (!value) FAILP("aclCreateScalar: value is NULL");
    if (!plain_dtype(dataType)) FAILP("aclCreateScalar: unsupported aclDataType %d", dataType);
    aclScalar *s = calloc(1, sizeof *s);
    s->dtype = dataType;
    memcpy(s->raw, value, (size_t)dt_size(dataType)); /* copied: the caller's host value may go away */
    s->magic = M_SCALAR;
    aclsim_count(K_SCALARS, 1);
    return s;
}

EXPORT aclnnStatus aclDestroyScalar(const aclScalar *scalar) {
    if (!scalar) return ACLNN_SUCCESS;
    if (scalar->magic != M_SCALAR) FAILN(ACLNN_ERR_PARAM_INVALID, "aclDestroyScalar: not a live aclScalar");
    ((aclScalar *)scalar)->magic = M_DEAD;
    free((void *)scalar);
    aclsim_count(K_SCALARS, -1);
    return ACLNN_SUCCESS;
}

/* ---------------------------------------------------------------- arrays and lists (one shape for all) */
typedef struct {
    uint32_t magic;
    int kind; /* counter kind */
    uint64_t size;
    void *items;
} array;

static array *array_new(uint32_t magic, int kind, const void *src, uint64_t n, size_t elem) {
    array *a = calloc(1, sizeof *a);
    a->magic = magic;
    a->kind = kind;
    a->size = n;
    a->items = malloc(n ? n * elem : 1);
    if (n) memcpy(a->items, src, n * elem);
    aclsim_count(kind, 1);
    return a;
}

static aclnnStatus array_free(const void *p, int kind, const char *fn) {
    const array *a = p;
    if (!a) return ACLNN_SUCCESS;
    if (a->kind != kind || (a->magic != M_ARRAY && a->magic != M_TLIST && a->magic != M_SLIST))
        FAILN(ACLNN_ERR_PARAM_INVALID, "%s: not a live object of this kind", fn);
    if (a->magic == M_TLIST) /* a list owns its elements */
        for (uint64_t i = 0; i < a->size; i++) aclDestroyTensor(((aclTensor **)a->items)[i]);
    if (a->magic == M_SLIST)
        for (uint64_t i = 0; i < a->size; i++) aclDestroyScalar(((aclScalar **)a->items)[i]);
    ((array *)a)->magic = M_DEAD;
    free(a->items);
    free((void *)a);
    aclsim_count(kind, -1);
    return ACLNN_SUCCESS;
}

static aclnnStatus array_size(const void *p, int kind, uint64_t *size, const char *fn) {
    const array *a = p;
    if (!a || !size) FAILN(ACLNN_ERR_PARAM_NULLPTR, "%s: NULL argument", fn);
    if (a->kind != kind || a->magic == M_DEAD) FAILN(ACLNN_ERR_PARAM_INVALID, "%s: not a live object of this kind", fn);
    *size = a->size;
    return ACLNN_SUCCESS;
}

EXPORT void *aclCreateIntArray(const int64_t *value, uint64_t size) {
    if (!value && size) FAILP("aclCreateIntArray: value is NULL");
    return array_new(M_ARRAY, K_INT_ARRAYS, value, size, sizeof(int64_t));
}
EXPORT void *aclCreateFloatArray(const float *value, uint64_t size) {
    if (!value && size) FAILP("aclCreateFloatArray: value is NULL");
    return array_new(M_ARRAY, K_FLOAT_ARRAYS, value, size, sizeof(float));
}
EXPORT void *aclCreateBoolArray(const bool *value, uint64_t size) {
    if (!value && size) FAILP("aclCreateBoolArray: value is NULL");
    return array_new(M_ARRAY, K_BOOL_ARRAYS, value, size, sizeof(bool));
}
EXPORT void *aclCreateTensorList(const aclTensor *const *value, uint64_t size) {
    if (!value && size) FAILP("aclCreateTensorList: value is NULL");
    for (uint64_t i = 0; i < size; i++)
        if (!aclsim_check_tensor(value[i])) FAILP("aclCreateTensorList: element %llu is not a live aclTensor", (unsigned long long)i);
    return array_new(M_TLIST, K_TENSOR_LISTS, value, size, sizeof(void *));
}
EXPORT void *aclCreateScalarList(const aclScalar *const *value, uint64_t size) {
    if (!value && size) FAILP("aclCreateScalarList: value is NULL");
    for (uint64_t i = 0; i < size; i++)
        if (!aclsim_check_scalar(value[i])) FAILP("aclCreateScalarList: element %llu is not a live aclScalar", (unsigned long long)i);
    return array_new(M_SLIST, K_SCALAR_LISTS, value, size, sizeof(void *));
}

EXPORT const int64_t *aclsim_int_array(const void *p, uint64_t *n) {
    const array *a = p;
    if (!a || a->kind != K_INT_ARRAYS || a->magic != M_ARRAY) return NULL;
    *n = a->size;
    return a->items;
}

EXPORT const bool *aclsim_bool_array(const void *p, uint64_t *n) {
    const array *a = p;
    if (!a || a->kind != K_BOOL_ARRAYS || a->magic != M_ARRAY) return NULL;
    *n = a->size;
    return a->items;
}

EXPORT const aclTensor *const *aclsim_tensor_list(const void *p, uint64_t *n) {
    const array *a = p;
    if (!a || a->kind != K_TENSOR_LISTS || a->magic != M_TLIST) return NULL;
    *n = a->size;
    return a->items;
}

EXPORT aclnnStatus aclDestroyIntArray(const void *a) { return array_free(a, K_INT_ARRAYS, "aclDestroyIntArray"); }
EXPORT aclnnStatus aclDestroyFloatArray(const void *a) { return array_free(a, K_FLOAT_ARRAYS, "aclDestroyFloatArray"); }
EXPORT aclnnStatus aclDestroyBoolArray(const void *a) { return array_free(a, K_BOOL_ARRAYS, "aclDestroyBoolArray"); }
EXPORT aclnnStatus aclDestroyTensorList(const void *a) { return array_free(a, K_TENSOR_LISTS, "aclDestroyTensorList"); }
EXPORT aclnnStatus aclDestroyScalarList(const void *a) { return array_free(a, K_SCALAR_LISTS, "aclDestroyScalarList"); }
EXPORT aclnnStatus aclGetIntArraySize(const void *a, uint64_t *n) { return array_size(a, K_INT_ARRAYS, n, "aclGetIntArraySize"); }
EXPORT aclnnStatus aclGetFloatArraySize(const void *a, uint64_t *n) { return array_size(a, K_FLOAT_ARRAYS, n, "aclGetFloatArraySize"); }
EXPORT aclnnStatus aclGetBoolArraySize(const void *a, uint64_t *n) { return array_size(a, K_BOOL_ARRAYS, n, "aclGetBoolArraySize"); }
EXPORT aclnnStatus aclGetTensorListSize(const void *a, uint64_t *n) { return array_size(a, K_TENSOR_LISTS, n, "aclGetTensorListSize"); }
EXPORT aclnnStatus aclGetScalarListSize(const void *a, uint64_t *n) { return array_size(a, K_SCALAR_LISTS, n, "aclGetScalarListSize"); }

/* ---------------------------------------------------------------- executors */
#define M_EXEC 0x45584543u
/* registry of live executors (open addressing on the pointer): only listed handles are accepted, so a
 * consumed or destroyed executor is recognised without touching its freed memory */
static pthread_mutex_t x_lock = PTHREAD_MUTEX_INITIALIZER;
static aclOpExecutor **x_tab;
static size_t x_cap, x_used, x_n; /* slots, slots ever filled (incl. tombstones), live entries */
#define TOMB ((aclOpExecutor *)1)

static size_t x_hash(const void *p) {
    uint64_t x = (uint64_t)(uintptr_t)p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return (size_t)x;
}

static long x_find(const aclOpExecutor *e) { /* caller holds x_lock */
    if (!x_cap) return -1;
    for (size_t i = x_hash(e) & (x_cap - 1);; i = (i + 1) & (x_cap - 1)) {
        if (!x_tab[i]) return -1;
        if (x_tab[i] == e) return (long)i;
    }
}

static void x_put(aclOpExecutor **tab, size_t cap, aclOpExecutor *e) {
    size_t i = x_hash(e) & (cap - 1);
    while (tab[i] && tab[i] != TOMB) i = (i + 1) & (cap - 1);
    tab[i] = e;
}

static void x_add(aclOpExecutor *e) { /* caller holds x_lock */
    if ((x_used + 1) * 2 > x_cap) { /* rehash, dropping tombstones */
        size_t cap = 64;
        while (cap < (x_n + 1) * 4) cap *= 2;
        aclOpExecutor **tab = calloc(cap, sizeof *tab);
        for (size_t i = 0; i < x_cap; i++)
            if (x_tab[i] && x_tab[i] != TOMB) x_put(tab, cap, x_tab[i]);
        free(x_tab);
        x_tab = tab;
        x_cap = cap;
        x_used = x_n;
    }
    x_put(x_tab, x_cap, e);
    x_used++;
    x_n++;
}

static int exec_live(aclOpExecutor *e) { return x_find(e) >= 0; } /* caller holds x_lock */

/* A repeatable executor's launches run on a snapshot of it (`frozen`), so addresses refreshed after a launch
 * reach only later launches, as on the device, whose kernel arguments are fixed when it is launched. Launches
 * between two refreshes share one snapshot (reference counted under x_lock); a refresh detaches it, and the
 * next launch takes a new one. */
typedef struct { int refs; aclOpExecutor x; } frozen;

static void frozen_drop(frozen *f) { /* caller holds x_lock; frees on the last reference */
    if (f && --f->refs == 0) { free(f->x.lt); free(f); }
}

static frozen *frozen_take(aclOpExecutor *e) { /* caller holds x_lock; e is live and repeatable */
    frozen *f = e->frozen;
    if (!f) {
        f = malloc(sizeof *f);
        f->refs = 1; /* the executor's own */
        f->x = *e;
        f->x.frozen = NULL;
        f->x.lt = e->nlt ? malloc(sizeof *e->lt * (size_t)e->nlt) : NULL;
        if (e->nlt) memcpy(f->x.lt, e->lt, sizeof *e->lt * (size_t)e->nlt);
        e->frozen = f;
    }
    f->refs++;
    return f;
}

EXPORT aclOpExecutor *aclsim_exec_new(const aclOpExecutor *tmpl) {
    aclOpExecutor *e = malloc(sizeof *e);
    *e = *tmpl;
    e->magic = M_EXEC;
    e->refs = 1;
    e->repeatable = 0;
    e->frozen = NULL;
    pthread_mutex_lock(&x_lock);
    x_add(e);
    pthread_mutex_unlock(&x_lock);
    aclsim_count(K_EXECUTORS, 1);
    return e;
}

/* drop a reference; the last one frees (the registry entry is removed by unlist) */
static int exec_drop(aclOpExecutor *e) { /* caller holds x_lock; 1 when that was the last reference */
    if (--e->refs) return 0;
    frozen_drop(e->frozen);
    e->frozen = NULL;
    return 1;
}

static void exec_free(aclOpExecutor *e) {
    e->magic = M_DEAD;
    free(e->lt);
    free(e);
}

static void exec_unref(void *p) {
    aclOpExecutor *e = p;
    pthread_mutex_lock(&x_lock);
    int last = exec_drop(e);
    pthread_mutex_unlock(&x_lock);
    if (last) exec_free(e);
}

static void unlist(aclOpExecutor *e) { /* caller holds x_lock; e is listed */
    x_tab[x_find(e)] = TOMB;
    x_n--;
    aclsim_count(K_EXECUTORS, -1);
}

EXPORT aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor *executor) {
    if (!executor) FAILN(ACLNN_ERR_INNER_NULLPTR, "aclSetAclOpExecutorRepeatable: executor is NULL");
    pthread_mutex_lock(&x_lock);
    int ok = exec_live(executor);
    if (ok) executor->repeatable = 1;
    pthread_mutex_unlock(&x_lock);
    if (!ok) FAILN(ACLNN_ERR_PARAM_INVALID, "aclSetAclOpExecutorRepeatable: %p is not a live executor", (void *)executor);
    return ACLNN_SUCCESS;
}

EXPORT aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *executor) {
    if (!executor) FAILN(ACLNN_ERR_INNER_NULLPTR, "aclDestroyAclOpExecutor: executor is NULL");
    pthread_mutex_lock(&x_lock);
    int ok = exec_live(executor);
    if (ok) unlist(executor);
    pthread_mutex_unlock(&x_lock);
    if (!ok)
        FAILN(ACLNN_ERR_PARAM_INVALID, "aclDestroyAclOpExecutor: %p is not a live executor (consumed by its launch or destroyed)",
              (void *)executor);
    exec_unref(executor);
    return ACLNN_SUCCESS;
}

/* After aclSetAclOpExecutorRepeatable, a changed device address reaches the executor through the descriptor it
 * was made from (acl_meta.h; CANN's operator executors refresh that aclTensor's storage address, the index is
 * range-checked): 561103 for a NULL executor or tensor, 161002 for an index out of [0, tensors - 1] or a tensor
 * that was not one of its operands, and (our rule: the documented state is "set to repeatable") for an
 * executor that is not a live repeatable one. Addresses must be 32-byte aligned (undefined on hardware,
 * refused here). */
EXPORT aclnnStatus aclSetTensorAddr(aclOpExecutor *executor, const size_t index, aclTensor *tensor, void *addr) {
    if (!executor || !tensor) FAILN(ACLNN_ERR_INNER_NULLPTR, "aclSetTensorAddr: executor or tensor is NULL");
    if (!aclsim_check_tensor(tensor)) FAILN(ACLNN_ERR_PARAM_INVALID, "aclSetTensorAddr: %p is not a live aclTensor", (void *)tensor);
    if ((uintptr_t)addr % 32) FAILN(ACLNN_ERR_PARAM_INVALID, "aclSetTensorAddr: address %p is not 32-byte aligned", addr);
    pthread_mutex_lock(&x_lock);
    int live = exec_live(executor), rep = live && executor->repeatable, n = live ? executor->ntensors : 0, hit = 0;
    if (rep && index < (size_t)n)
        for (int j = 0; j < 12 + executor->nlt; j++) {
            tview *v = j < 12 ? &executor->t[j] : &executor->lt[j - 12];
            if (v->src == tensor) { v->data = addr; hit = 1; }
        }
    if (hit) {
        tensor->data = addr;
        frozen_drop(executor->frozen); /* launches queued before keep their snapshot */
        executor->frozen = NULL;
    }
    pthread_mutex_unlock(&x_lock);
    if (!live) FAILN(ACLNN_ERR_PARAM_INVALID, "aclSetTensorAddr: %p is not a live executor", (void *)executor);
    if (!rep) FAILN(ACLNN_ERR_PARAM_INVALID, "aclSetTensorAddr: executor %p was not made repeatable (aclSetAclOpExecutorRepeatable)", (void *)executor);
    if (index >= (size_t)n)
        FAILN(ACLNN_ERR_PARAM_INVALID, "aclSetTensorAddr: index %zu is out of range [0, %d]", index, n - 1);
    if (!hit) FAILN(ACLNN_ERR_PARAM_INVALID, "aclSetTensorAddr: tensor %p is not an operand of executor %p", (void *)tensor, (void *)executor);
    return ACLNN_SUCCESS;
}

/* a queued launch: a repeatable executor's task runs on its snapshot (`own`) */
typedef struct { aclOpExecutor *e; char *ws; frozen *own; } launch;

/* Device kernels move data in bursts and may write up to 32 bytes past the end of their output's storage:
 * that is why aclrtMalloc pads every allocation to ALIGN_UP(len, 32) + 32 (acl docs, aclrtMalloc) and a
 * caller dividing its own allocations must pad each piece the same way. The simulator does write there
 * (a fixed pattern), so an unpadded neighbour is corrupted where a test can see it. */
#define KERNEL_OVERRUN 32
static int launch_run(void *arg, int dev, char *msg, size_t len) {
    launch *l = arg;
    aclOpExecutor *e = l->own ? &l->own->x : l->e;
    int rc = e->run(e, dev, l->ws, msg, len);
    const tview *o = &e->t[0];
    if (rc || !e->nt || o->is_const || !o->data || !o->snumel || !dt_size(o->dt)) return rc;
    char *end = (char *)o->data + o->snumel * dt_size(o->dt);
    char *h = aclsim_dev2host(end, KERNEL_OVERRUN, dev);
    if (!h) {
        snprintf(msg, len, "aclnn%s: the %d bytes after the output's storage (%p) are not device memory of the "
                 "same allocation: allocations need 32 bytes of padding", e->op, KERNEL_OVERRUN, (void *)end);
        return ACL_ERROR_RT_AICORE_EXCEPTION;
    }
    memset(h, 0xA5, KERNEL_OVERRUN);
    return 0;
}
static void launch_release(void *arg) {
    launch *l = arg;
    pthread_mutex_lock(&x_lock);
    frozen_drop(l->own);
    int last = exec_drop(l->e);
    pthread_mutex_unlock(&x_lock);
    if (last) exec_free(l->e);
    free(l);
}

EXPORT aclnnStatus aclsim_exec_launch(const char *op, void *ws, uint64_t ws_size, aclOpExecutor *e, aclrtStream s) {
    if (!e) FAILN(ACLNN_ERR_INNER_NULLPTR, "aclnn%s: executor is NULL", op);
    pthread_mutex_lock(&x_lock);
    int ok = exec_live(e);
    const char *eop = ok ? e->op : NULL;
    pthread_mutex_unlock(&x_lock);
    if (!ok) FAILN(ACLNN_ERR_PARAM_INVALID, "aclnn%s: executor %p is not live (already launched, destroyed or never created)", op, (void *)e);
    if (strcmp(eop, op)) FAILN(ACLNN_ERR_PARAM_INVALID, "aclnn%s: executor was created by aclnn%sGetWorkspaceSize", op, eop);
    aclError err = 0;
    int dev = aclsim_stream_device(s, &err);
    if (dev < 0) return ACLNN_ERR_RUNTIME_ERROR; /* message set by the runtime */
    if (e->ws_size) {
        if (!ws || ws_size < e->ws_size)
            FAILN(ACLNN_ERR_PARAM_INVALID, "aclnn%s: needs a workspace of %llu bytes, got %p with %llu bytes", op,
                  (unsigned long long)e->ws_size, ws, (unsigned long long)ws_size);
        if (!aclsim_dev2host(ws, e->ws_size, dev))
            FAILN(ACLNN_ERR_PARAM_INVALID, "aclnn%s: workspace %p is not a live allocation of %llu bytes on device %d", op, ws,
                  (unsigned long long)e->ws_size, dev);
    }
    launch *l = malloc(sizeof *l);
    l->e = e;
    l->ws = e->ws_size ? ws : NULL;
    l->own = NULL;
    pthread_mutex_lock(&x_lock);
    if (e->repeatable) l->own = frozen_take(e);
    e->refs++; /* the queued task's reference */
    if (!e->repeatable) unlist(e); /* consumed: the handle is dead from now on */
    int drop = !e->repeatable;
    pthread_mutex_unlock(&x_lock);
    if (drop) exec_unref(e);
    aclError rc = aclsim_enqueue(s, launch_run, launch_release, l);
    if (rc) { launch_release(l); return ACLNN_ERR_RUNTIME_ERROR; }
    return ACLNN_SUCCESS;
}
