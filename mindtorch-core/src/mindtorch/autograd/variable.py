"""Variable: the pre-0.4 wrapper of a tensor, kept as PyTorch keeps it.

Tensors and Variables were merged long ago: Variable(t) is a tensor sharing t's data without its history,
and every tensor is an instance of Variable.
"""

import warnings

from .._tensor import Tensor


class VariableMeta(type):
    def __instancecheck__(cls, other):
        return isinstance(other, Tensor)


class Variable(metaclass=VariableMeta):
    def __new__(cls, data=None, requires_grad=False, volatile=False):
        import mindtorch

        if volatile and requires_grad:
            raise ValueError("Variable can't be volatile and require_grad at the same time!")
        if volatile:
            warnings.warn(
                "volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
                UserWarning,
                stacklevel=2,
            )
        if data is None:
            data = mindtorch.empty(0)
        elif not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        out = data.detach()
        out.requires_grad_(bool(requires_grad))
        return out


def variable(*args, **kwargs):
    """The old factory of Variables, gone: tensors are made with mindtorch.tensor."""
    raise RuntimeError("torch.autograd.variable(...) is deprecated, use torch.tensor(...) instead")
