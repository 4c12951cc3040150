"""Functional collectives (torch.distributed._functional_collectives): each returns a new tensor instead of
writing its input. mindtorch's collectives complete in order on the tensor's device, so the result needs
no separate wait: wait_tensor returns its argument."""

import mindtorch

from .distributed_c10d import (
    ReduceOp,
    all_gather_into_tensor,
    all_reduce as _all_reduce,
    all_to_all_single as _all_to_all_single,
    get_world_size,
    reduce_scatter_tensor as _reduce_scatter,
)

__all__ = [
    "wait_tensor",
    "all_reduce",
    "all_gather_tensor",
    "reduce_scatter_tensor",
    "all_to_all_single",
    "all_to_all_single_autograd",
]


def wait_tensor(tensor):
    return tensor


def all_reduce(self, reduceOp, group=None, tag=""):
    out = self.clone()
    _all_reduce(out, op=getattr(ReduceOp, str(reduceOp).upper(), reduceOp), group=group)
    return out


def all_gather_tensor(self, gather_dim, group=None, tag=""):
    n = get_world_size(group)
    out = self.new_empty((n * self.shape[0],) + tuple(self.shape[1:]))
    all_gather_into_tensor(out, self.contiguous(), group=group)
    if gather_dim != 0:
        out = mindtorch.cat(out.chunk(n, dim=0), dim=gather_dim)
    return out


def reduce_scatter_tensor(self, reduceOp, scatter_dim, group=None, tag=""):
    n = get_world_size(group)
    src = self if scatter_dim == 0 else mindtorch.cat(self.chunk(n, dim=scatter_dim), dim=0)
    out = src.new_empty((src.shape[0] // n,) + tuple(src.shape[1:]))
    _reduce_scatter(out, src.contiguous(), op=getattr(ReduceOp, str(reduceOp).upper(), reduceOp), group=group)
    return out


def all_to_all_single(self, output_split_sizes, input_split_sizes, group=None, tag=""):
    rows = sum(output_split_sizes) if output_split_sizes else self.shape[0]
    out = self.new_empty((rows,) + tuple(self.shape[1:]))
    _all_to_all_single(out, self.contiguous(), output_split_sizes, input_split_sizes, group=group)
    return out


class _AllToAll(mindtorch.autograd.Function):
    @staticmethod
    def forward(ctx, input, output_split_sizes, input_split_sizes, group):
        ctx.splits, ctx.group = (output_split_sizes, input_split_sizes), group
        return all_to_all_single(input, output_split_sizes, input_split_sizes, group)

    @staticmethod
    def backward(ctx, grad):
        out_splits, in_splits = ctx.splits
        # the gradient travels back the way the rows came: the split sizes swap roles
        return all_to_all_single(grad.contiguous(), in_splits, out_splits, ctx.group), None, None, None


def all_to_all_single_autograd(self, output_split_sizes, input_split_sizes, group=None, tag=""):
    return _AllToAll.apply(self, output_split_sizes, input_split_sizes, group)
