"""mindtorch.nn: modules, parameters and initialisation, built on the public tensor API."""

from . import (
    init,  # noqa: F401
    utils,  # noqa: F401
)
from .modules import *  # noqa: F403
from .modules import Module  # noqa: F401
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter  # noqa: F401


def __getattr__(name):
    # submodules imported on first use
    import importlib

    if name in ("functional", "parallel", "attention", "grad", "common_types"):
        return importlib.import_module(f"{__name__}.{name}")
    if name == "DataParallel":
        return importlib.import_module(f"{__name__}.parallel").DataParallel
    raise AttributeError(f"module 'mindtorch.nn' has no attribute '{name}'")


def factory_kwargs(kwargs):
    """The device/dtype/memory_format keywords of `kwargs` (and of its nested `factory_kwargs`) as one dict
    for factory functions; any other keyword is a TypeError, as is one given twice."""
    if kwargs is None:
        return {}
    simple = {"device", "dtype", "memory_format"}
    unexpected = kwargs.keys() - simple - {"factory_kwargs"}
    if unexpected:
        raise TypeError(f"unexpected kwargs {unexpected}")
    out = dict(kwargs.get("factory_kwargs", {}))
    for k in simple & kwargs.keys():
        if k in out:
            raise TypeError(f"{k} specified twice, in **kwargs and in factory_kwargs")
        out[k] = kwargs[k]
    return out
