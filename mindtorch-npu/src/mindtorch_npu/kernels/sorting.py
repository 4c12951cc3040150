"""Sorting and counting kernels: sort, topk, unique (from stable device sorts), searchsorted and bincount."""

from mindtorch.plugins import Tensor, contiguous_strides, dtypes as D, kernel_table

from .. import chips
from ..aclnn import DType, IntArray, launch, scalar_for
from ..copy import empty
from ._common import cast, contiguous, dense, host_values, move_dims, nonzero, numel, scalar_tensor, view

KERNELS, kernel = kernel_table()


@kernel("_sort")
def sort(m, a, dim=-1, descending=False, stable=False):
    values, indices = empty(m[0].shape, m[0].dtype, a.device), empty(m[1].shape, m[1].dtype, a.device)
    launch("Sort", a, bool(stable), int(dim), bool(descending), values, indices)
    return values, indices


@kernel("_topk")
def topk(m, a, k, dim=-1, largest=True, sorted=True):
    values, indices = empty(m[0].shape, m[0].dtype, a.device), empty(m[1].shape, m[1].dtype, a.device)
    launch("Topk", a, int(k), int(dim), bool(largest), bool(sorted), values, indices)
    return values, indices


_SEARCH_THROUGH = {D.bfloat16: D.float32, D.bool_: D.uint8}


@kernel("searchsorted.Tensor", "searchsorted.Scalar")
def searchsorted(m, seq, values, out_int32=False, right=False, side=None, sorter=None):
    if not isinstance(values, Tensor):
        values = scalar_tensor(values, seq.dtype, seq.device)
    common = D.promote_types(seq.dtype, values.dtype)  # the operator takes one dtype for both
    # a dtype aclnnSearchSorted lacks goes through one that orders the same values the same way
    common = _SEARCH_THROUGH.get(common, common)
    chips.check_dtype("SearchSorted", common, "searchsorted")
    seq, values = (t if t.dtype is common else cast(t, common) for t in (seq, values))
    out = empty(m.shape, m.dtype, seq.device)
    if numel(out):
        launch("SearchSorted", seq, values, bool(out_int32), bool(right or side == "right"), sorter, out)
    return out


@kernel("_bincount")
def bincount(m, a, weights=None, minlength=0):
    """The output length is data-dependent: the largest value comes to the host (one sync)."""
    top = -1
    if numel(a):
        extremes = empty((2,), a.dtype, a.device)  # max and min, brought to the host in one copy
        dims = IntArray(range(len(a._shape)))
        launch("Amax", a, dims, False, view(extremes, (), ()))
        launch("Amin", a, dims, False, view(extremes, (), (), extremes._offset + 1))
        top, bottom = (int(v) for v in host_values(extremes))
        if bottom < 0:
            raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    # PyTorch's result: counts in int64, float32 weights summed in float32, any others in float64
    dt = D.int64 if weights is None else D.float32 if weights.dtype is D.float32 else D.float64
    n = max(top + 1, int(minlength))
    out = empty((n,), dt, a.device)
    launch("InplaceZero", out)
    if numel(a):
        launch("Bincount", a, weights, int(minlength), out)
    return out


def _sorted_rows(rows, k, r, device):
    """The row order of a (k, r) tensor sorted lexicographically: stable sorts by the last column first."""
    order = empty((k,), D.int64, device)
    launch("Arange", scalar_for(0, D.int64), scalar_for(k, D.int64), scalar_for(1, D.int64), order)
    col, keys, idx, nxt = (empty((k,), t, device) for t in (rows.dtype, rows.dtype, D.int64, D.int64))
    for c in range(r - 1, -1, -1):
        launch("IndexSelect", view(rows, (k,), (rows._stride[0],), rows._offset + c * rows._stride[1]), 0, order, col)
        launch("Sort", col, True, 0, False, keys, idx)
        launch("IndexSelect", order, 0, idx, nxt)
        order, nxt = nxt, order
    return order


@kernel("_unique")
def unique(m, a, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """Sorted unique values (or slices along `dim`) from stable device sorts: an entry starts where it
    differs from its predecessor (so every NaN stays its own value, as PyTorch keeps them), the number
    of entries comes to the host through argwhere, inverse indices from a cumulative count put back in
    the original order."""
    if dim is None:
        n, r = numel(a), 1
        rows = view(dense(a), (n, 1), (1, 1))
        inverse = empty(a._shape, D.int64, a.device)
    else:
        d = dim % max(len(a._shape), 1)
        moved = dense(move_dims(a, d, 1, 0)) if a._shape else view(a, (1,), (1,))
        n = moved._shape[0]
        r = numel(moved) // n if n else 0
        rows = view(moved, (n, r), (r, 1))
        inverse = empty((n,), D.int64, a.device)
    if n == 0:  # nothing to sort: the empty result keeps the other dims
        return empty((0,) if dim is None else a._shape, a.dtype, a.device), inverse, empty((0,), D.int64, a.device)
    order = _sorted_rows(rows, n, r, a.device) if r != 1 else None
    values = empty((n, r), a.dtype, a.device)
    if order is None:
        order = empty((n,), D.int64, a.device)
        launch("Sort", view(rows, (n,), (rows._stride[0],)), True, 0, False, view(values, (n,), (1,)), order)
    else:
        launch("IndexSelect", rows, 0, order, values)
    change = empty((n,), D.bool_, a.device)
    launch("InplaceFillScalar", view(change, (1,), (1,)), scalar_for(True, D.bool_))
    if n > 1:
        diff = empty((n - 1, r), D.bool_, a.device)
        launch("NeTensor", view(values, (n - 1, r), (r, 1), values._offset + r), view(values, (n - 1, r), (r, 1)), diff)
        launch("Any", diff, IntArray((1,)), False, view(change, (n - 1,), (1,), change._offset + 1))
    where = nonzero(change)
    k = where._shape[0]
    starts = view(where, (k,), (1,))
    uniques = empty((k, r), a.dtype, a.device)
    launch("IndexSelect", values, 0, starts, uniques)
    group = empty((n,), D.int64, a.device)
    launch("Cumsum", cast(change, D.int64), 0, DType(D.int64), group)  # aclnnCumsum.md: no BOOL input
    launch("InplaceAdds", group, scalar_for(-1, D.int64), scalar_for(1, D.int64))
    launch("IndexPutImpl", view(inverse, (n,), (1,)), [order], group, False, False)
    ends = empty((k,), D.int64, a.device)
    if k > 1:
        launch("InplaceCopy", view(ends, (k - 1,), (1,)), view(starts, (k - 1,), (1,), starts._offset + 1))
    launch("InplaceFillScalar", view(ends, (1,), (1,), ends._offset + k - 1), scalar_for(n, D.int64))
    counts = empty((k,), D.int64, a.device)
    launch("Sub", ends, starts, scalar_for(1, D.int64), counts)
    if dim is None:
        return view(uniques, (k,), (1,)), inverse, counts
    shape = (k,) + tuple(a._shape[:d]) + tuple(a._shape[d + 1 :])
    return contiguous(move_dims(view(uniques, shape, contiguous_strides(shape)), 0, 1, d)), inverse, counts
