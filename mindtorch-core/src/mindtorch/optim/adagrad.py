"""Adagrad: PyTorch's single-tensor update, op for op."""

import mindtorch

from ._param_updates import check, scalar
from .optimizer import Optimizer

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    def __init__(
        self,
        params,
        lr=1e-2,
        lr_decay=0,
        weight_decay=0,
        initial_accumulator_value=0,
        eps=1e-10,
        foreach=None,
        *,
        maximize=False,
        differentiable=False,
        fused=None,
    ):
        check(lr >= 0.0, f"Invalid learning rate: {lr}")
        check(lr_decay >= 0.0, f"Invalid lr_decay value: {lr_decay}")
        check(weight_decay >= 0.0, f"Invalid weight_decay value: {weight_decay}")
        check(initial_accumulator_value >= 0.0, f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        check(eps >= 0.0, f"Invalid epsilon value: {eps}")
        defaults = dict(
            lr=lr,
            lr_decay=lr_decay,
            eps=eps,
            weight_decay=weight_decay,
            initial_accumulator_value=initial_accumulator_value,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
            fused=fused,
        )
        super().__init__(params, defaults)
        # Adagrad creates its state eagerly, as PyTorch does
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = scalar(0.0)
                state["sum"] = mindtorch.full_like(p, group["initial_accumulator_value"])

    def step(self, closure=None):
        loss = self._run_closure(closure)
        with mindtorch.no_grad():
            for group in self.param_groups:
                lr, lr_decay, wd, eps = group["lr"], group["lr_decay"], group["weight_decay"], group["eps"]
                for p in group["params"]:
                    grad = p.grad
                    if grad is None:
                        continue
                    state = self.state[p]
                    step_t = state["step"]
                    step_t.add_(1)
                    step = step_t.item()
                    if group["maximize"]:
                        grad = -grad
                    if wd != 0:
                        grad = grad.add(p, alpha=wd)
                    clr = lr / (1 + (step - 1) * lr_decay)
                    state["sum"].addcmul_(grad, grad, value=1)
                    std = state["sum"].sqrt().add_(eps)
                    p.addcdiv_(grad, std, value=-clr)
        return loss
