"""mindtorch.autograd.Function: user-defined ops with a custom backward.

The context object passed to forward/backward is the graph node itself (as
in PyTorch), an instance of a per-Function `<Name>Backward` node class.
"""

import functools

from .._grad_mode import state as _grad_state
from .._tensor import Tensor, make_tensor
from .graph import Node, gradient_edge, save_input, save_output


class FunctionCtx:
    """Methods available on `ctx` inside forward (and backward)."""

    def save_for_backward(self, *tensors):
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(
                    "save_for_backward can only save variables, but argument "
                    f"{tensors.index(t)} is of type {type(t).__name__}"
                )
        self.to_save = tensors

    def save_for_forward(self, *tensors):
        self.saved_for_forward = tensors

    def mark_dirty(self, *args):
        self.dirty_tensors = args

    def mark_non_differentiable(self, *args):
        self.non_differentiable = args

    def set_materialize_grads(self, value):
        self.materialize_grads = bool(value)


class BackwardCFunction(Node, FunctionCtx):
    """Graph node of one Function application; also the user's ctx."""

    _forward_cls = None

    def __init__(self):
        Node.__init__(self, None, 1)
        self.to_save = ()
        self.dirty_tensors = ()
        self.non_differentiable = ()
        self.materialize_grads = True
        self.needs_input_grad = ()
        self._saved_tensors = None
        self._n_inputs = 0
        self._tensor_inputs = ()

    def name(self):
        return type(self).__name__

    @property
    def saved_tensors(self):
        self._check_freed()
        saved = self._saved_tensors
        if saved is None:
            return tuple(self.to_save)
        return tuple(s.unpack(self) if s is not None else None for s in saved)

    saved_variables = saved_tensors

    def release(self):
        self._saved_tensors = None
        self.to_save = ()
        self._freed = True

    def apply(self, grads, create_graph):
        import mindtorch

        grads = list(grads)
        if self.materialize_grads and self.out_meta:
            for k, g in enumerate(grads):
                if g is None and self.out_meta[k] is not None:
                    shape, dtype, dev = self.out_meta[k]
                    grads[k] = mindtorch.zeros(shape, dtype=dtype, device=dev)
        res = self._forward_cls.backward(self, *grads)
        if not isinstance(res, tuple):
            res = (res,)
        n = self._n_inputs
        if len(res) != n:
            if len(res) > n and all(r is None for r in res[n:]):
                res = res[:n]
            else:
                raise RuntimeError(
                    f"function {self.name()} returned an incorrect number of gradients (expected {n}, got {len(res)})"
                )
        for i, r in enumerate(res):
            if r is not None and not self._tensor_inputs[i]:
                raise RuntimeError(
                    f"function {self.name()} returned a gradient different than None at position "
                    f"{i + 1}, but the corresponding forward input was not a Variable"
                )
        return list(res)


class FunctionMeta(type):
    def __init__(cls, name, bases, attrs):
        cls._backward_cls = type(name + "Backward", (BackwardCFunction,), {"_forward_cls": cls})
        super().__init__(name, bases, attrs)


def _alias(t):
    a = make_tensor(t._storage, t._shape, t._stride, t._offset, t.dtype, t.device)
    a._version = t._version
    a._np = t._np
    return a


class Function(FunctionCtx, metaclass=FunctionMeta):
    """Subclass with static forward(ctx, *args) and backward(ctx, *grads); call via .apply."""

    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please use new-"
            "style autograd function with static forward method. (Example: "
            "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)"
        )

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD."
        )

    vjp = backward

    @classmethod
    def apply(cls, *args, **kwargs):
        ctx = cls._backward_cls()
        is_tensor = tuple(isinstance(a, Tensor) for a in args)
        needs = tuple(t and a._requires_grad for t, a in zip(is_tensor, args))
        executable = _grad_state.enabled and any(needs)
        ctx.needs_input_grad = needs if executable else tuple(False for _ in args)
        ctx._n_inputs = len(args)
        ctx._tensor_inputs = is_tensor
        custom_setup = cls.setup_context is not Function.setup_context
        prev = _grad_state.enabled
        _grad_state.enabled = False
        try:
            if custom_setup:
                outputs = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, outputs)
            else:
                outputs = cls.forward(ctx, *args, **kwargs)
        finally:
            _grad_state.enabled = prev
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        if not executable:
            return outputs
        # edges to the inputs' histories
        for i, a in enumerate(args):
            if is_tensor[i] and a._requires_grad:
                nxt, nr = gradient_edge(a)
                ctx.inputs.append((i, None, nxt, nr, a._shape, a.dtype))
            else:
                ctx.inputs.append((i, None, None, 0, None, None))
        ctx.needs = list(needs)
        dirty = {id(t) for t in ctx.dirty_tensors}
        nondiff = {id(t) for t in ctx.non_differentiable}
        inputs_by_id = {id(a) for a in args if isinstance(a, Tensor)}
        new_outs = []
        metas = []
        for k, o in enumerate(outs):
            if not isinstance(o, Tensor):
                new_outs.append(o)
                metas.append(None)
                continue
            metas.append((o._shape, o.dtype, o.device))
            if id(o) in dirty:
                from .graph import check_inplace

                check_inplace(o)
                if o._base is not None:
                    from .views import rebase_history

                    rebase_history(o, ctx)
                else:
                    o._grad_fn = ctx
                    o._requires_grad = True
                _set_nr(o, k)
                new_outs.append(o)
                continue
            if id(o) in inputs_by_id:
                o = _alias(o)  # an input returned as is becomes a new output of this node
            if id(o) in nondiff or not (o.dtype.is_floating_point or o.dtype.is_complex):
                o._requires_grad = False
                new_outs.append(o)
                continue
            o._grad_fn = ctx
            o._requires_grad = True
            _set_nr(o, k)
            new_outs.append(o)
        ctx.num_outputs = len(outs)
        ctx.out_meta = tuple(metas)
        # saved tensors: outputs are kept as raw layouts (no cycle through ctx)
        out_pos = {id(o): k for k, o in enumerate(outs) if isinstance(o, Tensor)}
        saved = []
        for t in ctx.to_save:
            if t is None:
                saved.append(None)
            elif id(t) in out_pos:
                k = out_pos[id(t)]
                saved.append(save_output(new_outs[k], k, new_outs[k]._requires_grad))
            else:
                saved.append(save_input(t))
        ctx._saved_tensors = saved
        ctx._has_saved = bool(saved)
        ctx.to_save = ()
        return new_outs[0] if single else tuple(new_outs)


def _set_nr(t, k):
    if k:
        t._output_nr = k
    else:
        t.__dict__.pop("_output_nr", None)


class _DelayedError(Node):
    """Stands for a backward marked once_differentiable; differentiating it again fails."""

    def __init__(self, msg, n):
        Node.__init__(self, None, n)
        self._msg = msg

    def name(self):
        return "DelayedError"

    def apply(self, grads, create_graph):
        raise RuntimeError(self._msg)


def once_differentiable(fn):
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        prev = _grad_state.enabled
        _grad_state.enabled = False
        try:
            outputs = fn(ctx, *args)
        finally:
            _grad_state.enabled = prev
        if not prev or not any(isinstance(a, Tensor) and a._requires_grad for a in args):
            return outputs
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        err = _DelayedError(
            "trying to differentiate twice a function that was marked with @once_differentiable", len(outs)
        )
        for i, a in enumerate(args):
            if isinstance(a, Tensor) and a._requires_grad:
                nxt, nr = gradient_edge(a)
                err.inputs.append((i, None, nxt, nr, a._shape, a.dtype))
        res = []
        for k, o in enumerate(outs):
            if isinstance(o, Tensor) and (o.dtype.is_floating_point or o.dtype.is_complex):
                o = _alias(o)
                o._requires_grad = True
                o._grad_fn = err
                _set_nr(o, k)
            res.append(o)
        return res[0] if single else tuple(res)

    return wrapper


class InplaceFunction(Function):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace


class NestedIOFunction(Function):
    pass
