"""mindtorch.utils.checkpoint: activation checkpointing (torch.utils.checkpoint).

The wrapped function runs without recording a graph; its inputs (and the random state) are kept, and
backward runs it again with grad enabled to get the gradients. Memory for intermediate activations
is traded for a second forward, as in PyTorch. Both use_reentrant modes recompute this way; the
graph node is one Function's node either way (PyTorch's non-reentrant mode shows the last op's). With use_reentrant=False, context_fn's two
context managers wrap the forward and the recomputation, and the recomputed outputs are checked
against the forward's (determinism_check="default").

Selective checkpointing (create_selective_checkpoint_contexts) needs each op of the recomputation to be
intercepted; mindtorch's dispatcher has no per-op hook, so every op is recomputed: the result of a
policy that answers PREFER_RECOMPUTE everywhere (same values and gradients, more recomputation).
"""

import contextlib
import enum
import warnings

import mindtorch
from mindtorch.autograd import Function

from ._pytree import tree_leaves

__all__ = [
    "checkpoint",
    "checkpoint_sequential",
    "CheckpointError",
    "CheckpointPolicy",
    "SAC_IGNORED_OPS",
    "SelectiveCheckpointContext",
    "check_backward_validity",
    "create_selective_checkpoint_contexts",
    "detach_variable",
    "get_device_states",
    "noop_context_fn",
    "set_checkpoint_debug_enabled",
    "set_checkpoint_early_stop",
    "set_device_states",
]


class CheckpointError(RuntimeError):
    """The recomputation of a checkpointed function did not reproduce its forward."""


class CheckpointPolicy(enum.Enum):
    """What selective checkpointing does with an op's output: save it or recompute it in backward
    (MUST_* binding, PREFER_* a hint), or keep it in host memory."""

    MUST_SAVE = 0
    PREFER_SAVE = 1
    MUST_RECOMPUTE = 2
    PREFER_RECOMPUTE = 3
    MUST_CPU_OFFLOAD = 4
    PREFER_CPU_OFFLOAD = 5


# ops that only read a tensor's metadata: never saved nor counted by selective checkpointing
SAC_IGNORED_OPS = frozenset(getattr(mindtorch.ops, name) for name in ("detach",) if hasattr(mindtorch.ops, name))


class SelectiveCheckpointContext:
    """What a selective-checkpointing policy function is given besides the op and its arguments."""

    def __init__(self, *, is_recompute, op_output=None):
        self.is_recompute = is_recompute
        self.op_output = op_output


class _SelectiveContext:
    """One of the pair of context managers create_selective_checkpoint_contexts returns."""

    def __init__(self, policy_fn, is_recompute, allow_cache_entry_mutation):
        self.policy_fn = policy_fn
        self.is_recompute = is_recompute
        self.allow_cache_entry_mutation = allow_cache_entry_mutation

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def create_selective_checkpoint_contexts(policy_fn_or_list, allow_cache_entry_mutation=False):
    """The (forward, recomputation) context managers of selective checkpointing, for context_fn: given a
    policy function policy_fn(ctx, op, *args, **kwargs) -> CheckpointPolicy, or a list of ops to save."""
    if isinstance(policy_fn_or_list, list):
        for op in policy_fn_or_list:
            if not callable(op):
                raise ValueError(f"Expected op in `op_list` to be an OpOverload but got: {op} of type {type(op)}. ")
        ops = list(policy_fn_or_list)

        def policy_fn(ctx, op, *args, **kwargs):
            return CheckpointPolicy.MUST_SAVE if op in ops else CheckpointPolicy.PREFER_RECOMPUTE

    elif callable(policy_fn_or_list):
        policy_fn = policy_fn_or_list
    else:
        raise TypeError("policy_fn_or_list must be either a function or a list of ops.")
    return (
        _SelectiveContext(policy_fn, False, allow_cache_entry_mutation),
        _SelectiveContext(policy_fn, True, allow_cache_entry_mutation),
    )


def noop_context_fn():
    return contextlib.nullcontext(), contextlib.nullcontext()


# process-wide overrides of checkpoint's debug and early_stop arguments (None: the argument decides)
_debug_enabled = None
_early_stop = True


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled):
    """Within the block, checkpoint's debug argument is overridden by `enabled` (None: not overridden)."""
    global _debug_enabled
    prev, _debug_enabled = _debug_enabled, enabled
    try:
        yield
    finally:
        _debug_enabled = prev


@contextlib.contextmanager
def set_checkpoint_early_stop(enable):
    """Within the block, whether recomputation may stop once the needed tensors are back. mindtorch's
    recomputation reruns the whole function, so the setting changes no result."""
    global _early_stop
    prev, _early_stop = _early_stop, enable
    try:
        yield
    finally:
        _early_stop = prev


def check_backward_validity(inputs):
    if not any(inp.requires_grad for inp in inputs if isinstance(inp, mindtorch.Tensor)):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2)


def detach_variable(inputs):
    """The tuple with each tensor detached, keeping its requires_grad."""
    if not isinstance(inputs, tuple):
        raise RuntimeError(f"Only tuple of tensors is supported. Got Unsupported input type: {type(inputs).__name__}")
    out = []
    for inp in inputs:
        if isinstance(inp, mindtorch.Tensor):
            x = inp.detach()
            x.requires_grad = inp.requires_grad
            inp = x
        out.append(inp)
    return tuple(out)


def _accelerator_tensors(args):
    return [a for a in tree_leaves(args) if isinstance(a, mindtorch.Tensor) and a.device.type not in ("cpu", "meta")]


def get_device_states(*args):
    """([device index], [its random state]) for the accelerator devices the tensors in args are on."""
    tensors = _accelerator_tensors(args)
    if not tensors:
        return [], []
    module = mindtorch.get_device_module(tensors[0].device.type)
    ids = [t.get_device() for t in tensors if t.device.type == tensors[0].device.type]
    return ids, [module.get_rng_state(i) for i in ids]


def set_device_states(devices, states, *, device_type=None):
    """Restore random states got by get_device_states."""
    if device_type is None:
        device_type = "cuda"
    if device_type == "meta":
        return
    module = mindtorch.get_device_module(device_type)
    for device, state in zip(devices, states):
        module.set_rng_state(state, device)


class CheckpointFunction(Function):
    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        return _CheckpointRun.forward(ctx, run_function, preserve_rng_state, None, *args)

    @staticmethod
    def backward(ctx, *grads):
        return _CheckpointRun.backward(ctx, *grads)[1:]


class _CheckpointRun(Function):
    """The checkpointed call; `contexts` (use_reentrant=False): context_fn's managers for the forward and
    the recomputation, with the recomputed outputs checked against the forward's."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, contexts, *args):
        ctx.contexts = contexts
        ctx.run_function = run_function
        ctx.rng_state = mindtorch.get_rng_state() if preserve_rng_state else None
        ctx.tensor_at = [i for i, a in enumerate(args) if isinstance(a, mindtorch.Tensor)]
        ctx.others = [None if isinstance(a, mindtorch.Tensor) else a for a in args]
        ctx.save_for_backward(*[args[i] for i in ctx.tensor_at])
        with mindtorch.no_grad(), contexts[0] if contexts else contextlib.nullcontext():
            out = run_function(*args)
        ctx.out_meta = _metadata(out) if contexts and contexts[2] else None
        return out

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
            with mindtorch.enable_grad(), ctx.contexts[1] if ctx.contexts else contextlib.nullcontext():
                outputs = ctx.run_function(*args)
        finally:
            mindtorch.set_rng_state(current)
        if ctx.out_meta is not None and _metadata(outputs) != ctx.out_meta:
            raise CheckpointError(
                "torch.utils.checkpoint: Recomputed values for the following tensors have different metadata "
                f"than during the forward pass.\nforward: {ctx.out_meta}\nrecomputation: {_metadata(outputs)}"
            )
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
        return (None, None, None) + tuple(grad_of.get(i) for i in range(len(args)))


def _metadata(outputs):
    return tuple((tuple(t.shape), t.dtype, t.device) for t in tree_leaves(outputs) if isinstance(t, mindtorch.Tensor))


def checkpoint(
    function,
    *args,
    use_reentrant=None,
    context_fn=noop_context_fn,
    determinism_check="default",
    debug=False,
    early_stop=True,
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
    if use_reentrant is not False:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
        return CheckpointFunction.apply(run, preserve_rng_state, *args)
    if (_debug_enabled if _debug_enabled is not None else debug) and context_fn is not noop_context_fn:
        raise ValueError("debug=True is incompatible with non-default context_fn")
    if determinism_check not in ("default", "none"):
        raise ValueError(f"determinism_check should be one of ['default', 'none'], but got {determinism_check}")
    forward_context, recompute_context = context_fn()
    contexts = (forward_context, recompute_context, determinism_check == "default")
    return _CheckpointRun.apply(run, preserve_rng_state, contexts, *args)


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
