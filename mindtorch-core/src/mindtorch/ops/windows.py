"""Window functions for spectral analysis (hann, hamming, blackman, bartlett, kaiser), PyTorch's
conventions: `periodic=True` gives the first window_length points of a window one point longer (the form
stft wants); a length of 1 is a single one."""

import math

from .. import _dtype as D
from .creation import _OPTS
from .formulas import torch
from .meta import not_implemented
from .registry import defop

F = "creation"


def _positions(window_length, periodic, dtype, device, name):
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={window_length}")
    dtype = dtype or torch.get_default_dtype()
    if dtype.is_complex:  # PyTorch's windows start from an arange in the dtype, which has no complex kernel
        raise not_implemented("arange_cpu", dtype)
    if dtype._kind != 2:
        raise RuntimeError(f"{name} expects floating point dtypes, got: {D._cname(dtype)}")
    n = window_length + 1 if periodic else window_length
    # phase 2*pi*k/(n-1) for k = 0 .. window_length-1, in float64 then rounded once
    k = torch.arange(window_length, dtype=D.float64, device=device)
    return k * (2 * math.pi / (n - 1)) if n > 1 else k, dtype


def _cosine_sum(window_length, periodic, coeffs, dtype, device, name):
    if window_length <= 1:
        return torch.ones(window_length, dtype=dtype or torch.get_default_dtype(), device=device)
    phase, dtype = _positions(window_length, periodic, dtype, device, name)
    w = torch.zeros_like(phase)
    for j, c in enumerate(coeffs):
        w = w + (c if j % 2 == 0 else -c) * torch.cos(phase * j)
    return w.to(dtype)


def _hann(window_length, periodic=True, dtype=None, layout=None, device=None, pin_memory=None, requires_grad=False):
    return _cosine_sum(window_length, periodic, (0.5, 0.5), dtype, device, "hann_window")


def _hamming(
    window_length,
    periodic=True,
    alpha=0.54,
    beta=0.46,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=None,
    requires_grad=False,
):
    return _cosine_sum(window_length, periodic, (alpha, beta), dtype, device, "hamming_window")


def _blackman(window_length, periodic=True, dtype=None, layout=None, device=None, pin_memory=None, requires_grad=False):
    return _cosine_sum(window_length, periodic, (0.42, 0.5, 0.08), dtype, device, "blackman_window")


def _bartlett(window_length, periodic=True, dtype=None, layout=None, device=None, pin_memory=None, requires_grad=False):
    if window_length <= 1:
        return torch.ones(window_length, dtype=dtype or torch.get_default_dtype(), device=device)
    phase, dtype = _positions(window_length, periodic, dtype, device, "bartlett_window")
    x = phase / math.pi  # 2k/(n-1)
    return (1 - torch.abs(x - 1)).to(dtype)


def _i0(x):
    """Modified Bessel function of the first kind, order 0, by its power series (float64)."""
    term = torch.ones_like(x)
    total = torch.ones_like(x)
    q = (x / 2) ** 2
    for k in range(1, 60):
        term = term * q / (k * k)
        total = total + term
    return total


def _kaiser(
    window_length, periodic=True, beta=12.0, dtype=None, layout=None, device=None, pin_memory=None, requires_grad=False
):
    if window_length <= 1:
        return torch.ones(window_length, dtype=dtype or torch.get_default_dtype(), device=device)
    phase, dtype = _positions(window_length, periodic, dtype, device, "kaiser_window")
    r = phase / math.pi - 1
    arg = beta * torch.sqrt(torch.clamp(1 - r * r, min=0))
    return (_i0(arg) / _i0(torch.tensor(float(beta), dtype=D.float64, device=device))).to(dtype)


defop(
    f"hann_window(int window_length, bool periodic=True, *, {_OPTS}) -> Tensor", composite=_hann, method=False, family=F
)
defop(
    f"hamming_window(int window_length, bool periodic=True, float alpha=0.54, float beta=0.46, *, {_OPTS}) -> Tensor",
    composite=_hamming,
    method=False,
    family=F,
)
defop(
    f"blackman_window(int window_length, bool periodic=True, *, {_OPTS}) -> Tensor",
    composite=_blackman,
    method=False,
    family=F,
)
defop(
    f"bartlett_window(int window_length, bool periodic=True, *, {_OPTS}) -> Tensor",
    composite=_bartlett,
    method=False,
    family=F,
)
defop(
    f"kaiser_window(int window_length, bool periodic=True, float beta=12.0, *, {_OPTS}) -> Tensor",
    composite=_kaiser,
    method=False,
    family=F,
)
