"""Functions PyTorch offers that are compositions of other ops (issue 12 item 5): no kernels needed.

Each is declared in the table like any op, so it gets the function, the method, out= and
PyTorch's argument checking from codegen; gradients come from the ops it is made of.
"""
import collections

from .registry import defop
from .formulas import torch
from .. import _dtype as D
from .._shape import wrap_dim

F = "composite"
_OPTS = "ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, " \
        "bool requires_grad=False"

aminmax_result = collections.namedtuple("aminmax", ["min", "max"])
aminmax_result.__module__ = "mindtorch.return_types"
cum_results = {n: collections.namedtuple(n, ["values", "indices"]) for n in ("cummax", "cummin")}
for _rt in cum_results.values():
    _rt.__module__ = "mindtorch.return_types"


# --- differences, rotations, splits --------------------------------------------
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


defop("diff(Tensor self, int n=1, int dim=-1, Tensor? prepend=None, Tensor? append=None) -> Tensor",
      composite=_diff, out=True, family=F)


def _rot90(self, k=1, dims=(0, 1)):
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    nd = self.dim()
    if nd < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {nd}")
    d0, d1 = wrap_dim(dims[0], nd), wrap_dim(dims[1], nd)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}")
    k %= 4
    if k == 1:
        return self.flip(d1).transpose(d0, d1)
    if k == 2:
        return self.flip([d0, d1])
    if k == 3:
        return self.flip(d0).transpose(d0, d1)
    return self.clone()


defop("rot90(Tensor self, int k=1, int[] dims=[0,1]) -> Tensor", composite=_rot90, family=F)


def _tensor_split(self, sections_or_indices, dim=0):
    if self.dim() == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    dim = wrap_dim(dim, self.dim())
    size = self.shape[dim]
    if isinstance(sections_or_indices, int):
        n = sections_or_indices
        if n <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {n}")
        q, r = divmod(size, n)
        bounds, start = [], 0
        for i in range(n):
            start += q + (1 if i < r else 0)
            bounds.append(start)
        bounds = bounds[:-1]
    else:
        bounds = list(sections_or_indices)
    out, start = [], 0
    for stop in bounds + [size]:
        lo, hi = min(max(start, 0), size), min(max(stop, 0), size)
        out.append(self.narrow(dim, lo, max(hi - lo, 0)))
        start = stop
    return tuple(out)


defop("tensor_split(Tensor(a) self, SymInt sections, int dim=0) -> Tensor(a)[]", composite=_tensor_split,
      overload="sections", family=F)
defop("tensor_split(Tensor(a) self, SymInt[] indices, int dim=0) -> Tensor(a)[]", composite=_tensor_split,
      overload="indices", family=F)


def _dir_split(name, dim, min_dims):
    def split(self, sections_or_indices):
        nd = self.dim()
        if nd < min_dims:
            raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dims} dimension, but got a "
                               f"tensor with {nd} dimensions!")
        d = 0 if (name == "hsplit" and nd == 1) else dim
        if isinstance(sections_or_indices, int):
            size = self.shape[d]
            if sections_or_indices == 0 or size % sections_or_indices:
                raise RuntimeError(f"torch.{name} attempted to split along dimension {d}, but the size of the "
                                   f"dimension {size} is not divisible by the split_size {sections_or_indices}!")
        return _tensor_split(self, sections_or_indices, d)
    defop(f"{name}(Tensor(a) self, int sections) -> Tensor(a)[]", composite=split, overload="int", family=F)
    defop(f"{name}(Tensor(a) self, int[] indices) -> Tensor(a)[]", composite=split, overload="array", family=F)


_dir_split("hsplit", 1, 1)
_dir_split("vsplit", 0, 2)
_dir_split("dsplit", 2, 3)


# --- reductions ignoring NaN, quantiles, min-and-max ------------------------------
def _nansum(self, dim=None, keepdim=False, dtype=None):
    x = torch.where(self.isnan(), torch.zeros_like(self), self) if self.is_floating_point() else self
    return x.sum(dim, keepdim=keepdim, dtype=dtype)


defop("nansum(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
      composite=_nansum, out=True, family=F)


def _nanmean(self, dim=None, keepdim=False, dtype=None):
    if not (self.is_floating_point() or self.is_complex()):
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype but got "
                           f"{self.dtype.name.capitalize() if self.dtype is not D.int64 else 'Long'}")
    count = (~self.isnan()).sum(dim, keepdim=keepdim)
    return _nansum(self, dim, keepdim, dtype) / count


defop("nanmean(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
      composite=_nanmean, out=True, family=F)

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(name, ignore_nan):
    def quantile(self, q, dim=None, keepdim=False, interpolation="linear"):
        scalar_q = not isinstance(q, torch.Tensor)
        if not scalar_q and q.dim() > 1:
            raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
        if not self.is_floating_point():
            raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
        if interpolation not in _INTERPOLATIONS:
            raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, midpoint or nearest. "
                             f"Got {interpolation}")
        qt = torch.tensor([q] if scalar_q else 0.0, dtype=self.dtype, device=self.device) if scalar_q else q
        if not scalar_q and qt.dtype is not self.dtype:
            raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor")
        if bool(((qt < 0) | (qt > 1)).any()):
            raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
        x = self.reshape(-1) if dim is None else self
        d = 0 if dim is None else wrap_dim(dim, max(self.dim(), 1))
        x = x.movedim(d, -1) if x.dim() else x.reshape(1)
        n = x.shape[-1]
        if n == 0:
            raise RuntimeError(f"{name}() input tensor must be non-empty")
        srt = x.sort(-1).values  # NaN sort last
        nans = x.isnan()
        valid = (n - nans.sum(-1, keepdim=True)) if ignore_nan else \
            torch.full_like(nans.sum(-1, keepdim=True), n)
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
    defop(f"{name}(Tensor self, Tensor q, int? dim=None, bool keepdim=False, *, str interpolation='linear') "
          "-> Tensor", composite=quantile, out=True, family=F)
    defop(f"{name}(Tensor self, float q, int? dim=None, bool keepdim=False, *, str interpolation='linear') "
          "-> Tensor", composite=quantile, out=True, overload="scalar", family=F)


_quantile("quantile", False)
_quantile("nanquantile", True)


def _aminmax(self, dim=None, keepdim=False):
    if dim is None:
        if self.numel() == 0:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has "
                               "no identity.")
        mn, mx = self.amin(), self.amax()
        if keepdim:
            shape = (1,) * self.dim()
            mn, mx = mn.reshape(shape), mx.reshape(shape)
        return aminmax_result(mn, mx)
    return aminmax_result(self.amin(dim, keepdim), self.amax(dim, keepdim))


defop("aminmax(Tensor self, *, int? dim=None, bool keepdim=False) -> (Tensor min, Tensor max)",
      composite=_aminmax, out=True, family=F)


def _cumext(name):
    greater = name == "cummax"

    def cum(self, dim):
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
            lowest = float("-inf") if x.is_floating_point() else (
                0 if x.dtype is D.bool_ else D.iinfo(x.dtype).min)
            highest = float("inf") if x.is_floating_point() else (
                1 if x.dtype is D.bool_ else D.iinfo(x.dtype).max)
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


# --- searching, membership, distances ------------------------------------------
def _bucketize(self, boundaries, out_int32=False, right=False):
    if boundaries.dim() != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.dim()})")
    return torch.searchsorted(boundaries, self, out_int32=out_int32, right=right)


defop("bucketize(Tensor self, Tensor boundaries, *, bool out_int32=False, bool right=False) -> Tensor",
      composite=_bucketize, out=True, overload="Tensor", method=False, family=F)
defop("bucketize(Scalar self, Tensor boundaries, *, bool out_int32=False, bool right=False) -> Tensor",
      composite=_bucketize, overload="Scalar", method=False, family=F)


def _isin(elements, test_elements, assume_unique=False, invert=False):
    if not isinstance(test_elements, torch.Tensor):  # a Python number compares as a wrapped scalar (no promotion)
        hit = elements == test_elements
        return ~hit if invert else hit
    el = elements if isinstance(elements, torch.Tensor) else torch.tensor(elements, device=test_elements.device)
    te = test_elements if isinstance(test_elements, torch.Tensor) else torch.tensor(test_elements,
                                                                                   device=el.device)
    hit = (el.reshape(-1, 1) == te.reshape(1, -1)).any(-1).reshape(el.shape) if te.numel() else \
        torch.zeros(el.shape, dtype=D.bool_, device=el.device)
    return ~hit if invert else hit


defop("isin(Tensor elements, Tensor test_elements, *, bool assume_unique=False, bool invert=False) -> Tensor",
      composite=_isin, out=True, method=False, overload="Tensor_Tensor", family=F)
defop("isin(Tensor elements, Scalar test_element, *, bool assume_unique=False, bool invert=False) -> Tensor",
      composite=_isin, method=False, overload="Tensor_Scalar", family=F)
defop("isin(Scalar element, Tensor test_elements, *, bool assume_unique=False, bool invert=False) -> Tensor",
      composite=_isin, method=False, overload="Scalar_Tensor", family=F)


def _cdist(x1, x2, p=2.0, compute_mode=None):
    if x1.dim() < 2 or x2.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.dim()}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: "
                           f"{x2.shape[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    diff = (x1.unsqueeze(-2) - x2.unsqueeze(-3)).abs()
    if p == 0:
        return (diff != 0).sum(-1).to(x1.dtype)
    if p == float("inf"):
        return diff.amax(-1)
    if p == 1:
        return diff.sum(-1)
    if p == 2:  # sqrt's gradient at 0 is inf; PyTorch's cdist backward gives 0 there
        sq = (diff * diff).sum(-1)
        zero = sq == 0
        return torch.where(zero, torch.zeros_like(sq), torch.where(zero, torch.ones_like(sq), sq).sqrt())
    return diff.pow(p).sum(-1).pow(1.0 / p)


defop("cdist(Tensor x1, Tensor x2, float p=2, int? compute_mode=None) -> Tensor", composite=_cdist,
      method=False, family=F)


def _block_diag(tensors):
    mats = []
    for i, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{t.dim()} dimensions")
        mats.append(t.reshape(1, -1) if t.dim() < 2 else t)
    if not mats:
        return torch.empty(1, 0)
    dtype = mats[0].dtype
    for m in mats[1:]:
        dtype = D.promote_types(dtype, m.dtype)
    rows = sum(m.shape[0] for m in mats)
    cols = sum(m.shape[1] for m in mats)
    out = torch.zeros(rows, cols, dtype=dtype, device=mats[0].device)
    r = c = 0
    for m in mats:
        h, w = m.shape
        out = _place(out, m.to(dtype), r, c)
        r, c = r + h, c + w
    return out


def _place(out, m, r, c):
    """out with m written at (r, c), differentiably: pad m to out's shape and add."""
    h, w = m.shape
    R, C = out.shape
    return out + torch.nn.functional.pad(m, (c, C - c - w, r, R - r - h))


defop("block_diag(Tensor[] tensors) -> Tensor", composite=_block_diag, method=False, family=F)


# --- factories --------------------------------------------------------------------
def _tri_indices(upper):
    def indices(row, col, offset=0, dtype=None, layout=None, device=None, pin_memory=None, requires_grad=False):
        dtype = D.int64 if dtype is None else dtype
        r = torch.arange(row, device=device).unsqueeze(1)
        c = torch.arange(col, device=device).unsqueeze(0)
        keep = (c - r >= offset) if upper else (c - r <= offset)
        return torch.stack(torch.nonzero(keep, as_tuple=True)).to(dtype) if row * col else \
            torch.zeros(2, 0, dtype=dtype, device=device)
    return indices


for _n, _up in (("tril_indices", False), ("triu_indices", True)):
    defop(f"{_n}(int row, int col, int offset=0, *, {_OPTS}) -> Tensor", composite=_tri_indices(_up),
          method=False, family=F)


def _range(start, end, step=1, dtype=None, layout=None, device=None, pin_memory=None, requires_grad=False):
    """torch.range: deprecated, end included; like arange(start, end + step) computed in the target dtype."""
    import warnings
    warnings.warn("torch.range is deprecated and will be removed in a future release because its behavior is "
                  "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values in "
                  "[start, end).", UserWarning, stacklevel=4)
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (step > 0 and start > end) or (step < 0 and start < end):
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    dtype = D.get_default_dtype() if dtype is None else dtype
    n = int((end - start) // step) + 1
    t = torch.arange(n, dtype=D.float64, device=device) * step + start
    t = t.to(dtype)
    return t.requires_grad_() if requires_grad else t


defop(f"range(Scalar start, Scalar end, Scalar step=1, *, {_OPTS}) -> Tensor", composite=_range, method=False,
      out=True, family=F)
