"""mindtorch: a PyTorch-compatible tensor library whose devices are plugins.

    import mindtorch as torch
"""
__version__ = "0.1.0"

from . import _dtype
from ._dtype import (dtype, bool_ as bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32,  # noqa
                     float64, complex64, complex128, promote_types, can_cast, get_default_dtype,
                     set_default_dtype)
from ._dtype import result_type as _result_type
from ._dtype import finfo, iinfo  # noqa: F401,E402

globals().update(_dtype.SHELL)  # uint16/32/64 and the float8 formats
from . import _legacy  # noqa: E402
from ._legacy import layout, memory_format  # noqa: E402,F401

globals().update(_legacy.LAYOUTS)
globals().update(_legacy.FORMATS)
globals().update(_legacy.TYPED)
from ._device import device, set_default_device, get_default_device  # noqa: F401
from ._geometry import Size  # noqa: F401
from ._tensor import Tensor  # noqa: F401
from . import _tensor_from_data  # noqa: F401  (attaches Tensor(...) and Tensor.new_tensor)
from ._storage import Storage as UntypedStorage  # noqa: F401
from ._errors import OutOfMemoryError  # noqa: F401

half, float, double, short, int, long, cfloat, cdouble = float16, float32, float64, int16, int32, int64, \
    complex64, complex128  # noqa: A001

from . import _fpwarnings  # noqa: E402

_fpwarnings.install()  # before any NumPy work: kernels' overflow/invalid warnings stay silent, as in PyTorch

from . import ops as _ops_pkg  # noqa: E402
from .ops import codegen as _codegen  # noqa: E402

_ops_pkg.load_table()
_lazy_functions = _codegen.install(globals(), Tensor)
ops = _ops_pkg.OpNamespace()

from ._tensor_from_data import tensor, as_tensor, from_numpy  # noqa: E402,F401
from ._generator import (Generator, manual_seed, seed, initial_seed, get_rng_state, set_rng_state,  # noqa: E402,F401
                      default_generator as _default_generator)
from .autograd import (no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled)  # noqa: E402,F401
from .autograd.grad_mode import is_inference_mode_enabled  # noqa: E402,F401
from ._printing import set_printoptions, get_printoptions  # noqa: E402,F401
from . import autograd  # noqa: E402,F401
from . import serialization  # noqa: E402,F401  (Tensor.__reduce_ex__)
from ._api import *  # noqa: E402,F401,F403
from ._nn_at_top_level import *  # noqa: E402,F401,F403
from ._flags import *  # noqa: E402,F401,F403
from ._linalg_at_top_level import *  # noqa: E402,F401,F403
from . import _linalg_at_top_level  # noqa: E402

for _name in _linalg_at_top_level.METHODS:  # Tensor methods too: A.inverse(), A.det(), ...
    if not hasattr(Tensor, _name):
        setattr(Tensor, _name, getattr(_linalg_at_top_level, _name))

from ._backends import loader as _loader  # noqa: E402
from ._backends.registry import BACKENDS as _BACKENDS  # noqa: E402


def _imported_by_cli():
    """True while `python -m mindtorch` imports this package: its report says what warnings would."""
    import sys
    if sys.argv[:1] != ["-m"]:  # runpy keeps "-m" in argv[0] while it imports the package
        return False
    args = getattr(sys, "orig_argv", [])
    names = ("mindtorch", "mindtorch.__main__")
    return any(a[2:] in names or (a == "-m" and args[i + 1:i + 2] in (["mindtorch"], ["mindtorch.__main__"]))
               for i, a in enumerate(args) if a.startswith("-m"))


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
_LAZY = {"nn", "optim", "utils", "linalg", "testing", "serialization", "backends", "fft", "special", "distributions",
         "distributed", "return_types", "cuda", "accelerator", "onnx", "jit", "compiler", "amp", "library", "version",
         "_dynamo", "multiprocessing", "func"}


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
    _w.warn("mindtorch: no backend is loaded: " + (
        f"{_loader.ENV_SELECT} selects none of the installed ones ({', '.join(n for n, _ in _loader.deselected)})"
        if _loader.deselected else "none is installed; install mindtorch-cpu for the 'cpu' device"),
        RuntimeWarning, stacklevel=2)
