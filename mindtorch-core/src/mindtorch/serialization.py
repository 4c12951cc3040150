"""mindtorch.save / mindtorch.load in PyTorch's zip checkpoint format, with no PyTorch needed.

Files hold `<name>/data.pkl` (pickle protocol 2) plus one record per storage under
`<name>/data/<key>`; the pickle names PyTorch's globals (torch._utils._rebuild_tensor_v2,
torch.FloatStorage, ...) by module/name strings, so PyTorch loads them and we load PyTorch's.

Every failure to read a checkpoint raises `CheckpointError`, a RuntimeError (PyTorch raises
RuntimeError for a corrupt archive) that is also a `pickle.UnpicklingError` (PyTorch's class for
a refused global); its message names the file and the record. Loading never executes code from
the file (weights_only), checks each storage record's size against the element count and dtype
its pickle declares before reading it, and validates every tensor's geometry against its storage.
"""

import collections
import io
import os
import pickle
import re
import struct
import zipfile

import numpy as np

from . import _dtype as D
from ._backends.registry import backend_for
from ._legacy import TypedStorage
from ._serialization_options import (
    LoadEndianness,
    SourceChangeWarning,
    check_module_version_greater_or_equal,
    get_crc32_options,
    get_default_load_endianness,
    get_default_mmap_options,
    mkdtemp,
    set_crc32_options,
    set_default_load_endianness,
    set_default_mmap_options,
    skip_data,
    thread_settings,
)
from ._storage_locations import (
    default_restore_location,
    location_tag,
    normalize_storage_type,
    register_package,
    storage_to_tensor_type,
    validate_cuda_device,
    validate_hpu_device,
)
from ._tensor import Tensor, make_tensor

__all__ = [
    "save",
    "load",
    "reduce_tensor",
    "DEFAULT_PROTOCOL",
    "CheckpointError",
    "add_safe_globals",
    "clear_safe_globals",
    "get_safe_globals",
    "get_unsafe_globals_in_checkpoint",
    "safe_globals",
    "LoadEndianness",
    "SourceChangeWarning",
    "check_module_version_greater_or_equal",
    "default_restore_location",
    "get_crc32_options",
    "get_default_load_endianness",
    "get_default_mmap_options",
    "location_tag",
    "mkdtemp",
    "normalize_storage_type",
    "register_package",
    "set_crc32_options",
    "set_default_load_endianness",
    "set_default_mmap_options",
    "skip_data",
    "storage_to_tensor_type",
    "validate_cuda_device",
    "validate_hpu_device",
]


class CheckpointError(RuntimeError, pickle.UnpicklingError):
    """The one error mindtorch.load raises for a bad, corrupt or unsafe checkpoint."""


DEFAULT_PROTOCOL = 2
_ALIGN = 64

_STORAGE_NAMES = {
    "float32": "FloatStorage",
    "float64": "DoubleStorage",
    "float16": "HalfStorage",
    "bfloat16": "BFloat16Storage",
    "int64": "LongStorage",
    "int32": "IntStorage",
    "int16": "ShortStorage",
    "int8": "CharStorage",
    "uint8": "ByteStorage",
    "bool": "BoolStorage",
    "complex64": "ComplexFloatStorage",
    "complex128": "ComplexDoubleStorage",
}
# the wide unsigned integers have no typed storage class: PyTorch writes them over an UntypedStorage
# through _rebuild_tensor_v3, which names the dtype
_STORABLE = D.ALL + D.WIDE_UINTS
_DTYPE_BY_NAME = {d.name: d for d in _STORABLE}
_DTYPE_BY_NAME["bool"] = D.bool_
_DTYPE_BY_STORAGE = {v: _DTYPE_BY_NAME[k] for k, v in _STORAGE_NAMES.items() if k in _DTYPE_BY_NAME}


class _Global:
    """A reference to module.name written into the pickle without importing it."""

    __slots__ = ("module", "name")

    def __init__(self, module, name):
        self.module, self.name = module, name

    def __call__(self, *args):  # pickle's save_reduce insists on a callable
        raise TypeError(f"{self.module}.{self.name} is a pickle reference, not callable here")


_REBUILD_TENSOR = _Global("torch._utils", "_rebuild_tensor_v2")
_REBUILD_TENSOR_V3 = _Global("torch._utils", "_rebuild_tensor_v3")
_UNTYPED_STORAGE = _Global("torch.storage", "UntypedStorage")
_REBUILD_PARAM = _Global("torch._utils", "_rebuild_parameter")
_ORDERED_DICT = collections.OrderedDict
_GLOBALS = {}


def _g(module, name):
    key = (module, name)
    if key not in _GLOBALS:
        _GLOBALS[key] = _Global(module, name)
    return _GLOBALS[key]


# -- pickling outside of save() (copy, multiprocessing): a mindtorch-only form --------------
def _rebuild_from_host(array, dtype_name, shape, requires_grad, device):
    import mindtorch

    dtype = _DTYPE_BY_NAME[dtype_name]
    if dtype is D.bfloat16:  # host arrays carry bfloat16 as raw uint16 bits
        t = _bytes_tensor(np.ascontiguousarray(array).tobytes(), dtype).reshape(shape)
    else:
        t = mindtorch.from_numpy(np.array(array, copy=True)).reshape(shape)
    if device != "cpu":
        t = t.to(device)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _host_array(t):
    return np.ascontiguousarray(backend_for(t.device.type).to_host(t.detach()))


def reduce_tensor(t):
    """Tensor.__reduce_ex__ (nn.Parameter's too): rebuild from host values (the checkpoint writer uses its
    own form)."""
    if t._is_param:
        return _reduce_parameter(t)
    return (_rebuild_from_host, (_host_array(t), t.dtype.name, tuple(t.shape), t.requires_grad, str(t.device)))


def _rebuild_param_portable(data, requires_grad):
    from .nn.parameter import Parameter

    return Parameter(data, requires_grad)


def _reduce_parameter(p):
    data = make_tensor(p._storage, p._shape, p._stride, p._offset, p.dtype, p.device)
    return (_rebuild_param_portable, (data, p.requires_grad))


def _tensor_reduce_ex(self, proto):
    return reduce_tensor(self)


Tensor.__reduce_ex__ = _tensor_reduce_ex


# -- writing -------------------------------------------------------------------------------
class _StorageRef:
    __slots__ = ("key", "dtype", "location", "numel")

    def __init__(self, key, dtype, location, numel):
        self.key, self.dtype, self.location, self.numel = key, dtype, location, numel


class _Writer(pickle._Pickler):
    def __init__(self, file, protocol):
        super().__init__(file, protocol)
        self.storages = {}  # id(storage) -> (key, storage, dtype)
        self._refs = {}

    def persistent_id(self, obj):
        if isinstance(obj, _StorageRef):
            name = _STORAGE_NAMES.get(obj.dtype.name)
            if name is None:  # counted in bytes
                return ("storage", _UNTYPED_STORAGE, obj.key, obj.location, obj.numel * obj.dtype.itemsize)
            return ("storage", _g("torch", name), obj.key, obj.location, obj.numel)
        return None

    def _storage_ref(self, t):
        st = t._storage
        entry = self.storages.get(id(st))
        if entry is None:
            entry = (str(len(self.storages)), st, t.dtype)
            self.storages[id(st)] = entry
        key, st, dtype = entry
        ref = self._refs.get(key)
        if ref is None:
            ref = self._refs[key] = _StorageRef(key, dtype, location_tag(st), st.nbytes // dtype.itemsize)
        return ref, dtype

    def _tensor_args(self, t):
        ref, dtype = self._storage_ref(t)
        if dtype is not t.dtype:
            raise RuntimeError("mindtorch.save: tensors of different dtypes share one storage")
        return (ref, t._offset, tuple(t._shape), tuple(t._stride), t.requires_grad, _ORDERED_DICT())

    def _save_tensor(self, t, obj):
        if t.dtype.name in _STORAGE_NAMES:
            self.save_reduce(_REBUILD_TENSOR, self._tensor_args(t), obj=obj)
        else:
            self.save_reduce(_REBUILD_TENSOR_V3, self._tensor_args(t) + (t.dtype,), obj=obj)

    def save(self, obj, save_persistent_id=True):
        if isinstance(obj, _Global):
            x = self.memo.get(id(obj))
            if x is not None:
                self.write(self.get(x[0]))
                return
            self.write(pickle.GLOBAL + obj.module.encode("utf-8") + b"\n" + obj.name.encode("utf-8") + b"\n")
            self.memoize(obj)
            return
        if isinstance(obj, D.dtype):
            return self.save(_g("torch", _torch_dtype_name(obj)))
        if isinstance(obj, Tensor) and id(obj) not in self.memo:
            if obj._is_param:
                data = make_tensor(obj._storage, obj._shape, obj._stride, obj._offset, obj.dtype, obj.device)
                args = (_DetachedTensor(data), obj.requires_grad, _ORDERED_DICT())
                self.save_reduce(_REBUILD_PARAM, args, obj=obj)
            else:
                self._save_tensor(obj, obj)
            return
        if isinstance(obj, _DetachedTensor):
            self._save_tensor(obj.t, obj)
            return
        from ._device import device

        if isinstance(obj, device):
            self.save_reduce(_g("torch", "device"), (str(obj),), obj=obj)
            return
        from ._geometry import Size

        if type(obj) is Size:
            self.save_reduce(_g("torch", "Size"), (tuple(obj),), obj=obj)
            return
        super().save(obj, save_persistent_id)


class _DetachedTensor:
    __slots__ = ("t",)

    def __init__(self, t):
        self.t = t


def _torch_dtype_name(d):
    return {"bool": "bool"}.get(d.name, d.name)


def _storage_bytes(storage, dtype):
    import mindtorch

    n = storage.nbytes // dtype.itemsize
    whole = make_tensor(storage, (n,), (1,), 0, dtype, storage.device)
    if storage.device.type != "cpu":
        whole = whole.to("cpu")
    with mindtorch.no_grad():
        arr = _host_array(whole)
    return arr.tobytes()


def _aligned_info(zf, name):
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    # pad the local header's extra field so the record data starts on a 64-byte boundary
    offset = zf.fp.tell() + 30 + len(name.encode("utf-8"))
    pad = (-(offset + 4)) % _ALIGN
    info.extra = struct.pack("<HH", 0x4246, pad) + b"Z" * pad
    return info


def _open_write(f):
    if isinstance(f, (str, os.PathLike)):
        return open(f, "wb"), True
    return f, False


def save(
    obj,
    f,
    pickle_module=pickle,
    pickle_protocol=DEFAULT_PROTOCOL,
    _use_new_zipfile_serialization=True,
    _disable_byteorder_record=False,
):
    if thread_settings.skip_data and not _use_new_zipfile_serialization:
        raise RuntimeError("Cannot use skip_data=True with _use_new_zipfile_serialization=False")
    if isinstance(f, (str, os.PathLike)):
        stem = os.path.splitext(os.path.basename(os.fspath(f)))[0] or "archive"
    else:
        stem = "archive"
    buf = io.BytesIO()
    writer = _Writer(buf, pickle_protocol)
    writer.dump(obj)
    fh, close = _open_write(f)
    try:
        with zipfile.ZipFile(fh, "w", zipfile.ZIP_STORED) as zf:

            def put(name, data):
                zf.writestr(_aligned_info(zf, f"{stem}/{name}"), data)

            put("data.pkl", buf.getvalue())
            put(".format_version", b"1")
            put(".storage_alignment", str(_ALIGN).encode())
            if not _disable_byteorder_record:
                put("byteorder", b"little")
            for key, st, dtype in writer.storages.values():
                # under skip_data the record keeps its size, its bytes left to a later pass
                put(f"data/{key}", bytes(st.nbytes) if thread_settings.skip_data else _storage_bytes(st, dtype))
            put("version", b"3\n")
            put(".data/serialization_id", b"0" * 40)
    finally:
        if close:
            fh.close()


# -- reading -------------------------------------------------------------------------------
def _bytes_tensor(raw, dtype):
    import mindtorch

    if dtype is D.bfloat16:
        from ._host_data import bf16_bits_to_float

        # widening to float32 is exact, so the round trip back to bfloat16 restores the bits
        return mindtorch.from_numpy(bf16_bits_to_float(np.frombuffer(raw, dtype=np.uint16))).to(mindtorch.bfloat16)
    npdt = np.dtype("bool") if dtype is D.bool_ else np.dtype(dtype.name)
    return mindtorch.from_numpy(np.frombuffer(raw, dtype=npdt).copy())


def _int_tuple(value, what):
    if not isinstance(value, (tuple, list)) or not all(type(v) is int for v in value):
        raise CheckpointError(f"{what} must be a sequence of ints, got {value!r:.80}")
    return tuple(value)


_INT64_MAX = 2**63 - 1


def _check_int64(size, stride, offset):
    """Every number of the geometry is an int64, and so is the element count (PyTorch's numel check)."""
    if any(abs(v) > _INT64_MAX for v in size + stride + (offset,)):
        raise CheckpointError(f"Overflow when unpacking long long: sizes {list(size)}, strides {list(stride)}")
    count = 1
    for n in size:
        count *= n
        if count > _INT64_MAX:
            raise CheckpointError("numel: integer multiplication overflow")


def _check_geometry(storage, offset, size, stride):
    """PyTorch's setStorage checks: the view must lie inside its storage."""
    size, stride = _int_tuple(size, "size"), _int_tuple(stride, "stride")
    if type(offset) is not int:
        raise CheckpointError(f"storage offset must be an int, got {offset!r:.80}")
    _check_int64(size, stride, offset)
    if len(size) != len(stride):
        raise CheckpointError(f"mismatch in length of strides and shape: {len(stride)} strides, {len(size)} sizes")
    if any(n < 0 for n in size):
        raise CheckpointError(f"Trying to create tensor with negative dimension: {list(size)}")
    if any(st < 0 for st in stride):
        raise CheckpointError(f"negative strides are not supported: {list(stride)}")
    if offset < 0:
        raise CheckpointError(f"Tensor: invalid storage offset {offset}")
    numel = storage.size()
    needed = 0 if 0 in size else offset + 1 + sum((n - 1) * st for n, st in zip(size, stride))
    if needed > numel:
        raise CheckpointError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, and itemsize "
            f"{storage.dtype.itemsize} requiring a storage size of {needed * storage.dtype.itemsize} are out of "
            f"bounds for storage of size {numel * storage.dtype.itemsize}"
        )
    return size, stride


def _apply_view_bits(t, metadata):
    """PyTorch pickles a lazily conjugated or negated view with its bits in `metadata` ({'conj': True},
    {'neg': True}) over the untouched storage; mindtorch has no such bits, so the values are resolved."""
    if metadata is None:
        return t
    if not isinstance(metadata, dict):
        raise CheckpointError(f"tensor metadata must be a dict, got {type(metadata).__name__}")
    if "conj" in metadata and not t.dtype.is_complex:
        raise CheckpointError(f"the conjugate bit is set on a tensor of dtype {t.dtype}, which is not complex")
    if metadata.get("neg"):
        t = t.neg()
    if metadata.get("conj"):
        t = t.conj()
    return t


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad=False, backward_hooks=None, metadata=None):
    if not isinstance(storage, TypedStorage):
        raise CheckpointError(f"_rebuild_tensor_v2 expects a storage, got {type(storage).__name__}")
    size, stride = _check_geometry(storage, storage_offset, size, stride)
    t = make_tensor(storage.untyped(), size, stride, storage_offset, storage.dtype, storage.device)
    t = _apply_view_bits(t, metadata)
    t._version = None
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks, dtype, metadata=None):
    """A tensor over an UntypedStorage (a byte storage here) whose elements are `dtype`."""
    if not isinstance(storage, TypedStorage) or storage.dtype is not D.uint8:
        raise CheckpointError(f"_rebuild_tensor_v3 expects an untyped storage, got {type(storage).__name__}")
    if not isinstance(dtype, D.dtype) or dtype not in _STORABLE:
        raise CheckpointError(f"_rebuild_tensor_v3 cannot rebuild a tensor of dtype {dtype!r:.80}")
    typed = TypedStorage(wrap_storage=storage.untyped(), dtype=dtype, _internal=True)
    return _rebuild_tensor_v2(typed, storage_offset, size, stride, requires_grad, backward_hooks, metadata)


def _rebuild_parameter(data, requires_grad, backward_hooks=None):
    from .nn.parameter import Parameter

    if not isinstance(data, Tensor):
        raise CheckpointError(f"_rebuild_parameter expects a tensor, got {type(data).__name__}")
    return Parameter(data, bool(requires_grad))


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    p = _rebuild_parameter(data, requires_grad)
    _set_user_state(p, state)
    return p


def _set_user_state(obj, state):
    """PyTorch restores the Python attributes a user set on a tensor or Parameter (its __dict__, then
    slots); anything naming our own tensor internals or the object's API is refused."""
    p = obj
    parts = state if isinstance(state, tuple) else (state,)
    for part in parts:
        if part is None:
            continue
        if not isinstance(part, dict):
            raise CheckpointError(f"parameter state must be a dict, got {type(part).__name__}")
        for k, v in part.items():
            if not isinstance(k, str) or not k.isidentifier() or k.startswith("_") or hasattr(p, k):
                raise CheckpointError(f"object state names attribute {k!r:.80}, which a checkpoint may not set")
            setattr(p, k, v)


def _only(fn, *types, most=1):
    """A constructor the unpickler may call only with arguments of the given types: set(range(10**12))
    and bytearray(10**12) would allocate without bound."""

    def guarded(*args):
        if len(args) > most or not all(isinstance(a, types) for a in args):
            raise CheckpointError(f"{fn.__name__} called with {tuple(type(a).__name__ for a in args)}")
        return fn(*args)

    return guarded


def _size(values):
    import mindtorch

    for i, v in enumerate(values):
        if type(v) is not int:
            raise CheckpointError(f"torch.Size() takes an iterable of 'int' (item {i} is '{type(v).__name__}')")
    return mindtorch.Size(values)


def _codecs_encode(text, encoding="latin1"):
    # protocol-2 pickles write bytes as _codecs.encode(str, 'latin1')
    if not isinstance(text, str) or encoding not in ("latin1", "latin-1"):
        raise CheckpointError("_codecs.encode is allowed only for latin1 text")
    return text.encode("latin1")


class _StorageType:
    def __init__(self, dtype):
        self.dtype = dtype

    def __call__(self, *args):
        raise CheckpointError(f"storage type {self.dtype} is not callable in a checkpoint")


def _allowed_globals():
    # the globals PyTorch's weights_only unpickler allows, each bounded in what it may build
    import mindtorch

    table = {
        ("torch._utils", "_rebuild_tensor_v2"): _rebuild_tensor_v2,
        ("torch._utils", "_rebuild_tensor_v3"): _rebuild_tensor_v3,
        ("torch._utils", "_rebuild_parameter"): _rebuild_parameter,
        ("torch.storage", "UntypedStorage"): _StorageType(D.uint8),
        ("torch._utils", "_rebuild_parameter_with_state"): _rebuild_parameter_with_state,
        ("collections", "OrderedDict"): _only(collections.OrderedDict, list, tuple, dict),
        ("collections", "Counter"): _only(collections.Counter, dict),
        ("builtins", "set"): _only(set, list, tuple),
        ("builtins", "bytearray"): _only(bytearray, bytes),
        ("builtins", "complex"): _only(complex, int, float),
        ("_codecs", "encode"): _codecs_encode,
        ("torch", "Size"): _only(_size, list, tuple),
        ("torch", "device"): _only(mindtorch.device, str, int, most=2),
    }
    for name, d in _DTYPE_BY_STORAGE.items():
        table[("torch", name)] = _StorageType(d)
    for d in _STORABLE:
        table[("torch", d.name)] = d
    table[("torch", "bool")] = D.bool_
    return table


# what add_safe_globals / safe_globals allowed: callables and classes, or (object, "module.name") pairs
_SAFE_GLOBALS = []


def add_safe_globals(safe_globals):
    """Allow these classes and functions in weights_only loads (an object, or (object, "module.name"))."""
    _SAFE_GLOBALS.extend(g for g in safe_globals if g not in _SAFE_GLOBALS)


def get_safe_globals():
    return list(_SAFE_GLOBALS)


def clear_safe_globals():
    _SAFE_GLOBALS.clear()


class safe_globals:
    """Allow these globals for weights_only loads inside the block; what was allowed before stays."""

    def __init__(self, safe_globals):
        self.safe_globals = safe_globals

    def __enter__(self):
        self._added = [g for g in self.safe_globals if g not in _SAFE_GLOBALS]
        _SAFE_GLOBALS.extend(self._added)

    def __exit__(self, *exc):
        for g in self._added:
            if g in _SAFE_GLOBALS:
                _SAFE_GLOBALS.remove(g)
        return False


def _user_allowed_globals():
    table = {}
    for g in _SAFE_GLOBALS:
        if isinstance(g, tuple):
            if len(g) != 2:
                raise ValueError(
                    f"Expected tuple of length 2 (global, str of callable full path), but got tuple of length: {len(g)}"
                )
            if type(g[1]) is not str:
                raise TypeError(f"Expected second item in tuple to be str of callable full path, but got: {type(g[1])}")
            table[g[1]] = g[0]
        else:
            table[f"{g.__module__}.{g.__qualname__}"] = g
    return table


def get_unsafe_globals_in_checkpoint(f):
    """The "module.name" globals a checkpoint names that a weights_only load would refuse."""
    import pickletools

    def names(data):
        import _compat_pickle

        for op, arg, _ in pickletools.genops(io.BytesIO(data)):
            if op.name in ("GLOBAL", "INST"):
                module, name = arg.split(" ", 1)
                module, name = _compat_pickle.NAME_MAPPING.get(
                    (module, name), (_compat_pickle.IMPORT_MAPPING.get(module, module), name)
                )
                yield f"{module}.{name}"

    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as fh:
            data = fh.read()
    else:
        data = f.read()
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        pkl = next(n for n in zf.namelist() if n.endswith("data.pkl"))
        found = set(names(zf.read(pkl)))
    allowed = {".".join(k) for k in _allowed_globals()} | set(_user_allowed_globals())
    return sorted(found - allowed)


def _restore_tagged(flat, location):
    """`flat` on the device its tag names, through the registered restorers."""
    try:
        storage = default_restore_location(flat.untyped_storage(), location)
    except RuntimeError as exc:
        raise CheckpointError(str(exc)[:300]) from None
    if storage is flat.untyped_storage():
        return flat
    return make_tensor(storage, tuple(flat._shape), tuple(flat._stride), 0, flat.dtype, storage.device)


def _resolve_location(map_location, location, flat):
    import mindtorch

    if map_location is None:
        return _restore_tagged(flat, location)
    elif isinstance(map_location, (str, mindtorch.device)):
        target = map_location
    elif isinstance(map_location, dict):
        target = map_location.get(location, location)
        if target is location:
            return _restore_tagged(flat, location)
    elif callable(map_location):
        out = map_location(flat, location)
        return flat if out is None else out
    else:
        raise ValueError(
            f"map_location should be either a string, torch.device, dict or callable, got {type(map_location).__name__}"
        )
    target = mindtorch.device(target) if not isinstance(target, mindtorch.device) else target
    return flat if target.type == "cpu" else flat.to(target)


# a deflated record cannot expand more than ~1032x; a header claiming more is a zip bomb or a lie
_MAX_RATIO = 1100
_KEY = re.compile(r"[A-Za-z0-9_.]{1,64}")


def _read_record(zf, name, expected=None):
    """Read one record, checking its declared size before decompressing and bounding the read."""
    try:
        info = zf.getinfo(name)
    except KeyError:
        raise CheckpointError(f"failed locating record {name}: file not found") from None
    if expected is not None and info.file_size != expected:
        raise CheckpointError(f"record {name} holds {info.file_size} bytes, but its storage declares {expected}")
    if info.compress_type != zipfile.ZIP_STORED and info.file_size > _MAX_RATIO * info.compress_size + 4096:
        raise CheckpointError(f"record {name} claims to expand {info.compress_size} bytes to {info.file_size}")
    if info.compress_type == zipfile.ZIP_STORED and info.file_size != info.compress_size:
        raise CheckpointError(f"record {name} is stored with inconsistent sizes")
    chunks, left = [], info.file_size
    with zf.open(info) as fh:  # ZipExtFile stops at file_size and checks the CRC at the end
        if info.CRC == 0 and info.file_size:
            # PyTorch writes a zero CRC when saving with set_crc32_options(False): nothing to check
            fh._expected_crc = None
        while left > 0:
            chunk = fh.read(min(left, 1 << 20))
            if not chunk:
                raise CheckpointError(f"record {name} is truncated")
            chunks.append(chunk)
            left -= len(chunk)
        fh.read(1)  # reach the end, so a bad CRC is reported
    return b"".join(chunks)


# private modules that held classes before those moved to PyTorch's module paths: a whole-object
# checkpoint written by an earlier mindtorch names them, and its classes are found where they live now
_NN, _OPTIM, _DISTRIBUTIONS = "mindtorch.nn.modules", "mindtorch.optim", "mindtorch.distributions"
_MOVED_MODULES = {
    **{
        f"{_NN}.{old}": _NN
        for old in ("misc", "misc_more", "activation_more", "conv_more", "loss_more", "pooling_more", "_lazy")
    },
    "mindtorch.nn._functional_more": "mindtorch.nn.functional",
    **{f"{_OPTIM}.{old}": _OPTIM for old in ("_more", "_algos", "_lbfgs")},
    f"{_OPTIM}._schedulers_more": f"{_OPTIM}.lr_scheduler",
    **{f"{_DISTRIBUTIONS}.{old}": _DISTRIBUTIONS for old in ("families", "_more")},
    "mindtorch._creation": "mindtorch._tensor_from_data",
    "mindtorch._random": "mindtorch._generator",
    "mindtorch._shape": "mindtorch._geometry",
}


class _Resolver:
    """What a checkpoint's pickle may name: the globals (the safe table, the user's allow-list, or anything
    when weights_only is off) and its storages (persistent ids). Mixed into an unpickler class."""

    def __init__(self, file, storages, map_location, weights_only, **pickle_load_args):
        super().__init__(file, **pickle_load_args)
        self._storages, self._map_location = storages, map_location
        self._weights_only = weights_only
        self._loaded = {}
        self.flats = {}  # storage key -> the flat tensor behind it (legacy files fill these afterwards)
        self._table = _allowed_globals()
        self._user_table = _user_allowed_globals() if weights_only else {}
        self.record = storages.pickle_record

    def find_class(self, module, name):
        import _compat_pickle

        # protocol-2 pickles spell Python 3 modules the Python 2 way (__builtin__, copy_reg)
        if (module, name) in _compat_pickle.NAME_MAPPING:
            module, name = _compat_pickle.NAME_MAPPING[(module, name)]
        elif module in _compat_pickle.IMPORT_MAPPING:
            module = _compat_pickle.IMPORT_MAPPING[module]
        fn = self._table.get((module, name))
        if fn is not None:
            return fn
        user = self._user_table.get(f"{module}.{name}")
        if user is not None:
            return user
        if not self._weights_only and module.split(".")[0] != "torch":
            return super().find_class(_MOVED_MODULES.get(module, module), name)
        raise CheckpointError(
            f"Weights only load failed. Unsupported global: GLOBAL {module}.{name} was not an allowed global by "
            f"default. Please use `torch.serialization.add_safe_globals([{module}.{name}])` or the "
            f"`torch.serialization.safe_globals([{module}.{name}])` context manager to allowlist this global if you "
            "trust this class/function; or load with weights_only=False if you trust the whole file."
        )

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and len(pid) == self._storages.pid_length and pid[0] == "storage"):
            raise CheckpointError(f"Unsupported persistent id {pid!r:.80}")
        _, storage_type, key, location, numel = pid[:5]
        if pid[5:] not in ((), (None,)):
            raise CheckpointError("storage views in legacy checkpoints are not supported")
        if not isinstance(key, str) or not _KEY.fullmatch(key) or ".." in key:
            raise CheckpointError(f"invalid storage key {key!r:.80}")
        if key in self._loaded:
            return self._loaded[key]
        if not isinstance(storage_type, _StorageType):
            raise CheckpointError(f"Unsupported storage type {storage_type!r:.80}")
        if type(numel) is not int or numel < 0 or not isinstance(location, str):
            raise CheckpointError(f"storage {key} declares an invalid element count or location")
        flat = self._storages.fetch(self, key, storage_type.dtype, numel)
        flat = _resolve_location(self._map_location, location, flat)
        # a storage the pickle leaves bare is returned as PyTorch returns it: a TypedStorage
        view = TypedStorage(wrap_storage=flat.untyped_storage(), dtype=flat.dtype, _internal=True)
        self._loaded[key] = view
        self.flats[key] = flat
        return view


class _Reader(_Resolver, pickle._Unpickler):
    # the Python unpickler, so that BUILD (which sets attributes, slots included) can be restricted
    dispatch = dict(pickle._Unpickler.dispatch)

    def load_build(self):
        if not self._weights_only:
            return pickle._Unpickler.load_build(self)
        state = self.stack.pop()
        obj = self.stack[-1]
        if isinstance(obj, Tensor):
            _set_user_state(obj, state)
        elif (
            type(obj) in (collections.OrderedDict, collections.Counter)
            and isinstance(state, dict)
            and all(isinstance(k, str) and not k.startswith("__") for k in state)
        ):
            obj.__dict__.update(state)  # an OrderedDict state_dict carries _metadata
        elif type(obj) in self._user_table.values():
            self.stack.append(state)
            pickle._Unpickler.load_build(self)  # the user vouched for this class: its own __setstate__
        else:
            raise CheckpointError(f"refusing to set state on a {type(obj).__name__}")

    dispatch[pickle.BUILD[0]] = load_build


def _reader_class(pickle_module):
    """The unpickler for a load: ours, or the caller's pickle module's Unpickler (weights_only off)."""
    if pickle_module is None or getattr(pickle_module, "Unpickler", pickle.Unpickler) is pickle.Unpickler:
        return _Reader
    return type("_ModuleReader", (_Resolver, pickle_module.Unpickler), {})


class _ZipStorages:
    """Storages of the zip format: one record each, read when the pickle names it."""

    pid_length = 5

    def __init__(self, zf, prefix):
        self.zf, self.prefix = zf, prefix
        self.pickle_record = prefix + "data.pkl"

    def fetch(self, reader, key, dtype, numel):
        if thread_settings.skip_data:
            import mindtorch

            return mindtorch.zeros(numel, dtype=dtype)
        reader.record = f"{self.prefix}data/{key}"
        raw = _read_record(self.zf, reader.record, numel * dtype.itemsize)
        reader.record = self.pickle_record
        return _bytes_tensor(raw, dtype)


# the legacy (pre-zip) format: three small pickles (magic number, protocol, system info), the object's
# pickle, the list of storage keys, then each storage as an int64 element count and its bytes
_LEGACY_MAGIC = 0x1950A86A20F9469CFC6C
_LEGACY_PROTOCOL = 1001


class _LegacyStorages:
    """Storages of the legacy format: their bytes follow the pickle, so they start empty and are filled."""

    pid_length = 6
    pickle_record = "the object pickle"

    def fetch(self, reader, key, dtype, numel):
        import mindtorch

        return mindtorch.empty(numel, dtype=dtype)


class _PlainData(pickle.Unpickler):
    def find_class(self, module, name):
        raise CheckpointError(f"a legacy checkpoint's header names a global ({module}.{name})")


def _load_legacy(fh, map_location, weights_only, pickle_module, pickle_load_args):
    import mindtorch

    try:
        magic = _PlainData(fh).load()
    except Exception:
        magic = None
    if magic != _LEGACY_MAGIC:
        raise CheckpointError(
            "not a checkpoint: neither PyTorch's zip format nor its legacy format (invalid magic number)"
        )
    if _PlainData(fh).load() != _LEGACY_PROTOCOL:
        raise CheckpointError("invalid protocol version in a legacy checkpoint")
    info = _PlainData(fh).load()
    if not isinstance(info, dict) or info.get("little_endian") is not True:
        raise CheckpointError("mindtorch.load: big-endian checkpoints are not supported")
    reader = _reader_class(pickle_module)(fh, _LegacyStorages(), map_location, weights_only, **pickle_load_args)
    result = reader.load()
    keys = _PlainData(fh).load()
    if not isinstance(keys, list) or set(keys) != set(reader.flats):
        raise CheckpointError("the storage key list of a legacy checkpoint does not match its pickle")
    with mindtorch.no_grad():
        for key in keys:
            flat = reader.flats[key]
            head = fh.read(8)
            count = struct.unpack("<q", head)[0] if len(head) == 8 else -1
            if count != flat.numel():
                raise CheckpointError(f"storage {key} holds {count} elements, but its pickle declares {flat.numel()}")
            raw = fh.read(count * flat.element_size())
            if len(raw) != count * flat.element_size():
                raise CheckpointError(f"storage {key} is truncated")
            flat.copy_(_bytes_tensor(raw, flat.dtype))
    return result


def _unsafe_name(n):
    return n.startswith(("/", "\\")) or "\\" in n or ".." in n.split("/") or ":" in n.split("/")[0]


def _weights_only_for(pickle_module, weights_only):
    if weights_only is None:  # PyTorch's rule: an explicit pickle module means a full unpickle
        weights_only = pickle_module is None
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    if weights_only:
        _user_allowed_globals()  # a malformed allow-list entry is the caller's error, not the file's
    return weights_only


def _load_zip(zf, at, map_location, weights_only, pickle_module, pickle_load_args):
    """Read a zip checkpoint; at["record"] names the record being read, for error messages."""
    names = zf.namelist()
    bad = next((n for n in names if _unsafe_name(n)), None)
    if bad is not None:
        raise CheckpointError(f"archive entry {bad!r:.80} is not a plain relative name")
    pkl = next((n for n in names if n.endswith("data.pkl") and n.count("/") == 1), None)
    if pkl is None:
        raise CheckpointError("PytorchStreamReader failed locating file data.pkl: file not found")
    prefix = pkl[: -len("data.pkl")]
    stray = next((n for n in names if not n.startswith(prefix)), None)
    if stray is not None:
        raise CheckpointError(f"file in archive is not in a subdirectory {prefix}: {stray!r:.80}")
    at["record"] = prefix + "byteorder"
    if at["record"] in names:
        big = _read_record(zf, at["record"]).strip() != b"little"
    else:
        big = get_default_load_endianness() is LoadEndianness.BIG
    if big:
        raise CheckpointError("mindtorch.load: big-endian checkpoints are not supported")
    at["record"] = pkl
    reader = _reader_class(pickle_module)(
        io.BytesIO(_read_record(zf, pkl)), _ZipStorages(zf, prefix), map_location, weights_only, **pickle_load_args
    )
    try:
        return reader.load()
    finally:
        at["record"] = reader.record


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **pickle_load_args):
    import mindtorch

    weights_only = _weights_only_for(pickle_module, weights_only)
    if isinstance(map_location, (str, mindtorch.device)):
        mindtorch.device(map_location)  # validate early, like PyTorch
    where = os.fspath(f) if isinstance(f, (str, os.PathLike)) else getattr(f, "name", "<file object>")
    if isinstance(f, (str, os.PathLike)):
        fh = open(f, "rb")  # noqa: SIM115  (closed in the finally below, with a caller's file left open)
        close = True
    else:
        fh, close = f, False
    at = {"record": None}
    try:
        if not zipfile.is_zipfile(fh):
            fh.seek(0)
            return _load_legacy(fh, map_location, weights_only, pickle_module, pickle_load_args)
        fh.seek(0)
        with zipfile.ZipFile(fh) as zf:
            return _load_zip(zf, at, map_location, weights_only, pickle_module, pickle_load_args)
    except CheckpointError as exc:
        record = at["record"]
        raise CheckpointError(f"{where}" + (f", record {record}" if record else "") + f": {exc}") from None
    except MemoryError:  # never dressed up as a corrupt file: it means a bound above is missing
        raise
    except (KeyboardInterrupt, SystemExit):
        raise
    except Exception as exc:
        if not weights_only and not isinstance(exc, (zipfile.BadZipFile, pickle.UnpicklingError, EOFError)):
            raise  # a full unpickle runs the file's own code: its errors are its own
        record = at["record"]
        raise CheckpointError(
            f"{where}"
            + (f", record {record}" if record else "")
            + f": corrupt or unsupported checkpoint ({type(exc).__name__}: {exc})"
        ) from exc
    finally:
        if close:
            fh.close()
