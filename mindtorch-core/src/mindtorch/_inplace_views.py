"""Tensor methods that change a tensor's geometry in place, keeping its data: t_, transpose_,
swapaxes_/swapdims_, squeeze_, unsqueeze_, as_strided_ (also torch.as_strided_), and set_, which
points a tensor at other memory (with is_set_to to ask whether it does).

Such a change writes no element, yet, as in PyTorch, it bumps the version counter (saved copies of
the old geometry are stale) and is refused on a leaf that requires grad (and on a view of one). The
tensor's new history is the history of the matching view op applied to it.
"""

from . import _dtype as D
from ._geometry import contiguous_strides, numel
from ._grad_mode import state as _grad_state
from ._storage import Storage
from ._tensor import Tensor
from .autograd.graph import Node, check_inplace, gradient_edge
from .autograd.views import _move_retain_grad
from .dispatch import bump_version

__all__ = ["as_strided_"]


def _take_geometry(self, shape, stride, offset):
    self._shape, self._stride, self._offset = tuple(shape), tuple(stride), offset
    self._np = None  # a cached host view has the old shape
    bump_version(self)


def _take_history(self, node):
    """`node` (whose one output is self's new geometry) becomes self's grad_fn."""
    _move_retain_grad(self, node)
    self._grad_fn = node
    self._requires_grad = True
    self.__dict__.pop("_output_nr", None)
    base = self._base
    if base is not None:  # the history is current for the base's new version
        self.__dict__["_view_fn_version"] = base._version_value


def _restride(self, view):
    """self takes the geometry of `view`, a view op applied to self, and the view's history."""
    _take_geometry(self, view._shape, view._stride, view._offset)
    if view._grad_fn is not None:
        _take_history(self, view._grad_fn)
    return self


def t_(self):
    check_inplace(self)
    return _restride(self, self.t())


def transpose_(self, dim0, dim1):
    check_inplace(self)
    return _restride(self, self.transpose(dim0, dim1))


def swapaxes_(self, axis0, axis1):
    check_inplace(self)
    return _restride(self, self.transpose(axis0, axis1))


def swapdims_(self, dim0, dim1):
    check_inplace(self)
    return _restride(self, self.transpose(dim0, dim1))


def squeeze_(self, *dim):
    check_inplace(self)
    return _restride(self, self.squeeze(*dim))


def unsqueeze_(self, dim):
    check_inplace(self)
    return _restride(self, self.unsqueeze(dim))


class AsStridedInPlaceBackward(Node):
    """grad_fn of a tensor after as_strided_: the gradient of the new geometry, laid into the shared
    storage's elements, read back through the old geometry."""

    __slots__ = ("old", "new", "elements")

    def __init__(self, t, old, new):
        Node.__init__(self, None, 1)
        self.old, self.new = old, new
        self.elements = t._storage.nbytes // t.dtype.itemsize
        node, nr = gradient_edge(t)
        self.inputs.append((0, None, node, nr, old[0], t.dtype))
        self.out_meta = ((new[0], t.dtype, t.device),)

    def name(self):
        return "AsStridedBackward1"

    def apply(self, grads, create_graph):
        import mindtorch

        grad = grads[0]
        flat = mindtorch.zeros(self.elements, dtype=grad.dtype, device=grad.device)
        flat.as_strided(*self.new).add_(grad)
        return {(0, None): flat.as_strided(*self.old).clone()}


def as_strided_(self, size, stride, storage_offset=None):
    check_inplace(self)
    view = self.detach().as_strided(size, stride, storage_offset)  # checks the geometry as as_strided does
    old = (self._shape, self._stride, self._offset)
    records = _grad_state.enabled and self._requires_grad
    node = AsStridedInPlaceBackward(self, old, (view._shape, view._stride, view._offset)) if records else None
    _take_geometry(self, view._shape, view._stride, view._offset)
    if node is not None:
        _take_history(self, node)
    return self


# --- set_ ----------------------------------------------------------------------------------------
def _storage_of(source):
    """The UntypedStorage behind a storage argument (an UntypedStorage or a TypedStorage)."""
    if isinstance(source, Storage):
        return source
    untyped = getattr(source, "untyped", None)
    if untyped is None:
        raise TypeError(f"set_(): argument 'source' must be Storage or Tensor, not {type(source).__name__}")
    return untyped()


def _check_set_geometry(self, storage, offset, size, stride, stride_given):
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    if len(size) != len(stride):
        raise RuntimeError(f"unequal size length ({len(size)}) and stride length ({len(stride)})")
    if any(s < 0 for s in size):
        raise RuntimeError("numel: integer multiplication overflow")
    item = self.dtype.itemsize
    need = 0 if numel(size) == 0 else (offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))) * item
    if need > storage.nbytes:
        shown = list(stride) if stride_given else []
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {shown}, storage offset {offset}, and itemsize {item} "
            f"requiring a storage size of {need} are out of bounds for storage of size {int(storage.nbytes)}"
        )


def set_(self, source=None, storage_offset=None, size=None, stride=None):
    """Point self at `source`'s memory: a tensor (its storage and geometry), or a storage viewed from
    `storage_offset` with `size` and `stride` (the whole storage, contiguous, by default); with no
    source, at a new empty storage."""
    check_inplace(self)
    if source is None:
        import mindtorch

        empty = mindtorch.empty(0, dtype=self.dtype, device=self.device)
        storage, geometry = empty._storage, ((0,), (1,), 0)
    elif isinstance(source, Tensor):
        if source.dtype is not self.dtype:
            raise RuntimeError(
                f"Could not set tensor of type {D.cpp_name(source.dtype)} to a tensor of type {D.cpp_name(self.dtype)}"
            )
        storage = source._storage
        geometry = (source._shape, source._stride, source._offset) if size is None else None
    else:
        storage, geometry = _storage_of(source), None
    if storage.device != self.device:
        raise RuntimeError(
            f'Attempted to set the storage of a tensor on device "{self.device}" to a storage on '
            f'different device "{storage.device}".  This is no longer allowed; the devices must match.'
        )
    if geometry is None:
        offset = storage_offset or 0
        shape = (storage.nbytes // self.dtype.itemsize - offset,) if size is None else tuple(size)
        strides = contiguous_strides(shape) if stride is None else tuple(stride)
        _check_set_geometry(self, storage, offset, shape, strides, stride is not None)
        geometry = (shape, strides, offset)
    self._storage = storage
    _take_geometry(self, *geometry)
    return self


def is_set_to(self, tensor):
    """Whether both tensors view the same storage with the same offset, sizes and strides."""
    return (
        self._storage is tensor._storage
        and self._offset == tensor._offset
        and self._shape == tensor._shape
        and self._stride == tensor._stride
    )


for _fn in (t_, transpose_, swapaxes_, swapdims_, squeeze_, unsqueeze_, as_strided_, set_, is_set_to):
    setattr(Tensor, _fn.__name__, _fn)
