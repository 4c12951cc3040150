"""Tensors from Python data and NumPy arrays (host data, then the device's copy-in)."""
import numbers

import numpy as np

from . import _dtype as D
from ._device import as_device, default_device
from ._tensor import Tensor

_NP_NAMES = {d.name: d for d in D.ALL}
_NP_NAMES["bool"] = D.bool_


def dtype_from_numpy(npdt):
    d = _NP_NAMES.get(np.dtype(npdt).name)
    if d is None:
        raise TypeError(f"can't convert np.ndarray of type {np.dtype(npdt)}. The only supported types are: "
                        "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint8, and bool.")
    return d


def numpy_dtype(d):
    """The host NumPy dtype used to carry `d` (bfloat16 travels as its uint16 bits)."""
    return np.dtype("uint16") if d is D.bfloat16 else np.dtype(d.name)


def float_to_bf16_bits(a):
    a = np.ascontiguousarray(a, dtype=np.float32)
    bits = a.view(np.uint32)
    rounded = bits + (0x7FFF + ((bits >> 16) & 1))
    out = (rounded >> 16).astype(np.uint16)
    nan = np.isnan(a)
    if nan.any():
        out[nan] = 0x7FC0
    return out


def bf16_bits_to_float(bits):
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


def host_values(t):
    """A NumPy array of t's values for Python-side use (bfloat16 widened to float32)."""
    from .plugins.registry import backend_for
    a = backend_for(t.device.type).to_host(t)
    if t.dtype is D.bfloat16:
        a = bf16_bits_to_float(a.view(np.uint16) if a.dtype != np.uint16 else a)
    return a


def _infer(data):
    """Host array and dtype for Python data, following torch.tensor's inference."""
    if isinstance(data, np.ndarray):
        return data, dtype_from_numpy(data.dtype)
    if isinstance(data, np.generic):
        return np.asarray(data), dtype_from_numpy(data.dtype)
    if isinstance(data, Tensor):
        return host_values(data), data.dtype
    if isinstance(data, (list, tuple)):
        flat = _flatten(data)
        kinds = set()
        for v in flat:
            if isinstance(v, Tensor):
                kinds.add(v.dtype)
            elif isinstance(v, (bool, np.bool_)):
                kinds.add(D.bool_)
            elif isinstance(v, numbers.Integral):
                kinds.add(D.int64)
            elif isinstance(v, numbers.Real):
                kinds.add(D.float64 if isinstance(v, np.floating) and v.dtype == np.float64 and False else "float")
            elif isinstance(v, numbers.Complex):
                kinds.add("complex")
            else:
                raise TypeError(f"new(): invalid data type '{type(v).__name__}'")
        dtype = _infer_from_kinds(kinds)
        values = _to_nested(data)
        arr = np.array(values, dtype=numpy_dtype(dtype) if dtype is not D.bfloat16 else np.float32)
        return arr, dtype
    if isinstance(data, (bool, np.bool_)):
        return np.asarray(data, dtype=np.bool_), D.bool_
    if isinstance(data, numbers.Integral):
        return np.asarray(int(data), dtype=np.int64), D.int64
    if isinstance(data, numbers.Real):
        d = D.get_default_dtype()
        return np.asarray(float(data), dtype=np.float64), d
    if isinstance(data, numbers.Complex):
        d = D.complex128 if D.get_default_dtype() is D.float64 else D.complex64
        return np.asarray(complex(data)), d
    raise TypeError(f"new(): invalid data type '{type(data).__name__}'")


def _infer_from_kinds(kinds):
    dtype = None
    for k in kinds:
        if k == "float":
            k = D.get_default_dtype()
        elif k == "complex":
            k = D.complex128 if D.get_default_dtype() is D.float64 else D.complex64
        dtype = k if dtype is None else D.promote_types(dtype, k)
    return dtype or D.get_default_dtype()


def _flatten(data):
    out = []
    stack = [data]
    while stack:
        x = stack.pop()
        if isinstance(x, (list, tuple)):
            stack.extend(x)
        elif isinstance(x, np.ndarray):
            out.extend(x.reshape(-1)[:1].tolist() if x.size else [])
            if x.size:
                out[-1] = np.asarray(x.reshape(-1)[0])[()]
        elif isinstance(x, Tensor) and x._shape:
            out.append(x.reshape(-1)[0])
        else:
            out.append(x)
    return out


def _to_nested(data):
    if isinstance(data, (list, tuple)):
        return [_to_nested(x) for x in data]
    if isinstance(data, Tensor):
        return host_values(data).tolist()
    if isinstance(data, np.ndarray):
        return data.tolist()
    return data


def to_host_array(arr, dtype):
    """Cast a host array to the carrier dtype of `dtype`."""
    if dtype is D.bfloat16:
        if arr.dtype == np.uint16:
            return arr
        return float_to_bf16_bits(arr.astype(np.float32))
    target = numpy_dtype(dtype)
    if arr.dtype != target:
        if dtype._kind < 2 and arr.dtype.kind == "f":
            arr = np.trunc(arr)
        arr = arr.astype(target)
    return np.ascontiguousarray(arr)


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    from .ops.argparse_ import is_dtype, dtype as to_dtype
    from .plugins.registry import backend_for
    if dtype is not None:
        if not is_dtype(dtype):
            raise TypeError(f"tensor(): argument 'dtype' must be torch.dtype, not {type(dtype).__name__}")
        dtype = to_dtype(dtype)
    dev = as_device(device) or (data.device if isinstance(data, Tensor) else default_device())
    arr, inferred = _infer(data)
    dtype = dtype or inferred
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
    from .plugins.registry import backend_for
    cpu = backend_for("cpu")
    return cpu.copy.share_numpy(arr, dtype_from_numpy(arr.dtype))


def legacy_tensor_new(cls, *args, **kwargs):
    """torch.Tensor(2, 3) / torch.Tensor([1, 2]): float32 tensors (the legacy constructor)."""
    device = kwargs.pop("device", None)
    if kwargs:
        raise TypeError(f"Tensor() got unexpected keyword arguments {list(kwargs)}")
    if len(args) == 1 and not isinstance(args[0], int):
        t = tensor(args[0], dtype=D.get_default_dtype(), device=device)
    else:
        from . import empty
        t = empty(args, device=device)
    return t
