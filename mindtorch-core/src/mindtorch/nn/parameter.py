"""nn.Parameter: a Tensor subclass that Modules register as a parameter."""

from collections import OrderedDict

from .._tensor import PLAIN_CLASSES, Tensor, make_tensor


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


PLAIN_CLASSES.add(Parameter)  # ops see a Parameter as the Tensor it is (PyTorch disables its __torch_function__)


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


class UninitializedTensorMixin:
    """A tensor without data until materialize(shape) gives it storage and turns it into cls_to_become."""

    cls_to_become = None

    def materialize(self, shape, device=None, dtype=None):
        import mindtorch

        device = self.device if device is None else device
        dtype = self.dtype if dtype is None else dtype
        self.data = mindtorch.empty(tuple(shape), device=device, dtype=dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error usually "
            "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
            "initialized one. Call `forward` to initialize the parameters before accessing their "
            "attributes."
        )

    def __repr__(self):
        return f"<{self.__class__.__name__}>"

    def __reduce_ex__(self, proto):
        return (self.__class__, (self.requires_grad,))

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.requires_grad, self.device, self.dtype)
        return memo[id(self)]


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        import mindtorch

        return Parameter.__new__(cls, mindtorch.empty(0, device=device, dtype=dtype), requires_grad)

    def __init__(self, requires_grad=True, device=None, dtype=None):
        pass


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None):
        import mindtorch

        data = mindtorch.empty(0, device=device, dtype=dtype)
        b = make_tensor(data._storage, data._shape, data._stride, data._offset, data.dtype, data.device, cls)
        b.requires_grad_(requires_grad)
        return b

    def __init__(self, requires_grad=False, device=None, dtype=None):
        pass


def is_lazy(x):
    return isinstance(x, UninitializedTensorMixin)


_empty_hooks = OrderedDict
