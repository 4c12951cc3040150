"""torch.distributed.device_mesh's names. mindtorch has no device meshes (they exist for DTensor
sharding, which mindtorch does not offer): constructing one raises NotImplementedError."""

__all__ = ["DeviceMesh", "init_device_mesh"]

_NO_MESH = (
    "device meshes are not supported by mindtorch (no DTensor sharding); use DistributedDataParallel "
    "and the collectives of mindtorch.distributed"
)


class DeviceMesh:
    def __init__(self, *args, **kwargs):
        raise NotImplementedError(_NO_MESH)


def init_device_mesh(*args, **kwargs):
    raise NotImplementedError(_NO_MESH)
