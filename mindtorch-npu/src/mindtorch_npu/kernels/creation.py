"""Creation and copy kernels: the factories (empty, full, arange, eye, linspace), fills, clone, and the copies
between npu tensors (copy_ and _to_copy; copies to and from the host are the backend's copy routines)."""

from mindtorch.plugins import arange_params, dtypes as D, kernel_table, make_tensor

from .. import chips
from ..aclnn import launch, scalar_for
from ..copy import COPY, empty, npu_device
from ..state import ALLOCATOR
from ._common import cast, contiguous, device_of, fill, host_values, numel

KERNELS, kernel = kernel_table()


@kernel("empty")
def empty_(m, size, dtype=None, layout=None, device=None, *rest):
    return empty(m.shape, m.dtype, npu_device(device))


@kernel("empty_strided")
def empty_strided(m, size, stride, dtype=None, layout=None, device=None, *rest):
    dev = npu_device(device)
    span = 1 + sum((s - 1) * st for s, st in zip(size, stride)) if all(size) else 0
    storage = ALLOCATOR.allocate(span * m.dtype.itemsize, dev)
    return make_tensor(storage, tuple(size), tuple(stride), 0, m.dtype, dev)


@kernel("full")
def full(m, size, value, dtype=None, layout=None, device=None, *rest):
    return fill(empty(m.shape, m.dtype, npu_device(device)), value)


@kernel("fill_.Scalar")
def fill_(m, a, value):
    return fill(a, value)


@kernel("zero_")
def zero_(m, a):
    launch("InplaceZero", a)
    return a


@kernel("clone")
def clone(m, a, memory_format=None):
    return contiguous(a)


@kernel("copy_")
def copy_(m, dst, src, non_blocking=False):
    # core moves data between backends through the copy routines; here both are NPU tensors
    if src.device.index != dst.device.index:  # between two NPUs, through the host
        COPY.copy_from_host(dst, host_values(src, dst.dtype))
    else:
        launch("InplaceCopy", dst, src)
    return dst


@kernel("_to_copy")
def to_copy(m, a, dtype=None, device=None, non_blocking=False):
    dev = a.device if device is None else npu_device(device)
    if dev.index != a.device.index:
        return COPY.from_host(host_values(a, m.dtype), m.dtype, dev, non_blocking)
    if m.dtype is a.dtype:
        out = empty(a._shape, m.dtype, dev)
        launch("InplaceCopy", out, a)
        return out
    return cast(a, m.dtype)


def _factory(acl, m, device, wider, *args):
    """out = acl(*args) of m's shape and dtype; a dtype the operator does not write is filled in `wider` (which
    holds every value of it) and cast."""
    chips.check_chip_dtype(m.dtype, f"aclnn{acl}")  # before any work: a dtype the chip cannot hold at all
    dt = m.dtype if chips.supports(acl, m.dtype) else wider
    out = empty(m.shape, dt, device)
    launch(acl, *args, out)
    return out if dt is m.dtype else cast(out, m.dtype)


@kernel("arange.start_step")
def arange(m, start, end, step, *rest):
    _, start, step, n = arange_params(start, end, step, m.dtype)
    device = npu_device(device_of(rest))
    if not n:
        return empty(m.shape, m.dtype, device)
    # aclnnArange writes no 8- or 16-bit integers: they are counted in int32; a float type the chip's
    # operator does not write (bfloat16 before the A2 parts) is counted in float32
    wider = D.float32 if m.dtype.is_floating_point else D.int32
    return _factory(
        "Arange", m, device, wider, scalar_for(start, m.dtype), scalar_for(end, m.dtype), scalar_for(step, m.dtype)
    )


@kernel("eye")
def eye(m, n, mm=None, *rest):
    out = empty(m.shape, m.dtype, npu_device(device_of(rest)))
    if numel(out):
        launch("Eye", int(m.shape[0]), int(m.shape[1]), out)
    return out


@kernel("linspace")
def linspace(m, start, end, steps, *rest):
    device = npu_device(device_of(rest))
    if not steps:
        return empty(m.shape, m.dtype, device)
    # aclnnLinspace writes no int64: the points are computed in float64 and truncated, as an integer out would be
    return _factory(
        "Linspace", m, device, D.float64, scalar_for(start, D.float64), scalar_for(end, D.float64), int(steps)
    )
