"""NPU kernels: each op of the table that runs on the device, through one ACLNN operator.

Kernels follow core's calling convention, kernel(meta, *bound args); `meta` carries the output
shape and dtype from core's shape rule, so a kernel allocates its output and launches.
"""
from mindtorch.plugins import Tensor, dtypes as D

from .aclnn import launch, DType, scalar_for
from .copy import COPY, empty, npu_device
from .state import RUNTIME

KERNELS = {}


def kernel(*names):
    def deco(fn):
        for name in names:
            KERNELS[name] = fn
        return fn
    return deco


def contiguous(t):
    out = empty(t._shape, t.dtype, t.device)
    launch("InplaceCopy", out, t)
    return out


# --- factories and copies ------------------------------------------------------------------------

@kernel("empty")
def empty_(m, size, dtype=None, layout=None, device=None, *rest):
    return empty(m.shape, m.dtype, npu_device(device))


@kernel("empty_strided")
def empty_strided(m, size, stride, dtype=None, layout=None, device=None, *rest):
    from mindtorch.plugins import make_tensor
    from .state import ALLOCATOR
    dev = npu_device(device)
    span = 1 + sum((s - 1) * st for s, st in zip(size, stride)) if all(size) else 0
    storage = ALLOCATOR.allocate(span * m.dtype.itemsize, dev)
    return make_tensor(storage, tuple(size), tuple(stride), 0, m.dtype, dev)


@kernel("full")
def full(m, size, value, dtype=None, layout=None, device=None, *rest):
    out = empty(m.shape, m.dtype, npu_device(device))
    return fill_(None, out, value)


@kernel("clone")
def clone(m, a, memory_format=None):
    return contiguous(a)


@kernel("fill_.Scalar")
def fill_(m, a, value):
    launch("InplaceFillScalar", a, scalar_for(value, a.dtype))
    return a


@kernel("zero_")
def zero_(m, a):
    launch("InplaceZero", a)
    return a


@kernel("copy_")
def copy_(m, dst, src, non_blocking=False):
    # core moves data between backends through the copy routines; here both are NPU tensors
    if src.device.index != dst.device.index:  # between two NPUs, through the host
        COPY.copy_from_host(dst, _host_values(src, dst.dtype))
    else:
        launch("InplaceCopy", dst, src)
    return dst


@kernel("_to_copy")
def to_copy(m, a, dtype=None, device=None, non_blocking=False):
    dev = a.device if device is None else npu_device(device)
    if dev.index != a.device.index:
        return COPY.from_host(_host_values(a, m.dtype), m.dtype, dev, non_blocking)
    out = empty(a._shape, m.dtype, dev)
    if m.dtype is a.dtype:
        launch("InplaceCopy", out, a)
    else:
        launch("Cast", a, DType(m.dtype), out)
    return out


def _host_values(t, dtype=None):
    """t's values on the host, cast on the device first when another dtype is asked for."""
    if dtype is not None and dtype is not t.dtype:
        out = empty(t._shape, dtype, t.device)
        launch("Cast", t, DType(dtype), out)
        t = out
    return COPY.to_host(t)


# --- arithmetic ------------------------------------------------------------------------------------

def _binary(tensor_op, scalar_op, has_alpha, negate=False):
    def out_of_place(m, a, b, alpha=1):
        out = empty(m.shape, m.dtype, a.device)
        extra = (scalar_for(-alpha if negate else alpha, m.dtype),) if has_alpha else ()
        if isinstance(b, Tensor):
            launch(tensor_op, a, b, *extra, out)
        else:
            launch(scalar_op, a, scalar_for(b, m.dtype), *extra, out)
        return out

    def in_place(m, a, b, alpha=1):
        extra = (scalar_for(-alpha if negate else alpha, a.dtype),) if has_alpha else ()
        if isinstance(b, Tensor):
            launch("Inplace" + tensor_op, a, b, *extra)
        else:
            launch("Inplace" + scalar_op, a, scalar_for(b, a.dtype), *extra)
        return a
    return out_of_place, in_place


KERNELS["add"], KERNELS["add_"] = _binary("Add", "Adds", True)
KERNELS["sub"], KERNELS["sub_"] = _binary("Add", "Adds", True, negate=True)   # self - alpha*other
KERNELS["mul"], KERNELS["mul_"] = _binary("Mul", "Muls", False)


# --- matrix products -------------------------------------------------------------------------------

MATMUL_DTYPES = (D.float16, D.bfloat16, D.float32)


_native_fp32 = []


def _cube_math_type(dtype):
    """KEEP_DTYPE (0) where the chip multiplies float32 natively (910B/910_93 class), otherwise
    ALLOW_FP32_DOWN_PRECISION (1), which aclnnMatmul requires for float32 on older chips."""
    if not _native_fp32:
        _native_fp32.append(RUNTIME.soc_name().startswith(("Ascend910B", "Ascend910_93")))
    return 1 if dtype is D.float32 and not _native_fp32[0] else 0


def _matmul_op(name, acl_name):
    def k(m, a, b):
        if m.dtype not in MATMUL_DTYPES:
            raise RuntimeError(f"\"{name}\" not implemented for '{m.dtype}' on npu: aclnn{acl_name} supports "
                               "float16, bfloat16 and float32")
        out = empty(m.shape, m.dtype, a.device)
        launch(acl_name, a, b, out, _cube_math_type(m.dtype))
        return out
    return k


KERNELS["mm"] = _matmul_op("mm", "Mm")
KERNELS["bmm"] = _matmul_op("bmm", "BatchMatMul")
KERNELS["matmul"] = _matmul_op("matmul", "Matmul")
