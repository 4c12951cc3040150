"""Random kernels: ACLNN's counter-based samplers (uniform, normal, bernoulli, random integers, randperm,
multinomial), each drawing (seed, offset) from its device's generator, and the draws composed from them."""

import math

from mindtorch.plugins import default_generator, dtypes as D, generator_state, kernel_table, random_bounds

from ..aclnn import DType, IntArray, launch, scalar_for
from ..copy import COPY, empty, npu_device
from ..state import RUNTIME
from ._common import device_of, launch_binary, numel, view

KERNELS, kernel = kernel_table()


def _draw(device, n, generator):
    """(seed, offset) for n numbers: the generator (default: the device's) advances by n."""
    if generator is not None and generator.device.type != "npu":
        raise RuntimeError(f"Expected a 'npu' device type for generator but found '{generator.device.type}'")
    if RUNTIME.captures and RUNTIME.capturing(device.index) is not None:
        raise RuntimeError(
            "random numbers cannot be drawn while an NPU graph is capturing: the random operators take their "
            "(seed, offset) as host values, so every replay would repeat the captured draw. Draw them outside the "
            "captured region (for dropout: p=0 or eval mode inside it)"
        )
    if generator is None:
        generator = default_generator(device)
    return generator_state(generator, device).advance(n)


def _fill_random(t, acl, params, generator):
    if numel(t):
        launch(acl, t, *params, *_draw(t.device, numel(t), generator))
    return t


@kernel("uniform_")
def uniform_(m, a, low=0.0, high=1.0, generator=None):
    return _fill_random(a, "InplaceUniform", (float(low), float(high)), generator)


@kernel("normal_")
def normal_(m, a, mean=0.0, std=1.0, generator=None):
    return _fill_random(a, "InplaceNormal", (float(mean), float(std)), generator)


@kernel("bernoulli_.float")
def bernoulli_(m, a, p=0.5, generator=None):
    return _fill_random(a, "InplaceBernoulli", (scalar_for(p, D.float64),), generator)


@kernel("bernoulli_.Tensor")
def bernoulli_tensor_(m, a, p, generator=None):
    return _fill_random(a, "InplaceBernoulliTensor", (p,), generator)


@kernel("bernoulli")
def bernoulli(m, probs, generator=None):
    return bernoulli_tensor_(None, empty(m.shape, m.dtype, probs.device), probs, generator)


@kernel("bernoulli.p")
def bernoulli_p(m, a, p, generator=None):
    return bernoulli_(None, empty(m.shape, m.dtype, a.device), p, generator)


@kernel("rand")
def rand(m, size, generator=None, *rest):
    return uniform_(None, empty(m.shape, m.dtype, npu_device(device_of(rest))), 0.0, 1.0, generator)


@kernel("randn")
def randn(m, size, generator=None, *rest):
    return normal_(None, empty(m.shape, m.dtype, npu_device(device_of(rest))), 0.0, 1.0, generator)


@kernel("randperm")
def randperm(m, n, generator=None, *rest):
    out = empty(m.shape, m.dtype, npu_device(device_of(rest)))
    if n:
        launch("Randperm", int(n), *_draw(out.device, numel(out), generator), out)
    return out


# --- normal with tensor parameters, exponential: composed from the standard draws ---------------------------


def _scaled_normal(m, mean, std, device, generator):
    """normal(mean, std) with tensor parameters: a standard normal draw, scaled and shifted on the device."""
    out = normal_(None, empty(m.shape, m.dtype, device), 0.0, 1.0, generator)
    launch_binary("Mul", "Muls", out, std, m.dtype)
    return launch_binary("Add", "Adds", out, mean, m.dtype, scalar_for(1, m.dtype))


@kernel("normal.Tensor_Tensor")
def normal_tensor_tensor(m, mean, std, generator=None):
    return _scaled_normal(m, mean, std, mean.device, generator)


@kernel("normal.Tensor_float")
def normal_tensor_float(m, mean, std=1, generator=None):
    return _scaled_normal(m, mean, std, mean.device, generator)


@kernel("normal.float_Tensor")
def normal_float_tensor(m, mean, std, generator=None):
    return _scaled_normal(m, mean, std, std.device, generator)


@kernel("normal.float_float")
def normal_float_float(m, mean, std, size, generator=None, *rest):
    return normal_(None, empty(m.shape, m.dtype, npu_device(device_of(rest))), mean, std, generator)


@kernel("exponential_")
def exponential_(m, a, lambd=1.0, generator=None):
    """-log(1 - u) / lambda from a uniform draw (ACLNN has no exponential sampler)."""
    uniform_(None, a, 0.0, 1.0, generator)
    launch("InplaceMuls", a, scalar_for(-1, a.dtype))
    launch("InplaceAdds", a, scalar_for(1, a.dtype), scalar_for(1, a.dtype))
    launch("InplaceLog", a)
    launch("InplaceMuls", a, scalar_for(-1.0 / lambd, a.dtype))
    return a


# --- random integers -----------------------------------------------------------------------------------------

_I64_MAX = (1 << 63) - 1


def _random_range(a, low, high, generator):
    # aclnnInplaceRandom's `to` is an exclusive int64: int64's full range [from, 2**63) ends one short
    return _fill_random(a, "InplaceRandom", (int(low), min(int(high), _I64_MAX)), generator)


@kernel("random_")
def random_(m, a, generator=None):
    return _random_range(a, *random_bounds(a.dtype), generator)


@kernel("random_.to")
def random_to(m, a, to, generator=None):
    return _random_range(a, *random_bounds(a.dtype, 0, to), generator)


@kernel("random_.from")
def random_from(m, a, low, to=None, generator=None):
    return _random_range(a, *random_bounds(a.dtype, low, to), generator)


@kernel("randint.low")
def randint(m, low, high, size, generator=None, *rest):
    return _random_range(empty(m.shape, m.dtype, npu_device(device_of(rest))), low, high, generator)


@kernel("multinomial")
def multinomial(m, probs, num_samples, replacement=False, generator=None):
    """aclnnMultinomial; PyTorch's errors for bad probabilities from three numbers reduced on the device
    (min, max, smallest row sum), read with one stream wait."""
    nd = len(probs._shape)
    checks = empty((3,), probs.dtype, probs.device)
    slot = [view(checks, (), (), checks._offset + i) for i in range(3)]
    every = IntArray(range(nd))
    launch("Amin", probs, every, False, slot[0])
    launch("Amax", probs, every, False, slot[1])
    sums = empty(probs._shape[:-1], probs.dtype, probs.device)
    launch("ReduceSum", probs, IntArray([nd - 1]), False, DType(probs.dtype), sums)
    launch("Amin", sums, IntArray(range(nd - 1)), False, slot[2])
    lo, hi, least = COPY.to_host(checks).tolist()
    if not (lo >= 0 and math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if not least > 0:
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    out = empty(m.shape, m.dtype, probs.device)
    rows = numel(probs) // probs._shape[-1] if probs._shape[-1] else 0
    seed, offset = _draw(probs.device, rows * max(num_samples, probs._shape[-1]), generator)
    launch("Multinomial", probs, int(num_samples), bool(replacement), seed, offset, out)
    return out
