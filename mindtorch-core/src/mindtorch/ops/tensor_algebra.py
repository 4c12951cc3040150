"""Products, statistics and order statistics composed from the table's ops (their gradients come from
the ops they are made of): trace, kron, inner, tensordot, vdot, addr, addbmm, dist, cov, corrcoef,
cartesian_prod, combinations, diag_embed, diagflat, vander, trapezoid, median, kthvalue, mode, msort,
logcumsumexp, histc, and the *_scatter family."""
import itertools

from .. import _dtype as D
from .._shape import wrap_dim
from .formulas import torch
from .reduction import RETURN_TYPES, named_result
from .meta import TensorMeta
from .registry import defop, copy_into_self

F = "linalg"
R = "reduction"


def _trace(self):
    if self.dim() != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {self.dim()}")
    return torch.diagonal(self).sum()


defop("trace(Tensor self) -> Tensor", composite=_trace, family=F)


def _kron(self, other):
    nd = max(self.dim(), other.dim())
    a = self.reshape((1,) * (nd - self.dim()) + tuple(self.shape))
    b = other.reshape((1,) * (nd - other.dim()) + tuple(other.shape))
    # interleave: a[i0, 1, i1, 1, ...] * b[1, j0, 1, j1, ...] -> (i0*j0, i1*j1, ...)
    ai = a.reshape([s for d in a.shape for s in (d, 1)])
    bi = b.reshape([s for d in b.shape for s in (1, d)])
    return (ai * bi).reshape([x * y for x, y in zip(a.shape, b.shape)])


defop("kron(Tensor self, Tensor other) -> Tensor", composite=_kron, out=True, family=F)


def _tensordot(a, b, dims=2, out=None):
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        da, db = list(range(a.dim() - dims, a.dim())), list(range(dims))
    elif hasattr(dims, "_shape"):
        return _tensordot(a, b, dims.tolist() if dims.dim() else int(dims.item()))
    else:
        da, db = dims
        da, db = ([da] if isinstance(da, int) else list(da)), ([db] if isinstance(db, int) else list(db))
    da = [wrap_dim(d, a.dim()) for d in da]
    db = [wrap_dim(d, b.dim()) for d in db]
    for x, y in zip(da, db):
        if a.shape[x] != b.shape[y]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {a.shape[x]} in dim {x} "
                               f"and second has size {b.shape[y]} in dim {y}")
    ra = [d for d in range(a.dim()) if d not in da]
    rb = [d for d in range(b.dim()) if d not in db]
    k = 1
    for d in da:
        k *= a.shape[d]
    am = a.permute(ra + da).reshape(-1, k)
    bm = b.permute(db + rb).reshape(k, -1)
    res = (am @ bm).reshape([a.shape[d] for d in ra] + [b.shape[d] for d in rb])
    return res if out is None else out.resize_(res.shape).copy_(res)


def _inner(self, other):
    if self.dim() == 0 or other.dim() == 0:
        return self * other
    if self.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(self.shape)} and {list(other.shape)}")
    return _tensordot(self, other, ([-1], [-1]))


defop("inner(Tensor self, Tensor other) -> Tensor", composite=_inner, out=True, family=F)


def _vdot(self, other):
    if self.dtype is not other.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {D._cname(self.dtype)} and "
                           f"{D._cname(other.dtype)}")
    if self.dim() != 1 or other.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {self.dim()}D and {other.dim()}D tensors")
    return (self.conj() * other).sum() if self.is_complex() else torch.dot(self, other)


defop("vdot(Tensor self, Tensor other) -> Tensor", composite=_vdot, out=True, family=F)


def _addr(self, vec1, vec2, beta=1, alpha=1):
    prod = torch.outer(vec1, vec2)
    prod = prod if alpha == 1 else prod * alpha
    return prod if beta == 0 else (self if beta == 1 else self * beta) + prod


def _addbmm(self, batch1, batch2, beta=1, alpha=1):
    if batch1.dim() != 3 or batch2.dim() != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if not (self.dtype is batch1.dtype is batch2.dtype):
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {D._cname(batch1.dtype)} and "
                           f"{D._cname(batch2.dtype)}")
    prod = torch.bmm(batch1, batch2).sum(0)
    prod = prod if alpha == 1 else prod * alpha
    return prod if beta == 0 else (self if beta == 1 else self * beta) + prod


defop("addr(Tensor self, Tensor vec1, Tensor vec2, *, Scalar beta=1, Scalar alpha=1) -> Tensor", composite=_addr,
      out=True, inplace=True, inplace_composite=copy_into_self(_addr), family=F)
defop("addbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
      composite=_addbmm, out=True, inplace=True, inplace_composite=copy_into_self(_addbmm),
      family=F)


def _dist(self, other, p=2):
    return torch.linalg.vector_norm(self - other, p)


defop("dist(Tensor self, Tensor other, Scalar p=2) -> Tensor", composite=_dist, family=F)


def _cov(self, correction=1, fweights=None, aweights=None):
    if self.dim() > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{self.dim()} dimensions")
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


defop("cov(Tensor self, *, int correction=1, Tensor? fweights=None, Tensor? aweights=None) -> Tensor",
      composite=_cov, family=F)
defop("corrcoef(Tensor self) -> Tensor", composite=_corrcoef, family=F)


def _cartesian_prod(tensors):
    if len(tensors) == 1:
        return tensors[0]
    grids = torch.meshgrid(*tensors, indexing="ij")
    return torch.stack([g.reshape(-1) for g in grids], 1)


defop("cartesian_prod(Tensor[] tensors) -> Tensor", composite=_cartesian_prod, method=False, family=F)


def _combinations(self, r=2, with_replacement=False):
    if self.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(self.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return self.new_empty(0)
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    rows = list(pick(range(self.shape[0]), r))
    if not rows:
        return self.new_empty((0, r))
    idx = torch.tensor(rows, dtype=D.int64, device=self.device)
    return self[idx.reshape(-1)].reshape(len(rows), r)


defop("combinations(Tensor self, int r=2, bool with_replacement=False) -> Tensor", composite=_combinations,
      method=False, family=F)


def _diag_embed(self, offset=0, dim1=-2, dim2=-1):
    nd = self.dim() + 1
    d1, d2 = wrap_dim(dim1, nd), wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n = self.shape[-1] + abs(offset)
    shape = list(self.shape[:-1])
    for d in sorted((d1, d2)):
        shape.insert(d, n)
    return torch.diagonal_scatter(self.new_zeros(shape), self, offset, d1, d2)


def _diagflat(self, offset=0):
    return torch.diag(self.reshape(-1), offset)


defop("diag_embed(Tensor self, int offset=0, int dim1=-2, int dim2=-1) -> Tensor", composite=_diag_embed, family=F)
defop("diagflat(Tensor self, int offset=0) -> Tensor", composite=_diagflat, family=F)


def _vander(x, N=None, increasing=False):
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    base = x if x.dtype._kind >= 1 and x.dtype is not D.bool_ else x.to(D.int64)
    if base.dtype._kind == 1 and base.dtype is not D.int64:
        base = base.to(D.int64)
    powers = torch.arange(n, device=x.device)
    if not increasing:
        powers = powers.flip(0)
    if n == 0:
        return base.new_empty((x.shape[0], 0))
    cols = torch.cumprod(torch.cat([torch.ones_like(base).unsqueeze(1),
                                    base.unsqueeze(1).expand(-1, max(n - 1, 0))], 1), 1)
    return cols if increasing else cols.flip(1)


defop("vander(Tensor x, int? N=None, bool increasing=False) -> Tensor", composite=_vander, method=False, family=F)


def _trapezoid(y, x=None, dx=None, dim=-1):
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
    d = wrap_dim(dim, y.dim())
    n = y.shape[d]
    left, right = y.narrow(d, 0, max(n - 1, 0)), y.narrow(d, 1, max(n - 1, 0))
    if x is not None:
        dxs = (x[1:] - x[:-1]).reshape([-1] + [1] * (y.dim() - 1 - d)) if x.dim() == 1 else \
            x.narrow(d, 1, n - 1) - x.narrow(d, 0, n - 1)
        return torch.cumsum((left + right) * dxs / 2, d)
    step = 1 if dx is None else dx
    return torch.cumsum((left + right) * (step / 2), d)


defop("trapezoid(Tensor y, Tensor? x=None, *, Scalar? dx=None, int dim=-1) -> Tensor", composite=_trapezoid,
      method=False, family=F)
defop("trapz(Tensor y, Tensor? x=None, *, Scalar? dx=None, int dim=-1) -> Tensor", composite=_trapezoid,
      method=False, family=F)
defop("cumulative_trapezoid(Tensor y, Tensor? x=None, *, Scalar? dx=None, int dim=-1) -> Tensor",
      composite=_cumulative_trapezoid, method=False, family=F)


# --- order statistics -----------------------------------------------------------------------------
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
        return torch.full((), float("nan"), dtype=self.dtype, device=self.device)
    ordered = torch.sort(flat).values            # NaN sorts last
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
defop("median(Tensor self) -> Tensor", composite=lambda s: _median_all(s, False), family=R)
defop("median(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
      composite=lambda s, dim, keepdim=False: _median_dim(s, dim, keepdim), overload="dim", family=R)
defop("nanmedian(Tensor self) -> Tensor", composite=lambda s: _median_all(s, True), family=R)
defop("nanmedian(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
      composite=lambda s, dim, keepdim=False: _median_dim(s, dim, keepdim, True, "nanmedian"), overload="dim",
      family=R)


def _kthvalue(self, k, dim=-1, keepdim=False):
    _real_only(self, "kthvalue_cpu")
    n = self.shape[wrap_dim(dim, self.dim())] if self.dim() else 1
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {wrap_dim(dim, self.dim())}")
    return _kth(self, k, dim, keepdim, "kthvalue")


defop("kthvalue(Tensor self, int k, int dim=-1, bool keepdim=False) -> (Tensor values, Tensor indices)",
      composite=_kthvalue, out=True, family=R)


def _mode(self, dim=-1, keepdim=False):
    """The most frequent value along dim (the smallest of equally frequent ones) and the index of its last
    occurrence."""
    _real_only(self, "mode_cpu")
    if self.dim() == 0:
        return RETURN_TYPES["mode"](self.clone(), torch.zeros((), dtype=D.int64, device=self.device))
    d = wrap_dim(dim, self.dim())
    x = self.movedim(d, -1)
    vals, _ = torch.sort(x, -1)
    eq = vals.unsqueeze(-1) == vals.unsqueeze(-2)            # (..., n, n)
    counts = eq.sum(-1)
    best = torch.argmax(counts * (vals.shape[-1] + 1) - torch.arange(vals.shape[-1], device=self.device), -1,
                        keepdim=True)                           # most frequent, smallest first
    value = vals.gather(-1, best)
    hits = (x == value).to(D.int64) * torch.arange(x.shape[-1], device=self.device)
    index = hits.argmax(-1, keepdim=True)
    value, index = value.movedim(-1, d), index.movedim(-1, d)
    if not keepdim:
        value, index = value.squeeze(d), index.squeeze(d)
    return RETURN_TYPES["mode"](value, index)


defop("mode(Tensor self, int dim=-1, bool keepdim=False) -> (Tensor values, Tensor indices)", composite=_mode,
      out=True, family=R)
defop("msort(Tensor self) -> Tensor", composite=lambda s: torch.sort(s, 0).values, out=True, family=R)


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
        y = torch.cat([y.narrow(dim, 0, shift),
                       torch.logaddexp(y.narrow(dim, shift, n - shift), y.narrow(dim, 0, n - shift))], dim)
        shift *= 2
    return y if shift > 1 else y.clone()


defop("logcumsumexp(Tensor self, int dim) -> Tensor", meta=_logcumsumexp_meta, out=True, family=R,
      composite=_logcumsumexp, grad={"self": "logcumsumexp_backward(grad, self, result, dim)"})


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


defop("histc(Tensor self, int bins=100, Scalar min=0, Scalar max=0) -> Tensor", composite=_histc, out=True,
      family=R)


# --- scatters: a copy of self with one region replaced (gradients through the region copy) ----------
def _scatter_into(self, src, region):
    out = self.clone()
    view = region(out)
    if tuple(view.shape) != tuple(src.shape):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
                           f"slice size = {list(view.shape)}")
    view.copy_(src)
    return out


defop("select_scatter(Tensor self, Tensor src, int dim, SymInt index) -> Tensor",
      composite=lambda s, src, dim, index: _scatter_into(s, src, lambda o: o.select(dim, index)), family=F)
defop("slice_scatter(Tensor self, Tensor src, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) "
      "-> Tensor", composite=lambda s, src, dim=0, start=None, end=None, step=1: _scatter_into(
          s, src, lambda o: o[(slice(None),) * wrap_dim(dim, o.dim()) + (slice(start, end, step),)]), family=F)
defop("diagonal_scatter(Tensor self, Tensor src, int offset=0, int dim1=0, int dim2=1) -> Tensor",
      composite=lambda s, src, offset=0, dim1=0, dim2=1: _scatter_into(
          s, src, lambda o: torch.diagonal(o, offset, dim1, dim2)), family=F)


def _masked_scatter(self, mask, source):
    if mask.dtype is not D.bool_:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype "
                           f"{D._cname(mask.dtype)}")
    if self.dtype is not source.dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but got "
                           f"{D._cname(self.dtype)} and {D._cname(source.dtype)}")
    m = mask.expand_as(self) if mask.shape != self.shape else mask
    n = int(m.sum())
    if n > source.numel():
        raise RuntimeError("masked_scatter: expected source to have at least as many elements as ones in mask")
    out = self.clone()
    out[m] = source.reshape(-1)[:n]
    return out


defop("masked_scatter(Tensor self, Tensor mask, Tensor source) -> Tensor", composite=_masked_scatter,
      inplace=True, inplace_composite=copy_into_self(_masked_scatter), family=F)


def _put(self, index, source, accumulate=False):
    if index.dtype is not D.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {D._cname(index.dtype)}")
    if self.dtype is not source.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got self.dtype = "
                           f"{D._cname(self.dtype)} and source.dtype = {D._cname(source.dtype)}")
    if index.numel() != source.numel():
        raise RuntimeError(f"put_(): Expected source and index to have the same number of elements, but got "
                           f"source.numel() = {source.numel()}, index.numel() = {index.numel()}")
    n = self.numel()
    if index.numel() and (bool((index >= n).any()) or bool((index < -n).any())):
        raise IndexError(f"out of range: tried to access index {int(index.max())} on a tensor of {n} elements.")
    out = self.clone()
    flat = out.view(-1) if out.is_contiguous() else out.reshape(-1)
    flat.index_put_((index.reshape(-1),), source.reshape(-1), accumulate)
    return out if out.is_contiguous() else out.copy_(flat.reshape(out.shape))


defop("put(Tensor self, Tensor index, Tensor source, bool accumulate=False) -> Tensor", composite=_put,
      inplace=True, inplace_composite=copy_into_self(_put), family=F)


def _cross3(a, b, d):
    """The cross product of the length-3 vectors along dim d (broadcast first)."""
    if a.dtype is not b.dtype:
        raise RuntimeError(f"expected scalar type {D._cname(a.dtype)} but found {D._cname(b.dtype)}")
    if a.dim() != b.dim():
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    a, b = torch.broadcast_tensors(a, b)
    if a.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {d} must have length 3. Got {a.shape[d]} and "
                           f"{b.shape[d]}")
    ax, ay, az = (a.select(d, i) for i in range(3))
    bx, by, bz = (b.select(d, i) for i in range(3))
    return torch.stack([ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx], d)


def _cross(self, other, dim=None):
    if self.dim() != other.dim():
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    if dim is None:
        import warnings
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim "
                      "explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to agree "
                      "with that of linalg.cross in a future release.", UserWarning, stacklevel=3)
        dim = next((i for i, n in enumerate(self.shape) if n == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    return _cross3(self, other, wrap_dim(dim, self.dim()))


defop("cross(Tensor self, Tensor other, int? dim=None) -> Tensor", composite=_cross, out=True, family=F)
defop("linalg_cross(Tensor self, Tensor other, *, int dim=-1) -> Tensor",
      composite=lambda s, o, dim=-1: _cross3(s, o, wrap_dim(dim, max(s.dim(), o.dim()))), function=False,
      method=False, family=F)


def _chain_matmul(matrices):
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    out = matrices[0]
    for m in matrices[1:]:
        out = torch.mm(out, m)
    return out.clone() if len(matrices) == 1 else out


defop("chain_matmul(Tensor[] matrices) -> Tensor", composite=_chain_matmul, out=True, method=False, family=F)


def _renorm(self, p, dim, maxnorm):
    """Rescale each slice along dim whose p-norm exceeds maxnorm down to maxnorm."""
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    d = wrap_dim(dim, self.dim())
    others = [i for i in range(self.dim()) if i != d]
    norms = torch.linalg.vector_norm(self, p, others, keepdim=True)
    factor = torch.where(norms > maxnorm, maxnorm / (norms + 1e-7), torch.ones_like(norms))
    return self * factor


defop("renorm(Tensor self, Scalar p, int dim, Scalar maxnorm) -> Tensor", composite=_renorm, out=True, inplace=True,
      inplace_composite=copy_into_self(_renorm), family=F)
defop("nuclear_norm(Tensor self, bool keepdim=False) -> Tensor",
      composite=lambda s, keepdim=False: torch.linalg.matrix_norm(s, "nuc", keepdim=keepdim), method=False,
      out=True, family=F)
defop("frobenius_norm(Tensor self, int[1] dim, bool keepdim=False) -> Tensor",
      composite=lambda s, dim, keepdim=False: torch.linalg.vector_norm(s, 2, dim, keepdim=keepdim), method=False,
      out=True, family=F)
