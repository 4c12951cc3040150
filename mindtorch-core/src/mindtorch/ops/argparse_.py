"""Argument checks and conversions used by the generated API functions.

Errors follow PyTorch's Python argument parser: a wrong type is a
TypeError naming the function, the argument and its position.
"""

import numbers
import operator

from .. import _dtype as D
from .._device import device as _device_cls
from .._tensor import Tensor

NUMS = frozenset((int, float, bool, complex))


def type_name(v):
    if isinstance(v, Tensor):
        return "Tensor"
    if isinstance(v, (tuple, list)):
        return f"{type(v).__name__} of [{', '.join(type_name(x) for x in v)}]" if len(v) < 5 else type(v).__name__
    return type(v).__name__


def arg_error(fname, pname, pos, value, expected):
    """One signature's refusal: names the value's own type (`list`), as PyTorch's parser does; the element
    types (`list of [float]`) are only in its message for several signatures. A list of tensors with
    something else in it is refused for that element, as PyTorch's parser does."""
    if expected == "tuple of Tensors" and isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            if not isinstance(v, Tensor):
                return TypeError(f"expected Tensor as element {i} in argument {pos - 1}, but got {_c_name(type(v))}")
    return TypeError(f"{fname}(): argument '{pname}' (position {pos}) must be {expected}, not {type(value).__name__}")


def _c_name(tp):
    """A type's name as its C struct has it (PyTorch's messages print tp_name): `numpy.ndarray`, `int`."""
    if tp.__flags__ & (1 << 9) or tp.__module__ == "builtins":  # a class made in Python: its bare name
        return tp.__name__
    return f"{tp.__module__}.{tp.__name__}"


def is_num(v):
    return isinstance(v, numbers.Number) and not isinstance(v, Tensor)


def is_scalar(v):
    # a tensor that requires grad never reads as a number: its gradient would be lost
    return is_num(v) or (isinstance(v, Tensor) and v.numel() == 1 and v.device.type != "meta" and not v.requires_grad)


def scalar(v):
    return v.item() if isinstance(v, Tensor) else (v if v.__class__ in NUMS else _np_scalar(v))


def _np_scalar(v):
    if isinstance(v, bool) or type(v).__name__ == "bool_":
        return bool(v)
    if isinstance(v, numbers.Integral):
        return int(v)
    if isinstance(v, numbers.Real):
        return float(v)
    return complex(v)


def is_int(v):
    if v.__class__ is int:
        return True
    if is_bool(v):  # PyTorch's parser takes no bool where it wants an int (x.sum(True) is an error)
        return False
    if isinstance(v, Tensor):
        return not (v.dtype.is_floating_point or v.dtype.is_complex) and v.numel() == 1
    if isinstance(v, float):
        return False
    return hasattr(v, "__index__")


def index(v):
    return v if v.__class__ is int else operator.index(v)


def is_intlist(v):
    if v.__class__ is tuple or v.__class__ is list or isinstance(v, (tuple, list)):
        for x in v:  # noqa: SIM110  (a plain loop: all() over a generator costs twice as much here)
            if x.__class__ is not int and not is_int(x):
                return False
        return True
    return is_int(v)


def _int_tuple(v):
    """Whether v is a tuple of plain ints (what the conversions hand back as it is)."""
    if v.__class__ is not tuple:
        return False
    for x in v:  # noqa: SIM110  (a plain loop: all() over a generator costs twice as much here)
        if x.__class__ is not int:
            return False
    return True


def intlist(v):
    if _int_tuple(v):
        return v
    if isinstance(v, (tuple, list)):
        return tuple(index(x) for x in v)
    return (index(v),)


def as_intlist(v):
    """intlist(v) when is_intlist(v), else None: the check and the conversion in one pass."""
    if _int_tuple(v):
        return v
    return intlist(v) if is_intlist(v) else None


def is_float(v):
    return (
        isinstance(v, (int, float))
        or (isinstance(v, numbers.Real) and not isinstance(v, Tensor))
        or (isinstance(v, Tensor) and v.numel() == 1)
    )


def is_bool(v):
    return v.__class__ is bool or type(v).__name__ == "bool_"


def is_tensor_list(v):
    if v.__class__ is list or v.__class__ is tuple or isinstance(v, (tuple, list)):
        for t in v:  # noqa: SIM110  (a plain loop: all() over a generator costs twice as much here)
            if t.__class__ is not Tensor and not isinstance(t, Tensor):
                return False
        return True
    return False


def is_opt_tensor_list(v):
    return isinstance(v, (tuple, list)) and all(t is None or isinstance(t, Tensor) for t in v)


_PY_TYPES = D.PY_TYPES


def is_dtype(v):
    return isinstance(v, D.dtype) or v in _PY_TYPES


def dtype(v):
    return v if isinstance(v, D.dtype) else _PY_TYPES[v]


def is_device(v):
    return isinstance(v, (_device_cls, str)) or (isinstance(v, int) and not isinstance(v, bool))


def to_device(v):
    if v.__class__ is _device_cls:
        return v
    if isinstance(v, int):
        raise RuntimeError("a bare device index is ambiguous; pass a device such as 'npu:0'")
    return _device_cls(v)


def is_generator(v):
    from .._generator import Generator

    return isinstance(v, Generator)


def is_str(v):
    return isinstance(v, str)


# base type -> (check template, conversion template or None, name in messages)
CHECKS = {
    "Tensor": ("{n}.__class__ is Tensor or isinstance({n}, Tensor)", None, "Tensor"),
    "Scalar": (
        "{n}.__class__ in _h_NUMS or _h_is_scalar({n})",
        "{n} if {n}.__class__ in _h_NUMS else _h_scalar({n})",
        "Number",
    ),
    "int": ("{n}.__class__ is int or _h_is_int({n})", "_h_index({n})", "int"),
    "SymInt": ("{n}.__class__ is int or _h_is_int({n})", "_h_index({n})", "int"),
    "float": ("_h_is_float({n})", "float({n})", "float"),
    "bool": ("_h_is_bool({n})", "bool({n})", "bool"),
    "str": ("_h_is_str({n})", None, "str"),
    "ScalarType": ("_h_is_dtype({n})", "_h_dtype({n})", "torch.dtype"),
    "Device": ("_h_is_device({n})", "_h_to_device({n})", "torch.device"),
    "Generator": ("_h_is_generator({n})", None, "torch.Generator"),
    "Layout": ("True", None, "torch.layout"),
    "MemoryFormat": ("True", None, "torch.memory_format"),
}
LIST_CHECKS = {
    "int": ("_h_is_intlist({n})", "_h_intlist({n})", "tuple of ints"),
    "SymInt": ("_h_is_intlist({n})", "_h_intlist({n})", "tuple of ints"),
    "Tensor": ("_h_is_tensor_list({n})", "tuple({n})", "tuple of Tensors"),
    "Tensor?": ("_h_is_opt_tensor_list({n})", "tuple({n})", "tuple of Tensors"),
    "float": ("isinstance({n}, (tuple, list))", "tuple(float(x) for x in {n})", "tuple of floats"),
    "bool": ("isinstance({n}, (tuple, list))", "tuple(bool(x) for x in {n})", "tuple of bools"),
    "Scalar": (
        "isinstance({n}, (tuple, list)) and all(x.__class__ in _h_NUMS or _h_is_scalar(x) for x in {n})",
        "tuple(x if x.__class__ in _h_NUMS else _h_scalar(x) for x in {n})",
        "tuple of Scalars",
    ),
}
