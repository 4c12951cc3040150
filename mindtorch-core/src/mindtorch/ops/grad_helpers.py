"""Names available inside derivative formulas (besides the op's parameters)."""
import importlib


class _LazyTorch:
    """`torch.xxx` inside formulas: the mindtorch namespace, resolved at call time."""

    def __getattr__(self, name):
        mod = importlib.import_module("mindtorch")
        return getattr(mod, name)


torch = _LazyTorch()


def sum_to(grad, shape):
    """Sum a broadcast gradient back down to `shape` (at::sum_to)."""
    shape = tuple(shape)
    if tuple(grad._shape) == shape:
        return grad
    lead = len(grad._shape) - len(shape)
    dims = list(range(lead))
    for i, s in enumerate(shape):
        if s == 1 and grad._shape[lead + i] != 1:
            dims.append(lead + i)
    if dims:
        grad = grad.sum(dims, keepdim=True)
    if lead:
        grad = grad.reshape(shape)
    elif tuple(grad._shape) != shape:
        grad = grad.reshape(shape)
    return grad


def maybe_mul(grad, alpha):
    return grad if (alpha == 1 and not hasattr(alpha, "_shape")) else grad * alpha


def unsqueeze_dims(g, dims, ndim):
    """Re-insert reduced dims (for reductions with keepdim=False)."""
    if ndim == 0:
        return g
    if dims is None or (isinstance(dims, (tuple, list)) and len(dims) == 0):
        return g.reshape((1,) * ndim)
    if isinstance(dims, int):
        dims = (dims,)
    dims = sorted(d % ndim for d in dims)
    for d in dims:
        g = g.unsqueeze(d)
    return g


def complex_aware(fn):
    """Mark a backward helper whose result is already right for complex tensors (it conjugates where
    PyTorch's convention needs it, or is an adjoint); formulas calling it are left as written."""
    fn.complex_aware = True
    return fn


@complex_aware
def conj(x):
    if x.__class__ is complex:
        return x.conjugate()
    return x.conj() if getattr(x, "dtype", None) is not None and x.dtype.is_complex else x


@complex_aware
def sgn_backward(grad, self, result):
    """sgn(z) = z/|z| moves only along the circle: i * sgn * Im(conj(sgn) * grad) / |z| (zero at 0 and for
    real inputs, where sgn is piecewise constant)."""
    if not self.dtype.is_complex:
        return grad * 0
    a = self.abs()
    g = result * torch.imag(result.conj() * grad) / a
    return torch.where(a == 0, 0, torch.complex(-torch.imag(g), torch.real(g)))


def conj_all(xs):
    return [conj(x) for x in xs]


def any_complex(xs):
    return any(x is not None and x.dtype._kind == 3 for x in xs)


def is_tensor(x):
    return hasattr(x, "_shape")


def shape_of(x):
    return tuple(x._shape) if hasattr(x, "_shape") else ()


def not_implemented(name):
    raise NotImplementedError(f"the derivative for '{name}' is not implemented")


def non_differentiable(name):
    raise RuntimeError(f"the derivative for '{name}' is not implemented")


def _zeros_for(grad):
    return grad * 0


@complex_aware
def div_self_grad(grad, other, rounding_mode):
    if rounding_mode is not None:
        return _zeros_for(grad)
    return grad / conj(other)


@complex_aware
def div_other_grad(grad, self, other, rounding_mode):
    if rounding_mode is not None:
        return _zeros_for(grad)
    return -grad * conj(self) / conj(other * other)


def inverse_permutation(dims, n):
    dims = [d % n for d in dims] if n else list(dims)
    inv = [0] * n
    for i, d in enumerate(dims):
        inv[d] = i
    return inv


def _zeros(shape, like):
    return torch.zeros(shape, dtype=like.dtype, device=like.device)


def select_backward(grad, shape, dim, index):
    out = _zeros(shape, grad)
    out.select(dim, index).copy_(grad)
    return out


def slice_backward(grad, shape, dim, start, end, step):
    out = _zeros(shape, grad)
    torch.ops.slice(out, dim, start, end, step).copy_(grad)
    return out


def narrow_backward(grad, shape, dim, start, length):
    out = _zeros(shape, grad)
    out.narrow(dim, start, length).copy_(grad)
    return out


def diagonal_backward(grad, shape, offset, dim1, dim2):
    out = _zeros(shape, grad)
    out.diagonal(offset, dim1, dim2).copy_(grad)
    return out


def as_strided_backward(grad, self, size, stride, storage_offset):
    # assumes the strided view does not overlap itself (true for every view core makes)
    base = torch.zeros(self._storage.nbytes // self.dtype.itemsize, dtype=grad.dtype, device=grad.device)
    off = self._offset if storage_offset is None else storage_offset
    base.as_strided(size, stride, off).add_(grad)
    return base.as_strided(self._shape, self._stride, self._offset).clone()


def unfold_backward(grad, shape, dim, size, step):
    n = len(shape)
    d = dim % n if n else 0
    out = _zeros(shape, grad)
    if n == 0:
        return out + grad.reshape(())
    windows = grad.shape[d]
    for w in range(windows):
        piece = grad.select(d, w).movedim(-1, d)
        region = out.narrow(d, w * step, size)
        region.add_(piece)
    return out


def copy_src_grad(grad, src):
    g = grad
    if is_tensor(src):
        if g.dtype is not src.dtype or g.device != src.device:
            g = g.to(dtype=src.dtype, device=src.device)
        return sum_to(g, shape_of(src))
    return None


def to_like(grad, like):
    return torch.ops._to_copy(grad, dtype=like.dtype, device=like.device)


def expand_reduced(grad, dim, keepdim, shape):
    """Gradient of a reduction over `dim`, broadcast back to the input's shape."""
    if not keepdim:
        grad = unsqueeze_dims(grad, dim, len(shape))
    return grad.expand(shape)
