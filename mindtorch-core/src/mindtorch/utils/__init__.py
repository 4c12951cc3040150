"""mindtorch.utils: data loading, activation checkpointing and the environment report."""

from . import checkpoint, data  # noqa: F401


def __getattr__(name):
    if name == "collect_env":  # imported on use: it loads every backend to report on it
        import importlib

        return importlib.import_module(f"{__name__}.collect_env")
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")
