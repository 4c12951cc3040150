"""Tensor: a strided view (shape, stride, storage_offset) of a Storage.

Operator methods (add, sum, view, ...) are generated from the op schema
table by mindtorch.ops.codegen; what is here is the state and the behaviour
that is not an operator. Methods that belong to a subsystem above this one
are attached by their owner when mindtorch is imported: construction from
data (_tensor_from_data: Tensor(...), new_tensor), autograd (backward, grad_fn,
hooks), printing (__repr__), pickling (serialization: __reduce_ex__) and the
legacy names (_legacy: layout, storage()).
"""

import threading
import weakref
from typing import TYPE_CHECKING, Any

import numpy as np

from . import _dtype as D
from ._accel_load import ACCEL as _ACCEL
from ._backends.registry import BACKENDS as _BACKENDS, backend_for as _backend_for
from ._geometry import (
    Size,
    c_strides as _c_strides,
    contiguous_strides as _contiguous_strides,
    is_contiguous as _is_contig,
    numel as _numel,
    wrap_dim as _wrap_dim,
)
from ._grad_mode import state as _grad_state
from ._host_data import host_values as _host_values
from ._storage import share_storages


class Tensor:
    __slots__ = (
        "_st",
        "_shape",
        "_stride",
        "_offset",
        "dtype",
        "device",
        "_np",
        "_requires_grad",
        "_grad_fn",
        "_version",
        "_base",
        "__dict__",
        "__weakref__",
    )

    if TYPE_CHECKING:  # methods generated from the op table and attached by their owners

        def __getattr__(self, name: str) -> Any: ...

    # Rarely-set state lives in the instance __dict__ with these defaults.
    _grad = None
    _output_nr = 0
    _retains_grad = False
    _hooks = None
    _is_param = False
    _inference = False  # set on tensors made while inference mode is on (see _new_marking_inference)
    _view_creation = None  # "multi-output" / "no-grad" / "inference": a view PyTorch refuses in-place writes to

    # -- storage ------------------------------------------------------------
    @property
    def _storage(self):
        """The Storage this tensor views; a kernel result over a host array gets one only when
        first asked (most small results never are), from its device allocator's `adopt`."""
        st = self._st
        if st is None:
            st = self._st = _adopt(self)
        return st

    @_storage.setter
    def _storage(self, storage):
        self._st = storage

    # -- metadata -----------------------------------------------------------
    @property
    def shape(self):
        return Size(self._shape)

    def size(self, dim=None):
        if dim is None:
            return Size(self._shape)
        if dim.__class__ is bool:
            raise TypeError("size(): argument 'dim' (position 1) must be int, not bool")
        return self._shape[_wrap_dim(dim, len(self._shape), scalar_ok=False)] if self._shape else self._raise_dim0(dim)

    def _raise_dim0(self, dim):
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")

    def stride(self, dim=None):
        if dim is None:
            return tuple(self._stride)
        if dim.__class__ is bool:
            raise TypeError("stride(): argument 'dim' (position 1) must be int, not bool")
        if not self._shape:
            self._raise_dim0(dim)
        return self._stride[_wrap_dim(dim, len(self._shape), scalar_ok=False)]

    def storage_offset(self):
        return self._offset

    def dim(self):
        return len(self._shape)

    ndimension = dim

    @property
    def ndim(self):
        return len(self._shape)

    def numel(self):
        return _numel(self._shape)

    nelement = numel

    def element_size(self):
        return self.dtype.itemsize

    @property
    def itemsize(self):
        return self.dtype.itemsize

    @property
    def nbytes(self):
        return self.dtype.itemsize * _numel(self._shape)

    def is_contiguous(self, memory_format=None):
        return _is_contig(self._shape, self._stride)

    @property
    def is_leaf(self):
        return self._grad_fn is None

    @property
    def is_floating_point_(self):
        return self.dtype.is_floating_point

    def is_floating_point(self):
        return self.dtype.is_floating_point

    def is_complex(self):
        return self.dtype.is_complex

    # the parts of a complex tensor are views of its storage: writing to them writes the tensor
    @property
    def real(self):
        import mindtorch

        return mindtorch.real(self)

    @real.setter
    def real(self, value):
        self.real.copy_(value)

    @property
    def imag(self):
        import mindtorch

        return mindtorch.imag(self)

    @imag.setter
    def imag(self, value):
        self.imag.copy_(value)

    @property
    def is_meta(self):
        return self.device.type == "meta"

    @property
    def is_cpu(self):
        return self.device.type == "cpu"

    @property
    def is_npu(self):
        return self.device.type == "npu"

    def untyped_storage(self):
        return self._storage

    def is_shared(self):
        return self._storage.is_shared()

    def share_memory_(self):
        """Move this tensor's storage into shared memory (no-op if already there, or on a device whose
        memory is its own): processes forked afterwards, and those it is sent to through
        mindtorch.multiprocessing, see the same memory."""
        share_storages([self._storage], [self])
        return self

    def data_ptr(self):
        return self._storage.data_ptr() + self._offset * self.dtype.itemsize

    def get_device(self):
        return -1 if self.device.type == "cpu" else (self.device.index or 0)

    def is_signed(self):
        return self.dtype.is_signed

    def is_conj(self):
        return False  # conjugation is always materialised: no lazy conjugate bit

    def is_neg(self):
        return False  # likewise no lazy negative bit

    def resolve_conj(self):
        return self

    def resolve_neg(self):
        return self

    def is_same_size(self, other):
        return self._shape == other._shape

    def is_nonzero(self):
        n = self.numel()
        if n == 0:
            raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
        if n > 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.item())

    @property
    def _version_value(self):
        v = self._version
        return 0 if v is None else v.value

    # -- autograd state -----------------------------------------------------
    @property
    def requires_grad(self):
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, flag):
        self.requires_grad_(flag)

    def requires_grad_(self, requires_grad=True):
        if not isinstance(requires_grad, bool):
            raise TypeError(
                f"requires_grad_(): argument 'requires_grad' must be bool, not {type(requires_grad).__name__}"
            )
        if self._grad_fn is not None:
            if not requires_grad:
                raise RuntimeError(
                    "you can only change requires_grad flags of leaf variables. If you want to use a computed "
                    "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach()."
                )
            return self
        if requires_grad and not (self.dtype.is_floating_point or self.dtype.is_complex):
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        if requires_grad and self.is_inference() and not _grad_state.inference:
            raise RuntimeError("Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.")
        self._requires_grad = requires_grad
        return self

    @property
    def grad(self):
        if self._grad_fn is not None and not self._retains_grad and self._grad is None:
            import warnings

            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute "
                "won't be populated during autograd.backward(). If you indeed want the .grad field to be populated "
                "for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor "
                "by mistake, make sure you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 "
                "for more information.",
                UserWarning,
                stacklevel=2,
            )
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(
                    f"assigned grad expected to be a Tensor or None but got grad of type {type(value).__name__}"
                )
            allowed = self.__dict__.get("_grad_dtype", self.dtype)
            if allowed is not None and value.dtype is not allowed:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{D.cpp_name(value.dtype)}' to a tensor with "
                    f"grad_dtype '{D._cname(allowed)}'. The gradient must match the tensor's grad_dtype (defaults "
                    "to the tensor's dtype). You can set the tensor's grad_dtype attribute with a specific dtype, "
                    "or None to allow any dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor and "
                    "its gradient may break downstream systems that assume they match."
                )
            if value.device != self.device:
                raise RuntimeError(
                    "attempting to assign a gradient located on device with index different than the tensor"
                )
            if value._shape != self._shape:
                raise RuntimeError("assigned grad has data of a different size")
        self._grad = value

    @grad.deleter
    def grad(self):
        self._grad = None

    @property
    def grad_dtype(self):
        """The dtype `.grad` must have (the tensor's own by default; None: any): the engine casts the
        gradients it accumulates into a leaf to it."""
        if self._grad_fn is not None:
            raise RuntimeError("grad_dtype can only be accessed on leaf tensors.")
        return self.__dict__.get("_grad_dtype", self.dtype)

    @grad_dtype.setter
    def grad_dtype(self, dtype):
        if self._grad_fn is not None:
            raise RuntimeError("grad_dtype can only be set on leaf tensors.")
        if dtype is not None and not isinstance(dtype, D.dtype):
            raise RuntimeError(f"grad_dtype must be a torch.dtype or None, but got {type(dtype).__name__}")
        self.__dict__["_grad_dtype"] = dtype

    @property
    def data(self):
        return self.detach()

    @data.setter
    def data(self, other):
        if not isinstance(other, Tensor):
            raise TypeError("data must be a Tensor")
        self._storage, self._shape, self._stride, self._offset = (
            other._storage,
            other._shape,
            other._stride,
            other._offset,
        )
        self.dtype, self.device, self._np = other.dtype, other.device, other._np

    @property
    def output_nr(self):
        return self._output_nr

    def retain_grad(self):
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._grad_fn is None or self._retains_grad:
            return
        # a hook on grad_fn for this output stores the incoming gradient (as PyTorch does)
        import weakref

        ref = weakref.ref(self)

        def retain(grad):
            t = ref()
            if t is None:
                return
            old = t._grad
            t._grad = grad.clone() if old is None else old + grad

        self.grad_fn.set_retains_grad_hook(self._output_nr, retain)
        self._retains_grad = True

    @property
    def retains_grad(self):
        return self._retains_grad

    def detach_(self):
        if self._base is not None:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel (DDP) "
                "for training, and gradient_as_bucket_view is set as True, gradients are views of DDP buckets, and "
                "hence detach_() cannot be called on these gradients. To fix this error, please refer to the "
                "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution."
            )
        self._grad_fn = None
        self._requires_grad = False
        self.__dict__.pop("_output_nr", None)
        return self

    # -- host access --------------------------------------------------------
    def _host(self):
        return _backend_for(self.device.type).to_host(self)

    def numpy(self, *, force=False):
        if self.device.type != "cpu":
            if not force:
                raise TypeError(
                    f"can't convert {self.device.type} device type tensor to numpy. "
                    "Use Tensor.cpu() to copy the tensor to host memory first."
                )
            return self.cpu().numpy()
        if self._requires_grad and _grad_state.enabled and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        if self.dtype is D.bfloat16:
            raise TypeError("Got unsupported ScalarType BFloat16")
        return self._host()

    def __array__(self, dtype=None, copy=None):
        arr = self.detach().cpu()._host()
        return arr.astype(dtype) if dtype is not None else arr

    def tolist(self):
        return _host_values(self).tolist()

    def item(self):
        n = _numel(self._shape)
        if n != 1:
            raise RuntimeError(f"a Tensor with {n} elements cannot be converted to Scalar")
        return _host_values(self).reshape(()).item()

    def __bool__(self):
        n = _numel(self._shape)
        if n != 1:
            if n == 0:
                raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.item())

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __complex__(self):
        return complex(self.item())

    def __index__(self):
        if self.dtype.is_floating_point or self.dtype.is_complex or self.dtype is D.bool_ or _numel(self._shape) != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __len__(self):
        if not self._shape:
            raise TypeError("len() of a 0-d tensor")
        return self._shape[0]

    def __iter__(self):
        if not self._shape:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __hash__(self):
        return id(self)

    def __format__(self, spec):
        if not self._shape:
            return self.item().__format__(spec)
        return object.__format__(self, spec) if spec else repr(self)

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        prev = _grad_state.enabled
        _grad_state.enabled = False
        try:
            new = self.clone()
        finally:
            _grad_state.enabled = prev
        if type(self) is not Tensor:
            new = type(self)(new, requires_grad=self._requires_grad) if self._is_param else new
        else:
            new._requires_grad = self._requires_grad
        if self._grad is not None:
            new._grad = self._grad.__deepcopy__(memo)
        new.__dict__.update(
            {
                k: v
                for k, v in self.__dict__.items()
                if k not in ("_grad", "_hooks", "_accumulator", "_post_accumulate_hooks")
            }
        )
        memo[id(self)] = new
        return new

    # -- conversions (non-operator conveniences) ----------------------------
    def cpu(self):
        return self.to("cpu")

    def cuda(self, device=None, non_blocking=False, memory_format=None):
        # no CUDA backend exists: Tensor.to raises PyTorch's "not compiled with CUDA" error
        return self.to(_cuda_device(device), non_blocking=non_blocking)

    @property
    def is_cuda(self):
        return self.device.type == "cuda"

    def npu(self, device=None, non_blocking=False):
        """A copy on an npu device (torch_npu's Tensor.npu; self when already there), as Module.npu."""
        target = "npu" if device is None else f"npu:{device}" if isinstance(device, int) else device
        return self.to(target, non_blocking=non_blocking)

    def is_pinned(self, device=None):
        return bool(getattr(self._storage._allocator, "pinned", False))

    def pin_memory(self, device=None):
        """A copy in page-locked host memory (self when already there), from the accelerator backend's device
        module `host_allocator`: its storages are host buffers, so a non-blocking upload can copy from them."""
        from . import accelerator

        backend = accelerator._require()
        if self.device.type != "cpu":
            raise RuntimeError(f"cannot pin '{self.type()}' only dense CPU tensors can be pinned")
        if self.is_pinned():
            return self
        host = getattr(backend.module, "host_allocator", None)
        if host is None:
            raise NotImplementedError(f"pin_memory: the {backend.device_type} backend provides no page-locked memory")
        shape = tuple(self._shape)
        storage = host.allocate(_numel(shape) * self.dtype.itemsize, self.device)
        out = make_tensor(storage, shape, _contiguous_strides(shape), 0, self.dtype, self.device)
        return out.copy_(self)  # recorded: pin_memory passes gradients through, as PyTorch's does

    def record_stream(self, stream):
        """Mark the memory as in use by `stream` (torch.Tensor.record_stream): the device's caching
        allocator will not reuse it before the work queued on `stream` so far has finished."""
        record = getattr(_backend_for(self.device.type).allocator, "record_stream", None)
        if record is None:
            raise RuntimeError(f"record_stream is not supported on the {self.device.type} device")
        record(self._storage, stream)

    def type(self, dtype=None, non_blocking=False):
        if dtype is None:
            return D.tensor_type_name(self.dtype)
        return self.to(dtype)

    def float(self):
        return self.to(D.float32)

    def double(self):
        return self.to(D.float64)

    def half(self):
        return self.to(D.float16)

    def bfloat16(self):
        return self.to(D.bfloat16)

    def long(self):
        return self.to(D.int64)

    def int(self):
        return self.to(D.int32)

    def short(self):
        return self.to(D.int16)

    def char(self):
        return self.to(D.int8)

    def byte(self):
        return self.to(D.uint8)

    def bool(self):
        return self.to(D.bool_)

    def cfloat(self):
        return self.to(D.complex64)

    def cdouble(self):
        return self.to(D.complex128)

    def type_as(self, other):
        return self.to(other.dtype)

    def view_as(self, other):
        return self.view(other._shape)

    def expand_as(self, other):
        return self.expand(other._shape)

    def reshape_as(self, other):
        return self.reshape(other._shape)

    @property
    def T(self):
        n = len(self._shape)
        return self.permute(tuple(range(n - 1, -1, -1)))

    @property
    def mT(self):
        if len(self._shape) < 2:
            raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor.")
        return self.transpose(-2, -1)

    @property
    def H(self):
        return self.T.conj() if self.dtype.is_complex else self.T

    @property
    def mH(self):
        return self.mT.conj() if self.dtype.is_complex else self.mT

    def conj(self):
        return self.conj_physical() if self.dtype.is_complex else self

    def dim_order(self):
        return tuple(sorted(range(len(self._shape)), key=lambda i: -self._stride[i]))

    def is_inference(self):
        """Whether this tensor was made in inference mode; a view answers for the tensor it views."""
        return (self if self._base is None else self._base)._inference


# make_tensor builds every tensor through _new: plain object.__new__ while no thread is in inference
# mode, so marking inference tensors costs nothing on the usual path
_new = object.__new__
_inference_entries = 0
_inference_lock = threading.Lock()


def _new_marking_inference(cls):
    t = object.__new__(cls)
    if _grad_state.inference:
        t._inference = True
    return t


def inference_mode_entered(delta):
    """Count a thread entering (+1) or leaving (-1) inference mode; tensors are marked while any is in."""
    global _new, _inference_entries
    with _inference_lock:
        _inference_entries += delta
        _new = _new_marking_inference if _inference_entries > 0 else object.__new__
        if _ACCEL is not None:  # the compiled constructors build through _new too
            _ACCEL.set_new(None if _new is object.__new__ else _new)


# Classes whose instances every op treats exactly as a Tensor (results are plain Tensors): the generated
# functions' fast paths take them. nn.Parameter adds itself; other subclasses take dispatch.call's path.
PLAIN_CLASSES = {Tensor}


def make_tensor(storage, shape, stride, offset, dtype, device, cls=Tensor):
    """Construct a tensor around a storage; the one way backends build results."""
    t = _new(cls)
    t._st = storage
    t._shape = shape
    t._stride = stride
    t._offset = offset
    t.dtype = dtype
    t.device = device
    t._np = None
    t._requires_grad = False
    t._grad_fn = None
    t._version = None
    t._base = None
    return t


def make_lazy_tensor(host, shape, stride, dtype, device):
    """A tensor over the host array `host` (C-contiguous, viewed whole), its Storage built from that
    array by the device allocator's `adopt(host, device)` only when someone asks for it."""
    t = _new(Tensor)
    t._st = None
    t._shape = shape
    t._stride = stride
    t._offset = 0
    t.dtype = dtype
    t.device = device
    t._np = host
    t._requires_grad = False
    t._grad_fn = None
    t._version = None
    t._base = None
    return t


_ref = weakref.ref
_ndarray = np.ndarray


def host_result(device, allocator, limit, host_dtypes, general, a, dtype=None):
    """A tensor over the kernel result `a` itself when it is a small C-contiguous ndarray (fewer than
    `limit` bytes) of dtype's host type (`host_dtypes[dtype]`), counted while it lives in the device
    allocator's `lazy` table (id -> weak reference; `allocator.sweep()` once it holds more than
    `allocator.sweep_at`); otherwise `general(a, dtype)`. A backend binds the first five arguments
    once (functools.partial) and has its result wrapper."""
    if (
        a.__class__ is not _ndarray
        or a.dtype is not host_dtypes.get(dtype)
        or a.nbytes >= limit
        or not a.flags.c_contiguous
    ):
        return general(a, dtype)
    lazy = allocator.lazy
    lazy[id(a)] = _ref(a)
    shape = a.shape
    t = make_lazy_tensor(a, shape, _c_strides(shape), dtype, device)
    if len(lazy) > allocator.sweep_at:
        allocator.sweep()
    return t


# the Python versions of what mindtorch._accel may replace: the reference its tests compare with
PYTHON_TWINS = {"make_tensor": make_tensor, "make_lazy_tensor": make_lazy_tensor, "host_result": host_result}

# the compiled twins, when built; host_result's reads ndarrays directly once the layout it assumes
# checks out on two probe arrays
if _ACCEL is not None:
    _direct = _ACCEL.setup(Tensor, _ndarray, np.empty((2, 3)), np.empty((2, 3), order="F"))
    make_lazy_tensor = _ACCEL.make_lazy_tensor
    make_tensor = _ACCEL.make_tensor
    if _direct:
        host_result = _ACCEL.host_result


def _adopt(t):
    host = t._np
    if host is None:
        raise RuntimeError("a tensor without storage has lost its host array")
    return _backend_for(t.device.type).allocator.adopt(host, t.device)


def _parse_to(args, kwargs):
    from ._device import device as _dev

    dev = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    non_blocking = kwargs.pop("non_blocking", False)
    copy = kwargs.pop("copy", False)
    kwargs.pop("memory_format", None)
    if kwargs:
        raise TypeError(
            f"to() received an invalid combination of arguments - got unexpected keyword {next(iter(kwargs))}"
        )
    rest = list(args)
    if rest and isinstance(rest[0], Tensor):
        other = rest.pop(0)
        dev, dtype = other.device, other.dtype
    if rest and (isinstance(rest[0], (str, _dev)) or (isinstance(rest[0], int) and not isinstance(rest[0], bool))):
        dev = rest.pop(0)
    if rest and (isinstance(rest[0], D.dtype) or rest[0] in (float, int, bool, complex)):
        dtype = rest.pop(0)
    if rest and isinstance(rest[0], bool):
        non_blocking = rest.pop(0)
    if rest and isinstance(rest[0], bool):
        copy = rest.pop(0)
    if rest:
        raise TypeError(
            f"to() received an invalid combination of arguments - got {tuple(type(a).__name__ for a in args)}"
        )
    if dev is not None:
        if isinstance(dev, int) and not isinstance(dev, bool):
            raise RuntimeError("to(int) is ambiguous; pass a device such as 'npu:0'")
        dev = _dev(dev)
    if dtype is not None and not isinstance(dtype, D.dtype):
        dtype = D.PY_TYPES[dtype]
    return dev, dtype, non_blocking, copy


def _to(self, *args, **kwargs):
    dev, dtype, non_blocking, copy = _parse_to(args, dict(kwargs))
    if dev is not None and dev.type != "cpu" and dev.index is None and dev.type == self.device.type:
        dev = self.device
    if dev is not None and dev.index is None and dev.type != "cpu" and dev.type != "meta":
        mod = _backend_for(dev.type).module
        idx = mod.current_device() if mod is not None and hasattr(mod, "current_device") else 0
        from ._device import device as _dev

        dev = _dev(dev.type, idx)
    same_dev = dev is None or dev == self.device
    same_dtype = dtype is None or dtype is self.dtype
    if same_dev and same_dtype and not copy:
        return self
    import mindtorch

    return mindtorch.ops._to_copy(self, dtype=dtype, device=dev, non_blocking=non_blocking)


Tensor.to = _to


def _cuda_device(device):
    """The cuda device named by Tensor.cuda / Module.cuda's argument (None, an index or a device)."""
    if device is None:
        return "cuda"
    if isinstance(device, int):
        if "cuda" not in _BACKENDS:  # PyTorch's CPU build asks the accelerator for the index first
            raise RuntimeError("Cannot access accelerator device when none is available.")
        return f"cuda:{device}"
    return device
