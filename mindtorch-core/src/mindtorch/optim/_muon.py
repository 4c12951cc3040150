"""Muon: PyTorch's update, op for op (PyTorch keeps it in torch.optim._muon)."""

import math

import mindtorch

from ._param_updates import PerParameter, check

__all__ = ["Muon"]


def _orthogonalize(grad, coefficients, steps, eps):
    """Newton-Schulz iterations toward the nearest semi-orthogonal matrix, in bfloat16 as PyTorch's Muon."""
    if steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if grad.dim() != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = coefficients
    tall = grad.shape[0] > grad.shape[1]
    x = grad.bfloat16()
    if tall:
        x = x.T
    x = x.div(x.norm().clamp(min=eps))
    for _ in range(steps):
        gram = x @ x.T
        x = mindtorch.addmm(x, mindtorch.addmm(gram, gram, gram, beta=b, alpha=c), x, beta=a)
    return x.T if tall else x


class Muon(PerParameter):
    """Muon for 2-D parameters: Nesterov momentum, then the update orthogonalized by Newton-Schulz."""

    def __init__(
        self,
        params,
        lr=1e-3,
        weight_decay=0.1,
        momentum=0.95,
        nesterov=True,
        ns_coefficients=(3.4445, -4.775, 2.0315),
        eps=1e-7,
        ns_steps=5,
        adjust_lr_fn=None,
    ):
        if isinstance(lr, mindtorch.Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        check(lr >= 0.0, f"Learning rate should be >= 0 but is: {lr}")
        check(momentum >= 0.0, f"momentum should be >= 0 but is: {momentum}")
        check(weight_decay >= 0.0, f"weight decay should be >= 0 but is: {weight_decay}")
        check(
            adjust_lr_fn in (None, "original", "match_rms_adamw"),
            f"Adjust learning rate function {adjust_lr_fn} is not supported",
        )
        super().__init__(
            params,
            dict(
                lr=lr,
                weight_decay=weight_decay,
                momentum=momentum,
                nesterov=nesterov,
                ns_coefficients=ns_coefficients,
                eps=eps,
                ns_steps=ns_steps,
                adjust_lr_fn=adjust_lr_fn,
            ),
        )
        for group in self.param_groups:
            for p in group["params"]:
                check(
                    p.dim() == 2, f"Muon only supports 2D parameters whereas we found a parameter with size: {p.size()}"
                )

    def _update(self, p, grad, state, group):
        if p.is_complex():
            raise RuntimeError("Muon does not support complex parameters")
        if grad.dim() != 2:
            raise ValueError("Param gradient must be a 2D matrix")
        if "momentum_buffer" not in state:
            state["momentum_buffer"] = mindtorch.zeros_like(grad)
        buf = state["momentum_buffer"]
        buf.lerp_(grad, 1 - group["momentum"])
        update = grad.lerp(buf, group["momentum"]) if group["nesterov"] else buf
        update = _orthogonalize(update, group["ns_coefficients"], group["ns_steps"], group["eps"])
        rows, cols = p.shape[:2]
        lr = float(group["lr"])
        scale = {
            None: math.sqrt(max(1, rows / cols)),
            "original": math.sqrt(max(1, rows / cols)),
            "match_rms_adamw": 0.2 * math.sqrt(max(rows, cols)),
        }[group["adjust_lr_fn"]]
        p.mul_(1 - lr * group["weight_decay"])
        p.add_(update, alpha=-lr * scale)
