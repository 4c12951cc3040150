"""What each composite op decomposes into: the kernels it reaches, traced on the cpu backend
with the op's conformance samples (a composite is covered on a device only if all of them are)."""

import warnings

from mindtorch.ops.codegen import make_callable
from mindtorch.ops.registry import OPS

from .samples import Maker, samples_for

_CACHE = {}


def decompositions():
    """{composite qualname: frozenset of kernel op names} (empty when the cpu backend is absent)."""
    if _CACHE:
        return _CACHE
    composites = sorted(q for q, op in OPS.items() if op.composite is not None and op.view_fn is None)
    kernel_ops = [op for op in OPS.values() if "cpu" in op.kernels]
    if not kernel_ops:
        return {}
    seen = set()
    originals = {op: op.kernels["cpu"] for op in kernel_ops}
    for op, k in originals.items():
        op.kernels["cpu"] = _recording(op.qualname, k, seen)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for q in composites:
                seen.clear()
                op = OPS[q]
                # a composite with a cpu kernel of its own (a fused op) is traced through its decomposition,
                # which is what a device without that kernel runs
                own = op.kernels.pop("cpu", None)
                try:
                    fn = make_callable([op], False)
                    for s in (samples_for(q) or (lambda m: []))(Maker(q)):
                        try:
                            fn(*s.args, **s.kwargs)
                        except Exception:
                            pass
                finally:
                    if own is not None:
                        op.kernels["cpu"] = own
                _CACHE[q] = frozenset(seen)
    finally:
        for op, k in originals.items():
            op.kernels["cpu"] = k
    return _CACHE


def _recording(name, kernel, seen):
    def k(*args, **kwargs):
        seen.add(name)
        return kernel(*args, **kwargs)

    return k
