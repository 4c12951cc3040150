"""Autograd for in-place ops on views (PyTorch's CopySlices / view rebase).

When a view of a tensor that is part of a graph is modified in place, the
base's history is rewritten: the base's new grad_fn is a CopySlices node
that routes the gradient of the modified region through the in-place op and
the rest straight to the base's old history. The view's grad_fn then becomes
an as_strided view of the base's new history.
"""

from .graph import Node, gradient_edge


class _Geometry:
    """Where a view sits in its base, in the view's own elements (a real view of a complex base counts
    two per base element)."""

    __slots__ = ("shape", "stride", "offset", "dtype")

    def __init__(self, t, base):
        self.shape = t._shape
        self.stride = t._stride
        self.dtype = t.dtype if t.dtype is not base.dtype else None
        self.offset = t._offset - base._offset * base.dtype.itemsize // t.dtype.itemsize

    def region(self, flat):
        """This view's elements within `flat`, a dense buffer laid out like the base from offset 0."""
        space = flat if self.dtype is None else flat.view(self.dtype)
        return space.as_strided(self.shape, stride=self.stride, storage_offset=self.offset)


def _zeros_like_layout(base_shape, base_stride, dtype, device):
    """Zeros with the base's layout (offset 0), so view geometry relative to the base applies; also the flat
    buffer under them."""
    import mindtorch

    extent = 1 + sum((s - 1) * st for s, st in zip(base_shape, base_stride)) if all(base_shape) else 0
    flat = mindtorch.zeros(extent, dtype=dtype, device=device)
    return flat.as_strided(base_shape, stride=base_stride, storage_offset=0), flat


class CopySlices(Node):
    __slots__ = ("geometry", "fn", "base_shape", "base_stride")

    def __init__(self, base, view, fn):
        Node.__init__(self, None, 1)
        self.geometry = _Geometry(view, base)
        self.fn = fn
        self.base_shape = base._shape
        self.base_stride = base._stride
        # input 0: the base's previous history; then fn's inputs other than self
        n, nr = gradient_edge(base) if (base._requires_grad or base._grad_fn is not None) else (None, 0)
        if n is not None:
            self.inputs.append((0, None, n, nr, base._shape, base.dtype))
        for pi, k, node, onr, shape, dt in fn.inputs:
            if pi != 0:
                self.inputs.append((pi, k, node, onr, shape, dt))
        self.out_meta = ((base._shape, base.dtype, base.device),)

    def name(self):
        return "torch::autograd::CopySlices"

    def apply(self, grads, create_graph):
        grad = grads[0]
        g = self.geometry
        result, flat = _zeros_like_layout(self.base_shape, self.base_stride, grad.dtype, grad.device)
        result.copy_(grad)
        region = g.region(flat)
        fn_grads = self.fn.apply([region.clone()], create_graph)
        out = {}
        self_grad = fn_grads[0]
        if self_grad is None:
            region.zero_()
        else:
            region.copy_(self_grad)
        out[(0, None)] = result
        for pi, k, _, _, _, _ in self.fn.inputs:
            if pi != 0:
                v = fn_grads[pi]
                out[(pi, k)] = v[k] if k is not None else v
        return out

    def release(self):
        self.fn.release()
        Node.release(self)


class AsStridedBackward(Node):
    """grad_fn of a view whose base was rewritten in place."""

    __slots__ = ("geometry", "base_shape", "base_stride")

    def __init__(self, base, view):
        Node.__init__(self, None, 1)
        self.geometry = _Geometry(view, base)
        self.base_shape = base._shape
        self.base_stride = base._stride
        n, nr = gradient_edge(base)
        self.inputs.append((0, None, n, nr, base._shape, base.dtype))
        self.out_meta = ((view._shape, view.dtype, view.device),)

    def name(self):
        return "AsStridedBackward0"

    def apply(self, grads, create_graph):
        grad = grads[0]
        g = self.geometry
        result, flat = _zeros_like_layout(self.base_shape, self.base_stride, self.inputs[0][5], grad.device)
        g.region(flat).copy_(grad)
        return {(0, None): result}


def refresh_view_grad_fn(view):
    """Regenerate a view's grad_fn if its base was modified in place since the view's history was set."""
    base = view._base
    v = base._version
    version = 0 if v is None else v.value
    d = view.__dict__
    if d.get("_view_fn_version", 0) == version:
        return
    if not base._requires_grad:
        return
    d["_view_fn_version"] = version
    view._grad_fn = AsStridedBackward(base, view)
    view._requires_grad = True
    d.pop("_output_nr", None)


def rebase_history(self, node):
    node.out_meta = ((self._shape, self.dtype, self.device),)
    base = self._base
    if base is None:
        _move_retain_grad(self, node)
        self._grad_fn = node
        self._requires_grad = True
        self.__dict__.pop("_output_nr", None)
        return
    cs = CopySlices(base, self, node)
    _move_retain_grad(base, cs)
    base._grad_fn = cs
    base._requires_grad = True
    base.__dict__.pop("_output_nr", None)
    self._grad_fn = AsStridedBackward(base, self)
    self._requires_grad = True
    v = base._version
    self.__dict__["_view_fn_version"] = 0 if v is None else v.value


def _move_retain_grad(t, new_fn):
    """retain_grad follows the tensor to its new history after an in-place op."""
    if t._retains_grad:
        old = t._grad_fn
        if old is not None and old.retains_grad_hooks:
            hook = old.retains_grad_hooks.pop(t._output_nr, None)
            if hook is not None and new_fn is not None and new_fn is not old:
                new_fn.set_retains_grad_hook(0, hook)
