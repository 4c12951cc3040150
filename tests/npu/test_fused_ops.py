"""The fused transformer operators on npu: _rms_norm, _rotary_mul and _swiglu (and their backward ops) run
aclnnRmsNorm(Grad), aclnnRotaryPositionEmbedding(Grad) and aclnnSwiGlu(Grad) where the chip has them and the
arguments fit the operator's doc, give the cpu backend's values and gradients, and fall back to the composite
elsewhere; the simulator refuses what the docs refuse."""

import json

import mindtorch as torch
import mindtorch_npu.kernels.nn as npu_nn
import numpy as np
import pytest
from mindtorch_npu import chips
from mindtorch_npu.aclnn import launch
from mindtorch_npu.chip_coverage import CLAIMED_CHIPS
from mindtorch_npu.copy import empty
from npu_helpers import run_python

F = torch.nn.functional
TOL = {torch.float32: 2e-5, torch.float16: 2e-3, torch.bfloat16: 2e-2}
FUSED = {
    "_rms_norm": "RmsNorm",
    "_rms_norm_backward": "RmsNormGrad",
    "_swiglu": "SwiGlu",
    "_swiglu_backward": "SwiGluGrad",
    "_rotary_mul": "RotaryPositionEmbedding",
    "_rotary_mul_backward": "RotaryPositionEmbeddingGrad",
}


@pytest.fixture
def launched(monkeypatch):
    """The ACLNN operators the nn kernels launch during the test, in order."""
    names = []

    def recording(name, *args, **kw):
        names.append(name)
        return launch(name, *args, **kw)

    monkeypatch.setattr(npu_nn, "launch", recording)
    return names


def _leaf(shape, dtype, seed, lo=-2.0, hi=2.0):
    a = np.random.default_rng(seed).uniform(lo, hi, shape)
    return torch.tensor(a, dtype=dtype)


def _run_both(fn, inputs, dtype):
    """fn on the cpu and on npu with the same leaves: the outputs and the leaves' gradients of sum(out * w)."""
    results = []
    for dev in ("cpu", "npu"):
        leaves = [t.detach().to(dev).requires_grad_() for t in inputs]
        out = fn(*leaves)
        w = _leaf(tuple(out.shape), dtype, 99).to(dev)
        (out * w).sum().backward()
        results.append((out, [t.grad for t in leaves]))
    return results


def _close(got, want, tol):
    got, want = got.detach().cpu(), want.detach()
    assert got.dtype == want.dtype and tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.float().numpy(), want.float().numpy(), rtol=tol, atol=tol)


CASES = {
    # name: (fn, input shapes, the fused forward and backward operators it must launch)
    "rms_norm": (lambda x, w: F.rms_norm(x, (8,), w, 1e-6), [(2, 3, 4, 8), (8,)], ["RmsNorm", "RmsNormGrad"]),
    "rms_norm_2d_gamma": (
        lambda x, w: F.rms_norm(x, (4, 8), w, 1e-5),
        [(3, 4, 8), (4, 8)],
        ["RmsNorm", "RmsNormGrad"],
    ),
    "swiglu": (lambda x: torch.ops._swiglu(x, -1), [(3, 4, 16)], ["SwiGlu", "SwiGluGrad"]),
    "swiglu_dim1": (lambda x: torch.ops._swiglu(x, 1), [(2, 6, 8)], ["SwiGlu", "SwiGluGrad"]),
    "rope_half_11SD": (
        lambda x, c, s: torch.ops._rotary_mul(x, c, s, "half"),
        [(2, 3, 5, 8), (1, 1, 5, 8), (1, 1, 5, 8)],
        ["RotaryPositionEmbedding", "RotaryPositionEmbeddingGrad"],
    ),
    "rope_half_BS1D": (
        lambda x, c, s: torch.ops._rotary_mul(x, c, s, "half"),
        [(2, 5, 3, 8), (2, 5, 1, 8), (2, 5, 1, 8)],
        ["RotaryPositionEmbedding", "RotaryPositionEmbeddingGrad"],
    ),
    "rope_interleave_1S1D": (
        lambda x, c, s: torch.ops._rotary_mul(x, c, s, "interleave"),
        [(2, 5, 3, 8), (1, 5, 1, 8), (1, 5, 1, 8)],
        ["RotaryPositionEmbedding", "RotaryPositionEmbeddingGrad"],
    ),
    "rope_TND": (
        lambda x, c, s: torch.ops._rotary_mul(x, c, s, "half"),
        [(6, 3, 8), (6, 1, 8), (6, 1, 8)],
        ["RotaryPositionEmbedding", "RotaryPositionEmbeddingGrad"],
    ),
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16], ids=str)
@pytest.mark.parametrize("case", sorted(CASES))
def test_fused_values_and_grads_match_cpu(case, dtype, launched):
    fn, shapes, ops = CASES[case]
    inputs = [_leaf(s, dtype, i, *((-1, 1) if i else (-2, 2))) for i, s in enumerate(shapes)]
    (want, want_grads), (got, got_grads) = _run_both(fn, inputs, dtype)
    _close(got, want, TOL[dtype])
    for g, w in zip(got_grads, want_grads):
        _close(g, w, 8 * TOL[dtype])
    assert [n for n in launched if n in ops] == ops  # one fused launch each way


@pytest.mark.parametrize(
    "fn, shapes, avoided",
    [
        # interleave takes only 11SD / 1S1D / S11D cos and sin
        (lambda x, c, s: torch.ops._rotary_mul(x, c, s, "interleave"), [(2, 3, 5, 8), (2, 1, 5, 8)] * 1, "Rotary"),
        # D must be even and below 896; a 2-d x is no layout of the doc
        (lambda x, c, s: torch.ops._rotary_mul(x, c, s, "half"), [(1, 2, 2, 896), (1, 1, 2, 896)], "Rotary"),
        (lambda x, c, s: torch.ops._rotary_mul(x, c, s, "half"), [(5, 8), (5, 8)], "Rotary"),
        # cos and sin of different shapes
        (lambda x, c, s: torch.ops._rotary_mul(x, c, s[:1], "half"), [(2, 3, 5, 8), (2, 1, 5, 8)], "Rotary"),
    ],
)
def test_arguments_outside_the_doc_take_the_composite(fn, shapes, avoided, launched):
    x = _leaf(shapes[0], torch.float32, 0)
    r = _leaf(shapes[1], torch.float32, 1, -1, 1)
    s = _leaf(shapes[1], torch.float32, 2, -1, 1)
    want = fn(x, r, s)
    got = fn(x.to("npu"), r.to("npu"), s.to("npu"))
    _close(got, want, 2e-5)
    assert not [n for n in launched if n.startswith(avoided)]


def test_rms_norm_without_weight_and_a_1d_input():
    for shape, ns in (((3, 8), (8,)), ((8,), (8,))):
        x = _leaf(shape, torch.float32, 0)
        xn = x.to("npu").requires_grad_()
        xc = x.clone().requires_grad_()
        F.rms_norm(xn, ns, None, 1e-5).pow(2).sum().backward()
        F.rms_norm(xc, ns, None, 1e-5).pow(2).sum().backward()
        _close(xn.grad, xc.grad, 2e-5)


def test_rstd_output_agrees_with_cpu():
    # aclnnRmsNorm's rstdOut is FLOAT with x's dims, the normalized ones 1: the op's second output on every backend
    for dtype in (torch.float32, torch.float16, torch.bfloat16):
        x, w = _leaf((2, 3, 8), dtype, 0), _leaf((3, 8), dtype, 1)
        _, rstd_cpu = torch.ops._rms_norm(x, [3, 8], w, 1e-6)
        _, rstd_npu = torch.ops._rms_norm(x.to("npu"), [3, 8], w.to("npu"), 1e-6)
        assert rstd_npu.dtype == rstd_cpu.dtype == torch.float32 and tuple(rstd_npu.shape) == (2, 1, 1)
        _close(rstd_npu, rstd_cpu, 1e-5)


# --- the simulator refuses what the docs refuse --------------------------------------------------------------------
def _t(shape, dtype=torch.float32):
    return empty(tuple(shape), dtype, torch.device("npu:0"))


REFUSALS = [
    # RmsNorm(x, gamma, epsilon, yOut, rstdOut): gamma must be x's last dims; rstdOut FLOAT with the normalized dims 1
    ("RmsNorm", lambda: (_t((2, 8)), _t((4,)), 1e-6, _t((2, 8)), _t((2, 1))), "gamma"),
    ("RmsNorm", lambda: (_t((2, 8)), _t((8,)), 1e-6, _t((2, 8)), _t((2, 8))), "rstdOut"),
    ("RmsNorm", lambda: (_t((2, 8)), _t((8,)), 1e-6, _t((2, 8)), _t((2, 1), torch.float16)), "rstdOut"),
    ("RmsNorm", lambda: (_t((2, 8), torch.int32), _t((8,)), 1e-6, _t((2, 8)), _t((2, 1))), "DT_INT32"),
    # float32 x with a float16 gamma is no row of the doc's dtype table
    ("RmsNorm", lambda: (_t((2, 8)), _t((8,), torch.float16), 1e-6, _t((2, 8)), _t((2, 1))), "gamma"),
    # RmsNormGrad(dy, x, rstd, gamma, dxOut, dgammaOut): rstd is x's leading dims, dgammaOut FLOAT, x 2-8 dims
    ("RmsNormGrad", lambda: (_t((2, 8)), _t((2, 8)), _t((2, 1)), _t((8,)), _t((2, 8)), _t((8,))), "rstd"),
    ("RmsNormGrad", lambda: (_t((8,)), _t((8,)), _t((1,)), _t((8,)), _t((8,)), _t((8,))), "rstd"),
    (
        "RmsNormGrad",
        lambda: (_t((2, 8)), _t((2, 8)), _t((2,)), _t((8,)), _t((2, 8)), _t((8,), torch.float16)),
        "dgammaOut",
    ),
    # SwiGlu(x, dim, out): the split dim even, dim in range, out of half the size
    ("SwiGlu", lambda: (_t((3, 7)), -1, _t((3, 3))), "odd"),
    ("SwiGlu", lambda: (_t((3, 8)), 2, _t((3, 4))), "out of range"),
    ("SwiGlu", lambda: (_t((3, 8)), -1, _t((3, 8))), "out"),
    ("SwiGluGrad", lambda: (_t((3, 4)), _t((3, 8)), -1, _t((3, 4))), "out"),
    ("SwiGluGrad", lambda: (_t((0, 4)), _t((0, 8)), -1, _t((0, 8))), "empty"),
    # RotaryPositionEmbedding(x, cos, sin, mode, out): 4-d, mode 0/1, D even and < 896, a layout of the doc
    ("RotaryPositionEmbedding", lambda: (_t((2, 3, 8)), _t((2, 1, 8)), _t((2, 1, 8)), 0, _t((2, 3, 8))), "4-d"),
    ("RotaryPositionEmbedding", lambda: (_t((1, 2, 3, 8)), *[_t((1, 1, 3, 8))] * 2, 2, _t((1, 2, 3, 8))), "mode"),
    ("RotaryPositionEmbedding", lambda: (_t((1, 2, 3, 6 + 1)), *[_t((1, 1, 3, 7))] * 2, 0, _t((1, 2, 3, 7))), "D even"),
    ("RotaryPositionEmbedding", lambda: (_t((1, 1, 2, 896)), *[_t((1, 1, 2, 896))] * 2, 0, _t((1, 1, 2, 896))), "896"),
    ("RotaryPositionEmbedding", lambda: (_t((2, 3, 4, 8)), *[_t((2, 1, 4, 8))] * 2, 1, _t((2, 3, 4, 8))), "layout"),
    ("RotaryPositionEmbedding", lambda: (_t((2, 3, 4, 8)), *[_t((1, 1, 1, 8))] * 2, 0, _t((2, 3, 4, 8))), "layout"),
    (
        "RotaryPositionEmbedding",
        lambda: (_t((2, 3, 4, 8)), _t((1, 1, 4, 8)), _t((1, 1, 4, 8), torch.float16), 0, _t((2, 3, 4, 8))),
        "sin",
    ),
    # the backward: half mode computing dcos / dsin needs B * N <= 1024
    (
        "RotaryPositionEmbeddingGrad",
        lambda: (
            _t((40, 30, 40, 2)),
            *[_t((40, 30, 40, 2))] * 2,
            _t((40, 30, 40, 2)),
            0,
            _t((40, 30, 40, 2)),
            *[_t((40, 30, 40, 2))] * 2,
        ),
        "B, N",
    ),
]


@pytest.mark.parametrize("op, args, says", REFUSALS, ids=[f"{r[0]}-{i}" for i, r in enumerate(REFUSALS)])
def test_simulator_refuses_what_the_doc_refuses(op, args, says):
    with pytest.raises(Exception, match=f"aclnn{op}") as info:
        launch(op, *args())
    assert says in str(info.value)


def test_the_grad_without_x_leaves_dcos_and_dsin_alone():
    # xOptional NULL: the doc's "空指针时不计算 dcosOut 和 dsinOut"; dx is still dy cos - R(dy sin)
    dy = _leaf((1, 2, 3, 4), torch.float32, 0)
    c, s = _leaf((1, 1, 3, 4), torch.float32, 1), _leaf((1, 1, 3, 4), torch.float32, 2)
    dx, dc, ds = _t((1, 2, 3, 4)), torch.full((1, 1, 3, 4), 7.0).to("npu"), torch.full((1, 1, 3, 4), 7.0).to("npu")
    launch("RotaryPositionEmbeddingGrad", dy.to("npu"), c.to("npu"), s.to("npu"), None, 0, dx, dc, ds)
    want, _, _ = torch.ops._rotary_mul_backward(dy, torch.zeros(1, 2, 3, 4), c, s, "half")
    _close(dx, want, 1e-6)
    assert (dc.cpu() == 7).all() and (ds.cpu() == 7).all()


# --- every claimed chip: the fused operator where the table says the chip has it, the composite elsewhere ----------
_CHIP_SCRIPT = """
import json
import mindtorch as torch
import mindtorch_npu.kernels.nn as K
from mindtorch_npu.aclnn import launch
import numpy as np

names = []
K.launch = lambda name, *a, **k: (names.append(name), launch(name, *a, **k))[1]
F = torch.nn.functional
cases = {
    "_rms_norm": lambda x: F.rms_norm(x, (16,), None, 1e-6),
    "_swiglu": lambda x: torch.ops._swiglu(x, -1),
    "_rotary_mul": lambda x: torch.ops._rotary_mul(x, x[:1, :1] * 0.5, x[:1, :1] * 0.25, "half"),
}
out = {}
for name, fn in cases.items():
    x = torch.tensor(np.random.default_rng(0).uniform(-1, 1, (2, 3, 4, 16)), dtype=torch.float16)
    names.clear()
    xc, xn = x.clone().requires_grad_(), x.to("npu").requires_grad_()
    fn(xc).float().pow(2).sum().backward()
    try:
        fn(xn).float().pow(2).sum().backward()
    except NotImplementedError as e:  # the composite needs an operator the chip lacks
        out[name] = {"lacks": str(e), "launched": sorted(set(names))}
        continue
    err = max(float((fn(xn).cpu().float() - fn(x).float()).abs().max()), float((xn.grad.cpu() - xc.grad).abs().max()))
    out[name] = {"err": err, "launched": sorted(set(names))}
print(json.dumps(out))
"""


@pytest.mark.parametrize("soc", CLAIMED_CHIPS)
def test_each_claimed_chip_runs_the_fused_operator_the_table_gives_it(soc):
    proc = run_python(_CHIP_SCRIPT, {"ACLSIM_SOC_NAME": soc}, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    found = json.loads(proc.stdout.strip().splitlines()[-1])
    for name, got in found.items():
        if "lacks" in got:  # no fused operator and no composite path: the backend's error names the chip
            assert not chips.supports(FUSED[name], torch.float16, soc) and soc in got["lacks"], (name, got)
            continue
        assert got["err"] <= 4e-3, (name, got)
        for op in (FUSED[name], FUSED[name + "_backward"]):
            assert (op in got["launched"]) == chips.supports(op, torch.float16, soc), (soc, op, got["launched"])
