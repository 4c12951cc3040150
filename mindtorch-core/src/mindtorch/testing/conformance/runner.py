"""Runs every op's samples on a device and compares with the cpu backend."""

import gc
import re
import time
import warnings

import numpy as np

import mindtorch
from mindtorch._backends.coverage import how_runs
from mindtorch._backends.registry import BACKENDS, backend_for
from mindtorch.ops.codegen import make_callable
from mindtorch.ops.registry import OPS

from .samples import SAMPLES, Maker, samples_for

CONFORMANT, FALLBACK, FAILING, MISSING, NA = "conformant", "fallback", "failing", "missing", "n/a"
# the device declares it lacks this (an error matching the run's `unsupported` pattern, e.g. an operator or
# dtype its chip's documentation omits): expected and listed, not a failure
UNSUPPORTED = "unsupported"
# (rtol, atol) per dtype name, for values compared with the cpu backend
TOLERANCE = {
    "float64": (1e-7, 1e-7),
    "float32": (1.3e-6, 1e-5),
    "float16": (1e-3, 1e-5),
    "bfloat16": (1.6e-2, 1e-5),
    "complex64": (1.3e-6, 1e-5),
    "complex128": (1e-7, 1e-7),
}
# ops whose values are not defined (uninitialised memory) or are the device's own random draws
UNDEFINED_VALUES = {"empty", "empty_strided", "empty_like", "new_empty", "new_empty_strided"}


def coverage(op, device_type):
    """How a device runs `op`: kernel, fallback (host), composite, view, inplace (copy_ of the
    out-of-place op), or missing."""
    return how_runs(op, device_type) or MISSING


class OpResult:
    def __init__(self, name, status, coverage, samples=0, detail="", dtypes=(), lacks=()):
        self.name, self.status, self.coverage, self.samples, self.detail = name, status, coverage, samples, detail
        self.dtypes = list(dtypes)  # the dtypes its samples were converted to (every one the cpu accepts)
        self.lacks = list(lacks)  # of those, the ones the device declares it lacks (the `unsupported` pattern)

    def as_dict(self):
        return {
            "status": self.status,
            "coverage": self.coverage,
            "samples": self.samples,
            "dtypes": self.dtypes,
            "lacks": self.lacks,
            "detail": self.detail,
        }


class Mismatch(Exception):
    pass


def is_dataless(device):
    """A device whose tensors hold no data (meta): values are not compared there."""
    b = backend_for(device.type)
    t = b.from_host(np.zeros(1, np.float32), mindtorch.float32, device)
    try:
        b.to_host(t)
    except NotImplementedError:
        return True
    return False


# -- moving samples to the device ------------------------------------------------------------------


def to_device(x, device):
    """x on `device`, keeping strided views strided (the view is re-made over the moved base)."""
    if isinstance(x, mindtorch.Tensor):
        base = x._base
        if base is not None and not x.is_contiguous() and base.dtype is x.dtype:
            moved = base.to(device)
            return moved.as_strided(tuple(x.shape), x.stride(), x.storage_offset())
        return x.to(device)
    if isinstance(x, mindtorch.device) and x.type == "cpu":
        return device
    if isinstance(x, dict):
        return {k: to_device(a, device) for k, a in x.items()}
    if isinstance(x, list):
        return [to_device(a, device) for a in x]
    if isinstance(x, tuple):
        return tuple(to_device(a, device) for a in x)
    return x


def host_array(t):
    """t's values as a NumPy array (bfloat16 widened to float32)."""
    t = t.detach()
    if t.dtype is mindtorch.bfloat16:
        t = t.float()
    return t.to("cpu").numpy()


# -- comparing -------------------------------------------------------------------------------------


def compare(ref, out, device, values=True, where="output"):
    if isinstance(ref, mindtorch.Tensor):
        if not isinstance(out, mindtorch.Tensor):
            raise Mismatch(f"{where}: expected a Tensor, got {type(out).__name__}")
        if out.device.type != device.type:
            raise Mismatch(f"{where}: on {out.device}, expected {device.type}")
        if tuple(out.shape) != tuple(ref.shape):
            raise Mismatch(f"{where}: shape {tuple(out.shape)}, expected {tuple(ref.shape)}")
        if out.dtype is not ref.dtype:
            raise Mismatch(f"{where}: dtype {out.dtype}, expected {ref.dtype}")
        if values:
            _compare_values(host_array(ref), host_array(out), ref.dtype, where)
        return
    if isinstance(ref, (tuple, list)):
        if not isinstance(out, (tuple, list)) or len(out) != len(ref):
            raise Mismatch(f"{where}: expected a sequence of {len(ref)}, got {type(out).__name__}")
        for k, (r, o) in enumerate(zip(ref, out)):
            compare(r, o, device, values, f"{where}[{k}]")
        return
    if values and ref != out and not (isinstance(ref, float) and np.isnan(ref) and np.isnan(out)):
        raise Mismatch(f"{where}: {out!r}, expected {ref!r}")


# singular / eigen vectors are unique only up to sign (PyTorch's docs: devices return different signs), and a
# full SVD's columns past min(m, n) are any orthonormal completion: those are compared as below
SIGN_FREE = {"linalg_svd", "linalg_eigh"}


def _canonical(qualname, result):
    """The result's arrays with each vector flipped so that its largest-magnitude entry is positive (SVD:
    U's first k columns and Vh's first k rows, flipped together)."""
    arrays = [host_array(t).astype(np.float64) for t in result]
    vectors = arrays[0] if qualname == "linalg_svd" else arrays[1]
    k = arrays[1].shape[-1] if qualname == "linalg_svd" else vectors.shape[-1]
    vectors = vectors[..., :, :k]
    pick = np.take_along_axis(vectors, np.abs(vectors).argmax(-2)[..., None, :], -2)
    sign = np.where(pick < 0, -1.0, 1.0)
    if qualname == "linalg_svd":
        return [vectors * sign, arrays[1], arrays[2][..., :k, :] * np.swapaxes(sign, -1, -2)]
    return [arrays[0], vectors * sign]


def _compare_values(a, b, dtype, where):
    tol = TOLERANCE.get(dtype.name)
    if tol is None:
        ok = np.array_equal(a, b)
    else:
        with np.errstate(all="ignore"):
            ok = np.allclose(b, a, rtol=tol[0], atol=tol[1], equal_nan=True)
    if not ok:
        with np.errstate(all="ignore"):
            wide = np.complex128 if a.dtype.kind == "c" else np.float64
            diff = np.abs(a.astype(wide) - b.astype(wide))
        worst = np.nanmax(diff) if diff.size and not np.all(np.isnan(diff)) else "nan placement"
        raise Mismatch(f"{where}: values differ from cpu (max abs diff {worst})")


# a fused kernel and a chain of ops round their half-precision intermediates differently: a few ulps apart
HALF_ULPS = {"float16": 4 * 2.0**-10, "bfloat16": 4 * 2.0**-7}


def within_half_rounding(want, got):
    """Whether two half-precision results (or tuples of them) differ by no more than a few of their ulps."""
    pairs = list(zip(want, got)) if isinstance(want, (tuple, list)) else [(want, got)]
    for w, g in pairs:
        if not isinstance(w, mindtorch.Tensor) or w.dtype.name not in HALF_ULPS or g.dtype is not w.dtype:
            return False
        a, b = host_array(w).astype(np.float64), host_array(g).astype(np.float64)
        tol = HALF_ULPS[w.dtype.name]
        if a.shape != b.shape or not np.allclose(b, a, rtol=tol, atol=tol, equal_nan=True):
            return False
    return True


# -- one op ----------------------------------------------------------------------------------------


def _run(fn, sample):
    try:
        return fn(*sample.args, **sample.kwargs), None
    except Exception as exc:
        return None, exc


def _samples(qualname, mode):
    fn = samples_for(qualname)
    return fn(Maker(qualname, mode))


def _reference_mode(qualname, fn):
    """The element mode the cpu reference accepts (float, else int, else bool) for generic samples."""
    if qualname in SAMPLES:
        return "float"
    for mode in ("float", "int", "bool"):
        if _run(fn, _samples(qualname, mode)[0])[1] is None:
            return mode
    return "float"


def declared_unsupported(exc, unsupported):
    """`exc` is the device's own "this is not available here" error: its "Type: message" matches the pattern."""
    return unsupported is not None and re.search(unsupported, f"{type(exc).__name__}: {exc}") is not None


class _Run:
    """One op's run on one device: what each sample's outcome is checked against."""

    def __init__(self, op, fn, device, dataless, unsupported, cov):
        self.op, self.fn, self.device, self.dataless, self.unsupported, self.cov = (
            op,
            fn,
            device,
            dataless,
            unsupported,
            cov,
        )
        self.values = not dataless and op.family != "random" and op.name not in UNDEFINED_VALUES

    def result(self, status, n, detail):
        return OpResult(self.op.qualname, status, self.cov, n, detail)


def _device_error(run, exc, where, n):
    """The status of an error the device raised where the cpu computed."""
    msg = f"{type(exc).__name__}: {exc}"[:300]
    if declared_unsupported(exc, run.unsupported):
        return run.result(UNSUPPORTED, n, f"{where}: {msg}")
    if isinstance(exc, NotImplementedError):
        if run.dataless:
            return run.result(NA, n, f"{where}: needs data ({msg})")
        if "Could not run" in str(exc):
            return run.result(MISSING, n, f"{where}: {msg}")
    return run.result(FAILING, n, f"{where}: {msg}")


def _expected_error(run, ref_exc, exc, ds, before, where, n):
    """The device must raise the cpu's exception class, and leave its inputs as they were."""
    if exc is None and ds.needs_data and (run.dataless or ds.host_error):
        return None  # an out-of-range index a data-less device cannot see; a check only PyTorch's cpu makes
    if exc is None or not isinstance(exc, type(ref_exc)):
        got = "no error" if exc is None else type(exc).__name__
        return run.result(FAILING, n, f"{where}: cpu raises {type(ref_exc).__name__}, {run.device.type} gives {got}")
    if before is not None and not all(
        np.array_equal(b, a, equal_nan=b.dtype.kind in "fc") for b, a in zip(before, _snapshot(ds.args))
    ):
        return run.result(FAILING, n, f"{where}: raised, but changed its inputs")
    return None


def _written(op, sample):
    """(name, argument) of every argument the op's schema marks written, as passed in `sample`."""
    for i, p in enumerate(op.params):
        if p.writes:
            a = sample.args[i] if i < len(sample.args) else sample.kwargs.get(p.name)
            if a is not None:
                yield p.name, a


def _deferred_error(device, out):
    """The error a device reports at its next synchronization (as CUDA's device-side asserts do), or None."""
    try:
        backend_for(device.type).synchronize(device.index)
        for t in out if isinstance(out, (tuple, list)) else (out,):
            if isinstance(t, mindtorch.Tensor):
                host_array(t)
    except Exception as exc:
        return exc
    return None


def _rounded_apart(run, ref, out, rs, ds):
    """The result (if any) and every argument the op writes are within a few half-precision ulps."""
    pairs = [(ref, out)] if ref is not None else []
    pairs += [(want, got) for (_, want), (_, got) in zip(_written(run.op, rs), _written(run.op, ds))]
    return bool(pairs) and all(within_half_rounding(want, got) for want, got in pairs)


def _compare_result(run, ref, out, rs, ds, where):
    qualname = run.op.qualname
    compare(ref, out, run.device, run.values and qualname not in SIGN_FREE, where)
    for (name, want), (_, got) in zip(_written(run.op, rs), _written(run.op, ds)):
        compare(want, got, run.device, run.values, f"{where}: written argument {name}")
    if run.values and qualname in SIGN_FREE:
        for j, (a, b) in enumerate(zip(_canonical(qualname, ref), _canonical(qualname, out))):
            _compare_values(a, b, ref[0].dtype, f"{where}[{j}] (each vector up to its sign)")
    if run.op.inplace and isinstance(ref, mindtorch.Tensor) and out is not ds.args[0]:
        raise Mismatch(f"{where}: an in-place op must return its first argument")


def _check_sample(run, rs, ds, where, n, then=None, variant=False):
    """One sample on the cpu and on the device: None when they agree, else the op's result. `then` runs after
    a successful comparison (the gradient check of the first sample). A `variant` in a dtype the cpu refuses
    is no sample: REFUSED."""
    ref, ref_exc = _run(run.fn, rs)
    if variant and ref_exc is not None:
        return REFUSED
    try:
        ds = type(ds)(*to_device(ds.args, run.device), **to_device(ds.kwargs, run.device))
    except Exception as exc:
        if variant:
            return NOT_HELD  # a dtype the device does not hold (the copies checks hold it to that)
        detail = f"{where}: the inputs cannot be moved to {run.device.type}: {type(exc).__name__}: {exc}"
        if declared_unsupported(exc, run.unsupported):
            return run.result(UNSUPPORTED, n, detail[:300])
        return run.result(MISSING, n, detail[:300])
    ds.needs_data, ds.host_error = rs.needs_data, rs.host_error
    before = _snapshot(ds.args) if ref_exc is not None and not run.dataless else None
    out, exc = _run(run.fn, ds)
    if ref_exc is not None:
        if exc is None and ds.needs_data and not run.dataless:
            exc = _deferred_error(run.device, out)
        return _expected_error(run, ref_exc, exc, ds, before, where, n)
    if exc is not None:
        return _device_error(run, exc, where, n)
    try:
        try:
            _compare_result(run, ref, out, rs, ds, where)
        except Mismatch:
            # the device runs the decomposition of an op the cpu runs fused: half precision rounds apart
            if run.cov != "composite" or "cpu" not in run.op.kernels or not _rounded_apart(run, ref, out, rs, ds):
                raise
        if then is not None:
            then()
    except Mismatch as m:
        return run.result(FAILING, n, str(m))
    except NotImplementedError as exc:
        if declared_unsupported(exc, run.unsupported):
            return run.result(UNSUPPORTED, n, f"backward: {exc}"[:300])
        return run.result(NA if run.dataless else MISSING, n, f"backward: {exc}"[:300])
    except Exception as exc:
        st = UNSUPPORTED if declared_unsupported(exc, run.unsupported) else FAILING
        return run.result(st, n, f"{where}: {type(exc).__name__}: {exc}"[:300])
    return None


REFUSED = "refused"  # _check_sample: the cpu refused a variant, which is then no sample
NOT_HELD = "not held"  # _check_sample: the device does not hold a variant's dtype


def _check_dtypes(run, qualname, mode, n):
    """The op in every dtype the cpu accepts (variants.py): (result or None, samples run, dtypes covered, dtypes
    the device declares it lacks). A declared lack in another dtype is listed, not the op's status: the op stays
    conformant in the dtypes it takes."""
    from .variants import dtype_variants

    dtypes, lacks = set(), {}
    for dtype, rs, ds in dtype_variants(qualname, run.fn, mode):
        bad = _check_sample(run, rs, ds, f"in {dtype.name}: sample {rs!r}", n + 1, variant=True)
        if bad is REFUSED or bad is NOT_HELD:
            continue
        if bad is not None and bad.status == UNSUPPORTED:
            lacks[dtype.name] = bad.detail
            continue
        if bad is not None:
            return bad, n, dtypes, lacks
        n += 1
        dtypes.add(dtype.name)
    return None, n, dtypes, lacks


def check_op(qualname, device, dataless=False, grad=True, unsupported=None, dtypes=True):
    """One op on its samples (and, with `dtypes`, in every dtype the cpu accepts) against the cpu."""
    op = OPS[qualname]
    cov = coverage(op, device.type)
    if samples_for(qualname) is None:
        return OpResult(qualname, FAILING, cov, 0, "no samples for this op (the suite's own coverage check)")
    if cov == MISSING:
        if dataless and op.meta is None:
            return OpResult(qualname, NA, cov, 0, "data-dependent output shape (no shape rule)")
        return OpResult(qualname, MISSING, cov, 0, f"no kernel on {device.type}")
    run = _Run(op, make_callable([op], False), device, dataless, unsupported, cov)
    try:
        mode = _reference_mode(qualname, run.fn)
        refs, devs = _samples(qualname, mode), _samples(qualname, mode)
    except Exception as exc:
        return OpResult(qualname, FAILING, cov, 0, f"building the samples failed: {type(exc).__name__}: {exc}")
    for k, (rs, ds) in enumerate(zip(refs, devs)):
        then = (lambda: _check_grad(op, run.fn, qualname, mode, device, dataless)) if k == 0 and grad else None
        bad = _check_sample(run, rs, ds, f"sample {k} {rs!r}", k + 1, then)
        if bad is not None:
            return bad
    n, covered, lacks = len(refs), set(), {}
    if dtypes:
        bad, n, covered, lacks = _check_dtypes(run, qualname, mode, n)
        if bad is not None:
            return bad
    detail = f"lacks {', '.join(sorted(lacks))}: {next(iter(lacks.values()))}"[:300] if lacks else ""
    status = FALLBACK if cov == FALLBACK else CONFORMANT
    return OpResult(qualname, status, cov, n, detail, sorted(covered), sorted(lacks))


def _snapshot(args):
    """Host copies of the tensor arguments (to check that bad input changes nothing)."""
    return [host_array(a).copy() for a in args if isinstance(a, mindtorch.Tensor)]


def _float_leaves(args):
    found = []
    for a in args:
        if isinstance(a, mindtorch.Tensor) and a.dtype is mindtorch.float32 and a.is_contiguous():
            found.append(a)
        elif isinstance(a, (list, tuple)):
            found += _float_leaves(a)
    return found


def _grad_of(fn, sample, leaves, device):
    for t in leaves:
        t.requires_grad_(True)
    out = fn(*sample.args, **sample.kwargs)
    outs = [
        o
        for o in (out if isinstance(out, (tuple, list)) else (out,))
        if isinstance(o, mindtorch.Tensor) and o.grad_fn is not None and o.dtype.is_floating_point
    ]
    if not outs:
        return None
    loss = None
    for o in outs:
        w = mindtorch.linspace(0.5, 1.5, max(o.numel(), 1))[: o.numel()].reshape(o.shape).to(device)
        term = (o * w).sum()
        loss = term if loss is None else loss + term
    return mindtorch.autograd.grad(loss, leaves, allow_unused=True)


def _check_grad(op, fn, qualname, mode, device, dataless):
    """The first sample's gradients through the device match the cpu's."""
    if op.inplace or op.family == "random" or (op.derivative is None and op.composite is None):
        return
    rs = _samples(qualname, mode)[0]
    leaves = _float_leaves(rs.args)
    if not leaves:
        return
    try:
        ref = _grad_of(fn, rs, leaves, mindtorch.device("cpu"))
    except Exception:
        return
    if ref is None:
        return
    ds = _samples(qualname, mode)[0]
    ds = type(ds)(*to_device(ds.args, device), **to_device(ds.kwargs, device))
    try:
        got = _grad_of(fn, ds, _float_leaves(ds.args), device)
    except NotImplementedError:
        raise
    except Exception as exc:
        raise Mismatch(f"backward: {type(exc).__name__}: {exc}") from exc
    for k, (r, g) in enumerate(zip(ref, got or ())):
        if r is None or g is None:
            if (r is None) != (g is None):
                raise Mismatch(f"gradient {k}: {'none' if g is None else 'one'} on {device.type}")
            continue
        compare(r, g, device, not dataless, f"gradient {k}")


# -- the whole suite -------------------------------------------------------------------------------


def run_check(name, device, dataless=False, unsupported=None):
    """One structural check: (status, detail); a failure with the device's declared error is UNSUPPORTED."""
    from .checks import CHECKS
    from .report import FAILED

    st, detail = CHECKS[name](device, dataless)
    if st == FAILED and unsupported is not None and re.search(unsupported, detail):
        st = UNSUPPORTED
    return st, detail


def run(device, ops=None, checks=True, grad=True, progress=None, unsupported=None, dtypes=True):
    """Run the conformance suite against `device`; returns a Report. `unsupported`: a regular expression
    matching the device's own errors for what it declares it lacks (listed as unsupported, not failing).
    `checks`: True, False or the names of the structural checks to run; `dtypes`: each op in every dtype the
    cpu accepts too."""
    from .checks import CHECKS
    from .report import Report

    device = mindtorch.device(device)
    if device.type not in BACKENDS:
        backend_for(device.type)  # raises: not installed, or why it was skipped
    if device.index is None and device.type not in ("cpu", "meta"):
        device = mindtorch.device(device.type, 0)
    dataless = is_dataless(device)
    start = time.perf_counter()
    results = {}
    names = sorted(OPS) if ops is None else list(ops)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # fallback warnings are reported as the "fallback" status
        for name in names:
            results[name] = check_op(name, device, dataless, grad, unsupported, dtypes)
            if progress:
                progress(results[name])
        gc.collect()
        check_results = {}
        if checks:
            for cname in CHECKS:
                if checks is not True and cname not in checks:
                    continue
                check_results[cname] = run_check(cname, device, dataless, unsupported)
    return Report(device, results, check_results, time.perf_counter() - start, dataless)
