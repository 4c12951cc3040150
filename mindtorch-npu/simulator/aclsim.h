/* ACL simulator: declarations shared by its libraries.
 * Public prototypes follow CANN's headers (acl_rt.h, acl_base_rt.h, acl_meta.h, aclnn_base.h, op headers);
 * the aclsim_* functions are internal helpers exported by libascendcl.so / libnnopbase.so for the siblings. */
#ifndef ACLSIM_H
#define ACLSIM_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EXPORT __attribute__((visibility("default")))

typedef int aclError;
typedef int32_t aclnnStatus;
typedef void *aclrtStream;
typedef void *aclmdlRI;
typedef void *aclrtEvent;

/* aclDataType (acl_base_rt.h) */
enum {
    ACL_FLOAT = 0, ACL_FLOAT16 = 1, ACL_INT8 = 2, ACL_INT32 = 3, ACL_UINT8 = 4, ACL_INT16 = 6,
    ACL_INT64 = 9, ACL_DOUBLE = 11, ACL_BOOL = 12, ACL_BF16 = 27
};
/* aclFormat values we accept as plain (ND-like) layouts */
enum {
    ACL_FORMAT_NCHW = 0, ACL_FORMAT_NHWC = 1, ACL_FORMAT_ND = 2, ACL_FORMAT_HWCN = 16, ACL_FORMAT_NDHWC = 27,
    ACL_FORMAT_NCDHW = 30, ACL_FORMAT_NC = 35, ACL_FORMAT_NCL = 47
};

/* error codes (acl_base_rt.h, rt_error_codes.h, opbase aclnn return codes) */
#define ACL_SUCCESS 0
#define ACL_ERROR_INVALID_PARAM 100000
#define ACL_ERROR_UNINITIALIZE 100001
#define ACL_ERROR_REPEAT_INITIALIZE 100002
#define ACL_ERROR_REPEAT_FINALIZE 100037
#define ACL_ERROR_RT_PARAM_INVALID 107000
#define ACL_ERROR_RT_INVALID_DEVICEID 107001
#define ACL_ERROR_RT_CONTEXT_NULL 107002
#define ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID 107006
#define ACL_ERROR_RT_INVALID_HANDLE 107017
/* stream capture (error_codes/rt_error_codes.h) */
#define ACL_ERROR_RT_CAPTURE_DEPENDENCY 107024
#define ACL_ERROR_RT_MODEL_CAPTURED 107026
#define ACL_ERROR_RT_STREAM_CAPTURED 107027
#define ACL_ERROR_RT_STREAM_NOT_CAPTURED 107029
#define ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD 107038
#define ACL_ERROR_RT_CAPTURE_MODE_BLOCK_ASYNC 107041
#define ACL_ERROR_RT_FEATURE_NOT_SUPPORT 207000
#define ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED 507903
#define ACL_ERROR_RT_MEMORY_ALLOCATION 207001
#define ACL_ERROR_RT_EVENT_NOT_COMPLETE 507006
#define ACL_ERROR_RT_SYS_DMA 507013
#define ACL_ERROR_RT_AICORE_EXCEPTION 507015
#define ACLNN_SUCCESS 0
#define ACLNN_ERR_PARAM_NULLPTR 161001
#define ACLNN_ERR_PARAM_INVALID 161002
#define ACLNN_ERR_RUNTIME_ERROR 361001
#define ACLNN_ERR_INNER_TILING_ERROR 561002
#define ACLNN_ERR_INNER_NULLPTR 561103
#define ACLNN_ERR_INNER_TILING_ERROR 561002

/* live-object counters, reported by aclsimLiveCount */
enum {
    K_DEV_ALLOC, K_DEV_BYTES, K_HOST_ALLOC, K_STREAMS, K_EVENTS, K_TENSORS, K_SCALARS, K_INT_ARRAYS,
    K_FLOAT_ARRAYS, K_BOOL_ARRAYS, K_TENSOR_LISTS, K_SCALAR_LISTS, K_EXECUTORS, K_HCCL_COMMS, K_MODELS, K_COUNT
};

#define SIM_MAXDIM 32

/* descriptors (libnnopbase) */
struct aclTensor {
    uint32_t magic;
    int32_t dtype, format;
    uint32_t ndim, sndim;
    int64_t dims[SIM_MAXDIM], strides[SIM_MAXDIM], sdims[SIM_MAXDIM];
    int64_t offset;
    void *data;
};
struct aclScalar {
    uint32_t magic;
    int32_t dtype;
    unsigned char raw[8];
};
typedef struct aclTensor aclTensor;
typedef struct aclScalar aclScalar;
typedef struct aclOpExecutor aclOpExecutor;

/* a tensor snapshot as an op kernel sees it */
typedef struct {
    int dt, nd;
    int64_t dims[SIM_MAXDIM], st[SIM_MAXDIM], off;
    void *data;                 /* device address of the storage */
    int64_t snumel;             /* elements of the storage the view lies in (its storage dims), 0 if none given */
    int is_const;               /* a scalar operand held by the executor itself (cbuf), not device memory */
    unsigned char cbuf[8];
    const aclTensor *src;       /* the descriptor it was taken from (aclSetTensorAddr finds its views by it) */
} tview;

/* scalar value in the computation domain: doubles for floating dtypes, int64 for integers and bool */
typedef union { double f; int64_t i; } val;

/* the executor: everything a launch needs, snapshotted at GetWorkspaceSize */
typedef int (*kernel_fn)(aclOpExecutor *e, int device, char *ws, char *msg, size_t msglen);
struct aclOpExecutor {
    uint32_t magic;
    const char *op;          /* launch checks it is the op the executor was made for */
    kernel_fn run;
    const void *def;         /* the op-table row */
    int repeatable, refs;
    uint64_t ws_size;
    int ct;                  /* computation dtype */
    int nt;
    tview t[12];             /* t[0] is the output (batch norm's backward uses 10) */
    val p[4];                /* scalar parameters, in the computation domain of ct */
    int64_t ip[16];          /* integer parameters (pooling takes 11; ip[14], ip[15] are the NCHW operators' read / write masks) */
    tview *lt;               /* tensor-list operands (foreach operators), malloc'd, freed with the executor */
    int nlt;
    int ntensors;            /* distinct aclTensors it was made from: aclSetTensorAddr's index range */
    void *frozen;            /* a repeatable executor's snapshot its queued launches share (nnopbase.c) */
};

/* libascendcl internals used by the siblings */
EXPORT void aclsim_set_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
EXPORT void aclsim_count(int kind, int64_t delta);
/* device of a stream handle (NULL = current device's default stream); <0 on error (err set) */
EXPORT int aclsim_stream_device(aclrtStream s, aclError *err);
EXPORT const char *aclrtGetSocName(void);
/* queue a kernel on a stream; run(arg, device, msg, msglen) executes on the stream's worker,
 * release(arg) is called once after it ran (or if it never will) */
EXPORT aclError aclsim_enqueue(aclrtStream s, int (*run)(void *, int, char *, size_t), void (*release)(void *),
                               void *arg);
/* host view of device range [p, p+n) if it lies inside one live allocation of `device` (any device if <0) */
EXPORT char *aclsim_dev2host(const void *p, uint64_t n, int device);

/* libnnopbase internals used by libopapi */
/* register a new live executor, copied from a filled-in template */
EXPORT aclOpExecutor *aclsim_exec_new(const aclOpExecutor *tmpl);
EXPORT aclnnStatus aclsim_exec_launch(const char *op, void *ws, uint64_t ws_size, aclOpExecutor *e, aclrtStream s);
EXPORT int aclsim_check_tensor(const aclTensor *t);
EXPORT int aclsim_check_scalar(const aclScalar *s);
/* the values of a live aclIntArray (NULL if `a` is not one) */
EXPORT const int64_t *aclsim_int_array(const void *a, uint64_t *n);
/* the tensors of a live aclTensorList (NULL if `a` is not one) */
EXPORT const aclTensor *const *aclsim_tensor_list(const void *a, uint64_t *n);
/* the values of a live aclBoolArray (NULL if `a` is not one) */
EXPORT const bool *aclsim_bool_array(const void *a, uint64_t *n);

/* dtype helpers (dtype.h-style inline, shared by every library) */
static inline int dt_size(int dt) {
    switch (dt) {
    case ACL_FLOAT: case ACL_INT32: return 4;
    case ACL_FLOAT16: case ACL_BF16: case ACL_INT16: return 2;
    case ACL_INT8: case ACL_UINT8: case ACL_BOOL: return 1;
    case ACL_INT64: case ACL_DOUBLE: return 8;
    default: return 0;
    }
}
static inline int dt_is_float(int dt) {
    return dt == ACL_FLOAT || dt == ACL_FLOAT16 || dt == ACL_BF16 || dt == ACL_DOUBLE;
}
#endif
