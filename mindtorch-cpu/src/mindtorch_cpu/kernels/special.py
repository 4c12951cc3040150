"""torch.special's kernels: Bessel, Airy and scaled-error functions and the Hurwitz zeta function from
scipy.special, the orthogonal polynomials by their three-term recurrences in NumPy. All compute in float64
and round once to the result dtype."""

import numpy as np

from ..convert import TO_NP, arr, quiet, wrap
from . import kernel_table

KERNELS, kernel = kernel_table()


def _f64(x):
    return (arr(x) if hasattr(x, "_shape") else np.asarray(x)).astype(np.float64)


def _result(r, m):
    return wrap(np.asarray(r).astype(TO_NP[m.dtype]), m.dtype)


def _scipy(name):
    import scipy.special

    return getattr(scipy.special, name)


def _airy_ai(x):
    return _scipy("airy")(x)[0]


def _spherical_j0(x):
    return _scipy("spherical_jn")(0, x)


_UNARY = {
    "special_airy_ai": _airy_ai,
    "special_bessel_j0": lambda x: _scipy("j0")(x),
    "special_bessel_j1": lambda x: _scipy("j1")(x),
    "special_bessel_y0": lambda x: _scipy("y0")(x),
    "special_bessel_y1": lambda x: _scipy("y1")(x),
    "special_modified_bessel_i0": lambda x: _scipy("i0")(x),
    "special_modified_bessel_i1": lambda x: _scipy("i1")(x),
    "special_modified_bessel_k0": lambda x: _scipy("k0")(x),
    "special_modified_bessel_k1": lambda x: _scipy("k1")(x),
    "special_scaled_modified_bessel_k0": lambda x: _scipy("k0e")(x),
    "special_scaled_modified_bessel_k1": lambda x: _scipy("k1e")(x),
    "special_spherical_bessel_j0": _spherical_j0,
    "special_erfcx": lambda x: _scipy("erfcx")(x),
    "special_i0e": lambda x: _scipy("i0e")(x),
    "special_i1": lambda x: _scipy("i1")(x),
    "special_i1e": lambda x: _scipy("i1e")(x),
    "i0": lambda x: _scipy("i0")(x),
}


def _unary(fn):
    def k(m, a, *rest):
        with quiet():
            return _result(fn(_f64(a)), m)

    return k


for _n, _f in _UNARY.items():
    KERNELS[_n] = _unary(_f)


@kernel("i0_")
def i0_(m, a):
    np.copyto(arr(a), arr(KERNELS["i0"](m, a)), casting="unsafe")
    return a


@kernel("special_zeta")
def zeta(m, x, q):
    x, q = np.broadcast_arrays(_f64(x), _f64(q))
    with quiet():
        r = np.asarray(_scipy("zeta")(x, q))
    # the series has no terms left at q = +inf: PyTorch answers NaN there, not scipy's 0
    return _result(np.where(np.isposinf(q) & (r == 0), np.nan, r), m)


# --- orthogonal polynomials: (p0(x), p1(x), the step p_{k+1} from (k, x, p_k, p_{k-1})) -----------------
def _cheb_step(k, x, p, q):
    return 2 * x * p - q


_POLY = {
    "chebyshev_polynomial_t": (lambda x: x, _cheb_step),
    "chebyshev_polynomial_u": (lambda x: 2 * x, _cheb_step),
    "chebyshev_polynomial_v": (lambda x: 2 * x - 1, _cheb_step),
    "chebyshev_polynomial_w": (lambda x: 2 * x + 1, _cheb_step),
    "hermite_polynomial_h": (lambda x: 2 * x, lambda k, x, p, q: 2 * x * p - 2 * k * q),
    "hermite_polynomial_he": (lambda x: x, lambda k, x, p, q: x * p - k * q),
    "laguerre_polynomial_l": (lambda x: 1 - x, lambda k, x, p, q: ((2 * k + 1 - x) * p - k * q) / (k + 1)),
    "legendre_polynomial_p": (lambda x: x, lambda k, x, p, q: ((2 * k + 1) * x * p - k * q) / (k + 1)),
}


def _polynomial(first, step, x, n):
    """p_n(x) elementwise; n is truncated to an integer and a negative degree gives 0."""
    x, n = np.broadcast_arrays(x, n)
    deg = np.where(np.isfinite(n), np.trunc(n), -1).astype(np.int64)
    out = np.where(deg == 0, 1.0, np.where(deg == 1, first(x), 0.0))
    top = int(deg.max(initial=0))
    if top >= 2:
        q, p = np.ones_like(x), first(x)
        for k in range(1, top):
            q, p = p, step(k, x, p, q)
            hit = deg == k + 1
            out[hit] = p[hit]
    return out


def _poly_kernel(first, step, shifted):
    def k(m, x, n):
        xv = _f64(x)
        with quiet():
            return _result(_polynomial(first, step, 2 * xv - 1 if shifted else xv, _f64(n)), m)

    return k


for _n, (_first, _step) in _POLY.items():
    KERNELS["special_" + _n] = _poly_kernel(_first, _step, False)
    if _n.startswith("chebyshev"):
        KERNELS["special_shifted_" + _n] = _poly_kernel(_first, _step, True)
