"""Basic indexing's autograd graph against PyTorch's: a slice over a whole dimension records nothing
(PyTorch skips it), so x[:, :2] is one SliceBackward0 and x[:, :] an AliasBackward0; values,
gradients, views and in-place writes through them as in PyTorch."""

import mindtorch
import numpy as np
import pytest
from helpers import torch_or_skip

torch = torch_or_skip()

INDICES = [
    (slice(None), slice(None, 2)),
    (slice(None), slice(None, 100)),
    (slice(None, 3), slice(0, 4)),
    (slice(None), slice(None)),
    (slice(-100, None), slice(None)),
    (slice(None, None, 1),),
    (slice(None, None, 2),),
    (slice(1, None), slice(None, 4, 1)),
    (Ellipsis, slice(None, 3)),
    (None, slice(None), 1),
    (slice(0, 0), slice(None)),
    (slice(None), slice(4, None)),
    (1, slice(None, -1)),
]


def _chain(t):
    names, g = [], t.grad_fn
    while g is not None and "AccumulateGrad" not in g.name():
        names.append(g.name())
        g = g.next_functions[0][0]
    return names


@pytest.mark.parametrize("index", INDICES, ids=repr)
def test_slicing_graph_values_and_grads(index):
    out = {}
    for lib in (mindtorch, torch):
        x = lib.tensor(np.arange(12.0).reshape(3, 4), requires_grad=True)
        y = x[index]
        w = lib.tensor(np.arange(float(y.numel())).reshape(tuple(y.shape)))
        (y * w).sum().backward()
        out[lib] = (_chain(y), y.detach().numpy().copy(), x.grad.numpy().copy(), y._base is x)
    ours, theirs = out[mindtorch], out[torch]
    assert ours[0] == theirs[0]
    np.testing.assert_array_equal(ours[1], theirs[1])
    np.testing.assert_array_equal(ours[2], theirs[2])
    assert ours[3] == theirs[3]


def _version(t):
    v = t._version  # PyTorch: an int; mindtorch: its counter (None until the first write)
    return v if isinstance(v, int) else 0 if v is None else v.value


@pytest.mark.parametrize("index", [(slice(None), slice(None)), (slice(None), slice(None, 2))], ids=repr)
def test_write_through_skipped_slices_reaches_base(index):
    res = []
    for lib in (mindtorch, torch):
        x = lib.zeros(3, 4)
        v = x[index]
        v.add_(1)
        res.append((x.numpy().copy(), _version(x), _version(v)))
    np.testing.assert_array_equal(res[0][0], res[1][0])
    assert res[0][1:] == res[1][1:]


def test_whole_slice_of_a_0dim_tensor_still_raises():
    for lib in (mindtorch, torch):
        with pytest.raises(IndexError):
            lib.tensor(1.0)[:, :]
