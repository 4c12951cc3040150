"""Tensor values as NumPy arrays on the host (bfloat16 travels as its uint16 bits)."""

import numpy as np

from . import _dtype as D
from ._backends.registry import backend_for


def numpy_dtype(d):
    """The host NumPy dtype used to carry `d` (bfloat16 travels as its uint16 bits)."""
    return np.dtype("uint16") if d is D.bfloat16 else np.dtype(d.name)


def float_to_bf16_bits(a):
    a = np.asarray(a, dtype=np.float32)
    a = np.ascontiguousarray(a).reshape(a.shape)
    bits = a.view(np.uint32)
    rounded = bits + (0x7FFF + ((bits >> 16) & 1))
    out = np.asarray((rounded >> 16).astype(np.uint16))  # an array for 0-dim input too (NaN is written below)
    nan = np.isnan(a)
    if nan.any():
        out[nan] = 0x7FC0
    return out


def bf16_bits_to_float(bits):
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


def host_values(t):
    """A NumPy array of t's values for Python-side use (bfloat16 widened to float32)."""
    a = backend_for(t.device.type).to_host(t)
    if t.dtype is D.bfloat16:
        a = bf16_bits_to_float(a.view(np.uint16) if a.dtype != np.uint16 else a)
    return a
