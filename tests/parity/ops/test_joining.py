"""cat, concat, concatenate and stack against PyTorch over a generated sweep: shapes, dims (negative
too), dtypes and their promotion, views, legacy empty tensors, many and large inputs, out=, gradients,
and bad input (PyTorch's exception class and message).

The parity session runs this file twice: as installed (core's accelerator and the cpu backend's
compiled entry in use) and with MINDTORCH_NO_ACCEL=1 MINDTORCH_CPU_NATIVE_ENTRY=ctypes, the Python
shape rule and the NumPy kernel that stay the reference."""

from helpers import torch_or_skip

torch = torch_or_skip()

import itertools  # noqa: E402

import mindtorch  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from helpers import assert_same, raises_alike  # noqa: E402

DTYPES = [
    "float32",
    "float64",
    "float16",
    "bfloat16",
    "int64",
    "int32",
    "int16",
    "int8",
    "uint8",
    "bool",
    "complex64",
]
JOIN = ("cat", "concat", "concatenate")


def _x(T, shape, dtype="float32", seed=0):
    """Small exact values of `dtype` (integers 0..4, or 0/1 for bool) in a fresh tensor of T."""
    n = int(np.prod(shape))
    vals = ((np.arange(n) * 7 + seed * 3) % (2 if dtype == "bool" else 5)).reshape(shape)
    return T.tensor(vals.astype(np.float32)).to(getattr(T, dtype))


def _same(fn, **kw):
    """fn(T) gives the same result with mindtorch as with PyTorch: shape, dtype, strides, values."""
    assert_same(fn(mindtorch), fn(torch), check_stride=True, **kw)


# --- generated cases: (id, fn(T)) -------------------------------------------------------------------
BASES = [(5,), (2, 3), (2, 1, 3), (2, 3, 1, 2)]


def _shape_cases():
    k = 0
    for base in BASES:
        r = len(base)
        for dim, n in itertools.product(range(-r, r), (1, 2, 3)):
            d = dim % r
            sizes = [base[d], 1, 0][:n] if n < 3 else [base[d], 0, 2]
            shapes = [base[:d] + (s,) + base[d + 1 :] for s in sizes]
            dtype = DTYPES[k % len(DTYPES)]
            k += 1
            yield f"{base}-dim{dim}-n{n}-{dtype}", shapes, dim, dtype


SHAPE_CASES = list(_shape_cases())


@pytest.mark.parametrize("name", JOIN)
@pytest.mark.parametrize("label,shapes,dim,dtype", SHAPE_CASES, ids=[c[0] for c in SHAPE_CASES])
def test_join_shapes_dims_dtypes(name, label, shapes, dim, dtype):
    _same(lambda T: getattr(T, name)([_x(T, s, dtype, i) for i, s in enumerate(shapes)], dim))


@pytest.mark.parametrize("dtype", DTYPES)
def test_cat_each_dtype_along_each_dim(dtype):
    for dim in (0, 1, -1):
        _same(lambda T: T.cat([_x(T, (2, 3), dtype), _x(T, (2, 3), dtype, 1), _x(T, (2, 3), dtype, 2)], dim))


PROMOTED = ["bool", "uint8", "int8", "int32", "int64", "float16", "bfloat16", "float32", "float64", "complex64"]


@pytest.mark.parametrize("first,second", list(itertools.product(PROMOTED, PROMOTED)))
def test_cat_promotes_across_inputs(first, second):
    _same(lambda T: T.cat([_x(T, (2, 3), first), _x(T, (2, 1), second, 1), _x(T, (2, 2), first, 2)], 1))


VIEWS = {
    "transposed": lambda T: _x(T, (3, 2)).t(),
    "stepped": lambda T: _x(T, (2, 6))[:, ::2],
    "offset_rows": lambda T: _x(T, (4, 3))[2:],
    "narrowed_cols": lambda T: _x(T, (2, 5))[:, 1:4],
    "expanded": lambda T: _x(T, (1, 3)).expand(2, 3),
    "permuted": lambda T: _x(T, (3, 1, 2)).permute(2, 1, 0).reshape(2, 3),
    "unsqueezed_row": lambda T: _x(T, (3,)).unsqueeze(0).expand(2, 3),
    "contiguous_view": lambda T: _x(T, (6,)).view(2, 3),
}


@pytest.mark.parametrize("view", list(VIEWS))
@pytest.mark.parametrize("dim", [0, 1, -2])
def test_cat_of_views(view, dim):
    def run(T):
        v = VIEWS[view](T)
        return T.cat([v, _x(T, (2, 3), seed=1), v], dim)

    _same(run)


def test_cat_of_the_same_view_twice_after_a_write():
    def run(T):
        base = _x(T, (4, 3))
        v = base[1:3]
        first = T.cat([v, v])
        base.mul_(2)  # the view sees the write; so must a second cat
        return T.stack([first, T.cat([v, v])])

    _same(run)


def test_cat_of_many_tensors():
    _same(lambda T: T.cat([_x(T, (2, 3), seed=i) for i in range(20)], 1))
    _same(lambda T: T.cat([_x(T, (1,), "int64", i) for i in range(33)]))


def test_cat_of_large_tensors():
    for dim in (0, 1):
        _same(lambda T: T.cat([_x(T, (300, 100)), _x(T, (300, 100), seed=1)], dim))
    _same(lambda T: T.cat([_x(T, (70000,), "uint8"), _x(T, (3,), "uint8")]))


LEGACY_EMPTY = {
    "empty_second": lambda T: T.cat([_x(T, (2, 3)), T.zeros(0)], 1),
    "empty_first": lambda T: T.cat([T.zeros(0), _x(T, (2, 3))]),
    "empty_only": lambda T: T.cat([T.zeros(0), T.zeros(0)]),
    "empty_promotes": lambda T: T.cat([_x(T, (2, 3), "int32"), T.zeros(0, dtype=T.float64)], 1),
    "empty_int_first": lambda T: T.cat([T.zeros(0, dtype=T.int64), _x(T, (2, 2), "int16")], -1),
    "empty_dim_out_of_range": lambda T: T.cat([T.zeros(0), T.zeros(0)], 5),
    "empty_1d_with_1d": lambda T: T.cat([T.zeros(0), _x(T, (3,)), T.zeros(0)]),
    "zero_rows": lambda T: T.cat([T.zeros(0, 3), _x(T, (2, 3))]),
    "zero_cols_along_rows": lambda T: T.cat([T.zeros(2, 0), T.zeros(3, 0)]),
    "single": lambda T: T.cat([_x(T, (2, 3))], -1),
    "tuple": lambda T: T.cat((_x(T, (2,)), _x(T, (3,)))),
}


@pytest.mark.parametrize("case", list(LEGACY_EMPTY))
def test_cat_legacy_empty_and_edge_inputs(case):
    _same(LEGACY_EMPTY[case])


def _stack_cases():
    k = 0
    for shape in [(), (3,), (2, 3), (2, 1, 2)]:
        r = len(shape) + 1
        for dim, n in itertools.product(range(-r, r), (1, 3)):
            dtype = DTYPES[k % len(DTYPES)]
            k += 1
            yield f"{shape}-dim{dim}-n{n}-{dtype}", shape, dim, n, dtype


STACK_CASES = list(_stack_cases())


@pytest.mark.parametrize("label,shape,dim,n,dtype", STACK_CASES, ids=[c[0] for c in STACK_CASES])
def test_stack_shapes_dims_dtypes(label, shape, dim, n, dtype):
    _same(lambda T: T.stack([_x(T, shape, dtype, i) for i in range(n)], dim))


def test_stack_promotes_and_takes_views():
    _same(lambda T: T.stack([_x(T, (2, 3), "int16"), _x(T, (3, 2), "float16").t()], 1))
    _same(lambda T: T.stack([_x(T, (2, 3), "bool"), _x(T, (2, 3), "uint8")], -1))


@pytest.mark.parametrize("name", JOIN + ("stack",))
def test_out_is_written_and_returned(name):
    def run(T):
        out = T.empty(0)
        r = getattr(T, name)([_x(T, (2, 3)), _x(T, (2, 3), seed=1)], 1, out=out)
        assert r is out
        return out

    _same(run)


def test_cat_out_of_a_wider_dtype():
    _same(lambda T: T.cat([_x(T, (2,), "int32"), _x(T, (3,), "int32")], out=T.zeros(5, dtype=T.float64)))


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cat_gradients(dim):
    def run(T):
        a = _x(T, (2, 3)).requires_grad_()
        b = _x(T, (2, 3), "float32", 1).requires_grad_()
        c = _x(T, (2, 3), seed=2)  # no grad: its part of the gradient is dropped
        r = T.cat([a, c, b], dim)
        w = T.arange(r.numel(), dtype=T.float32).reshape(r.shape)
        (r * w).sum().backward()
        assert r.grad_fn.name() == "CatBackward0"
        return [r, a.grad, b.grad]

    _same(run)


def test_stack_gradients():
    def run(T):
        a = _x(T, (2, 3)).requires_grad_()
        b = _x(T, (2, 3), seed=1).requires_grad_()
        r = T.stack([a, b], 1)
        (r * T.arange(12.0).reshape(2, 2, 3)).sum().backward()
        assert r.grad_fn.name() == "StackBackward0"
        return [r, a.grad, b.grad]

    _same(run)


@pytest.mark.parametrize("name", ["cat", "stack"])
@pytest.mark.parametrize("dim", [0, -1])
def test_gradients_across_promoted_dtypes(name, dim):
    def run(T):
        a = _x(T, (2, 3), "float16").requires_grad_()
        b = _x(T, (2, 3), "float64", 1).requires_grad_()
        c = _x(T, (2, 3), "int32", 2)
        r = getattr(T, name)([a, b, c], dim)
        (r * T.arange(r.numel(), dtype=T.float64).reshape(r.shape)).sum().backward()
        return [r, a.grad, b.grad]

    _same(run)


def test_cat_under_no_grad_records_nothing():
    def run(T):
        a = _x(T, (2, 3)).requires_grad_()
        with T.no_grad():
            r = T.cat([a, a])
        assert not r.requires_grad and r.grad_fn is None
        return r

    _same(run)


# --- bad input: PyTorch's exception class and message ---------------------------------------------
BAD = {
    "zero_dim_second": lambda T: T.cat([T.zeros(2), T.tensor(1.0)]),
    "zero_dim_first": lambda T: T.cat([T.tensor(1.0), T.zeros(2)]),
    "zero_dim_only": lambda T: T.cat([T.tensor(1.0), T.tensor(2.0)]),
    "sizes": lambda T: T.cat([T.zeros(2, 3), T.zeros(2, 4)]),
    "sizes_third": lambda T: T.cat([T.zeros(2, 3), T.zeros(1, 3), T.zeros(2, 4)], 0),
    "sizes_dim1": lambda T: T.cat([T.zeros(2, 1), T.zeros(3, 1)], -1),
    "ranks": lambda T: T.cat([T.zeros(2, 3), T.zeros(2, 3, 1)]),
    "ranks_1d": lambda T: T.cat([T.zeros(2), T.zeros(3, 1)]),
    "dim_high": lambda T: T.cat([T.zeros(2, 3), T.zeros(2, 4)], 2),
    "dim_low": lambda T: T.cat([T.zeros(2, 3), T.zeros(2, 4)], -3),
    "empty_list": lambda T: T.cat([]),
    "dim_float": lambda T: T.cat([T.zeros(2, 3)], 1.0),
    "dim_bool": lambda T: T.cat([T.zeros(2, 3)], True),
    "not_a_list": lambda T: T.cat(T.zeros(2, 3)),
    "stack_sizes": lambda T: T.stack([T.zeros(2, 3), T.zeros(2, 4)]),
    "stack_empty": lambda T: T.stack([]),
    "stack_dim_high": lambda T: T.stack([T.zeros(2), T.zeros(2)], 2),
    "stack_dim_low": lambda T: T.stack([T.zeros(2), T.zeros(2)], -3),
    "concatenate_ranks": lambda T: T.concatenate([T.zeros(2), T.zeros(3, 1)]),
    "concat_sizes_axis": lambda T: T.concat([T.zeros(2, 1), T.zeros(3, 1)], axis=-1),
    "axis_and_dim": lambda T: T.cat([T.zeros(2, 3)], 0, axis=1),
    "axis_and_dim_keyword": lambda T: T.cat([T.zeros(2, 3)], dim=1, axis=1),
    "not_a_tensor": lambda T: T.cat([T.zeros(2, 3), 1]),
    "none_in_tuple": lambda T: T.cat((T.zeros(2, 3), None)),
    "array_in_list": lambda T: T.stack([T.zeros(3), np.zeros(3)]),
    "numpy_scalar_in_list": lambda T: T.concat([T.zeros(3), np.float64(1.0)]),
    "mixed_devices": lambda T: T.cat([T.zeros(2), T.zeros(3, device="meta")]),
    "mixed_devices_meta_first": lambda T: T.cat([T.zeros(2, device="meta"), T.zeros(2), T.zeros(1)]),
    "mixed_devices_before_sizes": lambda T: T.cat([T.zeros(2, 3), T.zeros(2, 4, device="meta")]),
    "mixed_devices_before_dim": lambda T: T.cat([T.zeros(2), T.zeros(2, device="meta")], 3),
    "mixed_devices_cpu_zero_dim": lambda T: T.cat([T.zeros(2, device="meta"), T.tensor(1.0)]),
    "mixed_devices_legacy_empty": lambda T: T.cat([T.zeros(2), T.zeros(0, device="meta")]),
    "stack_mixed_devices": lambda T: T.stack([T.zeros(2), T.zeros(2, device="meta")]),
    "hstack_mixed_devices": lambda T: T.hstack([T.zeros(2), T.zeros(2, device="meta")]),
    "concat_mixed_devices": lambda T: T.concat([T.zeros(2), T.zeros(2, device="meta")]),
    "out_dtype": lambda T: T.cat([T.zeros(2)], out=T.zeros(2, dtype=T.int64)),
    "out_dtype_bool": lambda T: T.cat([T.zeros(2, dtype=T.int64)], out=T.zeros(2, dtype=T.bool)),
    "out_dtype_promoted": lambda T: T.cat([T.zeros(2, dtype=T.int64), T.zeros(2)], out=T.zeros(4, dtype=T.int32)),
    "stack_mixed_devices_zero_dim": lambda T: T.stack([T.tensor(1.0, device="meta"), T.tensor(1.0)]),
    "stack_out_dtype": lambda T: T.stack([T.zeros(2)], out=T.zeros(1, 2, dtype=T.int64)),
    "vstack_out_dtype": lambda T: T.vstack([T.zeros(2)], out=T.zeros(1, 2, dtype=T.int64)),
}
for _name in JOIN + ("stack", "hstack", "vstack", "row_stack", "dstack", "column_stack"):
    BAD[f"{_name}_out_grad"] = lambda T, n=_name: getattr(T, n)([T.zeros(2, requires_grad=True)], out=T.zeros(2))


@pytest.mark.parametrize("case", list(BAD))
def test_bad_input_raises_as_pytorch(case):
    raises_alike(BAD[case])


def test_bad_input_leaves_the_inputs_and_the_allocator_as_they_were():
    from mindtorch_cpu.allocator import ALLOCATOR

    a, b = _x(mindtorch, (2, 3)), _x(mindtorch, (2, 4))
    before = (ALLOCATOR.in_use, len(ALLOCATOR.lazy), a.tolist(), b.tolist(), a._version, b._version)
    for _ in range(3):
        with pytest.raises(RuntimeError):
            mindtorch.cat([a, b])
    assert (ALLOCATOR.in_use, len(ALLOCATOR.lazy), a.tolist(), b.tolist(), a._version, b._version) == before
    out = mindtorch.full((2,), 7, dtype=mindtorch.int64)
    for bad in ([a], [a[0], b[0]]):  # a refused dtype, a refused shape: out is not resized or written
        with pytest.raises((TypeError, RuntimeError)):
            mindtorch.cat(bad, out=out)
    assert out.tolist() == [7, 7] and out._version in (None, 0) and out.shape == (2,)
