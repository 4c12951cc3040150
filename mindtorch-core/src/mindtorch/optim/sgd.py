"""SGD: PyTorch's update, run as one foreach op per parameter group (ops/foreach.py), or its
single-tensor composite with foreach=False."""

import mindtorch

from ..ops import foreach as _F
from ._param_updates import check, run_group
from .optimizer import Optimizer

__all__ = ["SGD"]


class SGD(Optimizer):
    def __init__(
        self,
        params,
        lr=1e-3,
        momentum=0,
        dampening=0,
        weight_decay=0,
        nesterov=False,
        *,
        maximize=False,
        foreach=None,
        differentiable=False,
        fused=None,
    ):
        check(lr >= 0.0, f"Invalid learning rate: {lr}")
        check(momentum >= 0.0, f"Invalid momentum value: {momentum}")
        check(weight_decay >= 0.0, f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(
            lr=lr,
            momentum=momentum,
            dampening=dampening,
            weight_decay=weight_decay,
            nesterov=nesterov,
            maximize=maximize,
            foreach=foreach,
            differentiable=differentiable,
            fused=fused,
        )
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    def step(self, closure=None):
        loss = self._run_closure(closure)
        with mindtorch.no_grad():
            for group in self.param_groups:
                momentum = group["momentum"]
                params = [p for p in group["params"] if p.grad is not None]
                # buffers made on this step start as the gradient (no dampening): a separate call
                fresh, old = [], []
                for p in params:
                    if momentum != 0 and self.state[p].get("momentum_buffer") is None:
                        self.state[p]["momentum_buffer"] = mindtorch.empty_like(p)
                        fresh.append(p)
                    else:
                        old.append(p)
                for ps, is_fresh in ((fresh, True), (old, False)):
                    if ps:
                        bufs = [self.state[p]["momentum_buffer"] for p in ps] if momentum != 0 else []
                        run_group(
                            group,
                            mindtorch.ops._foreach_sgd_,
                            _F.sgd_composite,
                            ps,
                            [p.grad for p in ps],
                            bufs,
                            lr=group["lr"],
                            momentum=momentum,
                            dampening=group["dampening"],
                            weight_decay=group["weight_decay"],
                            nesterov=group["nesterov"],
                            maximize=group["maximize"],
                            fresh=is_fresh,
                        )
        return loss
