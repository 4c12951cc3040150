"""`'dev'` and `'dev:0'` are one device: core hands every backend hook (copy routines, allocator, kernels) the
device with its index, however the user spelled it, so a backend never normalises."""

PROBE = """
import warnings
warnings.simplefilter("ignore")
import numpy as np
import mindtorch as t
from mindtorch.plugins import OPS, backend_for

seen = []


def note(where, x):
    if isinstance(x, t.Tensor):
        x = x.device
    if isinstance(x, t.device):
        seen.append((where, str(x)))


b = backend_for("vault")
copy = b.copy


class Recording:
    def to_host(self, x):
        note("to_host", x)
        return copy.to_host(x)

    def from_host(self, a, dtype, device):
        note("from_host", device)
        return copy.from_host(a, dtype, device)

    def copy_from_host(self, dst, a):
        note("copy_from_host", dst)
        return copy.copy_from_host(dst, a)


b.copy = Recording()
allocate = b.allocator.allocate
b.allocator.allocate = lambda n, d: (note("allocate", d), allocate(n, d))[1]
for q, op in OPS.items():
    k = op.kernels.get("vault")
    if k is not None:
        def wrapped(m, *a, k=k, q=q, **kw):
            for x in [*a, *kw.values()]:
                note("kernel " + q, x)
            return k(m, *a, **kw)
        op.kernels["vault"] = wrapped

CASES = {
    "tensor": lambda s: t.tensor([1.0, 2.0], device=s),
    "as_tensor": lambda s: t.as_tensor([1.0, 2.0], device=s),
    "new_tensor": lambda s: t.ones(2).new_tensor([1.0, 2.0], device=s),
    "zeros": lambda s: t.zeros(2, device=s),
    "empty": lambda s: t.empty(2, device=s),
    "full": lambda s: t.full((2,), 1.0, device=s),
    "arange": lambda s: t.arange(2.0, device=s),
    "linspace": lambda s: t.linspace(0, 1, 2, device=s),
    "eye": lambda s: t.eye(2, device=s)[0],
    "zeros_like": lambda s: t.zeros_like(t.ones(2), device=s),
    "empty_like": lambda s: t.empty_like(t.ones(2), device=s),
    "new_zeros": lambda s: t.ones(2).new_zeros(2, device=s),
    "to": lambda s: t.ones(2).to(s),
    "to(device=)": lambda s: t.ones(2).to(device=s),
    "from_numpy, to": lambda s: t.from_numpy(np.ones(2, np.float32)).to(s),
    "there and back": lambda s: t.ones(2, device=s).cpu().to(s),
}
bad, tried = [], 0
for spelling in ("vault", "vault:0", t.device("vault"), t.device("vault", 0)):
    for name, make in CASES.items():
        seen.clear()
        try:
            x = make(spelling)
            y = x + t.zeros(2, device="vault:0") + t.zeros(2, device="vault")
            tried += 1
            if x.device != t.device("vault", 0) or y.device != x.device:
                bad.append(f"{name}({spelling!r}): on {x.device}")
        except Exception as exc:
            bad.append(f"{name}({spelling!r}): {type(exc).__name__}: {exc}"[:200])
        bad += [f"{name}({spelling!r}): {where} got {d}" for where, d in seen if d != "vault:0"]
emit({"bad": bad, "tried": tried, "hooks": len(seen)})
"""


def test_every_hook_sees_the_device_with_its_index(run_python):
    r = run_python(PROBE, plugins=["vault"])
    assert r.returncode == 0, r
    assert r.result["bad"] == [], "\n".join(r.result["bad"])
    assert r.result["tried"] == 64 and r.result["hooks"] > 0, r.result
