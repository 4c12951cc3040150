"""Every collective of the hccl backend on npu tensors (the ACL simulator's libhccl) against NumPy."""

import os

import mindtorch as torch
import mindtorch.distributed as dist
import numpy as np

LOCAL = int(os.environ.get("LOCAL_RANK", os.environ.get("OMPI_COMM_WORLD_RANK", os.environ.get("PMI_RANK", "0"))))
torch.npu.set_device(LOCAL % torch.npu.device_count())  # the device first, as torch_npu programs do
dist.init_process_group("hccl")
R, N = dist.get_rank(), dist.get_world_size()
assert dist.get_backend() == "hccl" and R == LOCAL
DEV = torch.device("npu", R % torch.npu.device_count())
DTYPES = [
    torch.float32,
    torch.float16,
    torch.bfloat16,
    torch.float64,
    torch.int32,
    torch.int64,
    torch.uint8,
    torch.bool,
]
SHAPES = [(), (5,), (3, 4), (4, 3, 2)]


def data(rank, shape, dtype, salt=0):
    rng = np.random.default_rng(1000 * rank + 17 * len(shape) + salt)
    a = rng.integers(1, 4, size=shape)
    if dtype == torch.bool:
        return a % 2 == 0
    return a.astype(np.float32) if dtype.is_floating_point else a.astype(torch.empty(0, dtype=dtype).numpy().dtype)


def on_npu(a, dtype, transposed=False):
    t = torch.tensor(np.array(a), dtype=dtype)
    if transposed and t.dim() >= 2:  # a non-contiguous npu tensor with the same values
        return t.transpose(0, 1).contiguous().to(DEV).transpose(0, 1)
    return t.to(DEV)


def check(got, want, what):
    got = got.cpu()
    g = got.float().numpy() if got.dtype in (torch.bfloat16, torch.float16) else got.numpy()
    want = np.asarray(want)
    assert g.shape == want.shape, (what, g.shape, want.shape)
    ok = np.allclose(g, want, rtol=1e-2) if g.dtype.kind == "f" else np.array_equal(g, want.astype(g.dtype))
    assert ok, (what, g, want)


REF = {
    "sum": lambda xs: np.sum(xs, axis=0),
    "product": lambda xs: np.prod(xs, axis=0),
    "min": lambda xs: np.min(xs, axis=0),
    "max": lambda xs: np.max(xs, axis=0),
    "avg": lambda xs: np.sum(xs, axis=0) / len(xs),
}
BOOL_REF = {"sum": np.any, "product": np.all, "min": np.all, "max": np.any}
# HCCL reduces float64 on Ascend950 only (the simulator is an Ascend910B1): a clear error, nothing queued
REDUCES_F64 = torch.npu.get_device_name().startswith("Ascend950")


def refused(fn, *args, **kw):
    try:
        fn(*args, **kw)
    except RuntimeError as e:
        assert "Ascend950" in str(e), e
        return
    raise AssertionError(f"{fn.__name__} reduced float64")


for dtype in DTYPES:
    for shape in SHAPES:
        for transposed in (False, True):
            every = [data(r, shape, dtype) for r in range(N)]
            for op in ("sum", "avg", "product", "min", "max"):
                if op == "avg" and not dtype.is_floating_point:
                    continue
                if dtype == torch.float64 and not REDUCES_F64:
                    refused(dist.all_reduce, on_npu(every[R], dtype, transposed), op=op)
                    refused(dist.reduce, on_npu(every[R], dtype, transposed), dst=N - 1, op=op)
                    continue
                x = on_npu(every[R], dtype, transposed)
                dist.all_reduce(x, op=op)
                ref = BOOL_REF[op](every, axis=0) if dtype == torch.bool else REF[op](np.array(every))
                check(x, ref, ("all_reduce", dtype, shape, op, transposed))
                y = on_npu(every[R], dtype, transposed)
                dist.reduce(y, dst=N - 1, op=op)
                if R == N - 1:
                    check(y, ref, ("reduce", dtype, shape, op))
            for root in (0, N - 1):
                b = on_npu(every[R], dtype, transposed)
                dist.broadcast(b, src=root)
                check(b, every[root], ("broadcast", dtype, shape, root))
            out = torch.empty((N,) + shape, dtype=dtype, device=DEV)
            dist.all_gather_into_tensor(out, on_npu(every[R], dtype))
            check(out, np.stack(every), ("all_gather_into_tensor", dtype, shape))
            outs = [torch.zeros(shape, dtype=dtype, device=DEV) for _ in range(N)]
            dist.all_gather(outs, on_npu(every[R], dtype, transposed))
            for r in range(N):
                check(outs[r], every[r], ("all_gather", dtype, shape, r))
        if dtype == torch.float64 and not REDUCES_F64:
            refused(
                dist.reduce_scatter_tensor,
                torch.empty((3,) + shape, dtype=dtype, device=DEV),
                on_npu(data(R, (N * 3,) + shape, dtype), dtype),
            )
        elif dtype != torch.bool:
            big = [data(r, (N * 3,) + shape, dtype, salt=5) for r in range(N)]
            part = torch.empty((3,) + shape, dtype=dtype, device=DEV)
            dist.reduce_scatter_tensor(part, on_npu(big[R], dtype))
            check(part, np.sum(big, axis=0)[3 * R : 3 * R + 3], ("reduce_scatter_tensor", dtype, shape))

# gather / scatter to and from the last rank
mine = data(R, (2, 3), torch.float32)
gl = [torch.zeros(2, 3, device=DEV) for _ in range(N)] if R == N - 1 else None
dist.gather(on_npu(mine, torch.float32), gl, dst=N - 1)
if R == N - 1:
    for r in range(N):
        check(gl[r], data(r, (2, 3), torch.float32), ("gather", r))
sl = [on_npu(data(r, (4,), torch.float32, salt=9), torch.float32) for r in range(N)] if R == 0 else None
got = torch.zeros(4, device=DEV)
dist.scatter(got, sl, src=0)
check(got, data(R, (4,), torch.float32, salt=9), "scatter")

# point to point around the ring, larger than the simulator's mailbox (several rounds)
ring = on_npu(np.full(700_000, R, np.float32), torch.float32)
into = torch.zeros(700_000, device=DEV)
if R % 2 == 0:
    dist.send(ring, dst=(R + 1) % N)
    dist.recv(into, src=(R - 1) % N)
else:
    dist.recv(into, src=(R - 1) % N)
    dist.send(ring, dst=(R + 1) % N)
check(into, np.full(700_000, (R - 1) % N, np.float32), "send/recv ring")

# a tensor larger than one simulator slot (several chunks), async handle
large = torch.full((3_000_000,), float(R + 1), device=DEV)
work = dist.all_reduce(large, async_op=True)
work.wait()
torch.npu.synchronize()
assert work.is_completed() and work.is_success()
check(large[:5], np.full(5, N * (N + 1) / 2, np.float32), "large all_reduce")
assert float(large[-1].cpu()) == N * (N + 1) / 2

# autograd sees the in-place write
leaf = torch.ones(3, device=DEV, requires_grad=True)
z = leaf * 2
v0 = z._version_value
dist.all_reduce(z.detach())
assert z._version_value > v0

# errors
try:
    dist.all_reduce(torch.ones(2))
    raise AssertionError("a cpu tensor was accepted by the hccl group")
except RuntimeError as e:
    assert "No backend type associated with device type cpu" in str(e)
try:
    dist.all_to_all_single(torch.zeros(N, device=DEV), torch.zeros(N, device=DEV))
    raise AssertionError("all_to_all_single should be refused")
except RuntimeError as e:
    assert "not supported" in str(e)

# a sub-group with its own communicator
sub = dist.new_group([0, N - 1])
if R in (0, N - 1):
    s = on_npu(np.array([R + 1.0], np.float32), torch.float32)
    dist.all_reduce(s, group=sub)
    check(s, [float(N + 1)], "sub-group all_reduce")

dist.barrier()
dist.destroy_process_group()

# every communicator released (the simulator counts them like its other objects)
import ctypes  # noqa: E402

from mindtorch_npu.state import RUNTIME  # noqa: E402

count = RUNTIME.libs.ascendcl.aclsimLiveCount
count.restype, count.argtypes = ctypes.c_int64, [ctypes.c_char_p]
assert count(b"hccl_comms") == 0, count(b"hccl_comms")
print(f"hccl collectives ok rank {R} of {N}", flush=True)
