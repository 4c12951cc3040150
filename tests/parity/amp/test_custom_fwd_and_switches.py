"""amp.custom_fwd / custom_bwd on a custom autograd Function, and the autocast switches' argument checks,
against PyTorch: the dtypes forward and backward see, values and gradients; bad arguments raise PyTorch's
class and message and leave autocast as it was."""

import warnings

import numpy as np
import pytest
from helpers import torch_or_skip

torch = torch_or_skip()

import mindtorch as mt  # noqa: E402

R = np.random.default_rng(3)
A, B = R.standard_normal((3, 4)).astype(np.float32), R.standard_normal((4, 2)).astype(np.float32)


def make_function(lib, cast_inputs, seen):
    class MM(lib.autograd.Function):
        @staticmethod
        @lib.amp.custom_fwd(device_type="cpu", cast_inputs=cast_inputs)
        def forward(ctx, a, b, scale=None):
            seen.append(("fwd", str(a.dtype), str(b.dtype), lib.is_autocast_enabled("cpu")))
            ctx.save_for_backward(a, b)
            out = a.mm(b)
            seen.append(("fwd-out", str(out.dtype)))
            return out

        @staticmethod
        @lib.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            seen.append(("bwd", str(g.dtype), lib.is_autocast_enabled("cpu")))
            return g.mm(b.t()), a.t().mm(g), None

    return MM


def run(lib, cast_inputs, autocast_on):
    seen = []
    fn = make_function(lib, cast_inputs, seen)
    a = lib.tensor(A, requires_grad=True)
    b = lib.tensor(B, requires_grad=True)
    with lib.autocast("cpu", dtype=lib.bfloat16, enabled=autocast_on):
        out = fn.apply(a, b)
    out.float().sum().backward()
    names = [tuple(str(x).replace("torch.", "").replace("mindtorch.", "") for x in rec) for rec in seen]
    as_np = lambda t: t.detach().float().numpy()
    return names, str(out.dtype).split(".")[-1], as_np(out), as_np(a.grad), as_np(b.grad)


@pytest.mark.parametrize("cast_inputs", [None, "float32", "bfloat16"])
@pytest.mark.parametrize("autocast_on", [True, False])
def test_custom_fwd_bwd_see_the_autocast_state_pytorch_gives_them(cast_inputs, autocast_on):
    got = run(mt, cast_inputs and getattr(mt, cast_inputs), autocast_on)
    want = run(torch, cast_inputs and getattr(torch, cast_inputs), autocast_on)
    assert got[:2] == want[:2]
    for g, w in zip(got[2:], want[2:]):
        np.testing.assert_allclose(g, w, rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("deco", ["custom_fwd", "custom_bwd"])
def test_device_type_must_be_a_string(deco):
    for lib in (torch, mt):
        with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
            getattr(lib.amp, deco)(lambda ctx: None, device_type=1)


def test_cuda_amp_spellings_warn_and_delegate():
    for lib in (torch, mt):
        with pytest.warns(FutureWarning, match="custom_fwd"):
            deco = lib.cuda.amp.custom_fwd(cast_inputs=lib.float32)
        assert callable(deco)
        with pytest.warns(FutureWarning, match="custom_bwd"):
            assert callable(lib.cuda.amp.custom_bwd(lambda ctx, g: g))


BAD_CALLS = [
    ("set_autocast_enabled", ("cpu", 1)),
    ("set_autocast_enabled", ("cpu", "yes")),
    ("set_autocast_enabled", ("cpu", None)),
    ("set_autocast_enabled", (1, True)),
    ("set_autocast_enabled", ("nodevice", True)),
    ("set_autocast_enabled", ("cpu",)),
    ("set_autocast_dtype", ("cpu", "bfloat16")),
    ("set_autocast_dtype", ("nodevice", "float16")),
    ("get_autocast_dtype", (1,)),
    ("get_autocast_dtype", ("nodevice",)),
    ("is_autocast_enabled", (1,)),
    ("is_autocast_enabled", ("nodevice",)),
]


@pytest.mark.parametrize("name,args", BAD_CALLS, ids=[f"{n}{a}" for n, a in BAD_CALLS])
def test_bad_switch_arguments_raise_like_pytorch_and_change_nothing(name, args):
    outcome = {}
    for lib in (torch, mt):
        before = (lib.is_autocast_enabled("cpu"), lib.get_autocast_dtype("cpu"))
        call_args = tuple(getattr(lib, a) if a == "float16" else a for a in args)
        with pytest.raises((TypeError, RuntimeError)) as info:
            getattr(lib, name)(*call_args)
        outcome[lib] = (info.type, str(info.value))
        after = (lib.is_autocast_enabled("cpu"), lib.get_autocast_dtype("cpu"))
        assert str(after).replace("mindtorch", "torch") == str(before).replace("mindtorch", "torch")
    assert outcome[mt] == outcome[torch]


def test_good_switch_calls_agree():
    for lib in (torch, mt):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lib.set_autocast_dtype("cpu", lib.float16)
            lib.set_autocast_enabled("cpu", True)
            out = lib.tensor(A).mm(lib.tensor(B))
            lib.set_autocast_enabled("cpu", False)
            lib.set_autocast_dtype("cpu", lib.bfloat16)
        assert str(out.dtype).split(".")[-1] == "float16"
        assert not lib.is_autocast_enabled("cpu")
