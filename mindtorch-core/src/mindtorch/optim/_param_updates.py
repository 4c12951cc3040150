"""Pieces the optimizers' steps share: argument checks, the float32 scalars PyTorch keeps in the state,
the per-parameter update loop, and the choice between a group's foreach op and its single-tensor loop.

Scalars that PyTorch keeps as float32 tensors in the state (step, mu_product, eta, mu) are float32
tensors here too, so the arithmetic rounds the same way and state_dicts load across libraries.
"""

import mindtorch

from .optimizer import Optimizer


def check(cond, msg):
    if not cond:
        raise ValueError(msg)


def scalar(value):
    """A float32 0-dim tensor, as PyTorch keeps step counters and similar scalars."""
    return mindtorch.tensor(value, dtype=mindtorch.float32)


def check_betas(betas):
    check(0.0 <= betas[0] < 1.0, f"Invalid beta parameter at index 0: {betas[0]}")
    check(0.0 <= betas[1] < 1.0, f"Invalid beta parameter at index 1: {betas[1]}")


def check_adam_args(lr, eps, betas, weight_decay):
    """The Adam family's constructor checks, in PyTorch's order and wording."""
    check(lr >= 0.0, f"Invalid learning rate: {lr}")
    check(eps >= 0.0, f"Invalid epsilon value: {eps}")
    check_betas(betas)
    check(weight_decay >= 0.0, f"Invalid weight_decay value: {weight_decay}")


def run_group(group, fused, single, params, *lists, **options):
    """The foreach op (one call for the group) unless foreach=False asks for the single-tensor loop;
    lists that mix devices or dtypes also take the loop."""
    p0 = params[0]
    if group.get("foreach") is False or any(p.device != p0.device or p.dtype != p0.dtype for p in params):
        return single(params, *lists, **options)
    return fused(params, *lists, **options)


class PerParameter(Optimizer):
    """Shared loop: for every parameter with a gradient, `_update(p, grad, state, group)` under no_grad."""

    def step(self, closure=None):
        loss = self._run_closure(closure)
        with mindtorch.no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    grad = -p.grad if group.get("maximize") else p.grad
                    self._update(p, grad, self.state[p], group)
        return loss
