"""Recurrent layers on the npu: nn.LSTM through aclnnLSTM / aclnnLstmBackward and nn.GRU through aclnnGRU /
aclnnGRUBackward (one launch per layer and direction, whatever the sequence length), the rest (plain RNNs,
projections, packed GRU input, dtypes and chips the docs omit) through core's composite; values and gradients against the cpu backend, the launches counted, and what the simulator's
operators refuse as their docs do."""

import collections
import itertools
import sys
from pathlib import Path

import mindtorch as torch
import numpy as np
import pytest
from mindtorch_npu import aclnn, optable
from mindtorch_npu.aclnn import BoolArray, device_launch
from mindtorch_npu.copy import empty
from mindtorch_npu.kernels import rnn as fused
from npu_helpers import live_counts, run_python

NPU = torch.device("npu", 0)
LSTM, GRU = fused.CELLS["LSTM"], fused.CELLS["GRU"]


def record_launches(patch):
    """Every ACLNN operator launched (by any kernel or helper of the backend), by name: `patch(module, name,
    value)` puts a counting `launch` wherever the backend's modules hold aclnn.launch."""
    seen = collections.Counter()
    real = aclnn.launch

    def launch(name, *args, **kwargs):
        seen.update([name])
        return real(name, *args, **kwargs)

    for mod in list(sys.modules.values()):
        if getattr(mod, "__name__", "").startswith("mindtorch_npu") and getattr(mod, "launch", None) is real:
            patch(mod, "launch", launch)
    return seen


@pytest.fixture
def launches(monkeypatch):
    return record_launches(monkeypatch.setattr)


def _module(mode, size, hidden, **kw):
    torch.manual_seed(0)
    return getattr(torch.nn, mode)(size, hidden, **kw)


def _run(device, mode, x, lengths=None, dtype=torch.float32, hx=False, batch_first=False, **kw):
    """Output, final state(s), and the gradients of input, initial state and parameters of a random loss."""
    m = _module(mode, x.shape[-1], 4, batch_first=batch_first, **kw).to(device).to(dtype)
    inp = torch.tensor(x, device=device, dtype=dtype).requires_grad_()
    layers = kw.get("num_layers", 1) * (2 if kw.get("bidirectional") else 1)
    batch = x.shape[0 if batch_first else 1]
    h_out = kw.get("proj_size") or 4
    states = None
    if hx:
        rng = np.random.default_rng(1)
        h0 = torch.tensor(rng.standard_normal((layers, batch, h_out)), device=device, dtype=dtype).requires_grad_()
        c0 = torch.tensor(rng.standard_normal((layers, batch, 4)), device=device, dtype=dtype).requires_grad_()
        states = (h0, c0) if mode == "LSTM" else h0
    seq = inp if lengths is None else torch.nn.utils.rnn.pack_padded_sequence(inp, lengths, batch_first=batch_first)
    y, st = m(seq, states)
    y = y if lengths is None else y.data
    h = st[0] if mode == "LSTM" else st
    w = torch.tensor(np.random.default_rng(2).standard_normal(tuple(y.shape)), device=device, dtype=dtype)
    loss = (y * w).sum() + (h * h).sum() + (st[1].sum() if mode == "LSTM" else 0)
    loss.backward()
    got = [y, h, inp.grad] + [p.grad for p in m.parameters()]
    if hx:
        got += [t.grad for t in ((h0, c0) if mode == "LSTM" else (h0,))]
    return [t.detach().to(torch.float32).cpu().numpy() for t in got]


def _close(a, b, tol):
    assert len(a) == len(b)
    for k, (u, v) in enumerate(zip(a, b)):
        assert u.shape == v.shape, k
        np.testing.assert_allclose(u, v, rtol=tol, atol=tol, err_msg=f"result {k}")


SHAPES = {"padded": None, "packed": [6, 4, 4, 1], "batch_first": None}
SWEEP = list(itertools.product(("LSTM", "GRU"), (1, 2), (False, True), SHAPES, (True, False)))


@pytest.mark.parametrize(
    "mode, layers, bidirectional, shape, bias", SWEEP, ids=["-".join(map(str, case)) for case in SWEEP]
)
def test_recurrent_layers_match_cpu(mode, layers, bidirectional, shape, bias, launches):
    batch_first = shape == "batch_first"
    x = np.random.default_rng(0).standard_normal((4, 6, 5) if batch_first else (6, 4, 5)).astype(np.float32)
    kw = dict(num_layers=layers, bidirectional=bidirectional, bias=bias, batch_first=batch_first, hx=bias)
    want = _run("cpu", mode, x, SHAPES[shape], **kw)
    launches.clear()
    _close(_run(NPU, mode, x, SHAPES[shape], **kw), want, 2e-5)
    cell = fused.CELLS[mode]
    calls = layers * (2 if bidirectional else 1) if mode == "LSTM" or shape != "packed" else 0  # GRU: no batchSizes
    assert launches[cell.forward] == calls and launches[cell.backward] == calls


def test_a_projection_bfloat16_and_the_plain_rnn_take_the_composite(launches):
    """aclnnLSTM.md lists no BFLOAT16 and its params no weight_hr; no operator is bound for the plain RNN."""
    assert "BFLOAT16" not in optable.dtypes(LSTM.forward, "910b", "input")
    x = np.random.default_rng(3).standard_normal((5, 2, 3)).astype(np.float32)
    for mode, dtype, tol, kw in (
        ("LSTM", torch.float32, 1e-5, dict(proj_size=2)),
        ("LSTM", torch.bfloat16, 5e-2, {}),
        ("RNN", torch.float32, 1e-5, dict(nonlinearity="relu")),
    ):
        want = _run("cpu", mode, x, [5, 3], hx=True, **kw)
        _close(_run(NPU, mode, x, [5, 3], dtype=dtype, hx=True, **kw), want, tol)
    assert not any(launches[op] for cell in (LSTM, GRU) for op in (cell.forward, cell.backward))


def test_float16_runs_fused_as_the_docs_list_it(launches):
    assert "FLOAT16" in optable.dtypes(LSTM.forward, "910b", "input")
    x = np.random.default_rng(4).standard_normal((5, 3, 4)).astype(np.float32) * 0.5
    want = _run("cpu", "LSTM", x, [5, 4, 2], bidirectional=True)
    _close(_run(NPU, "LSTM", x, [5, 4, 2], dtype=torch.float16, bidirectional=True), want, 2e-2)
    assert launches[LSTM.forward] == 2 and launches[LSTM.backward] == 2


# --- launches --------------------------------------------------------------------------------------------------


def _step_launches(launches, steps, lengths=None, mode="LSTM", **kw):
    """(forward, backward) launch counts of a 2-layer LSTM (GRU) over `steps` steps."""
    m = _module(mode, 3, 4, num_layers=2, **kw).to(NPU)
    x = torch.randn(steps, 3, 3, device=NPU, requires_grad=True)
    launches.clear()
    y, _ = m(x if lengths is None else torch.nn.utils.rnn.pack_padded_sequence(x, lengths(steps)))
    forward = dict(launches)
    launches.clear()
    (y if lengths is None else y.data).sum().backward()
    return forward, dict(launches)


@pytest.mark.parametrize("mode", ["LSTM", "GRU"])
@pytest.mark.parametrize("bidirectional", [False, True])
def test_one_fused_launch_per_layer_and_direction_not_per_step(mode, bidirectional, launches):
    short, long = (_step_launches(launches, steps, mode=mode, bidirectional=bidirectional) for steps in (3, 12))
    calls, cell = 2 * (2 if bidirectional else 1), fused.CELLS[mode]
    assert short[0][cell.forward] == calls and short[1][cell.backward] == calls
    assert short == long  # nothing is launched per time step


def test_packed_sequences_launch_per_layer_not_per_step(monkeypatch):
    """Packing and unpacking (PackedSequence's own index work) aside, the kernels' launches do not grow with T."""
    seen = collections.Counter()
    real = fused.launch
    monkeypatch.setattr(fused, "launch", lambda name, *a, **k: (seen.update([name]), real(name, *a, **k))[1])
    counts = []
    for steps in (3, 12):
        seen.clear()
        _step_launches(collections.Counter(), steps, lambda t: [t, t - 1, 1], bidirectional=True)
        counts.append(dict(seen))
    assert counts[0] == counts[1] and counts[0][LSTM.forward] == 4 and counts[0][LSTM.backward] == 4


# --- chips -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("soc, backward", [("Ascend910A", False), ("Ascend310P3", False), ("Ascend910_9391", True)])
def test_each_chip_runs_what_the_docs_list_for_its_product(soc, backward):
    """aclnnLSTM.md lists the Atlas training and inference products, aclnnLstmBackward.md and the GRU docs do not:
    there the LSTM's forward is fused and the rest takes the composite (the 310P lacks operators the composites
    need, so only its LSTM forward is run); a direct backward launch is refused by name."""
    res = run_python(
        """
        import sys, numpy as np, mindtorch as torch
        from mindtorch_npu import aclnn
        sys.path.insert(0, HERE)
        from test_rnn import _backward_args, record_launches
        seen = record_launches(setattr)
        x = np.random.default_rng(0).standard_normal((4, 2, 3)).astype(np.float32)
        out = []
        for dev, mode in (("cpu", "LSTM"), ("npu", "LSTM"), ("cpu", "GRU"), ("npu", "GRU"))[: 4 if BACKWARD else 2]:
            torch.manual_seed(0)
            m = getattr(torch.nn, mode)(3, 4).to(dev)
            t = torch.tensor(x, device=dev).requires_grad_(BACKWARD)
            y, _ = m(t)
            if BACKWARD:
                y.sum().backward()
            out.append([y.detach().cpu().numpy()] + ([t.grad.cpu().numpy()] if BACKWARD else []))
        pairs = [out[k : k + 2] for k in range(0, len(out), 2)]  # (cpu, npu) per mode
        same = all(np.allclose(a, b, atol=1e-5) for w, g in pairs for a, b in zip(w, g))
        print(same, *(seen[op] for op in ("LSTM", "LstmBackward", "GRU", "GRUBackward")))
        try:
            aclnn.launch("LstmBackward", *_backward_args())
            print("taken")
        except NotImplementedError as e:
            print("refused", "Ascend" in str(e) and "aclnnLstmBackward.md" in str(e))
        try:  # past the table's gate: the device's own phase 1
            aclnn.device_launch("LstmBackward", *_backward_args())
            print("taken")
        except RuntimeError as e:
            print("refused", "not supported on" in str(e))
    """.replace("BACKWARD", str(soc != "Ascend310P3")).replace("HERE", repr(str(Path(__file__).parent))),
        {"ACLSIM_SOC_NAME": soc},
    )
    assert res.returncode == 0, res.stderr[-2000:]
    fused = ["1", "1", "1", "taken", "taken"] if backward else ["0", "0", "0", "refused", "True", "refused", "True"]
    assert res.stdout.split() == ["True", "1"] + fused


# --- what the simulator's operators refuse ------------------------------------------------------------------------


def _forward_args(T=3, B=2, I=3, H=4, dtype=torch.float32, bias=True, layers=1, bidirectional=False, hx_shape=None,
                  params=None, sizes=None, weight_dtype=None):  # fmt: skip
    e = lambda *s, dt=dtype: empty(s, dt, NPU)
    wdt = weight_dtype or dtype
    ps = params if params is not None else [e(4 * H, I, dt=wdt), e(4 * H, H, dt=wdt)] + ([e(4 * H), e(4 * H)] * bias)
    hx = [e(*(hx_shape or (1, B, H))) for _ in range(2)]
    x = e(T * B, I) if sizes is not None else e(T, B, I)
    steps = [[e(T, B, H)] for _ in range(7)]
    return (x, ps, hx, sizes, bias, layers, 0.0, True, bidirectional, False, e(T, B, H), e(1, B, H), e(1, B, H), *steps)


def _backward_args(T=3, B=2, I=3, H=4, dtype=torch.float32, mask=4):
    e = lambda *s: empty(s, dtype, NPU)
    ps = [e(4 * H, I), e(4 * H, H), e(4 * H), e(4 * H)]
    steps = [[e(T, B, H)] for _ in range(7)]
    state = [e(1, B, H) for _ in range(2)]
    grads = [e(4 * H, I), e(4 * H, H), e(4 * H), e(4 * H)]
    return (e(T, B, I), state, ps, e(T, B, H), e(1, B, H), e(1, B, H), *steps, None, True, 1, 0.0, True, False,
            False, BoolArray((True,) * mask), e(T, B, I), e(1, B, H), e(1, B, H), grads)  # fmt: skip


FORWARD_REFUSALS = [
    (dict(layers=2), "one layer in one direction"),
    (dict(bidirectional=True), "one layer in one direction"),
    (dict(dtype=torch.float64), "input not implemented for DT_DOUBLE"),
    (dict(weight_dtype=torch.float16), "params dtype FLOAT16 differs from input's FLOAT"),
    (dict(bias=False, params="four"), "params holds 4 tensors, expected 2"),
    (dict(hx_shape=(2, 2, 4)), r"hx has shape \[2, 2, 4\], expected \[1, 2, 4\]"),
    (dict(sizes="int32"), "batchSizes not implemented for DT_INT32"),
]


@pytest.mark.parametrize("change, words", FORWARD_REFUSALS, ids=[str(i) for i in range(len(FORWARD_REFUSALS))])
def test_the_simulator_refuses_what_aclnnLSTM_md_refuses(change, words):
    device_launch(LSTM.forward, *_forward_args())  # the unchanged call is taken
    change = dict(change)
    if change.get("params") == "four":
        change["params"] = [empty(s, torch.float32, NPU) for s in ((16, 3), (16, 4), (16,), (16,))]
    if change.get("sizes") == "int32":
        change["sizes"] = torch.tensor([2, 2, 2], dtype=torch.int32, device=NPU)
    before = live_counts()
    with pytest.raises(RuntimeError, match=words):
        device_launch(LSTM.forward, *_forward_args(**change))
    assert live_counts()["executors"] == before["executors"]


def test_the_simulator_refuses_a_bad_backward_call():
    device_launch(LSTM.backward, *_backward_args())
    with pytest.raises(RuntimeError, match="outputMask must be an aclBoolArray of 4"):
        device_launch(LSTM.backward, *_backward_args(mask=3))
    with pytest.raises(RuntimeError, match="not implemented for DT_DOUBLE"):
        device_launch(LSTM.backward, *_backward_args(dtype=torch.float64))


def test_batch_sizes_that_grow_fail_the_launch():
    sizes = torch.tensor([1, 2, 2], dtype=torch.int64, device=NPU)
    device_launch(LSTM.forward, *_forward_args(sizes=sizes))
    with pytest.raises(RuntimeError, match="batchSizes must be positive, non-increasing"):
        torch.npu.synchronize()


def _gru_args(T=3, B=2, I=3, H=4, dtype=torch.float32, sizes=None, bidirection=False):
    e = lambda *s: empty(s, dtype, NPU)
    ps = [e(3 * H, I), e(3 * H, H), e(3 * H), e(3 * H)]
    x = e(T * B, I) if sizes is not None else e(T, B, I)
    steps = [[e(T, B, H)] for _ in range(5)]
    return (x, ps, e(1, B, H), sizes, True, 1, 0.0, True, bidirection, False, e(T, B, H), e(1, B, H), *steps)


def test_the_simulator_refuses_what_aclnnGRU_md_refuses():
    gru = fused.CELLS["GRU"].forward
    device_launch(gru, *_gru_args())
    sizes = torch.tensor([2, 2, 2], device=NPU)
    for change, words in (
        (dict(sizes=sizes), "batchSizes is not supported yet"),
        (dict(dtype=torch.float64), "input not implemented for DT_DOUBLE"),
        (dict(bidirection=True), "one layer in one direction"),
    ):
        with pytest.raises(RuntimeError, match=words):
            device_launch(gru, *_gru_args(**change))


@pytest.mark.parametrize("mode", ["LSTM", "GRU"])
def test_an_absent_initial_state_is_zeros(mode):
    """The docs: hx may be left out (a null pointer), the initial state is then zero."""
    T, B, I, H, G = 3, 2, 3, 4, 4 if mode == "LSTM" else 3
    torch.manual_seed(0)
    x, w_ih, w_hh, b_ih, b_hh = (
        torch.randn(*s, device=NPU) for s in ((T, B, I), (G * H, I), (G * H, H), (G * H,), (G * H,))
    )
    zeros = torch.zeros(1, B, H, device=NPU)
    outs = []
    for hx in ((zeros, zeros) if mode == "LSTM" else zeros, None):
        y, hy = torch.empty(T, B, H, device=NPU), torch.empty(1, B, H, device=NPU)
        steps = [[torch.empty(T, B, H, device=NPU)] for _ in range(7 if mode == "LSTM" else 5)]
        state = ([list(hx)] if hx is not None else [None]) if mode == "LSTM" else [hx]
        cy = [torch.empty(1, B, H, device=NPU)] if mode == "LSTM" else []
        params = [w_ih, w_hh, b_ih, b_hh]
        device_launch(mode, x, params, *state, None, True, 1, 0.0, True, False, False, y, hy, *cy, *steps)
        outs.append([y.cpu().numpy(), hy.cpu().numpy()] + [s[0].cpu().numpy() for s in steps])
    for a, b in zip(*outs):
        np.testing.assert_array_equal(a, b)
