"""Host fallback for bring-up: an op a device lacks runs on the cpu backend.

Opt-in per backend (or per op) through the `mindtorch_host_fallback` hook.
Inputs go to the host through the copy routines, the cpu kernel runs, and
results come back; autograd records the op as usual (the fallback is just
the op's kernel). Every op warns once, the first time it falls back.
"""

import warnings

from .._grad_mode import state as _grad
from .._tensor import Tensor

# structural ops a device must provide itself (the fallback is built from them)
NEVER = frozenset({"copy_", "_to_copy", "empty", "empty_strided"})


def install(rec):
    """Give `rec`'s device a host kernel for every opted-in op it has no kernel for."""
    from ..ops.registry import OPS, op_out_of_place
    from .registry import BACKENDS

    cpu = BACKENDS.get("cpu")
    if cpu is None or rec.device_type == "cpu":
        return
    wanted = rec.host_fallback
    for name, op in OPS.items():
        if name in NEVER or op.view_fn is not None or op.composite is not None:
            continue
        if wanted is not True and name not in wanted:
            continue
        host = cpu.kernels.get(name)
        if host is None or rec.device_type in op.kernels:
            continue
        if op.inplace and name in op_out_of_place and wanted is True:
            continue  # `x.add_(y)` is `x.copy_(add(x, y))` on the device: add falls back instead
        op.kernels[rec.device_type] = _fallback_kernel(op, host, rec.device_type)
        rec.fallback_ops.add(name)


def _fallback_kernel(op, host_kernel, device_type):
    warned: list = []

    def kernel(meta, *args):
        if not warned:
            warned.append(True)
            warnings.warn(
                f"'{op.qualname}' has no kernel on the '{device_type}' device; running it on the host "
                "(cpu) through the host fallback, which copies its inputs and outputs",
                UserWarning,
                stacklevel=3,
            )
        prev = _grad.enabled
        _grad.enabled = False
        try:
            dev = _device_of(args, device_type)
            host_args = tuple(_to_host(a, device_type) for a in args)
            if op.device_param is not None:
                host_args = _replace(host_args, op.device_param, _cpu())
            out = host_kernel(meta, *host_args)
            _write_back(op, args, host_args, device_type)
            return args[0] if op.inplace else _back(out, dev)
        finally:
            _grad.enabled = prev

    kernel.host_fallback = True  # type: ignore[attr-defined]  # read by coverage and conformance
    return kernel


def _write_back(op, args, host_args, device_type):
    """Every argument the op writes (`Tensor(a!)`, lists of them, optional ones; versioned or not) gets the
    host kernel's writes: the device tensors were only copied to the host."""
    from ..dispatch import write_into

    for i, p in enumerate(op.params[: len(args)]):
        if not p.writes:
            continue
        dst, src = args[i], host_args[i]
        pairs = zip(dst, src) if isinstance(dst, (list, tuple)) else ((dst, src),)
        for d, h in pairs:
            if isinstance(d, Tensor) and d.device.type == device_type:
                write_into(d, h)


def _cpu():
    from .._device import device

    return device("cpu")


def _device_of(args, device_type):
    from .._device import device

    for a in args:
        for t in a if isinstance(a, (list, tuple)) else (a,):
            if isinstance(t, Tensor) and t.device.type == device_type:
                return t.device
        if isinstance(a, device) and a.type == device_type:
            return a
    return device(device_type, 0)


def _replace(args, i, value):
    return args[:i] + (value,) + args[i + 1 :]


def _to_host(a, device_type):
    import mindtorch

    if isinstance(a, Tensor):
        return mindtorch.ops._to_copy(a, device=_cpu()) if a.device.type == device_type else a
    if isinstance(a, (list, tuple)) and any(isinstance(t, Tensor) for t in a):
        return type(a)(_to_host(t, device_type) for t in a)
    return a


def _back(out, dev):
    import mindtorch

    if isinstance(out, Tensor):
        return mindtorch.ops._to_copy(out, device=dev)
    if isinstance(out, tuple):
        return tuple(_back(o, dev) for o in out)
    if isinstance(out, list):
        return [_back(o, dev) for o in out]
    return out
