"""The namespace of derivative formulas: every helper a formula calls, defined once.

A formula (the `grad=` of `defop`) sees only the op's parameters, `grad` /
`grads` / `result`, and the names of this module, `torch` among them (the
public API, resolved at call time). Helpers carry PyTorch's names where
PyTorch has one (its FunctionsManual), grouped below by op family.
"""

import math
import sys

from .._geometry import numel, wrap_dim, wrap_dims
from .meta import norm_dims


# --- what every formula may use: torch, broadcasting back, complex conjugation -------------------
class _LazyTorch:
    """`torch.xxx` inside formulas: the mindtorch namespace, resolved at call time."""

    def __getattr__(self, name):
        # the package is imported before any of its modules: no import machinery per formula call
        return getattr(sys.modules["mindtorch"], name)


torch = _LazyTorch()


def computed_in_float32(composite):
    """A composite that, like the kernels it stands in for, computes half-precision inputs (float16,
    bfloat16) in float32 and rounds its result once, instead of rounding after every op of the chain."""
    import functools

    @functools.wraps(composite)
    def run(*args, **kwargs):
        half = next((a.dtype for a in args if _is_half(a)), None)
        if half is None:
            return composite(*args, **kwargs)
        wide = [a.float() if _is_half(a) else a for a in args]
        out = composite(*wide, **kwargs)
        if isinstance(out, tuple):
            return type(out)(o.to(half) if _is_float32(o) else o for o in out)
        return out.to(half)

    return run


def _is_float32(a):
    return getattr(a, "dtype", None) is not None and a.dtype.is_floating_point and a.dtype.itemsize == 4


def _is_half(a):
    return getattr(a, "dtype", None) is not None and a.dtype.is_floating_point and a.dtype.itemsize == 2


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
    if lead or tuple(grad._shape) != shape:
        grad = grad.reshape(shape)
    return grad


def maybe_mul(grad, alpha):
    return grad if (alpha == 1 and not hasattr(alpha, "_shape")) else grad * alpha


def unsqueeze_multiple(g, dims, ndim):
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


def zeros_like_grad(grad):
    return grad * 0


def bessel_i1_slope(x, i0, i1):
    """d/dx I1(x) = I0(x) - I1(x) / x, with its limit 1/2 at 0."""
    zero = x == 0
    return torch.where(zero, torch.full_like(i1, 0.5), i0 - i1 / torch.where(zero, torch.ones_like(x), x))


def bessel_i1e_slope(x, i0e, i1e):
    """d/dx (exp(-|x|) I1(x)) = i0e(x) - i1e(x) (sgn(x) + 1 / x), with its limit 1/2 at 0."""
    zero = x == 0
    inv = 1 / torch.where(zero, torch.ones_like(x), x)
    return torch.where(zero, torch.full_like(i1e, 0.5), i0e - i1e * (torch.sgn(x) + inv))


def not_implemented(name):
    raise NotImplementedError(f"the derivative for '{name}' is not implemented")


def non_differentiable(name):
    raise RuntimeError(f"the derivative for '{name}' is not implemented")


@complex_aware
def div_self_grad(grad, other, rounding_mode):
    if rounding_mode is not None:
        return zeros_like_grad(grad)
    return grad / conj(other)


@complex_aware
def div_other_grad(grad, self, other, rounding_mode):
    if rounding_mode is not None:
        return zeros_like_grad(grad)
    return -grad * conj(self) / conj(other * other)


def inverse_permutation(dims, n):
    dims = [d % n for d in dims] if n else list(dims)
    inv = [0] * n
    for i, d in enumerate(dims):
        inv[d] = i
    return inv


# --- views: the gradient written into zeros of the base's shape ---------------------------------
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


# --- copies and reductions in general -------------------------------------------------------------
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
        grad = unsqueeze_multiple(grad, dim, len(shape))
    return grad.expand(shape)


# --- pointwise ------------------------------------------------------------------------------------
SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


def pow_self_grad(grad, self, exponent):
    if not hasattr(exponent, "_shape"):
        if exponent == 0:
            return zeros_like_grad(grad)
        return grad * exponent * torch.pow(self, exponent - 1)
    g = grad * exponent * torch.pow(self, exponent - 1)
    return torch.where(exponent == 0, zeros_like_grad(g), g)


def pow_exp_grad(grad, self, exponent, result):
    if not hasattr(self, "_shape"):
        return (
            grad * result * math.log(self) if self != 0 else grad * torch.where(exponent >= 0, 0.0, result * -math.inf)
        )
    g = grad * result * torch.log(self)
    # 0 ** e for e >= 0 has a zero derivative in e (not nan); complex exponents have no order: Re(e) >= 0
    nonneg = (torch.real(exponent) if exponent.dtype.is_complex else exponent) >= 0
    return torch.where((self == 0) & nonneg, zeros_like_grad(g), g)


def minmax_grad(grad, a, b, is_max):
    take = (a > b) if is_max else (a < b)
    tie = a == b
    return torch.where(take, grad, torch.where(tie, grad / 2, zeros_like_grad(grad)))


def clamp_self_grad(grad, self, min, max):
    mask = None
    if min is not None:
        mask = self >= min
    if max is not None:
        m2 = self <= max
        mask = m2 if mask is None else mask & m2
    return torch.where(mask, grad, zeros_like_grad(grad))


def clamp_bound_grad(grad, self, min, max, which):
    if which == "min":
        mask = self < min
        if max is not None:
            mask = mask & (min <= max) if hasattr(max, "_shape") else mask & (min <= max)
    else:
        mask = self > max
        if min is not None:
            mask = mask | (min > max)
    return torch.where(mask, grad, zeros_like_grad(grad))


def logit_grad(grad, self, eps):
    g = grad / (self * (1 - self))
    if eps is None:
        return torch.where((self < 0) | (self > 1), g * math.nan, g)
    return torch.where((self < eps) | (self > 1 - eps), zeros_like_grad(g), g)


def gelu_second(self, approximate):
    """d^2 gelu / dx^2 (the derivative of gelu_backward in `self`)."""
    if approximate == "tanh":
        c = 0.044715
        t = torch.tanh(SQRT_2_OVER_PI * (self + c * self * self * self))
        du = SQRT_2_OVER_PI * (1 + 3 * c * self * self)
        return (1 - t * t) * (du - self * t * du * du + 3 * SQRT_2_OVER_PI * c * self * self)
    pdf = torch.exp(-0.5 * self * self) * (1 / math.sqrt(2 * math.pi))
    return pdf * (2 - self * self)


def silu_second(self):
    """d^2 silu / dx^2 (the derivative of silu_backward in `self`): s (1 - s) (2 + x (1 - 2 s))."""
    s = torch.sigmoid(self)
    return s * (1 - s) * (2 + self * (1 - 2 * s))


def softplus_grad(grad, self, beta, threshold):
    z = self * beta
    return torch.where(z > threshold, grad, grad * torch.sigmoid(z))


def mish_grad(grad, self):
    tsp = torch.tanh(softplus_value(self))
    return grad * (tsp + self * torch.sigmoid(self) * (1 - tsp * tsp))


def softplus_value(x):
    return torch.where(x > 20, x, torch.log1p(torch.exp(x)))


def remainder_other_grad(grad, self, other):
    if not hasattr(self, "_shape"):  # remainder.Scalar_Tensor (2 % t) has no derivative in PyTorch
        raise RuntimeError("derivative for aten::remainder is not implemented")
    return -grad * torch.div(self, other, rounding_mode="floor")


def lerp_weight_grad(grad, self, end, weight):
    return grad * (end - self)


LN2 = math.log(2.0)


LN10 = math.log(10.0)


def copysign_self_grad(grad, self, result):
    """d copysign(x, y) / dx = sign agreement of x and the result; zero where x is zero."""
    return torch.where(self == 0, grad * 0, grad * (result / torch.where(self == 0, 1, self)))


# --- reductions and scans -------------------------------------------------------------------------
def _reduced_numel(shape, dim):
    n = 1
    for d in norm_dims(dim, len(shape)):
        n *= shape[d]
    return n


def _unsqueeze_reduced(g, dim, keepdim, nd):
    return g if keepdim else unsqueeze_multiple(g, dim, nd)


def _as_mask_of(mask, like):
    return mask.to(like.dtype)


def mean_backward(grad, self, dim, keepdim):
    shape = shape_of(self)
    n = _reduced_numel(shape, dim)
    return expand_reduced(grad, dim, keepdim, shape) / max(n, 1)


def prod_backward(grad, self, result, dim, keepdim):
    nd = len(shape_of(self))
    if dim is None:
        keepdim = False
    g = _unsqueeze_reduced(grad, dim, keepdim, nd)
    r = _unsqueeze_reduced(result, dim, keepdim, nd)
    zero = torch.eq(self, 0)
    if nd == 0 or self.numel() == 0 or not bool(zero.any()):
        return (g * r / self).expand(shape_of(self)) if nd else g * r / self
    zf = _as_mask_of(zero, self)
    nz = self + zf  # zeros replaced by ones
    pnz = nz.prod() if dim is None else nz.prod(dim, True)
    cnt = zf.sum(dim, keepdim=True)
    one = _as_mask_of(torch.eq(cnt, 1), self)
    return g * (zf * pnz * one + (1 - zf) * r / nz)


def evenly_distribute_backward(grad, self, result, dim, keepdim):
    """max/min/amax/amin: the gradient is shared by all tied extrema."""
    nd = len(shape_of(self))
    g = _unsqueeze_reduced(grad, dim, keepdim, nd)
    r = _unsqueeze_reduced(result, dim, keepdim, nd)
    mask = _as_mask_of(torch.eq(self, r), g)
    return g * mask / mask.sum(dim, keepdim=True)


def value_selecting_reduction_backward(grad, indices, dim, keepdim, shape):
    """max.dim/min.dim: the gradient goes to the selected index."""
    nd = len(shape)
    if nd == 0:
        return grad
    d = dim % nd
    g = _unsqueeze_reduced(grad, dim, keepdim, nd)
    idx = _unsqueeze_reduced(indices, dim, keepdim, nd)
    ar = torch.arange(shape[d], device=grad.device).reshape(tuple(-1 if i == d else 1 for i in range(nd)))
    return g * _as_mask_of(torch.eq(ar, idx), g)


def var_backward(grad, self, dim, correction, keepdim):
    shape = shape_of(self)
    n = _reduced_numel(shape, dim)
    c = 1 if correction is None else correction
    nd = len(shape)
    g = _unsqueeze_reduced(grad, dim, keepdim, nd)
    mu = self.mean(dim, keepdim=True) if nd else self
    return g * (2.0 / max(0, n - c) if n - c > 0 else float("inf")) * (self - mu)


def std_backward(grad, self, result, dim, correction, keepdim):
    zero = _as_mask_of(torch.eq(result, 0), result)
    gv = grad / (2 * (result + zero)) * (1 - zero)  # std == 0 gives a zero gradient
    return var_backward(gv, self, dim, correction, keepdim)


def logsumexp_backward(grad, self, result, dim, keepdim):
    nd = len(shape_of(self))
    return _unsqueeze_reduced(grad, dim, keepdim, nd) * torch.exp(self - _unsqueeze_reduced(result, dim, keepdim, nd))


def cumsum_backward(grad, dim):
    if not grad._shape:
        return grad
    # reversed cumulative sum: total - inclusive prefix + own term
    return grad.sum(dim, keepdim=True) - grad.cumsum(dim) + grad


def cumprod_backward(grad, self, result, dim):
    if not self._shape:
        return grad
    if not bool(torch.eq(self, 0).any()):
        return cumsum_backward(grad * result, dim) / self
    # with zeros: d out_j / d x_k = prod_{i<k} x_i * prod_{k<i<=j} x_i
    d = dim % len(self._shape)
    n = self._shape[d]
    out = torch.zeros_like(grad)
    for k in range(n):
        term = grad.narrow(d, k, 1)
        if k + 1 < n:
            tail = self.narrow(d, k + 1, n - k - 1).cumprod(d)
            term = term + (grad.narrow(d, k + 1, n - k - 1) * tail).sum(d, keepdim=True)
        if k > 0:
            term = term * result.narrow(d, k - 1, 1)
        out.narrow(d, k, 1).copy_(term)
    return out


def linalg_vector_norm_backward(grad, self, result, ord, dim, keepdim):
    nd = len(shape_of(self))
    g = _unsqueeze_reduced(grad, dim, keepdim, nd)
    r = _unsqueeze_reduced(result, dim, keepdim, nd)
    ord = float(ord)
    if ord == 0:
        return self * 0
    if ord == 1:
        return g * torch.sgn(self)
    if ord in (float("inf"), float("-inf")):
        a = torch.abs(self)
        mask = _as_mask_of(torch.eq(a, r), g)
        return g * torch.sgn(self) * mask / mask.sum(dim, keepdim=True)
    zero = _as_mask_of(torch.eq(r, 0), r)
    safe = r + zero
    if ord == 2:
        return g * self / safe * (1 - zero)
    a = torch.abs(self)
    return g * torch.sgn(self) * torch.pow(a, ord - 1) / torch.pow(safe, ord - 1) * (1 - zero)


def logcumsumexp_backward(grad, self, result, dim):
    """d r_k / d x_i = exp(x_i - r_k) for i <= k: the sum over k >= i is taken in log space, separately for
    the positive and the negative parts of grad, so nothing overflows."""
    if self.dim() == 0:
        return grad
    d = wrap_dim(dim, self.dim())

    def tail_logsum(w):  # log sum_{k >= i} exp(w_k)
        return torch.logcumsumexp(w.flip(d), d).flip(d)

    pos = torch.exp(self + tail_logsum(torch.log(torch.clamp(grad, min=0)) - result))
    neg = torch.exp(self + tail_logsum(torch.log(torch.clamp(-grad, min=0)) - result))
    return pos - neg


# --- indexing, joining and sorting ----------------------------------------------------------------
def index_backward(grad, self, indices):
    z = torch.zeros(shape_of(self), dtype=grad.dtype, device=grad.device)
    return z.index_put(indices, grad, accumulate=True)


def index_put_self_grad(grad, indices, accumulate):
    if accumulate:
        return grad
    return grad.index_put(indices, torch.zeros((), dtype=grad.dtype, device=grad.device))


def index_put_values_grad(grad, indices, values):
    return torch.ops.index(grad, indices)


def split_backward(grads, dim):
    """The gradient of split / chunk: the pieces' gradients joined in one cat. The engine has filled the
    gradient of a piece that none reached with zeros (the formula reads every one of `grads`)."""
    return torch.cat(list(grads), dim)


def unbind_backward(grads, dim):
    """The gradient of unbind: the slices' gradients stacked back along dim (zeros where none reached)."""
    return torch.stack(list(grads), dim)


def cat_backward(grad, tensors, dim):
    live = [t for t in tensors if not (len(t._shape) == 1 and t._shape[0] == 0)]
    d = wrap_dim(dim, len(live[0]._shape)) if live else 0
    out, start = [], 0
    for t in tensors:
        if len(t._shape) == 1 and t._shape[0] == 0:
            out.append(torch.zeros((0,), dtype=grad.dtype, device=grad.device))
            continue
        k = t._shape[d]
        out.append(grad.narrow(d, start, k))
        start += k
    return out


def stack_backward(grad, dim):
    d = wrap_dim(dim, len(grad._shape))
    return [grad.select(d, i) for i in range(grad._shape[d])]


def gather_backward(grad, self, dim, index):
    z = torch.zeros(shape_of(self), dtype=grad.dtype, device=grad.device)
    return z.scatter_add(dim, index, grad)


def scatter_self_grad(grad, dim, index, reduce):
    if reduce == "multiply":
        raise NotImplementedError("the derivative for 'scatter' with reduce='multiply' is not implemented")
    if reduce == "add":
        return grad
    return grad.scatter(dim, index, 0)


def scatter_src_grad(grad, dim, index, reduce):
    if reduce == "multiply":
        raise NotImplementedError("the derivative for 'scatter' with reduce='multiply' is not implemented")
    return grad.gather(dim, index)


def index_select_backward(grad, self, dim, index):
    z = torch.zeros(shape_of(self), dtype=grad.dtype, device=grad.device)
    return z.index_add(dim, index, grad)


def index_src_grad(grad, dim, index, source):
    g = grad.index_select(dim, index)
    return g.reshape(shape_of(source))


def index_fill_value_grad(grad, dim, index):
    return grad.index_select(dim, index).sum()


def masked_fill_value_grad(grad, mask):
    return grad.masked_select(mask).sum()


def neg_shifts(shifts):
    return tuple(-s for s in shifts)


def repeat_backward(grad, self, repeats):
    repeats = tuple(repeats)
    src = (1,) * (len(repeats) - len(self._shape)) + tuple(self._shape)
    if numel(grad._shape) == 0:
        return torch.zeros(shape_of(self), dtype=grad.dtype, device=grad.device)
    split = []
    for r, s in zip(repeats, src):
        split += [r, s]
    g = grad.reshape(tuple(split))
    if repeats:
        g = g.sum(tuple(range(0, 2 * len(repeats), 2)))
    return g.reshape(shape_of(self))


def selected_values_backward(grad, indices, self, dim):
    """Gradient of (values, indices) = f(self) along dim: scatter the values' gradient back."""
    if not self._shape:
        return grad.reshape(())
    z = torch.zeros(shape_of(self), dtype=grad.dtype, device=grad.device)
    return z.scatter(dim, indices, grad)


SCATTER_REDUCE_ALIASES = {"max": "amax", "min": "amin"}  # older spellings PyTorch still accepts


@complex_aware
def scatter_reduce_backward(grad, self, dim, index, src, reduce, include_self, result, which):
    """Gradients for self (which=0) and src (which=1): sum and mean spread the gradient, amax/amin share it
    evenly among the elements that reached the extreme, prod divides the product by the element."""
    reduce = SCATTER_REDUCE_ALIASES.get(reduce, reduce)
    if reduce == "sum":
        g_self = grad if include_self else grad.scatter(dim, index, 0.0)
        return g_self if which == 0 else grad.gather(dim, index)
    if reduce == "mean":
        count = torch.ones_like(self) if include_self else torch.zeros_like(self)
        count = count.scatter_add(dim, index, torch.ones_like(src))
        count = torch.where(count == 0, torch.ones_like(count), count)
        g = grad / count
        if which == 0:
            return g if include_self else g.scatter(dim, index, 0.0)
        return g.gather(dim, index)
    if reduce in ("amax", "amin"):
        # as PyTorch: self's elements equal to the result share the gradient even without include_self
        # (they then get none themselves where something was scattered)
        self_hit = (self == result).to(grad.dtype)
        src_hit = (src == result.gather(dim, index)).to(grad.dtype)
        count = self_hit.scatter_add(dim, index, src_hit)
        g = grad / torch.where(count == 0, torch.ones_like(count), count)
        if which == 1:
            return g.gather(dim, index) * src_hit
        return g * self_hit if include_self else (g * self_hit).scatter(dim, index, 0.0)
    # prod: d/dx of a product is the product of the others; elements that are zero need the others' product
    if bool((src == 0).any()) or (include_self and bool((self == 0).any())):
        raise NotImplementedError(
            "scatter_reduce(reduce='prod') backward with zeros among the inputs is not implemented in mindtorch"
        )
    if which == 0:
        return grad * result / self if include_self else grad.scatter(dim, index, 0.0)
    return (grad * result).gather(dim, index) / src


# --- linear algebra -------------------------------------------------------------------------------
def mT(x):
    return x.transpose(-1, -2)


@complex_aware
def matmul_backward(grad, self, other, which):
    """Gradient of matmul for `which` = 0 (self) or 1 (other), any ranks."""
    na, nb = len(self._shape), len(other._shape)
    a = self.unsqueeze(0) if na == 1 else self
    b = other.unsqueeze(-1) if nb == 1 else other
    g = grad
    if nb == 1:
        g = g.unsqueeze(-1)
    if na == 1:
        g = g.unsqueeze(-2)
    if which == 0:
        r = torch.matmul(g, conj(mT(b)))
        r = sum_to(r, shape_of(a)) if r._shape != a._shape else r
        return r.reshape(self._shape) if na == 1 else r
    r = torch.matmul(conj(mT(a)), g)
    r = sum_to(r, shape_of(b)) if r._shape != b._shape else r
    return r.reshape(other._shape) if nb == 1 else r


def _diag_embed(d):
    """(..., n) -> (..., n, n) with d on the diagonal."""
    return d.unsqueeze(-1) * torch.eye(d.shape[-1], dtype=d.dtype, device=d.device)


def inv_backward(grad, result):
    Ainv_t = result.mT
    return -torch.matmul(torch.matmul(Ainv_t, grad), Ainv_t)


def slogdet_backward(grad_logabsdet, A):
    g = grad_logabsdet.unsqueeze(-1).unsqueeze(-1)
    try:
        return g * torch.ops.linalg_inv(A).mT
    except torch.linalg.LinAlgError:
        # a singular matrix: log|det| is -inf, and det = sign * exp(logabsdet) sends it a zero gradient,
        # which PyTorch passes on as zero; the pseudo-inverse equals the inverse for the other matrices
        return torch.where(g == 0, torch.zeros_like(A), g * torch.linalg.pinv(A).mT)


def solve_backward_B(grad, A):
    return torch.ops.linalg_solve(A.mT, grad)


def solve_backward_A(grad, A, result):
    gB = torch.ops.linalg_solve(A.mT, grad)
    return -torch.matmul(gB, result.mT)


def cholesky_backward(grad, L, upper):
    """A = L L^T: gA = sym(L^{-T} Phi(L^T gL) L^{-1}), Phi taking the lower triangle with a halved diagonal."""
    if upper:  # result is U = L^T; its gradient is the transposed one
        L, grad = L.mT, grad.mT
    P = torch.matmul(L.mT, grad).tril()
    P = P - 0.5 * _diag_embed(P.diagonal(dim1=-2, dim2=-1))
    Linv = torch.ops.linalg_inv(L)
    S = torch.matmul(torch.matmul(Linv.mT, P), Linv)
    return 0.5 * (S + S.mT)


def eigh_backward(grads, L, V):
    """gA = V (diag(gL) + skew(V^T gV) / (L_j - L_i)) V^T (PyTorch's formula for the Hermitian case)."""
    gL, gV = grads
    inner = None
    if gV is not None:
        VtgV = torch.matmul(V.mT, gV)
        E = L.unsqueeze(-2) - L.unsqueeze(-1)
        E = E + _diag_embed(torch.ones_like(L))  # the diagonal is replaced below; avoid 0/0
        inner = 0.5 * (VtgV - VtgV.mT) / E
        inner = inner - _diag_embed(inner.diagonal(dim1=-2, dim2=-1))
    if gL is not None:
        d = _diag_embed(gL)
        inner = d if inner is None else inner + d
    return torch.matmul(torch.matmul(V, inner), V.mT)


def _zeros_if_none(g, like):
    return torch.zeros_like(like) if g is None else g


def _qr_backward_tall(gQ, gR, Q, R):
    """m >= n: M = R gR^T - gQ^T Q, gA = (gQ + Q sym_lower(M)) R^{-T}, sym_lower mirroring M's lower
    triangle onto the upper one (diagonal kept)."""
    M = torch.matmul(R, gR.mT) - torch.matmul(gQ.mT, Q)
    low = M.tril(-1)
    sym = low + low.mT + _diag_embed(M.diagonal(dim1=-2, dim2=-1))
    b = gQ + torch.matmul(Q, sym)
    return torch.ops.linalg_solve(R, b.mT).mT  # b R^{-T}


def qr_backward(grads, A, Q, R, mode):
    """Tall or square A directly; wide A = [X Y] as X = Q R1 with R2 = Q^T Y, whose gradient reaches Q too."""
    m, n = A.shape[-2], A.shape[-1]
    if mode == "r":
        raise RuntimeError(
            "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
            "Please use linalg.qr(A, mode='reduced') if you are going to differentiate through "
            "linalg.qr."
        )
    if mode == "complete" and m > n:
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and nrows > ncols.")
    gQ, gR = _zeros_if_none(grads[0], Q), _zeros_if_none(grads[1], R)
    if m >= n:
        return _qr_backward_tall(gQ, gR, Q, R)
    Y = A[..., :, m:]
    gR1, gR2 = gR[..., :, :m], gR[..., :, m:]
    gX = _qr_backward_tall(gQ + torch.matmul(Y, gR2.mT), gR1, Q, R[..., :, :m])
    return torch.cat([gX, torch.matmul(Q, gR2)], -1)


def lstsq_backward(grad, A, B, X, which):
    """The solution of a full-rank least-squares problem: X = (A^T A)^{-1} A^T B when A is tall or square,
    the minimum-norm X = A^T (A A^T)^{-1} B when it is wide. Gradients for A (which=0) or B (which=1)."""
    m, n = A.shape[-2], A.shape[-1]
    vector = B.dim() == A.dim() - 1
    if vector:
        B, X, grad = B.unsqueeze(-1), X.unsqueeze(-1), grad.unsqueeze(-1)
    if m >= n:
        G = torch.ops.linalg_solve(torch.matmul(A.mT, A), grad)
        if which == 1:
            out = torch.matmul(A, G)
        else:
            R = B - torch.matmul(A, X)
            out = torch.matmul(R, G.mT) - torch.matmul(torch.matmul(A, G), X.mT)
    else:
        AAt = torch.matmul(A, A.mT)
        Z = torch.ops.linalg_solve(AAt, torch.matmul(A, grad))
        if which == 1:
            out = Z
        else:
            Y = torch.ops.linalg_solve(AAt, B)
            out = torch.matmul(Y, grad.mT) - torch.matmul(Z, X.mT) - torch.matmul(torch.matmul(Y, Z.mT), A)
    return out.squeeze(-1) if vector and which == 1 else out


def svd_backward(grads, A, U, S, Vh, full_matrices):
    """A = U diag(S) V^T (distinct nonzero singular values): the inner part U^T gA V from the symmetric
    parts of U^T gU and V^T gV scaled by 1/(s_j^2 - s_i^2), plus the parts of gU and gV outside the spans
    of U and V."""
    gU, gS, gVh = grads
    m, n = A.shape[-2], A.shape[-1]
    k = S.shape[-1]
    # with full_matrices, the columns of U and rows of Vh past min(m, n) carry no gradient (as in PyTorch)
    U, Vh = U[..., :, :k], Vh[..., :k, :]
    V = Vh.mT
    gU = None if gU is None else gU[..., :, :k]
    gV = None if gVh is None else gVh[..., :k, :].mT
    Sd = _diag_embed(S)
    inner = _diag_embed(gS) if gS is not None else torch.zeros_like(Sd)
    if gU is not None or gV is not None:
        s2 = S * S
        E = s2.unsqueeze(-2) - s2.unsqueeze(-1)  # E_ij = s_j^2 - s_i^2
        eye = _diag_embed(torch.ones_like(S))
        F = torch.where(eye > 0, torch.zeros_like(E), 1 / (E + eye))
    if gU is not None:
        UtgU = torch.matmul(U.mT, gU)
        inner = inner + torch.matmul(F * (UtgU - UtgU.mT), Sd)
    if gV is not None:
        VtgV = torch.matmul(V.mT, gV)
        inner = inner + torch.matmul(Sd, F * (VtgV - VtgV.mT))
    gA = torch.matmul(torch.matmul(U, inner), Vh)
    Sinv = _diag_embed(1 / S)
    if gU is not None and m > k:
        proj = gU - torch.matmul(U, torch.matmul(U.mT, gU))
        gA = gA + torch.matmul(torch.matmul(proj, Sinv), Vh)
    if gV is not None and n > k:
        proj = gV - torch.matmul(V, torch.matmul(V.mT, gV))
        gA = gA + torch.matmul(torch.matmul(U, Sinv), proj.mT)
    return gA


def svdvals_backward(grad, A):
    """The singular values alone: gA = U diag(gS) Vh from the reduced SVD of A."""
    U, _, Vh = torch.ops.linalg_svd(A, False)
    return torch.matmul(U * grad.unsqueeze(-2).to(U.dtype), Vh)


# --- nn -------------------------------------------------------------------------------------------
def linear_grad_weight(grad, input):
    # grad2d.T @ input2d, written as linear(A, B) = A @ B.T so it stays one op
    g = grad.reshape(-1, grad.shape[-1])
    x = input.reshape(-1, input.shape[-1])
    return torch.ops.linear(g.t(), x.t())


def linear_grad_bias(grad, bias):
    """The gradient of a bias broadcast to the output ((out,), (1, out), a scalar...): summed to its
    shape, always a new tensor (the incoming gradient may be held elsewhere)."""
    g = sum_to(grad, bias._shape)
    return g.clone() if g is grad else g


def linear_grads(grad, input, weight, bias, needs):
    """linear's three gradients from one linear_backward (a backend's single kernel where it has one);
    a bias of another shape than (out,) gets its own, summed to that shape."""
    flat_bias = bias is None or len(bias._shape) == 1
    gi, gw, gb = torch.ops.linear_backward(input, grad, weight, [needs[0], needs[1], needs[2] and flat_bias])
    if needs[2] and not flat_bias:
        gb = linear_grad_bias(grad, bias)
    return gi, gw, gb


def conv_bias_grad(grad):
    return grad.sum((0, 2, 3))


def conv2d_grads(grad, input, weight, stride, padding, dilation, groups, needs):
    """_conv2d's gradients from one dense copy of a broadcast incoming gradient (a sum or mean loss's),
    which each backward kernel would otherwise make (and the bias sum read strided)."""
    g = grad.contiguous()
    gi = gw = gb = None
    if needs[0]:
        gi = torch.ops._conv2d_backward_input(g, weight, input.shape, stride, padding, dilation, groups)
    if needs[1]:
        gw = torch.ops._conv2d_backward_weight(g, input, weight.shape, stride, padding, dilation, groups)
    if needs[2]:
        gb = conv_bias_grad(g)
    return gi, gw, gb


# --- random ---------------------------------------------------------------------------------------
def normal_std_grad(grad, result, mean, std):
    # result = mean + std * eps, so d/dstd = eps = (result - mean) / std
    return grad * (result - mean) / std


# --- complex numbers and Fourier transforms -------------------------------------------------------
@complex_aware  # a reinterpretation, not a function of z: the gradient's parts are the parts' gradients
def complex_grad(grad):
    return grad if grad.dtype.is_complex else grad.to(grad.dtype.to_complex())


@complex_aware  # adjoints: already conjugate-transposed
def fft_c2c_backward(grad, dim, normalization, forward):
    import mindtorch

    return mindtorch._fft_c2c(grad, dim, normalization, not forward)


@complex_aware
def fft_r2c_backward(grad, self, dim, normalization, onesided):
    """Zero-fill the dropped half of the spectrum, run the adjoint transform, keep the real part."""
    import mindtorch

    if onesided:
        last = wrap_dims(dim, self.dim())[-1]
        full = list(grad.shape)
        full[last] = self.shape[last]
        padded = mindtorch.zeros(full, dtype=grad.dtype, device=grad.device)
        padded.narrow(last, 0, grad.shape[last]).copy_(grad)
        grad = padded
    return mindtorch.real(mindtorch._fft_c2c(grad, dim, normalization, False))


@complex_aware
def fft_c2r_backward(grad, dim, normalization):
    """The adjoint of c2r: r2c of the gradient, with the bins that stand for two conjugate bins doubled."""
    import mindtorch

    g = mindtorch._fft_r2c(grad, dim, normalization, True)
    last = wrap_dims(dim, grad.dim())[-1]
    doubled = grad.shape[last] - g.shape[last]
    if doubled > 0:
        scale = mindtorch.ones(g.shape[last], dtype=grad.dtype, device=grad.device)
        scale[1 : 1 + doubled] = 2
        g = g * scale.view([-1] + [1] * (g.dim() - 1 - last))
    return g


# --- fused transformer blocks: double backward (each backward is linear in its incoming gradient) ------
def rotate(x, rotary_mode):
    """The rotation of rotary embedding, a linear map R with R^T = -R: (x1, x2) -> (-x2, x1) on the two
    halves of the last dim ("half") or on each pair of neighbours ("interleave")."""
    if rotary_mode == "half":
        x1, x2 = x.chunk(2, -1)
        return torch.cat((-x2, x1), -1)
    return torch.stack((-x[..., 1::2], x[..., 0::2]), -1).flatten(-2)


def rotary_mul_double_backward(grads, grad, x, r1, r2, rotary_mode):
    """Gradients of _rotary_mul_backward (dx = grad r1 - R(grad r2), dr1 = grad x, dr2 = grad R(x)) for
    grad, x, r1 and r2, given the gradients of its three outputs."""
    gdx, gr1, gr2 = _zeros_if_none(grads[0], x), _zeros_if_none(grads[1], r1), _zeros_if_none(grads[2], r2)
    ggrad = torch.ops._rotary_mul(gdx, r1, r2, rotary_mode) + torch.ops._rotary_mul(x, gr1, gr2, rotary_mode)
    gx = grad * gr1 - rotate(grad * gr2, rotary_mode)
    _, g1, g2 = torch.ops._rotary_mul_backward(grad, gdx, r1, r2, rotary_mode)
    return ggrad, gx, g1, g2


def swiglu_double_backward(ggx, grad, x, dim):
    """Gradients of _swiglu_backward for grad and x: with s = sigmoid(a), silu' = s (1 + a (1 - s)) and
    silu'' = s (1 - s) (2 + a (1 - 2 s)), the backward is (grad b silu'(a), grad silu(a))."""
    a, b = x.chunk(2, dim)
    gga, ggb = ggx.chunk(2, dim)
    s = torch.sigmoid(a)
    d1 = s * (1 + a * (1 - s))
    d2 = s * (1 - s) * (2 + a * (1 - 2 * s))
    ggrad = gga * b * d1 + ggb * a * s
    gx = torch.cat((grad * (gga * b * d2 + ggb * d1), grad * gga * d1), dim)
    return ggrad, gx


def grouped_matmul_double_backward(grads, grad, x, weight, group_list):
    """Gradients of _grouped_matmul_backward (dx_g = grad_g w_g^T, dw_g = x_g^T grad_g) for grad, x and
    weight, given the gradients of its two outputs."""
    gdx, gdw = _zeros_if_none(grads[0], x), _zeros_if_none(grads[1], weight)
    ggrad = torch.ops._grouped_matmul(gdx, weight, group_list) + torch.ops._grouped_matmul(x, gdw, group_list)
    gx = torch.ops._grouped_matmul_backward(grad, x, gdw, group_list)[0]
    gw = torch.ops._grouped_matmul_backward(grad, gdx, weight, group_list)[1]
    return ggrad, gx, gw


@complex_aware
def solve_triangular_backward(grad, A, B, X, upper, left, unitriangular):
    """(gA, gB) of X = A^-1 B (left) or B A^-1: gB solves with A^H, gA = -gB X^H (X^H gB) kept to A's
    triangle (without the diagonal when it is taken as ones), both summed to their broadcast shapes."""
    gB = torch.ops.linalg_solve_triangular(A.mH, grad, upper=not upper, left=left, unitriangular=unitriangular)
    gA = -torch.matmul(gB, X.mH) if left else -torch.matmul(X.mH, gB)
    gA = (gA.triu(1 if unitriangular else 0)) if upper else gA.tril(-1 if unitriangular else 0)
    return sum_to(gA, A._shape), sum_to(gB, B._shape)


@complex_aware
def eig_backward(grads, A, L, V):
    """A V = V diag(L) with unit-norm columns of V: gA = V^-H (diag(gL) + (V^H gV - V^H V diag(Re(diag(V^H gV))))
    / conj(L_j - L_i)) V^H, real for a real A."""
    gL, gV = grads
    n = L.shape[-1]
    inner = torch.zeros_like(V)
    if gV is not None:
        VhgV = torch.matmul(V.mH, gV)
        scale = VhgV.diagonal(0, -2, -1).real.unsqueeze(-2)
        inner = VhgV - torch.matmul(V.mH, V * scale)
        E = L.conj().unsqueeze(-2) - L.conj().unsqueeze(-1)
        eye = torch.eye(n, dtype=torch.bool, device=L.device)
        inner = torch.where(eye, torch.zeros_like(inner), inner / torch.where(eye, torch.ones_like(E), E))
    if gL is not None:
        inner = inner + _diag_embed(gL)
    gA = torch.ops.linalg_solve(V.mH, torch.matmul(inner, V.mH))
    return gA if A.dtype.is_complex else gA.real
