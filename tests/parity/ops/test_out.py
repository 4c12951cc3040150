"""out= on every function whose PyTorch signature has it, generated: the functions are
PyTorch's public ones that document out=, the inputs are the conformance samples of the op of that name.
The result lands in the given tensor (resized from empty, same values and dtype as PyTorch's)."""

import inspect
import re
import warnings

from helpers import torch_or_skip

torch = torch_or_skip()

import mindtorch  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from helpers import assert_same  # noqa: E402


def _torch_documents_out(name):
    """PyTorch's signature (the docstring up to its first "->") has out=."""
    doc = getattr(getattr(torch, name), "__doc__", None) or ""
    return re.search(r"\bout=None", doc.strip().split("->")[0]) is not None


def _functions_with_out():
    names = []
    for n in sorted(getattr(torch, "__all__", [])):
        f = getattr(torch, n, None)
        if (
            callable(f)
            and not isinstance(f, type)
            and _torch_documents_out(n)
            and callable(getattr(mindtorch, n, None))
        ):
            names.append(n)
    return names


FUNCTIONS = _functions_with_out()


@pytest.mark.parametrize("name", FUNCTIONS)
def test_signature_accepts_out(name):
    try:
        params = inspect.signature(getattr(mindtorch, name)).parameters
    except (TypeError, ValueError):
        pytest.skip("no introspectable signature")
    assert "out" in params or any(p.kind == p.VAR_KEYWORD for p in params.values())


def _to_torch(x):
    if isinstance(x, mindtorch.Tensor):
        return torch.from_numpy(
            x.detach().float().numpy().copy() if x.dtype is mindtorch.bfloat16 else x.detach().numpy().copy()
        )
    if isinstance(x, (list, tuple)):
        return type(x)(_to_torch(a) for a in x)
    if isinstance(x, mindtorch.dtype):
        return getattr(torch, x.name)
    if isinstance(x, mindtorch.device):
        return torch.device("cpu")
    return x


def _empty_like_result(lib, r):
    if isinstance(r, (tuple, list)):
        return tuple(_empty_like_result(lib, x) for x in r)
    return lib.empty(0, dtype=getattr(lib, str(r.dtype).split(".")[-1]))


def _samples(name):
    from mindtorch.ops.registry import BY_NAME
    from mindtorch.testing.conformance.samples import Maker, samples_for

    for op in BY_NAME.get(name, ()):
        fn = samples_for(op.qualname)
        if fn is not None and "function" in op.variants:
            yield from fn(Maker(op.qualname))


@pytest.mark.parametrize("name", FUNCTIONS)
def test_result_lands_in_out(name):
    compared = 0
    for s in list(_samples(name))[:4]:
        if any(isinstance(a, mindtorch.Tensor) and a.dtype is mindtorch.bfloat16 for a in s.args):
            continue
        targs, tkw = _to_torch(s.args), {k: _to_torch(v) for k, v in s.kwargs.items()}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                plain = getattr(torch, name)(*targs, **tkw)
                tout = _empty_like_result(torch, plain)
                want = getattr(torch, name)(*targs, **tkw, out=tout)
            except Exception:
                continue
            if name in (
                "empty",
                "rand",
                "randn",
                "randperm",
                "multinomial",
                "normal",
                "randint",
                "poisson",
                "bernoulli",
            ):
                mout = _empty_like_result(mindtorch, plain)
                got = getattr(mindtorch, name)(*s.args, **s.kwargs, out=mout)
                for g, w, o in zip(*(x if isinstance(x, tuple) else (x,) for x in (got, want, mout))):
                    assert g is o and tuple(g.shape) == tuple(w.shape) and str(g.dtype) == str(w.dtype)
                compared += 1
                continue
            mout = _empty_like_result(mindtorch, plain)
            got = getattr(mindtorch, name)(*s.args, **s.kwargs, out=mout)
        for g, w, o in zip(*(x if isinstance(x, tuple) else (x,) for x in (got, want, mout))):
            assert g is o, "the result must be the out tensor itself"
            assert_same(g, w, rtol=2e-5, atol=2e-6)
        compared += 1
    if not compared:
        pytest.skip("no sample PyTorch accepts with out=")


def test_out_with_a_factory_takes_its_dtype():
    for lib in (mindtorch, torch):
        out = lib.empty(0, dtype=lib.int64)
        assert lib.zeros(2, 3, out=out) is out and out.dtype == lib.int64 and tuple(out.shape) == (2, 3)
        assert np.all(out.numpy() == 0)


def _overlapping(lib, x, n_out, shift):
    """x's values in a fresh 1-D buffer from element `shift` on, and an out over the buffer's first n_out
    elements: for shift > 0 they partly overlap, for shift 0 the out starts where x does."""
    base = lib.zeros(max(shift + x.numel(), n_out), dtype=x.dtype)
    base[shift : shift + x.numel()] = x.reshape(-1)
    return base[shift : shift + x.numel()].view(x.shape), base[:n_out]


def _outcome(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fn()
        except Exception as exc:
            return type(exc).__name__
    return "ok"


# out= forms PyTorch checks for overlap after resizing out (structured kernels) or by rules of their own, which
# mindtorch does not model yet: an out partly overlapping an input is computed into instead of refused
OVERLAP_NOT_MODELLED = {
    "addbmm",
    "addmm",
    "addmv",
    "addr",
    "all",
    "baddbmm",
    "bucketize",
    "cross",
    "cumprod",
    "cumsum",
    "gather",
    "ger",
    "index_select",
    "kron",
    "logcumsumexp",
    "masked_select",
    "max",
    "min",
    "multinomial",
    "nonzero",
    "normal",
    "outer",
    "renorm",
    "searchsorted",
    "take_along_dim",
}


@pytest.mark.parametrize("name", FUNCTIONS)
def test_out_overlapping_an_input_is_refused_like_pytorch(name):
    """out= sharing memory with the first input, partly (shifted by one element) or from the same start:
    raises exactly when PyTorch raises, with its class; a tuple-returning function refuses a single out."""
    if name in OVERLAP_NOT_MODELLED:
        pytest.skip("PyTorch's overlap rule for this out= form is not modelled")
    compared = 0
    for s in list(_samples(name))[:4]:
        x = s.args[0] if s.args else None
        if not isinstance(x, mindtorch.Tensor) or x.dtype is mindtorch.bfloat16 or x.numel() < 2:
            continue
        targs, tkw = _to_torch(s.args), {k: _to_torch(v) for k, v in s.kwargs.items()}
        try:
            plain = getattr(torch, name)(*targs, **tkw)
        except Exception:
            continue
        n_out = plain[0].numel() if isinstance(plain, (tuple, list)) else plain.numel()
        for shift in (1, 0):

            def call(lib, args, kwargs):
                xin, out = _overlapping(lib, args[0], n_out, shift)
                return lambda: getattr(lib, name)(xin, *args[1:], **kwargs, out=out)

            want = _outcome(call(torch, targs, tkw))
            got = _outcome(call(mindtorch, s.args, s.kwargs))
            assert got == want, (name, shift, got, want)
            compared += 1
    if not compared:
        pytest.skip("no sample with a tensor first")
