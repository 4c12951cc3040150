"""share_memory_, Module.share_memory and mindtorch.multiprocessing against PyTorch:
tensors sent through queues and to spawned or forked processes share memory with the sender."""

import glob
import os
import subprocess
import sys
import textwrap

from helpers import torch_or_skip

torch = torch_or_skip()

import mindtorch  # noqa: E402
import mindtorch.multiprocessing  # noqa: E402
import pytest  # noqa: E402
from helpers import assert_same  # noqa: E402

HOGWILD = textwrap.dedent("""
    import sys
    import importlib
    L = importlib.import_module(sys.argv[1])
    mp = importlib.import_module(sys.argv[1] + ".multiprocessing")

    def child(q, done):
        t = q.get()
        t.add_(1)
        done.put(float(t.sum()))

    def hog(rank, model):
        with L.no_grad():
            for p in model.parameters():
                p.add_(rank + 1)
        assert all(isinstance(p, L.nn.Parameter) for p in model.parameters())

    def fails(rank):
        raise ValueError("boom")

    if __name__ == "__main__":
        ctx = mp.get_context("spawn")
        q, done = ctx.Queue(), ctx.Queue()
        t = L.zeros(4)
        view = t[1:3]
        p = ctx.Process(target=child, args=(q, done))
        p.start()
        q.put(t)
        print("queue", done.get(), t.tolist(), view.tolist(), t.is_shared())
        p.join()
        m = L.nn.Linear(2, 1)
        with L.no_grad():
            m.weight.zero_(); m.bias.zero_()
        m.share_memory()
        mp.spawn(hog, args=(m,), nprocs=2)
        print("spawn", m.weight.tolist(), m.bias.tolist())
        procs = [mp.Process(target=hog, args=(r, m)) for r in range(2)]
        [x.start() for x in procs]
        [x.join() for x in procs]
        print("fork", m.weight.tolist(), m.bias.tolist())
        try:
            mp.spawn(fails, nprocs=1)
        except Exception as exc:
            print("error", type(exc).__name__, "boom" in str(exc))
""")


def _run(lib, tmp_path):
    script = tmp_path / "hogwild.py"
    script.write_text(HOGWILD)
    r = subprocess.run([sys.executable, str(script), lib], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    return r.stdout


def test_queue_spawn_and_fork_share_memory_like_pytorch(tmp_path):
    before = set(glob.glob("/dev/shm/mindtorch_*"))
    assert _run("mindtorch", tmp_path) == _run("torch", tmp_path)
    assert set(glob.glob("/dev/shm/mindtorch_*")) <= before  # every block was removed with its storage


@pytest.mark.parametrize("lib", [mindtorch, torch])
def test_share_memory_in_place_keeps_values_views_and_identity(lib):
    t = lib.arange(12.0).reshape(3, 4)
    view = t[1:, ::2]
    assert not t.is_shared()
    assert t.share_memory_() is t and t.is_shared() and view.is_shared()
    assert t.untyped_storage().is_shared()
    t.add_(100)
    assert view.tolist() == [[104.0, 106.0], [108.0, 110.0]]
    view.zero_()
    assert t[1].tolist() == [0.0, 105.0, 0.0, 107.0]
    assert t.share_memory_() is t  # already shared: nothing moves


def test_shared_tensor_is_seen_by_a_forked_child():
    if not hasattr(os, "fork"):
        pytest.skip("no fork")
    results = []
    for lib in (mindtorch, torch):
        t = lib.ones(5).share_memory_()
        pid = os.fork()
        if pid == 0:
            t.mul_(3)
            os._exit(0)
        os.waitpid(pid, 0)
        results.append(t)
    assert_same(*results)


def test_module_share_memory_moves_parameters_grads_and_buffers():
    for lib in (mindtorch, torch):
        m = lib.nn.BatchNorm1d(3)
        m.weight.grad = lib.ones(3)
        assert m.share_memory() is m
        assert all(t.is_shared() for t in [m.weight, m.bias, m.weight.grad, m.running_mean, m.running_var])


def test_sharing_strategies():
    mp = mindtorch.multiprocessing
    assert mp.get_sharing_strategy() in mp.get_all_sharing_strategies()
    mp.set_sharing_strategy("file_system")
    with pytest.raises(ValueError):
        mp.set_sharing_strategy("carrier pigeon")
