"""The torch_npu package mindtorch-npu ships: the module paths scripts import, the fused functions against
their documented formulas (computed by PyTorch) with gradients checked in float64, the ND-only formats,
and the errors for what it does not provide."""

import sys

import mindtorch
import numpy as np
import pytest
import torch_npu
from helpers import torch_or_skip
from mindtorch.autograd import gradcheck

torch = torch_or_skip()

R = np.random.default_rng(0)


def test_the_module_paths():
    import torch_npu.npu as via_import

    assert torch_npu.npu is mindtorch.npu is via_import is sys.modules["mindtorch.npu"]
    assert sys.modules["torch_npu.npu.amp"] is mindtorch.npu.amp
    assert torch_npu.npu.amp.GradScaler().is_enabled()


@pytest.mark.parametrize("torch_is, warns", [("pytorch", True), ("mindtorch", False)])
def test_importing_it_beside_pytorch_warns(torch_is, warns):
    import subprocess

    first = (
        "import mindtorch as torch" if torch_is == "mindtorch" else "import types; torch = types.ModuleType('torch')"
    )
    code = (
        f"import sys, warnings; {first}; sys.modules['torch'] = torch; warnings.simplefilter('error'); import torch_npu"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert (res.returncode != 0) == warns, res.stderr[-2000:]
    assert ("`torch` in this process is PyTorch" in res.stderr) == warns


def _pair(shape, dtype="float32"):
    a = R.standard_normal(shape).astype(np.float32)
    return mindtorch.tensor(a, device="npu").to(getattr(mindtorch, dtype)), torch.tensor(a).to(getattr(torch, dtype))


def _close(m, t, tol):
    assert str(m.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    np.testing.assert_allclose(m.cpu().float().numpy(), t.float().numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize(
    "x_dtype,g_dtype",
    [("float32", "float32"), ("bfloat16", "bfloat16"), ("float16", "float32"), ("bfloat16", "float32")],
)
@pytest.mark.parametrize("shape,gshape", [((2, 3, 8), (8,)), ((4, 6), (6,)), ((2, 3, 4), (3, 4))])
def test_rms_norm_matches_its_formula(x_dtype, g_dtype, shape, gshape):
    mx, tx = _pair(shape, x_dtype)
    mg, tg = _pair(gshape, g_dtype)
    y, rstd = torch_npu.npu_rms_norm(mx, mg, epsilon=1e-5)
    dims = tuple(range(len(shape) - len(gshape), len(shape)))
    t_rstd = torch.rsqrt(tx.float().pow(2).mean(dims, keepdim=True) + 1e-5)
    _close(y, (tx.float() * t_rstd * tg.float()).to(tx.dtype), 1e-5 if x_dtype == "float32" else 2e-2)
    _close(rstd, t_rstd, 1e-5)


def _rotate(x, mode):
    if mode == "half":
        x1, x2 = x.chunk(2, dim=-1)
        return torch.cat((-x2, x1), dim=-1)
    return torch.stack((-x[..., 1::2], x[..., ::2]), dim=-1).flatten(-2)


@pytest.mark.parametrize("mode", ["half", "interleave"])
@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16"])
@pytest.mark.parametrize(
    "shape,rshape", [((2, 3, 5, 8), (1, 1, 5, 8)), ((2, 5, 3, 8), (1, 5, 1, 8)), ((5, 2, 8), (5, 1, 8))]
)
def test_rotary_mul_matches_its_formula(mode, dtype, shape, rshape):
    (mx, tx), (m1, t1), (m2, t2) = _pair(shape, dtype), _pair(rshape, dtype), _pair(rshape, dtype)
    got = torch_npu.npu_rotary_mul(mx, m1, m2, rotary_mode=mode)
    _close(got, tx * t1 + _rotate(tx, mode) * t2, 1e-5 if dtype == "float32" else 2e-2)


def test_rotary_mul_with_a_rotate_matrix():
    (mx, tx), (m1, t1), (m2, t2) = _pair((2, 3, 4, 8)), _pair((1, 1, 4, 8)), _pair((1, 1, 4, 8))
    (mr, tr) = _pair((8, 8))
    _close(torch_npu.npu_rotary_mul(mx, m1, m2, rotate=mr), tx * t1 + (tx @ tr) * t2, 1e-4)


@pytest.mark.parametrize("dim", [-1, 0, 1])
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_swiglu_matches_its_formula(dim, dtype):
    mx, tx = _pair((4, 6, 8), dtype)
    a, b = tx.chunk(2, dim=dim)
    _close(torch_npu.npu_swiglu(mx, dim=dim), torch.nn.functional.silu(a) * b, 1e-5 if dtype == "float32" else 2e-2)


def _f64(*shape):
    return mindtorch.tensor(R.standard_normal(shape), dtype=mindtorch.float64, requires_grad=True)


def test_gradients_in_float64():
    x, g = _f64(2, 3, 8), _f64(8)
    assert gradcheck(lambda x, g: torch_npu.npu_rms_norm(x, g)[0], (x, g))
    x, r1, r2 = _f64(2, 3, 4, 8), _f64(1, 1, 4, 8), _f64(1, 1, 4, 8)
    for mode in ("half", "interleave"):
        assert gradcheck(lambda x, a, b, mode=mode: torch_npu.npu_rotary_mul(x, a, b, mode), (x, r1, r2))
    assert gradcheck(lambda x: torch_npu.npu_swiglu(x, dim=1), (_f64(3, 4, 2),))


def test_argument_errors():
    x = mindtorch.ones(2, 3, 4, 8, device="npu")
    with pytest.raises(RuntimeError, match="rotary_mode of npu_rotary_mul should be half or interleave"):
        torch_npu.npu_rotary_mul(x, x, x, rotary_mode="quarter")
    with pytest.raises(RuntimeError, match="3 or 4 dims"):
        torch_npu.npu_rotary_mul(x[0, 0], x[0, 0], x[0, 0])
    with pytest.raises(RuntimeError, match="cannot be split in two halves"):
        torch_npu.npu_swiglu(mindtorch.ones(3, 5, device="npu"))
    with pytest.raises(IndexError, match="Dimension out of range"):
        torch_npu.npu_swiglu(mindtorch.ones(3, 4, device="npu"), dim=2)
    with pytest.raises(RuntimeError, match="trailing dims"):
        torch_npu.npu_rms_norm(x, mindtorch.ones(4, device="npu"))


def test_formats_are_nd_only():
    x = mindtorch.ones(2, 3, device="npu")
    assert torch_npu.get_npu_format(x) == torch_npu.Format.ND == 2
    assert torch_npu.npu_format_cast(x, 2) is x and torch_npu.npu_format_cast(x, torch_npu.Format.ND) is x
    for fmt in (torch_npu.Format.FRACTAL_NZ, 3, torch_npu.Format.NCHW):
        with pytest.raises(RuntimeError, match=r"is not supported: mindtorch-npu keeps every tensor in ND format"):
            torch_npu.npu_format_cast(x, fmt)
    with pytest.raises(RuntimeError, match="not an ACL format"):
        torch_npu.npu_format_cast(x, 5)
    with pytest.raises(RuntimeError, match="expected an npu tensor"):
        torch_npu.get_npu_format(mindtorch.ones(2))


@pytest.mark.parametrize("group_list_type", [0, 1])
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_grouped_matmul_matches_its_formula(group_list_type, dtype):
    (mx, tx), (mw, tw) = _pair((7, 4), dtype), _pair((3, 4, 5), dtype)
    ends = [2, 2, 6]  # an empty group, and a last row past the groups (zero)
    given = ends if group_list_type == 0 else [2, 0, 4]
    out = torch_npu.npu_grouped_matmul(
        [mx],
        [mw],
        group_list=mindtorch.tensor(given, device="npu"),
        split_item=3,
        group_type=0,
        group_list_type=group_list_type,
    )
    starts = [0] + ends[:-1]
    want = torch.cat(
        [tx[s:e] @ tw[g] for g, (s, e) in enumerate(zip(starts, ends))] + [torch.zeros(1, 5, dtype=tx.dtype)]
    )
    assert len(out) == 1
    _close(out[0], want, 1e-5 if dtype == "float32" else 3e-2)


def test_grouped_matmul_forms_not_provided():
    x, w = [mindtorch.ones(4, 2, device="npu")], [mindtorch.ones(2, 2, 3, device="npu")]
    gl = mindtorch.tensor([2, 4], device="npu")
    with pytest.raises(NotImplementedError, match="bias is not provided by mindtorch-npu"):
        torch_npu.npu_grouped_matmul(x, w, bias=[mindtorch.ones(3)], group_list=gl, group_type=0)
    with pytest.raises(NotImplementedError, match="group_type=0"):
        torch_npu.npu_grouped_matmul(x, w, group_list=gl, group_type=2)
    with pytest.raises(NotImplementedError, match="one x"):
        torch_npu.npu_grouped_matmul(x * 2, w * 2, group_type=-1)
    with pytest.raises(TypeError, match="unexpected keyword argument 'nope'"):
        torch_npu.npu_grouped_matmul(x, w, nope=1)


@pytest.mark.parametrize("name", ["npu_dropout_with_add_softmax", "npu_moe_init_routing", "contrib"])
def test_names_not_provided_raise_naming_them(name):
    assert not hasattr(torch_npu, name)
    with pytest.raises(AttributeError, match=f"torch_npu.{name} is not provided by mindtorch-npu"):
        getattr(torch_npu, name)


def test_all_names_the_attention_functions():
    assert {"npu_fusion_attention", "npu_fusion_attention_grad"} <= set(torch_npu.__all__)
    assert {"npu_rms_norm", "npu_rotary_mul", "npu_swiglu", "npu_grouped_matmul", "npu"} <= set(torch_npu.__all__)
