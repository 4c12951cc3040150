"""Shape-and-dtype rules shared by many ops (the meta functions).

A rule gets the op's bound arguments and returns a TensorMeta (or a tuple
of them): what the outputs will be. Rules raise PyTorch's errors for bad
shapes, so every backend (and the meta device) agrees on them.
"""

from .. import _dtype as D
from .._geometry import broadcast_shapes, wrap_dim, wrap_dims
from .._tensor import Tensor as _Tensor


class TensorMeta:
    __slots__ = ("shape", "dtype")

    def __init__(self, shape, dtype):
        self.shape = shape
        self.dtype = dtype

    def __repr__(self):
        return f"TensorMeta({self.shape}, {self.dtype})"


def not_implemented(kname, d):
    """PyTorch's error for a dtype kernel `kname` lacks: NotImplementedError (a RuntimeError subclass)."""
    return NotImplementedError(f"\"{kname}\" not implemented for '{D._cname(d)}'")


def fmt_shape(shape):
    """A shape as PyTorch's messages print it: [2, 3]."""
    return "[" + ", ".join(map(str, shape)) + "]"


def shape_of(x):
    return x._shape if hasattr(x, "_shape") else ()


def same(self, *args, **kw):
    return TensorMeta(self._shape, self.dtype)


def same_shape_bool(self, *args, **kw):
    return TensorMeta(self._shape, D.bool_)


# (shape, dtype) -> TensorMeta, for the commonest rule results: metas are never changed once made, so
# one serves every op of that geometry
_SAME_GEOMETRY: dict = {}


def shared_meta(shape, dtype):
    """TensorMeta(shape, dtype), one object per geometry (cheaper than building one per call)."""
    key = (shape, dtype)
    m = _SAME_GEOMETRY.get(key)
    if m is None:
        m = TensorMeta(shape, dtype)
        if len(_SAME_GEOMETRY) < 4096:
            _SAME_GEOMETRY[key] = m
    return m


def binary(self, other, *rest):
    """Broadcasting pointwise op in the promoted dtype."""
    oc = other.__class__
    if oc is _Tensor and self.__class__ is _Tensor and self.dtype is other.dtype:  # the common case
        s1 = self._shape
        if s1 == other._shape:
            return shared_meta(s1, self.dtype)
        return TensorMeta(broadcast_shapes(s1, other._shape), self.dtype)
    if not hasattr(self, "_shape"):  # torch.add(2, t)
        return TensorMeta(shape_of(other), D.result_type(self, other))
    if oc is self.__class__:
        if self.dtype is other.dtype:
            return TensorMeta(broadcast_shapes(self._shape, other._shape), self.dtype)
    elif oc is float and hasattr(self, "_shape"):
        # a weak float scalar keeps a floating tensor's dtype
        d = self.dtype
        return TensorMeta(self._shape, d if d._kind == 2 else (D.get_default_dtype() if d._kind < 2 else d))
    elif oc is int and hasattr(self, "_shape"):
        d = self.dtype
        return TensorMeta(self._shape, D.int64 if d is D.bool_ else d)
    return TensorMeta(broadcast_shapes(shape_of(self), shape_of(other)), D.result_type(self, other))


def binary_float(self, other, *rest):
    """Like binary, but integer results become the default float dtype (true division)."""
    m = binary(self, other)
    if m.dtype._kind < 2:
        return TensorMeta(m.shape, D.get_default_dtype())
    return m


def binary_no_bool(self, other, *rest):
    m = binary(self, other)
    if m.dtype is D.bool_:
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. "
            "Use the `^` or `logical_xor()` operator instead."
        )
    return m


def comparison(self, other, *rest):
    return TensorMeta(broadcast_shapes(shape_of(self), shape_of(other)), D.bool_)


def unary_float(self, *rest):
    """Pointwise op whose integer inputs compute in the default float dtype (exp, sin, ...)."""
    d = self.dtype
    return TensorMeta(self._shape, d if d._kind >= 2 else D.get_default_dtype())


def integral_or_bool_only(name):
    def rule(self, other=None, *rest):
        m = binary(self, other) if other is not None else TensorMeta(self._shape, self.dtype)
        if m.dtype._kind >= 2:
            raise RuntimeError(f"\"{name}_cpu\" not implemented for '{m.dtype.name.capitalize()}'")
        return m

    return rule


def norm_dims(dim, nd):
    """Wrapped reduction dims; None or () means every dim."""
    if dim is None or dim == ():
        return tuple(range(nd))
    if isinstance(dim, int):
        dim = (dim,)
    if nd == 0:
        for d in dim:
            wrap_dim(d, 0)
        return ()
    return wrap_dims(dim, nd)


def reduced_shape(shape, dims, keepdim):
    if dims is None or dims == ():
        dims = tuple(range(len(shape)))
    elif isinstance(dims, int):
        dims = (dims,)
    nd = len(shape)
    dims = wrap_dims(dims, nd) if nd else tuple(wrap_dim(d, 0) for d in dims) and ()
    if keepdim:
        return tuple(1 if i in dims else s for i, s in enumerate(shape))
    return tuple(s for i, s in enumerate(shape) if i not in dims)


def reduction(self, dim=None, keepdim=False, *rest, dtype=None):
    return TensorMeta(reduced_shape(self._shape, dim, keepdim), dtype or self.dtype)


def div(self, other, rounding_mode=None):
    if rounding_mode is None:
        return binary_float(self, other)
    if rounding_mode not in ("trunc", "floor"):
        raise RuntimeError(
            f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{rounding_mode}'"
        )
    return binary(self, other)
