"""torch.distributed.checkpoint.default_planner's names (see hf_storage: DCP is not supported)."""

from .hf_storage import _NO_DCP

__all__ = ["DefaultLoadPlanner", "DefaultSavePlanner"]


class DefaultLoadPlanner:
    def __init__(self, *args, **kwargs):
        raise NotImplementedError(_NO_DCP)


class DefaultSavePlanner(DefaultLoadPlanner):
    pass
