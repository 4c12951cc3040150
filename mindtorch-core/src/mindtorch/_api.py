"""Hand-written public functions that are not single ops (save/load and friends come later)."""
__all__ = []
