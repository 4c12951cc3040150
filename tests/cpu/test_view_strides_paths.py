"""view_strides' compiled twin (mindtorch._accel.view_strides) against the Python rule it stands in for
(_geometry.PYTHON_TWINS["view_strides"]), over a generated sweep of layouts (permuted, sliced, expanded,
with size-1 and size-0 dims) and the reshapes of each, and the odd arguments it hands on. The cpu session
runs this file a second time with MINDTORCH_NO_ACCEL=1 (the Python rule alone, checked by the behaviour
tests at the end)."""

import itertools
import os

import mindtorch
import numpy as np
import pytest
from mindtorch import _geometry as G
from mindtorch._accel_load import ACCEL

PY = G.PYTHON_TWINS["view_strides"]
ACCEL_REQUIRED = os.environ.get("MINDTORCH_REQUIRE_ACCEL") == "1" and os.environ.get("MINDTORCH_NO_ACCEL") != "1"
needs_accel = pytest.mark.skipif(ACCEL is None, reason="core's accelerator is not in use")


def test_compiled_rule_in_use_where_required():
    if ACCEL_REQUIRED:
        assert G.view_strides is ACCEL.view_strides
    elif os.environ.get("MINDTORCH_NO_ACCEL") == "1":
        assert G.view_strides is PY
    else:
        pytest.skip("the install does not say what was built")


def _factorings(n, most=4):
    """Shapes with n elements (up to `most` dims, ones sprinkled in)."""
    out = {(n,)}
    for a in range(1, n + 1):
        if n % a == 0:
            out.add((a, n // a))
            for b in range(1, n // a + 1):
                if (n // a) % b == 0:
                    out.add((a, b, n // a // b))
    out |= {(1,) + s for s in list(out)} | {s + (1,) for s in list(out)}
    return sorted(s for s in out if len(s) <= most)


def _layouts():
    """(shape, stride) of views a tensor can have: permuted, sliced with steps, expanded."""
    rng = np.random.default_rng(0)
    seen = set()
    for shape in [(2, 3, 4), (4, 2), (1, 6), (3, 1, 4), (2, 2, 2, 2), (5,), (6, 1), (2, 0, 3), ()]:
        n = len(shape)
        for perm in itertools.permutations(range(n)):
            base = G.contiguous_strides(shape)
            sh = tuple(shape[p] for p in perm)
            st = tuple(base[p] for p in perm)
            seen.add((sh, st))
            for d in range(n):  # every other element along d, and dim d expanded
                if sh[d] > 1:
                    seen.add((sh[:d] + ((sh[d] + 1) // 2,) + sh[d + 1 :], st[:d] + (st[d] * 2,) + st[d + 1 :]))
                    seen.add((sh, st[:d] + (0,) + st[d + 1 :]))
        for _ in range(6):  # random strides as well (not all are layouts of one block: the rule does not care)
            seen.add((shape, tuple(int(v) for v in rng.integers(0, 9, size=len(shape)))))
    return sorted(seen)


CASES = [(sh, st, new) for sh, st in _layouts() for new in _factorings(int(np.prod(sh)) if sh else 1)]
CASES += [((2, 0, 3), (0, 3, 1), new) for new in [(0,), (6, 0), (2, 0, 3), (0, 2, 3)]]


def _outcome(fn, *args):
    try:
        return "ok", fn(*args)
    except Exception as e:
        return "raised", (type(e), str(e))


@needs_accel
def test_compiled_rule_matches_the_python_one_on_a_sweep():
    assert len(CASES) > 1000
    for sh, st, new in CASES:
        py, c = _outcome(PY, sh, st, new), _outcome(ACCEL.view_strides, sh, st, new)
        assert py == c, (sh, st, new, py, c)
        if c[0] == "ok" and c[1] is not None:
            assert type(c[1]) is tuple and all(type(v) is int for v in c[1])


ODD = [
    ([4, 2], (1, 4), (8,)),  # a list (Python compares it with a tuple: never equal)
    ((4, 2), [1, 4], (8,)),
    ((4, 2), (1, 4), [8]),
    ((4, 2), (2, 1), [8]),
    ((np.int64(4), 2), (2, 1), (8,)),
    ((True, 8), (8, 1), (8,)),
    ((4, 2), (1, 4), (-1, 8)),
    ((2**62, 4), (4, 1), (2**63, 2)),
    ((2**40, 2**40), (1, 2**40), (2**80,)),
    ((4, 2), (1, 4, 1), (8,)),
    ((4, 2), (2, 1)),
    ((1,) * 70, (1,) * 70, (1,)),
    (("a", 2), (2, 1), (2,)),
]


@needs_accel
@pytest.mark.parametrize("args", ODD, ids=repr)
def test_compiled_rule_hands_odd_arguments_to_the_python_one(args):
    py, c = _outcome(PY, *args), _outcome(ACCEL.view_strides, *args)
    assert py == c


@pytest.mark.parametrize(
    "make, shape",
    [
        (lambda: mindtorch.arange(8.0).reshape(4, 2).t(), (8,)),
        (lambda: mindtorch.arange(24.0).reshape(2, 3, 4).permute(1, 0, 2), (3, 8)),
        (lambda: mindtorch.arange(24.0).reshape(2, 3, 4).permute(1, 0, 2), (6, 4)),
        (lambda: mindtorch.arange(24.0).reshape(2, 3, 4)[:, 1:], (2, 8)),
        (lambda: mindtorch.arange(24.0).reshape(2, 3, 4)[:, :, ::2], (12,)),
        (lambda: mindtorch.arange(3.0).reshape(3, 1).expand(3, 4), (3, 2, 2)),
        (lambda: mindtorch.arange(3.0).reshape(3, 1).expand(3, 4), (12,)),
    ],
)
def test_view_and_reshape_behave_as_pytorch_documents(make, shape):
    x = make()
    want = x.numpy().reshape(shape)
    r = x.reshape(shape)
    np.testing.assert_array_equal(r.numpy(), want)
    st = PY(tuple(x.shape), tuple(x.stride()), tuple(shape))
    if st is None:  # not viewable: view refuses, reshape copies
        with pytest.raises(RuntimeError, match="view size is not compatible"):
            x.view(shape)
        assert r.data_ptr() != x.data_ptr() and r.is_contiguous()
    else:
        v = x.view(shape)
        assert v.stride() == st and v.data_ptr() == x.data_ptr()
        np.testing.assert_array_equal(v.numpy(), want)
