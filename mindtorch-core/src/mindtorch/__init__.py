"""mindtorch: a PyTorch-compatible tensor library whose devices are plugins.

import mindtorch as torch
"""

# isort: skip_file  (the public namespace is assembled in layer order: later imports use earlier names)
__version__ = "0.1.0"

from . import _dtype
from ._dtype import (
    bfloat16,
    bool_ as bool,
    can_cast,
    complex64,
    complex128,
    dtype,
    finfo,
    float16,
    float32,
    float64,
    get_default_dtype,
    iinfo,
    int8,
    int16,
    int32,
    int64,
    promote_types,
    result_type as _result_type,
    set_default_dtype,
    uint8,
)

globals().update(_dtype.SHELL)  # uint16/32/64 and the float8 formats
from . import _legacy
from ._legacy import layout, memory_format

globals().update(_legacy.LAYOUTS)
globals().update(_legacy.FORMATS)
globals().update(_legacy.TYPED)
globals().update(_legacy.TYPED_STORAGE_BY_NAME)
from . import _tensor_from_data
from ._device import device, get_default_device, set_default_device
from ._errors import AcceleratorError, FatalError, OutOfMemoryError
from ._geometry import Size
from ._legacy import TypedStorage
from ._storage import Storage as UntypedStorage
from ._tensor import Tensor

half, float, double, short, int, long, cfloat, cdouble = (
    float16,
    float32,
    float64,
    int16,
    int32,
    int64,
    complex64,
    complex128,
)

from . import _fpwarnings

_fpwarnings.install()  # before any NumPy work: kernels' overflow/invalid warnings stay silent, as in PyTorch

from . import ops as _ops_pkg
from .ops import codegen as _codegen

_ops_pkg.load_table()
_lazy_functions = _codegen.install(globals(), Tensor)
ops = _ops_pkg.OpNamespace()

from . import (
    _linalg_at_top_level,
    autograd,
    serialization,
)
from ._api import *
from ._flags import *
from ._generator import (
    Generator,
    default_generator as _default_generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    seed,
    set_rng_state,
)
from ._inplace_views import as_strided_
from ._linalg_at_top_level import *
from ._nn_at_top_level import *
from ._printing import get_printoptions, set_printoptions
from ._stft import istft, stft
from ._streams import Event, Stream
from ._tensor_from_data import as_tensor, from_numpy, tensor
from .autograd import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from .autograd.grad_mode import is_inference_mode_enabled

for _name in _linalg_at_top_level.METHODS:  # Tensor methods too: A.inverse(), A.det(), ...
    if not hasattr(Tensor, _name):
        setattr(Tensor, _name, getattr(_linalg_at_top_level, _name))
from . import _special_at_top_level

for _name in _special_at_top_level.METHODS:  # x.polygamma(n): the order comes second as a method
    setattr(Tensor, _name, getattr(_special_at_top_level, _name))

from ._backends import loader as _loader
from ._backends.registry import BACKENDS as _BACKENDS


def _imported_by_cli():
    """True while `python -m mindtorch` imports this package: its report says what warnings would."""
    import sys

    if sys.argv[:1] != ["-m"]:  # runpy keeps "-m" in argv[0] while it imports the package
        return False
    args = getattr(sys, "orig_argv", [])
    names = ("mindtorch", "mindtorch.__main__")
    return any(
        a[2:] in names or (a == "-m" and args[i + 1 : i + 2] in (["mindtorch"], ["mindtorch.__main__"]))
        for i, a in enumerate(args)
        if a.startswith("-m")
    )


_LOAD_ERROR = None
if _imported_by_cli():
    import warnings as _w

    with _w.catch_warnings():
        _w.simplefilter("ignore")
        try:
            _loader.load_plugins()
        except _loader.PluginLoadError as _exc:  # the report shows it and exits 1
            _LOAD_ERROR = _exc
else:
    _loader.load_plugins()

# submodules imported on first use (each exists: a missing one is a broken install and fails loudly)
_LAZY = {
    "nn",
    "optim",
    "utils",
    "linalg",
    "testing",
    "serialization",
    "backends",
    "fft",
    "special",
    "distributions",
    "distributed",
    "return_types",
    "cuda",
    "accelerator",
    "onnx",
    "jit",
    "compiler",
    "amp",
    "library",
    "version",
    "_dynamo",
    "multiprocessing",
    "func",
    "random",
    "profiler",
    "hub",
}


def __getattr__(name):
    fn = _lazy_functions.get(name)
    if fn is not None:
        return fn
    if name in _LAZY:
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    backend = _BACKENDS.get(name)
    if backend is None and _loader.deferred and _loader.finish_deferred():
        backend = _BACKENDS.get(name)
    if backend is not None and backend.module is not None:
        return backend.module
    if name == "default_generator":
        return _default_generator("cpu")
    if name == "thread_safe_generator":  # torch.random's, which imports on first use
        from .random import thread_safe_generator

        return thread_safe_generator
    if name == "GradScaler":  # torch.GradScaler: the amp one, imported on first use
        from .amp import GradScaler

        return GradScaler
    raise AttributeError(f"module 'mindtorch' has no attribute '{name}'")


def __dir__():
    return sorted(set(globals()) | set(_lazy_functions.names()) | _LAZY)


def backends_installed():
    """Device types provided by the loaded backend plugins."""
    _loader.finish_deferred()
    return sorted(_BACKENDS)


def is_tensor(obj):
    return isinstance(obj, Tensor)


def is_inference(input):
    if not isinstance(input, Tensor):
        raise TypeError(f"is_inference(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    return input.is_inference()


def is_floating_point(t):
    return t.dtype.is_floating_point


def is_complex(t):
    return t.dtype.is_complex


def numel(t):
    return t.numel()


def result_type(tensor1, tensor2):
    return _result_type(tensor1, tensor2)


def is_storage(obj):
    return isinstance(obj, UntypedStorage)


def typename(obj):
    return obj.type() if isinstance(obj, Tensor) else type(obj).__name__


if not _BACKENDS and not _loader.unknown_selected and not _imported_by_cli():  # a typo was warned about already
    import warnings as _w

    _w.warn(
        "mindtorch: no backend is loaded: "
        + (
            f"{_loader.ENV_SELECT} selects none of the installed ones ({', '.join(n for n, _ in _loader.deselected)})"
            if _loader.deselected
            else "none is installed; install mindtorch-cpu for the 'cpu' device"
        ),
        RuntimeWarning,
        stacklevel=2,
    )
