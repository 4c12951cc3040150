"""mindtorch.utils.checkpoint: activation checkpointing (torch.utils.checkpoint).

The wrapped function runs without recording a graph; its inputs (and the random state) are kept, and
backward runs it again with grad enabled to get the gradients. Memory for intermediate activations
is traded for a second forward, as in PyTorch. Both use_reentrant modes recompute this way; the
graph node is a CheckpointFunctionBackward in either case.
"""

import warnings

import mindtorch
from mindtorch.autograd import Function

__all__ = ["checkpoint", "checkpoint_sequential"]


class CheckpointFunction(Function):
    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        ctx.run_function = run_function
        ctx.rng_state = mindtorch.get_rng_state() if preserve_rng_state else None
        ctx.tensor_at = [i for i, a in enumerate(args) if isinstance(a, mindtorch.Tensor)]
        ctx.others = [None if isinstance(a, mindtorch.Tensor) else a for a in args]
        ctx.save_for_backward(*[args[i] for i in ctx.tensor_at])
        with mindtorch.no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        args = list(ctx.others)
        inputs = []
        for i, t in zip(ctx.tensor_at, ctx.saved_tensors):
            d = t.detach()
            d.requires_grad_(t.requires_grad)
            args[i] = d
            inputs.append(d)
        current = mindtorch.get_rng_state()
        if ctx.rng_state is not None:
            mindtorch.set_rng_state(ctx.rng_state)  # the recomputation draws the same dropout masks
        try:
            with mindtorch.enable_grad():
                outputs = ctx.run_function(*args)
        finally:
            mindtorch.set_rng_state(current)
        if isinstance(outputs, mindtorch.Tensor):
            outputs = (outputs,)
        pairs = [
            (o, g)
            for o, g in zip(outputs, grads)
            if isinstance(o, mindtorch.Tensor) and o.requires_grad and g is not None
        ]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        mindtorch.autograd.backward([o for o, _ in pairs], [g for _, g in pairs])
        grad_of = {i: d.grad for i, d in zip(ctx.tensor_at, inputs)}
        return (None, None) + tuple(grad_of.get(i) for i in range(len(args)))


def checkpoint(
    function,
    *args,
    use_reentrant=None,
    context_fn=None,
    determinism_check="default",
    debug=False,
    preserve_rng_state=True,
    **kwargs,
):
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. "
            "use_reentrant=False is recommended.",
            UserWarning,
            stacklevel=2,
        )
    if kwargs:
        run = (lambda f, kw: lambda *a: f(*a, **kw))(function, kwargs)
    else:
        run = function
    return CheckpointFunction.apply(run, preserve_rng_state, *args)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run a Sequential (or list of modules) in `segments` chunks, checkpointing all but the last."""
    if isinstance(functions, mindtorch.nn.Sequential):
        functions = list(functions.children())
    n = len(functions)
    size = n // segments

    def run_range(start, end):
        def forward(x):
            for j in range(start, end + 1):
                x = functions[j](x)
            return x

        return forward

    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run_range(start, end), input, use_reentrant=use_reentrant, **kwargs)
    return run_range(end + 1, n - 1)(input)
