"""Discrete Fourier transforms through numpy.fft (pocketfft; single precision stays single)."""

import numpy as np
from mindtorch.plugins import wrap_dims

from ..convert import TO_NP, arr, wrap
from . import kernel_table

KERNELS, kernel = kernel_table()

# core's normalization code -> numpy's `norm` for a forward and for an inverse transform
_FORWARD = {0: "backward", 1: "ortho", 2: "forward"}
_INVERSE = {0: "forward", 1: "ortho", 2: "backward"}


def _result(res, m):
    return wrap(np.ascontiguousarray(res, dtype=TO_NP[m.dtype]), m.dtype)


@kernel("_fft_c2c")
def fft_c2c(m, a, dim, normalization, forward):
    axes = wrap_dims(dim, a.dim())
    fn, norm = (np.fft.fftn, _FORWARD) if forward else (np.fft.ifftn, _INVERSE)
    return _result(fn(arr(a), axes=axes, norm=norm[normalization]), m)


@kernel("_fft_r2c")
def fft_r2c(m, a, dim, normalization, onesided):
    axes = wrap_dims(dim, a.dim())
    fn = np.fft.rfftn if onesided else np.fft.fftn
    return _result(fn(arr(a), axes=axes, norm=_FORWARD[normalization]), m)


@kernel("_fft_c2r")
def fft_c2r(m, a, dim, normalization, last_dim_size):
    axes = wrap_dims(dim, a.dim())
    sizes = [a.shape[d] for d in axes[:-1]] + [last_dim_size]
    return _result(np.fft.irfftn(arr(a), s=sizes, axes=axes, norm=_INVERSE[normalization]), m)
