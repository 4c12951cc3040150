"""Argument helpers shared by the modules."""

__all__ = []


def _ntuple(x, n):
    """`x` as an n-tuple: a list or tuple as given, a single value repeated."""
    return tuple(x) if isinstance(x, (tuple, list)) else (x,) * n
