"""Reduction kernels: sums, means, extremes and their indices, products, logsumexp, variance and standard
deviation, vector norms, softmax / log_softmax along a dim, and the cumulative scans."""

from mindtorch.plugins import OPS, dtypes as D, kernel_table

from .. import chips
from ..acl import types as A
from ..aclnn import DType, IntArray, Scalar, dtype_arg, launch
from ..copy import empty
from ._common import as_1d, cast, contiguous, is_contiguous, numel, run, view

KERNELS, kernel = kernel_table()


_DIMS = {}  # (dim, ndim) -> IntArray: a model reduces over the same few dims every step


def _dims(dim, ndim):
    key = (dim, ndim) if dim is None or dim.__class__ is int or dim.__class__ is tuple else None
    a = _DIMS.get(key) if key is not None else None
    if a is None:
        if dim is None:
            a = IntArray(range(ndim))
        else:
            if isinstance(dim, int):
                dim = (dim,)
            a = IntArray(dim if len(dim) else range(ndim))
        if key is not None and len(_DIMS) < 1024:
            _DIMS[key] = a
    return a


def _reduce_dtype(acl):
    def k(m, a, dim=None, keepdim=False, dtype=None):
        out = empty(m.shape, m.dtype, a.device)
        launch(acl, a, _dims(dim, len(a._shape)), bool(keepdim), dtype_arg(m.dtype), out)
        return out

    return k


def _reduce(acl):
    def k(m, a, dim=(), keepdim=False):
        out = empty(m.shape, m.dtype, a.device)
        launch(acl, a, _dims(dim, len(a._shape)), bool(keepdim), out)
        return out

    return k


KERNELS["sum"] = _reduce_dtype("ReduceSum")
KERNELS["mean"] = _reduce_dtype("Mean")
KERNELS["amax"], KERNELS["amin"] = amax, amin = _reduce("Amax"), _reduce("Amin")
KERNELS["all"], KERNELS["any"] = _reduce("All"), _reduce("Any")


@kernel("max")
def max_(m, a):
    return amax(m, a, None)


@kernel("min")
def min_(m, a):
    return amin(m, a, None)


def _dim_extreme(acl):
    def k(m, a, dim, keepdim=False):
        # aclnnMaxDim.md / aclnnMinDim.md: of the integers only INT64 (INT32 on Ascend950), which holds them all
        x = a if chips.supports(acl, a.dtype) or a.dtype.is_floating_point else cast(a, D.int64)
        values, indices = empty(m[0].shape, x.dtype, a.device), empty(m[1].shape, m[1].dtype, a.device)
        launch(acl, x, int(dim), bool(keepdim), values, indices)
        return (values if x is a else cast(values, m[0].dtype)), indices

    return k


KERNELS["_max_dim"], KERNELS["_min_dim"] = _dim_extreme("MaxDim"), _dim_extreme("MinDim")


def _flat(a):
    """A contiguous 1-D view of a (a copy first when a is not dense)."""
    c = a if is_contiguous(a) else contiguous(a)
    return view(c, (numel(c),), (1,))


def _arg(acl):
    def k(m, a, dim=None, keepdim=False):
        if dim is None:  # over the flattened tensor
            a = _flat(a)
            dim, keepdim = 0, False
        out = empty(m.shape, m.dtype, a.device)
        launch(acl, a, int(dim), bool(keepdim), out)
        return out

    return k


KERNELS["argmax"], KERNELS["argmin"] = _arg("ArgMax"), _arg("ArgMin")


@kernel("prod")
def prod(m, a, dim=None, keepdim=False, dtype=None):
    out = empty(m.shape, m.dtype, a.device)
    if dim is None:
        launch("Prod", a, DType(m.dtype), out)
    else:
        launch("ProdDim", a, int(dim), bool(keepdim), DType(m.dtype), out)
    return out


@kernel("logsumexp")
def logsumexp(m, a, dim, keepdim=False):
    chips.check_dtype("LogSumExp", m.dtype, "logsumexp")
    x = a if chips.supports("LogSumExp", a.dtype) else cast(a, m.dtype)
    out = empty(m.shape, m.dtype, a.device)
    launch("LogSumExp", x, _dims(dim, len(a._shape)), bool(keepdim), out)
    return out


def _moment(name, acl):
    """var / std with a correction (core composes the unbiased= spellings and var_mean / std_mean from it)."""

    def k(m, a, dim=None, correction=None, keepdim=False):
        chips.check_dtype(acl, a.dtype, name)
        c = 1 if correction is None else correction
        if c != int(c):
            raise RuntimeError(f"{name} on npu: aclnn{acl} takes an integer correction, got {c}")
        out = empty(m.shape, m.dtype, a.device)
        launch(acl, a, _dims(dim, len(a._shape)), int(c), bool(keepdim), out)
        return out

    return k


KERNELS["var.correction"], KERNELS["std.correction"] = _moment("var", "VarCorrection"), _moment("std", "Std")


@kernel("linalg_vector_norm")
def vector_norm(m, a, ord=2, dim=None, keepdim=False, dtype=None):
    chips.check_dtype("LinalgVectorNorm", m.dtype, "linalg_vector_norm")
    out = empty(m.shape, m.dtype, a.device)
    launch(
        "LinalgVectorNorm",
        a,
        Scalar(float(ord), A.ACL_DOUBLE),
        _dims(dim, len(a._shape)),
        bool(keepdim),
        DType(m.dtype),
        out,
    )
    return out


def _softmax(acl):
    def k(m, a, dim, dtype=None):
        return run(acl, a, m, int(dim))

    return k


KERNELS["softmax"], KERNELS["log_softmax"] = _softmax("Softmax"), _softmax("LogSoftmax")


def _softmax_backward(acl, name):
    """aclnnSoftmaxBackward / aclnnLogSoftmaxBackward (a 0-dim pair as 1-d: the LogSoftmaxBackward doc takes 1 to
    8 dims). Core's composite takes a gradient of another shape or dtype than output's, more than 8 dims and a
    dtype the chip's operator lacks; an empty output has nothing to compute."""

    def k(m, g, y, dim):
        if g._shape != y._shape or g.dtype is not y.dtype or len(y._shape) > 8 or not chips.supports(acl, y.dtype):
            return OPS[name].composite(g, y, dim)
        out = empty(m.shape, m.dtype, y.device)
        if numel(out):
            launch(acl, as_1d(g), as_1d(y), int(dim), as_1d(out))
        return out

    return k


KERNELS["_softmax_backward_data"] = _softmax_backward("SoftmaxBackward", "_softmax_backward_data")
KERNELS["_log_softmax_backward_data"] = _softmax_backward("LogSoftmaxBackward", "_log_softmax_backward_data")


# --- cumulative scans --------------------------------------------------------------------------------------


@kernel("cumsum")
def cumsum(m, a, dim, dtype=None):
    out = empty(m.shape, m.dtype, a.device)
    x = a if chips.supports("Cumsum", a.dtype) else cast(a, m.dtype)  # aclnnCumsum.md: no BOOL input
    launch("Cumsum", x, int(dim), DType(m.dtype), out)
    return out


@kernel("cumprod")
def cumprod(m, a, dim, dtype=None):
    out = empty(m.shape, m.dtype, a.device)
    if numel(out):
        launch("Cumprod", a, Scalar(int(dim), A.ACL_INT64), DType(m.dtype), out)
    return out


def _cumulative_extreme(acl):
    def k(m, a, dim):  # core's op is a composite (no shape rule): the outputs have self's shape
        values, indices = empty(a._shape, a.dtype, a.device), empty(a._shape, D.int64, a.device)
        if numel(values):
            launch(acl, a, int(dim), values, indices)
        return values, indices

    return k


KERNELS["cummax"], KERNELS["cummin"] = _cumulative_extreme("Cummax"), _cumulative_extreme("Cummin")
