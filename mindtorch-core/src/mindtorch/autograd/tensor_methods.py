"""The Tensor methods autograd owns: backward, grad_fn and gradient hooks (attached on import)."""

from .._tensor import Tensor
from .graph import RemovableHandle
from .views import refresh_view_grad_fn


@property
def grad_fn(self):
    if self._base is not None and self._requires_grad:
        refresh_view_grad_fn(self)
    return self._grad_fn


def register_hook(self, hook):
    if not self._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    fn = self.grad_fn
    if fn is not None:
        # non-leaf: a tensor pre-hook on the node that produces this output
        return fn.add_tensor_pre_hook(self._output_nr, hook)
    if self._hooks is None:
        self._hooks = {}
    handle = RemovableHandle(self._hooks)
    self._hooks[handle.id] = hook
    return handle


def register_post_accumulate_grad_hook(self, hook):
    if not self._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if self._grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    table = self.__dict__.setdefault("_post_accumulate_hooks", {})
    handle = RemovableHandle(table)
    table[handle.id] = hook
    return handle


def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    import mindtorch  # autograd.backward, defined by the package that imports this module

    mindtorch.autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)


Tensor.grad_fn = grad_fn
Tensor.register_hook = register_hook
Tensor.register_post_accumulate_grad_hook = register_post_accumulate_grad_hook
Tensor.backward = backward
