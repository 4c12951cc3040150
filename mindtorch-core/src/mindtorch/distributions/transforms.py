"""Invertible transforms between constrained spaces (torch.distributions.transforms)."""

import math

import mindtorch
from mindtorch.nn import functional as F

from . import constraints
from .utils import _sum_rightmost

__all__ = [
    "AbsTransform",
    "AffineTransform",
    "CatTransform",
    "ComposeTransform",
    "CorrCholeskyTransform",
    "CumulativeDistributionTransform",
    "ExpTransform",
    "IndependentTransform",
    "LowerCholeskyTransform",
    "PositiveDefiniteTransform",
    "PowerTransform",
    "ReshapeTransform",
    "SigmoidTransform",
    "SoftplusTransform",
    "TanhTransform",
    "SoftmaxTransform",
    "StackTransform",
    "StickBreakingTransform",
    "Transform",
    "identity_transform",
]


class Transform:
    """y = T(x) with inverse, log|dy/dx| and the spaces it maps between. cache_size=1 remembers the last
    (x, y) pair so that inverting a sample returns the exact x."""

    bijective = False
    domain = constraints.real
    codomain = constraints.real
    sign = 1

    def __init__(self, cache_size=0):
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size
        self._cached = (None, None)

    @property
    def event_dim(self):
        return max(self.domain.event_dim, self.codomain.event_dim) if hasattr(self.domain, "event_dim") else 0

    @property
    def inv(self):
        return _InverseTransform(self)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        raise NotImplementedError(f"{type(self).__name__}.with_cache is not implemented")

    def __call__(self, x):
        if self._cache_size:
            cx, cy = self._cached
            if x is cx:
                return cy
            y = self._call(x)
            self._cached = (x, y)
            return y
        return self._call(x)

    def _inv_call(self, y):
        if self._cache_size:
            cx, cy = self._cached
            if y is cy:
                return cx
            x = self._inverse(y)
            self._cached = (x, y)
            return x
        return self._inverse(y)

    def _call(self, x):
        raise NotImplementedError

    def _inverse(self, y):
        raise NotImplementedError

    def log_abs_det_jacobian(self, x, y):
        raise NotImplementedError

    def forward_shape(self, shape):
        return shape

    def inverse_shape(self, shape):
        return shape

    def __eq__(self, other):
        return self is other

    def __hash__(self):
        return id(self)

    def __repr__(self):
        return type(self).__name__ + "()"


class _InverseTransform(Transform):
    def __init__(self, transform):
        super().__init__(transform._cache_size)
        self._inv = transform

    domain = property(lambda self: self._inv.codomain)
    codomain = property(lambda self: self._inv.domain)
    bijective = property(lambda self: self._inv.bijective)
    sign = property(lambda self: self._inv.sign)
    event_dim = property(lambda self: self._inv.event_dim)

    @property
    def inv(self):
        return self._inv

    def __call__(self, x):
        return self._inv._inv_call(x)

    def log_abs_det_jacobian(self, x, y):
        return -self._inv.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape):
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape):
        return self._inv.forward_shape(shape)


class ComposeTransform(Transform):
    """Apply parts in order; the log-determinants add (summed over the event dims each part adds)."""

    def __init__(self, parts, cache_size=0):
        super().__init__(cache_size)
        self.parts = list(parts)

    @property
    def domain(self):
        return self.parts[0].domain if self.parts else constraints.real

    @property
    def codomain(self):
        return self.parts[-1].codomain if self.parts else constraints.real

    @property
    def bijective(self):
        return all(p.bijective for p in self.parts)

    @property
    def sign(self):
        s = 1
        for p in self.parts:
            s = s * p.sign
        return s

    @property
    def event_dim(self):
        return max((p.event_dim for p in self.parts), default=0)

    @property
    def inv(self):
        return ComposeTransform([p.inv for p in reversed(self.parts)])

    def _call(self, x):
        for p in self.parts:
            x = p(x)
        return x

    def _inverse(self, y):
        for p in reversed(self.parts):
            y = p.inv(y)
        return y

    def log_abs_det_jacobian(self, x, y):
        if not self.parts:
            return mindtorch.zeros_like(x)
        total, event_dim = 0, self.event_dim
        for p in self.parts:
            y_p = p(x)
            term = p.log_abs_det_jacobian(x, y_p)
            total = total + _sum_rightmost(term, event_dim - p.event_dim)
            x = y_p
        return total

    def forward_shape(self, shape):
        for p in self.parts:
            shape = p.forward_shape(shape)
        return shape

    def inverse_shape(self, shape):
        for p in reversed(self.parts):
            shape = p.inverse_shape(shape)
        return shape

    def __repr__(self):
        return "ComposeTransform(\n    " + ",\n    ".join(repr(p) for p in self.parts) + "\n)"


identity_transform = ComposeTransform([])


class ExpTransform(Transform):
    domain, codomain, bijective, sign = constraints.real, constraints.positive, True, 1

    def _call(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def log_abs_det_jacobian(self, x, y):
        return x


class PowerTransform(Transform):
    domain, codomain, bijective = constraints.positive, constraints.positive, True

    def __init__(self, exponent, cache_size=0):
        super().__init__(cache_size)
        self.exponent = exponent if isinstance(exponent, mindtorch.Tensor) else mindtorch.tensor(float(exponent))

    @property
    def sign(self):
        return self.exponent.sign()

    def _call(self, x):
        return x.pow(self.exponent)

    def _inverse(self, y):
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x, y):
        return (self.exponent * y / x).abs().log()


class SigmoidTransform(Transform):
    domain, codomain, bijective, sign = constraints.real, constraints.unit_interval, True, 1

    def _call(self, x):
        tiny = mindtorch.finfo(x.dtype).tiny
        return mindtorch.clamp(mindtorch.sigmoid(x), min=tiny, max=1 - mindtorch.finfo(x.dtype).eps)

    def _inverse(self, y):
        tiny = mindtorch.finfo(y.dtype).tiny
        y = y.clamp(min=tiny, max=1 - mindtorch.finfo(y.dtype).eps)
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x, y):
        return -F.softplus(-x) - F.softplus(x)


class SoftplusTransform(Transform):
    domain, codomain, bijective, sign = constraints.real, constraints.positive, True, 1

    def _call(self, x):
        return F.softplus(x)

    def _inverse(self, y):
        return (-y).expm1().neg().log() + y

    def log_abs_det_jacobian(self, x, y):
        return -F.softplus(-x)


class TanhTransform(Transform):
    domain, codomain, bijective, sign = constraints.real, constraints.interval(-1.0, 1.0), True, 1

    def _call(self, x):
        return x.tanh()

    def _inverse(self, y):
        return mindtorch.atanh(y)

    def log_abs_det_jacobian(self, x, y):
        # log(1 - tanh(x)^2), written without cancellation for large |x|
        return 2.0 * (math.log(2.0) - x - F.softplus(-2.0 * x))


class AbsTransform(Transform):
    domain, codomain = constraints.real, constraints.positive

    def _call(self, x):
        return x.abs()

    def _inverse(self, y):
        return y


class AffineTransform(Transform):
    """y = loc + scale * x (event_dim > 0: the log-determinant sums over that many rightmost dims)."""

    bijective = True

    def __init__(self, loc, scale, event_dim=0, cache_size=0):
        super().__init__(cache_size)
        self.loc, self.scale, self._event_dim = loc, scale, event_dim

    @property
    def event_dim(self):
        return self._event_dim

    @property
    def domain(self):
        return constraints.real if self._event_dim == 0 else constraints.independent(constraints.real, self._event_dim)

    codomain = domain

    @property
    def sign(self):
        return self.scale.sign() if isinstance(self.scale, mindtorch.Tensor) else (1 if self.scale > 0 else -1)

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        scale = self.scale
        if isinstance(scale, (int, float)):
            result = mindtorch.full_like(x, math.log(abs(scale)))
        else:
            result = scale.abs().log().expand(tuple(mindtorch.broadcast_shapes(scale.shape, x.shape)))
        return _sum_rightmost(result, self._event_dim)


class SoftmaxTransform(Transform):
    """Real vectors onto the simplex by softmax (not a bijection: no log-determinant)."""

    domain, codomain = constraints.real_vector, constraints.simplex

    def _call(self, x):
        logprobs = x - x.max(-1, keepdim=True).values
        probs = logprobs.exp()
        return probs / probs.sum(-1, keepdim=True)

    def _inverse(self, y):
        return y.log()


class StickBreakingTransform(Transform):
    """Vectors of K-1 reals onto the K-simplex by breaking a stick (a bijection)."""

    domain, codomain, bijective = constraints.real_vector, constraints.simplex, True

    def _call(self, x):
        offset = x.shape[-1] + 1 - mindtorch.ones(x.shape[-1], dtype=x.dtype, device=x.device).cumsum(-1)
        z = mindtorch.sigmoid(x - offset.log())
        z_cumprod = (1 - z).cumprod(-1)
        return F.pad(z, [0, 1], value=1) * F.pad(z_cumprod, [1, 0], value=1)

    def _inverse(self, y):
        y_crop = y[..., :-1]
        offset = y.shape[-1] - mindtorch.ones(y_crop.shape[-1], dtype=y.dtype, device=y.device).cumsum(-1)
        sf = (1 - y_crop.cumsum(-1)).clamp(min=mindtorch.finfo(y.dtype).tiny)
        return y_crop.log() - sf.log() + offset.log()

    def log_abs_det_jacobian(self, x, y):
        offset = x.shape[-1] + 1 - mindtorch.ones(x.shape[-1], dtype=x.dtype, device=x.device).cumsum(-1)
        x = x - offset.log()
        return (-x + F.logsigmoid(x) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape):
        return tuple(shape[:-1]) + (shape[-1] + 1,)

    def inverse_shape(self, shape):
        return tuple(shape[:-1]) + (shape[-1] - 1,)


class IndependentTransform(Transform):
    """base_transform with reinterpreted_batch_ndims more dims counted as event (its log-det summed)."""

    def __init__(self, base_transform, reinterpreted_batch_ndims, cache_size=0):
        super().__init__(cache_size)
        self.base_transform, self.reinterpreted_batch_ndims = base_transform, reinterpreted_batch_ndims

    domain = property(lambda self: constraints.independent(self.base_transform.domain, self.reinterpreted_batch_ndims))
    codomain = property(
        lambda self: constraints.independent(self.base_transform.codomain, self.reinterpreted_batch_ndims)
    )
    bijective = property(lambda self: self.base_transform.bijective)
    sign = property(lambda self: self.base_transform.sign)

    @property
    def event_dim(self):
        return self.base_transform.event_dim + self.reinterpreted_batch_ndims

    def _call(self, x):
        return self.base_transform(x)

    def _inverse(self, y):
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x, y):
        return _sum_rightmost(self.base_transform.log_abs_det_jacobian(x, y), self.reinterpreted_batch_ndims)


class ReshapeTransform(Transform):
    bijective = True

    def __init__(self, in_shape, out_shape, cache_size=0):
        super().__init__(cache_size)
        self.in_shape, self.out_shape = mindtorch.Size(in_shape), mindtorch.Size(out_shape)
        if self.in_shape.numel() != self.out_shape.numel():
            raise ValueError("in_shape, out_shape have different numbers of elements")

    domain = property(lambda self: constraints.independent(constraints.real, len(self.in_shape)))
    codomain = property(lambda self: constraints.independent(constraints.real, len(self.out_shape)))

    @property
    def event_dim(self):
        return max(len(self.in_shape), len(self.out_shape))

    def _call(self, x):
        return x.reshape(tuple(x.shape[: x.dim() - len(self.in_shape)]) + tuple(self.out_shape))

    def _inverse(self, y):
        return y.reshape(tuple(y.shape[: y.dim() - len(self.out_shape)]) + tuple(self.in_shape))

    def log_abs_det_jacobian(self, x, y):
        return x.new_zeros(tuple(x.shape[: x.dim() - len(self.in_shape)]))

    def forward_shape(self, shape):
        return tuple(shape[: len(shape) - len(self.in_shape)]) + tuple(self.out_shape)

    def inverse_shape(self, shape):
        return tuple(shape[: len(shape) - len(self.out_shape)]) + tuple(self.in_shape)


# --- matrix-valued transforms ----------------------------------------------------------------------
def _tril_mask(n, diag, device):
    return mindtorch.ones(n, n, dtype=mindtorch.bool, device=device).tril(diag)


def _vec_to_tril(vec, diag):
    """A vector of the entries on and below the diag-th diagonal, row by row, as that matrix."""
    k = vec.shape[-1]
    n = round((math.sqrt(1 + 8 * k) - 1) / 2) - diag  # (n + diag)(n + diag + 1) / 2 entries, diag <= 0
    mask = _tril_mask(n, diag, vec.device)
    mat = vec.new_zeros(tuple(vec.shape[:-1]) + (n * n,))
    idx = mask.reshape(-1).nonzero().reshape(-1)
    mat = mat.index_copy(-1, idx, vec) if vec.dim() == 1 else mat.index_copy(vec.dim() - 1, idx, vec)
    return mat.reshape(tuple(vec.shape[:-1]) + (n, n))


def _tril_to_vec(mat, diag):
    n = mat.shape[-1]
    idx = _tril_mask(n, diag, mat.device).reshape(-1).nonzero().reshape(-1)
    return mat.reshape(tuple(mat.shape[:-2]) + (n * n,)).index_select(mat.dim() - 2, idx)


class LowerCholeskyTransform(Transform):
    """A square matrix to a lower-triangular one with a positive diagonal: the strict lower triangle kept,
    the diagonal exponentiated."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def __eq__(self, other):
        return isinstance(other, LowerCholeskyTransform)

    __hash__ = Transform.__hash__

    def _call(self, x):
        return x.tril(-1) + x.diagonal(dim1=-2, dim2=-1).exp().diag_embed()

    def _inverse(self, y):
        return y.tril(-1) + y.diagonal(dim1=-2, dim2=-1).log().diag_embed()


class PositiveDefiniteTransform(Transform):
    """A square matrix to the positive-definite L L^H of its LowerCholeskyTransform."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def __eq__(self, other):
        return isinstance(other, PositiveDefiniteTransform)

    __hash__ = Transform.__hash__

    def _call(self, x):
        L = LowerCholeskyTransform()(x)
        return L @ L.mT

    def _inverse(self, y):
        return LowerCholeskyTransform().inv(mindtorch.linalg.cholesky(y))


class CorrCholeskyTransform(Transform):
    """A vector of D(D-1)/2 reals to the Cholesky factor of a D x D correlation matrix: tanh gives partial
    correlations in (-1, 1), filled row by row below the diagonal, and each row is stick-broken so it
    has unit norm."""

    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def __eq__(self, other):
        return isinstance(other, CorrCholeskyTransform)

    __hash__ = Transform.__hash__

    def _call(self, x):
        eps = mindtorch.finfo(x.dtype).eps
        r = _vec_to_tril(x.tanh().clamp(-1 + eps, 1 - eps), -1)
        # each entry times the length the earlier ones in its row left: prod_{k<j} sqrt(1 - r_ik^2)
        left = (1 - r * r).sqrt().cumprod(-1)
        left = F.pad(left[..., :-1], [1, 0], value=1.0)
        eye = mindtorch.eye(r.shape[-1], dtype=r.dtype, device=r.device)
        return (r + eye) * left

    def _inverse(self, y):
        remaining = F.pad((1 - (y * y).cumsum(-1))[..., :-1], [1, 0], value=1.0)
        t = _tril_to_vec(y, -1) / _tril_to_vec(remaining, -1).sqrt()
        return 0.5 * (t.log1p() - (-t).log1p())

    def log_abs_det_jacobian(self, x, y, intermediates=None):
        sticks = 0.5 * _tril_to_vec(1 - (y * y).cumsum(-1), -2).log().sum(-1)
        tanh = -2 * (x + F.softplus(-2 * x) - math.log(2.0)).sum(-1)
        return sticks + tanh

    def forward_shape(self, shape):
        k = shape[-1]
        n = round((1 + math.sqrt(1 + 8 * k)) / 2)
        if n * (n - 1) // 2 != k:
            raise ValueError("Input is not a flattend lower-diagonal number")
        return tuple(shape[:-1]) + (n, n)

    def inverse_shape(self, shape):
        if len(shape) < 2 or shape[-1] != shape[-2]:
            raise ValueError("Input is not square")
        n = shape[-1]
        return tuple(shape[:-2]) + (n * (n - 1) // 2,)


# --- transforms of slices and of distributions -------------------------------------------------------
class CatTransform(Transform):
    """tseq[i] applied to the i-th block of `lengths[i]` entries along dim, the results concatenated."""

    def __init__(self, tseq, dim=0, lengths=None, cache_size=0):
        super().__init__(cache_size)
        self.transforms = list(tseq)
        self.lengths = list(lengths) if lengths is not None else [1] * len(self.transforms)
        if len(self.lengths) != len(self.transforms):
            raise AssertionError
        self.dim = dim

    @property
    def event_dim(self):
        return max(t.event_dim for t in self.transforms)

    @property
    def length(self):
        return sum(self.lengths)

    bijective = property(lambda self: all(t.bijective for t in self.transforms))
    domain = property(lambda self: constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths))
    codomain = property(lambda self: constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths))

    def _blocks(self, fn, x):
        if not (-x.dim() <= self.dim < x.dim()) or x.shape[self.dim] != self.length:
            raise AssertionError
        out, start = [], 0
        for t, n in zip(self.transforms, self.lengths):
            out.append(fn(t, x.narrow(self.dim, start, n)))
            start += n
        return mindtorch.cat(out, self.dim)

    def _call(self, x):
        return self._blocks(lambda t, v: t(v), x)

    def _inverse(self, y):
        return self._blocks(lambda t, v: t.inv(v), y)

    def log_abs_det_jacobian(self, x, y):
        if not (-x.dim() <= self.dim < x.dim()) or x.shape[self.dim] != self.length:
            raise AssertionError
        parts, start = [], 0
        for t, n in zip(self.transforms, self.lengths):
            xs, ys = x.narrow(self.dim, start, n), y.narrow(self.dim, start, n)
            ldj = t.log_abs_det_jacobian(xs, ys)
            if t.event_dim < self.event_dim:
                ldj = _sum_rightmost(ldj, self.event_dim - t.event_dim)
            parts.append(ldj)
            start += n
        cat_dim = self.dim % x.dim() - x.dim() + self.event_dim  # negative: dim is a batch dim of the result
        return mindtorch.cat(parts, cat_dim) if cat_dim < 0 else sum(parts)


class StackTransform(Transform):
    """tseq[i] applied to the i-th slice along dim, the results stacked."""

    def __init__(self, tseq, dim=0, cache_size=0):
        super().__init__(cache_size)
        self.transforms = list(tseq)
        self.dim = dim

    bijective = property(lambda self: all(t.bijective for t in self.transforms))
    domain = property(lambda self: constraints.stack([t.domain for t in self.transforms], self.dim))
    codomain = property(lambda self: constraints.stack([t.codomain for t in self.transforms], self.dim))

    def _slices(self, fn, x):
        if not (-x.dim() <= self.dim < x.dim()) or x.shape[self.dim] != len(self.transforms):
            raise AssertionError
        return mindtorch.stack([fn(t, v) for t, v in zip(self.transforms, x.unbind(self.dim))], self.dim)

    def _call(self, x):
        return self._slices(lambda t, v: t(v), x)

    def _inverse(self, y):
        return self._slices(lambda t, v: t.inv(v), y)

    def log_abs_det_jacobian(self, x, y):
        if not (-x.dim() <= self.dim < x.dim()) or x.shape[self.dim] != len(self.transforms):
            raise AssertionError
        parts = [
            t.log_abs_det_jacobian(a, b) for t, a, b in zip(self.transforms, x.unbind(self.dim), y.unbind(self.dim))
        ]
        return mindtorch.stack(parts, self.dim)


class CumulativeDistributionTransform(Transform):
    """x to distribution.cdf(x): the probability integral transform, onto the unit interval."""

    bijective = True
    codomain = constraints.unit_interval
    sign = 1

    def __init__(self, distribution, cache_size=0):
        super().__init__(cache_size)
        self.distribution = distribution

    @property
    def domain(self):
        return self.distribution.support

    def _call(self, x):
        return self.distribution.cdf(x)

    def _inverse(self, y):
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x, y):
        return self.distribution.log_prob(x)
