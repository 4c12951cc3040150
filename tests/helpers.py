"""Shared test helpers: PyTorch as the oracle when installed, value comparison, gradcheck."""

import math
import tracemalloc

import mindtorch
import numpy as np
import pytest


def torch_or_skip():
    """The real PyTorch module, or skip the test when it is not installed. In CI
    (MINDTORCH_REQUIRE_TORCH=1, set by the parity session) a missing torch is a failure."""
    import os

    if os.environ.get("MINDTORCH_REQUIRE_TORCH") == "1":
        import torch

        return torch
    return pytest.importorskip("torch")


def runnable_sample(qualname, device):
    """An op's function and its first conformance sample (moved to `device`) that runs on the
    cpu, in the first element mode (float, int, bool) the op accepts; a fresh sample each call."""
    from mindtorch.ops.codegen import make_callable
    from mindtorch.ops.registry import OPS
    from mindtorch.testing.conformance.runner import to_device
    from mindtorch.testing.conformance.samples import Maker, Sample, samples_for

    fn = make_callable([OPS[qualname]], False)
    for mode in ("float", "int", "bool"):
        for k, s in enumerate(samples_for(qualname)(Maker(qualname, mode))):
            try:
                fn(*s.args, **s.kwargs)
            except Exception:
                continue
            fresh = samples_for(qualname)(Maker(qualname, mode))[k]
            return fn, Sample(*to_device(fresh.args, device), **to_device(fresh.kwargs, device))
    raise AssertionError(f"{qualname}: no sample runs on the cpu")


def bound_args(op, sample):
    """param name -> argument of one sample (positional arguments fill the params in order)."""
    bound = dict(zip((p.name for p in op.params), sample.args))
    bound.update(sample.kwargs)
    return bound


# ops that, as in PyTorch, write (and bump) only under a condition on their arguments
WRITES_WHEN = {
    "resize_": lambda b: tuple(b["size"]) != tuple(b["self"].shape),
    "resize_as_": lambda b: tuple(b["the_template"].shape) != tuple(b["self"].shape),
}


def _tensors_of(a):
    if isinstance(a, mindtorch.Tensor):
        return [a]
    return [t for t in a if isinstance(t, mindtorch.Tensor)] if isinstance(a, (list, tuple)) else []


def version_moves(qualname, device):
    """Run an op that writes arguments on its first runnable sample on `device` (pytest.skip when
    the device needs data it does not have): (how far each tensor argument's version moved, how
    far its schema says it must: one per `Tensor(a!)` slot per call, sample)."""
    from mindtorch.ops.registry import OPS

    op = OPS[qualname]
    fn, sample = runnable_sample(qualname, device)
    bound = bound_args(op, sample)
    tensors = {id(t): t for p in op.params for t in _tensors_of(bound.get(p.name))}
    owed = dict.fromkeys(tensors, 0)
    if qualname not in WRITES_WHEN or WRITES_WHEN[qualname](bound):
        for i in op.mutated:
            for t in _tensors_of(bound.get(op.params[i].name)):
                owed[id(t)] += 1
    before = {k: t._version_value for k, t in tensors.items()}
    try:
        fn(*sample.args, **sample.kwargs)
    except NotImplementedError as exc:
        if device.type == "cpu":
            raise
        pytest.skip(f"{qualname} on {device.type}: {exc}")
    return {k: t._version_value - before[k] for k, t in tensors.items()}, owed, sample


def to_np(t):
    """Values of a mindtorch or PyTorch tensor as a NumPy array (bfloat16 widened)."""
    if isinstance(t, mindtorch.Tensor):
        if t.dtype is mindtorch.bfloat16:
            t = t.float()
        return t.detach().cpu().numpy()
    if type(t).__module__.startswith("torch"):
        import torch

        if t.dtype == torch.bfloat16:
            t = t.float()
        return t.detach().cpu().resolve_conj().numpy()
    return np.asarray(t)


def to_torch(t, requires_grad=None):
    """A PyTorch copy of a mindtorch tensor (same dtype, values, requires_grad)."""
    import torch

    if t.dtype is mindtorch.bfloat16:
        out = torch.from_numpy(to_np(t).copy()).to(torch.bfloat16)
    else:
        out = torch.from_numpy(to_np(t).copy())
    rg = t.requires_grad if requires_grad is None else requires_grad
    return out.requires_grad_(rg) if rg else out


def public_pair(torch, name, args):
    """The public callables (mindtorch, PyTorch) of an op, by namespace function or Tensor method, or None."""
    if hasattr(mindtorch, name) and hasattr(torch, name) and not name.startswith("_"):
        return (lambda *a, **k: getattr(mindtorch, name)(*a, **k)), (lambda *a, **k: getattr(torch, name)(*a, **k))
    if (
        args
        and isinstance(args[0], mindtorch.Tensor)
        and hasattr(mindtorch.Tensor, name)
        and hasattr(torch.Tensor, name)
    ):
        return ((lambda s, *a, **k: getattr(s, name)(*a, **k)),) * 2
    return None


def torch_args(torch, x):
    """A call's arguments for PyTorch: tensors (meta ones as meta), dtypes and devices, in any nesting."""
    if isinstance(x, mindtorch.Tensor):
        meta = x.device.type == "meta"
        t = to_torch(mindtorch.zeros(x.shape, dtype=x.dtype) if meta else x.detach().to("cpu"))
        return t.to("meta") if meta else t
    if isinstance(x, mindtorch.dtype):
        return getattr(torch, str(x).split(".")[-1])
    if isinstance(x, mindtorch.device):
        return torch.device(str(x))
    if isinstance(x, (list, tuple)):
        return type(x)(torch_args(torch, v) for v in x)
    if isinstance(x, dict):
        return {k: torch_args(torch, v) for k, v in x.items()}
    return x


def dtype_name(d):
    return str(d).replace("torch.", "")


def assert_same(mt, th, rtol=1e-5, atol=1e-6, check_dtype=True, check_stride=False):
    """A mindtorch result equals a PyTorch result: shape, dtype, values (and optionally strides)."""
    if isinstance(th, (tuple, list)):
        assert isinstance(mt, (tuple, list)) and len(mt) == len(th), (mt, th)
        for a, b in zip(mt, th):
            assert_same(a, b, rtol, atol, check_dtype, check_stride)
        return
    if not hasattr(th, "shape"):
        assert mt == th or np.allclose(mt, th, rtol=rtol, atol=atol), (mt, th)
        return
    assert tuple(mt.shape) == tuple(th.shape), f"shape {tuple(mt.shape)} != {tuple(th.shape)}"
    if check_dtype:
        assert dtype_name(mt.dtype) == dtype_name(th.dtype), f"dtype {mt.dtype} != {th.dtype}"
    if check_stride:
        assert tuple(mt.stride()) == tuple(th.stride()), f"stride {mt.stride()} != {th.stride()}"
    a, b = to_np(mt), to_np(th)
    if a.dtype == np.bool_ or np.issubdtype(a.dtype, np.integer):
        np.testing.assert_array_equal(a, b)
    else:
        np.testing.assert_allclose(
            a.astype(np.float64) if a.dtype.kind != "c" else a,
            b.astype(np.float64) if b.dtype.kind != "c" else b,
            rtol=rtol,
            atol=atol,
            equal_nan=True,
        )


def results_or_same_error(fn):
    """fn(lib) run with mindtorch and with PyTorch: both results, or (None, None) once mindtorch has raised
    the exception class PyTorch raised."""
    torch = torch_or_skip()
    try:
        th = fn(torch)
    except Exception as e:
        with pytest.raises(type(e)):
            fn(mindtorch)
        return None, None
    return fn(mindtorch), th


def raises_alike(fn):
    """fn(lib) raises with PyTorch and raises the same exception class with the same message with
    mindtorch (the data sets, modules and parametrizations of these tests print alike in both)."""
    torch = torch_or_skip()
    with pytest.raises(Exception) as theirs:
        fn(torch)
    with pytest.raises(type(theirs.value)) as ours:
        fn(mindtorch)
    assert type(ours.value) is type(theirs.value)
    assert str(ours.value) == str(theirs.value)


def check_grad(fn, *inputs, **kw):
    """gradcheck in float64 over the inputs that require grad."""
    assert mindtorch.autograd.gradcheck(fn, inputs, **kw)


def randn64(*shape, requires_grad=True, low=None):
    t = (
        mindtorch.randn(*shape, dtype=mindtorch.float64)
        if "randn" in dir(mindtorch)
        else mindtorch.tensor(np.random.default_rng(0).standard_normal(shape))
    )
    if low is not None:
        t = t.abs() + low
    return t.requires_grad_(requires_grad)


def compare_results(m, th, rtol, atol, where="result", *, ordered_keys=False, int_as_float=False):
    """A program's mindtorch result equals its PyTorch result, through nested containers.

    ordered_keys: dict keys must come in the same order (state_dict); otherwise as sets.
    int_as_float: a Python int may stand where PyTorch gave a float.
    """
    import torch

    def rec(m, th, where):
        if isinstance(th, torch.Tensor):
            assert isinstance(m, mindtorch.Tensor), f"{where}: {type(m)} is not a Tensor"
            assert m.requires_grad == th.requires_grad, f"{where}: requires_grad {m.requires_grad}"
            try:
                assert_same(m, th, rtol=rtol, atol=atol)
            except AssertionError as e:
                raise AssertionError(f"{where}: {e}") from None
        elif isinstance(th, torch.dtype):
            assert dtype_name(m) == dtype_name(th), f"{where}: {m} != {th}"
        elif isinstance(th, torch.Size):
            assert tuple(m) == tuple(th), f"{where}: {m} != {th}"
        elif isinstance(th, torch.device):
            assert str(m) == str(th), f"{where}: {m} != {th}"
        elif isinstance(th, dict):
            keys_m, keys_t = (list(m), list(th)) if ordered_keys else (sorted(m), sorted(th))
            assert keys_m == keys_t, f"{where}: keys {keys_m} != {keys_t}"
            for k in th:
                rec(m[k], th[k], f"{where}[{k!r}]")
        elif isinstance(th, (tuple, list)):
            assert isinstance(m, (tuple, list)) and len(m) == len(th), f"{where}: {m!r} != {th!r}"
            for i, (a, b) in enumerate(zip(m, th)):
                rec(a, b, f"{where}[{i}]")
        elif isinstance(th, float):
            ok_types = (float, int) if int_as_float else float
            assert isinstance(m, ok_types), f"{where}: {type(m)} is not float"
            assert (math.isnan(m) and math.isnan(th)) or math.isclose(m, th, rel_tol=rtol, abs_tol=atol), (
                f"{where}: {m} != {th}"
            )
        elif th is None:
            assert m is None, f"{where}: {m!r} is not None"
        else:
            assert type(m) is type(th) and m == th, f"{where}: {m!r} != {th!r}"

    rec(m, th, where)


def installed_backends(*extra):
    """Sorted device types of the installed backend distributions plus `extra` (fixture plugins on the path).

    nox installs only what a session needs; a developer's environment may hold more (mindtorch-npu)."""
    import importlib.metadata

    return sorted({e.name for e in importlib.metadata.entry_points(group="mindtorch.backends")} | set(extra))


def peak_bytes(f):
    """Bytes allocated at the peak of one call of f (after a warm-up call), as tracemalloc sees NumPy's
    buffers: a deterministic stand-in for "no copies, no temporaries"."""
    f()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        f()
        return tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
