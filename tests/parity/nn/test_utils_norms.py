"""weight_norm and spectral_norm, the parametrization-based ones (nn.utils.parametrizations) and the
hook-based ones (nn.utils), against PyTorch's: state_dict keys, values, gradients, removal, errors.
Spectral norm's power iteration starts from random vectors: PyTorch's module is given ours before values
are compared, and the estimate itself is checked as an invariant (largest singular value 1)."""

import warnings

import mindtorch
import numpy as np
import pytest
from helpers import raises_alike, torch_or_skip

torch = torch_or_skip()


def _layer(lib, kind):
    nn = lib.nn
    m = {
        "linear": lambda: nn.Linear(4, 3, dtype=lib.float64),
        "conv": lambda: nn.Conv2d(2, 3, 2, dtype=lib.float64),
        "convT": lambda: nn.ConvTranspose2d(2, 3, 2, dtype=lib.float64),
    }[kind]()
    with lib.no_grad():
        for i, p in enumerate(m.parameters()):
            p.copy_(lib.linspace(-1.0, 1.3 + i, p.numel(), dtype=lib.float64).reshape(p.shape))
    return m


def _input(lib, kind):
    shape = (2, 4) if kind == "linear" else (1, 2, 3, 3)
    return lib.linspace(-2, 2, int(np.prod(shape)), dtype=lib.float64).reshape(shape)


def _np(t):
    return t.detach().numpy()


def _close(o, t):
    np.testing.assert_allclose(_np(o), _np(t), rtol=1e-10, atol=1e-12)


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return fn(*args, **kwargs)


@pytest.mark.parametrize("dim", [0, 1, -1, None])
@pytest.mark.parametrize("kind", ["linear", "conv"])
@pytest.mark.parametrize("api", ["parametrizations", "hooks"])
def test_weight_norm_matches(api, kind, dim):
    def run(lib):
        m = _layer(lib, kind)
        if api == "parametrizations":
            lib.nn.utils.parametrizations.weight_norm(m, dim=dim)
            g, v = m.parametrizations.weight.original0, m.parametrizations.weight.original1
        else:
            _quiet(lib.nn.utils.weight_norm, m, dim=dim)
            g, v = m.weight_g, m.weight_v
        y = m(_input(lib, kind))
        y.pow(2).sum().backward()
        return m, [y, m.weight, g, g.grad, v.grad]

    (mo, ours), (mt, theirs) = run(mindtorch), run(torch)
    assert list(mo.state_dict()) == list(mt.state_dict())
    for o, t in zip(ours, theirs):
        assert tuple(o.shape) == tuple(t.shape)
        _close(o, t)


@pytest.mark.parametrize("api", ["parametrizations", "hooks"])
def test_weight_norm_gradcheck(api):
    m = _layer(mindtorch, "linear")
    if api == "parametrizations":
        mindtorch.nn.utils.parametrizations.weight_norm(m)
        names = ("parametrizations.weight.original0", "parametrizations.weight.original1")
    else:
        _quiet(mindtorch.nn.utils.weight_norm, m)
        names = ("weight_g", "weight_v")
    x = _input(mindtorch, "linear")
    g = mindtorch.rand(3, 1, dtype=mindtorch.float64, requires_grad=True)
    v = mindtorch.randn(3, 4, dtype=mindtorch.float64, requires_grad=True)
    if api == "parametrizations":
        f = lambda g, v: mindtorch.func.functional_call(m, dict(zip(names, (g, v))), (x,))
    else:
        from mindtorch.nn.utils.weight_norm import weight_norm_value

        f = lambda g, v: mindtorch.nn.functional.linear(x, weight_norm_value(v, g, 0), m.bias)
    assert mindtorch.autograd.gradcheck(f, (g, v))


def test_hook_weight_norm_warns_and_removes():
    for lib in (mindtorch, torch):
        m = _layer(lib, "linear")
        with pytest.warns(FutureWarning, match="parametrizations.weight_norm"):
            lib.nn.utils.weight_norm(m)
        before = m.weight.detach().clone()
        out = lib.nn.utils.remove_weight_norm(m)
        assert out is m and list(m.state_dict()) == ["bias", "weight"]
        assert isinstance(m.weight, lib.nn.Parameter)
        np.testing.assert_allclose(_np(m.weight), _np(before), rtol=1e-12)


def test_parametrized_weight_norm_loads_hook_checkpoints():
    for lib in (mindtorch, torch):
        old = _quiet(lib.nn.utils.weight_norm, _layer(lib, "linear"))
        with lib.no_grad():
            old.weight_g.mul_(2)
        new = lib.nn.utils.parametrizations.weight_norm(lib.nn.Linear(4, 3, dtype=lib.float64))
        new.load_state_dict(old.state_dict())
        old(_input(lib, "linear"))  # the hook recomputes old.weight from the doubled magnitude
        np.testing.assert_allclose(_np(new.weight), _np(old.weight), rtol=1e-12)


def _spectral(lib, api, kind, **kwargs):
    m = _layer(lib, kind)
    if api == "parametrizations":
        lib.nn.utils.parametrizations.spectral_norm(m, **kwargs)
    else:
        lib.nn.utils.spectral_norm(m, **kwargs)
    return m


def _uv(m, api):
    if api == "parametrizations":
        p = m.parametrizations.weight[0]
        return p._u, p._v
    return m.weight_u, m.weight_v


@pytest.mark.parametrize("kind", ["linear", "conv", "convT"])
@pytest.mark.parametrize("api", ["parametrizations", "hooks"])
def test_spectral_norm_matches_from_the_same_vectors(api, kind):
    ours, theirs = _spectral(mindtorch, api, kind), _spectral(torch, api, kind)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    with torch.no_grad():
        for o, t in zip(_uv(ours, api), _uv(theirs, api)):
            assert tuple(o.shape) == tuple(t.shape)
            t.copy_(torch.from_numpy(_np(o).copy()))
    results = []
    for lib, m in ((mindtorch, ours), (torch, theirs)):
        y = m(_input(lib, kind))
        y.pow(2).sum().backward()
        orig = m.parametrizations.weight.original if api == "parametrizations" else m.weight_orig
        results.append([y, m.weight, orig.grad, *_uv(m, api)])
    for o, t in zip(*results):
        np.testing.assert_allclose(_np(o), _np(t), rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("api", ["parametrizations", "hooks"])
def test_spectral_norm_estimates_the_largest_singular_value(api):
    for lib in (mindtorch, torch):
        m = _spectral(lib, api, "linear", n_power_iterations=3)
        for _ in range(10):
            m(_input(lib, "linear"))
        sigma = np.linalg.svd(_np(m.weight), compute_uv=False)[0]
        assert abs(sigma - 1.0) < 1e-6
        m.eval()
        w = _np(m.weight).copy()
        u = _np(_uv(m, api)[0]).copy()
        m(_input(lib, "linear"))
        np.testing.assert_array_equal(_np(_uv(m, api)[0]), u)  # no power iteration in eval mode
        np.testing.assert_allclose(_np(m.weight), w, rtol=1e-12)


def test_spectral_norm_of_a_vector_normalises_it():
    for lib in (mindtorch, torch):
        m = lib.nn.Linear(3, 1, dtype=lib.float64)
        lib.nn.utils.parametrizations.spectral_norm(m, "bias")
        np.testing.assert_allclose(np.abs(_np(m.bias)), 1.0)


def test_hook_spectral_norm_removes():
    for lib in (mindtorch, torch):
        m = _spectral(lib, "hooks", "conv")
        m(_input(lib, "conv"))
        normalised = _np(m.weight).copy()
        assert lib.nn.utils.remove_spectral_norm(m) is m
        assert list(m.state_dict()) == ["bias", "weight"] and isinstance(m.weight, lib.nn.Parameter)
        np.testing.assert_allclose(_np(m.weight), normalised, rtol=1e-10)


ERRORS = {
    "new_iterations": lambda lib: _spectral(lib, "parametrizations", "linear", n_power_iterations=0),
    "new_dim": lambda lib: _spectral(lib, "parametrizations", "linear", dim=2),
    "new_dim_negative": lambda lib: _spectral(lib, "parametrizations", "conv", dim=-5),
    "new_name": lambda lib: lib.nn.utils.parametrizations.spectral_norm(lib.nn.Linear(2, 2), "nope"),
    "old_iterations": lambda lib: _spectral(lib, "hooks", "linear", n_power_iterations=0),
    "old_twice": lambda lib: lib.nn.utils.spectral_norm(_spectral(lib, "hooks", "linear")),
    "old_none": lambda lib: lib.nn.utils.spectral_norm(lib.nn.Linear(2, 2, bias=False), "bias"),
    "old_remove_missing": lambda lib: lib.nn.utils.remove_spectral_norm(lib.nn.Linear(2, 2)),
    "wn_twice": lambda lib: _quiet(lib.nn.utils.weight_norm, _quiet(lib.nn.utils.weight_norm, lib.nn.Linear(2, 2))),
    "wn_remove_missing": lambda lib: lib.nn.utils.remove_weight_norm(lib.nn.Linear(2, 2)),
    "wn_uninitialized": lambda lib: _quiet(lib.nn.utils.weight_norm, lib.nn.LazyLinear(2)),
    "sn_uninitialized": lambda lib: lib.nn.utils.spectral_norm(lib.nn.LazyLinear(2)),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_match(case):
    raises_alike(ERRORS[case])


def test_module_names():
    import mindtorch.nn.utils.parametrizations as P

    assert sorted(P.__all__) == sorted(torch.nn.utils.parametrizations.__all__)
    for name in ("weight_norm", "remove_weight_norm", "spectral_norm", "remove_spectral_norm"):
        assert callable(getattr(mindtorch.nn.utils, name))


ORTHOGONAL = [
    (shape, m, triv)
    for shape in [(4, 4), (5, 3), (3, 5), (2, 4, 3)]
    for m in ("matrix_exp", "cayley", "householder", None)
    for triv in (True, False)
    if triv or m == "householder"
]


def _orthogonal_pair(shape, orthogonal_map, triv):
    w = np.random.default_rng(0).standard_normal(shape)
    pair = []
    for lib in (mindtorch, torch):
        m = lib.nn.Module()
        m.weight = lib.nn.Parameter(lib.tensor(w, dtype=lib.float64))
        lib.nn.utils.parametrizations.orthogonal(m, orthogonal_map=orthogonal_map, use_trivialization=triv)
        pair.append(m)
    ours, theirs = pair
    if triv:  # columns beyond the weight's are drawn at random: give PyTorch ours
        with torch.no_grad():
            theirs.parametrizations.weight[0].base.copy_(
                torch.from_numpy(_np(ours.parametrizations.weight[0].base).copy())
            )
    return ours, theirs


@pytest.mark.parametrize("shape,orthogonal_map,triv", ORTHOGONAL)
def test_orthogonal_matches(shape, orthogonal_map, triv):
    ours, theirs = _orthogonal_pair(shape, orthogonal_map, triv)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    w = _np(ours.weight)
    small = min(shape[-2:])
    gram = w @ np.swapaxes(w, -1, -2) if shape[-2] <= shape[-1] else np.swapaxes(w, -1, -2) @ w
    np.testing.assert_allclose(gram, np.broadcast_to(np.eye(small), gram.shape), atol=1e-12)
    _close(ours.parametrizations.weight.original, theirs.parametrizations.weight.original)
    _close(ours.weight, theirs.weight)
    for lib, m in ((mindtorch, ours), (torch, theirs)):
        probe = lib.linspace(-1, 1, int(np.prod(shape)), dtype=lib.float64).reshape(shape)
        (m.weight * probe).pow(3).sum().backward()
    np.testing.assert_allclose(
        _np(ours.parametrizations.weight.original.grad),
        _np(theirs.parametrizations.weight.original.grad),
        rtol=1e-9,
        atol=1e-11,
    )


@pytest.mark.parametrize(
    "shape,orthogonal_map,triv",
    [
        ((4, 4), "matrix_exp", True),
        ((5, 3), "householder", True),
        ((3, 5), "cayley", True),
        ((4, 3), "householder", False),
    ],
)
def test_orthogonal_assignment(shape, orthogonal_map, triv):
    q = np.linalg.qr(np.random.default_rng(3).standard_normal((max(shape), max(shape))))[0][: shape[0], : shape[1]]
    for m in _orthogonal_pair(shape, orthogonal_map, triv):
        lib = mindtorch if isinstance(m, mindtorch.nn.Module) else torch
        m.weight = lib.tensor(q, dtype=lib.float64)
        np.testing.assert_allclose(_np(m.weight), q, atol=1e-12)


def test_orthogonal_gradcheck():
    from mindtorch.nn.utils.parametrizations import _Orthogonal

    for orthogonal_map in ("matrix_exp", "cayley", "householder"):
        orth = _Orthogonal(mindtorch.ones(4, 3, dtype=mindtorch.float64), orthogonal_map, use_trivialization=False)
        x = mindtorch.randn(4, 3, dtype=mindtorch.float64, requires_grad=True)
        assert mindtorch.autograd.gradcheck(orth, (x,))


ORTHOGONAL_ERRORS = {
    "vector": lambda lib: lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(2, 2), "bias"),
    "missing": lambda lib: lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(2, 2), "nope"),
    "map": lambda lib: lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(2, 2), orthogonal_map="qr"),
    "shape": lambda lib: setattr(lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(2, 2)), "weight", lib.eye(3)),
    "no_trivialization_assign": lambda lib: setattr(
        lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(2, 2), use_trivialization=False), "weight", lib.eye(2)
    ),
}


@pytest.mark.parametrize("case", sorted(ORTHOGONAL_ERRORS))
def test_orthogonal_errors(case):
    raises_alike(ORTHOGONAL_ERRORS[case])
