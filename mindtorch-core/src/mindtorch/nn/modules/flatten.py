"""Flatten and Unflatten (defined in misc.py) at PyTorch's path."""
from .misc import Flatten, Unflatten

__all__ = ["Flatten", "Unflatten"]
