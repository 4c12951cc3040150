"""Reductions: sum, mean, prod, max/min, var/std, norms, logsumexp, cumulative ops, softmax."""
import collections

from .registry import defop, OPS
from . import meta as M
from .. import _dtype as D
from .._shape import wrap_dim, wrap_dims
from .formulas import torch, unsqueeze_multiple, expand_reduced, shape_of  # noqa: F401

F = "reduction"
TM = M.TensorMeta


# --- named results (torch.return_types) --------------------------------------
def _rt(name, fields=("values", "indices")):
    cls = collections.namedtuple(name, fields)
    cls.__module__ = "mindtorch.return_types"
    return cls


RETURN_TYPES = {n: _rt(n) for n in ("max", "min", "mode", "median", "kthvalue", "sort", "topk", "cummax",
                                     "cummin", "aminmax")}


def named_result(name, fields=("values", "indices")):
    """The torch.return_types class `name` (made and registered on first request)."""
    cls = RETURN_TYPES.get(name)
    if cls is None:
        cls = RETURN_TYPES[name] = _rt(name, fields)
    return cls


# --- shape helpers ---------------------------------------------------------
def norm_dims(dim, nd):
    """Wrapped reduction dims; None or () means every dim."""
    if dim is None or dim == ():
        return tuple(range(nd))
    if isinstance(dim, int):
        dim = (dim,)
    if nd == 0:
        for d in dim:
            wrap_dim(d, 0)
        return ()
    return wrap_dims(dim, nd)


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
            raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                               "Specify the reduction dim with the 'dim' argument.")
        return
    for d in dims:
        if shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


# --- meta rules --------------------------------------------------------------
def _sum_meta(self, dim=None, keepdim=False, dtype=None):
    if dim is None and not keepdim:  # the full reduction, by far the most common call
        return TM((), dtype or _int_to_long(self.dtype))
    dims = norm_dims(dim, len(self._shape))
    return TM(_rshape(self._shape, dims, keepdim), dtype or _int_to_long(self.dtype))


def _mean_meta(self, dim=None, keepdim=False, dtype=None):
    if dtype is not None:
        if dtype._kind < 2:
            raise RuntimeError("mean(): could not infer output dtype. Optional dtype must be either a floating "
                               f"point or complex dtype. Got: {_tname(dtype)}")
    elif self.dtype._kind < 2:
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a floating point or "
                           f"complex dtype. Got: {_tname(self.dtype)}")
    dims = norm_dims(dim, len(self._shape))
    return TM(_rshape(self._shape, dims, keepdim), dtype or self.dtype)


def _prod_meta(self, dim=None, keepdim=False, dtype=None):
    if dim is None:
        return TM((), dtype or _int_to_long(self.dtype))
    return _sum_meta(self, dim, keepdim, dtype)


def _full_meta(name):
    def rule(self):
        _nonempty(name, self, (), True)
        return TM((), self.dtype)
    return rule


def _dim_meta(name):
    def rule(self, dim, keepdim=False):
        dims = norm_dims(dim, len(self._shape))
        _nonempty(name, self, dims, False)
        shape = _rshape(self._shape, dims, keepdim)
        return TM(shape, self.dtype), TM(shape, D.int64)
    return rule


def _amax_meta(name):
    def rule(self, dim=(), keepdim=False):
        dims = norm_dims(dim, len(self._shape))
        _nonempty(name, self, dims, False)
        return TM(_rshape(self._shape, dims, keepdim), self.dtype)
    return rule


def _arg_meta(name):
    def rule(self, dim=None, keepdim=False):
        nd = len(self._shape)
        if self.dtype is D.bool_:
            raise RuntimeError(f"{name}(): does not support bool input")
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


def _softmax_meta(name):
    def rule(self, dim, dtype=None):
        wrap_dim(dim, len(self._shape))
        d = dtype or self.dtype
        _float_only(name, d)
        return TM(self._shape, d)
    return rule


def _vector_norm_meta(self, ord=2, dim=None, keepdim=False, dtype=None):
    if self.dtype._kind < 2:
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as input. "
                           f"Got {_tname(self.dtype)}")
    if dtype is not None and dtype._kind < 2:
        raise RuntimeError("linalg.vector_norm: dtype should be floating point or complex. "
                           f"Got {_tname(dtype)}")
    dims = norm_dims(dim, len(self._shape))
    if ord < 0 and self.numel() == 0 and dims:
        if any(self._shape[d] == 0 for d in dims):
            raise RuntimeError(f"linalg.vector_norm cannot compute the {ord} norm on an empty tensor because "
                               "the operation does not have an identity")
    return TM(_rshape(self._shape, dims, keepdim), (dtype or self.dtype).to_real())


# --- backward helpers ------------------------------------------------------
def softmax_backward(grad_output, output, dim):
    """softmax's derivative as a chain of ops (the composite of _softmax_backward_data)."""
    return output * (grad_output - (grad_output * output).sum(dim, keepdim=True))


def log_softmax_backward(grad_output, output, dim):
    return grad_output - torch.exp(output) * grad_output.sum(dim, keepdim=True)


# --- ops ---------------------------------------------------------------------
defop("sum(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
      meta=_sum_meta, out=True, family=F,
      grad={"self": "expand_reduced(grad, dim, keepdim, shape_of(self))"})
defop("mean(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
      meta=_mean_meta, out=True, family=F, grad={"self": "mean_backward(grad, self, dim, keepdim)"})
defop("prod(Tensor self, int? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
      meta=_prod_meta, out=True, family=F, grad={"self": "prod_backward(grad, self, result, dim, keepdim)"})


def _minmax(name):
    inner = "_" + name + "_dim"
    defop(f"{inner}(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
          meta=_dim_meta(name), function=False, method=False, family=F,
          grad={"self": "value_selecting_reduction_backward(grads[0], result[1], dim, keepdim, shape_of(self))"})
    rt = RETURN_TYPES[name]
    inner_op = OPS[inner]
    other_name = {"max": "maximum", "min": "minimum"}[name]

    def with_dim(self, dim, keepdim=False):
        from .. import dispatch
        return rt(*dispatch.call(inner_op, (self, dim, keepdim)))

    def with_other(self, other):
        return getattr(torch, other_name)(self, other)

    defop(f"{name}(Tensor self) -> Tensor", meta=_full_meta(name), out=True, family=F,
          grad={"self": "evenly_distribute_backward(grad, self, result, None, False)"})
    defop(f"{name}(Tensor self, Tensor other) -> Tensor", composite=with_other, overload="other", out=True, family=F)
    defop(f"{name}(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
          composite=with_dim, overload="dim", out=True, family=F)


_minmax("max")
_minmax("min")

for _n in ("amax", "amin"):
    defop(f"{_n}(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor", meta=_amax_meta(_n), out=True,
          family=F, grad={"self": "evenly_distribute_backward(grad, self, result, dim, keepdim)"})
for _n in ("argmax", "argmin"):
    defop(f"{_n}(Tensor self, int? dim=None, bool keepdim=False) -> Tensor", meta=_arg_meta(_n), out=True,
          family=F)


# var/std: PyTorch's three overloads; the correction form does the work
def _correction(unbiased):
    return 1 if unbiased else 0


for _n in ("var", "std"):
    _g = ("var_backward(grad, self, dim, correction, keepdim)" if _n == "var"
          else "std_backward(grad, self, result, dim, correction, keepdim)")
    defop(f"{_n}(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor",
          meta=_var_meta, overload="correction", out=True, family=F, grad={"self": _g})


def _var_family(name, base):
    def plain(self, unbiased=True):
        return base(self, None, _correction(unbiased), False)

    def with_dim(self, dim, unbiased=True, keepdim=False):
        return base(self, dim, _correction(unbiased), keepdim)

    defop(f"{name}(Tensor self, bool unbiased=True) -> Tensor", composite=plain, family=F)
    defop(f"{name}(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> Tensor",
          composite=with_dim, overload="dim", family=F)


def _call_qual(qual):
    def call(*args):
        from .. import dispatch
        return dispatch.call(OPS[qual], args)
    return call


_var_family("var", _call_qual("var.correction"))
_var_family("std", _call_qual("std.correction"))


def _var_mean_c(self, dim=None, correction=None, keepdim=False):
    return (_call_qual("var.correction")(self, dim, correction, keepdim),
            self.mean(dim, keepdim=keepdim))


def _std_mean_c(self, dim=None, correction=None, keepdim=False):
    return (_call_qual("std.correction")(self, dim, correction, keepdim),
            self.mean(dim, keepdim=keepdim))


for _n, _fn in (("var_mean", _var_mean_c), ("std_mean", _std_mean_c)):
    defop(f"{_n}(Tensor self, bool unbiased=True) -> (Tensor, Tensor)",
          composite=(lambda f: lambda self, unbiased=True: f(self, None, _correction(unbiased), False))(_fn),
          method=False, family=F)
    defop(f"{_n}(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> (Tensor, Tensor)",
          composite=(lambda f: lambda self, dim, unbiased=True, keepdim=False:
                     f(self, dim, _correction(unbiased), keepdim))(_fn), overload="dim", method=False, family=F)
    defop(f"{_n}(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> (Tensor, Tensor)",
          composite=_fn, overload="correction", method=False, family=F)

defop("logsumexp(Tensor self, int[1] dim, bool keepdim=False) -> Tensor", meta=_logsumexp_meta, out=True,
      family=F, grad={"self": "logsumexp_backward(grad, self, result, dim, keepdim)"})
defop("all(Tensor self, int[1]? dim=None, bool keepdim=False) -> Tensor", meta=_bool_meta, out=True, family=F)
defop("any(Tensor self, int[1]? dim=None, bool keepdim=False) -> Tensor", meta=_bool_meta, out=True, family=F)
defop("count_nonzero(Tensor self, int[1]? dim=None) -> Tensor", meta=_count_nonzero_meta, family=F,
      composite=lambda self, dim=None: (self != 0).sum(dim, dtype=D.int64))
defop("cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor", meta=_cum_meta, out=True,
      inplace=True, family=F, grad={"self": "cumsum_backward(grad, dim)"})
defop("cumprod(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor", meta=_cumprod_meta, out=True,
      inplace=True, family=F, grad={"self": "cumprod_backward(grad, self, result, dim)"})
defop("softmax(Tensor self, int dim, ScalarType? dtype=None) -> Tensor", meta=_softmax_meta("softmax_kernel_impl"),
      family=F, grad={"self": "torch.ops._softmax_backward_data(grad, result, dim)"})
defop("log_softmax(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
      meta=_softmax_meta("log_softmax_kernel_impl"), family=F,
      grad={"self": "torch.ops._log_softmax_backward_data(grad, result, dim)"})


def _softmax_bwd_meta(grad_output, output, dim):
    wrap_dim(dim, len(output._shape))
    return TM(output._shape, output.dtype)


# one fused kernel per derivative; backends without it get the composite chain
defop("_softmax_backward_data(Tensor grad_output, Tensor output, int dim) -> Tensor", meta=_softmax_bwd_meta,
      composite=softmax_backward, method=False, function=False, family=F,
      grad={"grad_output": "torch.ops._softmax_backward_data(grad, output, dim)",
            "output": "grad * (grad_output - (grad_output * output).sum(dim, keepdim=True)) - "
                      "grad_output * (grad * output).sum(dim, keepdim=True)"})
defop("_log_softmax_backward_data(Tensor grad_output, Tensor output, int dim) -> Tensor", meta=_softmax_bwd_meta,
      composite=log_softmax_backward, method=False, function=False, family=F,
      grad={"grad_output": "grad - (grad * torch.exp(output)).sum(dim, keepdim=True)",
            "output": "-grad * torch.exp(output) * grad_output.sum(dim, keepdim=True)"})
defop("linalg_vector_norm(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, "
      "ScalarType? dtype=None) -> Tensor", meta=_vector_norm_meta, method=False, out=True, family=F,
      grad={"self": "vector_norm_backward(grad, self, result, ord, dim, keepdim)"})


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


defop("norm(Tensor self, Scalar? p=2, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
      composite=_norm_num, out=True, family=F)
defop("norm(Tensor self, str p, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
      composite=_norm_str, overload="str", out=True, family=F)
