"""Complex numbers: a complex tensor's real and imaginary parts as views of its storage, reinterpreting a
tensor's bytes as another dtype, and building complex tensors from parts.

A complex element is two reals side by side, so viewing one as the other only rescales the strides and the
offset by two; core does it for every device, like the other view ops.
"""

import math

from .. import _dtype as D
from .._dtype import _cname as _tname
from .meta import not_implemented
from .registry import defop

F = "complex"


def _view_as_real(self):
    if not self.dtype.is_complex:
        raise RuntimeError("view_as_real is only supported for complex tensors")
    return ((*self._shape, 2), (*(s * 2 for s in self._stride), 1), self._offset * 2, self.dtype.to_real())


def _view_as_complex(self):
    if self.dtype not in (D.float32, D.float64):
        if self.dtype is D.float16:
            raise RuntimeError("view_as_complex: complex32 (ComplexHalf) tensors are not supported by mindtorch")
        raise RuntimeError(
            "view_as_complex is only supported for half, float and double tensors, but got a tensor "
            f"of scalar type: {_tname(self.dtype)}"
        )
    if not self._shape:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if self._shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    if self._stride[-1] != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(s % 2 for s in self._stride[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    if self._offset % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    return self._shape[:-1], tuple(s // 2 for s in self._stride[:-1]), self._offset // 2, self.dtype.to_complex()


defop(
    "view_as_real(Tensor(a) self) -> Tensor(a)",
    view=_view_as_real,
    method=False,
    family=F,
    grad={"self": "torch.view_as_complex(grad.contiguous())"},
)
defop(
    "view_as_complex(Tensor(a) self) -> Tensor(a)",
    view=_view_as_complex,
    method=False,
    family=F,
    grad={"self": "torch.view_as_real(complex_grad(grad))"},
)


def _view_dtype(self, dtype):
    """Tensor.view(dtype): the same bytes read as `dtype`; a different element size rescales the last dim."""
    old, new = self.dtype.itemsize, dtype.itemsize
    if old == new:
        return self._shape, self._stride, self._offset, dtype
    what = f"to view {_tname(self.dtype)} as {_tname(dtype)} (different element sizes)"
    if not self._shape:
        raise RuntimeError(f"self.dim() cannot be 0 {what}")
    if self._stride[-1] != 1:
        raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {self._stride[-1]}")
    shape, stride = list(self._shape), list(self._stride)
    if new > old:
        k = new // old
        if shape[-1] % k:
            raise RuntimeError(f"self.size(-1) must be divisible by {k} {what}, but got {shape[-1]}")
        if self._offset % k:
            raise RuntimeError(f"self.storage_offset() must be divisible by {k} {what}, but got {self._offset}")
        for i, s in enumerate(stride[:-1]):
            if s % k:
                raise RuntimeError(f"self.stride({i}) must be divisible by {k} {what}, but got {s}")
        shape[-1] //= k
        return shape, [s // k for s in stride[:-1]] + [1], self._offset // k, dtype
    k = old // new
    shape[-1] *= k
    return shape, [s * k for s in stride[:-1]] + [1], self._offset * k, dtype


defop(
    "view(Tensor(a) self, ScalarType dtype) -> Tensor(a)", view=_view_dtype, function=False, overload="dtype", family=F
)


def _real(self):
    return _view_as_real_alias(self, 0) if self.dtype.is_complex else self


def _imag(self):
    if not self.dtype.is_complex:
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return _view_as_real_alias(self, 1)


def _view_as_real_alias(self, part):
    import mindtorch

    return mindtorch.view_as_real(self).select(-1, part)


defop("real(Tensor(a) self) -> Tensor(a)", composite=_real, method=False, family=F)
defop("imag(Tensor(a) self) -> Tensor(a)", composite=_imag, method=False, family=F)


def _complex(real, imag):
    import mindtorch

    ok = (D.float16, D.float32, D.float64)
    if real.dtype not in ok or imag.dtype not in ok:
        raise RuntimeError(
            "Expected both inputs to be Half, Float or Double tensors but got "
            f"{_tname(real.dtype)} and {_tname(imag.dtype)}"
        )
    if real.dtype is not imag.dtype:
        raise RuntimeError(
            f"Expected object of scalar type {_tname(real.dtype)} but got scalar type "
            f"{_tname(imag.dtype)} for second argument"
        )
    if real.dtype is D.float16:
        raise RuntimeError("complex: complex32 (ComplexHalf) tensors are not supported by mindtorch")
    parts = mindtorch.broadcast_tensors(real, imag)
    return mindtorch.view_as_complex(mindtorch.stack(parts, -1))


def _polar(abs, angle):
    import mindtorch

    if abs.dtype is D.float16 and angle.dtype is D.float16:  # PyTorch's complex() takes half; polar does not
        raise not_implemented("polar_cpu", abs.dtype)
    _complex(abs, angle)  # the same dtype checks as complex()
    return mindtorch.complex(abs * mindtorch.cos(angle), abs * mindtorch.sin(angle))


defop("complex(Tensor real, Tensor imag) -> Tensor", composite=_complex, method=False, out=True, family=F)
defop("polar(Tensor abs, Tensor angle) -> Tensor", composite=_polar, method=False, out=True, family=F)


def _angle(self):
    """The argument of each element; for real numbers pi below zero, else zero (NaN stays NaN)."""
    import mindtorch

    if self.dtype.is_complex:
        return mindtorch.atan2(mindtorch.imag(self), mindtorch.real(self))
    x = self if self.dtype._kind == 2 else self.to(mindtorch.get_default_dtype())
    with mindtorch.no_grad():  # piecewise constant: no gradient, as in PyTorch
        out = mindtorch.zeros_like(x).masked_fill(x < 0, math.pi)  # pi in x's own precision
        out = mindtorch.where(x.isnan(), x, out)
    return out


defop("angle(Tensor self) -> Tensor", composite=_angle, out=True, family=F)
