"""Ordering and counting by value: sort, argsort, msort, topk, median, nanmedian, kthvalue, mode, unique,
unique_consecutive, searchsorted, bucketize, isin, bincount, histc and histogram.

Ops whose output shape depends on the data (unique, bincount, histc) have no
shape rule: the meta device raises NotImplementedError.
"""

import collections

from .. import _dtype as D
from .._geometry import wrap_dim
from . import meta as M
from .formulas import torch
from .meta import fmt_shape
from .reduction import RETURN_TYPES, named_result
from .registry import defop

F = "sorting"


# --- sort / argsort / topk ------------------------------------------------------------------------
def _return_type(name):
    base = collections.namedtuple(name, ["values", "indices"])

    def __repr__(self):
        return f"torch.return_types.{name}(\nvalues={self.values!r},\nindices={self.indices!r})"

    return type(name, (base,), {"__slots__": (), "__repr__": __repr__})


sort_result = _return_type("sort")
topk_result = _return_type("topk")


def _sort_meta(self, dim=-1, descending=False, stable=False):
    if self.dtype.is_complex:
        raise RuntimeError(" Sort does not support complex dtypes on CPU")
    wrap_dim(dim, len(self._shape))
    return (M.TensorMeta(self._shape, self.dtype), M.TensorMeta(self._shape, D.int64))


defop(
    "_sort(Tensor self, int dim=-1, bool descending=False, bool stable=False) -> (Tensor values, Tensor indices)",
    meta=_sort_meta,
    method=False,
    function=False,
    family=F,
    grad={"self": "selected_values_backward(grads[0], result[1], self, dim)"},
)


def _sort(self, dim=-1, descending=False, stable=False):
    v, i = torch.ops._sort(self, dim, descending, bool(stable))
    return sort_result(v, i)


defop(
    "sort(Tensor self, int dim=-1, bool descending=False, *, bool? stable=False) -> (Tensor values, Tensor indices)",
    composite=_sort,
    out=True,
    family=F,
)
defop(
    "argsort(Tensor self, int dim=-1, bool descending=False, *, bool stable=False) -> Tensor",
    composite=lambda s, dim=-1, descending=False, stable=False: torch.ops._sort(s, dim, descending, stable)[1],
    family=F,
)


def _topk_meta(self, k, dim=-1, largest=True, sorted=True):
    if self.dtype is D.bool_:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    if self.dtype.is_complex:
        raise RuntimeError(" topk does not support complex dtypes on CPU")  # PyTorch's message starts with a space
    n = len(self._shape)
    d = wrap_dim(dim, n)
    size = self._shape[d] if n else 1
    if k < 0 or k > size:
        raise RuntimeError("selected index k out of range")
    shape = list(self._shape)
    if n:
        shape[d] = k
    return (M.TensorMeta(tuple(shape), self.dtype), M.TensorMeta(tuple(shape), D.int64))


defop(
    "_topk(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True) -> (Tensor values, Tensor indices)",
    meta=_topk_meta,
    method=False,
    function=False,
    family=F,
    grad={"self": "selected_values_backward(grads[0], result[1], self, dim)"},
)


def _topk(self, k, dim=-1, largest=True, sorted=True):
    v, i = torch.ops._topk(self, k, dim, largest, sorted)
    return topk_result(v, i)


defop(
    "topk(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True) -> (Tensor values, Tensor indices)",
    composite=_topk,
    out=True,
    family=F,
)


# --- unique / searchsorted / bincount -------------------------------------------------------------
defop(
    "_unique(Tensor self, bool sorted=True, bool return_inverse=False, bool return_counts=False, int? dim=None) "
    "-> (Tensor output, Tensor inverse_indices, Tensor counts)",
    method=False,
    function=False,
    family=F,
)


def _unique(self, sorted=True, return_inverse=False, return_counts=False, dim=None):
    if dim is not None:
        wrap_dim(dim, len(self._shape))
    out, inv, cnt = torch.ops._unique(self, sorted, return_inverse, return_counts, dim)
    if not return_inverse and not return_counts:
        return out
    res = (out,) + ((inv,) if return_inverse else ()) + ((cnt,) if return_counts else ())
    return res


defop(
    "unique(Tensor self, bool sorted=True, bool return_inverse=False, bool return_counts=False, int? dim=None) "
    "-> Tensor",
    composite=_unique,
    family=F,
)


def _searchsorted_meta(sorted_sequence, self, out_int32=False, right=False, side=None, sorter=None):
    if side is not None and side not in ("left", "right"):
        raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
    if side == "left" and right:
        raise RuntimeError(
            "torch.searchsorted(): side and right can't be set to opposites, got side of left while right was True"
        )
    vs = tuple(self._shape) if hasattr(self, "_shape") else ()
    ss = tuple(sorted_sequence._shape)
    if len(ss) == 0:
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 dimension"
        )
    if len(ss) > 1 and ss[:-1] != vs[:-1]:
        raise RuntimeError(
            f"torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
            f"dimensions of boundaries tensor and input value tensor must match, but we got "
            f"boundaries tensor {fmt_shape(ss)} and input value tensor {fmt_shape(vs)}"
        )
    if sorter is not None and tuple(sorter._shape) != ss:
        raise RuntimeError(
            "torch.searchsorted(): boundary and sorter must have the same size, but got boundary "
            f"tensor {fmt_shape(ss)}and got sorter tensor {fmt_shape(sorter._shape)}"
        )
    return M.TensorMeta(vs, D.int32 if out_int32 else D.int64)


defop(
    "searchsorted(Tensor sorted_sequence, Tensor self, *, bool out_int32=False, bool right=False, str? side=None, "
    "Tensor? sorter=None) -> Tensor",
    meta=_searchsorted_meta,
    overload="Tensor",
    method=False,
    out=True,
    family=F,
)
defop(
    "searchsorted(Tensor sorted_sequence, Scalar self, *, bool out_int32=False, bool right=False, str? side=None, "
    "Tensor? sorter=None) -> Tensor",
    meta=_searchsorted_meta,
    overload="Scalar",
    method=False,
    out=True,
    family=F,
)


def _bincount_check(self, weights=None, minlength=0):
    if self.dtype._kind != 1 or self.dtype in D.WIDE_UINTS:
        raise M.not_implemented("bincount_cpu", self.dtype)
    if len(self._shape) != 1:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and tuple(weights._shape) != tuple(self._shape):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")


def _bincount(self, weights=None, minlength=0):
    _bincount_check(self, weights, minlength)
    return torch.ops._bincount(self, weights, minlength)


defop(
    "_bincount(Tensor self, Tensor? weights=None, SymInt minlength=0) -> Tensor", method=False, function=False, family=F
)
defop("bincount(Tensor self, Tensor? weights=None, SymInt minlength=0) -> Tensor", composite=_bincount, family=F)


# --- unique_consecutive ---------------------------------------------------------------------------
def _unique_consecutive(self, return_inverse=False, return_counts=False, dim=None):
    if self.dtype.is_complex:
        raise NotImplementedError(f"\"unique\" not implemented for '{D._cname(self.dtype)}'")
    if dim is None:
        x = self.reshape(-1)
        n = x.shape[0]
        starts = torch.ones(n, dtype=D.bool_, device=self.device)
        if n > 1:
            starts[1:] = x[1:] != x[:-1]
        values = x[starts]
        inverse = (torch.cumsum(starts.to(D.int64), 0) - 1).reshape(self.shape)
    else:
        d = wrap_dim(dim, self.dim())
        x = self.movedim(d, 0)
        n = x.shape[0]
        starts = torch.ones(n, dtype=D.bool_, device=self.device)
        if n > 1:
            starts[1:] = (x[1:] != x[:-1]).reshape(n - 1, -1).any(1)
        values = x[starts].movedim(0, d)
        inverse = torch.cumsum(starts.to(D.int64), 0) - 1
    out = [values]
    if return_inverse:
        out.append(inverse)
    if return_counts:
        pos = torch.nonzero(starts).reshape(-1)
        ends = torch.cat([pos[1:], torch.tensor([n], dtype=D.int64, device=self.device)])
        out.append(ends - pos)
    return out[0] if len(out) == 1 else tuple(out)


defop(
    "unique_consecutive(Tensor self, bool return_inverse=False, bool return_counts=False, int? dim=None) -> Tensor",
    composite=_unique_consecutive,
    family=F,
)


# --- order statistics: median, nanmedian, kthvalue, mode, msort -----------------------------------
def _real_only(x, kernel):
    if x.dtype.is_complex:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{D._cname(x.dtype)}'")


def _kth(self, k, dim, keepdim, name, ignore_nan=False):
    """The k-th smallest (1-based) along dim, and its index; NaN sorts last (and counts, unless ignored)."""
    if self.dim() == 0:
        return RETURN_TYPES[name](self.clone(), torch.zeros((), dtype=D.int64, device=self.device))
    d = wrap_dim(dim, self.dim())
    vals, idx = torch.sort(self, dim=d, stable=True)
    if ignore_nan and self.is_floating_point():
        valid = (~torch.isnan(self)).sum(d, keepdim=True)
        pos = torch.clamp((valid - 1) // 2, min=0)
    else:
        pos = torch.full_like(vals.narrow(d, 0, 1), k - 1, dtype=D.int64)
    v = vals.gather(d, pos)
    i = idx.gather(d, pos)
    if not keepdim:
        v, i = v.squeeze(d), i.squeeze(d)
    return RETURN_TYPES[name](v, i)


def _median_all(self, ignore_nan):
    _real_only(self, "median_cpu")
    """The lower median of all elements; NaN if any is NaN (nanmedian: of the non-NaN ones). Written with
    tensor ops only, so shape-only devices can run it."""
    flat = self.reshape(-1)
    if flat.numel() == 0:
        # NaN cast as C casts it (an integer dtype gets what the cast makes of it), as PyTorch's kernel does
        return torch.full((), float("nan"), dtype=D.float64, device=self.device).to(self.dtype)
    ordered = torch.sort(flat).values  # NaN sorts last
    if not self.is_floating_point():
        return ordered[(flat.numel() - 1) // 2]
    valid = (~torch.isnan(flat)).sum()
    if ignore_nan:
        pos = torch.clamp((valid - 1) // 2, min=0)
        return ordered.gather(0, pos.reshape(1)).reshape(())
    mid = ordered[(flat.numel() - 1) // 2]
    return torch.where(valid < flat.numel(), torch.full_like(mid, float("nan")), mid)


def _median_dim(self, dim, keepdim=False, ignore_nan=False, name="median"):
    _real_only(self, "median_out")
    d = wrap_dim(dim, max(self.dim(), 1))
    if self.dim() and self.shape[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    n = self.shape[d] if self.dim() else 1
    if not ignore_nan and self.is_floating_point() and self.dim():
        # a NaN anywhere in the slice is the median (PyTorch picks the first NaN)
        out = _kth(self, (n + 1) // 2, d, keepdim, name)
        nan_mask = torch.isnan(self)
        has_nan = nan_mask.any(d, keepdim=True)
        first = torch.argmax(nan_mask.to(D.int64), d, keepdim=True)
        v = torch.where(has_nan, self.gather(d, first), out.values if keepdim else out.values.unsqueeze(d))
        i = torch.where(has_nan, first, out.indices if keepdim else out.indices.unsqueeze(d))
        if not keepdim:
            v, i = v.squeeze(d), i.squeeze(d)
        return RETURN_TYPES[name](v, i)
    return _kth(self, (n + 1) // 2, d, keepdim, name, ignore_nan)


named_result("nanmedian")
defop("median(Tensor self) -> Tensor", composite=lambda s: _median_all(s, False), family=F)
defop(
    "median(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
    composite=lambda s, dim, keepdim=False: _median_dim(s, dim, keepdim),
    overload="dim",
    family=F,
)
defop("nanmedian(Tensor self) -> Tensor", composite=lambda s: _median_all(s, True), family=F)
defop(
    "nanmedian(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
    composite=lambda s, dim, keepdim=False: _median_dim(s, dim, keepdim, True, "nanmedian"),
    overload="dim",
    family=F,
)


def _kthvalue(self, k, dim=-1, keepdim=False):
    _real_only(self, "kthvalue_cpu")
    n = self.shape[wrap_dim(dim, self.dim())] if self.dim() else 1
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {wrap_dim(dim, self.dim())}")
    return _kth(self, k, dim, keepdim, "kthvalue")


defop(
    "kthvalue(Tensor self, int k, int dim=-1, bool keepdim=False) -> (Tensor values, Tensor indices)",
    composite=_kthvalue,
    out=True,
    family=F,
)


def _mode(self, dim=-1, keepdim=False):
    """The most frequent value along dim (the smallest of equally frequent ones) and the index of its last
    occurrence."""
    _real_only(self, "mode_cpu")
    if self.dim() == 0:
        return RETURN_TYPES["mode"](self.clone(), torch.zeros((), dtype=D.int64, device=self.device))
    d = wrap_dim(dim, self.dim())
    x = self.movedim(d, -1)
    vals, _ = torch.sort(x, -1)
    eq = vals.unsqueeze(-1) == vals.unsqueeze(-2)  # (..., n, n)
    counts = eq.sum(-1)
    best = torch.argmax(
        counts * (vals.shape[-1] + 1) - torch.arange(vals.shape[-1], device=self.device), -1, keepdim=True
    )  # most frequent, smallest first
    value = vals.gather(-1, best)
    hits = (x == value).to(D.int64) * torch.arange(x.shape[-1], device=self.device)
    index = hits.argmax(-1, keepdim=True)
    value, index = value.movedim(-1, d), index.movedim(-1, d)
    if not keepdim:
        value, index = value.squeeze(d), index.squeeze(d)
    return RETURN_TYPES["mode"](value, index)


defop(
    "mode(Tensor self, int dim=-1, bool keepdim=False) -> (Tensor values, Tensor indices)",
    composite=_mode,
    out=True,
    family=F,
)
defop("msort(Tensor self) -> Tensor", composite=lambda s: torch.sort(s, 0).values, out=True, family=F)


# --- bucketize, isin ------------------------------------------------------------------------------
def _bucketize(self, boundaries, out_int32=False, right=False):
    if boundaries.dim() != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.dim()})")
    return torch.searchsorted(boundaries, self, out_int32=out_int32, right=right)


defop(
    "bucketize(Tensor self, Tensor boundaries, *, bool out_int32=False, bool right=False) -> Tensor",
    composite=_bucketize,
    out=True,
    overload="Tensor",
    method=False,
    family=F,
)
defop(
    "bucketize(Scalar self, Tensor boundaries, *, bool out_int32=False, bool right=False) -> Tensor",
    composite=_bucketize,
    overload="Scalar",
    method=False,
    family=F,
)


def _isin_check(*operands):
    """PyTorch's isin takes neither bool nor complex operands (a Python bool counts as a Bool tensor), and its
    kernel lacks the wide unsigned dtypes."""
    for x in operands:
        dtype = x.dtype if isinstance(x, torch.Tensor) else (D.bool_ if isinstance(x, bool) else None)
        if dtype is not None and dtype._kind in (0, 3):
            raise RuntimeError(f"Unsupported input type encountered for isin(): {D._cname(dtype)}")
    if isinstance(operands[-1], torch.Tensor):  # against a number isin is an equality, which they have
        for x in operands:
            if isinstance(x, torch.Tensor) and x.dtype in D.WIDE_UINTS:
                raise M.not_implemented("isin_default_cpu", x.dtype)


def _isin(elements, test_elements, assume_unique=False, invert=False):
    _isin_check(elements, test_elements)
    if not isinstance(test_elements, torch.Tensor):  # a Python number compares as a wrapped scalar (no promotion)
        hit = elements == test_elements
        return ~hit if invert else hit
    el = elements if isinstance(elements, torch.Tensor) else torch.tensor(elements, device=test_elements.device)
    te = test_elements if isinstance(test_elements, torch.Tensor) else torch.tensor(test_elements, device=el.device)
    hit = (
        (el.reshape(-1, 1) == te.reshape(1, -1)).any(-1).reshape(el.shape)
        if te.numel()
        else torch.zeros(el.shape, dtype=D.bool_, device=el.device)
    )
    return ~hit if invert else hit


defop(
    "isin(Tensor elements, Tensor test_elements, *, bool assume_unique=False, bool invert=False) -> Tensor",
    composite=_isin,
    out=True,
    method=False,
    overload="Tensor_Tensor",
    family=F,
)
defop(
    "isin(Tensor elements, Scalar test_element, *, bool assume_unique=False, bool invert=False) -> Tensor",
    composite=_isin,
    method=False,
    overload="Tensor_Scalar",
    family=F,
)
defop(
    "isin(Scalar element, Tensor test_elements, *, bool assume_unique=False, bool invert=False) -> Tensor",
    composite=_isin,
    method=False,
    overload="Scalar_Tensor",
    family=F,
)


# --- histograms: histc, histogram -----------------------------------------------------------------
def _histc(self, bins=100, min=0, max=0):
    if self.dtype._kind != 2:
        raise NotImplementedError(f"\"histogram_cpu\" not implemented for '{D._cname(self.dtype)}'")
    if bins <= 0:
        raise RuntimeError("torch.histc: bins must be > 0, but got " + str(bins))
    x = self.reshape(-1)
    lo, hi = float(min), float(max)
    if lo == hi and x.numel():
        lo, hi = float(x.min()), float(x.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    inside = x[(x >= lo) & (x <= hi)]
    idx = ((inside - lo) * (bins / (hi - lo))).floor().to(D.int64).clamp(0, bins - 1)
    return torch.bincount(idx, minlength=bins).to(self.dtype)


defop("histc(Tensor self, int bins=100, Scalar min=0, Scalar max=0) -> Tensor", composite=_histc, out=True, family=F)


def _histogram(self, bins, range=None, weight=None, density=False):
    hist, edges = histogramdd(self.reshape(-1, 1), [bins], range=range, weight=weight, density=density)
    return _HISTOGRAM(hist, edges[0])


def _bin_edges(self, x, k, bins, range):
    """The bin edges of dimension k: given as a tensor, or `bins` equal bins over the range (the data's
    extent by default, widened by half a unit each way when empty)."""
    if hasattr(bins, "_shape"):
        if bins.dtype is not self.dtype:
            raise RuntimeError(
                f"torch.histogramdd: input tensor and bins tensors should have the same dtype, but "
                f"got input with dtype {D._cname(self.dtype).lower()} and bins for dimension {k} with "
                f"dtype {D._cname(bins.dtype).lower()}"
            )
        return bins
    col = x[:, k]
    if range is not None:
        lo, hi = float(range[2 * k]), float(range[2 * k + 1])
    else:
        lo, hi = (float(col.min()), float(col.max())) if col.numel() else (0.0, 0.0)
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    return torch.linspace(lo, hi, bins + 1, dtype=self.dtype, device=self.device)


def histogramdd(self, bins, *, range=None, weight=None, density=False):
    """Histogram of the points in the rows of `self` (its last dim is the space's): (hist, per-dim bin edges)."""
    if self.dtype._kind != 2:
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{D._cname(self.dtype)}'")
    dims = self._shape[-1]
    x = self.reshape(-1, dims)
    bins = [bins] * dims if isinstance(bins, int) else list(bins)
    if len(bins) != dims:
        raise RuntimeError("histogramdd: The size of bins must be equal to the innermost dimension of the input.")
    edges = [_bin_edges(self, x, k, b, range) for k, b in enumerate(bins)]
    counts = [e.shape[0] - 1 for e in edges]
    inside = torch.ones(x.shape[0], dtype=D.bool_, device=self.device)
    flat = torch.zeros(x.shape[0], dtype=D.int64, device=self.device)
    for k, e in enumerate(edges):
        col = x[:, k]
        inside = inside & (col >= e[0]) & (col <= e[-1])
        flat = flat * counts[k] + torch.clamp(torch.bucketize(col, e, right=True) - 1, 0, counts[k] - 1)
    w = inside.to(self.dtype) if weight is None else inside.to(self.dtype) * weight.reshape(-1).to(self.dtype)
    total = 1
    for c in counts:
        total *= c
    hist = torch.zeros(total, dtype=self.dtype, device=self.device).index_add_(0, flat, w).reshape(counts)
    if density:
        volume = torch.ones((), dtype=self.dtype, device=self.device)
        for e in edges:
            volume = volume.unsqueeze(-1) * (e[1:] - e[:-1])
        hist = hist / (hist.sum() * volume)
    return _HISTOGRAMDD(hist, tuple(edges))


_HISTOGRAMDD = named_result("histogramdd", ("hist", "bin_edges"))
_HISTOGRAM = named_result("histogram", ("hist", "bin_edges"))
defop(
    "histogram(Tensor self, Tensor bins, *, Tensor? weight=None, bool density=False) -> (Tensor hist, Tensor "
    "bin_edges)",
    composite=lambda s, b, weight=None, density=False: _histogram(s, b, None, weight, density),
    overload="bins_tensor",
    out=True,
    family=F,
)
defop(
    "histogram(Tensor self, int bins=100, *, float[]? range=None, Tensor? weight=None, bool density=False) -> "
    "(Tensor hist, Tensor bin_edges)",
    composite=_histogram,
    overload="bin_ct",
    out=True,
    family=F,
)
