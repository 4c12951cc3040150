"""SGD, Adam, AdamW, RMSprop, Adagrad: PyTorch's updates, op for op; SGD, Adam and AdamW run as one
foreach op per parameter group (ops/foreach.py), or its single-tensor composite with foreach=False."""

import mindtorch
from ..ops import foreach as _F
from .optimizer import Optimizer

__all__ = ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad"]


def _check(cond, msg):
    if not cond:
        raise ValueError(msg)


def _zero_step():
    return mindtorch.tensor(0.0, dtype=mindtorch.float32)


class SGD(Optimizer):
    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *, maximize=False,
                 foreach=None, differentiable=False, fused=None):
        _check(lr >= 0.0, f"Invalid learning rate: {lr}")
        _check(momentum >= 0.0, f"Invalid momentum value: {momentum}")
        _check(weight_decay >= 0.0, f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay, nesterov=nesterov,
                        maximize=maximize, foreach=foreach, differentiable=differentiable, fused=fused)
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
                        _run(group, mindtorch.ops._foreach_sgd_, _F.sgd_composite, ps, [p.grad for p in ps], bufs,
                             lr=group["lr"], momentum=momentum, dampening=group["dampening"],
                             weight_decay=group["weight_decay"], nesterov=group["nesterov"],
                             maximize=group["maximize"], fresh=is_fresh)
        return loss


def _run(group, fused, single, params, *lists, **options):
    """The foreach op (one call for the group) unless foreach=False asks for the single-tensor loop;
    lists that mix devices or dtypes also take the loop."""
    p0 = params[0]
    if group.get("foreach") is False or any(p.device != p0.device or p.dtype != p0.dtype for p in params):
        return single(params, *lists, **options)
    return fused(params, *lists, **options)


class Adam(Optimizer):
    _decoupled_default = False

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=None):
        if decoupled_weight_decay is None:
            decoupled_weight_decay = self._decoupled_default
        _check(0.0 <= lr, f"Invalid learning rate: {lr}")
        _check(0.0 <= eps, f"Invalid epsilon value: {eps}")
        _check(0.0 <= betas[0] < 1.0, f"Invalid beta parameter at index 0: {betas[0]}")
        _check(0.0 <= betas[1] < 1.0, f"Invalid beta parameter at index 1: {betas[1]}")
        _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
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
                        state["step"] = _zero_step()
                        state["exp_avg"] = mindtorch.zeros_like(p)
                        state["exp_avg_sq"] = mindtorch.zeros_like(p)
                        if amsgrad:
                            state["max_exp_avg_sq"] = mindtorch.zeros_like(p)
                st = [self.state[p] for p in params]
                _run(group, mindtorch.ops._foreach_adam_, _F.adam_composite, params, [p.grad for p in params],
                     [s["exp_avg"] for s in st], [s["exp_avg_sq"] for s in st],
                     [s["max_exp_avg_sq"] for s in st] if amsgrad else [], [s["step"] for s in st],
                     lr=group["lr"], beta1=beta1, beta2=beta2, weight_decay=group["weight_decay"], eps=group["eps"],
                     amsgrad=amsgrad, maximize=group["maximize"], decoupled=group["decoupled_weight_decay"])
        return loss


class AdamW(Adam):
    _decoupled_default = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)


class RMSprop(Optimizer):
    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        _check(0.0 <= lr, f"Invalid learning rate: {lr}")
        _check(0.0 <= eps, f"Invalid epsilon value: {eps}")
        _check(0.0 <= momentum, f"Invalid momentum value: {momentum}")
        _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        _check(0.0 <= alpha, f"Invalid alpha value: {alpha}")
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered, weight_decay=weight_decay,
                        capturable=capturable, foreach=foreach, maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)

    def step(self, closure=None):
        loss = self._run_closure(closure)
        with mindtorch.no_grad():
            for group in self.param_groups:
                lr, alpha, eps, wd = group["lr"], group["alpha"], group["eps"], group["weight_decay"]
                momentum, centered, maximize = group["momentum"], group["centered"], group["maximize"]
                for p in group["params"]:
                    grad = p.grad
                    if grad is None:
                        continue
                    state = self.state[p]
                    if not state:
                        state["step"] = _zero_step()
                        state["square_avg"] = mindtorch.zeros_like(p)
                        if momentum > 0:
                            state["momentum_buffer"] = mindtorch.zeros_like(p)
                        if centered:
                            state["grad_avg"] = mindtorch.zeros_like(p)
                    if maximize:
                        grad = -grad
                    state["step"].add_(1)
                    if wd != 0:
                        grad = grad.add(p, alpha=wd)
                    square_avg = state["square_avg"]
                    square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
                    if centered:
                        grad_avg = state["grad_avg"]
                        grad_avg.lerp_(grad, 1 - alpha)
                        avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
                    else:
                        avg = square_avg.sqrt()
                    avg = avg.add_(eps)
                    if momentum > 0:
                        buf = state["momentum_buffer"]
                        buf.mul_(momentum).addcdiv_(grad, avg)
                        p.add_(buf, alpha=-lr)
                    else:
                        p.addcdiv_(grad, avg, value=-lr)
        return loss


class Adagrad(Optimizer):
    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None):
        _check(0.0 <= lr, f"Invalid learning rate: {lr}")
        _check(0.0 <= lr_decay, f"Invalid lr_decay value: {lr_decay}")
        _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        _check(0.0 <= initial_accumulator_value,
               f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        _check(0.0 <= eps, f"Invalid epsilon value: {eps}")
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        # Adagrad creates its state eagerly, as PyTorch does
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = _zero_step()
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
