"""Reverse-mode automatic differentiation, device-agnostic."""
from .grad_mode import no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled  # noqa: F401
from .engine import run_backward
from .. import _tensor


def _make_grads(outputs, grad_outputs):
    import mindtorch
    grads = []
    for out, g in zip(outputs, grad_outputs):
        if g is None:
            if out._requires_grad:
                if out.numel() != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                if not out.dtype.is_floating_point:
                    raise RuntimeError(f"grad can be implicitly created only for real scalar outputs but got {out.dtype}")
                g = mindtorch.ones_like(out)
        elif not isinstance(g, _tensor.Tensor):
            g = mindtorch.tensor(g, dtype=out.dtype, device=out.device)
        elif g._shape != out._shape:
            raise RuntimeError(f"Mismatch in shape: grad_output[0] has a shape of {g.shape} and output[0] has a shape "
                               f"of {out.shape}.")
        grads.append(g)
    return grads


def _as_tuple(x):
    if isinstance(x, _tensor.Tensor):
        return (x,)
    return tuple(x)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    tensors = _as_tuple(tensors)
    if grad_tensors is None:
        grad_tensors = [None] * len(tensors)
    else:
        grad_tensors = list(_as_tuple(grad_tensors)) if not isinstance(grad_tensors, _tensor.Tensor) else [grad_tensors]
    if retain_graph is None:
        retain_graph = create_graph
    for t in tensors:
        if not t._requires_grad:
            raise RuntimeError("element 0 of tensors does not require grad and does not have a grad_fn")
    grads = _make_grads(tensors, grad_tensors)
    if inputs is not None:
        inputs = _as_tuple(inputs)
        captured = run_backward(tensors, grads, retain_graph, create_graph, inputs=inputs, accumulate=False)
        for i, t in enumerate(inputs):
            g = captured.get(i)
            if g is not None:
                from .graph import grad_accumulator
                from .engine import _accumulate_leaf
                if t._grad_fn is None:
                    _accumulate_leaf(grad_accumulator(t), g, create_graph)
                else:
                    t._grad = g if t._grad is None else t._grad + g
        return
    run_backward(tensors, grads, retain_graph, create_graph)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, allow_unused=None,
         is_grads_batched=False, materialize_grads=False):
    outputs = _as_tuple(outputs)
    single = isinstance(inputs, _tensor.Tensor)
    inputs = _as_tuple(inputs)
    if grad_outputs is None:
        grad_outputs = [None] * len(outputs)
    else:
        grad_outputs = list(_as_tuple(grad_outputs))
    if retain_graph is None:
        retain_graph = create_graph
    for t in outputs:
        if not t._requires_grad:
            raise RuntimeError("element 0 of tensors does not require grad and does not have a grad_fn")
    for t in inputs:
        if not t._requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    grads = _make_grads(outputs, grad_outputs)
    captured = run_backward(outputs, grads, retain_graph, create_graph, inputs=inputs, accumulate=False)
    result = []
    for i, t in enumerate(inputs):
        g = captured.get(i)
        if g is None:
            if materialize_grads:
                import mindtorch
                g = mindtorch.zeros_like(t)
            elif not allow_unused:
                raise RuntimeError("One of the differentiated Tensors appears to not have been used in the graph. "
                                   "Set allow_unused=True if this is the desired behavior.")
        result.append(g)
    return tuple(result)


from .gradcheck import gradcheck, gradgradcheck  # noqa: E402,F401
