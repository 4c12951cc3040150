"""Random sampling ops.

Kernels draw from the generator state of the output's device
(`mindtorch._generator.generator_state`). The shape rules here also check the
argument values that need no data, so the meta device raises the same
errors as the real devices.
"""

import math

from .. import _dtype as D
from .._geometry import broadcast_shapes
from .creation import _OPTS, _check_size
from .formulas import torch
from .meta import TensorMeta, not_implemented as _not_impl
from .registry import declare_inplace, defop

F = "random"
_LIKE = (
    "Generator? generator=None, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
    "bool? pin_memory=None, bool requires_grad=False, MemoryFormat? memory_format=None"
)
_GEN = "Generator? generator=None"


from .._dtype import _cname  # noqa: E402


def _float_only(dtype, kernel_name):
    if dtype._kind < 2:
        raise _not_impl(kernel_name, dtype)
    return dtype


# --- factories -----------------------------------------------------------------------------
def _rand_meta(size, generator=None, dtype=None, *rest):
    dtype = _float_only(dtype or D.get_default_dtype(), "check_uniform_bounds")
    return TensorMeta(_check_size(size, dtype), dtype)


def _randn_meta(size, generator=None, dtype=None, *rest):
    dtype = _float_only(dtype or D.get_default_dtype(), "normal_kernel_cpu")
    return TensorMeta(_check_size(size, dtype), dtype)


defop(f"rand(SymInt[] size, *, {_GEN}, {_OPTS}) -> Tensor", meta=_rand_meta, method=False, out=True, family=F)
defop(f"randn(SymInt[] size, *, {_GEN}, {_OPTS}) -> Tensor", meta=_randn_meta, method=False, out=True, family=F)

_INT_RANGE = {
    "bool": (0, 2),
    "uint8": (0, 2**8),
    "int8": (-(2**7), 2**7),
    "int16": (-(2**15), 2**15),
    "int32": (-(2**31), 2**31),
    "int64": (-(2**63), 2**63),
    "uint16": (0, 2**16),
    "uint32": (0, 2**32),
    "uint64": (0, 2**64),
    "float16": (-(2**11), 2**11 + 1),
    "bfloat16": (-(2**8), 2**8 + 1),
    "float32": (-(2**24), 2**24 + 1),
    "float64": (-(2**53), 2**53 + 1),
}
_C_NAMES = {
    "uint8": "unsigned char",
    "int8": "signed char",
    "int16": "short",
    "int32": "int",
    "int64": "long",
    "bool": "bool",
    "float16": "c10::Half",
    "bfloat16": "c10::BFloat16",
    "float32": "float",
    "float64": "double",
    "uint16": "unsigned short",
    "uint32": "unsigned int",
    "uint64": "unsigned long",
}


def check_random_range(low, high, dtype):
    """random_(from, to) / randint bounds, with PyTorch's messages."""
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    if dtype.is_complex:
        raise _not_impl("random_from_to", dtype)
    lo, hi = _INT_RANGE[dtype.name]
    if low < lo or low >= hi:
        raise RuntimeError(f"from is out of bounds for {_C_NAMES[dtype.name]}")
    if high - 1 < lo or high - 1 >= hi:
        raise RuntimeError(f"to - 1 is out of bounds for {_C_NAMES[dtype.name]}")


def _randint_meta(low, high, size, generator=None, dtype=None, *rest):
    dtype = dtype or D.int64
    check_random_range(low, high, dtype)
    return TensorMeta(_check_size(size, dtype), dtype)


def _randint_high(
    high, size, generator=None, dtype=None, layout=None, device=None, pin_memory=None, requires_grad=False
):
    from ..dispatch import call
    from .registry import OPS

    return call(OPS["randint.low"], (0, high, size, generator, dtype, layout, device, pin_memory, requires_grad))


defop(
    f"randint(SymInt high, SymInt[] size, *, {_GEN}, {_OPTS}) -> Tensor",
    composite=_randint_high,
    method=False,
    out=True,
    family=F,
)
defop(
    f"randint(SymInt low, SymInt high, SymInt[] size, *, {_GEN}, {_OPTS}) -> Tensor",
    meta=_randint_meta,
    method=False,
    overload="low",
    out=True,
    family=F,
)


def _randperm_meta(n, generator=None, dtype=None, *rest):
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    dtype = dtype or D.int64
    if dtype is D.bool_ or dtype.is_complex:
        raise _not_impl("randperm_cpu", dtype)
    return TensorMeta((n,), dtype)


defop(f"randperm(SymInt n, *, {_GEN}, {_OPTS}) -> Tensor", meta=_randperm_meta, method=False, out=True, family=F)


# --- *_like --------------------------------------------------------------------------------
def _like_composite(name, nvals):
    def composite(self, *args):
        vals, (generator, dtype, _layout, device, _pin, _rg, _memory_format) = args[:nvals], args[nvals:]
        from ..dispatch import call
        from .registry import OPS

        op = OPS[name]
        return call(
            op,
            tuple(vals)
            + (tuple(self._shape), generator, dtype or self.dtype, None, device or self.device, None, False),
        )

    return composite


defop(f"rand_like(Tensor self, *, {_LIKE}) -> Tensor", composite=_like_composite("rand", 0), method=False, family=F)
defop(f"randn_like(Tensor self, *, {_LIKE}) -> Tensor", composite=_like_composite("randn", 0), method=False, family=F)
defop(
    f"randint_like(Tensor self, SymInt high, *, {_LIKE}) -> Tensor",
    composite=lambda self, high, *a: _like_composite("randint.low", 2)(self, 0, high, *a),
    method=False,
    family=F,
)
defop(
    f"randint_like(Tensor self, SymInt low, SymInt high, *, {_LIKE}) -> Tensor",
    composite=_like_composite("randint.low", 2),
    method=False,
    overload="low_dtype",
    family=F,
)


# --- normal ------------------------------------------------------------------------------
def check_std(std):
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")


def _normal_float_dtype(d):
    return _float_only(d, "normal_kernel_cpu")


def _normal_tt(mean, std, generator=None):
    return TensorMeta(
        broadcast_shapes(mean._shape, std._shape), _normal_float_dtype(D.promote_types(mean.dtype, std.dtype))
    )


def _normal_tf(mean, std=1.0, generator=None):
    check_std(std)
    return TensorMeta(mean._shape, _normal_float_dtype(mean.dtype))


def _normal_ft(mean, std, generator=None):
    return TensorMeta(std._shape, _normal_float_dtype(std.dtype))


def _normal_ff(mean, std, size, generator=None, dtype=None, *rest):
    check_std(std)
    return TensorMeta(_check_size(size), _normal_float_dtype(dtype or D.get_default_dtype()))


defop(
    f"normal(Tensor mean, Tensor std, *, {_GEN}) -> Tensor",
    meta=_normal_tt,
    method=False,
    overload="Tensor_Tensor",
    out=True,
    family=F,
    grad={"mean": "grad", "std": "normal_std_grad(grad, result, mean, std)"},
)
defop(
    f"normal(Tensor mean, float std=1, *, {_GEN}) -> Tensor",
    meta=_normal_tf,
    method=False,
    overload="Tensor_float",
    out=True,
    family=F,
    grad={"mean": "grad"},
)
defop(
    f"normal(float mean, Tensor std, *, {_GEN}) -> Tensor",
    meta=_normal_ft,
    method=False,
    overload="float_Tensor",
    out=True,
    family=F,
    grad={"std": "normal_std_grad(grad, result, mean, std)"},
)
defop(
    f"normal(float mean, float std, SymInt[] size, *, {_GEN}, {_OPTS}) -> Tensor",
    meta=_normal_ff,
    method=False,
    overload="float_float",
    out=True,
    family=F,
)


# --- bernoulli / multinomial ---------------------------------------------------------------
def _bernoulli_meta(self, generator=None):
    _float_only(self.dtype, "bernoulli_tensor_cpu_p_")
    return TensorMeta(self._shape, self.dtype)


def check_p(p):
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")


def _bernoulli_p_meta(self, p, generator=None):
    check_p(p)
    return TensorMeta(self._shape, self.dtype)


defop(
    f"bernoulli(Tensor self, *, {_GEN}) -> Tensor", meta=_bernoulli_meta, out=True, family=F, grad={"self": "grad * 0"}
)
defop(
    f"bernoulli(Tensor self, float p, *, {_GEN}) -> Tensor",
    meta=_bernoulli_p_meta,
    overload="p",
    out=True,
    family=F,
    grad={"self": "grad * 0"},
)


def _poisson_meta(self, generator=None):
    _float_only(self.dtype, "poisson_cpu")
    return TensorMeta(self._shape, self.dtype)


def _binomial_meta(count, prob, generator=None):
    if count.dtype._kind != 2:
        raise ValueError(f"binomial only supports floating-point dtypes for count, got: {_cname(count.dtype)}")
    return TensorMeta(broadcast_shapes(count._shape, prob._shape), count.dtype)


defop(f"poisson(Tensor self, {_GEN}) -> Tensor", meta=_poisson_meta, method=False, family=F, grad={"self": "grad * 0"})
defop(
    f"binomial(Tensor count, Tensor prob, {_GEN}) -> Tensor",
    meta=_binomial_meta,
    method=False,
    family=F,
    grad={"count": "grad * 0", "prob": "grad * 0"},
)


def _native_dropout(input, p, train=None):
    import mindtorch

    if not train:
        return input.clone(), mindtorch.ones_like(input, dtype=D.bool_)
    keep = mindtorch.rand_like(input) >= p if p < 1 else mindtorch.zeros_like(input, dtype=D.bool_)
    scale = 0.0 if p >= 1 else 1.0 / (1.0 - p)
    return input * keep * scale, keep


defop(
    "native_dropout(Tensor input, float p, bool? train) -> (Tensor output, Tensor mask)",
    composite=_native_dropout,
    method=False,
    family=F,
)


def _multinomial_meta(self, num_samples, replacement=False, generator=None):
    n = len(self._shape)
    if n not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if self.dtype._kind != 2:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: {_cname(self.dtype)}")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    ncat = self._shape[-1]
    if not replacement and num_samples > ncat:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    return TensorMeta(self._shape[:-1] + (num_samples,), D.int64)


defop(
    f"multinomial(Tensor self, SymInt num_samples, bool replacement=False, *, {_GEN}) -> Tensor",
    meta=_multinomial_meta,
    out=True,
    family=F,
)


# --- in-place samplers ---------------------------------------------------------------------
def _uniform_meta(self, low=0.0, high=1.0, generator=None):
    _float_only(self.dtype, "check_uniform_bounds")
    if low > high:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={low:g} > to={high:g}")
    return TensorMeta(self._shape, self.dtype)


def _normal_inplace_meta(self, mean=0.0, std=1.0, generator=None):
    _float_only(self.dtype, "normal_kernel_cpu")
    check_std(std)
    return TensorMeta(self._shape, self.dtype)


def _exponential_meta(self, lambd=1.0, generator=None):
    _float_only(self.dtype, "exponential_cpu")
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd:g}")
    return TensorMeta(self._shape, self.dtype)


def _bernoulli_inplace_meta(self, p=0.5, generator=None):
    if self.dtype._kind == 3:
        raise _not_impl("bernoulli_tensor_cpu_self_" if hasattr(p, "_shape") else "bernoulli_scalar_cpu_", self.dtype)
    if hasattr(p, "_shape"):
        broadcast_shapes(self._shape, p._shape)
    else:
        check_p(p)
    return TensorMeta(self._shape, self.dtype)


def random_bounds(dtype, low=None, high=None):
    """The [low, high) range random_ draws from (defaults: the dtype's non-negative range)."""
    if high is None:
        if low is not None:  # random_(from, None): up to the dtype's maximum
            high = _INT_RANGE[dtype.name][1]
            check_random_range(low, high, dtype)
            return low, high
        if dtype._kind == 2:
            return 0, _INT_RANGE[dtype.name][1]
        return 0, _INT_RANGE[dtype.name][1]
    low = 0 if low is None else low
    check_random_range(low, high, dtype)
    return low, high


def _random_meta(self, generator=None):
    return TensorMeta(self._shape, self.dtype)


def _random_to_meta(self, to, generator=None):
    random_bounds(self.dtype, 0, to)
    return TensorMeta(self._shape, self.dtype)


def _random_from_meta(self, low, to=None, generator=None):
    random_bounds(self.dtype, low, to)
    return TensorMeta(self._shape, self.dtype)


_ZERO = {"self": "grad * 0"}
declare_inplace(
    f"uniform_(Tensor(a!) self, float low=0, float high=1, *, {_GEN}) -> Tensor(a!)",
    meta=_uniform_meta,
    family=F,
    grad=_ZERO,
)
declare_inplace(
    f"normal_(Tensor(a!) self, float mean=0, float std=1, *, {_GEN}) -> Tensor(a!)",
    meta=_normal_inplace_meta,
    family=F,
    grad=_ZERO,
)
declare_inplace(
    f"exponential_(Tensor(a!) self, float lambd=1, *, {_GEN}) -> Tensor(a!)",
    meta=_exponential_meta,
    family=F,
    grad=_ZERO,
)
declare_inplace(
    f"bernoulli_(Tensor(a!) self, Tensor p, *, {_GEN}) -> Tensor(a!)",
    meta=_bernoulli_inplace_meta,
    overload="Tensor",
    family=F,
    grad=_ZERO,
)
declare_inplace(
    f"bernoulli_(Tensor(a!) self, float p=0.5, *, {_GEN}) -> Tensor(a!)",
    meta=_bernoulli_inplace_meta,
    overload="float",
    family=F,
    grad=_ZERO,
)
declare_inplace(f"random_(Tensor(a!) self, *, {_GEN}) -> Tensor(a!)", meta=_random_meta, family=F, grad=_ZERO)


# --- samplers composed from uniform_ / normal_ (any backend with those has these); a composite does
# not run its meta rule first, so each checks its arguments itself
def _cauchy_meta(self, median=0.0, sigma=1.0, generator=None):
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma:g}")
    if self.dtype._kind < 2:
        raise RuntimeError(
            "Cauchy distribution is a continuous probability distribution. dtype must be a floating point but "
            f"you specified {D.cpp_name(self.dtype)}"
        )
    return TensorMeta(self._shape, self.dtype)


def _cauchy(self, median=0.0, sigma=1.0, generator=None):
    _cauchy_meta(self, median, sigma)
    u = torch.empty(self._shape, dtype=D.float64, device=self.device).uniform_(generator=generator)
    return self.copy_(median + sigma * torch.tan(math.pi * (u - 0.5)))


def _log_normal_meta(self, mean=1.0, std=2.0, generator=None):
    _float_only(self.dtype, "log_normal_cpu")
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std:g}")
    return TensorMeta(self._shape, self.dtype)


def _log_normal(self, mean=1.0, std=2.0, generator=None):
    _log_normal_meta(self, mean, std)
    z = torch.empty(self._shape, dtype=D.float64, device=self.device).normal_(mean, std, generator=generator)
    return self.copy_(z.exp())


def _geometric_meta(self, p, generator=None):
    if self.dtype is D.bool_:
        raise _not_impl("geometric_cpu", self.dtype)
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p:g}")
    return TensorMeta(self._shape, self.dtype)


def _geometric(self, p, generator=None):
    _geometric_meta(self, p)
    # the number of Bernoulli(p) trials up to the first success: ceil(log(U) / log(1 - p)), U in (0, 1]
    u = 1.0 - torch.empty(self._shape, dtype=D.float64, device=self.device).uniform_(generator=generator)
    return self.copy_(torch.clamp(torch.ceil(torch.log(u) / math.log1p(-p)), min=1.0))


declare_inplace(
    f"cauchy_(Tensor(a!) self, float median=0, float sigma=1, *, {_GEN}) -> Tensor(a!)",
    meta=_cauchy_meta,
    composite=_cauchy,
    family=F,
    grad=_ZERO,
)
declare_inplace(
    f"log_normal_(Tensor(a!) self, float mean=1, float std=2, *, {_GEN}) -> Tensor(a!)",
    meta=_log_normal_meta,
    composite=_log_normal,
    family=F,
    grad=_ZERO,
)
declare_inplace(
    f"geometric_(Tensor(a!) self, float p, *, {_GEN}) -> Tensor(a!)",
    meta=_geometric_meta,
    composite=_geometric,
    family=F,
    grad=_ZERO,
)
declare_inplace(
    f"random_(Tensor(a!) self, int to, *, {_GEN}) -> Tensor(a!)",
    meta=_random_to_meta,
    overload="to",
    family=F,
    grad=_ZERO,
)
declare_inplace(
    f"random_(Tensor(a!) self, int low, int? to, *, {_GEN}) -> Tensor(a!)",
    meta=_random_from_meta,
    overload="from",
    family=F,
    grad=_ZERO,
)
