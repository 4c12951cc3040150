"""Indexing and joining: advanced indexing, cat/stack, gather/scatter, index_*, masked ops, nonzero,
tril/triu, flip/roll/repeat, one_hot, diag, meshgrid, take/put, the *_scatter copies, scatter_reduce, pad.

Ops whose output shape depends on the data (nonzero, masked_select) have no
shape rule: the meta device raises NotImplementedError.
"""

from .. import _dtype as D
from .._accel_load import ACCEL as _ACCEL
from .._geometry import broadcast_all, broadcast_shapes, numel, wrap_dim, wrap_dims
from . import meta as M
from .formulas import SCATTER_REDUCE_ALIASES, torch
from .meta import TensorMeta, fmt_shape
from .registry import copy_into_self, declare_inplace, defop

F = "indexing"


def _ops():
    import mindtorch

    return mindtorch


def _is_index_dtype(d):
    return d in (D.int64, D.int32)


# --- advanced indexing: index / index_put -------------------------------------
def _mask_count(mask):
    if mask.device.type == "meta":
        raise NotImplementedError(
            "indexing with a boolean mask has a data-dependent output shape, so it cannot run on the meta device"
        )
    return int(mask.sum().item())


def _expand_masks(self, indices):
    """Per-dim index shapes after turning each bool mask into its nonzero count (PyTorch's expansion)."""
    out = []
    dim = 0
    for idx in indices:
        if idx is None:
            out.append(None)
            dim += 1
            continue
        if idx.dtype in (D.bool_, D.uint8):
            k = len(idx._shape)
            if dim + k > len(self._shape):
                raise IndexError(f"too many indices for tensor of dimension {len(self._shape)}")
            for j in range(k):
                if idx._shape[j] != self._shape[dim + j]:
                    raise IndexError(
                        f"The shape of the mask {fmt_shape(idx._shape)} at index {j} does not match the "
                        f"shape of the indexed tensor {fmt_shape(self._shape)} at index {dim + j}"
                    )
            n = _mask_count(idx)
            out.append((n,))
            out.extend([()] * (k - 1))  # placeholders so positions stay adjacent
            dim += k
        elif _is_index_dtype(idx.dtype):
            out.append(tuple(idx._shape))
            dim += 1
        else:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    if dim > len(self._shape):
        raise IndexError(f"too many indices for tensor of dimension {len(self._shape)}")
    return out


def index_shape(self, indices):
    shapes = _expand_masks(self, indices)
    shapes += [None] * (len(self._shape) - len(shapes))
    pos = [i for i, s in enumerate(shapes) if s is not None]
    if not pos:
        return tuple(self._shape)
    b = broadcast_all(*[shapes[i] for i in pos])
    adjacent = pos == list(range(pos[0], pos[-1] + 1))
    before = tuple(self._shape[i] for i in range(pos[0]) if shapes[i] is None)
    rest = tuple(self._shape[i] for i in range(pos[0], len(self._shape)) if shapes[i] is None)
    if adjacent:
        return before + b + rest
    return b + before + rest


def _index_meta(self, indices):
    return M.TensorMeta(index_shape(self, indices), self.dtype)


defop(
    "index(Tensor self, Tensor?[] indices) -> Tensor",
    meta=_index_meta,
    overload="Tensor",
    method=False,
    function=False,
    family=F,
    nondiff=("indices",),
    grad={"self": "index_backward(grad, self, indices)"},
)


def _index_put_meta(self, indices, values, accumulate=False):
    if values.dtype is not self.dtype:
        raise RuntimeError(
            f"Index put requires the source and destination dtypes match, got "
            f"{_tn(self.dtype)} for the destination and {_tn(values.dtype)} for the source."
        )
    if self.device.type != "meta" or not any(i is not None and i.dtype in (D.bool_, D.uint8) for i in indices):
        target = index_shape(self, indices)
        try:
            ok = broadcast_shapes(target, tuple(values._shape)) == target
        except RuntimeError:
            ok = False
        if not ok:
            raise RuntimeError(
                f"shape mismatch: value tensor of shape {fmt_shape(values._shape)} cannot be broadcast "
                f"to indexing result of shape {fmt_shape(target)}"
            )
    return M.TensorMeta(self._shape, self.dtype)


def _tn(d):
    from ..dispatch import _tname

    return _tname(d)


defop(
    "index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor",
    meta=_index_put_meta,
    inplace=True,
    family=F,
    nondiff=("indices",),
    grad={
        "self": "index_put_self_grad(grad, indices, accumulate)",
        "values": "index_put_values_grad(grad, indices, values)",
    },
)


# --- cat / stack --------------------------------------------------------------
def _cat_meta(tensors, dim=0):
    if len(tensors) == 0:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    first = tensors[0]
    shape = first._shape
    n = len(shape)
    if n and shape != (0,) and type(dim) is int and -n <= dim < n:
        return _cat_meta_one_pass(tensors, shape, dim % n)
    ref = first if first._shape != (0,) else next((t for t in tensors if t._shape != (0,)), None)
    # (legacy: 1-d empty tensors are skipped)
    if ref is None:
        return M.TensorMeta((0,), _promoted(tensors))
    n = len(ref._shape)
    if n == 0:
        raise RuntimeError("zero-dimensional tensor (at position 0) cannot be concatenated")
    return _cat_meta_one_pass(tensors, ref._shape, wrap_dim(dim, n))


def _promoted(tensors):
    dtype = tensors[0].dtype
    for t in tensors:
        if t.dtype is not dtype:
            dtype = D.promote_types(dtype, t.dtype)
    return dtype


def _cat_meta_one_pass(tensors, shape, d):
    """Shape and dtype of the result, the tensors shaped like `shape` and `d` already wrapped."""
    dtype = tensors[0].dtype
    total = 0
    if len(shape) == 1:  # 1-d tensors: every other shape but the legacy empty one is refused
        for t in tensors:
            if t.dtype is not dtype:
                dtype = D.promote_types(dtype, t.dtype)
            s = t._shape
            if len(s) == 1:
                total += s[0]
            else:
                _cat_mismatch(next(i for i, u in enumerate(tensors) if u is t), s, shape, d)
        return M.TensorMeta((total,), dtype)
    head, tail = shape[:d], shape[d + 1 :]
    n = len(shape)
    for i, t in enumerate(tensors):
        if t.dtype is not dtype:
            dtype = D.promote_types(dtype, t.dtype)
        s = t._shape
        if s == shape or len(s) == n and s[:d] == head and s[d + 1 :] == tail:
            total += s[d]
        elif s != (0,):
            _cat_mismatch(i, s, shape, d)
    return M.TensorMeta(head + (total,) + tail, dtype)


def _cat_mismatch(i, s, ref, d):
    """PyTorch's error for tensor i of shape `s` that cannot join tensors shaped like `ref` along d."""
    n = len(ref)
    if len(s) == 0:
        raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    if len(s) != n:
        raise RuntimeError(f"Tensors must have same number of dimensions: got {n} and {len(s)}")
    j = next(j for j in range(n) if j != d and s[j] != ref[j])
    raise RuntimeError(
        f"Sizes of tensors must match except in dimension {d}. Expected size "
        f"{ref[j]} but got size {s[j]} for tensor number {i} in the list."
    )


# the Python versions of what mindtorch._accel may replace: the reference its tests compare with
PYTHON_TWINS = {"cat_meta": _cat_meta}
cat_meta = _cat_meta
if _ACCEL is not None:  # the compiled twin, which hands anything but the common case to _cat_meta
    _ACCEL.setup_cat(TensorMeta, _cat_meta)
    cat_meta = _ACCEL.cat_meta

defop(
    "cat(Tensor[] tensors, int dim=0) -> Tensor",
    meta=cat_meta,
    out=True,
    method=False,
    family=F,
    grad={"tensors": "cat_backward(grad, tensors, dim)"},
)
defop(
    "concat(Tensor[] tensors, int dim=0) -> Tensor",
    composite=lambda ts, dim=0: _ops().cat(ts, dim),
    method=False,
    out=True,
    family=F,
)
defop(
    "concatenate(Tensor[] tensors, int dim=0) -> Tensor",
    composite=lambda ts, dim=0: _ops().cat(ts, dim),
    method=False,
    out=True,
    family=F,
)


def _stack_checks(tensors, dim):
    """stack's own checks (PyTorch's order: before cat's); the tensors' shape and the wrapped dim."""
    if len(tensors) == 0:
        raise RuntimeError("stack expects a non-empty TensorList")
    ref = tensors[0]._shape
    for i, t in enumerate(tensors):
        if t._shape != ref:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {fmt_shape(ref)} at entry 0 and "
                f"{fmt_shape(t._shape)} at entry {i}"
            )
    return ref, wrap_dim(dim, len(ref) + 1)


def _stack_meta(tensors, dim=0):
    """The shape rule of a backend's stack kernel: stack's checks, then cat's on devices and dtypes."""
    ref, d = _stack_checks(tensors, dim)
    dev = tensors[0].device
    for t in tensors:
        if t.device is not dev and t.device != dev:
            raise RuntimeError(f"Tensor on device {t.device} is not on the expected device {dev}!")
    return M.TensorMeta(ref[:d] + (len(tensors),) + ref[d:], _promoted(tensors))


def _stack(tensors, dim=0):
    """stack on a device without a kernel of its own: cat of the tensors, each given the new dim."""
    _, d = _stack_checks(tensors, dim)
    return _ops().cat([t.unsqueeze(d) for t in tensors], d)


defop(
    "stack(Tensor[] tensors, int dim=0) -> Tensor",
    meta=_stack_meta,
    composite=_stack,
    method=False,
    out=True,
    family=F,
    grad={"tensors": "stack_backward(grad, dim)"},
)


def _nonempty(name, tensors):
    if len(tensors) == 0:
        raise RuntimeError(f"{name} expects a non-empty TensorList")


def _hstack(tensors):
    _nonempty("hstack", tensors)
    ts = [t.reshape((1,)) if not t._shape else t for t in tensors]
    if ts and len(ts[0]._shape) == 1:
        return _ops().cat(ts, 0)
    return _ops().cat(ts, 1)


def _vstack(tensors):
    _nonempty("vstack", tensors)
    ts = [t.reshape((1, -1)) if len(t._shape) < 2 else t for t in tensors]
    return _ops().cat(ts, 0)


def _dstack(tensors):
    _nonempty("dstack", tensors)
    return _ops().cat([_ops().atleast_3d(t) for t in tensors], 2)


def _column_stack(tensors):
    _nonempty("column_stack", tensors)
    ts = [t.reshape((numel(t._shape), 1)) if len(t._shape) <= 1 else t for t in tensors]
    return _ops().cat(ts, 1)


defop("hstack(Tensor[] tensors) -> Tensor", composite=_hstack, method=False, out=True, family=F)
defop("vstack(Tensor[] tensors) -> Tensor", composite=_vstack, method=False, out=True, family=F)
defop("row_stack(Tensor[] tensors) -> Tensor", composite=_vstack, method=False, out=True, family=F)
defop("dstack(Tensor[] tensors) -> Tensor", composite=_dstack, method=False, out=True, family=F)
defop("column_stack(Tensor[] tensors) -> Tensor", composite=_column_stack, method=False, out=True, family=F)


# --- gather / scatter ---------------------------------------------------------
def _check_int64_index(name, index):
    if not _is_index_dtype(index.dtype):
        raise RuntimeError(f"{name}(): Expected dtype int64 for index")


def _gather_meta(self, dim, index, sparse_grad=False):
    _check_int64_index("gather", index)
    n = max(len(self._shape), 1)
    d = wrap_dim(dim, len(self._shape))
    if max(len(index._shape), 1) != n:
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    ss = self._shape or (1,)
    for j, s in enumerate(index._shape):
        if j != d and s > ss[j]:
            raise RuntimeError(
                f"Size does not match at dimension {j} expected index {fmt_shape(index._shape)} to be "
                f"smaller than self {fmt_shape(self._shape)} apart from dimension {d}"
            )
    return M.TensorMeta(tuple(index._shape), self.dtype)


defop(
    "gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor",
    meta=_gather_meta,
    out=True,
    family=F,
    nondiff=("index",),
    grad={"self": "gather_backward(grad, self, dim, index)"},
)


def _scatter_meta(self, dim, index, src=None, reduce=None):
    name = "scatter"
    _check_int64_index(name, index)
    n = max(len(self._shape), 1)
    d = wrap_dim(dim, len(self._shape))
    if max(len(index._shape), 1) != n:
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    ss = self._shape or (1,)
    for j, s in enumerate(index._shape):
        if j != d and s > ss[j]:
            raise RuntimeError(
                f"Expected index {fmt_shape(index._shape)} to be smaller than self "
                f"{fmt_shape(self._shape)} apart from dimension {d}"
            )
    if hasattr(src, "_shape"):
        if src.dtype is not self.dtype:
            raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
        if max(len(src._shape), 1) != n:
            raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
        srs = src._shape or (1,)
        for j, s in enumerate(index._shape):
            if s > srs[j]:
                raise RuntimeError(
                    f"Expected index {fmt_shape(index._shape)} to be smaller than src {fmt_shape(src._shape)}"
                )
    if reduce is not None and reduce not in ("add", "multiply"):
        raise RuntimeError("reduce argument must be either add or multiply.")
    return M.TensorMeta(self._shape, self.dtype)


defop(
    "scatter(Tensor self, int dim, Tensor index, Tensor src, *, str? reduce=None) -> Tensor",
    meta=_scatter_meta,
    overload="src",
    inplace=True,
    family=F,
    nondiff=("index",),
    grad={"self": "scatter_self_grad(grad, dim, index, reduce)", "src": "scatter_src_grad(grad, dim, index, reduce)"},
)
defop(
    "scatter(Tensor self, int dim, Tensor index, Scalar value, *, str? reduce=None) -> Tensor",
    meta=_scatter_meta,
    overload="value",
    inplace=True,
    family=F,
    nondiff=("index",),
    grad={"self": "scatter_self_grad(grad, dim, index, reduce)"},
)
defop(
    "scatter_add(Tensor self, int dim, Tensor index, Tensor src) -> Tensor",
    meta=_scatter_meta,
    inplace=True,
    family=F,
    nondiff=("index",),
    grad={"self": "grad", "src": "grad.gather(dim, index)"},
)


# --- index_select / index_add / index_copy / index_fill ----------------------
def _index_vec(name, self, dim, index, vector_msg):
    if not _is_index_dtype(index.dtype):
        raise RuntimeError(f"{name}(): Expected dtype int32 or int64 for index")
    if len(index._shape) > 1:
        raise IndexError(vector_msg)
    return wrap_dim(dim, len(self._shape))


def _index_select_meta(self, dim, index):
    d = _index_vec("index_select", self, dim, index, "index_select(): Index is supposed to be a vector")
    shape = list(self._shape)
    if shape:
        shape[d] = numel(index._shape)
    elif numel(index._shape) != 1:
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got {numel(index._shape)} value(s)")
    return M.TensorMeta(tuple(shape), self.dtype)


defop(
    "index_select(Tensor self, int dim, Tensor index) -> Tensor",
    meta=_index_select_meta,
    out=True,
    family=F,
    nondiff=("index",),
    grad={"self": "index_select_backward(grad, self, dim, index)"},
)


def _index_src_meta(name):
    def rule(self, dim, index, source, *rest, **kw):
        d = _index_vec(name, self, dim, index, f"{name}(): Index is supposed to be a vector")
        if source.dtype is not self.dtype:
            raise RuntimeError(
                f"{name}(): self ({self.dtype}) and source ({source.dtype}) must have the same scalar type"
            )
        n = numel(index._shape)
        # PyTorch counts the indices against source.size(dim) before comparing slice shapes;
        # index_copy reports it as an IndexError, index_add as a RuntimeError
        err = IndexError if name == "index_copy" else RuntimeError
        if not source._shape and name == "index_copy" and n != 1:
            raise err(f"{name}_(): When source is scalar, index should have one element (got {n})")
        if len(source._shape) > d and source._shape[d] != n:
            raise err(f"{name}_(): Number of indices ({n}) should be equal to source.size(dim) ({source._shape[d]})")
        ss = list(self._shape)
        if ss:
            ss[d] = n
        if tuple(ss) != tuple(source._shape) and not (not source._shape and n == 1 and len(ss) <= 1):
            raise RuntimeError(
                f"{name}(): Source/destination tensor must have same slice shapes. Destination "
                f"slice shape: {fmt_shape(self._shape)} at dimension {d} and source slice shape: "
                f"{fmt_shape(source._shape)} at dimension {d}."
            )
        return M.TensorMeta(self._shape, self.dtype)

    return rule


defop(
    "index_add(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha=1) -> Tensor",
    meta=_index_src_meta("index_add"),
    inplace=True,
    family=F,
    nondiff=("index",),
    grad={"self": "grad", "source": "maybe_mul(index_src_grad(grad, dim, index, source), alpha)"},
)
defop(
    "index_copy(Tensor self, int dim, Tensor index, Tensor source) -> Tensor",
    meta=_index_src_meta("index_copy"),
    inplace=True,
    family=F,
    nondiff=("index",),
    grad={"self": "grad.index_fill(dim, index, 0)", "source": "index_src_grad(grad, dim, index, source)"},
)


def _index_fill_meta(self, dim, index, value):
    _index_vec("index_fill", self, dim, index, "Index has to be a vector/scalar")
    if hasattr(value, "_shape") and value._shape:
        raise RuntimeError(
            f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
            f"{len(value._shape)} dimension(s)."
        )
    if isinstance(value, complex) and not self.dtype.is_complex:
        raise RuntimeError("index_fill_(): Converting complex Scalar to non-complex type is not supported")
    if self.dtype in D.WIDE_UINTS:  # PyTorch's fill kernels take none of them
        raise M.not_implemented("index_fill_cpu", self.dtype)
    if not hasattr(value, "_shape"):
        D.check_fits(value, self.dtype)
    return M.TensorMeta(self._shape, self.dtype)


defop(
    "index_fill(Tensor self, int dim, Tensor index, Tensor value) -> Tensor",
    meta=_index_fill_meta,
    overload="int_Tensor",
    inplace=True,
    family=F,
    nondiff=("index",),
    grad={"self": "grad.index_fill(dim, index, 0)", "value": "index_fill_value_grad(grad, dim, index)"},
)
defop(
    "index_fill(Tensor self, int dim, Tensor index, Scalar value) -> Tensor",
    meta=_index_fill_meta,
    overload="int_Scalar",
    inplace=True,
    family=F,
    nondiff=("index",),
    grad={"self": "grad.index_fill(dim, index, 0)"},
)


# --- masked ops ---------------------------------------------------------------
def _mask_dtype_name(d):
    return {
        "int64": "long int",
        "int32": "int",
        "float32": "float",
        "float64": "double",
        "uint8": "unsigned char",
        "int16": "short int",
        "int8": "signed char",
    }.get(d.name, d.name)


def _masked_fill_meta(self, mask, value):
    if mask.dtype is not D.bool_:
        raise RuntimeError(
            f"masked_fill_ only supports boolean masks, but got mask with dtype {_mask_dtype_name(mask.dtype)}"
        )
    if hasattr(value, "_shape") and value._shape:
        raise RuntimeError(
            f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
            f"{len(value._shape)} dimension(s)."
        )
    if self.dtype in D.WIDE_UINTS:  # PyTorch's fill kernels take none of them
        raise M.not_implemented("masked_fill", self.dtype)
    if not hasattr(value, "_shape"):
        D.check_fits(value, self.dtype)
    return M.TensorMeta(broadcast_shapes(tuple(self._shape), tuple(mask._shape)), self.dtype)


defop(
    "masked_fill(Tensor self, Tensor mask, Tensor value) -> Tensor",
    meta=_masked_fill_meta,
    overload="Tensor",
    inplace=True,
    family=F,
    nondiff=("mask",),
    grad={"self": "grad.masked_fill(mask, 0)", "value": "masked_fill_value_grad(grad, mask)"},
)
defop(
    "masked_fill(Tensor self, Tensor mask, Scalar value) -> Tensor",
    meta=_masked_fill_meta,
    overload="Scalar",
    inplace=True,
    family=F,
    nondiff=("mask",),
    grad={"self": "grad.masked_fill(mask, 0)"},
)


def _masked_select(self, mask):
    if mask.dtype is not D.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    shape = broadcast_shapes(tuple(self._shape), tuple(mask._shape))
    return _ops().ops.index(self.expand(shape), (mask.expand(shape),))


defop("masked_select(Tensor self, Tensor mask) -> Tensor", composite=_masked_select, out=True, family=F)


# --- nonzero / argwhere / where(cond) ----------------------------------------
defop("argwhere(Tensor self) -> Tensor", family=F)


def _nonzero(self, as_tuple=False):
    r = _ops().argwhere(self)
    if not as_tuple:
        return r
    if not self._shape:
        return (r.reshape((-1,)),)
    return tuple(r.select(1, i) for i in range(len(self._shape)))


defop("nonzero(Tensor self, *, bool as_tuple=False) -> Tensor", composite=_nonzero, out=True, family=F)
defop(
    "where(Tensor condition) -> Tensor[]",
    composite=lambda c: _nonzero(c, True),
    overload="cond_only",
    method=False,
    family=F,
)


# --- triangular, flip, roll, repeat ------------------------------------------
def _tri_meta(name):
    def rule(self, diagonal=0):
        if len(self._shape) < 2:
            raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
        return M.TensorMeta(self._shape, self.dtype)

    return rule


defop(
    "tril(Tensor self, int diagonal=0) -> Tensor",
    meta=_tri_meta("tril"),
    inplace=True,
    out=True,
    family=F,
    grad={"self": "grad.tril(diagonal)"},
)
defop(
    "triu(Tensor self, int diagonal=0) -> Tensor",
    meta=_tri_meta("triu"),
    inplace=True,
    out=True,
    family=F,
    grad={"self": "grad.triu(diagonal)"},
)


def _flip_meta(self, dims):
    wrap_dims(dims, len(self._shape))
    return M.TensorMeta(self._shape, self.dtype)


defop("flip(Tensor self, int[] dims) -> Tensor", meta=_flip_meta, family=F, grad={"self": "grad.flip(dims)"})


def _roll_meta(self, shifts=(), dims=()):
    if len(shifts) == 0:
        raise TypeError('roll() missing 1 required positional arguments: "shifts"')
    if len(dims) == 0 and len(shifts) != 1:
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
    if len(dims) and len(dims) != len(shifts):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    for d in dims:
        wrap_dim(d, len(self._shape))
    return M.TensorMeta(self._shape, self.dtype)


# shifts has a default only so codegen does not turn it into *varargs (roll(1, 0) is shifts=1, dims=0)
defop(
    "roll(Tensor self, SymInt[1] shifts=[], int[1] dims=[]) -> Tensor",
    meta=_roll_meta,
    family=F,
    grad={"self": "grad.roll(neg_shifts(shifts), dims)"},
)


def _repeat_meta(self, repeats):
    repeats = tuple(repeats)
    if len(repeats) < len(self._shape):
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
    for r in repeats:
        if r < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {r}: {fmt_shape(repeats)}")
    src = (1,) * (len(repeats) - len(self._shape)) + tuple(self._shape)
    return M.TensorMeta(tuple(s * r for s, r in zip(src, repeats)), self.dtype)


defop(
    "repeat(Tensor self, SymInt[] repeats) -> Tensor",
    meta=_repeat_meta,
    function=False,
    family=F,
    grad={"self": "repeat_backward(grad, self, repeats)"},
)


def _tile(self, dims):
    dims = tuple(dims)
    if len(dims) < len(self._shape):
        dims = (1,) * (len(self._shape) - len(dims)) + dims
    return self.repeat(dims)


defop("tile(Tensor self, SymInt[] dims) -> Tensor", composite=_tile, family=F)


def _host_ints(t):
    import numpy as np

    return np.asarray(t.detach()).astype("int64").reshape(-1)


def _repeat_interleave_index(counts, device):
    import numpy as np

    counts = np.asarray(counts, dtype="int64")
    if (counts < 0).any():
        raise RuntimeError("repeats can not be negative")
    idx = np.repeat(np.arange(len(counts), dtype="int64"), counts)
    from .._tensor_from_data import tensor

    return tensor(idx, dtype=D.int64, device=device)


def _repeat_interleave(self, repeats, dim=None, output_size=None):
    x = self
    if dim is None:
        x = self.reshape((-1,))
        d = 0
    else:
        d = wrap_dim(dim, len(self._shape))
        if not self._shape:
            x = self.reshape((1,))
    size = x._shape[d]
    if hasattr(repeats, "_shape"):
        if len(repeats._shape) > 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        if x.device.type == "meta" or repeats.device.type == "meta":
            raise NotImplementedError("repeat_interleave with tensor repeats has a data-dependent output shape")
        counts = _host_ints(repeats)
        if len(counts) == 1:
            counts = counts.repeat(size)
        elif len(counts) != size:
            raise RuntimeError(
                "repeats must have the same size as input along dim, but got repeats.size(0) = "
                f"{len(counts)} and input.size({d}) = {size}"
            )
    else:
        if repeats < 0:
            raise RuntimeError("repeats can not be negative")
        counts = [repeats] * size
    return x.index_select(d, _repeat_interleave_index(counts, x.device))


def _repeat_interleave_self(repeats, output_size=None):
    if len(repeats._shape) > 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    return _repeat_interleave_index(_host_ints(repeats), repeats.device).to(repeats.dtype)  # in repeats' dtype


defop(
    "repeat_interleave(Tensor self, Tensor repeats, int? dim=None, *, SymInt? output_size=None) -> Tensor",
    composite=_repeat_interleave,
    overload="self_Tensor",
    family=F,
)
defop(
    "repeat_interleave(Tensor self, SymInt repeats, int? dim=None, *, SymInt? output_size=None) -> Tensor",
    composite=_repeat_interleave,
    overload="self_int",
    family=F,
)
defop(
    "repeat_interleave(Tensor repeats, *, SymInt? output_size=None) -> Tensor",
    composite=_repeat_interleave_self,
    overload="Tensor",
    method=False,
    family=F,
)


# --- one_hot, diag, meshgrid, take, take_along_dim ---------------------------
def _one_hot(self, num_classes=-1):
    if self.dtype is not D.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    mt = _ops()
    if self.device.type == "meta":
        if num_classes < 0:
            raise NotImplementedError("one_hot with num_classes=-1 has a data-dependent output shape")
    elif numel(self._shape):
        vals = _host_ints(self)
        if vals.min() < 0:
            raise RuntimeError("Class values must be non-negative.")
        if num_classes < 0:
            num_classes = int(vals.max()) + 1
        elif vals.max() >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    elif num_classes < 0:
        raise RuntimeError("Can not infer total number of classes from empty tensor.")
    out = mt.zeros(tuple(self._shape) + (num_classes,), dtype=D.int64, device=self.device)
    return out.scatter_(-1, self.unsqueeze(-1), 1)


defop("one_hot(Tensor self, int num_classes=-1) -> Tensor", composite=_one_hot, method=False, function=True, family=F)


def _diag(self, diagonal=0):
    n = len(self._shape)
    if n == 1:
        k = self._shape[0] + abs(diagonal)
        out = _ops().zeros((k, k), dtype=self.dtype, device=self.device)
        out.diagonal(diagonal).copy_(self)
        return out
    if n == 2:
        return self.diagonal(diagonal).clone()
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {n}D")


defop("diag(Tensor self, int diagonal=0) -> Tensor", composite=_diag, out=True, family=F)


def _meshgrid(tensors, indexing=None):
    if indexing is None:
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    ts = list(tensors)
    for t in ts:
        if len(t._shape) > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t}")
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = tuple(numel(t._shape) for t in ts)
    n = len(ts)
    out = []
    for i, t in enumerate(ts):
        view = [1] * n
        view[i] = shape[i]
        out.append(t.reshape(tuple(view)).expand(shape))
    if swap:
        out[0], out[1] = out[1], out[0]
    return tuple(out)


defop("meshgrid(Tensor[] tensors, *, str? indexing=None) -> Tensor[]", composite=_meshgrid, method=False, family=F)


def _take(self, index):
    if not _is_index_dtype(index.dtype):
        raise RuntimeError("take(): Expected a long tensor for index, but got " + str(index.dtype))
    return _ops().ops.index(self.reshape((-1,)), (index,))


defop("take(Tensor self, Tensor index) -> Tensor", composite=_take, family=F)


def _take_along_dim(self, indices, dim=None):
    if dim is None:
        return self.reshape((-1,)).gather(0, indices.reshape((-1,)))
    n = len(self._shape)
    if len(indices._shape) != n:
        raise RuntimeError(
            f"torch.take_along_dim(): input and indices should have the same number of dimensions, "
            f"but got {n} dimensions for input, and {len(indices._shape)} dimensions for indices"
        )
    d = wrap_dim(dim, n)
    s_shape, i_shape = list(self._shape), list(indices._shape)
    s_shape[d] = 1
    i_shape[d] = 1
    b = list(broadcast_shapes(tuple(s_shape), tuple(i_shape)))
    bs, bi = list(b), list(b)
    bs[d], bi[d] = self._shape[d], indices._shape[d]
    return self.expand(tuple(bs)).gather(d, indices.expand(tuple(bi)))


defop(
    "take_along_dim(Tensor self, Tensor indices, int? dim=None) -> Tensor",
    composite=_take_along_dim,
    out=True,
    family=F,
)


# --- pad ----------------------------------------------------------------------
def _pad_index(size, lo, hi, mode):
    """Source positions along one dim for a non-constant pad of (lo, hi)."""
    idx = []
    for j in range(-lo, size + hi):
        if mode == "reflect":
            p = j
            if p < 0:
                p = -p
            if p >= size:
                p = 2 * (size - 1) - p
        elif mode == "replicate":
            p = min(max(j, 0), size - 1)
        else:  # circular
            p = j % size
        idx.append(p)
    return idx


def _pad(self, pad, mode="constant", value=None):  # noqa: C901
    pad = tuple(pad)
    n = len(self._shape)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > n:
        raise RuntimeError(
            f"Padding length should be less than or equal to two times the input dimension but got "
            f"padding length {len(pad)} and input of dimension {n}"
        )
    mt = _ops()
    npairs = len(pad) // 2
    pairs = [(wrap_dim(-1 - i, n), pad[2 * i], pad[2 * i + 1]) for i in range(npairs)]
    if mode == "constant":
        shape = list(self._shape)
        for d, lo, hi in pairs:
            shape[d] += lo + hi
            if shape[d] < 0:
                raise RuntimeError(
                    f"The input size {self._shape[d]}, plus negative padding {lo} and {hi} resulted "
                    f"in a negative output size, which is invalid. Check dimension {d} of your input."
                )
        out = mt.full(tuple(shape), fill_value=0 if value is None else value, dtype=self.dtype, device=self.device)
        src, dst = self, out
        for d, lo, hi in pairs:
            # negative pads crop the input; positive pads leave a border in the output
            if lo < 0:
                src = src.narrow(d, -lo, src._shape[d] + lo)
            else:
                dst = dst.narrow(d, lo, dst._shape[d] - lo)
            if hi < 0:
                src = src.narrow(d, 0, src._shape[d] + hi)
            else:
                dst = dst.narrow(d, 0, dst._shape[d] - hi)
        if numel(src._shape):
            dst.copy_(src)
        return out
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument.')
    if not (npairs + 1 <= n <= npairs + 2) or npairs > 3:
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {n}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)"
        )
    out = self
    for d, lo, hi in pairs:
        size = self._shape[d]
        if mode == "reflect" and (lo >= size or hi >= size):
            raise RuntimeError(
                f"Argument #4: Padding size should be less than the corresponding input dimension, "
                f"but got: padding ({lo}, {hi}) at dimension {d} of input {fmt_shape(self._shape)}"
            )
        if mode == "circular" and (lo > size or hi > size):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        idx = _pad_index(size, lo, hi, mode)
        from .._tensor_from_data import tensor

        out = out.index_select(d, tensor(idx, dtype=D.int64, device=self.device))
    return out


defop(
    'pad(Tensor self, SymInt[] pad, str mode="constant", float? value=None) -> Tensor',
    composite=_pad,
    method=False,
    family=F,
)


# Tensor.__getitem__/__setitem__ live in _tensor_indexing.py
def _install_indexing():
    from .. import _tensor_indexing
    from .._tensor import Tensor

    Tensor.__getitem__ = _tensor_indexing.getitem
    Tensor.__setitem__ = _tensor_indexing.setitem


_install_indexing()


# --- unravel_index, nonzero_static ----------------------------------------------------------------
def _unravel_index(indices, shape):
    if indices.dtype._kind != 1:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    # PyTorch computes with the shape as an int64 tensor: coordinates are int64 (uint16-64 do not promote)
    indices = indices.to(D.promote_types(indices.dtype, D.int64))
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    total = 1
    for s in shape:
        if s < 0:
            raise ValueError("'shape' cannot have negative values, but got " + str(tuple(shape)))
        total *= s
    rem = torch.remainder(indices, total) if total else indices
    coords = []
    for s in reversed(shape):
        coords.append(torch.remainder(rem, s))
        rem = torch.div(rem, s, rounding_mode="floor")
    return tuple(reversed(coords))


defop("unravel_index(Tensor indices, int[] shape) -> Tensor[]", composite=_unravel_index, method=False, family=F)


def _nonzero_static(self, size, fill_value=-1):
    if size < 0:
        raise RuntimeError(f"nonzero_static: 'size' must be an non-negative integer, but got {size}")
    idx = torch.nonzero(self)
    if idx.shape[0] >= size:
        return idx[:size]
    pad = torch.full((size - idx.shape[0], self.dim()), fill_value, dtype=D.int64, device=self.device)
    return torch.cat([idx, pad])


defop("nonzero_static(Tensor self, *, SymInt size, int fill_value=-1) -> Tensor", composite=_nonzero_static, family=F)


# --- scatters: a copy of self with one region replaced (gradients through the region copy) --------
def _scatter_into(self, src, region):
    return _scatter_into_copy(self.clone(), src, region)


def _scatter_into_copy(out, src, region):
    view = region(out)
    if tuple(view.shape) != tuple(src.shape):
        raise RuntimeError(
            f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
            f"slice size = {list(view.shape)}"
        )
    view.copy_(src)
    return out


defop(
    "select_scatter(Tensor self, Tensor src, int dim, SymInt index) -> Tensor",
    composite=lambda s, src, dim, index: _scatter_into(s, src, lambda o: o.select(dim, index)),
    family=F,
)
defop(
    "slice_scatter(Tensor self, Tensor src, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor",
    composite=lambda s, src, dim=0, start=None, end=None, step=1: _scatter_into(
        s, src, lambda o: o[(slice(None),) * wrap_dim(dim, o.dim()) + (slice(start, end, step),)]
    ),
    family=F,
)
defop(
    "diagonal_scatter(Tensor self, Tensor src, int offset=0, int dim1=0, int dim2=1) -> Tensor",
    composite=lambda s, src, offset=0, dim1=0, dim2=1: _scatter_into(
        s, src, lambda o: torch.diagonal(o, offset, dim1, dim2)
    ),
    family=F,
)


def _dense_layout(t):
    """t's strides when they lay its elements out densely (a permutation of a contiguous layout), which a
    copy of t keeps; otherwise the contiguous ones."""
    dims = sorted(range(t.dim()), key=lambda d: -t._stride[d])
    expected = 1
    for d in reversed(dims):
        if t._shape[d] != 1 and t._stride[d] != expected:
            return None
        expected *= t._shape[d]
    return t._stride


def _as_strided_scatter(self, src, size, stride, storage_offset=None):
    """A copy of self (in self's layout when dense) with the elements as_strided reads replaced by src's."""
    layout = _dense_layout(self)
    if layout is None:
        out = self.clone(memory_format=torch.contiguous_format)
    else:
        out = torch.empty_strided(self._shape, layout, dtype=self.dtype, device=self.device).copy_(self)
    return _scatter_into_copy(out, src, lambda o: o.as_strided(size, stride, storage_offset))


defop(
    "as_strided_scatter(Tensor self, Tensor src, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) "
    "-> Tensor",
    composite=_as_strided_scatter,
    family=F,
)


def _masked_scatter(self, mask, source):
    if mask.dtype is not D.bool_:
        raise RuntimeError(
            f"masked_scatter_ only supports boolean masks, but got mask with dtype {D._cname(mask.dtype)}"
        )
    if self.dtype is not source.dtype:
        raise RuntimeError(
            f"masked_scatter: expected self and source to have same dtypes but got "
            f"{D._cname(self.dtype)} and {D._cname(source.dtype)}"
        )
    m = mask.expand_as(self) if mask.shape != self.shape else mask
    n = int(m.sum())
    if n > source.numel():
        raise RuntimeError("masked_scatter: expected source to have at least as many elements as ones in mask")
    out = self.clone()
    out[m] = source.reshape(-1)[:n]
    return out


defop(
    "masked_scatter(Tensor self, Tensor mask, Tensor source) -> Tensor",
    composite=_masked_scatter,
    inplace=True,
    inplace_composite=copy_into_self(_masked_scatter),
    family=F,
)


def _put(self, index, source, accumulate=False):
    if index.dtype is not D.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {D._cname(index.dtype)}")
    if self.dtype is not source.dtype:
        raise RuntimeError(
            f"put_(): self and source expected to have the same dtype, but got self.dtype = "
            f"{D._cname(self.dtype)} and source.dtype = {D._cname(source.dtype)}"
        )
    if index.numel() != source.numel():
        raise RuntimeError(
            f"put_(): Expected source and index to have the same number of elements, but got "
            f"source.numel() = {source.numel()}, index.numel() = {index.numel()}"
        )
    n = self.numel()
    if index.numel() and (bool((index >= n).any()) or bool((index < -n).any())):
        raise IndexError(f"out of range: tried to access index {int(index.max())} on a tensor of {n} elements.")
    out = self.clone()
    flat = out.view(-1) if out.is_contiguous() else out.reshape(-1)
    flat.index_put_((index.reshape(-1),), source.reshape(-1), accumulate)
    return out if out.is_contiguous() else out.copy_(flat.reshape(out.shape))


defop(
    "put(Tensor self, Tensor index, Tensor source, bool accumulate=False) -> Tensor",
    composite=_put,
    inplace=True,
    inplace_composite=copy_into_self(_put),
    family=F,
)


# --- scatter_reduce: a kernel, and the gradients PyTorch defines for it ---------------------------
_REDUCES = ("sum", "prod", "mean", "amax", "amin")


def _scatter_reduce_meta(self, dim, index, src, reduce, include_self=True):
    if index.dim() != src.dim() or index.dim() != self.dim():
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    d = wrap_dim(dim, max(self.dim(), 1))
    for i in range(index.dim()):
        if index.shape[i] > src.shape[i] or (i != d and index.shape[i] > self.shape[i]):
            raise RuntimeError(
                f"Expected index {list(index.shape)} to be smaller than self {list(self.shape)} "
                f"apart from dimension {d} and to be smaller size than src {list(src.shape)}"
            )
    if reduce not in _REDUCES and reduce not in SCATTER_REDUCE_ALIASES:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    if index.dtype is not D.int64:
        raise RuntimeError("scatter_reduce(): Expected dtype int64 for index")
    if self.dtype is not src.dtype:
        raise RuntimeError("scatter_reduce(): Expected self.dtype to be equal to src.dtype")
    if self.dtype is D.bool_ and reduce == "mean":
        raise NotImplementedError("\"scatter_gather_tensor_cpu_reduce_mean\" not implemented for 'Bool'")
    wrap_dim(dim, max(self.dim(), 1))
    return TensorMeta(self._shape, self.dtype)


defop(
    "scatter_reduce(Tensor self, int dim, Tensor index, Tensor src, str reduce, *, bool include_self=True) -> Tensor",
    meta=_scatter_reduce_meta,
    inplace=True,
    out=True,
    overload="two",
    nondiff=("index",),
    family=F,
    inplace_composite=copy_into_self(
        lambda s, dim, index, src, reduce, include_self=True: torch.scatter_reduce(
            s, dim, index, src, reduce, include_self=include_self
        )
    ),
    grad={
        "self": "scatter_reduce_backward(grad, self, dim, index, src, reduce, include_self, result, 0)",
        "src": "scatter_reduce_backward(grad, self, dim, index, src, reduce, include_self, result, 1)",
    },
)


# --- index_reduce: scatter_reduce with one index per slice along dim ------------------------------------
def _index_reduce_meta(self, dim, index, source, reduce, include_self=True):
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    if not _is_index_dtype(index.dtype):
        raise RuntimeError(f"index_reduce_(): Expected dtype int32/int64 for index but got: {D._cname(index.dtype)}")
    if len(index._shape) > 1:
        raise IndexError("index_reduce_(): Index is supposed to be a vector")
    if source.dtype is not self.dtype:
        raise RuntimeError(
            f"index_reduce_(): self ({D._cname(self.dtype)}) and source ({D._cname(source.dtype)}) must have the "
            "same scalar type"
        )
    d = wrap_dim(dim, max(len(self._shape), 1))
    n = numel(index._shape)
    have = source._shape[d] if source._shape else 1
    if have != n:
        raise RuntimeError(
            f"index_reduce_(): Number of indices ({n}) should be equal to source.size(dim): ({have}), for dim: {d}"
        )
    outer = [s for i, s in enumerate(self._shape) if i != d]
    if self._shape and outer != [s for i, s in enumerate(source._shape) if i != d]:
        raise RuntimeError(
            f"index_reduce_(): Source/destination tensor must have same slice shapes. Destination slice shape: "
            f"{fmt_shape(self._shape)} at dimension {d} and source slice shape: {fmt_shape(source._shape)} at "
            f"dimension {d}."
        )
    if self.dtype is D.bool_ and (not include_self or reduce == "mean"):
        # PyTorch's bool kernels lack the exclude-self initialisation and mean's floor division
        kernel = "index_reduce_func_exclude_input_init" if not include_self else "div_floor_cpu"
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")
    return M.TensorMeta(self._shape, self.dtype)


def _index_reduce(self, dim, index, source, reduce, include_self=True):
    _index_reduce_meta(self, dim, index, source, reduce, include_self)  # composites run without the shape rule
    d = wrap_dim(dim, max(self.dim(), 1))
    size = self._shape[d] if self._shape else 1
    # (a meta index has no values to check)
    if index.numel() and index.device.type != "meta" and (int(index.max()) >= size or int(index.min()) < 0):
        raise IndexError("index out of range in self")
    if not self._shape:
        return torch.scatter_reduce(self, 0, index.to(D.int64).reshape(()), source, reduce, include_self=include_self)
    shape = [1] * source.dim()
    shape[d] = index.numel()
    spread = index.to(D.int64).reshape(shape).expand(source.shape)
    return torch.scatter_reduce(self, d, spread, source, reduce, include_self=include_self)


defop(
    "index_reduce(Tensor self, int dim, Tensor index, Tensor source, str reduce, *, bool include_self=True) -> Tensor",
    meta=_index_reduce_meta,
    composite=_index_reduce,
    inplace=True,
    inplace_composite=copy_into_self(_index_reduce),
    out=True,
    nondiff=("index",),
    family=F,
)


def _fill_diagonal(self, fill_value, wrap=False):
    D.check_fits(fill_value, self.dtype)
    shape = tuple(self._shape)
    if len(shape) < 2:
        raise RuntimeError("dimensions must larger than 1")
    if len(shape) > 2 and len(set(shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    n = min(shape)
    if len(shape) == 2 and wrap and shape[0] > shape[1] + 1:
        # a tall matrix starts the diagonal again every cols + 1 rows (one row left blank between)
        flat = torch.arange(0, shape[0] * shape[1], shape[1] + 1, device=self.device)
        index = (flat // shape[1], flat % shape[1])
    else:
        diag = torch.arange(n, device=self.device)
        index = (diag,) * len(shape)
    return self.index_put_(index, torch.full((), fill_value, dtype=self.dtype, device=self.device))


declare_inplace(
    "fill_diagonal_(Tensor(a!) self, Scalar fill_value, bool wrap=False) -> Tensor(a!)",
    composite=_fill_diagonal,
    family=F,
)
