"""mindtorch-meta: tensors with shapes and dtypes but no data.

Every op's output comes from core's shape-and-dtype rules, so the meta
device checks shapes exactly as the real devices do, without memory.
"""

from mindtorch.plugins import Backend

__version__ = "0.1.0"
DEVICE = "meta"


class MetaAllocator:
    """Hands out storages with a size and no memory."""

    def allocate(self, nbytes, device):
        from mindtorch.plugins import Storage

        return Storage(device, nbytes, None, None)

    def free(self, storage):
        pass

    def bytes_in_use(self, device=None):
        return 0

    def data_ptr(self, storage):
        return 0


class MetaCopy:
    def to_host(self, t):
        raise NotImplementedError("Cannot copy out of meta tensor; no data! Please use a real device instead.")

    def from_host(self, array, dtype, device):
        return empty(tuple(array.shape), dtype, device)

    def copy_from_host(self, dst, array):
        return dst


ALLOCATOR = MetaAllocator()
COPY = MetaCopy()


def empty(shape, dtype, device):
    from mindtorch.plugins import Storage, contiguous_strides, make_tensor, numel

    st = Storage(device, numel(shape) * dtype.itemsize, None, None)
    return make_tensor(st, tuple(shape), contiguous_strides(shape), 0, dtype, device)


def _from_meta(m, device):
    if isinstance(m, tuple):
        return tuple(_from_meta(x, device) for x in m)
    return empty(tuple(m.shape), m.dtype, device)


def _generic(op):
    from mindtorch.plugins import device as _dev

    meta_device = _dev(DEVICE)
    if op.inplace:

        def inplace_kernel(m, self, *args):
            return self

        return inplace_kernel

    def kernel(m, *args):
        if m is None:
            raise NotImplementedError(f"'{op.qualname}' has no shape rule, so it cannot run on the meta device")
        return _from_meta(m, meta_device)

    return kernel


class MetaBackend(Backend):
    device_type = DEVICE

    def allocator(self):
        return ALLOCATOR

    def copy_routines(self):
        return COPY

    def kernels(self):
        """One generic kernel per op that has a shape rule: outputs are built from the rule."""
        from mindtorch.plugins import OPS

        table = {
            name: _generic(op)
            for name, op in OPS.items()
            if op.view_fn is None and op.composite is None and (op.meta is not None or op.inplace)
        }
        if "_to_copy" in OPS:
            table["_to_copy"] = _to_copy(table["_to_copy"])
        return table

    def generator(self, index):
        return MetaGenerator()


def _to_copy(generic):
    """meta -> meta keeps no data; meta -> a real device has nothing to copy (PyTorch's error)."""

    def kernel(m, self, dtype=None, device=None, non_blocking=False):
        if device is not None and device.type != DEVICE:
            raise NotImplementedError("Cannot copy out of meta tensor; no data!")
        return generic(m, self, dtype, device, non_blocking)

    return kernel


class MetaGenerator:
    """Random ops on meta draw nothing; the state only records the seed."""

    def __init__(self):
        self._seed = 67280421310721

    def manual_seed(self, seed):
        self._seed = seed

    def seed(self):
        return self._seed

    def initial_seed(self):
        return self._seed

    def get_state(self):
        raise NotImplementedError("meta generators have no state")

    def set_state(self, state):
        raise NotImplementedError("meta generators have no state")


backend = MetaBackend()
