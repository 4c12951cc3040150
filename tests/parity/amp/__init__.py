"""torch.amp: GradScaler and autocast."""
