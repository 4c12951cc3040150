"""torch.utils.checkpoint's helpers against PyTorch's: context_fn (its managers entered around the
forward and the recomputation), selective-checkpointing contexts (same values and gradients under any
policy), the determinism check, detach_variable, check_backward_validity, the device-state helpers on
host tensors and the debug/early-stop settings, with PyTorch's errors."""

import functools
import importlib
import warnings

import mindtorch
import mindtorch.utils.checkpoint
import numpy as np
import pytest
from helpers import raises_alike, torch_or_skip

torch = torch_or_skip()


def _ckpt(lib):
    return importlib.import_module(lib.__name__ + ".utils.checkpoint")


def _x(lib):
    return lib.tensor([[0.3, -0.2, 0.9], [1.4, -1.1, 0.5]], dtype=lib.float64, requires_grad=True)


def _f(lib, a, w):
    return lib.sigmoid((a @ w).tanh() @ w.t()) * a


def _np(values):
    return [None if v is None else v.detach().numpy() for v in values]


class _Recorder:
    def __init__(self, log, name):
        self.log, self.name = log, name

    def __enter__(self):
        self.log.append(("enter", self.name))

    def __exit__(self, *exc):
        self.log.append(("exit", self.name))


def _policy_save_matmuls(lib):
    mm = lib.ops.aten.mm.default if lib is torch else lib.ops.mm
    return lambda ctx, op, *a, **k: (
        _ckpt(lib).CheckpointPolicy.MUST_SAVE if op is mm else _ckpt(lib).CheckpointPolicy.PREFER_RECOMPUTE
    )


CONTEXTS = {
    "noop": lambda lib, log: _ckpt(lib).noop_context_fn,
    "recorded": lambda lib, log: lambda: (_Recorder(log, "forward"), _Recorder(log, "recompute")),
    "sac_policy": lambda lib, log: functools.partial(
        _ckpt(lib).create_selective_checkpoint_contexts, _policy_save_matmuls(lib)
    ),
    "sac_list": lambda lib, log: functools.partial(
        _ckpt(lib).create_selective_checkpoint_contexts, [lib.ops.aten.mm.default if lib is torch else lib.ops.mm]
    ),
}


@pytest.mark.parametrize("context", list(CONTEXTS))
@pytest.mark.parametrize("determinism_check", ["default", "none"])
def test_context_fn(context, determinism_check):
    def run(lib):
        log = []
        a = _x(lib)
        w = lib.tensor([[0.5, -0.3], [0.2, 0.8], [-0.6, 0.1]], dtype=lib.float64, requires_grad=True)
        out = _ckpt(lib).checkpoint(
            lambda p, q: _f(lib, p, q),
            a,
            w,
            use_reentrant=False,
            context_fn=CONTEXTS[context](lib, log),
            determinism_check=determinism_check,
        )
        log.append("backward")
        out.pow(2).sum().backward()
        return _np([out, a.grad, w.grad]), log

    (ours, our_log), (theirs, their_log) = run(mindtorch), run(torch)
    for p, q in zip(ours, theirs):
        np.testing.assert_allclose(p, q, rtol=1e-12, atol=1e-12)
    assert our_log == their_log


def test_determinism_check_catches_a_different_recomputation():
    for lib in (mindtorch, torch):
        calls = []

        def f(a, lib=lib, calls=calls):
            calls.append(1)
            return a.sin() if len(calls) == 1 else a[:1].sin()

        out = _ckpt(lib).checkpoint(f, _x(lib), use_reentrant=False)
        with pytest.raises(_ckpt(lib).CheckpointError):
            out.sum().backward()
        assert issubclass(_ckpt(lib).CheckpointError, RuntimeError)


ERRORS = {
    "reentrant_context_fn": lambda lib: _ckpt(lib).checkpoint(
        lambda a: a, _x(lib), use_reentrant=True, context_fn=lambda: (None, None)
    ),
    "reentrant_debug": lambda lib: _ckpt(lib).checkpoint(lambda a: a, _x(lib), use_reentrant=True, debug=True),
    "debug_with_context_fn": lambda lib: _ckpt(lib).checkpoint(
        lambda a: a, _x(lib), use_reentrant=False, debug=True, context_fn=lambda: (None, None)
    ),
    "determinism_check": lambda lib: _ckpt(lib).checkpoint(
        lambda a: a, _x(lib), use_reentrant=False, determinism_check="strict"
    ),
    "sac_bad_list": lambda lib: _ckpt(lib).create_selective_checkpoint_contexts([3]),
    "sac_not_callable": lambda lib: _ckpt(lib).create_selective_checkpoint_contexts(3),
    "detach_list": lambda lib: _ckpt(lib).detach_variable([_x(lib)]),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_errors(case):
    if case == "sac_bad_list":  # the message prints the op, which each library prints its own way
        for lib in (mindtorch, torch):
            with pytest.raises(ValueError, match="Expected op in `op_list` to be an OpOverload"):
                ERRORS[case](lib)
        return
    raises_alike(ERRORS[case])


def test_debug_setting_overrides_the_argument():
    for lib in (mindtorch, torch):
        with _ckpt(lib).set_checkpoint_debug_enabled(True), pytest.raises(ValueError, match="incompatible"):
            _ckpt(lib).checkpoint(lambda a: a, _x(lib), use_reentrant=False, context_fn=lambda: (None, None))
        with _ckpt(lib).set_checkpoint_debug_enabled(False):
            out = _ckpt(lib).checkpoint(
                lambda a: a * 3, _x(lib), use_reentrant=False, context_fn=_ckpt(lib).noop_context_fn
            )
        with _ckpt(lib).set_checkpoint_early_stop(False):
            out = _ckpt(lib).checkpoint(lambda a: a.sin() * 3, _x(lib), use_reentrant=False)
            out.sum().backward()


def test_policy_objects():
    for lib in (mindtorch, torch):
        ck = _ckpt(lib)
        assert [(p.name, p.value) for p in ck.CheckpointPolicy] == [
            (p.name, p.value) for p in _ckpt(torch).CheckpointPolicy
        ]
        ctx = ck.SelectiveCheckpointContext(is_recompute=False)
        assert ctx.is_recompute is False and ctx.op_output is None
        fwd, rec = ck.create_selective_checkpoint_contexts(lambda *a: ck.CheckpointPolicy.MUST_SAVE)
        assert hasattr(fwd, "__enter__") and hasattr(rec, "__exit__")
        assert isinstance(ck.SAC_IGNORED_OPS, (set, frozenset))


def test_detach_variable_and_validity():
    def run(lib):
        a = _x(lib)
        b = a * 2
        out = _ckpt(lib).detach_variable((a, b, 3, b.detach()))
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            _ckpt(lib).check_backward_validity([a.detach(), 1])
            _ckpt(lib).check_backward_validity([a, 1])
        flags = [(t.requires_grad, t.grad_fn is None, t.is_leaf) for t in out if hasattr(t, "requires_grad")]
        return [str(m.message) for m in w], flags, out[2], _np([out[0], out[1]])

    ours, theirs = run(mindtorch), run(torch)
    assert ours[:3] == theirs[:3]
    for p, q in zip(ours[3], theirs[3]):
        np.testing.assert_array_equal(p, q)


def test_device_states_of_host_tensors():
    for lib in (mindtorch, torch):
        ck = _ckpt(lib)
        assert ck.get_device_states(_x(lib), [3, _x(lib)]) == ([], [])
        assert ck.set_device_states([], []) is None
        assert ck.set_device_states([0], [None], device_type="meta") is None
