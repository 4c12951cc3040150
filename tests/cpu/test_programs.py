"""End-to-end programs on the CPU backend without PyTorch: training converges, identities hold."""

import math

import mindtorch as torch
import numpy as np


def test_linear_regression_manual_sgd_converges():
    rng = np.random.default_rng(0)
    x = torch.tensor(rng.standard_normal((64, 3)).tolist())
    true_w = torch.tensor([[2.0], [-1.0], [0.5]])
    y = x @ true_w + 0.7
    w = torch.zeros(3, 1, requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    first = None
    for _ in range(200):
        loss = ((x @ w + b - y) ** 2).mean()
        if first is None:
            first = loss.item()
        w.grad = b.grad = None
        loss.backward()
        with torch.no_grad():
            w -= 0.1 * w.grad
            b -= 0.1 * b.grad
    assert loss.item() < 1e-6 * first
    np.testing.assert_allclose(w.detach().numpy().ravel(), [2.0, -1.0, 0.5], atol=1e-3)
    np.testing.assert_allclose(b.item(), 0.7, atol=1e-3)
    assert w.is_leaf and w.requires_grad and not w.grad.requires_grad


def test_logistic_regression_with_modules_and_adam():
    rng = np.random.default_rng(1)
    pts = rng.standard_normal((100, 2))
    labels = (pts[:, 0] + 2 * pts[:, 1] > 0).astype(np.int64)
    x, y = torch.tensor(pts.tolist()), torch.tensor(labels.tolist())
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(2, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2))
    opt = torch.optim.Adam(model.parameters(), lr=0.05)
    for _ in range(100):
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
    with torch.no_grad():
        acc = (model(x).argmax(1) == y).float().mean().item()
    assert acc > 0.95, acc
    assert loss.item() < 0.2


def test_numerical_identities():
    rng = np.random.default_rng(2)
    a = torch.tensor(rng.standard_normal((5, 4)), dtype=torch.float64)
    # exp/log, trig, softmax/logsumexp identities
    np.testing.assert_allclose(torch.log(torch.exp(a)).numpy(), a.numpy(), rtol=1e-12)
    np.testing.assert_allclose((a.sin() ** 2 + a.cos() ** 2).numpy(), 1.0, rtol=1e-12)
    np.testing.assert_allclose(a.softmax(1).sum(1).numpy(), 1.0, rtol=1e-12)
    np.testing.assert_allclose((a.log_softmax(1).exp() - a.softmax(1)).abs().max().item(), 0.0, atol=1e-12)
    np.testing.assert_allclose((a - a.logsumexp(1, keepdim=True)).numpy(), a.log_softmax(1).numpy(), rtol=1e-12)
    # (AB)^T = B^T A^T and einsum agrees with matmul
    b = torch.tensor(rng.standard_normal((4, 3)), dtype=torch.float64)
    np.testing.assert_allclose((a @ b).t().numpy(), (b.t() @ a.t()).numpy(), rtol=1e-12)
    np.testing.assert_allclose(torch.einsum("ij,jk->ik", a, b).numpy(), (a @ b).numpy(), rtol=1e-12)
    # var = E[x^2] - E[x]^2 (biased) and norm^2 = sum of squares
    np.testing.assert_allclose(a.var(1, unbiased=False).numpy(), ((a * a).mean(1) - a.mean(1) ** 2).numpy(), rtol=1e-10)
    np.testing.assert_allclose(a.norm().item() ** 2, (a * a).sum().item(), rtol=1e-12)
    # floor division and remainder reconstruct the dividend
    i = torch.arange(-7, 8)
    assert bool(((i // 3) * 3 + i % 3 == i).all())
    assert bool(((i % 3) >= 0).all())


def test_gradient_matches_finite_differences_for_composite_graph():
    rng = np.random.default_rng(3)
    x0 = rng.standard_normal((3, 4))

    def f(x):
        h = x.t() @ x
        return (h.tanh() * x.sum(0, keepdim=True)).logsumexp(1).sum() + x.max(1).values.pow(2).sum()

    x = torch.tensor(x0, dtype=torch.float64, requires_grad=True)
    f(x).backward()
    eps = 1e-6
    num = np.zeros_like(x0)
    for k in range(x0.size):
        d = np.zeros(x0.size)
        d[k] = eps
        d = d.reshape(x0.shape)
        hi = f(torch.tensor(x0 + d, dtype=torch.float64)).item()
        lo = f(torch.tensor(x0 - d, dtype=torch.float64)).item()
        num.flat[k] = (hi - lo) / (2 * eps)
    np.testing.assert_allclose(x.grad.numpy(), num, rtol=1e-5, atol=1e-7)


def test_views_share_memory_and_autograd_through_inplace():
    base = torch.zeros(4, 4)
    base.t()[0].fill_(1.0)  # column 0
    base.diagonal().add_(2.0)
    base[1:3, 1:3] *= 10
    expected = np.zeros((4, 4), dtype=np.float32)
    expected[:, 0] = 1
    expected[np.arange(4), np.arange(4)] += 2
    expected[1:3, 1:3] *= 10
    np.testing.assert_array_equal(base.numpy(), expected)

    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 2
    y[1:].mul_(y[:2].detach().clone())  # y = [2, 4*2, 6*4]
    np.testing.assert_allclose(y.detach().numpy(), [2.0, 8.0, 24.0])
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0, 8.0])


def test_generation_loop_is_deterministic_under_seed():
    def generate(seed):
        torch.manual_seed(seed)
        logits = torch.tensor([[0.0, 1.0, 2.0, 3.0]])
        seq = torch.zeros(1, 1, dtype=torch.int64)
        with torch.no_grad():
            for _ in range(10):
                v, _ = logits.topk(2)
                masked = logits.masked_fill(logits < v[:, -1:], -math.inf)
                nxt = torch.multinomial(masked.softmax(-1), 1)
                seq = torch.cat([seq, nxt], 1)
        return seq

    a, b = generate(5), generate(5)
    assert a.shape == (1, 11) and a.dtype == torch.int64
    assert a.tolist() == b.tolist()
    assert set(a[0, 1:].tolist()) <= {2, 3}
