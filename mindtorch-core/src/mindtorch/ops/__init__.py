"""The op schema table and the namespace of every op (`mindtorch.ops.<name>`)."""
import importlib

from .registry import OPS, BY_NAME, defop  # noqa: F401

# Family modules declare their ops on import; order only affects listings.
FAMILIES = ("pointwise", "reduction", "shape", "indexing", "creation", "random", "linalg", "decompositions", "nn",
            "foreach", "complex", "spectral", "numeric", "tensor_algebra", "selection", "windows", "composite")


def load_table():
    for fam in FAMILIES:
        try:
            importlib.import_module(f"{__name__}.{fam}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{fam}":
                raise


class OpNamespace:
    """`mindtorch.ops.add(...)`: every op of the table by name, whatever its public variants."""

    def __init__(self):
        self._cache = {}

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        fn = self._cache.get(name)
        if fn is None:
            ops = BY_NAME.get(name)
            if not ops:
                raise AttributeError(f"no op named '{name}' in the schema table")
            from .codegen import make_callable
            fn = self._cache[name] = make_callable(ops, False)
        return fn

    def __dir__(self):
        return sorted(BY_NAME)
