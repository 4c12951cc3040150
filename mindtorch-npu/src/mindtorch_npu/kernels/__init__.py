"""NPU kernels by op family: each op of the table that runs on the device, through ACLNN operators.

Kernels follow core's calling convention, kernel(meta, *bound args); `meta` carries the output shape and
dtype from core's shape rule, so a kernel allocates its output and launches. Each family module exports
KERNELS = {op name: kernel}; an op is registered by exactly one family. `_common` holds what they share.
"""

from . import (
    attention,
    creation,
    foreach,
    grouped_matmul,
    indexing,
    linalg,
    nn,
    pointwise,
    random,
    reduction,
    rnn,
    shape,
    sorting,
)
from ._common import contiguous  # noqa: F401  (copy.py's to_host densifies strided tensors with it)

FAMILIES = (
    creation,
    pointwise,
    reduction,
    shape,
    indexing,
    sorting,
    random,
    linalg,
    nn,
    attention,
    rnn,
    grouped_matmul,
    foreach,
)


def _assemble(families):
    table = {}
    for family in families:
        twice = table.keys() & family.KERNELS.keys()
        if twice:
            raise RuntimeError(f"{family.__name__} registers kernels another family has: {sorted(twice)}")
        table.update(family.KERNELS)
    return table


KERNELS = _assemble(FAMILIES)
