"""CPU kernels by op family; each module exports KERNELS = {op name: kernel}."""
import importlib

from mindtorch.plugins import kernel_table  # noqa: F401  (the families import it from here)


FAMILIES = ("pointwise", "reduction", "indexing", "creation", "random", "linalg", "nn", "foreach", "fft")


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
