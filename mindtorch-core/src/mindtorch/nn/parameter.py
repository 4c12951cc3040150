"""nn.Parameter: a Tensor subclass that Modules register as a parameter."""
from collections import OrderedDict

from .._tensor import Tensor, make_tensor


class Parameter(Tensor):
    _is_param = True

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            import mindtorch
            data = mindtorch.empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter data must be a Tensor, got {type(data).__name__}")
        # Share the storage (and version counter) of `data`, as PyTorch does.
        p = make_tensor(data._storage, data._shape, data._stride, data._offset, data.dtype, data.device, cls)
        p._version = data._version
        p.requires_grad_(requires_grad)
        return p

    def __init__(self, data=None, requires_grad=True):
        pass

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, proto):
        from ..serialization import reduce_parameter
        return reduce_parameter(self)


class Buffer(Tensor):
    """Marker used as `self.x = nn.Buffer(t)`; registered as a plain tensor buffer."""

    def __new__(cls, data=None, *, persistent=True):
        import mindtorch
        data = mindtorch.empty(0) if data is None else data
        b = make_tensor(data._storage, data._shape, data._stride, data._offset, data.dtype, data.device, cls)
        b._version = data._version
        b.persistent = persistent
        return b

    def __init__(self, data=None, *, persistent=True):
        pass


def is_lazy(x):
    return False


_empty_hooks = OrderedDict
