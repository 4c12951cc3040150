"""How a DTensor would be laid out over a device mesh (torch.distributed.tensor.placement_types).

The placements are plain descriptions (equality, repr), as in PyTorch; mindtorch never builds a DTensor
from them."""

__all__ = ["Placement", "Shard", "Replicate", "Partial"]


class Placement:
    def is_shard(self, dim=None):
        return False

    def is_replicate(self):
        return False

    def is_partial(self, reduce_op=None):
        return False


class Shard(Placement):
    def __init__(self, dim):
        self.dim = dim

    def is_shard(self, dim=None):
        return dim is None or dim == self.dim

    def __eq__(self, other):
        return type(other) is type(self) and other.dim == self.dim

    def __hash__(self):
        return hash((type(self), self.dim))

    def __repr__(self):
        return f"Shard(dim={self.dim})"


class _StridedShard(Shard):
    def __init__(self, dim, split_factor=1):
        super().__init__(dim)
        self.split_factor = split_factor


class Replicate(Placement):
    def is_replicate(self):
        return True

    def __eq__(self, other):
        return type(other) is Replicate

    def __hash__(self):
        return hash(Replicate)

    def __repr__(self):
        return "Replicate()"


class Partial(Placement):
    def __init__(self, reduce_op="sum"):
        self.reduce_op = reduce_op

    def is_partial(self, reduce_op=None):
        return reduce_op is None or reduce_op == self.reduce_op

    def __eq__(self, other):
        return type(other) is Partial and other.reduce_op == self.reduce_op

    def __hash__(self):
        return hash((Partial, self.reduce_op))

    def __repr__(self):
        return f"Partial({self.reduce_op})"
