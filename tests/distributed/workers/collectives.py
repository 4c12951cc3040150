"""Every collective against a NumPy reference, on any number of processes: argv[1] is the backend, mpi
(under mpiexec, the default) or gloo (the socket engine, started by the launcher)."""

import sys

import mindtorch as torch
import mindtorch.distributed as dist
import numpy as np

dist.init_process_group(sys.argv[1] if len(sys.argv) > 1 else "mpi")
R, N = dist.get_rank(), dist.get_world_size()
DTYPES = [
    torch.float32,
    torch.float64,
    torch.float16,
    torch.int64,
    torch.int32,
    torch.uint8,
    torch.bool,
    torch.complex64,
]
SHAPES = [(), (5,), (3, 4), (2, 3, 5)]


def data(rank, shape, dtype, salt=0):
    """The tensor rank `rank` contributes: a NumPy array every process can compute for every rank."""
    rng = np.random.default_rng(1000 * rank + 17 * len(shape) + salt)
    a = rng.integers(1, 4, size=shape)
    if dtype == torch.bool:
        return a % 2 == 0
    if dtype.is_complex:
        return (a + 1j * rng.integers(0, 3, size=shape)).astype(np.complex64)
    return a.astype(torch.empty(0, dtype=dtype).numpy().dtype)


def t(a):
    return torch.from_numpy(np.array(a))


def check(got, want, what):
    got = got.numpy()
    want = np.asarray(want)
    assert got.shape == want.shape, (what, got.shape, want.shape)
    assert got.dtype == want.dtype, (what, got.dtype, want.dtype)
    assert np.allclose(got, want, rtol=1e-3) if got.dtype.kind in "fc" else np.array_equal(got, want), (what, got, want)


REF = {
    "sum": lambda xs: np.sum(xs, axis=0),
    "product": lambda xs: np.prod(xs, axis=0),
    "min": lambda xs: np.min(xs, axis=0),
    "max": lambda xs: np.max(xs, axis=0),
    "avg": lambda xs: np.sum(xs, axis=0) / len(xs),
}
BOOL_REF = {"sum": np.any, "product": np.all, "min": np.all, "max": np.any, "avg": np.any}

for dtype in DTYPES:
    for shape in SHAPES:
        mine = data(R, shape, dtype)
        every = [data(r, shape, dtype) for r in range(N)]
        for op in ("sum", "avg", "product", "min", "max"):
            if op == "avg" and not (dtype.is_floating_point or dtype.is_complex):
                continue
            if dtype.is_complex and op in ("min", "max"):
                continue
            x = t(mine)
            dist.all_reduce(x, op=op)
            want = BOOL_REF[op](every, axis=0) if dtype == torch.bool else REF[op](np.stack(every)).astype(mine.dtype)
            check(x, want, f"all_reduce {op} {dtype} {shape}")
            x = t(mine)
            dist.reduce(x, dst=N - 1, op=op)
            check(x, want if R == N - 1 else mine, f"reduce {op} {dtype} {shape}")
        x = t(mine)
        dist.broadcast(x, src=N - 1)
        check(x, every[-1], f"broadcast {dtype} {shape}")
        outs = [torch.zeros(shape, dtype=dtype) for _ in range(N)]
        dist.all_gather(outs, t(mine))
        for r in range(N):
            check(outs[r], every[r], f"all_gather {dtype} {shape}")
        out = torch.zeros((N,) + shape, dtype=dtype)
        dist.all_gather_into_tensor(out, t(mine))
        check(out, np.stack(every), f"all_gather_into_tensor {dtype} {shape}")
        gl = [torch.zeros(shape, dtype=dtype) for _ in range(N)] if R == 0 else None
        dist.gather(t(mine), gl, dst=0)
        if R == 0:
            for r in range(N):
                check(gl[r], every[r], f"gather {dtype} {shape}")
        x = torch.zeros(shape, dtype=dtype)
        dist.scatter(x, [t(data(0, shape, dtype, salt=r)) for r in range(N)] if R == 1 % N else None, src=1 % N)
        check(x, data(0, shape, dtype, salt=R), f"scatter {dtype} {shape}")
    # reduce_scatter_tensor and all_to_all_single on rows
    if dtype != torch.bool:
        big = [data(r, (N * 2, 3), dtype) for r in range(N)]
        out = torch.zeros((2, 3), dtype=dtype)
        dist.reduce_scatter_tensor(out, t(big[R]))
        check(
            out, np.sum(np.stack(big), axis=0).astype(big[R].dtype)[2 * R : 2 * R + 2], f"reduce_scatter_tensor {dtype}"
        )
    rows = [data(r, (N * 2, 3), dtype, salt=5) for r in range(N)]
    out = torch.zeros((N * 2, 3), dtype=dtype)
    dist.all_to_all_single(out, t(rows[R]))
    check(out, np.concatenate([rows[r][2 * R : 2 * R + 2] for r in range(N)]), f"all_to_all_single {dtype}")

# uneven all_to_all_single: rank r sends r+1+k rows to rank k
ins = [np.arange(sum(r + 1 + k for k in range(N)) * 2, dtype=np.float32).reshape(-1, 2) + 100 * r for r in range(N)]
insplit = [R + 1 + k for k in range(N)]
outsplit = [r + 1 + R for r in range(N)]
out = torch.zeros((sum(outsplit), 2))
dist.all_to_all_single(out, t(ins[R]), outsplit, insplit)
pieces = []
for r in range(N):
    off = sum(r + 1 + k for k in range(R))
    pieces.append(ins[r][off : off + r + 1 + R])
check(out, np.concatenate(pieces), "all_to_all_single uneven")

# non-contiguous input and output: a transposed view is reduced in place
base = t(data(R, (4, 3), torch.float32))
view = base.t()
dist.all_reduce(view)
check(base, np.sum(np.stack([data(r, (4, 3), torch.float32) for r in range(N)]), axis=0), "all_reduce on a view")
strided = torch.zeros(6)[::2]
dist.broadcast(strided if R else t(np.array([1.0, 2.0, 3.0], np.float32)), src=0)
if R:
    check(strided, np.array([1, 2, 3], np.float32), "broadcast into a strided view")

# async work handles
x = t(np.full(1000, R + 1.0, np.float32))
w = dist.all_reduce(x, async_op=True)
assert w.wait() is True and w.is_completed()
check(x, np.full(1000, N * (N + 1) / 2, np.float32), "async all_reduce")
assert dist.barrier(async_op=True).wait()

# point to point: a ring with isend/irecv, then send/recv pairs
nxt, prv = (R + 1) % N, (R - 1) % N
y = torch.zeros(4)
ws = dist.irecv(y, src=prv), dist.isend(t(np.full(4, R, np.float32)), dst=nxt)
for w in ws:
    w.wait()
check(y, np.full(4, prv, np.float32), "isend/irecv ring")
if R == 0:
    dist.send(t(np.arange(3, dtype=np.int64)), dst=N - 1)
elif R == N - 1:
    z = torch.zeros(3, dtype=torch.int64)
    assert dist.recv(z) == 0
    check(z, np.arange(3), "send/recv")

# groups: the even ranks
evens = list(range(0, N, 2))
g = dist.new_group(evens)
if R in evens:
    x = t(np.array([float(R)], np.float32))
    dist.all_reduce(x, group=g)
    check(x, np.array([sum(evens)], np.float32), "all_reduce on a group")
    assert dist.get_world_size(g) == len(evens) and dist.get_rank(g) == evens.index(R)
    x = t(np.array([float(R)], np.float32))
    dist.broadcast(x, src=evens[-1], group=g)
    check(x, np.array([evens[-1]], np.float32), "broadcast from a global rank in a group")
else:
    assert g is dist.GroupMember.NON_GROUP_MEMBER
    assert dist.get_rank(g) == -1
    assert dist.all_reduce(torch.ones(1), group=g) is None

# bfloat16: MPI has no such type; it travels as bits and combines through float32, rounded once per step
vals = [np.random.default_rng(r).integers(1, 8, (3, 4)).astype(np.float32) / 4 for r in range(N)]
for op in ("sum", "avg", "product", "min", "max"):
    x = torch.tensor(vals[R], dtype=torch.bfloat16)
    dist.all_reduce(x, op=op)
    assert x.dtype == torch.bfloat16
    np.testing.assert_allclose(
        x.float().numpy(),
        REF[op](np.array(vals)),
        rtol=2**-8,  # bfloat16 rounding
        err_msg=f"bfloat16 all_reduce {op}",
    )
x = torch.tensor(vals[R], dtype=torch.bfloat16).t()  # non-contiguous
dist.broadcast(x, src=N - 1)
check(x.float(), vals[N - 1].T, "bfloat16 broadcast")
out = torch.empty((N, 3, 4), dtype=torch.bfloat16)
dist.all_gather_into_tensor(out, torch.tensor(vals[R], dtype=torch.bfloat16))
check(out.float(), np.stack(vals), "bfloat16 all_gather_into_tensor")
part = torch.empty(2, dtype=torch.bfloat16)
dist.reduce_scatter_tensor(part, torch.arange(2 * N, dtype=torch.bfloat16) + R)
check(
    part.float(),
    (np.arange(2 * N)[2 * R : 2 * R + 2] * N + sum(range(N))).astype(np.float32),
    "bfloat16 reduce_scatter_tensor",
)

dist.barrier()
dist.destroy_process_group()
assert not dist.is_initialized()
print(f"collectives ok rank {R} of {N}")
