"""mindtorch.nn: modules, parameters and initialisation, built on the public tensor API."""
from .parameter import Parameter, Buffer, UninitializedParameter, UninitializedBuffer  # noqa: F401
from .modules import *  # noqa: F401,F403
from .modules import Module  # noqa: F401
from . import init  # noqa: F401
from . import utils  # noqa: F401


def __getattr__(name):
    # submodules imported on first use
    import importlib
    if name in ("functional", "parallel", "attention", "grad"):
        return importlib.import_module(f"{__name__}.{name}")
    if name == "DataParallel":
        return importlib.import_module(f"{__name__}.parallel").DataParallel
    raise AttributeError(f"module 'mindtorch.nn' has no attribute '{name}'")
