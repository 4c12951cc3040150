"""torch._dynamo._trace_wrapped_higher_order_op: TransformGetItemToIndex.

In PyTorch this mode rewrites `tensor[index_tensor]` into an index op so that the indexing can run under
functorch transforms; mindtorch indexes with tensors eagerly everywhere, so the context changes nothing."""

import contextlib

__all__ = ["TransformGetItemToIndex"]


class TransformGetItemToIndex(contextlib.AbstractContextManager):
    def __exit__(self, *exc):
        return False
