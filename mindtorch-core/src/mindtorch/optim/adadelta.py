"""Adadelta: PyTorch's single-tensor update, op for op."""

import mindtorch

from ._param_updates import PerParameter, check, scalar

__all__ = ["Adadelta"]


class Adadelta(PerParameter):
    def __init__(
        self,
        params,
        lr=1.0,
        rho=0.9,
        eps=1e-6,
        weight_decay=0,
        foreach=None,
        *,
        capturable=False,
        maximize=False,
        differentiable=False,
    ):
        check(lr >= 0.0, f"Invalid learning rate: {lr}")
        check(0.0 <= rho <= 1.0, f"Invalid rho value: {rho}")
        check(eps >= 0.0, f"Invalid epsilon value: {eps}")
        check(weight_decay >= 0.0, f"Invalid weight_decay value: {weight_decay}")
        super().__init__(
            params,
            dict(
                lr=lr,
                rho=rho,
                eps=eps,
                weight_decay=weight_decay,
                maximize=maximize,
                capturable=capturable,
                foreach=foreach,
                differentiable=differentiable,
            ),
        )

    def _update(self, p, grad, state, group):
        if not state:
            state["step"] = scalar(0.0)
            state["square_avg"] = mindtorch.zeros_like(p)
            state["acc_delta"] = mindtorch.zeros_like(p)
        rho, eps = group["rho"], group["eps"]
        square_avg, acc_delta = state["square_avg"], state["acc_delta"]
        state["step"].add_(1)
        if group["weight_decay"] != 0:
            grad = grad.add(p, alpha=group["weight_decay"])
        square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
        std = square_avg.add(eps).sqrt_()
        delta = acc_delta.add(eps).sqrt_().div_(std).mul_(grad)
        acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
        p.add_(delta, alpha=-group["lr"])
