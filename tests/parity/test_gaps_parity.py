from helpers import torch_or_skip

torch = torch_or_skip()

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import mindtorch  # noqa: E402
from helpers import assert_same, to_torch  # noqa: E402


def _both(fn):
    """Run fn(lib) for mindtorch and PyTorch; the same exception class or both results."""
    try:
        th = fn(torch)
    except Exception as e:  # noqa: BLE001
        with pytest.raises(type(e)):
            fn(mindtorch)
        return None, None
    return fn(mindtorch), th


SHAPES = [[(2, 1), (3,)], [(), (4, 1, 3)], [(1,), (2, 1), (1, 1, 5)], [(2,), (3,)], [(0,), (1,)]]


@pytest.mark.parametrize("shapes", SHAPES)
def test_broadcast_tensors(shapes):
    mt, th = _both(lambda L: L.broadcast_tensors(*[L.ones(s) for s in shapes]))
    if th is not None:
        assert_same(list(mt), list(th), check_stride=True)


@pytest.mark.parametrize("shapes", [[(2, 1), (3,)], [2, (3, 1)], [], [(2,), (3,)], [(-1,), (2,)], [(2,), (-1,)],
                                    [(3, 1), (2, 1)], [(0,), (1,)]])
def test_broadcast_shapes(shapes):
    from mindtorch._shape import broadcast_shapes_public
    try:
        th = torch.broadcast_shapes(*shapes)
    except Exception as e:  # noqa: BLE001
        with pytest.raises(type(e)) as info:
            broadcast_shapes_public(*shapes)
        assert str(info.value) == str(e)
        return
    assert tuple(broadcast_shapes_public(*shapes)) == tuple(th)


@pytest.mark.parametrize("nd", [1, 2, 3])
@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 3, 4), (1, 2, 3, 4)])
def test_atleast(nd, shape):
    x = mindtorch.arange(float(np.prod(shape, dtype=int))).reshape(shape)
    mt = getattr(mindtorch, f"atleast_{nd}d")(x)
    th = getattr(torch, f"atleast_{nd}d")(to_torch(x))
    assert_same(mt, th, check_stride=True)
    mt = getattr(mindtorch, f"atleast_{nd}d")([x, x])
    th = getattr(torch, f"atleast_{nd}d")([to_torch(x), to_torch(x)])
    assert isinstance(mt, tuple)
    assert_same(mt, th)


STACK_INPUTS = [[(3,), (3,)], [(), ()], [(2, 3), (2, 3)], [(2, 3), (2, 1)], [(2, 2, 2), (2, 1, 2)], [(2,), (2, 3)],
                [(2, 3, 4), (2,)], [(2, 3), (2,)], []]


@pytest.mark.parametrize("name", ["hstack", "vstack", "dstack", "column_stack", "row_stack"])
@pytest.mark.parametrize("shapes", STACK_INPUTS)
def test_stacking(name, shapes):
    data = [np.arange(float(np.prod(s, dtype=int))).reshape(s) for s in shapes]
    mt, th = _both(lambda L: getattr(L, name)([L.tensor(d) for d in data]))
    if th is not None:
        assert_same(mt, th)


@pytest.mark.parametrize("op", ["eq", "ne", "lt", "le", "gt", "ge"])
@pytest.mark.parametrize("da, db", [("int64", "float32"), ("int32", "float16"), ("int64", "bfloat16"),
                                    ("float64", "float32"), ("uint8", "int8"), ("bool", "float32")])
def test_comparison_in_promoted_dtype(op, da, db):
    a = np.array([16777217, 2049, 257, -1, 0, 1], dtype=np.int64)
    b = np.array([16777216., 2048., 256., 255., 0., 1.])

    def run(L):
        x = L.tensor(a.tolist()).to(getattr(L, da))
        y = L.tensor(b.tolist()).to(getattr(L, db))
        return getattr(L, op)(x, y), getattr(L, op)(y, x), getattr(L, op)(x, y[0])
    mt, th = _both(run)
    assert_same(list(mt), list(th))


@pytest.mark.parametrize("name", ["remainder", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
                                  "bitwise_right_shift", "float_power", "pow", "fmod", "atan2", "maximum"])
@pytest.mark.parametrize("scalar", [2, -3, 2.5, True])
@pytest.mark.parametrize("dtype", ["int64", "int8", "float32", "bool"])
def test_scalar_first(name, scalar, dtype):
    vals = [1, 2, 3] if dtype != "bool" else [True, False, True]
    mt, th = _both(lambda L: getattr(L, name)(scalar, L.tensor(vals, dtype=getattr(L, dtype))))
    if th is not None:
        assert_same(mt, th)


@pytest.mark.parametrize("lo, hi", [(-0.5, 0.5), (0, None), (None, 0.25), (1, -1), (None, 2)])
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "float64", "int32", "uint8"])
def test_clamp(lo, hi, dtype):
    data = [float("nan"), -2.0, -0.3, 0.0, 0.4, 3.0]
    if dtype in ("int32", "uint8"):
        data = [0, 1, 2, 3, 200, 5]

    def run(L):
        x = L.tensor(data).to(getattr(L, dtype))
        y = x.clone()
        y.clamp_(lo, hi)
        z = x.t() if x.dim() == 2 else x[::2].clone()
        z.clamp_(min=lo) if lo is not None else z.clamp_(max=hi)
        return x.clamp(lo, hi), y, z, x.clamp(min=lo) if lo is not None else x.clamp(max=hi)
    mt, th = _both(run)
    if th is not None:
        assert_same(list(mt), list(th))


def test_clamp_is_not_much_slower_than_np_clip():
    import time
    x = mindtorch.randn(1_000_000)
    a = x.numpy()

    def best(f):
        t = []
        for _ in range(5):
            s = time.perf_counter()
            f()
            t.append(time.perf_counter() - s)
        return min(t)
    ref = best(lambda: np.clip(a, -0.5, 0.5))
    assert best(lambda: mindtorch.clamp(x, min=0)) < 2.5 * ref + 2e-4
    assert best(lambda: x.clamp_(-0.5, 0.5)) < 2.5 * ref + 2e-4


@pytest.mark.parametrize("shape, size", [((), (1, 1)), ((), (2, 1)), ((2, 1), (1, 2, 5)), ((2, 1), (1, 1, 2, 1)),
                                         ((3,), (2, 1, 3)), ((), ())])
def test_expand_new_dim_strides(shape, size):
    mt = mindtorch.zeros(shape).expand(size)
    th = torch.zeros(shape).expand(size)
    assert_same(mt, th, check_stride=True)
