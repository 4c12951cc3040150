"""Shared memory that cannot leak: tensors through Queue, Pipe and Pool arrive even when the sender
dropped them at once, nothing is left in /dev/shm whoever dies, errors are PyTorch's. Each case runs
in its own process tree under a timeout (isolated.run), with its leftovers counted."""

import gc
import importlib.util

import isolated
import mindtorch
import mindtorch.multiprocessing as mp
import pytest

LIBS = ["mindtorch"] + (["torch"] if importlib.util.find_spec("torch") else [])

TEMPORARIES = """
import sys, importlib
L = importlib.import_module(sys.argv[1])
mp = importlib.import_module(sys.argv[1] + ".multiprocessing")

def produce(q, n, done):
    for k in range(n):
        q.put(L.full((3,), float(k)))  # a temporary: nothing here keeps it
    q.put(None)
    done.wait()

def pipe_produce(conn, n, done):
    for k in range(n):
        conn.send(L.arange(float(k), k + 2.0))
    conn.send(None)
    done.wait()

def square(k):
    return L.full((2,), float(k * k))

if __name__ == "__main__":
    ctx = mp.get_context(sys.argv[2])
    q, done = ctx.Queue(), ctx.Event()
    p = ctx.Process(target=produce, args=(q, 40, done))
    p.start()
    got = []
    while (t := q.get()) is not None:
        got.append(t[0].item())
    done.set(); p.join()
    print("queue", got == [float(k) for k in range(40)])
    a, b = ctx.Pipe()
    done = ctx.Event()
    p = ctx.Process(target=pipe_produce, args=(b, 30, done))
    p.start()
    got = []
    while (t := a.recv()) is not None:
        got.append(t.tolist())
    done.set(); p.join()
    print("pipe", got == [[float(k), k + 1.0] for k in range(30)])
    with ctx.Pool(2) as pool:
        print("pool", [t.tolist() for t in pool.map(square, range(12))] == [[k * k * 1.0] * 2 for k in range(12)])
"""


@pytest.mark.parametrize("method", ["spawn", "fork"])
@pytest.mark.parametrize("lib", LIBS)
def test_temporaries_put_on_queue_pipe_and_pool_are_delivered(lib, method):
    r = isolated.run(TEMPORARIES, lib, method, timeout=120)
    assert not r.timed_out and r.returncode == 0, r.stderr[-3000:]
    assert r.lines == {"queue": "True", "pipe": "True", "pool": "True"}
    assert (r.shm_files, r.processes) == (0, 0)


AT_FD_LIMIT = """
import sys, importlib, resource
L = importlib.import_module(sys.argv[1])
keep = [L.ones(4).share_memory_()]  # the machinery a first share needs is loaded
resource.setrlimit(resource.RLIMIT_NOFILE, (fds() + 8, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
t = None
try:
    for k in range(100):
        t = L.full((4,), float(k))
        t.share_memory_()
        keep.append(t)
    print("error none")
except Exception as e:
    print("error", type(e).__name__)
    print("unshared", t.is_shared())
    print("values", t.tolist() == [float(k)] * 4)
del keep, t
import gc; gc.collect()
"""


@pytest.mark.parametrize("lib", LIBS)
def test_share_memory_at_the_descriptor_limit_raises_runtime_error_and_leaves_nothing(lib):
    r = isolated.run(AT_FD_LIMIT, lib, timeout=60)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.lines == {"error": "RuntimeError", "unshared": "False", "values": "True"}
    assert (r.shm_files, r.processes) == (0, 0)


OWNER_KILLED = """
import os, signal, sys, importlib
L = importlib.import_module(sys.argv[1])
mp = importlib.import_module(sys.argv[1] + ".multiprocessing")
mp.set_sharing_strategy(sys.argv[2])
ts = [L.ones(1000).share_memory_() for _ in range(4)]
print("shared", all(t.is_shared() for t in ts), flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


@pytest.mark.parametrize("strategy", ["file_descriptor", "file_system"])
def test_a_killed_owner_leaves_no_shared_memory_behind(strategy):
    r = isolated.run(OWNER_KILLED, "mindtorch", strategy, timeout=60)
    assert r.lines == {"shared": "True"} and r.returncode != 0
    assert (r.shm_files, r.processes) == (0, 0)


def test_sharing_strategy_is_pytorchs_and_restored():
    assert mp.get_sharing_strategy() == "file_descriptor"  # PyTorch's default on Linux
    assert mp.get_all_sharing_strategies() == {"file_descriptor", "file_system"}
    with pytest.raises(AssertionError):  # PyTorch asserts
        mp.set_sharing_strategy("carrier pigeon")
    mp.set_sharing_strategy("file_system")
    try:
        t = mindtorch.arange(4.0).share_memory_()
        assert t.is_shared() and t.tolist() == [0.0, 1.0, 2.0, 3.0]
    finally:
        mp.set_sharing_strategy("file_descriptor")


def test_resize_of_a_shared_tensor_raises_and_keeps_it_shared():
    t = mindtorch.arange(3.0).share_memory_()
    with pytest.raises(RuntimeError, match="Trying to resize storage that is not resizable"):
        t.resize_(10)
    assert t.is_shared() and t.shape == (3,) and t.tolist() == [0.0, 1.0, 2.0]
    t.resize_(2)  # within the storage: nothing to grow
    assert t.is_shared() and t.tolist() == [0.0, 1.0]


def test_share_memory_needs_no_scan_of_every_object(monkeypatch):
    calls = []
    real = gc.get_referrers
    monkeypatch.setattr(gc, "get_referrers", lambda *a: calls.append(a) or real(*a))
    t = mindtorch.ones(3)
    t.add_(1)  # its host view is cached
    t.share_memory_()
    assert calls == []
    t.add_(1)
    assert t.tolist() == [3.0] * 3 and t.is_shared()
    # a view elsewhere holds the storage: its cache is found and dropped too
    u = mindtorch.zeros(4)
    v = u[1:3]
    v.add_(0)
    u.share_memory_()
    assert len(calls) == 1
    v.add_(5)
    assert u.tolist() == [0.0, 5.0, 5.0, 0.0] and v.is_shared()
