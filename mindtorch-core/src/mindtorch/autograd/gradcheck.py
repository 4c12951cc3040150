"""gradcheck / gradgradcheck: analytical gradients against finite differences (float64)."""
from .._tensor import Tensor


class GradcheckError(RuntimeError):
    pass


def _as_tuple(x):
    return (x,) if isinstance(x, Tensor) else tuple(x)


def _flat_outputs(fn, inputs):
    out = fn(*inputs)
    return [o for o in _as_tuple(out) if isinstance(o, Tensor) and (o.dtype.is_floating_point or o.dtype.is_complex)]


def _numerical_jacobian(fn, inputs, i, eps):
    """Columns: d(all outputs flattened)/d(input i element j)."""
    import mindtorch
    x = inputs[i]
    flat = x.detach().reshape(-1)
    cols = []
    with mindtorch.no_grad():
        for j in range(flat.numel()):
            orig = flat[j].item()
            flat[j] = orig + eps
            plus = [o.reshape(-1).clone() for o in _flat_outputs(fn, inputs)]
            flat[j] = orig - eps
            minus = [o.reshape(-1).clone() for o in _flat_outputs(fn, inputs)]
            flat[j] = orig
            cols.append(mindtorch.cat([(p - m) / (2 * eps) for p, m in zip(plus, minus)])
                        if plus else mindtorch.zeros(0, dtype=x.dtype))
    return cols


def _analytical_jacobian(fn, inputs, i):
    import mindtorch
    outs = _flat_outputs(fn, inputs)
    rows = []
    for o in outs:
        flat = o.reshape(-1)
        for k in range(flat.numel()):
            if not o._requires_grad:
                rows.append(mindtorch.zeros(inputs[i].numel(), dtype=inputs[i].dtype))
                continue
            g, = mindtorch.autograd.grad(flat[k], inputs[i], retain_graph=True, allow_unused=True)
            rows.append(mindtorch.zeros(inputs[i].numel(), dtype=inputs[i].dtype) if g is None else g.reshape(-1))
    return rows


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, nondet_tol=0.0,
              check_undefined_grad=True, fast_mode=False, **kwargs):
    """True when every input's analytical Jacobian matches the central-difference one."""
    import numpy as np
    inputs = _as_tuple(inputs)
    for t in inputs:
        if isinstance(t, Tensor) and t._requires_grad and t.dtype.name not in ("float64", "complex128"):
            import warnings
            warnings.warn("Input #0 requires gradient and is not a double precision floating point. "
                          "This check will likely fail if all the inputs are not of double precision floating "
                          "point.", UserWarning, stacklevel=2)
    for i, x in enumerate(inputs):
        if not (isinstance(x, Tensor) and x._requires_grad):
            continue
        num = _numerical_jacobian(func, inputs, i, eps)
        ana = _analytical_jacobian(func, inputs, i)
        n_out = ana and len(ana) or 0
        numj = np.stack([c.numpy() for c in num], axis=1) if num else np.zeros((0, 0))
        anaj = np.stack([r.detach().numpy() for r in ana], axis=0) if ana else np.zeros((0, x.numel()))
        if numj.shape != anaj.shape and numj.size == anaj.size:
            numj = numj.reshape(anaj.shape)
        if not np.allclose(anaj, numj, atol=atol, rtol=rtol):
            if raise_exception:
                raise GradcheckError(f"Jacobian mismatch for output 0 with respect to input {i},\n"
                                     f"numerical:{numj}\nanalytical:{anaj}\n")
            return False
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
                  **kwargs):
    """gradcheck of the first derivative (second-order gradients through create_graph=True)."""
    import mindtorch
    inputs = _as_tuple(inputs)
    outs = _flat_outputs(func, inputs)
    if grad_outputs is None:
        gen = mindtorch.Generator().manual_seed(0)
        grad_outputs = [mindtorch.randn(o.shape, dtype=o.dtype, generator=gen).requires_grad_(True) for o in outs]
    grad_outputs = list(_as_tuple(grad_outputs))
    diff_idx = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t._requires_grad]

    def first_grads(*args):
        ins = args[:len(inputs)]
        gos = args[len(inputs):]
        o = _flat_outputs(func, ins)
        gs = mindtorch.autograd.grad(o, [ins[i] for i in diff_idx], gos, create_graph=True, allow_unused=True)
        return tuple(g for g in gs if g is not None)

    return gradcheck(first_grads, tuple(inputs) + tuple(grad_outputs), eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
