"""In-place writes to views, against PyTorch: the pieces of split / chunk / unbind (and views of them) refuse
in-place writes under grad mode, views made under no_grad or inference mode refuse them once grad mode is back, the unsafe_
spellings and tensor_split allow them; detach() shares memory but not history, so a write through it (or
a view of it) never rewrites the original's graph. Every combination is generated; where PyTorch raises,
mindtorch raises the same class; where it computes, the values, the base's grad_fn and gradients agree."""

from helpers import torch_or_skip

torch = torch_or_skip()

import itertools  # noqa: E402

import mindtorch as mt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

PIECES = [
    "x.split(2)[0]",
    "x.split([1, 3])[1]",
    "x.split(4)[0]",
    "L.split_with_sizes(x, [3, 1])[0]",
    "x.chunk(2)[1]",
    "x.unbind()[2]",
    "x.split(2)[0][1:]",
    "x.unbind()[0].t()",
    "list(x)[1]",
    "L.unsafe_split(x, 2)[0]",
    "L.unsafe_chunk(x, 2)[1]",
    "x.tensor_split(2)[0]",
    "x.hsplit(2)[1]",
    "x.detach()[1:3]",
    "x.detach()",
    "x.detach().split(2)[0]",
    "x[1:3]",
]
WRITES = ["p.mul_(2)", "p.add_(w)", "p.copy_(w)", "p.zero_()", "p.__setitem__(0, 5.0)"]
# where the piece is made / written: grad mode on for both, piece made under no_grad or inference mode,
# written under no_grad
MODES = ["grad", "made_no_grad", "made_inference", "written_no_grad"]
BASES = ["nonleaf", "plain", "leaf"]


def _run(lib, piece, write, mode, base):
    rng = np.random.default_rng(0)
    leaf = lib.tensor(rng.standard_normal((4, 4)), dtype=lib.float64, requires_grad=base != "plain")
    x = leaf * 1 if base == "nonleaf" else leaf
    made = lib.inference_mode() if mode == "made_inference" else lib.set_grad_enabled(mode != "made_no_grad")
    with made:
        p = eval(piece, {"x": x, "L": lib})
    w = lib.tensor(rng.standard_normal(tuple(p.shape)), dtype=lib.float64, requires_grad=True)
    with lib.set_grad_enabled(mode != "written_no_grad"):
        eval(write, {"p": p, "w": w})
    out = [x.detach().numpy().copy(), p.detach().numpy().copy(), x.grad_fn and x.grad_fn.name()]
    if x.requires_grad and x.grad_fn is not None:
        (x * x).sum().backward(retain_graph=True)
        out.append(None if leaf.grad is None else leaf.grad.numpy().copy())
    return out


def _outcome(lib, *case):
    try:
        return _run(lib, *case), None
    except Exception as exc:  # the class is what is compared
        return None, exc


CASES = list(itertools.product(PIECES, WRITES, MODES, BASES))


@pytest.mark.parametrize("piece,write,mode,base", CASES)
def test_inplace_write_to_a_view_like_pytorch(piece, write, mode, base):
    want, th_exc = _outcome(torch, piece, write, mode, base)
    got, mt_exc = _outcome(mt, piece, write, mode, base)
    if th_exc is not None:
        assert isinstance(mt_exc, type(th_exc)), (th_exc, mt_exc)
        return
    assert mt_exc is None, (mt_exc, "PyTorch computes")
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])
    assert got[2] == want[2]
    if len(want) > 3:
        assert (got[3] is None) == (want[3] is None)
        if want[3] is not None:
            np.testing.assert_allclose(got[3], want[3])


def test_the_refusal_speaks_pytorchs_words():
    x = mt.ones(4, requires_grad=True) * 1
    with pytest.raises(RuntimeError, match="Output 1 of Unbind is a view and is being modified inplace. This view is"):
        x.unbind()[1].add_(1)
    with mt.no_grad():
        p = x.split(2)[0]
    with pytest.raises(RuntimeError, match="A view was created in no_grad mode and is being modified inplace"):
        p.add_(1)


@pytest.mark.parametrize("lib", [torch, mt], ids=["torch", "mindtorch"])
def test_detach_is_no_view_but_shares_memory_and_version(lib):
    leaf = lib.ones(4, requires_grad=True)
    x = leaf * 1
    d = x.detach()
    assert d._base is None and not d.requires_grad
    y = x * x  # saves x for backward
    d.add_(1)  # the shared version counter moves: the saved x is stale
    assert x.tolist() == [2.0] * 4
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


INFERENCE_WRITES = [
    "q.mul_(2)",
    "q.__setitem__(0, 1.0)",
    "q.view(2, 2).mul_(2)",
    "q[1:].zero_()",
    "q.copy_(a)",
    "q.index_put_((L.tensor([0]),), L.tensor(1.0))",
    "L.add(a, a, out=q)",
    "q.t_()",
    "q.unsqueeze_(0)",
    "q.resize_(8)",
    "q.set_(a)",
    "q.as_strided_((2,), (1,))",
    "q.requires_grad_()",
    "q.requires_grad_(False)",
    "q.detach_()",
]


@pytest.mark.parametrize("write", INFERENCE_WRITES)
@pytest.mark.parametrize("grad", [True, False], ids=["grad", "no_grad"])
def test_an_inference_tensor_is_written_only_in_inference_mode(write, grad):
    def run(lib):
        a = lib.ones(4)
        with lib.inference_mode():
            q = a.clone()
            assert eval(write.replace("q.", "q.clone().", 1), {"q": q, "a": a, "L": lib}) is not False
        with lib.set_grad_enabled(grad):
            eval(write, {"q": q, "a": a, "L": lib})
        return q.tolist()

    want, th_exc = _outcome_of(run, torch)
    got, mt_exc = _outcome_of(run, mt)
    assert type(mt_exc) is type(th_exc) and got == want, (mt_exc, th_exc)


def _outcome_of(fn, lib):
    try:
        return fn(lib), None
    except Exception as exc:  # the class is what is compared
        return None, exc
