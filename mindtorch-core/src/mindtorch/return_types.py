"""Named tuples returned by ops such as max(dim) (torch.return_types)."""

from .ops.reduction import RETURN_TYPES as _RT

globals().update(_RT)
__all__ = list(_RT)
