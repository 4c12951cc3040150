"""Derivatives of whole functions (torch.autograd.functional): vector-Jacobian and Jacobian-vector
products, Jacobians, Hessians and their products with vectors, all built on autograd.grad.

Forward-mode products use the double-backward trick (the vjp of a vjp with respect to its vector), so
they need no forward-mode AD; `vectorize=True` is accepted and computes row by row."""

import mindtorch

from .._tensor import Tensor
from .grad_mode import enable_grad, is_grad_enabled, set_grad_enabled

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]

_STRATEGIES = ("forward-mode", "reverse-mode")


def _as_tuple(value, arg_name, fn_name):
    """(was it a tuple, the value as a tuple of tensors); anything else than a tensor is refused."""
    is_tuple = isinstance(value, tuple)
    items = value if is_tuple else (value,)
    for i, el in enumerate(items):
        if not isinstance(el, Tensor):
            where = f"value at index {i}" if is_tuple else f"given {arg_name}"
            raise TypeError(
                f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but "
                f"the {where} has type {type(el)}."
            )
    return is_tuple, items


def _unpack(result, was_tuple):
    """Undo _as_tuple on a result: `was_tuple` is one flag, or (outer, inner) flags for nested results."""
    if isinstance(was_tuple, tuple):
        outer, inner = was_tuple
        if not inner:
            result = tuple(el[0] for el in result)
        return result if outer else result[0]
    return result if was_tuple else result[0]


def _grad_preprocess(inputs, create_graph, need_graph):
    """Fresh leaves for the function to differentiate, so the caller's tensors gather no .grad; with
    create_graph, tensors requiring grad stay connected to their graph through a view."""
    return tuple(
        t.view_as(t) if create_graph and t.requires_grad else t.detach().requires_grad_(need_graph) for t in inputs
    )


def _grad_postprocess(values, create_graph):
    if isinstance(values[0], Tensor):
        return values if create_graph else tuple(t.detach() for t in values)
    return tuple(_grad_postprocess(v, create_graph) for v in values)


def _validate_v(v, other, other_is_tuple):
    if len(v) != len(other):
        if other_is_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for idx, (el_v, el_other) in enumerate(zip(v, other)):
        if el_v.size() != el_other.size():
            prepend = f"Entry {idx} in " if len(other) > 1 else ""
            raise RuntimeError(f"{prepend}v has invalid size: should be {el_other.size()} but got {el_v.size()}.")


_INDEPENDENT = {
    "hessian": "The hessian of the user-provided function with respect to input {i} is independent of the input. "
    "This is not allowed in strict mode. You should ensure that your function is thrice differentiable "
    "and that the hessian depends on the inputs.",
    "jacobian": "While computing the hessian, found that the jacobian of the user-provided function with respect to "
    "input {i} is independent of the input. This is not allowed in strict mode. You should ensure that "
    "your function is twice differentiable and that the jacobian depends on the inputs (this would be "
    "violated by a linear function for example).",
    "grad_inputs": "The gradient with respect to input {i} is independent of the inputs of the user-provided "
    "function. This is not allowed in strict mode.",
    "outputs": "Output {i} of the user-provided function does not require gradients. The outputs must be computed "
    "in a differentiable manner from the input when running in strict mode.",
}


def _check_requires_grad(values, kind, strict):
    """In strict mode, every value must exist and depend on the inputs differentiably."""
    if not strict:
        return
    for i, t in enumerate(values):
        if t is None:
            raise RuntimeError(
                f"The output of the user-provided function is independent of input {i}. This is not "
                "allowed in strict mode."
            )
        if not t.requires_grad:
            raise RuntimeError(_INDEPENDENT[kind].format(i=i))


def _autograd_grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """autograd.grad over the outputs that require grad; None for inputs nothing depends on."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    outs, grads = zip(*pairs)
    return mindtorch.autograd.grad(
        outs, inputs, grads, allow_unused=True, create_graph=create_graph, retain_graph=retain_graph
    )


_MISSING = {
    "back": "The output of the user-provided function is independent of input {i}. This is not allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the grad_outputs when "
    "using the double backward trick to compute forward mode gradients. This is not allowed in "
    "strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. This is not allowed in "
    "strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} in the "
    "grad_jacobian. This is not allowed in strict mode as it prevents from using the double "
    "backward trick to replace forward mode AD.",
}


def _fill_in_zeros(grads, refs, strict, create_graph, stage):
    """Zeros where a gradient is None (an independent input), unless strict mode forbids it."""
    out = []
    for i, (g, ref) in enumerate(zip(grads, refs)):
        if g is None:
            if strict:
                raise RuntimeError(_MISSING[stage].format(i=i))
            g = mindtorch.zeros_like(ref)
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(
                f"The {what} of the user-provided function is independent of input {i}. This is not "
                "allowed in strict mode when create_graph=True."
            )
        out.append(g)
    return tuple(out)


def _prepared_v(v, against, against_is_tuple, create_graph, fn_name, none_message):
    """v as a tuple of detached tensors shaped like `against`; None only for one single-element tensor."""
    if v is None:
        if len(against) != 1 or against[0].nelement() != 1:
            raise RuntimeError(none_message)
        return None
    _, v = _as_tuple(v, "v", fn_name)
    v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
    _validate_v(v, against, against_is_tuple)
    return v


_V_FOR_OUTPUT = (
    "The vector v can only be None if the user-provided function returns a single Tensor with a single element."
)
_V_FOR_INPUT = (
    "The vector v can only be None if the input to the user-provided function is a single Tensor with a single element."
)


def _results(outputs, outputs_tuple, result, result_tuple, create_graph):
    """(outputs, result) detached unless create_graph, each in the form (tensor or tuple) it was given."""
    return (
        _unpack(_grad_postprocess(outputs, create_graph), outputs_tuple),
        _unpack(_grad_postprocess(result, create_graph), result_tuple),
    )


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T J): the product of the vector v with the Jacobian of func at inputs."""
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "vjp")
        _check_requires_grad(outputs, "outputs", strict=strict)
        v = _prepared_v(v, outputs, outputs_tuple, create_graph, "vjp", _V_FOR_OUTPUT)
        grads = _autograd_grad(outputs, inputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grads, inputs, strict, create_graph, "back")
    return _results(outputs, outputs_tuple, result, inputs_tuple, create_graph)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), J v): the product of the Jacobian of func at inputs with the vector v."""
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        v = _prepared_v(v, inputs, inputs_tuple, create_graph, "jvp", _V_FOR_INPUT)
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jvp")
        _check_requires_grad(outputs, "outputs", strict=strict)
        # u -> J^T u is linear in u, so differentiating it with respect to u, against v, gives J v
        grad_outputs = tuple(mindtorch.zeros_like(o, requires_grad=True) for o in outputs)
        grad_inputs = _autograd_grad(outputs, inputs, grad_outputs, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict=strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grads = _autograd_grad(grad_inputs, grad_outputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grads, outputs, strict, create_graph, "back_trick")
    return _results(outputs, outputs_tuple, result, outputs_tuple, create_graph)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """The Jacobian of func at inputs: for output i and input j a tensor of shape out_i.shape + in_j.shape,
    nested as tuples when func returns a tuple and/or inputs is one."""
    if strategy not in _STRATEGIES:
        raise AssertionError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
            'function has more outputs than inputs, "forward-mode" tends to be more performant. '
            'Otherwise, prefer to use "reverse-mode".'
        )
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                "torch.autograd.functional.jacobian: `create_graph=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either '
                'set `create_graph=False` or `strategy="reverse-mode"`.'
            )
        if strict:
            raise RuntimeError(
                'torch.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` are '
                "not supported together (yet). Please either set `strict=False` or "
                '`strategy="reverse-mode"`.'
            )
        if not vectorize:
            raise NotImplementedError(
                "Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
                "only implemented for `vectorize=True`."
            )
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jacobian")
        _check_requires_grad(outputs, "outputs", strict=strict)
        if vectorize and strict:
            raise RuntimeError(
                "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
                "supported together. Please either set `strict=False` or `vectorize=False`."
            )
        result = tuple(_jacobian_of_output(i, out, inputs, create_graph, strict) for i, out in enumerate(outputs))
    result = _grad_postprocess(result, create_graph)
    if strategy == "forward-mode":  # PyTorch nests forward-mode Jacobians in lists
        result = [list(per_output) for per_output in result]
    return _unpack(result, (outputs_tuple, inputs_tuple))


def _jacobian_of_output(i, out, inputs, create_graph, strict):
    """One output's Jacobian with respect to each input, a row (one output element) at a time."""
    rows = tuple([] for _ in inputs)
    flat = out.reshape(-1)
    for k in range(out.nelement()):
        grads = _autograd_grad((flat[k],), inputs, retain_graph=True, create_graph=create_graph)
        for j, (g, inp) in enumerate(zip(grads, inputs)):
            if g is None:
                if strict:
                    raise RuntimeError(
                        f"Output {i} of the user-provided function is independent of input {j}. This "
                        "is not allowed in strict mode."
                    )
                g = mindtorch.zeros_like(inp)
            elif strict and create_graph and not g.requires_grad:
                raise RuntimeError(
                    f"The jacobian of the user-provided function is independent of input {i}. This is "
                    "not allowed in strict mode when create_graph=True."
                )
            rows[j].append(g)
    return tuple(mindtorch.stack(r, dim=0).view(out.size() + inp.size()) for r, inp in zip(rows, inputs))


def _single_output(fn_name, strict, outputs_are):
    """Check func's outputs: one tensor of one element."""
    tuple_out, outputs = _as_tuple(outputs_are, "outputs of the user-provided function", fn_name)
    _check_requires_grad(outputs, "outputs", strict=strict)
    if tuple_out or not isinstance(outputs_are, Tensor):
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs_are.nelement() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should contain a single element")
    return outputs


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a scalar func at inputs: the Jacobian of its gradient (for tuple inputs, one block per
    pair of inputs)."""
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in _STRATEGIES:
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def scalar_func(*inp):
        return _single_output("hessian", strict, func(*inp))[0].squeeze()

    def gradient(*inp):
        if outer_jacobian_strategy == "forward-mode":
            inp = tuple(t.requires_grad_(True) for t in inp)
        jac = jacobian(scalar_func, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
        return jac

    result = jacobian(
        gradient,
        inputs,
        create_graph=create_graph,
        strict=strict,
        vectorize=vectorize,
        strategy=outer_jacobian_strategy,
    )
    return _unpack(result, (inputs_tuple, inputs_tuple))


def _gradient_at(func, inputs, v, create_graph, strict, fn_name):
    """Shared start of vhp and hvp: prepared inputs, v, func's single output and its gradient (with graph)."""
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", fn_name)
    inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
    v = _prepared_v(v, inputs, inputs_tuple, create_graph, fn_name, _V_FOR_INPUT)
    outputs = _single_output(fn_name, strict, func(*inputs))
    jac = _autograd_grad(outputs, inputs, create_graph=True)
    _check_requires_grad(jac, "jacobian", strict=strict)
    return inputs_tuple, inputs, v, outputs, jac


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T H): the product of the vector v with the Hessian of the scalar func at inputs."""
    with enable_grad():
        inputs_tuple, inputs, v, outputs, jac = _gradient_at(func, inputs, v, create_graph, strict, "vhp")
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grads = _autograd_grad(jac, inputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grads, inputs, strict, create_graph, "double_back")
    return _results(outputs, False, result, inputs_tuple, create_graph)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), H v): the product of the Hessian of the scalar func at inputs with the vector v."""
    with enable_grad():
        inputs_tuple, inputs, v, outputs, jac = _gradient_at(func, inputs, v, create_graph, strict, "hvp")
        # u -> H u is linear in u: differentiating u^T H with respect to u, against v, gives H v
        grad_jac = tuple(mindtorch.zeros_like(t, requires_grad=True) for t in inputs)
        double_back = _autograd_grad(jac, inputs, grad_jac, create_graph=True)
        _check_requires_grad(jac, "hessian", strict=strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grads = _autograd_grad(double_back, grad_jac, v, create_graph=create_graph)
        result = _fill_in_zeros(grads, inputs, strict, create_graph, "double_back_trick")
    return _results(outputs, False, result, inputs_tuple, create_graph)
