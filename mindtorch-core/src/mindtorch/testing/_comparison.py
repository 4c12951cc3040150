"""torch.testing.assert_close and make_tensor."""

import cmath
import math
import numbers
import warnings

import numpy as np

import mindtorch

from .. import _dtype as D

# (rtol, atol) PyTorch uses for each dtype when none are given
_TOLERANCES = {
    "float16": (1e-3, 1e-5),
    "bfloat16": (1.6e-2, 1e-5),
    "float32": (1.3e-6, 1e-5),
    "float64": (1e-7, 1e-7),
    "complex64": (1.3e-6, 1e-5),
    "complex128": (1e-7, 1e-7),
}


class _Mismatch(AssertionError):
    pass


def _tolerances(dtype, rtol, atol):
    if (rtol is None) != (atol is None):
        raise ValueError(
            f"Both 'rtol' and 'atol' must be either specified or omitted, but got no "
            f"{'rtol' if rtol is None else 'atol'}."
        )
    if rtol is not None:
        return rtol, atol
    return _TOLERANCES.get(dtype.name, (0.0, 0.0))


def _host(t):
    return t.detach().cpu().numpy() if t.dtype is not D.bfloat16 else t.detach().float().cpu().numpy()


def _fmt(x):
    return repr(x.item() if hasattr(x, "item") else x)


def _compare_tensors(actual, expected, rtol, atol, equal_nan, check_device, check_dtype, check_stride):
    for attr, on in (("shape", True), ("device", check_device), ("dtype", check_dtype)):
        a, e = getattr(actual, attr), getattr(expected, attr)
        if on and a != e:
            raise _Mismatch(f"The values for attribute '{attr}' do not match: {a!r} != {e!r}.")
    if check_stride and actual.stride() != expected.stride():
        raise _Mismatch(f"The values for attribute 'stride()' do not match: {actual.stride()} != {expected.stride()}.")
    if not check_dtype and actual.dtype is not expected.dtype:
        common = D.promote_types(actual.dtype, expected.dtype)
        actual, expected = actual.to(common), expected.to(common)
    rtol, atol = _tolerances(actual.dtype, rtol, atol)
    a, e = _host(actual), _host(expected)
    if a.dtype == bool:
        a, e = a.astype(np.int64), e.astype(np.int64)
    with np.errstate(all="ignore"):
        # an infinity is close only to itself (|inf - x| <= rtol * inf would pass otherwise)
        close = (a == e) | (np.isfinite(a) & np.isfinite(e) & (np.abs(a - e) <= atol + rtol * np.abs(e)))
        if equal_nan:
            close |= np.isnan(a) & np.isnan(e)
    if close.all():
        return
    exact = rtol == 0 and atol == 0
    with np.errstate(all="ignore"):
        diff = np.abs(a - e)
        rel_dtype = diff.dtype if diff.dtype.kind in "fc" else np.float32
        rel = diff.astype(rel_dtype) / np.abs(e).astype(rel_dtype)
    lines = [
        f"Tensor-likes are not {'equal' if exact else 'close'}!",
        "",
        f"Mismatched elements: {int((~close).sum())} / {close.size} ({100 * (~close).sum() / close.size:.1f}%)",
    ]
    for label, values, tol in (("absolute", diff, atol), ("relative", rel, rtol)):
        flat = values.reshape(-1)
        nans = np.flatnonzero(np.isnan(flat))
        i = int(nans[0]) if nans.size else int(np.argmax(flat))
        idx = tuple(int(k) for k in np.unravel_index(i, values.shape)) if values.shape else ()
        value = flat[i].item() if flat.size else 0
        allowed = "" if exact else f" (up to {tol} allowed)"
        lines.append(f"Greatest {label} difference: {value} at index {idx}{allowed}")
    raise _Mismatch("\n".join(lines))


def _compare_scalars(actual, expected, rtol, atol, equal_nan):
    if type(actual) is not type(expected) and not (
        isinstance(actual, numbers.Number) and isinstance(expected, numbers.Number)
    ):
        raise _Mismatch(f"The values for attribute 'type' do not match: {type(actual)} != {type(expected)}.")
    is_float = isinstance(actual, (float, complex)) or isinstance(expected, (float, complex))
    if rtol is None and atol is None:
        rtol, atol = (1e-7, 1e-7) if is_float else (0.0, 0.0)
    rtol, atol = _tolerances(D.float64, rtol, atol)
    if actual == expected or (equal_nan and is_float and math.isnan(actual) and math.isnan(expected)):
        return
    diff = abs(actual - expected)
    if cmath.isfinite(actual) and cmath.isfinite(expected) and diff <= atol + rtol * abs(expected):
        return
    exact = rtol == 0 and atol == 0
    rel = diff / abs(expected) if expected != 0 else float("inf")
    tail = ("", "") if exact else (f" (up to {atol} allowed)", f" (up to {rtol} allowed)")
    raise _Mismatch(
        f"Scalars are not {'equal' if exact else 'close'}!\n\nExpected {expected} but got {actual}.\n"
        f"Absolute difference: {diff}{tail[0]}\nRelative difference: {rel}{tail[1]}"
    )


def _walk(actual, expected, path, kw):
    T = mindtorch.Tensor
    if isinstance(actual, T) and isinstance(expected, T):
        try:
            _compare_tensors(
                actual,
                expected,
                kw["rtol"],
                kw["atol"],
                kw["equal_nan"],
                kw["check_device"],
                kw["check_dtype"],
                kw["check_stride"],
            )
        except _Mismatch as exc:
            raise _Mismatch(str(exc) + (f"\n\nThe failure occurred for item {path}" if path else "")) from None
        return
    if isinstance(actual, (list, tuple)) and isinstance(expected, (list, tuple)) and not isinstance(actual, str):
        if len(actual) != len(expected):
            raise _Mismatch(
                f"The length of the sequences mismatch: {len(actual)} != {len(expected)}"
                + (f"\n\nThe failure occurred for item {path}" if path else "")
            )
        for i, (a, e) in enumerate(zip(actual, expected)):
            _walk(a, e, f"{path}[{i}]", kw)
        return
    if isinstance(actual, dict) and isinstance(expected, dict):
        if set(actual) != set(expected):
            raise _Mismatch(
                f"The keys of the mappings do not match:\nMissing keys in the actual mapping: "
                f"{sorted(set(expected) - set(actual))}\nExtra keys in the actual mapping: "
                f"{sorted(set(actual) - set(expected))}"
            )
        for k in expected:
            _walk(actual[k], expected[k], f"{path}[{k!r}]", kw)
        return
    if (
        isinstance(actual, numbers.Number)
        and isinstance(expected, numbers.Number)
        and not isinstance(actual, T)
        and not isinstance(expected, T)
    ):
        try:
            _compare_scalars(actual, expected, kw["rtol"], kw["atol"], kw["equal_nan"])
        except _Mismatch as exc:
            raise _Mismatch(str(exc) + (f"\n\nThe failure occurred for item {path}" if path else "")) from None
        return
    raise TypeError(f"No comparison pair was able to handle inputs of type {type(actual)} and {type(expected)}.")


def assert_close(
    actual,
    expected,
    *,
    allow_subclasses=True,
    rtol=None,
    atol=None,
    equal_nan=False,
    check_device=True,
    check_dtype=True,
    check_layout=True,
    check_stride=False,
    msg=None,
):
    """Raise AssertionError unless actual and expected (tensors, numbers, or nested sequences and mappings
    of them) are close: |actual - expected| <= atol + rtol * |expected|, with PyTorch's per-dtype defaults."""
    if (rtol is None) != (atol is None):
        _tolerances(D.float32, rtol, atol)
    try:
        _walk(
            actual,
            expected,
            "",
            dict(
                rtol=rtol,
                atol=atol,
                equal_nan=equal_nan,
                check_device=check_device,
                check_dtype=check_dtype,
                check_stride=check_stride,
            ),
        )
    except _Mismatch as exc:
        text = msg(str(exc)) if callable(msg) else (msg if msg is not None else str(exc))
        raise AssertionError(text) from None


def make_tensor(
    *shape,
    dtype,
    device,
    low=None,
    high=None,
    requires_grad=False,
    noncontiguous=False,
    exclude_zero=False,
    memory_format=None,
):
    """A tensor of the given shape and dtype filled with random values in [low, high) (PyTorch's defaults:
    [-9, 9] for signed types, [0, 9] for unsigned, 0/1 for bool)."""
    if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
        shape = tuple(shape[0])
    if dtype is D.bool_:
        t = mindtorch.randint(0, 2, shape, device=device).to(D.bool_)
    elif dtype._kind == 1:
        lo = (-9 if dtype.is_signed else 0) if low is None else math.ceil(low)
        hi = 10 if high is None else math.ceil(high)
        if lo >= hi:
            raise ValueError(f"`low` must be less than `high`, but got {lo} >= {hi}")
        t = mindtorch.randint(lo, hi, shape, device=device, dtype=dtype)
    else:
        lo = -9.0 if low is None else float(low)
        hi = 9.0 if high is None else float(high)
        if lo > hi:
            raise ValueError(f"`low` must be less than or equal to `high`, but got {lo} > {hi}")
        real = dtype.to_real()
        t = mindtorch.empty(shape, dtype=real, device=device).uniform_(lo, hi)
        if dtype._kind == 3:
            t = (
                mindtorch.complex(t, mindtorch.empty(shape, dtype=real, device=device).uniform_(lo, hi))
                if hasattr(mindtorch, "complex")
                else t.to(dtype)
            )
    if exclude_zero:
        replacement = 1 if dtype._kind < 2 else D.finfo(dtype).tiny
        t = mindtorch.where(t == 0, mindtorch.full_like(t, replacement), t)
    if noncontiguous and t.numel() > 1:
        t = mindtorch.repeat_interleave(t, 2, dim=-1)[..., ::2]
    if requires_grad:
        t.requires_grad_(True)
    return t


# assert_allclose's own defaults (rtol, atol), wider than assert_close's; other dtypes compare exactly
_ALLCLOSE_TOLERANCES = {D.float16: (1e-3, 1e-3), D.float32: (1e-4, 1e-5), D.float64: (1e-5, 1e-8)}


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """The deprecated spelling: numbers and sequences become tensors (expected in actual's dtype), dtypes
    need not match, and the default tolerances are the wider of the two dtypes' in its own table."""
    warnings.warn(
        "`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a future release. "
        "Please use `torch.testing.assert_close()` instead. "
        "You can find detailed upgrade instructions in https://github.com/pytorch/pytorch/issues/61844.",
        FutureWarning,
        stacklevel=2,
    )
    if not isinstance(actual, mindtorch.Tensor):
        actual = mindtorch.tensor(actual)
    if not isinstance(expected, mindtorch.Tensor):
        expected = mindtorch.tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        pairs = [_ALLCLOSE_TOLERANCES.get(t.dtype, (0.0, 0.0)) for t in (actual, expected)]
        rtol, atol = max(p[0] for p in pairs), max(p[1] for p in pairs)
    assert_close(
        actual,
        expected,
        rtol=rtol,
        atol=atol,
        equal_nan=equal_nan,
        check_device=True,
        check_dtype=False,
        check_stride=False,
        msg=msg or None,
    )
