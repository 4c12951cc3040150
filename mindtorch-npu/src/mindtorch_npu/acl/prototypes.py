"""ctypes prototypes, one table per CANN header they follow.

Every (name, restype, argtypes) row is transcribed from the public header named above its table;
`bind` attaches them to a loaded library. Two-phase ACLNN operators share one shape: phase 1
`aclnnXxxGetWorkspaceSize(<op args>..., uint64_t* workspaceSize, aclOpExecutor** executor)`, phase 2
`aclnnXxx(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream)`,
so an op row lists only its own arguments.
"""
import ctypes
from ctypes import c_char_p, c_int8, c_int32, c_uint32, c_int64, c_uint64, c_size_t, c_void_p, c_float, POINTER

from .types import (aclError, aclnnStatus, aclrtStream, aclrtEvent, aclDataType, aclFormat, aclrtMemcpyKind,
                    aclrtMemMallocPolicy, aclrtMemAttr, aclrtEventRecordedStatus, aclrtStreamStatus, handle,
                    int64_p, uint64_p, size_p)

# libascendcl.so -- hicann/runtime include/external/acl/acl_rt.h and acl_base_rt.h (aclrtGetSocName)
RUNTIME = [
    ("aclInit", aclError, [c_char_p]),
    ("aclFinalize", aclError, []),
    ("aclGetRecentErrMsg", c_char_p, []),
    ("aclrtGetSocName", c_char_p, []),
    ("aclrtSetDevice", aclError, [c_int32]),
    ("aclrtResetDevice", aclError, [c_int32]),
    ("aclrtGetDevice", aclError, [POINTER(c_int32)]),
    ("aclrtGetDeviceCount", aclError, [POINTER(c_uint32)]),
    ("aclrtCreateStream", aclError, [POINTER(aclrtStream)]),
    ("aclrtDestroyStream", aclError, [aclrtStream]),
    ("aclrtSynchronizeStream", aclError, [aclrtStream]),
    ("aclrtSynchronizeDevice", aclError, []),
    ("aclrtStreamQuery", aclError, [aclrtStream, POINTER(aclrtStreamStatus)]),
    ("aclrtCreateEvent", aclError, [POINTER(aclrtEvent)]),
    ("aclrtCreateEventWithFlag", aclError, [POINTER(aclrtEvent), c_uint32]),
    ("aclrtDestroyEvent", aclError, [aclrtEvent]),
    ("aclrtRecordEvent", aclError, [aclrtEvent, aclrtStream]),
    ("aclrtResetEvent", aclError, [aclrtEvent, aclrtStream]),
    ("aclrtStreamWaitEvent", aclError, [aclrtStream, aclrtEvent]),
    ("aclrtSynchronizeEvent", aclError, [aclrtEvent]),
    ("aclrtQueryEventStatus", aclError, [aclrtEvent, POINTER(aclrtEventRecordedStatus)]),
    ("aclrtEventElapsedTime", aclError, [POINTER(c_float), aclrtEvent, aclrtEvent]),
    ("aclrtMalloc", aclError, [POINTER(c_void_p), c_size_t, aclrtMemMallocPolicy]),
    ("aclrtFree", aclError, [c_void_p]),
    ("aclrtMallocHost", aclError, [POINTER(c_void_p), c_size_t]),
    ("aclrtFreeHost", aclError, [c_void_p]),
    ("aclrtMemcpy", aclError, [c_void_p, c_size_t, c_void_p, c_size_t, aclrtMemcpyKind]),
    ("aclrtMemcpyAsync", aclError, [c_void_p, c_size_t, c_void_p, c_size_t, aclrtMemcpyKind, aclrtStream]),
    ("aclrtMemset", aclError, [c_void_p, c_size_t, c_int32, c_size_t]),
    ("aclrtMemsetAsync", aclError, [c_void_p, c_size_t, c_int32, c_size_t, aclrtStream]),
    ("aclrtGetMemInfo", aclError, [aclrtMemAttr, size_p, size_p]),
]

# libnnopbase.so -- hicann/opbase include/nnopbase/aclnn/acl_meta.h and aclnn_base.h
NNOPBASE = [
    ("aclnnInit", aclnnStatus, [c_char_p]),
    ("aclnnFinalize", aclnnStatus, []),
    ("aclCreateTensor", handle, [int64_p, c_uint64, aclDataType, int64_p, c_int64, aclFormat, int64_p, c_uint64,
                                 c_void_p]),
    ("aclCreateScalar", handle, [c_void_p, aclDataType]),
    ("aclCreateIntArray", handle, [int64_p, c_uint64]),
    ("aclCreateFloatArray", handle, [POINTER(c_float), c_uint64]),
    ("aclCreateBoolArray", handle, [POINTER(ctypes.c_bool), c_uint64]),
    ("aclCreateTensorList", handle, [POINTER(handle), c_uint64]),
    ("aclCreateScalarList", handle, [POINTER(handle), c_uint64]),
    ("aclDestroyTensor", aclnnStatus, [handle]),
    ("aclDestroyScalar", aclnnStatus, [handle]),
    ("aclDestroyIntArray", aclnnStatus, [handle]),
    ("aclDestroyFloatArray", aclnnStatus, [handle]),
    ("aclDestroyBoolArray", aclnnStatus, [handle]),
    ("aclDestroyTensorList", aclnnStatus, [handle]),
    ("aclDestroyScalarList", aclnnStatus, [handle]),
    ("aclSetAclOpExecutorRepeatable", aclnnStatus, [handle]),
    ("aclDestroyAclOpExecutor", aclnnStatus, [handle]),
]

# libopapi.so -- each op's own arguments, from its header in hicann/ops-math and hicann/ops-nn
T, S, ARR, I8 = handle, handle, handle, c_int8   # aclTensor*, aclScalar*, aclIntArray*, int8_t
OPS = {
    # ops-math math/add/op_api/aclnn_add.h
    "Add": [T, T, S, T], "Adds": [T, S, S, T], "InplaceAdd": [T, T, S], "InplaceAdds": [T, S, S],
    # ops-math math/mul/op_api/aclnn_mul.h
    "Mul": [T, T, T], "Muls": [T, S, T], "InplaceMul": [T, T], "InplaceMuls": [T, S],
    # ops-math math/cast/op_api/aclnn_cast.h
    "Cast": [T, aclDataType, T],
    # ops-math conversion/view_copy/op_api/aclnn_copy.h
    "InplaceCopy": [T, T],
    # ops-math conversion/fill/op_api/aclnn_fill_scalar.h, math/zero_op/op_api/aclnn_zero.h
    "InplaceFillScalar": [T, S], "InplaceZero": [T],
    # ops-nn matmul/mat_mul_v3/op_host/op_api/aclnn_matmul.h, aclnn_mm.h; batch_mat_mul_v3/.../aclnn_batch_matmul.h
    "Matmul": [T, T, T, I8], "Mm": [T, T, T, I8], "BatchMatMul": [T, T, T, I8],
}
PHASE1_TAIL = [uint64_p, POINTER(handle)]
PHASE2 = [c_void_p, c_uint64, handle, aclrtStream]


class Bound:
    """A library's functions with their prototypes attached; missing symbols are listed, not fatal."""

    def __init__(self, lib, table):
        self.lib = lib
        self.missing = []
        for name, restype, argtypes in table:
            try:
                fn = getattr(lib, name)
            except AttributeError:
                self.missing.append(name)
                continue
            fn.restype, fn.argtypes = restype, argtypes
            setattr(self, name, fn)


def bind(lib, table):
    return Bound(lib, table)


def bind_op(lib, name):
    """(phase-1 function, phase-2 function) of aclnn<name>, or None when the library lacks it."""
    args = OPS[name]
    try:
        first, second = getattr(lib, f"aclnn{name}GetWorkspaceSize"), getattr(lib, f"aclnn{name}")
    except AttributeError:
        return None
    first.restype, first.argtypes = aclnnStatus, args + PHASE1_TAIL
    second.restype, second.argtypes = aclnnStatus, PHASE2
    return first, second
