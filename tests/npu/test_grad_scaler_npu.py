"""GradScaler("npu"): the unscale and the scale update run on the device through aclnnForeachNonFiniteCheckAndUnscale
and aclnnAmpUpdateScale (results as the cpu's ops, swept over dtypes and where the inf / NaN sits; the composite on
chips whose docs lack them), the simulator refuses what those operators' docs refuse, and a training step reads the
device once."""

import mindtorch as torch
import numpy as np
import pytest
from mindtorch_npu import chips
from mindtorch_npu.aclnn import launch
from mindtorch_npu.kernels import foreach as foreach_kernels
from mindtorch_npu.runtime import AclRuntimeError
from mindtorch_npu.state import RUNTIME
from npu_helpers import run_python

BAD = [None, np.inf, -np.inf, np.nan]
SHAPES = [(3,), (2, 3), (), (4, 1, 2)]


@pytest.fixture()
def launches(monkeypatch):
    seen = []
    real = foreach_kernels.launch

    def record(name, *args, **kwargs):
        seen.append(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(foreach_kernels, "launch", record)
    return seen


def _grads(dtype, seed, bad, device):
    rng = np.random.default_rng(seed)
    out = []
    for i, shape in enumerate(SHAPES):
        a = (rng.standard_normal(shape) * 50).astype(np.float32)
        if bad is not None and i == seed % len(SHAPES):
            flat = a.reshape(-1).copy()
            flat[seed % a.size] = bad
            a = flat.reshape(shape)
        out.append(torch.tensor(a).to(dtype).to(device))
    return out


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("bad", BAD)
@pytest.mark.parametrize("seed", range(3))
def test_unscale_matches_the_cpu(dtype, bad, seed, launches):
    dtype = getattr(torch, dtype)
    res = []
    for device in ("cpu", "npu"):
        grads, found = _grads(dtype, seed, bad, device), torch.zeros((), device=device)
        torch._amp_foreach_non_finite_check_and_unscale_(grads, found, torch.tensor(1 / 32.0, device=device))
        res.append(([g.cpu().float().numpy() for g in grads], found.item()))
    (cg, cf), (ng, nf) = res
    assert nf == cf == (0.0 if bad is None else 1.0)
    for a, b in zip(ng, cg):
        np.testing.assert_array_equal(a, b)
    assert launches == ["ForeachNonFiniteCheckAndUnscale"]


@pytest.mark.parametrize("interval", [1, 2, 3])
def test_update_scale_matches_the_cpu(interval, launches):
    flags = [0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0]
    logs = []
    for device in ("cpu", "npu"):
        scale = torch.full((), 1024.0, device=device)
        tracker = torch.zeros((), dtype=torch.int32, device=device)
        log = []
        for f in flags:
            assert torch._amp_update_scale_(scale, tracker, torch.tensor(f, device=device), 2.0, 0.5, interval) is scale
            log.append((scale.item(), tracker.item()))
        logs.append(log)
    assert logs[0] == logs[1]
    assert launches == ["AmpUpdateScale"] * len(flags)


def test_the_grown_scale_stays_when_growth_would_overflow():
    scale = torch.tensor([3e38], device="npu")
    tracker = torch.tensor([1], dtype=torch.int32, device="npu")
    torch._amp_update_scale_(scale, tracker, torch.tensor([0.0], device="npu"), 2.0, 0.5, 2)
    assert scale.item() == torch.tensor(3e38).item() and tracker.item() == 0


def _refused(name, *args):
    with pytest.raises(AclRuntimeError) as info:
        launch(name, *args)
    return str(info.value)


def test_the_simulator_refuses_what_the_docs_refuse():
    def f32(*shape, dtype=torch.float32):
        return torch.zeros(*shape, dtype=dtype, device="npu")

    grads = [f32(3), f32(2, 2)]
    unscale = "ForeachNonFiniteCheckAndUnscale"
    assert "more than one dtype" in _refused(unscale, [f32(3), f32(2, dtype=torch.float16)], f32(()), f32(()))
    assert "DT_FLOAT16" in _refused(unscale, grads, f32((), dtype=torch.float16), f32(()))
    assert "DT_DOUBLE" in _refused(unscale, grads, f32(()), f32((), dtype=torch.float64))
    assert "561002" in _refused(unscale, grads, f32(2), f32(()))
    assert "empty tensor" in _refused(unscale, [f32(0)], f32(()), f32(()))
    assert "non-contiguous" in _refused(unscale, [f32(3, 4).t()], f32(()), f32(()))
    assert "DT_INT32" in _refused(unscale, [f32(3, dtype=torch.int32)], f32(()), f32(()))
    s, t, found = f32(1), f32(1, dtype=torch.int32), f32(1)
    update = "AmpUpdateScale"
    assert "561002" in _refused(update, f32(2), t, found, 2.0, 0.5, 2, f32(2), t)
    assert "growthInterval 0" in _refused(update, s, t, found, 2.0, 0.5, 0, s, t)
    assert "currentScale's dtype" in _refused(update, s, t, f32(1, dtype=torch.float16), 2.0, 0.5, 2, s, t)
    assert "DT_FLOAT" in _refused(update, s, f32(1), found, 2.0, 0.5, 2, s, f32(1))
    assert "DT_DOUBLE" in _refused(
        update, f32(1, dtype=torch.float64), t, f32(1, dtype=torch.float64), 2.0, 0.5, 2, f32(1, dtype=torch.float64), t
    )


_ON_CHIP = """
import mindtorch as torch
from mindtorch_npu import chips
g = [torch.tensor([1.0, float("inf")], device="npu"), torch.tensor([4.0], device="npu")]
found = torch.zeros((), device="npu")
torch._amp_foreach_non_finite_check_and_unscale_(g, found, torch.tensor(0.5, device="npu"))
print(chips.has_op("ForeachNonFiniteCheckAndUnscale"), chips.has_op("AmpUpdateScale"))
print(g[0].tolist(), g[1].tolist(), found.item())
s, t = torch.tensor(8.0, device="npu"), torch.zeros((), dtype=torch.int32, device="npu")
try:
    torch._amp_update_scale_(s, t, found, 2.0, 0.5, 2)
    print(s.item(), t.item())
except NotImplementedError as exc:
    print(type(exc).__name__, str(exc).split(":")[0])
"""


@pytest.mark.parametrize(
    "soc,has,update",
    [
        ("Ascend910A", "False False", "4.0 0"),  # both through the composite
        # the unscale operator is there; the update's composite compares with aclnnEqScalar, which the 310P lacks too
        ("Ascend310P3", "True False", "NotImplementedError aclnnEqScalar"),
    ],
)
def test_chips_whose_docs_lack_the_operators(soc, has, update):
    res = run_python(_ON_CHIP, {"ACLSIM_SOC_NAME": soc})
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines() == [has, "[0.5, inf] [2.0] 1.0", update]


def _train(device, grads_from, counter=None):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1)).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    scaler = torch.amp.GradScaler(device, init_scale=2.0**10, growth_interval=2)
    x = torch.randn(4, 8).to(device)
    log = []
    for blow_up in grads_from:
        opt.zero_grad()
        with torch.autocast(device, dtype=torch.bfloat16):
            loss = model(x).float().pow(2).mean() * (float("inf") if blow_up else 1.0)
        scaler.scale(loss).backward()
        if counter is not None:
            counter.clear()
        scaler.step(opt)
        scaler.update()
        if counter is not None:
            log.append(len(counter))
        log.append(scaler.get_scale())
    return log, [p.detach().cpu().float() for p in model.parameters()]


def test_a_training_step_reads_the_device_once(monkeypatch):
    reads = []
    real = RUNTIME.memcpy

    def memcpy(dst, src, nbytes, kind):
        if kind == 2:  # ACL_MEMCPY_DEVICE_TO_HOST
            reads.append(nbytes)
        return real(dst, src, nbytes, kind)

    monkeypatch.setattr(RUNTIME, "memcpy", memcpy)
    pattern = [False, False, True, False, False]
    log, _ = _train("npu", pattern, counter=reads)
    # per step: the one found_inf read of step(), then get_scale()'s own read in the log
    assert log[0::2] == [1] * len(pattern), log


def test_training_on_npu_follows_the_cpu():
    pattern = [False, False, True, False, False, False]
    (cpu_log, cpu_params), (npu_log, npu_params) = _train("cpu", pattern), _train("npu", pattern)
    assert npu_log == cpu_log and npu_log[2] == npu_log[1] / 2  # the overflowing step backed off
    for a, b in zip(npu_params, cpu_params):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=3e-2, atol=3e-2)
    assert chips.has_op("AmpUpdateScale")
