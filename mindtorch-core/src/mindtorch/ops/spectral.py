"""Discrete Fourier transforms: three primitives every backend implements (complex to complex, real to
one-sided complex, one-sided complex to real), over any set of dims. `mindtorch.fft` builds the public
transforms (sizes, norms, Hermitian forms) from them.

normalization: 0 leaves the sums unscaled, 1 scales by 1/sqrt(n), 2 by 1/n (n: the signal's points
over the transformed dims). The adjoint of a scaled transform is the opposite-direction transform with
the same scale, which is what the derivatives below use.
"""

from .. import _dtype as D
from .._geometry import wrap_dims
from .meta import TensorMeta
from .registry import defop

F = "spectral"


def _fft_dtype_check(self):
    if self.dtype not in (D.float32, D.float64, D.complex64, D.complex128):
        raise RuntimeError(f"Unsupported dtype {D._cname(self.dtype)}")


def _c2c_meta(self, dim, normalization, forward):
    _fft_dtype_check(self)
    return TensorMeta(self._shape, self.dtype)


def _r2c_meta(self, dim, normalization, onesided):
    _fft_dtype_check(self)
    shape = list(self._shape)
    if onesided:
        last = wrap_dims(dim, len(shape))[-1]
        shape[last] = shape[last] // 2 + 1
    return TensorMeta(tuple(shape), self.dtype.to_complex())


def _c2r_meta(self, dim, normalization, last_dim_size):
    _fft_dtype_check(self)
    shape = list(self._shape)
    shape[wrap_dims(dim, len(shape))[-1]] = last_dim_size
    return TensorMeta(tuple(shape), self.dtype.to_real())


defop(
    "_fft_c2c(Tensor self, SymInt[] dim, int normalization, bool forward) -> Tensor",
    meta=_c2c_meta,
    method=False,
    family=F,
    grad={"self": "fft_c2c_backward(grad, dim, normalization, forward)"},
)
defop(
    "_fft_r2c(Tensor self, int[] dim, int normalization, bool onesided) -> Tensor",
    meta=_r2c_meta,
    method=False,
    family=F,
    grad={"self": "fft_r2c_backward(grad, self, dim, normalization, onesided)"},
)
defop(
    "_fft_c2r(Tensor self, int[] dim, int normalization, SymInt last_dim_size) -> Tensor",
    meta=_c2r_meta,
    method=False,
    family=F,
    grad={"self": "fft_c2r_backward(grad, dim, normalization)"},
)
