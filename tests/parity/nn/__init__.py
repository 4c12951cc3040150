"""torch.nn: functional, layers and modules, init, attention, the top-level forms."""
