"""Indexing and joining kernels over NumPy views."""

from functools import partial

import numpy as np

from ..convert import TO_NP, arr, assignable, wrap
from ..native import ENTRY
from . import kernel_table

KERNELS, kernel = kernel_table()


def _v(x):
    return arr(x) if hasattr(x, "_shape") else x


def _bounds(idx, size, dim, exc=IndexError, allow_negative=True):
    if idx.size == 0:
        return idx
    lo = -size if allow_negative else 0
    bad = (idx < lo) | (idx >= size)
    if bad.any():
        i = int(idx[bad].reshape(-1)[0])
        raise exc(f"index {i} is out of bounds for dimension {dim} with size {size}")
    return idx


def _nd(x):
    """0-dim tensors act as 1-element vectors in gather/scatter/index_* ops."""
    a = arr(x)
    return a.reshape(1) if a.ndim == 0 else a


def _out(m, self):
    """A fresh copy of self for the out-of-place form of an in-place kernel."""
    return wrap(np.array(arr(self), dtype=TO_NP[m.dtype], copy=True), m.dtype)


def _both(name):
    """Register fn(target_tensor, *args) as both `name` (on a copy) and `name_` (in place)."""
    base, _, ov = name.partition(".")
    ip = base + "_" + ("." + ov if ov else "")

    def deco(fn):
        def out_of_place(m, self, *args):
            t = _out(m, self)
            fn(t, *args)
            return t

        def in_place(m, self, *args):
            fn(self, *args)
            return self

        KERNELS[name] = out_of_place
        KERNELS[ip] = in_place
        return fn

    return deco


# --- advanced indexing ----------------------------------------------------------


def _np_index(self, indices):
    key = []
    dim = 0
    shape = self._shape
    for t in indices:
        if t is None:
            key.append(slice(None))
            dim += 1
            continue
        a = arr(t)
        if a.dtype == np.bool_ or a.dtype == np.uint8:
            key.append(a.astype(np.bool_))
            dim += a.ndim
        else:
            key.append(_bounds(a.astype(np.int64), shape[dim], dim))
            dim += 1
    return tuple(key)


@kernel("index.Tensor")
def index(m, self, indices):
    r = arr(self)[_np_index(self, indices)]
    return wrap(np.array(r, copy=True).reshape(m.shape), m.dtype)


def _index_put(self, indices, values, accumulate=False):
    key = _np_index(self, indices)
    a = arr(self)
    val = arr(values)
    if accumulate:
        target_shape = a[key].shape
        np.add.at(a, key, np.broadcast_to(val, target_shape))
    else:
        a[key] = val


_both("index_put")(_index_put)


def cat(m, tensors, dim=0):
    """cat over NumPy views: the reference of the compiled kernel (native/host_cat.c), which runs
    it for whatever is not its common case."""
    dt = TO_NP[m.dtype]
    parts = []
    cast = False
    for t in tensors:
        if t._shape != (0,):  # legacy empty 1-d tensors join anything
            x = t._np  # the cached NumPy view, made once when missing
            if x is None:
                x = arr(t)
            if x.dtype is not dt:
                cast = True
            parts.append(x)
    if not parts:
        return wrap(np.empty(m.shape, dt), m.dtype)
    if not cast:  # the plain call
        return wrap(np.concatenate(parts, dim % len(m.shape)), m.dtype)
    # one pass: each part is cast as it is copied in (no converted temporaries)
    return wrap(np.concatenate(parts, axis=dim % len(m.shape), dtype=dt, casting="unsafe"), m.dtype)


def stack(m, tensors, dim=0):
    """stack over NumPy views: the reference of the compiled kernel (native/host_cat.c), which runs
    it for whatever is not its common case."""
    dt = TO_NP[m.dtype]
    parts = [arr(t) for t in tensors]
    d = dim % len(m.shape)
    if all(x.dtype is dt for x in parts):
        return wrap(np.stack(parts, d), m.dtype)
    return wrap(np.stack(parts, axis=d, dtype=dt, casting="unsafe"), m.dtype)


# the compiled kernels when the entry has them (not through ctypes: their saving is the Python around
# the copies)
for _name, _numpy in (("cat", cat), ("stack", stack)):
    _compiled = getattr(ENTRY, "mt_" + _name, None)
    kernel(_name)(_numpy if _compiled is None else partial(_compiled, _numpy, wrap, TO_NP, np.empty))


# --- gather / scatter -------------------------------------------------------------


def _grid(index, dim):
    """Full coordinates addressed by a gather/scatter index along dim."""
    idx = _nd(index).astype(np.int64)
    coords = list(np.indices(idx.shape, sparse=True))
    coords[dim] = idx
    return tuple(coords), idx


@kernel("gather")
def gather(m, self, dim, index, sparse_grad=False):
    a = _nd(self)
    d = dim % a.ndim
    key, idx = _grid(index, d)
    _bounds(idx, a.shape[d], d, RuntimeError, allow_negative=False)
    return wrap(np.array(a[key], copy=True).reshape(m.shape), m.dtype)


def _scatter(self, dim, index, src, reduce=None):
    a = _nd(self)
    d = dim % a.ndim
    key, idx = _grid(index, d)
    _bounds(idx, a.shape[d], d, RuntimeError, allow_negative=False)
    if hasattr(src, "_shape"):
        s = _nd(src)
        vals = s[tuple(slice(0, n) for n in idx.shape)]
    else:
        vals = np.full(idx.shape, src, dtype=a.dtype)
    if reduce is None:
        a[key] = vals
    elif reduce == "add":
        np.add.at(a, key, vals)
    else:
        np.multiply.at(a, key, vals)


_both("scatter.src")(_scatter)
_both("scatter.value")(_scatter)
_both("scatter_add")(lambda self, dim, index, src: _scatter(self, dim, index, src, "add"))

_REDUCE_AT = {"sum": np.add, "prod": np.multiply, "mean": np.add, "amax": np.fmax, "amin": np.fmin}


def _scatter_reduce(self, dim, index, src, reduce, include_self=True):
    """Reduce src into self at index along dim; without include_self the addressed places start from the
    reduction's identity. NaN wins in amax/amin, as in PyTorch."""
    reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)  # the older spellings PyTorch accepts
    a = _nd(self)
    d = dim % a.ndim
    key, idx = _grid(index, d)
    _bounds(idx, a.shape[d], d, RuntimeError, allow_negative=False)
    vals = _nd(src)[tuple(slice(0, n) for n in idx.shape)]
    hit = np.zeros(a.shape, bool)
    hit[key] = True
    count = None
    if reduce == "mean":
        count = np.zeros(a.shape, np.int64)
        np.add.at(count, key, 1)
        if include_self:
            count += 1
    if not include_self:
        identity = {"sum": 0, "mean": 0, "prod": 1}.get(reduce)
        if identity is None:  # amax/amin: the first value scattered to each place starts it
            first = np.zeros(a.shape, a.dtype)
            first[key] = vals
            a[hit] = first[hit]
        else:
            a[hit] = identity
    with np.errstate(invalid="ignore"):
        _REDUCE_AT[reduce].at(a, key, vals)
        if reduce in ("amax", "amin") and a.dtype.kind in "fc":
            nan = np.zeros(a.shape, bool)
            np.logical_or.at(nan, key, np.isnan(vals))
            a[nan] = np.nan
        if count is not None:
            n = np.maximum(count, 1)
            a[hit] = (np.floor_divide(a, n) if a.dtype.kind in "iu" else a / n)[hit]


_both("scatter_reduce.two")(_scatter_reduce)


# --- index_select / index_add / index_copy / index_fill ---------------------------


def _vec_index(index, size, dim, name, error=None):
    """The index as a vector, every entry in [0, size); `error(i)` is the exception for an entry out of it."""
    idx = arr(index).astype(np.int64).reshape(-1)
    if idx.size and ((idx < 0) | (idx >= size)).any():
        i = int(idx[(idx < 0) | (idx >= size)][0])
        if error is not None:
            raise error(i)
        raise IndexError(f"{name}(): index {i} is out of bounds for dimension {dim} with size {size}")
    return idx


def _select_error(d, size):
    """PyTorch's index_select: the first dimension's check is an IndexError, the others' a RuntimeError."""
    if d == 0:
        return lambda i: IndexError("index out of range in self")
    return lambda i: RuntimeError(f"INDICES element is out of DATA bounds, id={i} axis_dim={size}")


@kernel("index_select")
def index_select(m, self, dim, index):
    a = _nd(self)
    d = dim % a.ndim
    idx = _vec_index(index, a.shape[d], d, "index_select", _select_error(d, a.shape[d]))
    return wrap(np.take(a, idx, axis=d).reshape(m.shape), m.dtype)


def _moved(self, dim):
    a = _nd(self)
    d = dim % a.ndim
    return np.moveaxis(a, d, 0), d, a


def _source_moved(source, d, like):
    s = arr(source)
    if s.ndim == 0:
        s = s.reshape((1,) * max(like.ndim, 1))
    return np.moveaxis(s, d, 0)


@_both("index_add")
def _index_add(self, dim, index, source, alpha=1):
    a, d, full = _moved(self, dim)
    size = a.shape[0]
    idx = _vec_index(
        index,
        size,
        d,
        "index_add",
        lambda i: RuntimeError(f"index {i} is out of bounds for dimension {d} with size {size}"),
    )
    s = _source_moved(source, d, full)
    if alpha != 1:
        s = s * alpha
    np.add.at(a, idx, s.astype(a.dtype, copy=False))


@_both("index_copy")
def _index_copy(self, dim, index, source):
    a, d, full = _moved(self, dim)
    idx = _vec_index(index, a.shape[0], d, "index_copy")
    a[idx] = _source_moved(source, d, full)


def _index_fill(self, dim, index, value):
    a, d, _ = _moved(self, dim)
    idx = _vec_index(index, a.shape[0], d, "index_fill")
    a[idx] = assignable(value, a.dtype)


_both("index_fill.int_Scalar")(_index_fill)
_both("index_fill.int_Tensor")(_index_fill)


# --- masked_fill -------------------------------------------------------------------


def _masked_fill_out(m, self, mask, value):
    dt = TO_NP[m.dtype]
    x = arr(self)
    if x.dtype == dt and dt.kind in "biufc":  # one pass picking each element from a side, broadcasting in C
        a = np.where(arr(mask), np.array(assignable(value, dt), dt), x)
        return wrap(a if a.flags.c_contiguous else np.ascontiguousarray(a), m.dtype)
    a = np.array(np.broadcast_to(x, m.shape), dtype=dt, copy=True)
    a[np.broadcast_to(arr(mask), m.shape)] = assignable(value, a.dtype)
    return wrap(a, m.dtype)


def _masked_fill_in(m, self, mask, value):
    a = arr(self)
    a[np.broadcast_to(arr(mask), a.shape)] = assignable(value, a.dtype)
    return self


for _ov in ("Scalar", "Tensor"):
    KERNELS["masked_fill." + _ov] = _masked_fill_out
    KERNELS["masked_fill_." + _ov] = _masked_fill_in


@kernel("argwhere")
def argwhere(m, self):
    a = arr(self)
    return wrap(np.argwhere(a).astype(np.int64), None)


# --- tril / triu / flip / roll / repeat -------------------------------------------


def _tri(fn):
    def out_of_place(m, self, diagonal=0):
        return wrap(fn(arr(self), diagonal), m.dtype)

    def in_place(m, self, diagonal=0):
        a = arr(self)
        a[...] = fn(a, diagonal)
        return self

    return out_of_place, in_place


KERNELS["tril"], KERNELS["tril_"] = _tri(np.tril)
KERNELS["triu"], KERNELS["triu_"] = _tri(np.triu)


@kernel("flip")
def flip(m, self, dims):
    a = arr(self)
    if a.ndim == 0 or not dims:
        return wrap(np.array(a, copy=True), m.dtype)
    return wrap(np.flip(a, axis=tuple(d % a.ndim for d in dims)).copy(), m.dtype)


@kernel("roll")
def roll(m, self, shifts, dims=()):
    a = arr(self)
    if not dims:
        return wrap(np.roll(a.reshape(-1), shifts[0]).reshape(a.shape), m.dtype)
    return wrap(np.roll(a, tuple(shifts), axis=tuple(d % max(a.ndim, 1) for d in dims)), m.dtype)


@kernel("repeat")
def repeat(m, self, repeats):
    a = arr(self)
    a = a.reshape((1,) * (len(repeats) - a.ndim) + a.shape)
    return wrap(np.tile(a, tuple(repeats)), m.dtype)


# --- sort / topk -------------------------------------------------------------------


def _argsort(a, axis, descending):
    if not descending:
        return np.argsort(a, axis=axis, kind="stable")
    # stable descending: sort the reversed array ascending, then reverse back
    n = a.shape[axis]
    r = np.flip(np.argsort(np.flip(a, axis), axis=axis, kind="stable"), axis)
    return (n - 1) - r


@kernel("_sort")
def sort(m, self, dim=-1, descending=False, stable=False):
    a = arr(self)
    if a.ndim == 0:
        return wrap(a.copy(), m[0].dtype), wrap(np.zeros((), np.int64), m[1].dtype)
    d = dim % a.ndim
    idx = _argsort(a, d, descending)
    return wrap(np.take_along_axis(a, idx, d), m[0].dtype), wrap(idx.astype(np.int64), m[1].dtype)


@kernel("_topk")
def topk(m, self, k, dim=-1, largest=True, sorted=True):
    a = arr(self)
    if a.ndim == 0:
        return wrap(a.copy(), m[0].dtype), wrap(np.zeros((), np.int64), m[1].dtype)
    d = dim % a.ndim
    idx = np.take(_argsort(a, d, largest), np.arange(k), axis=d)
    return wrap(np.take_along_axis(a, idx, d), m[0].dtype), wrap(idx.astype(np.int64), m[1].dtype)


# --- unique / searchsorted / bincount ------------------------------------------------


@kernel("_unique")
def unique(m, self, sorted=True, return_inverse=False, return_counts=False, dim=None):
    from mindtorch.plugins import dtypes as D

    a = arr(self)
    if dim is None:
        # NaN != NaN: PyTorch keeps every NaN as its own value
        u, inv, cnt = np.unique(a.reshape(-1), return_inverse=True, return_counts=True, equal_nan=False)
        inv = inv.reshape(a.shape)
    else:
        d = dim % max(a.ndim, 1)
        u, inv, cnt = np.unique(a, return_inverse=True, return_counts=True, axis=d)
        inv = inv.reshape(-1)
    return (
        wrap(np.ascontiguousarray(u), self.dtype),
        wrap(inv.astype(np.int64), D.int64),
        wrap(cnt.astype(np.int64), D.int64),
    )


@kernel("searchsorted.Tensor", "searchsorted.Scalar")
def searchsorted(m, seq, self, out_int32=False, right=False, side=None, sorter=None):
    s = arr(seq)
    v = np.asarray(_v(self))
    how = "right" if (right or side == "right") else "left"
    if sorter is not None:
        s = np.take_along_axis(s, arr(sorter).astype(np.int64), -1)
    if s.ndim == 1:
        r = np.searchsorted(s, v, side=how)
    else:
        s2 = s.reshape(-1, s.shape[-1])
        v2 = v.reshape(s2.shape[0], -1)
        r = np.stack([np.searchsorted(s2[i], v2[i], side=how) for i in range(s2.shape[0])]).reshape(v.shape)
    return wrap(np.asarray(r).reshape(m.shape), m.dtype)


@kernel("_bincount")
def bincount(m, self, weights=None, minlength=0):
    from mindtorch.plugins import dtypes as D

    a = arr(self).astype(np.int64)
    if a.size and a.min() < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is None:
        return wrap(np.bincount(a, minlength=minlength).astype(np.int64), D.int64)
    w = arr(weights)
    dt = D.float32 if weights.dtype is D.float32 else D.float64  # PyTorch's result dtype
    r = np.bincount(a, weights=w.astype(np.float64), minlength=minlength)
    return wrap(r.astype(TO_NP[dt]), dt)
