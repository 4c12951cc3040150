"""mindtorch.testing.assert_close / make_tensor against torch.testing."""

from helpers import torch_or_skip

torch = torch_or_skip()

import mindtorch  # noqa: E402
import mindtorch.testing  # noqa: E402
import pytest  # noqa: E402


def _outcome(lib, build):
    with_lib = build(lib)
    try:
        lib.testing.assert_close(*with_lib[:2], **with_lib[2])
        return None
    except Exception as e:
        return type(e), str(e).replace("torch.", "T.").replace("mindtorch.", "T.")


CASES = [
    lambda L: (L.tensor([1.0, 2, 3]), L.tensor([1.0, 2.5, 3]), {}),
    lambda L: (L.tensor([[1.0, 2], [3, 4]]), L.tensor([[1.0, 2], [3, 4.1]]), {}),
    lambda L: (L.tensor([1.0, 2, 3]), L.tensor([1.0, 2 + 1e-7, 3]), {}),
    lambda L: (L.tensor([1, 2]), L.tensor([1, 3]), {}),
    lambda L: (L.tensor([1.0]), L.tensor([1.0], dtype=L.float64), {}),
    lambda L: (L.tensor([1.0]), L.tensor([1.0], dtype=L.float64), {"check_dtype": False}),
    lambda L: (L.ones(2), L.ones(3), {}),
    lambda L: (1.0, 1.1, {}),
    lambda L: (1.0, 1.0 + 1e-9, {}),
    lambda L: (3, 4, {}),
    lambda L: ([L.ones(2)], [L.zeros(2)], {}),
    lambda L: ({"a": L.ones(1)}, {"a": L.zeros(1)}, {}),
    lambda L: ([L.ones(2), (L.ones(1), 2.0)], [L.ones(2), (L.ones(1), 2.0)], {}),
    lambda L: (L.tensor([float("nan")]), L.tensor([float("nan")]), {}),
    lambda L: (L.tensor([float("nan"), 1.0]), L.tensor([float("nan"), 1.0]), {"equal_nan": True}),
    lambda L: (L.tensor([float("inf")]), L.tensor([float("inf")]), {}),
    lambda L: (L.ones(2), L.ones(2), {"rtol": 1e-3}),
    lambda L: (L.tensor([1.0, 2.0]), L.tensor([1.1, 2.0]), {"rtol": 0.0, "atol": 0.2}),
    lambda L: (L.tensor([1.0, 2.0]), L.tensor([1.1, 2.0]), {"rtol": 0.0, "atol": 0.0}),
    lambda L: (L.tensor([1.0, 2.0], dtype=L.float16), L.tensor([1.001, 2.0], dtype=L.float16), {}),
    lambda L: (L.tensor([1.0, 2.0]), L.tensor([1.5, 2.0]), {"msg": "custom"}),
    lambda L: (L.ones(2), [1.0, 1.0], {}),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_assert_close(case):
    mt, th = _outcome(mindtorch, CASES[case]), _outcome(torch, CASES[case])
    if th is None:
        assert mt is None
        return
    assert mt is not None and mt[0] is th[0]
    if th[0] is not TypeError:  # TypeError names the classes, which differ by module
        assert mt[1] == th[1]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "uint8", "bool"])
@pytest.mark.parametrize("shape", [(), (3,), (2, 5), (0, 4)])
def test_make_tensor_default_ranges(dtype, shape):
    mt = mindtorch.testing.make_tensor(*shape, dtype=getattr(mindtorch, dtype), device="cpu")
    th = torch.testing.make_tensor(*shape, dtype=getattr(torch, dtype), device="cpu")
    assert tuple(mt.shape) == tuple(th.shape) and str(mt.dtype) == str(th.dtype)
    big = mindtorch.testing.make_tensor(2000, dtype=getattr(mindtorch, dtype), device="cpu")
    tbig = torch.testing.make_tensor(2000, dtype=getattr(torch, dtype), device="cpu")
    if dtype != "bool":
        assert abs(float(big.min()) - float(tbig.min())) <= 1.0 and abs(float(big.max()) - float(tbig.max())) <= 1.0


def test_make_tensor_options():
    t = mindtorch.testing.make_tensor(
        (4, 3), dtype=mindtorch.float32, device="cpu", low=2, high=3, requires_grad=True, exclude_zero=True
    )
    assert t.requires_grad and float(t.min()) >= 2 and float(t.max()) <= 3
    z = mindtorch.testing.make_tensor(200, dtype=mindtorch.int64, device="cpu", exclude_zero=True)
    assert bool((z != 0).all())
    nc = mindtorch.testing.make_tensor(3, 4, dtype=mindtorch.float32, device="cpu", noncontiguous=True)
    assert not nc.is_contiguous() and tuple(nc.shape) == (3, 4)


SPECIAL = [float("inf"), -float("inf"), float("nan"), 1.0, 3e38, 0.0]
PAIRS = [(a, e) for a in SPECIAL for e in SPECIAL]


@pytest.mark.parametrize("a,e", PAIRS, ids=[f"{a}-{e}" for a, e in PAIRS])
@pytest.mark.parametrize("form", ["tensor", "scalar"])
def test_infinities_and_nans_compare_like_pytorch(a, e, form):
    def build(L):
        if form == "scalar":
            return a, e, {}
        return L.tensor([a, 1.0]), L.tensor([e, 1.0]), {}

    mt, th = _outcome(mindtorch, build), _outcome(torch, build)
    assert (mt is None) == (th is None), (mt, th)
    if th is not None:
        assert mt[0] is th[0]


def _allclose_outcome(lib, build):
    import warnings

    actual, expected, kw = build(lib)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            lib.testing.assert_allclose(actual, expected, **kw)
            result = None
        except Exception as e:
            result = type(e), str(e).replace("torch.", "T.").replace("mindtorch.", "T.")
    assert [w.category for w in caught] == [FutureWarning]
    return result


ALLCLOSE_CASES = [
    lambda L: (L.tensor([1.0, 2.0]), L.tensor([1.0, 2.0001]), {}),
    lambda L: (L.tensor([1.0, 2.0]), L.tensor([1.0, 2.001]), {}),
    lambda L: (L.tensor([1.0, 2.0], dtype=L.float64), [1.0, 2.00001], {}),
    lambda L: (L.tensor([1.0, 2.0], dtype=L.float16), L.tensor([1.0, 2.002], dtype=L.float16), {}),
    lambda L: (L.tensor([1.0, 2.0]), L.tensor([1.0, 2.0], dtype=L.float64), {}),
    lambda L: (L.tensor([1, 2]), L.tensor([1, 3]), {}),
    lambda L: ([1.0, float("nan")], [1.0, float("nan")], {}),
    lambda L: ([1.0, float("nan")], [1.0, float("nan")], {"equal_nan": False}),
    lambda L: (L.tensor([1.0]), L.tensor([1.5]), {"rtol": 0.0, "atol": 0.6}),
    lambda L: (L.tensor([1.0]), L.tensor([1.5]), {"msg": "custom message"}),
    lambda L: (L.tensor([float("inf")]), L.tensor([-float("inf")]), {}),
]


@pytest.mark.parametrize("case", range(len(ALLCLOSE_CASES)))
def test_assert_allclose(case):
    mt, th = _allclose_outcome(mindtorch, ALLCLOSE_CASES[case]), _allclose_outcome(torch, ALLCLOSE_CASES[case])
    assert mt == th
