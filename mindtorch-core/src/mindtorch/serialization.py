"""mindtorch.save / mindtorch.load in PyTorch's zip checkpoint format, with no PyTorch needed.

Files hold `<name>/data.pkl` (pickle protocol 2) plus one record per storage under
`<name>/data/<key>`; the pickle names PyTorch's globals (torch._utils._rebuild_tensor_v2,
torch.FloatStorage, ...) by module/name strings, so PyTorch loads them and we load PyTorch's.
"""
import collections
import io
import os
import pickle
import struct
import zipfile

import numpy as np

from . import _dtype as D
from ._tensor import Tensor, make_tensor

__all__ = ["save", "load", "reduce_tensor", "DEFAULT_PROTOCOL"]

DEFAULT_PROTOCOL = 2
_ALIGN = 64

_STORAGE_NAMES = {"float32": "FloatStorage", "float64": "DoubleStorage", "float16": "HalfStorage",
                  "bfloat16": "BFloat16Storage", "int64": "LongStorage", "int32": "IntStorage",
                  "int16": "ShortStorage", "int8": "CharStorage", "uint8": "ByteStorage", "bool": "BoolStorage",
                  "complex64": "ComplexFloatStorage", "complex128": "ComplexDoubleStorage"}
_DTYPE_BY_NAME = {d.name: d for d in D.ALL}
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
    from .plugins.registry import backend_for
    return np.ascontiguousarray(backend_for(t.device.type).to_host(t.detach()))


def reduce_tensor(t):
    """Tensor.__reduce_ex__: rebuild from host values (the checkpoint writer uses its own form)."""
    return (_rebuild_from_host, (_host_array(t), t.dtype.name, tuple(t.shape), t.requires_grad, str(t.device)))


def _rebuild_param_portable(data, requires_grad):
    from .nn.parameter import Parameter
    return Parameter(data, requires_grad)


def reduce_parameter(p):
    data = make_tensor(p._storage, p._shape, p._stride, p._offset, p.dtype, p.device)
    return (_rebuild_param_portable, (data, p.requires_grad))


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
            return ("storage", _g("torch", _STORAGE_NAMES[obj.dtype.name]), obj.key, obj.location, obj.numel)
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
            loc = "cpu" if t.device.type == "cpu" else str(t.device)
            ref = self._refs[key] = _StorageRef(key, dtype, loc, st.nbytes // dtype.itemsize)
        return ref, dtype

    def _tensor_args(self, t):
        ref, dtype = self._storage_ref(t)
        if dtype is not t.dtype:
            raise RuntimeError("mindtorch.save: tensors of different dtypes share one storage")
        return (ref, t._offset, tuple(t._shape), tuple(t._stride), t.requires_grad, _ORDERED_DICT())

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
                self.save_reduce(_REBUILD_TENSOR, self._tensor_args(obj), obj=obj)
            return
        if isinstance(obj, _DetachedTensor):
            self.save_reduce(_REBUILD_TENSOR, self._tensor_args(obj.t), obj=obj)
            return
        from ._device import device
        if isinstance(obj, device):
            self.save_reduce(_g("torch", "device"), (str(obj),), obj=obj)
            return
        from ._shape import Size
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


def save(obj, f, pickle_module=pickle, pickle_protocol=DEFAULT_PROTOCOL, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
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
                put(f"data/{key}", _storage_bytes(st, dtype))
            put("version", b"3\n")
            put(".data/serialization_id", b"0" * 40)
    finally:
        if close:
            fh.close()


# -- reading -------------------------------------------------------------------------------
def _bytes_tensor(raw, dtype):
    import mindtorch
    if dtype is D.bfloat16:
        from ._creation import bf16_bits_to_float
        # widening to float32 is exact, so the round trip back to bfloat16 restores the bits
        return mindtorch.from_numpy(bf16_bits_to_float(np.frombuffer(raw, dtype=np.uint16))).to(mindtorch.bfloat16)
    npdt = np.dtype("bool") if dtype is D.bool_ else np.dtype(dtype.name)
    return mindtorch.from_numpy(np.frombuffer(raw, dtype=npdt).copy())


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad=False, backward_hooks=None,
                       metadata=None):
    t = make_tensor(storage._storage, tuple(size), tuple(stride), storage_offset, storage.dtype, storage.device)
    t._version = None
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_parameter(data, requires_grad, backward_hooks=None):
    from .nn.parameter import Parameter
    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    p = _rebuild_parameter(data, requires_grad)
    for k, v in (state or {}).items():
        setattr(p, k, v)
    return p


class _StorageType:
    def __init__(self, dtype):
        self.dtype = dtype


def _allowed_globals():
    import mindtorch
    table = {
        ("torch._utils", "_rebuild_tensor_v2"): _rebuild_tensor_v2,
        ("torch._utils", "_rebuild_parameter"): _rebuild_parameter,
        ("torch._utils", "_rebuild_parameter_with_state"): _rebuild_parameter_with_state,
        ("collections", "OrderedDict"): collections.OrderedDict,
        ("collections", "defaultdict"): collections.defaultdict,
        ("builtins", "set"): set, ("builtins", "frozenset"): frozenset, ("builtins", "bytearray"): bytearray,
        ("builtins", "complex"): complex, ("builtins", "slice"): slice, ("builtins", "range"): range,
        ("torch", "Size"): mindtorch.Size, ("torch", "device"): mindtorch.device,
        ("mindtorch.serialization", "_rebuild_from_host"): _rebuild_from_host,
        ("mindtorch.serialization", "_rebuild_param_portable"): _rebuild_param_portable,
    }
    for name, d in _DTYPE_BY_STORAGE.items():
        table[("torch", name)] = _StorageType(d)
    for d in D.ALL:
        table[("torch", d.name)] = d
    table[("torch", "bool")] = D.bool_
    return table


class _StorageView:
    """What persistent_load returns: a flat tensor over one checkpoint storage."""
    __slots__ = ("_storage", "dtype", "device")

    def __init__(self, flat):
        self._storage, self.dtype, self.device = flat._storage, flat.dtype, flat.device


def _resolve_location(map_location, location, flat):
    import mindtorch
    if map_location is None:
        target = location
    elif isinstance(map_location, (str, mindtorch.device)):
        target = map_location
    elif isinstance(map_location, dict):
        target = map_location.get(location, location)
    elif callable(map_location):
        out = map_location(flat, location)
        return flat if out is None else out
    else:
        raise ValueError(f"map_location should be either a string, torch.device, dict or callable, got "
                         f"{type(map_location).__name__}")
    target = mindtorch.device(target) if not isinstance(target, mindtorch.device) else target
    return flat if target.type == "cpu" else flat.to(target)


class _Reader(pickle.Unpickler):
    def __init__(self, file, zf, prefix, map_location, weights_only):
        super().__init__(file)
        self._zf, self._prefix, self._map_location = zf, prefix, map_location
        self._weights_only = weights_only
        self._loaded = {}
        self._table = _allowed_globals()

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
        if not self._weights_only and not module.split(".")[0] == "torch":
            return super().find_class(module, name)
        raise pickle.UnpicklingError(
            "Weights only load failed. mindtorch.load refuses globals it does not know how to rebuild safely. "
            f"Unsupported global: GLOBAL {module}.{name}")

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and pid and pid[0] == "storage"):
            raise pickle.UnpicklingError(f"Unsupported persistent id {pid!r}")
        _, storage_type, key, location, numel = pid
        if key in self._loaded:
            return self._loaded[key]
        if not isinstance(storage_type, _StorageType):
            raise pickle.UnpicklingError(f"Unsupported storage type {storage_type!r}")
        raw = self._zf.read(f"{self._prefix}data/{key}")
        flat = _bytes_tensor(raw, storage_type.dtype)
        flat = _resolve_location(self._map_location, location, flat)
        view = _StorageView(flat)
        self._loaded[key] = view
        return view


def load(f, map_location=None, pickle_module=None, *, weights_only=True, mmap=None, **pickle_load_args):
    import mindtorch
    if isinstance(map_location, str) or isinstance(map_location, mindtorch.device):
        mindtorch.device(map_location)  # validate early, like PyTorch
    if isinstance(f, (str, os.PathLike)):
        fh = open(f, "rb")
        close = True
    else:
        fh, close = f, False
    try:
        if not zipfile.is_zipfile(fh):
            raise RuntimeError("mindtorch.load only reads PyTorch's zip checkpoint format (torch.save with "
                               "_use_new_zipfile_serialization=True); this file is in another format")
        fh.seek(0)
        with zipfile.ZipFile(fh) as zf:
            names = zf.namelist()
            pkl = next((n for n in names if n.endswith("data.pkl") and n.count("/") == 1), None)
            if pkl is None:
                raise RuntimeError("PytorchStreamReader failed locating file data.pkl: file not found")
            prefix = pkl[:-len("data.pkl")]
            if prefix + "byteorder" in names and zf.read(prefix + "byteorder").strip() != b"little":
                raise RuntimeError("mindtorch.load: big-endian checkpoints are not supported")
            reader = _Reader(io.BytesIO(zf.read(pkl)), zf, prefix, map_location, weights_only)
            return reader.load()
    finally:
        if close:
            fh.close()
