"""Stochastic weight averaging and EMA of a model's weights: AveragedModel, SWALR, update_bn (PyTorch's rules)."""

import itertools
import math
import warnings
from copy import deepcopy

import mindtorch

from ..nn.modules.batchnorm import _BatchNorm
from ..nn.modules.module import Module
from .lr_scheduler import LRScheduler, _per_group

__all__ = [
    "AveragedModel",
    "update_bn",
    "SWALR",
    "get_ema_multi_avg_fn",
    "get_swa_multi_avg_fn",
    "get_ema_avg_fn",
    "get_swa_avg_fn",
]


def _check_decay(decay):
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")


def get_ema_avg_fn(decay=0.999):
    """Exponential moving average of one tensor: `decay * averaged + (1 - decay) * current`."""
    _check_decay(decay)

    @mindtorch.no_grad()
    def ema_update(ema_param, current_param, num_averaged):
        return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn():
    """Running equal-weight average of one tensor over the `num_averaged` models seen so far."""

    @mindtorch.no_grad()
    def swa_update(averaged_param, current_param, num_averaged):
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


def _lerp_all(averaged, current, weight):
    """averaged += weight * (current - averaged), in place for every pair (lerp_ only takes floating tensors)."""
    for a, c in zip(averaged, current, strict=True):
        if a.is_floating_point() or a.is_complex():
            a.lerp_(c, weight)
        else:
            a.copy_(a + (c - a) * weight)


def get_ema_multi_avg_fn(decay=0.999):
    """In-place EMA over lists of tensors (AveragedModel's `multi_avg_fn`)."""
    _check_decay(decay)

    @mindtorch.no_grad()
    def ema_update(ema_param_list, current_param_list, _):
        _lerp_all(ema_param_list, current_param_list, 1 - decay)

    return ema_update


def get_swa_multi_avg_fn():
    """In-place running average over lists of tensors (AveragedModel's default)."""

    @mindtorch.no_grad()
    def swa_update(averaged_param_list, current_param_list, num_averaged):
        n = num_averaged.item() if isinstance(num_averaged, mindtorch.Tensor) else num_averaged
        _lerp_all(averaged_param_list, current_param_list, 1.0 / (n + 1))

    return swa_update


class AveragedModel(Module):
    """A copy of `model` whose parameters (and buffers with `use_buffers=True`) are averaged by
    `update_parameters`; the first call copies the weights, later calls apply `avg_fn` / `multi_avg_fn`
    (an equal-weight running average when neither is given)."""

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", mindtorch.tensor(0, dtype=mindtorch.long, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def _averaged_tensors(self, model):
        if self.use_buffers:
            return (
                itertools.chain(self.module.parameters(), self.module.buffers()),
                itertools.chain(model.parameters(), model.buffers()),
            )
        return self.parameters(), model.parameters()

    def update_parameters(self, model):
        mine, theirs = self._averaged_tensors(model)
        averaged, current = [], []
        first = int(self.n_averaged.item()) == 0
        for p_avg, p_model in zip(mine, theirs):
            p_model = p_model.detach().to(p_avg.device)
            averaged.append(p_avg.detach())
            current.append(p_model)
            if first:
                p_avg.detach().copy_(p_model)
        if not first:
            if self.avg_fn is not None:
                for a, c in zip(averaged, current, strict=True):
                    a.copy_(self.avg_fn(a, c, self.n_averaged.to(a.device)))
            else:
                for group in self._by_device_and_dtype(averaged, current):
                    (self.multi_avg_fn or get_swa_multi_avg_fn())(*group, self.n_averaged.to(group[0][0].device))
        if not self.use_buffers:
            # buffers are not averaged: keep them equal to the source model's
            for b_swa, b_model in zip(self.module.buffers(), model.buffers(), strict=True):
                b_swa.detach().copy_(b_model.detach().to(b_swa.device))
        self.n_averaged += 1

    @staticmethod
    def _by_device_and_dtype(averaged, current):
        groups = {}
        for a, c in zip(averaged, current, strict=True):
            pair = groups.setdefault((str(a.device), a.dtype), ([], []))
            pair[0].append(a)
            pair[1].append(c)
        return list(groups.values())


@mindtorch.no_grad()
def update_bn(loader, model, device=None):
    """Recompute every BatchNorm's running statistics with one pass over `loader` (after weight averaging)."""
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None  # cumulative average over the whole pass
    for batch in loader:
        if isinstance(batch, (list, tuple)):
            batch = batch[0]
        if device is not None:
            batch = batch.to(device)
        model(batch)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneals each group's learning rate to its `swa_lr` over `anneal_epochs` steps ("cos" or "linear"),
    then holds it."""

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos", last_epoch=-1):
        for lr, group in zip(_per_group("swa_lr", optimizer, swa_lr), optimizer.param_groups):
            group["swa_lr"] = lr
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._anneal_strategy = anneal_strategy
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    def anneal_func(self, t):
        return t if self._anneal_strategy == "linear" else (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        # the lr this schedule started from, recovered from the current lr and the previous alpha
        return swa_lr if alpha == 1 else (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self):
        if not self._get_lr_called_within_step:
            warnings.warn(
                "To get the last learning rate computed by the scheduler, please use `get_last_lr()`.",
                UserWarning,
                stacklevel=2,
            )
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_alpha = self.anneal_func(max(0, min(1, (step - 1) / max(1, self.anneal_epochs))))
        prev_lrs = [self._get_initial_lr(g["lr"], g["swa_lr"], prev_alpha) for g in self.optimizer.param_groups]
        alpha = self.anneal_func(max(0, min(1, step / max(1, self.anneal_epochs))))
        return [g["swa_lr"] * alpha + lr * (1 - alpha) for g, lr in zip(self.optimizer.param_groups, prev_lrs)]
