"""Reductions: sum, mean, prod, max/min, var/std, norms, logsumexp, cumulative ops, softmax; the
NaN-ignoring reductions, quantiles, aminmax, cummax/cummin, logcumsumexp; statistics (dist, cov,
corrcoef); differences and integrals along a dim (diff, gradient, trapezoid)."""

import collections
import math

from .. import _dtype as D
from .._geometry import wrap_dim
from . import meta as M
from .formulas import computed_in_float32, expand_reduced, shape_of, torch, unsqueeze_multiple  # noqa: F401
from .meta import TensorMeta, norm_dims
from .registry import OPS, defop

F = "reduction"
TM = M.TensorMeta


# --- named results (torch.return_types) --------------------------------------
def _rt(name, fields=("values", "indices")):
    cls = collections.namedtuple(name, fields)
    cls.__module__ = "mindtorch.return_types"
    return cls


RETURN_TYPES = {
    n: _rt(n) for n in ("max", "min", "mode", "median", "kthvalue", "sort", "topk", "cummax", "cummin", "aminmax")
}


def named_result(name, fields=("values", "indices")):
    """The torch.return_types class `name` (made and registered on first request)."""
    cls = RETURN_TYPES.get(name)
    if cls is None:
        cls = RETURN_TYPES[name] = _rt(name, fields)
    return cls


# --- shape helpers ---------------------------------------------------------
def _rshape(shape, dims, keepdim):
    if keepdim:
        return tuple(1 if i in dims else s for i, s in enumerate(shape))
    return tuple(s for i, s in enumerate(shape) if i not in dims)


from .._dtype import _cname as _tname  # noqa: E402


def _int_to_long(d):
    return D.int64 if d._kind < 2 else d


def _float_only(name, d):
    if d._kind < 2:
        raise NotImplementedError(f"\"{name}\" not implemented for '{_tname(d)}'")


def _nonempty(name, self, dims, full):
    shape = self._shape
    if full:
        if self.numel() == 0:
            raise RuntimeError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument."
            )
        return
    for d in dims:
        if shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


# --- meta rules --------------------------------------------------------------
# input dtype -> the 0-d meta of its full sum without a dtype argument (metas are never changed)
_FULL_SUM_META: dict = {}


def _sum_meta(self, dim=None, keepdim=False, dtype=None):
    if dim is None and not keepdim:  # the full reduction, by far the most common call
        if dtype is None:
            m = _FULL_SUM_META.get(self.dtype)
            if m is None:
                m = _FULL_SUM_META[self.dtype] = M.shared_meta((), _int_to_long(self.dtype))
            return m
        return M.shared_meta((), dtype)
    dims = norm_dims(dim, len(self._shape))
    return TM(_rshape(self._shape, dims, keepdim), dtype or _int_to_long(self.dtype))


def _mean_meta(self, dim=None, keepdim=False, dtype=None):
    if dtype is not None:
        if dtype._kind < 2:
            raise RuntimeError(
                "mean(): could not infer output dtype. Optional dtype must be either a floating "
                f"point or complex dtype. Got: {_tname(dtype)}"
            )
    elif self.dtype._kind < 2:
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or "
            f"complex dtype. Got: {_tname(self.dtype)}"
        )
    dims = norm_dims(dim, len(self._shape))
    return TM(_rshape(self._shape, dims, keepdim), dtype or self.dtype)


def _prod_meta(self, dim=None, keepdim=False, dtype=None):
    if dim is None:
        return TM((), dtype or _int_to_long(self.dtype))
    return _sum_meta(self, dim, keepdim, dtype)


def _not_ordered(kname, d):
    """Complex numbers have no order: PyTorch has no kernel for them."""
    if d._kind == 3:
        raise NotImplementedError(f"\"{kname}\" not implemented for '{_tname(d)}'")


def _full_meta(name):
    def rule(self):
        _not_ordered(f"{name}_all", self.dtype)
        _nonempty(name, self, (), True)
        return TM((), self.dtype)

    return rule


def _dim_meta(name):
    def rule(self, dim, keepdim=False):
        if self.dtype._kind == 3:
            raise RuntimeError(f"{name}(): does not support complex input")
        dims = norm_dims(dim, len(self._shape))
        _nonempty(name, self, dims, False)
        shape = _rshape(self._shape, dims, keepdim)
        return TM(shape, self.dtype), TM(shape, D.int64)

    return rule


def _amax_meta(name):
    def rule(self, dim=(), keepdim=False):
        _not_ordered(f"{name[1:]}_values_cpu", self.dtype)
        dims = norm_dims(dim, len(self._shape))
        _nonempty(name, self, dims, False)
        return TM(_rshape(self._shape, dims, keepdim), self.dtype)

    return rule


def _arg_meta(name):
    def rule(self, dim=None, keepdim=False):
        nd = len(self._shape)
        if self.dtype is D.bool_ or self.dtype._kind == 3:
            kind = "bool" if self.dtype is D.bool_ else "complex"
            raise RuntimeError(f"{name}(): does not support {kind} input")
        if dim is None:
            if self.numel() == 0:
                raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
            return TM((1,) * nd if keepdim else (), D.int64)
        dims = norm_dims(dim, nd)
        _nonempty(name, self, dims, False)
        return TM(_rshape(self._shape, dims, keepdim), D.int64)

    return rule


def _var_meta(self, dim=None, correction=None, keepdim=False):
    if self.dtype._kind < 2:
        raise RuntimeError("std and var only support floating point and complex dtypes")
    dims = norm_dims(dim, len(self._shape))
    return TM(_rshape(self._shape, dims, keepdim), self.dtype.to_real())


def _logsumexp_meta(self, dim=(), keepdim=False):
    dims = norm_dims(dim, len(self._shape))
    d = self.dtype if self.dtype._kind >= 2 else D.get_default_dtype()
    return TM(_rshape(self._shape, dims, keepdim), d)


def _bool_meta(self, dim=None, keepdim=False):
    dims = norm_dims(dim, len(self._shape))
    return TM(_rshape(self._shape, dims, keepdim), D.uint8 if self.dtype is D.uint8 else D.bool_)


def _count_nonzero_meta(self, dim=None):
    dims = norm_dims(dim, len(self._shape))
    return TM(_rshape(self._shape, dims, False), D.int64)


def _cum_meta(self, dim, dtype=None):
    wrap_dim(dim, len(self._shape))
    return TM(self._shape, dtype or _int_to_long(self.dtype))


def _cumprod_meta(self, dim, dtype=None):
    return _cum_meta(self, dim, dtype)


def _cum_inplace_meta(kernel):
    """cumsum_ / cumprod_ keep self's dtype: a dtype argument must name it, and bool has no kernel."""

    def rule(self, dim, dtype=None):
        wrap_dim(dim, len(self._shape))
        if dtype is not None and dtype is not self.dtype:
            raise RuntimeError(
                f"Bad in-place call: input tensor dtype {D.cpp_name(self.dtype)} and output tensor dtype "
                f"{D.cpp_name(dtype)} should match"
            )
        if self.dtype is D.bool_:
            raise M.not_implemented(kernel, self.dtype)
        return TM(self._shape, self.dtype)

    return rule


def _softmax_meta(name):
    def rule(self, dim, dtype=None):
        wrap_dim(dim, len(self._shape))
        d = dtype or self.dtype
        _float_only(name, d)
        return TM(self._shape, d)

    return rule


def _vector_norm_meta(self, ord=2, dim=None, keepdim=False, dtype=None):
    if self.dtype._kind < 2:
        raise RuntimeError(
            f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got {_tname(self.dtype)}"
        )
    if dtype is not None and dtype._kind < 2:
        raise RuntimeError(f"linalg.vector_norm: dtype should be floating point or complex. Got {_tname(dtype)}")
    dims = norm_dims(dim, len(self._shape))
    if self.numel() == 0 and (ord < 0 or ord == math.inf):
        _norm_without_identity(self, ord, dim, dims)
    return TM(_rshape(self._shape, dims, keepdim), (dtype or self.dtype).to_real())


def _norm_without_identity(self, ord, dim, dims):
    """A negative or infinite norm has no identity: an empty reduction has no value (PyTorch's errors)."""
    what = int(ord) if isinstance(ord, float) and ord.is_integer() else ord  # PyTorch prints -1.0 as -1
    if dim is None or (isinstance(dim, (list, tuple)) and not dim):
        raise RuntimeError(
            f"linalg.vector_norm cannot compute the {what} norm on an empty tensor because "
            "the operation does not have an identity"
        )
    for d in dims:
        if self._shape[d] == 0:
            raise RuntimeError(
                f"linalg.vector_norm cannot compute the {what} norm on the dimension {d}"
                "because this dimension is empty and the operation does not have an identity"
            )


# --- the derivative of softmax / log_softmax as a chain of ops (their _backward_data composites) ------
def softmax_backward(grad_output, output, dim):
    """softmax's derivative as a chain of ops (the composite of _softmax_backward_data)."""
    return output * (grad_output - (grad_output * output).sum(dim, keepdim=True))


def log_softmax_backward(grad_output, output, dim):
    return grad_output - torch.exp(output) * grad_output.sum(dim, keepdim=True)


# --- ops ---------------------------------------------------------------------
defop(
    "sum(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    meta=_sum_meta,
    out=True,
    family=F,
    grad={"self": "expand_reduced(grad, dim, keepdim, shape_of(self))"},
)
defop(
    "mean(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    meta=_mean_meta,
    out=True,
    family=F,
    grad={"self": "mean_backward(grad, self, dim, keepdim)"},
)
defop(
    "prod(Tensor self, int? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    meta=_prod_meta,
    out=True,
    family=F,
    grad={"self": "prod_backward(grad, self, result, dim, keepdim)"},
)


def _minmax(name):
    inner = "_" + name + "_dim"
    defop(
        f"{inner}(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
        meta=_dim_meta(name),
        function=False,
        method=False,
        family=F,
        grad={"self": "value_selecting_reduction_backward(grads[0], result[1], dim, keepdim, shape_of(self))"},
    )
    rt = RETURN_TYPES[name]
    inner_op = OPS[inner]
    other_name = {"max": "maximum", "min": "minimum"}[name]

    def with_dim(self, dim, keepdim=False):
        from .. import dispatch

        return rt(*dispatch.call(inner_op, (self, dim, keepdim)))

    def with_other(self, other):
        return getattr(torch, other_name)(self, other)

    defop(
        f"{name}(Tensor self) -> Tensor",
        meta=_full_meta(name),
        out=True,
        family=F,
        grad={"self": "evenly_distribute_backward(grad, self, result, None, False)"},
    )
    defop(f"{name}(Tensor self, Tensor other) -> Tensor", composite=with_other, overload="other", out=True, family=F)
    defop(
        f"{name}(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
        composite=with_dim,
        overload="dim",
        out=True,
        family=F,
    )


_minmax("max")
_minmax("min")

for _n in ("amax", "amin"):
    defop(
        f"{_n}(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor",
        meta=_amax_meta(_n),
        out=True,
        family=F,
        grad={"self": "evenly_distribute_backward(grad, self, result, dim, keepdim)"},
    )
for _n in ("argmax", "argmin"):
    defop(f"{_n}(Tensor self, int? dim=None, bool keepdim=False) -> Tensor", meta=_arg_meta(_n), out=True, family=F)


# var/std: PyTorch's three overloads; the correction form does the work
def _correction(unbiased):
    return 1 if unbiased else 0


for _n in ("var", "std"):
    _g = (
        "var_backward(grad, self, dim, correction, keepdim)"
        if _n == "var"
        else "std_backward(grad, self, result, dim, correction, keepdim)"
    )
    defop(
        f"{_n}(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor",
        meta=_var_meta,
        overload="correction",
        out=True,
        family=F,
        grad={"self": _g},
    )


def _var_family(name, base):
    def plain(self, unbiased=True):
        return base(self, None, _correction(unbiased), False)

    def with_dim(self, dim, unbiased=True, keepdim=False):
        return base(self, dim, _correction(unbiased), keepdim)

    defop(f"{name}(Tensor self, bool unbiased=True) -> Tensor", composite=plain, family=F)
    defop(
        f"{name}(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> Tensor",
        composite=with_dim,
        overload="dim",
        family=F,
    )


def _call_qual(qual):
    def call(*args):
        from .. import dispatch

        return dispatch.call(OPS[qual], args)

    return call


_var_family("var", _call_qual("var.correction"))
_var_family("std", _call_qual("std.correction"))


def _var_mean_c(self, dim=None, correction=None, keepdim=False):
    return (_call_qual("var.correction")(self, dim, correction, keepdim), self.mean(dim, keepdim=keepdim))


def _std_mean_c(self, dim=None, correction=None, keepdim=False):
    return (_call_qual("std.correction")(self, dim, correction, keepdim), self.mean(dim, keepdim=keepdim))


for _n, _fn in (("var_mean", _var_mean_c), ("std_mean", _std_mean_c)):
    defop(
        f"{_n}(Tensor self, bool unbiased=True) -> (Tensor {_n[:3]}, Tensor mean)",
        composite=(lambda f: lambda self, unbiased=True: f(self, None, _correction(unbiased), False))(_fn),
        method=False,
        family=F,
    )
    defop(
        f"{_n}(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> (Tensor {_n[:3]}, Tensor mean)",
        composite=(
            lambda f: lambda self, dim, unbiased=True, keepdim=False: f(self, dim, _correction(unbiased), keepdim)
        )(_fn),
        overload="dim",
        method=False,
        family=F,
    )
    defop(
        f"{_n}(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> (Tensor {_n[:3]}, Tensor mean)",
        composite=_fn,
        overload="correction",
        method=False,
        family=F,
    )

defop(
    "logsumexp(Tensor self, int[1] dim, bool keepdim=False) -> Tensor",
    meta=_logsumexp_meta,
    out=True,
    family=F,
    grad={"self": "logsumexp_backward(grad, self, result, dim, keepdim)"},
)
defop("all(Tensor self, int[1]? dim=None, bool keepdim=False) -> Tensor", meta=_bool_meta, out=True, family=F)
defop("any(Tensor self, int[1]? dim=None, bool keepdim=False) -> Tensor", meta=_bool_meta, out=True, family=F)
defop(
    "count_nonzero(Tensor self, int[1]? dim=None) -> Tensor",
    meta=_count_nonzero_meta,
    family=F,
    composite=lambda self, dim=None: (self != 0).sum(dim, dtype=D.int64),
)
defop(
    "cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor",
    meta=_cum_meta,
    out=True,
    inplace=True,
    inplace_meta=_cum_inplace_meta("cumsum_out_cpu"),
    family=F,
    grad={"self": "cumsum_backward(grad, dim)"},
)
defop(
    "cumprod(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor",
    meta=_cumprod_meta,
    out=True,
    inplace=True,
    inplace_meta=_cum_inplace_meta("cumprod_out_cpu"),
    family=F,
    grad={"self": "cumprod_backward(grad, self, result, dim)"},
)
defop(
    "softmax(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
    meta=_softmax_meta("softmax_kernel_impl"),
    family=F,
    grad={"self": "torch.ops._softmax_backward_data(grad, result, dim)"},
)
defop(
    "log_softmax(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
    meta=_softmax_meta("log_softmax_kernel_impl"),
    family=F,
    grad={"self": "torch.ops._log_softmax_backward_data(grad, result, dim)"},
)


def _softmax_bwd_meta(grad_output, output, dim):
    wrap_dim(dim, len(output._shape))
    _float_only("softmax_backward_lastdim_kernel_impl", output.dtype)
    return TM(output._shape, output.dtype)


def _softmax_bwd_composite(chain):
    run = computed_in_float32(chain)

    def composite(grad_output, output, dim):
        _softmax_bwd_meta(grad_output, output, dim)  # composites run without the shape rule: its refusals first
        return run(grad_output, output, dim)

    return composite


# one fused kernel per derivative; backends without it get the composite chain
defop(
    "_softmax_backward_data(Tensor grad_output, Tensor output, int dim) -> Tensor",
    meta=_softmax_bwd_meta,
    composite=_softmax_bwd_composite(softmax_backward),
    method=False,
    function=False,
    family=F,
    grad={
        "grad_output": "torch.ops._softmax_backward_data(grad, output, dim)",
        "output": "grad * (grad_output - (grad_output * output).sum(dim, keepdim=True)) - "
        "grad_output * (grad * output).sum(dim, keepdim=True)",
    },
)
defop(
    "_log_softmax_backward_data(Tensor grad_output, Tensor output, int dim) -> Tensor",
    meta=_softmax_bwd_meta,
    composite=_softmax_bwd_composite(log_softmax_backward),
    method=False,
    function=False,
    family=F,
    grad={
        "grad_output": "grad - (grad * torch.exp(output)).sum(dim, keepdim=True)",
        "output": "-grad * torch.exp(output) * grad_output.sum(dim, keepdim=True)",
    },
)
defop(
    "linalg_vector_norm(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, "
    "ScalarType? dtype=None) -> Tensor",
    meta=_vector_norm_meta,
    method=False,
    out=True,
    family=F,
    grad={"self": "linalg_vector_norm_backward(grad, self, result, ord, dim, keepdim)"},
)


# torch.norm / Tensor.norm: the legacy front end over the linalg norms
def _norm_num(self, p=2, dim=None, keepdim=False, dtype=None):
    if p is None:
        p = 2
    return _call_qual("linalg_vector_norm")(self, p, dim, keepdim, dtype)


def _norm_str(self, p, dim=None, keepdim=False, dtype=None):
    if p == "fro" and (dim is None or len(dim) <= 2):
        return _call_qual("linalg_vector_norm")(self, 2, dim, keepdim, dtype)
    if p == "nuc":
        from .. import linalg

        return linalg.matrix_norm(self, "nuc", (-2, -1) if dim is None else dim, keepdim, dtype=dtype)
    raise RuntimeError(f"linalg.matrix_norm: Order {p} not supported.")


defop(
    "norm(Tensor self, Scalar? p=2, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    composite=_norm_num,
    out=True,
    family=F,
)
defop(
    "norm(Tensor self, str p, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    composite=_norm_str,
    overload="str",
    out=True,
    family=F,
)


# --- reductions ignoring NaN, quantiles, min-and-max, running extremes ----------------------------
aminmax_result = collections.namedtuple("aminmax", ["min", "max"])
aminmax_result.__module__ = "mindtorch.return_types"
cum_results = {n: collections.namedtuple(n, ["values", "indices"]) for n in ("cummax", "cummin")}
for _cum_rt in cum_results.values():
    _cum_rt.__module__ = "mindtorch.return_types"


def _nansum(self, dim=None, keepdim=False, dtype=None):
    if self.is_complex():  # nanmean too: it sums with nansum
        raise RuntimeError("nansum on CPU does not support complex inputs")
    x = torch.where(self.isnan(), torch.zeros_like(self), self) if self.is_floating_point() else self
    return x.sum(dim, keepdim=keepdim, dtype=dtype)


defop(
    "nansum(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    composite=_nansum,
    out=True,
    family=F,
)


def _nanmean(self, dim=None, keepdim=False, dtype=None):
    if not (self.is_floating_point() or self.is_complex()):
        raise RuntimeError(
            f"nanmean(): expected input to have floating point or complex dtype but got {D._cname(self.dtype)}"
        )
    count = (~self.isnan()).sum(dim, keepdim=keepdim)
    return _nansum(self, dim, keepdim, dtype) / count


defop(
    "nanmean(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    composite=_nanmean,
    out=True,
    family=F,
)

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile_q(self, q, interpolation):
    """quantile's argument checks (nanquantile's messages say quantile() too, as PyTorch's do); q as a tensor."""
    scalar_q = not isinstance(q, torch.Tensor)
    if not scalar_q and q.dim() > 1:
        raise RuntimeError("quantile() q must be a scalar or 1D tensor")
    if self.dtype not in (D.float32, D.float64):
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(
            f"quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, but got {interpolation}"
        )
    if scalar_q:
        if not 0 <= q <= 1:
            raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {q}")
        return torch.tensor([q], dtype=self.dtype, device=self.device), True
    if q.dtype is not self.dtype:
        raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
    if bool(((q < 0) | (q > 1)).any()):
        raise RuntimeError("quantile() q values must be in the range [0, 1]")
    return q, False


def _quantile(name, ignore_nan):
    def quantile(self, q, dim=None, keepdim=False, interpolation="linear"):
        qt, scalar_q = _quantile_q(self, q, interpolation)
        x = self.reshape(-1) if dim is None else self
        d = 0 if dim is None else wrap_dim(dim, max(self.dim(), 1))
        x = x.movedim(d, -1) if x.dim() else x.reshape(1)
        n = x.shape[-1]
        if n == 0:
            raise RuntimeError("quantile() input tensor must be non-empty")
        srt = x.sort(-1).values  # NaN sort last
        nans = x.isnan()
        valid = (n - nans.sum(-1, keepdim=True)) if ignore_nan else torch.full_like(nans.sum(-1, keepdim=True), n)
        qv = qt.reshape(-1)
        rank = qv * (valid - 1).to(self.dtype)  # (..., nq)
        if interpolation == "lower":
            rank = rank.floor()
        elif interpolation == "higher":
            rank = rank.ceil()
        elif interpolation == "nearest":
            rank = rank.round()
        lo = rank.floor().clamp(min=0).long()
        hi = rank.ceil().clamp(min=0).long()
        lo, hi = lo.clamp(max=n - 1), hi.clamp(max=n - 1)
        vlo, vhi = srt.gather(-1, lo), srt.gather(-1, hi)
        if interpolation == "midpoint":
            out = vlo + (vhi - vlo) * 0.5
        else:
            out = torch.lerp(vlo, vhi, (rank - lo.to(self.dtype)))
        bad = (valid == 0) if ignore_nan else nans.any(-1, keepdim=True)
        out = torch.where(bad, torch.full_like(out, float("nan")), out)
        out = out.movedim(-1, 0)  # q first, as PyTorch orders it
        if keepdim:
            if dim is None:
                out = out.reshape((out.shape[0],) + (1,) * self.dim())
            else:
                out = out.unsqueeze(d + 1)
        if dim is None and not keepdim:
            out = out.reshape(out.shape[0])
        return out[0] if scalar_q else out

    defop(
        f"{name}(Tensor self, Tensor q, int? dim=None, bool keepdim=False, *, str interpolation='linear') -> Tensor",
        composite=quantile,
        out=True,
        family=F,
    )
    defop(
        f"{name}(Tensor self, float q, int? dim=None, bool keepdim=False, *, str interpolation='linear') -> Tensor",
        composite=quantile,
        out=True,
        overload="scalar",
        family=F,
    )


_quantile("quantile", False)
_quantile("nanquantile", True)


def _aminmax(self, dim=None, keepdim=False):
    if dim is None:
        if self.numel() == 0:
            raise RuntimeError(
                "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity."
            )
        mn, mx = self.amin(), self.amax()
        if keepdim:
            shape = (1,) * self.dim()
            mn, mx = mn.reshape(shape), mx.reshape(shape)
        return aminmax_result(mn, mx)
    return aminmax_result(self.amin(dim, keepdim), self.amax(dim, keepdim))


defop(
    "aminmax(Tensor self, *, int? dim=None, bool keepdim=False) -> (Tensor min, Tensor max)",
    composite=_aminmax,
    out=True,
    family=F,
)


def _cumext(name):
    greater = name == "cummax"

    def cum(self, dim):
        if self.dtype.is_complex:
            raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{D._cname(self.dtype)}'")
        if self.dim() == 0:
            wrap_dim(dim, 0)
            return cum_results[name](self.clone(), torch.zeros((), dtype=D.int64, device=self.device))
        dim = wrap_dim(dim, self.dim())
        n = self.shape[dim]
        with torch.no_grad():
            x = self.detach().movedim(dim, -1)
            ar = torch.arange(n, device=self.device)
            seen = ar.unsqueeze(0) <= ar.unsqueeze(1)  # [j, i]: i is in prefix j
            xi = x.unsqueeze(-2)  # (..., 1, n): element i
            lowest = float("-inf") if x.is_floating_point() else (0 if x.dtype is D.bool_ else D.iinfo(x.dtype).min)
            highest = float("inf") if x.is_floating_point() else (1 if x.dtype is D.bool_ else D.iinfo(x.dtype).max)
            fill = lowest if greater else highest
            xv = x.to(D.int64) if x.dtype is D.bool_ else x
            masked = torch.where(seen, xi if x.dtype is not D.bool_ else xv.unsqueeze(-2), fill)
            best = masked.amax(-1, keepdim=True) if greater else masked.amin(-1, keepdim=True)
            hit = seen & (masked == best)  # the last index reaching the extreme wins, as in PyTorch
            idx = torch.where(hit, ar, -1).amax(-1)
            if x.is_floating_point():  # a NaN sticks: the index of the latest NaN so far
                nan_hit = seen & xi.isnan()
                nan_idx = torch.where(nan_hit, ar, -1).amax(-1)
                idx = torch.where(nan_idx >= 0, nan_idx, idx)
            idx = idx.movedim(-1, dim)
        return cum_results[name](self.gather(dim, idx), idx)

    defop(f"{name}(Tensor self, int dim) -> (Tensor values, Tensor indices)", composite=cum, out=True, family=F)


_cumext("cummax")
_cumext("cummin")


# --- logcumsumexp ---------------------------------------------------------------------------------
def _logcumsumexp_meta(self, dim):
    wrap_dim(dim, self.dim())
    if self.dtype.is_complex or self.dtype._kind < 2:
        d = self.dtype if self.dtype.is_complex else torch.get_default_dtype()
        return TensorMeta(self._shape, d)
    return TensorMeta(self._shape, self.dtype)


def _logcumsumexp(self, dim):
    """A log-domain prefix scan in log2(n) rounds of logaddexp over shifted halves (Hillis-Steele), so a
    value far below its predecessors never underflows: what a device without a kernel runs."""
    y = self.to(_logcumsumexp_meta(self, dim).dtype)
    if y.dim() == 0:
        return y.clone()
    n, shift = y.shape[dim], 1
    while shift < n:
        y = torch.cat(
            [y.narrow(dim, 0, shift), torch.logaddexp(y.narrow(dim, shift, n - shift), y.narrow(dim, 0, n - shift))],
            dim,
        )
        shift *= 2
    return y if shift > 1 else y.clone()


defop(
    "logcumsumexp(Tensor self, int dim) -> Tensor",
    meta=_logcumsumexp_meta,
    out=True,
    family=F,
    composite=_logcumsumexp,
    grad={"self": "logcumsumexp_backward(grad, self, result, dim)"},
)


# --- statistics: dist, cov, corrcoef --------------------------------------------------------------
def _dist(self, other, p=2):
    for t in (self, other):
        if t.dtype in D.WIDE_UINTS:  # PyTorch's subtraction kernel lacks them
            raise M.not_implemented("add_stub", t.dtype)
    return torch.linalg.vector_norm(self - other, p)


defop("dist(Tensor self, Tensor other, Scalar p=2) -> Tensor", composite=_dist, family=F)


def _cov(self, correction=1, fweights=None, aweights=None):
    if self.dim() > 2:
        raise RuntimeError(
            f"cov(): expected input to have two or fewer dimensions but got an input with {self.dim()} dimensions"
        )
    if self.dtype is D.bool_:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = self.reshape(1, -1) if self.dim() < 2 else self
    if not x.is_floating_point() and not x.is_complex():
        x = x.to(torch.get_default_dtype())
    n = x.shape[1]
    w = None
    if fweights is not None:
        w = fweights
    if aweights is not None:
        w = aweights if w is None else w * aweights
    if w is None:
        avg = x.mean(1, keepdim=True)
        wsum = n
        norm = n - correction
    else:
        wsum = w.sum()
        avg = (x * w).sum(1, keepdim=True) / wsum
        norm = wsum - (correction * (w * aweights).sum() / wsum if aweights is not None else correction)
    xm = x - avg
    xw = xm if w is None else xm * w
    c = xw @ xm.t().conj()
    c = c / torch.clamp(torch.as_tensor(norm, dtype=c.dtype.to_real() if c.is_complex() else c.dtype), min=0)
    return c.squeeze() if self.dim() < 2 else c


def _corrcoef(self):
    c = _cov(self)
    if c.dim() == 0:
        return c / c
    d = torch.diagonal(c)
    s = torch.sqrt(d.real if c.is_complex() else d)
    c = c / s.unsqueeze(1) / s.unsqueeze(0)
    return c if c.is_complex() else torch.clamp(c, -1, 1)


defop(
    "cov(Tensor self, *, int correction=1, Tensor? fweights=None, Tensor? aweights=None) -> Tensor",
    composite=_cov,
    family=F,
)
defop("corrcoef(Tensor self) -> Tensor", composite=_corrcoef, family=F)


# --- differences and integrals along a dim: diff, gradient, trapezoid -----------------------------
def _diff(self, n=1, dim=-1, prepend=None, append=None):
    if self.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    dim = wrap_dim(dim, self.dim())
    parts = [t for t in (prepend, self, append) if t is not None]
    x = torch.cat(parts, dim) if len(parts) > 1 else self
    for _ in range(n):
        size = x.shape[dim]
        if size == 0:
            break
        a, b = x.narrow(dim, 1, size - 1), x.narrow(dim, 0, size - 1)
        x = torch.logical_xor(a, b) if x.dtype is D.bool_ else a - b
    return x


defop(
    "diff(Tensor self, int n=1, int dim=-1, Tensor? prepend=None, Tensor? append=None) -> Tensor",
    composite=_diff,
    out=True,
    family=F,
)


def _gradient(self, spacing=1, dim=None, edge_order=1):
    """Second-order central differences inside, first- or second-order one-sided ones at the edges."""
    dims = list(range(self.dim())) if dim is None else ([dim] if isinstance(dim, int) else list(dim))
    dims = [wrap_dim(d, self.dim()) for d in dims]
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    if not isinstance(spacing, (list, tuple)):
        spacing = [spacing] * len(dims)
    if len(spacing) != len(dims):
        raise RuntimeError(
            f"torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
            f"arguments to have the same length, but got a spacing argument of length {len(spacing)} "
            f"and a dim argument of length {len(dims)}."
        )
    x = self if self.dtype._kind >= 2 else self.to(torch.get_default_dtype())
    out = []
    for d, h in zip(dims, spacing):
        n = x.shape[d]
        if n < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
        sl = lambda a, b, d=d: x.narrow(d, a, b - a)
        if hasattr(h, "_shape"):  # coordinates along d
            c = h.to(x.dtype)
            shape = [1] * x.dim()
            shape[d] = -1
            hl = (c[1:-1] - c[:-2]).reshape(shape)
            hr = (c[2:] - c[1:-1]).reshape(shape)
            inner = (hl * hl * sl(2, n) - hr * hr * sl(0, n - 2) + (hr * hr - hl * hl) * sl(1, n - 1)) / (
                hl * hr * (hl + hr)
            )
            first = (sl(1, 2) - sl(0, 1)) / (c[1] - c[0])
            last = (sl(n - 1, n) - sl(n - 2, n - 1)) / (c[-1] - c[-2])
        else:
            inner = (sl(2, n) - sl(0, n - 2)) / (2 * h)
            if edge_order == 1:
                first, last = (sl(1, 2) - sl(0, 1)) / h, (sl(n - 1, n) - sl(n - 2, n - 1)) / h
            else:
                first = (-1.5 * sl(0, 1) + 2 * sl(1, 2) - 0.5 * sl(2, 3)) / h
                last = (0.5 * sl(n - 3, n - 2) - 2 * sl(n - 2, n - 1) + 1.5 * sl(n - 1, n)) / h
        out.append(torch.cat([first, inner, last], d))
    return tuple(out)


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """Estimated derivative of a sampled function along each dim (one tensor per dim)."""
    return _gradient(input, spacing, dim, edge_order)


def _no_bool_y(name, y):
    if y.dtype is D.bool_:
        raise RuntimeError(f"{name}: received a bool input for `y`, but bool is not supported")


def _trapezoid(y, x=None, dx=None, dim=-1):
    _no_bool_y("trapezoid", y)
    d = wrap_dim(dim, y.dim())
    n = y.shape[d]
    if n == 0:
        return y.sum(d)
    left, right = y.narrow(d, 0, n - 1), y.narrow(d, 1, n - 1)
    if x is not None:
        if x.dim() == 1:
            dxs = x[1:] - x[:-1]
            dxs = dxs.reshape([-1] + [1] * (y.dim() - 1 - d))
        else:
            xd = wrap_dim(dim, x.dim())
            dxs = x.narrow(xd, 1, x.shape[xd] - 1) - x.narrow(xd, 0, x.shape[xd] - 1)
        return ((left + right) * dxs).sum(d) / 2
    step = 1 if dx is None else dx
    return (left + right).sum(d) * (step / 2)


def _cumulative_trapezoid(y, x=None, dx=None, dim=-1):
    _no_bool_y("cumulative_trapezoid", y)
    d = wrap_dim(dim, y.dim())
    n = y.shape[d]
    left, right = y.narrow(d, 0, max(n - 1, 0)), y.narrow(d, 1, max(n - 1, 0))
    if x is not None:
        dxs = (
            (x[1:] - x[:-1]).reshape([-1] + [1] * (y.dim() - 1 - d))
            if x.dim() == 1
            else x.narrow(d, 1, n - 1) - x.narrow(d, 0, n - 1)
        )
        return torch.cumsum((left + right) * dxs / 2, d)
    step = 1 if dx is None else dx
    return torch.cumsum((left + right) * (step / 2), d)


defop(
    "trapezoid(Tensor y, Tensor? x=None, *, Scalar? dx=None, int dim=-1) -> Tensor",
    composite=_trapezoid,
    method=False,
    family=F,
)
defop(
    "trapz(Tensor y, Tensor? x=None, *, Scalar? dx=None, int dim=-1) -> Tensor",
    composite=_trapezoid,
    method=False,
    family=F,
)
defop(
    "cumulative_trapezoid(Tensor y, Tensor? x=None, *, Scalar? dx=None, int dim=-1) -> Tensor",
    composite=_cumulative_trapezoid,
    method=False,
    family=F,
)


# --- hash_tensor: an xor reduction of each element's 64-bit pattern ------------------------------
def _hash_dims(self, dim, mode):
    if mode != 0:
        raise RuntimeError(f"Unknown hash_tensor mode: {mode}")
    d = self.dtype
    if d._kind == 3 or d in D.WIDE_UINTS:
        raise NotImplementedError(f"\"xor_sum_cpu\" not implemented for '{_tname(d)}'")
    full = dim is None or (not isinstance(dim, int) and len(dim) == 0)
    dims = norm_dims(None if full else dim, len(self._shape))
    if full and self.numel() == 0:
        raise RuntimeError(
            "hash_tensor: Expected reduction dim to be specified for input.numel() == 0. "
            "Specify the reduction dim with the 'dim' argument."
        )
    for i in dims:
        if self._shape[i] == 0:
            raise IndexError(f"hash_tensor: Expected reduction dim {i} to have non-zero size.")
    return dims


def _hash_tensor_meta(self, dim=(), keepdim=False, mode=0):
    return TM(_rshape(self._shape, _hash_dims(self, dim, mode), keepdim), D.uint64)


def _xor_fold(x):
    """XOR over the last dim by halving: pair up columns (a zero column evens an odd count)."""
    while x._shape[-1] > 1:
        if x._shape[-1] % 2:
            x = torch.cat([x, torch.zeros_like(x[..., :1])], -1)
        x = torch.bitwise_xor(x[..., 0::2], x[..., 1::2])
    return x[..., 0]


def _hash_tensor(self, dim=(), keepdim=False, mode=0):
    dims = _hash_dims(self, dim, mode)
    x = self.detach()
    # floats widen to float64 and integers to int64 before their bits are read
    bits = x.to(D.float64).view(D.int64) if x.is_floating_point() else x.to(D.int64)
    kept = [i for i in range(len(self._shape)) if i not in dims]
    n = math.prod(self._shape[i] for i in dims)
    bits = bits.permute(kept + list(dims)).reshape(tuple(self._shape[i] for i in kept) + (n,))
    out = _xor_fold(bits).view(D.uint64)
    return out.reshape(_rshape(self._shape, dims, True)) if keepdim else out


defop(
    "hash_tensor(Tensor self, int[1] dim=[], *, bool keepdim=False, int mode=0) -> Tensor",
    meta=_hash_tensor_meta,
    composite=_hash_tensor,
    out=True,
    family=F,
)
