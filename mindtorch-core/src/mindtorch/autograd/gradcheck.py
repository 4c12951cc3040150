"""gradcheck / gradgradcheck: analytical gradients against central finite differences.

Inputs are perturbed on host copies (fresh tensors each time, no in-place
writes into the user's inputs); analytical rows come from one
vector-Jacobian product per output element, against all inputs at once.
"""

import numpy as np

from .._tensor import Tensor


class GradcheckError(RuntimeError):
    pass


def _as_tuple(x):
    return (x,) if isinstance(x, Tensor) else tuple(x)


def _is_diff(t):
    return isinstance(t, Tensor) and (t.dtype.is_floating_point or t.dtype.is_complex)


def _outputs(fn, inputs):
    return [o for o in _as_tuple(fn(*inputs)) if _is_diff(o)]


def _host(t):
    return np.array(t.detach().cpu().numpy(), copy=True)


def _rebuild(arr, like):
    import mindtorch

    return mindtorch.tensor(arr, dtype=like.dtype, device=like.device)


def _numerical(fn, inputs, diff_idx, n_out_elems, eps):
    """numerical[i][o]: (numel(out o), numel(in i)) Jacobian blocks."""
    jac = []
    # grad mode stays on: gradgradcheck's function itself calls autograd.grad
    if True:
        for i in diff_idx:
            x = inputs[i]
            base = _host(x)
            flat = base.reshape(-1)
            cols = [np.zeros((n, flat.size)) for n in n_out_elems]
            for j in range(flat.size):
                vals = []
                for delta in (eps, -eps):
                    pert = flat.copy()
                    pert[j] += delta
                    args = list(inputs)
                    args[i] = _rebuild(pert.reshape(base.shape), x).requires_grad_(x._requires_grad)
                    vals.append([_host(o).reshape(-1).astype(np.float64) for o in _outputs(fn, args)])
                for o, (p, m) in enumerate(zip(*vals)):
                    cols[o][:, j] = (p - m) / (2 * eps)
            jac.append(cols)
    return jac


def _analytical(fn, inputs, diff_idx, outs):
    """analytical[i][o] blocks, by one vjp per output element; also checks grad shapes/dtypes."""
    import mindtorch

    jac = [[np.zeros((o.numel(), inputs[i].numel())) for o in outs] for i in diff_idx]
    diff_inputs = [inputs[i] for i in diff_idx]
    for oi, o in enumerate(outs):
        if not o._requires_grad:
            continue
        n = o.numel()
        for k in range(n):
            onehot = np.zeros(n)
            onehot[k] = 1.0
            v = mindtorch.tensor(onehot.reshape(tuple(o.shape)), dtype=o.dtype, device=o.device)
            gs = mindtorch.autograd.grad(o, diff_inputs, v, retain_graph=True, allow_unused=True)
            for pos, g in enumerate(gs):
                if g is None:
                    continue
                x = diff_inputs[pos]
                if tuple(g.shape) != tuple(x.shape):
                    raise GradcheckError(
                        f"Gradient has incorrect size for input {diff_idx[pos]}: expected "
                        f"{tuple(x.shape)}, got {tuple(g.shape)}"
                    )
                if g.dtype is not x.dtype:
                    raise GradcheckError(
                        f"Gradient has dtype mismatch for input {diff_idx[pos]}: expected {x.dtype}, got {g.dtype}"
                    )
                jac[pos][oi][k, :] = _host(g).reshape(-1)
    return jac


def _fail(msg, raise_exception):
    if raise_exception:
        raise GradcheckError(msg)
    return False


def gradcheck(
    func,
    inputs,
    *,
    eps=1e-6,
    atol=1e-5,
    rtol=1e-3,
    raise_exception=True,
    nondet_tol=0.0,
    check_undefined_grad=True,
    check_grad_dtypes=False,
    check_batched_grad=False,
    check_batched_forward_grad=False,
    check_forward_ad=False,
    check_backward_ad=True,
    fast_mode=False,
    masked=None,
):
    """True when every (output, input) analytical Jacobian block matches the central-difference one."""
    import warnings

    inputs = _as_tuple(inputs)
    diff_idx = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t._requires_grad]
    if not diff_idx:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of the them "
            "have requires_grad=True."
        )
    for i in diff_idx:
        if inputs[i].dtype.name not in ("float64", "complex128"):
            warnings.warn(
                f"Input #{i} requires gradient and is not a double precision floating point or complex. "
                "This check will likely fail if all the inputs are not of double precision floating "
                "point or complex. ",
                UserWarning,
                stacklevel=2,
            )
    try:
        outs = _outputs(func, inputs)
        if not outs:
            return _fail("gradcheck: the function returned no floating point outputs", raise_exception)
        ana = _analytical(func, inputs, diff_idx, outs)
    except GradcheckError as e:
        return _fail(str(e), raise_exception)
    num = _numerical(func, inputs, diff_idx, [o.numel() for o in outs], eps)
    for pos, i in enumerate(diff_idx):
        for oi in range(len(outs)):
            a, n = ana[pos][oi], num[pos][oi]
            if not outs[oi]._requires_grad and np.abs(n).max(initial=0.0) > atol:
                return _fail(
                    f"Jacobian mismatch for output {oi} with respect to input {i}: the output does not "
                    f"require grad but its numerical Jacobian is non-zero,\nnumerical:{n}\n",
                    raise_exception,
                )
            if not np.allclose(a, n, atol=atol, rtol=rtol):
                return _fail(
                    f"Jacobian mismatch for output {oi} with respect to input {i},\nnumerical:{n}\nanalytical:{a}\n",
                    raise_exception,
                )
    # a second identical backward must give the same result (no state kept between calls)
    if nondet_tol == 0.0:
        again = _analytical(func, inputs, diff_idx, _outputs(func, inputs))
        for pos in range(len(diff_idx)):
            for oi in range(len(outs)):
                if not np.allclose(again[pos][oi], ana[pos][oi], atol=0, rtol=0, equal_nan=True):
                    return _fail(
                        f"Backward is not reentrant, i.e., running backward with same input and "
                        f"grad_output multiple times gives different values, although analytical gradient "
                        f"matches numerical gradient.The tolerance for nondeterminism was {nondet_tol}.",
                        raise_exception,
                    )
    return True


def gradgradcheck(
    func,
    inputs,
    grad_outputs=None,
    *,
    eps=1e-6,
    atol=1e-5,
    rtol=1e-3,
    gen_non_contig_grad_outputs=False,
    raise_exception=True,
    nondet_tol=0.0,
    check_undefined_grad=True,
    check_grad_dtypes=False,
    check_batched_grad=False,
    check_fwd_over_rev=False,
    check_rev_over_rev=True,
    fast_mode=False,
    masked=False,
):
    """gradcheck of the first derivative (second-order gradients through create_graph=True)."""
    import mindtorch

    inputs = _as_tuple(inputs)
    outs = _outputs(func, inputs)
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = [
            mindtorch.tensor(rng.standard_normal(tuple(o.shape)), dtype=o.dtype, device=o.device).requires_grad_(True)
            for o in outs
        ]
    grad_outputs = list(_as_tuple(grad_outputs))
    n_in = len(inputs)
    diff_idx = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t._requires_grad]

    def first_grads(*args):
        ins = args[:n_in]
        gos = args[n_in:]
        o = [t for t in _outputs(func, ins)]
        pairs = [(t, g) for t, g in zip(o, gos) if t._requires_grad]
        gs = mindtorch.autograd.grad(
            [p[0] for p in pairs],
            [ins[i] for i in diff_idx],
            [p[1] for p in pairs],
            create_graph=True,
            allow_unused=True,
        )
        return tuple(g for g in gs if g is not None)

    return gradcheck(
        first_grads,
        tuple(inputs) + tuple(grad_outputs),
        eps=eps,
        atol=atol,
        rtol=rtol,
        raise_exception=raise_exception,
        nondet_tol=nondet_tol,
    )
