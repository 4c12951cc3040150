"""torch.histogramdd (and torch.histogram, now one of its cases): bins as counts or edges, ranges,
weights, density, out=, the return type and errors, against PyTorch 2.13."""

import numpy as np
import pytest
from helpers import torch_or_skip

torch = torch_or_skip()

import mindtorch as mt  # noqa: E402

R = np.random.default_rng(5)
POINTS = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 0.0], [2.0, 2.0]])
CLOUD = R.standard_normal((3, 7, 3))

CASES = {
    "counts": lambda L: L.histogramdd(L.tensor(POINTS), bins=[3, 3]),
    "one count": lambda L: L.histogramdd(L.tensor(POINTS), 2),
    "weights": lambda L: L.histogramdd(
        L.tensor(POINTS), bins=[3, 2], weight=L.tensor([1.0, 2.0, 4.0, 8.0], dtype=L.float64)
    ),
    "range density": lambda L: L.histogramdd(L.tensor(POINTS), bins=[2, 2], range=[0.0, 1.0, 0.0, 1.0], density=True),
    "edges": lambda L: L.histogramdd(
        L.tensor(POINTS), bins=[L.tensor([0.0, 1.0, 2.0], dtype=L.float64), L.tensor([0.0, 2.0], dtype=L.float64)]
    ),
    "one point": lambda L: L.histogramdd(L.tensor([[1.0, 1.0]]), 2),
    "3-d cloud": lambda L: L.histogramdd(L.tensor(CLOUD, dtype=L.float32), [2, 3, 4], density=True),
    "1-d": lambda L: L.histogramdd(L.tensor(CLOUD[..., :1]), 5, weight=L.tensor(np.abs(CLOUD[..., 0]))),
    "histogram": lambda L: L.histogram(L.tensor(CLOUD.reshape(-1)), 6, range=(-1.0, 1.0), density=True),
}


@pytest.mark.parametrize("name", list(CASES))
def test_histogramdd(name):
    got, want = CASES[name](mt), CASES[name](torch)
    assert type(got).__name__ == type(want).__name__
    pairs = [(got.hist, want.hist)] + (
        list(zip(got.bin_edges, want.bin_edges)) if name != "histogram" else [(got.bin_edges, want.bin_edges)]
    )
    for a, b in pairs:
        assert str(a.dtype) == str(b.dtype) and tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=1e-6)


def test_histogramdd_out_holds_the_result():
    # PyTorch documents out= for histogramdd but its binding takes none: the result must equal the plain call's
    want = mt.histogramdd(mt.tensor(POINTS), [2, 3])
    hist, edges = mt.empty(0, dtype=mt.float64), [mt.empty(0, dtype=mt.float64) for _ in range(2)]
    got = mt.histogramdd(mt.tensor(POINTS), [2, 3], out=(hist, edges))
    assert got.hist is hist and got.bin_edges[0] is edges[0]
    assert hist.tolist() == want.hist.tolist() and [e.tolist() for e in edges] == [e.tolist() for e in want.bin_edges]


BAD = {
    "bins length": lambda L: L.histogramdd(L.tensor(POINTS), bins=[2, 2, 2]),
    "integer input": lambda L: L.histogramdd(L.tensor(POINTS).long(), 2),
}


@pytest.mark.parametrize("name", list(BAD))
def test_histogramdd_errors(name):
    raised = []
    for L in (mt, torch):
        with pytest.raises(Exception) as info:
            BAD[name](L)
        raised.append((info.type, str(info.value)))
    assert raised[0] == raised[1]
