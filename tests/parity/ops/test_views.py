"""View ops vs PyTorch: shapes, strides, storage offsets, storage sharing, contiguity and errors."""

from helpers import torch_or_skip

torch = torch_or_skip()

import mindtorch  # noqa: E402
import mindtorch as mt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from helpers import assert_same, results_or_same_error, to_torch  # noqa: E402


def make(lib, shape, perm=None):
    t = lib.arange(int(np.prod(shape)), dtype=lib.float32).reshape(shape)
    return t.permute(*perm) if perm else t


def shares(lib, out, base):
    if lib is torch:
        return out.untyped_storage().data_ptr() == base.untyped_storage().data_ptr()
    return out.untyped_storage() is base.untyped_storage()


def run(lib, shape, perm, expr):
    x = make(lib, shape, perm)
    try:
        out = eval(expr, {"x": x, "L": lib})
    except Exception as e:
        return type(e), x
    return out, x


def describe(lib, out, base):
    outs = out if isinstance(out, (tuple, list)) else (out,)
    return [
        (
            tuple(o.shape),
            tuple(o.stride()),
            o.storage_offset(),
            o.is_contiguous(),
            shares(lib, o, base),
            o.detach().contiguous().numpy().tolist() if lib is torch else o.detach().contiguous().numpy().tolist(),
        )
        for o in outs
    ]


CASES = [
    ((2, 3, 4), None, "x.view(6, 4)"),
    ((2, 3, 4), None, "x.view(-1)"),
    ((2, 3, 4), None, "x.view(4, -1, 2)"),
    ((2, 3, 4), None, "x.view(5, 5)"),
    ((2, 3, 4), None, "x.view(-1, -1)"),
    ((2, 3, 4), (1, 0, 2), "x.view(6, 4)"),
    ((2, 3, 4), (0, 2, 1), "x.view(2, 12)"),
    ((2, 3, 4), (1, 0, 2), "x.view(3, 2, 2, 2)"),
    ((2, 3, 4), None, "x.reshape(4, 6)"),
    ((2, 3, 4), (2, 1, 0), "x.reshape(-1)"),
    ((2, 3, 4), (1, 0, 2), "x.reshape(3, 8)"),
    ((2, 3, 4), None, "x.flatten()"),
    ((2, 3, 4), None, "x.flatten(1)"),
    ((2, 3, 4), None, "x.flatten(0, 1)"),
    ((2, 3, 4), None, "x.flatten(2, 1)"),
    ((2, 3, 4), (2, 0, 1), "x.flatten(1, 2)"),
    ((2, 3, 4), None, "x.flatten(1, 1)"),
    ((2, 12), None, "x.unflatten(1, (3, 4))"),
    ((2, 12), None, "x.unflatten(-1, (-1, 6))"),
    ((2, 12), None, "x.unflatten(1, (5, 5))"),
    ((1, 3, 1, 2), None, "x.squeeze()"),
    ((1, 3, 1, 2), None, "x.squeeze(0)"),
    ((1, 3, 1, 2), None, "x.squeeze(1)"),
    ((1, 3, 1, 2), None, "x.squeeze((0, 2))"),
    ((1, 3, 1, 2), None, "x.squeeze(-2)"),
    ((1, 3, 1, 2), None, "x.squeeze(4)"),
    ((2, 3), None, "x.unsqueeze(0)"),
    ((2, 3), None, "x.unsqueeze(2)"),
    ((2, 3), None, "x.unsqueeze(-1)"),
    ((2, 3), (1, 0), "x.unsqueeze(1)"),
    ((2, 3), None, "x.unsqueeze(3)"),
    ((2, 3, 4), None, "x.transpose(0, 2)"),
    ((2, 3, 4), None, "x.transpose(-1, 1)"),
    ((2, 3, 4), None, "x.transpose(0, 3)"),
    ((2, 3, 4), None, "x.permute(2, 0, 1)"),
    ((2, 3, 4), None, "x.permute(0, 1)"),
    ((2, 3, 4), None, "x.permute(0, 0, 1)"),
    ((2, 3), None, "x.t()"),
    ((3,), None, "x.t()"),
    ((2, 3, 4), None, "x.t()"),
    ((2, 3), None, "x.T"),
    ((2, 3, 4), None, "x.mT"),
    ((3,), None, "x.mT"),
    ((3, 1), None, "x.expand(2, 3, 4)"),
    ((3, 1), None, "x.expand(-1, 5)"),
    ((3, 1), None, "x.expand(4, 5)"),
    ((3, 1), None, "x.expand(3)"),
    ((3, 1), None, "x.expand_as(L.zeros(2, 3, 2))"),
    ((4, 5), None, "x.narrow(0, 1, 2)"),
    ((4, 5), None, "x.narrow(1, -3, 2)"),
    ((4, 5), None, "x.narrow(1, 3, 5)"),
    ((4, 5), (1, 0), "x.narrow(1, 2, 2)"),
    ((4, 5), None, "x.select(0, 2)"),
    ((4, 5), None, "x.select(1, -1)"),
    ((4, 5), None, "x.select(1, 5)"),
    ((4, 5), None, "x.select(2, 0)"),
    ((4, 5), None, "x[1]"),
    ((4, 5), None, "x[:, 1:4:2]"),
    ((3, 4), None, "x.unbind()"),
    ((3, 4), None, "x.unbind(1)"),
    ((3, 4), (1, 0), "x.unbind(-1)"),
    ((7, 2), None, "x.split(3)"),
    ((7, 2), None, "x.split([2, 5])"),
    ((7, 2), None, "x.split([2, 4])"),
    ((7, 2), None, "x.split(1, 1)"),
    ((7, 2), None, "L.split(x, 2)"),
    ((7, 2), None, "x.chunk(3)"),
    ((6, 2), None, "x.chunk(4)"),
    ((7, 2), None, "x.chunk(0)"),
    ((2, 5), None, "x.chunk(2, 1)"),
    ((2, 3, 4), None, "x.movedim(0, 2)"),
    ((2, 3, 4), None, "x.movedim((0, 1), (2, 0))"),
    ((2, 3, 4), None, "x.moveaxis(-1, 0)"),
    ((2, 3), (1, 0), "x.contiguous()"),
    ((2, 3), None, "x.contiguous()"),
    ((4, 4), None, "x.as_strided((2, 2), (1, 2))"),
    ((4, 4), None, "x.as_strided((2, 2), (4, 1), 5)"),
    ((4, 4), None, "x.as_strided((5, 5), (4, 1))"),
    ((4, 4), None, "x[1:].as_strided((2,), (1,))"),
    ((3, 4), None, "x.diagonal()"),
    ((3, 4), None, "x.diagonal(1)"),
    ((3, 4), None, "x.diagonal(-1)"),
    ((3, 4), None, "x.diagonal(5)"),
    ((2, 3, 4), None, "x.diagonal(0, 1, 2)"),
    ((2, 3, 4), None, "x.diagonal(1, -1, 0)"),
    ((3, 4), None, "x.diagonal(0, 1, 1)"),
    ((3, 4), None, "L.diagonal(x, 0, 0, 1)"),
    ((7,), None, "x.unfold(0, 3, 2)"),
    ((3, 6), None, "x.unfold(1, 2, 1)"),
    ((3, 6), None, "x.unfold(1, 7, 1)"),
    ((3, 6), None, "x.unfold(0, 2, 0)"),
    ((2, 3), None, "x.detach()"),
    ((2, 3), None, "x.view_as(L.zeros(3, 2))"),
    ((0, 3), None, "x.view(3, 0)"),
    ((0, 3), None, "x.view(-1, 0)"),
    ((0, 3), None, "x.reshape(0, -1)"),
    ((), None, "x.view(1, 1)"),
    ((), None, "x.unsqueeze(0)"),
    ((), None, "x.squeeze()"),
    ((), None, "x.flatten()"),
    ((), None, "x.t()"),
    ((), None, "x.expand(3)"),
    ((), None, "x.select(0, 0)"),
    ((), None, "x.transpose(0, -1)"),
    ((), None, "x.permute(())"),
    ((), None, "x.unbind()"),
    ((), None, "x.reshape(-1)"),
]


@pytest.mark.parametrize("shape,perm,expr", CASES)
def test_view_matches_torch(shape, perm, expr):
    th, tb = run(torch, shape, perm, expr)
    m, mb = run(mt, shape, perm, expr)
    if isinstance(th, type):
        assert m is th, f"{expr}: torch raised {th.__name__}, mindtorch gave {m}"
        return
    assert not isinstance(m, type), f"{expr}: mindtorch raised {m.__name__}"
    assert describe(mt, m, mb) == describe(torch, th, tb)


@pytest.mark.parametrize(
    "expr",
    [
        "x.view(6)",
        "x.t()",
        "x[1]",
        "x.narrow(1, 1, 2)",
        "x.diagonal()",
        "x.unsqueeze(0)",
        "x.expand(2, 2, 3)[0]",
        "x.unfold(1, 2, 1)",
        "x.split(1)[1]",
        "x.reshape(3, 2)",
        "x.flatten()",
        "x.as_strided((2,), (2,), 1)",
    ],
)
def test_inplace_write_through_view_visible_in_base(expr):
    x = make(mt, (2, 3))
    before = x.numpy().copy()
    v = eval(expr, {"x": x})
    v.fill_(-1)
    tx = make(torch, (2, 3))
    tv = eval(expr, {"x": tx})
    tv.fill_(-1)
    np.testing.assert_array_equal(x.numpy(), tx.numpy())
    assert not np.array_equal(x.numpy(), before)


def test_version_counter_shared_with_views():
    x = mt.zeros(3)
    v = x.view(3)
    x.fill_(1)
    assert v._version_value == x._version_value > 0


def test_reshape_copy_does_not_alias():
    x = make(mt, (2, 3)).t()
    y = x.reshape(6)
    assert y.untyped_storage() is not x.untyped_storage()
    y.fill_(0)
    assert x.numpy().sum() == 15


def test_detach_shares_and_drops_grad():
    x = mt.ones(3, requires_grad=True)
    d = x.detach()
    assert not d.requires_grad and d.untyped_storage() is x.untyped_storage()
    d.fill_(2)
    assert x.detach().numpy().tolist() == [2.0, 2.0, 2.0]


def test_storage_apis_report_like_pytorch():
    import warnings

    for lib in (mt, torch):
        a = lib.arange(6.0).reshape(2, 3)
        v = a[1]
        s = v.untyped_storage()
        assert (s.nbytes(), s.size(), len(s), s.element_size(), s.data_ptr() == a.data_ptr()) == (24, 24, 24, 1, True)
        # PyTorch warns once per process unless told to warn always
        always = lib is torch and not torch.storage._get_always_warn_typed_storage_removal()
        if always:
            torch.storage._set_always_warn_typed_storage_removal(True)
        try:
            with warnings.catch_warnings(record=True) as rec:
                warnings.simplefilter("always")
                ts = v.storage()
        finally:
            if always:
                torch.storage._set_always_warn_typed_storage_removal(False)
        assert any("TypedStorage is deprecated" in str(w.message) for w in rec)
        assert (ts.size(), len(ts), ts.element_size(), ts.nbytes(), ts.tolist(), ts[4]) == (
            6,
            6,
            4,
            24,
            [0.0, 1.0, 2.0, 3.0, 4.0, 5.0],
            4.0,
        )
        assert ts.data_ptr() == a.data_ptr() and not v.is_shared()


SHAPES = [[(2, 1), (3,)], [(), (4, 1, 3)], [(1,), (2, 1), (1, 1, 5)], [(2,), (3,)], [(0,), (1,)]]


@pytest.mark.parametrize("shapes", SHAPES)
def test_broadcast_tensors(shapes):
    mt, th = results_or_same_error(lambda L: L.broadcast_tensors(*[L.ones(s) for s in shapes]))
    if th is not None:
        assert_same(list(mt), list(th), check_stride=True)


@pytest.mark.parametrize(
    "shapes",
    [[(2, 1), (3,)], [2, (3, 1)], [], [(2,), (3,)], [(-1,), (2,)], [(2,), (-1,)], [(3, 1), (2, 1)], [(0,), (1,)]],
)
def test_broadcast_shapes(shapes):
    from mindtorch._geometry import broadcast_shapes_public

    try:
        th = torch.broadcast_shapes(*shapes)
    except Exception as e:
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


@pytest.mark.parametrize(
    "shape, size",
    [((), (1, 1)), ((), (2, 1)), ((2, 1), (1, 2, 5)), ((2, 1), (1, 1, 2, 1)), ((3,), (2, 1, 3)), ((), ())],
)
def test_expand_new_dim_strides(shape, size):
    mt = mindtorch.zeros(shape).expand(size)
    th = torch.zeros(shape).expand(size)
    assert_same(mt, th, check_stride=True)
