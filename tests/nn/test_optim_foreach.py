"""The foreach optimizer op (one call per parameter group) equals the single-tensor update bit for bit."""

import mindtorch as torch
import numpy as np
import pytest

CASES = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.2, weight_decay=0.01)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, maximize=True)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, weight_decay=0.1, amsgrad=True)),
    ("Adam", dict(lr=0.01, maximize=True, betas=(0.8, 0.9))),
    ("AdamW", dict(lr=0.01, weight_decay=0.1)),
    ("AdamW", dict(lr=0.01, amsgrad=True)),
]


def _train(name, kw, foreach, dtype):
    torch.manual_seed(0)
    params = [
        torch.randn(5, 4, dtype=dtype).requires_grad_(),
        torch.randn(4, dtype=dtype).requires_grad_(),
        torch.randn(3, dtype=dtype).requires_grad_(),
    ]
    opt = getattr(torch.optim, name)(params, foreach=foreach, **kw)
    x = torch.randn(7, 5, dtype=dtype)
    for step in range(4):
        opt.zero_grad()
        loss = ((x @ params[0] + params[1]) ** 2).sum()
        if step != 1:  # the third parameter gets a gradient from the third step on
            loss = loss + (params[2] * 3).sum() * (step > 1)
        loss.backward()
        opt.step()
    state = [{k: v.numpy().copy() for k, v in opt.state[p].items()} for p in params]
    return [p.detach().numpy().copy() for p in params], state


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("name, kw", CASES)
def test_foreach_equals_single_tensor(name, kw, dtype):
    pf, sf = _train(name, kw, None, dtype)
    ps, ss = _train(name, kw, False, dtype)
    for a, b in zip(pf, ps):
        np.testing.assert_array_equal(a, b)
    assert [sorted(s) for s in sf] == [sorted(s) for s in ss]
    for a, b in zip(sf, ss):
        for k in a:
            np.testing.assert_array_equal(a[k], b[k])


def test_foreach_bumps_versions_of_updated_tensors():
    w = torch.randn(3).requires_grad_()
    opt = torch.optim.Adam([w], lr=0.1)
    (w * 2).sum().backward()
    v0 = w._version_value
    opt.step()
    assert w._version_value > v0


@pytest.mark.parametrize("name, kw", [c for c in CASES if c[0] != "SGD"])
def test_foreach_equals_single_tensor_on_a_large_parameter(name, kw):
    # large enough for the compiled update to share the parameter out across two threads
    def run(foreach):
        torch.manual_seed(1)
        p = torch.randn(300, 512).requires_grad_()
        opt = getattr(torch.optim, name)([p], foreach=foreach, **kw)
        for _ in range(3):
            p.grad = torch.randn(300, 512) * 10
            opt.step()
        return p.detach().numpy().copy(), {k: v.numpy().copy() for k, v in opt.state[p].items()}

    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        (pf, sf), (ps, ss) = run(None), run(False)
    finally:
        torch.set_num_threads(before)
    np.testing.assert_array_equal(pf, ps)
    assert sorted(sf) == sorted(ss)
    for k in sf:
        np.testing.assert_array_equal(sf[k], ss[k])
