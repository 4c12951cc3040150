"""Shape and view operators, and the splits and rotations composed of them (tensor_split, hsplit, rot90).

View ops are done by core for every device: their `view` rule computes the
new (shape, stride, offset) over the same storage, so backends need no
kernel for them.
"""

from sys import getrefcount

from .._geometry import c_strides, infer_size, is_contiguous, numel, view_strides, wrap_dim, wrap_dims
from .._grad_mode import state as _grad
from .._tensor import Tensor
from ..dispatch import make_alias, view_with
from .formulas import sum_to
from .meta import fmt_shape
from .registry import OPS, defop

F = "shape"


def _view(self, size):
    shape = infer_size(size, numel(self._shape))
    stride = view_strides(self._shape, self._stride, shape)
    if stride is None:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one dimension "
            "spans across two contiguous subspaces). Use .reshape(...) instead."
        )
    return shape, stride, self._offset


defop(
    "view(Tensor(a) self, SymInt[] size) -> Tensor(a)",
    view=_view,
    function=False,
    family=F,
    grad={"self": "grad.reshape(shape_of(self))"},
)


def _reshape(self, shape):
    size = infer_size(shape, numel(self._shape))
    stride = view_strides(self._shape, self._stride, size)
    if stride is not None:
        return view_with(_VIEW, (self, size), size, stride, self._offset)
    copy = self.clone(memory_format="contiguous_format")
    if copy._grad_fn is None and copy.__class__ is Tensor and getrefcount(copy) == 2:
        # a copy without history that nothing else holds (no mode or hook kept it) takes the shape
        # itself: as in PyTorch, reshape returns its copy rather than a view of it
        _take_shape(copy, size)
        return copy
    return view_with(_VIEW, (copy, size), size, c_strides(size), copy._offset)


def _take_shape(t, size):
    """A fresh C-contiguous tensor takes another shape of its elements."""
    t._shape, t._stride = size, c_strides(size)
    host = t._np
    if host is not None:  # the host array of a lazily stored result, or a cached view of the storage
        t._np = host.reshape(size) if t._st is None else None


defop("reshape(Tensor(a) self, SymInt[] shape) -> Tensor(a)", composite=_reshape, family=F)
_VIEW = OPS["view"]


def _transpose(self, dim0, dim1):
    n = len(self._shape)
    d0, d1 = wrap_dim(dim0, n), wrap_dim(dim1, n)
    shape, stride = list(self._shape), list(self._stride)
    if n:
        shape[d0], shape[d1] = shape[d1], shape[d0]
        stride[d0], stride[d1] = stride[d1], stride[d0]
    return shape, stride, self._offset


defop(
    "transpose(Tensor(a) self, int dim0, int dim1) -> Tensor(a)",
    view=_transpose,
    family=F,
    grad={"self": "grad.transpose(dim0, dim1)"},
)
defop(
    "swapaxes(Tensor(a) self, int axis0, int axis1) -> Tensor(a)", composite=lambda s, a, b: s.transpose(a, b), family=F
)
defop(
    "swapdims(Tensor(a) self, int dim0, int dim1) -> Tensor(a)", composite=lambda s, a, b: s.transpose(a, b), family=F
)


def _t(self):
    s = self._shape
    n = len(s)
    if n == 2:  # the two dimensions swapped, as tuples (make_view keeps them as they are)
        st = self._stride
        return (s[1], s[0]), (st[1], st[0]), self._offset
    if n > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {n}D")
    return s, self._stride, self._offset


defop("t(Tensor(a) self) -> Tensor(a)", view=_t, family=F, grad={"self": "grad.t()"})


def _permute(self, dims):
    n = len(self._shape)
    if len(dims) != n:
        raise RuntimeError(
            f"permute(sparse_coo): number of dimensions in the tensor input does not match the length "
            f"of the desired ordering of dimensions i.e. input.dim() = {n} is not equal to "
            f"len(dims) = {len(dims)}"
        )
    dims = wrap_dims(dims, n)
    return [self._shape[d] for d in dims], [self._stride[d] for d in dims], self._offset


defop(
    "permute(Tensor(a) self, int[] dims) -> Tensor(a)",
    view=_permute,
    family=F,
    grad={"self": "grad.permute(inverse_permutation(dims, len(shape_of(self))))"},
)


def _expand(self, size, implicit=False):
    size = tuple(size)
    n = len(self._shape)
    if len(size) < n:
        raise RuntimeError(
            f"expand(torch.FloatTensor{{{fmt_shape(self._shape)}}}, size={fmt_shape(size)}): "
            f"the number of sizes provided ({len(size)}) must be greater or equal to the number of "
            f"dimensions in the tensor ({n})"
        )
    lead = len(size) - n
    shape, stride = [], []
    for i, s in enumerate(size):
        if i < lead:
            if s < 0:
                raise RuntimeError(
                    f"The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension {i}"
                )
            shape.append(s)
            stride.append(None)  # filled below, right to left
            continue
        cur, st = self._shape[i - lead], self._stride[i - lead]
        if s == -1:
            s = cur
        elif s < 0:
            raise RuntimeError(
                f"expand: the expanded size {s} at dimension {i} is negative; only -1 (keep the "
                f"size) is allowed. Target sizes: {fmt_shape(size)}"
            )
        if cur == s:
            shape.append(s)
            stride.append(st)
        elif cur == 1:
            shape.append(s)
            stride.append(0)
        else:
            raise RuntimeError(
                f"The expanded size of the tensor ({s}) must match the existing size ({cur}) at "
                f"non-singleton dimension {i}.  Target sizes: {fmt_shape(size)}.  Tensor sizes: "
                f"{fmt_shape(self._shape)}"
            )
    # PyTorch's geometry for new leading dims: 0 when broadcast, else the stride of a contiguous step outward
    for i in range(lead - 1, -1, -1):
        stride[i] = 0 if shape[i] != 1 or i + 1 == len(shape) else shape[i + 1] * stride[i + 1]
    return shape, stride, self._offset


defop(
    "expand(Tensor(a) self, SymInt[] size, *, bool implicit=False) -> Tensor(a)",
    view=_expand,
    function=False,
    family=F,
    grad={"self": "sum_to(grad, shape_of(self))"},
)
defop("broadcast_to(Tensor(a) self, SymInt[] size) -> Tensor(a)", composite=lambda s, size: s.expand(size), family=F)


def _squeeze(self, dim=None):
    n = len(self._shape)
    if dim is None:
        dims = [i for i, s in enumerate(self._shape) if s == 1]
    else:
        dims = [d for d in wrap_dims(dim if isinstance(dim, tuple) else (dim,), n) if n and self._shape[d] == 1]
    shape = [s for i, s in enumerate(self._shape) if i not in dims]
    stride = [s for i, s in enumerate(self._stride) if i not in dims]
    return shape, stride, self._offset


defop("squeeze(Tensor(a) self) -> Tensor(a)", view=_squeeze, family=F, grad={"self": "grad.reshape(shape_of(self))"})
defop(
    "squeeze(Tensor(a) self, int[] dim) -> Tensor(a)",
    view=_squeeze,
    overload="dims",
    family=F,
    grad={"self": "grad.reshape(shape_of(self))"},
)


def _unsqueeze(self, dim):
    n = len(self._shape)
    d = wrap_dim(dim, n + 1)
    shape, stride = list(self._shape), list(self._stride)
    st = self._shape[d] * self._stride[d] if d < n else 1
    shape.insert(d, 1)
    stride.insert(d, st)
    return shape, stride, self._offset


defop("unsqueeze(Tensor(a) self, int dim) -> Tensor(a)", view=_unsqueeze, family=F, grad={"self": "grad.squeeze(dim)"})


def _select(self, dim, index):
    n = len(self._shape)
    if n == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, n)
    size = self._shape[d]
    if index < -size or index >= size:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size {fmt_shape(self._shape)} at dimension {d}"
        )
    if index < 0:
        index += size
    shape = self._shape[:d] + self._shape[d + 1 :]
    stride = self._stride[:d] + self._stride[d + 1 :]
    return shape, stride, self._offset + index * self._stride[d]


defop(
    "select(Tensor(a) self, int dim, SymInt index) -> Tensor(a)",
    view=_select,
    overload="int",
    family=F,
    grad={"self": "select_backward(grad, shape_of(self), dim, index)"},
)


def _slice(self, dim=0, start=None, end=None, step=1):
    shape, stride = self._shape, self._stride
    n = len(shape)
    if n == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    d = dim if dim.__class__ is int and 0 <= dim < n else wrap_dim(dim, n)
    if step <= 0:
        raise ValueError("step must be greater than zero")
    size = shape[d]
    start = _clamp_index(0 if start is None else start, size)
    end = size if end is None else _clamp_index(end, size)
    if end < start:
        end = start
    length = (end - start + step - 1) // step
    sd = stride[d]
    return (
        shape[:d] + (length,) + shape[d + 1 :],
        stride[:d] + (sd * step,) + stride[d + 1 :],
        self._offset + start * sd,
    )


def _clamp_index(i, size):
    """A slice bound in [0, size], negative bounds counting from the end."""
    if i < 0:
        i += size
        return 0 if i < 0 else i
    return size if i > size else i


defop(
    "slice(Tensor(a) self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor(a)",
    view=_slice,
    overload="Tensor",
    method=False,
    function=False,
    family=F,
    grad={"self": "slice_backward(grad, shape_of(self), dim, start, end, step)"},
)


def _slice_inverse(self, src, dim=0, start=None, end=None, step=1):
    """The tensor of src's geometry that `self`, a slice of it, was cut from (over self's storage)."""
    if src.dtype is not self.dtype:
        raise RuntimeError(f"slice_inverse: expected src of dtype {src.dtype} to have self's dtype {self.dtype}")
    d = wrap_dim(dim, len(src._shape))
    first = _clamp_index(0 if start is None else start, src._shape[d])
    offset = self._offset - first * src._stride[d]
    if offset < 0:  # self does not sit in its storage where a slice of src would
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    return _as_strided(self, src._shape, src._stride, offset)


defop(
    "slice_inverse(Tensor(a) self, Tensor src, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) "
    "-> Tensor(a)",
    view=_slice_inverse,
    nondiff=("src",),
    family=F,
    # the slice of the gradient self was (end may reach past self's last element: narrow to its length)
    grad={"self": "torch.ops.slice(grad, dim, start, end, step).narrow(dim, 0, shape_of(self)[dim])"},
)


def _narrow(self, dim, start, length):
    n = len(self._shape)
    if n == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, n)
    size = self._shape[d]
    if hasattr(start, "_shape"):
        start = int(start.item())
    if start < -size or start > size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    if start < 0:
        start += size
    if length < 0 or start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return _slice(self, d, start, start + length, 1)


defop(
    "narrow(Tensor(a) self, int dim, SymInt start, SymInt length) -> Tensor(a)",
    view=_narrow,
    family=F,
    grad={"self": "narrow_backward(grad, shape_of(self), dim, start, length)"},
)


def _as_strided(self, size, stride, storage_offset=None):
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in size) or any(s < 0 for s in stride):
        raise RuntimeError("as_strided: Negative strides are not supported at the moment")
    off = self._offset if storage_offset is None else storage_offset
    need = off + (sum((s - 1) * st for s, st in zip(size, stride)) + 1 if all(size) else 0)
    if need * self.dtype.itemsize > self._storage.nbytes and self.device.type != "meta":
        raise RuntimeError(
            f"setStorage: sizes {fmt_shape(size)}, strides {fmt_shape(stride)}, storage offset "
            f"{off}, and itemsize {self.dtype.itemsize} requiring a storage size of "
            f"{need * self.dtype.itemsize} are out of bounds for storage of size "
            f"{self._storage.nbytes}"
        )
    return size, stride, off


defop(
    "as_strided(Tensor(a) self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) -> Tensor(a)",
    view=_as_strided,
    family=F,
    grad={"self": "as_strided_backward(grad, self, size, stride, storage_offset)"},
)


def _diagonal(self, offset=0, dim1=0, dim2=1):
    n = len(self._shape)
    d1, d2 = wrap_dim(dim1, n), wrap_dim(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    s1, s2 = self._shape[d1], self._shape[d2]
    if offset >= 0:
        length = max(min(s1, s2 - offset), 0)
        off = self._offset + (offset * self._stride[d2] if length else 0)
    else:
        length = max(min(s1 + offset, s2), 0)
        off = self._offset + (-offset * self._stride[d1] if length else 0)
    shape = [s for i, s in enumerate(self._shape) if i not in (d1, d2)] + [length]
    stride = [s for i, s in enumerate(self._stride) if i not in (d1, d2)] + [self._stride[d1] + self._stride[d2]]
    return shape, stride, off


defop(
    "diagonal(Tensor(a) self, int offset=0, int dim1=0, int dim2=1) -> Tensor(a)",
    view=_diagonal,
    family=F,
    grad={"self": "diagonal_backward(grad, shape_of(self), offset, dim1, dim2)"},
)


def _unfold(self, dimension, size, step):
    n = len(self._shape)
    d = wrap_dim(dimension, n)
    cur = self._shape[d] if n else 1
    if size > cur:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {cur} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    shape, stride = list(self._shape), list(self._stride)
    if n:
        shape[d] = (cur - size) // step + 1
        stride[d] = self._stride[d] * step
    shape.append(size)
    stride.append(self._stride[d] if n else 1)
    return shape, stride, self._offset


defop(
    "unfold(Tensor(a) self, int dimension, int size, int step) -> Tensor(a)",
    view=_unfold,
    function=False,
    family=F,
    grad={"self": "unfold_backward(grad, shape_of(self), dimension, size, step)"},
)


def _alias(self):
    return self._shape, self._stride, self._offset


defop("alias(Tensor(a) self) -> Tensor(a)", view=_alias, method=False, family=F, grad={"self": "grad"})
defop("detach(Tensor(a) self) -> Tensor(a)", composite=make_alias, family=F)


def _flatten(self, start_dim=0, end_dim=-1):
    n = len(self._shape)
    if n == 0:
        return self.reshape((1,))
    s, e = wrap_dim(start_dim, n), wrap_dim(end_dim, n)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return self
    shape = self._shape[:s] + (numel(self._shape[s : e + 1]),) + self._shape[e + 1 :]
    return self.reshape(shape)


defop("flatten(Tensor(a) self, int start_dim=0, int end_dim=-1) -> Tensor(a)", composite=_flatten, family=F)


def _unflatten(self, dim, sizes):
    n = len(self._shape)
    d = wrap_dim(dim, n)
    sizes = infer_size(sizes, self._shape[d])
    return self.view(self._shape[:d] + tuple(sizes) + self._shape[d + 1 :])


defop("unflatten(Tensor(a) self, int dim, SymInt[] sizes) -> Tensor(a)", composite=_unflatten, family=F)


def _contiguous(self, memory_format=None):
    if is_contiguous(self._shape, self._stride):
        return self
    return self.clone(memory_format="contiguous_format")


defop(
    "contiguous(Tensor(a) self, *, MemoryFormat? memory_format=None) -> Tensor(a)",
    composite=_contiguous,
    function=False,
    family=F,
)


def _stamped(pieces):
    """Views made for a multi-output op recorded as one node: like a recorded view, each keeps the base's
    version its history is valid for, so only a later in-place write to the base replaces that history."""
    for p in pieces:
        v = p._version
        p.__dict__["_view_fn_version"] = v.value if v is not None else 0
    return pieces


def _unbind(self, dim=0):
    n = len(self._shape)
    if n == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = wrap_dim(dim, n)
    return _stamped(tuple(self.select(d, i) for i in range(self._shape[d])))


defop(
    "unbind(Tensor(a) self, int dim=0) -> Tensor(a)[]",
    composite=_unbind,
    family=F,
    grad={"self": "unbind_backward(grads, dim)"},
)


def _split(self, split_size_or_sections, dim=0):
    n = len(self._shape)
    d = wrap_dim(dim, n)
    size = self._shape[d]
    if isinstance(split_size_or_sections, int):
        step = split_size_or_sections
        if step <= 0 and not (step == 0 and size == 0):
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}")
        if size == 0:  # one empty piece, a view as every piece is (never self itself)
            return _stamped((self.narrow(d, 0, 0),))
        return _stamped(tuple(self.narrow(d, s, min(step, size - s)) for s in range(0, size, step)))
    sections = tuple(split_size_or_sections)
    if sum(sections) != size:
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's size at "
            f"dimension {d}), but got split_sizes={list(sections)}"
        )
    out, start = [], 0
    for s in sections:
        out.append(self.narrow(d, start, s))
        start += s
    return _stamped(tuple(out))


# the int overload first: a SymInt[] parameter would also accept (and listify) a bare int
# the pieces' gradients meet in one cat (SPLIT_GRAD), not in a full-size zeros tensor per piece
SPLIT_GRAD = {"self": "split_backward(grads, dim)"}
defop(
    "split(Tensor(a) self, SymInt split_size_or_sections, int dim=0) -> Tensor(a)[]",
    composite=_split,
    family=F,
    grad=SPLIT_GRAD,
)
defop(
    "split(Tensor(a) self, SymInt[] split_size_or_sections, int dim=0) -> Tensor(a)[]",
    composite=_split,
    overload="sizes",
    family=F,
    grad=SPLIT_GRAD,
)


def _chunk(self, chunks, dim=0):
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0, got: " + str(chunks))
    n = len(self._shape)
    d = wrap_dim(dim, n)
    size = self._shape[d]
    step = (size + chunks - 1) // chunks
    if step == 0:
        return _stamped(tuple(self.narrow(d, 0, 0) for _ in range(chunks)))  # step is 0 only when size is
    return _split(self, step, d)


defop("chunk(Tensor(a) self, int chunks, int dim=0) -> Tensor(a)[]", composite=_chunk, family=F, grad=SPLIT_GRAD)
defop(
    "split_with_sizes(Tensor(a) self, SymInt[] split_sizes, int dim=0) -> Tensor(a)[]",
    composite=lambda self, split_sizes, dim=0: _split(self, list(split_sizes), dim),
    family=F,
    grad=SPLIT_GRAD,
)


def _unsafe(pieces_of):
    """The unsafe_ spellings: the same pieces, sharing memory but no view bookkeeping (autograd sees no
    views, so an in-place write to a piece rewrites that piece's history only). Inference mode has no
    autograd to hide them from: there they are the views."""

    def pieces(*args):
        views = pieces_of(*args)
        return views if _grad.inference else tuple(make_alias(p) for p in views)

    return pieces


defop(
    "unsafe_chunk(Tensor self, int chunks, int dim=0) -> Tensor[]", composite=_unsafe(_chunk), family=F, grad=SPLIT_GRAD
)
defop(
    "unsafe_split(Tensor self, SymInt split_size, int dim=0) -> Tensor[]",
    composite=_unsafe(_split),
    family=F,
    grad=SPLIT_GRAD,
)
defop(
    "unsafe_split_with_sizes(Tensor self, SymInt[] split_sizes, int dim=0) -> Tensor[]",
    composite=_unsafe(lambda self, split_sizes, dim=0: _split(self, list(split_sizes), dim)),
    family=F,
    grad=SPLIT_GRAD,
)


def _narrow_copy(self, dim, start, length):
    if not -len(self._shape) <= dim < len(self._shape):  # PyTorch checks this one as an internal assert
        raise RuntimeError("Expected dim < static_cast<int64_t>(self_sizes.size()) to be true, but got false.")
    return self.narrow(dim, start, length).clone()


defop("narrow_copy(Tensor self, int dim, SymInt start, SymInt length) -> Tensor", composite=_narrow_copy, family=F)


def _sum_to_size(self, size):
    size = tuple(size)
    shape = tuple(self._shape)
    lead = len(shape) - len(size)
    if lead < 0 or any(s != 1 and s != t for s, t in zip(size, shape[lead:])):
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
    return sum_to(self, size)


defop("sum_to_size(Tensor self, SymInt[] size) -> Tensor", composite=_sum_to_size, function=False, family=F)


def _movedim(self, source, destination):
    n = len(self._shape)
    src = wrap_dims(source, n)
    dst = wrap_dims(destination, n)
    if len(src) != len(dst):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({list(source)} dims) should "
            f"contain the same number of dims as destination ({list(destination)} dims)"
        )
    order = [None] * n
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(i for i in range(n) if i not in src)
    order = [o if o is not None else next(rest) for o in order]
    return self.permute(order)


def _movedim_int(self, source, destination):
    return _movedim(self, (source,), (destination,))


for _name in ("movedim", "moveaxis"):
    defop(
        f"{_name}(Tensor(a) self, int source, int destination) -> Tensor(a)",
        composite=_movedim_int,
        overload="int",
        family=F,
    )
    defop(
        f"{_name}(Tensor(a) self, int[] source, int[] destination) -> Tensor(a)",
        composite=_movedim,
        overload="intlist",
        family=F,
    )


# --- broadcast_tensors, atleast_nd ----------------------------------------------------
def _broadcast_tensors(tensors):
    from .._geometry import broadcast_all

    shape = broadcast_all(*(t._shape for t in tensors))
    return tuple(t.expand(shape) for t in tensors)


defop("broadcast_tensors(Tensor[] tensors) -> Tensor[]", composite=_broadcast_tensors, method=False, family=F)


def _atleast(nd):
    def one(self):
        n = len(self._shape)
        if n >= nd:
            return self
        if n == 0:
            return self.reshape((1,) * nd)
        if nd == 2 or n == 2:  # (k,) -> (1, k) for 2-D; (m, k) -> (m, k, 1) for 3-D
            return self.unsqueeze(0) if nd == 2 else self.unsqueeze(-1)
        return self.unsqueeze(0).unsqueeze(-1)  # 3-D from (k,): (1, k, 1)

    return one


for _nd in (1, 2, 3):
    _one = _atleast(_nd)
    defop(f"atleast_{_nd}d(Tensor self) -> Tensor", composite=_one, method=False, family=F)
    defop(
        f"atleast_{_nd}d(Tensor[] tensors) -> Tensor[]",
        overload="Sequence",
        composite=(lambda one: lambda tensors: tuple(one(t) for t in tensors))(_one),
        method=False,
        family=F,
    )


def _flip_lr(self):
    if self.dim() < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return self.flip(1)


def _flip_ud(self):
    if self.dim() < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return self.flip(0)


def _adjoint(self):
    if self.dim() < 2:
        raise RuntimeError(
            "tensor.adjoint() is only supported on matrices or batches of matrices. Got 1-D tensor."
            if self.dim() == 1
            else "tensor.adjoint() is only supported on matrices or batches of matrices. Got 0-D tensor."
        )
    t = self.transpose(-2, -1)
    return t.conj() if self.dtype.is_complex else t


defop("ravel(Tensor(a) self) -> Tensor(a)", composite=lambda s: s.reshape(-1), family=F)
defop("fliplr(Tensor self) -> Tensor", composite=_flip_lr, family=F)
defop("flipud(Tensor self) -> Tensor", composite=_flip_ud, family=F)
defop("adjoint(Tensor(a) self) -> Tensor(a)", composite=_adjoint, family=F)


# --- rotations and splits: rot90, tensor_split, hsplit / vsplit / dsplit --------------------------
def _rot90(self, k=1, dims=(0, 1)):
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    nd = self.dim()
    if nd < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {nd}")
    d0, d1 = wrap_dim(dims[0], nd), wrap_dim(dims[1], nd)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}")
    k %= 4
    if k == 1:
        return self.flip(d1).transpose(d0, d1)
    if k == 2:
        return self.flip([d0, d1])
    if k == 3:
        return self.flip(d0).transpose(d0, d1)
    return self.clone()


defop("rot90(Tensor self, int k=1, int[] dims=[0,1]) -> Tensor", composite=_rot90, family=F)


def _tensor_split(self, sections_or_indices, dim=0):
    if self.dim() == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    dim = wrap_dim(dim, self.dim())
    size = self.shape[dim]
    if isinstance(sections_or_indices, int):
        n = sections_or_indices
        if n <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {n}")
        q, r = divmod(size, n)
        bounds, start = [], 0
        for i in range(n):
            start += q + (1 if i < r else 0)
            bounds.append(start)
        bounds = bounds[:-1]
    else:
        bounds = list(sections_or_indices)
    out, start = [], 0
    for stop in bounds + [size]:
        lo, hi = min(max(start, 0), size), min(max(stop, 0), size)
        out.append(self.narrow(dim, lo, max(hi - lo, 0)))
        start = stop
    return tuple(out)


defop(
    "tensor_split(Tensor(a) self, SymInt sections, int dim=0) -> Tensor(a)[]",
    composite=_tensor_split,
    overload="sections",
    family=F,
)
defop(
    "tensor_split(Tensor(a) self, SymInt[] indices, int dim=0) -> Tensor(a)[]",
    composite=_tensor_split,
    overload="indices",
    family=F,
)


def _dir_split(name, dim, min_dims):
    def split(self, sections_or_indices):
        nd = self.dim()
        if nd < min_dims:
            raise RuntimeError(
                f"torch.{name} requires a tensor with at least {min_dims} dimension, but got a "
                f"tensor with {nd} dimensions!"
            )
        d = 0 if (name == "hsplit" and nd == 1) else dim
        if isinstance(sections_or_indices, int):
            size = self.shape[d]
            if sections_or_indices == 0 or size % sections_or_indices:
                raise RuntimeError(
                    f"torch.{name} attempted to split along dimension {d}, but the size of the "
                    f"dimension {size} is not divisible by the split_size {sections_or_indices}!"
                )
        return _tensor_split(self, sections_or_indices, d)

    defop(f"{name}(Tensor(a) self, int sections) -> Tensor(a)[]", composite=split, overload="int", family=F)
    defop(f"{name}(Tensor(a) self, int[] indices) -> Tensor(a)[]", composite=split, overload="array", family=F)


_dir_split("hsplit", 1, 1)
_dir_split("vsplit", 0, 2)
_dir_split("dsplit", 2, 3)
