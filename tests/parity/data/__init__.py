"""torch.utils.data: DataLoader workers and samplers."""
