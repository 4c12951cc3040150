"""Adamax: PyTorch's single-tensor update, op for op."""

import mindtorch

from ._param_updates import PerParameter, check_adam_args, scalar

__all__ = ["Adamax"]


class Adamax(PerParameter):
    def __init__(
        self,
        params,
        lr=2e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        foreach=None,
        *,
        maximize=False,
        differentiable=False,
        capturable=False,
    ):
        check_adam_args(lr, eps, betas, weight_decay)
        super().__init__(
            params,
            dict(
                lr=lr,
                betas=betas,
                eps=eps,
                weight_decay=weight_decay,
                foreach=foreach,
                maximize=maximize,
                differentiable=differentiable,
                capturable=capturable,
            ),
        )

    def _update(self, p, grad, state, group):
        if not state:
            state["step"] = scalar(0.0)
            state["exp_avg"] = mindtorch.zeros_like(p)
            state["exp_inf"] = mindtorch.zeros_like(p)
        beta1, beta2 = group["betas"]
        exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
        state["step"].add_(1)
        if group["weight_decay"] != 0:
            grad = grad.add(p, alpha=group["weight_decay"])
        exp_avg.lerp_(grad, 1 - beta1)
        both = mindtorch.cat([exp_inf.mul_(beta2).unsqueeze(0), grad.abs().add_(group["eps"]).unsqueeze(0)], 0)
        exp_inf.copy_(mindtorch.amax(both, 0, keepdim=False))
        clr = group["lr"] / (1 - beta1 ** state["step"].item())
        p.addcdiv_(exp_avg, exp_inf, value=-clr)
