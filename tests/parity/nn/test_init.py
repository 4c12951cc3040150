"""nn.init.dirac_, sparse_ and the deprecated spellings without the underscore against PyTorch."""

from helpers import torch_or_skip

torch = torch_or_skip()

import math  # noqa: E402
import warnings  # noqa: E402

import mindtorch  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from helpers import assert_same  # noqa: E402


@pytest.mark.parametrize(
    "shape,groups",
    [
        ((4, 4, 3), 1),
        ((6, 3, 3, 3), 1),
        ((6, 2, 3, 3), 2),
        ((4, 6, 2, 3, 5), 1),
        ((8, 3, 1, 1), 4),
        ((5, 5), 1),
        ((5, 2, 3), 2),
    ],
)
def test_dirac(shape, groups):
    try:
        th = torch.nn.init.dirac_(torch.full(shape, 7.0), groups)
    except ValueError as e:
        with pytest.raises(ValueError) as info:
            mindtorch.nn.init.dirac_(mindtorch.full(shape, 7.0), groups)
        assert str(info.value) == str(e)
        return
    mt = mindtorch.nn.init.dirac_(mindtorch.full(shape, 7.0), groups)
    assert_same(mt, th, rtol=0, atol=0)


def test_dirac_convolution_is_identity():
    w = mindtorch.nn.init.dirac_(mindtorch.empty(3, 3, 3, 3))
    x = mindtorch.randn(1, 3, 5, 5)
    assert_same(mindtorch.nn.functional.conv2d(x, w, padding=1), torch.tensor(x.numpy()), rtol=0, atol=1e-6)


@pytest.mark.parametrize("sparsity", [0.0, 0.1, 0.5, 0.99])
def test_sparse_zero_count_and_scale(sparsity):
    w = mindtorch.nn.init.sparse_(mindtorch.empty(40, 30), sparsity, std=0.5)
    t = torch.nn.init.sparse_(torch.empty(40, 30), sparsity, std=0.5)
    zeros = (w == 0).sum(0)
    tzeros = (t == 0).sum(0)
    assert zeros.tolist() == tzeros.tolist() == [math.ceil(sparsity * 40)] * 30
    nz = w[w != 0]
    if nz.numel() > 100:
        assert 0.4 < float(nz.std()) < 0.6
    with pytest.raises(ValueError, match="2 dimensions"):
        mindtorch.nn.init.sparse_(mindtorch.empty(2, 3, 4), 0.1)


LEGACY = [
    "uniform",
    "normal",
    "constant",
    "eye",
    "dirac",
    "xavier_uniform",
    "xavier_normal",
    "kaiming_uniform",
    "kaiming_normal",
    "orthogonal",
    "sparse",
]


@pytest.mark.parametrize("name", LEGACY)
def test_init_legacy_spellings(name):
    args = {"constant": (0.25,), "sparse": (0.5,)}.get(name, ())
    shape = (4, 2, 3) if name == "dirac" else (4, 6)
    results = []
    for lib in (mindtorch, torch):
        fn = getattr(lib.nn.init, name)
        assert fn.__name__ == name and name in lib.nn.init.__all__
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            t = lib.empty(*shape)
            out = fn(t, *args)
        assert out is t
        assert [(w.category, str(w.message)) for w in caught] == [
            (FutureWarning, f"`nn.init.{name}` is now deprecated in favor of `nn.init.{name}_`.")
        ]
        assert caught[0].filename == __file__  # the warning points at the caller
        results.append(out.numpy())
    if name in ("constant", "eye", "dirac"):
        np.testing.assert_array_equal(results[0], results[1])
