"""torch.npu.NPUGraph, torch.npu.graph, graph_pool_handle and make_graphed_callables with PyTorch's CUDA-graph
semantics, on the simulator's ACL Graph: captured work replays bit for bit as it ran eagerly, a GPT training step
included; host reads, random draws and host-side optimizer state are refused while capturing; the private memory
pool keeps the graph's memory away from eager code and goes back once the graph is gone."""

import gc

import mindtorch as torch
import mindtorch.nn as nn
import mindtorch.nn.functional as F
import numpy as np
import pytest
from mindtorch_npu.runtime import AclRuntimeError
from npu_helpers import live
from test_training import GPT

DEV = "npu:0"

# small programs, each a function of two (4, 6) tensors: captured once, replayed on fresh inputs
PROGRAMS = {
    "pointwise": lambda a, b: (a * b + 1).exp().sub(a),
    "matmul": lambda a, b: (a @ b.T).relu(),
    "reduce": lambda a, b: torch.stack([a.sum(0), b.amax(0), (a - b).mean(0)]),
    "softmax": lambda a, b: F.softmax(a, dim=-1) @ b.T,
    "index": lambda a, b: torch.gather(a, 1, b.argsort(dim=1)) * b.flip(1)[:, ::2].repeat(1, 2),
    "layer_norm": lambda a, b: F.layer_norm(a + b, (6,)),
    "inplace": lambda a, b: a.clone().mul_(2).add_(b).clamp_(-1, 1),
}


def _inputs(seed):
    g = np.random.default_rng(seed)
    return [torch.tensor(g.standard_normal((4, 6)), dtype=torch.float32) for _ in range(2)]


@pytest.fixture(autouse=True, scope="module")
def _capture_stream():
    """torch.npu.graph's default capture stream lives as long as the class: destroyed once these tests are done."""
    yield
    stream, torch.npu.graph.default_capture_stream = torch.npu.graph.default_capture_stream, None
    if stream is not None:
        stream.destroy()


@pytest.fixture(autouse=True)
def _on_device_0():
    torch.npu.set_device(0)
    yield
    gc.collect()  # graphs in reference cycles go now, not in the middle of a later test
    torch.npu.synchronize()


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_a_captured_program_replays_as_it_runs_eagerly(name):
    fn = PROGRAMS[name]
    static = [t.to(DEV) for t in _inputs(0)]
    g = torch.npu.NPUGraph()
    with torch.npu.graph(g):
        out = fn(*static)
    for seed in (1, 2, 3):
        fresh = _inputs(seed)
        for s, f in zip(static, fresh):
            s.copy_(f.to(DEV))
        g.replay()
        expected = fn(*[f.to(DEV) for f in fresh])
        assert torch.equal(out.cpu(), expected.cpu())
        np.testing.assert_allclose(out.cpu().numpy(), fn(*fresh).numpy(), rtol=1e-5, atol=1e-6)


def _batches(n):
    g = np.random.default_rng(1)
    out = []
    for _ in range(n):
        data = torch.tensor((g.integers(0, 11, size=(4, 1)) + np.arange(9)) % 11)
        out.append((data[:, :-1].to(DEV), data[:, 1:].to(DEV)))
    return out


def _model():
    torch.manual_seed(0)
    model = GPT().to(DEV)
    return model, torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)


def _train_step(model, opt, x, y):
    opt.zero_grad(set_to_none=True)
    loss = model(x, y)
    loss.backward()
    opt.step()
    return loss


def test_a_gpt_training_step_replays_exactly_as_the_eager_steps():
    data = _batches(8)
    model, opt = _model()
    eager = [_train_step(model, opt, x, y).item() for x, y in data]

    gmodel, gopt = _model()
    sx, sy = (t.clone() for t in data[0])
    side = torch.npu.Stream()
    side.wait_stream(torch.npu.current_stream())
    losses = []
    with torch.npu.stream(side):  # warm-up steps (they create the momentum buffers), on a side stream
        for x, y in data[:3]:
            sx.copy_(x)
            sy.copy_(y)
            losses.append(_train_step(gmodel, gopt, sx, sy).item())
    torch.npu.current_stream().wait_stream(side)
    g = torch.npu.NPUGraph()
    with torch.npu.graph(g):
        static_loss = _train_step(gmodel, gopt, sx, sy)
    for x, y in data[3:]:
        sx.copy_(x)
        sy.copy_(y)
        g.replay()  # forward, backward and the optimizer step: one call
        losses.append(static_loss.item())
    assert losses == eager
    for p, q in zip(model.parameters(), gmodel.parameters()):
        assert torch.equal(p.cpu(), q.cpu())
    g.reset()


def test_make_graphed_callables_on_a_module_with_backward():
    torch.manual_seed(0)
    ref = nn.Sequential(nn.Linear(6, 8), nn.GELU(), nn.Linear(8, 3)).to(DEV)
    graphed = nn.Sequential(nn.Linear(6, 8), nn.GELU(), nn.Linear(8, 3)).to(DEV)
    graphed.load_state_dict(ref.state_dict())
    sample = torch.randn(5, 6, device=DEV, requires_grad=True)
    graphed = torch.npu.make_graphed_callables(graphed, (sample,))
    for seed in (1, 2):
        x = torch.tensor(_inputs(seed)[0][:, :6].numpy().repeat(2, 0)[:5], device=DEV, requires_grad=True)
        xr = x.detach().clone().requires_grad_(True)
        out, expected = graphed(x), ref(xr)
        assert torch.equal(out.cpu(), expected.cpu())
        (out * out).sum().backward()
        (expected * expected).sum().backward()
        assert torch.equal(x.grad.cpu(), xr.grad.cpu())
        for p, q in zip(graphed.parameters(), ref.parameters()):
            assert torch.equal(p.grad.cpu(), q.grad.cpu())
            p.grad = q.grad = None
    graphed.eval()  # the graphs hold the training state: eval runs eagerly
    assert torch.equal(graphed(sample).cpu(), ref(sample).cpu())


def test_make_graphed_callables_on_functions_in_one_pool():
    a = torch.randn(3, 4, device=DEV, requires_grad=True)
    b = torch.randn(4, 2, device=DEV, requires_grad=True)
    f1, f2 = torch.npu.make_graphed_callables(
        (lambda x, w: (x @ w).tanh(), lambda h: (h * h).sum(1)),
        ((a, b), (torch.randn(3, 2, device=DEV, requires_grad=True),)),
    )
    x, w = (t.detach().clone().requires_grad_(True) for t in (a, b))
    out = f2(f1(x, w))
    out.sum().backward()
    xr, wr = (t.detach().clone().requires_grad_(True) for t in (a, b))
    ((xr @ wr).tanh() ** 2).sum(1).sum().backward()
    assert torch.equal(x.grad.cpu(), xr.grad.cpu()) and torch.equal(w.grad.cpu(), wr.grad.cpu())


def test_make_graphed_callables_refuses_what_pytorch_refuses():
    m = nn.Linear(2, 2).to(DEV)
    m.register_forward_hook(lambda *a: None)
    with pytest.raises(AssertionError, match="hooks"):
        torch.npu.make_graphed_callables(m, (torch.randn(1, 2, device=DEV),))
    with pytest.raises(AssertionError, match="only Tensors"):
        torch.npu.make_graphed_callables(lambda x, k: x * k, (torch.randn(2, device=DEV), 3))


@pytest.mark.parametrize(
    "host_read",
    [lambda t: t.sum().item(), lambda t: t.cpu(), lambda t: torch.npu.synchronize(), lambda t: repr(t)],
    ids=["item", "cpu", "synchronize", "print"],
)
def test_host_reads_while_capturing_fail_and_invalidate_the_capture(host_read):
    x = torch.ones(3, device=DEV)
    gc.collect()  # graphs of earlier tests still in reference cycles
    models = live("model_ris")
    g = torch.npu.NPUGraph()
    with pytest.raises(AclRuntimeError) as info, torch.npu.graph(g):
        y = x * 2
        host_read(y)
    assert info.value.code == 107041  # ACL_ERROR_RT_CAPTURE_MODE_BLOCK_ASYNC
    assert not torch.npu.is_current_stream_capturing()
    with pytest.raises(RuntimeError, match="without a preceding successful capture"):
        g.replay()
    assert live("model_ris") == models


def test_random_ops_and_host_side_optimizer_state_are_refused_while_capturing():
    x = torch.ones(8, device=DEV)
    for draw in (lambda: F.dropout(x, 0.5), lambda: torch.rand(3, device=DEV), lambda: x.bernoulli_(0.5)):
        refused = pytest.raises(RuntimeError, match="random numbers cannot be drawn while an NPU graph is capturing")
        with refused, torch.npu.graph(torch.npu.NPUGraph()):
            draw()
    p = nn.Parameter(torch.ones(4, device=DEV))
    opt = torch.optim.AdamW([p])
    p.grad = torch.ones(4, device=DEV)
    opt.step()
    g = torch.npu.NPUGraph()
    with pytest.raises(RuntimeError, match="Adam/AdamW step"), torch.npu.graph(g):
        opt.step()
    assert torch.npu.is_current_stream_capturing() is False


def test_uploads_while_capturing_read_pinned_memory_at_each_replay_and_refuse_the_rest():
    x = torch.zeros(4, device=DEV)
    pinned = torch.ones(4).pin_memory()
    g = torch.npu.NPUGraph()
    with torch.npu.graph(g):
        x.copy_(pinned, non_blocking=True)
        x.mul_(2)
    for value in (3.0, 5.0):
        pinned.fill_(value)
        g.replay()
        torch.npu.synchronize()
        assert x.cpu().tolist() == [2 * value] * 4
    g.reset()
    staged = pytest.raises(RuntimeError, match="pageable host memory cannot be captured")  # reused at once
    with staged, torch.npu.graph(torch.npu.NPUGraph()):
        x.copy_(torch.ones(4), non_blocking=True)
    blocking = pytest.raises(AclRuntimeError)  # a blocking upload synchronizes the capturing stream
    with blocking as info, torch.npu.graph(torch.npu.NPUGraph()):
        torch.tensor([1.0, 2.0], device=DEV)
    assert info.value.code == 107041


def test_capture_api_misuse():
    g = torch.npu.NPUGraph()
    with pytest.raises(RuntimeError, match="non-default stream"):
        g.capture_begin()
    with (
        pytest.raises(RuntimeError, match="Unknown capture error mode"),
        torch.npu.graph(g, capture_error_mode="loose"),
    ):
        pass
    with pytest.raises(RuntimeError, match="before capture_begin"):
        g.capture_end()
    with pytest.raises(RuntimeError, match="pool"):
        g.pool()
    x = torch.zeros(2, device=DEV)
    with torch.npu.graph(g):
        assert torch.npu.is_current_stream_capturing()
        x.add_(1)
    assert not torch.npu.is_current_stream_capturing()
    with pytest.raises(RuntimeError, match="already owns a captured graph"), torch.npu.graph(g):
        pass
    g.replay()
    g.replay()
    assert x.tolist() == [2.0, 2.0]
    import torch_npu

    assert torch_npu.npu.NPUGraph is torch.npu.NPUGraph and torch_npu.npu.graph is torch.npu.graph


def test_the_private_pool_is_not_reused_by_eager_code_and_goes_back_after_reset():
    gc.collect()  # graphs of earlier tests still in reference cycles
    torch.npu.empty_cache()
    base = live("device_allocations")
    x = torch.ones(1000, device=DEV)
    g = torch.npu.NPUGraph()
    with torch.npu.graph(g):
        tmp = x * 3  # freed inside the capture: its block stays in the graph's pool
        out = tmp + 1
        freed = tmp.data_ptr()
        del tmp
    with torch.npu.stream(torch.npu.graph.default_capture_stream):  # the stream the block was freed on
        eager = [torch.empty(1000, device=DEV) for _ in range(4)]  # same size: a shared pool hands `freed` out
    assert freed not in {t.data_ptr() for t in eager}
    g.replay()
    assert out.cpu().tolist() == [4.0] * 1000
    snapshot = {seg["address"]: seg for seg in torch.npu.memory_snapshot()}
    graph_segments = [seg for seg in snapshot.values() if seg["segment_pool_id"] == g.pool()]
    assert graph_segments and any(
        b["address"] == freed and b["state"] == "inactive" for b in graph_segments[0]["blocks"]
    )
    del eager
    g.reset()
    del out, g
    gc.collect()
    torch.npu.empty_cache()
    assert live("device_allocations") == base + 1  # only x's segment is left
    del x
    torch.npu.empty_cache()
    assert live("device_allocations") == base


def test_graphs_share_a_pool_and_replay_in_capture_order():
    pool = torch.npu.graph_pool_handle()
    x = torch.arange(6.0, device=DEV)
    g1, g2 = torch.npu.NPUGraph(), torch.npu.NPUGraph()
    with torch.npu.graph(g1, pool=pool):
        y = x * 2
    with torch.npu.graph(g2, pool=g1.pool()):
        z = y + x
    assert g1.pool() == g2.pool() == pool
    x.copy_(torch.arange(6.0, 12.0).to(DEV))
    g1.replay()
    g2.replay()
    assert z.cpu().tolist() == [3.0 * v for v in range(6, 12)]
    g1.reset()
    g2.reset()


def test_an_out_of_range_index_in_a_replay_raises_at_the_next_host_wait():
    table = torch.randn(5, 3, device=DEV)
    idx = torch.tensor([0, 4], device=DEV)
    g = torch.npu.NPUGraph()
    with torch.npu.graph(g):
        rows = F.embedding(idx, table)
    from mindtorch_npu.kernels._common import BOUNDS

    for _ in range(100):  # unread checks do not pile up: each replay overwrites the last one's result
        g.replay()
    assert len(BOUNDS.pending) == 1
    assert torch.equal(rows.cpu(), table.cpu()[[0, 4]])
    idx.copy_(torch.tensor([1, 7]).to(DEV))
    g.replay()
    with pytest.raises(IndexError):
        torch.npu.synchronize()
    g.reset()


def test_debug_dump_lists_the_recorded_tasks(tmp_path):
    import json

    x = torch.ones(4, device=DEV)
    g = torch.npu.NPUGraph()
    with pytest.raises(RuntimeError, match="without a preceding successful capture"):
        g.debug_dump(tmp_path / "g.json")
    with torch.npu.graph(g):
        x.mul_(3).add_(1)
    g.debug_dump(tmp_path / "g.json")
    assert [t["type"] for t in json.loads((tmp_path / "g.json").read_text())["tasks"]] == ["KERNEL", "KERNEL"]
    g.reset()
