"""Every op in every dtype: an op's samples converted to each dtype a tensor can hold.

The first samples of an op that the cpu runs are taken, and their data tensors (those of the
sample's data dtype: float32 for the float maker, else its integers, else its booleans; index
and mask tensors keep theirs) are converted to each dtype of `dtypes.TENSOR_DTYPES`. A factory
with no tensor argument gets the dtype as its `dtype=` instead. No list says which dtypes an op
takes: a variant the cpu backend refuses is not a sample (`accepted` below), so the pairs the
kit checks are exactly the (op, dtype) pairs the cpu accepts.
"""

import mindtorch
from mindtorch._dtype import TENSOR_DTYPES
from mindtorch.ops.registry import OPS

from .samples import Maker, Sample, samples_for

# how many of an op's samples (the first that the cpu runs) are converted to each dtype
PER_DTYPE = 2


def _tensors(x):
    if isinstance(x, mindtorch.Tensor):
        yield x
    elif isinstance(x, (list, tuple)):
        for a in x:
            yield from _tensors(a)
    elif isinstance(x, dict):
        for a in x.values():
            yield from _tensors(a)


def data_dtype(sample):
    """The dtype of a sample's data tensors (float32, else int64, else bool), or None for a factory."""
    found = {t.dtype for t in _tensors((sample.args, sample.kwargs))}
    for d in (mindtorch.float32, mindtorch.int64, mindtorch.bool):
        if d in found:
            return d
    return None


def convert(t, dtype):
    """`t`'s values in `dtype`, kept meaningful: floats scaled to small integers for integer types (their
    absolute values for unsigned ones), positive for bool, with an imaginary part for complex."""
    src = t.detach()
    if dtype is src.dtype:
        return src.clone()
    if dtype is mindtorch.bool:
        return src > 0 if src.is_floating_point() else src != 0
    if not dtype.is_floating_point and not dtype.is_complex:
        vals = (src.double() * 3).round() if src.is_floating_point() else src.to(mindtorch.int64)
        return (vals if dtype.is_signed else vals.abs()).to(dtype)
    if dtype.is_complex:
        real = src.double()
        return mindtorch.complex(real, 0.5 - 0.25 * real).to(dtype)
    return src.to(dtype)


def _swap(x, src, dtype):
    if isinstance(x, mindtorch.Tensor):
        return convert(x, dtype) if x.dtype is src else x
    if isinstance(x, (list, tuple)):
        return type(x)(_swap(a, src, dtype) for a in x)
    if isinstance(x, dict):
        return {k: _swap(a, src, dtype) for k, a in x.items()}
    return x


def in_dtype(sample, dtype):
    """`sample` with its data tensors in `dtype` (a factory's dtype= set instead)."""
    src = data_dtype(sample)
    if src is None:
        return Sample(*sample.args, **(sample.kwargs | {"dtype": dtype}))
    return Sample(*_swap(sample.args, src, dtype), **_swap(sample.kwargs, src, dtype))


def _runs(fn, sample):
    try:
        fn(*sample.args, **sample.kwargs)
    except Exception:
        return False
    return True


def _base(op, fn, probes):
    """Positions of the first PER_DTYPE samples the cpu runs (edge cases aside: they have their own dtypes),
    and the dtypes those are already in."""
    takes_dtype = any(p.name == "dtype" for p in op.params)
    picked, have = [], set()
    for k, s in enumerate(probes):
        d = data_dtype(s) or s.kwargs.get("dtype") or (mindtorch.get_default_dtype() if takes_dtype else None)
        if d is None or s.needs_data or not _runs(fn, s):
            continue
        picked.append(k)
        have.add(d)
        if len(picked) == PER_DTYPE:
            break
    return picked, have


def dtype_variants(qualname, fn, mode):
    """[(dtype, sample for the cpu, the same sample for the device under test)] in every dtype the op's
    first samples are not already in (whether the cpu accepts each is for the caller to find out)."""
    make = samples_for(qualname)
    picked, have = _base(OPS[qualname], fn, make(Maker(qualname, mode)))
    if not picked:
        return []
    refs, devs = make(Maker(qualname, mode)), make(Maker(qualname, mode))
    return [(d, in_dtype(refs[k], d), in_dtype(devs[k], d)) for d in TENSOR_DTYPES if d not in have for k in picked]
