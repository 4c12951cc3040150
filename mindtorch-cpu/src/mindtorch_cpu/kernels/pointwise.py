"""Pointwise kernels: NumPy ufuncs over zero-copy views, in the dtype core's rules chose."""

import math

import numpy as np
from mindtorch.plugins import Tensor, clamp_family, dtypes as D

from .. import native
from ..allocator import ALLOCATOR, dense
from ..convert import TO_NP, arr, quiet, wrap
from ..parallel import elementwise, threads_for, ufunc as par_ufunc
from ..sizes import THRESHOLDS
from . import kernel_table

_SPECIAL = []  # scipy.special, imported on first use (it costs ~0.2 s at import)


def _scipy_special():
    if not _SPECIAL:
        try:
            from scipy import special
        except ImportError:  # optional: fall back to math per element
            special = None
        _SPECIAL.append(special)
    return _SPECIAL[0]


KERNELS, kernel = kernel_table()
_F32 = np.dtype(np.float32)
_F16, _BF16 = D.float16, D.bfloat16


def _v(x):
    """NumPy operand: the view of a tensor, or a Python scalar as is."""
    return arr(x) if hasattr(x, "_shape") else x


# How a number enters a half-precision op, as PyTorch's cpu kernels take it: a number (a Python number,
# or a 0-dim tensor) given for a Tensor operand goes through TensorIterator's common dtype, i.e. is
# rounded to half first; a kernel that reads its scalar in "opmath" (mul's and div's second operand, an
# activation's Scalar arguments, addcmul's value, lerp's number weight) takes the original value in
# float32. Either way the op then computes in float32 and rounds once (NumPy's float16 loops do the
# same per element for one ufunc, which is why float16's compute dtype can stay float16 where no
# number is opmath).
def _o(x, dt, d=None, opmath=False):
    """Operand in compute dtype `dt` of an op on dtype `d`: tensors as views, Python scalars as 0-d arrays
    (wrapping like C casts); a number operand of a half op by the rule above."""
    if x.__class__ is Tensor:
        a = x._np
        if a is None:
            a = arr(x)
    elif hasattr(x, "_shape"):
        a = arr(x)
    else:
        a = None
    if a is not None:
        if a.ndim:
            return a
        if d is _F16 or d is _BF16:
            return _half_number(a, d, dt, opmath)
        # a 0-dim tensor of the same category does not promote (uint8 tensor + int8 0-dim -> uint8); NumPy
        # refuses such casts under same_kind, so convert the (cheap) 0-dim operand like a C cast
        return a.astype(dt) if a.dtype != dt else a
    if d is _F16 or d is _BF16:
        return _half_number(x, d, dt, opmath)
    if dt.kind in "fc" and x.__class__ in (float, int, bool):
        return x  # NumPy treats Python scalars as weak, like PyTorch
    return np.asarray(x).astype(dt)


def _half_number(x, d, dt, opmath):
    v = np.asarray(x, _F32)
    return (v if opmath else v.astype(TO_NP[d])).astype(dt)


# NumPy compute dtype of each dtype: bfloat16 math runs in float32 and is rounded back by wrap
_cdt = {d: (_F32 if d is D.bfloat16 else t) for d, t in TO_NP.items()}.__getitem__
_HALF = (D.float16, D.bfloat16)


def _opmath(d):
    """NumPy compute dtype of the fused ternary updates and of add/sub with an alpha: both half types run in
    float32 (the product of two half values is exact there) and round once."""
    return _F32 if d is D.bfloat16 or d is D.float16 else TO_NP[d]


def _inplace(name):
    """name_ from name: compute, then write into self (the dispatcher already checked castability)."""
    fn = KERNELS[name]

    def in_place(m, a, *rest):
        r = fn(m, a, *rest)
        np.copyto(arr(a), arr(r), casting="unsafe")
        return a

    KERNELS[name + "_"] = in_place
    return in_place


_SMALL = 1 << 15  # elements: below this an op is one plain NumPy call (no pool, no threads)


def _small(x):
    return x.__class__ is not np.ndarray or x.size < _SMALL


# ufuncs whose loop for two operands of one dtype computes in and returns that dtype
_SAME_TYPE = frozenset(
    (np.add, np.subtract, np.multiply, np.maximum, np.minimum, np.fmax, np.fmin)
    + (np.bitwise_and, np.bitwise_or, np.bitwise_xor)
)


def _lean(ufunc, a, b, dt):
    """ufunc(a, b) for two small tensors already in compute dtype `dt` whose NumPy views are cached
    (most operands of a small op are): one plain ufunc call, no conversions; None otherwise."""
    if a.__class__ is Tensor and b.__class__ is Tensor:
        x, y = a._np, b._np
        if x is not None and y is not None and x.dtype is dt and y.dtype is dt and x.size < _SMALL and y.size < _SMALL:
            return ufunc(x, y)
    return None


def _binary(ufunc, name, inplace=True, opmath=False):
    """A binary kernel; `opmath`: the second operand, when a number, is taken in opmath (see _o)."""
    lean = ufunc in _SAME_TYPE

    def out_of_place(m, a, b, *rest):
        d = m.dtype
        dt = _cdt(d)
        if lean:
            r = _lean(ufunc, a, b, dt)
            if r is not None:
                return wrap(r, d)
        if opmath and (d is _F16 or d is _BF16):
            dt = _F32  # see _o
        x, y = _o(a, dt, d), _o(b, dt, d, opmath)
        with quiet():
            if _small(x) and _small(y):
                return wrap(ufunc(x, y, dtype=dt), m.dtype)
            return wrap(par_ufunc(ufunc, dt, x, y), m.dtype)

    KERNELS[name] = out_of_place
    if inplace:

        def in_place(m, a, b, *rest):
            x = arr(a)
            d = m.dtype
            dt = _opmath(d) if opmath else _cdt(d)
            y = _o(b, dt, d, opmath)
            with quiet():
                if x.dtype == dt:
                    ufunc(x, y, out=x, dtype=dt)
                else:
                    np.copyto(x, ufunc(x, y, dtype=dt), casting="unsafe")
            return a

        KERNELS[name + "_"] = in_place


def _scaled(x, alpha, d, dt):
    """alpha * x; alpha, like a number operand, is first converted to the op's dtype."""
    if alpha == 1:
        return _o(x, dt, d)
    return np.multiply(_o(x, dt, d), _o(np.asarray(alpha), dt, d), dtype=dt)


@kernel("add")
def add(m, a, b, alpha=1):
    d = m.dtype
    dt = _cdt(d)
    if alpha == 1:
        r = _lean(np.add, a, b, dt)
        if r is not None:
            return wrap(r, d)
    else:
        dt = _opmath(d)
    x, y = _o(a, dt, d), _scaled(b, alpha, d, dt)
    if _small(x) and _small(y):
        return wrap(np.add(x, y, dtype=dt), d)
    return wrap(par_ufunc(np.add, dt, x, y), d)


@kernel("add_")
def add_(m, a, b, alpha=1):
    out = arr(a)
    dt = _cdt(m.dtype) if alpha == 1 else _opmath(m.dtype)
    np.add(out, _scaled(b, alpha, m.dtype, dt), out=out, casting="unsafe")
    return a


@kernel("sub")
def sub(m, a, b, alpha=1):
    d = m.dtype
    dt = _cdt(d)
    if alpha == 1:
        r = _lean(np.subtract, a, b, dt)
        if r is not None:
            return wrap(r, d)
    else:
        dt = _opmath(d)
    return wrap(par_ufunc(np.subtract, dt, _o(a, dt, d), _scaled(b, alpha, d, dt)), d)


@kernel("sub_")
def sub_(m, a, b, alpha=1):
    out = arr(a)
    dt = _cdt(m.dtype) if alpha == 1 else _opmath(m.dtype)
    np.subtract(out, _scaled(b, alpha, m.dtype, dt), out=out, casting="unsafe")
    return a


_binary(np.multiply, "mul", opmath=True)


def _int_zero_check(y):
    if np.any(y == 0):
        raise RuntimeError("ZeroDivisionError")


def _div_values(m, a, b, rounding_mode):
    d = m.dtype
    half = d is _F16 or d is _BF16
    dt = _F32 if half else _cdt(d)  # see _o
    x, y = _o(a, dt, d), _o(b, dt, d, opmath=True)
    if rounding_mode is None:
        return np.true_divide(x, y, dtype=dt)
    if m.dtype._kind >= 2:
        if rounding_mode == "trunc":
            q = np.true_divide(x, y, dtype=dt)
            if half and np.ndim(y):  # by a half tensor, PyTorch rounds the quotient to half, then truncates
                q = q.astype(TO_NP[d]).astype(dt)
            return np.trunc(q)
        return np.floor_divide(x, y, dtype=dt)
    _int_zero_check(y)
    if rounding_mode == "floor":
        return np.floor_divide(x, y, dtype=dt)
    q = np.floor_divide(x, y, dtype=dt)
    # floor and trunc differ where the quotient is negative and inexact
    fix = (q < 0) & (np.multiply(q, y, dtype=dt) != x)
    return np.add(q, fix, dtype=dt)


@kernel("div")
def div(m, a, b, rounding_mode=None):
    with quiet():
        return wrap(_div_values(m, a, b, rounding_mode), m.dtype)


_inplace("div")


@kernel("floor_divide")
def floor_divide(m, a, b):
    return div(m, a, b, "floor")


def _int_checked(ufunc, name):
    @kernel(name)
    def k(m, a, b):
        dt = _cdt(m.dtype)
        x, y = _o(a, dt, m.dtype), _o(b, dt, m.dtype)
        if m.dtype._kind < 2:
            _int_zero_check(y)
        with quiet():
            return wrap(ufunc(x, y, dtype=dt), m.dtype)


_int_checked(np.remainder, "remainder")
_int_checked(np.fmod, "fmod")


def _int_pow(x, e, dt):
    """Integer power; negative exponents give 1/x truncated (1, -1 or 0), as PyTorch does."""
    if np.ndim(e) == 0 and e >= 0 or not np.any(e < 0):
        return np.power(x, e, dtype=dt)
    neg = e < 0
    r = np.power(x, np.where(neg, 0, e).astype(dt), dtype=dt)
    odd = np.bitwise_and(e, 1, dtype=dt) != 0
    inv = np.where(x == 1, 1, np.where(x == -1, np.where(odd, -1, 1), 0)).astype(dt)
    return np.where(neg, inv, r)


@kernel("pow")
def pow_(m, a, b):
    dt = _cdt(m.dtype)
    x, e = _o(a, dt, m.dtype), _o(b, dt, m.dtype)
    if m.dtype is D.bool_:  # bool ** bool: x or not e
        return wrap(np.logical_or(x, np.logical_not(e)), m.dtype)
    with quiet():
        if m.dtype._kind == 1:
            return wrap(_int_pow(x, e, dt), m.dtype)
        if m.dtype is D.bfloat16 and b.__class__ in (int, float) and b in (3, -2):
            # PyTorch's bfloat16 cube and inverse square by a number round the square to bfloat16 first
            sq = np.multiply(x, x, dtype=dt).astype(TO_NP[m.dtype]).astype(dt)
            return wrap(np.multiply(sq, x, dtype=dt) if e == 3 else np.divide(1, sq, dtype=dt), m.dtype)
        if e.__class__ in (float, int) and e == 3 and dt.kind == "f" and dt.itemsize >= 4:
            # a cube as two products, as PyTorch computes it (powf is ~10x slower than a multiply)
            r = np.multiply(x, x, dtype=dt)
            return wrap(np.multiply(r, x, out=r) if r.__class__ is np.ndarray else r * x, m.dtype)  # 0-d: a scalar
        return wrap(np.power(x, e, dtype=dt), m.dtype)


_inplace("pow")
_binary(np.arctan2, "atan2")
_binary(np.arctan2, "arctan2", inplace=False)
_binary(np.maximum, "maximum", inplace=False)
_binary(np.minimum, "minimum", inplace=False)
_binary(np.fmax, "fmax", inplace=False)
_binary(np.fmin, "fmin", inplace=False)

for _uf, _name in (
    (np.gcd, "gcd"),
    (np.lcm, "lcm"),
    (np.hypot, "hypot"),
    (np.copysign, "copysign"),
    (np.nextafter, "nextafter"),
):
    _binary(_uf, _name)
_nextafter_f32 = KERNELS["nextafter"]


@kernel("nextafter")
def nextafter(m, a, b, *rest):
    """bfloat16 steps on its own grid (its float32 neighbours round back to the value itself): one step of
    the 16-bit pattern, toward other, as PyTorch's bfloat16 nextafter."""
    if m.dtype is not D.bfloat16:
        return _nextafter_f32(m, a, b, *rest)
    x, y = np.broadcast_arrays(_o(a, _F32), _o(b, _F32))
    bits = (np.ascontiguousarray(x, np.float32).view(np.uint32) >> 16).astype(np.int32)
    away = (y > x) == (x > 0)
    step = ((bits + np.where(away, 1, -1)).astype(np.uint32) << 16).view(np.float32)
    tiny = np.float32(np.uint32(1 << 16).view(np.float32))
    out = np.where(x == 0, np.where(y > 0, tiny, -tiny), step)
    out = np.where(x == y, y, out)
    return wrap(np.where(np.isnan(x) | np.isnan(y), x + y, out).astype(np.float32), m.dtype)


_inplace("nextafter")


def _logaddexp(x, y, dtype=None):
    """log(exp(x) + exp(y)); complex numbers shifted by the larger real part (NumPy's ufunc is real-only)."""
    if np.dtype(dtype).kind != "c":
        return np.logaddexp(x, y, dtype=dtype)
    x, y = np.asarray(x, dtype), np.asarray(y, dtype)
    m = np.maximum(x.real, y.real)
    m = np.where(np.isfinite(m), m, 0).astype(dtype)
    return (np.log(np.exp(x - m) + np.exp(y - m)) + m).astype(dtype)


_binary(_logaddexp, "logaddexp", inplace=False)
_binary(np.logaddexp2, "logaddexp2", inplace=False)


@kernel("_frexp")
def frexp(m, a):
    mant, exp = np.frexp(arr(a))
    return wrap(np.asarray(mant, TO_NP[m[0].dtype]), m[0].dtype), wrap(np.asarray(exp, np.int32), m[1].dtype)


# --- comparisons / logic --------------------------------------------------------
def _compare(ufunc, *names):
    def k(m, a, b):
        if hasattr(a, "_shape") and hasattr(b, "_shape"):
            x, y = arr(a), arr(b)
            if x.dtype != y.dtype:  # compare in PyTorch's promoted dtype, not NumPy's (int64 vs float32: float32)
                dt = TO_NP[D.result_type(a, b)]
                with quiet():
                    x, y = x.astype(dt, copy=False), y.astype(dt, copy=False)
                    if dt != _cdt(D.result_type(a, b)):  # bfloat16: rounded above, compared in float32
                        x, y = x.astype(_F32), y.astype(_F32)
            return wrap(ufunc(x, y), D.bool_)
        d = D.result_type(a, b)
        dt = _cdt(d)
        return wrap(ufunc(_o(a, dt, d), _o(b, dt, d)), D.bool_)

    for n in names:
        KERNELS[n] = k
    _inplace(names[0])


_compare(np.equal, "eq")
_compare(np.not_equal, "ne", "not_equal")
_compare(np.less, "lt", "less")
_compare(np.less_equal, "le", "less_equal")
_compare(np.greater, "gt", "greater")
_compare(np.greater_equal, "ge", "greater_equal")
_compare(np.logical_and, "logical_and")
_compare(np.logical_or, "logical_or")
_compare(np.logical_xor, "logical_xor")


@kernel("logical_not")
def logical_not(m, a):
    return wrap(np.logical_not(arr(a)), D.bool_)


_inplace("logical_not")
_binary(np.bitwise_and, "bitwise_and")
_binary(np.bitwise_or, "bitwise_or")
_binary(np.bitwise_xor, "bitwise_xor")


def _shift(ufunc, name):
    @kernel(name)
    def k(m, a, b):
        dt = _cdt(m.dtype)
        x, s = _o(a, dt), _o(b, dt)
        bits = dt.itemsize * 8
        big = (s < 0) | (s >= bits)
        r = ufunc(x, np.where(big, 0, s).astype(dt) if np.any(big) else s, dtype=dt)
        if np.any(big):  # shifting past the width: 0, or the sign for arithmetic right shifts
            fill = np.where(x < 0, -1, 0).astype(dt) if name == "bitwise_right_shift" else np.zeros((), dt)
            r = np.where(big, fill, r)
        return wrap(r, m.dtype)

    _inplace(name)


_shift(np.left_shift, "bitwise_left_shift")
_shift(np.right_shift, "bitwise_right_shift")


@kernel("bitwise_not")
def bitwise_not(m, a):
    return wrap(np.invert(arr(a)), m.dtype)


_inplace("bitwise_not")


# --- ternary ------------------------------------------------------------------------
def _lerp(m, a, b, w):
    half = m.dtype is D.float16 or m.dtype is D.bfloat16
    # half precision: float64 holds x + t * d all but exactly, so rounding it to float32 gives PyTorch's
    # float32 fused multiply-add, which is then rounded to half once
    dt = _opmath(m.dtype)
    # a number weight is lerp.Scalar's opmath weight, a 0-dim tensor one rounds to the common dtype
    t = _o(w, dt, m.dtype, opmath=not hasattr(w, "_shape"))
    x, y, t = (np.asarray(v, dtype=dt) for v in (_o(a, dt, m.dtype), _o(b, dt, m.dtype), t))
    if half:
        x, y, t = x.astype(np.float64), y.astype(np.float64), t.astype(np.float64)
    d = y - x
    # two forms keep the endpoints exact at weight 0 and 1
    r = np.where(np.abs(t) < 0.5, x + t * d, y - d * (1 - t))
    return wrap(r.astype(_F32) if half else r, m.dtype)


KERNELS["lerp"] = _lerp
_inplace("lerp")


def _addc(ufunc, fused=False):
    """self + value * (t1 ufunc t2). Half precision follows PyTorch's kernel: (value * t1) ufunc t2 in
    float32 with value an opmath number, and with `fused` the last multiply and the add rounding once.
    Other dtypes keep the order the foreach optimizer updates share bit for bit."""

    def k(m, s, t1, t2, value=1):
        d = m.dtype
        dt = _opmath(d)
        with quiet():
            if d is not D.float16 and d is not D.bfloat16:
                p = ufunc(_o(t1, dt), _o(t2, dt), dtype=dt)
                if value != 1:
                    p = np.multiply(p, np.asarray(value).astype(dt), dtype=dt)
                return wrap(np.add(_o(s, dt), p, dtype=dt), d)
            p = _o(t1, dt, d)
            if value != 1:
                p = np.multiply(p, _o(value, dt, d, opmath=True), dtype=dt)
            if fused:  # float64 holds p * t2 exactly
                r = np.add(_o(s, np.float64, d), np.multiply(p, _o(t2, np.float64, d), dtype=np.float64))
                return wrap(r.astype(_F32), d)
            return wrap(np.add(_o(s, dt, d), ufunc(p, _o(t2, dt, d), dtype=dt), dtype=dt), d)

    return k


KERNELS["addcmul"] = _addc(np.multiply, fused=True)
KERNELS["addcdiv"] = _addc(np.true_divide)


_inplace("addcmul")
_inplace("addcdiv")


# Optimizer updates (Adam: lerp_, addcmul_, addcdiv_) run these on every parameter each step:
# with a float self and a Python-number weight they work in place with one temporary.
def _fast_inplace(name, update):
    general = KERNELS[name]

    def kernel(m, a, b, c, *rest):
        x = arr(a)
        dt = _opmath(m.dtype)
        scalar = rest[0] if rest else c
        if x.dtype is dt and dt.kind == "f" and scalar.__class__ in (float, int):
            with quiet():
                update(x, _o(b, dt), _o(c, dt) if rest else c, scalar)
            return a
        return general(m, a, b, c, *rest)

    KERNELS[name] = kernel


def _lerp_update(x, y, _, w):
    d = np.subtract(y, x, dtype=x.dtype)
    if abs(w) < 0.5:
        d *= w
        x += d
    else:
        d *= 1 - w
        np.subtract(y, d, out=x)


def _addcmul_update(x, t1, t2, value):
    p = np.multiply(t1, t2, dtype=x.dtype)
    if value != 1:
        p *= value
    x += p


def _addcdiv_update(x, t1, t2, value):
    p = np.true_divide(t1, t2, dtype=x.dtype)
    if value != 1:
        p *= value
    x += p


_fast_inplace("lerp_", _lerp_update)
_fast_inplace("addcmul_", _addcmul_update)
_fast_inplace("addcdiv_", _addcdiv_update)


_BITS = {
    np.dtype(np.float32): np.dtype(np.int32),
    np.dtype(np.float64): np.dtype(np.int64),
    np.dtype(np.int32): np.dtype(np.int32),
    np.dtype(np.int64): np.dtype(np.int64),
}


def _where_bits(cond, x, y, dt):
    """where() as bit masks: (x & -cond) | (y & ~-cond), 5-25x faster than np.where's select loop
    (relu's and masked_fill's backward); exact for every value, nan and inf included."""
    it = _BITS[dt]
    xb = (x if x.__class__ is np.ndarray and x.dtype == dt else np.asarray(x, dt)).view(it)
    yb = (y if y.__class__ is np.ndarray and y.dtype == dt else np.asarray(y, dt)).view(it)
    mask = np.subtract(0, cond, dtype=it)
    out = np.bitwise_and(xb, mask)
    if yb.ndim or yb != 0:
        np.invert(mask, out=mask)
        np.bitwise_and(yb, mask, out=mask)
        np.bitwise_or(out, mask, out=out)
    return out.view(dt)


def _compiled_ok(x, dt, family):
    """A C-contiguous float32 operand big enough for the family's compiled kernel, which was built."""
    return dt == _F32 and x.size >= THRESHOLDS[family].native and native.usable(x)


def _compiled(fn, family, *xs):
    """fn(out, *xs, threads) into a float32 result shaped like xs[0], on the kernels' pool from the
    family's split threshold up."""
    n = xs[0].size
    split = THRESHOLDS[family].split
    out = np.empty(xs[0].shape, _F32) if n < split else ALLOCATOR.empty(xs[0].shape, _F32)
    fn(out, *xs, threads_for(n, split))
    return out


def _same_shape(a, shape):
    return a if a.shape == shape else np.broadcast_to(a, shape)


@kernel("threshold_backward")
def threshold_backward(m, g, x, threshold):
    dt = _cdt(m.dtype)
    shape = tuple(m.shape)
    ga, xa = _same_shape(arr(g), shape), _same_shape(arr(x), shape)
    if m.dtype in _HALF:
        threshold = _o(threshold, _F32, m.dtype, opmath=True)
    if _compiled_ok(ga, dt, "relu") and native.usable(xa):
        return wrap(
            _compiled(lambda o, a, b, k: native.threshold_backward(o, a, b, threshold, k), "relu", ga, xa), m.dtype
        )
    with quiet():
        if dt in _BITS and shape:  # (NumPy hands 0-dim results back as scalars)
            return wrap(_where_bits(xa <= threshold, 0, ga.astype(dt, copy=False), dt), m.dtype)
        return wrap(np.where(xa <= threshold, dt.type(0), ga).astype(dt, copy=False), m.dtype)


@kernel("where")
def where(m, c, a, b):
    dt = _cdt(m.dtype)
    cond, x, y = arr(c), _o(a, dt), _o(b, dt)
    if dt in _BITS and cond.dtype == np.bool_ and cond.size >= 4096 and cond.shape == m.shape:
        return wrap(_where_bits(cond, x, y, dt), m.dtype)
    r = np.where(cond, x, y)
    return wrap(r if r.dtype == dt else r.astype(dt), m.dtype)


def _clamp_bounds(lo, hi, dt):
    # np.clip with a None bound runs through np.maximum/np.minimum, ~3x slower than the fused clip
    # loop; for floats an infinite bound is exact (NaN still propagates)
    lo = None if lo is None else _o(lo, dt)
    hi = None if hi is None else _o(hi, dt)
    if dt.kind == "f":
        if lo is None:
            lo = -math.inf
        if hi is None:
            hi = math.inf
    return lo, hi


def _clamp(m, a, lo=None, hi=None):
    dt = _cdt(m.dtype)
    x = _o(a, dt)
    lo, hi = _clamp_bounds(lo, hi, dt)
    # np.clip is min(max(x, lo), hi) like PyTorch (hi wins when lo > hi; NaN propagates)
    with quiet():
        r = np.clip(x, lo, hi, dtype=dt)
    return wrap(r, m.dtype)


def _clamp_(m, a, lo=None, hi=None):
    x = arr(a)
    dt = _cdt(m.dtype)
    if x.dtype != dt:
        np.copyto(x, arr(_clamp(m, a, lo, hi)), casting="unsafe")
        return a
    lo, hi = _clamp_bounds(lo, hi, dt)
    with quiet():
        np.clip(x, lo, hi, out=x, dtype=dt)
    return a


KERNELS.update(clamp_family(_clamp, _clamp_))


# --- unary ------------------------------------------------------------------------------


def _unary(name, fn, inplace=True):
    def k(m, a, *rest):
        # half-precision math runs in float32 and rounds once, as PyTorch's CPU kernels do
        with quiet():
            r = fn(arr(a), _F32 if m.dtype in _HALF else TO_NP[m.dtype], *rest)
        return wrap(r, m.dtype)

    KERNELS[name] = k
    if inplace:
        _inplace(name)


def _uf(ufunc):
    return lambda x, dt: par_ufunc(ufunc, dt, x)


def _erf(x, dt):
    _sp = _scipy_special()
    if _sp is not None:
        return _sp.erf(x.astype(dt, copy=False))
    return np.vectorize(math.erf, otypes=[dt])(x)


def _erfc(x, dt):
    _sp = _scipy_special()
    if _sp is not None:
        return _sp.erfc(x.astype(dt, copy=False))
    return np.vectorize(math.erfc, otypes=[dt])(x)


def _erfinv(x, dt):
    _sp = _scipy_special()
    if _sp is not None:
        return _sp.erfinv(x.astype(dt, copy=False))
    y = np.asarray(x, np.float64)
    # Newton iterations from a closed-form start; exact enough for float64
    a = 0.147
    ln = np.log1p(-y * y)
    t = 2 / (math.pi * a) + ln / 2
    r = np.sign(y) * np.sqrt(np.sqrt(t * t - ln / a) - t)
    for _ in range(3):
        err = np.vectorize(math.erf)(r) - y
        r = r - err / (2 / math.sqrt(math.pi) * np.exp(-r * r))
    return r.astype(dt)


def _lgamma(x, dt):
    r = _scipy_special().gammaln(x.astype(dt, copy=False))
    return np.where(np.isneginf(x), np.inf, r).astype(dt, copy=False)  # PyTorch: lgamma(-inf) = inf


def _digamma(x, dt):
    return np.asarray(_scipy_special().psi(x.astype(dt, copy=False))).astype(dt, copy=False)


def _keep_int(fn):
    # integer floor/ceil/round are the identity (copied)
    return lambda x, dt: x.copy() if dt.kind in "biu" else fn(x, dtype=dt)


def _sign(x, dt):
    if dt.kind in "biu":
        return x.copy() if dt.kind == "b" else np.sign(x, dtype=dt)
    s = np.asarray(np.sign(x, dtype=dt))  # a 0-dim input gives a NumPy scalar
    s[s != s] = 0  # sign(nan) is 0 in PyTorch
    return s


def _sgn(x, dt):
    if dt.kind == "c":
        ax = np.abs(x)
        return np.where(ax == 0, 0, x / np.where(ax == 0, 1, ax)).astype(dt)
    return _sign(x, dt)


def _sigmoid(x, dt):
    return np.divide(1, np.add(1, np.exp(np.negative(x, dtype=dt), dtype=dt), dtype=dt), dtype=dt)


_UNARY = {
    "neg": _uf(np.negative),
    "negative": _uf(np.negative),
    "conj_physical": lambda x, dt: np.conj(x).astype(dt, copy=False),
    "abs": _uf(np.abs),
    "absolute": _uf(np.abs),
    "sign": _sign,
    "sgn": _sgn,
    "exp": _uf(np.exp),
    "exp2": _uf(np.exp2),
    "expm1": _uf(np.expm1),
    "log": _uf(np.log),
    "log2": _uf(np.log2),
    "log10": _uf(np.log10),
    "log1p": _uf(np.log1p),
    "sqrt": _uf(np.sqrt),
    "rsqrt": lambda x, dt: np.divide(1, np.sqrt(x, dtype=dt), dtype=dt),
    "square": _uf(np.square),
    "reciprocal": lambda x, dt: np.divide(1, x, dtype=dt),
    "sin": _uf(np.sin),
    "cos": _uf(np.cos),
    "tan": _uf(np.tan),
    "asin": _uf(np.arcsin),
    "acos": _uf(np.arccos),
    "atan": _uf(np.arctan),
    "sinh": _uf(np.sinh),
    "cosh": _uf(np.cosh),
    "tanh": _uf(np.tanh),
    "asinh": _uf(np.arcsinh),
    "acosh": _uf(np.arccosh),
    "atanh": _uf(np.arctanh),
    "arcsin": _uf(np.arcsin),
    "arccos": _uf(np.arccos),
    "arctan": _uf(np.arctan),
    "arcsinh": _uf(np.arcsinh),
    "arccosh": _uf(np.arccosh),
    "arctanh": _uf(np.arctanh),
    "sigmoid": _sigmoid,
    "erf": _erf,
    "erfc": _erfc,
    "erfinv": _erfinv,
    "lgamma": _lgamma,
    "digamma": _digamma,
    "floor": _keep_int(np.floor),
    "ceil": _keep_int(np.ceil),
    "trunc": _keep_int(np.trunc),
    "fix": _keep_int(np.trunc),
    "frac": lambda x, dt: np.subtract(x, np.trunc(x, dtype=dt), dtype=dt),
    "relu": lambda x, dt: (
        _compiled(native.relu, "relu", x) if _compiled_ok(x, dt, "relu") else np.maximum(x, dt.type(0), dtype=dt)
    ),
    "silu": lambda x, dt: np.multiply(x, _sigmoid(x, dt), dtype=dt),
    "mish": lambda x, dt: np.multiply(x, np.tanh(_softplus(x.astype(dt, copy=False), 1, 20)), dtype=dt),
}


def _softplus(x, beta, threshold):
    z = x * beta
    return np.where(z > threshold, x, np.log1p(np.exp(z)) / beta)


for _n, _f in _UNARY.items():
    _unary(_n, _f, inplace=_n != "sgn")
_relu_general = KERNELS["relu"]
# dtypes whose relu is np.maximum(x, 0) in the tensor's own dtype, with that dtype's zero as a 0-d
# array (half the cost of the Python 0, whose weak-scalar promotion NumPy resolves on every call)
_RELU_ZERO = {
    np.dtype(t): np.zeros((), t)
    for t in (np.float16, np.float32, np.float64, np.uint8, np.int8, np.int16, np.int32, np.int64)
}
for _z in _RELU_ZERO.values():
    _z.flags.writeable = False


@kernel("relu")
def relu(m, a):
    x = a._np if a.__class__ is Tensor else None
    if x is not None and x.size < THRESHOLDS["relu"].native:
        zero = _RELU_ZERO.get(x.dtype)
        if zero is not None:
            return wrap(np.maximum(x, zero), m.dtype)  # a small tensor: one plain ufunc call
    return _relu_general(m, a)


def _round(x, dt, decimals=0):
    if dt.kind in "biu":
        return x.copy()
    return np.round(x, decimals).astype(dt, copy=False)


_unary("round", _round)


@kernel("polygamma")
def polygamma(m, n, self):
    x = arr(self)
    dt = TO_NP[m.dtype]
    # computed in float64 then rounded, so large values overflow to inf as in PyTorch
    r = _scipy_special().polygamma(n, x.astype(np.float64)) if n else _scipy_special().psi(x.astype(np.float64))
    return wrap(np.asarray(r).astype(dt), m.dtype)


def _logit(x, dt, eps=None):
    x = x.astype(dt, copy=False)
    if eps is not None:
        x = np.clip(x, eps, 1 - eps)
    return np.log(np.divide(x, np.subtract(1, x, dtype=dt), dtype=dt), dtype=dt)


_unary("logit", _logit)


@kernel("nan_to_num")
def nan_to_num(m, a, nan=None, posinf=None, neginf=None):
    x = arr(a)
    if m.dtype.is_floating_point or m.dtype.is_complex:
        # infinities become the result dtype's own largest values (bfloat16's and float16's are below float32's)
        top = float(D.finfo(m.dtype).max)
        x = x.astype(_F32) if m.dtype in _HALF else x
        x = np.nan_to_num(
            x,
            nan=0.0 if nan is None else nan,
            posinf=top if posinf is None else posinf,
            neginf=-top if neginf is None else neginf,
        )
    return wrap(x.copy() if x is arr(a) else x, m.dtype)


_inplace("nan_to_num")


def _pred(name, fn):
    KERNELS[name] = lambda m, a: wrap(fn(arr(a)), D.bool_)


def _int_or(fn, const):
    return lambda x: np.full(x.shape, const) if x.dtype.kind in "biu" else fn(x)


_pred("isnan", _int_or(np.isnan, False))
_pred("isinf", _int_or(np.isinf, False))
_pred("isfinite", _int_or(np.isfinite, True))
_pred("isposinf", _int_or(np.isposinf, False))
_pred("isneginf", _int_or(np.isneginf, False))
_pred("signbit", lambda x: np.zeros(x.shape, bool) if x.dtype.kind == "b" else np.signbit(x))
_pred("isreal", lambda x: np.isreal(x) if x.dtype.kind == "c" else np.ones(x.shape, bool))


# --- activations ----------------------------------------------------------------------
# Exact GELU in float32 without a float64 round trip: h = Phi(-|x|) = 0.5 * erfc(|x|/sqrt 2) from the
# Abramowitz-Stegun 7.1.26 form t * poly(t) * exp(-x^2/2), t = 1 / (1 + p |x| / sqrt 2), absolute error
# <= 1.5e-7 (the bound PyTorch's vectorised float kernel has); the 0.5 is folded into the coefficients.
# Each step is one NumPy pass over a cache-sized block; max, sign and copysign are avoided (they are
# 3-5x slower per element than a multiply in NumPy).
_AS_P = 0.3275911 / math.sqrt(2.0)
_AS_C = tuple(0.5 * c for c in (1.061405429, -1.453152027, 1.421413741, -0.284496736, 0.254829592))
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_SIGN_BIT = np.int32(-(2**31))


def _phi_tail(x, a, t, e):
    """t <- Phi(-|x|), e <- exp(-x^2/2), a <- |x| (float32 blocks)."""
    np.abs(x, out=a)
    np.add(a, 1.0 / _AS_P, out=t)
    np.divide(1.0 / _AS_P, t, out=t)  # t = 1 / (1 + p|x|)
    np.multiply(t, _AS_C[0], out=e)
    for c in _AS_C[1:]:
        e += c
        e *= t
    np.multiply(x, x, out=t)
    t *= -0.5
    np.exp(t, out=t)
    np.multiply(t, e, out=e)  # e = Phi(-|x|), t = exp(-x^2/2)
    return e, t


def _gelu_block(out, x, a, t, e):
    # gelu(x) = x * Phi(x) = 0.5 x + |x| (0.5 - Phi(-|x|))
    h, _ = _phi_tail(x, a, t, e)
    np.subtract(0.5, h, out=h)
    h *= a
    np.multiply(x, 0.5, out=out)
    out += h


def _gelu_backward_block(out, g, x, a, t, e):
    # d gelu = Phi(x) + x pdf(x), Phi(x) = 0.5 + sign(x) (0.5 - Phi(-|x|)); the sign goes on as a bit
    h, ex = _phi_tail(x, a, t, e)
    np.subtract(0.5, h, out=h)
    s = a.view(np.int32)
    np.bitwise_and(x.view(np.int32), _SIGN_BIT, out=s)
    np.bitwise_or(h.view(np.int32), s, out=h.view(np.int32))
    ex *= x
    ex *= _INV_SQRT_2PI
    h += ex
    h += 0.5
    np.multiply(g, h, out=out)


def _gelu_tanh_block(out, x, a, t, e):
    np.multiply(x, x, out=t)
    t *= 0.044715
    t += 1.0
    t *= x
    t *= math.sqrt(2.0 / math.pi)
    np.tanh(t, out=t)
    t += 1.0
    t *= 0.5
    np.multiply(x, t, out=out)


def _gelu_tanh_backward_block(out, g, x, a, t, e):
    k = math.sqrt(2.0 / math.pi)
    np.multiply(x, x, out=a)
    np.multiply(a, 0.044715, out=t)
    t += 1.0
    t *= x
    t *= k
    np.tanh(t, out=t)  # tanh(inner)
    a *= 3 * 0.044715
    a += 1.0
    a *= k  # d inner / dx
    np.multiply(t, t, out=e)
    np.subtract(1.0, e, out=e)
    e *= a
    e *= x
    t += 1.0
    t += e
    t *= 0.5
    np.multiply(g, t, out=out)


def _f32_operands(shape, *ts):
    """Operands broadcast to the result's shape as C-contiguous float32, and which of them are copies
    (from the pool, given back after the kernel: a loss's broadcast gradient is copied every step)."""
    views = [_same_shape(arr(t), shape) for t in ts]
    xs = [dense(v, _F32) for v in views]
    return xs, [x for x, v in zip(xs, views) if x is not v]


def _fused_elementwise(block_fn, native_fn, m, *ts, family="gelu"):
    """A float32 fused kernel: the compiled one when it was built and the op is big enough for it (one
    call on this thread below the family's split threshold, else across the pool), else NumPy passes
    over cache blocks; the result is cast to m.dtype by wrap."""
    shape = tuple(m.shape)
    xs, copies = _f32_operands(shape, *ts)
    cross = THRESHOLDS[family]
    if native_fn is not None and xs[0].size >= cross.native and native.usable(*xs):
        out = _compiled(native_fn, family, *xs)
    else:
        with quiet():
            out = elementwise(block_fn, ALLOCATOR.empty(shape, _F32), *xs, scratch=3, grain=cross.split // 2)
    for c in copies:
        ALLOCATOR.release(c)
    return wrap(out, m.dtype)


def _gelu(x, dt, approximate="none"):
    """Reference path (float64): scipy's erf, accurate to float64."""
    x = x.astype(dt, copy=False)
    if approximate == "tanh":
        inner = math.sqrt(2 / math.pi) * (x + 0.044715 * x * x * x)
        return (0.5 * x * (1 + np.tanh(inner))).astype(dt, copy=False)
    return (0.5 * x * (1 + _erf(x * (1 / math.sqrt(2)), dt))).astype(dt, copy=False)


def _gelu_backward_ref(g, x, dt, approximate):
    x = x.astype(dt, copy=False)
    if approximate == "tanh":
        k = math.sqrt(2 / math.pi)
        t = np.tanh(k * (x + 0.044715 * x * x * x))
        return g * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * k * (1 + 3 * 0.044715 * x * x))
    cdf = 0.5 * (1 + _erf(x * (1 / math.sqrt(2)), dt))
    return g * (cdf + x * np.exp(-0.5 * x * x) * _INV_SQRT_2PI)


def _low_precision(d):
    return d is D.float32 or d in _HALF


# compiled gelu kernels by `approximate == "tanh"`
_GELU_C = {tanh: lambda o, a, k, tanh=tanh: native.gelu(o, a, tanh, k) for tanh in (False, True)}
_GELU_BACKWARD_C = {
    tanh: lambda o, g, a, k, tanh=tanh: native.gelu_backward(o, g, a, tanh, k) for tanh in (False, True)
}


@kernel("gelu")
def gelu(m, x, approximate="none"):
    if _low_precision(m.dtype):
        tanh = approximate == "tanh"
        return _fused_elementwise(_gelu_tanh_block if tanh else _gelu_block, _GELU_C[tanh], m, x)
    with quiet():
        return wrap(_gelu(arr(x), TO_NP[m.dtype], approximate), m.dtype)


_inplace("gelu")


@kernel("gelu_backward")
def gelu_backward(m, g, x, approximate="none"):
    if _low_precision(m.dtype):
        tanh = approximate == "tanh"
        blk = _gelu_tanh_backward_block if tanh else _gelu_backward_block
        return _fused_elementwise(blk, _GELU_BACKWARD_C[tanh], m, g, x)
    dt = TO_NP[m.dtype]
    with quiet():
        g, x = np.broadcast_arrays(arr(g), arr(x))
        return wrap(_gelu_backward_ref(g.astype(dt, copy=False), x, dt, approximate), m.dtype)


def _silu_backward_block(out, g, x, s, t, e):
    # grad * s * (1 + x (1 - s)) with s = sigmoid(x), multiplied in PyTorch's order
    np.negative(x, out=s)
    np.exp(s, out=s)
    s += 1.0
    np.divide(1.0, s, out=s)
    np.subtract(1.0, s, out=t)
    t *= x
    t += 1.0
    np.multiply(g, s, out=out)
    out *= t


def _silu_backward_ref(g, x, dt):
    s = _sigmoid(x, dt)
    return np.multiply(np.multiply(g, s, dtype=dt), np.add(1, np.multiply(x, np.subtract(1, s, dtype=dt)), dtype=dt))


@kernel("silu_backward")
def silu_backward(m, g, x):
    """One pass over the operands: float32 and half precision in float32 blocks (the gelu family's split
    sizes: the same few ufuncs per element), float64 and complex in their own dtype."""
    if _low_precision(m.dtype):
        return _fused_elementwise(_silu_backward_block, None, m, g, x)
    dt = TO_NP[m.dtype]
    with quiet():
        g, x = np.broadcast_arrays(arr(g), arr(x))
        return wrap(_silu_backward_ref(g.astype(dt, copy=False), x.astype(dt, copy=False), dt), m.dtype)


_unary(
    "softplus",
    lambda x, dt, beta=1, threshold=20: _softplus(x.astype(dt, copy=False), beta, threshold).astype(dt, copy=False),
    inplace=False,
)


def _elu(x, dt, alpha=1.0, scale=1, input_scale=1):
    x = x.astype(dt, copy=False)
    neg = alpha * np.expm1(x * input_scale)
    return (np.where(x > 0, x, neg) * scale).astype(dt, copy=False)


_unary("elu", _elu)


def _leaky_relu(x, dt, slope=0.01):
    x = x.astype(dt, copy=False)  # the slope is an opmath number (see _o)
    return np.where(x > 0, x, x * slope).astype(dt, copy=False)


_unary("leaky_relu", _leaky_relu)
_unary(
    "hardtanh",
    lambda x, dt, lo=-1, hi=1: np.clip(x, np.asarray(lo).astype(dt), np.asarray(hi).astype(dt)).astype(dt, copy=False),
)


@kernel("isclose")
def isclose(m, a, b, rtol=1e-5, atol=1e-8, equal_nan=False):
    x, y = arr(a), arr(b)
    if x.dtype.kind == "b":
        return wrap(np.equal(x, y), D.bool_)
    return wrap(np.isclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan), D.bool_)


def _incomplete_gamma(scipy_name):
    """The regularized incomplete gamma functions, from scipy (computed in float64)."""

    def out_of_place(m, a, x, *rest):
        import scipy.special

        with quiet():
            r = getattr(scipy.special, scipy_name)(_o(a, np.float64), _o(x, np.float64))
        return wrap(np.asarray(r, dtype=TO_NP[m.dtype]), m.dtype)

    def in_place(m, a, x, *rest):
        np.copyto(arr(a), arr(out_of_place(m, a, x)), casting="unsafe")
        return a

    return out_of_place, in_place


KERNELS["igamma"], KERNELS["igamma_"] = _incomplete_gamma("gammainc")
KERNELS["igammac"], KERNELS["igammac_"] = _incomplete_gamma("gammaincc")
