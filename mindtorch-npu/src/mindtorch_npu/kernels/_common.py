"""What the kernel families share: tensor views and copies, the host reads a kernel needs (one sync each), a
unary operator run through a dtype the chip's operator takes, and the one dispatcher of binary operators
between a tensor and a tensor or a number (the tensor-tensor, tensor-scalar and number-first forms)."""

import numpy as np
from mindtorch.plugins import OPS, Tensor, backend_for, device as Device, dtypes as D, make_tensor

from .. import chips, precision
from ..aclnn import SMALL_INT_SCALARS, IntArray, dtype_arg, launch, launch_rewriting_out, scalar_for
from ..copy import COPY, D2H, DENSE, HOST_DTYPE, address, empty
from ..native import load as load_native
from ..state import RUNTIME

_launch = load_native("launch")  # binary's tensor-tensor kernel in C, or None

# --- tensors: views, dense copies, casts -----------------------------------------------------------


def numel(t):
    n = 1
    for s in t._shape:
        n *= s
    return n


def view(t, shape, stride, offset=None):
    """A view of t's storage (t's own offset unless one is given)."""
    return make_tensor(
        t._storage, tuple(shape), tuple(stride), t._offset if offset is None else offset, t.dtype, t.device
    )


def is_contiguous(t):
    dense = DENSE.get(t._shape)  # a shape a result was made in: its strides, the common answer
    if dense is not None and dense[1] == t._stride:
        return True
    acc = 1
    for s, st in zip(reversed(t._shape), reversed(t._stride)):
        if s != 1 and st != acc:
            return False
        acc *= s
    return True


def contiguous(t):
    out = empty(t._shape, t.dtype, t.device)
    launch("InplaceCopy", out, t)
    return out


def dense(t):
    """t itself when it is dense (or None), else a contiguous copy."""
    return t if t is None or is_contiguous(t) else contiguous(t)


def mT(t):
    """t with its last two dims swapped (a view)."""
    return view(t, t._shape[:-2] + (t._shape[-1], t._shape[-2]), t._stride[:-2] + (t._stride[-1], t._stride[-2]))


def move_dims(t, start, count, to):
    """t with its dims [start, start + count) moved to position `to` (a view)."""
    order = list(range(len(t._shape)))
    block = order[start : start + count]
    rest = order[:start] + order[start + count :]
    order = rest[:to] + block + rest[to:]
    return view(t, [t._shape[i] for i in order], [t._stride[i] for i in order])


def as_1d(t):
    """A 0-dim tensor as a 1-element 1-D view (operators that take no 0-dim tensors)."""
    return view(t, (1,), (1,)) if not t._shape else t


def cast(t, dtype):
    """t in `dtype`; a dtype the chip cannot hold (either side) is the chip's TypeError, not a launch error."""
    chips.check_chip_dtype(t.dtype, "aclnnCast")
    chips.check_chip_dtype(dtype, "aclnnCast")
    out = empty(t._shape, dtype, t.device)
    launch("Cast", t, dtype_arg(dtype), out)
    return out


def fill(t, value):
    launch("InplaceFillScalar", t, scalar_for(value, t.dtype))
    return t


def scalar_tensor(value, dtype, device):
    """A 0-dim device tensor holding a Python number (for ops whose header has no scalar form)."""
    # the number keeps its category (bool / int64 / default float), as a wrapped number does in PyTorch;
    # within the tensor's category it takes the tensor's dtype, so it never widens the result
    dt = D.bool_ if isinstance(value, bool) else D.int64 if isinstance(value, int) else D.float32
    if (dt.is_floating_point and dtype.is_floating_point) or (
        dt is D.int64 and not dtype.is_floating_point and dtype is not D.bool_
    ):
        dt = dtype
    return fill(empty((), dt, device), value)


def in_place_by_copy(out_of_place):
    """The in-place kernel of an op whose operator has no in-place form: the result copied over self."""

    def in_place(m, a, *args):
        launch("InplaceCopy", a, out_of_place(m, a, *args))
        return a

    return in_place


def device_of(rest):
    """The device argument of a factory's (dtype, layout, device, ...) tail."""
    return rest[2] if len(rest) > 2 else None


# --- host reads: one stream wait each ----------------------------------------------------------------


def host_values(t, dtype=None):
    """t's values on the host, cast on the device first when another dtype is asked for."""
    return COPY.to_host(t if dtype is None or dtype is t.dtype else cast(t, dtype))


def on_host(qualname, m, *args):
    """The cpu backend's kernel of `qualname` run on host copies of the npu tensor arguments, its result
    uploaded to the first tensor's device: torch_npu's cpu fallback, for the argument combinations an operator's
    doc refuses on the chip."""
    cpu = backend_for("cpu")
    dev = next(a.device for a in args if isinstance(a, Tensor))
    host = [cpu.from_host(COPY.to_host(a), a.dtype, Device("cpu")) if isinstance(a, Tensor) else a for a in args]
    out = OPS[qualname].kernels["cpu"](m, *host)
    return COPY.from_host(cpu.to_host(out), out.dtype, dev)


def check_index(index, size, dim, name, exc=IndexError, negative=False, deferred=False):
    """PyTorch's error for an index out of [0, size) (of [-size, size) when `negative` indices count from the
    end). ACLNN's indexing operators do not check (an out-of-range index reads or writes some other element), so
    every indexing kernel checks: both bounds are reduced on the device into one 2-element tensor. A kernel that
    writes through the index waits for them before its launch (the write must not happen); a kernel that only
    reads (`deferred`) goes on, and the bounds are read at the next synchronization, as CUDA reports a device
    assert, raising there (BOUNDS)."""
    if not numel(index):
        return
    bounds = BOUNDS.slot(index.dtype, index.device) if deferred else None
    if bounds is None:
        bounds = empty((2,), index.dtype, index.device)
    every = IntArray(range(len(index._shape)))
    for i, acl in enumerate(("Amin", "Amax")):
        launch(acl, index, every, False, view(bounds, (), (), bounds._offset + i))
    check = (bounds, size, dim, name, exc, negative)
    if deferred:
        BOUNDS.defer(check)
    else:
        _raise_if_out_of_range(check, COPY.to_host(bounds).tolist())


def _raise_if_out_of_range(check, lo_hi):
    _, size, dim, name, exc, negative = check
    lo, hi = lo_hi
    bad = lo if lo < (-size if negative else 0) else hi if hi >= size else None
    if bad is not None:
        where = f"{name}(): " if name else ""
        raise exc(f"{where}index {bad} is out of bounds for dimension {dim} with size {size}")


class DeferredBounds:
    """Index bounds reduced on the device and not yet read: read together at the next point where the host waits
    for the device (RUNTIME.sync_hook), or once MAX of them wait; the first out-of-range one raises its error
    there. Reading them waits for their streams only."""

    MAX = 64

    def __init__(self):
        self.pending = []
        # (device index, dtype, stream) -> [a (MAX, 2) tensor of slots, slots taken]: a deferred check writes
        # into a slot, not a block of its own, so a training step's allocations do not move with the checks
        # waiting (the same addresses step after step keep the launch plans' descriptors)
        self.rings = {}

    def slot(self, dtype, device):
        """A (2,) view for one deferred check's bounds, or None while a graph captures (its checks are read
        after each replay, so each keeps a block of its own)."""
        index = device.index
        if RUNTIME.capturing(index) is not None:
            return None
        key = (index, dtype, RUNTIME.current_stream(index))
        ring = self.rings.get(key)
        if ring is None:
            ring = self.rings[key] = [empty((self.MAX, 2), dtype, device), 0]
        t, taken = ring
        ring[1] = taken + 1  # fewer than MAX: the checks drain at MAX
        return view(t, (2,), (1,), t._offset + 2 * taken)

    def defer(self, check):
        index = check[0].device.index
        graph = RUNTIME.capturing(index)
        if graph is not None:  # read after each replay of the graph, not now: the check has not run yet
            graph._checks.append(check)
            return
        self.pending.append((check, RUNTIME.current_stream(index)))
        if RUNTIME.sync_hook is None:
            RUNTIME.sync_hook = self.drain
        if len(self.pending) >= self.MAX:
            self.drain()

    def drain(self):
        pending, self.pending = self.pending, []  # taken first: the reads below synchronize too
        self.rings = {}
        error = None
        for check, stream in pending:
            bounds = check[0]
            index = bounds.device.index
            RUNTIME.synchronize_stream(index, stream)
            host = np.empty(2, HOST_DTYPE[bounds.dtype])
            RUNTIME.memcpy(host.ctypes.data, address(bounds), host.nbytes, D2H)
            if error is None:
                try:
                    _raise_if_out_of_range(check, host.tolist())
                except Exception as exc:  # raised below, once every pending check was read
                    error = exc
        if error is not None:
            raise error

    def discard(self):
        """Forget the unread checks (at exit: there is no caller left to raise to)."""
        self.pending = []
        self.rings = {}


BOUNDS = DeferredBounds()


def nan_mask(a):
    out = empty(a._shape, D.bool_, a.device)
    launch("NeTensor", a, a, out)  # NaN is the one value unequal to itself
    return out


def fill_masked(out, mask, value):
    """out[mask] = value. aclnnInplaceMaskedFillScalar.md lists no DOUBLE, UINT8 or INT16 for selfRef: those
    go through SWhere (which takes DOUBLE) or an INT32 copy, both exact."""
    dt = out.dtype
    if chips.supports("InplaceMaskedFillScalar", dt):
        launch("InplaceMaskedFillScalar", out, mask, scalar_for(value, dt))
    elif dt.is_floating_point:
        launch("SWhere", mask, scalar_tensor(value, dt, out.device), out, out)
    else:
        wide = cast(out, D.int32)
        launch("InplaceMaskedFillScalar", wide, mask, scalar_for(value, D.int32))
        launch("InplaceCopy", out, wide)


def nonzero(a):
    """The [rows, ndim] int64 indices of a's nonzero elements (argwhere). aclnnNonzero fills the first `rows` rows
    of its [numel, ndim] out and reports `rows` through the out descriptor's rewritten shape (one sync)."""
    n, nd = numel(a), len(a._shape)
    full = empty((n, nd), D.int64, a.device)
    if not n:
        return full
    rows = launch_rewriting_out("Nonzero", a, full)[0]
    return contiguous(view(full, (rows, nd), (nd, 1))) if rows < n else full


# --- the chip: matmul precision, operators run through a dtype they take ------------------------------


def cube_math_type(dtype):
    """The matmul family's cubeMathType for `dtype` (precision.py: torch.npu.matmul.allow_hf32): KEEP_DTYPE (0)
    where the chip's cube multiplies float32 natively (chips.native_fp32_cube), ALLOW_FP32_DOWN_PRECISION (1) for
    float32 elsewhere, which the matmul family requires there; USE_HF32 (3) when allow_hf32 is set."""
    return precision.matmul_cube_math_type(dtype is D.float32)


def conv_cube_math_type():
    """The convolutions' cubeMathType (torch.npu.conv.allow_hf32, True by default: USE_HF32 on 910B-class chips)."""
    return precision.conv_cube_math_type()


_THROUGH = {}  # (operator, input dtype, result dtype) -> (computation dtype, out dtype); a process has one chip


def through(acl, a, result):
    """(input, out dtype) for running `acl` on `a` toward a `result`-typed value, per the chip table: an input
    dtype the operator does not take is cast to one it does, and so is an out dtype it cannot write."""
    key = (acl, a.dtype, result)
    dtypes = _THROUGH.get(key)
    if dtypes is None:
        dtypes = _THROUGH[key] = _through_dtypes(acl, a.dtype, result)
    cdt, rdt = dtypes
    return (a if cdt is a.dtype else cast(a, cdt)), rdt


def _through_dtypes(acl, dtype, result):
    """through's answer for an input of `dtype`: (computation dtype, out dtype), or the chip's error."""
    chips.check_chip_dtype(dtype, f"aclnn{acl}")
    cdt = chips.compute_dtype(acl, dtype, result)
    return cdt, (result if chips.writes(acl, result) or not chips.writes(acl, cdt) else cdt)


def run(acl, a, m, *attrs):
    """out = acl(a, *attrs) with m's shape and dtype, through a supported dtype when needed."""
    x, rdt = through(acl, a, m.dtype)
    out = empty(m.shape, rdt, a.device)
    launch(acl, x, *attrs, out)
    return out if rdt is m.dtype else cast(out, m.dtype)


def compiled_unary(acl, out_of_place):
    """`out_of_place(m, a)`, a kernel that is run(acl, a, m), with its cast-free case in C where built (the
    function stays the reference, as .python)."""
    return out_of_place if _launch is None else _launch.Unary(acl, _THROUGH, empty, launch, out_of_place)


# --- binary operators: tensor-tensor, tensor-scalar and number-first forms ---------------------------


def launch_binary(tensor_op, scalar_op, a, b, dtype, *attrs, out=None):
    """One binary operator on tensor `a` and `b`, a tensor or a number: `tensor_op` for a tensor, `scalar_op`
    with b as an aclScalar of `dtype` for a number (or, when the header has no scalar form, `tensor_op` with b
    as a 0-dim tensor against a's dtype). `attrs` follow the operands (alpha, a rounding mode). Without `out`
    the Inplace form writes into a. Returns the result."""
    if isinstance(b, Tensor):
        op = tensor_op
    elif scalar_op:
        op, b = scalar_op, scalar_for(b, dtype)
    else:
        op, b = tensor_op, scalar_tensor(b, a.dtype, a.device)
    if out is None:
        launch("Inplace" + op, a, b, *attrs)
        return a
    launch(op, a, b, *attrs, out)
    return out


def binary_out(m, tensor_op, scalar_op, a, b, *attrs):
    """a op b into a new tensor of m's shape and dtype. A number a (`2 - t`, derivative formulas) becomes a
    0-dim tensor: against b's dtype, a float against a non-float b in the result's float dtype. A number b
    is given in the result's dtype, or in a's when the result is bool (a comparison)."""
    if a.__class__ is Tensor and b.__class__ is Tensor:  # the common case, straight to the launch
        out = empty(m.shape, m.dtype, a.device)
        launch(tensor_op, a, b, *attrs, out)
        return out
    if not isinstance(a, Tensor):
        like = m.dtype if isinstance(a, float) and m.dtype.is_floating_point else b.dtype
        a = scalar_tensor(a, like, b.device)
    out = empty(m.shape, m.dtype, a.device)
    return launch_binary(tensor_op, scalar_op, a, b, a.dtype if m.dtype is D.bool_ else m.dtype, *attrs, out=out)


def binary(tensor_op, scalar_op=None, *, with_alpha=False, inplace=True):
    """(out-of-place kernel, in-place kernel or None) of a binary op; `with_alpha`: the operator takes other
    scaled by alpha (add, sub)."""

    def out_of_place(m, a, b, alpha=1):
        if a.__class__ is Tensor and b.__class__ is Tensor:  # binary_out's common case, a call less
            out = empty(m.shape, m.dtype, a.device)
            if with_alpha:
                launch(tensor_op, a, b, scalar_for(alpha, m.dtype), out)
            else:
                launch(tensor_op, a, b, out)
            return out
        return binary_out(m, tensor_op, scalar_op, a, b, *((scalar_for(alpha, m.dtype),) if with_alpha else ()))

    def in_place(m, a, b, alpha=1):
        return launch_binary(
            tensor_op, scalar_op, a, b, a.dtype, *((scalar_for(alpha, a.dtype),) if with_alpha else ())
        )

    if _launch is not None:  # the tensor-tensor case in C; the function above is the reference (.python)
        out_of_place = _launch.Binary(tensor_op, with_alpha, empty, launch, SMALL_INT_SCALARS, scalar_for, out_of_place)
    return out_of_place, (in_place if inplace else None)
