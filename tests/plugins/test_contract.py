"""Contract bugs a third-party backend hits, each checked with the `vault` fixture: a backend written
from docs/PLUGINS.md and mindtorch.plugins alone, whose memory the host cannot read."""

from helpers import installed_backends

QUIET = "import warnings\nwarnings.simplefilter('ignore')\n"


def test_manual_seed_with_a_backend_without_generator(run_python):
    r = run_python(
        QUIET
        + """
import mindtorch as torch
torch.manual_seed(3)
a = torch.rand(3).tolist()
torch.manual_seed(3)
emit([a == torch.rand(3).tolist(), torch.initial_seed()])
""",
        plugins=["vault"],
    )
    assert r.returncode == 0, r
    assert r.result == [True, 3]


def test_factory_kernels_get_a_normalised_device(run_python):
    r = run_python(
        QUIET
        + """
import mindtorch as torch
import mindtorch_vault as V
a = torch.zeros(2, device="vault")
b = torch.empty(2, device=torch.device("vault"))
c = torch.ones(2).to("vault")
with torch.device("vault"):
    d = torch.full((2,), 1.0)
emit({"seen": V.SEEN_DEVICES, "devs": [str(t.device) for t in (a, b, c, d)], "eq": a.device == c.device,
      "cpu": str(torch.zeros(1, device="cpu:0").device)})
""",
        plugins=["vault"],
    )
    assert r.returncode == 0, r
    assert set(r.result["seen"]) == {"vault:0"}
    assert r.result["devs"] == ["vault:0"] * 4 and r.result["eq"] is True
    assert r.result["cpu"] == "cpu"


def test_cross_device_calls_are_symmetric(run_python):
    r = run_python(
        QUIET
        + """
import mindtorch as torch
c = torch.arange(6.).reshape(2, 3)
v = torch.ones(2, 3, device="vault")
errs = []
for f in (lambda: c + v, lambda: v + c, lambda: torch.add(c, v), lambda: torch.mul(v, c)):
    try:
        f()
        errs.append(None)
    except RuntimeError as exc:
        errs.append(str(exc))
scalar = [str((torch.tensor(2.) + v).device), str((v + torch.tensor(2.)).device)]
dst = torch.zeros(2, 3)
dst.copy_(v * 3)
back = torch.zeros(2, 3, device="vault")
back.copy_(c.t().t())
emit({"errs": errs, "scalar": scalar, "dst": dst.tolist(), "back": back.cpu().tolist()})
""",
        plugins=["vault"],
    )
    assert r.returncode == 0, r
    assert all(e and "same device" in e for e in r.result["errs"]), r.result
    assert r.result["scalar"] == ["vault:0", "vault:0"]
    assert r.result["dst"] == [[3.0] * 3] * 2
    assert r.result["back"] == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]


def test_copies_every_direction_dtype_and_strided_view(run_python):
    r = run_python(
        QUIET
        + """
import mindtorch as torch
bad = []
dtypes = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.float16,
          torch.bfloat16, torch.float32, torch.float64]
src = torch.arange(24.).reshape(4, 6) % 5
for dt in dtypes:
    for dt2 in (dt, torch.float32):
        h = src.to(dt)[::2, 1::2]
        v = h.to("vault")
        if v.dtype is not dt or v.to("cpu").tolist() != h.tolist():
            bad.append(("to", str(dt)))
        w = torch.zeros(2, 3, dtype=dt2, device="vault")
        w.copy_(h)
        if w.cpu().tolist() != h.to(dt2).tolist():
            bad.append(("copy_ in", str(dt), str(dt2)))
        out = torch.zeros(4, 6, dtype=dt2)
        out[::2, 1::2].copy_(v)
        if out[::2, 1::2].tolist() != h.to(dt2).tolist():
            bad.append(("copy_ out", str(dt), str(dt2)))
emit(bad)
""",
        plugins=["vault"],
    )
    assert r.returncode == 0, r
    assert r.result == []


def test_gradient_through_cross_device_copies(run_python):
    r = run_python(
        QUIET
        + """
import mindtorch as torch
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
v = x.to("vault")
(v * v).to("cpu").sum().backward()
y = torch.zeros(3, device="vault", requires_grad=True)
z = torch.zeros(3)
z.copy_(y * 2)
z.sum().backward()
emit([x.grad.tolist(), y.grad.cpu().tolist(), str(y.grad.device)])
""",
        plugins=["vault"],
    )
    assert r.returncode == 0, r
    assert r.result == [[2.0, 4.0, 6.0], [2.0, 2.0, 2.0], "vault:0"]


def test_inplace_fallback_keeps_version_tracking(run_python):
    # vault has mul but no mul_: dispatch runs `b.copy_(b * 2)` and must record it as mul_
    r = run_python(
        QUIET
        + """
import mindtorch as torch
a = torch.ones(3, device="vault", requires_grad=True)
b = a * 1
b.mul_(2)
b.sum().backward()
c = a * 1
d = c * c
c.mul_(2)
try:
    d.sum().backward()
    err = None
except RuntimeError as exc:
    err = str(exc)
emit([a.grad.cpu().tolist(), err is not None and "modified by an inplace operation" in err])
""",
        plugins=["vault"],
    )
    assert r.returncode == 0, r
    assert r.result == [[2.0, 2.0, 2.0], True]


def test_backend_imported_before_mindtorch(run_python):
    r = run_python(
        QUIET
        + """
import mindtorch_vault
import mindtorch_cpu
import mindtorch as torch
emit([torch.backends_installed(), (torch.ones(2, device="vault") + 1).cpu().tolist()])
""",
        plugins=["vault"],
    )
    assert r.returncode == 0, r
    assert r.result == [installed_backends("vault"), [2.0, 2.0]]


def test_skipped_device_says_why(run_python):
    r = run_python(
        QUIET
        + """
import mindtorch as torch
try:
    torch.zeros(2, device="broken")
except RuntimeError as exc:
    emit(str(exc))
""",
        plugins=["broken"],
    )
    assert r.returncode == 0, r
    assert "skipped" in r.result and "libbrokendevice" in r.result and "not installed" not in r.result


def test_mlp_training_step_with_host_fallback_matches_cpu(run_python):
    r = run_python(
        """
import warnings
import mindtorch as torch
import mindtorch.nn as nn
import mindtorch.nn.functional as F
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
ref = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
ref.load_state_dict(model.state_dict())
model.to("vault")
X, Y = torch.randn(5, 4), torch.tensor([0, 1, 2, 1, 0])
losses = {}
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    for name, m, x, y in (("vault", model, X.to("vault"), Y.to("vault")), ("cpu", ref, X, Y)):
        opt = torch.optim.AdamW(m.parameters(), lr=0.1)
        for _ in range(3):
            opt.zero_grad()
            loss = F.cross_entropy(m(x), y)
            loss.backward()
            opt.step()
        losses[name] = loss.item()
fell = [str(w.message).split("'")[1] for w in caught if "host fallback" in str(w.message)]
params = [p.device.type for p in model.parameters()]
diff = max((a.cpu() - b).abs().max().item() for a, b in zip(model.parameters(), ref.parameters()))
emit({"losses": losses, "fell": fell, "params": params, "diff": diff})
""",
        plugins=["vault"],
    )
    assert r.returncode == 0, r
    res = r.result
    assert abs(res["losses"]["vault"] - res["losses"]["cpu"]) < 1e-6 and res["diff"] < 1e-6
    assert set(res["params"]) == {"vault"}
    assert "linear" in res["fell"] and len(res["fell"]) == len(set(res["fell"])), res["fell"]  # once per op
    assert "add" not in res["fell"] and "relu" not in res["fell"]
