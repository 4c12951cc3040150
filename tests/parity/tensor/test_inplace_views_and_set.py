"""Tensor methods that change a tensor's geometry in place (t_, transpose_, swapaxes_, swapdims_,
squeeze_, unsqueeze_, as_strided_ and torch.as_strided_), set_ in all its forms with is_set_to, and
resize_ growing a tensor: geometry, values, version counter, history and gradients, and errors,
against PyTorch 2.13."""

import itertools

import numpy as np
import pytest
from helpers import check_grad, torch_or_skip

torch = torch_or_skip()

import mindtorch as mt  # noqa: E402

R = np.random.default_rng(3)
DATA = {s: R.standard_normal(s) for s in [(2, 3), (1, 3, 1), (4, 4), (3,)]}

# name -> (self shape, the in-place call)
CALLS = {
    "t_": ((2, 3), lambda L, s: s.t_()),
    "t_ 1-d": ((3,), lambda L, s: s.t_()),
    "transpose_": ((2, 3), lambda L, s: s.transpose_(0, 1)),
    "transpose_ negative": ((1, 3, 1), lambda L, s: s.transpose_(-1, 0)),
    "swapaxes_": ((1, 3, 1), lambda L, s: s.swapaxes_(1, 2)),
    "swapdims_": ((2, 3), lambda L, s: s.swapdims_(1, 0)),
    "squeeze_": ((1, 3, 1), lambda L, s: s.squeeze_()),
    "squeeze_ dim": ((1, 3, 1), lambda L, s: s.squeeze_(2)),
    "squeeze_ dims": ((1, 3, 1), lambda L, s: s.squeeze_((0, 2))),
    "squeeze_ not 1": ((1, 3, 1), lambda L, s: s.squeeze_(1)),
    "unsqueeze_": ((2, 3), lambda L, s: s.unsqueeze_(1)),
    "unsqueeze_ end": ((2, 3), lambda L, s: s.unsqueeze_(-1)),
    "as_strided_": ((4, 4), lambda L, s: s.as_strided_((2, 2), (1, 2), 1)),
    "as_strided_ keep offset": ((4, 4), lambda L, s: s.as_strided_((3,), (5,))),
    "torch.as_strided_": ((4, 4), lambda L, s: L.as_strided_(s, (2, 3), (4, 1), 2)),
    "t_ then unsqueeze_": ((2, 3), lambda L, s: s.t_().unsqueeze_(0)),
}
# the tensor the call is applied to: a fresh tensor, a non-leaf, a view of a non-leaf
FORMS = ("plain", "non-leaf", "view")


def _version(t):
    """The version counter's value (mindtorch keeps the counter object in `_version`)."""
    return t._version_value if isinstance(t, mt.Tensor) else t._version


def _subject(L, shape, form, leaf):
    if form == "plain":
        return L.tensor(DATA[shape])
    if form == "non-leaf":
        return leaf * 1
    return (leaf * 1)[:]


def _run(L, name, form):
    shape, call = CALLS[name]
    leaf = L.tensor(DATA[shape], requires_grad=True)
    s = _subject(L, shape, form, leaf)
    before = _version(s)
    out = call(L, s)
    assert out is s
    weights = L.arange(s.numel(), dtype=L.float64).reshape(s.shape)
    g = None
    if s.requires_grad:
        (s * weights).sum().backward()
        g = leaf.grad.numpy()
    return tuple(s.shape), s.stride(), s.storage_offset(), s.detach().numpy().copy(), _version(s) - before, g


@pytest.mark.parametrize("name,form", list(itertools.product(CALLS, FORMS)))
def test_geometry_values_version_and_gradient_match(name, form):
    got, want = _run(mt, name, form), _run(torch, name, form)
    assert got[:3] == want[:3]
    np.testing.assert_array_equal(got[3], want[3])
    assert got[4] == want[4] >= 1
    if want[5] is None:
        assert got[5] is None
    else:
        np.testing.assert_allclose(got[5], want[5], rtol=0, atol=0)


@pytest.mark.parametrize("name", ["t_", "unsqueeze_", "as_strided_"])
def test_history_is_the_view_ops(name):
    got = _run_history(mt, name)
    assert got == _run_history(torch, name)


def _run_history(L, name):
    shape, call = CALLS[name]
    leaf = L.tensor(DATA[shape], requires_grad=True)
    s = leaf * 2
    call(L, s)
    fn = s.grad_fn
    return fn.name().rstrip("0123456789"), [n.name().rstrip("0123456789") for n, _ in fn.next_functions]


@pytest.mark.parametrize("name", ["t_", "squeeze_", "as_strided_"])
def test_gradcheck_float64(name):
    shape, call = CALLS[name]
    check_grad(lambda x: call(mt, x * 1), mt.tensor(DATA[shape], requires_grad=True))


def _leaf_in_place(L, name, view):
    shape, call = CALLS[name]
    leaf = L.tensor(DATA[shape], requires_grad=True)
    call(L, leaf[:] if view else leaf)


@pytest.mark.parametrize("name,view", list(itertools.product(["t_", "squeeze_", "as_strided_"], [False, True])))
def test_leaf_that_requires_grad_is_refused_and_left_alone(name, view):
    msgs = []
    for L in (torch, mt):
        with pytest.raises(RuntimeError) as info:
            _leaf_in_place(L, name, view)
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1]


def test_under_no_grad_a_leaf_may_change_geometry():
    for L in (torch, mt):
        leaf = L.tensor(DATA[(2, 3)], requires_grad=True)
        with L.no_grad():
            leaf.t_()
        assert tuple(leaf.shape) == (3, 2) and leaf.is_leaf and leaf.requires_grad and _version(leaf) == 1


BAD = {
    "transpose_ dim": lambda L: L.zeros(2, 3).transpose_(0, 2),
    "unsqueeze_ dim": lambda L: L.zeros(2, 3).unsqueeze_(4),
    "t_ 3-d": lambda L: L.zeros(1, 2, 3).t_(),
    "as_strided_ negative stride": lambda L: L.zeros(4).as_strided_((2,), (-1,)),
    "set_ dtype": lambda L: L.zeros(3).set_(L.zeros(2, dtype=L.float64)),
    "set_ too large": lambda L: L.zeros(3).set_(L.zeros(2).untyped_storage(), 0, (3,)),
    "set_ stride length": lambda L: L.zeros(3).set_(L.zeros(2).untyped_storage(), 0, (2,), (1, 1)),
    "set_ offset": lambda L: L.zeros(3).set_(L.zeros(2).untyped_storage(), -1, (1,)),
    "set_ leaf": lambda L: L.zeros(3, requires_grad=True).set_(L.zeros(2)),
}


@pytest.mark.parametrize("name", list(BAD))
def test_bad_calls_raise_pytorchs_class(name):
    raised = []
    for L in (torch, mt):
        with pytest.raises(Exception) as info:
            BAD[name](L)
        raised.append((info.type, str(info.value)))
    assert raised[1][0] is raised[0][0]
    if name.startswith("set_"):
        assert raised[1][1] == raised[0][1]


def test_failed_set_leaves_self_alone():
    x = mt.arange(3.0)
    with pytest.raises(RuntimeError):
        x.set_(mt.zeros(2).untyped_storage(), 0, (3,))
    assert x.tolist() == [0.0, 1.0, 2.0] and _version(x) == 0


SETS = {
    "tensor": lambda L, src: L.zeros(3).set_(src),
    "tensor view": lambda L, src: L.zeros(3).set_(src[1:5:2]),
    "tensor with geometry": lambda L, src: L.zeros(3).set_(src, 1, (2, 2), (1, 2)),
    "untyped storage": lambda L, src: L.zeros(3).set_(src.untyped_storage()),
    "untyped storage offset size": lambda L, src: L.zeros(3).set_(src.untyped_storage(), 1, (2,)),
    "untyped storage stride": lambda L, src: L.zeros(3).set_(src.untyped_storage(), 1, (2, 2), (2, 1)),
    "keywords": lambda L, src: L.zeros(3).set_(source=src.untyped_storage(), storage_offset=2, size=(2,), stride=(3,)),
    "typed storage": lambda L, src: L.zeros(3).set_(src.storage(), 1, (3,)),
    "legacy storage": lambda L, src: L.zeros(3).set_(L.FloatStorage([4.0, 5.0])),
    "empty": lambda L, src: L.arange(4.0).set_(),
    "int over float bytes": lambda L, src: L.zeros(3, dtype=L.int32).set_(src.untyped_storage()),
}


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name", list(SETS))
def test_set_forms(name):
    res = {}
    for L in (torch, mt):
        src = L.arange(6.0)
        out = SETS[name](L, src)
        shares = out.untyped_storage().data_ptr() == src.untyped_storage().data_ptr()
        res[L] = (tuple(out.shape), out.stride(), out.storage_offset(), out.tolist(), _version(out), shares)
        if out.numel() and name != "legacy storage" and name != "empty":
            out.view(-1)[0:1].fill_(7) if out.is_contiguous() else None
            res[L] += (src.tolist(),)
    assert res[mt] == res[torch]


def test_is_set_to():
    for L in (torch, mt):
        a, b = L.arange(6.0), L.zeros(3)
        assert not b.is_set_to(a)
        b.set_(a)
        assert b.is_set_to(a) and a.is_set_to(b)
        assert not a[1:].is_set_to(a) and not a.view(2, 3).is_set_to(a)


@pytest.mark.parametrize("grow", [(5,), (3, 3), (2, 2, 2)])
def test_resize_keeps_values_when_growing(grow):
    res = []
    for L in (torch, mt):
        a = L.arange(4.0)[1:]
        a.resize_(*grow)
        res.append((a.view(-1)[:3].tolist(), tuple(a.shape), a.stride(), a.storage_offset(), _version(a)))
    assert res[0] == res[1]


DEPRECATED = {
    "resize": lambda L, x: x.resize(3, 2),
    "resize_as": lambda L, x: x.resize_as(L.zeros(6)),
}


@pytest.mark.parametrize("name", list(DEPRECATED))
def test_deprecated_resize_forms(name):
    res = []
    for L in (torch, mt):
        x = L.tensor(DATA[(2, 3)], requires_grad=True)
        with pytest.warns(UserWarning, match=f"non-inplace {name} is deprecated"):
            y = DEPRECATED[name](L, x)
        (y * L.arange(6.0, dtype=L.float64).reshape(y.shape)).sum().backward()
        res.append((tuple(y.shape), y.detach().numpy().tolist(), x.grad.numpy().tolist()))
    assert res[0] == res[1]


def test_deprecated_resize_keeps_the_element_count():
    msgs = []
    for L in (torch, mt):
        with pytest.warns(UserWarning), pytest.raises(RuntimeError) as info:
            L.zeros(2, 2).resize(3, 2)
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1]
