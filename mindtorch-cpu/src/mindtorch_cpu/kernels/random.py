"""Random sampling kernels: NumPy draws from the device generator's bit stream."""

import numpy as np
from mindtorch.plugins import dtypes as D, generator_state, random_bounds

from ..convert import TO_NP, arr, quiet, wrap
from . import kernel_table

KERNELS, kernel = kernel_table()

# mantissa bits (with the implicit one): uniforms on this grid are exact in the dtype and never round to 1
_MANT = {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}


def _rng(generator):
    if generator is not None and generator.device.type != "cpu":
        raise RuntimeError(f"Expected a 'cpu' device type for generator but found '{generator.device.type}'")
    return generator_state(generator, "cpu").rng


def _uniform01(rng, shape, dtype):
    bits = _MANT[dtype.name]
    u = rng.integers(0, 1 << bits, size=shape, dtype=np.int64)
    return np.ldexp(u.astype(np.float64), -bits)


def _bernoulli(rng, shape, p):
    """uniform01 draws in float64 below `p`: rng.random's are k / 2**53 for a uniform 53-bit k (one
    64-bit draw each, as integers(0, 2**53) takes), with a fraction of its fixed cost per call"""
    return rng.random(shape) < p


def _as_complex(parts, dtype):
    """(..., 2) real draws as complex numbers of `dtype` (real part first)."""
    return np.ascontiguousarray(parts, dtype=TO_NP[dtype.to_real()]).view(TO_NP[dtype])[..., 0]


def _std_normal(rng, shape, dtype):
    if dtype.is_complex:  # unit variance overall: each part has variance 1/2, as in PyTorch
        return _as_complex(_std_normal(rng, tuple(shape) + (2,), dtype.to_real()) * np.sqrt(0.5), dtype)
    if dtype is D.float64:
        return rng.standard_normal(shape, dtype=np.float64)
    return rng.standard_normal(shape, dtype=np.float32)


def _fill(t, values):
    """Write sampled values into an in-place target (any layout) and return it."""
    np.copyto(arr(t), values, casting="unsafe")
    return t


@kernel("rand")
def rand(m, size, generator=None, *rest):
    if m.dtype.is_complex:  # both parts uniform on [0, 1)
        return wrap(
            _as_complex(_uniform01(_rng(generator), tuple(m.shape) + (2,), m.dtype.to_real()), m.dtype), m.dtype
        )
    return wrap(_uniform01(_rng(generator), m.shape, m.dtype).astype(TO_NP[m.dtype]), m.dtype)


@kernel("randn")
def randn(m, size, generator=None, *rest):
    return wrap(_std_normal(_rng(generator), m.shape, m.dtype).astype(TO_NP[m.dtype]), m.dtype)


def _integers(rng, low, high, shape):
    return (
        rng.integers(low, high, size=shape, dtype=np.int64)
        if high <= 2**63
        else rng.integers(low, high, size=shape, dtype=np.uint64)
    )


@kernel("randint.low")
def randint(m, low, high, size, generator=None, *rest):
    return wrap(_integers(_rng(generator), low, high, m.shape).astype(TO_NP[m.dtype]), m.dtype)


@kernel("randperm")
def randperm(m, n, generator=None, *rest):
    return wrap(_rng(generator).permutation(n).astype(TO_NP[m.dtype]), m.dtype)


def _normal(m, mean, std, generator):
    std_v = arr(std) if hasattr(std, "_shape") else std
    if hasattr(std, "_shape") and std_v.size and (std_v < 0).any():
        raise RuntimeError("normal expects all elements of std >= 0.0")
    mean_v = arr(mean) if hasattr(mean, "_shape") else mean
    eps = _std_normal(_rng(generator), m.shape, m.dtype)
    return wrap((mean_v + std_v * eps).astype(TO_NP[m.dtype]), m.dtype)


for _name in ("normal.Tensor_Tensor", "normal.Tensor_float", "normal.float_Tensor"):
    KERNELS[_name] = _normal


@kernel("normal.float_float")
def normal_ff(m, mean, std, size, generator=None, *rest):
    return _normal(m, mean, std, generator)


def _check_probs(p):
    if p.size and not ((p >= 0) & (p <= 1)).all():
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")


@kernel("bernoulli")
def bernoulli(m, self, generator=None):
    p = arr(self).astype(np.float64)
    _check_probs(p)
    return wrap(_bernoulli(_rng(generator), m.shape, p).astype(TO_NP[m.dtype]), m.dtype)


@kernel("bernoulli.p")
def bernoulli_p(m, self, p, generator=None):
    return wrap(_bernoulli(_rng(generator), m.shape, p).astype(TO_NP[m.dtype]), m.dtype)


@kernel("multinomial")
def multinomial(m, self, num_samples, replacement=False, generator=None):
    p = arr(self).astype(np.float64)
    rows = p.reshape(-1, p.shape[-1])
    if not np.isfinite(rows).all() or (rows < 0).any():
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    total = rows.sum(axis=1, keepdims=True)
    if (total <= 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    rng = _rng(generator)
    if replacement:
        cdf = np.cumsum(rows / total, axis=1)
        cdf[:, -1] = 1.0
        u = rng.random((rows.shape[0], num_samples))
        out = (
            np.stack([np.searchsorted(c, x, side="right") for c, x in zip(cdf, u)])
            if rows.shape[0]
            else np.zeros((0, num_samples), np.int64)
        )
        out = np.minimum(out, rows.shape[1] - 1)
    else:
        # exponential race: the k smallest Exp(1)/p keys are a draw without replacement
        with quiet():
            keys = rng.standard_exponential(rows.shape) / rows
        out = np.argsort(keys, axis=1, kind="stable")[:, :num_samples]
    return wrap(out.reshape(m.shape).astype(np.int64), D.int64)


@kernel("uniform_")
def uniform_(m, self, low=0.0, high=1.0, generator=None):
    u = _uniform01(_rng(generator), self._shape, self.dtype)
    return _fill(self, low + (high - low) * u)


@kernel("normal_")
def normal_(m, self, mean=0.0, std=1.0, generator=None):
    return _fill(self, mean + std * _std_normal(_rng(generator), self._shape, self.dtype))


@kernel("exponential_")
def exponential_(m, self, lambd=1.0, generator=None):
    return _fill(self, _rng(generator).standard_exponential(self._shape) / lambd)


@kernel("bernoulli_.float")
def bernoulli_float_(m, self, p=0.5, generator=None):
    return _fill(self, _bernoulli(_rng(generator), self._shape, p))


@kernel("bernoulli_.Tensor")
def bernoulli_tensor_(m, self, p, generator=None):
    pv = np.broadcast_to(arr(p).astype(np.float64), self._shape)
    _check_probs(pv)
    return _fill(self, _bernoulli(_rng(generator), self._shape, pv))


def _random_fill(self, low, high, generator):
    return _fill(self, _integers(_rng(generator), low, high, self._shape))


@kernel("random_")
def random_(m, self, generator=None):
    return _random_fill(self, *random_bounds(self.dtype), generator)


@kernel("random_.to")
def random_to(m, self, to, generator=None):
    return _random_fill(self, *random_bounds(self.dtype, 0, to), generator)


@kernel("random_.from")
def random_from(m, self, low, to=None, generator=None):
    return _random_fill(self, *random_bounds(self.dtype, low, to), generator)


@kernel("poisson")
def poisson(m, self, generator=None):
    rate = arr(self).astype(np.float64)
    if rate.size and (rate < 0).any():
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    return wrap(_rng(generator).poisson(rate).astype(TO_NP[m.dtype]), m.dtype)


@kernel("binomial")
def binomial(m, count, prob, generator=None):
    n, p = np.broadcast_arrays(arr(count).astype(np.float64), arr(prob).astype(np.float64))
    if p.size and ((p < 0) | (p > 1)).any():
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
    return wrap(_rng(generator).binomial(n.astype(np.int64), p).astype(TO_NP[m.dtype]), m.dtype)
