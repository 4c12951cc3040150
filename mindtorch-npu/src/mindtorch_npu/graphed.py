"""make_graphed_callables: functions and modules whose forward and backward each replay an NPU graph.

PyTorch's semantics (torch.cuda.make_graphed_callables): warm-up iterations on a side stream, then one
capture of every callable's forward (in order) and of its backward (in reverse order), all in one memory
pool; the graphed callable copies its inputs into the captured (static) inputs, replays, and returns
detached views of the static outputs through an autograd Function whose backward replays the backward
graph. Only tensors may be passed, module buffers may not require grad, modules may not have hooks yet.
"""

import mindtorch
from mindtorch.plugins import tree_flatten, tree_leaves, tree_unflatten

from .graphs import NPUGraph, graph, graph_pool_handle
from .module import synchronize
from .streams import Stream, stream as _stream_ctx


def _check_callable(c, args):
    if isinstance(c, mindtorch.nn.Module):
        if getattr(c, "_backward_hooks", None) or c._forward_hooks or c._forward_pre_hooks:
            raise AssertionError(
                "Modules must not have hooks registered at the time they are passed. However, registering hooks "
                "on modules after passing them through make_graphed_callables is allowed."
            )
        if any(b.requires_grad for b in c.buffers()):
            raise AssertionError(
                "In any nn.Module passed to make_graphed_callables, only parameters may be trainable. "
                "All buffers must have requires_grad=False."
            )
    flat = tuple(tree_leaves(args))
    if not all(isinstance(a, mindtorch.Tensor) for a in flat):
        raise AssertionError("sample_args for each callable must contain only Tensors. Other types are not allowed.")
    return flat


def _grads(outputs, inputs, grad_outputs, allow_unused):
    """Gradients of the outputs that require grad w.r.t. the inputs that do (None where unused)."""
    outs = tuple(o for o in outputs if o.requires_grad)
    ins = tuple(i for i in inputs if i.requires_grad)
    if not outs or not ins:
        return ()
    return mindtorch.autograd.grad(
        outputs=outs, inputs=ins, grad_outputs=grad_outputs, only_inputs=True, allow_unused=allow_unused
    )


def _warm_up(callables, args_list, surfaces, iters, allow_unused):
    synchronize()
    with _stream_ctx(Stream()):
        for func, args, surface in zip(callables, args_list, surfaces):
            for _ in range(iters):
                outputs = tuple(tree_leaves(func(*args)))
                grad_outputs = tuple(mindtorch.empty_like(o) for o in outputs if o.requires_grad)
                _grads(outputs, surface, grad_outputs, allow_unused)
                del outputs, grad_outputs
    synchronize()


class _Captured:
    """One callable's graphs and static tensors."""

    def __init__(self, n_user_args, surface):
        self.n_user_args, self.surface = n_user_args, surface
        self.fwd, self.bwd = NPUGraph(), NPUGraph()
        self.outputs = self.spec = self.grad_outputs = self.grad_inputs = None

    def capture_forward(self, func, args, pool):
        with graph(self.fwd, pool=pool):
            out = func(*args)
        flat, self.spec = tree_flatten(out)
        self.outputs = tuple(flat)

    def capture_backward(self, pool, allow_unused):
        self.grad_outputs = tuple(mindtorch.empty_like(o) if o.requires_grad else None for o in self.outputs)
        with graph(self.bwd, pool=pool):
            grads = _grads(
                self.outputs, self.surface, tuple(g for g in self.grad_outputs if g is not None), allow_unused
            )
        it = iter(grads)
        self.grad_inputs = tuple(next(it) if i.requires_grad else None for i in self.surface)

    def function(self):
        cap = self

        class Graphed(mindtorch.autograd.Function):
            @staticmethod
            def forward(ctx, *inputs):
                for i in range(cap.n_user_args):  # static inputs: the addresses the graph reads
                    if cap.surface[i].data_ptr() != inputs[i].data_ptr():
                        cap.surface[i].copy_(inputs[i])
                cap.fwd.replay()
                return tuple(o.detach() for o in cap.outputs)

            @staticmethod
            @mindtorch.autograd.function.once_differentiable
            def backward(ctx, *grads):
                for static, g in zip(cap.grad_outputs, grads):
                    if static is not None and g is not None and static.data_ptr() != g.data_ptr():
                        static.copy_(g)
                cap.bwd.replay()
                return tuple(g.detach() if g is not None else None for g in cap.grad_inputs)

        return Graphed


def _functionalize(cap, params):
    graphed = cap.function()

    def functionalized(*user_args):
        flat = tree_leaves(user_args)
        out = graphed.apply(*(tuple(flat) + params))
        return tree_unflatten(list(out), cap.spec)

    return functionalized


def _graph_module(module, fn, training):
    original = module.forward

    def forward(*user_args):
        # the graphs hold one training state: the other one runs eagerly
        return fn(*user_args) if module.training == training else original(*user_args)

    module.forward = forward
    return module


def make_graphed_callables(callables, sample_args, num_warmup_iters=3, allow_unused_input=False, pool=None):
    """Graphed versions of `callables` (a function / module, or a tuple of them with a tuple of sample-arg
    tuples): each call replays the captured forward graph, its backward the captured backward graph."""
    if mindtorch.is_autocast_enabled() and mindtorch.is_autocast_cache_enabled():
        raise RuntimeError(
            "make_graphed_callables does not support the autocast caching. Please set `cache_enabled=False`."
        )
    just_one = not isinstance(callables, tuple)
    if just_one:
        callables, sample_args = (callables,), (sample_args,)
    flat_args = [_check_callable(c, a) for c, a in zip(callables, sample_args)]
    params = [tuple(c.parameters()) if isinstance(c, mindtorch.nn.Module) else () for c in callables]
    surfaces = [a + p for a, p in zip(flat_args, params)]
    _warm_up(callables, sample_args, surfaces, num_warmup_iters, allow_unused_input)

    pool = graph_pool_handle() if pool is None else pool
    caps = [_Captured(len(a), s) for a, s in zip(flat_args, surfaces)]
    for cap, func, args in zip(caps, callables, sample_args):
        cap.capture_forward(func, args, pool)
    for cap in reversed(caps):  # backward graphs in the order backward runs them
        cap.capture_backward(pool, allow_unused_input)

    out = []
    for cap, func, p in zip(caps, callables, params):
        fn = _functionalize(cap, p)
        if isinstance(func, mindtorch.nn.Module):
            fn = _graph_module(func, fn, func.training)
        out.append(fn)
    return out[0] if just_one else tuple(out)
