"""torch.distributed.device_mesh: the processes of a job laid out as a 1-D or 2-D grid of ranks, with a
process group along each dimension.

In a mesh of shape (A, B), the group along dimension 0 of a process is the column it stands in (A
ranks), along dimension 1 its row (B ranks). Making a mesh is collective: every process of the job
makes the same mesh, as new_group requires. Meshes of more than two dimensions, and slicing into
several dimensions at once, are not supported.
"""

import numpy as np

from . import distributed_c10d as c10d

__all__ = ["DeviceMesh", "init_device_mesh"]


def _dim_groups(grid):
    """For each dimension of the grid, the group of this process along it (every line of that
    dimension becomes a group, made in the same order on every process)."""
    world = c10d.get_world_size()
    me = c10d.get_rank()
    groups = []
    for dim in range(grid.ndim):
        lines = np.moveaxis(grid, dim, -1).reshape(-1, grid.shape[dim])
        mine = None
        for line in lines:
            ranks = sorted(int(r) for r in line)
            if ranks == list(range(world)):
                g = c10d.GroupMember.WORLD
            else:
                g = c10d.new_group(ranks)
            if me in ranks:
                mine = g
        groups.append(mine)
    return groups


class DeviceMesh:
    def __init__(self, device_type, mesh=None, *, mesh_dim_names=None, _groups=None, **_internal):
        import mindtorch

        if mesh is None:
            raise ValueError("DeviceMesh needs a mesh of ranks")
        grid = np.asarray(mesh.tolist() if isinstance(mesh, mindtorch.Tensor) else mesh, dtype=np.int64)
        if grid.ndim not in (1, 2):
            raise NotImplementedError(f"mindtorch supports 1-D and 2-D device meshes, got {grid.ndim} dimensions")
        if mesh_dim_names is not None and len(mesh_dim_names) != grid.ndim:
            raise RuntimeError(
                f"mesh_dim_names {mesh_dim_names} should have the same length as the mesh's dimensions ({grid.ndim})"
            )
        if len(set(grid.reshape(-1).tolist())) != grid.size:
            raise RuntimeError(f"DeviceMesh cannot have duplicate values, but found {grid.tolist()}")
        self.device_type = str(device_type)
        self.mesh = mindtorch.from_numpy(grid.copy())
        self.mesh_dim_names = tuple(mesh_dim_names) if mesh_dim_names is not None else None
        self._grid = grid
        world = c10d.get_world_size()
        if grid.max() >= world or grid.min() < 0:
            raise RuntimeError(f"the mesh's ranks {grid.tolist()} must lie in [0, {world})")
        self._groups = _groups if _groups is not None else _dim_groups(grid)

    @property
    def ndim(self):
        return self._grid.ndim

    @property
    def shape(self):
        return tuple(self._grid.shape)

    def _dim(self, mesh_dim):
        if mesh_dim is None:
            if self.ndim != 1:
                raise RuntimeError("Found the DeviceMesh have 2 dimensions; specify mesh_dim")
            return 0
        if isinstance(mesh_dim, str):
            if self.mesh_dim_names is None or mesh_dim not in self.mesh_dim_names:
                raise KeyError(f"Mesh dimension '{mesh_dim}' does not exist. Available: {self.mesh_dim_names}")
            return self.mesh_dim_names.index(mesh_dim)
        if not -self.ndim <= mesh_dim < self.ndim:
            raise IndexError(f"mesh_dim {mesh_dim} is out of range for a {self.ndim}-D mesh")
        return mesh_dim % self.ndim

    def size(self, mesh_dim=None):
        return int(self._grid.size) if mesh_dim is None else int(self._grid.shape[self._dim(mesh_dim)])

    def get_group(self, mesh_dim=None):
        g = self._groups[self._dim(mesh_dim)]
        if g is None:
            raise RuntimeError(f"rank {c10d.get_rank()} is not part of this device mesh")
        return g

    def get_all_groups(self):
        return [self.get_group(d) for d in range(self.ndim)]

    def get_rank(self):
        return c10d.get_rank()

    def get_coordinate(self):
        """This process's position in the mesh, or None when it is not in it."""
        where = np.argwhere(self._grid == c10d.get_rank())
        return tuple(int(i) for i in where[0]) if len(where) else None

    def get_local_rank(self, mesh_dim=None):
        coord = self.get_coordinate()
        if coord is None:
            raise RuntimeError(f"rank {c10d.get_rank()} is not part of this device mesh")
        return coord[self._dim(mesh_dim)]

    def __getitem__(self, mesh_dim_names):
        """The 1-D mesh along a named dimension, through this process (its group reused)."""
        if isinstance(mesh_dim_names, tuple):
            if len(mesh_dim_names) != 1:
                if tuple(mesh_dim_names) == self.mesh_dim_names:
                    return self
                raise NotImplementedError("mindtorch slices a device mesh into one dimension at a time")
            mesh_dim_names = mesh_dim_names[0]
        if self.mesh_dim_names is None:
            raise RuntimeError("Cannot slice a DeviceMesh without mesh_dim_names!")
        dim = self._dim(mesh_dim_names)
        coord = self.get_coordinate()
        if coord is None:
            raise RuntimeError(f"rank {c10d.get_rank()} is not part of this device mesh")
        index = tuple(slice(None) if d == dim else coord[d] for d in range(self.ndim))
        line = self._grid[index]
        return DeviceMesh(self.device_type, line, mesh_dim_names=(mesh_dim_names,), _groups=[self._groups[dim]])

    @staticmethod
    def from_group(group, device_type, mesh=None, *, mesh_dim_names=None):
        """The 1-D mesh of an existing group."""
        if isinstance(group, (list, tuple)):
            raise NotImplementedError("mindtorch makes a device mesh from one group")
        ranks = c10d.get_process_group_ranks(group)
        return DeviceMesh(device_type, ranks if mesh is None else mesh, mesh_dim_names=mesh_dim_names, _groups=[group])

    def __eq__(self, other):
        return isinstance(other, DeviceMesh) and self.shape == other.shape and bool((self._grid == other._grid).all())

    def __hash__(self):
        return hash((self.shape, tuple(self._grid.reshape(-1).tolist())))

    def __repr__(self):
        names = "" if self.mesh_dim_names is None else f", mesh_dim_names={self.mesh_dim_names}"
        return f"DeviceMesh('{self.device_type}', {self._grid.tolist()}{names})"


def init_device_mesh(device_type, mesh_shape, *, mesh_dim_names=None, backend_override=None):
    """A mesh of every rank of the job, in rank order, of shape `mesh_shape`."""
    if isinstance(mesh_shape, int):
        mesh_shape = (mesh_shape,)
    if mesh_dim_names is not None and len(set(mesh_dim_names)) != len(mesh_dim_names):
        raise RuntimeError(f"Each mesh_dim_name must be unique. Found repeated mesh_dim_name in {mesh_dim_names}")
    if mesh_dim_names is not None and len(mesh_shape) != len(mesh_dim_names):
        raise RuntimeError(
            f"mesh_shape and mesh_dim_names should have same length! Found len(mesh_dim_names): "
            f"{len(mesh_dim_names)} and len(mesh_shape):{len(mesh_shape)}."
        )
    if device_type and not device_type.isalpha():
        raise RuntimeError(
            f"Device type with index is not supported but got {device_type}. "
            "If you maintained a 'torch.device' object, it's recommended to pass in 'device.type'."
        )
    world = c10d.get_world_size()
    if int(np.prod(mesh_shape)) != world:
        raise RuntimeError(
            f"mesh_shape {tuple(mesh_shape)} has {int(np.prod(mesh_shape))} ranks, the world has {world}"
        )
    grid = np.arange(world, dtype=np.int64).reshape(tuple(mesh_shape))
    return DeviceMesh(device_type, grid, mesh_dim_names=mesh_dim_names)
