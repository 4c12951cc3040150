"""mindtorch.special: torch.special's functions: compositions of existing ops, and the Bessel, Airy,
zeta and orthogonal-polynomial functions of the op table (mindtorch.ops.special_*)."""

import math

import mindtorch as _t

from .ops.special import POLYNOMIALS as _POLYNOMIALS, UNARY as _TABLE_UNARY

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
    "i0",
    "zeta",
]
# the op table's special_* functions, under their torch.special names
__all__ += [n[len("special_") :] for n in _TABLE_UNARY] + list(_POLYNOMIALS)

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
    """sin(pi x) / (pi x), 1 at 0; complex stays complex."""
    x = input if isinstance(input, _t.Tensor) and input.is_complex() else _float(input)
    if x.dtype in (_t.float16, _t.bfloat16):
        return sinc(x.float()).to(x.dtype)  # PyTorch computes half precision in float32 and rounds once
    zero = x == 0
    safe = _t.where(zero, _t.ones_like(x), x) * math.pi  # keeps the unused branch finite for autograd
    return _t.where(zero, _t.ones_like(x), safe.sin() / safe)


def _xlog(fn, input, other):
    # both operands in their common dtype first (a number given with a half tensor rounds to half), and
    # fn(y) in that dtype, as PyTorch's kernel computes it
    d = _t.result_type(input, other)
    x = input if isinstance(input, _t.Tensor) else _t.tensor(input)
    y = other if isinstance(other, _t.Tensor) else _t.tensor(other)
    x, y = _float(x.to(d)), _float(y.to(d))
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


# --- functions of the op table: one input ------------------------------------------------------------
def _unary(name):
    op = getattr(_t.ops, "special_" + name)

    def fn(input, *, out=None):
        return op(input) if out is None else op(input, out=out)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = op.__doc__
    return fn


airy_ai = _unary("airy_ai")
bessel_j0 = _unary("bessel_j0")
bessel_j1 = _unary("bessel_j1")
bessel_y0 = _unary("bessel_y0")
bessel_y1 = _unary("bessel_y1")
modified_bessel_i0 = _unary("modified_bessel_i0")
modified_bessel_i1 = _unary("modified_bessel_i1")
modified_bessel_k0 = _unary("modified_bessel_k0")
modified_bessel_k1 = _unary("modified_bessel_k1")
scaled_modified_bessel_k0 = _unary("scaled_modified_bessel_k0")
scaled_modified_bessel_k1 = _unary("scaled_modified_bessel_k1")
spherical_bessel_j0 = _unary("spherical_bessel_j0")
erfcx = _unary("erfcx")
i0e = _unary("i0e")
i1 = _unary("i1")
i1e = _unary("i1e")


def i0(input, *, out=None):
    return _t.i0(input) if out is None else _t.i0(input, out=out)


# --- two inputs, either of which may be a Python number ----------------------------------------------
def _binary(name):
    op = getattr(_t.ops, "special_" + name)

    def fn(x, n, *, out=None):
        if not isinstance(x, _t.Tensor):
            if not isinstance(n, _t.Tensor):
                raise TypeError(f"{name}() expects at least one tensor argument")
            # a number first becomes a 0-dim tensor of the dtype it promotes to with the tensor
            x = _t.tensor(x, dtype=_t.result_type(x, n), device=n.device)
        return op(x, n) if out is None else op(x, n, out=out)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = op.__doc__
    return fn


zeta = _binary("zeta")
chebyshev_polynomial_t = _binary("chebyshev_polynomial_t")
chebyshev_polynomial_u = _binary("chebyshev_polynomial_u")
chebyshev_polynomial_v = _binary("chebyshev_polynomial_v")
chebyshev_polynomial_w = _binary("chebyshev_polynomial_w")
shifted_chebyshev_polynomial_t = _binary("shifted_chebyshev_polynomial_t")
shifted_chebyshev_polynomial_u = _binary("shifted_chebyshev_polynomial_u")
shifted_chebyshev_polynomial_v = _binary("shifted_chebyshev_polynomial_v")
shifted_chebyshev_polynomial_w = _binary("shifted_chebyshev_polynomial_w")
hermite_polynomial_h = _binary("hermite_polynomial_h")
hermite_polynomial_he = _binary("hermite_polynomial_he")
laguerre_polynomial_l = _binary("laguerre_polynomial_l")
legendre_polynomial_p = _binary("legendre_polynomial_p")
