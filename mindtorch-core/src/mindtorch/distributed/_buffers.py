"""The host memory the cpu engines move: a tensor's NumPy array (the tensor's own memory when
contiguous, else a packed copy written back after the operation), and the finishing steps they share."""

import numpy as np

from ..dispatch import bump_version

# ReduceOp name -> the NumPy function combining two operands (AVG is a SUM, then a division)
NP_OPS = {"sum": np.add, "avg": np.add, "product": np.multiply, "min": np.minimum, "max": np.maximum}
# for bool operands: SUM and AVG are a logical or, PRODUCT and MIN a logical and
NP_BOOL_OPS = {
    "sum": np.logical_or,
    "avg": np.logical_or,
    "product": np.logical_and,
    "min": np.logical_and,
    "max": np.logical_or,
}


def check_reduction(kind, op):
    """Refuse what PyTorch refuses for operands of NumPy dtype kind `kind` ('b', 'i', 'u', 'f', 'c')."""
    if op == "avg" and kind not in "fc":
        raise RuntimeError("ReduceOp.AVG is only supported for floating point and complex tensors")
    if kind == "c" and op in ("min", "max"):
        raise RuntimeError(f"Cannot use ReduceOp.{op.upper()} with complex inputs")


def reduce_arrays(arrays, op, bf16):
    """The reduction of equal-shaped arrays, combined in the order given (every rank combining the same
    list in the same order gets the same bits); bfloat16 (uint16 bits) widens to float32 and rounds back
    after each step, as a bfloat16 kernel does."""
    if bf16:
        from .._host_data import bf16_bits_to_float, float_to_bf16_bits

        fn, acc = NP_OPS[op], arrays[0].copy()
        for a in arrays[1:]:
            acc = float_to_bf16_bits(fn(bf16_bits_to_float(acc), bf16_bits_to_float(a)))
        return acc
    check_reduction(arrays[0].dtype.kind, op)
    fn = (NP_BOOL_OPS if arrays[0].dtype.kind == "b" else NP_OPS)[op]
    acc = arrays[0].copy()
    for a in arrays[1:]:
        fn(acc, a, out=acc)
    return acc


class Buf:
    """The contiguous NumPy array an engine reads or writes for a tensor: the tensor's own memory when it is
    contiguous, else a packed copy that `back()` writes into the tensor after the operation."""

    def __init__(self, t, out=False):
        view = t.detach()._host()  # the tensor's own memory; bfloat16 as uint16 bits (a packed copy if strided)
        self.bf16 = str(t.dtype) == "torch.bfloat16"
        self.out = t if out else None
        self.through_backend = out and self.bf16 and not t.is_contiguous()
        if view.flags.c_contiguous:
            self.arr, self.view = view, None
        else:
            self.arr = np.ascontiguousarray(view)
            self.view = view if out else None

    def back(self):
        if self.through_backend:  # the bits are a copy: the backend writes them into the strided tensor
            from .._backends.registry import backend_for

            backend_for(self.out.device.type).copy_from_host(self.out.detach(), self.arr.reshape(self.out.shape))
        elif self.view is not None:
            self.view[...] = self.arr
        if self.out is not None:  # written in place, as an in-place op: autograd sees the new version
            bump_version(self.out)


def split_back(packed, outs):
    def f():
        for k, o in enumerate(outs):
            o.detach().numpy()[...] = packed[k].reshape(o.shape)
            bump_version(o)

    return f


def divide(buf, n):
    def f():
        if buf.bf16:
            from .._host_data import bf16_bits_to_float, float_to_bf16_bits

            buf.arr[...] = float_to_bf16_bits(bf16_bits_to_float(buf.arr) / n)
        else:
            np.divide(buf.arr, n, out=buf.arr, casting="unsafe")
        buf.back()

    return f


def byte_counts(splits, t, n, itemsize, what):
    """The bytes of `t` each of the n ranks gets (sends or receives): equal dim-0 blocks, or the
    given split sizes."""
    row = t.numel() // t.shape[0] if t.dim() and t.shape[0] else 0
    if splits is None or len(splits) == 0:
        if t.dim() == 0 or t.shape[0] % n:
            raise ValueError(f"Tensor's dim 0 does not divide equally across group size ({what})")
        return [t.shape[0] // n * row * itemsize] * n
    if len(splits) != n:
        raise ValueError(f"Split sizes doesn't match number of ranks ({what})")
    if sum(splits) != t.shape[0]:
        raise ValueError(f"Split sizes doesn't match total dim 0 size ({what})")
    return [int(s) * row * itemsize for s in splits]
