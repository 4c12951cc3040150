"""mindtorch.special: torch.special's functions that are compositions of existing ops.

The Bessel, gamma-family and orthogonal-polynomial functions need kernels of their own and are not here
yet (hasattr answers False for them).
"""

import math

import mindtorch as _t

__all__ = [
    "erf",
    "erfc",
    "erfinv",
    "exp2",
    "expit",
    "expm1",
    "log1p",
    "log_softmax",
    "logit",
    "logsumexp",
    "round",
    "softmax",
    "entr",
    "ndtr",
    "ndtri",
    "log_ndtr",
    "sinc",
    "xlogy",
    "xlog1py",
    "gammaln",
    "digamma",
    "psi",
    "polygamma",
    "multigammaln",
    "gammainc",
    "gammaincc",
]

erf, erfc, erfinv, exp2, expm1, log1p, logit, logsumexp, round = (
    _t.erf,
    _t.erfc,
    _t.erfinv,
    _t.exp2,
    _t.expm1,
    _t.log1p,
    _t.logit,
    _t.logsumexp,
    _t.round,
)
expit = _t.sigmoid


def gammainc(input, other, *, out=None):
    """Regularized lower incomplete gamma function."""
    return _t.igamma(input, other, out=out) if out is not None else _t.igamma(input, other)


def gammaincc(input, other, *, out=None):
    """Regularized upper incomplete gamma function."""
    return _t.igammac(input, other, out=out) if out is not None else _t.igammac(input, other)


def softmax(input, dim, *, dtype=None):
    return _t.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim, *, dtype=None):
    return _t.log_softmax(input, dim, dtype=dtype)


def _float(x):
    x = x if isinstance(x, _t.Tensor) else _t.tensor(x)
    return x if x.is_floating_point() else x.to(_t.get_default_dtype())


def entr(input):
    """-x log x elementwise: 0 at 0, -inf below 0, NaN stays NaN."""
    x = _float(input)
    safe = _t.where(x > 0, x, _t.ones_like(x))
    out = _t.where(x > 0, -safe * safe.log(), _t.zeros_like(x))
    out = _t.where(x < 0, _t.full_like(x, -math.inf), out)
    return _t.where(x.isnan(), x, out)


def ndtr(input):
    """The standard normal CDF."""
    x = _float(input)
    return 0.5 * _t.erfc(-x * (0.5**0.5))


def log_ndtr(input):
    return ndtr(input).log()


def ndtri(input):
    """The inverse of ndtr."""
    p = _float(input)
    return (2.0**0.5) * _t.erfinv(2 * p - 1)


def sinc(input):
    """sin(pi x) / (pi x), 1 at 0."""
    x = _float(input)
    zero = x == 0
    safe = _t.where(zero, _t.ones_like(x), x) * math.pi  # keeps the unused branch finite for autograd
    return _t.where(zero, _t.ones_like(x), safe.sin() / safe)


def _xlog(fn, input, other):
    x = input if isinstance(input, _t.Tensor) else _t.tensor(input)
    y = other if isinstance(other, _t.Tensor) else _t.tensor(other)
    x, y = _float(x), _float(y)
    zero = (x == 0) & ~y.isnan()
    safe_y = _t.where(zero, _t.ones_like(y), y)
    return _t.where(zero, _t.zeros_like(x * y), x * fn(safe_y))


def xlogy(input, other):
    """x * log(y), 0 where x is 0 (unless y is NaN)."""
    return _xlog(_t.log, input, other)


def xlog1py(input, other):
    """x * log1p(y), 0 where x is 0 (unless y is NaN)."""
    return _xlog(_t.log1p, input, other)


gammaln, digamma, psi = _t.lgamma, _t.digamma, _t.digamma


def polygamma(n, input):
    return _t.polygamma(n, input)


def multigammaln(input, p):
    return _t.mvlgamma(input, p)
