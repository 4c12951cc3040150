"""torch.save / torch.load across the library boundary."""
