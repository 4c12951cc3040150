"""Rprop: PyTorch's single-tensor update, op for op."""

import mindtorch

from ._param_updates import PerParameter, check, scalar

__all__ = ["Rprop"]


class Rprop(PerParameter):
    def __init__(
        self,
        params,
        lr=1e-2,
        etas=(0.5, 1.2),
        step_sizes=(1e-6, 50),
        *,
        capturable=False,
        foreach=None,
        maximize=False,
        differentiable=False,
    ):
        check(lr >= 0.0, f"Invalid learning rate: {lr}")
        check(0.0 < etas[0] < 1.0 < etas[1], f"Invalid eta values: {etas[0]}, {etas[1]}")
        super().__init__(
            params,
            dict(
                lr=lr,
                etas=etas,
                step_sizes=step_sizes,
                foreach=foreach,
                maximize=maximize,
                differentiable=differentiable,
                capturable=capturable,
            ),
        )

    def _update(self, p, grad, state, group):
        if not state:
            state["step"] = scalar(0.0)
            state["prev"] = mindtorch.zeros_like(p)
            state["step_size"] = mindtorch.full_like(grad, group["lr"])
        etaminus, etaplus = group["etas"]
        lo, hi = group["step_sizes"]
        prev, step_size = state["prev"], state["step_size"]
        state["step"].add_(1)
        sign = grad.mul(prev).sign()
        factor = mindtorch.where(sign > 0, etaplus, mindtorch.where(sign < 0, etaminus, 1.0)).to(grad.dtype)
        step_size.mul_(factor).clamp_(lo, hi)
        grad = mindtorch.where(factor == etaminus, mindtorch.zeros_like(grad), grad)  # a sign flip skips the step
        p.addcmul_(grad.sign(), step_size, value=-1)
        prev.copy_(grad)
