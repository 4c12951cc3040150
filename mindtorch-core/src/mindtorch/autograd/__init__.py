"""Reverse-mode automatic differentiation, device-agnostic."""

from .. import _tensor
from . import (
    graph,
    tensor_methods,  # noqa: F401  (Tensor.backward, grad_fn, register_hook)
)
from .anomaly_mode import detect_anomaly, set_detect_anomaly  # noqa: F401
from .engine import run_backward
from .grad_mode import (  # noqa: F401
    enable_grad,
    enforce_grad_layout_policy,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
    set_multithreading_enabled,
)
from .variable import Variable, variable  # noqa: F401


def _make_grads(outputs, grad_outputs, is_grads_batched=False):
    import mindtorch

    grads = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if g is None:
            if out._requires_grad:
                if out.numel() != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                if not out.dtype.is_floating_point:
                    raise RuntimeError(
                        f"grad can be implicitly created only for real scalar outputs but got {out.dtype}"
                    )
                g = mindtorch.ones_like(out)
        elif not isinstance(g, _tensor.Tensor):
            g = mindtorch.tensor(g, dtype=out.dtype, device=out.device)
        elif g._shape != out._shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and output[{i}] has a "
                f"shape of {out.shape}."
            )
        elif g.dtype.is_complex != out.dtype.is_complex:
            raise RuntimeError(
                f"For complex Tensors, both grad_output and output are required to have the same "
                f"dtype. Mismatch in dtype: grad_output[{i}] has a dtype of {g.dtype} and output[{i}] "
                f"has a dtype of {out.dtype}."
            )
        grads.append(g)
    return grads


def _as_tuple(x):
    if isinstance(x, (_tensor.Tensor, graph.GradientEdge)):
        return (x,)
    return tuple(x)


def _check_roots(tensors):
    for i, t in enumerate(tensors):
        if not t._requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None, inputs=None):
    tensors = _as_tuple(tensors)
    if grad_tensors is None:
        grad_tensors = grad_variables
    if grad_tensors is None:
        grad_tensors = [None] * len(tensors)
    else:
        grad_tensors = [grad_tensors] if isinstance(grad_tensors, _tensor.Tensor) else list(grad_tensors)
    if len(grad_tensors) != len(tensors):
        raise RuntimeError("grad can be implicitly created only for scalar outputs")
    if retain_graph is None:
        retain_graph = create_graph
    if inputs is not None:
        inputs = _as_tuple(inputs)
        if len(inputs) == 0:
            raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    _check_roots(tensors)
    grads = _make_grads(tensors, grad_tensors)
    if inputs is not None:
        for t in inputs:
            if not t._requires_grad:
                raise RuntimeError("One of the differentiated Tensors does not require grad")
        run_backward(tensors, grads, retain_graph, create_graph, inputs=inputs, accumulate=True)
        return
    run_backward(tensors, grads, retain_graph, create_graph)


def grad(
    outputs,
    inputs,
    grad_outputs=None,
    retain_graph=None,
    create_graph=False,
    only_inputs=True,
    allow_unused=None,
    is_grads_batched=False,
    materialize_grads=False,
):
    if materialize_grads and allow_unused is False:
        raise ValueError(
            "Expected allow_unused to be True or not passed when materialize_grads=True, but got: allow_unused=False."
        )
    if allow_unused is None:
        allow_unused = materialize_grads
    outputs = _as_tuple(outputs)
    inputs = _as_tuple(inputs)
    if grad_outputs is None:
        grad_outputs = [None] * len(outputs)
    else:
        grad_outputs = list(_as_tuple(grad_outputs))
    if len(grad_outputs) != len(outputs):
        raise RuntimeError(
            f"grad_outputs must have the same length as outputs: got {len(grad_outputs)} and {len(outputs)}"
        )
    if retain_graph is None:
        retain_graph = create_graph
    _check_roots(outputs)
    for t in inputs:
        if not isinstance(t, graph.GradientEdge) and not t._requires_grad:
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
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in the "
                    "graph. Set allow_unused=True if this is the desired behavior."
                )
        result.append(g)
    return tuple(result)


from . import function, functional  # noqa: E402,F401
from .function import Function, FunctionCtx, once_differentiable  # noqa: E402,F401
from .gradcheck import GradcheckError, gradcheck, gradgradcheck  # noqa: E402,F401


def __getattr__(name):
    # torch.autograd.profiler and its events, imported on first use (keeps `import mindtorch` light)
    if name in ("profiler", "profiler_util"):
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")
