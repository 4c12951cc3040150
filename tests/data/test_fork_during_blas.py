"""Forking (DataLoader workers, os.fork) while another thread runs a matrix product: OpenBLAS's at-fork
handler waits for its thread pool, so a fork in the middle of a BLAS call used to hang for ever.
PyTorch is unaffected; the CPU backend makes a fork wait for the calls in flight."""

import isolated
import pytest

FORK_DURING_MATMUL = """
import os, sys, threading
import mindtorch as L
from mindtorch.utils.data import DataLoader
how = sys.argv[1]
a = L.rand(600, 600)
w = L.rand(600, 600, dtype=L.float64)
stop = threading.Event()

def spin():
    while not stop.is_set():
        a @ a
        L.linalg.inv(w)

threads = [threading.Thread(target=spin) for _ in range(2)]
[t.start() for t in threads]
for _ in range(6):
    if how == "dataloader":
        assert [int(x) for x in DataLoader(list(range(4)), batch_size=None, num_workers=2)] == [0, 1, 2, 3]
    else:
        pid = os.fork()
        if pid == 0:
            os._exit(int((L.ones(64, 64) @ L.ones(64, 64))[0, 0].item() != 64))
        assert os.waitpid(pid, 0)[1] == 0
stop.set()
[t.join() for t in threads]
print("outcome ok")
"""


@pytest.mark.parametrize("how", ["fork", "dataloader"])
def test_forking_while_another_thread_multiplies_matrices_does_not_hang(how):
    r = isolated.run(FORK_DURING_MATMUL, how, timeout=120)
    assert not r.timed_out, "os.fork hung"
    assert r.returncode == 0 and r.lines == {"outcome": "ok"}, r.stderr[-2000:]
    assert (r.shm_files, r.processes) == (0, 0)
