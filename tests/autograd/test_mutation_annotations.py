"""Every op that writes an argument says so in its schema (`Tensor(a!)`), and core bumps that
argument's version counter once per call, as PyTorch's in-place machinery does.

The cases are generated from the op table: every op with an argument marked (a!), on the first
of its conformance samples that runs. Backends never touch version counters; these tests see
the counters move (or, for the unversioned running statistics of batch norm, stay) and
backward through a tensor the op changed raise PyTorch's error.
"""

import mindtorch
import pytest
from helpers import bound_args, runnable_sample, version_moves
from mindtorch.ops.registry import OPS
from mindtorch.testing.conformance.runner import MISSING, coverage

WRITERS = sorted(q for q, op in OPS.items() if any(p.writes for p in op.params))
DEVICES = ["cpu", "meta"]
MODIFIED = "one of the variables needed for gradient computation has been modified by an inplace operation"
# ops PyTorch refuses on a tensor that requires grad, even under no_grad
REFUSE_GRAD = {
    "resize_": "cannot resize variables that require grad",
    "resize_as_": "cannot resize variables that require grad",
}


def _version(t):
    return t._version_value


def test_in_place_ops_are_annotated():
    """Every in-place op (`add_`, `uniform_`, ...) marks self as written, and the list is not empty."""
    assert WRITERS
    for q, op in OPS.items():
        if op.inplace:
            assert 0 in op.mutated, q
    assert {"_foreach_adam_", "_foreach_sgd_", "_batch_norm", "copy_", "index_put_"} <= set(WRITERS)


def test_schema_parses_write_annotations():
    from mindtorch.ops.schema import parse_signature

    _, params, _ = parse_signature("f(Tensor(a!) self, Tensor(b!)[] xs, Tensor(c!)? y, Tensor z) -> ()")
    assert [(p.name, p.writes, p.is_list, p.optional) for p in params] == [
        ("self", True, False, False),
        ("xs", True, True, False),
        ("y", True, False, True),
        ("z", False, False, False),
    ]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("qualname", WRITERS)
def test_versions_move_by_one_per_written_argument(qualname, device):
    if device != "cpu" and coverage(OPS[qualname], device) == MISSING:
        pytest.skip(f"no {qualname} kernel on {device}")
    moved, owed, sample = version_moves(qualname, mindtorch.device(device))
    assert moved == owed, f"{qualname}{sample!r}"


def _float_written_slots(op, bound):
    """(param name, list index or None, tensor) for every float tensor the op writes."""
    out = []
    for p in op.params:
        if not p.writes:
            continue
        a = bound.get(p.name)
        items = [(None, a)] if isinstance(a, mindtorch.Tensor) else list(enumerate(a or ()))
        out += [(p.name, j, t) for j, t in items if isinstance(t, mindtorch.Tensor) and t.is_floating_point()]
    return out


def _substitute(op, sample, name, j, x):
    names = [p.name for p in op.params]
    args, kwargs = list(sample.args), dict(sample.kwargs)
    where = (args, names.index(name)) if names.index(name) < len(args) else (kwargs, name)
    container, key = where
    if j is None:
        container[key] = x
    else:
        lst = list(container[key])
        lst[j] = x
        container[key] = lst
    return args, kwargs


@pytest.mark.parametrize("qualname", WRITERS)
def test_backward_through_a_written_tensor_raises(qualname):
    """x is saved by `x * x`; the op then writes x (under no_grad, as an optimizer step does).
    backward must see the write: PyTorch's error, except for unversioned arguments."""
    op = OPS[qualname]
    _, probe = runnable_sample(qualname, mindtorch.device("cpu"))
    slots = _float_written_slots(op, bound_args(op, probe))
    if not slots:
        pytest.skip(f"{qualname} writes no floating-point tensor in its samples")
    unversioned = {op.params[i].name for i, p in enumerate(op.params) if p.writes and i not in op.mutated}
    for name, j, _ in slots:
        fn, sample = runnable_sample(qualname, mindtorch.device("cpu"))
        t = _float_written_slots(op, bound_args(op, sample))[[s[:2] for s in slots].index((name, j))][2]
        leaf = t.detach().clone().requires_grad_()
        x = leaf.clone()
        loss = (x * x).sum()
        args, kwargs = _substitute(op, sample, name, j, x)
        if qualname in REFUSE_GRAD:
            with pytest.raises(RuntimeError, match=REFUSE_GRAD[qualname]), mindtorch.no_grad():
                fn(*args, **kwargs)
            continue
        with mindtorch.no_grad():
            fn(*args, **kwargs)
        if name in unversioned:
            loss.backward()
        else:
            with pytest.raises(RuntimeError, match=MODIFIED):
                loss.backward()


def test_resize_bumps_only_when_the_shape_changes():
    a = mindtorch.zeros(2, 3)
    steps = [((2, 3), 0), ((3, 2), 1), ((1, 2), 2), ((1, 2), 2), ((4, 4), 3)]
    for size, version in steps:
        a.resize_(size)
        assert (tuple(a.shape), _version(a)) == (size, version)


def test_out_variant_bumps_once_when_it_resizes():
    a, out = mindtorch.ones(3), mindtorch.empty(0)
    mindtorch.add(a, a, out=out)
    assert _version(out) == 1
