"""The op schema table and the namespace of every op (`mindtorch.ops.<name>`)."""

# isort: skip_file  (the families' import order is the op table's listing order)
from .registry import BY_NAME, OPS, defop  # noqa: F401


def load_table():
    """Declare every op: each family module calls defop on import (the order is the table's listing order)."""
    from . import (  # noqa: F401  # noqa: F401
        complex,
        creation,
        foreach,
        indexing,
        linalg,
        nn,
        pointwise,
        random,
        reduction,
        shape,
        sorting,
        special,
        spectral,
        windows,
    )

    nn.refuse_missing_kernels()


class OpNamespace:
    """`mindtorch.ops.add(...)`: every op of the table by name, whatever its public variants."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        ops = BY_NAME.get(name)
        if not ops:
            raise AttributeError(f"no op named '{name}' in the schema table")
        from .codegen import make_callable

        fn = make_callable(ops, False)
        # kept as an instance attribute: later look-ups of this name never reach __getattr__ again
        setattr(self, name, fn)
        return fn

    def __dir__(self):
        return sorted(BY_NAME)
