"""NAdam: PyTorch's single-tensor update, op for op."""

import mindtorch

from ._param_updates import PerParameter, check, check_adam_args, scalar

__all__ = ["NAdam"]


class NAdam(PerParameter):
    def __init__(
        self,
        params,
        lr=2e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        momentum_decay=4e-3,
        decoupled_weight_decay=False,
        *,
        foreach=None,
        maximize=False,
        capturable=False,
        differentiable=False,
    ):
        check_adam_args(lr, eps, betas, weight_decay)
        check(momentum_decay >= 0.0, f"Invalid momentum_decay value: {momentum_decay}")
        super().__init__(
            params,
            dict(
                lr=lr,
                betas=betas,
                eps=eps,
                weight_decay=weight_decay,
                momentum_decay=momentum_decay,
                decoupled_weight_decay=decoupled_weight_decay,
                maximize=maximize,
                foreach=foreach,
                capturable=capturable,
                differentiable=differentiable,
            ),
        )

    def _update(self, p, grad, state, group):
        if not state:
            state["step"] = scalar(0.0)
            state["mu_product"] = scalar(1.0)
            state["exp_avg"] = mindtorch.zeros_like(p)
            state["exp_avg_sq"] = mindtorch.zeros_like(p)
        beta1, beta2 = group["betas"]
        lr, wd, md = group["lr"], group["weight_decay"], group["momentum_decay"]
        exp_avg, exp_avg_sq, mu_product = state["exp_avg"], state["exp_avg_sq"], state["mu_product"]
        state["step"].add_(1)
        step = state["step"].item()
        bias_correction2 = 1 - beta2**step
        if wd != 0:
            if group["decoupled_weight_decay"]:
                p.mul_(1 - lr * wd)
            else:
                grad = grad.add(p, alpha=wd)
        # the momentum schedule mu_t and mu_{t+1}
        mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * md))
        mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * md))
        mu_product.mul_(mu)
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        denom = exp_avg_sq.div(bias_correction2).sqrt().add_(group["eps"])
        mu_prod = mu_product.item()
        p.addcdiv_(grad, denom, value=-lr * (1.0 - mu) / (1.0 - mu_prod))
        p.addcdiv_(exp_avg, denom, value=-lr * mu_next / (1.0 - mu_prod * mu_next))
