"""Tensors from Python data and NumPy arrays (host data, then the device's copy-in)."""

import numbers

import numpy as np

from . import _dtype as D
from ._device import as_device, default_device
from ._host_data import float_to_bf16_bits, host_values, numpy_dtype
from ._tensor import Tensor

_NP_NAMES = {d.name: d for d in D.ALL + D.WIDE_UINTS}
_NP_NAMES["bool"] = D.bool_


def dtype_from_numpy(npdt):
    d = _NP_NAMES.get(np.dtype(npdt).name)
    if d is None:
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{np.dtype(npdt).type.__name__}. The only supported types are: "
            "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint64, uint32, uint16, "
            "uint8, and bool."
        )
    return d


def _complex_default():
    return D.complex128 if D.get_default_dtype() is D.float64 else D.complex64


def _type_dtype(cls):
    """The dtype one Python/NumPy scalar type contributes to torch.tensor's inference."""
    if cls is bool:
        return D.bool_
    if cls is int:
        return D.int64
    if cls is float:
        return D.get_default_dtype()
    if cls is complex:
        return _complex_default()
    if issubclass(cls, np.generic):
        return dtype_from_numpy(np.dtype(cls))
    if issubclass(cls, bool):
        return D.bool_
    if issubclass(cls, numbers.Integral):
        return D.int64
    if issubclass(cls, numbers.Real):
        return D.get_default_dtype()
    if issubclass(cls, numbers.Complex):
        return _complex_default()
    raise TypeError(f"new(): invalid data type '{cls.__name__}'")


def _is_seq(x):
    return isinstance(x, (list, tuple)) or (isinstance(x, np.ndarray) and x.ndim > 0)


def _scan(seq, dim, shape, leaves):
    """Collect the leaves of a nested sequence, checking it is rectangular."""
    n = len(seq)
    if len(shape) == dim:
        shape.append(n)
    elif shape[dim] != n:
        raise ValueError(f"expected sequence of length {shape[dim]} at dim {dim} (got {n})")
    if n == 0:
        return
    deeper = len(shape) > dim + 1 or _is_seq(seq[0])
    for x in seq:
        if _is_seq(x):
            if not deeper:
                raise TypeError(f"new(): invalid data type '{type(x).__name__}'")
            _scan(x, dim + 1, shape, leaves)
        elif deeper:
            raise TypeError("not a sequence")
        else:
            leaves.append(x)


def _leaf_value(x):
    if isinstance(x, Tensor):
        if x._shape:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return x.item()
    return x


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _infer(data, requested=None):
    """Host array and dtype for Python data, following torch.tensor's inference (integers are carried in
    the requested integer dtype when there is one, so uint64 values past int64 survive)."""
    if isinstance(data, Tensor):
        return host_values(data), data.dtype
    if isinstance(data, np.ndarray):
        return data, dtype_from_numpy(data.dtype)
    if isinstance(data, (list, tuple)):
        shape, leaves = [], []
        _scan(data, 0, shape, leaves)
        dtype = None
        for cls in set(map(type, leaves)):
            if issubclass(cls, Tensor):
                continue
            d = _type_dtype(cls)
            dtype = d if dtype is None else D.promote_types(dtype, d)
        for x in leaves:
            if isinstance(x, Tensor):
                dtype = x.dtype if dtype is None else D.promote_types(dtype, x.dtype)
        if dtype is None:
            dtype = D.get_default_dtype()
        values = [_leaf_value(x) for x in leaves] if dtype is not None else leaves
        return _host_array(values, dtype, requested).reshape(shape), dtype
    dtype = _type_dtype(type(data))
    return _host_array(data, dtype, requested), dtype


def _host_array(values, dtype, requested=None):
    """Values as a NumPy array wide enough for `dtype` (the final cast is to_host_array's); integers past
    int64 are kept when a wide unsigned dtype was asked for."""
    kind = dtype._kind
    carrier = np.float64 if kind == 2 else np.complex128 if kind == 3 else numpy_dtype(dtype)
    try:
        return np.array(values, dtype=carrier)
    except OverflowError:
        if requested is not None and requested._kind >= 2 and kind < 2:  # ints past int64 for a float dtype
            return np.array(values, dtype=np.float64 if requested._kind == 2 else np.complex128)
        if requested in D.WIDE_UINTS and kind < 2:
            try:
                return np.array(values, dtype=numpy_dtype(requested))
            except OverflowError:
                if requested is D.uint64:  # PyTorch reads uint64 data as unsigned 64-bit ints
                    raise _unsigned_overflow(values) from None
        raise ValueError("Overflow when unpacking long long") from None


def _unsigned_overflow(values):
    """The error reading `values` in order as unsigned 64-bit ints gives at the first that does not fit."""
    for v in np.array(values, dtype=object).reshape(-1):
        if v < 0:
            return OverflowError("can't convert negative int to unsigned")
        if v >= 2**64:
            break
    return OverflowError("int too big to convert")


def to_host_array(arr, dtype):
    """Cast a host array to the carrier dtype of `dtype`."""
    if dtype is D.bfloat16:
        if arr.dtype == np.uint16:
            return arr
        return float_to_bf16_bits(arr.astype(np.float32))
    target = numpy_dtype(dtype)
    if arr.dtype != target:
        if dtype._kind < 2 and arr.dtype.kind in "fc":
            arr = np.trunc(arr.real)
        arr = arr.astype(target)
    # np.ascontiguousarray would turn 0-dim arrays into 1-dim ones
    return np.require(arr, requirements="C")


def _check_int_range(arr, dtype):
    """Python values must fit an integer dtype (PyTorch lets negatives wrap into unsigned ones)."""
    if not arr.size:
        return
    info = np.iinfo(numpy_dtype(dtype))
    vals = np.trunc(arr.real) if arr.dtype.kind in "fc" else arr
    if dtype is D.uint64 and vals.min() < 0:  # the one unsigned type negatives do not wrap into
        raise OverflowError("can't convert negative int to unsigned")
    if vals.max() > info.max or (info.min < 0 and vals.min() < info.min):
        raise RuntimeError(f"value cannot be converted to type {dtype.name} without overflow")


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    from ._backends.registry import backend_for
    from .ops.argparse_ import dtype as to_dtype, is_dtype

    if dtype is not None:
        if not is_dtype(dtype):
            raise TypeError(f"tensor(): argument 'dtype' must be torch.dtype, not {type(dtype).__name__}")
        dtype = to_dtype(dtype)
    dev = as_device(device) or (data.device if isinstance(data, Tensor) else default_device())
    if isinstance(data, Tensor):
        import warnings

        warnings.warn(
            "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() "
            "or sourceTensor.detach().clone().requires_grad_(True), rather than "
            "torch.tensor(sourceTensor).",
            UserWarning,
            stacklevel=2,
        )
    arr, inferred = _infer(data, dtype)
    dtype = dtype or inferred
    if dtype._kind == 1 and not isinstance(data, (Tensor, np.ndarray)):
        _check_int_range(arr, dtype)
    if isinstance(data, Tensor) and data.dtype is D.bfloat16 and dtype is D.bfloat16:
        arr = data.detach().cpu()._host()
    host = to_host_array(arr, dtype)
    t = backend_for(dev.type).from_host(host.copy() if host is arr else host, dtype, dev)
    if requires_grad:
        t.requires_grad_(True)
    return t


def as_tensor(data, dtype=None, device=None):
    from .ops.argparse_ import dtype as to_dtype

    dtype = to_dtype(dtype) if dtype is not None else None
    dev = as_device(device)
    if isinstance(data, Tensor):
        if (dtype is None or dtype is data.dtype) and (dev is None or dev == data.device):
            return data
        return data.to(device=dev or data.device, dtype=dtype or data.dtype)
    if isinstance(data, np.ndarray) and (dev is None or dev.type == "cpu") and data.dtype.name in _NP_NAMES:
        t = from_numpy(data)
        return t if dtype is None or dtype is t.dtype else t.to(dtype)
    return tensor(data, dtype=dtype, device=dev)


def from_numpy(arr):
    if not isinstance(arr, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(arr).__name__})")
    from ._backends.registry import backend_for

    cpu = backend_for("cpu")
    return cpu.copy.share_numpy(arr, dtype_from_numpy(arr.dtype))


def legacy_tensor_new(cls, *args, **kwargs):
    """torch.Tensor(2, 3) / torch.Tensor([1, 2]): default-dtype tensors (the legacy constructor)."""
    from ._geometry import Size

    device = kwargs.pop("device", None)
    if kwargs:
        raise TypeError(f"new() got an unexpected keyword argument '{next(iter(kwargs))}'")
    if len(args) == 1 and not isinstance(args[0], Size) and not _is_int(args[0]):
        data = args[0]
        if isinstance(data, Tensor):
            return data  # PyTorch returns the very tensor, whatever its dtype
        if not (isinstance(data, (list, tuple, np.ndarray))):
            raise TypeError(f"new(): data must be a sequence (got {type(data).__name__})")
        return tensor(data, dtype=D.get_default_dtype(), device=device)
    size = tuple(args[0]) if len(args) == 1 and isinstance(args[0], Size) else args
    if not args:
        size = (0,)  # torch.Tensor() is an empty 1-D tensor
    if not all(_is_int(a) for a in size):
        raise TypeError(
            f"new() received an invalid combination of arguments - got ({', '.join(type(a).__name__ for a in args)})"
        )
    from . import empty

    return empty(tuple(int(a) for a in size), device=device)


def _is_int(v):
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def new_tensor(self, data, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    """Tensor.new_tensor: like torch.tensor, defaulting to self's dtype and device."""
    if isinstance(data, Tensor):
        import warnings

        warnings.warn(
            "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() "
            "rather than tensor.new_tensor(sourceTensor).",
            UserWarning,
            stacklevel=2,
        )
    return tensor(data, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad)


def _tensor_new(cls, *args, **kwargs):
    """Tensor(...): a subclass's own __new__ may build the instance bare; otherwise the legacy constructor."""
    if cls is not Tensor and not args and not kwargs:
        return object.__new__(cls)
    return legacy_tensor_new(cls, *args, **kwargs)


# the non-op methods this module provides (data is arbitrary Python, so they cannot be schema ops)
Tensor.__new__ = staticmethod(_tensor_new)
Tensor.new_tensor = new_tensor
