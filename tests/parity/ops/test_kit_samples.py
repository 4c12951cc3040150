"""The conformance kit's samples under PyTorch: every op of the table with a public PyTorch counterpart, on
its samples, its edge cases (out-of-range indices, integer limits) and its samples in every dtype. Where
PyTorch raises, the cpu backend raises the same class; where PyTorch computes, the cpu computes the same
dtype, shape and values. This is what makes the cpu a fit reference for the kit. Counts are printed."""

from helpers import torch_or_skip

torch = torch_or_skip()

import warnings  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from helpers import public_pair, to_np, torch_args  # noqa: E402
from mindtorch.ops.codegen import make_callable  # noqa: E402
from mindtorch.ops.registry import OPS  # noqa: E402
from mindtorch.testing.conformance.runner import _reference_mode  # noqa: E402
from mindtorch.testing.conformance.samples import Maker, samples_for  # noqa: E402
from mindtorch.testing.conformance.variants import dtype_variants  # noqa: E402

UNDEFINED = {"empty", "empty_like", "new_empty", "new_empty_strided", "empty_strided"}
TOL = {"float16": 2e-3, "bfloat16": 2e-2, "float32": 2e-5, "complex64": 2e-5}


def _outcome(fn, args, kwargs):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*args, **kwargs), None
    except Exception as exc:
        return None, exc


def _tensors(x):
    if isinstance(x, (tuple, list)):
        return [t for a in x for t in _tensors(a)]
    return [x] if hasattr(x, "dtype") and hasattr(x, "shape") else []


def _differ(got, want):
    """How a mindtorch result differs from PyTorch's (None when they agree)."""
    gs, ws = _tensors(got), _tensors(want)
    if len(gs) != len(ws):
        return f"{len(gs)} tensors, PyTorch {len(ws)}"
    for k, (g, w) in enumerate(zip(gs, ws)):
        if str(g.dtype).split(".")[-1] != str(w.dtype).split(".")[-1] or tuple(g.shape) != tuple(w.shape):
            return f"[{k}] {g.dtype} {tuple(g.shape)}, PyTorch {w.dtype} {tuple(w.shape)}"
        a, b = to_np(g), to_np(w)
        tol = TOL.get(str(g.dtype).split(".")[-1], 1e-9)
        with np.errstate(all="ignore"):
            same = (
                np.array_equal(a, b) if a.dtype.kind in "biu" else np.allclose(a, b, rtol=tol, atol=tol, equal_nan=True)
            )
        if not same:
            return f"[{k}] values differ"
    return None


def _cases(q):
    op = OPS[q]
    fn = make_callable([op], False)
    mode = _reference_mode(q, fn)
    for k, s in enumerate(samples_for(q)(Maker(q, mode))):
        yield f"sample {k}", s
    for d, s, _ in dtype_variants(q, fn, mode):
        if op.family == "creation" and _fractional_steps(s, d):
            continue  # PyTorch's integer ranges die of SIGFPE on a step that truncates to 0
        yield f"in {d.name}", s


def _fractional_steps(sample, dtype):
    return not (dtype.is_floating_point or dtype.is_complex) and any(
        isinstance(a, float) and not a.is_integer() for a in sample.args
    )


def compare_op(q):
    """(cases tried, [(sample, mismatch)], cases PyTorch has no kernel for and mindtorch computes)."""
    op = OPS[q]
    tried, bad, beyond = 0, [], 0
    for where, s in _cases(q):
        pair = public_pair(torch, op.name, s.args)
        if pair is None:
            return 0, [], 0
        mt_fn, th_fn = pair
        want, th_exc = _outcome(th_fn, torch_args(torch, s.args), torch_args(torch, s.kwargs))
        got, mt_exc = _outcome(mt_fn, s.args, s.kwargs)
        tried += 1
        label = f"{q} {where} {s!r}"
        if isinstance(th_exc, NotImplementedError) and mt_exc is None:
            beyond += 1  # a kernel PyTorch has not written (wide unsigned integers mostly): mindtorch computes
        elif th_exc is not None:
            if not isinstance(mt_exc, type(th_exc)):
                got_what = type(mt_exc).__name__ if mt_exc else "computes"
                bad.append((s, f"{label}: PyTorch {type(th_exc).__name__}, mindtorch {got_what}"))
        elif mt_exc is not None:
            bad.append((s, f"{label}: PyTorch computes, mindtorch {type(mt_exc).__name__}: {mt_exc}"[:240]))
        elif op.family != "random" and op.name not in UNDEFINED:
            diff = _differ(got, want)
            if diff:
                bad.append((s, f"{label}: {diff}"))
    return tried, bad, beyond


def test_kit_samples_under_pytorch(capsys):
    tried, bad, ops, beyond = 0, [], 0, 0
    for q in sorted(OPS):
        if samples_for(q) is None or q.startswith("_"):
            continue
        n, b, more = compare_op(q)
        ops += bool(n)
        tried += n
        beyond += more
        bad += [m for _, m in b]
    with capsys.disabled():
        print(
            f"\nkit samples under PyTorch: {ops} ops, {tried} cases, {beyond} computed where PyTorch has no "
            f"kernel, {len(bad)} mismatches"
        )
        for b in bad:
            print("  mismatch:", b)
    assert ops >= 300 and tried >= 5000, (ops, tried)
    # a ratchet: the known mismatches (listed by the run above); a fix lowers it, a regression fails here
    assert len(bad) <= KNOWN_MISMATCHES, "\n".join(bad)


# 619 at the start, 582 with the ops merged since: nearly all a dtype PyTorch refuses and mindtorch computes or refuses with another class
# (complex into ordering and rounding ops, bool and integers into floating-point functions, TypeError where
# PyTorch's NotImplementedError), a few index/shape edge cases; listed in full by the run. slice_inverse's two
# samples (+2): PyTorch's copy of self no longer shares src's storage, which slice_inverse needs.
# A bool is no int to the parser any more: std/var(x, False) reach the unbiased overload (-12 here; the
# other fixes since had lowered it to 568): 556. Integer addmm/baddbmm/addbmm/addr keep their dtype: 507.
# Fill values converted as PyTorch checks them, the dtypes its kernels lack refused alike, complex
# float_power and sinc, float64 angle: 57.
KNOWN_MISMATCHES = 57

INDEXING = [
    "gather",
    "scatter.src",
    "scatter.value",
    "scatter_add",
    "scatter_reduce.two",
    "index_add",
    "index_copy",
    "index_fill.int_Scalar",
    "index_fill.int_Tensor",
    "index_put",
    "put",
    "take",
    "embedding",
    "index_select",
]


@pytest.mark.parametrize("q", INDEXING)
def test_out_of_range_indices_raise_pytorchs_class(q):
    """Every indexing op's out-of-range samples: PyTorch's exception class, exactly."""
    n, bad, _ = compare_op(q)
    assert n and any(s.needs_data for _, s in _cases(q)), q
    assert not [m for s, m in bad if s.needs_data], [m for s, m in bad if s.needs_data]
