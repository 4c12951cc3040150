"""torch.optim: optimizers, schedulers, hooks, swa_utils."""
