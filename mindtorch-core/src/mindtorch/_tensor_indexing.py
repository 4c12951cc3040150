"""Tensor.__getitem__ / __setitem__.

Basic indices (ints, slices, None, Ellipsis, bool scalars) become views through
the core view ops (select, slice, unsqueeze), so storage sharing and autograd
follow. Tensor and sequence indices then go through the `index` / `index_put_`
ops on that view, with bool masks turned into integer indices first.
"""

import numbers

from . import _dtype as D
from ._grad_mode import state as _grad_state
from ._tensor import Tensor
from .dispatch import call as _dispatch_call, make_view as _make_view
from .ops.registry import OPS as _OPS


def _mt():
    import mindtorch

    return mindtorch


def _is_int(x):
    return isinstance(x, numbers.Integral) and not isinstance(x, bool) and type(x).__name__ != "bool_"


def _is_bool(x):
    return isinstance(x, bool) or type(x).__name__ == "bool_"


def _as_index_tensor(x, device):
    """A list/sequence index as a tensor (bool lists become masks)."""
    from ._tensor_from_data import tensor

    try:
        t = tensor(x, device=device)
    except (TypeError, ValueError, RuntimeError):
        raise IndexError(
            "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid "
            "indices (got " + type(x).__name__ + ")"
        ) from None
    if t.dtype.is_floating_point or t.dtype.is_complex:
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    return t


def _normalize(self, index):
    # NumPy's legacy rule, kept by PyTorch: a short list holding sequences, slices, None or
    # Ellipsis is read as a tuple of indices
    if (
        isinstance(index, list)
        and len(index) < 32
        and any(isinstance(i, (list, tuple, slice, Tensor)) or i is None or i is Ellipsis for i in index)
    ):
        index = tuple(index)
    if not isinstance(index, tuple):
        index = (index,)
    items = []
    for it in index:
        if (
            it.__class__ is slice
            or it is None
            or it is Ellipsis
            or isinstance(it, Tensor)
            or _is_int(it)
            or _is_bool(it)
        ):
            items.append(it)
        elif isinstance(it, (list, tuple)) or hasattr(it, "__array__"):
            items.append(_as_index_tensor(it, self.device))
        elif hasattr(it, "__index__"):
            items.append(it.__index__())
        else:
            raise IndexError(
                "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
                f"valid indices (got {type(it).__name__})"
            )
    consumed = 0
    for it in items:
        if it.__class__ is slice:  # (slice cannot be subclassed) the common item first
            consumed += 1
        elif isinstance(it, Tensor):
            consumed += len(it._shape) if it.dtype in (D.bool_, D.uint8) else 1
        elif _is_int(it):
            consumed += 1
    n = len(self._shape)
    if items.count(Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if consumed > n:
        raise IndexError(f"too many indices for tensor of dimension {n}")
    if Ellipsis in [i for i in items if not isinstance(i, Tensor)]:
        k = next(j for j, i in enumerate(items) if i is Ellipsis and not isinstance(i, Tensor))
        items = items[:k] + [slice(None)] * (n - consumed) + items[k + 1 :]
    return items


def _basic(self, items):
    """Apply the basic part of the index; returns the view and the advanced indices by view dim."""
    mt = _mt()
    v = self
    d = 0
    adv = []  # (dim in v, tensor)
    for it in items:
        if it.__class__ is slice:
            start, stop, step = _idx(it.start), _idx(it.stop), _idx(it.step)
            step = 1 if step is None else step
            if step <= 0:
                raise ValueError("step must be greater than zero")
            if step != 1 or start or (stop is not None and stop < v._shape[d]):
                v = mt.ops.slice(v, d, start, stop, step)
            # else the whole dim: no slice (PyTorch skips it too, so no SliceBackward is recorded)
            d += 1
        elif isinstance(it, Tensor):
            if it.dtype in (D.bool_, D.uint8) and not it._shape:
                # a 0-dim mask adds a dim of size 1 (True) or 0 (False)
                v = v.unsqueeze(d)
                if not bool(it.item()):
                    v = mt.ops.slice(v, d, 0, 0, 1)
                d += 1
                continue
            adv.append((d, it))
            d += len(it._shape) if it.dtype in (D.bool_, D.uint8) else 1
        elif it is None:
            v = v.unsqueeze(d)
            d += 1
        elif _is_bool(it):
            v = v.unsqueeze(d)
            if not it:
                v = mt.ops.slice(v, d, 0, 0, 1)
            d += 1
        else:
            i = int(it)
            size = v._shape[d]
            if i < -size or i >= size:
                raise IndexError(f"index {i} is out of bounds for dimension {d} with size {size}")
            v = v.select(d, i)
    return v, adv


def _idx(x):
    if x is None or x.__class__ is int:
        return x
    if isinstance(x, Tensor):
        return x.__index__()
    return x.__index__()


def _adv_indices(v, adv):
    """The Tensor?[] list for the index ops, with masks turned into integer indices."""
    mt = _mt()
    idx = [None] * len(v._shape)
    for d, t in adv:
        if t.dtype in (D.bool_, D.uint8):
            k = len(t._shape)
            for j in range(k):
                if t._shape[j] != v._shape[d + j]:
                    raise IndexError(
                        f"The shape of the mask {list(t._shape)} at index {j} does not match the shape "
                        f"of the indexed tensor {list(v._shape)} at index {d + j}"
                    )
            nz = mt.argwhere(t if t.dtype is D.bool_ else t.to(D.bool_))
            for j in range(k):
                idx[d + j] = nz.select(1, j)
        else:
            if not (t.dtype is D.int64 or t.dtype is D.int32 or t.dtype._kind == 1):
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            if t.dtype not in (D.int64, D.int32):
                t = t.to(D.int64)
            idx[d] = t
    while idx and idx[-1] is None:
        idx.pop()
    if v.device.type != "cpu":  # cpu indices (and masks) index a device tensor, moved to it as PyTorch does
        idx = [t.to(v.device) if t is not None and t.device.type == "cpu" else t for t in idx]
    return idx


def _view_fast(self, op, args):
    """x[i] / x[a:b] without autograd: the view directly (the common case in loops)."""
    if self._requires_grad and _grad_state.enabled:
        return _dispatch_call(op, args)
    return _make_view(self, *op.view_fn(*args))


def getitem(self, index):
    if index.__class__ is int and self._shape:
        size = self._shape[0]
        if index < -size or index >= size:
            raise IndexError(f"index {index} is out of bounds for dimension 0 with size {size}")
        return _view_fast(self, _OPS["select.int"], (self, 0, index))
    if index.__class__ is slice and self._shape and (index.step is None or index.step.__class__ is int):
        start, stop = index.start, index.stop
        if (start is None or start.__class__ is int) and (stop is None or stop.__class__ is int):
            step = 1 if index.step is None else index.step
            if step <= 0:
                raise ValueError("step must be greater than zero")
            return _view_fast(self, _OPS["slice.Tensor"], (self, 0, start, stop, step))
    mt = _mt()
    if not self._shape and (_is_int(index) or isinstance(index, slice)):
        raise IndexError(
            "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in "
            "C++ to convert a 0-dim tensor to a number"
        )
    items = _normalize(self, index)
    v, adv = _basic(self, items)
    if not adv:
        return mt.ops.alias(v) if v is self else v
    return mt.ops.index(v, _adv_indices(v, adv))


def _strip_leading_ones(value, ndim):
    while len(value._shape) > ndim and value._shape[0] == 1:
        value = value.squeeze(0)
    return value


def setitem(self, index, value):
    mt = _mt()
    items = _normalize(self, index)
    v, adv = _basic(self, items)
    if not (isinstance(value, (Tensor, numbers.Number)) or _is_bool(value)):
        value = mt.tensor(value, dtype=self.dtype, device=self.device)
    if not adv:
        if isinstance(value, Tensor):
            v.copy_(_strip_leading_ones(value, len(v._shape)))
        else:
            v.fill_(value)
        return
    indices = _adv_indices(v, adv)
    if isinstance(value, Tensor):
        # like PyTorch, a tensor value of another dtype is an error (index_put_ reports it)
        if value.device != self.device:
            value = value.to(self.device)
        from .ops.indexing import index_shape

        value = _strip_leading_ones(value, len(index_shape(v, indices)))
    else:
        value = mt.tensor(value, dtype=self.dtype, device=self.device)
    v.index_put_(indices, value)
