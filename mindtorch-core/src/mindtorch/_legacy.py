"""Names older PyTorch code still uses: typed tensor classes (torch.FloatTensor, ...), layouts and
memory formats, and Tensor.storage()'s typed view (attached here with Tensor.layout)."""

import warnings

from . import _dtype as D
from ._tensor import Tensor, make_tensor


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


LAYOUTS = {
    n: layout(n)
    for n in ("strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc", "_mkldnn", "jagged")
}
FORMATS = {n: memory_format(n) for n in ("contiguous_format", "preserve_format", "channels_last", "channels_last_3d")}


def _layout_by_name(name):
    return LAYOUTS[name]


def _format_by_name(name):
    return FORMATS[name]


class _TypedTensorMeta(type):
    """isinstance(t, torch.FloatTensor) is True for a cpu tensor of that dtype, as in PyTorch."""

    def __instancecheck__(cls, obj):
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
for _name, _dt in (
    ("FloatTensor", D.float32),
    ("DoubleTensor", D.float64),
    ("HalfTensor", D.float16),
    ("BFloat16Tensor", D.bfloat16),
    ("ByteTensor", D.uint8),
    ("CharTensor", D.int8),
    ("ShortTensor", D.int16),
    ("IntTensor", D.int32),
    ("LongTensor", D.int64),
    ("BoolTensor", D.bool_),
):
    TYPED[_name] = _TypedTensorMeta(_name, (), {"dtype": _dt, "__new__": _typed_new, "__module__": "torch"})


class TypedStorage:
    """Tensor.storage(): the tensor's storage seen as elements of its dtype (PyTorch's deprecated
    TypedStorage view over the UntypedStorage)."""

    def __init__(self, untyped, dtype):
        self._untyped, self.dtype = untyped, dtype

    @property
    def device(self):
        return self._untyped.device

    def untyped(self):
        return self._untyped

    def element_size(self):
        return self.dtype.itemsize

    def size(self):
        return int(self._untyped.nbytes) // self.dtype.itemsize

    def __len__(self):
        return self.size()

    def nbytes(self):
        return int(self._untyped.nbytes)

    def data_ptr(self):
        return self._untyped.data_ptr()

    def is_shared(self):
        return False

    def tolist(self):
        return _elements(self)

    def __getitem__(self, i):
        return _elements(self)[i]

    def __repr__(self):
        return f"{_elements(self)}\n[{type(self).__name__}(dtype={self.dtype}, device={self.device}) of size {self.size()}]"


def _elements(ts):
    """The storage's elements as Python numbers (through a flat tensor over the whole storage)."""
    return make_tensor(ts._untyped, (ts.size(),), (1,), 0, ts.dtype, ts.device).tolist()


def _storage(self):
    """The storage as elements of this tensor's dtype (PyTorch's TypedStorage, deprecated there too)."""
    warnings.warn(
        "TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the "
        "only storage class. This should only matter to you if you are using storages directly.  To "
        "access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()",
        UserWarning,
        stacklevel=2,
    )
    return TypedStorage(self._storage, self.dtype)


Tensor.layout = property(lambda self: LAYOUTS["strided"])  # every mindtorch tensor is strided
# nor sparse, quantized, nested or MKL-DNN; and none lives on a device type mindtorch has no backend for
for _flag in (
    "is_sparse",
    "is_sparse_csr",
    "is_quantized",
    "is_nested",
    "is_mkldnn",
    "is_xpu",
    "is_mps",
    "is_ipu",
    "is_xla",
    "is_vulkan",
    "is_maia",
    "is_mtia",
):
    setattr(Tensor, _flag, property(lambda self: False))
Tensor.storage = _storage
