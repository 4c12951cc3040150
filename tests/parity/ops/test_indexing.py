"""Indexing and joining ops against PyTorch: values, shapes, dtypes, errors, gradients."""

from helpers import torch_or_skip

torch = torch_or_skip()

import math  # noqa: E402

import mindtorch  # noqa: E402
import mindtorch as mt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from helpers import assert_same, results_or_same_error  # noqa: E402


def _x(T, shape=(3, 4), dtype="float32"):
    n = int(np.prod(shape))
    vals = ((np.arange(n) * 7) % 11 - 3).reshape(shape).astype(dtype)
    return T.tensor(vals)


def _both(fn):
    return fn(mt), fn(torch)


# fn(T) builds inputs with T and runs the op: the same code for both libraries
CASES = {
    "int": lambda T: _x(T)[1],
    "neg_int": lambda T: _x(T)[-1, -2],
    "slice_step": lambda T: _x(T)[1:, ::2],
    "slice_oob": lambda T: _x(T)[5:10],
    "none_ellipsis": lambda T: _x(T, (2, 3, 4))[None, ..., 1],
    "ellipsis_mid": lambda T: _x(T, (2, 3, 4))[0, ..., None, 2],
    "bool_scalar_true": lambda T: _x(T)[True],
    "bool_scalar_false": lambda T: _x(T)[False],
    "list": lambda T: _x(T)[[0, 2, 0]],
    "two_lists": lambda T: _x(T)[[0, 1], [3, 2]],
    "tensor_neg": lambda T: _x(T)[T.tensor([-1, 0])],
    "slice_adv": lambda T: _x(T)[1:, [1, 3]],
    "adv_separated": lambda T: _x(T, (2, 3, 4))[[0, 1], :, [2, 3]],
    "adv_adjacent": lambda T: _x(T, (2, 3, 4))[:, [0, 2], [1, 1]],
    "adv_broadcast": lambda T: _x(T)[T.tensor([[0], [2]]), T.tensor([1, 3])],
    "mask": lambda T: _x(T)[_x(T) > 2],
    "mask_row": lambda T: _x(T)[T.tensor([True, False, True])],
    "mask_then_slice": lambda T: _x(T, (2, 3, 4))[T.tensor([True, False]), 1:],
    "int32_index": lambda T: _x(T)[T.tensor([2, 0], dtype=T.int32)],
    "cat": lambda T: T.cat([_x(T), _x(T, (1, 4))]),
    "cat_dim1_promote": lambda T: T.cat([_x(T), _x(T, (3, 2), "int64")], 1),
    "cat_skip_empty": lambda T: T.cat([_x(T), T.zeros(0)], 1),
    "concat": lambda T: T.concat([_x(T), _x(T)], -1),
    "stack": lambda T: T.stack([_x(T), _x(T)], 1),
    "hstack": lambda T: T.hstack([_x(T), _x(T)]),
    "hstack_1d": lambda T: T.hstack([_x(T, (3,)), _x(T, (2,))]),
    "vstack": lambda T: T.vstack([_x(T, (4,)), _x(T)]),
    "gather": lambda T: _x(T).gather(1, T.tensor([[0, 0], [3, 1], [2, 2]])),
    "gather_small": lambda T: _x(T).gather(0, T.tensor([[2, 0]])),
    "scatter_src": lambda T: _x(T).scatter(1, T.tensor([[0, 1], [3, 2], [1, 1]]), -_x(T)),
    "scatter_value": lambda T: _x(T).scatter(0, T.tensor([[2, 0, 1]]), 9.5),
    "scatter_reduce_add": lambda T: _x(T).scatter(1, T.tensor([[0, 0]]), _x(T), reduce="add"),
    "scatter_reduce_mul": lambda T: _x(T).scatter(1, T.tensor([[0, 0]]), _x(T), reduce="multiply"),
    "scatter_add": lambda T: _x(T).scatter_add(1, T.tensor([[0, 0, 0], [1, 1, 2]]), T.ones(2, 3)),
    "scatter_add_": lambda T: _x(T).scatter_add_(0, T.tensor([[0, 0, 0, 0]]), T.ones(1, 4)),
    "index_select": lambda T: _x(T).index_select(1, T.tensor([3, 0, 3])),
    "index_select_0d": lambda T: T.tensor(5.0).index_select(0, T.tensor([0])),
    "index_add": lambda T: _x(T).index_add(0, T.tensor([0, 0]), T.ones(2, 4), alpha=2),
    "index_copy": lambda T: _x(T).index_copy(1, T.tensor([2, 0]), T.zeros(3, 2)),
    "index_fill": lambda T: _x(T).index_fill(1, T.tensor([1, 3]), -7),
    "index_fill_tensor": lambda T: _x(T).index_fill_(0, T.tensor([1]), T.tensor(4.0)),
    "masked_fill": lambda T: _x(T).masked_fill(_x(T) > 0, 0.5),
    "masked_fill_bcast": lambda T: _x(T).masked_fill(T.tensor([True, False, False, True]), T.tensor(2.0)),
    "masked_fill_grow": lambda T: _x(T, (4,)).masked_fill(T.tensor([[True], [False]]), 1.0),
    "masked_fill_": lambda T: _x(T).masked_fill_(_x(T) < 0, -1),
    "masked_fill_transposed": lambda T: _x(T).t().masked_fill(T.tensor([True, False, True]), float("nan")),
    "masked_fill_int": lambda T: _x(T, dtype="int64").masked_fill(_x(T) > 0, -5),
    "masked_fill_bool": lambda T: (_x(T) > 0).masked_fill(T.tensor([True, False, False, True]), False),
    "masked_fill_complex": lambda T: _x(T).to(T.complex64).masked_fill(_x(T) < 0, 1 + 2j),
    "masked_fill_inf_tensor": lambda T: _x(T, (2, 1, 4)).masked_fill(_x(T, (3, 1)) > 0, T.tensor(float("-inf"))),
    "masked_fill_half": lambda T: _x(T).half().masked_fill(_x(T) > 2, 0.1),
    "masked_select": lambda T: _x(T).masked_select(_x(T) > 1),
    "masked_select_bcast": lambda T: _x(T).masked_select(T.tensor([True, False, False, True])),
    "nonzero": lambda T: T.nonzero(_x(T) > 2),
    "nonzero_tuple": lambda T: T.nonzero(_x(T) > 2, as_tuple=True),
    "nonzero_0d": lambda T: T.tensor(3).nonzero(),
    "argwhere": lambda T: T.argwhere(_x(T, (2, 2, 3))),
    "where_1arg": lambda T: T.where(_x(T) > 0),
    "tril": lambda T: _x(T).tril(),
    "tril_k": lambda T: _x(T, (2, 3, 4)).tril(1),
    "triu_neg": lambda T: _x(T).triu(-1),
    "triu_": lambda T: _x(T).triu_(2),
    "flip": lambda T: _x(T, (2, 3, 4)).flip(0, 2),
    "flip_neg": lambda T: T.flip(_x(T), [-1]),
    "roll_flat": lambda T: _x(T).roll(5),
    "roll_dims": lambda T: _x(T).roll((1, -1), (0, 1)),
    "repeat": lambda T: _x(T, (2, 3)).repeat(2, 1, 3),
    "repeat_interleave": lambda T: _x(T).repeat_interleave(2),
    "repeat_interleave_dim": lambda T: _x(T).repeat_interleave(T.tensor([1, 0, 2]), dim=0),
    "repeat_interleave_t": lambda T: T.repeat_interleave(T.tensor([2, 1])),
    "tile": lambda T: _x(T).tile((2,)),
    "tile_more": lambda T: _x(T, (3,)).tile((2, 2)),
    "sort": lambda T: _x(T).sort(),
    "sort_desc_dim0": lambda T: _x(T).sort(0, descending=True),
    "sort_stable_ties": lambda T: T.tensor([2, 1, 2, 1, 2]).sort(stable=True, descending=True),
    "sort_nan": lambda T: T.tensor([1.0, float("nan"), -1.0]).sort(descending=True),
    "argsort": lambda T: _x(T).argsort(dim=0),
    "argsort_stable": lambda T: T.tensor([3, 1, 3, 1]).argsort(stable=True),
    "topk": lambda T: T.tensor([[1.0, 5, 3, 2], [9, 0, 4, 8]]).topk(2),
    "topk_smallest": lambda T: T.tensor([[1.0, 5, 3, 2], [9, 0, 4, 8]]).topk(3, dim=1, largest=False),
    "topk_dim0": lambda T: T.tensor([[1.0, 5, 3, 2], [9, 0, 4, 8]]).topk(1, 0),
    "unique": lambda T: T.unique(T.tensor([3, 1, 2, 1, 3])),
    "unique_all": lambda T: T.unique(T.tensor([[3, 1], [1, 3]]), return_inverse=True, return_counts=True),
    "unique_dim": lambda T: T.unique(T.tensor([[1, 2], [0, 5], [1, 2]]), dim=0, return_inverse=True),
    "searchsorted": lambda T: T.searchsorted(T.tensor([1, 3, 5, 7]), T.tensor([[3, 6], [0, 9]])),
    "searchsorted_right": lambda T: T.searchsorted(T.tensor([1, 3, 5, 7]), T.tensor([3, 5]), right=True),
    "searchsorted_side": lambda T: T.searchsorted(T.tensor([1.0, 3, 5]), T.tensor([3.0]), side="right", out_int32=True),
    "searchsorted_batched": lambda T: T.searchsorted(T.tensor([[1, 3], [2, 4]]), T.tensor([[2], [4]])),
    "searchsorted_scalar": lambda T: T.searchsorted(T.tensor([1, 3, 5]), 4),
    "bincount": lambda T: T.bincount(T.tensor([1, 1, 4])),
    "bincount_w": lambda T: T.bincount(T.tensor([1, 1, 4]), T.tensor([0.5, 1.0, 2.0]), minlength=7),
    "bincount_w_int": lambda T: T.bincount(T.tensor([0, 2]), T.tensor([1, 2])),
    "diag_1d": lambda T: T.diag(_x(T, (3,)), 1),
    "diag_2d": lambda T: T.diag(_x(T), -1),
    "meshgrid_ij": lambda T: T.meshgrid([_x(T, (2,)), _x(T, (3,))], indexing="ij"),
    "meshgrid_xy": lambda T: T.meshgrid([_x(T, (2,)), _x(T, (3,)), _x(T, (4,))], indexing="xy"),
    "take": lambda T: T.take(_x(T), T.tensor([[0, -1], [5, 2]])),
    "take_along_dim": lambda T: T.take_along_dim(_x(T), T.tensor([[0], [3], [1]]), 1),
    "take_along_dim_none": lambda T: T.take_along_dim(_x(T), T.tensor([0, 11])),
    "take_along_dim_bcast": lambda T: T.take_along_dim(_x(T), T.tensor([[0, 2]]), 1),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_forward(name):
    a, b = _both(CASES[name])
    assert_same(a, b)


def _pad(T, shape, pad, mode, value=None):
    f = torch.nn.functional.pad if T is torch else mt.ops.pad
    x = _x(T, shape)
    return f(x, pad, mode=mode, value=value) if value is not None else f(x, pad, mode=mode)


@pytest.mark.parametrize(
    "shape,pad,mode,value",
    [
        ((3, 4), (1, 2), "constant", None),
        ((3, 4), (1, 2, 0, 1), "constant", 1.5),
        ((3, 4), (-1, 1, 1, -2), "constant", None),
        ((2, 3, 4), (2, 1), "reflect", None),
        ((1, 3, 4), (1, 1, 2, 0), "reflect", None),
        ((2, 3), (2, 3), "replicate", None),
        ((1, 2, 3, 4), (1, 1, 1, 1), "replicate", None),
        ((2, 4), (2, 1), "circular", None),
        ((1, 2, 3), (1, 0, 1, 1), "circular", None),
    ],
)
def test_pad(shape, pad, mode, value):
    assert_same(_pad(mt, shape, pad, mode, value), _pad(torch, shape, pad, mode, value))


def test_one_hot():
    assert_same(mt.ops.one_hot(mt.tensor([0, 2, 1])), torch.nn.functional.one_hot(torch.tensor([0, 2, 1])))
    assert_same(mt.ops.one_hot(mt.tensor([[0], [2]]), 5), torch.nn.functional.one_hot(torch.tensor([[0], [2]]), 5))


ERRORS = {
    "int_oob": lambda T: _x(T)[5],
    "tensor_oob": lambda T: _x(T)[:, T.tensor([4])],
    "too_many": lambda T: _x(T)[0, 0, 0],
    "float_index": lambda T: _x(T)[T.tensor([0.5])],
    "mask_shape": lambda T: _x(T)[T.tensor([True, False])],
    "zero_dim_int": lambda T: T.tensor(1.0)[0],
    "gather_oob": lambda T: _x(T).gather(1, T.tensor([[5]])),
    "gather_ndim": lambda T: _x(T).gather(1, T.tensor([1])),
    "gather_dtype": lambda T: _x(T).gather(1, T.tensor([[1]], dtype=T.int16)),
    "scatter_reduce_bad": lambda T: _x(T).scatter(1, T.tensor([[0]]), 1.0, reduce="foo"),
    "index_select_2d": lambda T: _x(T).index_select(1, T.tensor([[1]])),
    "masked_fill_mask_dtype": lambda T: _x(T).masked_fill(T.tensor([1, 0, 1, 0]), 1.0),
    "masked_fill_value_dim": lambda T: _x(T).masked_fill(T.tensor([True, False, True, True]), T.tensor([1.0, 2])),
    "bincount_neg": lambda T: T.bincount(T.tensor([-1, 2])),
    "bincount_2d": lambda T: T.bincount(T.tensor([[1, 2]])),
    "cat_shape": lambda T: T.cat([_x(T), T.zeros(2, 2)]),
    "cat_ndim": lambda T: T.cat([_x(T), T.zeros(2)]),
    "cat_0d": lambda T: T.cat([T.tensor(1.0), T.tensor(2.0)]),
    "stack_shape": lambda T: T.stack([_x(T), T.zeros(3)]),
    "index_put_dtype": lambda T: _x(T).index_put_((T.tensor([0]),), T.tensor([1.0], dtype=T.float64)),
    "searchsorted_side": lambda T: T.searchsorted(T.tensor([1, 2]), T.tensor([1]), side="left", right=True),
    "topk_k": lambda T: _x(T).topk(5),
    "repeat_dims": lambda T: _x(T).repeat(2),
    "flip_dup": lambda T: _x(T).flip(0, 0),
    "roll_align": lambda T: T.roll(_x(T), (1, 2), (0,)),
    "diag_3d": lambda T: T.diag(T.zeros(2, 2, 2)),
    "tril_1d": lambda T: T.zeros(3).tril(),
    "index_fill_value_dim": lambda T: _x(T).index_fill(1, T.tensor([0]), T.tensor([1.0])),
    "index_select_0d": lambda T: T.tensor(5.0).index_select(0, T.tensor([0, 0])),
    "dim_oob": lambda T: _x(T).index_select(2, T.tensor([0])),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors(name):
    with pytest.raises(Exception) as theirs:
        ERRORS[name](torch)
    with pytest.raises(Exception) as ours:
        ERRORS[name](mt)
    assert ours.type is theirs.type or issubclass(ours.type, theirs.type), (ours.value, theirs.value)


@pytest.mark.parametrize(
    "shape,pad,mode",
    [
        ((3, 4), (1, 2), "constant"),
        ((2, 3), (-1, 2, 1, 0), "constant"),
        ((2, 3, 4), (5, 5), "reflect"),
        ((3,), (1,), "constant"),
    ],
)
def test_pad_errors_and_shapes(shape, pad, mode):
    try:
        want = torch.nn.functional.pad(_x(torch, shape), pad, mode=mode)
    except Exception as e:
        with pytest.raises(type(e)):
            mt.ops.pad(_x(mt, shape), pad, mode=mode)
        return
    assert_same(mt.ops.pad(_x(mt, shape), pad, mode=mode), want)


# --- setitem -------------------------------------------------------------------

SETITEM = {
    "int_scalar": (lambda T: 1, 5.0),
    "slice_tensor": (lambda T: (slice(None), 1), "row"),
    "step": (lambda T: (slice(None, None, 2), slice(1, None)), -2.0),
    "ellipsis": (lambda T: (Ellipsis, 0), "col"),
    "mask": (lambda T: _x(T) > 2, 0.0),
    "mask_tensor": (lambda T: _x(T) > 2, "masked"),
    "list": (lambda T: [0, 2], 9.0),
    "adv_pair": (lambda T: ([0, 1, 2], [3, 2, 1]), "three"),
    "adv_slice": (lambda T: (slice(1, None), [0, 3]), "two_by_two"),
    "leading_ones": (lambda T: 0, "one_row"),
    "int_tensor_value": (lambda T: (Ellipsis, 2), "int"),
}


def _value(T, kind):
    if not isinstance(kind, str):
        return kind
    return {
        "row": lambda: T.tensor([7.0, 8, 9]),
        "col": lambda: T.tensor([1.0, 2, 3]),
        "masked": lambda: T.tensor(3.5),
        "three": lambda: T.tensor([1.0, 2, 3]),
        "two_by_two": lambda: T.tensor([[1.0, 2], [3, 4]]),
        "one_row": lambda: T.tensor([[1.0, 2, 3, 4]]),
        "int": lambda: T.tensor([1, 2, 3]),
    }[kind]()


@pytest.mark.parametrize("name", sorted(SETITEM))
def test_setitem(name):
    key, kind = SETITEM[name]
    res = []
    for T in (mt, torch):
        x = _x(T)
        x[key(T)] = _value(T, kind)
        res.append(x)
    assert_same(*res)


def test_setitem_writes_through_views():
    a = mt.zeros(3, 4)
    v = a[1:]
    v[:, [0, 2]] = 1.0
    t = torch.zeros(3, 4)
    tv = t[1:]
    tv[:, [0, 2]] = 1.0
    assert_same(a, t)


@pytest.mark.parametrize(
    "key",
    [
        lambda T: 1,
        lambda T: (slice(None), slice(1, 3)),
        lambda T: (None, 0),
        lambda T: (Ellipsis, slice(None, None, 2)),
    ],
)
def test_basic_index_is_view_with_torch_strides(key):
    a = _x(mt)
    v = a[key(mt)]
    tv = _x(torch)[key(torch)]
    assert_same(v, tv, check_stride=True)
    assert v.storage_offset() == tv.storage_offset()
    assert v.untyped_storage() is a.untyped_storage()


# --- gradients ------------------------------------------------------------------

GRADS = {
    "basic": lambda T, x: x[1:, ::2] * 2,
    "int": lambda T, x: x[1],
    "adv_repeat": lambda T, x: x[[0, 0, 2], 1:],
    "adv_pair": lambda T, x: x[T.tensor([[0, 0]]), T.tensor([[1, 1]])],
    "mask": lambda T, x: x[x > 0],
    "cat": lambda T, x: T.cat([x, x[:1] * 3, T.zeros(0)], 0),
    "stack": lambda T, x: T.stack([x, x * 2], 2),
    "gather": lambda T, x: x.gather(1, T.tensor([[0, 0], [1, 3], [2, 2]])),
    "scatter": lambda T, x: x.scatter(1, T.tensor([[0], [1], [3]]), x[:, 1:2] * 5),
    "scatter_add": lambda T, x: T.zeros(3, 4, dtype=x.dtype).scatter_add(0, T.tensor([[0, 0, 1, 1]]), x[:1]),
    "index_select": lambda T, x: x.index_select(0, T.tensor([2, 2, 0])),
    "index_add": lambda T, x: x.index_add(1, T.tensor([0, 0]), x[:, :2], alpha=3),
    "index_copy": lambda T, x: x.index_copy(1, T.tensor([3, 0]), x[:, 1:3] * 2),
    "index_fill": lambda T, x: x.index_fill(0, T.tensor([1]), 2.0),
    "masked_fill": lambda T, x: x.masked_fill(x > 0, 1.0),
    "masked_select": lambda T, x: x.masked_select(T.tensor([True, False, True, True])),
    "tril": lambda T, x: x.triu(1) + x.tril(-1),
    "flip_roll": lambda T, x: x.flip(1).roll((1,), (0,)),
    "repeat_tile": lambda T, x: x.repeat(2, 1, 1).sum(0) + x.tile((1, 1)),
    "repeat_interleave": lambda T, x: x.repeat_interleave(T.tensor([1, 0, 3]), dim=0),
    "sort": lambda T, x: x.sort(1, descending=True).values * T.arange(4, dtype=x.dtype),
    "topk": lambda T, x: x.topk(2, 0).values * T.tensor([[1.0], [3.0]], dtype=x.dtype),
    "diag": lambda T, x: T.diag(x, 1).sum() * T.diag(x[0]),
    "take": lambda T, x: T.take(x, T.tensor([0, 0, 5])),
    "take_along_dim": lambda T, x: T.take_along_dim(x, T.tensor([[1], [1], [0]]), 1),
    "index_put": lambda T, x: x.index_put((T.tensor([0, 0]),), x[1:], accumulate=True),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_grad_matches_torch(name):
    base = np.random.default_rng(3).permutation(12).reshape(3, 4).astype("float64") - 5.5
    outs = []
    for T in (mt, torch):
        x = T.tensor(base, requires_grad=True)
        y = GRADS[name](T, x)
        w = T.tensor(np.arange(1, 1 + int(np.prod(tuple(y.shape)))).reshape(tuple(y.shape)) % 5 * 1.0)
        (y * w).sum().backward()
        outs.append((y.detach(), x.grad))
    assert_same(outs[0][0], outs[1][0])
    assert_same(outs[0][1], outs[1][1])


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_pad_grad(mode):
    base = np.arange(12.0).reshape(1, 3, 4)
    grads = []
    for T, f in ((mt, mt.ops.pad), (torch, torch.nn.functional.pad)):
        x = T.tensor(base, requires_grad=True)
        y = f(x, (2, 1), mode=mode)
        (y * T.arange(float(np.prod(tuple(y.shape)))).reshape(tuple(y.shape))).sum().backward()
        grads.append(x.grad)
    assert_same(*grads)


def test_setitem_grad():
    outs = []
    for T in (mt, torch):
        x = T.tensor(np.arange(12.0).reshape(3, 4), requires_grad=True)
        v = T.tensor([1.0, 2.0], dtype=T.float64, requires_grad=True)
        y = x * 1
        y[[0, 2], 1] = v * 3
        y[1] = 0.0
        (y * T.arange(12.0).reshape(3, 4)).sum().backward()
        outs.append((y.detach(), x.grad, v.grad))
        with pytest.raises(RuntimeError):
            y.detach()[[0]] = T.tensor([1.0])  # float32 value into float64: dtypes must match
    for a, b in zip(*outs):
        assert_same(a, b)


STACK_INPUTS = [
    [(3,), (3,)],
    [(), ()],
    [(2, 3), (2, 3)],
    [(2, 3), (2, 1)],
    [(2, 2, 2), (2, 1, 2)],
    [(2,), (2, 3)],
    [(2, 3, 4), (2,)],
    [(2, 3), (2,)],
    [],
]


@pytest.mark.parametrize("name", ["hstack", "vstack", "dstack", "column_stack", "row_stack"])
@pytest.mark.parametrize("shapes", STACK_INPUTS)
def test_stacking(name, shapes):
    data = [np.arange(float(np.prod(s, dtype=int))).reshape(s) for s in shapes]
    mt, th = results_or_same_error(lambda L: getattr(L, name)([L.tensor(d) for d in data]))
    if th is not None:
        assert_same(mt, th)


def test_unique_keeps_every_nan():
    vals = [math.nan, 1.0, math.nan, 2.0, 1.0]
    mt = mindtorch.unique(mindtorch.tensor(vals), return_inverse=True, return_counts=True)
    th = torch.unique(torch.tensor(vals), return_inverse=True, return_counts=True)
    for a, b in zip(mt, th):
        assert_same(a, b)
