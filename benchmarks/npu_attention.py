"""Peak device memory of attention on the npu: the fused operators (aclnnFlashAttentionScore / Grad) against
core's composite (matmul, softmax, matmul, whose L x S probabilities stay alive for the backward).

    python benchmarks/npu_attention.py [--seq 2048] [--heads 2] [--dim 64]

One forward and backward of causal attention, B=1, float16, on the ACL simulator (built unless
MINDTORCH_NPU_LIB_DIR is set); prints torch.npu.max_memory_allocated above what the inputs hold, and the
wall time (the simulated device work included).
"""

import argparse
import time


def attention_peak(seq, heads, dim, fused, dtype=None):
    """(peak bytes above the inputs, seconds) of one causal attention forward + backward on npu:0."""
    import mindtorch as torch
    from mindtorch.plugins import OPS

    dtype = dtype or torch.float16
    torch.manual_seed(0)
    q, k, v = (torch.randn(1, heads, seq, dim, dtype=dtype, device="npu").requires_grad_() for _ in range(3))
    g = torch.randn(1, heads, seq, dim, dtype=dtype, device="npu")
    scale = dim**-0.5
    torch.npu.synchronize()
    base = torch.npu.memory_allocated()
    torch.npu.reset_peak_memory_stats()
    start = time.perf_counter()
    if fused:
        out = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
    else:
        out = OPS["_scaled_dot_product_attention"].composite(q, k, v, None, True, scale)[0]
    out.backward(g)
    torch.npu.synchronize()
    seconds = time.perf_counter() - start
    peak = torch.npu.max_memory_allocated() - base
    del q, k, v, g, out
    return peak, seconds


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seq", type=int, default=2048)
    ap.add_argument("--heads", type=int, default=2)
    ap.add_argument("--dim", type=int, default=64)
    args = ap.parse_args(argv)
    from npu import _setup  # benchmarks/npu.py: the simulator, built unless MINDTORCH_NPU_LIB_DIR is set

    _setup()
    print(f"causal attention fwd+bwd, B=1 N={args.heads} S={args.seq} D={args.dim} float16 (peak above the inputs)")
    for name, fused in (("fused (FlashAttentionScore)", True), ("composite (matmul/softmax)", False)):
        peak, seconds = attention_peak(args.seq, args.heads, args.dim, fused)
        print(f"{name:30s} {peak / 2**20:10.2f} MiB {seconds:9.2f} s")


if __name__ == "__main__":
    main()
