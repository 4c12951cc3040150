"""Torch-free tests of tensor(), from_numpy/numpy() sharing, factories and the new stacking ops."""

import mindtorch as torch
import numpy as np
import pytest

T = torch.tensor


@pytest.mark.parametrize(
    "data, dtype",
    [
        ([1, 2], torch.int64),
        ([1.0, 2], torch.float32),
        ([True], torch.bool),
        ([1, 2.5], torch.float32),
        ([True, 2], torch.int64),
        (1 + 2j, torch.complex64),
        ([], torch.float32),
        (3, torch.int64),
        (np.float32(1), torch.float32),
        (np.array([1, 2], dtype=np.int32), torch.int32),
        (np.array([1.0]), torch.float64),
    ],
)
def test_tensor_dtype_inference(data, dtype):
    assert T(data).dtype is dtype


def test_tensor_shapes():
    assert T([[]]).shape == (1, 0)
    assert T(3).shape == () and T(3).dim() == 0
    assert T([[1, 2], [3, 4]]).shape == (2, 2)


def test_tensor_copies_numpy_input():
    a = np.zeros(3, dtype=np.float32)
    t = T(a)
    a[0] = 5
    assert t.tolist() == [0.0, 0.0, 0.0]


def test_from_numpy_shares_memory_both_ways():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = torch.from_numpy(a)
    assert t.dtype is torch.float32 and t.shape == (2, 3) and t.stride() == (3, 1)
    t[0, 0] = 9
    assert a[0, 0] == 9
    n = t.numpy()
    n[1, 1] = 7
    assert t[1, 1].item() == 7
    assert np.shares_memory(n, a)


def test_from_numpy_strides_and_errors():
    a = np.arange(12, dtype=np.int64).reshape(3, 4)[:, ::2]
    t = torch.from_numpy(a)
    assert t.stride() == (4, 2)
    with pytest.raises(TypeError, match="can't convert np.ndarray of type numpy.str_"):
        torch.from_numpy(np.array(["a"]))


def test_numpy_requires_grad_error():
    with pytest.raises(RuntimeError, match=r"Can't call numpy\(\) on Tensor that requires grad"):
        torch.ones(2, requires_grad=True).numpy()


def test_factories():
    assert torch.zeros(2, 3).stride() == (3, 1)
    assert torch.empty(2, 0, 3).stride() == (3, 3, 1)
    assert torch.arange(5).dtype is torch.int64
    assert torch.arange(1, 4).tolist() == [1, 2, 3]
    assert torch.arange(0, 1, 0.25).tolist() == [0.0, 0.25, 0.5, 0.75]
    assert torch.arange(10, 0, -3).tolist() == [10, 7, 4, 1]
    assert torch.linspace(0, 1, 5).tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert torch.full((2,), 3).dtype is torch.int64
    assert torch.full((2,), 3.0).dtype is torch.float32
    assert torch.full((2,), True).dtype is torch.bool
    assert torch.eye(2, 3).tolist() == [[1, 0, 0], [0, 1, 0]]
    assert torch.ones(2, dtype=torch.int8).dtype is torch.int8
    assert torch.zeros_like(T([1, 2])).dtype is torch.int64
    assert torch.ones((2, 3)).shape == (2, 3) and torch.empty(3).shape == (3,)


# --- broadcast_tensors / atleast_nd / stacking -------------------------------------------


def test_broadcast_tensors():
    a, b = torch.broadcast_tensors(torch.ones(2, 1), torch.ones(3))
    assert a.shape == (2, 3) and b.shape == (2, 3)
    assert a.stride() == (1, 0) and b.stride() == (0, 1)
    assert torch.broadcast_tensors() == ()
    with pytest.raises(TypeError, match="expected Tensor as element 0 in argument 0, but got list"):
        torch.broadcast_tensors([torch.ones(2)])  # as PyTorch: the tensors one by one only
    with pytest.raises(
        RuntimeError,
        match=r"The size of tensor a \(2\) must match the size of tensor b \(3\) at "
        r"non-singleton dimension 0",
    ):
        torch.broadcast_tensors(torch.ones(2), torch.ones(3))


def test_broadcast_tensors_is_a_view_and_differentiable():
    x = torch.ones(2, 1, requires_grad=True)
    y, _ = torch.broadcast_tensors(x, torch.ones(3))
    (y * 2).sum().backward()
    assert x.grad.tolist() == [[6.0], [6.0]]
    base = torch.zeros(2, 1)
    v, _ = torch.broadcast_tensors(base, torch.ones(3))
    base[0, 0] = 4
    assert v[0].tolist() == [4.0, 4.0, 4.0]


def test_broadcast_shapes_helper():
    from mindtorch._geometry import broadcast_shapes_public as bs

    assert bs((2, 1), (3,)) == (2, 3) and repr(bs((2, 1), (3,))) == "torch.Size([2, 3])"
    assert bs(2, (3, 1)) == (3, 2)
    assert bs() == ()
    assert bs((1,), (0,)) == (0,)
    with pytest.raises(
        RuntimeError,
        match=r"Attempting to broadcast a dimension of length 3 at -1! Mismatching "
        r"argument at index 1 had \(3,\); but expected shape should be "
        r"broadcastable to \[2\]",
    ):
        bs((2,), (3,))
    with pytest.raises(ValueError, match="negative length"):
        bs((-1,), (2,))


@pytest.mark.parametrize(
    "shape, nd, expected, stride",
    [
        ((), 1, (1,), (1,)),
        ((3,), 1, (3,), (1,)),
        ((), 2, (1, 1), None),
        ((3,), 2, (1, 3), (3, 1)),
        ((2, 3), 2, (2, 3), (3, 1)),
        ((), 3, (1, 1, 1), None),
        ((3,), 3, (1, 3, 1), (3, 1, 1)),
        ((2, 3), 3, (2, 3, 1), (3, 1, 1)),
        ((2, 3, 4), 3, (2, 3, 4), (12, 4, 1)),
    ],
)
def test_atleast_nd(shape, nd, expected, stride):
    x = torch.zeros(shape)
    r = getattr(torch, f"atleast_{nd}d")(x)
    assert r.shape == expected
    if stride is not None:
        assert r.stride() == stride


def test_atleast_sequences():
    x, y = T(1.0), T([1.0, 2.0])
    r = torch.atleast_1d(x, y)
    assert isinstance(r, tuple) and [t.shape for t in r] == [(1,), (2,)]
    r = torch.atleast_1d([x])
    assert isinstance(r, tuple) and r[0].shape == (1,)
    r = torch.atleast_2d([x, y])
    assert [t.shape for t in r] == [(1, 1), (1, 2)]


@pytest.mark.parametrize("name", ["hstack", "vstack", "dstack", "column_stack", "row_stack"])
def test_stacking_empty_list(name):
    with pytest.raises(
        RuntimeError, match=f"{'vstack' if name == 'row_stack' else name} expects a non-empty TensorList"
    ):
        getattr(torch, name)([])


def test_dstack_and_column_stack():
    assert torch.dstack([T(1.0), T(2.0)]).shape == (1, 1, 2)
    r = torch.dstack((T([1, 2, 3]), T([4, 5, 6])))
    assert r.shape == (1, 3, 2) and r.tolist() == [[[1, 4], [2, 5], [3, 6]]]
    assert torch.dstack([torch.ones(2, 3), torch.zeros(2, 3)]).shape == (2, 3, 2)
    assert torch.column_stack([T(1), T(2)]).tolist() == [[1, 2]]
    r = torch.column_stack([T([1, 2]), T([[3, 4], [5, 6]])])
    assert r.tolist() == [[1, 3, 4], [2, 5, 6]]
    assert torch.column_stack([torch.ones(2, 2, 2), torch.zeros(2, 1, 2)]).shape == (2, 3, 2)
    assert torch.row_stack([T([1, 2]), T([3, 4])]).tolist() == [[1, 2], [3, 4]]
    with pytest.raises(RuntimeError, match="Tensors must have same number of dimensions: got 3 and 2"):
        torch.column_stack([torch.ones(2, 3, 4), torch.ones(2)])
    with pytest.raises(RuntimeError, match="Sizes of tensors must match except in dimension 2"):
        torch.dstack([torch.ones(2, 3), torch.ones(2)])


# --- number-first overloads ------------------------------------------------------------


def test_scalar_first_overloads():
    t = T([3, 4])
    assert torch.remainder(2, t).tolist() == [2, 2]
    r = torch.remainder(2.5, T([2]))
    assert r.dtype is torch.float32 and r.tolist() == [0.5]
    assert torch.bitwise_and(2, t).tolist() == [2, 0]
    assert torch.bitwise_or(2, t).tolist() == [3, 6]
    assert torch.bitwise_xor(2, t).tolist() == [1, 6]
    assert torch.bitwise_left_shift(2, t).tolist() == [16, 32]
    assert torch.bitwise_right_shift(64, t).tolist() == [8, 4]
    assert torch.bitwise_and(True, T([True, False])).tolist() == [True, False]
    r = torch.float_power(2, t)
    assert r.dtype is torch.float64 and r.tolist() == [8.0, 16.0]
    with pytest.raises(TypeError, match="received an invalid combination of arguments"):
        torch.remainder(2, 3)


def test_scalar_first_remainder_has_no_derivative():
    f = T([1.5, 2.0], requires_grad=True)
    r = torch.remainder(5, f)
    with pytest.raises(RuntimeError, match="derivative for aten::remainder is not implemented"):
        r.sum().backward()


# --- clamp ------------------------------------------------------------------------------


def test_clamp_one_sided_and_inplace():
    nan = float("nan")
    x = T([nan, 1.0, -3.0, 5.0])

    def vals(t):
        return ["nan" if v != v else v for v in t.tolist()]

    assert vals(x.clamp(min=0)) == ["nan", 1, 0, 5]
    assert vals(x.clamp(max=0)) == ["nan", 0, -3, 0]
    assert vals(x.clamp(2, 1)) == ["nan", 1, 1, 1]
    y = x.clone()
    assert y.clamp_(min=-1) is y and vals(y) == ["nan", 1, -1, 5]
    y = x.clone()
    y.clamp_max_(0.5)
    assert vals(y) == ["nan", 0.5, -3, 0.5]
    i = T([1, 2, 200], dtype=torch.uint8)
    assert i.clamp(max=3).tolist() == [1, 2, 3] and i.clamp(max=3).dtype is torch.uint8
    h = T([1.0, 2.0, 3.0], dtype=torch.float16)
    assert h.clamp(min=2).tolist() == [2, 2, 3] and h.clone().clamp_(max=2).tolist() == [1, 2, 2]
    b = T([1.0, 2.0, 3.0], dtype=torch.bfloat16)
    assert b.clamp(min=2).dtype is torch.bfloat16 and b.clone().clamp_(max=2).tolist() == [1, 2, 2]
    nc = torch.arange(6.0).reshape(2, 3).t()  # non-contiguous in-place
    nc.clamp_(1, 4)
    assert nc.tolist() == [[1, 3], [1, 4], [2, 4]]


def test_factory_overload_honours_requires_grad():
    assert torch.arange(1.0, 9.0, requires_grad=True).requires_grad  # arange has several overloads
    assert not torch.arange(1.0, 9.0).requires_grad


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"dtype": torch.float64}, {"dtype": torch.int32}, {"device": "cpu"}, {"requires_grad": True}],
    ids=repr,
)
@pytest.mark.parametrize("shape", [(), (0,), (3, 4)], ids=repr)
def test_empty_like_takes_shape_and_options(shape, kwargs):
    x = torch.zeros(shape, dtype=torch.float32)
    src = x.t() if len(shape) == 2 else x
    e = torch.empty_like(src, **kwargs)
    assert e.shape == src.shape and e.dtype is kwargs.get("dtype", torch.float32)
    assert e.device == torch.device("cpu") and e.requires_grad is kwargs.get("requires_grad", False)
    assert e.is_contiguous() and e.grad_fn is None
    e.fill_(1) if not e.requires_grad else None
    assert (x == 0).all()  # a new block: writing it leaves the source alone


def test_empty_like_bad_options():
    with pytest.raises(TypeError):
        torch.empty_like(torch.zeros(2), dtype="float")
    with pytest.raises(RuntimeError):
        torch.empty_like(torch.zeros(2), device="nowhere")
