"""The scripts of the DataLoader and queue fault cases, and the generated list of cases.

A DataLoader case is (fault, payload, ending): a worker raises, is killed or hangs at sample 9 (or
nothing happens); batches carry float32 tensors, 2 MiB bfloat16 tensors or 1 MiB strings (pickled);
the main process breaks after the first batch, reads to the end, is interrupted (SIGINT) or runs
cut-short epochs on persistent workers. A queue case kills a producer with tensors in flight. Each
script prints `outcome` (ok or the exception class), `seconds` and `fds` (descriptors it gained).
"""

import itertools
from dataclasses import dataclass

LOADER = r"""
import gc, importlib, os, signal, sys, threading, time
lib, fault, payload, ending, method = sys.argv[1:6]
L = importlib.import_module(lib)
data = importlib.import_module(lib + ".utils.data")


class Faulty(data.Dataset):
    def __len__(self):
        return 48

    def __getitem__(self, i):
        if i == 9:
            if fault == "raise":
                raise ValueError("bad sample 9")
            if fault == "kill":
                os.kill(os.getpid(), signal.SIGKILL)
            if fault == "hang":
                time.sleep(3600)
        if payload == "tensor":
            return L.full((64, 256), float(i))
        if payload == "bf16":
            return L.full((1024, 1024), float(i), dtype=L.bfloat16)
        return "x" * (1 << 20) + str(i)


def loader(**kw):
    ctx = None if method == "default" else method
    return data.DataLoader(Faulty(), batch_size=4, num_workers=2, timeout=3 if fault == "hang" else 0,
                           multiprocessing_context=ctx, **kw)


def check(b):
    first = b[0] if payload == "pickle" else b[0].flatten()[0].item()
    assert first in (0.0, "x" * (1 << 20) + "0") or isinstance(first, (float, str))


def run():
    if ending == "persistent":
        dl = loader(persistent_workers=True)
        for _ in range(4):  # epochs cut short
            for b in dl:
                check(b)
                break
        del dl
        return
    if ending == "sigint":
        signal.setitimer(signal.ITIMER_REAL, 0)
        timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    for k, b in enumerate(loader()):
        check(b)
        if ending == "break":
            break
        if ending == "sigint" and k == 0:
            timer.start()
            time.sleep(5)  # interrupted here


if method == "spawn":  # multiprocessing's resource tracker: started once, kept for the process's life
    from multiprocessing import resource_tracker
    resource_tracker.ensure_running()
fds_before = fds()
start = time.monotonic()
try:
    run()
    outcome = "ok"
except BaseException as e:
    outcome = type(e).__name__
seconds = time.monotonic() - start
gc.collect()
print("outcome", outcome)
print("seconds", round(seconds, 2))
print("fds", fds() - fds_before)
"""

PRODUCER_DEATH = r"""
import gc, importlib, os, queue, signal, sys, time
lib, method = sys.argv[1:3]
L = importlib.import_module(lib)
mp = importlib.import_module(lib + ".multiprocessing")


def produce(q):
    for k in range(10):
        q.put(L.full((256,), float(k)))
    time.sleep(0.5)
    os.kill(os.getpid(), signal.SIGKILL)  # dies with tensors in flight


if __name__ == "__main__":
    if method == "spawn":  # multiprocessing's resource tracker: started once, kept for the process's life
        from multiprocessing import resource_tracker
        resource_tracker.ensure_running()
    fds_before = fds()
    start = time.monotonic()
    ctx = mp.get_context(method)
    q = ctx.Queue()
    p = ctx.Process(target=produce, args=(q,))
    p.start()
    p.join()
    got = errors = 0
    while True:
        try:
            t = q.get(timeout=2)
            got += 1
            del t
        except queue.Empty:
            break
        except Exception:  # its blocks went with it
            errors += 1
    q.close()
    q.join_thread()
    del q, p
    gc.collect()
    print("outcome", "ok" if got + errors == 10 else f"lost{10 - got - errors}")
    print("seconds", round(time.monotonic() - start, 2))
    print("fds", fds() - fds_before)
"""


@dataclass(frozen=True)
class Case:
    kind: str  # "loader" or "producer"
    args: tuple
    expect: str  # the outcome PyTorch gives

    @property
    def name(self):
        return "-".join((self.kind, *self.args))

    @property
    def script(self):
        return LOADER if self.kind == "loader" else PRODUCER_DEATH


FAULT_ERROR = {"none": "ok", "raise": "ValueError", "kill": "RuntimeError", "hang": "RuntimeError"}
PAYLOADS = ("tensor", "bf16", "pickle")


def cases():
    """Every case of the sweep, generated."""
    out = []
    for fault, payload, ending in itertools.product(FAULT_ERROR, PAYLOADS, ("break", "full")):
        expect = "ok" if ending == "break" else FAULT_ERROR[fault]
        out.append(Case("loader", (fault, payload, ending, "default"), expect))
    for payload in PAYLOADS:
        out.append(Case("loader", ("none", payload, "sigint", "default"), "KeyboardInterrupt"))
        out.append(Case("loader", ("raise", payload, "persistent", "default"), "ok"))
    out.append(Case("loader", ("raise", "bf16", "full", "spawn"), "ValueError"))
    out.append(Case("loader", ("kill", "tensor", "full", "spawn"), "RuntimeError"))
    for method in ("fork", "spawn"):
        out.append(Case("producer", (method,), "ok"))
    return out
