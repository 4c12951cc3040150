"""Structural checks: what per-op samples cannot see (aliasing, autograd, copies, memory, random
state, errors, a training step). Each returns (status, detail)."""

import gc

import numpy as np

import mindtorch
from mindtorch._backends.registry import backend_for
from mindtorch._dtype import TENSOR_DTYPES

from .report import FAILED, PASSED
from .runner import NA, Mismatch, compare, host_array, to_device, within_half_rounding

CHECKS = {}
ALL_DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64")
# the rest of the dtypes a tensor can hold: the wide unsigned integers and the complex ones
MORE_DTYPES = tuple(d.name for d in TENSOR_DTYPES if d.name not in ALL_DTYPES)


def check(fn):
    name = fn.__name__.lstrip("_")

    def run(device, dataless):
        try:
            res = fn(device, dataless)
        except Mismatch as m:
            return FAILED, str(m)
        except Exception as exc:
            return FAILED, f"{type(exc).__name__}: {exc}"[:300]
        return res if isinstance(res, tuple) else (PASSED, res or "")

    CHECKS[name] = run
    return run


def _expect(cond, msg):
    if not cond:
        raise Mismatch(msg)


def _base(shape=(4, 6), dtype=mindtorch.float32):
    return (mindtorch.arange(float(np.prod(shape))).reshape(shape) * 0.5 - 3).to(dtype)


@check
def _views_and_inplace(device, dataless):
    """Views share memory with their base; in-place ops write through them and bump the version."""
    values = not dataless
    outs = {}
    for dev in (mindtorch.device("cpu"), device):
        x = _base().to(dev)
        t = x.t()
        n = x.narrow(1, 1, 3)
        d = x[::2, 1:]
        t.mul_(2)
        n.add_(1)
        d.fill_(7)
        x[0, 0] = -1
        x.view(2, 12)[1].zero_()
        e = mindtorch.ones(3, device=dev).expand(2, 3)
        _expect(e.stride() == (0, 1), f"expand on {dev}: stride {e.stride()}")
        ver = x._version.value if x._version is not None else 0
        _expect(t.untyped_storage() is x.untyped_storage(), f"a view on {dev} does not share its base's storage")
        outs[dev.type] = (x, t, n, d, ver)
    cx, ct, cn, cd, cver = outs["cpu"]
    x, t, n, d, ver = outs[device.type]
    for name, r, o in (("base", cx, x), ("transpose view", ct, t), ("narrow view", cn, n), ("strided view", cd, d)):
        compare(r, o, device, values, name)
    _expect(ver == cver, f"version counter {ver}, expected {cver} after 5 in-place writes")
    return "views, narrow, strided slices, setitem, in-place through views, version counter"


@check
def _autograd(device, dataless):
    """Gradients of a small graph computed on the device match the cpu's, and live on the device."""
    grads = {}
    for dev in (mindtorch.device("cpu"), device):
        w = _base((3, 4)).to(dev).requires_grad_()
        x = (_base((2, 3)) * 0.1).to(dev).requires_grad_()
        h = mindtorch.tanh(x @ w)
        y = (h * h.sigmoid()).sum(1)
        z = y.exp().mean() + (w[:, 1:] ** 2).sum()
        z.backward()
        grads[dev.type] = (w.grad, x.grad, z)
    for k, name in enumerate(("weight grad", "input grad", "loss")):
        compare(grads["cpu"][k], grads[device.type][k], device, not dataless, name)
    return "matmul, tanh, sigmoid, exp, pow, indexing: values and devices of gradients"


@check
def _copies(device, dataless):
    """Host<->device and device<->device copies in the promotion table's dtypes, strided views and casts."""
    return _copies_in(device, dataless, ALL_DTYPES)


@check
def _more_copies(device, dataless):
    """The same copies in the wide unsigned integers and the complex dtypes."""
    return _copies_in(device, dataless, MORE_DTYPES)


def _copies_in(device, dataless, dtypes):
    src = mindtorch.arange(24.0).reshape(4, 6) % 5
    n = 0
    others = [device]
    count = backend_for(device.type).device_count()
    if device.type not in ("cpu", "meta") and count > 1:
        others.append(mindtorch.device(device.type, 1 if device.index != 1 else 0))
    for name in dtypes:
        dt = getattr(mindtorch, name)
        h = src.to(dt)[::2, 1::2]
        v = h.to(device)
        _expect(v.device == device and v.dtype is dt and tuple(v.shape) == (2, 3), f"to({device}) of {name}")
        if dataless:
            continue
        compare(h, v, device, True, f"host->device {name} strided")
        compare(h, v.to("cpu"), mindtorch.device("cpu"), True, f"device->host {name}")
        w = mindtorch.zeros(2, 3, dtype=mindtorch.float32, device=device)
        w.copy_(h)
        compare(h.float(), w, device, True, f"copy_ host {name} -> device float32")
        out = mindtorch.zeros(4, 6, dtype=dt)
        out[::2, 1::2].copy_(v)
        compare(h, out[::2, 1::2], mindtorch.device("cpu"), True, f"copy_ device {name} -> host strided view")
        for other in others:
            u = v.to(other)
            compare(h, u, other, True, f"device->device {name} ({device} -> {other})")
            dst = mindtorch.zeros(4, 6, dtype=dt, device=other)
            dst[1::2, ::2].copy_(v)
            compare(h, dst[1::2, ::2], other, True, f"copy_ into a strided view on {other} ({name})")
        n += 1
    return f"{len(dtypes)} dtypes, {len(others)} device(s)" + (" (shapes only)" if dataless else "")


def _in_use(device):
    gc.collect()
    return backend_for(device.type).allocator.bytes_in_use(device)


@check
def _allocator(device, dataless):
    """Every byte a computation allocates is back once its tensors are gone."""
    base = _in_use(device)
    x = mindtorch.ones(64, 64, device=device)
    grown = _in_use(device)
    y = (x @ x).relu().sum(0)
    z = mindtorch.cat([x, x]).t().contiguous()
    del x, y, z
    after = _in_use(device)
    _expect(after == base, f"{after - base} bytes still in use after freeing everything (baseline {base})")
    if not dataless and grown <= base:
        return NA, f"the allocator reports no growth for a 16 KiB tensor ({base} -> {grown} bytes)"
    return f"baseline {base} bytes, back to it after allocating {grown - base} bytes"


@check
def _random(device, dataless):
    """manual_seed makes the device's draws reproducible; a different seed draws differently."""

    def draw(seed):
        mindtorch.manual_seed(seed)
        return [
            mindtorch.rand(5, device=device),
            mindtorch.randn(2, 3, device=device),
            mindtorch.randint(0, 100, (6,), device=device),
        ]

    try:
        a, b, c = draw(7), draw(7), draw(8)
    except NotImplementedError as exc:
        return NA, f"the device draws no random numbers ({exc})"
    for k in range(3):
        compare(a[k], b[k], device, not dataless, f"draw {k} after manual_seed(7) twice")
    if not dataless:
        _expect(not np.array_equal(host_array(a[1]), host_array(c[1])), "seeds 7 and 8 draw the same numbers")
    return "rand, randn, randint under manual_seed"


def _raises(fn):
    try:
        fn()
    except Exception as exc:
        return type(exc)
    return None


@check
def _bad_input(device, dataless):
    """Bad input raises PyTorch's exception class, as the cpu does, and changes nothing."""
    cases = [
        ("add of unbroadcastable shapes", lambda d, x: x + mindtorch.ones(5, device=d)),
        ("in-place add_ that would broadcast self", lambda d, x: x[:1].add_(mindtorch.ones(3, 4, device=d))),
        ("matmul of mismatched shapes", lambda d, x: x @ x),
        # read back: an asynchronous device reports a bad index at the next synchronization, as CUDA does
        ("index_select out of range", lambda d, x: host_array(x.index_select(0, mindtorch.tensor([5]).to(d))), "data"),
        ("view of an impossible shape", lambda d, x: x.view(5, 5)),
        ("float into an int tensor in place", lambda d, x: x.to(mindtorch.int64).mul_(0.5)),
        ("copy_ of an unbroadcastable source", lambda d, x: x.copy_(mindtorch.ones(2, 2, device=d))),
        ("a tensor of another device", lambda d, x: x + mindtorch.ones(3, 4) if d.type != "cpu" else x + x.to("meta")),
    ]
    bad = []
    for name, fn, *needs in cases:
        if needs and dataless:
            continue  # the error depends on values a data-less device does not have
        want = _raises(lambda fn=fn: fn(mindtorch.device("cpu"), _base((3, 4))))
        x = _base((3, 4)).to(device)
        before = None if dataless else host_array(x).copy()
        used = _in_use(device)
        got = _raises(lambda fn=fn, x=x: fn(device, x))
        if got is None or want is None or not issubclass(got, want):
            bad.append(
                f"{name}: cpu raises {getattr(want, '__name__', None)}, "
                f"{device.type} {getattr(got, '__name__', 'nothing')}"
            )
            continue
        if before is not None and not np.array_equal(before, host_array(x)):
            bad.append(f"{name}: the input changed")
        if _in_use(device) != used:
            bad.append(f"{name}: allocator not back to where it was")
    _expect(not bad, "; ".join(bad))
    return f"{len(cases)} kinds of bad input"


@check
def _training_step(device, dataless):
    """An MLP (Linear, ReLU, cross_entropy, AdamW) trains on the device as on the cpu."""
    nn, F = mindtorch.nn, mindtorch.nn.functional
    mindtorch.manual_seed(0)
    ref = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 4))
    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 4))
    model.load_state_dict(ref.state_dict())
    model.to(device)
    x = mindtorch.linspace(-2, 2, 48).reshape(8, 6)
    y = mindtorch.tensor([0, 1, 2, 3, 3, 2, 1, 0])
    losses = {}
    for name, m, xs, ys in (("cpu", ref, x, y), (device.type, model, to_device(x, device), to_device(y, device))):
        opt = mindtorch.optim.AdamW(m.parameters(), lr=0.05, weight_decay=0.01)
        for _ in range(3):
            opt.zero_grad()
            loss = F.cross_entropy(m(xs), ys)
            loss.backward()
            opt.step()
        losses[name] = loss
    compare(losses["cpu"], losses[device.type], device, not dataless, "loss after 3 steps")
    for k, (p, q) in enumerate(zip(ref.parameters(), model.parameters())):
        compare(p.detach(), q.detach(), device, not dataless, f"parameter {k} after 3 steps")
    return "3 AdamW steps of a 2-layer MLP match the cpu"


@check
def _device_spelling(device, dataless):
    """`dev` and `dev:N` (N the current index), as strings or device objects, are one device: tensors made
    with each spelling report the same device and mix in one op."""
    spellings = [device.type, mindtorch.device(device.type)]
    if device.index is not None:
        spellings += [str(device), device]
    makers = {
        "tensor": lambda d: mindtorch.tensor([1.0, 2.0], device=d),
        "zeros": lambda d: mindtorch.zeros(2, device=d),
        "full": lambda d: mindtorch.full((2,), 0.5, device=d),
        "arange": lambda d: mindtorch.arange(2.0, device=d),
        "to": lambda d: mindtorch.ones(2).to(d),
        "zeros_like": lambda d: mindtorch.zeros_like(mindtorch.ones(2), device=d),
        "new_tensor": lambda d: mindtorch.ones(2).new_tensor([3.0, 4.0], device=d),
    }
    made = []
    for spelling in spellings:
        for name, make in makers.items():
            t = make(spelling)
            _expect(t.device == device, f"{name}(device={spelling!r}) is on {t.device}, expected {device}")
            made.append(t)
    total = made[0]
    for t in made[1:]:
        total = total + t
    _expect(total.device == device, f"a sum over every spelling is on {total.device}")
    ref = None
    for _ in spellings:
        for make in makers.values():
            ref = make("cpu") if ref is None else ref + make("cpu")
    compare(ref, total, device, not dataless, "a sum over every spelling")
    return f"{len(spellings)} spellings x {len(makers)} ways to make a tensor, mixed in one sum"


def _version_deltas(fn, sample):
    tensors = [t for t in _leaves((sample.args, sample.kwargs))]
    before = [t._version_value for t in tensors]
    fn(*sample.args, **sample.kwargs)
    return [t._version_value - b for t, b in zip(tensors, before)]


def _leaves(x):
    if isinstance(x, mindtorch.Tensor):
        return [x]
    if isinstance(x, dict):
        x = list(x.values())
    if isinstance(x, (list, tuple)):
        return [t for a in x for t in _leaves(a)]
    return []


@check
def _versions(device, dataless):
    """After every op that writes its arguments (in-place ops, the multi-tensor optimizer steps, batch norm's
    running statistics), each tensor argument's version counter moved as on the cpu."""
    from mindtorch.ops.codegen import make_callable
    from mindtorch.ops.registry import OPS

    from .runner import MISSING, _reference_mode, _samples, coverage

    bad, n = [], 0
    for q in sorted(q for q, op in OPS.items() if op.mutated and op.family != "random"):
        op = OPS[q]
        if coverage(op, device.type) == MISSING:
            continue
        fn = make_callable([op], False)
        mode = _reference_mode(q, fn)
        for ref, dev in zip(_samples(q, mode), _samples(q, mode)):
            try:
                want = _version_deltas(fn, ref)
            except Exception:
                continue  # the cpu refuses this sample: the next one
            try:
                got = _version_deltas(fn, type(dev)(*to_device(dev.args, device), **to_device(dev.kwargs, device)))
            except NotImplementedError:
                break  # the device lacks it (or needs data): the per-op report says so
            n += 1
            if got != want:
                bad.append(f"{q}: versions moved by {got}, on cpu by {want}")
            break
    _expect(not bad, "; ".join(bad[:5]))
    return f"{n} writing ops: every argument's version counter moves as on the cpu"


def _through_decomposition(op, device, sample):
    """`op` on `sample` with the device's kernel set aside: its composite, run on the device."""
    from mindtorch.ops.codegen import make_callable

    own = op.kernels.pop(device.type)
    try:
        return make_callable([op], False)(*sample.args, **sample.kwargs)
    finally:
        op.kernels[device.type] = own


def _overrides(device):
    from mindtorch.ops.registry import OPS

    return sorted(
        q for q, op in OPS.items() if op.composite is not None and op.view_fn is None and device.type in op.kernels
    )


def _override_pairs(q, fn, device):
    """(where, sample for the kernel, sample for the decomposition), both on the device: the op's samples and
    its dtype variants."""
    from .runner import _reference_mode, _samples
    from .variants import dtype_variants

    mode = _reference_mode(q, fn)
    pairs = [(f"sample {k}", a, b) for k, (a, b) in enumerate(zip(_samples(q, mode), _samples(q, mode)))]
    pairs += [(f"in {d.name}", a, b) for d, a, b in dtype_variants(q, fn, mode)]
    for where, a, b in pairs:
        try:
            moved = [type(s)(*to_device(s.args, device), **to_device(s.kwargs, device)) for s in (a, b)]
        except Exception:
            continue  # a dtype the device does not hold: the per-op report says so
        yield where, *moved


def _agrees_with_decomposition(q, device, dataless):
    """None, or how the device's kernel for composite `q` disagrees with the composite on the device."""
    from mindtorch.ops.codegen import make_callable
    from mindtorch.ops.registry import OPS

    op = OPS[q]
    fn = make_callable([op], False)
    values = not dataless and op.family != "random"
    for where, ks, cs in _override_pairs(q, fn, device):
        try:
            want = fn(*ks.args, **ks.kwargs)
        except Exception:
            continue  # the kernel refuses it: the per-op report holds the kernel to the cpu
        try:
            got = _through_decomposition(op, device, cs)
        except NotImplementedError:
            return None  # the decomposition needs a kernel this device lacks: it cannot disagree here
        except Exception as exc:
            return f"{q} {where}: the kernel computes, the decomposition raises {type(exc).__name__}: {exc}"[:200]
        try:
            compare(want, got, device, values, f"{q} {where}: decomposition")
        except Mismatch as m:
            if not within_half_rounding(want, got):
                return str(m)
    return None


@check
def _overridden_composites(device, dataless):
    """A kernel registered under a composite's name replaces the composite on this device: on every sample
    (and dtype) it must agree with the decomposition it replaces."""
    names = _overrides(device)
    bad = [m for m in (_agrees_with_decomposition(q, device, dataless) for q in names) if m]
    _expect(not bad, "; ".join(bad[:5]) + (f" (and {len(bad) - 5} more)" if len(bad) > 5 else ""))
    return f"{len(names)} composites with a kernel of their own agree with their decompositions"
