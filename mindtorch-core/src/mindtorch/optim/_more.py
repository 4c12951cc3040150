"""Adadelta, Adamax, NAdam, RAdam, ASGD, Rprop, Adafactor, Muon: PyTorch's single-tensor updates, op for op.

Scalars that PyTorch keeps as float32 tensors in the state (step, mu_product, eta, mu) are float32
tensors here too, so the arithmetic rounds the same way and state_dicts load across libraries.
"""
import math

import mindtorch
from .optimizer import Optimizer

__all__ = ["Adadelta", "Adamax", "NAdam", "RAdam", "ASGD", "Rprop", "Adafactor", "Muon"]


def _check(cond, msg):
    if not cond:
        raise ValueError(msg)


def _scalar(value):
    return mindtorch.tensor(value, dtype=mindtorch.float32)


def _betas(betas):
    _check(0.0 <= betas[0] < 1.0, f"Invalid beta parameter at index 0: {betas[0]}")
    _check(0.0 <= betas[1] < 1.0, f"Invalid beta parameter at index 1: {betas[1]}")


class _Single(Optimizer):
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


class Adadelta(_Single):
    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False):
        _check(0.0 <= lr, f"Invalid learning rate: {lr}")
        _check(0.0 <= rho <= 1.0, f"Invalid rho value: {rho}")
        _check(0.0 <= eps, f"Invalid epsilon value: {eps}")
        _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                                      capturable=capturable, foreach=foreach, differentiable=differentiable))

    def _update(self, p, grad, state, group):
        if not state:
            state["step"] = _scalar(0.0)
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


class Adamax(_Single):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False):
        _check(0.0 <= lr, f"Invalid learning rate: {lr}")
        _check(0.0 <= eps, f"Invalid epsilon value: {eps}")
        _betas(betas)
        _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable, capturable=capturable))

    def _update(self, p, grad, state, group):
        if not state:
            state["step"] = _scalar(0.0)
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


class NAdam(_Single):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        _check(0.0 <= lr, f"Invalid learning rate: {lr}")
        _check(0.0 <= eps, f"Invalid epsilon value: {eps}")
        _betas(betas)
        _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        _check(0.0 <= momentum_decay, f"Invalid momentum_decay value: {momentum_decay}")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      momentum_decay=momentum_decay, decoupled_weight_decay=decoupled_weight_decay,
                                      maximize=maximize, foreach=foreach, capturable=capturable,
                                      differentiable=differentiable))

    def _update(self, p, grad, state, group):
        if not state:
            state["step"] = _scalar(0.0)
            state["mu_product"] = _scalar(1.0)
            state["exp_avg"] = mindtorch.zeros_like(p)
            state["exp_avg_sq"] = mindtorch.zeros_like(p)
        beta1, beta2 = group["betas"]
        lr, wd, md = group["lr"], group["weight_decay"], group["momentum_decay"]
        exp_avg, exp_avg_sq, mu_product = state["exp_avg"], state["exp_avg_sq"], state["mu_product"]
        state["step"].add_(1)
        step = state["step"].item()
        bias_correction2 = 1 - beta2 ** step
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


class RAdam(_Single):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, decoupled_weight_decay=False,
                 *, foreach=None, maximize=False, capturable=False, differentiable=False):
        _check(0.0 <= lr, f"Invalid learning rate: {lr}")
        _check(0.0 <= eps, f"Invalid epsilon value: {eps}")
        _betas(betas)
        _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach,
                                      maximize=maximize, capturable=capturable,
                                      decoupled_weight_decay=decoupled_weight_decay, differentiable=differentiable))

    def _update(self, p, grad, state, group):
        if not state:
            state["step"] = _scalar(0.0)
            state["exp_avg"] = mindtorch.zeros_like(p)
            state["exp_avg_sq"] = mindtorch.zeros_like(p)
        beta1, beta2 = group["betas"]
        lr, wd = group["lr"], group["weight_decay"]
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        state["step"].add_(1)
        step = state["step"].item()
        if wd != 0:
            if group["decoupled_weight_decay"]:
                p.mul_(1 - lr * wd)
            else:
                grad = grad.add(p, alpha=wd)
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        corrected = exp_avg / bias_correction1
        # the length of the approximated simple moving average decides whether the variance is tractable
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
        if rho_t > 5.0:
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            adaptive = (bias_correction2 ** 0.5) / exp_avg_sq.sqrt().add_(group["eps"])
            p.add_(corrected * lr * adaptive * rect, alpha=-1.0)
        else:
            p.add_(corrected * lr, alpha=-1.0)


class ASGD(_Single):
    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None,
                 maximize=False, differentiable=False, capturable=False):
        _check(0.0 <= lr, f"Invalid learning rate: {lr}")
        _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                                      foreach=foreach, maximize=maximize, capturable=capturable,
                                      differentiable=differentiable))

    def _update(self, p, grad, state, group):
        lr, lambd, alpha, t0 = group["lr"], group["lambd"], group["alpha"], group["t0"]
        if not state:
            state["step"] = _scalar(0.0)
            state["eta"] = _scalar(lr)
            state["mu"] = _scalar(1.0)
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
        eta.copy_(_scalar(lr / ((1 + lambd * lr * step) ** alpha)))
        mu.copy_(_scalar(1 / max(1, step - t0)))


class Rprop(_Single):
    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False, foreach=None,
                 maximize=False, differentiable=False):
        _check(0.0 <= lr, f"Invalid learning rate: {lr}")
        _check(0.0 < etas[0] < 1.0 < etas[1], f"Invalid eta values: {etas[0]}, {etas[1]}")
        super().__init__(params, dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach, maximize=maximize,
                                      differentiable=differentiable, capturable=capturable))

    def _update(self, p, grad, state, group):
        if not state:
            state["step"] = _scalar(0.0)
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


class Adafactor(_Single):
    """Adafactor with PyTorch's defaults: the second moment of a matrix is kept as a row and a column factor
    over its last two dimensions, the step is relative to the parameter's RMS and clipped at `d`."""

    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0, weight_decay=0.0, *,
                 foreach=None, maximize=False):
        if isinstance(lr, mindtorch.Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        _check(0.0 <= lr, f"Learning rate should be >= 0 but is: {lr}")
        _check(0.0 >= beta2_decay, f"beta2_decay should be <= 0 but is: {beta2_decay}")
        _check(eps[0] is None or 0.0 <= eps[0], f"epsilon1 should be >= 0 but is: {eps[0]}")
        _check(0.0 <= eps[1], f"epsilon2 should be >= 0 but is: {eps[1]}")
        _check(1.0 <= d, f"Clipping threshold d should be >= 1 but is: {d}")
        _check(0.0 <= weight_decay, f"weight_decay should be >= 0 but is: {weight_decay}")
        super().__init__(params, dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d, weight_decay=weight_decay,
                                      foreach=foreach, maximize=maximize))

    def _update(self, p, grad, state, group):
        if p.is_complex():
            raise RuntimeError("Adafactor does not support complex parameters")
        factored = grad.dim() > 1
        if not state:
            state["step"] = _scalar(0.0)
            if factored:
                state["row_var"] = grad.new_zeros(tuple(grad.shape[:-1]) + (1,))
                state["col_var"] = grad.new_zeros(tuple(grad.shape[:-2]) + (1, grad.shape[-1]))
            else:
                state["variance"] = mindtorch.zeros_like(grad)
        lr = float(group["lr"])
        eps1, eps2 = group["eps"]
        if eps1 is None:
            eps1 = mindtorch.finfo(p.dtype).eps
        state["step"].add_(1)
        step = state["step"].item()
        beta2_weight = step ** group["beta2_decay"]  # 1 - beta2_t
        alpha = max(eps2, p.norm(2).item() / p.numel() ** 0.5) * min(lr, 1 / step ** 0.5)
        if group["weight_decay"] != 0:
            p.mul_(1 - lr * group["weight_decay"])
        if factored:
            row_var, col_var = state["row_var"], state["col_var"]
            row_var.lerp_(grad.norm(dim=-1, keepdim=True).square_().div_(grad.shape[-1]), beta2_weight)
            col_var.lerp_(grad.norm(dim=-2, keepdim=True).square_().div_(grad.shape[-2]), beta2_weight)
            var_estimate = (row_var @ col_var).div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=eps1))
        else:
            state["variance"].lerp_(grad * grad, beta2_weight)
            var_estimate = state["variance"].clone()
        update = var_estimate.clamp_(min=eps1 * eps1).rsqrt_().mul_(grad)
        denom = max(1.0, update.norm(2).item() / (update.numel() ** 0.5 * group["d"]))
        p.add_(update, alpha=-alpha / denom)


def _orthogonalize(grad, coefficients, steps, eps):
    """Newton-Schulz iterations toward the nearest semi-orthogonal matrix, in bfloat16 as PyTorch's Muon."""
    if steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if grad.dim() != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = coefficients
    tall = grad.shape[0] > grad.shape[1]
    x = grad.bfloat16()
    if tall:
        x = x.T
    x = x.div(x.norm().clamp(min=eps))
    for _ in range(steps):
        gram = x @ x.T
        x = mindtorch.addmm(x, mindtorch.addmm(gram, gram, gram, beta=b, alpha=c), x, beta=a)
    return x.T if tall else x


class Muon(_Single):
    """Muon for 2-D parameters: Nesterov momentum, then the update orthogonalized by Newton-Schulz."""

    def __init__(self, params, lr=1e-3, weight_decay=0.1, momentum=0.95, nesterov=True,
                 ns_coefficients=(3.4445, -4.775, 2.0315), eps=1e-7, ns_steps=5, adjust_lr_fn=None):
        if isinstance(lr, mindtorch.Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        _check(0.0 <= lr, f"Learning rate should be >= 0 but is: {lr}")
        _check(0.0 <= momentum, f"momentum should be >= 0 but is: {momentum}")
        _check(0.0 <= weight_decay, f"weight decay should be >= 0 but is: {weight_decay}")
        _check(adjust_lr_fn in (None, "original", "match_rms_adamw"),
               f"Adjust learning rate function {adjust_lr_fn} is not supported")
        super().__init__(params, dict(lr=lr, weight_decay=weight_decay, momentum=momentum, nesterov=nesterov,
                                      ns_coefficients=ns_coefficients, eps=eps, ns_steps=ns_steps,
                                      adjust_lr_fn=adjust_lr_fn))
        for group in self.param_groups:
            for p in group["params"]:
                _check(p.dim() == 2, f"Muon only supports 2D parameters whereas we found a parameter with size: "
                                     f"{p.size()}")

    def _update(self, p, grad, state, group):
        if p.is_complex():
            raise RuntimeError("Muon does not support complex parameters")
        if grad.dim() != 2:
            raise ValueError("Param gradient must be a 2D matrix")
        if "momentum_buffer" not in state:
            state["momentum_buffer"] = mindtorch.zeros_like(grad)
        buf = state["momentum_buffer"]
        buf.lerp_(grad, 1 - group["momentum"])
        update = grad.lerp(buf, group["momentum"]) if group["nesterov"] else buf
        update = _orthogonalize(update, group["ns_coefficients"], group["ns_steps"], group["eps"])
        rows, cols = p.shape[:2]
        lr = float(group["lr"])
        scale = {None: math.sqrt(max(1, rows / cols)), "original": math.sqrt(max(1, rows / cols)),
                 "match_rms_adamw": 0.2 * math.sqrt(max(rows, cols))}[group["adjust_lr_fn"]]
        p.mul_(1 - lr * group["weight_decay"])
        p.add_(update, alpha=-lr * scale)
