"""How a device runs an op, read from the op table (for `python -m mindtorch` and the conformance report)."""

from ..ops.registry import op_out_of_place


def how_runs(op, device_type):
    """How `device_type` runs `op`, looking no further than the op itself: "kernel", "fallback"
    (host fallback), "view" (core makes it), "composite" (declared; whether its decomposition
    is covered is the caller's question), "inplace" (out-of-place kernel + copy_), or None."""
    k = op.kernels.get(device_type)
    if k is not None:
        return "fallback" if getattr(k, "host_fallback", False) else "kernel"
    if op.view_fn is not None:
        return "view"
    if op.composite is not None:
        return "composite"
    if op.inplace:
        base = op_out_of_place.get(op.qualname)
        if base is not None and device_type in base.kernels:
            return "inplace"
    return None
