"""Forward-mode transforms of mindtorch.func: jvp and linearize.

Jacobian-vector products come from reverse mode by the double-vjp identity: the vjp u -> J^T u is linear
in the cotangent u, so differentiating <J^T u, t> with respect to u gives J t. This costs two backward
passes instead of one forward, and needs first derivatives that are themselves differentiable (every
mindtorch derivative formula is).
"""

import mindtorch

from .utils._pytree import tree_flatten, tree_unflatten

JVP = "jvp(f, primals, tangents)"


def _check_tensors(flat, argname):
    if not flat:
        raise RuntimeError(f"{JVP}: Expected {argname} to contain at least one Tensor.")
    for x in flat:
        if not isinstance(x, mindtorch.Tensor):
            raise RuntimeError(f"{JVP}: Expected {argname} to only contain Tensors, got {type(x)}")


def _check_outputs(flat):
    if not flat or (len(flat) == 1 and flat[0] is None):
        raise RuntimeError(f"{JVP}: Expected f to be a function that has non-empty output (got output = {flat})")
    for o in flat:
        if not isinstance(o, mindtorch.Tensor):
            raise RuntimeError(f"{JVP}: expected f(*primals) to return only tensors, got unsupported type {type(o)}")


def _split_aux(result, has_aux):
    if not has_aux:
        return result, None
    if not (isinstance(result, tuple) and len(result) == 2):
        raise RuntimeError(f"{JVP}: output of function f should be a tuple: (output, aux) if has_aux is True")
    return result


def _tangents_out(flat_out, inputs, flat_tangents, create_graph):
    """J t for each output, by differentiating the vjp with respect to its cotangent."""
    diff = [k for k, o in enumerate(flat_out) if o.requires_grad]
    result = [None] * len(flat_out)
    if diff:
        cots = [mindtorch.zeros_like(flat_out[k]).requires_grad_(True) for k in diff]
        vjps = mindtorch.autograd.grad([flat_out[k] for k in diff], inputs, cots, create_graph=True, allow_unused=True)
        pairs = [(v, t) for v, t in zip(vjps, flat_tangents) if v is not None and v.requires_grad]
        if pairs:
            jt = mindtorch.autograd.grad(
                [v for v, _ in pairs],
                cots,
                [t for _, t in pairs],
                create_graph=create_graph,
                allow_unused=True,
            )
            for k, g in zip(diff, jt):
                result[k] = g
    return [g if g is not None else mindtorch.zeros_like(o) for g, o in zip(result, flat_out)]


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """(func(*primals), the Jacobian of func at primals applied to tangents), plus aux with has_aux."""
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{JVP}: Expected primals to be a tuple. E.g. it should be valid to call f(*primals).")
    flat_primals, primals_spec = tree_flatten(primals)
    flat_tangents, tangents_spec = tree_flatten(tangents)
    if primals_spec != tangents_spec:
        raise RuntimeError(
            f"{JVP}: Expected primals and tangents to have the same python structure. For example, if primals "
            f"is a tuple of 3 tensors, tangents also must be. Got primals with structure {primals_spec} and "
            f"tangents with structure {tangents_spec}"
        )
    _check_tensors(flat_primals, "primals")
    _check_tensors(flat_tangents, "tangents")
    # an enclosing transform differentiating through this one keeps its graph
    outer = mindtorch.is_grad_enabled() and any(x.requires_grad for x in flat_primals + flat_tangents)
    with mindtorch.enable_grad():
        inputs = [p.view_as(p) if p.requires_grad else p.detach().requires_grad_(True) for p in flat_primals]
        output, aux = _split_aux(func(*tree_unflatten(inputs, primals_spec)), has_aux)
        flat_out, out_spec = tree_flatten(output)
        _check_outputs(flat_out)
        flat_jvp = _tangents_out(flat_out, inputs, flat_tangents, outer)
    if not outer:
        flat_out = [o.detach() for o in flat_out]
        flat_jvp = [t.detach() for t in flat_jvp]
    result = (tree_unflatten(flat_out, out_spec), tree_unflatten(flat_jvp, out_spec))
    return result + (aux,) if has_aux else result


def _check_like_primal(flat_tangents, flat_primals):
    for idx, (t, p) in enumerate(zip(flat_tangents, flat_primals)):
        for what, ours, theirs in (("shape", t.shape, p.shape), ("device", t.device, p.device)):
            if ours != theirs:
                raise RuntimeError(
                    f"tangent:{idx} with {what} {ours} in flattened pytree doesn't match the {what} {theirs} "
                    "of the corresponding primal."
                )
        if t.dtype != p.dtype:
            raise RuntimeError(
                f"tangent:{idx} with dtype {t.dtype} in flattened pytree doesn't match the dtype {p.dtype} "
                "of the corresponding primal."
            )


def linearize(func, *primals):
    """(func(*primals), jvp_fn) where jvp_fn(*tangents) is the Jacobian of func at primals applied to
    tangents (each call runs func again under the double-vjp)."""
    output = func(*primals)
    flat_primals, primals_spec = tree_flatten(primals)
    held = [p.detach() for p in flat_primals]

    def jvp_fn(*tangents):
        flat_tangents, tangents_spec = tree_flatten(tangents)
        if tangents_spec != primals_spec:
            raise RuntimeError(
                f"Expected the tangents {tangents_spec} to have the same argspec as the primals {primals_spec}"
            )
        _check_like_primal(flat_tangents, held)
        return jvp(func, tree_unflatten(held, primals_spec), tangents)[1]

    return output, jvp_fn
