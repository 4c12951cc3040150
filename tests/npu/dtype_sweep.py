"""Every conformance op on every dtype core has, on the chip ACLSIM_SOC_NAME names: each call gives cpu's
result, the same error class cpu raises, or the backend's own clear error naming the op's operator, the dtype
and the chip (NotImplementedError / TypeError / RuntimeError from mindtorch_npu.chips). A raw ACL status
(AclRuntimeError, "161002") reaching the caller is what this sweep exists to find.

    ACLSIM_SOC_NAME=Ascend910A python tests/npu/dtype_sweep.py [--json]

prints the counts per outcome and every call whose outcome is `raw`, `mismatch` or `unclear`. The sample of
each op is the conformance kit's first, its floating tensors cast to the dtype swept (index and mask tensors
keep theirs), so the tensors are small.
"""

import json
import sys

import mindtorch

DTYPES = (
    mindtorch.float32,
    mindtorch.float16,
    mindtorch.bfloat16,
    mindtorch.float64,
    mindtorch.int8,
    mindtorch.uint8,
    mindtorch.int16,
    mindtorch.int32,
    mindtorch.int64,
    mindtorch.bool,
)
BAD = ("raw", "mismatch", "unclear")


def _recast(x, dtype):
    if isinstance(x, mindtorch.Tensor) and x.dtype.is_floating_point:
        return x.to(dtype)
    if isinstance(x, (list, tuple)):
        return type(x)(_recast(v, dtype) for v in x)
    return x


def _sample(qualname, dtype):
    from mindtorch.testing.conformance.samples import Maker, samples_for

    s = samples_for(qualname)(Maker(qualname, "float"))[0]
    return [_recast(a, dtype) for a in s.args], {k: _recast(v, dtype) for k, v in s.kwargs.items()}


def _call(fn, args, kwargs):
    try:
        return fn(*args, **kwargs), None
    except Exception as exc:  # the outcome is what the caller sees, whatever it is
        return None, exc


def _raw(exc):
    """A device status reaching the caller as is (runtime.AclRuntimeError), not the backend's DtypeRefused."""
    return type(exc).__name__ == "AclRuntimeError"


def _clear(exc, dtype, soc):
    """The backend's own refusal: it names the chip and the dtype (chips.check_dtype, check_chip_dtype,
    compute_dtype, refusal) or the chip's missing operator (chips.check_op)."""
    msg = str(exc)
    names_dtype = str(dtype) in msg or str(dtype).replace("mindtorch.", "") in msg
    return soc in msg and (names_dtype or "is not available on" in msg)


# (rtol, atol) for half-precision results: cpu computes them through float32 and rounds once, the device
# per operator
_HALF = {mindtorch.float16: 1e-2, mindtorch.bfloat16: 5e-2}


def _same(ref, out, dev, values, dtype):
    from mindtorch.testing.conformance.runner import Mismatch, compare

    try:
        compare(ref, out, dev, values, "output")
        return None
    except Mismatch as m:
        if dtype not in _HALF or "values differ" not in str(m):
            return str(m)[:240]
    refs, outs = (ref, out) if isinstance(ref, (tuple, list)) else ((ref,), (out,))
    for r, o in zip(refs, outs):
        if isinstance(r, mindtorch.Tensor):
            a, b = r.to(mindtorch.float64), o.cpu().to(mindtorch.float64)
            tol = _HALF[dtype] * (1 + float(a.abs().max()) if a.numel() else 1)
            if not bool(((a - b).abs() <= tol).all() or (a.isnan() == b.isnan()).all() and a.isnan().all()):
                return f"values differ beyond {tol:.3g}"
    return None


def outcome(qualname, dtype, soc):
    from mindtorch.ops.codegen import make_callable
    from mindtorch.ops.registry import OPS
    from mindtorch.testing.conformance.runner import UNDEFINED_VALUES, to_device

    fn = make_callable([OPS[qualname]], False)
    try:  # one sample each side: in-place ops write into theirs
        args, kwargs = _sample(qualname, dtype)
        dargs, dkwargs = _sample(qualname, dtype)
    except Exception:
        return "no sample", ""
    ref, ref_exc = _call(fn, args, kwargs)
    dev = mindtorch.device("npu:0")
    out, exc = _call(fn, to_device(dargs, dev), to_device(dkwargs, dev))
    if exc is not None:
        text = f"{type(exc).__name__}: {exc}"[:240]
        if _raw(exc):
            return "raw", text
        if ref_exc is not None and isinstance(exc, type(ref_exc)):
            return "as cpu", ""
        return ("clear", "") if _clear(exc, dtype, soc) else ("unclear", text)
    if ref_exc is not None:  # cpu's own kernel lacks the dtype; the device computes it
        return "npu only", ""
    values = OPS[qualname].family != "random" and qualname not in UNDEFINED_VALUES and "empty" not in qualname
    try:
        differ = _same(ref, out, dev, values, dtype)
    except Exception as e:  # reading the result back refused (a chip that cannot cast its bfloat16) is clear too
        if not _raw(e) and _clear(e, dtype, soc):
            return "clear", ""
        differ = f"{type(e).__name__}: {e}"[:240]
    return ("mismatch", differ) if differ else ("equal", "")


def ops():
    """The conformance ops the npu backend runs (kernel, composite, view or in-place), sorted."""
    from mindtorch.ops.registry import OPS
    from mindtorch.testing.conformance.runner import MISSING, coverage
    from mindtorch.testing.conformance.samples import samples_for

    return sorted(q for q, op in OPS.items() if samples_for(q) is not None and coverage(op, "npu") != MISSING)


def sweep(soc):
    counts, bad = {}, []
    for q in ops():
        for dt in DTYPES:
            kind, text = outcome(q, dt, soc)
            counts[kind] = counts.get(kind, 0) + 1
            if kind in BAD:
                bad.append([q, str(dt).replace("mindtorch.", ""), kind, text])
    return counts, bad


def main(argv):
    from mindtorch_npu.state import RUNTIME

    counts, bad = sweep(RUNTIME.soc_name())
    if "--json" in argv:
        print(json.dumps({"counts": counts, "bad": bad}))
        return 0
    print(RUNTIME.soc_name(), counts)
    for row in bad:
        print("  ", *row)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
