"""Adafactor: PyTorch's single-tensor update, op for op (PyTorch keeps it in torch.optim._adafactor)."""

import mindtorch

from ._param_updates import PerParameter, check, scalar

__all__ = ["Adafactor"]


class Adafactor(PerParameter):
    """Adafactor with PyTorch's defaults: the second moment of a matrix is kept as a row and a column factor
    over its last two dimensions, the step is relative to the parameter's RMS and clipped at `d`."""

    def __init__(
        self,
        params,
        lr=1e-2,
        beta2_decay=-0.8,
        eps=(None, 1e-3),
        d=1.0,
        weight_decay=0.0,
        *,
        foreach=None,
        maximize=False,
    ):
        if isinstance(lr, mindtorch.Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        check(lr >= 0.0, f"Learning rate should be >= 0 but is: {lr}")
        check(beta2_decay <= 0.0, f"beta2_decay should be <= 0 but is: {beta2_decay}")
        check(eps[0] is None or eps[0] >= 0.0, f"epsilon1 should be >= 0 but is: {eps[0]}")
        check(eps[1] >= 0.0, f"epsilon2 should be >= 0 but is: {eps[1]}")
        check(d >= 1.0, f"Clipping threshold d should be >= 1 but is: {d}")
        check(weight_decay >= 0.0, f"weight_decay should be >= 0 but is: {weight_decay}")
        super().__init__(
            params,
            dict(
                lr=lr,
                beta2_decay=beta2_decay,
                eps=eps,
                d=d,
                weight_decay=weight_decay,
                foreach=foreach,
                maximize=maximize,
            ),
        )

    def _update(self, p, grad, state, group):
        if p.is_complex():
            raise RuntimeError("Adafactor does not support complex parameters")
        factored = grad.dim() > 1
        if not state:
            state["step"] = scalar(0.0)
            if factored:
                state["row_var"] = grad.new_zeros(tuple(grad.shape[:-1]) + (1,))
                state["col_var"] = grad.new_zeros(tuple(grad.shape[:-2]) + (1, grad.shape[-1]))
            else:
                state["variance"] = mindtorch.zeros_like(grad)
        lr = float(group["lr"])
        eps1, eps2 = group["eps"]
        if eps1 is None:
            eps1 = mindtorch.finfo(p.dtype).eps
        state["step"].add_(1)
        step = state["step"].item()
        beta2_weight = step ** group["beta2_decay"]  # 1 - beta2_t
        alpha = max(eps2, p.norm(2).item() / p.numel() ** 0.5) * min(lr, 1 / step**0.5)
        if group["weight_decay"] != 0:
            p.mul_(1 - lr * group["weight_decay"])
        if factored:
            row_var, col_var = state["row_var"], state["col_var"]
            row_var.lerp_(grad.norm(dim=-1, keepdim=True).square_().div_(grad.shape[-1]), beta2_weight)
            col_var.lerp_(grad.norm(dim=-2, keepdim=True).square_().div_(grad.shape[-2]), beta2_weight)
            var_estimate = (row_var @ col_var).div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=eps1))
        else:
            state["variance"].lerp_(grad * grad, beta2_weight)
            var_estimate = state["variance"].clone()
        update = var_estimate.clamp_(min=eps1 * eps1).rsqrt_().mul_(grad)
        denom = max(1.0, update.norm(2).item() / (update.numel() ** 0.5 * group["d"]))
        p.add_(update, alpha=-alpha / denom)
