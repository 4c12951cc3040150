"""Factory ops (empty, zeros, full, arange, linspace, eye, tril_indices, range, ...), tensors built from
other tensors (diag_embed, diagflat, block_diag, cartesian_prod, combinations, vander), copies and
dtype/device conversion, Tensor.new_*."""

import itertools

from .. import _dtype as D
from .._geometry import numel, wrap_dim
from ..dispatch import call as _dispatch_call
from .formulas import torch
from .meta import TensorMeta, not_implemented
from .registry import OPS, declare_inplace, defop

F = "creation"
_OPTS = (
    "ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, bool requires_grad=False"
)


_MAX_BYTES = 2**63 - 1


def _check_size(size, dtype=None):
    for s in size:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: [{', '.join(map(str, size))}]")
    if (
        numel(size) * (dtype or D.get_default_dtype()).itemsize > _MAX_BYTES
    ):  # meta would otherwise describe a tensor no storage can hold
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)}")
    return tuple(size)


def _factory(size, *rest, dtype=None, **kw):
    return TensorMeta(_check_size(size, dtype), dtype or D.get_default_dtype())


def _factory_meta(size, dtype=None, *rest):
    return TensorMeta(_check_size(size, dtype), dtype or D.get_default_dtype())


def _full_meta(size, fill_value, dtype=None, *rest):
    if dtype is None:
        dtype = D.result_type(fill_value)
    D.check_fits(fill_value, dtype)
    return TensorMeta(_check_size(size, dtype), dtype)


defop(
    f"empty(SymInt[] size, *, {_OPTS}, MemoryFormat? memory_format=None) -> Tensor",
    meta=_factory_meta,
    method=False,
    out=True,
    family=F,
)
defop(
    f"empty_strided(SymInt[] size, SymInt[] stride, *, {_OPTS}) -> Tensor",
    meta=lambda size, stride, dtype=None, *r: TensorMeta(_check_size(size, dtype), dtype or D.get_default_dtype()),
    method=False,
    family=F,
)
defop(
    f"full(SymInt[] size, Scalar fill_value, *, {_OPTS}) -> Tensor", meta=_full_meta, method=False, out=True, family=F
)


def _zeros(size, dtype=None, layout=None, device=None, pin_memory=None, requires_grad=False):
    return _call_full(size, 0, dtype, device)


def _ones(size, dtype=None, layout=None, device=None, pin_memory=None, requires_grad=False):
    return _call_full(size, 1, dtype, device)


def _call_full(size, value, dtype, device):
    return _dispatch_call(OPS["full"], (size, value, dtype or D.get_default_dtype(), None, device, None, False))


defop(f"zeros(SymInt[] size, *, {_OPTS}) -> Tensor", composite=_zeros, method=False, out=True, family=F)
defop(f"ones(SymInt[] size, *, {_OPTS}) -> Tensor", composite=_ones, method=False, out=True, family=F)


def _like(fn):
    def composite(self, *args):
        *vals, dtype, layout, device, pin, rg, memory_format = args
        return fn(self, *vals, dtype=dtype or self.dtype, device=device or self.device)

    return composite


_LIKE = (
    "ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, "
    "bool requires_grad=False, MemoryFormat? memory_format=None"
)


def _empty_like(self, dtype, device):
    # the op itself, as _call_full does: its shape is already checked, so no argument parsing
    return _dispatch_call(OPS["empty"], (self._shape, dtype, None, device, None, False, None))


def _full_like(self, value, dtype, device):
    return _call_full(self._shape, value, dtype, device)


defop(f"empty_like(Tensor self, *, {_LIKE}) -> Tensor", composite=_like(_empty_like), method=False, family=F)
defop(
    f"zeros_like(Tensor self, *, {_LIKE}) -> Tensor",
    composite=_like(lambda s, dtype, device: _call_full(s._shape, 0, dtype, device)),
    method=False,
    family=F,
)
defop(
    f"ones_like(Tensor self, *, {_LIKE}) -> Tensor",
    composite=_like(lambda s, dtype, device: _call_full(s._shape, 1, dtype, device)),
    method=False,
    family=F,
)
defop(
    f"full_like(Tensor self, Scalar fill_value, *, {_LIKE}) -> Tensor",
    composite=_like(_full_like),
    method=False,
    family=F,
)


def arange_params(start, end, step, dtype):
    """(dtype, start, step, length) of arange, as PyTorch computes them."""
    import math

    if dtype is None:
        dtype = D.get_default_dtype() if any(isinstance(v, float) for v in (start, end, step)) else D.int64
    if dtype is D.bool_ or dtype.is_complex:
        raise NotImplementedError(f"\"arange_cpu\" not implemented for '{_tname(dtype)}'")
    if dtype._kind < 2:  # integral results: the bounds are cast first
        start, end, step = (math.trunc(v) if math.isfinite(v) else v for v in (start, end, step))
    if step == 0:
        raise RuntimeError("step must be nonzero")
    for v in (start, end):
        if not math.isfinite(v):
            raise RuntimeError(f"unsupported range: {start} -> {end}")
    if (step > 0 and start > end) or (step < 0 and start < end):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if all(isinstance(v, int) for v in (start, end, step)):
        n = -((start - end) // step)  # exact ceil for big integers
    else:
        n = math.ceil((end - start) / step)
    return dtype, start, step, max(n, 0)


from .._dtype import _cname as _tname  # noqa: E402


def _arange_meta(start, end=None, step=1, dtype=None, *rest):
    dtype, _, _, n = arange_params(start, end, step, dtype)
    return TensorMeta((n,), dtype)


def _arange_bind_meta(start, end, step, dtype=None, *rest):
    return _arange_meta(start, end, step, dtype)


defop(
    f"arange(Scalar start, Scalar end, Scalar step=1, *, {_OPTS}) -> Tensor",
    meta=_arange_bind_meta,
    method=False,
    overload="start_step",
    out=True,
    family=F,
)


def _arange_end(end, dtype=None, layout=None, device=None, pin_memory=None, requires_grad=False):
    from ..dispatch import call
    from .registry import OPS

    return call(OPS["arange.start_step"], (0, end, 1, dtype, layout, device, pin_memory, requires_grad))


defop(f"arange(Scalar end, *, {_OPTS}) -> Tensor", composite=_arange_end, method=False, out=True, family=F)


def _linspace_meta(start, end, steps, dtype=None, *rest, base=None):
    """One step fills start (base ** start for logspace), converted to the dtype as fill_ checks it; more steps
    run a kernel bool and the wide unsigned dtypes lack, which converts both ends first."""
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    dtype = dtype or D.get_default_dtype()
    if steps == 1:
        D.check_fits(start if base is None else base**start, dtype)
    elif steps > 1:
        if dtype is D.bool_ or dtype in D.WIDE_UINTS:
            raise not_implemented("linspace_cpu" if base is None else "logspace_cpu", dtype)
        D.check_fits(start, dtype)
        D.check_fits(end, dtype)
    return TensorMeta((steps,), dtype)


defop(
    f"linspace(Scalar start, Scalar end, int steps, *, {_OPTS}) -> Tensor",
    meta=_linspace_meta,
    method=False,
    out=True,
    family=F,
)


def _logspace_meta(start, end, steps, base=10.0, dtype=None, *rest):
    return _linspace_meta(start, end, steps, dtype, base=base)


def _logspace(start, end, steps, base=10.0, dtype=None, layout=None, device=None, pin_memory=None, requires_grad=False):
    """base ** linspace(start, end) in float64, then cast (the cpu kernel's order): for devices without a kernel."""
    dtype = _logspace_meta(start, end, steps, base, dtype).dtype
    exps = torch.linspace(start, end, steps, dtype=D.float64, device=device)
    return torch.pow(base, exps).to(dtype).requires_grad_(requires_grad)


defop(
    f"logspace(Scalar start, Scalar end, int steps, float base=10.0, *, {_OPTS}) -> Tensor",
    meta=_logspace_meta,
    method=False,
    out=True,
    family=F,
    composite=_logspace,
)


def _eye_meta(n, m=None, dtype=None, *rest):
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m is not None and m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    return TensorMeta((n, n if m is None else m), dtype or D.get_default_dtype())


defop(f"eye(SymInt n, SymInt? m=None, *, {_OPTS}) -> Tensor", meta=_eye_meta, method=False, out=True, family=F)


# --- copies and conversions ------------------------------------------------------
def _same(self, *rest):
    return TensorMeta(self._shape, self.dtype)


defop("clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor", meta=_same, family=F, grad={"self": "grad"})


def _to_copy_meta(self, dtype=None, device=None, *rest):
    return TensorMeta(self._shape, dtype or self.dtype)


defop(
    "_to_copy(Tensor self, *, ScalarType? dtype=None, Device? device=None, bool non_blocking=False) -> Tensor",
    meta=_to_copy_meta,
    method=False,
    family=F,
    grad={"self": "to_like(grad, self)"},
)


def _copy_meta(self, src, non_blocking=False):
    from .._geometry import broadcast_shapes

    sh = tuple(src._shape) if hasattr(src, "_shape") else ()
    if broadcast_shapes(self._shape, sh) != tuple(self._shape):
        raise RuntimeError(
            f"output with shape [{', '.join(map(str, self._shape))}] doesn't match the broadcast "
            f"shape [{', '.join(map(str, broadcast_shapes(self._shape, sh)))}]"
        )
    return TensorMeta(self._shape, self.dtype)


declare_inplace(
    "copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)",
    meta=_copy_meta,
    family=F,
    grad={"self": "grad * 0", "src": "copy_src_grad(grad, src)"},
)


def _fill_meta(self, value):
    if not hasattr(value, "_shape"):
        D.check_fits(value, self.dtype)
    return TensorMeta(self._shape, self.dtype)


declare_inplace(
    "fill_(Tensor(a!) self, Scalar value) -> Tensor(a!)",
    meta=_fill_meta,
    overload="Scalar",
    family=F,
    grad={"self": "grad * 0"},
)
declare_inplace("zero_(Tensor(a!) self) -> Tensor(a!)", meta=_same, family=F, grad={"self": "grad * 0"})


def _resize_meta(self, size, memory_format=None):
    return TensorMeta(tuple(size), self.dtype)


def _resize(self, size, memory_format=None):
    """Core-only: reshape in place, growing the storage from the device's allocator when needed.
    As in PyTorch, the version moves only when the shape does."""
    from .._grad_mode import refuse_inference_write
    from ..dispatch import bump_version, resize_geometry

    size = _check_size(size, self.dtype)
    refuse_inference_write(self)
    if self._requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    if resize_geometry(self, size, keep=True):
        bump_version(self)
    return self


declare_inplace(
    "resize_(Tensor(a!) self, SymInt[] size, *, MemoryFormat? memory_format=None) -> Tensor(a!)",
    composite=_resize,
    family=F,
)
declare_inplace(
    "resize_as_(Tensor(a!) self, Tensor the_template, *, MemoryFormat? memory_format=None) -> Tensor(a!)",
    composite=lambda self, the_template, memory_format=None: _resize(self, the_template._shape),
    function=True,
    family=F,
)


# --- Tensor.new_* (method-only): self's dtype and device unless given ----------------------
def _new_factory(fn):
    def composite(self, *args):
        *vals, dtype, layout, device, pin, rg = args
        return fn(*vals, dtype=dtype or self.dtype, device=device or self.device)

    return composite


def _new_empty(size, dtype, device):
    from .. import empty

    return empty(size, dtype=dtype, device=device)


def _new_empty_strided(size, stride, dtype, device):
    from .. import empty_strided

    return empty_strided(size, stride, dtype=dtype, device=device)


defop(
    f"new_empty(Tensor self, SymInt[] size, *, {_OPTS}) -> Tensor",
    composite=_new_factory(_new_empty),
    function=False,
    family=F,
)
defop(
    f"new_empty_strided(Tensor self, SymInt[] size, SymInt[] stride, *, {_OPTS}) -> Tensor",
    composite=_new_factory(_new_empty_strided),
    function=False,
    family=F,
)
defop(
    f"new_zeros(Tensor self, SymInt[] size, *, {_OPTS}) -> Tensor",
    composite=_new_factory(lambda size, dtype, device: _call_full(size, 0, dtype, device)),
    function=False,
    family=F,
)
defop(
    f"new_ones(Tensor self, SymInt[] size, *, {_OPTS}) -> Tensor",
    composite=_new_factory(lambda size, dtype, device: _call_full(size, 1, dtype, device)),
    function=False,
    family=F,
)
defop(
    f"new_full(Tensor self, SymInt[] size, Scalar fill_value, *, {_OPTS}) -> Tensor",
    composite=_new_factory(lambda size, value, dtype, device: _call_full(size, value, dtype, device)),
    function=False,
    family=F,
)


# --- tensors built from other tensors: diag_embed, diagflat, block_diag, cartesian_prod, combinations, vander ---
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


def _block_diag(tensors):
    mats = []
    for i, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError(
                f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has {t.dim()} dimensions"
            )
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


defop(
    "combinations(Tensor self, int r=2, bool with_replacement=False) -> Tensor",
    composite=_combinations,
    method=False,
    family=F,
)


def _vander(x, N=None, increasing=False):
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    if x.dtype in D.WIDE_UINTS:  # its integer powers are int64: a promotion PyTorch refuses
        raise RuntimeError(
            "Promotion for uint16, uint32, uint64 types is not supported, attempted to promote "
            f"{D._cname(x.dtype)} and Long"
        )
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
    cols = torch.cumprod(
        torch.cat([torch.ones_like(base).unsqueeze(1), base.unsqueeze(1).expand(-1, max(n - 1, 0))], 1), 1
    )
    return cols if increasing else cols.flip(1)


defop("vander(Tensor x, int? N=None, bool increasing=False) -> Tensor", composite=_vander, method=False, family=F)


# --- index grids and torch.range ------------------------------------------------------------------
def _tri_indices(upper):
    def indices(row, col, offset=0, dtype=None, layout=None, device=None, pin_memory=None, requires_grad=False):
        dtype = D.int64 if dtype is None else dtype
        r = torch.arange(row, device=device).unsqueeze(1)
        c = torch.arange(col, device=device).unsqueeze(0)
        keep = (c - r >= offset) if upper else (c - r <= offset)
        return (
            torch.stack(torch.nonzero(keep, as_tuple=True)).to(dtype)
            if row * col
            else torch.zeros(2, 0, dtype=dtype, device=device)
        )

    return indices


for _n, _up in (("tril_indices", False), ("triu_indices", True)):
    defop(
        f"{_n}(int row, int col, int offset=0, *, {_OPTS}) -> Tensor",
        composite=_tri_indices(_up),
        method=False,
        family=F,
    )


def _range(start, end, step=1, dtype=None, layout=None, device=None, pin_memory=None, requires_grad=False):
    """torch.range: deprecated, end included; like arange(start, end + step) computed in the target dtype."""
    import warnings

    warnings.warn(
        "torch.range is deprecated and will be removed in a future release because its behavior is "
        "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values in "
        "[start, end).",
        UserWarning,
        stacklevel=4,
    )
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (step > 0 and start > end) or (step < 0 and start < end):
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    dtype = D.get_default_dtype() if dtype is None else dtype
    n = int((end - start) // step) + 1
    t = torch.arange(n, dtype=D.float64, device=device) * step + start
    t = t.to(dtype)
    return t.requires_grad_() if requires_grad else t


defop(
    f"range(Scalar start, Scalar end, Scalar step=1, *, {_OPTS}) -> Tensor",
    composite=_range,
    method=False,
    out=True,
    family=F,
)
