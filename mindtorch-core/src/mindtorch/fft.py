"""mindtorch.fft: PyTorch's discrete Fourier transforms.

Every transform resizes its input to the requested signal sizes (trimming, or padding with zeros), picks
the scaling from `norm` and calls one of the three primitives of the op table (_fft_c2c, _fft_r2c,
_fft_c2r), which carry the gradients.
"""

import mindtorch as _mt

from ._dtype import _cname
from ._geometry import wrap_dim as _wrap_dim, wrap_dims as _wrap_dims
from ._tensor import Tensor

__all__ = [
    "Tensor",
    "fft",
    "ifft",
    "fft2",
    "ifft2",
    "fftn",
    "ifftn",
    "rfft",
    "irfft",
    "rfft2",
    "irfft2",
    "rfftn",
    "irfftn",
    "hfft",
    "ihfft",
    "hfft2",
    "ihfft2",
    "hfftn",
    "ihfftn",
    "fftfreq",
    "rfftfreq",
    "fftshift",
    "ifftshift",
]

_MODES = {None: 0, "backward": 0, "ortho": 1, "forward": 2}  # a forward transform's scaling code


def _norm(norm, forward):
    if norm not in _MODES:
        raise RuntimeError(f'Invalid normalization mode: "{norm}"')
    code = _MODES[norm]
    return code if forward else 2 - code  # an inverse transform scales the other way round


def _floating(x, name, real_only=False):
    """Integers and bools compute in the default float dtype; real-input transforms refuse complex."""
    if not x.dtype.is_floating_point and not x.dtype.is_complex:
        x = x.to(_mt.get_default_dtype())
    if x.dtype.itemsize < 4:
        raise RuntimeError(f"Unsupported dtype {_cname(x.dtype)}")
    if real_only and x.dtype.is_complex:
        raise RuntimeError(f"{name} expects a real input tensor, but got {_cname(x.dtype)}")
    return x


def _resize(x, dims, sizes):
    """Trim or zero-pad `x` along each dim to the given size."""
    for d, n in zip(dims, sizes):
        if n < 1:
            raise RuntimeError(f"Invalid number of data points ({n}) specified")
        have = x.shape[d]
        if n < have:
            x = x.narrow(d, 0, n)
        elif n > have:
            pad = [0, 0] * (x.dim() - 1 - d) + [0, n - have]
            x = _mt.nn.functional.pad(x, pad)
    return x


def _dims_sizes(x, s, dim, default_all=True):
    """The transformed dims and their signal sizes, from PyTorch's (s, dim) conventions."""
    if dim is not None and not isinstance(dim, (list, tuple)):
        dim = (dim,)
    if s is not None and dim is not None and len(s) != len(dim):
        raise RuntimeError("When given, dim and shape arguments must have the same length")
    if dim is None:
        if s is not None:
            if len(s) > x.dim():
                raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has {x.dim()} dimensions.")
            dim = range(x.dim() - len(s), x.dim())
        else:
            dim = range(x.dim()) if default_all else (-2, -1)
    try:
        dims = _wrap_dims(dim, x.dim())
    except RuntimeError:
        raise RuntimeError("FFT dims must be unique") from None
    sizes = [x.shape[d] if s is None or s[i] == -1 else s[i] for i, d in enumerate(dims)]
    return list(dims), sizes


def _finish(result, out):
    if out is None:
        return result
    if out.dtype.is_complex != result.dtype.is_complex:  # same kind: the copy casts, as PyTorch's out= does
        kind = "complex" if result.dtype.is_complex else "real"
        raise RuntimeError(f"fft expects a {kind} output tensor, but got {_cname(out.dtype)}")
    if out.shape != result.shape:
        out.resize_(result.shape)
    return out.copy_(result)


def _c2c(x, s, dim, norm, forward, out, name, default_all=True):
    x = _floating(x, name)
    dims, sizes = _dims_sizes(x, s, dim, default_all)
    x = _resize(x, dims, sizes)
    if not x.dtype.is_complex:
        x = x.to(x.dtype.to_complex())
    return _finish(_mt._fft_c2c(x, dims, _norm(norm, forward), forward), out)


def _r2c(x, s, dim, norm, forward, out, name, default_all=True):
    x = _floating(x, name, real_only=True)
    dims, sizes = _dims_sizes(x, s, dim, default_all)
    x = _resize(x, dims, sizes)
    res = _mt._fft_r2c(x, dims, _norm(norm, forward), True)
    return _finish(res if forward else res.conj(), out)


def _c2r(x, s, dim, norm, forward, out, name, default_all=True):
    """irfft (forward False) and hfft (forward True, the conjugate input) to a real signal."""
    x = _floating(x, name)
    dims, sizes = _dims_sizes(x, s, dim, default_all)
    if s is None or s[-1] == -1:
        sizes[-1] = 2 * (x.shape[dims[-1]] - 1)
    if sizes[-1] < 1:
        raise RuntimeError(f"Invalid number of data points ({sizes[-1]}) specified")
    x = _resize(x, dims, sizes[:-1] + [sizes[-1] // 2 + 1])
    if not x.dtype.is_complex:
        x = x.to(x.dtype.to_complex())
    if forward:
        x = x.conj()
    return _finish(_mt._fft_c2r(x, dims, _norm(norm, forward), sizes[-1]), out)


def _n(n):
    return None if n is None else (n,)


def fft(input, n=None, dim=-1, norm=None, *, out=None):
    return _c2c(input, _n(n), dim, norm, True, out, "fft")


def ifft(input, n=None, dim=-1, norm=None, *, out=None):
    return _c2c(input, _n(n), dim, norm, False, out, "ifft")


def fft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return _c2c(input, s, dim, norm, True, out, "fft2")


def ifft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return _c2c(input, s, dim, norm, False, out, "ifft2")


def fftn(input, s=None, dim=None, norm=None, *, out=None):
    return _c2c(input, s, dim, norm, True, out, "fftn")


def ifftn(input, s=None, dim=None, norm=None, *, out=None):
    return _c2c(input, s, dim, norm, False, out, "ifftn")


def rfft(input, n=None, dim=-1, norm=None, *, out=None):
    return _r2c(input, _n(n), dim, norm, True, out, "rfft")


def ihfft(input, n=None, dim=-1, norm=None, *, out=None):
    return _r2c(input, _n(n), dim, norm, False, out, "ihfft")


def rfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return _r2c(input, s, dim, norm, True, out, "rfft2")


def ihfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return _r2c(input, s, dim, norm, False, out, "ihfft2")


def rfftn(input, s=None, dim=None, norm=None, *, out=None):
    return _r2c(input, s, dim, norm, True, out, "rfftn")


def ihfftn(input, s=None, dim=None, norm=None, *, out=None):
    return _r2c(input, s, dim, norm, False, out, "ihfftn")


def irfft(input, n=None, dim=-1, norm=None, *, out=None):
    return _c2r(input, _n(n), dim, norm, False, out, "irfft")


def hfft(input, n=None, dim=-1, norm=None, *, out=None):
    return _c2r(input, _n(n), dim, norm, True, out, "hfft")


def irfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return _c2r(input, s, dim, norm, False, out, "irfft2")


def hfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return _c2r(input, s, dim, norm, True, out, "hfft2")


def irfftn(input, s=None, dim=None, norm=None, *, out=None):
    return _c2r(input, s, dim, norm, False, out, "irfftn")


def hfftn(input, s=None, dim=None, norm=None, *, out=None):
    return _c2r(input, s, dim, norm, True, out, "hfftn")


def _freq(n, d, two_sided, out, dtype, layout, device, requires_grad):
    """Bin centres in cycles per unit of spacing `d` for a signal of n points: 0, 1, ... and, two-sided,
    the negative frequencies after them."""
    dtype = dtype or _mt.get_default_dtype()
    res = _mt.arange((n + 1) // 2 if two_sided else n // 2 + 1, dtype=dtype, device=device)
    if two_sided:
        res = _mt.cat([res, _mt.arange(-(n // 2), 0, dtype=dtype, device=device)])
    res = res * (1.0 / (n * d))
    res.requires_grad_(requires_grad)
    return _finish(res, out)


def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    return _freq(n, d, True, out, dtype, layout, device, requires_grad)


def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    return _freq(n, d, False, out, dtype, layout, device, requires_grad)


def _shift(input, dim, sign):
    if dim is None:
        dim = tuple(range(input.dim()))
    elif not isinstance(dim, (list, tuple)):
        dim = (_wrap_dim(dim, input.dim()),)
    dims = _wrap_dims(dim, input.dim())
    shifts = [sign * (input.shape[d] // 2) for d in dims]
    return _mt.roll(input, shifts, dims) if dims else input


def fftshift(input, dim=None):
    """Move the zero-frequency bin to the centre."""
    return _shift(input, dim, 1)


def ifftshift(input, dim=None):
    """Undo fftshift."""
    return _shift(input, dim, -1)


fft.__doc__ = "One-dimensional discrete Fourier transform of a (real or complex) signal."
ifft.__doc__ = "Inverse of fft."
fft2.__doc__ = "Two-dimensional discrete Fourier transform (the last two dims by default)."
ifft2.__doc__ = "Inverse of fft2."
fftn.__doc__ = "N-dimensional discrete Fourier transform (every dim by default)."
ifftn.__doc__ = "Inverse of fftn."
rfft.__doc__ = "Fourier transform of a real signal: the n//2 + 1 non-negative frequencies."
irfft.__doc__ = "Inverse of rfft: a real signal of n points (2 * (bins - 1) by default)."
rfft2.__doc__ = "rfft over two dims (one-sided along the last)."
irfft2.__doc__ = "Inverse of rfft2."
rfftn.__doc__ = "rfft over several dims (one-sided along the last)."
irfftn.__doc__ = "Inverse of rfftn."
hfft.__doc__ = "Fourier transform of a Hermitian-symmetric signal given by its one-sided half: a real spectrum."
ihfft.__doc__ = "Inverse of hfft: the one-sided half of a real signal's inverse transform."
hfft2.__doc__ = "hfft over two dims."
ihfft2.__doc__ = "Inverse of hfft2."
hfftn.__doc__ = "hfft over several dims."
ihfftn.__doc__ = "Inverse of hfftn."
fftfreq.__doc__ = "Sample frequencies of fft for a signal of n points with spacing d."
rfftfreq.__doc__ = "Sample frequencies of rfft for a signal of n points with spacing d."
