"""Shape, stride and broadcasting arithmetic (device-agnostic; view_strides has a compiled twin)."""

from ._accel_load import ACCEL as _ACCEL


class Size(tuple):
    """torch.Size: a tuple of ints with PyTorch's repr."""

    def __repr__(self):
        return f"torch.Size([{', '.join(str(s) for s in self)}])"

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, item):
        r = tuple.__getitem__(self, item)
        return Size(r) if isinstance(item, slice) else r

    def __add__(self, other):
        return Size(tuple.__add__(self, tuple(other)))

    def __reduce__(self):
        return (Size, (tuple(self),))


_CSTRIDES: dict = {}  # shape -> its C-contiguous strides: shapes repeat, so views look them up


def c_strides(shape):
    """contiguous_strides(shape) for a tuple shape, memoised."""
    st = _CSTRIDES.get(shape)
    if st is None:
        st = contiguous_strides(shape)
        if len(_CSTRIDES) < 4096:
            _CSTRIDES[shape] = st
    return st


def contiguous_strides(shape):
    strides = [1] * len(shape)
    acc = 1
    for i in range(len(shape) - 1, -1, -1):
        strides[i] = acc
        acc *= shape[i] if shape[i] > 1 else 1
    return tuple(strides)


def numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def is_contiguous(shape, stride):
    expected = 1
    for size, st in zip(reversed(shape), reversed(stride)):
        if size == 1:
            continue
        if size == 0:
            return True
        if st != expected:
            return False
        expected *= size
    return True


def broadcast_shapes(a, b):
    if a == b:
        return a
    la, lb = len(a), len(b)
    n = max(la, lb)
    out = []
    for i in range(n):
        x = a[i - n + la] if i - n + la >= 0 else 1
        y = b[i - n + lb] if i - n + lb >= 0 else 1
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            raise RuntimeError(
                f"The size of tensor a ({x}) must match the size of tensor b ({y}) at non-singleton dimension {i}"
            )
    return tuple(out)


def broadcast_all(*shapes):
    out = ()
    for s in shapes:
        out = broadcast_shapes(out, s)
    return out


def wrap_dim(dim, ndim, scalar_ok=True):
    if ndim == 0 and scalar_ok:
        ndim = 1
    if dim is None or isinstance(dim, bool) or not isinstance(dim, int):
        dim = _as_int(dim)
    if dim < -ndim or dim >= ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {dim})")
    return dim + ndim if dim < 0 else dim


def _as_int(v):
    try:
        return v.__index__()
    except AttributeError:
        raise TypeError(f"expected an int dimension, got {type(v).__name__}") from None


def wrap_dims(dims, ndim):
    out = tuple(wrap_dim(d, ndim) for d in dims)
    if len(set(out)) != len(out):
        for d in out:
            if out.count(d) > 1:
                raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return out


def infer_size(shape, total):
    """Resolve one -1 in a view/reshape shape."""
    known = 1
    for s in shape:
        if s < 0:
            return _infer_negative(shape, total)
        known *= s
    if known != total:
        raise RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {total}")
    return shape if shape.__class__ is tuple else tuple(shape)


def _infer_negative(shape, total):
    shape = list(shape)
    neg = [i for i, s in enumerate(shape) if s == -1]
    if len(neg) > 1:
        raise RuntimeError("only one dimension can be inferred")
    for s in shape:
        if s < -1:
            raise RuntimeError(f"invalid shape dimension {s}")
    known = 1
    for s in shape:
        if s != -1:
            known *= s
    if known == 0 or total % known:
        raise RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {total}")
    shape[neg[0]] = total // known
    return tuple(shape)


def view_strides(old_shape, old_stride, new_shape):
    """Strides for viewing (old_shape, old_stride) as new_shape, or None (at::detail::computeStride)."""
    if old_stride == c_strides(old_shape):  # a contiguous tensor views as contiguous
        return c_strides(new_shape)
    if not old_shape:
        return tuple(1 for _ in new_shape)
    numel_ = numel(old_shape)
    if numel_ == 0:
        return contiguous_strides(new_shape) if old_shape != new_shape else tuple(old_stride)
    new_stride = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_base_stride = old_stride[-1]
    tensor_numel = 1
    view_numel = 1
    for tensor_d in range(len(old_shape) - 1, -1, -1):
        tensor_numel *= old_shape[tensor_d]
        if tensor_d == 0 or (
            old_shape[tensor_d - 1] != 1 and old_stride[tensor_d - 1] != tensor_numel * chunk_base_stride
        ):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                new_stride[view_d] = view_numel * chunk_base_stride
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = old_stride[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(new_stride)


# the Python rule stays the reference (tests compare the compiled twin with it); the twin, when built,
# hands anything but tuples of plain ints back to it
PYTHON_TWINS = {"view_strides": view_strides}
if _ACCEL is not None:
    _ACCEL.setup_view(view_strides)
    view_strides = _ACCEL.view_strides


def broadcast_shapes_public(*shapes):
    """torch.broadcast_shapes(*shapes): shapes are ints or sequences of ints; returns a Size."""

    def as_shape(s):
        if isinstance(s, int) and not isinstance(s, bool) or hasattr(s, "__index__") and not hasattr(s, "__len__"):
            s = (s,)
        out = []
        for i, d in enumerate(s):
            if not (isinstance(d, int) or hasattr(d, "__index__")) or isinstance(d, float):
                raise TypeError(f"torch.Size() takes an iterable of 'int' (item {i} is '{type(d).__name__}')")
            out.append(int(d))
        return tuple(out)

    shapes = [as_shape(s) for s in shapes]
    result = [1] * max((len(s) for s in shapes), default=0)
    for idx, s in enumerate(shapes):
        for i in range(-1, -len(s) - 1, -1):
            d = s[i]
            if d == 1 or d == result[i]:
                continue
            if result[i] != 1:
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {d} at {i}! Mismatching argument "
                    f"at index {idx} had {tuple(s)}; but expected shape should be broadcastable "
                    f"to {list(result)}"
                )
            if d < 0:
                raise ValueError("Attempting to broadcast a dimension with negative length!")
            result[i] = d
    return Size(result)
