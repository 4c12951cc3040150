"""Names older PyTorch code still uses: typed tensor classes (torch.FloatTensor, ...), layouts and
memory formats."""
from . import _dtype as D


class layout:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "torch." + self.name

    def __reduce__(self):
        return (_layout_by_name, (self.name,))


class memory_format:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "torch." + self.name

    def __reduce__(self):
        return (_format_by_name, (self.name,))


LAYOUTS = {n: layout(n) for n in ("strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc",
                                   "_mkldnn", "jagged")}
FORMATS = {n: memory_format(n) for n in ("contiguous_format", "preserve_format", "channels_last",
                                         "channels_last_3d")}


def _layout_by_name(name):
    return LAYOUTS[name]


def _format_by_name(name):
    return FORMATS[name]


class _TypedTensorMeta(type):
    """isinstance(t, torch.FloatTensor) is True for a cpu tensor of that dtype, as in PyTorch."""

    def __instancecheck__(cls, obj):
        from ._tensor import Tensor
        return isinstance(obj, Tensor) and obj.dtype is cls.dtype and obj.device.type == "cpu"


def _typed_new(cls, *args, device=None):
    import mindtorch
    if len(args) == 1 and not isinstance(args[0], int) and not isinstance(args[0], mindtorch.Size):
        data = args[0]
        if isinstance(data, mindtorch.Tensor):
            return data.to(cls.dtype)
        return mindtorch.tensor(data, dtype=cls.dtype, device=device)
    sizes = tuple(args[0]) if len(args) == 1 and isinstance(args[0], mindtorch.Size) else args
    return mindtorch.empty(sizes if sizes else (0,), dtype=cls.dtype, device=device)


TYPED = {}
for _name, _dt in (("FloatTensor", D.float32), ("DoubleTensor", D.float64), ("HalfTensor", D.float16),
                   ("BFloat16Tensor", D.bfloat16), ("ByteTensor", D.uint8), ("CharTensor", D.int8),
                   ("ShortTensor", D.int16), ("IntTensor", D.int32), ("LongTensor", D.int64),
                   ("BoolTensor", D.bool_)):
    TYPED[_name] = _TypedTensorMeta(_name, (), {"dtype": _dt, "__new__": _typed_new, "__module__": "torch"})
