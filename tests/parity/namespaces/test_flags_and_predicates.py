"""Process-wide switches (determinism, matmul precision, warn-always, denormals), constants and the small
tensor predicates, against PyTorch."""

import warnings

import numpy as np
import pytest
from helpers import torch_or_skip

torch = torch_or_skip()

import mindtorch as mt  # noqa: E402


def _outcome(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value = fn()
        except Exception as exc:
            value = (type(exc).__name__, str(exc))
    return value, [str(w.message) for w in caught]


@pytest.fixture
def restore_flags():
    yield
    for lib in (mt, torch):
        lib.use_deterministic_algorithms(False)
        lib.set_float32_matmul_precision("highest")
        lib.set_warn_always(False)


STEPS = [
    lambda lib: lib.use_deterministic_algorithms(True),
    lambda lib: lib.use_deterministic_algorithms(True, warn_only=True),
    lambda lib: lib.use_deterministic_algorithms(1),
    lambda lib: lib.set_deterministic_debug_mode("warn"),
    lambda lib: lib.set_deterministic_debug_mode("error"),
    lambda lib: lib.set_deterministic_debug_mode("bogus"),
    lambda lib: lib.set_deterministic_debug_mode(5),
    lambda lib: lib.set_deterministic_debug_mode(0),
    lambda lib: lib.set_float32_matmul_precision("medium"),
    lambda lib: lib.set_float32_matmul_precision("bogus"),
    lambda lib: lib.set_warn_always(True),
]


def _state(lib):
    return (
        lib.are_deterministic_algorithms_enabled(),
        lib.is_deterministic_algorithms_warn_only_enabled(),
        lib.get_deterministic_debug_mode(),
        lib.get_float32_matmul_precision(),
        lib.is_warn_always_enabled(),
    )


@pytest.mark.parametrize("upto", range(1, len(STEPS) + 1))
def test_switch_sequences_match(upto, restore_flags):
    for step in STEPS[:upto]:
        m, t = _outcome(lambda: step(mt)), _outcome(lambda: step(torch))
        assert m[0] == t[0]
        assert m[1] == [w.split(" (Triggered internally")[0] for w in t[1]]
        assert _state(mt) == _state(torch)


def test_constants():
    for name in ("e", "pi", "inf"):
        assert getattr(mt, name) == getattr(torch, name)
    assert np.isnan(mt.nan) and mt.newaxis is torch.newaxis is None


CASES = [
    np.ones(1, np.float32),
    np.zeros(1, np.float32),
    np.ones(3, np.float32),
    np.ones(0, np.float32),
    np.array(2, np.int64),
    np.array([True]),
]


@pytest.mark.parametrize("k", range(len(CASES)))
@pytest.mark.parametrize("name", ["is_signed", "is_conj", "is_neg", "is_nonzero", "get_device"])
def test_predicates(name, k):
    a = CASES[k]
    m = _outcome(lambda: getattr(mt, name)(mt.tensor(a)))
    t = _outcome(lambda: getattr(torch, name)(torch.tensor(a)))
    assert m == t
    assert _outcome(lambda: getattr(mt.tensor(a), name)()) == t


def test_same_size_resolve_and_scalar_tensor():
    for lib in (mt, torch):
        x = lib.ones(2, 3)
        assert lib.is_same_size(x, lib.zeros(2, 3)) and not x.is_same_size(lib.zeros(3, 2))
        assert lib.resolve_conj(x) is x or lib.resolve_conj(x).data_ptr() == x.data_ptr()
    for args, kw in (((3,), {}), ((2.5,), {"dtype": "float64"}), ((True,), {"dtype": "int32"})):
        kwm = {k: getattr(mt, v) for k, v in kw.items()}
        kwt = {k: getattr(torch, v) for k, v in kw.items()}
        m, t = mt.scalar_tensor(*args, **kwm), torch.scalar_tensor(*args, **kwt)
        assert (m.shape, str(m.dtype).split(".")[1], m.item()) == (t.shape, str(t.dtype).split(".")[1], t.item())
