"""Adam: PyTorch's update, run as one foreach op per parameter group (ops/foreach.py), or its
single-tensor composite with foreach=False."""

import mindtorch

from ..ops import foreach as _F
from ._param_updates import check_adam_args, run_group, scalar
from .optimizer import Optimizer

__all__ = ["Adam"]


class Adam(Optimizer):
    _decoupled_default = False

    def __init__(
        self,
        params,
        lr=1e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        amsgrad=False,
        *,
        foreach=None,
        maximize=False,
        capturable=False,
        differentiable=False,
        fused=None,
        decoupled_weight_decay=None,
    ):
        if decoupled_weight_decay is None:
            decoupled_weight_decay = self._decoupled_default
        check_adam_args(lr, eps, betas, weight_decay)
        defaults = dict(
            lr=lr,
            betas=betas,
            eps=eps,
            weight_decay=weight_decay,
            amsgrad=amsgrad,
            maximize=maximize,
            foreach=foreach,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
            decoupled_weight_decay=decoupled_weight_decay,
        )
        super().__init__(params, defaults)

    def step(self, closure=None):
        loss = self._run_closure(closure)
        with mindtorch.no_grad():
            for group in self.param_groups:
                beta1, beta2 = group["betas"]
                amsgrad = group["amsgrad"]
                params = [p for p in group["params"] if p.grad is not None]
                if not params:
                    continue
                for p in params:
                    state = self.state[p]
                    if not state:
                        state["step"] = scalar(0.0)
                        state["exp_avg"] = mindtorch.zeros_like(p)
                        state["exp_avg_sq"] = mindtorch.zeros_like(p)
                        if amsgrad:
                            state["max_exp_avg_sq"] = mindtorch.zeros_like(p)
                st = [self.state[p] for p in params]
                run_group(
                    group,
                    mindtorch.ops._foreach_adam_,
                    _F.adam_composite,
                    params,
                    [p.grad for p in params],
                    [s["exp_avg"] for s in st],
                    [s["exp_avg_sq"] for s in st],
                    [s["max_exp_avg_sq"] for s in st] if amsgrad else [],
                    [s["step"] for s in st],
                    lr=group["lr"],
                    beta1=beta1,
                    beta2=beta2,
                    weight_decay=group["weight_decay"],
                    eps=group["eps"],
                    amsgrad=amsgrad,
                    maximize=group["maximize"],
                    decoupled=group["decoupled_weight_decay"],
                )
        return loss
