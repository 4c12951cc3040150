"""Tensor methods PyTorch programs call that are spelled through other ops here: the in-place forms of
addmm / addmv / baddbmm / arctan2 / the comparison aliases / heaviside / sgn, fill_diagonal_, the
cauchy_ / log_normal_ / geometric_ samplers, split_with_sizes and the unsafe_ splits, narrow_copy,
sum_to_size, resize_as_, cfloat / cdouble and the layout flags. Values, dtypes, errors and gradients
against PyTorch 2.13."""

import numpy as np
import pytest
from helpers import torch_or_skip

torch = torch_or_skip()

import mindtorch as mt  # noqa: E402

R = np.random.default_rng(7)
DATA = {
    s: R.standard_normal(s)
    for s in [(2, 3), (2, 4), (4, 3), (2,), (4,), (3,), (2, 2, 3), (2, 2, 4), (2, 4, 3), (3, 3), (7, 3)]
}


def T(lib, shape, dtype="float64", grad=False):
    t = lib.tensor(DATA[shape], dtype=getattr(lib, dtype))
    return t.requires_grad_() if grad else t


# name -> (self shape, fn(lib, self, T) applying the method to a non-leaf copy of self)
CALLS = {
    "addmm_": ((2, 3), lambda L, s, t: s.addmm_(t((2, 4)), t((4, 3)), beta=0.5, alpha=2)),
    "addmv_": ((2,), lambda L, s, t: s.addmv_(t((2, 4)), t((4,)), alpha=-1)),
    "baddbmm_": ((2, 2, 3), lambda L, s, t: s.baddbmm_(t((2, 2, 4)), t((2, 4, 3)), beta=2)),
    "arctan2_": ((3,), lambda L, s, t: s.arctan2_(t((3,)))),
    "heaviside_": ((3,), lambda L, s, t: s.heaviside_(t((3,)))),
    "sgn_": ((3,), lambda L, s, t: s.sgn_()),
    "greater_": ((3,), lambda L, s, t: s.greater_(t((3,)))),
    "greater_equal_": ((3,), lambda L, s, t: s.greater_equal_(0.0)),
    "less_": ((3,), lambda L, s, t: s.less_(t((3,)))),
    "less_equal_": ((3,), lambda L, s, t: s.less_equal_(t((3,)))),
    "not_equal_": ((3,), lambda L, s, t: s.not_equal_(t((3,)))),
    "fill_diagonal_": ((3, 3), lambda L, s, t: s.fill_diagonal_(-2.5)),
    "fill_diagonal_ wrap": ((7, 3), lambda L, s, t: s.fill_diagonal_(4, wrap=True)),
    "fill_diagonal_ tall": ((7, 3), lambda L, s, t: s.fill_diagonal_(4)),
    "fill_diagonal_ 3-d": ((2, 2, 3), lambda L, s, t: s[:, :, :2].fill_diagonal_(1)),
    "sum_to_size": ((2, 3), lambda L, s, t: s.sum_to_size(1, 3)),
    "sum_to_size tuple": ((2, 3), lambda L, s, t: s.sum_to_size((3,))),
    "narrow_copy": ((2, 3), lambda L, s, t: s.narrow_copy(1, 1, 2)),
    "split_with_sizes": (
        (2, 3),
        lambda L, s, t: L.cat([p * (i + 1) for i, p in enumerate(s.split_with_sizes([1, 2], 1))], 1),
    ),
    "unsafe_chunk": ((2, 3), lambda L, s, t: L.cat(s.unsafe_chunk(2, 1)[::-1], 1)),
    "unsafe_split": ((2, 3), lambda L, s, t: L.cat(s.unsafe_split(2, 1)[::-1], 1)),
    "unsafe_split_with_sizes": ((2, 3), lambda L, s, t: L.cat(L.unsafe_split_with_sizes(s, [2, 1], 1)[::-1], 1)),
}
DIFFERENTIABLE = {
    "addmm_",
    "addmv_",
    "baddbmm_",
    "arctan2_",
    "fill_diagonal_",
    "fill_diagonal_ wrap",
    "fill_diagonal_ tall",
    "sum_to_size",
    "sum_to_size tuple",
    "narrow_copy",
    "split_with_sizes",
    "unsafe_chunk",
    "unsafe_split",
    "unsafe_split_with_sizes",
}


def _run(lib, name, grad):
    shape, fn = CALLS[name]
    leaf = T(lib, shape, grad=grad)
    out = fn(lib, leaf * 1, lambda s: T(lib, s))
    g = None
    if grad:
        out.sum().backward()
        g = leaf.grad.numpy()
    return str(out.dtype).split(".")[-1], out.detach().numpy(), g


@pytest.mark.parametrize("name", list(CALLS))
def test_values_dtypes_and_gradients_match(name):
    grad = name in DIFFERENTIABLE
    got, want = _run(mt, name, grad), _run(torch, name, grad)
    assert got[0] == want[0]
    np.testing.assert_allclose(got[1], want[1], rtol=1e-12, atol=1e-12)
    if grad:
        np.testing.assert_allclose(got[2], want[2], rtol=1e-12, atol=1e-12)


BAD = {
    "addmm_ into int": lambda L: L.ones(2, 3, dtype=L.int64).addmm_(T(L, (2, 4)), T(L, (4, 3))),
    "addmm_ broadcast self": lambda L: T(L, (3,)).addmm_(T(L, (2, 4)), T(L, (4, 3))),
    "arctan2_ into int": lambda L: L.ones(2, dtype=L.int64).arctan2_(L.ones(2, dtype=L.int64)),
    "fill_diagonal_ 1-d": lambda L: L.zeros(3).fill_diagonal_(1),
    "fill_diagonal_ unequal": lambda L: L.zeros(2, 2, 3).fill_diagonal_(1),
    "sum_to_size bad": lambda L: T(L, (2, 3)).sum_to_size(3, 2),
    "sum_to_size longer": lambda L: T(L, (2, 3)).sum_to_size(2, 1, 3),
    "split_with_sizes sum": lambda L: T(L, (2, 3)).split_with_sizes([1, 1], 1),
    "cauchy_ sigma": lambda L: L.ones(3).cauchy_(0, -1),
    "cauchy_ int": lambda L: L.ones(3, dtype=L.int64).cauchy_(),
    "log_normal_ std": lambda L: L.ones(3).log_normal_(1, 0),
    "log_normal_ int": lambda L: L.ones(3, dtype=L.int64).log_normal_(),
    "geometric_ p": lambda L: L.ones(3).geometric_(1.5),
    "geometric_ bool": lambda L: L.ones(3, dtype=L.bool).geometric_(0.3),
}


@pytest.mark.parametrize("name", list(BAD))
def test_bad_calls_raise_pytorchs_class_and_leave_self_alone(name):
    classes = {}
    for lib in (torch, mt):
        with pytest.raises(Exception) as info:
            BAD[name](lib)
        classes[lib] = info.type
    assert issubclass(classes[mt], classes[torch]) or classes[mt] is classes[torch]
    # the messages PyTorch words for these argument checks are kept word for word
    if name.startswith(("cauchy_", "log_normal_", "geometric_", "sum_to_size", "split_with_sizes", "fill_diagonal_")):
        msgs = []
        for lib in (torch, mt):
            with pytest.raises(Exception) as info:
                BAD[name](lib)
            msgs.append(str(info.value))
        assert msgs[0] == msgs[1]
    x = mt.ones(3)
    before = x.clone()
    with pytest.raises(RuntimeError):
        x.cauchy_(0, -1)
    assert mt.equal(x, before)


@pytest.mark.parametrize(
    "name,call,check",
    [
        ("cauchy_", lambda t: t.cauchy_(1.0, 2.0), lambda v: (np.median(v), np.median(np.abs(v - 1.0)))),
        ("log_normal_", lambda t: t.log_normal_(0.5, 0.3), lambda v: (np.log(v).mean(), np.log(v).std())),
        ("geometric_", lambda t: t.geometric_(0.25), lambda v: (v.mean(), v.min(), (v == 1).mean())),
    ],
)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_samplers_draw_pytorchs_distribution(name, call, check, dtype):
    mt.manual_seed(3)
    torch.manual_seed(3)
    got = check(call(mt.empty(200_000, dtype=getattr(mt, dtype))).numpy().astype(np.float64))
    want = check(call(torch.empty(200_000, dtype=getattr(torch, dtype))).numpy().astype(np.float64))
    np.testing.assert_allclose(got, want, rtol=0.03, atol=0.01)
    mt.manual_seed(5)
    a = call(mt.empty(8, dtype=getattr(mt, dtype)))
    mt.manual_seed(5)
    assert mt.equal(a, call(mt.empty(8, dtype=getattr(mt, dtype))))  # seeded draws repeat


def test_geometric_on_integer_tensors_gives_counts():
    for dt in ("int64", "uint8"):
        got = mt.empty(1000, dtype=getattr(mt, dt)).geometric_(0.5)
        assert str(got.dtype).split(".")[-1] == dt and int(got.min()) >= 1


def test_resize_as_cfloat_cdouble_and_layout_flags():
    for lib in (torch, mt):
        y = lib.zeros(5)
        assert tuple(y.resize_as_(lib.ones(2, 3)).shape) == (2, 3)
        x = lib.ones(2)
        assert str(x.cfloat().dtype).split(".")[-1] == "complex64"
        assert str(x.cdouble().dtype).split(".")[-1] == "complex128"
        flags = ("is_sparse", "is_sparse_csr", "is_quantized", "is_nested", "is_mkldnn", "is_xpu", "is_mps")
        assert [getattr(x, f) for f in flags] == [False] * len(flags)
