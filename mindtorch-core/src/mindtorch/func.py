"""mindtorch.func: function transforms in eager form.

vmap runs the function once per batch entry and stacks the results (what a vectorizing transform computes,
at a loop's cost); grad and grad_and_value differentiate a function with autograd; jvp and linearize
(in _func_forward) get Jacobian-vector products from reverse mode; functional_call runs a module with the
parameters and buffers it is given instead of its own.
"""

import contextlib
import functools

import mindtorch

from ._func_forward import jvp, linearize

__all__ = [
    "vmap",
    "grad",
    "grad_and_value",
    "functional_call",
    "jacrev",
    "jacfwd",
    "hessian",
    "vjp",
    "jvp",
    "linearize",
    "functionalize",
    "stack_module_state",
    "replace_all_batch_norm_modules_",
    "debug_unwrap",
]


def _flatten_in_dims(args, in_dims):
    dims = in_dims if isinstance(in_dims, (tuple, list)) else (in_dims,) * len(args)
    if len(dims) != len(args):
        raise ValueError(
            f"vmap: in_dims is not compatible with the structure of `inputs`. in_dims has structure "
            f"{len(dims)} entries but inputs has {len(args)}."
        )
    return dims


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """Map func over a batch dim of its tensor arguments (in_dims: one dim, or one per argument, None to
    broadcast an argument) and stack the results along out_dims."""

    def mapped(*args, **kwargs):
        dims = _flatten_in_dims(args, in_dims)
        sizes = {a.shape[d] for a, d in zip(args, dims) if d is not None and isinstance(a, mindtorch.Tensor)}
        if not sizes:
            raise ValueError("vmap: at least one input must be a tensor mapped over a dim (in_dims not None)")
        if len(sizes) > 1:
            raise ValueError(
                f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                f"{sorted(sizes)} for the mapped dimension"
            )
        n = sizes.pop()
        results = []
        for i in range(n):
            call = [
                a.select(d, i) if d is not None and isinstance(a, mindtorch.Tensor) else a for a, d in zip(args, dims)
            ]
            results.append(func(*call, **kwargs))
        return _stack(results, out_dims)

    return mapped


def _stack(results, out_dims):
    first = results[0]
    if isinstance(first, mindtorch.Tensor):
        return mindtorch.stack(results, out_dims if isinstance(out_dims, int) else out_dims[0])
    if isinstance(first, (tuple, list)):
        dims = out_dims if isinstance(out_dims, (tuple, list)) else (out_dims,) * len(first)
        return type(first)(_stack([r[k] for r in results], dims[k]) for k in range(len(first)))
    if isinstance(first, dict):
        return {k: _stack([r[k] for r in results], out_dims) for k in first}
    raise ValueError(f"vmap: `func` must return tensors (or tuples/lists/dicts of them), got {type(first).__name__}")


def grad_and_value(func, argnums=0, has_aux=False):
    """func's gradient with respect to the argument(s) argnums, and its value."""

    def wrapped(*args, **kwargs):
        nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
        with mindtorch.enable_grad():
            args = list(args)
            for i in nums:
                args[i] = args[i].detach().requires_grad_(True)
            out = func(*args, **kwargs)
            value, aux = (out[0], out[1]) if has_aux else (out, None)
            if not isinstance(value, mindtorch.Tensor) or value.numel() != 1:
                raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor")
            grads = mindtorch.autograd.grad(value, [args[i] for i in nums], allow_unused=True)
        grads = [g if g is not None else mindtorch.zeros_like(args[i]) for g, i in zip(grads, nums)]
        g = grads[0] if isinstance(argnums, int) else tuple(grads)
        value = value.detach()
        return (g, (value, aux)) if has_aux else (g, value)

    return wrapped


def grad(func, argnums=0, has_aux=False):
    """The gradient of a scalar function with respect to the argument(s) argnums."""
    gv = grad_and_value(func, argnums, has_aux)

    def wrapped(*args, **kwargs):
        g, value = gv(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return wrapped


def vjp(func, *primals):
    """func(*primals) and a function mapping a cotangent to the vector-Jacobian products."""
    with mindtorch.enable_grad():
        inputs = [p.detach().requires_grad_(True) for p in primals]
        out = func(*inputs)

    def pullback(cotangent):
        return tuple(
            g if g is not None else mindtorch.zeros_like(x)
            for g, x in zip(
                mindtorch.autograd.grad(out, inputs, cotangent, retain_graph=True, allow_unused=True), inputs
            )
        )

    return out.detach(), pullback


def jacrev(func, argnums=0):
    """The Jacobian of func with respect to argument argnums, one reverse pass per output element."""

    def wrapped(*args):
        x = args[argnums]
        with mindtorch.enable_grad():
            xs = x.detach().requires_grad_(True)
            call = list(args)
            call[argnums] = xs
            out = func(*call)
            rows = []
            flat = out.reshape(-1)
            for k in range(flat.numel()):
                g = mindtorch.autograd.grad(flat[k], xs, retain_graph=True, allow_unused=True)[0]
                rows.append(g if g is not None else mindtorch.zeros_like(xs))
        return mindtorch.stack(rows).reshape(tuple(out.shape) + tuple(x.shape))

    return wrapped


jacfwd = jacrev  # the same Jacobian (computed in reverse mode)


def hessian(func, argnums=0):
    return jacrev(jacrev(func, argnums), argnums)


@contextlib.contextmanager
def _swapped(module, tensors):
    saved = {}
    try:
        for name, value in tensors.items():
            owner, _, attr = name.rpartition(".")
            mod = module.get_submodule(owner) if owner else module
            store = mod._parameters if attr in mod._parameters else mod._buffers if attr in mod._buffers else None
            if store is None:
                raise AttributeError(f"{type(mod).__name__} has no parameter or buffer named {attr!r}")
            saved[name] = (store, attr, store[attr])
            store[attr] = value
        yield
    finally:
        for store, attr, old in saved.values():
            store[attr] = old


def functional_call(module, parameter_and_buffer_dicts, args=(), kwargs=None, *, tie_weights=True, strict=False):
    """module(*args, **kwargs) computed with the given parameters and buffers in place of its own."""
    dicts = parameter_and_buffer_dicts
    if isinstance(dicts, (tuple, list)):
        merged = {}
        for d in dicts:
            merged.update(d)
        dicts = merged
    if strict:
        expected = {n for n, _ in module.named_parameters()} | {n for n, _ in module.named_buffers()}
        missing = expected - set(dicts)
        if missing:
            raise RuntimeError(f"Missing key(s): {', '.join(sorted(missing))}.")
    args = args if isinstance(args, tuple) else (args,)
    with _swapped(module, dicts):
        return module(*args, **(kwargs or {}))


_FUNCTIONALIZE_MODES = ("mutations", "mutations_and_views")


def functionalize(func, *, remove="mutations"):
    """func with its intermediate mutations (and views) rewritten out of place, for graph capture. Run
    eagerly, as here, the result is func's own: same outputs, and in-place changes of the inputs applied
    to them, which is what functionalize guarantees."""
    if remove not in _FUNCTIONALIZE_MODES:
        raise RuntimeError(
            f"functionalize(f, remove='mutations'): received invalid argument for remove={remove}. Valid "
            "options are:\n     remove='mutations': all inplace and out= operators will be removed from the "
            "program, and replaced with their out-of-place equivalents.\n     remove='mutations_and_views': "
            "In addition to the above, all aliasing operators {view} will be replaced with their non-aliasing "
            "counterparts, {view}_copy.\n"
        )

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        return func(*args, **kwargs)

    return wrapped


def _stacked_leaf(tensors, name):
    wanting = [t.requires_grad for t in tensors]
    if any(wanting) and not all(wanting):
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    out = mindtorch.stack(tensors)
    return out.detach().requires_grad_() if all(wanting) else out


def stack_module_state(models):
    """({name: the models' parameters stacked on a new leading dim}, the same for buffers), for running an
    ensemble with vmap and functional_call; stacked parameters are new leaves."""
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if len({m.training for m in models}) != 1:
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    if len({type(m) for m in models}) != 1:
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    stacked = []
    for named in ("named_parameters", "named_buffers"):
        tables = [dict(getattr(m, named)()) for m in models]
        stacked.append({k: _stacked_leaf(tuple(t[k] for t in tables), k) for k in tables[0]})
    return tuple(stacked)


def replace_all_batch_norm_modules_(root):
    """Make every batch-norm module in root use batch statistics only (no running stats), in place."""
    for module in root.modules():
        if isinstance(module, mindtorch.nn.modules.batchnorm._BatchNorm) and module.track_running_stats:
            module.running_mean = None
            module.running_var = None
            module.num_batches_tracked = None
            module.track_running_stats = False
    return root


def debug_unwrap(tensor, *, recurse=True):
    """The tensor under a transform's wrapper. mindtorch's transforms hand functions plain tensors (vmap
    slices, grad detaches), so there is no wrapper and the tensor is its own underlying tensor."""
    return tensor
