"""Public functions that are not single ops."""

__all__ = (
    [
        "save",
        "load",
        "einsum",
        "broadcast_shapes",
        "compile",
        "autocast",
        "is_autocast_enabled",
        "get_autocast_dtype",
        "get_num_threads",
        "init_num_threads",
        "empty_permuted",
        "set_num_threads",
        "get_num_interop_threads",
        "set_num_interop_threads",
        "is_anomaly_enabled",
        "is_anomaly_check_nan_enabled",
        "set_anomaly_enabled",
        "e",
        "pi",
        "inf",
        "nan",
        "newaxis",
        "is_signed",
        "is_conj",
        "is_neg",
        "resolve_conj",
        "resolve_neg",
        "is_same_size",
        "is_nonzero",
        "get_device",
        "conj",
        "scalar_tensor",
        "get_device_module",
        "tensordot",
        "asarray",
        "cond",
        "zero_",
        "fill_",
        "gradient",
        "detach_",
        "set_default_tensor_type",
        "frombuffer",
        "from_file",
        "histogramdd",
        "is_distributed",
        "prelu",
        "vmap",
        "set_autocast_enabled",
        "set_autocast_dtype",
        "is_autocast_cache_enabled",
        "set_autocast_cache_enabled",
        "clear_autocast_cache",
        "autocast_increment_nesting",
        "autocast_decrement_nesting",
    ]
    + [
        f"{verb}_autocast_{kind}_{what}"
        for kind in ("cpu", "gpu", "ipu", "xla")
        for verb, what in (("is", "enabled"), ("set", "enabled"), ("get", "dtype"), ("set", "dtype"))
    ]
    + [
        n + "_copy"
        for n in (
            "alias",
            "as_strided",
            "detach",
            "diagonal",
            "expand",
            "narrow",
            "permute",
            "select",
            "slice",
            "split",
            "split_with_sizes",
            "squeeze",
            "t",
            "transpose",
            "unbind",
            "unfold",
            "unsqueeze",
            "view",
            "view_as_real",
            "view_as_complex",
        )
    ]
)

from ._geometry import broadcast_shapes_public as broadcast_shapes
from ._threads import (
    get_num_interop_threads,
    get_num_threads,
    init_num_threads,
    set_num_interop_threads,
    set_num_threads,
)


def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True, **kwargs):
    """Save tensors, state dicts and optimizer states in PyTorch's zip checkpoint format."""
    from .serialization import save as _save

    return _save(
        obj,
        f,
        pickle_module=pickle_module,
        pickle_protocol=pickle_protocol,
        _use_new_zipfile_serialization=_use_new_zipfile_serialization,
        **kwargs,
    )


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **pickle_load_args):
    """Load a checkpoint written by mindtorch or PyTorch (safe by default: weights only)."""
    from .serialization import load as _load

    return _load(f, map_location, pickle_module, weights_only=weights_only, mmap=mmap, **pickle_load_args)


def einsum(equation, *operands, out=None):
    """einsum("ij,jk", a, b) or einsum("ij,jk", [a, b])."""
    from . import ops

    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = operands[0]
    return ops.einsum(equation, list(operands))


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None, options=None, disable=False):
    """torch.compile: mindtorch runs eagerly, so the model or function comes back unchanged (warns once)."""
    from ._eager import warn_once

    if model is None:  # used as @compile(...)
        return lambda m: compile(
            m, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode, options=options, disable=disable
        )
    if not disable:
        warn_once("compile")
    return model


from .amp.autocast_mode import (  # noqa: E402
    autocast,
    get_autocast_dtype,
    is_autocast_enabled,
    set_autocast_dtype,
    set_autocast_enabled,
)

# PyTorch's older per-device autocast switches (gpu means cuda); ipu and xla are devices mindtorch does not
# have, so they report off
_LEGACY_AUTOCAST = {"cpu": "cpu", "gpu": "cuda", "ipu": None, "xla": None}
_autocast_state = {"cache": True, "nesting": 0}


def _legacy_autocast(kind):
    device = _LEGACY_AUTOCAST[kind]

    def is_enabled():
        return device is not None and is_autocast_enabled(device)

    def set_enabled(enabled):
        if device is not None:
            set_autocast_enabled(device, enabled)

    def get_dtype():
        return get_autocast_dtype(device) if device is not None else get_autocast_dtype("cpu")

    def set_dtype(dtype):
        if device is not None:
            set_autocast_dtype(device, dtype)

    return is_enabled, set_enabled, get_dtype, set_dtype


for _kind in _LEGACY_AUTOCAST:
    (
        globals()[f"is_autocast_{_kind}_enabled"],
        globals()[f"set_autocast_{_kind}_enabled"],
        globals()[f"get_autocast_{_kind}_dtype"],
        globals()[f"set_autocast_{_kind}_dtype"],
    ) = _legacy_autocast(_kind)


def is_autocast_cache_enabled():
    return _autocast_state["cache"]


def set_autocast_cache_enabled(enabled):
    _autocast_state["cache"] = bool(enabled)


def clear_autocast_cache():
    """mindtorch keeps no cast cache (each cast is made when an op runs): nothing to clear."""


def autocast_increment_nesting():
    _autocast_state["nesting"] += 1
    return _autocast_state["nesting"]


def autocast_decrement_nesting():
    _autocast_state["nesting"] -= 1
    return _autocast_state["nesting"]


import math as _math  # noqa: E402

from .autograd.anomaly_mode import is_anomaly_check_nan_enabled, is_anomaly_enabled, set_anomaly_enabled  # noqa: E402

e, pi, inf, nan, newaxis = _math.e, _math.pi, _math.inf, _math.nan, None


def _tensor_method(name):
    def fn(input, *args, **kwargs):
        return getattr(input, name)(*args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"torch.{name}(input, ...): the same as input.{name}(...)."
    return fn


(is_signed, is_conj, is_neg, resolve_conj, resolve_neg, is_same_size, is_nonzero, get_device, conj) = (
    _tensor_method(n)
    for n in (
        "is_signed",
        "is_conj",
        "is_neg",
        "resolve_conj",
        "resolve_neg",
        "is_same_size",
        "is_nonzero",
        "get_device",
        "conj",
    )
)


def scalar_tensor(s, *, dtype=None, layout=None, device=None, pin_memory=False):
    """A 0-dim tensor holding the number `s` (the default float dtype unless `dtype` is given)."""
    import mindtorch

    return mindtorch.tensor(s, dtype=mindtorch.get_default_dtype() if dtype is None else dtype, device=device)


def get_device_module(device=None):
    """The module of a device type (mindtorch.cpu, mindtorch.npu, ...); the current accelerator's by default."""
    import importlib

    if device is None:
        acc = importlib.import_module("mindtorch.accelerator").current_accelerator()
        name = "cpu" if acc is None else acc.type
    else:
        from ._device import device as device_cls

        name = device.type if isinstance(device, device_cls) else device_cls(device).type
    try:
        return getattr(importlib.import_module("mindtorch"), name)
    except AttributeError:
        raise RuntimeError(
            f"Device '{name}' does not have a corresponding module registered as 'torch.{name}'."
        ) from None


def tensordot(a, b, dims=2, out=None):
    """Sum of products over dims of a and b: `dims` counts a's trailing and b's leading dims, or lists them
    ([dims of a], [dims of b])."""
    from .ops.linalg import _tensordot

    return _tensordot(a, b, dims, out)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """A tensor from obj, sharing its memory when it is already a tensor or a NumPy array of the right
    dtype and device (copy=True always copies; copy=False refuses to)."""
    import numpy as np

    from . import _tensor_from_data
    from ._tensor import Tensor

    if isinstance(obj, Tensor):
        t = obj
        if dtype is not None or device is not None:
            t = t.to(device=device or t.device, dtype=dtype or t.dtype)
            if t is not obj and copy is False:
                raise ValueError("asarray(): a copy is needed for the requested dtype or device")
        if copy and t is obj:
            t = t.clone()
    elif isinstance(obj, np.ndarray) and not copy:
        t = _tensor_from_data.from_numpy(obj)
        if dtype is not None or device is not None:
            t = t.to(device=device or t.device, dtype=dtype or t.dtype)
    else:
        if copy is False:
            raise ValueError("asarray(): can't share memory with a Python sequence (copy=False)")
        t = _tensor_from_data.tensor(obj, dtype=dtype, device=device)
    return t.requires_grad_(requires_grad) if requires_grad else t


def cond(pred, true_fn, false_fn, operands=()):
    """Run true_fn(*operands) or false_fn(*operands) by pred (eager: the branch simply runs)."""
    taken = true_fn if bool(pred) else false_fn
    return taken(*operands)


def _tensor_arg(fn, input):
    from ._tensor import Tensor

    if not isinstance(input, Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")


def zero_(input):
    _tensor_arg("zero_", input)
    return input.zero_()


def fill_(input, value):
    _tensor_arg("fill_", input)
    return input.fill_(value)


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """Estimated derivative of a sampled function along each dim, one tensor per dim (NumPy's gradient)."""
    from .ops.reduction import _gradient

    return _gradient(input, spacing, dim, edge_order)


def histogramdd(input, bins, *, range=None, weight=None, density=False, out=None):
    """A histogram of the points in input's rows: (hist, the bin edges of each dimension); `out`: the
    (hist, [edges...]) tensors to write them into."""
    from .ops.sorting import histogramdd as _histogramdd

    res = _histogramdd(input, bins, range=range, weight=weight, density=density)
    if out is None:
        return res
    hist, edges = out
    hist.resize_(res.hist.shape).copy_(res.hist)
    for e, r in zip(edges, res.bin_edges):
        e.resize_(r.shape).copy_(r)
    return type(res)(hist, tuple(edges))


def detach_(input):
    return input.detach_()


def set_default_tensor_type(t):
    """Legacy: the default floating dtype from a tensor type (torch.DoubleTensor or "torch.DoubleTensor")."""
    from . import _legacy

    name = t if isinstance(t, str) else getattr(t, "__name__", str(t))
    name = name.rsplit(".", 1)[-1]
    cls = _legacy.TYPED.get(name)
    dtype = cls.dtype if cls is not None else None
    if dtype is None or not dtype.is_floating_point:
        raise TypeError(f"only floating-point types are supported as the default type, got {t}")
    from ._dtype import set_default_dtype

    set_default_dtype(dtype)


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-D CPU tensor sharing the memory of an object with the buffer protocol."""
    import numpy as np

    from ._host_data import numpy_dtype
    from ._tensor_from_data import from_numpy

    if dtype.is_floating_point and dtype.name == "bfloat16":
        raise TypeError("frombuffer: bfloat16 is not supported")
    arr = np.frombuffer(buffer, dtype=numpy_dtype(dtype), count=count, offset=offset)
    if not arr.flags.writeable:
        import warnings

        warnings.warn(
            "The given buffer is not writable, and PyTorch does not support non-writable tensors.",
            UserWarning,
            stacklevel=2,
        )
        arr = np.frombuffer(memoryview(bytearray(arr.tobytes())), dtype=arr.dtype)
    t = from_numpy(arr)
    return t.requires_grad_(requires_grad) if requires_grad else t


def empty_permuted(
    size, physical_layout, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False
):
    """An uninitialised tensor of `size` whose dims lie in memory in the order `physical_layout` gives
    (outermost first): empty_permuted((2, 3, 4), (0, 2, 1)) has strides (12, 1, 3)."""
    import mindtorch

    size, order = tuple(size), tuple(physical_layout)
    if len(size) != len(order):
        raise RuntimeError(
            "Number of dimensions in size does not match the length of the physical_layout; i.e. "
            f"len(size) = {len(size)} is not equal to len(physical_layout) = {len(order)}"
        )
    seen = set()
    for i, d in enumerate(order):
        if not 0 <= d < len(size):
            raise RuntimeError(
                f"Dimension out of range (expected to be between 0 and {len(size) - 1}, but got {d} at index {i}).  "
                "NB: negative dims not currently supported; file an issue if you want it."
            )
        if d in seen:
            raise RuntimeError("Duplicate dim not allowed")
        seen.add(d)
    inverse = [order.index(d) for d in range(len(size))]
    out = mindtorch.empty([size[d] for d in order], dtype=dtype, device=device).permute(inverse)
    return out.requires_grad_() if requires_grad else out


def from_file(filename, shared=None, size=0, *, dtype=None, layout=None, device=None, pin_memory=False):
    """A 1-D cpu tensor of `size` elements mapped from a file: with `shared`, writes reach the file (created
    or grown to the size when needed); otherwise the mapping is private, copy-on-write."""
    from ._dtype import get_default_dtype
    from ._storage import map_file
    from ._tensor import make_tensor

    dtype = get_default_dtype() if dtype is None else dtype
    storage = map_file(filename, bool(shared), size * dtype.itemsize)
    t = make_tensor(storage, (size,), (1,), 0, dtype, storage.device)
    return t if device is None else t.to(device)


def is_distributed(input):
    """Always False: no tensor is spread over processes."""
    return input.is_distributed()


def prelu(input, weight):
    from .nn.functional import prelu as _prelu

    return _prelu(input, weight)


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    from .func import vmap as _vmap

    return _vmap(func, in_dims, out_dims, randomness, chunk_size=chunk_size)


def _copy_of(view_name):
    def fn(input, *args, out=None, **kwargs):
        from . import ops

        if view_name == "split_with_sizes":
            res = input.split(*args, **kwargs)
        elif view_name in ("detach", "t", "split"):
            res = getattr(input, view_name)(*args, **kwargs)
        else:
            res = getattr(ops, view_name)(input, *args, **kwargs)
        res = tuple(r.clone() for r in res) if isinstance(res, (tuple, list)) else res.clone()
        return res if out is None else out.resize_(res.shape).copy_(res)

    fn.__name__ = view_name + "_copy"
    fn.__doc__ = f"{view_name}, materialized as a new tensor instead of a view."
    return fn


for _n in (
    "alias",
    "as_strided",
    "detach",
    "diagonal",
    "expand",
    "narrow",
    "permute",
    "select",
    "slice",
    "split",
    "split_with_sizes",
    "squeeze",
    "t",
    "transpose",
    "unbind",
    "unfold",
    "unsqueeze",
    "view",
    "view_as_real",
    "view_as_complex",
):
    globals()[_n + "_copy"] = _copy_of(_n)
