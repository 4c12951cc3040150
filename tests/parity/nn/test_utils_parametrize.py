"""nn.utils.parametrize against PyTorch's: registering, stacking, caching, assigning through
right_inverse, removing, state_dict keys, gradients, and the same errors."""

import copy
import pickle

import mindtorch
import numpy as np
import pytest
from helpers import raises_alike, torch_or_skip

torch = torch_or_skip()
LIBS = pytest.mark.parametrize("lib", [mindtorch, torch], ids=["mindtorch", "torch"])


def _linear(lib, n_in=3, n_out=3):
    m = lib.nn.Linear(n_in, n_out, dtype=lib.float64)
    with lib.no_grad():
        m.weight.copy_(lib.arange(n_out * n_in, dtype=lib.float64).reshape(n_out, n_in) / 7 - 0.5)
        m.bias.copy_(lib.arange(n_out, dtype=lib.float64) / 3)
    return m


def _symmetric(lib):
    class Symmetric(lib.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)

        def right_inverse(self, A):
            return A.triu()

    return Symmetric()


def _scale(lib, k):
    class Scale(lib.nn.Module):
        def forward(self, X):
            return X * k

        def right_inverse(self, A):
            return A / k

    return Scale()


def _split(lib):
    class Split(lib.nn.Module):
        """Two originals: X = A + B."""

        def forward(self, A, B):
            return A + B

        def right_inverse(self, X):
            return X * 0.25, X * 0.75

    return Split()


def _np(t):
    return t.detach().numpy()


def _both(run):
    ours, theirs = run(mindtorch), run(torch)
    if isinstance(theirs, (list, tuple)):
        assert len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            _eq(o, t)
    else:
        _eq(ours, theirs)


def _eq(o, t):
    if isinstance(t, torch.Tensor):
        np.testing.assert_allclose(_np(o), _np(t), rtol=1e-12, atol=1e-12)
    else:
        assert o == t


def test_register_and_use():
    def run(lib):
        P = lib.nn.utils.parametrize
        m = _linear(lib)
        out = P.register_parametrization(m, "weight", _symmetric(lib))
        assert out is m and type(m).__name__ == "ParametrizedLinear" and isinstance(m, lib.nn.Linear)
        assert P.type_before_parametrizations(m) is lib.nn.Linear
        assert P.is_parametrized(m) and P.is_parametrized(m, "weight") and not P.is_parametrized(m, "bias")
        assert isinstance(m.parametrizations.weight, P.ParametrizationList)
        x = lib.linspace(-1, 1, 6, dtype=lib.float64).reshape(2, 3)
        y = m(x)
        y.pow(2).sum().backward()
        return [
            m.weight,
            y,
            m.parametrizations.weight.original.grad,
            m.bias.grad,
            list(m.state_dict()),
            [n for n, _ in m.named_parameters()],
        ]

    _both(run)


def test_stacked_parametrizations_and_assignment():
    def run(lib):
        P = lib.nn.utils.parametrize
        m = _linear(lib)
        P.register_parametrization(m, "weight", _symmetric(lib))
        P.register_parametrization(m, "weight", _scale(lib, 3.0))
        assert len(m.parametrizations.weight) == 2
        before = m.weight
        target = lib.tensor([[1.0, 2.0, 3.0], [2.0, 5.0, 6.0], [3.0, 6.0, 9.0]], dtype=lib.float64)
        m.weight = target
        return [before, m.weight, m.parametrizations.weight.original]

    _both(run)


def test_sequence_originals():
    def run(lib):
        P = lib.nn.utils.parametrize
        m = _linear(lib, 2, 4)
        P.register_parametrization(m, "weight", _split(lib))
        names = list(m.state_dict())
        assert not hasattr(m.parametrizations.weight, "original")
        assert isinstance(m.parametrizations.weight.original0, lib.nn.Parameter)
        m.weight = lib.ones(4, 2, dtype=lib.float64)
        w = m.weight
        m.weight.sum().backward()
        return [names, w, m.parametrizations.weight.original0, m.parametrizations.weight.original1.grad]

    _both(run)


def test_buffers_can_be_parametrized():
    def run(lib):
        bn = lib.nn.BatchNorm1d(3, dtype=lib.float64)
        lib.nn.utils.parametrize.register_parametrization(bn, "running_var", _scale(lib, 2.0))
        keys = list(bn.state_dict())
        assert not isinstance(bn.parametrizations.running_var.original, lib.nn.Parameter)
        return [keys, bn.running_var]

    _both(run)


@pytest.mark.parametrize("leave", [True, False])
def test_remove(leave):
    def run(lib):
        P = lib.nn.utils.parametrize
        m = _linear(lib)
        P.register_parametrization(m, "weight", _scale(lib, 2.0))
        P.register_parametrization(m, "bias", _scale(lib, 5.0))
        P.remove_parametrizations(m, "weight", leave_parametrized=leave)
        assert type(m).__name__ == "ParametrizedLinear" and P.is_parametrized(m)
        P.remove_parametrizations(m, "bias", leave_parametrized=leave)
        assert type(m) is lib.nn.Linear and not P.is_parametrized(m) and "parametrizations" not in m._modules
        assert isinstance(m.weight, lib.nn.Parameter) and isinstance(m.bias, lib.nn.Parameter)
        return [m.weight, m.bias, list(m.state_dict())]

    _both(run)


def test_remove_sequence_originals():
    def run(lib):
        P = lib.nn.utils.parametrize
        m = _linear(lib)
        P.register_parametrization(m, "weight", _split(lib))
        P.remove_parametrizations(m, "weight")
        return [m.weight, type(m.weight).__name__, m.weight.requires_grad]

    _both(run)


def test_only_this_module_changes_class():
    for lib in (mindtorch, torch):
        a, b = _linear(lib), _linear(lib)
        lib.nn.utils.parametrize.register_parametrization(a, "weight", _scale(lib, 2.0))
        assert type(b) is lib.nn.Linear and not isinstance(type(b).__dict__.get("weight"), property)


def test_cached():
    for lib in (mindtorch, torch):
        P = lib.nn.utils.parametrize
        calls = []

        class Counting(lib.nn.Module):
            def forward(self, X):
                calls.append(1)
                return X * 2

        m = _linear(lib)
        P.register_parametrization(m, "weight", Counting())
        calls.clear()
        with P.cached():
            a, b = m.weight, m.weight
            with P.cached():
                c = m.weight
        assert a is b is c and len(calls) == 1
        assert m.weight is not a and len(calls) == 2


def test_deepcopy_and_pickle():
    for lib in (mindtorch, torch):
        m = _linear(lib)
        lib.nn.utils.parametrize.register_parametrization(m, "weight", _scale(lib, 2.0))
        c = copy.deepcopy(m)
        assert type(c) is type(m) and c.parametrizations.weight.original is not m.parametrizations.weight.original
        np.testing.assert_array_equal(_np(c.weight), _np(m.weight))
        with pytest.raises(RuntimeError, match="only supported through state_dict"):
            pickle.dumps(m)


def test_state_dict_round_trip():
    src = _linear(mindtorch)
    mindtorch.nn.utils.parametrize.register_parametrization(src, "weight", _symmetric(mindtorch))
    dst = mindtorch.nn.Linear(3, 3, dtype=mindtorch.float64)
    mindtorch.nn.utils.parametrize.register_parametrization(dst, "weight", _symmetric(mindtorch))
    dst.load_state_dict(src.state_dict())
    np.testing.assert_array_equal(_np(dst.weight), _np(src.weight))


def test_transfer_parametrizations_and_params():
    def run(lib):
        P = lib.nn.utils.parametrize
        src = _linear(lib)
        P.register_parametrization(src, "weight", _scale(lib, 2.0))
        dst = lib.nn.Linear(3, 3, dtype=lib.float64)
        out = P.transfer_parametrizations_and_params(src, dst)
        assert out is dst and P.is_parametrized(dst, "weight")
        assert dst.parametrizations.weight.original is src.parametrizations.weight.original
        untouched = lib.nn.Linear(3, 3)
        assert P.transfer_parametrizations_and_params(lib.nn.Linear(3, 3), untouched) is untouched
        return [dst.weight]

    _both(run)


def test_gradcheck_through_parametrization():
    """The parametrized module's output as a function of the original tensor, in float64."""
    m = _linear(mindtorch)
    mindtorch.nn.utils.parametrize.register_parametrization(m, "weight", _symmetric(mindtorch))
    mindtorch.nn.utils.parametrize.register_parametrization(m, "weight", _scale(mindtorch, 1.5))
    x = mindtorch.randn(2, 3, dtype=mindtorch.float64)
    w = mindtorch.randn(3, 3, dtype=mindtorch.float64, requires_grad=True)
    assert mindtorch.autograd.gradcheck(
        lambda t: mindtorch.func.functional_call(m, {"parametrizations.weight.original": t}, (x,)), (w,)
    )


def _bad(lib, kind):
    """Parametrizations that break a rule."""

    class Bad(lib.nn.Module):
        def forward(self, *X):
            X = X[0]
            if kind == "not_tensor":
                return 3
            if kind == "dtype":
                return X.float()
            if kind == "shape":
                return X[:2]
            return X

        def right_inverse(self, A):
            if kind == "inverse_number":
                return 3
            if kind == "inverse_dtype":
                return A.float()
            if kind == "inverse_device":
                return A.to("meta")
            if kind == "inverse_items":
                return [A, 3]
            if kind == "inverse_shape":
                return A[:1]
            return A

    return Bad()


ERRORS = {
    "no_such_tensor": lambda lib: lib.nn.utils.parametrize.register_parametrization(
        _linear(lib), "nope", _scale(lib, 2.0)
    ),
    "not_tensor": lambda lib: lib.nn.utils.parametrize.register_parametrization(
        _linear(lib), "weight", _bad(lib, "not_tensor")
    ),
    "dtype": lambda lib: lib.nn.utils.parametrize.register_parametrization(_linear(lib), "weight", _bad(lib, "dtype")),
    "shape": lambda lib: lib.nn.utils.parametrize.register_parametrization(_linear(lib), "weight", _bad(lib, "shape")),
    "inverse_number": lambda lib: lib.nn.utils.parametrize.register_parametrization(
        _linear(lib), "weight", _bad(lib, "inverse_number")
    ),
    "inverse_dtype": lambda lib: lib.nn.utils.parametrize.register_parametrization(
        _linear(lib), "weight", _bad(lib, "inverse_dtype")
    ),
    "inverse_items": lambda lib: lib.nn.utils.parametrize.register_parametrization(
        _linear(lib), "weight", _bad(lib, "inverse_items")
    ),
    "remove_missing": lambda lib: lib.nn.utils.parametrize.remove_parametrizations(_linear(lib), "weight"),
    "remove_sequence_unparametrized": lambda lib: lib.nn.utils.parametrize.remove_parametrizations(
        lib.nn.utils.parametrize.register_parametrization(_linear(lib), "weight", _split(lib)),
        "weight",
        leave_parametrized=False,
    ),
    "empty_list": lambda lib: lib.nn.utils.parametrize.ParametrizationList([], lib.ones(2)),
}


def _stacked(lib, kind):
    m = lib.nn.utils.parametrize.register_parametrization(_linear(lib), "weight", _scale(lib, 2.0))
    return lib.nn.utils.parametrize.register_parametrization(m, "weight", _bad(lib, kind))


for _kind in ("not_tensor", "dtype", "shape", "inverse_number", "inverse_dtype", "inverse_shape"):
    ERRORS[f"stacked_{_kind}"] = (lambda k: lambda lib: _stacked(lib, k))(_kind)


def _assign(lib, kind, value):
    m = lib.nn.utils.parametrize.register_parametrization(
        _linear(lib), "weight", _bad(lib, kind) if kind else _symmetric(lib)
    )
    m.weight = value(lib)


ERRORS["assign_no_inverse"] = lambda lib: _assign_no_inverse(lib)


def _assign_no_inverse(lib):
    class NoInverse(lib.nn.Module):
        def forward(self, X):
            return X

    m = lib.nn.utils.parametrize.register_parametrization(_linear(lib), "weight", NoInverse())
    m.weight = lib.ones(3, 3, dtype=lib.float64)


ERRORS["assign_wrong_dtype"] = lambda lib: _assign(lib, None, lambda lib: lib.ones(3, 3))


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_match(case):
    raises_alike(ERRORS[case])


def test_unsafe_allows_changes():
    def run(lib):
        P = lib.nn.utils.parametrize
        m = _linear(lib)
        P.register_parametrization(m, "weight", _bad(lib, "shape"), unsafe=True)
        P.register_parametrization(m, "weight", _bad(lib, "dtype"), unsafe=True)
        assert m.parametrizations.weight.unsafe
        return [m.weight.dtype == lib.float32, tuple(m.weight.shape)]

    _both(run)


def test_module_names():
    import mindtorch.nn.utils.parametrize as P

    assert sorted(P.__all__) == sorted(torch.nn.utils.parametrize.__all__)
    assert all(hasattr(P, n) for n in P.__all__)
