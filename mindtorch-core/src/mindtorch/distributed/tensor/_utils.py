"""torch.distributed.tensor._utils: the shard-shape helper programs import next to DTensor."""


def compute_local_shape_and_global_offset(global_shape, mesh, placements):
    from . import _NO_DTENSOR

    raise NotImplementedError(_NO_DTENSOR)
