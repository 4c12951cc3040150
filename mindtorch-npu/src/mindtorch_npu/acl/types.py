"""C types, enum values and error codes of CANN's public headers.

Values are taken from hicann/runtime include/external/acl/acl_base_rt.h (aclDataType, aclFormat,
ACL_ERROR_*), acl_rt.h (aclrtMemcpyKind, aclrtMemMallocPolicy, aclrtMemAttr, event flags and
statuses), error_codes/rt_error_codes.h (ACL_ERROR_RT_*), and hicann/opbase
include/nnopbase/opdev/op_errno.h (ACLNN_*).
"""

import ctypes

# --- typedefs (acl_base_rt.h, acl_meta.h) ---------------------------------------------------------
aclError = ctypes.c_int
aclnnStatus = ctypes.c_int32
aclrtStream = ctypes.c_void_p
aclrtEvent = ctypes.c_void_p
aclDataType = ctypes.c_int  # C enums are int-sized
aclFormat = ctypes.c_int
aclrtMemcpyKind = ctypes.c_int
aclrtMemMallocPolicy = ctypes.c_int
aclrtMemAttr = ctypes.c_int
aclrtEventRecordedStatus = ctypes.c_int
aclrtStreamStatus = ctypes.c_int
aclmdlRI = ctypes.c_void_p  # a model run instance (acl_rt.h)
aclmdlRICaptureMode = ctypes.c_int
aclmdlRICaptureStatus = ctypes.c_int
# opaque handles: aclTensor*, aclScalar*, aclIntArray*, aclTensorList*, aclOpExecutor*
handle = ctypes.c_void_p
int64_p = ctypes.POINTER(ctypes.c_int64)
uint64_p = ctypes.POINTER(ctypes.c_uint64)
size_p = ctypes.POINTER(ctypes.c_size_t)

# --- aclDataType (acl_base_rt.h) ---------------------------------------------------------------------
ACL_FLOAT, ACL_FLOAT16, ACL_INT8, ACL_INT32, ACL_UINT8 = 0, 1, 2, 3, 4
ACL_INT16, ACL_UINT16, ACL_UINT32, ACL_INT64, ACL_UINT64 = 6, 7, 8, 9, 10
ACL_DOUBLE, ACL_BOOL, ACL_COMPLEX64, ACL_COMPLEX128, ACL_BF16 = 11, 12, 16, 17, 27

# --- aclFormat (acl_base_rt.h) -----------------------------------------------------------------------
ACL_FORMAT_NCHW = 0
ACL_FORMAT_ND = 2
ACL_FORMAT_NCDHW = 30
ACL_FORMAT_NCL = 47

# --- aclrtMemcpyKind, aclrtMemMallocPolicy, aclrtMemAttr (acl_rt.h) --------------------------------------
ACL_MEMCPY_HOST_TO_HOST, ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST, ACL_MEMCPY_DEVICE_TO_DEVICE = 0, 1, 2, 3
ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_HBM_MEM = 1

# --- events and streams (acl_rt.h) -------------------------------------------------------------------
ACL_EVENT_SYNC = 0x00000001
ACL_EVENT_TIME_LINE = 0x00000008
ACL_EVENT_RECORDED_STATUS_NOT_READY, ACL_EVENT_RECORDED_STATUS_COMPLETE = 0, 1
ACL_STREAM_STATUS_COMPLETE, ACL_STREAM_STATUS_NOT_READY = 0, 1

# --- stream capture (acl_rt.h: aclmdlRICaptureMode, aclmdlRICaptureStatus) ------------------------------
ACL_MODEL_RI_CAPTURE_MODE_GLOBAL, ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL, ACL_MODEL_RI_CAPTURE_MODE_RELAXED = 0, 1, 2
ACL_MODEL_RI_CAPTURE_STATUS_NONE, ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE, ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED = 0, 1, 2

# --- error codes: name by value, for messages ---------------------------------------------------------
ACL_SUCCESS = 0
ACL_ERROR_REPEAT_INITIALIZE = 100002
ACL_ERROR_RT_MEMORY_ALLOCATION = 207001
ERROR_NAMES = {
    0: "ACL_SUCCESS",
    # acl_base_rt.h
    100000: "ACL_ERROR_INVALID_PARAM",
    100001: "ACL_ERROR_UNINITIALIZE",
    100002: "ACL_ERROR_REPEAT_INITIALIZE",
    100024: "ACL_ERROR_OP_NOT_FOUND",
    100026: "ACL_ERROR_UNSUPPORTED_DATA_TYPE",
    100027: "ACL_ERROR_FORMAT_NOT_MATCH",
    100037: "ACL_ERROR_REPEAT_FINALIZE",
    200000: "ACL_ERROR_BAD_ALLOC",
    200001: "ACL_ERROR_API_NOT_SUPPORT",
    200002: "ACL_ERROR_INVALID_DEVICE",
    200003: "ACL_ERROR_MEMORY_ADDRESS_UNALIGNED",
    200004: "ACL_ERROR_RESOURCE_NOT_MATCH",
    200005: "ACL_ERROR_INVALID_RESOURCE_HANDLE",
    200006: "ACL_ERROR_FEATURE_UNSUPPORTED",
    300000: "ACL_ERROR_STORAGE_OVER_LIMIT",
    500000: "ACL_ERROR_INTERNAL_ERROR",
    500001: "ACL_ERROR_FAILURE",
    500002: "ACL_ERROR_GE_FAILURE",
    500003: "ACL_ERROR_RT_FAILURE",
    500004: "ACL_ERROR_DRV_FAILURE",
    # error_codes/rt_error_codes.h
    107000: "ACL_ERROR_RT_PARAM_INVALID",
    107001: "ACL_ERROR_RT_INVALID_DEVICEID",
    107002: "ACL_ERROR_RT_CONTEXT_NULL",
    107003: "ACL_ERROR_RT_STREAM_CONTEXT",
    107006: "ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID",
    107007: "ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL",
    107008: "ACL_ERROR_RT_ADDR_UNALIGNED",
    107016: "ACL_ERROR_RT_INVALID_MEMORY_TYPE",
    107017: "ACL_ERROR_RT_INVALID_HANDLE",
    107018: "ACL_ERROR_RT_INVALID_MALLOC_TYPE",
    107019: "ACL_ERROR_RT_WAIT_TIMEOUT",
    107020: "ACL_ERROR_RT_TASK_TIMEOUT",
    107024: "ACL_ERROR_RT_CAPTURE_DEPENDENCY",
    107025: "ACL_ERROR_RT_STREAM_UNJOINED",
    107026: "ACL_ERROR_RT_MODEL_CAPTURED",
    107027: "ACL_ERROR_RT_STREAM_CAPTURED",
    107028: "ACL_ERROR_RT_EVENT_CAPTURED",
    107029: "ACL_ERROR_RT_STREAM_NOT_CAPTURED",
    107030: "ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT",
    107031: "ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT",
    107036: "ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED",
    107037: "ACL_ERROR_RT_MODEL_RUNNING",
    107038: "ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD",
    107041: "ACL_ERROR_RT_CAPTURE_MODE_BLOCK_ASYNC",
    207000: "ACL_ERROR_RT_FEATURE_NOT_SUPPORT",
    207001: "ACL_ERROR_RT_MEMORY_ALLOCATION",
    207002: "ACL_ERROR_RT_MEMORY_FREE",
    207004: "ACL_ERROR_RT_NO_DEVICE",
    207005: "ACL_ERROR_RT_RESOURCE_ALLOC_FAIL",
    207006: "ACL_ERROR_RT_NO_PERMISSION",
    207007: "ACL_ERROR_RT_NO_EVENT_RESOURCE",
    207008: "ACL_ERROR_RT_NO_STREAM_RESOURCE",
    207012: "ACL_ERROR_RT_OVER_LIMIT",
    207015: "ACL_ERROR_RT_REPEATED_INIT",
    207018: "ACL_ERROR_RT_DEVICE_OOM",
    507000: "ACL_ERROR_RT_INTERNAL_ERROR",
    507001: "ACL_ERROR_RT_TS_ERROR",
    507004: "ACL_ERROR_RT_STREAM_NOT_COMPLETE",
    507006: "ACL_ERROR_RT_EVENT_NOT_COMPLETE",
    507008: "ACL_ERROR_RT_SOC_VERSION",
    507011: "ACL_ERROR_RT_MODEL_EXECUTE",
    507013: "ACL_ERROR_RT_SYS_DMA",
    507014: "ACL_ERROR_RT_AICORE_TIMEOUT",
    507015: "ACL_ERROR_RT_AICORE_EXCEPTION",
    507016: "ACL_ERROR_RT_AICORE_TRAP_EXCEPTION",
    507046: "ACL_ERROR_RT_STREAM_SYNC_TIMEOUT",
    507047: "ACL_ERROR_RT_EVENT_SYNC_TIMEOUT",
    507057: "ACL_ERROR_RT_SUSPECT_REMOTE_ERROR",
    507899: "ACL_ERROR_RT_DRV_INTERNAL_ERROR",
    507903: "ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED",
    507904: "ACL_ERROR_RT_COMM_OP_RETRY_FAIL",
    # opbase include/nnopbase/opdev/op_errno.h
    161001: "ACLNN_ERR_PARAM_NULLPTR",
    161002: "ACLNN_ERR_PARAM_INVALID",
    361001: "ACLNN_ERR_RUNTIME_ERROR",
    561000: "ACLNN_ERR_INNER",
    561001: "ACLNN_ERR_INNER_INFERSHAPE_ERROR",
    561002: "ACLNN_ERR_INNER_TILING_ERROR",
    561003: "ACLNN_ERR_INNER_FIND_KERNEL_ERROR",
    561101: "ACLNN_ERR_INNER_CREATE_EXECUTOR",
    561102: "ACLNN_ERR_INNER_NOT_TRANS_EXECUTOR",
    561103: "ACLNN_ERR_INNER_NULLPTR",
    561107: "ACLNN_ERR_INNER_OPP_PATH_NOT_FOUND",
    561112: "ACLNN_ERR_INNER_OPP_KERNEL_PKG_NOT_FOUND",
}


def error_name(code):
    return ERROR_NAMES.get(code, "unknown error code")


# --- HCCL (Ascend/pytorch third_party/hccl/inc/hccl/hccl_types.h) ----------------------------------------
HcclResult = ctypes.c_int
HcclComm = ctypes.c_void_p
HcclDataType = ctypes.c_int
HcclReduceOp = ctypes.c_int
HCCL_ROOT_INFO_BYTES = 4108
HCCL_RESULT_NAMES = {
    0: "HCCL_SUCCESS",
    1: "HCCL_E_PARA",
    2: "HCCL_E_PTR",
    3: "HCCL_E_MEMORY",
    4: "HCCL_E_INTERNAL",
    5: "HCCL_E_NOT_SUPPORT",
    6: "HCCL_E_NOT_FOUND",
    7: "HCCL_E_UNAVAIL",
    8: "HCCL_E_SYSCALL",
    9: "HCCL_E_TIMEOUT",
    10: "HCCL_E_OPEN_FILE_FAILURE",
    11: "HCCL_E_TCP_CONNECT",
    12: "HCCL_E_ROCE_CONNECT",
    13: "HCCL_E_TCP_TRANSFER",
    14: "HCCL_E_ROCE_TRANSFER",
    15: "HCCL_E_RUNTIME",
    16: "HCCL_E_DRV",
    17: "HCCL_E_PROFILING",
    18: "HCCL_E_CCE",
    19: "HCCL_E_NETWORK",
    20: "HCCL_E_AGAIN",
    21: "HCCL_E_REMOTE",
    22: "HCCL_E_SUSPENDING",
    23: "HCCL_E_OPRETRY_FAIL",
    24: "HCCL_E_OOM",
}
HCCL_REDUCE_SUM, HCCL_REDUCE_PROD, HCCL_REDUCE_MAX, HCCL_REDUCE_MIN = 0, 1, 2, 3
# HcclDataType by mindtorch dtype name (bool travels as uint8, as torch_npu sends it)
HCCL_DATA_TYPES = {
    "int8": 0,
    "int16": 1,
    "int32": 2,
    "float16": 3,
    "float32": 4,
    "int64": 5,
    "uint64": 6,
    "uint8": 7,
    "bool": 7,
    "uint16": 8,
    "uint32": 9,
    "float64": 10,
    "bfloat16": 11,
}


class HcclRootInfo(ctypes.Structure):
    _fields_ = [("internal", ctypes.c_char * HCCL_ROOT_INFO_BYTES)]
