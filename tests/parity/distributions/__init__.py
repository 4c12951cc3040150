"""torch.distributions: distributions and constraints."""
