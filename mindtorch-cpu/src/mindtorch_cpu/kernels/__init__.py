"""CPU kernels by op family; each module exports KERNELS = {op name: kernel}."""
import importlib


def kernel_table():
    """A family's kernel dict and the decorator that fills it: @kernel("add")."""
    table = {}

    def kernel(*names):
        def deco(fn):
            for name in names:
                table[name] = fn
            return fn
        return deco
    return table, kernel

FAMILIES = ("pointwise", "reduction", "indexing", "creation", "random", "linalg", "nn", "foreach")


def all_kernels():
    table = {}
    for fam in FAMILIES:
        try:
            mod = importlib.import_module(f"{__name__}.{fam}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{fam}":
                raise
            continue
        table.update(mod.KERNELS)
    return table
