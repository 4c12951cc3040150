"""torch.special's Bessel, Airy and scaled-error functions, the Hurwitz zeta function and the classical
orthogonal polynomials: elementwise ops with a kernel per backend. Like PyTorch's, only the
exponentially-scaled and plain i0/i1, erfcx and zeta (in q) have derivatives; the others give results
that do not require grad."""

from .. import _dtype as D
from . import meta as M
from .registry import defop

F = "special"


_not_impl = M.not_implemented


def _real_unary(kname, half=False):
    """Integers compute in the default float dtype; complex (and, unless `half`, float16/bfloat16) are refused
    as PyTorch's cpu kernels refuse them."""

    def rule(self, *rest):
        d = self.dtype
        if d.is_complex or (not half and d in (D.float16, D.bfloat16)):
            raise _not_impl(kname, d)
        return M.unary_float(self)

    return rule


def _real_binary(kname):
    def rule(x, n, *rest):
        m = M.binary_float(x, n)
        if m.dtype.is_complex or m.dtype in (D.float16, D.bfloat16):
            raise _not_impl(kname, m.dtype)
        return m

    return rule


# name, PyTorch's cpu kernel name (its dtype errors quote it), float16/bfloat16 accepted, derivative
_UNARY = [
    ("special_airy_ai", "airy_ai_cpu", False, None),
    ("special_bessel_j0", "bessel_j0_cpu", False, None),
    ("special_bessel_j1", "bessel_j1_cpu", False, None),
    ("special_bessel_y0", "bessel_y0_cpu", False, None),
    ("special_bessel_y1", "bessel_y1_cpu", False, None),
    ("special_modified_bessel_i0", "modified_bessel_i0_cpu", False, None),
    ("special_modified_bessel_i1", "modified_bessel_i1_cpu", False, None),
    ("special_modified_bessel_k0", "modified_bessel_k0_cpu", False, None),
    ("special_modified_bessel_k1", "modified_bessel_k1_cpu", False, None),
    ("special_scaled_modified_bessel_k0", "scaled_modified_bessel_k0_cpu", False, None),
    ("special_scaled_modified_bessel_k1", "scaled_modified_bessel_k1_cpu", False, None),
    ("special_spherical_bessel_j0", "spherical_bessel_j0_cpu", False, None),
    ("special_erfcx", "erfcx_cpu", False, "grad * (2 * self * result - 2 / math.sqrt(math.pi))"),
    ("special_i0e", "i0e_cpu", True, "grad * (torch.ops.special_i1e(self) - torch.sgn(self) * result)"),
    ("special_i1", "i1_cpu", True, "grad * bessel_i1_slope(self, torch.ops.i0(self), result)"),
    ("special_i1e", "i1e_cpu", True, "grad * bessel_i1e_slope(self, torch.ops.special_i0e(self), result)"),
]
UNARY = tuple(n for n, *_ in _UNARY)
for _n, _k, _half, _g in _UNARY:
    defop(
        f"{_n}(Tensor self) -> Tensor",
        meta=_real_unary(_k, _half),
        out=True,
        method=False,
        function=False,
        family=F,
        grad=None if _g is None else {"self": _g},
    )

defop(
    "i0(Tensor self) -> Tensor",
    meta=_real_unary("i0_vml_cpu", True),
    inplace=True,
    out=True,
    family=F,
    grad={"self": "grad * torch.ops.special_i1(self)"},
)

POLYNOMIALS = (
    "chebyshev_polynomial_t",
    "chebyshev_polynomial_u",
    "chebyshev_polynomial_v",
    "chebyshev_polynomial_w",
    "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u",
    "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w",
    "hermite_polynomial_h",
    "hermite_polynomial_he",
    "laguerre_polynomial_l",
    "legendre_polynomial_p",
)
for _n in POLYNOMIALS:
    defop(
        f"special_{_n}(Tensor x, Tensor n) -> Tensor",
        meta=_real_binary(f"{_n}_cpu"),
        out=True,
        method=False,
        function=False,
        numbers_as_tensors=True,
        family=F,
    )

defop(
    "special_zeta(Tensor self, Tensor other) -> Tensor",
    meta=_real_binary("zeta_cpu"),
    out=True,
    method=False,
    function=False,
    numbers_as_tensors=True,
    family=F,
    grad={"self": "not_implemented('zeta')", "other": "grad * -self * torch.ops.special_zeta(self + 1.0, other)"},
)
