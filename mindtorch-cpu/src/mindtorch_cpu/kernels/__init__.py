"""CPU kernels by op family; each module exports KERNELS = {op name: kernel}."""

from mindtorch.plugins import kernel_table  # noqa: F401  (the families import it from here)


def all_kernels():
    # every family by name: a module missing from the wheel fails the load instead of shrinking the table
    from . import conv, creation, fft, foreach, indexing, linalg, nn, pointwise, random, reduction, rnn, special

    table = {}
    for fam in (pointwise, reduction, indexing, creation, random, linalg, nn, conv, rnn, foreach, fft, special):
        table.update(fam.KERNELS)
    return table
