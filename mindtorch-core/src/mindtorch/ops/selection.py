"""Selecting and grouping by value: unique_consecutive, unravel_index, nonzero_static, histogram,
gradient (finite differences), and scatter_reduce (a kernel per backend, with its gradients here)."""
from .. import _dtype as D
from .._shape import wrap_dim
from .formulas import torch, SCATTER_REDUCE_ALIASES  # noqa: F401
from .meta import TensorMeta
from .reduction import named_result
from .registry import defop, copy_into_self

F = "indexing"


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


defop("unique_consecutive(Tensor self, bool return_inverse=False, bool return_counts=False, int? dim=None) -> "
      "Tensor", composite=_unique_consecutive, family=F)


def _unravel_index(indices, shape):
    if indices.dtype._kind != 1:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    total = 1
    for s in shape:
        if s < 0:
            raise ValueError("'shape' cannot have negative values, but got " + str(tuple(shape)))
        total *= s
    rem = torch.remainder(indices, total) if total else indices
    coords = []
    for s in reversed(shape):
        coords.append(torch.remainder(rem, s))
        rem = torch.div(rem, s, rounding_mode="floor")
    return tuple(reversed(coords))


defop("unravel_index(Tensor indices, int[] shape) -> Tensor[]", composite=_unravel_index, method=False, family=F)


def _nonzero_static(self, size, fill_value=-1):
    if size < 0:
        raise RuntimeError(f"nonzero_static: 'size' must be an non-negative integer, but got {size}")
    idx = torch.nonzero(self)
    if idx.shape[0] >= size:
        return idx[:size]
    pad = torch.full((size - idx.shape[0], self.dim()), fill_value, dtype=D.int64, device=self.device)
    return torch.cat([idx, pad])


defop("nonzero_static(Tensor self, *, SymInt size, int fill_value=-1) -> Tensor", composite=_nonzero_static, family=F)


def _histogram(self, bins, range=None, weight=None, density=False):
    if self.dtype._kind != 2:
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{D._cname(self.dtype)}'")
    x = self.reshape(-1)
    if hasattr(bins, "_shape"):
        if bins.dtype is not self.dtype:
            raise RuntimeError(f"torch.histogramdd: input tensor and bins tensors should have the same dtype, but "
                               f"got input with dtype {D._cname(self.dtype).lower()} and bins for dimension 0 with "
                               f"dtype {D._cname(bins.dtype).lower()}")
        edges = bins
    else:
        lo, hi = (float(range[0]), float(range[1])) if range is not None else (
            (float(x.min()), float(x.max())) if x.numel() else (0.0, 0.0))
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges = torch.linspace(lo, hi, bins + 1, dtype=self.dtype, device=self.device)
    nb = edges.shape[0] - 1
    inside = (x >= edges[0]) & (x <= edges[-1])
    idx = torch.clamp(torch.bucketize(x, edges, right=True) - 1, 0, nb - 1)
    w = inside.to(self.dtype) if weight is None else inside.to(self.dtype) * weight.reshape(-1).to(self.dtype)
    hist = torch.zeros(nb, dtype=self.dtype, device=self.device).index_add_(0, idx, w)
    if density:
        hist = hist / (hist.sum() * (edges[1:] - edges[:-1]))
    return _HISTOGRAM(hist, edges)


_HISTOGRAM = named_result("histogram", ("hist", "bin_edges"))
defop("histogram(Tensor self, Tensor bins, *, Tensor? weight=None, bool density=False) -> (Tensor hist, Tensor "
      "bin_edges)", composite=lambda s, b, weight=None, density=False: _histogram(s, b, None, weight, density),
      overload="bins_tensor", out=True, family=F)
defop("histogram(Tensor self, int bins=100, *, float[]? range=None, Tensor? weight=None, bool density=False) -> "
      "(Tensor hist, Tensor bin_edges)", composite=_histogram, overload="bin_ct", out=True, family=F)


def _gradient(self, spacing=1, dim=None, edge_order=1):
    """Second-order central differences inside, first- or second-order one-sided ones at the edges."""
    dims = list(range(self.dim())) if dim is None else ([dim] if isinstance(dim, int) else list(dim))
    dims = [wrap_dim(d, self.dim()) for d in dims]
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    if not isinstance(spacing, (list, tuple)):
        spacing = [spacing] * len(dims)
    if len(spacing) != len(dims):
        raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
                           f"arguments to have the same length, but got a spacing argument of length {len(spacing)} "
                           f"and a dim argument of length {len(dims)}.")
    x = self if self.dtype._kind >= 2 else self.to(torch.get_default_dtype())
    out = []
    for d, h in zip(dims, spacing):
        n = x.shape[d]
        if n < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
        sl = lambda a, b: x.narrow(d, a, b - a)  # noqa: E731 - a slice along d
        if hasattr(h, "_shape"):  # coordinates along d
            c = h.to(x.dtype)
            shape = [1] * x.dim()
            shape[d] = -1
            hl = (c[1:-1] - c[:-2]).reshape(shape)
            hr = (c[2:] - c[1:-1]).reshape(shape)
            inner = (hl * hl * sl(2, n) - hr * hr * sl(0, n - 2) + (hr * hr - hl * hl) * sl(1, n - 1)) / (
                hl * hr * (hl + hr))
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


# --- scatter_reduce: a kernel, and the gradients PyTorch defines for it ------------------------------
_REDUCES = ("sum", "prod", "mean", "amax", "amin")


def _scatter_reduce_meta(self, dim, index, src, reduce, include_self=True):
    if index.dim() != src.dim() or index.dim() != self.dim():
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    d = wrap_dim(dim, max(self.dim(), 1))
    for i in range(index.dim()):
        if index.shape[i] > src.shape[i] or (i != d and index.shape[i] > self.shape[i]):
            raise RuntimeError(f"Expected index {list(index.shape)} to be smaller than self {list(self.shape)} "
                               f"apart from dimension {d} and to be smaller size than src {list(src.shape)}")
    if reduce not in _REDUCES and reduce not in SCATTER_REDUCE_ALIASES:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    if index.dtype is not D.int64:
        raise RuntimeError("scatter_reduce(): Expected dtype int64 for index")
    if self.dtype is not src.dtype:
        raise RuntimeError("scatter_reduce(): Expected self.dtype to be equal to src.dtype")
    wrap_dim(dim, max(self.dim(), 1))
    return TensorMeta(self._shape, self.dtype)


defop("scatter_reduce(Tensor self, int dim, Tensor index, Tensor src, str reduce, *, bool include_self=True) -> "
      "Tensor", meta=_scatter_reduce_meta, inplace=True, out=True, overload="two", nondiff=("index",), family=F,
      inplace_composite=copy_into_self(lambda s, dim, index, src, reduce, include_self=True: torch.scatter_reduce(
          s, dim, index, src, reduce, include_self=include_self)),
      grad={"self": "scatter_reduce_backward(grad, self, dim, index, src, reduce, include_self, result, 0)",
            "src": "scatter_reduce_backward(grad, self, dim, index, src, reduce, include_self, result, 1)"})
