"""Indexing kernels: index_select, gather and scatter (with reductions), advanced indexing (index, index_put
with bool masks), index_add / index_copy / index_fill, masked_fill, and argwhere; out-of-range indices raise
PyTorch's errors from bounds reduced on the device: before the launch for the kernels that write through their
index, at the next synchronization for those that only read."""

from mindtorch.plugins import Tensor, broadcast_shapes, dtypes as D, kernel_table

from .. import chips
from ..aclnn import launch, scalar_for
from ..copy import empty
from ._common import (
    as_1d,
    cast,
    check_index,
    contiguous,
    fill,
    fill_masked,
    host_values,
    in_place_by_copy,
    move_dims,
    nonzero,
    numel,
    on_host,
    view,
)

KERNELS, kernel = kernel_table()


def _axis(a, dim):
    n = len(a._shape)
    return dim % n if n else 0


@kernel("index_select")
def index_select(m, a, dim, index):
    d = _axis(a, dim)
    # PyTorch's classes: IndexError out of the first dimension, RuntimeError out of another
    size = a._shape[d] if a._shape else 1
    check_index(index, size, d, "index_select", IndexError if d == 0 else RuntimeError, deferred=True)
    out = empty(m.shape, m.dtype, a.device)
    launch("IndexSelect", a, int(dim), index, out)
    return out


@kernel("gather")
def gather(m, a, dim, index, sparse_grad=False):
    d = _axis(a, dim)
    check_index(index, a._shape[d] if a._shape else 1, d, "gather", RuntimeError, deferred=True)
    out = empty(m.shape, m.dtype, a.device)
    launch("Gather", a, int(dim), index, out)
    return out


# --- scatter -----------------------------------------------------------------------------------------------

SCATTER_REDUCE = {None: 0, "add": 1, "multiply": 2}  # aclnnScatter's reduce attribute


def _scatter_args(a, dim, index, src, reduce):
    d = _axis(a, dim)
    check_index(index, a._shape[d] if a._shape else 1, d, "scatter", RuntimeError)
    return (src if isinstance(src, Tensor) else scalar_for(src, a.dtype)), SCATTER_REDUCE[reduce]


def _scatter_pair(reduce_default=None):
    def out_of_place(m, a, dim, index, src, reduce=reduce_default):
        s, r = _scatter_args(a, dim, index, src, reduce)
        out = empty(m.shape, m.dtype, a.device)
        launch("Scatter" if isinstance(src, Tensor) else "ScatterValue", a, int(dim), index, s, r, out)
        return out

    def in_place(m, a, dim, index, src, reduce=reduce_default):
        s, r = _scatter_args(a, dim, index, src, reduce)
        launch("InplaceScatter" if isinstance(src, Tensor) else "InplaceScatterValue", a, int(dim), index, s, r)
        return a

    return out_of_place, in_place


KERNELS["scatter.src"], KERNELS["scatter_.src"] = _scatter_pair()
KERNELS["scatter.value"], KERNELS["scatter_.value"] = _scatter_pair()
KERNELS["scatter_add"], KERNELS["scatter_add_"] = _scatter_pair("add")

SCATTER_REDUCTIONS = {"sum": 1, "prod": 2, "amax": 3, "amin": 4, "mean": 5}  # aclnn_scatter_reduce.h's values


def _check_dim_index(a, dim, index, name, exc=RuntimeError, negative=False):
    d = _axis(a, dim)
    check_index(index, a._shape[d] if a._shape else 1, d, name, exc, negative)


def _reduces_on_device(a, reduce, include_self):
    """aclnnScatterReduce's doc: Atlas A2 / A3 take FLOAT32 with reduce add and include_self only (other
    combinations are parameter errors), and Ascend 950 lacks the operator; torch_npu runs the rest on the host."""
    return reduce == "sum" and include_self and a.dtype is D.float32 and chips.supports("ScatterReduce", a.dtype)


@kernel("scatter_reduce.two")
def scatter_reduce(m, a, dim, index, src, reduce, include_self=True):
    _check_dim_index(a, dim, index, "")
    if not _reduces_on_device(a, reduce, include_self):
        return on_host("scatter_reduce.two", m, a, dim, index, src, reduce, include_self)
    out = empty(m.shape, m.dtype, a.device)
    launch(
        "ScatterReduce",
        as_1d(a),
        int(dim),
        as_1d(index),
        as_1d(src),
        SCATTER_REDUCTIONS[reduce],
        bool(include_self),
        as_1d(out),
    )
    return out


@kernel("scatter_reduce_.two")
def scatter_reduce_(m, a, dim, index, src, reduce, include_self=True):
    _check_dim_index(a, dim, index, "")
    if not _reduces_on_device(a, reduce, include_self):
        launch("InplaceCopy", a, on_host("scatter_reduce.two", m, a, dim, index, src, reduce, include_self))
        return a
    launch(
        "InplaceScatterReduce",
        as_1d(a),
        int(dim),
        as_1d(index),
        as_1d(src),
        SCATTER_REDUCTIONS[reduce],
        bool(include_self),
    )
    return a


# --- advanced indexing ---------------------------------------------------------------------------------------


@kernel("argwhere")
def argwhere(m, a):
    return nonzero(a)


def _long_indices(indices):
    """Tensor?[] indices with each bool mask replaced by the columns of its argwhere (as PyTorch does)."""
    out = []
    for t in indices:
        if t is not None and t.dtype is D.bool_:
            where = nonzero(t)
            k = len(t._shape)
            out.extend(view(where, (where._shape[0],), (k,), where._offset + j) for j in range(k))
        else:
            out.append(t)
    return out


def _check_indices(a, indices, deferred=False):
    """Each integer index tensor within [-size, size) of the dim it indexes (a bool mask spans as many dims as
    it has, and its argwhere columns are in range by construction); `deferred`: read at the next sync."""
    d = 0
    for t in indices:
        if t is not None and t.dtype is not D.bool_:
            check_index(t, a._shape[d], d, "", IndexError, negative=True, deferred=deferred)
        d += len(t._shape) if t is not None and t.dtype is D.bool_ else 1


def _indexed_layout(self, indices):
    """(self's view with the indexed dims first, the index tensors, their broadcast shape, where PyTorch puts
    the broadcast index dims): adjacent indexed dims keep their place in the result, separated ones go first."""
    pos = [i for i, t in enumerate(indices) if t is not None]
    nd = len(self._shape)
    perm = pos + [i for i in range(nd) if i not in pos]
    v = view(self, [self._shape[i] for i in perm], [self._stride[i] for i in perm])
    front = pos[0] if pos == list(range(pos[0], pos[-1] + 1)) else 0
    idx = [indices[i] for i in pos]
    b = ()
    for t in idx:
        b = tuple(broadcast_shapes(b, t._shape))
    return v, idx, b, front


@kernel("index.Tensor")
def index(m, a, indices):
    _check_indices(a, indices, deferred=True)
    v, idx, b, front = _indexed_layout(a, _long_indices(indices))
    shape = b + tuple(v._shape[len(idx) :])
    out = empty(shape, a.dtype, a.device)
    if numel(out):
        launch("Index", v, list(idx), out)
    return contiguous(move_dims(out, 0, len(b), front)) if front else out


def _index_put(target, indices, values, accumulate):
    _check_indices(target, indices)
    v, idx, b, front = _indexed_layout(target, _long_indices(indices))
    rest = tuple(v._shape[len(idx) :])
    # values broadcast against PyTorch's result layout, then viewed in the operator's (index dims first)
    result_shape = rest[:front] + b + rest[front:]
    if values.dtype is not target.dtype:
        values = cast(values, target.dtype)
    vs = (0,) * (len(result_shape) - len(values._shape)) + tuple(
        0 if n == 1 and r != 1 else st
        for n, st, r in zip(values._shape, values._stride, result_shape[-len(values._shape) :])
    )
    values = move_dims(view(values, result_shape, vs[-len(result_shape) :] if result_shape else ()), front, len(b), 0)
    if numel(values):
        launch("IndexPutImpl", v, list(idx), values, bool(accumulate), False)
    return target


@kernel("index_put")
def index_put(m, a, indices, values, accumulate=False):
    return _index_put(contiguous(a), indices, values, accumulate)


@kernel("index_put_")
def index_put_(m, a, indices, values, accumulate=False):
    return _index_put(a, indices, values, accumulate)


# --- index_add, index_copy, index_fill, masked_fill -----------------------------------------------------------


@kernel("index_add")
def index_add(m, a, dim, index, source, alpha=1):
    _check_dim_index(a, dim, index, "")
    out = empty(m.shape, m.dtype, a.device)
    launch("IndexAdd", as_1d(a), int(dim), as_1d(index), as_1d(source), scalar_for(alpha, m.dtype), as_1d(out))
    return out


KERNELS["index_add_"] = in_place_by_copy(index_add)


@kernel("index_copy_")
def index_copy_(m, a, dim, index, source):
    _check_dim_index(a, dim, index, "index_copy_", IndexError)
    launch("InplaceIndexCopy", as_1d(a), int(dim), as_1d(index), as_1d(source))
    return a


@kernel("index_copy")
def index_copy(m, a, dim, index, source):
    return index_copy_(m, contiguous(a), dim, index, source)


def _index_fill(a, dim, index, value):
    """index_fill as index_copy of a source holding `value` (the fill operator takes its index on the host)."""
    x = as_1d(a)
    d = dim % len(x._shape)
    check_index(index, x._shape[d], d, "", IndexError, negative=True)
    shape = x._shape[:d] + (numel(index),) + x._shape[d + 1 :]
    src = empty(shape, a.dtype, a.device)
    if isinstance(value, Tensor):
        launch("InplaceCopy", src, view(value, shape, (0,) * len(shape)))
    else:
        fill(src, value)
    launch("InplaceIndexCopy", x, d, as_1d(index), src)
    return a


@kernel("index_fill_.int_Scalar", "index_fill_.int_Tensor")
def index_fill_(m, a, dim, index, value):
    return _index_fill(a, dim, index, value)


@kernel("index_fill.int_Scalar", "index_fill.int_Tensor")
def index_fill(m, a, dim, index, value):
    return _index_fill(contiguous(a), dim, index, value)


def _masked_fill_value(value):
    if isinstance(value, Tensor):  # masked_fill.Tensor: a 0-dim value, read once (bfloat16 as float32, not bits)
        return host_values(value, D.float32 if value.dtype is D.bfloat16 else None).item()
    return value


@kernel("masked_fill_.Scalar", "masked_fill_.Tensor")
def masked_fill_(m, a, mask, value):
    fill_masked(a, mask, _masked_fill_value(value))
    return a


@kernel("masked_fill.Scalar", "masked_fill.Tensor")
def masked_fill(m, a, mask, value):
    out = empty(m.shape, m.dtype, a.device)
    launch("InplaceCopy", out, a)
    fill_masked(out, mask, _masked_fill_value(value))
    return out
