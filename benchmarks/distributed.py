"""mindtorch.distributed benchmarks: all_reduce bandwidth against mpi4py on raw NumPy arrays, and a
DDP training step against one process; then the hccl backend on npu tensors (the ACL simulator's
libhccl when MINDTORCH_NPU_LIB_DIR points at it) against the same mpi4py baseline.

    python benchmarks/distributed.py [--nproc 2] [--repeat 5] [--quick] [--backend mpi|hccl|both]

The script starts itself under mpiexec (mindtorch.distributed.run's command). Bandwidth is the
bus bandwidth of a ring all-reduce, 2 (n-1)/n * bytes / time, each figure the best of the repeats
(the two columns are timed in turn within every repeat, so a busy machine slows both alike).
Target: mindtorch's overhead over mpi4py at most 10% from 1 MB to 64 MB.
"""

import argparse
import os
import subprocess
import sys
import time

import numpy as np

SIZES_MB = [1, 4, 16, 64]


def _timed(fn, iters, comm):
    comm.Barrier()
    t0 = time.perf_counter()
    for _ in range(iters):
        fn()
    comm.Barrier()
    return (time.perf_counter() - t0) / iters


def _allreduce(args, comm, dist, mt, device="cpu"):
    from mpi4py import MPI

    n, rank = comm.Get_size(), comm.Get_rank()
    rows = []
    sync = mt.npu.synchronize if device != "cpu" else (lambda: None)  # a device call is done when synchronized
    for mb in SIZES_MB[:2] if args.quick else SIZES_MB:
        count = mb * 1024 * 1024 // 4
        raw = np.ones(count, np.float32)
        t = mt.ones(count, device=device)
        # many alternating samples (the closing barrier is the same in both columns); a sample of small
        # sizes holds several calls, so the barrier's own jitter does not swamp a ~100 us call
        iters = max(1, 16 // mb)
        best_mpi = best_mt = float("inf")
        for _ in range(args.repeat * (2 if args.quick else 8)):
            best_mpi = min(best_mpi, _timed(lambda: comm.Allreduce(MPI.IN_PLACE, raw, MPI.SUM), iters, comm))
            best_mt = min(best_mt, _timed(lambda: (dist.all_reduce(t), sync()), iters, comm))
        bus = 2 * (n - 1) / n * count * 4 / 1e9
        rows.append((mb, bus / best_mpi, bus / best_mt, best_mt / best_mpi - 1))
    if device != "cpu":
        if rank == 0:
            print(
                f"\nall_reduce float32 on {device} tensors over hccl, {n} processes (bus bandwidth GB/s; the "
                f"simulator's libhccl moves the data through host shared memory)"
            )
            print(f"{'size':>8} {'mpi4py':>10} {'hccl':>10} {'vs mpi4py':>10}")
            for mb, a, b, o in rows:
                print(f"{mb:>6}MB {a:>10.2f} {b:>10.2f} {o:>+9.1%}")
        return
    # the host cost mindtorch adds per call, apart from the transfer: the same 1 MB call on this process alone
    solo = dist.ProcessGroup("mpi", MPI.COMM_SELF, [rank], None)
    small = mt.ones(262144)
    arr = small.numpy()
    k = 2000
    host_mt = min(_timed(lambda: dist.all_reduce(small, group=solo), k, MPI.COMM_SELF) for _ in range(args.repeat))
    host_mpi = min(
        _timed(lambda: MPI.COMM_SELF.Allreduce(MPI.IN_PLACE, arr, MPI.SUM), k, MPI.COMM_SELF)
        for _ in range(args.repeat)
    )
    if rank == 0:
        print(f"all_reduce float32, {n} processes (bus bandwidth GB/s; target: overhead <= 10%)")
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        print(f"  load average {load:.1f} on {os.cpu_count()} cores: above the core count, figures are noisy")
        print(
            f"  each figure: the best of {args.repeat * (2 if args.quick else 8)} alternating samples (16 calls each "
            f"at 1 MB, 4 at 4 MB, 1 from 16 MB)"
        )
        print(f"{'size':>8} {'mpi4py':>10} {'mindtorch':>10} {'overhead':>9}")
        for mb, a, b, o in rows:
            print(f"{mb:>6}MB {a:>10.2f} {b:>10.2f} {o:>+8.1%}  {'ok' if o <= 0.10 else 'over target'}")
        t1 = 2 * (n - 1) / n * 2**20 / 1e9 / rows[0][1]  # seconds of mpi4py's 1 MB all-reduce
        print(
            f"host cost per call (1 MB, one-process group): mindtorch {host_mt * 1e6:.1f} us, mpi4py "
            f"{host_mpi * 1e6:.1f} us; difference {(host_mt - host_mpi) * 1e6:.1f} us = "
            f"{(host_mt - host_mpi) / t1:.1%} of the measured 1 MB all-reduce"
        )


def _ddp(args, comm, dist, mt):
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples"))
    from mindtorch.nn.parallel import DistributedDataParallel as DDP
    from train_gpt import GPT

    n, rank = comm.Get_size(), comm.Get_rank()
    B, T = 8, 32
    mt.manual_seed(0)
    x = mt.randint(0, 65, (B, T))
    y = mt.randint(0, 65, (B, T))

    def step_time(model, steps):
        opt = mt.optim.SGD(model.parameters(), lr=0.01)

        def step():
            opt.zero_grad()
            model(x, y)[1].backward()
            opt.step()

        step()
        best = float("inf")
        for _ in range(args.repeat):
            best = min(best, _timed(step, steps, comm))
        return best

    steps = 2 if args.quick else 5
    make = lambda: GPT(vocab_size=65, block_size=T, n_layer=2, n_head=4, n_embd=64, dropout=0.0)
    ddp_t = step_time(DDP(make()), steps)
    single = step_time(make(), steps)  # the same local batch, no communication (every rank runs it)
    nparams = sum(p.numel() for p in make().parameters())
    if rank == 0:
        print(
            f"\nDDP step, GPT {nparams / 1e6:.2f}M parameters, local batch {B}x{T}, {n} processes on "
            f"{os.cpu_count()} cores"
        )
        print(
            f"  single process {single * 1e3:8.1f} ms/step   DDP {ddp_t * 1e3:8.1f} ms/step   "
            f"({ddp_t / single:.2f}x; {n}x the samples per step)"
        )


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--nproc", type=int, default=2)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--backend", choices=["mpi", "hccl", "both"], default="both")
    args = p.parse_args()
    if "OMPI_COMM_WORLD_SIZE" not in os.environ and "PMI_SIZE" not in os.environ:
        from mindtorch.distributed.run import mpiexec_command

        status = 0
        for backend in ["mpi", "hccl"] if args.backend == "both" else [args.backend]:
            argv = [f"--nproc={args.nproc}", f"--repeat={args.repeat}", f"--backend={backend}"] + (
                ["--quick"] if args.quick else []
            )
            status |= subprocess.call(mpiexec_command(args.nproc) + [sys.executable, os.path.abspath(__file__), *argv])
        sys.exit(status)
    import mindtorch as mt
    import mindtorch.distributed as dist
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    if args.backend == "hccl":
        if not mt.npu.is_available():
            if comm.Get_rank() == 0:
                print("\nhccl: no npu (set MINDTORCH_NPU_LIB_DIR to the ACL simulator's build directory)")
            return
        mt.npu.set_device(comm.Get_rank() % mt.npu.device_count())
        dist.init_process_group("hccl")
        _allreduce(args, comm, dist, mt, device="npu")
    else:
        dist.init_process_group("mpi")
        _allreduce(args, comm, dist, mt)
        _ddp(args, comm, dist, mt)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
