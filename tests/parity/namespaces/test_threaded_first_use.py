"""The first use of a function or Tensor method from several threads at once: PyTorch's are plain
attributes; mindtorch compiles them on first use, which must leave no window where the name is missing
and must hand every thread the same object."""

import subprocess
import sys
import textwrap

import pytest
from helpers import torch_or_skip

torch = torch_or_skip()

_SCRIPT = textwrap.dedent(
    """
    import sys, threading
    import {lib} as lib

    THREADS = 8
    if "{lib}" == "mindtorch":
        functions = sorted(lib._lazy_functions.names())
        methods = sorted(n for n, v in vars(lib.Tensor).items() if type(v).__name__ == "_LazyMethod")
    else:
        functions = ["randn", "zeros", "add", "matmul", "softmax", "where", "cat"]
        methods = ["add", "sum", "exp", "matmul"]
    t = lib.ones(2)
    barrier = threading.Barrier(THREADS)
    seen, errors = [{{}} for _ in range(THREADS)], []

    def work(i):
        barrier.wait()
        try:
            # half the threads walk the names backwards, so each name is raced from both ends
            order = functions if i % 2 else functions[::-1]
            for name in order:
                seen[i][name] = id(getattr(lib, name))
            for name in methods if i % 2 else methods[::-1]:
                seen[i]["Tensor." + name] = id(getattr(lib.Tensor, name))
                getattr(t, name)
            lib.randn(3)
        except Exception as e:
            errors.append(repr(e))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(THREADS)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    same = all(s == seen[0] for s in seen)
    print(len(functions) + len(methods) > 0, errors[:3], same)
    """
)


def _run(lib):
    r = subprocess.run([sys.executable, "-c", _SCRIPT.format(lib=lib)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


@pytest.mark.parametrize("attempt", range(3))
def test_first_use_from_many_threads_matches_pytorch(attempt):
    assert _run("torch") == "True [] True"
    assert _run("mindtorch") == "True [] True"
