"""Out-of-range indices on the npu: every indexing op raises the class PyTorch raises and changes nothing, for
each index just past either end (an op that writes through its index before it writes, one that only reads at
the next synchronization, as CUDA reports device asserts); in-range negative indices give PyTorch's values. ACLNN's indexing operators
do not check their indices (the simulator, like the device, silently reads or writes some other element), so
these tests fail for any kernel that launches without checking: the last test proves that for each op."""

import mindtorch as torch
import mindtorch_npu.kernels.indexing as indexing_kernels
import mindtorch_npu.kernels.nn as nn_kernels
import numpy as np
import pytest

pt = pytest.importorskip("torch")  # the oracle: PyTorch's error class for each op and index

N = 3  # the size of the indexed dim


def _x(lib=torch):
    return lib.arange(12.0).reshape(N, 4)


def _i(x, v, *shape):
    """Index value v on x's device (as a tensor of `shape`, default (1,)), from x's library."""
    lib = torch if isinstance(x, torch.Tensor) else pt
    return lib.tensor([v]).reshape(*(shape or (1,))).to(x.device)


def _ones(x, *shape):
    lib = torch if isinstance(x, torch.Tensor) else pt
    return lib.ones(*shape).to(x.device)


def _embedding(x, v):
    lib = torch if isinstance(x, torch.Tensor) else pt
    return lib.nn.functional.embedding(_i(x, v), x)


# name -> fn(x, index value)
OPS = {
    "index_select": lambda x, v: x.index_select(0, _i(x, v)),
    "gather": lambda x, v: x.gather(0, _i(x, v, 1, 1)),
    "scatter.src": lambda x, v: x.scatter(0, _i(x, v, 1, 1), _ones(x, 1, 1)),
    "scatter_.src": lambda x, v: x.scatter_(0, _i(x, v, 1, 1), _ones(x, 1, 1)),
    "scatter.value": lambda x, v: x.scatter(0, _i(x, v, 1, 1), 2.0),
    "scatter_add": lambda x, v: x.scatter_add(0, _i(x, v, 1, 1), _ones(x, 1, 1)),
    "scatter_reduce": lambda x, v: x.scatter_reduce(0, _i(x, v, 1, 1), _ones(x, 1, 1), "sum"),
    # float32 sums, the one form Atlas A2 / A3 reduce on the device (the rest run on the host)
    "scatter_reduce_": lambda x, v: x.scatter_reduce_(0, _i(x, v, 1, 1), _ones(x, 1, 1), "sum"),
    "index": lambda x, v: x[_i(x, v)],
    "index (second of two, strided)": lambda x, v: x.t()[_i(x, 0), _i(x, v)],
    "index_put_": lambda x, v: x.index_put_((_i(x, v),), _ones(x, 4)),
    "index_put (accumulate)": lambda x, v: x.index_put((_i(x, v),), _ones(x, 4), True),
    "setitem": lambda x, v: x.__setitem__(_i(x, v), 5.0),
    "index_add": lambda x, v: x.index_add(0, _i(x, v), _ones(x, 1, 4)),
    "index_add_": lambda x, v: x.index_add_(0, _i(x, v), _ones(x, 1, 4)),
    "index_copy": lambda x, v: x.index_copy(0, _i(x, v), _ones(x, 1, 4)),
    "index_copy_": lambda x, v: x.index_copy_(0, _i(x, v), _ones(x, 1, 4)),
    "index_fill": lambda x, v: x.index_fill(0, _i(x, v), 7.0),
    "index_fill_": lambda x, v: x.index_fill_(0, _i(x, v), 7.0),
    "embedding": _embedding,
}
# just past each end, and the last element counted from the end (in range for some ops, not for others)
VALUES = (N, -N - 1, -1)


def _on(lib, device, name, v):
    x = _x(lib).to(device)
    try:
        out = OPS[name](x, v)
        if device == "npu":
            torch.npu.synchronize()  # an op that only reads reports its index at the next synchronization
    except Exception as exc:
        return x, None, exc
    return x, out, None


@pytest.mark.parametrize("v", VALUES)
@pytest.mark.parametrize("name", sorted(OPS))
def test_out_of_range_index_is_the_cpu_error_and_changes_nothing(name, v):
    ref_x, ref, ref_exc = _on(pt, "cpu", name, v)
    x, out, exc = _on(torch, "npu", name, v)
    if ref_exc is None:  # in range for PyTorch: the same values
        assert exc is None, f"{type(exc).__name__}: {exc}"
        np.testing.assert_array_equal(x.cpu().numpy(), ref_x.numpy())
        if isinstance(ref, pt.Tensor):
            np.testing.assert_array_equal(out.cpu().numpy(), ref.numpy())
        return
    assert exc is not None, f"{name} with index {v}: no error on npu (PyTorch raises {type(ref_exc).__name__})"
    assert type(exc) is type(ref_exc), f"npu raises {type(exc).__name__}: {exc}, PyTorch {type(ref_exc).__name__}"
    assert str(v) in str(exc) or "out of range" in str(exc)
    np.testing.assert_array_equal(x.cpu().numpy(), _x().numpy())  # nothing written


@pytest.mark.parametrize("name", sorted(OPS))
def test_the_simulator_does_not_catch_an_unchecked_index(name, monkeypatch):
    """With the kernels' bounds check removed, an out-of-range index goes through silently: only the check
    stands between it and wrong values."""
    monkeypatch.setattr(indexing_kernels, "check_index", lambda *a, **k: None)
    monkeypatch.setattr(nn_kernels, "check_index", lambda *a, **k: None)
    x = _x().to("npu")
    OPS[name](x, N)
    torch.npu.synchronize()


READS = ("index_select", "gather", "index", "index (second of two, strided)", "embedding")


@pytest.mark.parametrize("name", READS)
def test_a_reading_op_does_not_wait_and_raises_at_the_next_synchronization(name, monkeypatch):
    from mindtorch_npu.state import RUNTIME

    x = _x().to("npu")
    ref_exc = _on(pt, "cpu", name, N)[2]
    reads, memcpy = [], RUNTIME.memcpy
    monkeypatch.setattr(
        RUNTIME, "memcpy", lambda dst, src, n, kind: reads.append(kind == 2) or memcpy(dst, src, n, kind)
    )
    out = OPS[name](x, N)  # queued: the index goes up, nothing comes back to the host
    assert not any(reads)
    monkeypatch.undo()
    with pytest.raises(type(ref_exc), match=str(N)):
        out.cpu()  # the host waits here, and the pending bounds are read
    torch.npu.synchronize()  # reported once
    np.testing.assert_array_equal(x.cpu().numpy(), _x().numpy())
