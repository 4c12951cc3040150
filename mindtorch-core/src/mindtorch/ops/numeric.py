"""More pointwise math: PyTorch's spelled-out aliases (multiply, divide, ...), number-theory and
floating-point kernels (gcd, lcm, hypot, logaddexp, copysign, nextafter, frexp), and the compositions
programs reach for (deg2rad, heaviside, ldexp, hardshrink, ...)."""
import math

from .. import _dtype as D
from . import meta as M
from .meta import TensorMeta
from .formulas import torch
from .pointwise import _not_impl, _bits
from .reduction import named_result
from .registry import defop, copy_into_self

F = "pointwise"

# --- aliases: the same op under PyTorch's longer names ---------------------------------------------
defop("multiply(Tensor self, Tensor other) -> Tensor", composite=lambda s, o: torch.mul(s, o), out=True,
      numbers_as_tensors=True, inplace=True, inplace_composite=lambda s, o: s.mul_(o), family=F)
defop("divide(Tensor self, Tensor other, *, str? rounding_mode=None) -> Tensor",
      composite=lambda s, o, rounding_mode=None: torch.div(s, o, rounding_mode=rounding_mode), out=True,
      numbers_as_tensors=True, inplace=True,
      inplace_composite=lambda s, o, rounding_mode=None: s.div_(o, rounding_mode=rounding_mode), family=F)
defop("true_divide(Tensor self, Tensor other) -> Tensor", composite=lambda s, o: torch.div(s, o), out=True,
      numbers_as_tensors=True, inplace=True, inplace_composite=lambda s, o: s.div_(o), family=F)
defop("subtract(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
      composite=lambda s, o, alpha=1: torch.sub(s, o, alpha=alpha), out=True, numbers_as_tensors=True,
      inplace=True, inplace_composite=lambda s, o, alpha=1: s.sub_(o, alpha=alpha), family=F)
defop("rsub(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
      composite=lambda s, o, alpha=1: torch.sub(o, s, alpha=alpha), numbers_as_tensors=True, method=False, family=F)


# --- kernels ------------------------------------------------------------------------------------------
def _float_binary(kname):
    def rule(self, other, *rest):
        m = M.binary_float(self, other)
        if m.dtype.is_complex:
            raise _not_impl(kname, m.dtype)
        return m
    return rule


def _real_float_binary(kname):
    """Both operands real; integers compute in the default float dtype (PyTorch's float-only kernels)."""
    def rule(self, other, *rest):
        m = M.binary(self, other)
        if m.dtype.is_complex or m.dtype._kind < 2:
            raise _not_impl(kname, m.dtype)
        return m
    return rule


defop("gcd(Tensor self, Tensor other) -> Tensor", meta=_bits("gcd_cpu", allow_bool=False), inplace=True, out=True,
      family=F)
def _lcm(self, other):
    g = torch.gcd(self, other)
    return torch.where(g == 0, torch.zeros_like(g), torch.abs(self // torch.where(g == 0, 1, g) * other))


defop("lcm(Tensor self, Tensor other) -> Tensor", meta=_bits("lcm_cpu", allow_bool=False), inplace=True, out=True,
      composite=_lcm, inplace_composite=copy_into_self(_lcm), family=F)
def _hypot(self, other):
    """sqrt(a^2 + b^2) scaled by the larger magnitude (no overflow or underflow in the squares); an
    infinite operand gives inf even beside a NaN, as C's hypot."""
    dt = _real_float_binary("hypot_cpu")(self, other).dtype
    a, b = torch.abs(self).to(dt), torch.abs(other).to(dt)
    big, small = torch.maximum(a, b), torch.minimum(a, b)
    ratio = small / torch.where(big == 0, torch.ones_like(big), big)
    return torch.where(torch.isinf(a) | torch.isinf(b), torch.full_like(big, math.inf),
                       big * torch.sqrt(1 + ratio * ratio))


defop("hypot(Tensor self, Tensor other) -> Tensor", meta=_real_float_binary("hypot_cpu"), inplace=True, out=True,
      family=F, composite=_hypot, inplace_composite=copy_into_self(_hypot),
      grad={"self": "grad * self / result", "other": "grad * other / result"})
defop("logaddexp(Tensor self, Tensor other) -> Tensor", meta=M.binary_float, out=True, family=F,
      grad={"self": "grad * torch.exp(self - result)", "other": "grad * torch.exp(other - result)"})
defop("logaddexp2(Tensor self, Tensor other) -> Tensor", meta=_float_binary("logaddexp2_cpu"), out=True, family=F,
      grad={"self": "grad * torch.exp2(self - result)", "other": "grad * torch.exp2(other - result)"})
def _copysign(self, other):
    magnitude = torch.abs(self).to(_float_binary("copysign_cpu")(self, other).dtype)
    if not isinstance(other, torch.Tensor):  # a number: its sign, -0.0 included
        return -magnitude if math.copysign(1.0, other) < 0 else magnitude
    return torch.where(torch.signbit(other), -magnitude, magnitude)


defop("copysign(Tensor self, Tensor other) -> Tensor", meta=_float_binary("copysign_cpu"), inplace=True, out=True,
      numbers_as_tensors=True, family=F, composite=_copysign,
      inplace_composite=copy_into_self(_copysign),
      grad={"self": "copysign_self_grad(grad, self, result)", "other": "grad * 0"})
def _nextafter(self, other):
    """One step of the bit pattern toward `other` (away from zero when the magnitude grows); from zero, the
    smallest subnormal with other's sign."""
    dt = _real_float_binary("nextafter_cpu")(self, other).dtype
    a, b = (t.contiguous() for t in torch.broadcast_tensors(self.to(dt), other.to(dt)))
    ity = _LAYOUT[dt][0]
    away = (b > a) == (a > 0)
    stepped = (a.view(ity) + torch.where(away, 1, -1).to(ity)).view(dt)
    tiny = torch.ones((), dtype=ity, device=a.device).view(dt)
    out = torch.where(a == 0, torch.where(b > 0, tiny, -tiny), stepped)
    out = torch.where(a == b, b, out)
    return torch.where(torch.isnan(a) | torch.isnan(b), a + b, out)


defop("nextafter(Tensor self, Tensor other) -> Tensor", meta=_real_float_binary("nextafter_cpu"), inplace=True,
      out=True, family=F, composite=_nextafter,
      inplace_composite=copy_into_self(_nextafter))


defop("igamma(Tensor self, Tensor other) -> Tensor", meta=_real_float_binary("igamma_cpu"), inplace=True, out=True,
      family=F, grad={"self": "not_implemented('igamma: input')",
                      "other": "grad * torch.exp((self - 1) * torch.log(other) - other - torch.lgamma(self))"})
defop("igammac(Tensor self, Tensor other) -> Tensor", meta=_real_float_binary("igammac_cpu"), inplace=True,
      out=True, family=F, grad={"self": "not_implemented('igammac: input')",
                                "other": "-grad * torch.exp((self - 1) * torch.log(other) - other - torch.lgamma(self))"})


def _frexp_meta(self):
    if self.dtype._kind != 2:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    return TensorMeta(self._shape, self.dtype), TensorMeta(self._shape, D.int32)


# (integer type of the same width, mantissa bits, exponent bits) of each floating dtype: frexp and nextafter work
# on the bit patterns, as their C implementations do
_LAYOUT = {D.float16: (D.int16, 10, 5), D.bfloat16: (D.int16, 7, 8), D.float32: (D.int32, 23, 8),
           D.float64: (D.int64, 52, 11)}


def _frexp(self):
    """mantissa in [0.5, 1) and exponent from the bit pattern; subnormals are scaled into the normal range
    first; zero, inf and NaN keep their value with exponent 0. What a device without a kernel runs."""
    _frexp_meta(self)
    ity, mb, eb = _LAYOUT[self.dtype]
    bias = (1 << (eb - 1)) - 1
    finite = torch.isfinite(self) & (self != 0)
    sub = finite & (torch.abs(self) < 2.0 ** (1 - bias))
    bits = torch.where(sub, self * 2.0 ** mb, self).contiguous().view(ity)
    exponent = ((bits >> mb) & ((1 << eb) - 1)) - (bias - 1) - torch.where(sub, mb, 0).to(ity)
    mantissa = ((bits & ~(((1 << eb) - 1) << mb)) | ((bias - 1) << mb)).view(self.dtype)
    return (torch.where(finite, mantissa, self),
            torch.where(finite, exponent, torch.zeros_like(exponent)).to(D.int32))


defop("_frexp(Tensor self) -> (Tensor mantissa, Tensor exponent)", meta=_frexp_meta, method=False, function=False,
      family=F, composite=_frexp)
_FREXP = named_result("frexp", ("mantissa", "exponent"))
defop("frexp(Tensor self) -> (Tensor mantissa, Tensor exponent)", composite=lambda s: _FREXP(*torch.ops._frexp(s)),
      out=True, family=F)


# --- compositions -------------------------------------------------------------------------------------
def _as_float(x):
    return x if x.dtype._kind >= 2 else x.to(torch.get_default_dtype())


def _angle_units(name, factor):
    def convert(self):
        if self.dtype.is_complex:
            raise RuntimeError(f"{name} is not supported for complex tensors.")
        return _as_float(self) * factor

    def convert_(self):
        if self.dtype.is_complex:
            raise RuntimeError(f"{name} is not supported for complex tensors.")
        return self.mul_(factor)
    defop(f"{name}(Tensor self) -> Tensor", composite=convert, out=True, inplace=True, inplace_composite=convert_,
          family=F)


_angle_units("deg2rad", math.pi / 180)
_angle_units("rad2deg", 180 / math.pi)


def _heaviside(self, values):
    if self.dtype is not values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes")
    if self.dtype.is_complex:
        raise RuntimeError("heaviside is not yet implemented for complex tensors.")
    with torch.no_grad():  # a step: no gradient, as in PyTorch
        step = (self > 0).to(self.dtype)
        return torch.where(self == 0, values, step)


defop("heaviside(Tensor self, Tensor values) -> Tensor", composite=_heaviside, out=True, family=F)


def _ldexp(self, other):
    return _as_float(self) * torch.pow(2.0, other).to(_as_float(self).dtype)


defop("ldexp(Tensor self, Tensor other) -> Tensor", composite=_ldexp, out=True, inplace=True,
      inplace_composite=lambda s, o: s.mul_(torch.pow(2.0, o)), family=F)
def _xlogy(self, other):
    for x in (self, other):
        if getattr(x, "dtype", D.float32).is_complex:
            raise NotImplementedError(f"\"xlogy_cpu\" not implemented for '{D._cname(x.dtype)}'")
    return torch.special.xlogy(self, other)


defop("xlogy(Tensor self, Tensor other) -> Tensor", composite=_xlogy, out=True,
      numbers_as_tensors=True, inplace=True, inplace_composite=copy_into_self(_xlogy),
      family=F)
def _sinc(s):
    return torch.special.sinc(s)  # mindtorch.special is only there once the package has loaded


defop("sinc(Tensor self) -> Tensor", composite=_sinc, out=True, inplace=True, inplace_composite=copy_into_self(_sinc),
      family=F)


def _hardshrink(self, lambd=0.5):
    return torch.where((self > lambd) | (self < -lambd), self, self * 0)


defop("hardshrink(Tensor self, Scalar lambd=0.5) -> Tensor", composite=_hardshrink, out=True, family=F)


def _fill(self, value):
    if hasattr(value, "_shape") and value.dim():
        raise RuntimeError(f"fill only supports 0-dimension value tensor but got tensor with {value.dim()} "
                           "dimensions.")
    if getattr(value, "requires_grad", False):  # the gradient flows to the fill value
        return torch.zeros_like(self) + value
    return torch.full_like(self, value.item() if hasattr(value, "_shape") else value)


defop("fill(Tensor self, Scalar value) -> Tensor", composite=_fill, method=False, family=F)
