"""The per-op call path: device resolution, kernel lookup, autograd recording.

Every generated API function ends here. Kernel tables are plain dicts filled
at import by the plugin loader; no hook is called per op.
"""

from . import _dtype as D
from ._backends.registry import BACKENDS as _BACKENDS, backend_for, load_deferred, no_backend_error
from ._device import _default as _default_device, device as _device_cls
from ._errors import missing_kernel_error
from ._geometry import contiguous_strides as _contiguous_strides, is_contiguous as _is_contig, numel as _numel
from ._grad_mode import refuse_inference_write, state as _grad
from ._profiling import ACTIVE as _PROFILING
from ._storage import VersionCounter
from ._tensor import Tensor, make_tensor

_CPU = _device_cls("cpu")


def _device_and_grad(op, args):
    """The device the op runs on, whether any input requires grad, and whether a
    0-dim CPU tensor must move to that device."""
    dev = None
    needs = False
    mixed = False
    for i in op.tensor_params:
        a = args[i]
        if a.__class__ is Tensor or isinstance(a, Tensor):
            if a._requires_grad:
                needs = True
            d = a.device
            if dev is None:
                dev = d
            elif d is not dev:
                dev = _mixed_device(op, dev, a, args)
                mixed = True
        elif a.__class__ is tuple or isinstance(a, (list, tuple)):
            for t in a:
                if isinstance(t, Tensor):
                    if t._requires_grad:
                        needs = True
                    if dev is None:
                        dev = t.device
                    elif t.device is not dev:
                        dev = _mixed_device(op, dev, t, args)
                        mixed = True
    return dev, needs, mixed


def _factory_device(op, args):
    i = op.device_param
    d = args[i] if i is not None else None
    return normalize_device(_default_device[0] if d is None else d)


_NORMAL: dict = {}  # what a device spelling normalises to, memoised


def normalize_device(d):
    """The device a tensor created on `d` reports: cpu and meta carry no index, other
    types get the current device's index (as torch.device("cuda") -> cuda:0)."""
    n = _NORMAL.get(d)
    if n is None:
        if d.type in ("cpu", "meta"):
            n = _device_cls(d.type)
        elif d.index is not None:
            n = d
        else:
            b = _BACKENDS.get(d.type)
            mod = b.module if b is not None else None
            idx = mod.current_device() if mod is not None and hasattr(mod, "current_device") else 0
            return _device_cls(d.type, idx)  # not cached: the current device may change
        _NORMAL[d] = n
    return n


# cat and the composites that end in it: PyTorch's cat checks its inputs' devices (0-dim CPU tensors
# too, before any other check) and out='s dtype with messages of its own; the composites leave it to cat
CAT_FAMILY = frozenset(
    ("cat", "concat", "concatenate", "stack", "hstack", "vstack", "row_stack", "dstack", "column_stack")
)


def _mixed_device(op, dev, t, args):
    if op.name in CAT_FAMILY:
        if op.name == "cat":
            raise RuntimeError(f"Tensor on device {t.device} is not on the expected device {dev}!")
        return dev  # the composite's own checks, then cat's
    # a 0-dim CPU tensor may join a computation on another device (as in PyTorch), on either side
    if t.device.type == "cpu" and not t._shape:
        return dev
    if dev.type == "cpu" and _only_cpu_scalars(op, args, t.device):
        return t.device
    raise RuntimeError(
        f"Expected all tensors to be on the same device, but found at least two devices, "
        f"{dev} and {t.device}! (when checking argument for '{op.name}')"
    )


def _only_cpu_scalars(op, args, dev):
    """Whether every tensor argument not on `dev` is a 0-dim CPU tensor."""
    for i in op.tensor_params:
        a = args[i]
        for t in a if isinstance(a, (list, tuple)) else (a,):
            if isinstance(t, Tensor) and t.device != dev and (t.device.type != "cpu" or t._shape):
                return False
    return True


def _move_cpu_scalars(args, op, dev):
    out = list(args)
    for i in op.tensor_params:
        a = out[i]
        if isinstance(a, Tensor) and a.device is not dev and a.device.type == "cpu" and not a._shape:
            out[i] = a.to(dev)
    return tuple(out)


from . import _amp_state  # noqa: E402
from ._amp_state import ACTIVE as _AMP, POLICY_OPS as _AMP_OPS  # noqa: E402


def call(op, args):  # noqa: C901
    if _PROFILING and _PROFILING[0].takes(args):  # a profiler records: the op becomes one timed event
        return _PROFILING[0].run(op, args, call)
    if op.lean_view and args[0].__class__ is Tensor:
        return _lean_view(op, args)
    if _AMP and op.name in _AMP_OPS:  # autocast is on somewhere: this op may want its inputs cast
        args = _amp_state.cast_args(op.name, args, op)
    if op.name in _COPIES:
        routed = _cross_backend(op, args)
        if routed is not None:
            return routed
    dev, needs, mixed = _device_and_grad(op, args)
    if dev is None:
        dev = _factory_device(op, args)
        i = op.device_param
        if i is not None and args[i] is not dev:
            args = args[:i] + (dev,) + args[i + 1 :]
    if needs and not _grad.enabled:
        needs = False
    if op.view_fn is not None:
        out = make_view(args[0], *op.view_fn(*args))
    else:
        kernel = op.kernels.get(dev.type)
        if op.name == "_to_copy" and args[2] is not None:
            args = (args[0], args[1], normalize_device(args[2])) + args[3:]
            if args[2].type != dev.type:
                kernel = _to_copy_via_host
        if kernel is None or (needs and op.derivative is None and op.composite is not None):
            if op.composite is not None:
                if op.multi_view:
                    return _multi_views(op, args, needs)
                if needs and op.derivative is not None and not op.inplace:
                    return _composite_with_formula(op, args)
                if op.mutated:
                    return _composite_settled(op, args)
                return op.composite(*args)
            if op.inplace and dev.type in _BACKENDS:
                return _inplace_fallback(op, args)
            if load_deferred():
                return call(op, args)
            raise _missing(op, dev)
        if mixed:
            args = _move_cpu_scalars(args, op, dev)
        if op.inplace:
            return _call_inplace(op, kernel, args, needs)
        meta = op.meta(*args) if op.meta is not None else None
        written = _written_versions(op, args) if op.mutated else None
        try:
            out = kernel(meta, *args)
        except MemoryError:  # a backend's host library ran out: PyTorch's allocators raise RuntimeError
            raise RuntimeError(
                f"{op.name}: not enough memory on {dev.type} for a result of shape "
                f"{list(getattr(meta, 'shape', ()) or ())}"
            ) from None
        if written is not None:
            _settle_versions(written)
    if needs:
        if op.derivative is None:
            _nondiff_outputs(op, out)
        else:
            _record(op, args, out)
    return out


def _lean_view(op, args):
    """A view of one plain tensor: its geometry rule and the view, recorded when grad is on."""
    return view_with(op, args, *op.view_fn(*args))


def view_with(op, args, shape, stride, offset):
    """The view op `op` on args[0] with the geometry already worked out, recorded when grad is on."""
    self = args[0]
    out = make_view(self, shape, stride, offset)
    if self._requires_grad and _grad.enabled and op.derivative is not None:
        _record(op, args, out)
    return out


def _multi_views(op, args, needs):
    """split/unbind-like ops: their views remember how they were made, so that an in-place write to one
    (or to a view of one) is refused as PyTorch refuses it (autograd.graph.check_inplace)."""
    out = _composite_with_formula(op, args) if needs else op.composite(*args)
    made = "multi-output" if _grad.enabled else "no-grad"
    for o in out:
        o._view_creation = made
    return out


def _composite_with_formula(op, args):
    """An op that has a derivative formula runs its decomposition unrecorded and is recorded as itself, as
    PyTorch's CompositeExplicitAutograd ops are: the backward is the op's formula (what the cpu kernel's
    backward is), not the chain of the decomposition's pieces."""
    prev = _grad.enabled
    _grad.enabled = False
    try:
        out = op.composite(*args)
    finally:
        _grad.enabled = prev
    _record(op, args, out)
    return out


def _missing(op, dev):
    if dev.type not in _BACKENDS:
        return no_backend_error(dev.type)
    return missing_kernel_error(op.qualname, dev.type)


# -- copies between backends: core moves data through the host copy routines, so a backend
# -- implements only copies within itself (between its own devices too)
_COPIES = ("copy_", "_to_copy")


def _cross_backend(op, args):
    """copy_ across backends as `_to_copy` to dst's device plus a same-device copy_ (so autograd
    and broadcasting work as usual); None when the copy stays within one backend."""
    if op.name != "copy_":
        return None
    dst, src = args[0], args[1]
    if not isinstance(src, Tensor) or not isinstance(dst, Tensor):
        return None
    if src.device.type == dst.device.type:
        if src.device is dst.device or src.device == dst.device:
            return None
        kernel = op.kernels.get(dst.device.type)  # two devices of one backend: its own kernel
        if kernel is None:
            raise _missing(op, dst.device)
        return _call_inplace(op, kernel, args, _grad.enabled and (src._requires_grad or dst._requires_grad))
    import mindtorch

    moved = mindtorch.ops._to_copy(src, device=dst.device, non_blocking=bool(args[2:] and args[2]))
    return dst.copy_(moved, *args[2:])


def _to_copy_via_host(meta, self, dtype=None, device=None, non_blocking=False):
    """`_to_copy` to another backend: the source backend's to_host, the target's from_host."""
    src, dst = backend_for(self.device.type), backend_for(device.type)
    out = dst.from_host(src.to_host(self), self.dtype, device, non_blocking)
    if meta.dtype is not self.dtype:
        import mindtorch

        out = mindtorch.ops._to_copy(out, dtype=meta.dtype)
    return out


def _record(op, args, out):
    _autograd_graph().record(op, args, out)


_graph_mod = None


def _autograd_graph():
    # autograd sits above dispatch: bound on first use, through the assembled package
    global _graph_mod
    if _graph_mod is None:
        import mindtorch

        _graph_mod = mindtorch.autograd.graph
    return _graph_mod


def _nondiff_outputs(op, out):
    """Outputs of ops without a derivative never require grad."""
    return out


def bump_version(t):
    v = t._version
    if v is None:
        v = t._version = VersionCounter()
    v.value += 1


def _written_versions(op, args):
    """{id: [tensor, version before the call, writes owed]} for the tensors in the op's written slots."""
    owed: dict = {}
    for i in op.mutated:
        a = args[i]
        for t in (a,) if isinstance(a, Tensor) else a if isinstance(a, (list, tuple)) else ():
            if isinstance(t, Tensor):
                entry = owed.get(id(t))
                if entry is None:
                    owed[id(t)] = [t, t._version.value if t._version is not None else 0, 1]
                else:
                    entry[2] += 1
    return owed


def _composite_settled(op, args):
    """A writing op's composite: its public in-place ops bump as they go; each written tensor they moved ends
    one version per write the schema declares, as after a kernel (one they left alone, as resize_ to the same
    shape does, was not written)."""
    written = _written_versions(op, args)
    out = op.composite(*args)
    _settle_versions({k: w for k, w in written.items() if w[0]._version is not None and w[0]._version.value != w[1]})
    return out


def _settle_versions(written):
    """Each written tensor ends one version per write past where it started: a kernel built from
    public in-place ops (a composite it falls back to) has bumped them already, and must not
    count twice."""
    for t, before, n in written.values():
        v = t._version
        if v is None:
            v = t._version = VersionCounter()
        v.value = before + n


def bump_mutated(op, args):
    """One version bump for every tensor the op's schema marks as written (`Tensor(a!)`,
    `Tensor(a!)[]`, `Tensor(a!)?`), as after any in-place op: backends never touch versions."""
    for i in op.mutated:
        a = args[i]
        if isinstance(a, Tensor):
            bump_version(a)
        elif isinstance(a, (list, tuple)):
            for t in a:
                if isinstance(t, Tensor):
                    bump_version(t)


# in-place ops PyTorch lets write through overlapping (expanded) memory
_OVERLAP_OK = ("fill_", "zero_", "masked_fill_", "index_fill_")


_PARTIAL_OVERLAP = (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory "
    "location. Please clone() the tensor before performing the operation."
)


def _overlap(a, b):
    """How b's elements lie against a's in memory, as PyTorch's get_overlap_status judges: "full" (the very
    same elements), "partial", or None (apart, empty, or strided layouts it does not try to prove)."""
    if a is b:
        return "full"
    if a._storage is not b._storage or 0 in a._shape or 0 in b._shape:
        return None
    if a._offset == b._offset and a._stride == b._stride and a._shape == b._shape and a.dtype is b.dtype:
        return "full"
    if not (_is_contig(a._shape, a._stride) and _is_contig(b._shape, b._stride)):
        return None
    ia, ib = a.dtype.itemsize, b.dtype.itemsize
    lo1, lo2 = a._offset * ia, b._offset * ib
    return "partial" if lo1 < lo2 + _numel(b._shape) * ib and lo2 < lo1 + _numel(a._shape) * ia else None


def _check_overlap(op, self, args):
    """PyTorch's memory-overlap checks for writes: no element of self may alias another
    (expanded dims), and a dense input may not partially overlap a dense self."""
    if op.name in _OVERLAP_OK or 0 in self._shape:
        return
    for size, st in zip(self._shape, self._stride):
        if st == 0 and size > 1:
            raise RuntimeError(
                "unsupported operation: more than one element of the written-to tensor refers to a "
                "single memory location. Please clone() the tensor before performing the operation."
            )
    storage = self._storage
    for o in args[1:]:
        if o.__class__ is Tensor and o is not self and o._storage is storage and _overlap(self, o) == "partial":
            raise RuntimeError(_PARTIAL_OVERLAP)


# the op families whose out= PyTorch checks as its elementwise iterator does: no input partly overlapping out
_ITERATED = frozenset({"pointwise", "special"})
# out= forms PyTorch computes aside and then copies (composites of its own): they take an out overlapping an input
_OUT_COPIED = frozenset({"mvlgamma"})


def _check_out_overlap(op, out, args):
    """PyTorch's checks of out= against the inputs: an elementwise op refuses an input partly overlapping out
    (the very same elements are fine), cat and the ops built on it any input sharing out's elements."""
    joins = op.name in CAT_FAMILY
    if not (joins or op.family in _ITERATED) or op.name in _OUT_COPIED:
        return
    refused = ("partial", "full") if joins else ("partial",)
    for a in args:
        for t in a if joins and isinstance(a, (list, tuple)) else (a,):
            if isinstance(t, Tensor) and _overlap(out, t) in refused:
                raise RuntimeError(_PARTIAL_OVERLAP)


_SELF_ONLY = (0,)  # what most in-place ops write: the common case skips the general loop


def _call_inplace(op, kernel, args, needs):
    self = args[0]
    _check_overlap(op, self, args)
    if needs or self._requires_grad or self._view_creation is not None:
        _autograd_graph().check_inplace(self, needs)
    elif (self if self._base is None else self._base)._inference:
        refuse_inference_write(self)
    meta = op.meta(*args) if op.meta is not None else None
    if meta is not None:
        _check_inplace_meta(op, self, meta)
    saved_self = None
    if needs and op.derivative is not None and op.derivative.uses_self:
        saved_self = self.clone()
    kernel(meta, *args)
    if op.mutated == _SELF_ONLY:
        bump_version(self)
    else:
        bump_mutated(op, args)
    if needs and op.derivative is not None:
        _autograd_graph().record_inplace(op, args, self, saved_self)
    return self


def _check_inplace_meta(op, self, meta):
    m = meta[0] if isinstance(meta, tuple) else meta
    if tuple(m.shape) != tuple(self._shape):
        raise RuntimeError(
            f"output with shape [{', '.join(map(str, self._shape))}] doesn't match the broadcast "
            f"shape [{', '.join(map(str, m.shape))}]"
        )
    if m.dtype is not self.dtype and not D.can_cast(m.dtype, self.dtype):
        raise RuntimeError(
            f"result type {_tname(m.dtype)} can't be cast to the desired output type {_tname(self.dtype)}"
        )


from ._dtype import _cname as _tname  # noqa: E402  (PyTorch's scalar-type names)


def _inplace_fallback(op, args):
    """A backend without `add_` gets it as `self.copy_(add(self, ...))`, recorded for autograd
    as the in-place op itself (so version tracking works as with a real in-place kernel)."""
    from .ops.registry import op_out_of_place

    base = op_out_of_place.get(op.qualname)
    if base is None:
        raise _missing(op, args[0].device)

    def kernel(meta, self, *rest):
        prev = _grad.enabled
        _grad.enabled = False
        try:
            write_into(self, call(base, (self,) + rest))
        finally:
            _grad.enabled = prev
        return self

    needs = _grad.enabled and any(isinstance(args[i], Tensor) and args[i]._requires_grad for i in op.tensor_params)
    return _call_inplace(op, kernel, args, needs)


def write_into(dst, src):
    """dst's elements := src (moved to dst's device first), through the device's copy_ kernel:
    no autograd record and no version bump (for kernels built from other ops)."""
    from .ops.registry import OPS

    if src.device != dst.device:
        import mindtorch

        src = mindtorch.ops._to_copy(src, device=dst.device)
    op = OPS["copy_"]
    kernel = op.kernels.get(dst.device.type)
    if kernel is None:
        raise _missing(op, dst.device)
    kernel(op.meta(dst, src), dst, src)
    return dst


def call_out(op, out, args):
    """The out= variant: compute, then resize and copy into `out` (a factory without dtype/device takes
    out's; ops with several results take a tuple of outs)."""
    if isinstance(out, (tuple, list)) and len(op.returns) > 1:
        results = call(op, args)
        return (
            type(results)(*(call_out_copy(op, o, r) for o, r in zip(out, results)))
            if hasattr(results, "_fields")
            else tuple(call_out_copy(op, o, r) for o, r in zip(out, results))
        )
    if not isinstance(out, Tensor) or len(op.returns) > 1:
        want = "tuple of Tensors" if len(op.returns) > 1 else "Tensor"
        raise TypeError(f"{op.name}(): argument 'out' must be {want}, not {type(out).__name__}")
    if _grad.enabled and (out._requires_grad or any(_any_requires_grad(args[i]) for i in op.tensor_params)):
        name = "cat" if op.name in CAT_FAMILY and op.name != "stack" else op.name  # PyTorch's composites' out=
        raise RuntimeError(
            f"{name}(): functions with out=... arguments don't support automatic "
            "differentiation, but one of the arguments requires grad."
        )
    _check_out_overlap(op, out, args)
    if op.device_param is not None:  # a factory: out's dtype and device unless given
        names = [p.name for p in op.params]
        args = list(args)
        if "dtype" in names and args[names.index("dtype")] is None:
            args[names.index("dtype")] = out.dtype
        if args[op.device_param] is None:
            args[op.device_param] = out.device
        args = tuple(args)
    return call_out_copy(op, out, call(op, args))


def _any_requires_grad(a):
    """Whether the tensor `a`, or a tensor of the list `a` (cat's inputs), requires grad."""
    if isinstance(a, Tensor):
        return a._requires_grad
    return isinstance(a, (list, tuple)) and any(isinstance(t, Tensor) and t._requires_grad for t in a)


def call_out_copy(op, out, result):
    if not isinstance(out, Tensor):
        raise TypeError(f"{op.name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if result.dtype is not out.dtype and not D.can_cast(result.dtype, out.dtype):
        if op.name in CAT_FAMILY:
            raise TypeError(f"torch.cat(): input types can't be cast to the desired output type {_tname(out.dtype)}")
        raise RuntimeError(
            f"result type {_tname(result.dtype)} can't be cast to the desired output type {_tname(out.dtype)}"
        )
    if out.device != result.device:
        raise RuntimeError(f"Expected out tensor to have device {result.device}, but got {out.device} instead")
    resize_geometry(out, result._shape)  # the copy_ is the one write (and version bump) out= makes
    return out.copy_(result)


def resize_geometry(t, size, keep=False):
    """t becomes contiguous of shape `size`, its storage grown from the device's allocator when
    needed (with `keep`, the new block starts with the old one's bytes, as resize_ leaves them);
    whether the shape changed. No version bump: callers decide."""
    size = tuple(size)
    if size == t._shape:
        return False
    need = (t._offset + _numel(size)) * t.dtype.itemsize
    old = t._storage
    if need > old.nbytes:
        if old.is_shared():  # other processes map this block: it cannot move
            raise RuntimeError("Trying to resize storage that is not resizable")
        t._storage = backend_for(t.device.type).allocator.allocate(need, t.device)
        if keep and old.nbytes:
            _copy_bytes(old, t._storage)
    t._shape, t._stride, t._np = size, _contiguous_strides(size), None
    return True


def _copy_bytes(src, dst):
    """dst's first bytes become src's (dst is at least as large), through the device's copy_."""
    n = int(src.nbytes)
    dst_bytes = make_tensor(dst, (n,), (1,), 0, D.uint8, dst.device)
    prev = _grad.enabled
    _grad.enabled = False
    try:
        dst_bytes.copy_(make_tensor(src, (n,), (1,), 0, D.uint8, src.device))
    finally:
        _grad.enabled = prev


def make_alias(t):
    """t's memory and version counter without its history, as `detach()` gives: no `_base`, so an in-place
    write through it (or through a view of it) never rewrites t's graph."""
    out = make_tensor(t._storage, t._shape, t._stride, t._offset, t.dtype, t.device)
    version = t._version
    if version is None:
        version = t._version = VersionCounter()
    out._version = version
    out._inference = t.is_inference()  # made in inference mode, it is still a normal tensor if t is
    return out


def make_view(base, shape, stride, offset, dtype=None):
    """A tensor sharing `base`'s storage and version counter (`dtype`: a view reading the bytes as another
    dtype, as view_as_real does; shape, stride and offset are then in that dtype's elements)."""
    if shape.__class__ is not tuple:
        shape = tuple(shape)
    if stride.__class__ is not tuple:
        stride = tuple(stride)
    st = base._st
    if st is None:  # a kernel result over a host array: its Storage is made now
        st = base._storage
    v = make_tensor(st, shape, stride, offset, dtype or base.dtype, base.device)
    version = base._version
    if version is None:
        version = base._version = VersionCounter()
    v._version = version
    root = base._base
    if root is None:
        v._base = base
    else:
        v._base = root
        made = base._view_creation
        if made is not None:  # a view of a split piece is refused in-place writes as the piece is
            v._view_creation = made
    if not _grad.enabled:  # written in place under grad mode later, it is refused (PyTorch's rule)
        v._view_creation = "inference" if _grad.inference else "no-grad"
    return v
