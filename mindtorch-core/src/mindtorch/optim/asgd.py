"""ASGD: PyTorch's single-tensor update, op for op."""

import mindtorch

from ._param_updates import PerParameter, check, scalar

__all__ = ["ASGD"]


class ASGD(PerParameter):
    def __init__(
        self,
        params,
        lr=1e-2,
        lambd=1e-4,
        alpha=0.75,
        t0=1e6,
        weight_decay=0,
        foreach=None,
        maximize=False,
        differentiable=False,
        capturable=False,
    ):
        check(lr >= 0.0, f"Invalid learning rate: {lr}")
        check(weight_decay >= 0.0, f"Invalid weight_decay value: {weight_decay}")
        super().__init__(
            params,
            dict(
                lr=lr,
                lambd=lambd,
                alpha=alpha,
                t0=t0,
                weight_decay=weight_decay,
                foreach=foreach,
                maximize=maximize,
                capturable=capturable,
                differentiable=differentiable,
            ),
        )

    def _update(self, p, grad, state, group):
        lr, lambd, alpha, t0 = group["lr"], group["lambd"], group["alpha"], group["t0"]
        if not state:
            state["step"] = scalar(0.0)
            state["eta"] = scalar(lr)
            state["mu"] = scalar(1.0)
            state["ax"] = mindtorch.zeros_like(p)
        eta, mu, ax = state["eta"], state["mu"], state["ax"]
        state["step"].add_(1)
        step = state["step"].item()
        if group["weight_decay"] != 0:
            grad = grad.add(p, alpha=group["weight_decay"])
        eta_value = eta.item()
        p.mul_(1 - lambd * eta_value)
        p.add_(grad, alpha=-eta_value)
        if mu.item() != 1:
            ax.add_(p.sub(ax).mul_(mu))
        else:
            ax.copy_(p)
        eta.copy_(scalar(lr / ((1 + lambd * lr * step) ** alpha)))
        mu.copy_(scalar(1 / max(1, step - t0)))
