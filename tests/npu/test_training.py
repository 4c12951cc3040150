"""A GPT-style program trained on npu (simulator) for 200 AdamW steps matches the cpu run step by step."""

import math

import mindtorch as torch
import mindtorch.nn as nn
import mindtorch.nn.functional as F
import numpy as np
import pytest
from mindtorch.plugins import OPS


class GPT(nn.Module):
    def __init__(self, vocab=11, block=8, d=16):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(block, d)
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 4 * d)
        self.out = nn.Linear(4 * d, d)
        self.lnf = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)
        self.register_buffer("mask", torch.tril(torch.ones(block, block)).view(1, block, block))

    def forward(self, idx, targets):
        B, L = idx.shape
        x = self.wte(idx) + self.wpe(torch.arange(L, device=idx.device))
        q, k, v = self.qkv(self.ln1(x)).split(x.size(-1), dim=2)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(k.size(-1))
        att = F.softmax(att.masked_fill(self.mask[:, :L, :L] == 0, float("-inf")), dim=-1)
        x = x + self.proj(att @ v)
        x = x + self.out(F.gelu(self.fc(self.ln2(x))))
        logits = self.head(self.lnf(x))
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.reshape(-1))


def run(device, steps, seed=0):
    torch.manual_seed(seed)
    model = GPT()
    model.to(device)  # same initial weights: drawn on the cpu, then moved
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    g = np.random.default_rng(1)
    losses = []
    for _ in range(steps):
        start = g.integers(0, 11, size=(4, 1))  # counting sequences mod 11: learnable
        data = torch.tensor((start + np.arange(9)) % 11)
        x, y = data[:, :-1].to(device), data[:, 1:].to(device)
        loss = model(x, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(float(loss.detach().cpu()))
    return losses, model


def test_gpt_training_on_npu_matches_cpu_step_by_step():
    cpu, mc = run("cpu", 200)
    npu, mn = run("npu", 200)
    assert cpu[-1] < cpu[0] / 4  # it learns
    np.testing.assert_allclose(npu, cpu, rtol=2e-5)
    # the key bias gets a gradient that is zero in exact arithmetic (softmax ignores a per-row constant): AdamW
    # turns its rounding noise into lr-sized steps on either backend, so weights agree to a few lr, not to ulps
    for (name, p), q in zip(mc.named_parameters(), mn.parameters()):
        tol = 1e-2 if name == "qkv.bias" else 1e-4
        np.testing.assert_allclose(q.detach().cpu().numpy(), p.detach().numpy(), rtol=tol, atol=tol, err_msg=name)


class CNN(nn.Module):
    """Every NCHW family the npu backend runs through ops-nn: convolution, batch and group norm, max, average
    and adaptive pooling, with dropout between."""

    def __init__(self, classes=4):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 3, padding=1)
        self.bn = nn.BatchNorm2d(6)
        self.conv2 = nn.Conv2d(6, 8, 3, stride=1, padding="same", groups=2)
        self.gn = nn.GroupNorm(2, 8)
        self.drop = nn.Dropout(0.1)
        self.head = nn.Linear(8 * 2 * 2, classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn(self.conv1(x))), 2)
        x = F.avg_pool2d(F.gelu(self.gn(self.conv2(x))), 2, ceil_mode=True)
        x = F.adaptive_avg_pool2d(self.drop(x), (2, 2))
        return self.head(x.flatten(1))


def _images(g, n=16):
    """Four classes of 12x12 images: a bright bar in one of four places, under noise."""
    y = g.integers(0, 4, size=n)
    x = g.normal(0, 0.3, size=(n, 1, 12, 12)).astype(np.float32)
    for i, c in enumerate(y):
        r = 1 + 3 * int(c)
        x[i, 0, r : r + 2, 2:10] += 1.5
    return torch.tensor(x), torch.tensor(y)


def run_cnn(device, steps, seed=0):
    torch.manual_seed(seed)
    model = CNN()
    model.drop.p = 0.0  # random masks differ between the devices' generators; the dropout path still runs
    model.to(device)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    g = np.random.default_rng(2)
    losses = []
    for _ in range(steps):
        x, y = _images(g)
        loss = F.cross_entropy(model(x.to(device)), y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(float(loss.detach().cpu()))
    return losses, model


def test_cnn_training_on_npu_matches_cpu_step_by_step(tmp_path):
    cpu, mc = run_cnn("cpu", 150)
    npu, mn = run_cnn("npu", 150)
    assert np.mean(cpu[-10:]) < cpu[0] / 4  # it learns
    np.testing.assert_allclose(npu, cpu, rtol=1e-4, atol=1e-5)
    # conv1's bias feeds batch norm, which removes any per-channel constant: its gradient is rounding noise
    # that Adam turns into lr-sized steps (as the GPT's key bias above), so it is not compared
    for (name, p), q in zip(mc.named_parameters(), mn.parameters()):
        if name != "conv1.bias":
            np.testing.assert_allclose(q.detach().cpu().numpy(), p.detach().numpy(), rtol=1e-3, atol=1e-3, err_msg=name)
    np.testing.assert_allclose(mn.bn.running_var.cpu().numpy(), mc.bn.running_var.numpy(), rtol=1e-4)

    # evaluation under no_grad uses the running statistics, as on the cpu (the cpu-trained weights, moved)
    x, _ = _images(np.random.default_rng(5), 8)
    mn.load_state_dict({k: v.to("npu") for k, v in mc.state_dict().items()})
    mc.eval(), mn.eval()
    with torch.no_grad():
        lc, ln = mc(x), mn(x.to("npu"))
    assert ln.device.type == "npu" and not ln.requires_grad
    np.testing.assert_allclose(ln.cpu().numpy(), lc.numpy(), rtol=1e-4, atol=1e-5)
    top = ln.softmax(-1).topk(2, dim=-1).indices.cpu()
    assert top.tolist() == lc.softmax(-1).topk(2, dim=-1).indices.tolist()
    drawn = torch.multinomial(ln.softmax(-1), 3, replacement=True)
    assert drawn.device.type == "npu" and drawn.shape == (8, 3) and int(drawn.max().cpu()) < 4

    # a checkpoint saved from npu loads back onto the cpu and onto the npu
    path = tmp_path / "cnn.pt"
    torch.save(mn.state_dict(), path)
    on_cpu = torch.load(path, map_location="cpu")
    on_npu = torch.load(path, map_location="npu")
    assert all(t.device.type == "cpu" for t in on_cpu.values())
    assert all(t.device.type == "npu" for t in on_npu.values())
    fresh = CNN().to("npu")
    fresh.load_state_dict(on_npu)
    fresh.eval()
    with torch.no_grad():
        np.testing.assert_allclose(fresh(x.to("npu")).cpu().numpy(), ln.cpu().numpy(), rtol=0, atol=0)


OPTIMIZERS = {  # the foreach path (whole groups through ACLNN's foreach operators) and the forms left to core
    "adamw": lambda ps: torch.optim.AdamW(ps, lr=1e-2, weight_decay=0.1),
    "adam": lambda ps: torch.optim.Adam(ps, lr=1e-2),
    "adam l2": lambda ps: torch.optim.Adam(ps, lr=1e-2, weight_decay=0.1),
    "adam amsgrad": lambda ps: torch.optim.Adam(ps, lr=1e-2, amsgrad=True),
    "sgd momentum": lambda ps: torch.optim.SGD(ps, lr=1e-2, momentum=0.9, nesterov=True),
}


# the step counts' forms: one count per group (the foreach path), counts apart (a layer without gradients for
# the first steps: core's composite), float64 counts past float32's integers (as a loaded state_dict may hold)
COUNTS = ["even", "apart", "float64"]


@pytest.mark.parametrize("counts", COUNTS)
@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_optimizer_steps_on_npu_match_cpu(name, counts, monkeypatch):
    if counts != "even" and not name.startswith("adam"):
        pytest.skip("only Adam's foreach kernel reads the step counts")
    adam = OPS["_foreach_adam_"]
    composite, fell_back = adam.composite, []  # the devices whose Adam step left its kernel for core's composite
    monkeypatch.setattr(adam, "composite", lambda *a: fell_back.append(a[0][0].device.type) or composite(*a))

    def run(device):
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 3)).to(device)
        opt = OPTIMIZERS[name](model.parameters())
        g = np.random.default_rng(0)
        for i in range(5):
            x = torch.tensor(g.normal(size=(8, 6)).astype(np.float32)).to(device)
            loss = (model[0](x) if counts == "apart" and i < 2 else model(x)).square().mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            if counts == "float64" and i == 0:
                for st in opt.state.values():
                    st["step"] = torch.tensor(2.0**24, dtype=torch.float64)
        steps = [
            (s["step"].dtype, float(s["step"]), s["step"]._version_value) for s in opt.state.values() if "step" in s
        ]
        return [p.detach().cpu().numpy() for p in model.parameters()], steps

    (on_npu, npu_steps), (on_cpu, cpu_steps) = run("npu"), run("cpu")
    for a, b in zip(on_npu, on_cpu):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert npu_steps == cpu_steps  # each count moved (and its version) once per step, as on the cpu
    if name.startswith("adam"):  # the counts took the form asked for
        assert {v for _, v, _ in npu_steps} == {"even": {5.0}, "apart": {3.0, 5.0}, "float64": {2.0**24 + 4}}[counts]
        assert {d for d, _, _ in npu_steps} == {torch.float64 if counts == "float64" else torch.float32}
        # the npu kernel runs every group whose counts agree; the forms it does not cover go to the composite
        assert ("npu" in fell_back) == (name in ("adam l2", "adam amsgrad") or counts == "apart")


@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN"])
def test_recurrent_layers_on_npu_match_cpu(kind):
    """nn.LSTM/GRU/RNN on npu with arguments the fused operators do not take (a projection, packed GRU input,
    a plain RNN) run the layer's per-step composite: packed bidirectional input, outputs and every gradient as
    on the cpu (tests/npu/test_rnn.py covers the fused path)."""
    torch.manual_seed(0)
    kw = {"proj_size": 2} if kind == "LSTM" else {}
    cpu_mod = getattr(nn, kind)(3, 4, num_layers=2, bidirectional=True, **kw)
    npu_mod = getattr(nn, kind)(3, 4, num_layers=2, bidirectional=True, **kw)
    npu_mod.load_state_dict(cpu_mod.state_dict())
    npu_mod.to("npu")
    x = torch.randn(4, 3, 3)
    lengths = [4, 2, 3]
    results = []
    for mod, dev in ((cpu_mod, "cpu"), (npu_mod, "npu")):
        xd = x.to(dev).detach().requires_grad_()
        packed = nn.utils.rnn.pack_padded_sequence(xd, lengths, enforce_sorted=False)
        out, h = mod(packed)
        h = h[0] if kind == "LSTM" else h
        padded, _ = nn.utils.rnn.pad_packed_sequence(out)
        ((padded * padded).sum() + h.sum()).backward()
        grads = [xd.grad] + [p.grad for p in mod.parameters()]
        results.append([t.detach().cpu().numpy() for t in [padded, h] + grads])
    for a, b in zip(*results):
        np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_adam_scratch_views_are_aligned_and_apart(dtype):
    """Adam's denominators are views of one allocation: each dense, in its tensor's shape, starting on a
    512-byte boundary (as a block of its own would), none overlapping another."""
    from mindtorch_npu.kernels.foreach import _scratch_like

    ts = [torch.zeros(s, dtype=dtype, device="npu") for s in [(3, 5), (0,), (1,), (129,), (2, 1, 4), ()]]
    out = _scratch_like(ts)
    assert [(o.shape, o.dtype, o.is_contiguous()) for o in out] == [(t.shape, dtype, True) for t in ts]
    spans = sorted((o.data_ptr(), o.data_ptr() + o.numel() * o.element_size()) for o in out)
    assert all(start % 512 == 0 for start, _ in spans)
    assert all(end <= nxt for (_, end), (nxt, _) in zip(spans, spans[1:]))
    assert len({o.untyped_storage().data_ptr() for o in out}) == 1
