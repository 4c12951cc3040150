"""Training-program behaviour checked without PyTorch: self-consistency and closed-form answers.

Companion of tests/parity/programs/test_nn_programs.py, for machines without the PyTorch oracle.
"""

import io
import math

import mindtorch as torch
import mindtorch.nn as nn
import mindtorch.nn.functional as F
import numpy as np
import pytest


def tensor(a, dtype=None):
    a = np.asarray(a)
    if dtype is None:
        dtype = {"f": torch.float32, "i": torch.int64, "b": torch.bool}[a.dtype.kind]
    return torch.tensor(a.tolist(), dtype=dtype)


def rand(shape, seed, scale=1.0):
    return tensor((np.random.default_rng(seed).standard_normal(shape) * scale).astype(np.float32))


class TinyGPT(nn.Module):
    def __init__(self, vocab=9, block=6, d=8, device=None):
        super().__init__()
        self.wte = nn.Embedding(vocab, d, device=device)
        self.wpe = nn.Embedding(block, d, device=device)
        self.ln = nn.LayerNorm(d, device=device)
        self.qkv = nn.Linear(d, 3 * d, device=device)
        self.proj = nn.Linear(d, d, device=device)
        self.head = nn.Linear(d, vocab, bias=False, device=device)
        self.head.weight = self.wte.weight
        self.register_buffer("mask", torch.tril(torch.ones(block, block, device=device)).view(1, block, block))

    def forward(self, idx, targets=None):
        B, L = idx.shape
        x = self.wte(idx) + self.wpe(torch.arange(L, device=idx.device))
        q, k, v = self.qkv(self.ln(x)).split(x.size(-1), dim=2)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(k.size(-1))
        att = F.softmax(att.masked_fill(self.mask[:, :L, :L] == 0, float("-inf")), dim=-1)
        x = x + self.proj(att @ v)
        logits = self.head(x)
        loss = None if targets is None else F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
        return logits, loss


def test_batchnorm_then_inplace_relu_backward_matches_out_of_place():
    for bn_cls, shape in ((nn.BatchNorm2d, (4, 3, 5, 5)), (nn.BatchNorm1d, (6, 3))):
        for train in (True, False):
            results = []
            for inplace in (True, False):
                torch.manual_seed(0)
                bn = bn_cls(3)
                with torch.no_grad():
                    bn.weight.copy_(tensor([1.0, -0.5, 2.0]))
                    bn.running_var.fill_(2.0)
                bn.train(train)
                x = rand(shape, 1).requires_grad_()
                y = nn.ReLU(inplace=inplace)(bn(x))
                (y * rand(shape, 2)).sum().backward()
                results.append((x.grad, bn.weight.grad, bn.bias.grad))
            for a, b in zip(*results):
                np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=1e-6)


def test_weight_tying_parameters_dedup_and_grads_sum():
    torch.manual_seed(0)
    m = TinyGPT()
    assert m.head.weight is m.wte.weight
    names = [n for n, _ in m.named_parameters()]
    assert "head.weight" not in names and "wte.weight" in names
    sd = m.state_dict()
    assert "head.weight" in sd and "wte.weight" in sd
    idx = tensor(np.random.default_rng(0).integers(0, 9, (2, 6)))
    _, loss = m(idx, idx)
    loss.backward()
    tied = m.wte.weight.grad.clone()
    # untie with the same values: the tied gradient is the sum of the two uses
    m.zero_grad()
    m.head.weight = nn.Parameter(m.wte.weight.detach().clone())
    _, loss2 = m(idx, idx)
    loss2.backward()
    np.testing.assert_allclose(loss.item(), loss2.item(), rtol=1e-6)
    np.testing.assert_allclose(tied.numpy(), (m.wte.weight.grad + m.head.weight.grad).numpy(), rtol=1e-5, atol=1e-6)


def test_greedy_generation_is_argmax_and_sampling_in_range():
    torch.manual_seed(0)
    m = TinyGPT().eval()

    @torch.no_grad()
    def generate(idx, n, top_k):
        for _ in range(n):
            logits, _ = m(idx[:, -6:])
            logits = logits[:, -1, :]
            v, _ = torch.topk(logits, top_k)
            logits[logits < v[:, [-1]]] = -float("Inf")
            nxt = torch.multinomial(F.softmax(logits, dim=-1), num_samples=1)
            idx = torch.cat((idx, nxt), dim=1)
        return idx

    start = tensor([[1, 2]])
    g = generate(start, 5, top_k=1)
    idx = start
    with torch.no_grad():
        for _ in range(5):
            idx = torch.cat((idx, m(idx[:, -6:])[0][:, -1].argmax(-1, keepdim=True)), 1)
    assert torch.equal(g, idx)
    r = generate(tensor([[0], [3], [4]]), 7, top_k=3)
    assert r.shape == (3, 8) and r.dtype == torch.int64 and not r.requires_grad
    assert bool(((r >= 0) & (r < 9)).all())


def _net():
    return nn.Sequential(nn.Linear(4, 8, bias=False), nn.BatchNorm1d(8), nn.ReLU(inplace=True), nn.Linear(8, 2))


def _train_step(model, opt, i):
    x, y = rand((5, 4), 10 + i), tensor(np.random.default_rng(i).integers(0, 2, 5))
    opt.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    return loss.item()


def test_checkpoint_resume_is_bit_identical():
    torch.manual_seed(0)
    model = _net()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.1)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=5)
    for i in range(2):
        _train_step(model, opt, i)
        sched.step()
    buf = io.BytesIO()
    torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict()}, buf)
    cont = []
    for i in range(2, 5):
        cont.append(_train_step(model, opt, i))
        sched.step()
    buf.seek(0)
    ck = torch.load(buf)
    model2 = _net()
    model2.load_state_dict(ck["model"])
    opt2 = torch.optim.AdamW(model2.parameters(), lr=1e-2, weight_decay=0.1)
    opt2.load_state_dict(ck["opt"])
    sched2 = torch.optim.lr_scheduler.CosineAnnealingLR(opt2, T_max=5)
    sched2.load_state_dict(ck["sched"])
    res = []
    for i in range(2, 5):
        res.append(_train_step(model2, opt2, i))
        sched2.step()
    assert cont == res
    assert sched.get_last_lr() == sched2.get_last_lr()
    for (k, a), (k2, b) in zip(model.state_dict().items(), model2.state_dict().items()):
        assert k == k2 and torch.equal(a, b), k


def test_meta_device_model_has_shapes_without_memory():
    m = TinyGPT(vocab=50000, block=1024, d=256, device="meta")
    n = sum(p.numel() for p in m.parameters())
    d = 256
    expected = 50000 * d + 1024 * d + 2 * d + (d * 3 * d + 3 * d) + (d * d + d)
    assert n == expected
    assert all(p.is_meta and p.dtype == torch.float32 for p in m.parameters())
    assert m.mask.is_meta and m.mask.shape == (1, 1024, 1024)
    logits, loss = m(
        torch.zeros(2, 16, dtype=torch.long, device="meta"), torch.zeros(2, 16, dtype=torch.long, device="meta")
    )
    assert logits.shape == (2, 16, 50000) and logits.is_meta
    assert loss.shape == () and loss.is_meta
    loss.backward()
    assert m.wte.weight.grad.shape == (50000, d) and m.wte.weight.grad.is_meta


def test_dataloader_drop_last_batches_in_order():
    X = torch.arange(20.0).view(10, 2)
    Y = torch.arange(10)
    ds = torch.utils.data.TensorDataset(X, Y)
    dl = torch.utils.data.DataLoader(ds, batch_size=3, shuffle=False, drop_last=True)
    assert len(dl) == 3
    ys = [yb.tolist() for _, yb in dl]
    assert ys == [[0, 1, 2], [3, 4, 5], [6, 7, 8]]
    assert len(torch.utils.data.DataLoader(ds, batch_size=3)) == 4
    xb, _ = next(iter(dl))
    assert xb.shape == (3, 2) and xb.dtype == torch.float32


def test_sgd_linear_regression_converges_to_exact_weights():
    rng = np.random.default_rng(0)
    Xn = rng.standard_normal((64, 3)).astype(np.float32)
    wn = np.array([[1.5], [-2.0], [0.25]], dtype=np.float32)
    X, Y = tensor(Xn), tensor(Xn @ wn + 0.5)
    model = nn.Linear(3, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True)
    for _ in range(200):
        opt.zero_grad()
        F.mse_loss(model(X), Y).backward()
        opt.step()
    np.testing.assert_allclose(model.weight.detach().numpy(), wn.T, atol=1e-4)
    np.testing.assert_allclose(model.bias.item(), 0.5, atol=1e-4)


def test_clip_grad_norm_returns_total_norm_and_scales():
    a = nn.Parameter(torch.zeros(2))
    b = nn.Parameter(torch.zeros(1))
    a.grad = tensor([3.0, 0.0])
    b.grad = tensor([4.0])
    total = nn.utils.clip_grad_norm_([a, b], max_norm=1.0)
    assert math.isclose(total.item(), 5.0, rel_tol=1e-6)
    np.testing.assert_allclose(a.grad.numpy(), [0.6, 0.0], rtol=1e-5)
    np.testing.assert_allclose(b.grad.numpy(), [0.8], rtol=1e-5)
    total = nn.utils.clip_grad_norm_([a, b], max_norm=10.0)
    assert math.isclose(total.item(), 1.0, rel_tol=1e-5)
    np.testing.assert_allclose(b.grad.numpy(), [0.8], rtol=1e-5)  # below max_norm: unchanged


def test_adamw_decay_groups_leave_no_decay_params_alone_with_zero_grad():
    torch.manual_seed(0)
    m = TinyGPT()
    decay = [p for p in m.parameters() if p.dim() >= 2]
    nodecay = [p for p in m.parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.5}, {"params": nodecay, "weight_decay": 0.0}], lr=0.1)
    before = [p.detach().clone() for p in m.parameters()]
    for p in m.parameters():
        p.grad = torch.zeros_like(p)
    opt.step()
    for p, b in zip(m.parameters(), before):
        expect = b * (1 - 0.1 * 0.5) if p.dim() >= 2 else b
        np.testing.assert_allclose(p.detach().numpy(), expect.numpy(), rtol=1e-6, atol=1e-7)


def test_cosine_and_onecycle_closed_form():
    p = nn.Parameter(torch.zeros(1))
    opt = torch.optim.SGD([p], lr=1.0)
    s = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4, eta_min=0.0)
    lrs = []
    for _ in range(4):
        opt.step()
        s.step()
        lrs.append(s.get_last_lr()[0])
    np.testing.assert_allclose(lrs, [(1 + math.cos(math.pi * k / 4)) / 2 for k in range(1, 5)], atol=1e-12)
    opt = torch.optim.SGD([p], lr=1.0, momentum=0.9)
    s = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=10, div_factor=25.0)
    assert math.isclose(opt.param_groups[0]["lr"], 1.0 / 25.0)
    peak = []
    for _ in range(9):
        opt.step()
        s.step()
        peak.append(opt.param_groups[0]["lr"])
    assert max(peak) == pytest.approx(1.0) and peak[-1] < 1e-3


def test_model_to_float64_and_apply():
    m = _net().to(torch.float64)
    assert all(p.dtype == torch.float64 for p in m.parameters())
    assert m[1].running_mean.dtype == torch.float64 and m[1].num_batches_tracked.dtype == torch.int64
    seen = []
    m.apply(lambda mod: seen.append(type(mod).__name__))
    assert seen == ["Linear", "BatchNorm1d", "ReLU", "Linear", "Sequential"]
    out = m(rand((3, 4), 0).double())
    assert out.dtype == torch.float64
