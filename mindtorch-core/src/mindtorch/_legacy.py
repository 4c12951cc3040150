"""Names older PyTorch code still uses: typed tensor classes (torch.FloatTensor, ...), layouts and
memory formats, and Tensor.storage()'s typed view (attached here with Tensor.layout)."""

import warnings

from . import _dtype as D
from ._storage import map_file
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
    """A storage seen as elements of one dtype (PyTorch's deprecated TypedStorage over an
    UntypedStorage): Tensor.storage(), and what the legacy classes (torch.FloatStorage, ...) make.

    TypedStorage(size | sequence, *, dtype, device), TypedStorage(*, wrap_storage, dtype)."""

    is_sparse = False

    def __init__(self, *args, wrap_storage=None, dtype=None, device=None, _internal=False):
        if not _internal:
            _warn_typed_storage()
        self.dtype = D.get_default_dtype() if dtype is None else dtype
        if wrap_storage is not None:
            if args or device is not None:
                raise RuntimeError(_bad_args(type(self).__name__ + ".__init__", legacy=False))
            self._untyped = wrap_storage
            return
        if len(args) > 1 or (args and not _is_size(args[0]) and not _is_sequence(args[0])):
            raise TypeError(
                _bad_args(type(self).__name__ + ".__init__", legacy=False)
                + f"\nArgument type not recognized: {type(args[0])}"
            )
        self._untyped = _new_block(args[0] if args else 0, self.dtype, device)

    @classmethod
    def from_file(cls, filename, shared=False, size=0):
        """`size` elements of the default dtype (of a legacy class's dtype) mapped from `filename`."""
        dtype = getattr(cls, "_legacy_dtype", None)
        if dtype is None:
            raise RuntimeError("from_file can only be called on derived classes")
        return TypedStorage(wrap_storage=map_file(filename, shared, size * dtype.itemsize), dtype=dtype, _internal=True)

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
        return self._untyped.is_shared()

    def share_memory_(self):
        self._untyped.share_memory_()
        return self

    def resizable(self):
        return not self._untyped.is_shared()

    def get_device(self):
        return -1 if self.device.type == "cpu" else (self.device.index or 0)

    def type(self, dtype=None, non_blocking=False):
        if dtype is None:
            return "torch." + LEGACY_STORAGE_NAMES[self.dtype]
        return self._to(TYPED_STORAGE_BY_NAME[dtype.rsplit(".", 1)[-1]].dtype if isinstance(dtype, str) else dtype)

    def tolist(self):
        return _flat(self).tolist()

    def __getitem__(self, i):
        return _flat(self)[self._index(i)].item()

    def __setitem__(self, i, value):
        _flat(self)[self._index(i)] = value

    def _index(self, i):
        if isinstance(i, slice):
            raise RuntimeError("slices are only supported in UntypedStorage.__getitem__")
        n = self.size()
        if not -n <= i < n:
            raise IndexError(f"index {i} out of range for storage of size {n}")
        return i % n

    def fill_(self, value):
        _flat(self).fill_(value)
        return self

    def copy_(self, source, non_blocking=None):
        _flat(self).copy_(_flat(source))
        return self

    def clone(self):
        return TypedStorage(wrap_storage=_flat(self).clone().untyped_storage(), dtype=self.dtype, _internal=True)

    def cpu(self):
        return self if self.device.type == "cpu" else self._to(self.dtype, "cpu")

    def _to(self, dtype, device=None):
        t = _flat(self).to(dtype=dtype, device=device or self.device, copy=True)
        return TypedStorage(wrap_storage=t.untyped_storage(), dtype=dtype, _internal=True)

    def __eq__(self, other):
        return self is other

    __hash__ = object.__hash__

    def __repr__(self):
        body = "\n".join(f" {v}" for v in self.tolist())
        return f"{body}\n[torch.storage.TypedStorage(dtype={self.dtype}, device={self.device}) of size {self.size()}]"


for _conv, _dt in (
    ("double", D.float64),
    ("float", D.float32),
    ("half", D.float16),
    ("bfloat16", D.bfloat16),
    ("long", D.int64),
    ("int", D.int32),
    ("short", D.int16),
    ("char", D.int8),
    ("byte", D.uint8),
    ("bool", D.bool_),
    ("complex_double", D.complex128),
    ("complex_float", D.complex64),
):
    setattr(TypedStorage, _conv, lambda self, _dt=_dt: self._to(_dt))


def _is_size(x):
    return isinstance(x, int) and not isinstance(x, bool)


def _is_sequence(x):
    return isinstance(x, (list, tuple))


def _bad_args(where, legacy):
    extra = "" if legacy else ", torch.device device, torch.dtype dtype"
    kw = "(*, UntypedStorage wrap_storage)" if legacy else "(*, UntypedStorage wrap_storage, torch.dtype dtype)"
    return (
        f"{where} received an invalid combination of arguments. Expected one of:\n"
        f" * {'no arguments' if legacy else '(*' + extra[1:] + ')'}\n"
        f" * (int size{extra.replace(',', ', *,', 1)})\n"
        f" * (Sequence data{extra.replace(',', ', *,', 1)})\n"
        f" * {kw}"
    )


def _new_block(size_or_data, dtype, device):
    """The UntypedStorage of `size` fresh elements, or of the elements of a sequence."""
    import mindtorch

    if _is_size(size_or_data):
        return mindtorch.empty(size_or_data, dtype=dtype, device=device).untyped_storage()
    return mindtorch.tensor(size_or_data, dtype=dtype, device=device).untyped_storage()


def _flat(ts):
    """A flat tensor over the whole storage, in the storage's dtype."""
    return make_tensor(ts._untyped, (ts.size(),), (1,), 0, ts.dtype, ts.device)


def _warn_typed_storage():
    warnings.warn(
        "TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the "
        "only storage class. This should only matter to you if you are using storages directly.  To "
        "access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()",
        UserWarning,
        stacklevel=3,
    )


class _LegacyStorageMeta(type):
    """torch.FloatStorage, ...: calling one makes a TypedStorage of its dtype, and a cpu TypedStorage
    of that dtype is an instance of it, as in PyTorch."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, TypedStorage) and obj.dtype is cls.dtype and obj.device.type == "cpu"

    @property
    def dtype(cls):
        return cls._legacy_dtype


def _legacy_new(cls, *args, wrap_storage=None, **kwargs):
    if kwargs:
        name = next(iter(kwargs))
        raise RuntimeError(
            _bad_args(f"<class 'torch.{cls.__name__}'>.__new__", legacy=True)
            + f"\nKeyword argument '{name}' cannot be specified"
        )
    if len(args) > 1 or (args and not _is_size(args[0]) and not _is_sequence(args[0])):
        raise TypeError(
            _bad_args(f"<class 'torch.{cls.__name__}'>.__new__", legacy=True)
            + f"\nArgument type not recognized: {type(args[0])}"
        )
    _warn_typed_storage()
    if wrap_storage is not None:
        return TypedStorage(wrap_storage=wrap_storage, dtype=cls.dtype, _internal=True)
    return TypedStorage(
        wrap_storage=_new_block(args[0] if args else 0, cls.dtype, None), dtype=cls.dtype, _internal=True
    )


LEGACY_STORAGE_NAMES = {
    D.float32: "FloatStorage",
    D.float64: "DoubleStorage",
    D.float16: "HalfStorage",
    D.bfloat16: "BFloat16Storage",
    D.int64: "LongStorage",
    D.int32: "IntStorage",
    D.int16: "ShortStorage",
    D.int8: "CharStorage",
    D.uint8: "ByteStorage",
    D.bool_: "BoolStorage",
    D.complex64: "ComplexFloatStorage",
    D.complex128: "ComplexDoubleStorage",
}
TYPED_STORAGE_BY_NAME = {
    _name: _LegacyStorageMeta(
        _name,
        (TypedStorage,),
        {"_legacy_dtype": _dt, "__new__": _legacy_new, "__module__": "torch"},
    )
    for _dt, _name in LEGACY_STORAGE_NAMES.items()
}


def _storage(self):
    """The storage as elements of this tensor's dtype (PyTorch's TypedStorage, deprecated there too)."""
    _warn_typed_storage()
    return TypedStorage(wrap_storage=self._storage, dtype=self.dtype, _internal=True)


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


# --- legacy and rarely used Tensor methods ---------------------------------------------------------
def _new(self, *args, device=None, **kwargs):
    """Tensor.new: PyTorch's legacy constructor, in self's dtype (and device unless given): new() empty,
    new(*sizes) / new(Size) uninitialised, new(sequence) from data, new(tensor) an alias of it,
    new(storage) over it."""
    import mindtorch

    if kwargs:
        raise TypeError(
            f"new() received an invalid combination of arguments - got unexpected keyword {next(iter(kwargs))}"
        )
    device = self.device if device is None else device
    if len(args) == 1 and not isinstance(args[0], int):
        arg = args[0]
        if isinstance(arg, Tensor):
            if arg.dtype is not self.dtype:
                raise TypeError(f"expected {D._cname(self.dtype)} tensor (got {D._cname(arg.dtype)} tensor)")
            return mindtorch.alias(arg)
        if isinstance(arg, mindtorch.Size):
            return mindtorch.empty(tuple(arg), dtype=self.dtype, device=device)
        if isinstance(arg, (TypedStorage, mindtorch.UntypedStorage)):
            return mindtorch.empty(0, dtype=self.dtype, device=device).set_(arg)
        if not isinstance(arg, (list, tuple)):
            raise TypeError(f"new(): data must be a sequence (got {type(arg).__name__})")
        return mindtorch.tensor(arg, dtype=self.dtype, device=device)
    return mindtorch.empty(args if args else (0,), dtype=self.dtype, device=device)


def _as_subclass(self, cls):
    """A `cls` instance over self's data, on self's autograd history (an alias)."""
    import mindtorch

    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError(
            "Creating a Tensor subclass from a class that does not inherit from Tensor is not possible. "
            "Make sure your class inherits from Tensor."
        )
    out = mindtorch.alias(self)
    if cls is not Tensor:
        out.__class__ = cls
    return out


def _storage_type(self):
    _warn_typed_storage()
    return TYPED_STORAGE_BY_NAME[LEGACY_STORAGE_NAMES[self.dtype]]


def _volatile(self):
    warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning, stacklevel=2)
    return False


def _reinforce(self, reward):
    raise RuntimeError(
        "reinforce() was removed.\nUse torch.distributions instead.\n"
        "See https://pytorch.org/docs/main/distributions.html\n\nInstead of:\n\n"
        "probs = policy_network(state)\naction = probs.multinomial()\n"
        "next_state, reward = env.step(action)\naction.reinforce(reward)\naction.backward()\n\nUse:\n\n"
        "probs = policy_network(state)\n# NOTE: categorical is equivalent to what used to be called multinomial\n"
        "m = torch.distributions.Categorical(probs)\naction = m.sample()\nnext_state, reward = env.step(action)\n"
        "loss = -m.log_prob(action) * reward\nloss.backward()\n"
    )


def _module_load(self, other, assign=False):
    """How load_state_dict turns a state-dict value into this parameter's new value when parameters
    are swapped: the value itself with `assign`, else self's data overwritten with it."""
    return other.detach() if assign else self.copy_(other).detach()


def _resize_copy(self, *sizes):
    """Tensor.resize (deprecated): a tensor of the same elements in another shape."""
    warnings.warn("non-inplace resize is deprecated", UserWarning, stacklevel=2)
    return _reshaped_alike(self, sizes)


def _resize_as_copy(self, tensor):
    warnings.warn("non-inplace resize_as is deprecated", UserWarning, stacklevel=2)
    return _reshaped_alike(self, tuple(tensor.shape))


def _reshaped_alike(self, sizes):
    n = 1
    for s in sizes:
        n *= s
    if n != self.numel():
        raise RuntimeError(
            f"requested resize to {'x'.join(map(str, sizes))} ({n} elements in total), but the given tensor has "
            f"a size of {'x'.join(map(str, self.shape))} ({self.numel()} elements). autograd's resize can only "
            "change the shape of a given tensor, while preserving the number of elements. "
        )
    return self.contiguous().view(sizes)


def _elementwise_python(name, self, others, fn):
    """apply_/map_/map2_: self's elements replaced by fn(self's element, the others' elements), the
    others broadcast to self's shape; cpu tensors only, outside autograd, as in PyTorch."""
    import mindtorch

    if self.device.type != "cpu":
        raise TypeError(f"{name} is only implemented on CPU tensors")
    if self._requires_grad:
        raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use var.detach().{name}() instead.")
    for other in others:
        if other.dtype is not self.dtype:
            raise TypeError(
                f"{name}: expected {D.tensor_type_name(self.dtype)} for 'other' (got {D.tensor_type_name(other.dtype)})"
            )
    columns = [self.flatten().tolist()] + [o.expand(self.shape).flatten().tolist() for o in others]
    values = [fn(*vals) for vals in zip(*columns)]
    with mindtorch.no_grad():
        self.copy_(mindtorch.tensor(values, dtype=self.dtype).reshape(self.shape))
    return self


def _apply_(self, callable):
    return _elementwise_python("apply_", self, (), callable)


def _map_(self, tensor, callable):
    return _elementwise_python("map_", self, (tensor,), callable)


def _map2_(self, x, y, callable):
    return _elementwise_python("map2_", self, (x, y), callable)


def _float_power_(self, exponent):
    """In place: float_power's result is double (complex double), so self must already be."""
    import mindtorch

    wanted = D.complex128 if self.dtype.is_complex or getattr(exponent, "dtype", D.float64).is_complex else D.float64
    if isinstance(exponent, complex):
        wanted = D.complex128
    if self.dtype is not wanted:
        raise RuntimeError(
            f"the base given to float_power_ has dtype {D._cname(self.dtype)} but the operation's result "
            f"requires dtype {D._cname(wanted)}"
        )
    # float_power saves its base for backward, and the copy_ overwrites self: it works on a clone then
    base = self.clone() if self._requires_grad and mindtorch.is_grad_enabled() else self
    return self.copy_(mindtorch.float_power(base, exponent))


def _prelu(self, weight):
    import mindtorch

    return mindtorch.prelu(self, weight)


Tensor.new = _new
Tensor.as_subclass = _as_subclass
Tensor.storage_type = _storage_type
Tensor.const_data_ptr = Tensor.data_ptr
Tensor.is_distributed = lambda self: False  # no tensor is spread over processes (THD's tensors are gone)
Tensor.name = None  # named tensors are not supported: every tensor's name is None, as an unnamed one's
Tensor.volatile = property(_volatile)
Tensor.reinforce = _reinforce
Tensor.module_load = _module_load
Tensor.resize = _resize_copy
Tensor.resize_as = _resize_as_copy
Tensor.apply_ = _apply_
Tensor.map_ = _map_
Tensor.map2_ = _map2_
Tensor.float_power_ = _float_power_
Tensor.prelu = _prelu
