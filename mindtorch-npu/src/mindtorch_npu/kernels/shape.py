"""Shape kernels: ops that rearrange whole tensors into a new layout: cat, flip, repeat, roll, and the
triangles (tril / triu)."""

from mindtorch.plugins import kernel_table

from ..aclnn import DType, IntArray, launch
from ..copy import empty
from ._common import dense, numel, view

KERNELS, kernel = kernel_table()


@kernel("cat")
def cat(m, tensors, dim=0):
    """Each part copied into its slice of the output (aclnnInplaceCopy on a strided view of out)."""
    out = empty(m.shape, m.dtype, tensors[0].device)
    if not m.shape:
        return out
    d = dim % len(m.shape)
    pos = 0
    for t in tensors:
        if len(t._shape) == 1 and t._shape[0] == 0 and len(m.shape) != 1:
            continue  # legacy empty 1-D parts are skipped, as PyTorch does
        n = t._shape[d]
        if n:
            part = view(
                out, out._shape[:d] + (n,) + out._shape[d + 1 :], out._stride, out._offset + pos * out._stride[d]
            )
            if t.dtype is m.dtype:
                launch("InplaceCopy", part, t)
            else:
                launch("Cast", t, DType(m.dtype), part)
        pos += n
    return out


@kernel("flip")
def flip(m, a, dims):
    out = empty(m.shape, m.dtype, a.device)
    launch("Flip", a, IntArray(dims if len(a._shape) else ()), out)
    return out


@kernel("repeat")
def repeat(m, a, repeats):
    out = empty(m.shape, m.dtype, a.device)
    if numel(out):
        launch("Repeat", a, IntArray(repeats), out)
    return out


@kernel("roll")
def roll(m, a, shifts, dims=()):
    out = empty(m.shape, m.dtype, a.device)
    if numel(out):
        launch("Roll", a if dims else dense(a), IntArray(shifts), IntArray(dims), out)
    return out


def _triangle(acl):
    def out_of_place(m, a, diagonal=0):
        out = empty(m.shape, m.dtype, a.device)
        launch(acl, a, int(diagonal), out)
        return out

    def in_place(m, a, diagonal=0):
        launch("Inplace" + acl, a, int(diagonal))
        return a

    return out_of_place, in_place


KERNELS["tril"], KERNELS["tril_"] = _triangle("Tril")
KERNELS["triu"], KERNELS["triu_"] = _triangle("Triu")
